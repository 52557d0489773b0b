/* ipfsrt — strict DAG-CBOR decoding and canonical encoding. */
#ifndef IPFSRT_DAGCBOR_H
#define IPFSRT_DAGCBOR_H

#include "cid.h"
#include "buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ipfsrt_dagcbor_type {
    IPFSRT_DAGCBOR_UINT,   /* v.u */
    IPFSRT_DAGCBOR_NEGINT, /* value = -1 - v.u */
    IPFSRT_DAGCBOR_BYTES,  /* v.str */
    IPFSRT_DAGCBOR_TEXT,   /* v.str, valid UTF-8 */
    IPFSRT_DAGCBOR_ARRAY,  /* v.list: count items */
    IPFSRT_DAGCBOR_MAP,    /* v.list: 2*count items, key then value, keys in canonical order */
    IPFSRT_DAGCBOR_CID,    /* v.cid */
    IPFSRT_DAGCBOR_BOOL,   /* v.b */
    IPFSRT_DAGCBOR_NULL,
    IPFSRT_DAGCBOR_FLOAT   /* v.f, finite */
} ipfsrt_dagcbor_type;

typedef struct ipfsrt_dagcbor_item {
    ipfsrt_dagcbor_type type;
    union {
        uint64_t u;
        bool b;
        double f;
        struct {
            const uint8_t *ptr; /* borrowed from the decoded buffer */
            size_t len;
        } str;
        struct {
            struct ipfsrt_dagcbor_item *items;
            size_t count;
        } list;
        const ipfsrt_cid *cid;
    } v;
} ipfsrt_dagcbor_item;

/* A decoded document; strings point into the input, which must outlive it. */
typedef struct ipfsrt_dagcbor_doc {
    ipfsrt_dagcbor_item *root;
    ipfsrt_dagcbor_item *items_;
    ipfsrt_cid *cids_;
} ipfsrt_dagcbor_doc;

#define IPFSRT_DAGCBOR_MAX_DEPTH 128

/* Strict DAG-CBOR: shortest-form integers and lengths, definite lengths, only
 * tag 42 (CIDs), 64-bit finite floats, text keys sorted length-first without
 * duplicates, valid UTF-8, exactly one item. Errors carry the byte offset. */
IPFSRT_API ipfsrt_status ipfsrt_dagcbor_decode(const uint8_t *buf, size_t len, ipfsrt_dagcbor_doc *doc,
                                               ipfsrt_error *err);
IPFSRT_API void ipfsrt_dagcbor_doc_free(ipfsrt_dagcbor_doc *doc);
/* Value for a text key in a map item, or NULL. */
IPFSRT_API const ipfsrt_dagcbor_item *ipfsrt_dagcbor_map_get(const ipfsrt_dagcbor_item *map, const char *key);


/* Canonical encoder primitives; callers emit map keys in canonical order. */
IPFSRT_API void ipfsrt_dagcbor_put_uint(ipfsrt_buf *b, uint64_t v);
IPFSRT_API void ipfsrt_dagcbor_put_negint(ipfsrt_buf *b, uint64_t n); /* encodes -1 - n */
IPFSRT_API void ipfsrt_dagcbor_put_bytes(ipfsrt_buf *b, const uint8_t *p, size_t n);
IPFSRT_API void ipfsrt_dagcbor_put_text(ipfsrt_buf *b, const char *p, size_t n);
IPFSRT_API void ipfsrt_dagcbor_put_array(ipfsrt_buf *b, size_t count);
IPFSRT_API void ipfsrt_dagcbor_put_map(ipfsrt_buf *b, size_t count);
IPFSRT_API void ipfsrt_dagcbor_put_cid(ipfsrt_buf *b, const ipfsrt_cid *cid);
IPFSRT_API void ipfsrt_dagcbor_put_bool(ipfsrt_buf *b, bool v);
IPFSRT_API void ipfsrt_dagcbor_put_null(ipfsrt_buf *b);
IPFSRT_API void ipfsrt_dagcbor_put_float(ipfsrt_buf *b, double v);

#ifdef __cplusplus
}
#endif

#endif
