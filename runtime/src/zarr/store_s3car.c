/* A CAR file on S3 or a web server as a verified, read-only store
 * ("s3://bucket/x.car[/path]", "https://host/x.car[/path]"):
 * its header and index are read once (a CARv1 has none: one is made by reading
 * it once, and kept in the cache folder); then the keys asked for at once are
 * resolved from the CAR's root together, round by round: each round collects
 * every block the walks lack and fetches them in one set of ranged GETs (a
 * section ends where the next indexed one begins), each checked against the
 * CID asked for before any walk may use it. Directory and file nodes are kept
 * for later calls; data blocks only for the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "car/car_internal.h"
#include "ipfsrt/s3.h"
#include "ipfsrt/varint.h"
#include "store/blockcache.h"
#include "zarr/store_internal.h"

#define HEAD_BYTES 65536 /* the first read: pragma, CARv2 header and (nearly always) the CARv1 header */
#define ROUNDS_MAX 64     /* levels of directories, shards and file nodes a path may cross */

typedef struct s3car {
    ipfsrt_s3 *s3;
    char *key;     /* the CAR's object key */
    char *root;    /* "CID/path/" the store's keys are under */
    char what[600]; /* "s3://bucket/x.car" or its URL, for messages */
    uint64_t data_start, data_end;
    uint8_t *index_bytes;
    ipfsrt_car_index index;
    uint64_t *offsets; /* every indexed section's start, sorted */
    size_t offset_count;
    ipfsrt_blockmap nodes; /* verified dag-pb blocks, kept */
    ipfsrt_zarr_known known; /* keys walked to from their CID */
} s3car;

/* ------------------------------------------------------------- opening */

typedef struct one_read {
    ipfsrt_buf data;
    uint64_t size;
    char etag[128];
    ipfsrt_status status;
    ipfsrt_error error;
} one_read;

static ipfsrt_status keep_one(void *user, const ipfsrt_s3_result *r, ipfsrt_error *err) {
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
static ipfsrt_status read_range(s3car *c, uint64_t from, uint64_t len, one_read *o, ipfsrt_error *err) {
    ipfsrt_buf_init(&o->data);
    ipfsrt_s3_request r = {c->key, from, len, false};
    ipfsrt_status st = ipfsrt_s3_get_many(c->s3, &r, 1, keep_one, o, err);
    if (st == IPFSRT_OK && o->status != IPFSRT_OK) {
        st = o->status;
        if (err) *err = o->error;
    }
    if (st == IPFSRT_OK && o->data.failed) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (st != IPFSRT_OK) ipfsrt_buf_free(&o->data);
    return st;
}

/* The CARv1 header at data_start: its roots. */
static ipfsrt_status read_roots(s3car *c, const one_read *head, ipfsrt_car_header *hdr, ipfsrt_error *err) {
    one_read more = {0};
    const uint8_t *p = head->data.data + c->data_start;
    size_t avail = head->data.len > c->data_start ? head->data.len - (size_t)c->data_start : 0;
    uint64_t hlen;
    size_t vlen;
    ipfsrt_status st = ipfsrt_varint_decode(p, avail, &hlen, &vlen, err);
    if (st == IPFSRT_OK && (hlen == 0 || hlen > IPFSRT_CAR_DEFAULT_MAX_HEADER))
        st = ipfsrt_fail(err, IPFSRT_ECAR_HEADER, (int64_t)c->data_start, "a CAR header of %llu bytes",
                         (unsigned long long)hlen);
    if (st == IPFSRT_OK && hlen > avail - vlen) { /* a long header: read it on its own */
        st = read_range(c, c->data_start + vlen, hlen, &more, err);
        p = more.data.data, vlen = 0;
        if (st == IPFSRT_OK && more.data.len < hlen) st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, -1, "the CAR ends in its header");
    }
    if (st == IPFSRT_OK) st = ipfsrt_car_header_decode(p + vlen, (size_t)hlen, hdr, err);
    if (st == IPFSRT_OK && hdr->root_count < 1) st = ipfsrt_fail(err, IPFSRT_ECAR_HEADER, -1, "the CAR has no root");
    ipfsrt_buf_free(&more.data);
    return st;
}

static ipfsrt_status read_index(s3car *c, const ipfsrt_car_header *v2, uint64_t size, ipfsrt_error *err) {
    one_read ix = {0};
    ipfsrt_status st = read_range(c, v2->index_offset, size - v2->index_offset, &ix, err);
    if (st != IPFSRT_OK) return st;
    c->index_bytes = ix.data.data; /* the index reads in place */
    if (!ipfsrt_car_index_parse(&c->index, c->index_bytes, ix.data.len, v2->data_size))
        return ipfsrt_fail(err, IPFSRT_ECAR_INDEX, (int64_t)v2->index_offset, "its CARv2 index is malformed");
    return ipfsrt_car_index_offsets(&c->index, &c->offsets, &c->offset_count, err);
}

static ipfsrt_status stream_car(void *user,
                                ipfsrt_status (*sink)(void *sink_user, const uint8_t *data, size_t len,
                                                      ipfsrt_error *err),
                                void *sink_user, ipfsrt_error *err) {
    s3car *c = user;
    return ipfsrt_s3_get_stream(c->s3, c->key, sink, sink_user, NULL, NULL, err);
}

/* A CARv1 (no index): one made by reading it once, or the one kept in the
 * cache for this object (same place, size, ETag and first bytes). */
static ipfsrt_status index_v1(s3car *c, const one_read *head, ipfsrt_error *err) {
    ipfsrt_buf id, ix;
    ipfsrt_buf_init(&id);
    ipfsrt_buf_init(&ix);
    char line[1024];
    snprintf(line, sizeof line, "ipfsrt CARv1 index\n%s\n%s\n%llu\n%s\n", ipfsrt_s3_describe(c->s3), c->key,
             (unsigned long long)head->size, head->etag);
    ipfsrt_buf_append(&id, line, strlen(line));
    ipfsrt_buf_append(&id, head->data.data, head->data.len < 4096 ? head->data.len : 4096);
    c->data_start = 0;
    c->data_end = head->size;
    ipfsrt_status st = id.failed ? ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory")
                                 : ipfsrt_zarr_car_index_cached(id.data, id.len, head->size, stream_car, c, &ix, err);
    ipfsrt_buf_free(&id);
    if (st != IPFSRT_OK) {
        ipfsrt_buf_free(&ix);
        return st;
    }
    c->index_bytes = ix.data;
    if (!ipfsrt_car_index_parse(&c->index, c->index_bytes, ix.len, head->size))
        return ipfsrt_fail(err, IPFSRT_ECAR_INDEX, -1, "the index made of it is malformed");
    return ipfsrt_car_index_offsets(&c->index, &c->offsets, &c->offset_count, err);
}

/* Header and index; root is "CID" + the path after the CAR's name. */
static ipfsrt_status load(s3car *c, const char *inner, ipfsrt_error *err) {
    one_read head = {0};
    ipfsrt_status st = read_range(c, 0, HEAD_BYTES, &head, err);
    ipfsrt_car_header v2 = {0}, v1 = {0};
    bool is_v2 = st == IPFSRT_OK && head.data.len >= IPFSRT_CARV2_HEADER_SIZE &&
                 memcmp(head.data.data, ipfsrt_carv2_pragma, sizeof ipfsrt_carv2_pragma) == 0;
    if (st == IPFSRT_OK && is_v2)
        st = ipfsrt_carv2_header_decode(head.data.data + sizeof ipfsrt_carv2_pragma, &v2, head.size, err);
    if (st == IPFSRT_OK && is_v2 && !v2.index_offset)
        st = ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "a CARv2 without an index");
    if (st == IPFSRT_OK && is_v2) {
        c->data_start = v2.data_offset;
        c->data_end = v2.data_offset + v2.data_size;
    } else if (st == IPFSRT_OK) {
        c->data_start = 0;
        c->data_end = head.size;
    }
    if (st == IPFSRT_OK) st = read_roots(c, &head, &v1, err);
    if (st == IPFSRT_OK) st = is_v2 ? read_index(c, &v2, head.size, err) : index_v1(c, &head, err);
    if (st == IPFSRT_OK) {
        char cid[IPFSRT_CID_STR_MAX];
        ipfsrt_cid_to_string(&v1.roots[0], cid);
        size_t n = strlen(cid) + strlen(inner) + 3;
        if (!(c->root = malloc(n))) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        else snprintf(c->root, n, "%s%s%s%s", cid, *inner ? "/" : "", inner, "/");
    }
    ipfsrt_car_header_release(&v1);
    ipfsrt_car_header_release(&v2);
    ipfsrt_buf_free(&head.data);
    return st;
}

/* ------------------------------------------------------- verified blocks */

/* The blocks of one call: those fetched, those wanted next, those the CAR
 * does not hold. */
typedef struct walk_round {
    s3car *c;
    ipfsrt_blockmap have;
    ipfsrt_cid *wanted;
    size_t wanted_count, wanted_cap;
    ipfsrt_mhmap wanted_set;
    ipfsrt_mhmap lacking; /* multihash -> 0: the index does not list it; k + 1: failed[k] */
    ipfsrt_error *failed;  /* why a fetched block was refused */
    size_t failed_count, failed_cap;
    bool missed;
} walk_round;

static void round_init(walk_round *r, s3car *c) {
    memset(r, 0, sizeof *r);
    r->c = c;
    ipfsrt_blockmap_init(&r->have);
    ipfsrt_mhmap_init(&r->wanted_set);
    ipfsrt_mhmap_init(&r->lacking);
}

static void round_free(walk_round *r) {
    free(r->wanted);
    free(r->failed);
    ipfsrt_mhmap_free(&r->wanted_set);
    ipfsrt_mhmap_free(&r->lacking);
    ipfsrt_blockmap_free(&r->have);
}

/* Where cid's section lies in the CAR: from its indexed start to the next one. */
static bool section_of(const s3car *c, const ipfsrt_cid *cid, uint64_t *from, uint64_t *len) {
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

static void want(walk_round *r, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    bool added;
    r->missed = true;
    if (ipfsrt_mhmap_put(&r->wanted_set, mh, n, 0, 0, &added) != IPFSRT_OK || !added) return;
    if (ipfsrt_array_reserve(&r->wanted, &r->wanted_cap, r->wanted_count + 1, sizeof *r->wanted) == IPFSRT_OK)
        r->wanted[r->wanted_count++] = *cid;
}

static const ipfsrt_mhmap_entry *lacking(const walk_round *r, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    return ipfsrt_mhmap_get(&r->lacking, mh, n);
}

/* A block that cannot be had: the reads that need it fail with why. */
static void refuse(walk_round *r, const ipfsrt_cid *cid, const ipfsrt_error *why) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    uint64_t v = 0;
    if (why && ipfsrt_array_reserve(&r->failed, &r->failed_cap, r->failed_count + 1, sizeof *r->failed) == IPFSRT_OK) {
        r->failed[r->failed_count++] = *why;
        v = r->failed_count;
    }
    (void)ipfsrt_mhmap_put(&r->lacking, mh, n, v, 0, NULL);
}

static ipfsrt_status lend(ipfsrt_blocksource_ref *ref, ipfsrt_rcblock *b) {
    ipfsrt_rcblock_ref(b);
    ref->data = b->data;
    ref->len = b->len;
    ref->token = b;
    return IPFSRT_OK;
}

/* The walks' source: what this call fetched, the kept nodes; anything else is
 * wanted for the next round. */
static ipfsrt_status round_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    walk_round *r = ctx;
    if (cid->hash_code == IPFSRT_MH_IDENTITY) {
        ref->data = cid->bytes + cid->digest_offset;
        ref->len = cid->digest_len;
        ref->token = NULL;
        return IPFSRT_OK;
    }
    ipfsrt_rcblock *b = ipfsrt_blockmap_get(&r->have, cid);
    if (!b) b = ipfsrt_blockmap_get(&r->c->nodes, cid);
    if (b) return lend(ref, b);
    const ipfsrt_mhmap_entry *gone = lacking(r, cid);
    if (gone && gone->offset) {
        if (err) *err = r->failed[gone->offset - 1];
        return r->failed[gone->offset - 1].code;
    }
    if (gone) return ipfsrt_fail_cid(err, IPFSRT_EUNAVAILABLE, cid, -1, "%s does not hold this block", r->c->what);
    want(r, cid);
    return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not fetched yet");
}

static void round_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    (void)ctx;
    ipfsrt_rcblock_unref(ref->token);
}

/* A fetched section: the block in it must be the one asked for, hashed right. */
static ipfsrt_status take_section(walk_round *r, const ipfsrt_cid *cid, const uint8_t *p, size_t n, uint64_t at,
                                  ipfsrt_error *err) {
    uint64_t len;
    size_t vlen;
    ipfsrt_car_block block;
    ipfsrt_status st = ipfsrt_varint_decode(p, n, &len, &vlen, err);
    if (st == IPFSRT_OK && len > n - vlen)
        st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)at, "the section is cut short");
    if (st == IPFSRT_OK)
        st = ipfsrt_car_section_decode(p + vlen, (size_t)len, at, IPFSRT_CAR_DEFAULT_MAX_BLOCK, true, NULL, &block, err);
    size_t a, b;
    const uint8_t *want_mh = ipfsrt_cid_multihash(cid, &a), *got_mh = st == IPFSRT_OK ? ipfsrt_cid_multihash(&block.cid, &b) : NULL;
    if (st == IPFSRT_OK && (a != b || memcmp(want_mh, got_mh, a) != 0))
        st = ipfsrt_fail_cid(err, IPFSRT_ECAR_INDEX, cid, (int64_t)at, "the index points at another block");
    ipfsrt_rcblock *rc = st == IPFSRT_OK ? ipfsrt_rcblock_new(cid, block.data, block.len) : NULL;
    if (st == IPFSRT_OK && !rc) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (st == IPFSRT_OK) {
        st = ipfsrt_blockmap_put(cid->codec == IPFSRT_CODEC_DAG_PB ? &r->c->nodes : &r->have, rc, err);
        ipfsrt_rcblock_unref(rc);
    }
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s, byte offset %llu: ", r->c->what, (unsigned long long)at);
    return st;
}

typedef struct fetch_call {
    walk_round *r;
    const uint64_t *at;
} fetch_call;

/* A block that fails (its hash, its section, S3) fails the reads that need it, not the others. */
static ipfsrt_status fetched(void *user, const ipfsrt_s3_result *res, ipfsrt_error *err) {
    fetch_call *f = user;
    const ipfsrt_cid *cid = &f->r->wanted[res->index];
    ipfsrt_error e = res->error;
    ipfsrt_status st = res->status;
    if (st == IPFSRT_OK) st = take_section(f->r, cid, res->data, res->len, f->at[res->index], &e);
    if (st == IPFSRT_ENOMEM) return ipfsrt_fail(err, st, -1, "out of memory");
    if (st != IPFSRT_OK) refuse(f->r, cid, &e);
    return IPFSRT_OK;
}

/* Every wanted block in one set of ranged GETs; those the index lacks noted. */
static ipfsrt_status fetch_wanted(walk_round *r, ipfsrt_error *err) {
    size_t n = r->wanted_count, k = 0;
    ipfsrt_s3_request *reqs = calloc(n ? n : 1, sizeof *reqs);
    uint64_t *at = calloc(n ? n : 1, sizeof *at);
    ipfsrt_status st = reqs && at ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        uint64_t from, len;
        if (!section_of(r->c, &r->wanted[i], &from, &len)) {
            refuse(r, &r->wanted[i], NULL);
            continue;
        }
        r->wanted[k] = r->wanted[i];
        at[k] = from;
        reqs[k++] = (ipfsrt_s3_request){r->c->key, from, len, false};
    }
    fetch_call f = {r, at};
    if (st == IPFSRT_OK && k) st = ipfsrt_s3_get_many(r->c->s3, reqs, k, fetched, &f, err);
    free(reqs);
    free(at);
    r->wanted_count = 0;
    ipfsrt_mhmap_free(&r->wanted_set);
    ipfsrt_mhmap_init(&r->wanted_set);
    return st;
}

/* ------------------------------------------------------------ the keys */

typedef enum key_state { KEY_RESOLVE, KEY_READ, KEY_DONE } key_state;

typedef struct key_read {
    const ipfsrt_zarr_store_request *req;
    char *path; /* root + key */
    key_state state;
    ipfsrt_cid file;
    uint64_t offset, length;
} key_read;

static ipfsrt_status collect(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *b = user;
    ipfsrt_buf_append(b, data, len);
    return b->failed ? ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory") : IPFSRT_OK;
}

static ipfsrt_status missing_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    walk_round *r = user;
    if (!lacking(r, cid)) want(r, cid);
    return IPFSRT_OK;
}

static ipfsrt_status report(key_read *k, size_t index, ipfsrt_status st, const ipfsrt_error *e, const ipfsrt_buf *data,
                            ipfsrt_zarr_store_result_fn fn, void *user, ipfsrt_error *err) {
    ipfsrt_zarr_store_result res = {.index = index, .status = st, .data = data ? data->data : NULL,
                                    .len = data ? data->len : 0};
    if (st != IPFSRT_OK) res.error = *e;
    else ipfsrt_error_clear(&res.error);
    if (!res.data) res.data = (const uint8_t *)"";
    k->state = KEY_DONE;
    return fn(user, &res, err);
}

/* Takes key i as far as the blocks at hand allow; a key that lacks blocks
 * waits for the next round. */
static ipfsrt_status step(walk_round *r, key_read *k, size_t i, ipfsrt_zarr_store_result_fn fn, void *user,
                          ipfsrt_error *err) {
    ipfsrt_blocksource src = {r, round_get, round_release};
    ipfsrt_error e;
    r->missed = false;
    if (k->state == KEY_RESOLVE) {
        ipfsrt_unixfs_node_info info;
        ipfsrt_status st = ipfsrt_unixfs_resolve(&src, k->path, NULL, &info, &e);
        if (r->missed) return IPFSRT_OK;
        if (st != IPFSRT_OK) return report(k, i, st, &e, NULL, fn, user, err); /* proven absent, or broken */
        k->file = info.cid;
        uint64_t size = info.size;
        if (k->req->from_end) {
            k->length = k->req->length < size ? k->req->length : size;
            k->offset = size - k->length;
        } else {
            k->offset = k->req->offset < size ? k->req->offset : size;
            k->length = k->req->length;
        }
        k->state = KEY_READ;
    }
    ipfsrt_status st = ipfsrt_unixfs_missing(&src, &k->file, k->offset, k->length, missing_block, r, &e);
    if (r->missed) return IPFSRT_OK;
    ipfsrt_buf data;
    ipfsrt_buf_init(&data);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(&src, &k->file, k->offset, k->length, collect, &data, &e);
    st = report(k, i, st, &e, &data, fn, user, err);
    ipfsrt_buf_free(&data);
    return st;
}

static ipfsrt_status rounds(walk_round *r, key_read *keys, size_t n, ipfsrt_zarr_store_result_fn fn, void *user,
                            ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    for (int round_no = 0; st == IPFSRT_OK; round_no++) {
        size_t open = 0;
        for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
            if (keys[i].state == KEY_DONE) continue;
            st = step(r, &keys[i], i, fn, user, err);
            open += keys[i].state != KEY_DONE;
        }
        if (st != IPFSRT_OK || !open) break;
        if (round_no == ROUNDS_MAX)
            return ipfsrt_fail(err, IPFSRT_EUNIXFS, -1, "%s: paths deeper than %d levels", r->c->what, ROUNDS_MAX);
        st = fetch_wanted(r, err);
    }
    return st;
}

static ipfsrt_status s3car_get_many(void *ctx, const ipfsrt_zarr_store_request *requests, size_t n,
                                    ipfsrt_zarr_store_result_fn fn, void *user, ipfsrt_error *err) {
    s3car *c = ctx;
    key_read *keys = calloc(n ? n : 1, sizeof *keys);
    walk_round r;
    round_init(&r, c);
    ipfsrt_status st = keys ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        size_t len = strlen(c->root) + strlen(requests[i].key) + 1;
        keys[i].req = &requests[i];
        const ipfsrt_cid *cid = ipfsrt_zarr_known_find(&c->known, requests[i].key);
        char text[IPFSRT_CID_STR_MAX];
        if (cid) len = strlen(ipfsrt_cid_to_string(cid, text)) + 1;
        if (!(keys[i].path = malloc(len))) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        else if (cid) memcpy(keys[i].path, text, len);
        else snprintf(keys[i].path, len, "%s%s", c->root, requests[i].key);
    }
    if (st == IPFSRT_OK) st = rounds(&r, keys, n, fn, user, err);
    for (size_t i = 0; keys && i < n; i++) free(keys[i].path);
    free(keys);
    round_free(&r);
    return st;
}

static ipfsrt_status no_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)e, (void)err;
    return IPFSRT_OK;
}

/* Names under a prefix: the verified directory listed once all its shards are in. */
static ipfsrt_status s3car_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                    ipfsrt_error *err) {
    s3car *c = ctx;
    walk_round r;
    round_init(&r, c);
    ipfsrt_blocksource src = {&r, round_get, round_release};
    size_t len = strlen(c->root) + strlen(prefix) + 1;
    char *path = malloc(len);
    ipfsrt_status st = path ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (path) snprintf(path, len, "%s%s", c->root, prefix);
    ipfsrt_zarr_unixfs_lister l = {fn, user};
    for (int i = 0; st == IPFSRT_OK && i <= ROUNDS_MAX; i++) { /* until the listing lacks nothing */
        r.missed = false;
        ipfsrt_unixfs_node_info info;
        st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
        if (st == IPFSRT_OK && !r.missed) {
            /* walked once without handing out names, so a half-listed shard is not reported twice */
            st = ipfsrt_unixfs_ls(&src, &info.cid, false, no_entry, NULL, err);
            if (!r.missed && st == IPFSRT_OK) {
                st = ipfsrt_unixfs_ls(&src, &info.cid, false, ipfsrt_zarr_unixfs_entry, &l, err);
                break;
            }
        }
        if (!r.missed) break;
        st = fetch_wanted(&r, err);
    }
    if (st == IPFSRT_ENOT_FOUND || st == IPFSRT_ENOT_DIRECTORY) st = IPFSRT_OK; /* no such folder: nothing */
    free(path);
    round_free(&r);
    return st;
}

static ipfsrt_status s3car_know(void *ctx, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err) {
    s3car *c = ctx;
    return ipfsrt_zarr_known_add(&c->known, key, cid, err);
}

static void s3car_free(void *ctx) {
    s3car *c = ctx;
    ipfsrt_zarr_known_free(&c->known);
    ipfsrt_s3_free(c->s3);
    ipfsrt_car_index_free(&c->index);
    free(c->index_bytes);
    free(c->offsets);
    ipfsrt_blockmap_free(&c->nodes);
    free(c->key);
    free(c->root);
    free(c);
}

static const ipfsrt_zarr_store_ops s3car_ops = {"s3-car", true, s3car_get_many, s3car_list_dir, NULL, NULL, s3car_free, s3car_know};
static const ipfsrt_zarr_store_ops httpcar_ops = {"http-car", true, s3car_get_many, s3car_list_dir, NULL, NULL,
                                                  s3car_free, s3car_know};

static ipfsrt_status open_s3(s3car *c, const char *url, size_t car_len, const ipfsrt_zarr_store_options *opts,
                             ipfsrt_error *err) {
    char bucket[128];
    const char *key;
    size_t key_len;
    ipfsrt_status st = ipfsrt_s3_url_split(url, car_len, bucket, sizeof bucket, &key, &key_len, err);
    if (st == IPFSRT_OK && !key_len) st = ipfsrt_fail(err, IPFSRT_EARG, -1, "%.200s: s3://bucket/key.car", url);
    if (st == IPFSRT_OK && !(c->key = strndup(key, key_len))) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    return st == IPFSRT_OK ? ipfsrt_s3_new(&c->s3, bucket, opts->s3_options, err) : st;
}

/* A CAR on a web server: the file's URL is the client's, its key "". */
static ipfsrt_status open_http(s3car *c, const char *url, size_t car_len, const ipfsrt_zarr_store_options *opts,
                               ipfsrt_error *err) {
    char *at = strndup(url, car_len);
    ipfsrt_status st = at && (c->key = strdup("")) ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (st == IPFSRT_OK) st = ipfsrt_s3_new_http(&c->s3, at, opts->s3_options, err);
    free(at);
    return st;
}

ipfsrt_status ipfsrt_zarr_s3car_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                           size_t car_len, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    s3car *c = calloc(1, sizeof *c);
    if (!c) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_blockmap_init(&c->nodes);
    ipfsrt_car_index_init(&c->index);
    ipfsrt_zarr_known_init(&c->known);
    snprintf(c->what, sizeof c->what, "%.*s", (int)car_len, url);
    ipfsrt_status st = strncmp(url, "s3://", 5) == 0 ? open_s3(c, url, car_len, opts, err)
                                                      : open_http(c, url, car_len, opts, err);
    const char *inner = url + car_len;
    while (*inner == '/') inner++;
    char path[IPFSRT_ZARR_KEY_MAX + 1];
    snprintf(path, sizeof path, "%s", inner);
    for (size_t n = strlen(path); n && path[n - 1] == '/';) path[--n] = 0;
    if (st == IPFSRT_OK) st = load(c, path, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s: ", c->what);
        s3car_free(c);
        return st;
    }
    *ops = strncmp(url, "s3://", 5) == 0 ? &s3car_ops : &httpcar_ops;
    *ctx = c;
    return IPFSRT_OK;
}
