/* A CAR file on S3 or a web server as a verified, read-only store
 * ("s3://bucket/x.car[/path]", "https://host/x.car[/path]"), over the CAR
 * read by ranges (car/car_ranged.c): the keys asked for at once are resolved
 * from the CAR's root together, round by round: each round collects every
 * block the walks lack and fetches them in one set of ranged reads, each
 * checked against its CID before any walk may use it. Directory and file
 * nodes are kept for later calls; data blocks only for the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/car.h"
#include "ipfsrt/s3.h"
#include "store/blockcache.h"
#include "s3/s3_internal.h"
#include "zarr/store_internal.h"

#define ROUNDS_MAX 64 /* levels of directories, shards and file nodes a path may cross */

typedef struct s3car {
    ipfsrt_s3 *s3;
    ipfsrt_range_reader reader;
    ipfsrt_car_ranged *car;
    char *root;     /* "CID/path/" the store's keys are under */
    char what[600]; /* "s3://bucket/x.car" or its URL, for messages */
    ipfsrt_blockmap nodes;   /* verified dag-pb blocks, kept */
    ipfsrt_zarr_known known; /* keys walked to from their CID */
} s3car;

/* ------------------------------------------------------- verified blocks */

/* The blocks of one call: those fetched, those wanted next, those the CAR
 * does not hold. */
typedef struct walk_round {
    s3car *c;
    ipfsrt_blockmap have;
    ipfsrt_cid *wanted;
    size_t wanted_count, wanted_cap;
    ipfsrt_mhmap wanted_set;
    ipfsrt_mhmap lacking; /* multihash -> k + 1: refused, why in failed[k]; 0: refused, no room to say why */
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

/* A block fetched (verified) is kept; one that fails (its hash, its section,
 * the reads) fails the reads that need it, not the others. */
static ipfsrt_status fetched(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    walk_round *r = user;
    const ipfsrt_cid *cid = res->cid;
    if (res->status != IPFSRT_OK) {
        refuse(r, cid, &res->error);
        return IPFSRT_OK;
    }
    ipfsrt_rcblock *rc = ipfsrt_rcblock_new(cid, res->data, res->len);
    if (!rc) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = ipfsrt_blockmap_put(cid->codec == IPFSRT_CODEC_DAG_PB ? &r->c->nodes : &r->have, rc, err);
    ipfsrt_rcblock_unref(rc);
    return st;
}

/* Every wanted block in one set of ranged reads. */
static ipfsrt_status fetch_wanted(walk_round *r, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_car_ranged_get_many(r->c->car, r->wanted, r->wanted_count, fetched, r, err);
    r->wanted_count = 0;
    ipfsrt_mhmap_free(&r->wanted_set);
    ipfsrt_mhmap_init(&r->wanted_set);
    return st;
}

/* ------------------------------------------------------------ the keys */

typedef enum key_state { KEY_RESOLVE, KEY_READ, KEY_DONE } key_state;

typedef struct key_read {
    const ipfsrt_range_request *req;
    char *path; /* root + key */
    key_state state;
    ipfsrt_cid file;
    uint64_t offset, length;
} key_read;

static ipfsrt_status collect(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *b = user;
    ipfsrt_buf_append(b, data, len);
    return b->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

static ipfsrt_status missing_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    walk_round *r = user;
    if (!lacking(r, cid)) want(r, cid);
    return IPFSRT_OK;
}

static ipfsrt_status report(key_read *k, size_t index, ipfsrt_status st, const ipfsrt_error *e, const ipfsrt_buf *data,
                            ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    ipfsrt_range_result res = {.index = index, .key = k->req->key, .status = st,
                               .data = data ? data->data : NULL, .len = data ? data->len : 0,
                               .object_size = UINT64_MAX, .cid = st == IPFSRT_OK ? &k->file : NULL};
    if (st != IPFSRT_OK) res.error = *e;
    else ipfsrt_error_clear(&res.error);
    if (!res.data) res.data = (const uint8_t *)"";
    k->state = KEY_DONE;
    return fn(user, &res, err);
}

/* Takes key i as far as the blocks at hand allow; a key that lacks blocks
 * waits for the next round. */
static ipfsrt_status step(walk_round *r, key_read *k, size_t i, ipfsrt_range_fn fn, void *user,
                          ipfsrt_error *err) {
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), r, round_get, round_release};
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

static ipfsrt_status rounds(walk_round *r, key_read *keys, size_t n, ipfsrt_range_fn fn, void *user,
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
            return ipfsrt_fail(err, IPFSRT_EBAD_UNIXFS, -1, "%s: paths deeper than %d levels", r->c->what, ROUNDS_MAX);
        st = fetch_wanted(r, err);
    }
    return st;
}

static ipfsrt_status s3car_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                    ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    s3car *c = ctx;
    key_read *keys = calloc(n ? n : 1, sizeof *keys);
    walk_round r;
    round_init(&r, c);
    ipfsrt_status st = keys ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        size_t len = strlen(c->root) + strlen(requests[i].key) + 1;
        keys[i].req = &requests[i];
        const ipfsrt_cid *cid = ipfsrt_zarr_known_find(&c->known, requests[i].key);
        char text[IPFSRT_CID_STR_MAX];
        if (cid) len = strlen(ipfsrt_cid_to_string(cid, text)) + 1;
        if (!(keys[i].path = malloc(len))) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
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
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &r, round_get, round_release};
    size_t len = strlen(c->root) + strlen(prefix) + 1;
    char *path = malloc(len);
    ipfsrt_status st = path ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
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
    ipfsrt_car_ranged_free(c->car);
    ipfsrt_s3_free(c->s3);
    ipfsrt_blockmap_free(&c->nodes);
    free(c->root);
    free(c);
}

static const ipfsrt_zarr_store_ops s3car_ops = {sizeof(ipfsrt_zarr_store_ops), "s3-car", true, s3car_get_many, s3car_list_dir, NULL, NULL, s3car_free, s3car_know};
static const ipfsrt_zarr_store_ops httpcar_ops = {sizeof(ipfsrt_zarr_store_ops), "http-car", true, s3car_get_many, s3car_list_dir, NULL, NULL,
                                                  s3car_free, s3car_know};

/* The client of the CAR's bucket or server, and the CAR's key there (the
 * file's URL is a web server client's, its key ""). */
static ipfsrt_status open_client(s3car *c, const char *url, size_t car_len, const ipfsrt_zarr_store_options *opts,
                                 char **key, ipfsrt_error *err) {
    if (strncmp(url, "s3://", 5) != 0) {
        char *at = strndup(url, car_len);
        ipfsrt_status st = at && (*key = strdup("")) ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        if (st == IPFSRT_OK) st = ipfsrt_s3_new_http(&c->s3, at, opts->s3_options, err);
        free(at);
        return st;
    }
    char bucket[128];
    const char *k;
    size_t key_len;
    ipfsrt_status st = ipfsrt_s3_url_split(url, car_len, bucket, sizeof bucket, &k, &key_len, err);
    if (st == IPFSRT_OK && !key_len) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: s3://bucket/key.car", url);
    if (st == IPFSRT_OK && !(*key = strndup(k, key_len))) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    return st == IPFSRT_OK ? ipfsrt_s3_new(&c->s3, bucket, opts->s3_options, err) : st;
}

/* The CAR by ranges; the store's keys under "ROOT/inner/". */
static ipfsrt_status open_car(s3car *c, const char *url, size_t car_len, const ipfsrt_zarr_store_options *opts,
                              ipfsrt_error *err) {
    char *key = NULL;
    ipfsrt_status st = open_client(c, url, car_len, opts, &key, err);
    if (st == IPFSRT_OK) {
        ipfsrt_s3_range_reader(c->s3, &c->reader);
        st = ipfsrt_car_ranged_new(&c->car, &c->reader, key, err);
    }
    free(key);
    if (st != IPFSRT_OK) return st;
    const char *inner = url + car_len;
    while (*inner == '/') inner++;
    size_t inner_len = strlen(inner);
    while (inner_len && inner[inner_len - 1] == '/') inner_len--;
    if (inner_len > IPFSRT_ZARR_KEY_MAX) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "the path in the CAR is too long");
    char cid[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(ipfsrt_car_ranged_root(c->car), cid);
    size_t n = strlen(cid) + inner_len + 3;
    if (!(c->root = malloc(n))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(c->root, n, "%s%s%.*s/", cid, inner_len ? "/" : "", (int)inner_len, inner);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_car_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                       size_t car_len, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    s3car *c = calloc(1, sizeof *c);
    if (!c) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_blockmap_init(&c->nodes);
    ipfsrt_zarr_known_init(&c->known);
    snprintf(c->what, sizeof c->what, "%.*s", (int)car_len, url);
    ipfsrt_status st = open_car(c, url, car_len, opts, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s: ", c->what);
        s3car_free(c);
        return st;
    }
    *ops = strncmp(url, "s3://", 5) == 0 ? &s3car_ops : &httpcar_ops;
    *ctx = c;
    return IPFSRT_OK;
}
