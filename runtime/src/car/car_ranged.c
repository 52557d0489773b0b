/* A CAR read by ranges (an S3 object, a web server's file) through any
 * ipfsrt_range_reader: its header and index are read once (a CARv1 has none:
 * one is made by reading it once, and kept in the cache folder); then each
 * block asked for is one ranged read of its section (from its indexed start
 * to the next indexed one), many in flight, checked against the CID asked for
 * before anyone sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "car/car_internal.h"
#include "store/blockcache.h"
#include "base/base_internal.h"

#define HEAD_BYTES 65536                  /* the first read: pragma, CARv2 header and (nearly always) the CARv1 header */
#define STREAM_PIECE ((uint64_t)16 << 20) /* reading a CARv1 through to index it */

struct ipfsrt_car_ranged {
    ipfsrt_range_reader reader;
    char *key;      /* the CAR's object key */
    char what[600]; /* where it is and its key, for messages */
    ipfsrt_cid root;
    uint64_t data_start, data_end;
    uint8_t *index_bytes;
    ipfsrt_car_index index;
    uint64_t *offsets; /* every indexed section's start, sorted */
    size_t offset_count;
};

/* ------------------------------------------------------------- opening */

typedef struct one_read {
    ipfsrt_buf data;
    uint64_t size;
    char etag[128];
    ipfsrt_status status;
    ipfsrt_error error;
} one_read;

static ipfsrt_status keep_one(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    (void)err;
    one_read *o = user;
    o->status = r->status;
    o->error = r->error;
    o->size = r->object_size;
    snprintf(o->etag, sizeof o->etag, "%s", r->etag ? r->etag : "");
    if (r->status == IPFSRT_OK) ipfsrt_buf_append(&o->data, r->data, r->len);
    return IPFSRT_OK;
}

/* Bytes [from, from + len) of the CAR into o (fewer at its end). */
static ipfsrt_status read_range(ipfsrt_car_ranged *c, uint64_t from, uint64_t len, one_read *o, ipfsrt_error *err) {
    ipfsrt_buf_init(&o->data);
    ipfsrt_range_request r = {c->key, from, len, false};
    ipfsrt_status st = c->reader.get_many(c->reader.ctx, &r, 1, keep_one, o, err);
    if (st == IPFSRT_OK && o->status != IPFSRT_OK) {
        st = o->status;
        if (err) *err = o->error;
    }
    if (st == IPFSRT_OK && o->data.failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st != IPFSRT_OK) ipfsrt_buf_free(&o->data);
    return st;
}

/* The CARv1 header at data_start: its roots. */
static ipfsrt_status read_roots(ipfsrt_car_ranged *c, const one_read *head, ipfsrt_car_header *hdr,
                                ipfsrt_error *err) {
    one_read more = {0};
    const uint8_t *p = head->data.data + c->data_start;
    size_t avail = head->data.len > c->data_start ? head->data.len - (size_t)c->data_start : 0;
    uint64_t hlen;
    size_t vlen;
    ipfsrt_status st = ipfsrt_varint_decode(p, avail, &hlen, &vlen, err);
    if (st == IPFSRT_OK && (hlen == 0 || hlen > IPFSRT_CAR_DEFAULT_MAX_HEADER))
        st = ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, (int64_t)c->data_start, "a CAR header of %llu bytes",
                         (unsigned long long)hlen);
    if (st == IPFSRT_OK && hlen > avail - vlen) { /* a long header: read it on its own */
        st = read_range(c, c->data_start + vlen, hlen, &more, err);
        p = more.data.data, vlen = 0;
        if (st == IPFSRT_OK && more.data.len < hlen) st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, -1, "the CAR ends in its header");
    }
    if (st == IPFSRT_OK) st = ipfsrt_car_header_decode(p + vlen, (size_t)hlen, hdr, err);
    if (st == IPFSRT_OK && hdr->root_count < 1) st = ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, -1, "the CAR has no root");
    ipfsrt_buf_free(&more.data);
    return st;
}

static ipfsrt_status read_index(ipfsrt_car_ranged *c, const ipfsrt_car_header *v2, uint64_t size, ipfsrt_error *err) {
    one_read ix = {0};
    ipfsrt_status st = read_range(c, v2->index_offset, size - v2->index_offset, &ix, err);
    if (st != IPFSRT_OK) return st;
    c->index_bytes = ix.data.data; /* the index reads in place */
    if (!ipfsrt_car_index_parse(&c->index, c->index_bytes, ix.data.len, v2->data_size))
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_INDEX, (int64_t)v2->index_offset, "its CARv2 index is malformed");
    return ipfsrt_car_index_offsets(&c->index, &c->offsets, &c->offset_count, err);
}

typedef struct piece_sink {
    ipfsrt_range_sink_fn sink;
    void *sink_user;
    size_t got;
} piece_sink;

static ipfsrt_status pass_piece(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    piece_sink *p = user;
    if (r->status != IPFSRT_OK) {
        if (err) *err = r->error;
        return r->status;
    }
    p->got = r->len;
    return r->len ? p->sink(p->sink_user, r->data, r->len, err) : IPFSRT_OK;
}

/* The whole CAR, to index it: one transfer where the reader streams, else a
 * large ranged read after another. */
static ipfsrt_status stream_car(void *user, ipfsrt_range_sink_fn sink, void *sink_user, ipfsrt_error *err) {
    ipfsrt_car_ranged *c = user;
    if (c->reader.get_stream) return c->reader.get_stream(c->reader.ctx, c->key, sink, sink_user, err);
    ipfsrt_status st = IPFSRT_OK;
    for (uint64_t at = 0; at < c->data_end && st == IPFSRT_OK;) {
        uint64_t want = c->data_end - at < STREAM_PIECE ? c->data_end - at : STREAM_PIECE;
        piece_sink p = {sink, sink_user, 0};
        ipfsrt_range_request r = {c->key, at, want, false};
        st = c->reader.get_many(c->reader.ctx, &r, 1, pass_piece, &p, err);
        if (st == IPFSRT_OK && p.got != want)
            st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)(at + p.got), "the CAR ended before its size");
        at += want;
    }
    return st;
}

/* A CARv1 (no index): one made by reading it once, or the one kept in the
 * cache for this object (same place, size, ETag and first bytes). */
static ipfsrt_status index_v1(ipfsrt_car_ranged *c, const one_read *head, ipfsrt_error *err) {
    if (head->size == UINT64_MAX)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "a CARv1 whose size the server does not say");
    ipfsrt_buf id, ix;
    ipfsrt_buf_init(&id);
    ipfsrt_buf_init(&ix);
    char line[1024];
    snprintf(line, sizeof line, "ipfsrt CARv1 index\n%s\n%s\n%llu\n%s\n", c->reader.what ? c->reader.what : "",
             c->key, (unsigned long long)head->size, head->etag);
    ipfsrt_buf_append(&id, line, strlen(line));
    ipfsrt_buf_append(&id, head->data.data, head->data.len < 4096 ? head->data.len : 4096);
    ipfsrt_status st = id.failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory")
                                 : ipfsrt_car_index_cached(id.data, id.len, head->size, stream_car, c, &ix, err);
    ipfsrt_buf_free(&id);
    if (st != IPFSRT_OK) {
        ipfsrt_buf_free(&ix);
        return st;
    }
    c->index_bytes = ix.data;
    if (!ipfsrt_car_index_parse(&c->index, c->index_bytes, ix.len, head->size))
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_INDEX, -1, "the index made of it is malformed");
    return ipfsrt_car_index_offsets(&c->index, &c->offsets, &c->offset_count, err);
}

/* Where the sections lie, the root, the index. */
static ipfsrt_status load(ipfsrt_car_ranged *c, ipfsrt_error *err) {
    one_read head = {0};
    ipfsrt_status st = read_range(c, 0, HEAD_BYTES, &head, err);
    ipfsrt_car_header v2 = {0}, v1 = {0};
    bool is_v2 = st == IPFSRT_OK && head.data.len >= IPFSRT_CARV2_HEADER_SIZE &&
                 memcmp(head.data.data, ipfsrt_carv2_pragma, sizeof ipfsrt_carv2_pragma) == 0;
    if (st == IPFSRT_OK && is_v2)
        st = ipfsrt_carv2_header_decode(head.data.data + sizeof ipfsrt_carv2_pragma, &v2, head.size, err);
    if (st == IPFSRT_OK && is_v2 && !v2.index_offset)
        st = ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "a CARv2 without an index");
    c->data_start = is_v2 ? v2.data_offset : 0;
    c->data_end = is_v2 ? v2.data_offset + v2.data_size : head.size;
    if (st == IPFSRT_OK) st = read_roots(c, &head, &v1, err);
    if (st == IPFSRT_OK) st = is_v2 ? read_index(c, &v2, head.size, err) : index_v1(c, &head, err);
    if (st == IPFSRT_OK) c->root = v1.roots[0];
    ipfsrt_car_header_release(&v1);
    ipfsrt_car_header_release(&v2);
    ipfsrt_buf_free(&head.data);
    return st;
}

ipfsrt_status ipfsrt_car_ranged_new(ipfsrt_car_ranged **out, const ipfsrt_range_reader *reader, const char *key,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(reader, err);
    IPFSRT_NEED(key, err);
    *out = NULL;
    ipfsrt_range_reader taken;
    ipfsrt_status taking = IPFSRT_TAKE_CALLBACKS(taken, reader, "ipfsrt_range_reader", err);
    if (taking != IPFSRT_OK) return taking;
    ipfsrt_car_ranged *c = calloc(1, sizeof *c);
    if (!c || !(c->key = strdup(key ? key : ""))) {
        free(c);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    c->reader = taken;
    snprintf(c->what, sizeof c->what, "%s%s%s", taken.what ? taken.what : "a CAR", *c->key ? "/" : "", c->key);
    ipfsrt_car_index_init(&c->index);
    ipfsrt_status st = load(c, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s: ", c->what);
        ipfsrt_car_ranged_free(c);
        return st;
    }
    *out = c;
    return IPFSRT_OK;
}

void ipfsrt_car_ranged_free(ipfsrt_car_ranged *c) {
    if (!c) return;
    ipfsrt_car_index_free(&c->index);
    free(c->index_bytes);
    free(c->offsets);
    free(c->key);
    free(c);
}

const ipfsrt_cid *ipfsrt_car_ranged_root(const ipfsrt_car_ranged *c) {
    IPFSRT_NEED_OR(c, NULL);
    return &c->root;
}
const char *ipfsrt_car_ranged_describe(const ipfsrt_car_ranged *c) {
    IPFSRT_NEED_OR(c, NULL);
    return c->what;
}

/* ------------------------------------------------------- verified blocks */

/* Where cid's section lies in the CAR: from its indexed start to the next one. */
static bool section_of(const ipfsrt_car_ranged *c, const ipfsrt_cid *cid, uint64_t *from, uint64_t *len) {
    uint64_t off;
    if (!ipfsrt_car_index_find(&c->index, cid, &off)) return false;
    size_t lo = 0, hi = c->offset_count; /* the first offset past off */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->offsets[mid] <= off) lo = mid + 1;
        else hi = mid;
    }
    uint64_t end = lo < c->offset_count ? c->data_start + c->offsets[lo] : c->data_end;
    *from = c->data_start + off;
    if (end <= *from || end - *from > ipfsrt_car_max_section(IPFSRT_CAR_DEFAULT_MAX_BLOCK) + 16) return false;
    *len = end - *from;
    return true;
}

/* A fetched section: the block in it must be the one asked for, hashed right. */
static ipfsrt_status take_section(const ipfsrt_car_ranged *c, const ipfsrt_cid *cid, const uint8_t *p, size_t n,
                                  uint64_t at, ipfsrt_car_block *block, ipfsrt_error *err) {
    uint64_t len;
    size_t vlen;
    ipfsrt_status st = ipfsrt_varint_decode(p, n, &len, &vlen, err);
    if (st == IPFSRT_OK && len > n - vlen)
        st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)at, "the section is cut short");
    if (st == IPFSRT_OK)
        st = ipfsrt_car_section_decode(p + vlen, (size_t)len, at, IPFSRT_CAR_DEFAULT_MAX_BLOCK, true, NULL, NULL,
                                       block, err);
    size_t a, b;
    const uint8_t *want_mh = ipfsrt_cid_multihash(cid, &a);
    const uint8_t *got_mh = st == IPFSRT_OK ? ipfsrt_cid_multihash(&block->cid, &b) : NULL;
    if (st == IPFSRT_OK && (a != b || memcmp(want_mh, got_mh, a) != 0))
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_CAR_INDEX, cid, (int64_t)at, "the index points at another block");
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s, byte offset %llu: ", c->what, (unsigned long long)at);
    return st;
}

typedef struct fetch_call {
    const ipfsrt_car_ranged *c;
    const ipfsrt_cid *cids;
    const size_t *asked; /* the position in cids of each read */
    const uint64_t *at;
    ipfsrt_range_fn fn;
    void *user;
} fetch_call;

static ipfsrt_status fetched(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    fetch_call *f = user;
    size_t i = f->asked[res->index];
    ipfsrt_range_result r = {.index = i, .key = f->c->what, .status = res->status, .error = res->error,
                             .data = (const uint8_t *)"", .object_size = UINT64_MAX, .cid = &f->cids[i]};
    ipfsrt_car_block block;
    if (r.status == IPFSRT_OK) r.status = take_section(f->c, &f->cids[i], res->data, res->len, f->at[res->index], &block, &r.error);
    if (r.status == IPFSRT_OK) {
        r.data = block.data;
        r.len = block.len;
    }
    return f->fn(f->user, &r, err);
}

/* The blocks the index lacks, reported at once: the CAR cannot hold them. */
static ipfsrt_status report_absent(const ipfsrt_car_ranged *c, const ipfsrt_cid *cids, size_t i, ipfsrt_range_fn fn,
                                   void *user, ipfsrt_error *err) {
    ipfsrt_range_result r = {.index = i, .key = c->what, .status = IPFSRT_EUNAVAILABLE, .data = (const uint8_t *)"",
                             .object_size = UINT64_MAX, .cid = &cids[i]};
    ipfsrt_fail_cid(&r.error, IPFSRT_EUNAVAILABLE, &cids[i], -1, "%s does not hold this block", c->what);
    return fn(user, &r, err);
}

ipfsrt_status ipfsrt_car_ranged_get_many(ipfsrt_car_ranged *c, const ipfsrt_cid *cids, size_t n, ipfsrt_range_fn fn,
                                         void *user, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED(fn, err);
    ipfsrt_range_request *reqs = calloc(n ? n : 1, sizeof *reqs);
    uint64_t *at = calloc(n ? n : 1, sizeof *at);
    size_t *asked = calloc(n ? n : 1, sizeof *asked);
    ipfsrt_status st = reqs && at && asked ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        uint64_t from, len;
        if (!section_of(c, &cids[i], &from, &len)) {
            st = report_absent(c, cids, i, fn, user, err);
            continue;
        }
        asked[k] = i;
        at[k] = from;
        reqs[k++] = (ipfsrt_range_request){c->key, from, len, false};
    }
    fetch_call f = {c, cids, asked, at, fn, user};
    if (st == IPFSRT_OK && k) st = c->reader.get_many(c->reader.ctx, reqs, k, fetched, &f, err);
    free(reqs);
    free(at);
    free(asked);
    return st;
}

/* ---------------------------------------------------- as a block source */

typedef struct one_block {
    ipfsrt_rcblock *block;
    ipfsrt_status status;
    ipfsrt_error error;
} one_block;

static ipfsrt_status keep_block(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    one_block *o = user;
    o->status = r->status;
    o->error = r->error;
    if (r->status != IPFSRT_OK) return IPFSRT_OK;
    o->block = ipfsrt_rcblock_new(r->cid, r->data, r->len);
    return o->block ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

static ipfsrt_status ranged_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    one_block o = {NULL, IPFSRT_OK, {0}};
    ipfsrt_status st = ipfsrt_car_ranged_get_many(ctx, cid, 1, keep_block, &o, err);
    if (st == IPFSRT_OK && o.status != IPFSRT_OK) {
        st = o.status;
        if (err) *err = o.error;
    }
    if (st != IPFSRT_OK) {
        ipfsrt_rcblock_unref(o.block);
        return st;
    }
    ref->data = o.block->data;
    ref->len = o.block->len;
    ref->token = o.block;
    return IPFSRT_OK;
}

static void ranged_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    (void)ctx;
    ipfsrt_rcblock_unref(ref->token);
}

void ipfsrt_car_ranged_blocksource(ipfsrt_blocksource *src, ipfsrt_car_ranged *c) {
    IPFSRT_NEED_OR(src, );
    IPFSRT_NEED_OR(c, );
    src->size = sizeof *src;
    src->ctx = c;
    src->get = ranged_get;
    src->release = ranged_release;
}
