/* A CAR file as a store: keys are UnixFS paths under the CAR's root (and the
 * path given after the file name), every block hash-checked as it is read. A
 * key is absent only when a directory the CAR holds lacks its name; a block
 * the CAR lacks is an error, never an absent key. CARs beneath it lend what
 * it lacks: a new version's delta over the old version's CAR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/car.h"
#include "ipfsrt/unixfs.h"
#include "zarr/store_internal.h"

typedef struct car_store {
    char *file;
    ipfsrt_car_file *car;
    ipfsrt_car_file **under; /* asked in order for what car lacks */
    size_t n_under;
    char root[IPFSRT_CID_STR_MAX + IPFSRT_ZARR_KEY_MAX + 2]; /* "CID[/path]" the keys hang from */
    ipfsrt_blocksource src;
    ipfsrt_buf value;
} car_store;

static ipfsrt_status car_block(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    car_store *s = ctx;
    ipfsrt_status st = ipfsrt_car_file_get(s->car, cid, &ref->data, &ref->len, err);
    for (size_t i = 0; st == IPFSRT_ENOT_FOUND && i < s->n_under; i++)
        st = ipfsrt_car_file_get(s->under[i], cid, &ref->data, &ref->len, err);
    if (st == IPFSRT_ENOT_FOUND) {
        char text[IPFSRT_CID_STR_MAX];
        ipfsrt_cid_to_string(cid, text);
        return ipfsrt_fail_cid(err, IPFSRT_EUNAVAILABLE, cid, -1, "block %s is not in %s", text, s->file);
    }
    return st;
}

static ipfsrt_status collect(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *b = user;
    ipfsrt_buf_append(b, data, len);
    return b->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

static ipfsrt_status read_key(car_store *s, const ipfsrt_range_request *r, ipfsrt_error *err) {
    char path[sizeof s->root + IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", s->root, r->key);
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&s->src, path, NULL, &info, err);
    if (st == IPFSRT_OK && info.type != IPFSRT_UNIXFS_FILE && info.type != IPFSRT_UNIXFS_RAW)
        st = ipfsrt_fail(err, IPFSRT_ENOT_FILE, -1, "%s: not a file", r->key);
    uint64_t offset = r->from_end ? (info.size > r->length ? info.size - r->length : 0) : r->offset;
    if (st == IPFSRT_OK && offset > info.size)
        st = ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%s: offset %llu is past its %llu bytes", r->key,
                         (unsigned long long)offset, (unsigned long long)info.size);
    s->value.len = 0;
    if (st == IPFSRT_OK && offset < info.size)
        st = ipfsrt_unixfs_read(&s->src, &info.cid, offset, r->from_end ? UINT64_MAX : r->length, collect, &s->value,
                                err);
    return st;
}

static ipfsrt_status car_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                  ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    car_store *s = ctx;
    for (size_t i = 0; i < n; i++) {
        ipfsrt_range_result r = {.index = i, .key = requests[i].key, .object_size = UINT64_MAX};
        r.status = read_key(s, &requests[i], &r.error);
        if (r.status != IPFSRT_OK) ipfsrt_error_prefix(&r.error, "%s: ", s->file);
        r.data = s->value.data;
        r.len = r.status == IPFSRT_OK ? s->value.len : 0;
        ipfsrt_status st = fn(user, &r, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static ipfsrt_status car_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                  ipfsrt_error *err) {
    car_store *s = ctx;
    ipfsrt_zarr_unixfs_lister l = {fn, user};
    char path[sizeof s->root + IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", s->root, prefix);
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&s->src, path, NULL, &info, err);
    if (st == IPFSRT_ENOT_FOUND) return IPFSRT_OK; /* nothing under it */
    if (st != IPFSRT_OK || (info.type != IPFSRT_UNIXFS_DIRECTORY && info.type != IPFSRT_UNIXFS_HAMT_SHARD))
        return st;
    return ipfsrt_unixfs_ls(&s->src, &info.cid, false, ipfsrt_zarr_unixfs_entry, &l, err);
}

static void car_store_free(void *ctx) {
    car_store *s = ctx;
    ipfsrt_car_file_free(s->car);
    for (size_t i = 0; i < s->n_under; i++) ipfsrt_car_file_free(s->under[i]);
    free(s->under);
    ipfsrt_buf_free(&s->value);
    free(s->file);
    free(s);
}

static const ipfsrt_zarr_store_ops car_ops = {sizeof(ipfsrt_zarr_store_ops), "car", true, car_get_many, car_list_dir, NULL, NULL, car_store_free, NULL};

static bool car_has(void *ctx, const ipfsrt_cid *cid) {
    const car_store *s = ctx;
    bool has = ipfsrt_car_file_has(s->car, cid);
    for (size_t i = 0; !has && i < s->n_under; i++) has = ipfsrt_car_file_has(s->under[i], cid);
    return has;
}

ipfsrt_status ipfsrt_zarr_car_store_dag(const ipfsrt_zarr_store_ops *ops, void *ctx, const ipfsrt_blocksource **src,
                                        ipfsrt_cid *root, ipfsrt_zarr_has_fn *has, void **has_ctx, ipfsrt_error *err) {
    car_store *s = ctx;
    if (ops->get_many != car_get_many) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "not a CAR store");
    if (strchr(s->root, '/'))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a version is of the CAR's root, not of a path inside it",
                           s->file);
    *src = &s->src;
    *has = car_has;
    *has_ctx = s;
    return ipfsrt_cid_parse(root, s->root, strlen(s->root), NULL, err);
}

/* The root the keys hang from: the CAR's first root, then the path after the file. */
static ipfsrt_status set_root(car_store *s, const char *path, ipfsrt_error *err) {
    const ipfsrt_car_header *h = ipfsrt_car_file_header(s->car);
    if (h->root_count == 0) return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, -1, "%s has no root", s->file);
    char cid[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&h->roots[0], cid);
    while (*path == '/') path++;
    size_t n = strlen(path);
    while (n && path[n - 1] == '/') n--;
    if (n > IPFSRT_ZARR_KEY_MAX) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: path too long", s->file);
    snprintf(s->root, sizeof s->root, "%s%s%.*s", cid, n ? "/" : "", (int)n, path);
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&s->src, s->root, NULL, &info, err);
    if (st == IPFSRT_OK && info.type != IPFSRT_UNIXFS_DIRECTORY && info.type != IPFSRT_UNIXFS_HAMT_SHARD)
        st = ipfsrt_fail(err, IPFSRT_ENOT_DIRECTORY, -1, "%s: not a directory", s->root);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", s->file);
    return st;
}

static ipfsrt_status open_under(car_store *s, const char *const *under, size_t n, ipfsrt_error *err) {
    if (n == 0) return IPFSRT_OK;
    s->under = calloc(n, sizeof *s->under);
    if (!s->under) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (; s->n_under < n; s->n_under++) {
        ipfsrt_status st = ipfsrt_car_file_new(&s->under[s->n_under], under[s->n_under], NULL, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_car_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                         size_t file_len, const char *const *under, size_t n_under,
                                         ipfsrt_error *err) {
    car_store *s = calloc(1, sizeof *s);
    if (!s || !(s->file = strndup(url, file_len))) {
        free(s);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    ipfsrt_buf_init(&s->value);
    s->src = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), s, car_block, NULL};
    ipfsrt_status st = ipfsrt_car_file_new(&s->car, s->file, NULL, err);
    if (st == IPFSRT_OK) st = open_under(s, under, n_under, err);
    if (st == IPFSRT_OK) st = set_root(s, url + file_len, err);
    if (st != IPFSRT_OK) {
        car_store_free(s);
        return st;
    }
    *ops = &car_ops;
    *ctx = s;
    return IPFSRT_OK;
}
