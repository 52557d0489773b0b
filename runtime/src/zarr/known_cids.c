/* The CIDs of keys a caller told a content-addressed store, so that its reads
 * of them skip the walk through the directories (ipfsrt_zarr_store_know). A
 * key told twice keeps the CID told last. */
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/store_internal.h"

void ipfsrt_zarr_known_init(ipfsrt_zarr_known *k) { memset(k, 0, sizeof *k); }

ipfsrt_status ipfsrt_zarr_known_add(ipfsrt_zarr_known *k, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_array_reserve(&k->items, &k->cap, k->count + 1, sizeof *k->items);
    if (st != IPFSRT_OK) return ipfsrt_fail(err, st, -1, "out of memory");
    char *copy = strdup(key);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    k->items[k->count] = (ipfsrt_zarr_known_cid){copy, k->told++, *cid};
    k->count++;
    k->sorted = false;
    return IPFSRT_OK;
}

static int by_key(const void *a, const void *b) {
    const ipfsrt_zarr_known_cid *x = a, *y = b;
    return strcmp(x->key, y->key);
}

static int by_key_then_order(const void *a, const void *b) {
    const ipfsrt_zarr_known_cid *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->told > y->told) - (x->told < y->told);
}

/* Sorted by key, each key once (the CID told last). */
static void settle(ipfsrt_zarr_known *k) {
    qsort(k->items, k->count, sizeof *k->items, by_key_then_order);
    size_t out = 0;
    for (size_t i = 0; i < k->count; i++) {
        if (out && strcmp(k->items[out - 1].key, k->items[i].key) == 0) free(k->items[out - 1].key);
        else out++;
        k->items[out - 1] = k->items[i];
    }
    k->count = out;
    k->sorted = true;
}

const ipfsrt_cid *ipfsrt_zarr_known_find(ipfsrt_zarr_known *k, const char *key) {
    if (!k->count) return NULL;
    if (!k->sorted) settle(k);
    ipfsrt_zarr_known_cid probe = {(char *)key, 0, {0}};
    const ipfsrt_zarr_known_cid *hit = bsearch(&probe, k->items, k->count, sizeof *k->items, by_key);
    return hit ? &hit->cid : NULL;
}

void ipfsrt_zarr_known_free(ipfsrt_zarr_known *k) {
    for (size_t i = 0; i < k->count; i++) free(k->items[i].key);
    free(k->items);
    ipfsrt_zarr_known_init(k);
}
