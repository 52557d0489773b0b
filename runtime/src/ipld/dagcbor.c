#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagcbor.h"
#include "base/base_internal.h"

enum { MAJOR_UINT, MAJOR_NEGINT, MAJOR_BYTES, MAJOR_TEXT, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TAG,
       MAJOR_SIMPLE };

#define CBOR_TAG_CID 42

/* The decoder walks the input twice: first to validate and count what it must
 * allocate, then to fill exactly-sized pools. Headers and nodes are small, and
 * this keeps hostile lengths from driving allocations. */
typedef struct parser {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    ipfsrt_error *err;
    bool build;
    size_t items_needed;
    size_t cids_needed;
    ipfsrt_dagcbor_item *items;
    size_t items_used;
    ipfsrt_cid *cids;
    size_t cids_used;
} parser;

static ipfsrt_status bad(parser *p, size_t at, const char *what) {
    return ipfsrt_fail(p->err, IPFSRT_EBAD_DAGCBOR, (int64_t)at, "DAG-CBOR: %s at byte offset %zu", what,
                       at);
}

static ipfsrt_status read_be(parser *p, size_t n, uint64_t *v) {
    if (p->len - p->pos < n)
        return ipfsrt_fail(p->err, IPFSRT_EBAD_DAGCBOR, (int64_t)p->len,
                           "DAG-CBOR: input ends inside an item at byte offset %zu", p->len);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x = (x << 8) | p->buf[p->pos + i];
    p->pos += n;
    *v = x;
    return IPFSRT_OK;
}

/* Reads an item head, enforcing shortest-form arguments and definite lengths. */
static ipfsrt_status read_head(parser *p, int *major, unsigned *info, uint64_t *arg) {
    size_t at = p->pos;
    if (p->pos >= p->len)
        return ipfsrt_fail(p->err, IPFSRT_EBAD_DAGCBOR, (int64_t)at,
                           "DAG-CBOR: input ends where an item was expected (offset %zu)", at);
    uint8_t ib = p->buf[p->pos++];
    *major = ib >> 5;
    *info = ib & 0x1f;
    if (*major == MAJOR_SIMPLE) {
        *arg = 0;
        return IPFSRT_OK; /* interpreted by the caller: floats are not "shortest form" */
    }
    ipfsrt_status st = IPFSRT_OK;
    switch (*info) {
    case 24: st = read_be(p, 1, arg); if (st == IPFSRT_OK && *arg < 24) return bad(p, at, "non-shortest integer or length"); break;
    case 25: st = read_be(p, 2, arg); if (st == IPFSRT_OK && *arg <= 0xff) return bad(p, at, "non-shortest integer or length"); break;
    case 26: st = read_be(p, 4, arg); if (st == IPFSRT_OK && *arg <= 0xffff) return bad(p, at, "non-shortest integer or length"); break;
    case 27: st = read_be(p, 8, arg); if (st == IPFSRT_OK && *arg <= 0xffffffffu) return bad(p, at, "non-shortest integer or length"); break;
    case 28: case 29: case 30: return bad(p, at, "reserved additional information");
    case 31: return bad(p, at, "indefinite length");
    default: *arg = *info;
    }
    return st;
}

static bool valid_utf8(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint32_t cp, min;
        if ((c & 0xe0) == 0xc0) { need = 1; cp = c & 0x1f; min = 0x80; }
        else if ((c & 0xf0) == 0xe0) { need = 2; cp = c & 0x0f; min = 0x800; }
        else if ((c & 0xf8) == 0xf0) { need = 3; cp = c & 0x07; min = 0x10000; }
        else return false;
        if (n - i <= need) return false;
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += need + 1;
    }
    return true;
}

/* Canonical DAG-CBOR key order: shorter keys first, then bytewise. */
static int key_cmp(const ipfsrt_dagcbor_item *a, const ipfsrt_dagcbor_item *b) {
    if (a->v.str.len != b->v.str.len) return a->v.str.len < b->v.str.len ? -1 : 1;
    return memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len);
}

static ipfsrt_status walk(parser *p, ipfsrt_dagcbor_item *out, int depth);

static ipfsrt_status walk_children(parser *p, ipfsrt_dagcbor_item *out, uint64_t count, bool is_map,
                                   size_t at, int depth) {
    uint64_t n = is_map ? count * 2 : count;
    /* Every item takes at least one byte, so counts are bounded by what is left. */
    if (count > p->len - p->pos || n > p->len - p->pos)
        return bad(p, at, is_map ? "map longer than its input" : "array longer than its input");
    out->v.list.count = (size_t)count;
    out->v.list.items = NULL;
    ipfsrt_dagcbor_item *children = NULL;
    if (p->build) {
        children = p->items + p->items_used;
        p->items_used += (size_t)n;
        out->v.list.items = children;
    } else {
        p->items_needed += (size_t)n;
    }
    ipfsrt_dagcbor_item prev_key = {0}, key_tmp, val_tmp;
    for (uint64_t i = 0; i < count; i++) {
        if (is_map) {
            ipfsrt_dagcbor_item *key = children ? &children[2 * i] : &key_tmp;
            size_t key_at = p->pos;
            ipfsrt_status st = walk(p, key, depth + 1);
            if (st != IPFSRT_OK) return st;
            if (key->type != IPFSRT_DAGCBOR_TEXT) return bad(p, key_at, "map key is not a text string");
            if (i > 0 && key_cmp(&prev_key, key) >= 0)
                return bad(p, key_at, "map keys out of canonical order or duplicated");
            prev_key = *key;
            st = walk(p, children ? &children[2 * i + 1] : &val_tmp, depth + 1);
            if (st != IPFSRT_OK) return st;
        } else {
            ipfsrt_status st = walk(p, children ? &children[i] : &val_tmp, depth + 1);
            if (st != IPFSRT_OK) return st;
        }
    }
    return IPFSRT_OK;
}

static ipfsrt_status walk_cid(parser *p, ipfsrt_dagcbor_item *out, size_t at, int depth) {
    ipfsrt_dagcbor_item inner;
    size_t inner_at = p->pos;
    ipfsrt_status st = walk(p, &inner, depth + 1);
    if (st != IPFSRT_OK) return st;
    if (inner.type != IPFSRT_DAGCBOR_BYTES) return bad(p, inner_at, "tag 42 must hold a byte string");
    if (inner.v.str.len == 0 || inner.v.str.ptr[0] != 0x00)
        return bad(p, inner_at, "CID link lacks its 0x00 multibase prefix");
    ipfsrt_cid tmp;
    ipfsrt_cid *cid = p->build ? &p->cids[p->cids_used++] : &tmp;
    if (!p->build) p->cids_needed++;
    size_t payload_at = (size_t)(inner.v.str.ptr + 1 - p->buf);
    st = ipfsrt_cid_from_bytes(cid, inner.v.str.ptr + 1, inner.v.str.len - 1, NULL, p->err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(p->err, (int64_t)payload_at);
        ipfsrt_error_prefix(p->err, "DAG-CBOR link at byte offset %zu: ", at);
        return st;
    }
    out->type = IPFSRT_DAGCBOR_CID;
    out->v.cid = cid;
    return IPFSRT_OK;
}

static ipfsrt_status walk(parser *p, ipfsrt_dagcbor_item *out, int depth) {
    size_t at = p->pos;
    if (depth > IPFSRT_DAGCBOR_MAX_DEPTH) return bad(p, at, "nesting too deep");
    int major = 0;
    unsigned info = 0;
    uint64_t arg = 0;
    ipfsrt_status st = read_head(p, &major, &info, &arg);
    if (st != IPFSRT_OK) return st;
    memset(out, 0, sizeof *out);
    switch (major) {
    case MAJOR_UINT: out->type = IPFSRT_DAGCBOR_UINT; out->v.u = arg; return IPFSRT_OK;
    case MAJOR_NEGINT: out->type = IPFSRT_DAGCBOR_NEGINT; out->v.u = arg; return IPFSRT_OK;
    case MAJOR_BYTES:
    case MAJOR_TEXT:
        if (arg > p->len - p->pos) return bad(p, at, "string longer than its input");
        out->type = major == MAJOR_BYTES ? IPFSRT_DAGCBOR_BYTES : IPFSRT_DAGCBOR_TEXT;
        out->v.str.ptr = p->buf + p->pos;
        out->v.str.len = (size_t)arg;
        p->pos += (size_t)arg;
        if (major == MAJOR_TEXT && !valid_utf8(out->v.str.ptr, out->v.str.len))
            return bad(p, at, "text string is not valid UTF-8");
        return IPFSRT_OK;
    case MAJOR_ARRAY:
        out->type = IPFSRT_DAGCBOR_ARRAY;
        return walk_children(p, out, arg, false, at, depth);
    case MAJOR_MAP:
        out->type = IPFSRT_DAGCBOR_MAP;
        return walk_children(p, out, arg, true, at, depth);
    case MAJOR_TAG:
        if (arg != CBOR_TAG_CID) return bad(p, at, "tag other than 42");
        return walk_cid(p, out, at, depth);
    default: break;
    }
    switch (info) {
    case 20: out->type = IPFSRT_DAGCBOR_BOOL; out->v.b = false; return IPFSRT_OK;
    case 21: out->type = IPFSRT_DAGCBOR_BOOL; out->v.b = true; return IPFSRT_OK;
    case 22: out->type = IPFSRT_DAGCBOR_NULL; return IPFSRT_OK;
    case 27: {
        uint64_t bits = 0;
        st = read_be(p, 8, &bits);
        if (st != IPFSRT_OK) return st;
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) return bad(p, at, "NaN or infinite float");
        out->type = IPFSRT_DAGCBOR_FLOAT;
        out->v.f = d;
        return IPFSRT_OK;
    }
    case 25: case 26: return bad(p, at, "float narrower than 64 bits");
    case 23: return bad(p, at, "undefined is not allowed");
    case 31: return bad(p, at, "unexpected break");
    default: return bad(p, at, "simple value not allowed");
    }
}

static ipfsrt_status run(parser *p, ipfsrt_dagcbor_item *root) {
    p->pos = 0;
    ipfsrt_status st = walk(p, root, 0);
    if (st != IPFSRT_OK) return st;
    if (p->pos != p->len)
        return ipfsrt_fail(p->err, IPFSRT_ETRAILING_DATA, (int64_t)p->pos,
                           "DAG-CBOR: %zu bytes after the item, from byte offset %zu",
                           p->len - p->pos, p->pos);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_dagcbor_decode(const uint8_t *buf, size_t len, ipfsrt_dagcbor_doc *doc,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(doc, err);
    memset(doc, 0, sizeof *doc);
    parser p = {.buf = buf, .len = len, .err = err};
    ipfsrt_dagcbor_item scratch;
    ipfsrt_status st = run(&p, &scratch);
    if (st != IPFSRT_OK) return st;
    doc->items_ = calloc(p.items_needed + 1, sizeof *doc->items_);
    doc->cids_ = p.cids_needed ? calloc(p.cids_needed, sizeof *doc->cids_) : NULL;
    if (!doc->items_ || (p.cids_needed && !doc->cids_)) {
        ipfsrt_dagcbor_doc_free(doc);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory decoding DAG-CBOR");
    }
    p.build = true;
    p.items = doc->items_ + 1;
    p.cids = doc->cids_;
    st = run(&p, doc->items_);
    if (st != IPFSRT_OK) { /* cannot differ from the first pass; kept for safety */
        ipfsrt_dagcbor_doc_free(doc);
        return st;
    }
    doc->root = doc->items_;
    return IPFSRT_OK;
}

void ipfsrt_dagcbor_doc_free(ipfsrt_dagcbor_doc *doc) {
    if (!doc) return;
    free(doc->items_);
    free(doc->cids_);
    memset(doc, 0, sizeof *doc);
}

const ipfsrt_dagcbor_item *ipfsrt_dagcbor_map_get(const ipfsrt_dagcbor_item *map, const char *key) {
    IPFSRT_NEED_OR(key, NULL);
    if (!map || map->type != IPFSRT_DAGCBOR_MAP) return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i < map->v.list.count; i++) {
        const ipfsrt_dagcbor_item *k = &map->v.list.items[2 * i];
        if (k->v.str.len == klen && memcmp(k->v.str.ptr, key, klen) == 0)
            return &map->v.list.items[2 * i + 1];
    }
    return NULL;
}

static void put_head(ipfsrt_buf *b, int major, uint64_t v) {
    uint8_t h[9];
    size_t n;
    uint8_t m = (uint8_t)(major << 5);
    if (v < 24) { h[0] = m | (uint8_t)v; n = 1; }
    else if (v <= 0xff) { h[0] = m | 24; h[1] = (uint8_t)v; n = 2; }
    else if (v <= 0xffff) { h[0] = m | 25; n = 3; }
    else if (v <= 0xffffffffu) { h[0] = m | 26; n = 5; }
    else { h[0] = m | 27; n = 9; }
    if (n > 2)
        for (size_t i = 1; i < n; i++) h[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    ipfsrt_buf_append(b, h, n);
}

void ipfsrt_dagcbor_put_uint(ipfsrt_buf *b, uint64_t v) {
    IPFSRT_NEED_OR(b, );
    put_head(b, MAJOR_UINT, v);
}
void ipfsrt_dagcbor_put_negint(ipfsrt_buf *b, uint64_t n) { put_head(b, MAJOR_NEGINT, n); }
void ipfsrt_dagcbor_put_bytes(ipfsrt_buf *b, const uint8_t *p, size_t n) {
    IPFSRT_NEED_OR(b, );
    put_head(b, MAJOR_BYTES, n);
    ipfsrt_buf_append(b, p, n);
}
void ipfsrt_dagcbor_put_text(ipfsrt_buf *b, const char *p, size_t n) {
    IPFSRT_NEED_OR(b, );
    put_head(b, MAJOR_TEXT, n);
    ipfsrt_buf_append(b, p, n);
}
void ipfsrt_dagcbor_put_array(ipfsrt_buf *b, size_t count) { put_head(b, MAJOR_ARRAY, count); }
void ipfsrt_dagcbor_put_map(ipfsrt_buf *b, size_t count) { put_head(b, MAJOR_MAP, count); }
void ipfsrt_dagcbor_put_cid(ipfsrt_buf *b, const ipfsrt_cid *cid) {
    IPFSRT_NEED_OR(b, );
    IPFSRT_NEED_OR(cid, );
    static const uint8_t identity_prefix = 0x00;
    put_head(b, MAJOR_TAG, CBOR_TAG_CID);
    put_head(b, MAJOR_BYTES, (uint64_t)cid->len + 1);
    ipfsrt_buf_append(b, &identity_prefix, 1);
    ipfsrt_buf_append(b, cid->bytes, cid->len);
}
void ipfsrt_dagcbor_put_bool(ipfsrt_buf *b, bool v) {
    IPFSRT_NEED_OR(b, );
    uint8_t c = v ? 0xf5 : 0xf4;
    ipfsrt_buf_append(b, &c, 1);
}
void ipfsrt_dagcbor_put_null(ipfsrt_buf *b) {
    IPFSRT_NEED_OR(b, );
    uint8_t c = 0xf6;
    ipfsrt_buf_append(b, &c, 1);
}
void ipfsrt_dagcbor_put_float(ipfsrt_buf *b, double v) {
    IPFSRT_NEED_OR(b, );
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t h[9] = {0xfb};
    for (int i = 0; i < 8; i++) h[1 + i] = (uint8_t)(bits >> (8 * (7 - i)));
    ipfsrt_buf_append(b, h, sizeof h);
}
