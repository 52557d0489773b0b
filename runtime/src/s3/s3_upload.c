/* Files to S3, streamed from the file and never held whole: one PUT up to the
 * part size, else a multipart upload (initiate; the parts, a few in flight,
 * each read from its place in the file by every try and signed with its own
 * SHA-256; complete with the parts' ETags; abort when anything fails, so no
 * half upload is left to be billed). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "s3/s3_internal.h"
#include "ipfsrt/hash.h"
#include "base/base_internal.h"

#define PARTS_MAX 10000                /* S3's */
#define PART_MAX ((uint64_t)5 << 30)   /* S3's largest part */
#define PARTS_IN_FLIGHT 4
#define HASH_BUF ((size_t)1 << 20)
#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct upload {
    ipfsrt_s3 *s3;
    const char *key, *path;
    int fd;
    uint64_t size, part;
    size_t parts;
    char (*sha)[65];   /* per part */
    char (*etag)[128]; /* per part, as S3 answered it */
    char upload_id[1024];
    char id_query[3200]; /* "uploadId=..." */
} upload;

static void hex_of(const uint8_t digest[32], char hex[65]) {
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* SHA-256 of bytes [from, from + len) of the file, in hex. */
static ipfsrt_status range_sha256(upload *u, uint64_t from, uint64_t len, char hex[65], ipfsrt_hash_ctx *h,
                                  uint8_t *buf, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_hash_ctx_start(h, IPFSRT_SHA2_256, err);
    for (uint64_t done = 0; st == IPFSRT_OK && done < len;) {
        size_t want = len - done < HASH_BUF ? (size_t)(len - done) : HASH_BUF;
        ssize_t n = pread(u->fd, buf, want, (off_t)(from + done));
        if (n <= 0) return ipfsrt_fail(err, IPFSRT_EIO, (int64_t)(from + done), "%s: reading failed", u->path);
        st = ipfsrt_hash_ctx_update(h, buf, (size_t)n, err);
        done += (uint64_t)n;
    }
    uint8_t digest[32];
    if (st == IPFSRT_OK) st = ipfsrt_hash_ctx_finish(h, digest, err);
    if (st == IPFSRT_OK) hex_of(digest, hex);
    return st;
}

/* Each part's SHA-256 (the whole file's for one PUT), in one pass. */
static ipfsrt_status hash_parts(upload *u, ipfsrt_error *err) {
    ipfsrt_hash_ctx *h = NULL;
    uint8_t *buf = malloc(HASH_BUF);
    ipfsrt_status st = buf ? ipfsrt_hash_ctx_new(&h, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; st == IPFSRT_OK && i < u->parts; i++) {
        uint64_t from = i * u->part, len = u->size - from < u->part ? u->size - from : u->part;
        st = range_sha256(u, from, len, u->sha[i], h, buf, err);
    }
    ipfsrt_hash_ctx_free(h);
    free(buf);
    return st;
}

static void put_piece(s3_op *o, upload *u, size_t i) {
    ipfsrt_s3_op_init(o, u->s3, OP_PUT, u->key);
    o->index = i;
    o->put_fd = u->fd;
    o->put_offset = i * u->part;
    o->put_size = u->size - o->put_offset < u->part ? u->size - o->put_offset : u->part;
    memcpy(o->put_sha, u->sha[i], sizeof o->put_sha);
}

/* An XML answer that came with a 200 (kept in the op's body): read whole. */
static ipfsrt_status read_answer(const s3_op *o, ipfsrt_s3_xml *x, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_s3_xml_init(x, NULL, NULL, err);
    if (st == IPFSRT_OK && o->body.len) st = ipfsrt_s3_xml_feed(x, o->body.data, o->body.len, err);
    if (st == IPFSRT_OK) st = ipfsrt_s3_xml_finish(x, err);
    return st;
}

static ipfsrt_status report_initiated(void *user, s3_op *o, ipfsrt_error *err) {
    upload *u = user;
    if (o->status != IPFSRT_OK) return ipfsrt_s3_report_one(NULL, o, err);
    ipfsrt_s3_xml x;
    ipfsrt_status st = read_answer(o, &x, err);
    if (st == IPFSRT_OK) snprintf(u->upload_id, sizeof u->upload_id, "%s", x.upload_id);
    ipfsrt_s3_xml_free(&x);
    if (st == IPFSRT_OK && !u->upload_id[0])
        st = ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "S3 started the upload without an UploadId");
    return st;
}

static ipfsrt_status initiate(upload *u, ipfsrt_error *err) {
    s3_op o;
    ipfsrt_s3_op_init(&o, u->s3, OP_POST, u->key);
    o.query = "uploads=";
    memcpy(o.put_sha, EMPTY_SHA256, sizeof o.put_sha);
    ipfsrt_status st = ipfsrt_s3_run_ops(u->s3, &o, 1, report_initiated, u, err);
    char enc[sizeof u->id_query - 16];
    if (st == IPFSRT_OK && !ipfsrt_s3_uri_encode(u->upload_id, false, enc, sizeof enc))
        st = ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "S3's UploadId is too long");
    if (st == IPFSRT_OK) snprintf(u->id_query, sizeof u->id_query, "uploadId=%s", enc);
    return st;
}

static ipfsrt_status report_part(void *user, s3_op *o, ipfsrt_error *err) {
    upload *u = user;
    if (o->status != IPFSRT_OK) return ipfsrt_s3_report_one(NULL, o, err);
    if (!o->etag[0]) return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "S3 kept part %zu without an ETag", o->index + 1);
    snprintf(u->etag[o->index], sizeof u->etag[0], "%s", o->etag);
    return IPFSRT_OK;
}

/* The parts, PARTS_IN_FLIGHT at a time (each op holds an answer's worth). */
static ipfsrt_status send_parts(upload *u, ipfsrt_error *err) {
    s3_op ops[PARTS_IN_FLIGHT];
    char queries[PARTS_IN_FLIGHT][sizeof u->id_query + 32];
    ipfsrt_status st = IPFSRT_OK;
    for (size_t first = 0; st == IPFSRT_OK && first < u->parts; first += PARTS_IN_FLIGHT) {
        size_t n = u->parts - first < PARTS_IN_FLIGHT ? u->parts - first : PARTS_IN_FLIGHT;
        for (size_t k = 0; k < n; k++) {
            put_piece(&ops[k], u, first + k);
            /* canonical order: partNumber before uploadId */
            snprintf(queries[k], sizeof queries[k], "partNumber=%zu&%s", first + k + 1, u->id_query);
            ops[k].query = queries[k];
        }
        st = ipfsrt_s3_run_ops(u->s3, ops, n, report_part, u, err);
    }
    return st;
}

static ipfsrt_status report_completed(void *user, s3_op *o, ipfsrt_error *err) {
    (void)user;
    if (o->status != IPFSRT_OK) return ipfsrt_s3_report_one(NULL, o, err);
    /* S3 may answer 200 and still fail, saying so in the body */
    ipfsrt_s3_xml x;
    ipfsrt_status st = read_answer(o, &x, err);
    if (st == IPFSRT_OK && x.code[0])
        st = ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "completing the upload failed (%s: %s)", x.code, x.message);
    ipfsrt_s3_xml_free(&x);
    return st;
}

static ipfsrt_status complete(upload *u, ipfsrt_error *err) {
    ipfsrt_buf body;
    ipfsrt_buf_init(&body);
    static const char head[] = "<CompleteMultipartUpload>", tail[] = "</CompleteMultipartUpload>";
    ipfsrt_buf_append(&body, head, sizeof head - 1);
    for (size_t i = 0; i < u->parts; i++) {
        char part[256];
        int n = snprintf(part, sizeof part, "<Part><PartNumber>%zu</PartNumber><ETag>%s</ETag></Part>", i + 1,
                         u->etag[i]);
        ipfsrt_buf_append(&body, part, (size_t)n);
    }
    ipfsrt_buf_append(&body, tail, sizeof tail - 1);
    uint8_t digest[32];
    ipfsrt_status st = body.failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory")
                                   : ipfsrt_hash_digest(IPFSRT_SHA2_256, body.data, body.len, digest, err);
    s3_op o;
    ipfsrt_s3_op_init(&o, u->s3, OP_POST, u->key);
    o.query = u->id_query;
    o.put_data = body.data;
    o.put_len = body.len;
    if (st == IPFSRT_OK) hex_of(digest, o.put_sha);
    if (st == IPFSRT_OK) st = ipfsrt_s3_run_ops(u->s3, &o, 1, report_completed, u, err);
    ipfsrt_buf_free(&body);
    return st;
}

/* Best effort: an upload left open keeps its parts (and their cost) on S3. */
static void abort_upload(upload *u) {
    s3_op o;
    ipfsrt_s3_op_init(&o, u->s3, OP_DELETE, u->key);
    o.query = u->id_query;
    (void)ipfsrt_s3_run_ops(u->s3, &o, 1, ipfsrt_s3_report_one, NULL, NULL);
}

static ipfsrt_status multipart(upload *u, ipfsrt_error *err) {
    ipfsrt_status st = initiate(u, err);
    if (st != IPFSRT_OK) return st;
    st = send_parts(u, err);
    if (st == IPFSRT_OK) st = complete(u, err);
    if (st != IPFSRT_OK) abort_upload(u);
    return st;
}

/* Parts of the configured size, doubled until S3's 10,000 are enough. */
static ipfsrt_status plan_parts(upload *u, ipfsrt_error *err) {
    u->part = ipfsrt_s3_part_size(u->s3);
    while ((u->size + u->part - 1) / u->part > PARTS_MAX && u->part <= PART_MAX / 2) u->part *= 2;
    u->parts = u->size ? (size_t)((u->size + u->part - 1) / u->part) : 1;
    if (u->parts > PARTS_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%llu bytes is more than S3 takes in one object",
                           (unsigned long long)u->size);
    u->sha = calloc(u->parts, sizeof *u->sha);
    u->etag = calloc(u->parts, sizeof *u->etag);
    return u->sha && u->etag ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

ipfsrt_status ipfsrt_s3_put_file(ipfsrt_s3 *s, const char *key, const char *path, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    IPFSRT_NEED(path, err);
    upload u = {.s3 = s, .key = key, .path = path, .fd = open(path, O_RDONLY | O_CLOEXEC)};
    struct stat sb;
    if (u.fd < 0 || fstat(u.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (u.fd >= 0) close(u.fd);
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot open it as a file", path);
    }
    u.size = (uint64_t)sb.st_size;
    ipfsrt_status st = plan_parts(&u, err);
    if (st == IPFSRT_OK) st = hash_parts(&u, err);
    if (st == IPFSRT_OK && u.parts == 1) {
        s3_op o;
        put_piece(&o, &u, 0);
        st = ipfsrt_s3_run_ops(s, &o, 1, ipfsrt_s3_report_one, NULL, err);
    } else if (st == IPFSRT_OK) {
        st = multipart(&u, err);
    }
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "uploading %s: ", path);
    free(u.sha);
    free(u.etag);
    close(u.fd);
    return st;
}
