/* IPFS paths: CID[/path], /ipfs/CID[/path] and ipfs://CID[/path]. */
#include <stdio.h>
#include <string.h>

#include "ipfsrt/path.h"

ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                     ipfsrt_error *err) {
    if (strncmp(path, "ipfs://", 7) == 0) path += 7;
    else if (strncmp(path, "/ipfs/", 6) == 0) path += 6;
    const char *slash = strchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : strlen(path);
    ipfsrt_status st = ipfsrt_cid_parse(root, path, n, NULL, err);
    if (st != IPFSRT_OK) { /* the parser's reason, after what it means to a user */
        if (err) ipfsrt_error_prefix(err, "not a valid CID (mistyped or cut short?): ");
        return st;
    }
    *rest = slash ? slash : "";
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_path_to_url(const ipfsrt_cid *root, const char *rest, char *out, size_t size,
                                 ipfsrt_error *err) {
    char cs[IPFSRT_CID_STR_MAX];
    ipfsrt_cid v1;
    ipfsrt_cid_to_v1(root, &v1);
    ipfsrt_cid_to_string(&v1, cs);
    size_t n = (size_t)snprintf(out, size, "/ipfs/%s", cs);
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)rest; *p && n + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    if (n + 4 >= size) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "path too long");
    while (n > 1 && out[n - 1] == '/') n--;
    out[n] = '\0';
    return IPFSRT_OK;
}
