/* CAR internals shared by the push reader, the file reader, the writer and the
 * gateway server; not part of the public API. */
#ifndef IPFSRT_CAR_INTERNAL_H
#define IPFSRT_CAR_INTERNAL_H

#include "base/base_internal.h"
#include "ipfsrt/car.h"
#include "ipfsrt/varint.h"
#include "multiformats/multiformats_internal.h"

/* For a caller that checks every block against its CID itself (on other
 * threads): the reader then parses sections and checks their sizes and CIDs, but
 * hands blocks over unhashed. Never for blocks that go anywhere unchecked. */
void ipfsrt_car_reader_defer_hashing(ipfsrt_car_reader *reader);

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
                                        const ipfsrt_hash_backend *backend, ipfsrt_car_block *block,
                                        ipfsrt_error *err);
/* Finishes a section whose CID was read from its start and whose block bytes
 * were hashed as they streamed past without being kept (block->data = NULL). */
ipfsrt_status ipfsrt_car_section_check_streamed(const ipfsrt_cid *cid, size_t block_len,
                                                uint64_t offset, const uint8_t *digest,
                                                ipfsrt_car_block *block, ipfsrt_error *err);
/* A section's length varint and CID, written to out; returns their size. */
#define IPFSRT_CAR_SECTION_PREFIX_MAX (IPFSRT_VARINT_MAX_BYTES + IPFSRT_CID_MAX_BYTES)
size_t ipfsrt_car_section_prefix(const ipfsrt_cid *cid, uint64_t block_len, uint8_t *out);

/* A CARv2 index (IndexSorted or MultihashIndexSorted) read where its bytes
 * are: the caller keeps them for as long as the index is used. */
typedef struct ipfsrt_car_index {
    struct ipfsrt_car_index_group *groups;
    size_t group_count;
} ipfsrt_car_index;
void ipfsrt_car_index_init(ipfsrt_car_index *ix);
/* False when malformed (unknown kind, entries out of order, offsets past data_size). */
bool ipfsrt_car_index_parse(ipfsrt_car_index *ix, const uint8_t *bytes, size_t len, uint64_t data_size);
/* The offset of cid's section from the start of the CARv1 payload. */
bool ipfsrt_car_index_find(const ipfsrt_car_index *ix, const ipfsrt_cid *cid, uint64_t *offset);
/* Every entry's offset, sorted (the caller frees the array): where each
 * section ends is where the next begins. */
ipfsrt_status ipfsrt_car_index_offsets(const ipfsrt_car_index *ix, uint64_t **offsets, size_t *n,
                                       ipfsrt_error *err);
void ipfsrt_car_index_free(ipfsrt_car_index *ix);
/* An index entry: its multihash code (UINT64_MAX for IndexSorted, which
 * records none), digest and payload offset. */
typedef ipfsrt_status (*ipfsrt_car_index_entry_fn)(void *user, uint64_t code, const uint8_t *digest,
                                                   size_t digest_len, uint64_t offset, ipfsrt_error *err);
/* Calls fn for every entry, in the index's order; stops at its first failure. */
ipfsrt_status ipfsrt_car_index_each(const ipfsrt_car_index *ix, ipfsrt_car_index_entry_fn fn, void *user,
                                    ipfsrt_error *err);
/* A MultihashIndexSorted of the multihashes in offsets (each with its
 * section's offset from the payload's start), appended to out. */
ipfsrt_status ipfsrt_car_index_build(const ipfsrt_mhmap *offsets, ipfsrt_buf *out, ipfsrt_error *err);

/* Largest section length worth buffering for a given block limit. */
static inline uint64_t ipfsrt_car_max_section(size_t max_block) {
    return (uint64_t)max_block + IPFSRT_CID_MAX_BYTES;
}

/* Hands a whole CAR's bytes to sink as they arrive. */
typedef ipfsrt_status (*ipfsrt_car_stream_fn)(void *user, ipfsrt_range_sink_fn sink, void *sink_user,
                                              ipfsrt_error *err);
/* The MultihashIndexSorted of a CARv1 (offsets from its start; data_size its
 * size) into index: from the cache folder when a file there has the name that
 * identity hashes to, else made by reading the CAR once through stream (every
 * block hashed) and kept there (car_index_cache.c). */
ipfsrt_status ipfsrt_car_index_cached(const uint8_t *identity, size_t identity_len, uint64_t data_size,
                                      ipfsrt_car_stream_fn stream, void *user, ipfsrt_buf *index, ipfsrt_error *err);

/* A caller's CAR options (NULL: the defaults) with the default limits filled in. */
ipfsrt_status ipfsrt_car_options_take(ipfsrt_car_options *mine, const ipfsrt_car_options *theirs, ipfsrt_error *err);

#endif
