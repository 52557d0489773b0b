/* IPFS paths: CID[/path], /ipfs/CID[/path] and ipfs://CID[/path]. */
#include <string.h>

#include "ipfsrt/path.h"

ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                     ipfsrt_error *err) {
    if (strncmp(path, "ipfs://", 7) == 0) path += 7;
    else if (strncmp(path, "/ipfs/", 6) == 0) path += 6;
    const char *slash = strchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : strlen(path);
    ipfsrt_status st = ipfsrt_cid_parse(root, path, n, NULL, err);
    if (st != IPFSRT_OK) return st;
    *rest = slash ? slash : "";
    return IPFSRT_OK;
}
