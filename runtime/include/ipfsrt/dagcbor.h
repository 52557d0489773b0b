/* ipfsrt — strict DAG-CBOR decoding and canonical encoding. */
#ifndef IPFSRT_DAGCBOR_H
#define IPFSRT_DAGCBOR_H

#include "cid.h"
#include "buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ipfsrt_cbor_type {
    IPFSRT_CBOR_UINT,   /* v.u */
    IPFSRT_CBOR_NEGINT, /* value = -1 - v.u */
    IPFSRT_CBOR_BYTES,  /* v.str */
    IPFSRT_CBOR_TEXT,   /* v.str, valid UTF-8 */
    IPFSRT_CBOR_ARRAY,  /* v.list: count items */
    IPFSRT_CBOR_MAP,    /* v.list: 2*count items, key then value, keys in canonical order */
    IPFSRT_CBOR_CID,    /* v.cid */
    IPFSRT_CBOR_BOOL,   /* v.b */
    IPFSRT_CBOR_NULL,
    IPFSRT_CBOR_FLOAT   /* v.f, finite */
} ipfsrt_cbor_type;

typedef struct ipfsrt_cbor_item {
    ipfsrt_cbor_type type;
    union {
        uint64_t u;
        bool b;
        double f;
        struct {
            const uint8_t *ptr; /* borrowed from the decoded buffer */
            size_t len;
        } str;
        struct {
            struct ipfsrt_cbor_item *items;
            size_t count;
        } list;
        const ipfsrt_cid *cid;
    } v;
} ipfsrt_cbor_item;

/* A decoded document; strings point into the input, which must outlive it. */
typedef struct ipfsrt_cbor_doc {
    ipfsrt_cbor_item *root;
    ipfsrt_cbor_item *items_;
    ipfsrt_cid *cids_;
} ipfsrt_cbor_doc;

#define IPFSRT_CBOR_MAX_DEPTH 128

/* Strict DAG-CBOR: shortest-form integers and lengths, definite lengths, only
 * tag 42 (CIDs), 64-bit finite floats, text keys sorted length-first without
 * duplicates, valid UTF-8, exactly one item. Errors carry the byte offset. */
ipfsrt_status ipfsrt_dagcbor_decode(const uint8_t *buf, size_t len, ipfsrt_cbor_doc *doc,
                                    ipfsrt_error *err);
void ipfsrt_dagcbor_doc_free(ipfsrt_cbor_doc *doc);
/* Value for a text key in a map item, or NULL. */
const ipfsrt_cbor_item *ipfsrt_cbor_map_get(const ipfsrt_cbor_item *map, const char *key);


/* Canonical encoder primitives; callers emit map keys in canonical order. */
void ipfsrt_cbor_put_uint(ipfsrt_buf *b, uint64_t v);
void ipfsrt_cbor_put_negint(ipfsrt_buf *b, uint64_t n); /* encodes -1 - n */
void ipfsrt_cbor_put_bytes(ipfsrt_buf *b, const uint8_t *p, size_t n);
void ipfsrt_cbor_put_text(ipfsrt_buf *b, const char *p, size_t n);
void ipfsrt_cbor_put_array(ipfsrt_buf *b, size_t count);
void ipfsrt_cbor_put_map(ipfsrt_buf *b, size_t count);
void ipfsrt_cbor_put_cid(ipfsrt_buf *b, const ipfsrt_cid *cid);
void ipfsrt_cbor_put_bool(ipfsrt_buf *b, bool v);
void ipfsrt_cbor_put_null(ipfsrt_buf *b);
void ipfsrt_cbor_put_float(ipfsrt_buf *b, double v);

#ifdef __cplusplus
}
#endif

#endif
