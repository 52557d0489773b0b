/* A new version of a content-addressed store (a CAR's root, an ipfs:// root):
 * what is put or erased is kept here, over the old version, which answers
 * every other key; committing imports the changes with the UnixFS patcher
 * and names the new root. Values are kept until then, not imported as they
 * come, because a writer may change a key again (a chunk filled a day at a
 * time): memory is what changed, and only the final values reach the DAG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/car.h"
#include "ipfsrt/patch.h"
#include "zarr/store_internal.h"

typedef struct change {
    char *key;
    uint8_t *data; /* NULL when erased */
    size_t len;
    bool erased;
} change;

typedef struct version_store {
    ipfsrt_zarr_store *old;
    const ipfsrt_blocksource *src;
    ipfsrt_zarr_has_fn has; /* a CAR's cheap test of the blocks it holds, or NULL (an ipfs:// root) */
    void *has_ctx;
    ipfsrt_pack_sink_fn sink; /* the commit's */
    void *user;
    ipfsrt_cid root;
    ipfsrt_pack_options pack;
    ipfsrt_mhmap index; /* key -> its position in changes */
    change *changes;
    size_t count, cap;
    bool committed;
} version_store;

static change *find(const version_store *v, const char *key) {
    const ipfsrt_mhmap_entry *e = ipfsrt_mhmap_get(&v->index, (const uint8_t *)key, strlen(key));
    return e ? &v->changes[e->offset] : NULL;
}

static ipfsrt_status record(version_store *v, const char *key, const void *data, size_t len, bool erased,
                            ipfsrt_error *err) {
    if (v->committed)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the version is committed: open its root to change it", key);
    if (ipfsrt_array_reserve(&v->changes, &v->cap, v->count + 1, sizeof *v->changes))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    uint8_t *copy = erased ? NULL : malloc(len ? len : 1);
    char *k = strdup(key);
    ipfsrt_mhmap_entry *e;
    bool inserted = false;
    if ((!erased && !copy) || !k ||
        ipfsrt_mhmap_slot(&v->index, (const uint8_t *)key, strlen(key), &e, &inserted) != IPFSRT_OK) {
        free(copy);
        free(k);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (inserted) {
        e->offset = v->count;
        v->changes[v->count++] = (change){.key = k};
        k = NULL;
    }
    free(k); /* a key changed again keeps its first copy */
    change *c = &v->changes[e->offset];
    if (copy && len) memcpy(copy, data, len);
    free(c->data);
    *c = (change){c->key, copy, len, erased};
    return IPFSRT_OK;
}

static ipfsrt_status version_put(void *ctx, const char *key, const void *data, size_t len, ipfsrt_error *err) {
    return record(ctx, key, data, len, false, err);
}

static ipfsrt_status version_erase(void *ctx, const char *key, ipfsrt_error *err) {
    return record(ctx, key, NULL, 0, true, err);
}

/* A changed key's answer, from the bytes kept. */
static ipfsrt_status answer(const change *c, const ipfsrt_range_request *q, size_t index, ipfsrt_range_fn fn,
                            void *user, ipfsrt_error *err) {
    ipfsrt_range_result r = {.index = index, .key = q->key, .object_size = c->len};
    uint64_t offset = q->from_end ? (c->len > q->length ? c->len - q->length : 0) : q->offset;
    if (c->erased) {
        r.status = ipfsrt_fail(&r.error, IPFSRT_ENOT_FOUND, -1, "%s: erased in this version", q->key);
        r.object_size = UINT64_MAX;
    } else if (offset > c->len) {
        r.status = ipfsrt_fail(&r.error, IPFSRT_EBAD_RANGE, -1, "%s: offset %llu is past its %zu bytes", q->key,
                               (unsigned long long)offset, c->len);
    } else {
        uint64_t rest = c->len - offset;
        r.data = c->data + offset;
        r.len = (size_t)(q->from_end || q->length > rest ? rest : q->length);
    }
    return fn(user, &r, err);
}

typedef struct forward {
    ipfsrt_range_fn fn;
    void *user;
    const size_t *map; /* the old store's request i is the caller's map[i] */
} forward;

static ipfsrt_status forwarded(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    const forward *f = user;
    ipfsrt_range_result mine = *r;
    mine.index = f->map[r->index];
    return f->fn(f->user, &mine, err);
}

/* Changed keys are answered here; the rest go to the old version together. */
static ipfsrt_status version_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                      ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    version_store *v = ctx;
    if (n > SIZE_MAX / sizeof(ipfsrt_range_request)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t *map = malloc((n ? n : 1) * sizeof *map);
    ipfsrt_range_request *rest = malloc((n ? n : 1) * sizeof *rest);
    ipfsrt_status st = map && rest ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        const change *c = find(v, requests[i].key);
        if (c) st = answer(c, &requests[i], i, fn, user, err);
        else rest[m] = requests[i], map[m++] = i;
    }
    forward f = {fn, user, map};
    if (st == IPFSRT_OK && m) st = ipfsrt_zarr_store_get_many(v->old, rest, m, forwarded, &f, err);
    free(map);
    free(rest);
    return st;
}

/* ------------------------------------------------------------- listing */

typedef struct listed {
    char *name;
    uint64_t size;
    bool is_folder;
    bool has_cid;
    ipfsrt_cid cid;
    bool changed; /* named by a change: a value put there, or below it */
} listed;

typedef struct listing {
    listed *items;
    size_t count, cap;
} listing;

static int listed_cmp(const void *a, const void *b) { return strcmp(((const listed *)a)->name, ((const listed *)b)->name); }

static ipfsrt_status keep_old(void *user, const ipfsrt_zarr_store_entry *e, ipfsrt_error *err) {
    listing *l = user;
    char *name = ipfsrt_array_reserve(&l->items, &l->cap, l->count + 1, sizeof *l->items) ? NULL : strdup(e->name);
    if (!name) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    l->items[l->count++] = (listed){name, e->size, e->is_folder, e->cid != NULL, e->cid ? *e->cid : (ipfsrt_cid){0}, false};
    return IPFSRT_OK;
}

/* A listed name (one per change under the prefix: its first folder's, or the
 * key's own). */
static ipfsrt_status add_name(listing *l, const char *rest, ipfsrt_error *err) {
    const char *slash = strchr(rest, '/');
    size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
    char *name = ipfsrt_array_reserve(&l->items, &l->cap, l->count + 1, sizeof *l->items) ? NULL : strndup(rest, len);
    if (!name) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    l->items[l->count++] = (listed){name, UINT64_MAX, slash != NULL, false, {0}, true};
    return IPFSRT_OK;
}

/* The names of one group of alike ones [from, to) as one: the old entry's
 * size and CID while no change put a value at the name itself, a folder if
 * any says so. */
static listed joined(listed *from, listed *to) {
    listed out = *from;
    bool value_put = false;
    for (listed *x = from; x < to; x++) {
        if (!x->changed) out = (listed){x->name, x->size, out.is_folder || x->is_folder, x->has_cid, x->cid, false};
        out.is_folder = out.is_folder || x->is_folder;
        value_put = value_put || (x->changed && !x->is_folder);
    }
    if (value_put) out.has_cid = false, out.size = UINT64_MAX; /* known once committed */
    return out;
}

/* The names sorted, each once. */
static void sort_unique(listing *l) {
    qsort(l->items, l->count, sizeof *l->items, listed_cmp);
    size_t kept = 0;
    for (size_t i = 0, j; i < l->count; i = j) {
        for (j = i + 1; j < l->count && strcmp(l->items[i].name, l->items[j].name) == 0;) j++;
        listed one = joined(&l->items[i], &l->items[j]);
        for (size_t k = i; k < j; k++)
            if (l->items[k].name != one.name) free(l->items[k].name);
        l->items[kept++] = one;
    }
    l->count = kept;
}

/* Drops a name whose key was erased (the key itself, not one below it). */
static void drop_erased(listing *l, const char *name) {
    listed probe = {.name = (char *)name};
    listed *hit = l->count ? bsearch(&probe, l->items, l->count, sizeof *l->items, listed_cmp) : NULL;
    if (!hit || hit->is_folder) return;
    free(hit->name);
    memmove(hit, hit + 1, (size_t)(l->items + l->count - hit - 1) * sizeof *hit);
    l->count--;
}

/* The old version's names under prefix with the changes laid over them: a
 * value put adds its name (or its first folder's), an erased key drops its
 * own. Sorted once, whatever the number of changes. */
static ipfsrt_status version_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                      ipfsrt_error *err) {
    version_store *v = ctx;
    listing l = {0};
    ipfsrt_status st = ipfsrt_zarr_store_list_dir(v->old, prefix, keep_old, &l, err);
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < v->count && st == IPFSRT_OK; i++) {
        const change *c = &v->changes[i];
        if (strncmp(c->key, prefix, plen) == 0 && c->key[plen] && !c->erased) st = add_name(&l, c->key + plen, err);
    }
    if (st == IPFSRT_OK) sort_unique(&l);
    for (size_t i = 0; i < v->count && st == IPFSRT_OK; i++) {
        const change *c = &v->changes[i];
        if (c->erased && strncmp(c->key, prefix, plen) == 0 && c->key[plen] && !strchr(c->key + plen, '/'))
            drop_erased(&l, c->key + plen);
    }
    for (size_t i = 0; i < l.count && st == IPFSRT_OK; i++) {
        ipfsrt_zarr_store_entry e = {l.items[i].name, l.items[i].size, l.items[i].is_folder,
                                     l.items[i].has_cid ? &l.items[i].cid : NULL};
        st = fn(user, &e, err);
    }
    for (size_t i = 0; i < l.count; i++) free(l.items[i].name);
    free(l.items);
    return st;
}

static void version_free(void *ctx) {
    version_store *v = ctx;
    for (size_t i = 0; i < v->count; i++) {
        free(v->changes[i].key);
        free(v->changes[i].data);
    }
    free(v->changes);
    ipfsrt_mhmap_free(&v->index);
    free(v);
}

/* The DAG behind a content-addressed store (a CAR's root, an ipfs:// root),
 * and for a CAR its cheap test of the blocks it holds (else has is NULL);
 * what names what the DAG is wanted for, in the refusal of another store. */
static ipfsrt_status dag_of(ipfsrt_zarr_store *store, const char *what, const ipfsrt_blocksource **src,
                            ipfsrt_cid *root, ipfsrt_zarr_has_fn *has, void **has_ctx, ipfsrt_error *err) {
    void *ctx;
    const ipfsrt_zarr_store_ops *ops = ipfsrt_zarr_store_ops_of(store, &ctx);
    *has = NULL;
    ipfsrt_status st = ipfsrt_zarr_car_store_dag(ops, ctx, src, root, has, has_ctx, err);
    if (st == IPFSRT_EUNSUPPORTED) st = ipfsrt_zarr_gateway_store_dag(ops, ctx, src, root, err);
    if (st == IPFSRT_EUNSUPPORTED)
        st = ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: %s a content-addressed store (a CAR, an ipfs:// root), "
                         "not a %s one", ipfsrt_zarr_store_url(store), what, ipfsrt_zarr_store_kind(store));
    return st;
}

static const ipfsrt_zarr_store_ops version_ops = {sizeof(ipfsrt_zarr_store_ops), "version", true, version_get_many,
                                                  version_list_dir, version_put, version_erase, version_free, NULL};

ipfsrt_status ipfsrt_zarr_store_new_version(ipfsrt_zarr_store **store, ipfsrt_zarr_store *old,
                                            const ipfsrt_pack_options *pack, ipfsrt_error *err) {
    IPFSRT_NEED(store, err);
    IPFSRT_NEED(old, err);
    *store = NULL;
    version_store *v = calloc(1, sizeof *v);
    if (!v) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_mhmap_init(&v->index);
    v->old = old;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(v->pack, pack, ipfsrt_pack_options_init, err);
    if (st == IPFSRT_OK) st = dag_of(old, "a new version is made of", &v->src, &v->root, &v->has, &v->has_ctx, err);
    char url[IPFSRT_CID_STR_MAX + 32], cid[IPFSRT_CID_STR_MAX];
    if (st == IPFSRT_OK) snprintf(url, sizeof url, "a new version of %s", ipfsrt_cid_to_string(&v->root, cid));
    if (st != IPFSRT_OK) {
        version_free(v);
        return st;
    }
    return ipfsrt_zarr_store_new(store, &version_ops, v, url, err);
}

static int change_cmp(const void *a, const void *b) {
    return strcmp((*(change *const *)a)->key, (*(change *const *)b)->key);
}

/* The changes, in key order, through the patcher. */
static ipfsrt_status patch_changes(version_store *v, ipfsrt_patch *patch, ipfsrt_error *err) {
    change **order = malloc((v->count ? v->count : 1) * sizeof *order);
    if (!order) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < v->count; i++) order[i] = &v->changes[i];
    qsort(order, v->count, sizeof *order, change_cmp);
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < v->count && st == IPFSRT_OK; i++)
        st = order[i]->erased ? ipfsrt_patch_remove(patch, order[i]->key, err)
                              : ipfsrt_patch_put(patch, order[i]->key, order[i]->data, order[i]->len, err);
    free(order);
    return st;
}

/* A value equal to one the old version holds (a chunk of land or ice the same
 * every day) makes blocks it has: a CAR says so cheaply, and they stay out. */
static ipfsrt_status new_block(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                               ipfsrt_error *err) {
    version_store *v = user;
    if (v->has && v->has(v->has_ctx, cid)) return IPFSRT_OK;
    return v->sink(v->user, cid, data, len, err);
}

ipfsrt_status ipfsrt_zarr_store_commit(ipfsrt_zarr_store *store, ipfsrt_pack_sink_fn sink, void *user,
                                       ipfsrt_cid *root, ipfsrt_error *err) {
    IPFSRT_NEED(store, err);
    IPFSRT_NEED(sink, err);
    IPFSRT_NEED(root, err);
    void *ctx;
    const ipfsrt_zarr_store_ops *ops = ipfsrt_zarr_store_ops_of(store, &ctx);
    if (ops->get_many != version_get_many)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is no new version (ipfsrt_zarr_store_new_version)",
                           ipfsrt_zarr_store_url(store));
    version_store *v = ctx;
    if (v->committed) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: committed already", ipfsrt_zarr_store_url(store));
    ipfsrt_patch *patch;
    v->sink = sink;
    v->user = user;
    ipfsrt_status st = ipfsrt_patch_new(&patch, v->src, &v->root, &v->pack, new_block, v, err);
    if (st == IPFSRT_OK) st = patch_changes(v, patch, err);
    if (st == IPFSRT_OK) st = ipfsrt_patch_finish(patch, root, err);
    ipfsrt_patch_free(patch);
    v->committed = st == IPFSRT_OK;
    return st;
}

static ipfsrt_status car_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len, ipfsrt_error *err) {
    return ipfsrt_car_writer_put_made(user, cid, data, len, err);
}

/* The blocks go to a file beside car_path, renamed to it once whole: until
 * then no file names the new root, and a crash leaves the old version alone. */
ipfsrt_status ipfsrt_zarr_store_commit_car(ipfsrt_zarr_store *store, const char *car_path, ipfsrt_cid *root,
                                           ipfsrt_error *err) {
    IPFSRT_NEED(store, err);
    IPFSRT_NEED(car_path, err);
    IPFSRT_NEED(root, err);
    void *ctx;
    const ipfsrt_zarr_store_ops *ops = ipfsrt_zarr_store_ops_of(store, &ctx);
    if (ops->get_many != version_get_many) return ipfsrt_zarr_store_commit(store, car_sink, NULL, root, err); /* says why not */
    const version_store *v = ctx;
    static const uint8_t zero[32];
    ipfsrt_cid placeholder; /* as long as the root will be: a sha2-256 dag-pb CID of the preset's version */
    ipfsrt_status st = ipfsrt_cid_create(&placeholder, v->pack.cid_version, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256,
                                         zero, sizeof zero, err);
    if (st != IPFSRT_OK) return st;
    size_t n = strlen(car_path) + sizeof ".partial";
    char *partial = malloc(n);
    if (!partial) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(partial, n, "%s.partial", car_path);
    ipfsrt_car_writer *w;
    ipfsrt_car_writer_options wo = {.size = sizeof wo, .version = 1, .roots = &placeholder, .root_count = 1};
    st = ipfsrt_car_writer_new(&w, partial, &wo, err);
    if (st == IPFSRT_OK) {
        st = ipfsrt_zarr_store_commit(store, car_sink, w, root, err);
        if (st == IPFSRT_OK) st = ipfsrt_car_writer_set_roots(w, root, 1, err);
        if (st == IPFSRT_OK) st = ipfsrt_car_writer_finish(w, err);
        ipfsrt_car_writer_free(w);
    }
    if (st == IPFSRT_OK && rename(partial, car_path) != 0) {
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot name %s: %s", car_path, strerror(errno));
        remove(partial);
    }
    free(partial);
    return st;
}

ipfsrt_status ipfsrt_zarr_store_diff(ipfsrt_zarr_store *old_store, ipfsrt_zarr_store *new_store, ipfsrt_unixfs_change_fn fn,
                                     void *user, ipfsrt_error *err) {
    IPFSRT_NEED(old_store, err);
    IPFSRT_NEED(new_store, err);
    IPFSRT_NEED(fn, err);
    const ipfsrt_blocksource *old_src, *new_src;
    ipfsrt_cid old_root, new_root;
    ipfsrt_zarr_has_fn has;
    void *has_ctx;
    ipfsrt_status st = dag_of(old_store, "versions are compared in", &old_src, &old_root, &has, &has_ctx, err);
    if (st == IPFSRT_OK) st = dag_of(new_store, "versions are compared in", &new_src, &new_root, &has, &has_ctx, err);
    return st == IPFSRT_OK ? ipfsrt_unixfs_diff(old_src, &old_root, new_src, &new_root, fn, user, err) : st;
}
