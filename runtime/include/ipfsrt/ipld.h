/** @file
 * ipfsrt — paths and links inside IPLD documents: DAG-CBOR and DAG-JSON
 * blocks (links in them), plain JSON and CBOR blocks (none). */
#ifndef IPFSRT_IPLD_H
#define IPFSRT_IPLD_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most links one document may hold (a 2 MiB block holds at most ~57,000). */
#define IPFSRT_IPLD_MAX_LINKS 65536

/** Whether a codec's blocks are documents rather than UnixFS or raw bytes:
 * dag-cbor, dag-json, json, cbor.
 * @param codec a multicodec code
 * @return true for those four */
IPFSRT_API bool ipfsrt_ipld_is_document(uint64_t codec);

/** Every link in a document, in document order (map values in key order),
 * repeats kept. JSON and CBOR blocks hold none.
 * @param cid the block's CID (its codec says how to read it; named in errors)
 * @param block the block's bytes (untrusted)
 * @param len how many
 * @param links set to a malloc'd array (NULL when there are none)
 * @param count set to its length
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_DAGCBOR (not strict DAG-CBOR; DAG-JSON that is not JSON,
 * a link that is not a CID string); IPFSRT_ETOO_LARGE (past IPFSRT_IPLD_MAX_LINKS);
 * IPFSRT_EUNSUPPORTED (a codec that is not a document); IPFSRT_EOUT_OF_MEMORY
 * @owner *links is the caller's: free() it */
IPFSRT_API ipfsrt_status ipfsrt_ipld_links(const ipfsrt_cid *cid, const uint8_t *block, size_t len,
                                           ipfsrt_cid **links, size_t *count, ipfsrt_error *err);

/** Walks path from a document's top, a segment a step (map keys; decimal
 * indexes into lists), up to the first link it reaches.
 * @param cid the block's CID (its codec says how to read it; named in errors)
 * @param block the block's bytes (untrusted)
 * @param len how many
 * @param path segments separated by '/' (empty ones skipped), at least one
 * @param consumed set to the bytes of path walked, through the segment that reached the link
 * @param link set to the link reached
 * @param err filled on failure, naming the CID and the segment
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (no such key or index, or a step into a string,
 * number or other scalar); IPFSRT_EINSIDE_BLOCK (the path ends at a value
 * that is not a link: only links are followed); IPFSRT_EBAD_DAGCBOR (as
 * ipfsrt_ipld_links); IPFSRT_EUNSUPPORTED; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_ipld_follow(const ipfsrt_cid *cid, const uint8_t *block, size_t len,
                                            const char *path, size_t *consumed, ipfsrt_cid *link,
                                            ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
