/* The kinds of store behind ipfsrt_zarr_store_open; not public. Each opens
 * its context and hands back its ops. */
#ifndef IPFSRT_ZARR_STORE_INTERNAL_H
#define IPFSRT_ZARR_STORE_INTERNAL_H

#include "ipfsrt/unixfs.h"
#include "ipfsrt/zarr_store.h"
#include "base/base_internal.h"

/* UnixFS listings (CAR and IPFS stores) as store entries: the user of
 * ipfsrt_zarr_unixfs_entry is an ipfsrt_zarr_unixfs_lister. */
typedef struct ipfsrt_zarr_unixfs_lister {
    ipfsrt_zarr_store_name_fn fn;
    void *user;
} ipfsrt_zarr_unixfs_lister;
IPFSRT_PRIVATE ipfsrt_status ipfsrt_zarr_unixfs_entry(void *lister, const ipfsrt_unixfs_entry *e, ipfsrt_error *err);

/* Keys whose CIDs a caller told a content-addressed store
 * (ipfsrt_zarr_store_know): sorted when first looked up after a change. */
typedef struct ipfsrt_zarr_known_cid {
    char *key;
    size_t told; /* the order told in: of a key told twice, the last counts */
    ipfsrt_cid cid;
} ipfsrt_zarr_known_cid;
typedef struct ipfsrt_zarr_known {
    ipfsrt_zarr_known_cid *items;
    size_t count, cap, told;
    bool sorted;
} ipfsrt_zarr_known;
IPFSRT_PRIVATE void ipfsrt_zarr_known_init(ipfsrt_zarr_known *k);
IPFSRT_PRIVATE ipfsrt_status ipfsrt_zarr_known_add(ipfsrt_zarr_known *k, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err);
/* key's CID, or NULL */
IPFSRT_PRIVATE const ipfsrt_cid *ipfsrt_zarr_known_find(ipfsrt_zarr_known *k, const char *key);
IPFSRT_PRIVATE void ipfsrt_zarr_known_free(ipfsrt_zarr_known *k);

/* The DAG under a content-addressed store whose keys hang from a root (no
 * path inside it): where its blocks come from and the root (and, for a CAR,
 * the file, which says cheaply which blocks it holds). IPFSRT_EUNSUPPORTED
 * for a store of another kind (ops tells which), IPFSRT_EBAD_ARGUMENT for one
 * opened at a path inside its root. src and car stay the store's. */
typedef bool (*ipfsrt_zarr_has_fn)(void *ctx, const ipfsrt_cid *cid);
ipfsrt_status ipfsrt_zarr_car_store_dag(const ipfsrt_zarr_store_ops *ops, void *ctx, const ipfsrt_blocksource **src,
                                        ipfsrt_cid *root, ipfsrt_zarr_has_fn *has, void **has_ctx, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_gateway_store_dag(const ipfsrt_zarr_store_ops *ops, void *ctx,
                                            const ipfsrt_blocksource **src, ipfsrt_cid *root, ipfsrt_error *err);
/* store.c: the ops a store was made with. */
const ipfsrt_zarr_store_ops *ipfsrt_zarr_store_ops_of(const ipfsrt_zarr_store *store, void **ctx);

ipfsrt_status ipfsrt_zarr_folder_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *path,
                                            bool writable, ipfsrt_error *err);
/* A folder store's transaction (see store_folder.c): begin takes the folder's
 * lock (waiting at most wait_s) and settles what a crashed one left; end
 * renames the staged metadata into place (commit) or drops it, and unlocks. */
ipfsrt_status ipfsrt_zarr_folder_begin(void *ctx, double wait_s, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_folder_end(void *ctx, bool commit, ipfsrt_error *err);
bool ipfsrt_zarr_folder_is(const ipfsrt_zarr_store_ops *ops);
/* url's first file_len bytes name the CAR file; the rest is a path from its
 * root. The n_under CAR files under lend the blocks it lacks. */
ipfsrt_status ipfsrt_zarr_car_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                         size_t file_len, const char *const *under, size_t n_under,
                                         ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_gateway_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                             const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_http_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                          const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);

#endif
