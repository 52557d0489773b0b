/* ipfsrt — CAR v1/v2: push reader, file reader, writer. */
#ifndef IPFSRT_CAR_H
#define IPFSRT_CAR_H

#include "cid.h"
#include "buf.h"
#include "blocksource.h"
#include "ranges.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    size_t size; /* sizeof the struct: set by ipfsrt_car_options_init (or .size = sizeof) */
    size_t max_block_size;  /* 0 = IPFSRT_CAR_DEFAULT_MAX_BLOCK */
    size_t max_header_size; /* 0 = IPFSRT_CAR_DEFAULT_MAX_HEADER */
    /* Push reader only: the caller wants verification, not the bytes. Blocks
     * hashed as they stream past are then neither buffered nor copied, and
     * reach on_block with data == NULL (len still says how long they were). */
    bool verify_only;
    const ipfsrt_hash_backend *hash_backend; /* NULL: the process's (ipfsrt_hash_backend_select) */
} ipfsrt_car_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_API void ipfsrt_car_options_init(ipfsrt_car_options *opts);

/* A verified block: data hashed to cid. offset is the position in the input of
 * the section's length varint. Valid only during the callback / until the next call. */
typedef struct ipfsrt_car_block {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
    uint64_t offset;
} ipfsrt_car_block;

/* Return IPFSRT_OK to go on; any other status stops the reader, which then fails
 * with that status and err (a callback that leaves err empty reads as "stopped
 * by the block callback"). */
typedef ipfsrt_status (*ipfsrt_car_block_fn)(void *user, const ipfsrt_car_block *block,
                                             ipfsrt_error *err);

/* Streaming push reader: feed byte slices of any size as they arrive. Each
 * block is handed to on_block only after its hash matched its CID; at most one
 * section is buffered. CARv2 input is unwrapped (the index is skipped). After
 * an error every further call returns the same error. */
typedef struct ipfsrt_car_reader ipfsrt_car_reader;

IPFSRT_API ipfsrt_status ipfsrt_car_reader_new(ipfsrt_car_reader **reader, const ipfsrt_car_options *opts,
                                                ipfsrt_car_block_fn on_block, void *user, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_car_reader_feed(ipfsrt_car_reader *reader, const uint8_t *data, size_t len,
                                                ipfsrt_error *err);
/* Call at end of input: fails if it ended inside the header or a section. */
IPFSRT_API ipfsrt_status ipfsrt_car_reader_finish(ipfsrt_car_reader *reader, ipfsrt_error *err);
/* NULL until the header has been read. */
IPFSRT_API const ipfsrt_car_header *ipfsrt_car_reader_header(const ipfsrt_car_reader *reader);
IPFSRT_API uint64_t ipfsrt_car_reader_offset(const ipfsrt_car_reader *reader);
IPFSRT_API void ipfsrt_car_reader_free(ipfsrt_car_reader *reader);

/* Streams a whole file through a push reader in slices of slice_size bytes
 * (0 = 64 KiB); on_block may be NULL. Counts verified blocks and their bytes.
 * Set opts->verify_only when the blocks' bytes are not needed. */
IPFSRT_API ipfsrt_status ipfsrt_car_verify_file(const char *path, const ipfsrt_car_options *opts,
                                                size_t slice_size, ipfsrt_car_block_fn on_block, void *user,
                                                uint64_t *blocks, uint64_t *bytes, ipfsrt_error *err);

/* The same for a CAR held in memory, fed in slices of slice_size bytes. */
IPFSRT_API ipfsrt_status ipfsrt_car_verify_buffer(const uint8_t *data, size_t len,
                                                  const ipfsrt_car_options *opts, size_t slice_size,
                                                  ipfsrt_car_block_fn on_block, void *user, uint64_t *blocks,
                                                  uint64_t *bytes, ipfsrt_error *err);

/* File reader with random access by CID. The file is mapped; the CARv2 index
 * is used when present and well-formed (as a hint: what it points at is still
 * checked), otherwise an index is built by scanning on open. */
typedef struct ipfsrt_car_file ipfsrt_car_file;

IPFSRT_API ipfsrt_status ipfsrt_car_file_new(ipfsrt_car_file **file, const char *path,
                                              const ipfsrt_car_options *opts, ipfsrt_error *err);
IPFSRT_API const ipfsrt_car_header *ipfsrt_car_file_header(const ipfsrt_car_file *file);
/* "carv2-index" or "scan". */
IPFSRT_API const char *ipfsrt_car_file_index_source(const ipfsrt_car_file *file);
/* Verified block bytes for a CID (looked up by multihash); IPFSRT_ENOT_FOUND if absent. */
IPFSRT_API ipfsrt_status ipfsrt_car_file_get(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                             const uint8_t **data, size_t *len, ipfsrt_error *err);
IPFSRT_API bool ipfsrt_car_file_has(ipfsrt_car_file *file, const ipfsrt_cid *cid);
/* The bytes stored for a CID without hashing them: only for callers that have
 * verified the whole file (ipfsrt_car_verify_file) since opening it. */
IPFSRT_API ipfsrt_status ipfsrt_car_file_get_unverified(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                                const uint8_t **data, size_t *len, ipfsrt_error *err);
/* Sequential, verified iteration. Start with *cursor = 0; *done is set at the end. */
IPFSRT_API ipfsrt_status ipfsrt_car_file_next(ipfsrt_car_file *file, uint64_t *cursor, ipfsrt_car_block *block,
                                              bool *done, ipfsrt_error *err);
IPFSRT_API void ipfsrt_car_file_free(ipfsrt_car_file *file);

/* Writer: CARv1, or CARv2 (a CARv1 payload plus a MultihashIndexSorted index).
 * put() checks each block against its CID and skips blocks already written. */
typedef struct ipfsrt_car_writer ipfsrt_car_writer;

typedef struct ipfsrt_car_writer_options {
    size_t size; /* sizeof the struct: set by ipfsrt_car_writer_options_init (or .size = sizeof) */
    int version; /* 1 or 2; 0 = 1 */
    const ipfsrt_cid *roots; /* the header's roots (ipfsrt_car_writer_set_roots may change them) */
    size_t root_count;
} ipfsrt_car_writer_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_API void ipfsrt_car_writer_options_init(ipfsrt_car_writer_options *opts);

/* Creates (or truncates) the file at path. */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_new(ipfsrt_car_writer **writer, const char *path,
                                                const ipfsrt_car_writer_options *opts, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_car_writer_put(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                               const uint8_t *data, size_t len, ipfsrt_error *err);
/* For producers that just derived cid from these very bytes (the importer):
 * skips the second hash. Readers verify every block anyway. */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_put_made(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                                    const uint8_t *data, size_t len, ipfsrt_error *err);
/* Replaces the roots written at init by roots whose header encodes to the same
 * length (for a placeholder root written before the real one was known). */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_set_roots(ipfsrt_car_writer *writer, const ipfsrt_cid *roots,
                                                     size_t root_count, ipfsrt_error *err);
/* Completes the file. Until it succeeds the output is incomplete. */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_finish(ipfsrt_car_writer *writer, ipfsrt_error *err);
/* Releases the writer; an unfinished file is removed. */
IPFSRT_API void ipfsrt_car_writer_free(ipfsrt_car_writer *writer);

/* A CARv1 laid out from blocks in memory and read out in pieces of any size (a
 * response body): its size is known before the first byte. The encoder borrows
 * the block bytes, which must outlive it, and hashes nothing: it is for blocks
 * the caller has verified. Add every block before the first read. */
typedef struct ipfsrt_car_encoder ipfsrt_car_encoder;

IPFSRT_API ipfsrt_status ipfsrt_car_encoder_new(ipfsrt_car_encoder **encoder, const ipfsrt_cid *roots,
                                                size_t root_count, ipfsrt_error *err);
/* data_offset (optional) receives where the block's bytes will sit in the CAR. */
IPFSRT_API ipfsrt_status ipfsrt_car_encoder_add(ipfsrt_car_encoder *encoder, const ipfsrt_cid *cid,
                                                const uint8_t *data, size_t len, uint64_t *data_offset,
                                                ipfsrt_error *err);
IPFSRT_API uint64_t ipfsrt_car_encoder_size(const ipfsrt_car_encoder *encoder);
/* The next bytes of the CAR, up to max; 0 once all of it was read. */
IPFSRT_API size_t ipfsrt_car_encoder_read(ipfsrt_car_encoder *encoder, uint8_t *buf, size_t max);
IPFSRT_API void ipfsrt_car_encoder_free(ipfsrt_car_encoder *encoder);

/* Encodes a CARv1 header {roots, version: 1}. */
IPFSRT_API ipfsrt_status ipfsrt_car_header_encode(const ipfsrt_cid *roots, size_t root_count, ipfsrt_buf *out,
                                                  ipfsrt_error *err);

/* A block source over an open CAR file (which must outlive it). */
IPFSRT_API void ipfsrt_blocksource_car(ipfsrt_blocksource *src, ipfsrt_car_file *car);

/* ------------------------------------------------ a CAR read by ranges */

/* A CAR (v1 or indexed v2) read by ranged reads through reader (an S3 object,
 * a web server's file: ipfsrt_s3_range_reader), never whole: its header and
 * index are read when it is opened (a CARv1, which has none, is read through
 * once to make one, which is kept in the cache folder: IPFSRT_CACHE_DIR, else
 * $XDG_CACHE_HOME/ipfsrt, else ~/.cache/ipfsrt); then each block asked for is
 * one ranged read of its section, checked against its CID. The reader must
 * outlive it; key names the CAR to the reader. */
typedef struct ipfsrt_car_ranged ipfsrt_car_ranged;
IPFSRT_API ipfsrt_status ipfsrt_car_ranged_new(ipfsrt_car_ranged **car, const ipfsrt_range_reader *reader,
                                               const char *key, ipfsrt_error *err);
IPFSRT_API void ipfsrt_car_ranged_free(ipfsrt_car_ranged *car);
/* The CAR's first root. */
IPFSRT_API const ipfsrt_cid *ipfsrt_car_ranged_root(const ipfsrt_car_ranged *car);
/* Where it is, for messages. */
IPFSRT_API const char *ipfsrt_car_ranged_describe(const ipfsrt_car_ranged *car);
/* Many blocks in one set of ranged reads: fn sees each once (result index:
 * the position in cids; cid: the block's; data: its bytes, verified, valid
 * during the call), or why it could not be had (IPFSRT_EUNAVAILABLE: the CAR
 * does not hold it; a hash or section that fails; the reader's error). */
IPFSRT_API ipfsrt_status ipfsrt_car_ranged_get_many(ipfsrt_car_ranged *car, const ipfsrt_cid *cids, size_t n,
                                                    ipfsrt_range_fn fn, void *user, ipfsrt_error *err);
/* A block source over it (one ranged read per block; car must outlive it). */
IPFSRT_API void ipfsrt_car_ranged_blocksource(ipfsrt_blocksource *src, ipfsrt_car_ranged *car);

#ifdef __cplusplus
}
#endif

#endif
