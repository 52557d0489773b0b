/* Helpers shared by the C modules; not part of the public API. */
#ifndef IPFSRT_INTERNAL_H
#define IPFSRT_INTERNAL_H

#include "ipfsrt.h"

#if defined(__GNUC__)
#define IPFSRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define IPFSRT_PRINTF(f, a)
#endif

/* Fills err (if any) and returns code. offset < 0 means "no offset". */
ipfsrt_status ipfsrt_fail(ipfsrt_error *err, ipfsrt_status code, int64_t offset, const char *fmt,
                          ...) IPFSRT_PRINTF(4, 5);
/* Same, naming a CID: the message starts with "block <cid>". */
ipfsrt_status ipfsrt_fail_cid(ipfsrt_error *err, ipfsrt_status code, const ipfsrt_cid *cid,
                              int64_t offset, const char *fmt, ...) IPFSRT_PRINTF(5, 6);
/* Prefixes an already filled error's message with context ("reading x.car: "). */
void ipfsrt_error_prefix(ipfsrt_error *err, const char *fmt, ...) IPFSRT_PRINTF(2, 3);
/* Moves an error's offset by delta (when a sub-parser worked on a slice). */
void ipfsrt_error_shift(ipfsrt_error *err, int64_t delta);

/* Multihash-keyed table: multihash bytes -> (offset, length). Keys are copied. */
typedef struct ipfsrt_mhmap_entry {
    uint8_t *key;
    uint32_t key_len;
    uint32_t len;
    uint64_t offset;
    uint64_t hash;
} ipfsrt_mhmap_entry;

typedef struct ipfsrt_mhmap {
    ipfsrt_mhmap_entry *slots;
    size_t cap;   /* power of two */
    size_t count;
} ipfsrt_mhmap;

void ipfsrt_mhmap_init(ipfsrt_mhmap *m);
void ipfsrt_mhmap_free(ipfsrt_mhmap *m);
/* Returns IPFSRT_OK and sets *inserted=false when the key was already there. */
ipfsrt_status ipfsrt_mhmap_put(ipfsrt_mhmap *m, const uint8_t *key, size_t key_len,
                               uint64_t offset, uint32_t len, bool *inserted);
const ipfsrt_mhmap_entry *ipfsrt_mhmap_get(const ipfsrt_mhmap *m, const uint8_t *key,
                                           size_t key_len);

/* True when the CID's block can be hashed incrementally (SHA-2 with a digest of
 * at least IPFSRT_MH_MIN_SECURE_DIGEST bytes); sets the algorithm. */
bool ipfsrt_cid_streamable(const ipfsrt_cid *cid, ipfsrt_hash_alg *alg);
/* Compares a digest computed over data_len block bytes with the CID's. */
ipfsrt_status ipfsrt_cid_check_digest(const ipfsrt_cid *cid, const uint8_t *computed,
                                      size_t data_len, ipfsrt_error *err);

/* Writes to a file descriptor from a thread of its own (async_write.c). Bytes
 * reach the file in order; errors surface on a later write or on flush. */
typedef struct ipfsrt_async_writer ipfsrt_async_writer;
ipfsrt_status ipfsrt_aw_init(ipfsrt_async_writer **w, int fd, const char *path, ipfsrt_error *err);
ipfsrt_status ipfsrt_aw_write(ipfsrt_async_writer *w, const void *data, size_t len,
                              ipfsrt_error *err);
/* Goes on with another file; the writer closes the previous one once its bytes
 * are out. The caller keeps closing the last fd itself. */
ipfsrt_status ipfsrt_aw_next_file(ipfsrt_async_writer *w, int fd, const char *path,
                                  ipfsrt_error *err);
/* Returns once everything written so far is in the file. */
ipfsrt_status ipfsrt_aw_flush(ipfsrt_async_writer *w, ipfsrt_error *err);
/* Stops the thread; unflushed bytes are written first. Does not close the fd. */
void ipfsrt_aw_free(ipfsrt_async_writer *w);

/* Splits "CID/rest", "/ipfs/CID/rest" or "ipfs://CID/rest" into the root CID and
 * the rest ("" or starting with '/'). */
ipfsrt_status ipfsrt_ipfs_path_split(const char *path, ipfsrt_cid *root, const char **rest,
                                     ipfsrt_error *err);

/* For a caller that checks every block against its CID itself (on other
 * threads): the reader then parses sections and checks their sizes and CIDs, but
 * hands blocks over unhashed. Never for blocks that go anywhere unchecked. */
void ipfsrt_car_reader_defer_hashing(ipfsrt_car_reader *reader);

/* Little-endian helpers for CARv2. */
static inline uint64_t ipfsrt_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint32_t ipfsrt_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void ipfsrt_put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ipfsrt_put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* CAR internals shared by the push reader, the file reader and the writer. */
extern const uint8_t ipfsrt_carv2_pragma[11];

/* Parses a CARv1 header body (DAG-CBOR) into hdr (roots allocated). */
ipfsrt_status ipfsrt_car_header_decode(const uint8_t *buf, size_t len, ipfsrt_car_header *hdr,
                                       ipfsrt_error *err);
void ipfsrt_car_header_release(ipfsrt_car_header *hdr);
/* Parses the 40 bytes after the CARv2 pragma; file_size is UINT64_MAX when unknown. */
ipfsrt_status ipfsrt_carv2_header_decode(const uint8_t *buf, ipfsrt_car_header *hdr,
                                         uint64_t file_size, ipfsrt_error *err);
/* Splits a section body (after its length varint) into CID and block bytes and,
 * if asked, verifies the block: against a digest already computed over the block
 * bytes as they streamed in, or by hashing them now. offset names the section
 * in errors. */
ipfsrt_status ipfsrt_car_section_decode(const uint8_t *body, size_t len, uint64_t offset,
                                        size_t max_block, bool verify, const uint8_t *streamed_digest,
                                        ipfsrt_car_block *block, ipfsrt_error *err);
/* Finishes a section whose CID was read from its start and whose block bytes
 * were hashed as they streamed past without being kept (block->data = NULL). */
ipfsrt_status ipfsrt_car_section_check_streamed(const ipfsrt_cid *cid, size_t block_len,
                                                uint64_t offset, const uint8_t *digest,
                                                ipfsrt_car_block *block, ipfsrt_error *err);
/* Largest section length worth buffering for a given block limit. */
static inline uint64_t ipfsrt_car_max_section(size_t max_block) {
    return (uint64_t)max_block + IPFSRT_CID_MAX_BYTES;
}

#endif
