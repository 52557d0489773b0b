/** @file
 * ipfsrt — strict DAG-CBOR decoding and canonical encoding. */
#ifndef IPFSRT_DAGCBOR_H
#define IPFSRT_DAGCBOR_H

#include "cid.h"
#include "buf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The kinds of DAG-CBOR item. */
typedef enum ipfsrt_dagcbor_type {
    IPFSRT_DAGCBOR_UINT,   /**< v.u */
    IPFSRT_DAGCBOR_NEGINT, /**< value = -1 - v.u */
    IPFSRT_DAGCBOR_BYTES,  /**< v.str */
    IPFSRT_DAGCBOR_TEXT,   /**< v.str, valid UTF-8 */
    IPFSRT_DAGCBOR_ARRAY,  /**< v.list: count items */
    IPFSRT_DAGCBOR_MAP,    /**< v.list: 2*count items, key then value, keys in canonical order */
    IPFSRT_DAGCBOR_CID,    /**< v.cid */
    IPFSRT_DAGCBOR_BOOL,   /**< v.b */
    IPFSRT_DAGCBOR_NULL,   /**< null */
    IPFSRT_DAGCBOR_FLOAT   /**< v.f, finite */
} ipfsrt_dagcbor_type;

/** One decoded item; type says which member of v holds its value. */
typedef struct ipfsrt_dagcbor_item {
    ipfsrt_dagcbor_type type; /**< what it is */
    /** Its value. */
    union {
        uint64_t u; /**< UINT; NEGINT's magnitude */
        bool b;     /**< BOOL */
        double f;   /**< FLOAT */
        /** BYTES, TEXT. */
        struct {
            const uint8_t *ptr; /**< borrowed from the decoded buffer */
            size_t len;         /**< its bytes */
        } str;
        /** ARRAY, MAP. */
        struct {
            struct ipfsrt_dagcbor_item *items; /**< the items (a map's: key, value, ...) */
            size_t count;                      /**< entries (a map's: pairs) */
        } list;
        const ipfsrt_cid *cid; /**< CID */
    } v;
} ipfsrt_dagcbor_item;

/** A decoded document; strings point into the input, which must outlive it. */
typedef struct ipfsrt_dagcbor_doc {
    ipfsrt_dagcbor_item *root; /**< the top item */
    ipfsrt_dagcbor_item *items_; /**< the library's: every item, freed by ipfsrt_dagcbor_doc_free */
    ipfsrt_cid *cids_;           /**< the library's: every CID */
} ipfsrt_dagcbor_doc;

/** How deeply items may nest in a decoded document. */
#define IPFSRT_DAGCBOR_MAX_DEPTH 128

/** Decodes strict DAG-CBOR: shortest-form integers and lengths, definite
 * lengths, only tag 42 (CIDs), 64-bit finite floats, text keys sorted
 * length-first without duplicates, valid UTF-8, exactly one item, at most
 * IPFSRT_DAGCBOR_MAX_DEPTH deep.
 * @param buf the bytes (untrusted: only len are read)
 * @param len how many
 * @param doc filled on success; empty (nothing to free) on failure
 * @param err filled on failure, with the byte offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_DAGCBOR (any rule broken, a CID that does not parse);
 * IPFSRT_ETRAILING_DATA (bytes after the item); IPFSRT_EOUT_OF_MEMORY
 * @owner doc's items are the caller's (ipfsrt_dagcbor_doc_free); strings borrow
 * buf, which must outlive doc */
IPFSRT_API ipfsrt_status ipfsrt_dagcbor_decode(const uint8_t *buf, size_t len, ipfsrt_dagcbor_doc *doc,
                                               ipfsrt_error *err);
/** Releases a decoded document's items and empties it.
 * @param doc the document, or NULL
 * @owner its items are freed; buf stays the caller's */
IPFSRT_API void ipfsrt_dagcbor_doc_free(ipfsrt_dagcbor_doc *doc);
/** The value for a text key in a map item.
 * @param map a map item (another type gives NULL)
 * @param key NUL-terminated
 * @return the value, or NULL when absent
 * @owner the document's */
IPFSRT_API const ipfsrt_dagcbor_item *ipfsrt_dagcbor_map_get(const ipfsrt_dagcbor_item *map, const char *key);


/** Appends an unsigned integer (shortest form).
 * @param b the buffer
 * @param v the value
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_uint(ipfsrt_buf *b, uint64_t v);
/** Appends the negative integer -1 - n (shortest form).
 * @param b the buffer
 * @param n the encoded magnitude
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_negint(ipfsrt_buf *b, uint64_t n);
/** Appends a byte string.
 * @param b the buffer
 * @param p n bytes
 * @param n how many
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_bytes(ipfsrt_buf *b, const uint8_t *p, size_t n);
/** Appends a text string (the caller gives valid UTF-8).
 * @param b the buffer
 * @param p n bytes
 * @param n how many
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_text(ipfsrt_buf *b, const char *p, size_t n);
/** Appends an array header; the count items follow.
 * @param b the buffer
 * @param count the items
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_array(ipfsrt_buf *b, size_t count);
/** Appends a map header; the count pairs follow, keys in canonical order (length first, then bytes).
 * @param b the buffer
 * @param count the pairs
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_map(ipfsrt_buf *b, size_t count);
/** Appends a CID (tag 42, a byte string with the 0x00 prefix).
 * @param b the buffer
 * @param cid the CID
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_cid(ipfsrt_buf *b, const ipfsrt_cid *cid);
/** Appends true or false.
 * @param b the buffer
 * @param v the value
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_bool(ipfsrt_buf *b, bool v);
/** Appends null.
 * @param b the buffer
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_null(ipfsrt_buf *b);
/** Appends a 64-bit float (DAG-CBOR allows no other width; the caller gives finite values).
 * @param b the buffer
 * @param v the value
 * @owner writes into b: a failed allocation sets b->failed (checked once at the end) */
IPFSRT_API void ipfsrt_dagcbor_put_float(ipfsrt_buf *b, double v);

#ifdef __cplusplus
}
#endif

#endif
