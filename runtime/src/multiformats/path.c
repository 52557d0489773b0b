/* IPFS paths: CID[/path], /ipfs/CID[/path] and ipfs://CID[/path]. */
#include <stdio.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/path.h"
#include "multiformats/multiformats_internal.h"

bool ipfsrt_path_has_dot_segment(const char *path) {
    for (const char *seg = path; *seg;) {
        size_t n = strcspn(seg, "/");
        if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) return true;
        seg += n;
        if (*seg) seg++;
    }
    return false;
}

ipfsrt_status ipfsrt_path_refuse_dot_segments(const char *rest, ipfsrt_error *err) {
    if (!ipfsrt_path_has_dot_segment(rest)) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                       "'.' and '..' segments are not names in an IPFS path (they would reach outside its root)");
}

ipfsrt_status ipfsrt_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(root, err);
    IPFSRT_NEED(rest, err);
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
    IPFSRT_NEED(root, err);
    IPFSRT_NEED(rest, err);
    if (ipfsrt_path_refuse_dot_segments(rest, err) != IPFSRT_OK) return IPFSRT_EBAD_ARGUMENT;
    char cs[IPFSRT_CID_STR_MAX];
    ipfsrt_cid v1;
    ipfsrt_cid_to_v1(root, &v1);
    ipfsrt_cid_to_string(&v1, cs);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_buf_append(&b, "/ipfs/", 6);
    ipfsrt_buf_append(&b, cs, strlen(cs));
    if (!ipfsrt_url_escape(&b, rest, true)) {
        ipfsrt_buf_free(&b);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    size_t n = b.len;
    while (n > 1 && b.data[n - 1] == '/') n--;
    bool fits = n < size;
    if (fits) {
        memcpy(out, b.data, n);
        out[n] = '\0';
    }
    ipfsrt_buf_free(&b);
    return fits ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "path too long");
}
