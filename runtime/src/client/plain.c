/* Unverified reads (the client's no-verify mode): plain GETs of /ipfs/... paths
 * or any http(s) URL, resumed with Range on the next gateway after a failure.
 * A guess is a plain GET a verified read makes of a file that may be one raw
 * block: its bytes are used only once hashed (many.c), so one attempt is all,
 * and the body is capped at the client's largest block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client_internal.h"

struct plain_read {
    task t;
    const char *url;     /* a full http(s) URL, or NULL */
    char ipfs_path[2048];
    uint64_t offset, length, written;
    ipfsrt_unixfs_write_fn write;
    void *user;
    ipfsrt_status write_status;
    ipfsrt_error write_err;
    uint64_t skip; /* bytes to drop when a server ignored Range */
    bool from_end; /* the last length bytes: "Range: bytes=-N" */
    bool empty;    /* nothing to read: over at once */
    bool cut;      /* a body longer than the range asked: stopped there */
    bool whole;    /* the answer held the object from its first byte to its last */
    uint64_t object_size; /* from a 206's Content-Range; UINT64_MAX when not known */
};

static void plain_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    plain_read *r = t->owner;
    snprintf(path, path_size, "%s", r->url ? r->url : r->ipfs_path);
    query[0] = '\0';
    (void)query_size;
    uint64_t from = r->offset + r->written;
    if (r->from_end) /* what is still missing is the tail of the tail */
        snprintf(t->range, sizeof t->range, "-%llu", (unsigned long long)(r->length - r->written));
    else if (from == 0 && r->length == UINT64_MAX) t->range[0] = '\0';
    else if (r->length == UINT64_MAX)
        snprintf(t->range, sizeof t->range, "%llu-", (unsigned long long)from);
    else
        snprintf(t->range, sizeof t->range, "%llu-%llu", (unsigned long long)from,
                 (unsigned long long)(r->offset + r->length - 1));
}

static int plain_body(attempt *a, const uint8_t *data, size_t len) {
    plain_read *r = a->t->owner;
    if (r->from_end && a->status != 206) { /* the whole file: where its tail starts is not known yet */
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "HTTP %ld to a suffix Range", a->status);
        return 1;
    }
    if (a->status == 200 && a->bytes == len) r->skip = r->offset + r->written; /* Range ignored */
    if (r->skip) {
        size_t drop = r->skip < len ? (size_t)r->skip : len;
        r->skip -= drop;
        data += drop;
        len -= drop;
    }
    if (r->length != UINT64_MAX && len > r->length - r->written) { /* more than the range asked */
        if (a->status == 206 || r->from_end) {
            ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "a partial answer longer than the %llu bytes asked",
                                (unsigned long long)r->length);
            return 1;
        }
        len = (size_t)(r->length - r->written); /* a whole body (Range ignored): what was asked, then stop */
        r->cut = true;
        if (len) r->write_status = r->write(r->user, data, len, &r->write_err);
        if (r->write_status != IPFSRT_OK) return 1;
        r->written += len;
        a->enough = true;
        return 1;
    }
    if (!len) return 0;
    r->write_status = r->write(r->user, data, len, &r->write_err);
    if (r->write_status != IPFSRT_OK) return 1;
    r->written += len;
    return 0;
}

static void plain_head(attempt *a, const ipfsrt_fetch_head *head) {
    plain_read *r = a->t->owner;
    uint64_t from, to, total;
    r->object_size = UINT64_MAX;
    if (head->status == 206 && ipfsrt_fetch_content_range_parse(head->content_range, &from, &to, &total))
        r->object_size = total;
}

/* A range may reach past the object's end (a chunk asked for with room to
 * spare): a whole body (200), or a part that ends where the object does,
 * is all there is. */
static bool ended_with_object(const attempt *a, const plain_read *r) {
    if (a->status == 200) return true;
    return r->object_size != UINT64_MAX && r->offset + r->written == r->object_size;
}

static ipfsrt_gateway_error plain_complete(attempt *a) {
    plain_read *r = a->t->owner;
    if (!r->from_end && r->length != UINT64_MAX && r->written < r->length && !ended_with_object(a, r)) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "body ended after %llu of %llu bytes",
                     (unsigned long long)r->written, (unsigned long long)r->length);
        return a->error;
    }
    r->whole = !r->cut && r->offset == 0 && !r->from_end && ended_with_object(a, r);
    return IPFSRT_GWERR_NONE;
}

static const task_ops plain_ops = {plain_request, plain_body, plain_complete, NULL, plain_head, NULL,
                                   false, false, false};
static const task_ops guess_ops = {plain_request, plain_body, plain_complete, NULL, plain_head, NULL,
                                   true, false, true};

static ipfsrt_status begin(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length, bool from_end,
                           const task_ops *ops, ipfsrt_unixfs_write_fn write, void *user, plain_read **out,
                           ipfsrt_error *err) {
    *out = NULL;
    plain_read *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0) {
        r->url = path;
    } else {
        ipfsrt_cid root;
        const char *rest;
        st = ipfsrt_client_split_target(path, &root, &rest, err);
        if (st == IPFSRT_OK) st = ipfsrt_path_to_url(&root, rest, r->ipfs_path, sizeof r->ipfs_path, err);
    }
    if (st != IPFSRT_OK) {
        free(r);
        return st;
    }
    r->offset = from_end ? 0 : offset;
    r->length = length;
    r->from_end = from_end;
    r->write = write;
    r->user = user;
    r->empty = length == 0;
    if (!r->empty) ipfsrt_task_begin(&r->t, c, ops, IPFSRT_REQUEST_PLAIN, r);
    *out = r;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_plain_begin(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                                 bool from_end, ipfsrt_unixfs_write_fn write, void *user, plain_read **out,
                                 ipfsrt_error *err) {
    return begin(c, path, offset, length, from_end, &plain_ops, write, user, out, err);
}

ipfsrt_status ipfsrt_plain_guess(ipfsrt_client *c, const char *path, uint64_t length, ipfsrt_unixfs_write_fn write,
                                 void *user, plain_read **out, ipfsrt_error *err) {
    return begin(c, path, 0, length, false, &guess_ops, write, user, out, err);
}

bool ipfsrt_plain_whole(const plain_read *r) { return r->whole; }

bool ipfsrt_plain_over(plain_read *r, ipfsrt_status *st, ipfsrt_error *err) {
    *st = IPFSRT_OK;
    if (r->empty) return true;
    if (r->write_status != IPFSRT_OK) {
        *st = r->write_status;
        if (err) *err = r->write_err;
        return true;
    }
    if (r->t.state == TASK_FAILED) *st = ipfsrt_task_error(&r->t, err);
    return ipfsrt_task_over(&r->t);
}

void ipfsrt_plain_end(plain_read *r) {
    if (!r) return;
    if (!r->empty) ipfsrt_task_end(&r->t);
    free(r);
}

ipfsrt_status ipfsrt_plain_get(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                               ipfsrt_unixfs_write_fn write, void *user, ipfsrt_error *err) {
    plain_read *r;
    ipfsrt_status st = ipfsrt_plain_begin(c, path, offset, length, false, write, user, &r, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_status halt = IPFSRT_OK;
    while (!ipfsrt_plain_over(r, &st, err) && halt == IPFSRT_OK) halt = ipfsrt_task_pump(c, 100, err);
    if (halt != IPFSRT_OK) st = halt;
    ipfsrt_plain_end(r);
    return st;
}

typedef struct file_out {
    FILE *f;
    const char *path;
} file_out;

static ipfsrt_status write_file(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    file_out *o = user;
    if (fwrite(data, 1, len, o->f) != len)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", o->path);
    return IPFSRT_OK;
}

/* Unverified download of one file, into a temporary sibling renamed into place. */
ipfsrt_status ipfsrt_plain_export(ipfsrt_client *c, const char *path, const char *dest,
                                  ipfsrt_error *err) {
    if (access(dest, F_OK) == 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s already exists", dest);
    size_t n = strlen(dest) + 32;
    char *tmp = malloc(n);
    if (!tmp) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(tmp, n, "%s.part-XXXXXX", dest);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ipfsrt_status st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create a file next to %s", dest);
        free(tmp);
        return st;
    }
    file_out o = {fdopen(fd, "wb"), dest};
    ipfsrt_status st = o.f ? ipfsrt_plain_get(c, path, 0, UINT64_MAX, write_file, &o, err)
                           : ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write next to %s", dest);
    if (o.f && fclose(o.f) != 0 && st == IPFSRT_OK) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", dest);
    if (!o.f) close(fd);
    if (st == IPFSRT_OK && rename(tmp, dest) != 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s", dest);
    if (st != IPFSRT_OK) unlink(tmp);
    free(tmp);
    return st;
}
