/* ipfsrt — where verified blocks come from: the block-source interface and a memory store. */
#ifndef IPFSRT_BLOCKSOURCE_H
#define IPFSRT_BLOCKSOURCE_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verified block bytes lent by a source until released. */
typedef struct ipfsrt_blocksource_ref {
    const uint8_t *data;
    size_t len;
    void *token; /* the source's own bookkeeping */
} ipfsrt_blocksource_ref;

/* "Give me the verified block for this CID." Every implementation must hash-check
 * what it lends (or have checked it when it was stored); IPFSRT_ENOT_FOUND when it
 * does not have the block. Filled by the library's _blocksource functions, or
 * by a caller with its size first (.size = sizeof (ipfsrt_blocksource)), so
 * that one built against an older, shorter struct still works. Used through
 * ipfsrt_blocksource_get and _release, never by calling get directly. */
typedef struct ipfsrt_blocksource {
    size_t size;
    void *ctx;
    ipfsrt_status (*get)(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                         ipfsrt_error *err);
    void (*release)(void *ctx, ipfsrt_blocksource_ref *ref); /* may be NULL */
} ipfsrt_blocksource;

/* Answers identity CIDs itself, then asks the source. */
IPFSRT_API ipfsrt_status ipfsrt_blocksource_get(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                ipfsrt_blocksource_ref *ref, ipfsrt_error *err);
IPFSRT_API void ipfsrt_blocksource_release(const ipfsrt_blocksource *src, ipfsrt_blocksource_ref *ref);

/* An in-memory block map; put() verifies and copies. */
typedef struct ipfsrt_memstore ipfsrt_memstore;
IPFSRT_API ipfsrt_status ipfsrt_memstore_new(ipfsrt_memstore **store, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_memstore_put(ipfsrt_memstore *store, const ipfsrt_cid *cid,
                                             const uint8_t *data, size_t len, ipfsrt_error *err);
IPFSRT_API size_t ipfsrt_memstore_count(const ipfsrt_memstore *store);
IPFSRT_API void ipfsrt_blocksource_memstore(ipfsrt_blocksource *src, ipfsrt_memstore *store);
IPFSRT_API void ipfsrt_memstore_free(ipfsrt_memstore *store);

#ifdef __cplusplus
}
#endif

#endif
