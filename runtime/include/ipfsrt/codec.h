/* ipfsrt — codecs of Zarr chunks: compressors (zstd, gzip, zlib, bz2, lz4 in
 * numcodecs' framing, blosc with any inner compressor), the CRC-32C checksum,
 * and filters that keep the byte count (shuffle, delta). Configured once from
 * their JSON configuration (numcodecs' and Zarr v3's forms), then used from
 * any number of threads at once: per-thread library contexts are kept and
 * reused, so decoding a chunk allocates nothing.
 *
 * Decoding is sized: the caller says how many bytes the chunk must decode to
 * (Zarr metadata knows), and data that would decode to anything else is an
 * error before a byte past the destination is written. */
#ifndef IPFSRT_CODEC_H
#define IPFSRT_CODEC_H

#include "buf.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ipfsrt_codec ipfsrt_codec;

/* A codec by name ("zstd", "gzip", "zlib", "bz2", "lz4", "blosc", "crc32c",
 * "shuffle", "delta"; a "numcodecs." prefix is accepted) and its configuration
 * (a JSON object's text, or NULL for the defaults). itemsize is the size of the
 * elements the chunk holds, for blosc's and shuffle's default element size;
 * delta needs its "dtype". Unknown names and bad parameters are errors naming
 * the codec. */
IPFSRT_API ipfsrt_status ipfsrt_codec_new(ipfsrt_codec **out, const char *name, const char *config, size_t itemsize,
                                          ipfsrt_error *err);
IPFSRT_API void ipfsrt_codec_free(ipfsrt_codec *c);
/* The codec's name (numcodecs' id), without any "numcodecs." prefix. */
IPFSRT_API const char *ipfsrt_codec_id(const ipfsrt_codec *c);

/* Decodes src into exactly dst_len bytes at dst. */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                             size_t dst_len, ipfsrt_error *err);
/* Decodes src, which must decode to dst_len bytes, as far as the first need
 * bytes at dst: a selection that ends early in a chunk needs no more. Codecs
 * that can stop early (zstd, a block at a time) leave the rest of dst
 * unwritten and the data past it unchecked; the others decode it all. */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode_prefix(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                                    size_t dst_len, size_t need, ipfsrt_error *err);
/* For the filters whose decoded data are as long as their encoded form
 * (shuffle, delta): true, and in *src_need how many first bytes of len encoded
 * ones the first need decoded bytes come from, so that the codec before them
 * in a chain knows its output size and may stop early too. False for others. */
IPFSRT_API bool ipfsrt_codec_prefix_needs(const ipfsrt_codec *c, size_t len, size_t need, size_t *src_need);
/* The decoded size when src states it (zstd frame sizes, blosc's header, lz4's
 * prefix, crc32c and the filters' own sizes); *known false when it does not
 * (gzip, zlib, bz2, a zstd frame without its size). */
IPFSRT_API ipfsrt_status ipfsrt_codec_decoded_size(const ipfsrt_codec *c, const void *src, size_t src_len, size_t *size,
                                                   bool *known, ipfsrt_error *err);
/* Decodes src whatever its decoded size, appending to out, failing past limit
 * bytes (for a codec in the middle of a chain, whose output size nothing
 * states). */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode_any(const ipfsrt_codec *c, const void *src, size_t src_len, size_t limit,
                                                 ipfsrt_buf *out, ipfsrt_error *err);
/* Encodes src, appending to out. */
IPFSRT_API ipfsrt_status ipfsrt_codec_encode(const ipfsrt_codec *c, const void *src, size_t src_len, ipfsrt_buf *out,
                                             ipfsrt_error *err);

/* CRC-32C (Castagnoli) of n bytes, continuing from crc (0 to start); the CPU's
 * instruction where it has one. */
IPFSRT_API uint32_t ipfsrt_crc32c(uint32_t crc, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif
