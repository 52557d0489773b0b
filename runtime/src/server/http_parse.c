/* Parsers for what a gateway request carries: query parameters, Range, the
 * listen address. Numbers are read digit by digit: strtoull would take signs,
 * spaces and overflow silently. */
#include <arpa/inet.h>
#include <cJSON.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "server/http_parse.h"

/* Decimal digits up to a stop character; saturates at UINT64_MAX. */
static bool parse_u64(const char *s, const char **end, uint64_t *v) {
    *v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        *v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
    }
    *end = p;
    return p != s;
}

/* A possibly negative integer: *neg says whether it counts from the end. */
static bool parse_signed(const char *s, const char **end, bool *neg, uint64_t *v) {
    *neg = *s == '-';
    return parse_u64(s + *neg, end, v);
}

static bool has_param(const char *accept, const char *param) {
    return accept && strstr(accept, param) != NULL;
}

ipfsrt_status ipfsrt_http_car_params_parse(const ipfsrt_http_car_query *q, const char *accept,
                                           ipfsrt_http_car_params *params, ipfsrt_error *err) {
    bool accept_car = has_param(accept, "application/vnd.ipld.car");
    if ((q->version && strcmp(q->version, "1") != 0) ||
        (!q->version && accept_car && has_param(accept, "version=") && !has_param(accept, "version=1")))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "only CAR version 1 is served");
    if (q->order && strcmp(q->order, "dfs") != 0 && strcmp(q->order, "unk") != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "car-order must be dfs or unk");
    if (q->dups && strcmp(q->dups, "y") != 0 && strcmp(q->dups, "n") != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "car-dups must be y or n");
    params->dups = q->dups ? strcmp(q->dups, "y") == 0 : accept_car && has_param(accept, "dups=y");
    params->scope = IPFSRT_SCOPE_ALL;
    if (!q->scope || strcmp(q->scope, "all") == 0) return IPFSRT_OK;
    if (strcmp(q->scope, "block") == 0) params->scope = IPFSRT_SCOPE_BLOCK;
    else if (strcmp(q->scope, "entity") == 0) params->scope = IPFSRT_SCOPE_ENTITY;
    else return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "dag-scope must be block, entity or all");
    return IPFSRT_OK;
}

/* Resolves an entity-bytes bound against size: a count from the end becomes a
 * position, saturating at 0; the result may lie past the end. */
static uint64_t bound(bool from_end, uint64_t v, uint64_t size, bool *before_start) {
    *before_start = false;
    if (!from_end) return v;
    if (v > size) {
        *before_start = true;
        return 0;
    }
    return size - v;
}

bool ipfsrt_http_entity_bytes_parse(const char *v, uint64_t size, uint64_t *offset,
                                    uint64_t *length) {
    const char *end;
    bool from_neg, to_neg, from_before, to_before;
    uint64_t from, to;
    if (!parse_signed(v, &end, &from_neg, &from) || *end != ':') return false;
    const char *t = end + 1;
    if (strcmp(t, "*") == 0) {
        to_neg = false;
        to = size ? size - 1 : 0;
    } else if (!parse_signed(t, &end, &to_neg, &to) || *end) {
        return false;
    }
    from = bound(from_neg, from, size, &from_before); /* before the start: from the start */
    to = bound(to_neg, to, size, &to_before);
    if (to_before || size == 0 || from >= size || from > to) { /* none of the entity */
        *offset = size;
        *length = 0;
        return true;
    }
    if (to >= size) to = size - 1;
    *offset = from;
    *length = to - from + 1;
    return true;
}

ipfsrt_http_range ipfsrt_http_range_parse(const char *h, uint64_t size, uint64_t *start,
                                          uint64_t *length) {
    if (!h || strncmp(h, "bytes=", 6) != 0) return IPFSRT_HTTP_RANGE_NONE;
    /* of a list of ranges the first is answered: RFC 9110 lets a server answer
     * fewer ranges than asked, and one part needs no multipart body */
    char first[64];
    size_t n = strcspn(h + 6, ",");
    while (n && h[6 + n - 1] == ' ') n--;
    if (n >= sizeof first) return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
    memcpy(first, h + 6, n);
    first[n] = '\0';
    const char *p = first, *end;
    uint64_t a, b;
    if (*p == '-') { /* the last b bytes */
        if (!parse_u64(p + 1, &end, &b) || *end || b == 0) return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
        if (size == 0) return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
        *start = b >= size ? 0 : size - b;
        *length = size - *start;
        return IPFSRT_HTTP_RANGE_OK;
    }
    if (!parse_u64(p, &end, &a) || *end != '-') return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
    const char *q = end + 1;
    b = size ? size - 1 : 0;
    if (*q) {
        if (!parse_u64(q, &end, &b) || *end) return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
        if (b >= size) b = size - 1;
    }
    if (a >= size || a > b) return IPFSRT_HTTP_RANGE_UNSATISFIABLE;
    *start = a;
    *length = b - a + 1;
    return IPFSRT_HTTP_RANGE_OK;
}

static bool port_parse(const char *s, uint16_t *port) {
    const char *end;
    uint64_t v;
    if (!parse_u64(s, &end, &v) || *end || v > 65535) return false;
    *port = (uint16_t)v;
    return true;
}

ipfsrt_status ipfsrt_http_listen_parse(const char *listen, struct sockaddr_storage *ss,
                                       ipfsrt_error *err) {
    memset(ss, 0, sizeof *ss);
    const char *colon = strrchr(listen, ':');
    uint16_t port;
    if (!port_parse(colon ? colon + 1 : listen, &port))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                           "bad listen address '%s' (HOST:PORT, :PORT or PORT)", listen);
    char host[64];
    size_t hl = colon ? (size_t)(colon - listen) : 0;
    if (hl >= sizeof host) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "listen host too long");
    memcpy(host, listen, hl);
    host[hl] = '\0';
    if (hl == 0 || strcmp(host, "localhost") == 0) strcpy(host, "127.0.0.1"); /* loopback unless told */
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return IPFSRT_OK;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) == 1) {
            v6->sin6_family = AF_INET6;
            v6->sin6_port = htons(port);
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "listen host '%s' is not an IP address", host);
}

/* By extension, as web servers type what they serve: pages and the scripts,
 * styles and images they load (a module script is refused under another
 * type), the text and data formats datasets hold. */
const char *ipfsrt_http_content_type(const char *path) {
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"}, {".htm", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},   {".wasm", "application/wasm"},
        {".json", "application/json"},         {".map", "application/json"},
        {".txt", "text/plain; charset=utf-8"}, {".md", "text/markdown; charset=utf-8"},
        {".csv", "text/csv; charset=utf-8"},   {".xml", "application/xml"},
        {".svg", "image/svg+xml"},             {".png", "image/png"},
        {".jpg", "image/jpeg"},                {".jpeg", "image/jpeg"},
        {".gif", "image/gif"},                 {".webp", "image/webp"},
        {".ico", "image/vnd.microsoft.icon"},  {".pdf", "application/pdf"},
        {".nc", "application/x-netcdf"},       {".zip", "application/zip"},
        {".gz", "application/gzip"},           {".tar", "application/x-tar"},
    };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t e = strlen(types[i].ext);
        if (n >= e && strcasecmp(path + n - e, types[i].ext) == 0) return types[i].type;
    }
    return "application/octet-stream";
}

/* Whether If-None-Match (a list of entity tags, or *) names etag; weak
 * comparison, as RFC 9110 asks for If-None-Match: W/ is ignored on both. */
bool ipfsrt_http_etag_matches(const char *if_none_match, const char *etag) {
    if (!if_none_match || !etag) return false;
    if (strncmp(etag, "W/", 2) == 0) etag += 2;
    if (*etag == '"') etag++;
    const char *etag_end = strchr(etag, '"');
    size_t want = etag_end ? (size_t)(etag_end - etag) : strlen(etag);
    for (const char *p = if_none_match; *p;) {
        p += strspn(p, " \t,");
        if (*p == '*') return true;
        if (strncmp(p, "W/", 2) == 0) p += 2;
        if (*p != '"') { /* not an entity tag: skip to the next comma */
            p += strcspn(p, ",");
            continue;
        }
        const char *end = strchr(++p, '"');
        if (!end) return false; /* a tag never closed: names nothing */
        if ((size_t)(end - p) == want && memcmp(p, etag, want) == 0) return true;
        p = end + 1;
    }
    return false;
}

bool ipfsrt_http_is_json(const uint8_t *data, size_t len) {
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
    if (i == len || (data[i] != '{' && data[i] != '[') || len > IPFSRT_HTTP_SNIFF_MAX) return false;
    cJSON *doc = cJSON_ParseWithLength((const char *)data, len);
    cJSON_Delete(doc);
    return doc != NULL;
}
