/** @file
 * ipfsrt — where verified blocks come from: the block-source interface and a memory store. */
#ifndef IPFSRT_BLOCKSOURCE_H
#define IPFSRT_BLOCKSOURCE_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Verified block bytes lent by a source until released. */
typedef struct ipfsrt_blocksource_ref {
    const uint8_t *data; /**< the block's bytes, verified */
    size_t len;          /**< how many */
    void *token;         /**< the source's own bookkeeping */
} ipfsrt_blocksource_ref;

/** "Give me the verified block for this CID." Every implementation must hash-check
 * what it lends (or have checked it when it was stored); IPFSRT_ENOT_FOUND when it
 * does not have the block. Filled by the library's _blocksource functions, or
 * by a caller with its size first (.size = sizeof (ipfsrt_blocksource)), so
 * that one built against an older, shorter struct still works. Used through
 * ipfsrt_blocksource_get and _release, never by calling get directly. */
typedef struct ipfsrt_blocksource {
    size_t size; /**< sizeof (ipfsrt_blocksource) */
    void *ctx;   /**< the source's state, handed to get and release */
    /** Lends the verified block for cid in ref; IPFSRT_ENOT_FOUND when absent. */
    ipfsrt_status (*get)(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                         ipfsrt_error *err);
    void (*release)(void *ctx, ipfsrt_blocksource_ref *ref); /**< may be NULL */
} ipfsrt_blocksource;

/** The verified block a CID names, from a source: identity CIDs are answered
 * here, every other one by the source's get.
 * @param src a source (filled by an ipfsrt_blocksource_* function, or by the
 * caller, size first)
 * @param cid the block's CID
 * @param ref set on success: the bytes, lent
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND: the source does not have it; the source's own
 * (IPFSRT_EHASH_MISMATCH, IPFSRT_EFETCH_FAILED...); IPFSRT_EBAD_ARGUMENT: a source
 * without its size
 * @owner ref's bytes are lent until ipfsrt_blocksource_release(src, ref) */
IPFSRT_API ipfsrt_status ipfsrt_blocksource_get(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                ipfsrt_blocksource_ref *ref, ipfsrt_error *err);
/** Gives back what ipfsrt_blocksource_get lent; ref is emptied.
 * @param src the source it came from
 * @param ref the lent block (an empty one is fine)
 * @owner the bytes are no longer valid */
IPFSRT_API void ipfsrt_blocksource_release(const ipfsrt_blocksource *src, ipfsrt_blocksource_ref *ref);

/** An in-memory block map; put() verifies and copies. */
typedef struct ipfsrt_memstore ipfsrt_memstore;
/** An in-memory block map.
 * @param store the new map, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_memstore_free */
IPFSRT_API ipfsrt_status ipfsrt_memstore_new(ipfsrt_memstore **store, ipfsrt_error *err);
/** Verifies a block against its CID and keeps a copy (a block already held is
 * not copied again).
 * @param store the map
 * @param cid the block's CID
 * @param data len bytes (copied)
 * @param len how many
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK
 * @errors as ipfsrt_cid_verify; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_memstore_put(ipfsrt_memstore *store, const ipfsrt_cid *cid,
                                             const uint8_t *data, size_t len, ipfsrt_error *err);
/** How many blocks the map holds.
 * @param store the map
 * @return the count */
IPFSRT_API size_t ipfsrt_memstore_count(const ipfsrt_memstore *store);
/** A block source over a map (blocks it lends need no release).
 * @param src filled, size set
 * @param store the map
 * @owner the map stays the caller's and must outlive the source */
IPFSRT_API void ipfsrt_blocksource_memstore(ipfsrt_blocksource *src, ipfsrt_memstore *store);
/** Releases a map and its blocks.
 * @param store the map, or NULL
 * @owner every block it lent is freed */
IPFSRT_API void ipfsrt_memstore_free(ipfsrt_memstore *store);

#ifdef __cplusplus
}
#endif

#endif
