/* s3://bucket[/prefix] stores: keys are objects under the prefix, read many at
 * once (ranges and suffixes as ranged GETs), listed with a delimiter, written
 * and removed. Unverified, as S3 is. A key S3 says it has not (404, or 403
 * when the options say a bucket answers so) is an absent chunk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/s3.h"
#include "s3/s3_internal.h"
#include "zarr/store_internal.h"

typedef struct s3_store {
    ipfsrt_s3 *s3;
    char *prefix; /* "" or ending in "/" */
} s3_store;

/* prefix + key into out; false when it does not fit. */
static bool full_key(const s3_store *s, const char *key, char *out, size_t cap) {
    int n = snprintf(out, cap, "%s%s", s->prefix, key);
    return n >= 0 && (size_t)n < cap;
}

typedef struct s3_get {
    ipfsrt_range_fn fn;
    void *user;
    const ipfsrt_range_request *requests; /* the store's keys */
} s3_get;

static ipfsrt_status got(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    s3_get *g = user;
    ipfsrt_range_result mine = *r;
    mine.key = g->requests[r->index].key;
    return g->fn(g->user, &mine, err);
}

static ipfsrt_status s3_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                 ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    s3_store *s = ctx;
    size_t key_cap = strlen(s->prefix) + IPFSRT_ZARR_KEY_MAX + 1;
    ipfsrt_range_request *reqs = calloc(n ? n : 1, sizeof *reqs);
    char *keys = calloc(n ? n : 1, key_cap);
    ipfsrt_status st = reqs && keys ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        char *k = keys + i * key_cap;
        if (!full_key(s, requests[i].key, k, key_cap))
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key %.200s is too long", requests[i].key);
        reqs[i] = (ipfsrt_range_request){k, requests[i].offset, requests[i].length, requests[i].from_end};
    }
    s3_get g = {fn, user, requests};
    if (st == IPFSRT_OK) st = ipfsrt_s3_get_many(s->s3, reqs, n, got, &g, err);
    free(reqs);
    free(keys);
    return st;
}

typedef struct s3_lister {
    ipfsrt_zarr_store_name_fn fn;
    void *user;
    size_t skip; /* the listed prefix's length */
} s3_lister;

static ipfsrt_status listed(void *user, const char *name, uint64_t size, bool is_prefix, ipfsrt_error *err) {
    s3_lister *l = user;
    if (strlen(name) <= l->skip) return IPFSRT_OK; /* the prefix itself (a "folder" object) */
    char rel[IPFSRT_ZARR_KEY_MAX + 1];
    snprintf(rel, sizeof rel, "%s", name + l->skip);
    size_t n = strlen(rel);
    if (is_prefix && n && rel[n - 1] == '/') rel[n - 1] = 0;
    ipfsrt_zarr_store_entry e = {rel, is_prefix ? UINT64_MAX : size, is_prefix, NULL};
    return l->fn(l->user, &e, err);
}

static ipfsrt_status s3_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                 ipfsrt_error *err) {
    s3_store *s = ctx;
    char full[IPFSRT_ZARR_KEY_MAX * 2 + 2];
    if (!full_key(s, prefix, full, sizeof full)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "prefix too long");
    s3_lister l = {fn, user, strlen(full)};
    return ipfsrt_s3_list(s->s3, full, "/", listed, &l, err);
}

static ipfsrt_status s3_put(void *ctx, const char *key, const void *data, size_t len, ipfsrt_error *err) {
    s3_store *s = ctx;
    char full[IPFSRT_ZARR_KEY_MAX * 2 + 2];
    if (!full_key(s, key, full, sizeof full)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key %.200s is too long", key);
    return ipfsrt_s3_put(s->s3, full, data, len, err);
}

static ipfsrt_status s3_erase(void *ctx, const char *key, ipfsrt_error *err) {
    s3_store *s = ctx;
    char full[IPFSRT_ZARR_KEY_MAX * 2 + 2];
    if (!full_key(s, key, full, sizeof full)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key %.200s is too long", key);
    return ipfsrt_s3_delete(s->s3, full, err);
}

static void s3_store_free(void *ctx) {
    s3_store *s = ctx;
    ipfsrt_s3_free(s->s3);
    free(s->prefix);
    free(s);
}

static const ipfsrt_zarr_store_ops s3_ops = {sizeof(ipfsrt_zarr_store_ops), "s3", false, s3_get_many, s3_list_dir, s3_put, s3_erase, s3_store_free, NULL};

/* "s3://bucket[/prefix]": the bucket, and the prefix with one "/" at its end. */
static ipfsrt_status split_url(const char *url, char *bucket, size_t cap, char **prefix, ipfsrt_error *err) {
    const char *p;
    size_t pn;
    ipfsrt_status st = ipfsrt_s3_url_split(url, strlen(url), bucket, cap, &p, &pn, err);
    if (st != IPFSRT_OK) return st;
    *prefix = malloc(pn + 2);
    if (!*prefix) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(*prefix, p, pn);
    strcpy(*prefix + pn, pn ? "/" : "");
    return pn + 1 > IPFSRT_ZARR_KEY_MAX ? ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: prefix too long", url) : IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                   const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    s3_store *s = calloc(1, sizeof *s);
    if (!s) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    char bucket[128];
    ipfsrt_status st = split_url(url, bucket, sizeof bucket, &s->prefix, err);
    if (st == IPFSRT_OK) st = ipfsrt_s3_new(&s->s3, bucket, opts->s3_options, err);
    if (st != IPFSRT_OK) {
        s3_store_free(s);
        return st;
    }
    *ops = &s3_ops;
    *ctx = s;
    return IPFSRT_OK;
}
