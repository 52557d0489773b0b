/* Percent-encoding of names that land in URLs (a UnixFS path, a Zarr key, an
 * S3 object key, a directory listing's links): libcurl's escaping, one
 * segment at a time where '/' separates segments. */
#include <curl/curl.h>
#include <limits.h>
#include <string.h>

#include "base/base_internal.h"

bool ipfsrt_url_escape(ipfsrt_buf *out, const char *s, bool keep_slash) {
    while (*s) {
        size_t len = keep_slash ? strcspn(s, "/") : strlen(s);
        if (len > INT_MAX) return false;
        if (len) {
            char *escaped = curl_easy_escape(NULL, s, (int)len);
            if (!escaped) return false;
            ipfsrt_buf_append(out, escaped, strlen(escaped));
            curl_free(escaped);
        }
        s += len;
        if (*s == '/') ipfsrt_buf_append(out, s++, 1);
    }
    return !out->failed;
}
