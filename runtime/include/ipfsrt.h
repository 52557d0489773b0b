/*
 * ipfsrt — verified reading of content-addressed data.
 *
 * The C API is usable without Lua. Conventions, everywhere:
 *  - Functions that can fail return an ipfsrt_status (IPFSRT_OK == 0) and fill
 *    an optional ipfsrt_error (pass NULL to ignore the details).
 *  - Opaque objects come in init/free pairs: ipfsrt_X_init(&obj, ...) allocates,
 *    ipfsrt_X_free(obj) releases (NULL is accepted).
 *  - Byte pointers handed to callbacks or returned by getters borrow memory owned
 *    by the object they came from; copy them if they must outlive it.
 *  - Nothing is returned as verified unless its hash matched its CID.
 * Thread safety: distinct objects may be used from distinct threads. Selecting the
 * hash backend is global and should happen before threads start.
 */
#ifndef IPFSRT_H
#define IPFSRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IPFSRT_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ errors */

typedef enum ipfsrt_status {
    IPFSRT_OK = 0,
    IPFSRT_ENOMEM,           /* allocation failed */
    IPFSRT_EARG,             /* the caller passed something unusable */
    IPFSRT_EIO,              /* file system error */
    IPFSRT_EVARINT,          /* malformed, non-minimal or over-long varint */
    IPFSRT_EMULTIBASE,       /* bad multibase string */
    IPFSRT_EMULTIHASH,       /* malformed multihash */
    IPFSRT_EUNSUPPORTED,     /* recognised but not supported (hash, base, version) */
    IPFSRT_ECID,             /* malformed CID */
    IPFSRT_ECBOR,            /* invalid or non-canonical DAG-CBOR */
    IPFSRT_ECAR_HEADER,      /* CAR header unreadable or not of the required shape */
    IPFSRT_ECAR_VERSION,     /* CAR version other than 1 or 2 */
    IPFSRT_ETOO_LARGE,       /* a length over the configured maximum */
    IPFSRT_EHASH_MISMATCH,   /* block bytes do not hash to their CID */
    IPFSRT_ETRUNCATED,       /* input ended inside an item */
    IPFSRT_ETRAILING,        /* bytes after the end of a well-formed item */
    IPFSRT_ECAR_INDEX,       /* CARv2 index malformed */
    IPFSRT_ENOT_FOUND,       /* no such block */
    IPFSRT_ECANCELED,        /* a callback asked to stop */
    IPFSRT_EDAGPB,           /* invalid dag-pb node */
    IPFSRT_EUNIXFS,          /* invalid UnixFS data, or a DAG that contradicts itself */
    IPFSRT_ENOT_DIRECTORY,   /* a path goes through something that is not a directory */
    IPFSRT_ENOT_FILE,        /* file bytes asked of something that is not a file */
    IPFSRT_ESYMLINK,         /* a path meets a symlink that may not be followed */
    IPFSRT_ERANGE,           /* a byte range outside the file */
    IPFSRT_EFETCH,           /* no gateway delivered (the message says why, per gateway) */
    IPFSRT_STATUS_COUNT
} ipfsrt_status;

#define IPFSRT_CID_STR_MAX 336 /* longest CID string we produce, plus NUL */

typedef struct ipfsrt_error {
    ipfsrt_status code;
    int64_t offset;                /* byte offset in the input at fault, or -1 */
    char cid[IPFSRT_CID_STR_MAX];  /* CID at fault, or "" */
    char message[768];             /* human-readable, names the CID/offset too */
} ipfsrt_error;

/* Stable lower-case name of a status, e.g. "hash_mismatch". */
const char *ipfsrt_status_name(ipfsrt_status code);
void ipfsrt_error_clear(ipfsrt_error *err);

/* ------------------------------------------------------------------ varint */

#define IPFSRT_VARINT_MAX_BYTES 9
#define IPFSRT_VARINT_MAX_VALUE ((UINT64_C(1) << 63) - 1)

/* Decodes a minimal unsigned varint of at most 9 bytes. Returns
 * IPFSRT_ETRUNCATED when buf ends before the varint does, so streaming callers
 * can wait for more bytes. */
ipfsrt_status ipfsrt_varint_decode(const uint8_t *buf, size_t len, uint64_t *value, size_t *used,
                                   ipfsrt_error *err);
/* Returns the number of bytes written, 0 when value > IPFSRT_VARINT_MAX_VALUE. */
size_t ipfsrt_varint_encode(uint64_t value, uint8_t out[IPFSRT_VARINT_MAX_BYTES]);
size_t ipfsrt_varint_size(uint64_t value);

/* --------------------------------------------------------------- multibase */

typedef enum ipfsrt_base {
    IPFSRT_BASE16,
    IPFSRT_BASE16UPPER,
    IPFSRT_BASE32,
    IPFSRT_BASE32UPPER,
    IPFSRT_BASE32PAD,
    IPFSRT_BASE32PADUPPER,
    IPFSRT_BASE36,
    IPFSRT_BASE36UPPER,
    IPFSRT_BASE58BTC,
    IPFSRT_BASE64,
    IPFSRT_BASE64PAD,
    IPFSRT_BASE64URL,
    IPFSRT_BASE64URLPAD,
    IPFSRT_BASE_COUNT
} ipfsrt_base;

const char *ipfsrt_multibase_name(ipfsrt_base base);
char ipfsrt_multibase_prefix(ipfsrt_base base);
ipfsrt_status ipfsrt_multibase_from_name(const char *name, ipfsrt_base *base, ipfsrt_error *err);
/* Characters needed to encode n bytes, including the prefix and a NUL. */
size_t ipfsrt_multibase_encoded_size(ipfsrt_base base, size_t n);
/* Writes prefix + encoding + NUL into out. */
ipfsrt_status ipfsrt_multibase_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                      size_t out_size, size_t *out_len, ipfsrt_error *err);
/* Decodes a prefixed string; out needs at most slen bytes. base may be NULL. */
ipfsrt_status ipfsrt_multibase_decode(const char *s, size_t slen, uint8_t *out, size_t out_size,
                                      size_t *out_len, ipfsrt_base *base, ipfsrt_error *err);
/* The same without the prefix character. */
ipfsrt_status ipfsrt_base_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                 size_t out_size, size_t *out_len, ipfsrt_error *err);
ipfsrt_status ipfsrt_base_decode(ipfsrt_base base, const char *s, size_t slen, uint8_t *out,
                                 size_t out_size, size_t *out_len, ipfsrt_error *err);

/* ----------------------------------------------------------------- hashing */

typedef enum ipfsrt_hash_alg { IPFSRT_SHA2_256, IPFSRT_SHA2_512 } ipfsrt_hash_alg;

/* One small interface for every SHA-2 provider; "mbedtls" is always built in,
 * "openssl" (libcrypto, uses the CPU's SHA instructions) when available and
 * then the default. Every function returns 0 on success. The streaming calls
 * let a reader hash bytes as they arrive, while they are still in cache. */
typedef struct ipfsrt_hash_backend {
    const char *name;
    int (*digest)(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out);
    void *(*stream_new)(void);
    int (*stream_start)(void *stream, ipfsrt_hash_alg alg);
    int (*stream_update)(void *stream, const uint8_t *data, size_t len);
    int (*stream_finish)(void *stream, uint8_t *out);
    void (*stream_free)(void *stream);
} ipfsrt_hash_backend;

/* An incremental hash bound to the backend current when it was made. */
typedef struct ipfsrt_hash_ctx ipfsrt_hash_ctx;

ipfsrt_status ipfsrt_hash_ctx_init(ipfsrt_hash_ctx **ctx, ipfsrt_error *err);
/* (Re)starts a digest; a context can be reused for any number of digests. */
ipfsrt_status ipfsrt_hash_ctx_start(ipfsrt_hash_ctx *ctx, ipfsrt_hash_alg alg, ipfsrt_error *err);
ipfsrt_status ipfsrt_hash_ctx_update(ipfsrt_hash_ctx *ctx, const uint8_t *data, size_t len,
                                     ipfsrt_error *err);
ipfsrt_status ipfsrt_hash_ctx_finish(ipfsrt_hash_ctx *ctx, uint8_t *out, ipfsrt_error *err);
void ipfsrt_hash_ctx_free(ipfsrt_hash_ctx *ctx);

const ipfsrt_hash_backend *ipfsrt_hash_backend_current(void);
/* NULL when that backend was not built in. */
const ipfsrt_hash_backend *ipfsrt_hash_backend_find(const char *name);
/* NULL-terminated list of the built-in backends. */
const ipfsrt_hash_backend *const *ipfsrt_hash_backends(void);
ipfsrt_status ipfsrt_hash_backend_select(const char *name, ipfsrt_error *err);
size_t ipfsrt_hash_alg_size(ipfsrt_hash_alg alg);
ipfsrt_status ipfsrt_hash_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                 ipfsrt_error *err);

/* --------------------------------------------------------------- multihash */

#define IPFSRT_MH_IDENTITY 0x00
#define IPFSRT_MH_SHA2_256 0x12
#define IPFSRT_MH_SHA2_512 0x13
#define IPFSRT_MH_MAX_DIGEST 128 /* the ecosystem's bound (boxo verifcid) */
#define IPFSRT_MH_MIN_SECURE_DIGEST 20

typedef struct ipfsrt_multihash {
    uint64_t code;
    const uint8_t *digest; /* borrowed from the parsed buffer */
    size_t digest_len;
} ipfsrt_multihash;

/* Name of a known hash function code, or NULL. */
const char *ipfsrt_multihash_name(uint64_t code);
ipfsrt_status ipfsrt_multihash_code(const char *name, uint64_t *code, ipfsrt_error *err);
bool ipfsrt_multihash_supported(uint64_t code);
/* Native digest length of a known fixed-size function, 0 otherwise. */
size_t ipfsrt_multihash_native_size(uint64_t code);
/* Parses one multihash at the start of buf; used tells how many bytes it took. */
ipfsrt_status ipfsrt_multihash_parse(const uint8_t *buf, size_t len, ipfsrt_multihash *mh,
                                     size_t *used, ipfsrt_error *err);
/* Hashes data into a full multihash. digest_len 0 = native length; a shorter
 * one truncates. out needs at most 2 * IPFSRT_VARINT_MAX_BYTES + 128 bytes. */
ipfsrt_status ipfsrt_multihash_sum(uint64_t code, const uint8_t *data, size_t len,
                                   size_t digest_len, uint8_t *out, size_t out_size,
                                   size_t *out_len, ipfsrt_error *err);

/* --------------------------------------------------------------------- CID */

#define IPFSRT_CODEC_RAW 0x55
#define IPFSRT_CODEC_DAG_PB 0x70
#define IPFSRT_CODEC_DAG_CBOR 0x71
#define IPFSRT_CODEC_LIBP2P_KEY 0x72
#define IPFSRT_CODEC_DAG_JSON 0x0129
#define IPFSRT_CODEC_JSON 0x0200
#define IPFSRT_CODEC_CAR 0x0202
#define IPFSRT_CID_MAX_BYTES 160

/* A CID is a small value type: copy it freely. */
typedef struct ipfsrt_cid {
    uint8_t version;         /* 0 or 1 */
    uint16_t len;            /* bytes used in bytes[] */
    uint16_t mh_offset;      /* where the multihash starts in bytes[] */
    uint16_t digest_offset;  /* where the digest starts in bytes[] */
    uint16_t digest_len;
    uint64_t codec;
    uint64_t hash_code;
    uint8_t bytes[IPFSRT_CID_MAX_BYTES]; /* binary form (CIDv0: the bare multihash) */
} ipfsrt_cid;

/* Name of a known codec, or NULL. */
const char *ipfsrt_codec_name(uint64_t code);
ipfsrt_status ipfsrt_codec_code(const char *name, uint64_t *code, ipfsrt_error *err);

/* Parses a binary CID. With used == NULL the whole buffer must be the CID;
 * otherwise it is read from the start of buf and *used says how long it was. */
ipfsrt_status ipfsrt_cid_from_bytes(ipfsrt_cid *cid, const uint8_t *buf, size_t len, size_t *used,
                                    ipfsrt_error *err);
/* Parses a CID string (bare base58 CIDv0 or multibase CIDv1). base may be NULL. */
ipfsrt_status ipfsrt_cid_parse(ipfsrt_cid *cid, const char *s, size_t slen, ipfsrt_base *base,
                               ipfsrt_error *err);
ipfsrt_status ipfsrt_cid_create(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                const uint8_t *digest, size_t digest_len, ipfsrt_error *err);
/* Hashes data and builds its CID (full-length digest). */
ipfsrt_status ipfsrt_cid_sum(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                             const uint8_t *data, size_t len, ipfsrt_error *err);
/* CIDv0 formats only as bare base58btc; CIDv1 takes any base. */
ipfsrt_status ipfsrt_cid_format(const ipfsrt_cid *cid, ipfsrt_base base, char *out,
                                size_t out_size, ipfsrt_error *err);
/* Default form: base58btc for v0, base32 for v1. Never fails. */
const char *ipfsrt_cid_to_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]);
void ipfsrt_cid_to_v1(const ipfsrt_cid *cid, ipfsrt_cid *out);
ipfsrt_status ipfsrt_cid_to_v0(const ipfsrt_cid *cid, ipfsrt_cid *out, ipfsrt_error *err);
bool ipfsrt_cid_equal(const ipfsrt_cid *a, const ipfsrt_cid *b);
/* The multihash part of the binary form. */
const uint8_t *ipfsrt_cid_multihash(const ipfsrt_cid *cid, size_t *len);
/* Checks that data is the block this CID names: hash and compare, or for an
 * identity CID compare the bytes. Digests shorter than 20 bytes are refused. */
ipfsrt_status ipfsrt_cid_verify(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err);

/* ---------------------------------------------------------------- DAG-CBOR */

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

/* A growable output buffer for the encoder. */
typedef struct ipfsrt_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed; /* an allocation failed; later writes are ignored */
} ipfsrt_buf;

void ipfsrt_buf_init(ipfsrt_buf *b);
void ipfsrt_buf_free(ipfsrt_buf *b);
void ipfsrt_buf_append(ipfsrt_buf *b, const void *data, size_t n);

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

/* --------------------------------------------------------------------- CAR */

#define IPFSRT_CAR_DEFAULT_MAX_BLOCK (2u << 20)
#define IPFSRT_CAR_DEFAULT_MAX_HEADER (8u << 20)
#define IPFSRT_CARV2_HEADER_SIZE 51

typedef struct ipfsrt_car_header {
    int version;          /* 1, or 2 for a CARv2 wrapper */
    size_t root_count;
    ipfsrt_cid *roots;    /* of the (inner) CARv1 header */
    /* CARv2 only: */
    uint8_t characteristics[16];
    uint64_t data_offset;
    uint64_t data_size;
    uint64_t index_offset; /* 0 = none */
} ipfsrt_car_header;

typedef struct ipfsrt_car_options {
    size_t max_block_size;  /* 0 = IPFSRT_CAR_DEFAULT_MAX_BLOCK */
    size_t max_header_size; /* 0 = IPFSRT_CAR_DEFAULT_MAX_HEADER */
    /* Push reader only: the caller wants verification, not the bytes. Blocks
     * hashed as they stream past are then neither buffered nor copied, and
     * reach on_block with data == NULL (len still says how long they were). */
    bool verify_only;
} ipfsrt_car_options;

/* A verified block: data hashed to cid. offset is the position in the input of
 * the section's length varint. Valid only during the callback / until the next call. */
typedef struct ipfsrt_car_block {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
    uint64_t offset;
} ipfsrt_car_block;

/* Return 0 to go on, anything else to stop the reader with IPFSRT_ECANCELED. */
typedef int (*ipfsrt_car_block_fn)(void *user, const ipfsrt_car_block *block);

/* Streaming push reader: feed byte slices of any size as they arrive. Each
 * block is handed to on_block only after its hash matched its CID; at most one
 * section is buffered. CARv2 input is unwrapped (the index is skipped). After
 * an error every further call returns the same error. */
typedef struct ipfsrt_car_reader ipfsrt_car_reader;

ipfsrt_status ipfsrt_car_reader_init(ipfsrt_car_reader **reader, const ipfsrt_car_options *opts,
                                     ipfsrt_car_block_fn on_block, void *user, ipfsrt_error *err);
ipfsrt_status ipfsrt_car_reader_feed(ipfsrt_car_reader *reader, const uint8_t *data, size_t len,
                                     ipfsrt_error *err);
/* Call at end of input: fails if it ended inside the header or a section. */
ipfsrt_status ipfsrt_car_reader_finish(ipfsrt_car_reader *reader, ipfsrt_error *err);
/* NULL until the header has been read. */
const ipfsrt_car_header *ipfsrt_car_reader_header(const ipfsrt_car_reader *reader);
uint64_t ipfsrt_car_reader_offset(const ipfsrt_car_reader *reader);
void ipfsrt_car_reader_free(ipfsrt_car_reader *reader);

/* Streams a whole file through a push reader in slices of slice_size bytes
 * (0 = 64 KiB); on_block may be NULL. Counts verified blocks and their bytes.
 * Set opts->verify_only when the blocks' bytes are not needed. */
ipfsrt_status ipfsrt_car_verify_file(const char *path, const ipfsrt_car_options *opts,
                                     size_t slice_size, ipfsrt_car_block_fn on_block, void *user,
                                     uint64_t *blocks, uint64_t *bytes, ipfsrt_error *err);

/* The same for a CAR held in memory, fed in slices of slice_size bytes. */
ipfsrt_status ipfsrt_car_verify_buffer(const uint8_t *data, size_t len,
                                       const ipfsrt_car_options *opts, size_t slice_size,
                                       ipfsrt_car_block_fn on_block, void *user, uint64_t *blocks,
                                       uint64_t *bytes, ipfsrt_error *err);

/* File reader with random access by CID. The file is mapped; the CARv2 index
 * is used when present and well-formed (as a hint: what it points at is still
 * checked), otherwise an index is built by scanning on open. */
typedef struct ipfsrt_car_file ipfsrt_car_file;

ipfsrt_status ipfsrt_car_file_open(ipfsrt_car_file **file, const char *path,
                                   const ipfsrt_car_options *opts, ipfsrt_error *err);
const ipfsrt_car_header *ipfsrt_car_file_header(const ipfsrt_car_file *file);
/* "carv2-index" or "scan". */
const char *ipfsrt_car_file_index_source(const ipfsrt_car_file *file);
/* Verified block bytes for a CID (looked up by multihash); IPFSRT_ENOT_FOUND if absent. */
ipfsrt_status ipfsrt_car_file_get(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                  const uint8_t **data, size_t *len, ipfsrt_error *err);
bool ipfsrt_car_file_has(ipfsrt_car_file *file, const ipfsrt_cid *cid);
/* The bytes stored for a CID without hashing them: only for callers that have
 * verified the whole file (ipfsrt_car_verify_file) since opening it. */
ipfsrt_status ipfsrt_car_file_locate(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                     const uint8_t **data, size_t *len, ipfsrt_error *err);
/* Sequential, verified iteration. Start with *cursor = 0; *done is set at the end. */
ipfsrt_status ipfsrt_car_file_next(ipfsrt_car_file *file, uint64_t *cursor, ipfsrt_car_block *block,
                                   bool *done, ipfsrt_error *err);
void ipfsrt_car_file_free(ipfsrt_car_file *file);

/* Writer: CARv1, or CARv2 (a CARv1 payload plus a MultihashIndexSorted index).
 * put() checks each block against its CID and skips blocks already written. */
typedef struct ipfsrt_car_writer ipfsrt_car_writer;

ipfsrt_status ipfsrt_car_writer_init(ipfsrt_car_writer **writer, const char *path, int version,
                                     const ipfsrt_cid *roots, size_t root_count,
                                     ipfsrt_error *err);
ipfsrt_status ipfsrt_car_writer_put(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                    const uint8_t *data, size_t len, ipfsrt_error *err);
/* For producers that just derived cid from these very bytes (the importer):
 * skips the second hash. Readers verify every block anyway. */
ipfsrt_status ipfsrt_car_writer_put_made(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                         const uint8_t *data, size_t len, ipfsrt_error *err);
/* Replaces the roots written at init by roots whose header encodes to the same
 * length (for a placeholder root written before the real one was known). */
ipfsrt_status ipfsrt_car_writer_set_roots(ipfsrt_car_writer *writer, const ipfsrt_cid *roots,
                                          size_t root_count, ipfsrt_error *err);
/* Completes the file. Until it succeeds the output is incomplete. */
ipfsrt_status ipfsrt_car_writer_finish(ipfsrt_car_writer *writer, ipfsrt_error *err);
/* Releases the writer; an unfinished file is removed. */
void ipfsrt_car_writer_free(ipfsrt_car_writer *writer);

/* Encodes a CARv1 header {roots, version: 1}. */
ipfsrt_status ipfsrt_car_header_encode(const ipfsrt_cid *roots, size_t root_count, ipfsrt_buf *out,
                                       ipfsrt_error *err);

/* ------------------------------------------------------------------ dag-pb */

typedef struct ipfsrt_pb_link {
    ipfsrt_cid cid;
    const uint8_t *name; /* borrowed from the decoded block; NULL when absent */
    size_t name_len;
    bool has_tsize;
    uint64_t tsize;
} ipfsrt_pb_link;

typedef struct ipfsrt_pb_node {
    const uint8_t *data; /* borrowed; NULL when absent */
    size_t data_len;
    ipfsrt_pb_link *links; /* owned: release with ipfsrt_dagpb_node_free */
    size_t link_count;
} ipfsrt_pb_node;

/* Strict dag-pb: PBLink fields in order 1,2,3 and each at most once, a Hash that
 * is a valid CID, Data at most once (before or after the links, not among
 * them), no unknown fields or wire types, nothing trailing. */
ipfsrt_status ipfsrt_dagpb_decode(const uint8_t *buf, size_t len, ipfsrt_pb_node *node,
                                  ipfsrt_error *err);
void ipfsrt_dagpb_node_free(ipfsrt_pb_node *node);
/* Canonical encoding: links in the order given (callers sort directory entries),
 * then Data. A link with name == NULL has no Name field; "" writes an empty one. */
ipfsrt_status ipfsrt_dagpb_encode(const ipfsrt_pb_node *node, ipfsrt_buf *out, ipfsrt_error *err);

/* ------------------------------------------------------------------ UnixFS */

typedef enum ipfsrt_unixfs_type {
    IPFSRT_UNIXFS_RAW = 0,
    IPFSRT_UNIXFS_DIRECTORY = 1,
    IPFSRT_UNIXFS_FILE = 2,
    IPFSRT_UNIXFS_METADATA = 3,
    IPFSRT_UNIXFS_SYMLINK = 4,
    IPFSRT_UNIXFS_HAMT_SHARD = 5,
} ipfsrt_unixfs_type;

/* The UnixFS Data message carried in PBNode.Data. */
typedef struct ipfsrt_unixfs_data {
    ipfsrt_unixfs_type type;
    const uint8_t *data; /* borrowed; NULL when absent */
    size_t data_len;
    bool has_filesize;
    uint64_t filesize;
    uint64_t *blocksizes; /* owned: release with ipfsrt_unixfs_data_free */
    size_t blocksize_count;
    bool has_hash_type;
    uint64_t hash_type;
    bool has_fanout;
    uint64_t fanout;
    bool has_mode;
    uint32_t mode;
    bool has_mtime;
    int64_t mtime_seconds;
    bool has_mtime_nanos;
    uint32_t mtime_nanos;
} ipfsrt_unixfs_data;

const char *ipfsrt_unixfs_type_name(ipfsrt_unixfs_type type);
ipfsrt_status ipfsrt_unixfs_data_decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *data,
                                        ipfsrt_error *err);
void ipfsrt_unixfs_data_free(ipfsrt_unixfs_data *data);
/* Fields in field-number order; blocksizes unpacked, as Go and JS write them. */
ipfsrt_status ipfsrt_unixfs_data_encode(const ipfsrt_unixfs_data *data, ipfsrt_buf *out,
                                        ipfsrt_error *err);

/* ----------------------------------------------------------- block sources */

/* Verified block bytes lent by a source until released. */
typedef struct ipfsrt_block_ref {
    const uint8_t *data;
    size_t len;
    void *token; /* the source's own bookkeeping */
} ipfsrt_block_ref;

/* "Give me the verified block for this CID." Every implementation must hash-check
 * what it lends (or have checked it when it was stored); IPFSRT_ENOT_FOUND when it
 * does not have the block. */
typedef struct ipfsrt_blocksource {
    void *ctx;
    ipfsrt_status (*get)(void *ctx, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                         ipfsrt_error *err);
    void (*release)(void *ctx, ipfsrt_block_ref *ref); /* may be NULL */
} ipfsrt_blocksource;

/* Answers identity CIDs itself, then asks the source. */
ipfsrt_status ipfsrt_blocksource_get(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                     ipfsrt_block_ref *ref, ipfsrt_error *err);
void ipfsrt_blocksource_release(const ipfsrt_blocksource *src, ipfsrt_block_ref *ref);
/* A source over an open CAR file (which must outlive it). */
void ipfsrt_blocksource_car(ipfsrt_blocksource *src, ipfsrt_car_file *car);

/* An in-memory block map; put() verifies and copies. */
typedef struct ipfsrt_memstore ipfsrt_memstore;
ipfsrt_status ipfsrt_memstore_init(ipfsrt_memstore **store, ipfsrt_error *err);
ipfsrt_status ipfsrt_memstore_put(ipfsrt_memstore *store, const ipfsrt_cid *cid,
                                  const uint8_t *data, size_t len, ipfsrt_error *err);
size_t ipfsrt_memstore_count(const ipfsrt_memstore *store);
void ipfsrt_blocksource_memstore(ipfsrt_blocksource *src, ipfsrt_memstore *store);
void ipfsrt_memstore_free(ipfsrt_memstore *store);

/* ------------------------------------------------------- UnixFS reading */

#define IPFSRT_UNIXFS_MAX_DEPTH 128  /* file DAG levels */
#define IPFSRT_UNIXFS_MAX_SYMLINKS 32

#define IPFSRT_UNIXFS_MAX_DUP_BLOCKS 1000000 /* blocks a listing with dups may repeat */

typedef struct ipfsrt_unixfs_options {
    bool follow_symlinks; /* resolve through symlinks inside the DAG */
    bool dups;            /* block lists: a block each time the walk meets it, not once */
} ipfsrt_unixfs_options;

/* What a path names. type is FILE for raw-codec blocks too. */
typedef struct ipfsrt_unixfs_node_info {
    ipfsrt_cid cid;
    ipfsrt_unixfs_type type;
    uint64_t size;      /* file bytes; symlink target length; directories: 0 */
    bool has_mode;
    uint32_t mode;
    bool has_mtime;
    int64_t mtime_seconds;
    uint32_t mtime_nanos;
} ipfsrt_unixfs_node_info;

/* Accepts CID[/path], /ipfs/CID[/path] and ipfs://CID[/path]. */
ipfsrt_status ipfsrt_unixfs_resolve(const ipfsrt_blocksource *src, const char *path,
                                    const ipfsrt_unixfs_options *opts,
                                    ipfsrt_unixfs_node_info *info, ipfsrt_error *err);

/* File bytes [offset, offset + length) in order; length UINT64_MAX = to the end.
 * Fetches only the blocks the range needs and checks that sizes add up. */
typedef ipfsrt_status (*ipfsrt_write_fn)(void *user, const uint8_t *data, size_t len,
                                         ipfsrt_error *err);
ipfsrt_status ipfsrt_unixfs_read(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                 uint64_t offset, uint64_t length, ipfsrt_write_fn write,
                                 void *user, ipfsrt_error *err);

typedef struct ipfsrt_unixfs_entry {
    const char *name;   /* NUL-terminated copy, valid during the callback */
    size_t name_len;
    ipfsrt_cid cid;
    uint64_t tsize;     /* the link's cumulative size hint */
    bool has_type;      /* known for raw CIDs, or when types were asked for */
    ipfsrt_unixfs_type type;
    uint64_t size;      /* with has_type: as in ipfsrt_unixfs_node_info */
} ipfsrt_unixfs_entry;

typedef ipfsrt_status (*ipfsrt_entry_fn)(void *user, const ipfsrt_unixfs_entry *entry,
                                         ipfsrt_error *err);
/* Lists a directory, plain or HAMT-sharded, in link order. With fetch_types each
 * child block is fetched to report its type and size. */
ipfsrt_status ipfsrt_unixfs_ls(const ipfsrt_blocksource *src, const ipfsrt_cid *dir,
                               bool fetch_types, ipfsrt_entry_fn fn, void *user,
                               ipfsrt_error *err);

/* Every block a trustless client needs to resolve path and read [offset,
 * offset+length) of the file there (or list the directory there), each once, in
 * the order they are first needed. */
typedef ipfsrt_status (*ipfsrt_cid_fn)(void *user, const ipfsrt_cid *cid, ipfsrt_error *err);
ipfsrt_status ipfsrt_unixfs_blocks_for(const ipfsrt_blocksource *src, const char *path,
                                       const ipfsrt_unixfs_options *opts, uint64_t offset,
                                       uint64_t length, ipfsrt_cid_fn fn, void *user,
                                       ipfsrt_error *err);

/* A symlink's target as a NUL-terminated string (free() it). */
ipfsrt_status ipfsrt_unixfs_readlink(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                     char **target, ipfsrt_error *err);

typedef enum ipfsrt_dag_scope {
    IPFSRT_SCOPE_BLOCK,  /* the blocks of the path, ending with the terminal block */
    IPFSRT_SCOPE_ENTITY, /* ... and the whole file (or the byte range), or the directory's shards */
    IPFSRT_SCOPE_ALL,    /* ... and the whole DAG under the terminal */
} ipfsrt_dag_scope;

/* ipfsrt_unixfs_blocks_for with the trustless gateway's dag-scope; the range
 * only applies to ENTITY on a file. */
ipfsrt_status ipfsrt_unixfs_blocks_for_scope(const ipfsrt_blocksource *src, const char *path,
                                             const ipfsrt_unixfs_options *opts,
                                             ipfsrt_dag_scope scope, uint64_t offset,
                                             uint64_t length, ipfsrt_cid_fn fn, void *user,
                                             ipfsrt_error *err);

/* Counts the distinct blocks of the DAG under cid (raw leaves are counted from
 * their links, without being fetched). */
ipfsrt_status ipfsrt_unixfs_count_blocks(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                         uint64_t *blocks, ipfsrt_error *err);

/* Writes the file, directory tree or symlink at cid to dest, which must not exist.
 * Everything goes to a temporary sibling first and is renamed into place only when
 * complete and verified; on failure nothing is left behind. */
ipfsrt_status ipfsrt_unixfs_export(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                   const char *dest, ipfsrt_error *err);

/* ---------------------------------------------------------- UnixFS import */

typedef enum ipfsrt_hamt_rule {
    IPFSRT_HAMT_NEVER,
    IPFSRT_HAMT_ENTRIES,     /* shard when a directory has more entries than the threshold */
    IPFSRT_HAMT_LINK_BYTES,  /* ... when the sum of name and CID bytes exceeds it (Kubo) */
    IPFSRT_HAMT_BLOCK_BYTES, /* ... when the plain directory block would exceed it */
} ipfsrt_hamt_rule;

typedef struct ipfsrt_pack_options {
    int cid_version;        /* 0 or 1 (raw leaves are always CIDv1) */
    size_t chunk_size;      /* fixed-size chunker */
    size_t max_links;       /* per node of the balanced file DAG */
    bool raw_leaves;
    ipfsrt_hamt_rule hamt_rule;
    uint64_t hamt_threshold;
    unsigned hamt_fanout;   /* power of two, 2..1024 */
    bool wrap;              /* put the input in a directory under its own name */
    bool hidden;            /* include names starting with '.' */
    bool follow_layout_of_ipfs_car; /* root at the deepest directory holding every
                                       file; skip symlinks and file-less directories */
} ipfsrt_pack_options;

/* "ipfs-car" (3.x), "kubo" (ipfs add defaults) or "kubo-v1-2025". */
ipfsrt_status ipfsrt_pack_preset(const char *name, ipfsrt_pack_options *opts, ipfsrt_error *err);

/* Receives each block as it is made (children before parents). */
typedef ipfsrt_status (*ipfsrt_block_sink)(void *user, const ipfsrt_cid *cid, const uint8_t *data,
                                           size_t len, ipfsrt_error *err);

/* Imports a file, directory tree or symlink. Memory stays bounded by the widest
 * directory and the DAG's depth, not by the size of the input. */
ipfsrt_status ipfsrt_pack(const char *path, const ipfsrt_pack_options *opts,
                          ipfsrt_block_sink sink, void *user, ipfsrt_cid *root,
                          ipfsrt_error *err);

/* ipfsrt_pack into a new CAR file (version 1 or 2) whose root is the DAG's root.
 * On failure the file is removed. */
ipfsrt_status ipfsrt_pack_to_car(const char *path, const ipfsrt_pack_options *opts,
                                 const char *car_path, int car_version, ipfsrt_cid *root,
                                 ipfsrt_error *err);

/* ----------------------------------------------------------------- gateway */

/* A trustless gateway (raw blocks and CAR responses) over local CAR files, on
 * libmicrohttpd's thread pool. Every CAR is verified whole when it is opened;
 * blocks are served from the mapped files. */
typedef struct ipfsrt_gateway ipfsrt_gateway;

/* Faults a gateway injects, for tests and demos: probabilities per request in
 * [0, 1], drawn from a generator seeded with seed and the request's number, so a
 * sequence of requests sees the same faults run after run. */
typedef struct ipfsrt_gateway_faults {
    double tamper;       /* flip one byte inside a block's payload */
    double fail;         /* answer 500, 502, 503 or 429, with Retry-After */
    double truncate;     /* cut the body in the middle (inside a block) */
    double reset;        /* drop the connection without an answer */
    double wrong_block;  /* send a valid block of another CID in place of the one asked */
    double wrong_dag;    /* answer a CAR request with the valid CAR of another DAG (the root
                            of another CAR served), under the requested root's header */
    unsigned delay_ms;   /* before answering, plus up to delay_jitter_ms more */
    unsigned delay_jitter_ms;
    uint64_t slow_bytes_per_s; /* pace bodies; 0 = as fast as possible */
    uint64_t seed;
} ipfsrt_gateway_faults;

typedef struct ipfsrt_gateway_options {
    const char *listen; /* "HOST:PORT", PORT 0 picks a free one; NULL = 127.0.0.1:0 */
    unsigned threads;   /* 0 = 4 */
    ipfsrt_gateway_faults faults;
    const char *log_path; /* one line per request: time, method, path, query, status,
                             bytes, faults applied; NULL = no log */
} ipfsrt_gateway_options;

typedef struct ipfsrt_gateway_stats {
    uint64_t requests;
    uint64_t bytes; /* response body bytes sent */
    uint64_t status_2xx, status_4xx, status_5xx;
    uint64_t faults; /* requests that had a fault injected */
} ipfsrt_gateway_stats;

ipfsrt_status ipfsrt_gateway_init(ipfsrt_gateway **gw, const char *const *car_paths, size_t n,
                                  const ipfsrt_gateway_options *opts, ipfsrt_error *err);
/* "http://HOST:PORT" */
const char *ipfsrt_gateway_url(const ipfsrt_gateway *gw);
void ipfsrt_gateway_get_stats(const ipfsrt_gateway *gw, ipfsrt_gateway_stats *stats);
/* Stops serving (waits for requests under way) and releases everything. */
void ipfsrt_gateway_free(ipfsrt_gateway *gw);

/* ------------------------------------------------------------------ client */

/* Reads through untrusted HTTP gateways (the trustless gateway protocol): every
 * block is hash-checked against its CID, and a path's blocks must form the path
 * from the root CID down (walked with the UnixFS resolver), so a gateway that
 * answers with valid blocks of something else fails. The calling thread drives
 * many transfers at once (libcurl multi) and worker threads hash what arrives;
 * functions block until their result is complete. A client is used from one
 * thread at a time, and its callbacks (policy, progress, write, entry, block)
 * must not call its fetching functions. */

#define IPFSRT_MAX_GATEWAYS 64

/* Gateway base URLs and where they came from. */
typedef struct ipfsrt_gateway_list {
    char *urls[IPFSRT_MAX_GATEWAYS];
    size_t count;
    char source[4200]; /* "IPFS_GATEWAY", a file's path, "the built-in list ..." */
} ipfsrt_gateway_list;

/* Appends a URL (trailing slashes dropped; http and https only). */
ipfsrt_status ipfsrt_gateway_list_add(ipfsrt_gateway_list *list, const char *url, ipfsrt_error *err);
/* The IPFS_GATEWAY variable (URLs separated by commas or spaces), else the first
 * line of the first IPIP-280 file found ($IPFS_PATH/gateway, ~/.ipfs/gateway,
 * $XDG_CONFIG_HOME/ipfs/gateway, /etc/ipfs/gateway), else public gateways. */
ipfsrt_status ipfsrt_gateway_list_default(ipfsrt_gateway_list *list, ipfsrt_error *err);
void ipfsrt_gateway_list_free(ipfsrt_gateway_list *list);

/* Why a gateway's answer was not used. */
typedef enum ipfsrt_gw_error {
    IPFSRT_GWERR_NONE,
    IPFSRT_GWERR_CONNECT,       /* could not connect */
    IPFSRT_GWERR_TIMEOUT,       /* no answer, or the body stalled */
    IPFSRT_GWERR_NOT_FOUND,     /* 404, 410, 451 */
    IPFSRT_GWERR_REFUSED,       /* another 4xx */
    IPFSRT_GWERR_RATE_LIMITED,  /* 429 */
    IPFSRT_GWERR_SERVER,        /* 5xx */
    IPFSRT_GWERR_TRUNCATED,     /* the body broke off */
    IPFSRT_GWERR_TOO_LARGE,     /* over the size cap */
    IPFSRT_GWERR_BAD_RESPONSE,  /* not the format asked for, malformed CAR */
    IPFSRT_GWERR_HASH_MISMATCH, /* verification: bytes that do not hash to their CID */
    IPFSRT_GWERR_WRONG_DAG,     /* verification: valid blocks, but not the ones the path needs */
    IPFSRT_GWERR_COUNT
} ipfsrt_gw_error;

/* Stable lower-case name, e.g. "hash_mismatch". */
const char *ipfsrt_gw_error_name(ipfsrt_gw_error e);
/* True for the kinds that mean the gateway sent bad data. */
bool ipfsrt_gw_error_is_verification(ipfsrt_gw_error e);

typedef enum ipfsrt_request_kind {
    IPFSRT_REQUEST_BLOCK, /* ?format=raw for one CID */
    IPFSRT_REQUEST_CAR,   /* ?format=car for a path and dag-scope */
    IPFSRT_REQUEST_PLAIN, /* unverified GET */
} ipfsrt_request_kind;

typedef struct ipfsrt_request_info {
    ipfsrt_request_kind kind;
    const char *path;   /* "/ipfs/CID[/path]" (or the URL of a plain request) */
    const char *query;  /* "format=car&dag-scope=entity..." or "" */
    unsigned attempt;   /* how many gateways were tried for it before */
} ipfsrt_request_info;

typedef struct ipfsrt_outcome {
    bool ok;             /* the answer was used */
    bool verified;       /* its bytes were checked (false in unverified mode and on failure) */
    ipfsrt_gw_error error;
    long status;         /* HTTP status, 0 when none arrived */
    double latency_s;    /* to the first byte, or to the failure */
    double duration_s;
    uint64_t bytes;      /* body bytes received */
    const char *detail;  /* what went wrong, "" when ok */
} ipfsrt_outcome;

/* Decides which gateway serves each request. Every function may be NULL: the
 * defaults try gateways in the configured order, never hedge, observe nothing. */
typedef struct ipfsrt_policy {
    void *ctx;
    /* Writes the indices of the gateways to try, best first, into order (room for
     * n_gateways) and returns how many; gateways left out are not tried. */
    size_t (*order)(void *ctx, const ipfsrt_request_info *req, size_t n_gateways, size_t *order);
    /* Milliseconds to wait for the first gateway's first byte before racing the
     * next one as well; negative = do not race. */
    double (*hedge_after_ms)(void *ctx, const ipfsrt_request_info *req);
    /* Each finished attempt: which gateway and how it went. */
    void (*observe)(void *ctx, size_t gateway, const ipfsrt_request_info *req,
                    const ipfsrt_outcome *outcome);
    void (*free)(void *ctx);
} ipfsrt_policy;

typedef struct ipfsrt_client_options {
    const ipfsrt_gateway_list *gateways; /* NULL or empty = ipfsrt_gateway_list_default */
    bool no_verify;          /* unverified mode: plain GETs, nothing checked */
    uint64_t cache_bytes;    /* memory cache; 0 = 64 MiB; UINT64_MAX = none */
    const char *cache_dir;   /* blocks on disk by CID; NULL = none */
    bool trust_cache_dir;    /* skip re-hashing blocks read back from cache_dir */
    unsigned concurrency;    /* transfers in flight per gateway; 0 = 8 */
    double timeout_s;        /* first-byte and stall timeout; 0 = 30 */
    unsigned retries;        /* extra rounds over the gateways after all failed; 0 = 2 */
    size_t max_block;        /* largest block accepted; 0 = 2 MiB */
} ipfsrt_client_options;

typedef struct ipfsrt_client ipfsrt_client;

ipfsrt_status ipfsrt_client_init(ipfsrt_client **client, const ipfsrt_client_options *opts,
                                 ipfsrt_error *err);
void ipfsrt_client_free(ipfsrt_client *client);
/* The client takes over the policy (and calls its free); NULL restores the default. */
void ipfsrt_client_set_policy(ipfsrt_client *client, const ipfsrt_policy *policy);
size_t ipfsrt_client_gateway_count(const ipfsrt_client *client);
const char *ipfsrt_client_gateway_url(const ipfsrt_client *client, size_t i);
/* Where the gateway list came from (see ipfsrt_gateway_list.source). */
const char *ipfsrt_client_gateway_source(const ipfsrt_client *client);
bool ipfsrt_client_verifies(const ipfsrt_client *client);

/* Called as body bytes arrive: total so far and, when known, expected (else 0). */
typedef void (*ipfsrt_progress_fn)(void *user, uint64_t done, uint64_t expected);
void ipfsrt_client_set_progress(ipfsrt_client *client, ipfsrt_progress_fn fn, void *user);

/* One verified block (from the cache or a gateway); release it with
 * ipfsrt_blocksource_release on ipfsrt_client_blocksource's source. */
ipfsrt_status ipfsrt_client_block(ipfsrt_client *client, const ipfsrt_cid *cid,
                                  ipfsrt_block_ref *ref, ipfsrt_error *err);
/* A block source over the client: blocks come from the cache, else by CID. */
void ipfsrt_client_blocksource(ipfsrt_client *client, ipfsrt_blocksource *src);

/* Many blocks at once; fn sees each verified block as it arrives (in any order,
 * index = its position in cids). The first failure stops the batch. Unverified
 * clients make plain GETs of /ipfs/CID instead and check nothing. */
typedef ipfsrt_status (*ipfsrt_indexed_block_fn)(void *user, size_t index, const ipfsrt_cid *cid,
                                                 const uint8_t *data, size_t len,
                                                 ipfsrt_error *err);
ipfsrt_status ipfsrt_client_blocks(ipfsrt_client *client, const ipfsrt_cid *cids, size_t n,
                                   ipfsrt_indexed_block_fn fn, void *user, ipfsrt_error *err);

/* Paths: CID[/path], /ipfs/CID[/path] or ipfs://CID[/path]. Unverified clients
 * also take http(s):// URLs in ipfsrt_client_read. */
ipfsrt_status ipfsrt_client_stat(ipfsrt_client *client, const char *path,
                                 ipfsrt_unixfs_node_info *info, ipfsrt_error *err);
/* Lists a directory; with fetch_types each entry's type and size are looked up
 * (one block per entry, fetched concurrently). */
ipfsrt_status ipfsrt_client_ls(ipfsrt_client *client, const char *path, bool fetch_types,
                               ipfsrt_entry_fn fn, void *user, ipfsrt_error *err);
/* File bytes [offset, offset + length) in order; length UINT64_MAX = to the end.
 * Verified bytes reach write only once their block matched its CID and sits
 * on the path from the root. */
ipfsrt_status ipfsrt_client_read(ipfsrt_client *client, const char *path, uint64_t offset,
                                 uint64_t length, ipfsrt_write_fn write, void *user,
                                 ipfsrt_error *err);
/* Writes the file, tree or symlink at path to dest (which must not exist);
 * nothing is left behind on failure. */
ipfsrt_status ipfsrt_client_export(ipfsrt_client *client, const char *path, const char *dest,
                                   ipfsrt_error *err);

#define IPFSRT_LATENCY_SAMPLES 512

typedef struct ipfsrt_gateway_client_stats {
    uint64_t requests;    /* attempts that went out */
    uint64_t ok;          /* answers used */
    uint64_t bytes;       /* body bytes received */
    uint64_t errors[IPFSRT_GWERR_COUNT]; /* by kind */
    uint64_t verify_failures;
    double latency_p50_s, latency_p90_s, latency_p99_s; /* first byte, recent requests */
} ipfsrt_gateway_client_stats;

void ipfsrt_client_gateway_stats(const ipfsrt_client *client, size_t i,
                                 ipfsrt_gateway_client_stats *stats);

/* MurmurHash3 x64_128 (seed 0), first 64-bit word: the HAMT's hash function. */
uint64_t ipfsrt_murmur3_x64_64(const uint8_t *data, size_t len);

/* ------------------------------------------------------------------- misc */

/* Monotonic wall-clock seconds. */
double ipfsrt_clock(void);

/* ---------------------------------------------------------------- Lua glue */

struct lua_State;
/* Pushes the ipfsrt module table onto a host's own Lua 5.4 state (and returns 1),
 * like require "ipfsrt" would. */
int ipfsrt_lua_open(struct lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
