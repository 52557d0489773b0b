/* A trustless gateway over local CAR files: GET/HEAD /ipfs/{cid}?format=raw and
 * /ipfs/{cid}[/path]?format=car, on libmicrohttpd. */
#include <arpa/inet.h>
#include <cJSON.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipfsrt/path.h"
#include "ipfsrt/server.h"
#include "ipfsrt/varint.h"
#include "ipfsrt/unixfs.h"
#include "car/car_internal.h"

#define CAR_TYPE "application/vnd.ipld.car"

typedef struct car_spare {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
} car_spare;
#define RAW_TYPE "application/vnd.ipld.raw"

struct ipfsrt_server {
    ipfsrt_car_file **cars;
    size_t ncars;
    ipfsrt_mhmap index; /* every block of every CAR: multihash -> which CAR holds it */
    ipfsrt_blocksource src;
    struct MHD_Daemon *daemon;
    char url[80];
    ipfsrt_server_faults faults;
    car_spare spares[2]; /* valid blocks to send in place of others (wrong-block) */
    FILE *log;
    pthread_mutex_t log_lock;
    _Atomic uint64_t requests, bytes, s2xx, s4xx, s5xx, faulted;
};

/* What one request is doing, for the fault plan and the log line. */
typedef struct request {
    ipfsrt_server *gw;
    uint64_t number;
    uint64_t rng;
    char method[8];
    char *path;
    unsigned status;
    _Atomic uint64_t bytes;
    char faults[96];
    /* body faults, applied by the callbacks that produce bodies */
    bool tamper, truncate, wrong_block, wrong_dag;
    uint64_t slow;
} request;

/* The CARs were verified whole when opened, so lookups skip the hash. */
static ipfsrt_status multi_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_server *gw = ctx;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    const ipfsrt_mhmap_entry *e = ipfsrt_mhmap_get(&gw->index, mh, mh_len);
    if (!e) return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not in any of the gateway's CARs");
    return ipfsrt_car_file_get_unverified(gw->cars[e->offset], cid, &ref->data, &ref->len, err);
}

typedef struct indexing {
    ipfsrt_server *gw;
    size_t car;
    ipfsrt_status st;
} indexing;

/* Called for each verified block while a CAR is checked at start. */
static ipfsrt_status index_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    indexing *ix = user;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&b->cid, &mh_len);
    ix->st = ipfsrt_mhmap_put(&ix->gw->index, mh, mh_len, ix->car, 0, NULL); /* first CAR wins */
    if (ix->st != IPFSRT_OK) return ipfsrt_fail(err, ix->st, -1, "out of memory indexing blocks");
    return IPFSRT_OK;
}

/* ----------------------------------------------------------------- faults */

static uint64_t next_random(uint64_t *state) { /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool draw(request *rq, double p) {
    return p > 0 && (double)(next_random(&rq->rng) >> 11) / 9007199254740992.0 < p;
}

static void note_fault(request *rq, const char *name) {
    size_t n = strlen(rq->faults);
    snprintf(rq->faults + n, sizeof rq->faults - n, "%s%s", n ? "," : "", name);
}

/* A valid block other than cid, for wrong-block. */
static const car_spare *spare_for(const ipfsrt_server *gw, const ipfsrt_cid *cid) {
    for (int i = 0; i < 2; i++)
        if (gw->spares[i].data && !ipfsrt_cid_equal(&gw->spares[i].cid, cid)) return &gw->spares[i];
    return NULL;
}

/* Applies the request's body faults to bytes [pos, pos + n) of a body of total
 * bytes: returns how many of them to send (fewer when truncating). */
static size_t body_faults(request *rq, uint64_t pos, char *buf, size_t n, uint64_t total,
                          uint64_t tamper_at) {
    if (rq->truncate) {
        uint64_t cut = total / 2;
        if (pos >= cut) return 0;
        if (pos + n > cut) n = (size_t)(cut - pos);
    }
    if (rq->tamper && tamper_at >= pos && tamper_at < pos + n) buf[tamper_at - pos] ^= 0x20;
    if (rq->slow && n) usleep((useconds_t)((double)n / (double)rq->slow * 1e6));
    return n;
}

/* ------------------------------------------------------------- responses */

static void common_headers(struct MHD_Response *r) {
    MHD_add_response_header(r, "Cache-Control", "public, max-age=29030400, immutable");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
}

static void count(request *rq, unsigned status, uint64_t body) {
    ipfsrt_server *gw = rq->gw;
    rq->status = status;
    atomic_fetch_add(&rq->bytes, body);
    atomic_fetch_add(&gw->bytes, body);
    if (status < 300) atomic_fetch_add(&gw->s2xx, 1);
    else if (status < 500) atomic_fetch_add(&gw->s4xx, 1);
    else atomic_fetch_add(&gw->s5xx, 1);
}

static void count_sent(request *rq, size_t n) {
    atomic_fetch_add(&rq->bytes, n);
    atomic_fetch_add(&rq->gw->bytes, n);
}

static enum MHD_Result queue(request *rq, struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *r, uint64_t body) {
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    count(rq, status, body);
    return ok;
}

static enum MHD_Result send_text(request *rq, struct MHD_Connection *c, unsigned status,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum MHD_Result send_text(request *rq, struct MHD_Connection *c, unsigned status,
                                 const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n > sizeof msg - 2) n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, msg, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (status == MHD_HTTP_TOO_MANY_REQUESTS || status == MHD_HTTP_SERVICE_UNAVAILABLE ||
        status == MHD_HTTP_BAD_GATEWAY)
        MHD_add_response_header(r, "Retry-After", "1");
    return queue(rq, c, status, r, (uint64_t)n);
}

/* Maps a library error to the status the trustless gateway spec asks for. */
static enum MHD_Result send_error(request *rq, struct MHD_Connection *c, const ipfsrt_error *err) {
    unsigned status;
    switch (err->code) {
    case IPFSRT_ENOT_FOUND:
    case IPFSRT_ENOT_DIRECTORY:
    case IPFSRT_ESYMLINK: status = MHD_HTTP_NOT_FOUND; break;
    case IPFSRT_ECID:
    case IPFSRT_EMULTIBASE:
    case IPFSRT_EMULTIHASH:
    case IPFSRT_EVARINT:
    case IPFSRT_ETRAILING:
    case IPFSRT_EARG: status = MHD_HTTP_BAD_REQUEST; break;
    case IPFSRT_ETOO_LARGE: status = MHD_HTTP_CONTENT_TOO_LARGE; break;
    default: status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    return send_text(rq, c, status, "%s: %s", ipfsrt_status_name(err->code), err->message);
}

static bool body_faults_on(const request *rq) {
    return rq->tamper || rq->truncate || rq->slow;
}

/* ----------------------------------------------------------------- blocks */

typedef struct raw_stream {
    request *rq;
    const uint8_t *data;
    size_t len;
    uint64_t tamper_at;
} raw_stream;

static ssize_t raw_read(void *cls, uint64_t pos, char *buf, size_t max) {
    raw_stream *s = cls;
    if (pos >= s->len) return MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = s->len - pos < max ? (size_t)(s->len - pos) : max;
    memcpy(buf, s->data + pos, n);
    n = body_faults(s->rq, pos, buf, n, s->len, s->tamper_at);
    if (n == 0) return MHD_CONTENT_READER_END_WITH_ERROR; /* truncated */
    count_sent(s->rq, n);
    return (ssize_t)n;
}

static enum MHD_Result serve_raw(request *rq, struct MHD_Connection *c, const ipfsrt_cid *cid,
                                 const char *path) {
    ipfsrt_server *gw = rq->gw;
    if (path[0] && strcmp(path, "/") != 0)
        return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "format=raw takes no path (got %s)", path);
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    if (ipfsrt_blocksource_get(&gw->src, cid, &ref, &err) != IPFSRT_OK) return send_error(rq, c, &err);
    if (rq->wrong_block) {
        const car_spare *spare = spare_for(gw, cid);
        if (spare) {
            ref.data = spare->data;
            ref.len = spare->len;
        }
    }
    struct MHD_Response *r;
    uint64_t body = ref.len;
    if (body_faults_on(rq)) {
        raw_stream *s = malloc(sizeof *s);
        if (!s) return MHD_NO;
        *s = (raw_stream){rq, ref.data, ref.len,
                          ref.len ? next_random(&rq->rng) % ref.len : UINT64_MAX};
        r = MHD_create_response_from_callback(ref.len, 64 * 1024, raw_read, s, free);
        if (!r) free(s);
        body = 0; /* counted as sent */
    } else { /* block bytes live in the mapped CARs for as long as the gateway does */
        r = MHD_create_response_from_buffer(ref.len, (void *)ref.data, MHD_RESPMEM_PERSISTENT);
    }
    if (!r) return MHD_NO;
    char s[IPFSRT_CID_STR_MAX], h[IPFSRT_CID_STR_MAX + 32];
    ipfsrt_cid_to_string(cid, s);
    MHD_add_response_header(r, "Content-Type", RAW_TYPE);
    snprintf(h, sizeof h, "attachment; filename=\"%s.bin\"", s);
    MHD_add_response_header(r, "Content-Disposition", h);
    snprintf(h, sizeof h, "\"%s.raw\"", s);
    MHD_add_response_header(r, "Etag", h);
    common_headers(r);
    return queue(rq, c, MHD_HTTP_OK, r, body);
}

/* -------------------------------------------------------------------- CAR */

typedef struct car_block {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
} car_block;

/* A CAR being streamed: header, then each section (length, CID, bytes). */
typedef struct car_stream {
    request *rq;
    const ipfsrt_blocksource *src;
    car_block *blocks;
    size_t count, cap;
    ipfsrt_buf header;
    uint64_t total;
    uint64_t tamper_at; /* absolute offset of the byte to flip, inside a block */
    uint64_t pos;       /* bytes produced so far */
    size_t index;       /* section being sent; count = done */
    size_t offset;      /* within the current piece */
    int piece;          /* 0 section prefix, 1 block bytes */
    uint8_t prefix[IPFSRT_VARINT_MAX_BYTES + IPFSRT_CID_MAX_BYTES];
    size_t prefix_len;
    bool started;
} car_stream;

static void stream_free(void *cls) {
    car_stream *s = cls;
    ipfsrt_buf_free(&s->header);
    free(s->blocks);
    free(s);
}

static ipfsrt_status add_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    car_stream *s = user;
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        car_block *b = realloc(s->blocks, cap * sizeof *b);
        if (!b) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        s->blocks = b;
        s->cap = cap;
    }
    /* Every block is looked up now, so a missing one is answered with an error
     * status rather than a CAR that silently lacks it. */
    ipfsrt_blocksource_ref ref;
    ipfsrt_status st = ipfsrt_blocksource_get(s->src, cid, &ref, err);
    if (st != IPFSRT_OK) return st;
    s->blocks[s->count++] = (car_block){*cid, ref.data, ref.len};
    return IPFSRT_OK;
}

static size_t section_prefix_of(const car_block *b, uint8_t *out) {
    size_t n = ipfsrt_varint_encode((uint64_t)b->cid.len + b->len, out);
    memcpy(out + n, b->cid.bytes, b->cid.len);
    return n + b->cid.len;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    car_stream *s = cls;
    size_t out = 0;
    if (!s->started) { /* the CAR header, sent as the first piece */
        size_t n = s->header.len - s->offset < max ? s->header.len - s->offset : max;
        memcpy(buf, s->header.data + s->offset, n);
        s->offset += n;
        out += n;
        if (s->offset == s->header.len) {
            s->started = true;
            s->offset = 0;
            s->piece = 0;
            if (s->count) s->prefix_len = section_prefix_of(&s->blocks[0], s->prefix);
        }
    }
    while (s->started && out < max && s->index < s->count) {
        const uint8_t *src = s->piece == 0 ? s->prefix : s->blocks[s->index].data;
        size_t len = s->piece == 0 ? s->prefix_len : s->blocks[s->index].len;
        size_t n = len - s->offset < max - out ? len - s->offset : max - out;
        memcpy(buf + out, src + s->offset, n);
        out += n;
        s->offset += n;
        if (s->offset == len) {
            s->offset = 0;
            if (s->piece == 0) {
                s->piece = 1;
            } else {
                s->piece = 0;
                if (++s->index < s->count)
                    s->prefix_len = section_prefix_of(&s->blocks[s->index], s->prefix);
            }
        }
    }
    size_t sent = body_faults(s->rq, s->pos, buf, out, s->total, s->tamper_at);
    if (sent == 0) return out ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    s->pos += sent;
    count_sent(s->rq, sent);
    return (ssize_t)sent;
}

/* "from:to", inclusive; to may be "*"; negatives count from the end. */
static bool parse_entity_bytes(const char *v, uint64_t size, uint64_t *offset, uint64_t *length) {
    char *end;
    long long from = strtoll(v, &end, 10);
    if (end == v || *end != ':') return false;
    const char *t = end + 1;
    long long to;
    if (strcmp(t, "*") == 0) {
        to = (long long)size - 1;
    } else {
        to = strtoll(t, &end, 10);
        if (end == t || *end) return false;
        if (to < 0) to += (long long)size;
    }
    if (from < 0) from = from + (long long)size < 0 ? 0 : from + (long long)size;
    if (to >= (long long)size) to = (long long)size - 1;
    if (from > to || (uint64_t)from >= size) { /* nothing of the file: the block alone */
        *offset = size;
        *length = 0;
        return true;
    }
    *offset = (uint64_t)from;
    *length = (uint64_t)(to - from) + 1;
    return true;
}

/* Places the wrong-block and tamper faults among the blocks to send. */
static void plan_car_faults(car_stream *s) {
    request *rq = s->rq;
    s->tamper_at = UINT64_MAX;
    if (rq->wrong_block && s->count) {
        size_t k = (size_t)(next_random(&rq->rng) % s->count);
        const car_spare *spare = spare_for(rq->gw, &s->blocks[k].cid);
        if (spare) s->blocks[k] = (car_block){spare->cid, spare->data, spare->len};
    }
    if (!rq->tamper || !s->count) return;
    uint64_t off = s->header.len;
    size_t k = (size_t)(next_random(&rq->rng) % s->count);
    for (size_t i = 0; i < s->count; i++) {
        uint8_t prefix[IPFSRT_VARINT_MAX_BYTES + IPFSRT_CID_MAX_BYTES];
        size_t p = section_prefix_of(&s->blocks[i], prefix);
        if (i >= k && s->blocks[i].len) {
            s->tamper_at = off + p + next_random(&rq->rng) % s->blocks[i].len;
            return;
        }
        off += p + s->blocks[i].len;
    }
}

/* The wrong-dag fault's material: a root of a served CAR other than root. */
static const ipfsrt_cid *decoy_root(const ipfsrt_server *gw, const ipfsrt_cid *root) {
    for (size_t i = 0; i < gw->ncars; i++) {
        const ipfsrt_car_header *h = ipfsrt_car_file_header(gw->cars[i]);
        for (size_t j = 0; j < h->root_count; j++)
            if (!ipfsrt_cid_equal(&h->roots[j], root)) return &h->roots[j];
    }
    return NULL;
}

static bool has_param(const char *value, const char *param) {
    return value && strstr(value, param) != NULL;
}

static enum MHD_Result serve_car(request *rq, struct MHD_Connection *c, const ipfsrt_cid *root,
                                 const char *cid_str, const char *path, const char *accept) {
    ipfsrt_server *gw = rq->gw;
    const char *version = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-version");
    if ((version && strcmp(version, "1") != 0) ||
        (!version && accept && strstr(accept, CAR_TYPE) && strstr(accept, "version=") &&
         !has_param(accept, "version=1")))
        return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "only CAR version 1 is served");
    const char *order = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-order");
    if (order && strcmp(order, "dfs") != 0 && strcmp(order, "unk") != 0)
        return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "car-order must be dfs or unk");
    const char *dups = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "car-dups");
    if (dups && strcmp(dups, "y") != 0 && strcmp(dups, "n") != 0)
        return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "car-dups must be y or n");
    /* the query wins over Accept's parameters */
    ipfsrt_unixfs_options walk = {.dups = dups ? strcmp(dups, "y") == 0
                                               : (accept && strstr(accept, "dups=y") != NULL)};
    const char *scope_s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "dag-scope");
    ipfsrt_unixfs_scope scope = IPFSRT_SCOPE_ALL;
    if (scope_s) {
        if (strcmp(scope_s, "block") == 0) scope = IPFSRT_SCOPE_BLOCK;
        else if (strcmp(scope_s, "entity") == 0) scope = IPFSRT_SCOPE_ENTITY;
        else if (strcmp(scope_s, "all") != 0)
            return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "dag-scope must be block, entity or all");
    }
    const char *range = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "entity-bytes");
    char decoy_str[IPFSRT_CID_STR_MAX];
    const ipfsrt_cid *decoy = rq->wrong_dag ? decoy_root(gw, root) : NULL;
    if (decoy) { /* the whole DAG of something else, under the requested root's header */
        cid_str = ipfsrt_cid_to_string(decoy, decoy_str);
        path = "";
        range = NULL;
        scope = IPFSRT_SCOPE_ALL;
    }
    size_t plen = strlen(cid_str) + strlen(path) + 1;
    char *full = malloc(plen);
    if (!full) return MHD_NO;
    snprintf(full, plen, "%s%s", cid_str, path);
    ipfsrt_error err;
    uint64_t offset = 0, length = UINT64_MAX;
    if (range) {
        ipfsrt_unixfs_node_info info;
        if (ipfsrt_unixfs_resolve(&gw->src, full, NULL, &info, &err) != IPFSRT_OK) {
            free(full);
            return send_error(rq, c, &err);
        }
        if (!parse_entity_bytes(range, info.size, &offset, &length)) {
            free(full);
            return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "entity-bytes must be FROM:TO (got %s)", range);
        }
        if (info.type == IPFSRT_UNIXFS_FILE) scope = IPFSRT_SCOPE_ENTITY;
    }
    car_stream *s = calloc(1, sizeof *s);
    if (!s) {
        free(full);
        return MHD_NO;
    }
    s->rq = rq;
    s->src = &gw->src;
    ipfsrt_buf_init(&s->header);
    ipfsrt_status st;
    bool unixfs = root->codec == IPFSRT_CODEC_DAG_PB || root->codec == IPFSRT_CODEC_RAW;
    if (!unixfs && !decoy && (!path[0] || strcmp(path, "/") == 0)) /* any other codec: its block */
        st = add_block(s, root, &err);
    else
        st = ipfsrt_unixfs_blocks_for_scope(&gw->src, full, &walk, scope, offset, length, add_block,
                                            s, &err);
    free(full);
    if (st == IPFSRT_OK) st = ipfsrt_car_header_encode(root, 1, &s->header, &err);
    if (st != IPFSRT_OK) {
        stream_free(s);
        return send_error(rq, c, &err);
    }
    plan_car_faults(s);
    s->total = s->header.len;
    for (size_t i = 0; i < s->count; i++) {
        uint64_t l = (uint64_t)s->blocks[i].cid.len + s->blocks[i].len;
        s->total += ipfsrt_varint_size(l) + l;
    }
    struct MHD_Response *r =
        MHD_create_response_from_callback(s->total, 64 * 1024, stream_read, s, stream_free);
    if (!r) {
        stream_free(s);
        return MHD_NO;
    }
    char h[IPFSRT_CID_STR_MAX + 96];
    MHD_add_response_header(r, "Content-Type", walk.dups ? CAR_TYPE "; version=1; order=dfs; dups=y"
                                                          : CAR_TYPE "; version=1; order=dfs; dups=n");
    snprintf(h, sizeof h, "attachment; filename=\"%s.car\"", cid_str);
    MHD_add_response_header(r, "Content-Disposition", h);
    /* a weak Etag over what selects the blocks */
    uint64_t tag = ipfsrt_murmur3_x64_64((const uint8_t *)path, strlen(path)) ^
                   ((uint64_t)scope << 56) ^ ((uint64_t)walk.dups << 48) ^ offset * 31 ^ length * 17;
    snprintf(h, sizeof h, "W/\"%s.car.%016llx\"", cid_str, (unsigned long long)tag);
    MHD_add_response_header(r, "Etag", h);
    MHD_add_response_header(r, "Accept-Ranges", "none");
    common_headers(r);
    return queue(rq, c, MHD_HTTP_OK, r, 0); /* body bytes are counted as they are sent */
}

/* ----------------------------------------------------------- deserialized */

/* The plain, unverified form a browser or `curl` gets: file bytes (with Range)
 * or a JSON directory listing. Benchmarks compare verified clients with it. */

/* The byte range of a file as pieces of the mapped CARs, found with one walk of
 * its DAG when the response starts; the body is then copied straight from them. */
typedef struct segment {
    const uint8_t *data;
    size_t len;
    bool owned; /* a copy: identity blocks live in transient CID values */
} segment;

typedef struct file_stream {
    request *rq;
    segment *segs;
    size_t count, cap;
    size_t seg, seg_off;
    uint64_t length;
    uint64_t tamper_at;
} file_stream;

static void file_stream_free(void *cls) {
    file_stream *f = cls;
    for (size_t i = 0; i < f->count; i++)
        if (f->segs[i].owned) free((void *)f->segs[i].data);
    free(f->segs);
    free(f);
}

static ipfsrt_status add_segment(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    file_stream *f = user;
    if (len == 0) return IPFSRT_OK;
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        segment *p = realloc(f->segs, cap * sizeof *p);
        if (!p) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        f->segs = p;
        f->cap = cap;
    }
    segment sg = {data, len, false};
    if (len <= IPFSRT_MH_MAX_DIGEST) { /* may be an identity block's bytes */
        uint8_t *copy = malloc(len);
        if (!copy) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        memcpy(copy, data, len);
        sg = (segment){copy, len, true};
    }
    f->segs[f->count++] = sg;
    return IPFSRT_OK;
}

static ssize_t file_read(void *cls, uint64_t pos, char *buf, size_t max) {
    file_stream *f = cls;
    size_t out = 0;
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
    size_t sent = body_faults(f->rq, pos, buf, out, f->length, f->tamper_at);
    if (sent == 0) return out ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    count_sent(f->rq, sent);
    return (ssize_t)sent;
}

/* One "bytes=A-B", "bytes=A-" or "bytes=-N" range; false for anything else
 * (several ranges are answered whole, as RFC 9110 allows). */
static bool parse_range(const char *h, uint64_t size, uint64_t *start, uint64_t *len, bool *ok) {
    *ok = true;
    if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ',')) return false;
    const char *p = h + 6;
    char *end;
    if (*p == '-') {
        unsigned long long n = strtoull(p + 1, &end, 10);
        if (end == p + 1 || *end || n == 0) return (*ok = false), true;
        *start = n >= size ? 0 : size - n;
        *len = size - *start;
        return true;
    }
    unsigned long long a = strtoull(p, &end, 10);
    if (end == p || *end != '-') return (*ok = false), true;
    const char *q = end + 1;
    unsigned long long b = size ? size - 1 : 0;
    if (*q) {
        b = strtoull(q, &end, 10);
        if (end == q || *end) return (*ok = false), true;
        if (b >= size) b = size - 1;
    }
    if (a >= size || a > b) return (*ok = false), true;
    *start = a;
    *len = b - a + 1;
    return true;
}

static ipfsrt_status list_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    cJSON *item = cJSON_CreateObject();
    char s[IPFSRT_CID_STR_MAX];
    if (!item || !cJSON_AddStringToObject(item, "name", e->name) ||
        !cJSON_AddStringToObject(item, "cid", ipfsrt_cid_to_string(&e->cid, s)) ||
        !cJSON_AddStringToObject(item, "type", e->has_type ? ipfsrt_unixfs_type_name(e->type) : "unknown") ||
        !cJSON_AddNumberToObject(item, "size", (double)(e->has_type ? e->size : e->tsize))) {
        cJSON_Delete(item);
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    }
    cJSON_AddItemToArray(user, item);
    return IPFSRT_OK;
}

static const char *content_type_of(const char *path) {
    static const struct {
        const char *ext, *type;
    } types[] = {{".txt", "text/plain; charset=utf-8"}, {".json", "application/json"},
                 {".csv", "text/csv; charset=utf-8"},   {".html", "text/html; charset=utf-8"},
                 {".png", "image/png"},                 {".jpg", "image/jpeg"}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t e = strlen(types[i].ext);
        if (n >= e && strcmp(path + n - e, types[i].ext) == 0) return types[i].type;
    }
    return "application/octet-stream";
}

static enum MHD_Result serve_plain(request *rq, struct MHD_Connection *c, const char *cid_str,
                                   const char *path) {
    ipfsrt_server *gw = rq->gw;
    size_t plen = strlen(cid_str) + strlen(path) + 1;
    char *full = malloc(plen);
    if (!full) return MHD_NO;
    snprintf(full, plen, "%s%s", cid_str, path);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&gw->src, full, NULL, &info, &err);
    free(full);
    if (st != IPFSRT_OK) return send_error(rq, c, &err);
    char s[IPFSRT_CID_STR_MAX], h[IPFSRT_CID_STR_MAX + 8];
    snprintf(h, sizeof h, "\"%s\"", ipfsrt_cid_to_string(&info.cid, s));
    struct MHD_Response *r = NULL;
    unsigned status = MHD_HTTP_OK;
    uint64_t body = 0;
    if (info.type == IPFSRT_UNIXFS_FILE) {
        uint64_t start = 0, len = info.size;
        bool ok;
        if (parse_range(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range"), info.size, &start,
                        &len, &ok)) {
            if (!ok) {
                struct MHD_Response *e = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
                char cr[64];
                snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)info.size);
                MHD_add_response_header(e, "Content-Range", cr);
                return queue(rq, c, MHD_HTTP_RANGE_NOT_SATISFIABLE, e, 0);
            }
            status = MHD_HTTP_PARTIAL_CONTENT;
        }
        file_stream *f = calloc(1, sizeof *f);
        if (!f) return MHD_NO;
        f->rq = rq;
        f->length = len;
        f->tamper_at = len ? next_random(&rq->rng) % len : UINT64_MAX;
        if (len && ipfsrt_unixfs_read(&gw->src, &info.cid, start, len, add_segment, f, &err) !=
                       IPFSRT_OK) {
            file_stream_free(f);
            return send_error(rq, c, &err);
        }
        r = MHD_create_response_from_callback(len, 256 * 1024, file_read, f, file_stream_free);
        if (!r) {
            file_stream_free(f);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", content_type_of(path));
        MHD_add_response_header(r, "Accept-Ranges", "bytes");
        if (status == MHD_HTTP_PARTIAL_CONTENT) {
            char cr[96];
            snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)start,
                     (unsigned long long)(start + len - 1), (unsigned long long)info.size);
            MHD_add_response_header(r, "Content-Range", cr);
        }
    } else if (info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD) {
        cJSON *list = cJSON_CreateArray();
        if (!list) return MHD_NO;
        if (ipfsrt_unixfs_ls(&gw->src, &info.cid, true, list_entry, list, &err) != IPFSRT_OK) {
            cJSON_Delete(list);
            return send_error(rq, c, &err);
        }
        char *json = cJSON_PrintUnformatted(list);
        cJSON_Delete(list);
        if (!json) return MHD_NO;
        size_t n = strlen(json);
        r = MHD_create_response_from_buffer(n, json, MHD_RESPMEM_MUST_FREE);
        if (!r) {
            free(json);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "application/json");
        body = n;
    } else {
        return send_text(rq, c, MHD_HTTP_NOT_IMPLEMENTED, "%s is a %s; only files and directories "
                         "are served deserialized", s, ipfsrt_unixfs_type_name(info.type));
    }
    MHD_add_response_header(r, "Etag", h);
    snprintf(h, sizeof h, "%s", s);
    MHD_add_response_header(r, "X-Ipfs-Roots", h);
    common_headers(r);
    return queue(rq, c, status, r, body); /* file bytes are counted as they are sent */
}

/* ---------------------------------------------------------------- routing */

static enum MHD_Result append_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value) {
    (void)kind;
    char *q = cls;
    size_t n = strlen(q);
    snprintf(q + n, 512 - n, "%s%s%s%s", n ? "&" : "", key, value ? "=" : "", value ? value : "");
    return MHD_YES;
}

/* Draws this request's faults; returns false when the connection is to be dropped. */
static enum MHD_Result plan_faults(request *rq, struct MHD_Connection *c, bool *answered) {
    const ipfsrt_server_faults *f = &rq->gw->faults;
    *answered = false;
    if (f->delay_ms || f->delay_jitter_ms) {
        unsigned ms = f->delay_ms + (f->delay_jitter_ms
                                         ? (unsigned)(next_random(&rq->rng) % (f->delay_jitter_ms + 1u))
                                         : 0);
        note_fault(rq, "delay");
        usleep((useconds_t)ms * 1000);
    }
    if (draw(rq, f->reset)) {
        note_fault(rq, "reset");
        *answered = true;
        return MHD_NO; /* libmicrohttpd closes the connection without an answer */
    }
    if (draw(rq, f->fail)) {
        static const unsigned codes[] = {500, 502, 503, 429};
        unsigned code = codes[next_random(&rq->rng) % 4];
        note_fault(rq, "fail");
        *answered = true;
        return send_text(rq, c, code, "injected failure (%u)", code);
    }
    rq->tamper = draw(rq, f->tamper);
    rq->truncate = draw(rq, f->truncate);
    rq->wrong_block = draw(rq, f->wrong_block);
    rq->wrong_dag = draw(rq, f->wrong_dag);
    rq->slow = f->slow_bytes_per_s;
    if (rq->tamper) note_fault(rq, "tamper");
    if (rq->truncate) note_fault(rq, "truncate");
    if (rq->wrong_block) note_fault(rq, "wrong-block");
    if (rq->wrong_dag) note_fault(rq, "wrong-dag");
    if (rq->slow) note_fault(rq, "slow");
    return MHD_YES;
}

static enum MHD_Result route(request *rq, struct MHD_Connection *c, const char *url,
                             const char *method) {
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(rq, c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are served");
    if (strncmp(url, "/ipfs/", 6) != 0)
        return send_text(rq, c, MHD_HTTP_NOT_FOUND, "only /ipfs/{cid} paths are served");
    const char *cid_start = url + 6;
    size_t cid_len = strcspn(cid_start, "/");
    const char *path = cid_start + cid_len;
    ipfsrt_cid cid;
    ipfsrt_error err;
    if (ipfsrt_cid_parse(&cid, cid_start, cid_len, NULL, &err) != IPFSRT_OK)
        return send_text(rq, c, MHD_HTTP_BAD_REQUEST, "bad CID: %s", err.message);
    char cid_str[IPFSRT_CID_STR_MAX];
    snprintf(cid_str, sizeof cid_str, "%.*s", (int)cid_len, cid_start);
    bool answered;
    enum MHD_Result faulted = plan_faults(rq, c, &answered);
    if (rq->faults[0]) atomic_fetch_add(&rq->gw->faulted, 1);
    if (answered) return faulted;
    const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    if (format) { /* format= wins over Accept */
        if (strcmp(format, "raw") == 0) return serve_raw(rq, c, &cid, path);
        if (strcmp(format, "car") == 0) return serve_car(rq, c, &cid, cid_str, path, accept);
        return send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                         "format=%s is not served (raw and car are)", format);
    }
    if (accept && strstr(accept, RAW_TYPE)) return serve_raw(rq, c, &cid, path);
    if (accept && strstr(accept, CAR_TYPE)) return serve_car(rq, c, &cid, cid_str, path, accept);
    if (accept && strstr(accept, "application/vnd.") && !strstr(accept, "*/*"))
        return send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                         "%s is not served (" RAW_TYPE ", " CAR_TYPE " or plain bytes are)", accept);
    return serve_plain(rq, c, cid_str, path);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_size, void **req_cls) {
    (void)version, (void)upload_data;
    ipfsrt_server *gw = cls;
    /* The first call only sets the request up: answering before libmicrohttpd
     * has seen the whole request makes it close the connection. */
    if (!*req_cls) {
        request *rq = calloc(1, sizeof *rq);
        if (!rq) return MHD_NO;
        rq->gw = gw;
        rq->number = atomic_fetch_add(&gw->requests, 1);
        rq->rng = gw->faults.seed ^ (rq->number * 0x9e3779b97f4a7c15ull);
        snprintf(rq->method, sizeof rq->method, "%s", method);
        rq->path = strdup(url);
        *req_cls = rq;
        return rq->path ? MHD_YES : MHD_NO;
    }
    request *rq = *req_cls;
    if (*upload_size) { /* GET and HEAD carry no body worth reading */
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->status) return MHD_YES; /* already answered */
    return route(rq, c, url, method);
}

/* Writes the request's log line and releases it. */
static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode why) {
    ipfsrt_server *gw = cls;
    request *rq = *req_cls;
    if (!rq) return;
    if (gw->log) {
        char query[512] = "";
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, append_arg, query);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        pthread_mutex_lock(&gw->log_lock);
        fprintf(gw->log, "%lld.%03ld %s %s %s %u %llu %s%s\n", (long long)ts.tv_sec,
                ts.tv_nsec / 1000000, rq->method, rq->path, query[0] ? query : "-",
                rq->status, (unsigned long long)atomic_load(&rq->bytes),
                rq->faults[0] ? rq->faults : "-",
                why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection ended early)");
        fflush(gw->log);
        pthread_mutex_unlock(&gw->log_lock);
    }
    free(rq->path);
    free(rq);
    *req_cls = NULL;
}

/* ------------------------------------------------------------- lifecycle */

static ipfsrt_status parse_listen(const char *listen, struct sockaddr_storage *ss, ipfsrt_error *err) {
    memset(ss, 0, sizeof *ss);
    const char *colon = strrchr(listen, ':');
    if (!colon) return ipfsrt_fail(err, IPFSRT_EARG, -1, "listen address '%s' lacks :PORT", listen);
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || port < 0 || port > 65535)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "bad port in listen address '%s'", listen);
    char host[64];
    size_t hl = (size_t)(colon - listen);
    if (hl >= sizeof host) return ipfsrt_fail(err, IPFSRT_EARG, -1, "listen host too long");
    memcpy(host, listen, hl);
    host[hl] = '\0';
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (strcmp(host, "localhost") == 0) strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        return IPFSRT_OK;
    }
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) == 1) {
            v6->sin6_family = AF_INET6;
            v6->sin6_port = htons((uint16_t)port);
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EARG, -1, "listen host '%s' is not an IP address", host);
}

ipfsrt_status ipfsrt_server_new(ipfsrt_server **out, const char *const *paths, size_t n,
                                  const ipfsrt_server_options *opts, ipfsrt_error *err) {
    *out = NULL;
    if (n == 0) return ipfsrt_fail(err, IPFSRT_EARG, -1, "a gateway needs at least one CAR file");
    ipfsrt_server *gw = calloc(1, sizeof *gw);
    if (!gw) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    gw->cars = calloc(n, sizeof *gw->cars);
    ipfsrt_status st = gw->cars ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_mhmap_init(&gw->index);
    for (size_t i = 0; st == IPFSRT_OK && i < n; i++) {
        /* verify each CAR whole, and merge its blocks into one index */
        ipfsrt_car_options verify_opts = {.verify_only = true};
        indexing ix = {gw, i, IPFSRT_OK};
        st = ipfsrt_car_verify_file(paths[i], &verify_opts, 1 << 20, index_block, &ix, NULL, NULL,
                                    err);
        if (ix.st != IPFSRT_OK) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory indexing %s", paths[i]);
        if (st == IPFSRT_OK) st = ipfsrt_car_file_new(&gw->cars[i], paths[i], NULL, err);
        if (st == IPFSRT_OK) gw->ncars++;
    }
    gw->src = (ipfsrt_blocksource){gw, multi_get, NULL};
    if (opts) gw->faults = opts->faults;
    pthread_mutex_init(&gw->log_lock, NULL);
    if (st == IPFSRT_OK && opts && opts->log_path) {
        gw->log = fopen(opts->log_path, "a");
        if (!gw->log) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open log %s", opts->log_path);
    }
    /* two valid blocks to hand out in place of others, for wrong-block */
    uint64_t cursor = 0;
    for (int k = 0; st == IPFSRT_OK && k < 2;) {
        ipfsrt_car_block b;
        bool done;
        if (ipfsrt_car_file_next(gw->cars[0], &cursor, &b, &done, NULL) != IPFSRT_OK || done) break;
        if (b.cid.hash_code == IPFSRT_MH_IDENTITY) continue;
        gw->spares[k++] = (car_spare){b.cid, b.data, b.len};
    }
    struct sockaddr_storage ss;
    const char *listen = opts && opts->listen ? opts->listen : "127.0.0.1:0";
    if (st == IPFSRT_OK) st = parse_listen(listen, &ss, err);
    if (st == IPFSRT_OK) {
        unsigned threads = opts && opts->threads ? opts->threads : 4;
        /* Library threads take no signals: they stay with the host's own threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
        if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
        gw->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, gw,
                                      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                      MHD_OPTION_THREAD_POOL_SIZE, threads,
                                      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                                      MHD_OPTION_NOTIFY_COMPLETED, completed, gw,
                                      MHD_OPTION_END);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!gw->daemon) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot listen on %s", listen);
    }
    if (st == IPFSRT_OK) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(gw->daemon, MHD_DAEMON_INFO_BIND_PORT);
        char host[64];
        if (ss.ss_family == AF_INET6) {
            char a[INET6_ADDRSTRLEN];
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof a);
            snprintf(host, sizeof host, "[%s]", a);
        } else {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
        }
        snprintf(gw->url, sizeof gw->url, "http://%s:%u", host, info ? (unsigned)info->port : 0);
    }
    if (st != IPFSRT_OK) {
        ipfsrt_server_free(gw);
        return st;
    }
    *out = gw;
    return IPFSRT_OK;
}

const char *ipfsrt_server_url(const ipfsrt_server *gw) { return gw->url; }

void ipfsrt_server_get_stats(const ipfsrt_server *gw, ipfsrt_server_stats *st) {
    st->requests = atomic_load(&gw->requests);
    st->bytes = atomic_load(&gw->bytes);
    st->status_2xx = atomic_load(&gw->s2xx);
    st->status_4xx = atomic_load(&gw->s4xx);
    st->status_5xx = atomic_load(&gw->s5xx);
    st->faults = atomic_load(&gw->faulted);
}

void ipfsrt_server_free(ipfsrt_server *gw) {
    if (!gw) return;
    if (gw->daemon) MHD_stop_daemon(gw->daemon);
    if (gw->log) fclose(gw->log);
    pthread_mutex_destroy(&gw->log_lock);
    for (size_t i = 0; i < gw->ncars; i++) ipfsrt_car_file_free(gw->cars[i]);
    ipfsrt_mhmap_free(&gw->index);
    free(gw->cars);
    free(gw);
}
