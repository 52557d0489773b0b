/** @file
 * ipfsrt — CAR v1/v2: push reader, file reader, writer. */
#ifndef IPFSRT_CAR_H
#define IPFSRT_CAR_H

#include "cid.h"
#include "buf.h"
#include "blocksource.h"
#include "ranges.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The largest block a reader takes unless its options say: 2 MiB. */
#define IPFSRT_CAR_DEFAULT_MAX_BLOCK (2u << 20)
/** The largest CARv1 header a reader takes unless its options say: 8 MiB. */
#define IPFSRT_CAR_DEFAULT_MAX_HEADER (8u << 20)
/** The bytes of a CARv2 header, pragma included. */
#define IPFSRT_CARV2_HEADER_SIZE 51

/** A CAR's header: its version and roots, and where a CARv2's parts are. */
typedef struct ipfsrt_car_header {
    int version;          /**< 1, or 2 for a CARv2 wrapper */
    size_t root_count;    /**< how many roots */
    ipfsrt_cid *roots;    /**< of the (inner) CARv1 header */
    uint8_t characteristics[16]; /**< CARv2 only: the characteristics bitfield */
    uint64_t data_offset;  /**< CARv2 only: where the CARv1 payload starts */
    uint64_t data_size;    /**< CARv2 only: its bytes */
    uint64_t index_offset; /**< CARv2 only: where the index starts; 0 = none */
} ipfsrt_car_header;

/** How CARs are read (size first: ipfsrt_car_options_init). */
typedef struct ipfsrt_car_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_car_options_init (or .size = sizeof) */
    size_t max_block_size;  /**< 0 = IPFSRT_CAR_DEFAULT_MAX_BLOCK */
    size_t max_header_size; /**< 0 = IPFSRT_CAR_DEFAULT_MAX_HEADER */
    /** Push reader only: the caller wants verification, not the bytes. Blocks
     * hashed as they stream past are then neither buffered nor copied, and
     * reach on_block with data == NULL (len still says how long they were). */
    bool verify_only;
    const ipfsrt_hash_backend *hash_backend; /**< NULL: the process's (ipfsrt_hash_backend_select) */
    size_t slice_size; /**< ipfsrt_car_verify_file and _buffer: bytes read or fed at a time; 0 = 64 KiB */
} ipfsrt_car_options;
/** The defaults, size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_car_options_init(ipfsrt_car_options *opts);

/** A verified block: data hashed to cid. offset is the position in the input of
 * the section's length varint. Valid only during the callback / until the next call. */
typedef struct ipfsrt_car_block {
    ipfsrt_cid cid;      /**< the block's CID */
    const uint8_t *data; /**< its bytes, verified (NULL under verify_only) */
    size_t len;          /**< how many */
    uint64_t offset;     /**< the section's byte offset in the input */
} ipfsrt_car_block;

/** Return IPFSRT_OK to go on; any other status stops the reader, which then fails
 * with that status and err (a callback that leaves err empty reads as "stopped
 * by the block callback"). */
typedef ipfsrt_status (*ipfsrt_car_block_fn)(void *user, const ipfsrt_car_block *block,
                                             ipfsrt_error *err);

/** Streaming push reader: feed byte slices of any size as they arrive. Each
 * block is handed to on_block only after its hash matched its CID; at most one
 * section is buffered. CARv2 input is unwrapped (the index is skipped). After
 * an error every further call returns the same error. */
typedef struct ipfsrt_car_reader ipfsrt_car_reader;

/** A streaming push reader: feed byte slices of any size as they arrive. Each
 * block is handed to on_block only after its hash matched its CID; at most one
 * section is buffered. CARv2 input is unwrapped (the index is skipped).
 * @param reader the new reader, on success
 * @param opts NULL = the defaults
 * @param on_block called per verified block (its bytes valid during the call only)
 * @param user handed to on_block
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (options without their size); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_car_reader_free */
IPFSRT_API ipfsrt_status ipfsrt_car_reader_new(ipfsrt_car_reader **reader, const ipfsrt_car_options *opts,
                                                ipfsrt_car_block_fn on_block, void *user, ipfsrt_error *err);
/** Feeds the next bytes of the CAR. After an error every further call returns
 * the same error.
 * @param reader the reader
 * @param data len bytes (untrusted; not kept past the call)
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CAR_HEADER, IPFSRT_EBAD_CAR_VERSION, IPFSRT_EBAD_VARINT,
 * IPFSRT_ETOO_LARGE (a header or block over the options' maximum),
 * IPFSRT_EHASH_MISMATCH, the CIDs' (IPFSRT_EBAD_CID, IPFSRT_EUNSUPPORTED: a hash
 * that cannot be checked), IPFSRT_ETRAILING_DATA, each naming the byte offset; on_block's own error */
IPFSRT_API ipfsrt_status ipfsrt_car_reader_feed(ipfsrt_car_reader *reader, const uint8_t *data, size_t len,
                                                ipfsrt_error *err);
/** Says the input has ended.
 * @param reader the reader
 * @param err filled on failure
 * @return IPFSRT_OK when it ended between sections (after a header)
 * @errors IPFSRT_ETRUNCATED: it ended inside the header or a section; an earlier error */
IPFSRT_API ipfsrt_status ipfsrt_car_reader_finish(ipfsrt_car_reader *reader, ipfsrt_error *err);
/** The CAR's header, once read.
 * @param reader the reader
 * @return NULL until the header has been read
 * @owner the reader's: valid until ipfsrt_car_reader_free */
IPFSRT_API const ipfsrt_car_header *ipfsrt_car_reader_header(const ipfsrt_car_reader *reader);
/** The bytes of input consumed so far.
 * @param reader the reader
 * @return the offset */
IPFSRT_API uint64_t ipfsrt_car_reader_offset(const ipfsrt_car_reader *reader);
/** Releases a reader.
 * @param reader the reader, or NULL
 * @owner its header is no longer valid */
IPFSRT_API void ipfsrt_car_reader_free(ipfsrt_car_reader *reader);

/** What a verification counted: blocks, and their bytes. Filled up to the size
 * the caller set (IPFSRT_CAR_COUNTS_INIT): counts added later reach only hosts
 * built with them. */
typedef struct ipfsrt_car_counts {
    size_t size;     /**< sizeof the struct: IPFSRT_CAR_COUNTS_INIT sets it */
    uint64_t blocks; /**< blocks verified */
    uint64_t bytes;  /**< their bytes */
} ipfsrt_car_counts;
/** An ipfsrt_car_counts with its size set. */
#define IPFSRT_CAR_COUNTS_INIT {.size = sizeof(ipfsrt_car_counts)}

/** Streams a whole file through a push reader, counting verified blocks and
 * their bytes. Set opts->verify_only when the blocks' bytes are not needed.
 * @param path the CAR file
 * @param opts NULL = the defaults
 * @param on_block NULL, or called per verified block
 * @param user handed to on_block
 * @param counts NULL, or filled up to its size (IPFSRT_CAR_COUNTS_INIT), on failure too
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EBAD_CAR_HEADER, IPFSRT_EBAD_CAR_VERSION, IPFSRT_EBAD_VARINT,
 * IPFSRT_ETOO_LARGE (a header or block over the options' maximum),
 * IPFSRT_EHASH_MISMATCH, the CIDs' (IPFSRT_EBAD_CID, IPFSRT_EUNSUPPORTED: a hash
 * that cannot be checked), IPFSRT_ETRAILING_DATA, each naming the byte offset; IPFSRT_ETRUNCATED; on_block's own error
 * @owner each block lent to on_block is valid during its call only; on_block must not keep it */
IPFSRT_API ipfsrt_status ipfsrt_car_verify_file(const char *path, const ipfsrt_car_options *opts,
                                                ipfsrt_car_block_fn on_block, void *user, ipfsrt_car_counts *counts,
                                                ipfsrt_error *err);

/** ipfsrt_car_verify_file for a CAR held in memory, fed in slices.
 * @param data len bytes
 * @param len how many
 * @param opts NULL = the defaults
 * @param on_block NULL, or called per verified block
 * @param user handed to on_block
 * @param counts NULL, or filled up to its size (IPFSRT_CAR_COUNTS_INIT), on failure too
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_car_verify_file but IPFSRT_EIO
 * @owner each block lent to on_block is valid during its call only; data stays the caller's */
IPFSRT_API ipfsrt_status ipfsrt_car_verify_buffer(const uint8_t *data, size_t len,
                                                  const ipfsrt_car_options *opts, ipfsrt_car_block_fn on_block,
                                                  void *user, ipfsrt_car_counts *counts, ipfsrt_error *err);

/** File reader with random access by CID. The file is mapped; the CARv2 index
 * is used when present and well-formed (as a hint: what it points at is still
 * checked), otherwise an index is built by scanning on open. */
typedef struct ipfsrt_car_file ipfsrt_car_file;

/** Opens a CAR file for random access by CID. The file is mapped; the CARv2
 * index is used when present and well-formed (as a hint: what it points at is
 * still checked), otherwise an index is built by scanning on open.
 * @param file the new reader, on success
 * @param path the CAR file
 * @param opts NULL = the defaults
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EBAD_CAR_HEADER, IPFSRT_EBAD_CAR_VERSION,
 * IPFSRT_EBAD_CAR_INDEX, IPFSRT_ETRUNCATED, IPFSRT_ETOO_LARGE (the scan);
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_car_file_free */
IPFSRT_API ipfsrt_status ipfsrt_car_file_new(ipfsrt_car_file **file, const char *path,
                                              const ipfsrt_car_options *opts, ipfsrt_error *err);
/** The CAR's header.
 * @param file the file
 * @return the header
 * @owner the file's */
IPFSRT_API const ipfsrt_car_header *ipfsrt_car_file_header(const ipfsrt_car_file *file);
/** Where the index came from.
 * @param file the file
 * @return "carv2-index" or "scan"
 * @owner static */
IPFSRT_API const char *ipfsrt_car_file_index_source(const ipfsrt_car_file *file);
/** A block's verified bytes, looked up by multihash and hashed on every call.
 * @param file the file
 * @param cid the block's CID
 * @param data set to the bytes (in the mapping)
 * @param len set to their length
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND: not in the CAR; IPFSRT_EHASH_MISMATCH; IPFSRT_EUNSUPPORTED
 * @owner the bytes are the file's: valid until ipfsrt_car_file_free */
IPFSRT_API ipfsrt_status ipfsrt_car_file_get(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                             const uint8_t **data, size_t *len, ipfsrt_error *err);
/** Whether the CAR holds a block (nothing is hashed). A CARv2 index is a
 * hint: a hit counts once the section it points at holds that CID, else the
 * payload is scanned and answers from then on.
 * @param file the file
 * @param cid the block's CID
 * @return true when present */
IPFSRT_API bool ipfsrt_car_file_has(ipfsrt_car_file *file, const ipfsrt_cid *cid);
/** Checks a CARv2's index against its payload: every entry points at a
 * section holding the block it names, and every block (bar identity CIDs) has
 * an entry. Nothing is hashed (ipfsrt_car_verify_file does that, and calls this).
 * @param file the file
 * @param err filled on failure
 * @return IPFSRT_OK, also for a CAR without an index
 * @errors IPFSRT_EBAD_CAR_INDEX: an unreadable index, an entry pointing
 * elsewhere, a block without an entry (the offset and CID named); the payload's
 * parse errors (IPFSRT_ETRUNCATED, IPFSRT_ETOO_LARGE, ...) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_car_file_check_index(ipfsrt_car_file *file, ipfsrt_error *err);
/** The bytes stored for a CID without hashing them: only for callers that have
 * verified the whole file (ipfsrt_car_verify_file) since opening it.
 * @param file the file
 * @param cid the block's CID
 * @param data set to the bytes
 * @param len set to their length
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND
 * @owner the bytes are the file's: valid until ipfsrt_car_file_free */
IPFSRT_API ipfsrt_status ipfsrt_car_file_get_unverified(ipfsrt_car_file *file, const ipfsrt_cid *cid,
                                                const uint8_t **data, size_t *len, ipfsrt_error *err);
/** Sequential, verified iteration over the blocks in file order.
 * @param file the file
 * @param cursor 0 to start; advanced by each call
 * @param block set to the next block (verified)
 * @param done set at the end (block then unset)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a cursor not from this iteration); IPFSRT_EBAD_CAR_HEADER, IPFSRT_EBAD_CAR_VERSION, IPFSRT_EBAD_VARINT,
 * IPFSRT_ETOO_LARGE (a header or block over the options' maximum),
 * IPFSRT_EHASH_MISMATCH, the CIDs' (IPFSRT_EBAD_CID, IPFSRT_EUNSUPPORTED: a hash
 * that cannot be checked), IPFSRT_ETRAILING_DATA, each naming the byte offset
 * @owner block's bytes are the file's */
IPFSRT_API ipfsrt_status ipfsrt_car_file_next(ipfsrt_car_file *file, uint64_t *cursor, ipfsrt_car_block *block,
                                              bool *done, ipfsrt_error *err);
/** Unmaps and releases a file.
 * @param file the file, or NULL
 * @owner every block it lent is no longer valid */
IPFSRT_API void ipfsrt_car_file_free(ipfsrt_car_file *file);

/** Writer: CARv1, or CARv2 (a CARv1 payload plus a MultihashIndexSorted index).
 * put() checks each block against its CID and skips blocks already written. */
typedef struct ipfsrt_car_writer ipfsrt_car_writer;

/** How a CAR is written (size first: ipfsrt_car_writer_options_init). */
typedef struct ipfsrt_car_writer_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_car_writer_options_init (or .size = sizeof) */
    int version; /**< 1 or 2; 0 = 1 */
    const ipfsrt_cid *roots; /**< the header's roots (ipfsrt_car_writer_set_roots may change them) */
    size_t root_count;       /**< how many */
} ipfsrt_car_writer_options;
/** The defaults (CARv1, no roots), size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_car_writer_options_init(ipfsrt_car_writer_options *opts);

/** Creates (or truncates) the file at path and writes its header.
 * @param writer the new writer, on success
 * @param path the CAR file
 * @param opts NULL = the defaults
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EBAD_CAR_VERSION; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_car_writer_free; roots are copied */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_new(ipfsrt_car_writer **writer, const char *path,
                                                const ipfsrt_car_writer_options *opts, ipfsrt_error *err);
/** Checks a block against its CID and appends it (a block already written is
 * skipped).
 * @param writer the writer
 * @param cid the block's CID
 * @param data len bytes
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_cid_verify; IPFSRT_EIO; IPFSRT_ETOO_LARGE; IPFSRT_EBAD_ARGUMENT
 * (after finish); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_put(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                               const uint8_t *data, size_t len, ipfsrt_error *err);
/** ipfsrt_car_writer_put for producers that just derived cid from these very
 * bytes (the importer): skips the second hash. Readers verify every block anyway.
 * @param writer the writer
 * @param cid the block's CID
 * @param data len bytes
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_car_writer_put but the hash */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_put_made(ipfsrt_car_writer *writer, const ipfsrt_cid *cid,
                                                    const uint8_t *data, size_t len, ipfsrt_error *err);
/** Replaces the roots written at the start by roots whose header encodes to the
 * same length (for a placeholder root written before the real one was known).
 * @param writer the writer
 * @param roots root_count CIDs (copied)
 * @param root_count how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: another header length, or already finished; IPFSRT_EIO */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_set_roots(ipfsrt_car_writer *writer, const ipfsrt_cid *roots,
                                                     size_t root_count, ipfsrt_error *err);
/** Completes the file (a CARv2's index and header too); until it succeeds the
 * output is incomplete.
 * @param writer the writer
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_car_writer_finish(ipfsrt_car_writer *writer, ipfsrt_error *err);
/** Releases the writer; an unfinished file is removed.
 * @param writer the writer, or NULL
 * @owner the writer is freed; a finished file stays */
IPFSRT_API void ipfsrt_car_writer_free(ipfsrt_car_writer *writer);

/** What ipfsrt_car_diff found; filled up to the size the caller set
 * (IPFSRT_CAR_DIFF_STATS_INIT). */
typedef struct ipfsrt_car_diff_stats {
    size_t size;           /**< sizeof the struct: IPFSRT_CAR_DIFF_STATS_INIT sets it */
    uint64_t new_blocks;    /**< blocks in the new CAR only: written */
    uint64_t new_bytes;     /**< their bytes */
    uint64_t shared_blocks; /**< blocks in both: left out */
    uint64_t shared_bytes;  /**< their bytes */
} ipfsrt_car_diff_stats;
/** An ipfsrt_car_diff_stats with its size set. */
#define IPFSRT_CAR_DIFF_STATS_INIT {.size = sizeof(ipfsrt_car_diff_stats)}

/** The blocks of new_path that old_path lacks, written as a CARv1 with
 * new_path's roots: what a holder of the old version needs for the new one.
 * The new CAR is read as a stream (every block verified), the old one through
 * its index: memory holds the old index and the CIDs written, not the files.
 * The output is written beside out_path ("out_path.partial") and renamed to it
 * once whole.
 * @param old_path the CAR the reader has
 * @param new_path the CAR of the new version
 * @param out_path the delta CAR
 * @param stats NULL, or counts (size set: IPFSRT_CAR_DIFF_STATS_INIT)
 * @param err filled on failure, naming the file and the byte offset at fault
 * @return IPFSRT_OK
 * @errors as ipfsrt_car_file_new (the old CAR), ipfsrt_car_reader_feed and
 * ipfsrt_car_reader_finish (the new one, prefixed by its name), and
 * ipfsrt_car_writer_new; IPFSRT_EIO; IPFSRT_EBAD_ARGUMENT (stats without a
 * size); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_car_diff(const char *old_path, const char *new_path, const char *out_path,
                                                  ipfsrt_car_diff_stats *stats, ipfsrt_error *err);

/** A CARv1 laid out from blocks in memory and read out in pieces of any size (a
 * response body): its size is known before the first byte. The encoder borrows
 * the block bytes, which must outlive it, and hashes nothing: it is for blocks
 * the caller has verified. Add every block before the first read. */
typedef struct ipfsrt_car_encoder ipfsrt_car_encoder;

/** A CARv1 laid out from blocks in memory and read out in pieces of any size
 * (a response body): its size is known before the first byte. It hashes
 * nothing: it is for blocks the caller has verified.
 * @param encoder the new encoder, on success
 * @param roots root_count CIDs (copied)
 * @param root_count how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_car_encoder_free */
IPFSRT_API ipfsrt_status ipfsrt_car_encoder_new(ipfsrt_car_encoder **encoder, const ipfsrt_cid *roots,
                                                size_t root_count, ipfsrt_error *err);
/** Adds a block; every block is added before the first read.
 * @param encoder the encoder
 * @param cid the block's CID (copied)
 * @param data len bytes, borrowed
 * @param len how many
 * @param data_offset where the block's bytes will sit in the CAR, when not NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (after a read); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner data must outlive the encoder */
IPFSRT_API ipfsrt_status ipfsrt_car_encoder_add(ipfsrt_car_encoder *encoder, const ipfsrt_cid *cid,
                                                const uint8_t *data, size_t len, uint64_t *data_offset,
                                                ipfsrt_error *err);
/** The CAR's whole length.
 * @param encoder the encoder
 * @return bytes */
IPFSRT_API uint64_t ipfsrt_car_encoder_size(const ipfsrt_car_encoder *encoder);
/** The next bytes of the CAR.
 * @param encoder the encoder
 * @param buf room for max bytes
 * @param max how many at most
 * @return the bytes written; 0 once all of it was read */
IPFSRT_API size_t ipfsrt_car_encoder_read(ipfsrt_car_encoder *encoder, uint8_t *buf, size_t max);
/** Releases an encoder.
 * @param encoder the encoder, or NULL
 * @owner the blocks it borrowed stay the caller's */
IPFSRT_API void ipfsrt_car_encoder_free(ipfsrt_car_encoder *encoder);

/** Encodes a CARv1 header {roots, version: 1}, with its length varint.
 * @param roots root_count CIDs
 * @param root_count how many
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_car_header_encode(const ipfsrt_cid *roots, size_t root_count, ipfsrt_buf *out,
                                                  ipfsrt_error *err);

/** A block source over an open CAR file (blocks it lends need no release).
 * @param src filled, size set
 * @param car the file
 * @owner the file must outlive the source */
IPFSRT_API void ipfsrt_blocksource_car(ipfsrt_blocksource *src, ipfsrt_car_file *car);

/* ------------------------------------------------ a CAR read by ranges */

/** A CAR (v1 or indexed v2) read by ranged reads through reader (an S3 object,
 * a web server's file: ipfsrt_s3_range_reader), never whole: its header and
 * index are read when it is opened (a CARv1, which has none, is read through
 * once to make one, which is kept in the cache folder: IPFSRT_CACHE_DIR, else
 * $XDG_CACHE_HOME/ipfsrt, else ~/.cache/ipfsrt); then each block asked for is
 * one ranged read of its section, checked against its CID. The reader must
 * outlive it; key names the CAR to the reader. */
typedef struct ipfsrt_car_ranged ipfsrt_car_ranged;
/** A CAR (v1 or indexed v2) read by ranged reads through reader (an S3 object,
 * a web server's file), never whole: its header and index are read now (a
 * CARv1, which has none, is read through once to make one, kept in the cache
 * folder: IPFSRT_CACHE_DIR, else $XDG_CACHE_HOME/ipfsrt, else ~/.cache/ipfsrt);
 * then each block asked for is one ranged read of its section, checked against
 * its CID.
 * @param car the new reader, on success
 * @param reader copied at its size
 * @param key names the CAR to the reader
 * @param err filled on failure, naming the CAR
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a reader without its size); IPFSRT_EUNSUPPORTED
 * (a reader setting members this library does not know); IPFSRT_EBAD_CAR_HEADER,
 * IPFSRT_EBAD_CAR_INDEX, IPFSRT_ETRUNCATED; the reader's own errors;
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_car_ranged_free; the reader's ctx must outlive it */
IPFSRT_API ipfsrt_status ipfsrt_car_ranged_new(ipfsrt_car_ranged **car, const ipfsrt_range_reader *reader,
                                               const char *key, ipfsrt_error *err);
/** Releases a ranged CAR.
 * @param car the CAR, or NULL
 * @owner the CAR is freed; its block sources and root are no longer valid */
IPFSRT_API void ipfsrt_car_ranged_free(ipfsrt_car_ranged *car);
/** The CAR's first root.
 * @param car the CAR
 * @return the root
 * @owner the CAR's */
IPFSRT_API const ipfsrt_cid *ipfsrt_car_ranged_root(const ipfsrt_car_ranged *car);
/** Where the CAR is, for messages.
 * @param car the CAR
 * @return "READER/KEY"
 * @owner the CAR's */
IPFSRT_API const char *ipfsrt_car_ranged_describe(const ipfsrt_car_ranged *car);
/** Many blocks in one set of ranged reads: fn sees each once (result index: the
 * position in cids; cid: the block's; data: its bytes, verified), or why it
 * could not be had (IPFSRT_EUNAVAILABLE: the CAR does not hold it; a hash or
 * section that fails; the reader's error).
 * @param car the CAR
 * @param cids n CIDs
 * @param n how many
 * @param fn called per result
 * @param user handed to fn
 * @param err filled when the whole call fails
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY; fn's own error
 * @owner each result is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_car_ranged_get_many(ipfsrt_car_ranged *car, const ipfsrt_cid *cids, size_t n,
                                                    ipfsrt_range_fn fn, void *user, ipfsrt_error *err);
/** A block source over a ranged CAR (one ranged read per block).
 * @param src filled, size set
 * @param car the CAR
 * @owner the CAR must outlive the source */
IPFSRT_API void ipfsrt_car_ranged_blocksource(ipfsrt_blocksource *src, ipfsrt_car_ranged *car);

#ifdef __cplusplus
}
#endif

#endif
