/* The trustless gateway's answers: a raw block (format=raw) or the CAR of the
 * blocks that prove a path (format=car, with dag-scope and entity-bytes). */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/ipld.h"
#include "ipfsrt/unixfs.h"
#include "server/http_parse.h"
#include "server/server_internal.h"

/* ----------------------------------------------------------------- blocks */

typedef struct raw_body {
    ipfsrt_server_request *rq;
    const uint8_t *data;
    size_t len;
    uint64_t tamper_at;
} raw_body;

static ssize_t raw_read(void *cls, uint64_t pos, char *buf, size_t max) {
    raw_body *s = cls;
    if (pos >= s->len) return MHD_CONTENT_READER_END_OF_STREAM;
    max = ipfsrt_server_piece(s->rq, max);
    size_t n = s->len - pos < max ? (size_t)(s->len - pos) : max;
    memcpy(buf, s->data + pos, n);
    n = ipfsrt_server_body_faults(s->rq, pos, (uint8_t *)buf, n, s->len, s->tamper_at);
    if (n == 0) return MHD_CONTENT_READER_END_WITH_ERROR; /* truncated */
    ipfsrt_server_count_sent(s->rq, n);
    return (ssize_t)n;
}

static struct MHD_Response *raw_response(ipfsrt_server_request *rq, const ipfsrt_blocksource_ref *ref,
                                         uint64_t *counted_body) {
    if (ref->token) { /* upstream's: lent only for now */
        *counted_body = ref->len;
        return MHD_create_response_from_buffer(ref->len, (void *)ref->data, MHD_RESPMEM_MUST_COPY);
    }
    if (!ipfsrt_server_body_faults_on(rq)) {
        *counted_body = ref->len;
        /* block bytes live in the mapped CARs for as long as the gateway does */
        return MHD_create_response_from_buffer(ref->len, (void *)ref->data, MHD_RESPMEM_PERSISTENT);
    }
    *counted_body = 0; /* counted as sent */
    raw_body *s = malloc(sizeof *s);
    if (!s) return NULL;
    *s = (raw_body){rq, ref->data, ref->len,
                    ref->len ? ipfsrt_server_random(rq) % ref->len : UINT64_MAX};
    struct MHD_Response *r = MHD_create_response_from_callback(ref->len, 64 * 1024, raw_read, s, free);
    if (!r) free(s);
    return r;
}

/* The block a path ends at: the root itself, or the terminal of a UnixFS
 * path walked from it, each block on the way verified. */
static ipfsrt_status path_terminal(ipfsrt_server_request *rq, const ipfsrt_cid *root, const char *path,
                                   ipfsrt_cid *out, ipfsrt_error *err) {
    *out = *root;
    if (!path[0] || strcmp(path, "/") == 0) return IPFSRT_OK;
    char full[IPFSRT_CID_STR_MAX + 4096];
    char s[IPFSRT_CID_STR_MAX];
    if ((size_t)snprintf(full, sizeof full, "%s%s", ipfsrt_cid_to_string(root, s), path) >= sizeof full)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "a path of %zu bytes is too long", strlen(path));
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_server_resolve(rq, full, NULL, NULL, &info, err);
    if (st == IPFSRT_OK) *out = info.cid;
    return st;
}

enum MHD_Result ipfsrt_server_send_block(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_server_block_answer *a) {
    ipfsrt_server *gw = rq->gw;
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    if (ipfsrt_blocksource_get(&gw->src, a->cid, &ref, &err) != IPFSRT_OK)
        return ipfsrt_server_send_error(rq, c, &err);
    const ipfsrt_server_spare *spare = rq->wrong_block ? ipfsrt_server_spare_for(gw, a->cid) : NULL;
    if (spare) ref = (ipfsrt_blocksource_ref){.data = spare->data, .len = spare->len};
    uint64_t total = ref.len, start = 0, len = total, body; /* total: release empties ref */
    ipfsrt_http_range range = ipfsrt_http_range_parse(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"),
                                                      total, &start, &len);
    if (range == IPFSRT_HTTP_RANGE_UNSATISFIABLE) {
        ipfsrt_blocksource_release(&gw->src, &ref);
        return ipfsrt_server_send_unsatisfiable(rq, c, total);
    }
    ipfsrt_blocksource_ref part = ref;
    part.data += start;
    part.len = (size_t)len;
    struct MHD_Response *r = raw_response(rq, &part, &body);
    ipfsrt_blocksource_release(&gw->src, &ref);
    if (!r) return MHD_NO;
    if (range == IPFSRT_HTTP_RANGE_OK) ipfsrt_server_content_range(r, start, len, total);
    MHD_add_response_header(r, "Content-Type", a->type);
    ipfsrt_server_disposition(c, r, a->filename, a->attachment);
    MHD_add_response_header(r, "Accept-Ranges", "bytes");
    MHD_add_response_header(r, "Etag", a->etag);
    MHD_add_response_header(r, "X-Ipfs-Roots", a->roots);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, range == IPFSRT_HTTP_RANGE_OK ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK, r, body);
}

enum MHD_Result ipfsrt_server_serve_raw(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *root, const char *path) {
    ipfsrt_cid terminal;
    ipfsrt_error err;
    if (path_terminal(rq, root, path, &terminal, &err) != IPFSRT_OK) return ipfsrt_server_send_error(rq, c, &err);
    char s[IPFSRT_CID_STR_MAX], etag[IPFSRT_CID_STR_MAX + 8], name[IPFSRT_CID_STR_MAX + 8];
    snprintf(etag, sizeof etag, "\"%s.raw\"", ipfsrt_cid_to_string(&terminal, s));
    if (ipfsrt_server_not_modified(c, etag)) return ipfsrt_server_send_not_modified(rq, c, etag);
    snprintf(name, sizeof name, "%s.bin", s);
    ipfsrt_server_block_answer a = {&terminal, IPFSRT_RAW_TYPE, name, true, etag, s};
    return ipfsrt_server_send_block(rq, c, &a);
}

/* -------------------------------------------------------------------- CAR */

/* The wrong-dag fault's material: a root of a served CAR other than root. */
static const ipfsrt_cid *decoy_root(const ipfsrt_server *gw, const ipfsrt_cid *root) {
    for (size_t i = 0; i < gw->ncars; i++) {
        const ipfsrt_car_header *h = ipfsrt_car_file_header(gw->cars[i]);
        for (size_t j = 0; j < h->root_count; j++)
            if (!ipfsrt_cid_equal(&h->roots[j], root)) return &h->roots[j];
    }
    return NULL;
}

/* What one CAR answer is made of. */
typedef struct car_request {
    const ipfsrt_cid *root;
    const char *cid_str; /* as the client spelled it: names the CAR file */
    const char *path;
    char *full;          /* CID + path, to walk */
    ipfsrt_http_car_params params;
    uint64_t offset, length; /* entity-bytes */
    bool decoy;          /* wrong-dag: the whole DAG of another served root */
    bool decoy_block;    /* wrong-dag with no other root: the server's own decoy block */
} car_request;

/* The wrong-dag fault swaps in the whole DAG of something else, under the
 * requested root's header. */
static ipfsrt_status walk_target(ipfsrt_server_request *rq, car_request *cr, ipfsrt_error *err) {
    char decoy_str[IPFSRT_CID_STR_MAX];
    const ipfsrt_cid *decoy = rq->wrong_dag ? decoy_root(rq->gw, cr->root) : NULL;
    const char *cid_str = cr->cid_str, *path = cr->path;
    cr->decoy_block = rq->wrong_dag && !decoy;
    if (decoy) {
        cid_str = ipfsrt_cid_to_string(decoy, decoy_str);
        path = "";
        cr->params.scope = IPFSRT_SCOPE_ALL;
        cr->decoy = true;
    }
    size_t n = strlen(cid_str) + strlen(path) + 1;
    cr->full = malloc(n);
    if (!cr->full) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(cr->full, n, "%s%s", cid_str, path);
    return IPFSRT_OK;
}

/* In front of an upstream: the answer's blocks in one request of the same
 * shape (a range counted from the end, whose place needs the file's size,
 * asks for the path alone). */
static void prefetch_answer(ipfsrt_server_request *rq, const car_request *cr, const char *range) {
    uint64_t offset = 0, length = UINT64_MAX;
    ipfsrt_unixfs_scope scope = cr->params.scope;
    if (range && (strchr(range, '-') || !ipfsrt_http_entity_bytes_parse(range, UINT64_MAX, &offset, &length)))
        scope = IPFSRT_SCOPE_BLOCK;
    else if (range)
        scope = IPFSRT_SCOPE_ENTITY;
    ipfsrt_server_prefetch(rq, cr->full, scope, offset, length);
}

/* Reads the query into cr; an error is answered with its status (400, 404). */
static ipfsrt_status read_car_request(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                      const char *accept, car_request *cr, ipfsrt_error *err) {
    ipfsrt_http_car_query q = {
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-version"),
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-order"),
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-dups"),
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "dag-scope")};
    ipfsrt_status st = ipfsrt_http_car_params_parse(&q, accept, &cr->params, err);
    if (st == IPFSRT_OK) st = walk_target(rq, cr, err);
    const char *range = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "entity-bytes");
    if (st == IPFSRT_OK) prefetch_answer(rq, cr, range);
    cr->offset = 0;
    cr->length = UINT64_MAX;
    if (st != IPFSRT_OK || !range || cr->decoy || cr->decoy_block) return st;
    ipfsrt_unixfs_node_info info;
    st = ipfsrt_unixfs_resolve(&rq->gw->src, cr->full, NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    if (!ipfsrt_http_entity_bytes_parse(range, info.size, &cr->offset, &cr->length))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "entity-bytes must be FROM:TO (got %s)", range);
    if (info.type == IPFSRT_UNIXFS_FILE) cr->params.scope = IPFSRT_SCOPE_ENTITY;
    return IPFSRT_OK;
}

/* What a CAR answer walks, on its stream's thread: nothing of the request
 * (which may be gone before the walk has seen its end), all of its own. */
typedef struct car_walk {
    ipfsrt_server *gw;
    char *full; /* CID + path */
    ipfsrt_cid root;
    ipfsrt_unixfs_scope scope;
    uint64_t offset, length;
    bool dups;
    bool root_only;   /* neither UnixFS nor a document: there is no path to walk in it */
    bool decoy_block; /* the wrong-dag fault with no other root: the server's own decoy block */
} car_walk;

static void car_walk_free(void *user) {
    car_walk *w = user;
    free(w->full);
    free(w);
}

static ipfsrt_status walk_blocks(void *user, ipfsrt_server_car_stream *stream, ipfsrt_error *err) {
    car_walk *w = user;
    if (w->decoy_block) return ipfsrt_server_car_stream_emit_own(stream, &w->gw->decoy, err);
    if (w->root_only) return ipfsrt_server_car_stream_emit(stream, &w->root, err);
    ipfsrt_unixfs_options walk = {
        .size = sizeof walk, .dups = w->dups, .scope = w->scope, .offset = w->offset, .length = w->length};
    ipfsrt_status st = ipfsrt_unixfs_blocks_for(&w->gw->src, w->full, &walk, ipfsrt_server_car_stream_emit, stream, err);
    /* a path that ends at a value inside a block: the blocks sent show it, to a client that walks them */
    if (st == IPFSRT_EINSIDE_BLOCK && err) ipfsrt_error_clear(err);
    return st == IPFSRT_EINSIDE_BLOCK ? IPFSRT_OK : st;
}

/* The walk of the answer: through UnixFS and documents (DAG-CBOR, DAG-JSON),
 * or the root block alone for any other codec, whose paths this gateway
 * cannot walk. */
static ipfsrt_status plan_walk(ipfsrt_server_request *rq, const car_request *cr, car_walk **out, ipfsrt_error *err) {
    const ipfsrt_cid *root = cr->root;
    bool walkable = root->codec == IPFSRT_CODEC_DAG_PB || root->codec == IPFSRT_CODEC_RAW ||
                    ipfsrt_ipld_is_document(root->codec);
    bool bare = !cr->path[0] || strcmp(cr->path, "/") == 0;
    if (!walkable && !cr->decoy && !cr->decoy_block && !bare)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_ARGUMENT, root, -1, "%s: paths inside %s blocks are not served",
                               cr->path, ipfsrt_codec_name(root->codec));
    car_walk *w = calloc(1, sizeof *w);
    if (!w || !(w->full = strdup(cr->full))) {
        free(w);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    w->gw = rq->gw;
    w->root = *root;
    w->scope = cr->params.scope;
    w->offset = cr->offset;
    w->length = cr->length;
    w->dups = cr->params.dups;
    w->root_only = !walkable && !cr->decoy;
    w->decoy_block = cr->decoy_block;
    *out = w;
    return IPFSRT_OK;
}

/* A weak Etag over what selects the blocks. */
static void car_etag(const car_request *cr, char *out, size_t size) {
    uint64_t tag = ipfsrt_murmur3_x64_64((const uint8_t *)cr->path, strlen(cr->path)) ^
                   ((uint64_t)cr->params.scope << 56) ^ ((uint64_t)cr->params.dups << 48) ^
                   cr->offset * 31 ^ cr->length * 17;
    snprintf(out, size, "W/\"%s.car.%016llx\"", cr->cid_str, (unsigned long long)tag);
}

static void car_headers(ipfsrt_server_request *rq, struct MHD_Connection *c, struct MHD_Response *r,
                        const car_request *cr, const char *etag) {
    char name[IPFSRT_CID_STR_MAX + 8];
    MHD_add_response_header(r, "Content-Type",
                            cr->params.dups ? IPFSRT_CAR_TYPE "; version=1; order=dfs; dups=y"
                                            : IPFSRT_CAR_TYPE "; version=1; order=dfs; dups=n");
    snprintf(name, sizeof name, "%s.car", cr->cid_str);
    ipfsrt_server_disposition(c, r, name, true);
    MHD_add_response_header(r, "Etag", etag);
    MHD_add_response_header(r, "Accept-Ranges", "none");
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
}

enum MHD_Result ipfsrt_server_serve_car(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *root, const char *cid_str,
                                        const char *path, const char *accept) {
    car_request cr = {.root = root, .cid_str = cid_str, .path = path};
    car_walk *w = NULL;
    struct MHD_Response *r = NULL;
    ipfsrt_error err;
    char etag[IPFSRT_CID_STR_MAX + 32];
    ipfsrt_status st = read_car_request(rq, c, accept, &cr, &err);
    if (st == IPFSRT_OK) {
        car_etag(&cr, etag, sizeof etag);
        if (ipfsrt_server_not_modified(c, etag)) {
            free(cr.full);
            return ipfsrt_server_send_not_modified(rq, c, etag);
        }
    }
    if (st == IPFSRT_OK) st = plan_walk(rq, &cr, &w, &err);
    if (st == IPFSRT_OK) st = ipfsrt_server_car_stream_start(rq, c, root, walk_blocks, w, car_walk_free, &r, &err);
    if (st != IPFSRT_OK) {
        free(cr.full);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    car_headers(rq, c, r, &cr, etag);
    free(cr.full);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_OK, r, 0); /* body bytes are counted as they are sent */
}
