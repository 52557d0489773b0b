/** @file
 * ipfsrt — IPFS paths: a root CID and the path under it. */
#ifndef IPFSRT_PATH_H
#define IPFSRT_PATH_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Splits "CID/rest", "/ipfs/CID/rest" or "ipfs://CID/rest" into the root CID
 * and the rest.
 * @param path NUL-terminated
 * @param root the parsed CID, on success
 * @param rest "" or starting with '/', pointing into path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors the CID's: IPFSRT_EBAD_CID, IPFSRT_EBAD_MULTIBASE, IPFSRT_EBAD_MULTIHASH,
 * IPFSRT_EUNSUPPORTED (the message says it is not a valid CID)
 * @owner *rest borrows path's memory */
IPFSRT_API ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                           ipfsrt_error *err);

/** The URL path a gateway is asked for: "/ipfs/<root as CIDv1>/<rest>", each
 * segment percent-encoded (libcurl's escaping), trailing slashes dropped.
 * @param root the root CID
 * @param rest "" or "/a/b" (raw bytes, not encoded)
 * @param out written with the NUL-terminated path
 * @param size out's room
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: out too small ("path too long"), or rest has a "."
 * or ".." segment (a gateway, or libcurl, would resolve it outside the root);
 * IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_path_to_url(const ipfsrt_cid *root, const char *rest, char *out, size_t size,
                                            ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
