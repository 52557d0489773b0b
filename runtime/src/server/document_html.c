/* A DAG-CBOR, DAG-JSON, JSON or CBOR block as a page for browsers: what it
 * is, links to its bytes, and its content. DAG-CBOR is shown in DAG-JSON's
 * notation with each link a link to its /ipfs/ path; JSON text is shown as it
 * is. Everything from the block is escaped, and the page is bounded. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagcbor.h"
#include "ipfsrt/multibase.h"
#include "server/server_internal.h"

#define PAGE_MAX (4u << 20) /* bytes of rendered content; past them the page says it is cut */
#define HEX_SHOWN 1024      /* bytes of a CBOR block that is not DAG-CBOR shown in hex */

static void put(ipfsrt_buf *b, const char *s) { ipfsrt_buf_append(b, s, strlen(s)); }

static void put_indent(ipfsrt_buf *b, int depth) {
    put(b, "\n");
    for (int i = 0; i < depth; i++) put(b, "  ");
}

/* A JSON string: quotes, backslashes and control bytes escaped, then HTML's. */
static void put_string(ipfsrt_buf *b, const uint8_t *s, size_t n) {
    put(b, "&quot;");
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        if (s[i] == '"' || s[i] == '\\') snprintf(esc, sizeof esc, "\\%c", s[i]);
        else if (s[i] < 0x20) snprintf(esc, sizeof esc, "\\u%04x", s[i]);
        else {
            ipfsrt_server_put_html(b, (const char *)s + i, 1);
            continue;
        }
        ipfsrt_server_put_html(b, esc, strlen(esc));
    }
    put(b, "&quot;");
}

static void put_link(ipfsrt_buf *b, const ipfsrt_cid *cid) {
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(cid, s);
    put(b, "{&quot;/&quot;: &quot;<a href=\"/ipfs/");
    put(b, s); /* a CID's text is base32 or base58: nothing to escape */
    put(b, "/\">");
    put(b, s);
    put(b, "</a>&quot;}");
}

static void put_bytes(ipfsrt_buf *b, const uint8_t *p, size_t n) {
    size_t size = ipfsrt_multibase_encoded_size(IPFSRT_BASE64, n);
    char *text = malloc(size);
    if (!text || ipfsrt_multibase_encode(IPFSRT_BASE64, p, n, text, size, NULL, NULL) != IPFSRT_OK) {
        b->failed = true;
    } else {
        put(b, "{&quot;/&quot;: {&quot;bytes&quot;: &quot;");
        put(b, text + 1); /* DAG-JSON's base64 has no multibase prefix */
        put(b, "&quot;}}");
    }
    free(text);
}

static void put_scalar(ipfsrt_buf *b, const ipfsrt_dagcbor_item *it) {
    char num[48];
    switch (it->type) {
    case IPFSRT_DAGCBOR_UINT: snprintf(num, sizeof num, "%" PRIu64, it->v.u); break;
    case IPFSRT_DAGCBOR_NEGINT: /* -1 - u, which for u = 2^64-1 is past int64 */
        if (it->v.u == UINT64_MAX) snprintf(num, sizeof num, "-18446744073709551616");
        else snprintf(num, sizeof num, "-%" PRIu64, it->v.u + 1);
        break;
    case IPFSRT_DAGCBOR_FLOAT: snprintf(num, sizeof num, "%.17g", it->v.f); break;
    case IPFSRT_DAGCBOR_BOOL: snprintf(num, sizeof num, "%s", it->v.b ? "true" : "false"); break;
    default: snprintf(num, sizeof num, "null");
    }
    put(b, num);
}

/* Depth is bounded by the decoder; the page's size by PAGE_MAX. */
static void put_item(ipfsrt_buf *b, const ipfsrt_dagcbor_item *it, int depth) {
    if (b->len > PAGE_MAX) return;
    bool map = it->type == IPFSRT_DAGCBOR_MAP;
    switch (it->type) {
    case IPFSRT_DAGCBOR_TEXT: put_string(b, it->v.str.ptr, it->v.str.len); return;
    case IPFSRT_DAGCBOR_BYTES: put_bytes(b, it->v.str.ptr, it->v.str.len); return;
    case IPFSRT_DAGCBOR_CID: put_link(b, it->v.cid); return;
    case IPFSRT_DAGCBOR_MAP:
    case IPFSRT_DAGCBOR_ARRAY: break;
    default: put_scalar(b, it); return;
    }
    put(b, map ? "{" : "[");
    for (size_t i = 0; i < it->v.list.count && b->len <= PAGE_MAX; i++) {
        put(b, i ? "," : "");
        put_indent(b, depth + 1);
        if (map) {
            const ipfsrt_dagcbor_item *k = &it->v.list.items[2 * i];
            put_string(b, k->v.str.ptr, k->v.str.len);
            put(b, ": ");
        }
        put_item(b, &it->v.list.items[map ? 2 * i + 1 : i], depth + 1);
    }
    if (it->v.list.count) put_indent(b, depth);
    put(b, map ? "}" : "]");
}

static void put_hex(ipfsrt_buf *b, const uint8_t *block, size_t len) {
    char hex[4];
    for (size_t i = 0; i < len && i < HEX_SHOWN; i++) {
        snprintf(hex, sizeof hex, "%02x%s", block[i], i % 32 == 31 ? "\n" : " ");
        put(b, hex);
    }
    if (len > HEX_SHOWN) put(b, "\n...");
}

static void put_content(ipfsrt_buf *b, const ipfsrt_cid *cid, const uint8_t *block, size_t len) {
    if (cid->codec == IPFSRT_CODEC_DAG_JSON || cid->codec == IPFSRT_CODEC_JSON) {
        ipfsrt_server_put_html(b, (const char *)block, len);
        return;
    }
    ipfsrt_dagcbor_doc doc;
    if (ipfsrt_dagcbor_decode(block, len, &doc, NULL) != IPFSRT_OK) { /* plain CBOR may be any CBOR */
        put(b, "(not DAG-CBOR; its first bytes in hex)\n");
        put_hex(b, block, len);
        return;
    }
    put_item(b, doc.root, 0);
    ipfsrt_dagcbor_doc_free(&doc);
    if (b->len > PAGE_MAX) put(b, "\n... (cut: too long to show)");
}

char *ipfsrt_server_document_html(const char *path, const ipfsrt_cid *cid, const uint8_t *block, size_t len,
                                  size_t *out_len) {
    char s[IPFSRT_CID_STR_MAX], size[32];
    const char *codec = ipfsrt_codec_name(cid->codec);
    ipfsrt_cid_to_string(cid, s);
    snprintf(size, sizeof size, "%zu", len);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    put(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    ipfsrt_server_put_html(&b, path, strlen(path));
    put(&b, "</title></head><body>\n<h1>");
    put(&b, codec);
    put(&b, " document</h1>\n<p>");
    ipfsrt_server_put_html(&b, path, strlen(path));
    put(&b, "</p>\n<p>CID <code>");
    put(&b, s);
    put(&b, "</code>, ");
    put(&b, size);
    put(&b, " bytes: <a href=\"/ipfs/");
    put(&b, s);
    put(&b, "?format=raw\">raw block</a>, <a href=\"/ipfs/");
    put(&b, s);
    put(&b, "?format=car\">CAR</a></p>\n<pre>");
    put_content(&b, cid, block, len);
    put(&b, "</pre>\n</body></html>\n");
    ipfsrt_buf_append(&b, "", 1); /* a C string too */
    if (b.failed) {
        ipfsrt_buf_free(&b);
        return NULL;
    }
    *out_len = b.len - 1;
    return (char *)b.data;
}
