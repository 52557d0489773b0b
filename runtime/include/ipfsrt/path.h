/* ipfsrt — IPFS paths: a root CID and the path under it. */
#ifndef IPFSRT_PATH_H
#define IPFSRT_PATH_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Splits "CID/rest", "/ipfs/CID/rest" or "ipfs://CID/rest" into the root CID and
 * the rest ("" or starting with '/'), which points into path. */
IPFSRT_API ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                           ipfsrt_error *err);

/* The URL path a gateway is asked for: "/ipfs/<root as CIDv1>/<rest>", each
 * segment percent-encoded, trailing slashes dropped. */
IPFSRT_API ipfsrt_status ipfsrt_path_to_url(const ipfsrt_cid *root, const char *rest, char *out, size_t size,
                                            ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
