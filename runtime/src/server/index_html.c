/* A directory listing as an HTML page, for browsers and any client that does
 * not ask for JSON: the path's steps linked, a link up below the root, and
 * each entry's name linked by its full /ipfs/ path, its type, size and CID
 * (linked with the name as ?filename=). Names are a DAG's data, so they are
 * escaped wherever they land: percent-encoded in links, entity-escaped in
 * text. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

static void put(ipfsrt_buf *b, const char *s) { ipfsrt_buf_append(b, s, strlen(s)); }

void ipfsrt_server_put_html(ipfsrt_buf *b, const char *s, size_t n) {
    for (const char *end = s + n; s < end; s++) {
        switch (*s) {
        case '&': put(b, "&amp;"); break;
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '"': put(b, "&quot;"); break;
        case '\'': put(b, "&#39;"); break;
        default: ipfsrt_buf_append(b, s, 1);
        }
    }
}

static void put_text(ipfsrt_buf *b, const char *s) { ipfsrt_server_put_html(b, s, strlen(s)); }

static const char *field(const cJSON *item, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* "/ipfs/<a href="/ipfs/CID">CID</a>/<a href="/ipfs/CID/a">a</a>...": each
 * step of dir (an /ipfs/ path without its trailing slash) linked. */
static void put_breadcrumbs(ipfsrt_buf *b, const char *dir) {
    const char *steps = strncmp(dir, "/ipfs/", 6) == 0 ? dir + 6 : dir;
    put(b, "/ipfs");
    for (const char *p = steps; *p;) {
        size_t n = strcspn(p, "/");
        char *upto = strndup(dir, (size_t)(p + n - dir)), *name = strndup(p, n);
        if (upto && name) {
            put(b, "/<a href=\"");
            ipfsrt_url_escape(b, upto, true);
            put(b, "\">");
            put_text(b, name);
            put(b, "</a>");
        }
        free(upto);
        free(name);
        p += n + (p[n] == '/');
    }
}

/* An entry's row: its name linked by its full path, its type, its size, and
 * its CID linked by itself with the name as ?filename= (escaped as a value). */
static void put_entry(ipfsrt_buf *b, const char *dir, const cJSON *item) {
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(item, "size");
    char n[32];
    snprintf(n, sizeof n, "%.0f", cJSON_IsNumber(size) ? size->valuedouble : 0.0);
    put(b, "<tr><td><a href=\"");
    ipfsrt_url_escape(b, dir, true);
    put(b, "/");
    ipfsrt_url_escape(b, field(item, "name"), false);
    put(b, "\">");
    put_text(b, field(item, "name"));
    put(b, "</a></td><td>");
    put_text(b, field(item, "type"));
    put(b, "</td><td>");
    put(b, n);
    put(b, "</td><td><a class=\"ipfs-hash\" translate=\"no\" href=\"/ipfs/");
    ipfsrt_url_escape(b, field(item, "cid"), false);
    put(b, "?filename=");
    ipfsrt_buf once;
    ipfsrt_buf_init(&once);
    ipfsrt_url_escape(&once, field(item, "name"), false);
    ipfsrt_buf_append(&once, "", 1);
    if (!once.failed) ipfsrt_url_escape(b, (const char *)once.data, false);
    ipfsrt_buf_free(&once);
    put(b, "\">");
    put_text(b, field(item, "cid"));
    put(b, "</a></td></tr>\n");
}

char *ipfsrt_server_index_html(const char *base, const cJSON *list, size_t *len) {
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    size_t trimmed = strlen(base);
    while (trimmed > 1 && base[trimmed - 1] == '/') trimmed--;
    char *dir = strndup(base, trimmed);
    if (!dir) return NULL;
    put(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Index of ");
    put_text(&b, dir);
    put(&b, "</title></head><body>\n<h1>Index of ");
    put_breadcrumbs(&b, dir);
    put(&b, "</h1>\n<table>\n<tr><th>name</th><th>type</th><th>size</th><th>CID</th></tr>\n");
    if (strchr(dir + (strncmp(dir, "/ipfs/", 6) == 0 ? 6 : 0), '/')) { /* below the root: a way up */
        put(&b, "<tr><td><a href=\"");
        ipfsrt_url_escape(&b, dir, true);
        put(&b, "/..\">..</a></td><td></td><td></td><td></td></tr>\n");
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, list) put_entry(&b, dir, item);
    put(&b, "</table>\n</body></html>\n");
    ipfsrt_buf_append(&b, "", 1); /* a C string too */
    free(dir);
    if (b.failed) {
        ipfsrt_buf_free(&b);
        return NULL;
    }
    *len = b.len - 1;
    return (char *)b.data;
}
