/* CID internals the CAR reader and the client hash with; not part of the public API. */
#ifndef IPFSRT_MULTIFORMATS_INTERNAL_H
#define IPFSRT_MULTIFORMATS_INTERNAL_H

#include "ipfsrt/cid.h"
#include "base/base_internal.h"

/* True when the CID's block can be hashed incrementally (SHA-2 with a digest of
 * at least IPFSRT_MH_MIN_SECURE_DIGEST bytes); sets the algorithm. */
bool ipfsrt_cid_streamable(const ipfsrt_cid *cid, ipfsrt_hash_alg *alg);
/* Compares a digest computed over data_len block bytes with the CID's. */
ipfsrt_status ipfsrt_cid_check_digest(const ipfsrt_cid *cid, const uint8_t *computed,
                                      size_t data_len, ipfsrt_error *err);

/* True when a path (of '/'-separated names) has a "." or ".." segment. */
IPFSRT_PRIVATE bool ipfsrt_path_has_dot_segment(const char *path);
/* Fails (IPFSRT_EBAD_ARGUMENT) for such a path on its way into a URL: a
 * gateway (or libcurl) would resolve the dots, reaching outside /ipfs/CID. A
 * walk of a DAG at hand may resolve them itself: no UnixFS name is either. */
ipfsrt_status ipfsrt_path_refuse_dot_segments(const char *path, ipfsrt_error *err);

#endif
