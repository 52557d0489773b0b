/* What every answer of the gateway says beside its body: CORS (browsers on
 * other origins read everything, preflights answered), the path it answers
 * for, how it was negotiated (Vary, Content-Location), the download's name,
 * and conditional requests (If-None-Match answered 304 before any block is
 * read). */
#include <string.h>

#include "server/http_parse.h"
#include "server/server_internal.h"

#define ALLOW_HEADERS "Content-Type, Range, User-Agent, X-Requested-With"
/* what JavaScript on another origin may read: the trustless and path
 * gateways' own headers, and what ranges and caches need */
#define EXPOSE_HEADERS                                                                                        \
    "Content-Range, Content-Length, X-Ipfs-Path, X-Ipfs-Roots, X-Chunked-Output, X-Stream-Output, Etag, " \
    "Content-Location, Content-Disposition, Accept-Ranges"
#define PREFLIGHT_HEADERS_MAX 1024 /* bytes of Access-Control-Request-Headers echoed */

void ipfsrt_server_cors_headers(struct MHD_Response *r) {
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
    if (!MHD_get_response_header(r, "Access-Control-Allow-Headers")) /* a preflight's own */
        MHD_add_response_header(r, "Access-Control-Allow-Headers", ALLOW_HEADERS);
    MHD_add_response_header(r, "Access-Control-Expose-Headers", EXPOSE_HEADERS);
}

/* A header list as a preflight sends it: tokens separated by commas. */
static bool is_header_list(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > PREFLIGHT_HEADERS_MAX) return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_, ") == n;
}

enum MHD_Result ipfsrt_server_preflight(ipfsrt_server_request *rq, struct MHD_Connection *c) {
    struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    /* whatever headers the page means to send may come: a gateway reads only
     * the ones it knows, and every answer is public */
    const char *asked = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Access-Control-Request-Headers");
    if (asked && is_header_list(asked)) {
        char both[sizeof ALLOW_HEADERS + PREFLIGHT_HEADERS_MAX + 4];
        snprintf(both, sizeof both, "%s, %s", ALLOW_HEADERS, asked);
        MHD_add_response_header(r, "Access-Control-Allow-Headers", both);
    }
    MHD_add_response_header(r, "Access-Control-Max-Age", "86400");
    return ipfsrt_server_queue(rq, c, MHD_HTTP_OK, r, 0);
}

size_t ipfsrt_server_encode_path(const char *path, char *out, size_t size) {
    static const char hex[] = "0123456789ABCDEF";
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && used + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            out[used++] = (char)*p;
        } else {
            out[used++] = '%';
            out[used++] = hex[*p >> 4];
            out[used++] = hex[*p & 15];
        }
    }
    out[used] = '\0';
    return used;
}

void ipfsrt_server_path_headers(const ipfsrt_server_request *rq, struct MHD_Response *r) {
    char path[2048];
    ipfsrt_server_encode_path(rq->path ? rq->path : "", path, sizeof path - 16);
    MHD_add_response_header(r, "X-Ipfs-Path", path);
    /* the same URL answers file bytes, a block or a CAR as Accept says */
    MHD_add_response_header(r, "Vary", "Accept");
    if (rq->negotiated[0]) { /* by Accept alone: where the same answer lives by URL */
        size_t n = strlen(path);
        snprintf(path + n, sizeof path - n, "?format=%s", rq->negotiated);
        MHD_add_response_header(r, "Content-Location", path);
    }
}

bool ipfsrt_server_not_modified(struct MHD_Connection *c, const char *etag) {
    return ipfsrt_http_etag_matches(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match"), etag);
}

enum MHD_Result ipfsrt_server_send_not_modified(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                                const char *etag) {
    struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Etag", etag);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_NOT_MODIFIED, r, 0);
}

/* Whether name may stand between quotes as it is: printable ASCII, no quote
 * or backslash (anything else goes percent-encoded in filename*). */
static bool plain_filename(const char *name) {
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\') return false;
    return true;
}

/* name with '_' for each character that may not stand between quotes (one
 * per UTF-8 sequence, not per byte). */
static void ascii_stand_in(const char *name, char *out, size_t size) {
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && used + 1 < size; p++) {
        if (*p >= 0x80 && *p < 0xc0) continue; /* a continuation byte */
        out[used++] = *p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\' ? '_' : (char)*p;
    }
    out[used] = '\0';
}

void ipfsrt_server_disposition(struct MHD_Connection *c, struct MHD_Response *r, const char *fallback,
                               bool attachment) {
    const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "filename");
    const char *download = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "download");
    const char *kind = attachment || (download && strcmp(download, "true") == 0) ? "attachment" : "inline";
    char h[1200]; /* a 255-byte name percent-encoded, and its stand-in */
    if (!name || !name[0] || strlen(name) > 255) {
        snprintf(h, sizeof h, "%s; filename=\"%s\"", kind, fallback);
    } else if (plain_filename(name)) {
        snprintf(h, sizeof h, "%s; filename=\"%s\"", kind, name);
    } else { /* RFC 6266: an ASCII stand-in, then the name in UTF-8 */
        char encoded[800], ascii[256];
        ipfsrt_server_encode_path(name, encoded, sizeof encoded);
        ascii_stand_in(name, ascii, sizeof ascii);
        snprintf(h, sizeof h, "%s; filename=\"%s\"; filename*=UTF-8''%s", kind, ascii, encoded);
    }
    MHD_add_response_header(r, "Content-Disposition", h);
}
