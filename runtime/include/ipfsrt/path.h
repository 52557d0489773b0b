/* ipfsrt — IPFS paths: a root CID and the path under it. */
#ifndef IPFSRT_PATH_H
#define IPFSRT_PATH_H

#include "ipfsrt/cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Splits "CID/rest", "/ipfs/CID/rest" or "ipfs://CID/rest" into the root CID and
 * the rest ("" or starting with '/'), which points into path. */
ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
