/* Percent-encoding of names that land in URLs (a UnixFS path, a Zarr key, an
 * S3 object key, a directory listing's links): libcurl's escaping, one
 * segment at a time where '/' separates segments; and URLs as messages show
 * them, without their passwords. */
#include <curl/curl.h>
#include <limits.h>
#include <stdlib.h>
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

char *ipfsrt_url_redact(const char *url) {
    const char *scheme = strstr(url, "://");
    const char *authority = scheme ? scheme + 3 : url, *at = NULL;
    size_t len = strcspn(authority, "/?#");
    for (size_t i = 0; i < len; i++)
        if (authority[i] == '@') at = authority + i;
    const char *colon = at ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
    if (!colon) return strdup(url);
    /* user:password@host -> user:***@host */
    size_t head = (size_t)(colon + 1 - url), tail = strlen(at);
    char *shown = malloc(head + 3 + tail + 1);
    if (shown) {
        memcpy(shown, url, head);
        memcpy(shown + head, "***", 3);
        memcpy(shown + head + 3, at, tail + 1);
    }
    return shown;
}
