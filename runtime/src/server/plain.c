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

void ipfsrt_server_content_range(struct MHD_Response *r, uint64_t start, uint64_t len, uint64_t size) {
    char cr[96];
    snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)start, (unsigned long long)(start + len - 1),
             (unsigned long long)size);
    MHD_add_response_header(r, "Content-Range", cr);
}

enum MHD_Result ipfsrt_server_send_unsatisfiable(ipfsrt_server_request *rq, struct MHD_Connection *c,
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
    /* a whole file of one block (metadata, mostly) is in hand: its type can be told */
    rq->json_body = f->count == 1 && f->segs[0].len == len && ipfsrt_http_is_json(f->segs[0].data, len);
    *r = MHD_create_response_from_callback(len, 256 * 1024, file_read, f, file_body_free);
    if (!*r) {
        file_body_free(f);
        return MHD_NO;
    }
    return MHD_YES;
}

enum MHD_Result ipfsrt_server_file_response(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                     const ipfsrt_unixfs_node_info *info, const char *path,
                                     struct MHD_Response **r, unsigned *status) {
    uint64_t start = 0, len = info->size;
    *r = NULL;
    *status = MHD_HTTP_OK;
    switch (ipfsrt_http_range_parse(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"),
                                    info->size, &start, &len)) {
    case IPFSRT_HTTP_RANGE_UNSATISFIABLE: return ipfsrt_server_send_unsatisfiable(rq, c, info->size);
    case IPFSRT_HTTP_RANGE_OK: *status = MHD_HTTP_PARTIAL_CONTENT; break;
    case IPFSRT_HTTP_RANGE_NONE: break;
    }
    enum MHD_Result res = rq->gw->has_upstream ? ipfsrt_server_stream_file(rq, c, &info->cid, start, len, r)
                                               : mapped_file(rq, c, &info->cid, start, len, r);
    if (!*r) return res;
    const char *type = ipfsrt_http_content_type(path);
    bool json = start == 0 && len == info->size && rq->json_body;
    if (rq->want_json && !json) {
        MHD_destroy_response(*r);
        *r = NULL;
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                                       "format=json: %s is not a JSON document of one block", path);
    }
    if (json && (rq->want_json || strcmp(type, "application/octet-stream") == 0)) type = "application/json";
    MHD_add_response_header(*r, "Content-Type", type);
    MHD_add_response_header(*r, "Accept-Ranges", "bytes");
    if (*status == MHD_HTTP_PARTIAL_CONTENT) ipfsrt_server_content_range(*r, start, len, info->size);
    return MHD_YES;
}

/* X-Ipfs-Roots: the CID of each node of the path, from the root, as the
 * path's walk passes through them (the first 64; a longer path's names its
 * end alone). */
#define ROOTS_MAX 64

typedef struct roots {
    char text[ROOTS_MAX * IPFSRT_CID_STR_MAX];
    size_t used, count;
    bool full;
} roots;

static ipfsrt_status add_root(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    roots *rs = user;
    char s[IPFSRT_CID_STR_MAX];
    if (rs->count == ROOTS_MAX) {
        rs->full = true;
        return IPFSRT_OK;
    }
    rs->used += (size_t)snprintf(rs->text + rs->used, sizeof rs->text - rs->used, "%s%s", rs->count++ ? "," : "",
                                 ipfsrt_cid_to_string(cid, s));
    return IPFSRT_OK;
}

/* What path names, resolved: its CID, and the nodes of its walk (steps). */
static ipfsrt_status resolve_plain(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *full,
                                   ipfsrt_unixfs_node_info *info, roots *steps, ipfsrt_error *err) {
    ipfsrt_unixfs_options walk;
    ipfsrt_unixfs_options_init(&walk);
    walk.step = add_root;
    walk.step_user = steps;
    return ipfsrt_server_resolve(rq, full, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"), &walk, info,
                                 err);
}

/* A symlink answers its target, as text: a path gateway does not follow
 * links (they may point anywhere, outside the DAG too). */
static enum MHD_Result symlink_response(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_unixfs_node_info *info, struct MHD_Response **r,
                                        uint64_t *body) {
    char *target;
    ipfsrt_error err;
    *r = NULL;
    if (ipfsrt_unixfs_readlink(&rq->gw->src, &info->cid, &target, &err) != IPFSRT_OK)
        return ipfsrt_server_send_error(rq, c, &err);
    *body = strlen(target);
    *r = MHD_create_response_from_buffer(*body, target, MHD_RESPMEM_MUST_FREE);
    if (!*r) {
        free(target);
        return MHD_NO;
    }
    MHD_add_response_header(*r, "Content-Type", "text/plain; charset=utf-8");
    return MHD_YES;
}

/* The answer a plain request gets once its path is resolved and its Etag
 * known: a file's bytes, a symlink's target, a directory's index.html or
 * listing. */
static enum MHD_Result plain_answer(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *path,
                                    const ipfsrt_unixfs_node_info *info, const ipfsrt_server_dir *dir,
                                    const char *etag, const roots *steps) {
    struct MHD_Response *r = NULL;
    unsigned status = MHD_HTTP_OK;
    uint64_t body = 0; /* file bytes are counted as they are sent */
    enum MHD_Result res;
    if (dir) res = ipfsrt_server_dir_answer(rq, c, dir, &r, &status, &body);
    else if (info->type == IPFSRT_UNIXFS_SYMLINK) res = symlink_response(rq, c, info, &r, &body);
    else res = ipfsrt_server_file_response(rq, c, info, path, &r, &status);
    if (!r) return res;
    char s[IPFSRT_CID_STR_MAX];
    MHD_add_response_header(r, "X-Ipfs-Roots", steps->full ? ipfsrt_cid_to_string(&info->cid, s) : steps->text);
    MHD_add_response_header(r, "Etag", etag);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, status, r, body);
}

/* Whether a UnixFS answer cannot be what was asked: DAG-JSON or DAG-CBOR
 * either way, CBOR by format= (IPIP-524: nothing is converted). JSON is a
 * file's bytes when they are JSON; Accept's CBOR, a preference only. */
static bool unixfs_unacceptable(const ipfsrt_server_request *rq) {
    const char *d = rq->document;
    return strncmp(d, "dag-", 4) == 0 || (rq->document_by_format && strcmp(d, "cbor") == 0);
}

enum MHD_Result ipfsrt_server_serve_plain(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const char *cid_str, const char *path) {
    size_t plen = strlen(cid_str) + strlen(path) + 1;
    char *full = malloc(plen);
    roots *steps = calloc(1, sizeof *steps);
    ipfsrt_server_dir *dir = calloc(1, sizeof *dir);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    char etag[IPFSRT_CID_STR_MAX + 40], s[IPFSRT_CID_STR_MAX];
    enum MHD_Result res = MHD_NO;
    if (!full || !steps || !dir) goto done;
    memset(&info, 0, sizeof info);
    snprintf(full, plen, "%s%s", cid_str, path);
    ipfsrt_status st = resolve_plain(rq, c, full, &info, steps, &err);
    bool is_dir = info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD;
    if (st == IPFSRT_OK && is_dir && (!rq->path || rq->path[strlen(rq->path) - 1] != '/')) {
        res = ipfsrt_server_redirect_to_slash(rq, c);
        goto done;
    }
    if (st == IPFSRT_OK && is_dir) st = ipfsrt_server_dir_plan(rq, c, full, &info, dir, &err);
    if (st != IPFSRT_OK) {
        res = ipfsrt_server_send_error(rq, c, &err);
    } else if (info.type == IPFSRT_UNIXFS_IPLD) {
        res = ipfsrt_server_document_answer(rq, c, &info, steps->full ? ipfsrt_cid_to_string(&info.cid, s) : steps->text);
    } else if (unixfs_unacceptable(rq)) {
        res = ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE, "%s is %s UnixFS: it is not served as %s",
                                      ipfsrt_cid_to_string(&info.cid, s), info.cid.codec == IPFSRT_CODEC_RAW ? "raw" : "dag-pb",
                                      rq->document);
    } else if (rq->want_json && info.type != IPFSRT_UNIXFS_FILE) {
        res = ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE, "format=json: %s is a %s, not a JSON file",
                                      ipfsrt_cid_to_string(&info.cid, s), ipfsrt_unixfs_type_name(info.type));
    } else if (!is_dir && info.type != IPFSRT_UNIXFS_FILE && info.type != IPFSRT_UNIXFS_SYMLINK) {
        res = ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_IMPLEMENTED,
                                      "%s is a %s; files, symlinks and directories are served deserialized",
                                      ipfsrt_cid_to_string(&info.cid, s), ipfsrt_unixfs_type_name(info.type));
    } else {
        snprintf(etag, sizeof etag, "%s", is_dir ? dir->etag : "");
        if (!is_dir) snprintf(etag, sizeof etag, "\"%s\"", ipfsrt_cid_to_string(&info.cid, s));
        res = ipfsrt_server_not_modified(c, etag) ? ipfsrt_server_send_not_modified(rq, c, etag)
                                                  : plain_answer(rq, c, path, &info, is_dir ? dir : NULL, etag, steps);
    }
done:
    free(full);
    free(steps);
    free(dir);
    return res;
}
