/* The plain, unverified answers a browser or `curl` gets: file bytes (with
 * Range) or a JSON directory listing. Benchmarks compare verified clients with
 * them. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "server/http_parse.h"
#include "server/server_internal.h"

/* The byte range of a file as pieces of the mapped CARs, found with one walk of
 * its DAG when the answer starts; the body is then copied straight from them. */
typedef struct segment {
    const uint8_t *data;
    size_t len;
    bool owned; /* a copy: identity blocks live in transient CID values */
} segment;

typedef struct file_body {
    ipfsrt_server_request *rq;
    segment *segs;
    size_t count, cap;
    size_t seg, seg_off;
    uint64_t length;
    uint64_t tamper_at;
} file_body;

static void file_body_free(void *cls) {
    file_body *f = cls;
    for (size_t i = 0; i < f->count; i++)
        if (f->segs[i].owned) free((void *)f->segs[i].data);
    free(f->segs);
    free(f);
}

static ipfsrt_status add_segment(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    file_body *f = user;
    if (len == 0) return IPFSRT_OK;
    if (ipfsrt_array_reserve(&f->segs, &f->cap, f->count + 1, sizeof *f->segs))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    segment sg = {data, len, false};
    if (len <= IPFSRT_MH_MAX_DIGEST) { /* may be an identity block's bytes */
        uint8_t *copy = malloc(len);
        if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        memcpy(copy, data, len);
        sg = (segment){copy, len, true};
    }
    f->segs[f->count++] = sg;
    return IPFSRT_OK;
}

static ssize_t file_read(void *cls, uint64_t pos, char *buf, size_t max) {
    file_body *f = cls;
    size_t out = 0;
    max = ipfsrt_server_piece(f->rq, max);
    while (out < max && f->seg < f->count) {
        const segment *sg = &f->segs[f->seg];
        size_t n = sg->len - f->seg_off < max - out ? sg->len - f->seg_off : max - out;
        memcpy(buf + out, sg->data + f->seg_off, n);
        out += n;
        f->seg_off += n;
        if (f->seg_off == sg->len) {
            f->seg++;
            f->seg_off = 0;
        }
    }
    size_t sent = ipfsrt_server_body_faults(f->rq, pos, (uint8_t *)buf, out, f->length, f->tamper_at);
    if (sent == 0) return out ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    ipfsrt_server_count_sent(f->rq, sent);
    return (ssize_t)sent;
}

static enum MHD_Result send_unsatisfiable(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          uint64_t size) {
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    char cr[64];
    snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)size);
    MHD_add_response_header(r, "Content-Range", cr);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_RANGE_NOT_SATISFIABLE, r, 0);
}

/* The bytes of the mapped CARs, found with one walk before the answer starts
 * (*r NULL: answered already, with the walk's error). */
static enum MHD_Result mapped_file(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                   const ipfsrt_cid *file, uint64_t start, uint64_t len,
                                   struct MHD_Response **r) {
    file_body *f = calloc(1, sizeof *f);
    if (!f) return MHD_NO;
    *f = (file_body){.rq = rq, .length = len,
                     .tamper_at = len ? ipfsrt_server_random(rq) % len : UINT64_MAX};
    ipfsrt_error err;
    if (len && ipfsrt_unixfs_read(&rq->gw->src, file, start, len, add_segment, f, &err) != IPFSRT_OK) {
        file_body_free(f);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    *r = MHD_create_response_from_callback(len, 256 * 1024, file_read, f, file_body_free);
    if (!*r) {
        file_body_free(f);
        return MHD_NO;
    }
    return MHD_YES;
}

/* Answers a file (or its Range); *r is NULL when it was answered already. */
static enum MHD_Result file_response(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                     const ipfsrt_unixfs_node_info *info, const char *path,
                                     struct MHD_Response **r, unsigned *status) {
    uint64_t start = 0, len = info->size;
    *r = NULL;
    *status = MHD_HTTP_OK;
    switch (ipfsrt_http_range_parse(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"),
                                    info->size, &start, &len)) {
    case IPFSRT_HTTP_RANGE_UNSATISFIABLE: return send_unsatisfiable(rq, c, info->size);
    case IPFSRT_HTTP_RANGE_OK: *status = MHD_HTTP_PARTIAL_CONTENT; break;
    case IPFSRT_HTTP_RANGE_NONE: break;
    }
    enum MHD_Result res = rq->gw->has_upstream ? ipfsrt_server_stream_file(rq, c, &info->cid, start, len, r)
                                               : mapped_file(rq, c, &info->cid, start, len, r);
    if (!*r) return res;
    MHD_add_response_header(*r, "Content-Type", ipfsrt_http_content_type(path));
    MHD_add_response_header(*r, "Accept-Ranges", "bytes");
    if (*status == MHD_HTTP_PARTIAL_CONTENT) {
        char cr[96];
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)start,
                 (unsigned long long)(start + len - 1), (unsigned long long)info->size);
        MHD_add_response_header(*r, "Content-Range", cr);
    }
    return MHD_YES;
}

static ipfsrt_status list_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    cJSON *item = cJSON_CreateObject();
    char s[IPFSRT_CID_STR_MAX];
    if (!item || !cJSON_AddStringToObject(item, "name", e->name) ||
        !cJSON_AddStringToObject(item, "cid", ipfsrt_cid_to_string(&e->cid, s)) ||
        !cJSON_AddStringToObject(item, "type", e->has_type ? ipfsrt_unixfs_type_name(e->type) : "unknown") ||
        !cJSON_AddNumberToObject(item, "size", (double)(e->has_type ? e->size : e->tsize))) {
        cJSON_Delete(item);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    cJSON_AddItemToArray(user, item);
    return IPFSRT_OK;
}

/* A directory as a JSON array of {name, cid, type, size}, or as an HTML page
 * for a client that asks for one; *r is NULL when it was answered already. */
static enum MHD_Result listing_response(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *dir, const char *base, struct MHD_Response **r,
                                        uint64_t *body) {
    *r = NULL;
    cJSON *list = cJSON_CreateArray();
    if (!list) return MHD_NO;
    ipfsrt_error err;
    if (ipfsrt_unixfs_ls(&rq->gw->src, dir, true, list_entry, list, &err) != IPFSRT_OK) {
        cJSON_Delete(list);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    bool html = accept && strstr(accept, "text/html");
    size_t len = 0;
    char *text = html ? ipfsrt_server_index_html(base, list, &len) : cJSON_PrintUnformatted(list);
    cJSON_Delete(list);
    if (!text) return MHD_NO;
    *body = html ? len : strlen(text);
    *r = MHD_create_response_from_buffer(*body, text, MHD_RESPMEM_MUST_FREE);
    if (!*r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(*r, "Content-Type", html ? "text/html; charset=utf-8" : "application/json");
    return MHD_YES;
}

/* X-Ipfs-Roots: the CID of each node of the path, from the root, as the
 * path's walk passes through them (the first 64; a longer path's names its
 * end alone). */
typedef struct roots {
    char text[64 * IPFSRT_CID_STR_MAX];
    size_t used, count;
    bool full;
} roots;

static ipfsrt_status add_root(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    roots *rs = user;
    char s[IPFSRT_CID_STR_MAX];
    if (rs->count == 64) {
        rs->full = true;
        return IPFSRT_OK;
    }
    rs->used += (size_t)snprintf(rs->text + rs->used, sizeof rs->text - rs->used, "%s%s", rs->count++ ? "," : "",
                                 ipfsrt_cid_to_string(cid, s));
    return IPFSRT_OK;
}

enum MHD_Result ipfsrt_server_serve_plain(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const char *cid_str, const char *path) {
    size_t plen = strlen(cid_str) + strlen(path) + 1;
    char *full = malloc(plen);
    if (!full) return MHD_NO;
    snprintf(full, plen, "%s%s", cid_str, path);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    roots *steps = calloc(1, sizeof *steps);
    ipfsrt_unixfs_options walk;
    ipfsrt_unixfs_options_init(&walk);
    walk.step = add_root;
    walk.step_user = steps;
    ipfsrt_status st = steps ? ipfsrt_server_resolve(rq, full, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"),
                                                     &walk, &info, &err)
                             : ipfsrt_fail(&err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    free(full);
    if (st != IPFSRT_OK) {
        free(steps);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    char s[IPFSRT_CID_STR_MAX], etag[IPFSRT_CID_STR_MAX + 8];
    snprintf(etag, sizeof etag, "\"%s\"", ipfsrt_cid_to_string(&info.cid, s));
    if (ipfsrt_server_not_modified(c, etag)) {
        free(steps);
        return ipfsrt_server_send_not_modified(rq, c, etag);
    }
    struct MHD_Response *r = NULL;
    unsigned status = MHD_HTTP_OK;
    uint64_t body = 0; /* file bytes are counted as they are sent */
    enum MHD_Result res;
    if (info.type == IPFSRT_UNIXFS_FILE)
        res = file_response(rq, c, &info, path, &r, &status);
    else if (info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD)
        res = listing_response(rq, c, &info.cid, rq->path, &r, &body);
    else
        res = ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_IMPLEMENTED,
                                      "%s is a %s; only files and directories are served "
                                      "deserialized", s, ipfsrt_unixfs_type_name(info.type));
    if (r) MHD_add_response_header(r, "X-Ipfs-Roots", steps->full ? s : steps->text);
    free(steps);
    if (!r) return res;
    MHD_add_response_header(r, "Etag", etag);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, status, r, body);
}
