/* Paths and links inside DAG-CBOR and DAG-JSON documents: what a path gateway
 * follows through blocks that are not UnixFS. Only links are followed; a path
 * that ends at another value inside a block is refused (IPFSRT_EINSIDE_BLOCK),
 * as gateways answer 501 for it. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagcbor.h"
#include "ipfsrt/ipld.h"
#include "base/base_internal.h"
#include "base/json_internal.h"

bool ipfsrt_ipld_is_document(uint64_t codec) {
    return codec == IPFSRT_CODEC_DAG_CBOR || codec == IPFSRT_CODEC_DAG_JSON || codec == IPFSRT_CODEC_JSON ||
           codec == IPFSRT_CODEC_CBOR;
}

/* ------------------------------------------------------------- segments */

typedef struct segment {
    const char *ptr;
    size_t len;
} segment;

/* The next segment from *pos, empty ones skipped; false at the path's end. */
static bool next_segment(const char *path, size_t *pos, segment *seg) {
    while (path[*pos] == '/') (*pos)++;
    seg->ptr = path + *pos;
    seg->len = strcspn(seg->ptr, "/");
    *pos += seg->len;
    return seg->len > 0;
}

/* A list index: decimal digits without a leading zero (except "0" itself). */
static bool segment_index(const segment *seg, size_t *index) {
    if (seg->len > 9 || (seg->len > 1 && seg->ptr[0] == '0')) return false;
    size_t v = 0;
    for (size_t i = 0; i < seg->len; i++) {
        if (seg->ptr[i] < '0' || seg->ptr[i] > '9') return false;
        v = v * 10 + (size_t)(seg->ptr[i] - '0');
    }
    *index = v;
    return true;
}

static ipfsrt_status not_found(const ipfsrt_cid *cid, const segment *seg, ipfsrt_error *err) {
    return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "no '%.*s' in the document", (int)seg->len, seg->ptr);
}

static ipfsrt_status inside(const ipfsrt_cid *cid, const char *path, size_t end, ipfsrt_error *err) {
    return ipfsrt_fail_cid(err, IPFSRT_EINSIDE_BLOCK, cid, -1,
                           "'%.*s' is a value inside the block, not a link (only links are followed)",
                           (int)end, path);
}

/* ------------------------------------------------------------- DAG-CBOR */

static const ipfsrt_dagcbor_item *cbor_child(const ipfsrt_dagcbor_item *it, const segment *seg) {
    size_t index;
    if (it->type == IPFSRT_DAGCBOR_ARRAY)
        return segment_index(seg, &index) && index < it->v.list.count ? &it->v.list.items[index] : NULL;
    if (it->type != IPFSRT_DAGCBOR_MAP) return NULL;
    for (size_t i = 0; i < it->v.list.count; i++) {
        const ipfsrt_dagcbor_item *k = &it->v.list.items[2 * i];
        if (k->v.str.len == seg->len && memcmp(k->v.str.ptr, seg->ptr, seg->len) == 0)
            return &it->v.list.items[2 * i + 1];
    }
    return NULL;
}

static ipfsrt_status cbor_follow(const ipfsrt_cid *cid, const ipfsrt_dagcbor_item *it, const char *path,
                                 size_t *consumed, ipfsrt_cid *link, ipfsrt_error *err) {
    size_t pos = 0;
    segment seg;
    while (next_segment(path, &pos, &seg)) {
        if (!(it = cbor_child(it, &seg))) return not_found(cid, &seg, err);
        if (it->type == IPFSRT_DAGCBOR_CID) {
            *consumed = pos;
            *link = *it->v.cid;
            return IPFSRT_OK;
        }
    }
    return inside(cid, path, pos, err);
}

typedef struct link_list {
    ipfsrt_cid *cids;
    size_t count, cap;
} link_list;

static ipfsrt_status add_link(link_list *l, const ipfsrt_cid *cid, const ipfsrt_cid *block, ipfsrt_error *err) {
    if (l->count == IPFSRT_IPLD_MAX_LINKS)
        return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, block, -1, "more than %d links in one document",
                               IPFSRT_IPLD_MAX_LINKS);
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        ipfsrt_cid *grown = realloc(l->cids, cap * sizeof *grown);
        if (!grown) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        l->cids = grown;
        l->cap = cap;
    }
    l->cids[l->count++] = *cid;
    return IPFSRT_OK;
}

/* Depth is bounded by the decoder (IPFSRT_DAGCBOR_MAX_DEPTH). */
static ipfsrt_status cbor_links(const ipfsrt_dagcbor_item *it, link_list *l, const ipfsrt_cid *block,
                                ipfsrt_error *err) {
    if (it->type == IPFSRT_DAGCBOR_CID) return add_link(l, it->v.cid, block, err);
    if (it->type != IPFSRT_DAGCBOR_ARRAY && it->type != IPFSRT_DAGCBOR_MAP) return IPFSRT_OK;
    size_t items = it->type == IPFSRT_DAGCBOR_MAP ? 2 * it->v.list.count : it->v.list.count;
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; st == IPFSRT_OK && i < items; i++) st = cbor_links(&it->v.list.items[i], l, block, err);
    return st;
}

/* ------------------------------------------------------------- DAG-JSON */

static ipfsrt_status json_parse(const ipfsrt_cid *cid, const uint8_t *block, size_t len, cJSON **doc,
                                ipfsrt_error *err) {
    const char *end = NULL;
    *doc = ipfsrt_json_parse((const char *)block, len, &end);
    if (*doc) return IPFSRT_OK;
    int64_t at = end ? (int64_t)(end - (const char *)block) : -1;
    return ipfsrt_fail_cid(err, IPFSRT_EBAD_DAGCBOR, cid, at, "DAG-JSON: not JSON (near byte offset %lld)",
                           (long long)at);
}

/* {"/": ...}: DAG-JSON's form for links and bytes, not a map. */
static const cJSON *json_slash(const cJSON *it) {
    const cJSON *slash = cJSON_IsObject(it) ? it->child : NULL;
    return slash && !slash->next && strcmp(slash->string, "/") == 0 ? slash : NULL;
}

/* {"/": "CID"}: a link (1), or another value (0); -1 when "/" names no CID. */
static int json_link(const cJSON *it, const ipfsrt_cid *block, ipfsrt_cid *out, ipfsrt_error *err) {
    const cJSON *slash = json_slash(it);
    if (!slash || !cJSON_IsString(slash)) return 0;
    const char *s = slash->valuestring;
    if (ipfsrt_cid_parse(out, s, strlen(s), NULL, err) == IPFSRT_OK) return 1;
    ipfsrt_fail_cid(err, IPFSRT_EBAD_DAGCBOR, block, -1, "DAG-JSON: link '%.80s' is not a CID", s);
    return -1;
}

static const cJSON *json_child(const cJSON *it, const segment *seg) {
    size_t index;
    if (cJSON_IsArray(it))
        return segment_index(seg, &index) && index < (size_t)cJSON_GetArraySize(it)
                   ? cJSON_GetArrayItem(it, (int)index)
                   : NULL;
    if (!cJSON_IsObject(it)) return NULL;
    for (const cJSON *c = it->child; c; c = c->next)
        if (strlen(c->string) == seg->len && memcmp(c->string, seg->ptr, seg->len) == 0) return c;
    return NULL;
}

static ipfsrt_status json_follow(const ipfsrt_cid *cid, const cJSON *it, const char *path, size_t *consumed,
                                 ipfsrt_cid *link, ipfsrt_error *err) {
    size_t pos = 0;
    segment seg;
    while (next_segment(path, &pos, &seg)) {
        if (json_slash(it) || !(it = json_child(it, &seg))) /* bytes, {"/": {"bytes": ...}}, have no children */
            return not_found(cid, &seg, err);
        int is_link = json_link(it, cid, link, err);
        if (is_link < 0) return err ? err->code : IPFSRT_EBAD_DAGCBOR;
        if (is_link) {
            *consumed = pos;
            return IPFSRT_OK;
        }
    }
    return inside(cid, path, pos, err);
}

/* cJSON's parser bounds the depth (CJSON_NESTING_LIMIT). */
static ipfsrt_status json_links(const cJSON *it, link_list *l, const ipfsrt_cid *block, ipfsrt_error *err) {
    ipfsrt_cid link;
    int is_link = json_link(it, block, &link, err);
    if (is_link < 0) return err ? err->code : IPFSRT_EBAD_DAGCBOR;
    if (is_link) return add_link(l, &link, block, err);
    ipfsrt_status st = IPFSRT_OK;
    if (cJSON_IsArray(it) || cJSON_IsObject(it))
        for (const cJSON *c = it->child; st == IPFSRT_OK && c; c = c->next) st = json_links(c, l, block, err);
    return st;
}

/* ----------------------------------------------------------------- both */

static ipfsrt_status plain_or_unknown(const ipfsrt_cid *cid, ipfsrt_error *err) {
    const char *name = ipfsrt_codec_name(cid->codec);
    if (cid->codec == IPFSRT_CODEC_JSON || cid->codec == IPFSRT_CODEC_CBOR)
        return ipfsrt_fail_cid(err, IPFSRT_EINSIDE_BLOCK, cid, -1,
                               "%s blocks hold no links: paths inside them are not followed", name);
    return ipfsrt_fail_cid(err, IPFSRT_EUNSUPPORTED, cid, -1, "codec %s is not a DAG-CBOR or DAG-JSON document",
                           name ? name : "unknown");
}

ipfsrt_status ipfsrt_ipld_follow(const ipfsrt_cid *cid, const uint8_t *block, size_t len, const char *path,
                                 size_t *consumed, ipfsrt_cid *link, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(block || !len, err);
    IPFSRT_NEED(path && consumed && link, err);
    ipfsrt_status st;
    if (cid->codec == IPFSRT_CODEC_DAG_CBOR) {
        ipfsrt_dagcbor_doc doc;
        if ((st = ipfsrt_dagcbor_decode(block, len, &doc, err)) != IPFSRT_OK) return st;
        st = cbor_follow(cid, doc.root, path, consumed, link, err);
        ipfsrt_dagcbor_doc_free(&doc);
    } else if (cid->codec == IPFSRT_CODEC_DAG_JSON) {
        cJSON *doc;
        if ((st = json_parse(cid, block, len, &doc, err)) != IPFSRT_OK) return st;
        st = json_follow(cid, doc, path, consumed, link, err);
        cJSON_Delete(doc);
    } else {
        st = plain_or_unknown(cid, err);
    }
    return st;
}

ipfsrt_status ipfsrt_ipld_links(const ipfsrt_cid *cid, const uint8_t *block, size_t len, ipfsrt_cid **links,
                                size_t *count, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(block || !len, err);
    IPFSRT_NEED(links && count, err);
    link_list l = {0};
    ipfsrt_status st = IPFSRT_OK;
    if (cid->codec == IPFSRT_CODEC_DAG_CBOR) {
        ipfsrt_dagcbor_doc doc;
        if ((st = ipfsrt_dagcbor_decode(block, len, &doc, err)) != IPFSRT_OK) return st;
        st = cbor_links(doc.root, &l, cid, err);
        ipfsrt_dagcbor_doc_free(&doc);
    } else if (cid->codec == IPFSRT_CODEC_DAG_JSON) {
        cJSON *doc;
        if ((st = json_parse(cid, block, len, &doc, err)) != IPFSRT_OK) return st;
        st = json_links(doc, &l, cid, err);
        cJSON_Delete(doc);
    } else if (!ipfsrt_ipld_is_document(cid->codec)) {
        st = plain_or_unknown(cid, err);
    }
    if (st != IPFSRT_OK) free(l.cids);
    *links = st == IPFSRT_OK ? l.cids : NULL;
    *count = st == IPFSRT_OK ? l.count : 0;
    return st;
}
