/** @file
 * ipfsrt — codecs of Zarr chunks: compressors (zstd, gzip, zlib, bz2, lz4 in numcodecs' framing, blosc with any inner compressor), the CRC-32C checksum, and filters that keep the byte count (shuffle, delta). Configured once from their JSON configuration (numcodecs' and Zarr v3's forms), then used from any number of threads at once: per-thread library contexts are kept and reused, so decoding a chunk allocates nothing.  Decoding is sized: the caller says how many bytes the chunk must decode to (Zarr metadata knows), and data that would decode to anything else is an error before a byte past the destination is written. */
#ifndef IPFSRT_CODEC_H
#define IPFSRT_CODEC_H

#include "buf.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A configured chunk codec (ipfsrt_codec_new): opaque. */
typedef struct ipfsrt_codec ipfsrt_codec;

/** A codec by name ("zstd", "gzip", "zlib", "bz2", "lz4", "blosc", "crc32c",
 * "shuffle", "delta"; a "numcodecs." prefix is accepted) and its configuration.
 * @param out the new codec, on success
 * @param name the name
 * @param config a JSON object's text, or NULL for the defaults
 * @param itemsize the size of the chunk's elements, for blosc's and shuffle's
 * default element size (delta needs its "dtype")
 * @param err filled on failure, naming the codec
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (an unknown name); IPFSRT_EBAD_ARGUMENT (bad parameters);
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_codec_free. A codec may be used by one thread at a
 * time (its working memory is reused) */
IPFSRT_API ipfsrt_status ipfsrt_codec_new(ipfsrt_codec **out, const char *name, const char *config, size_t itemsize,
                                          ipfsrt_error *err);
/** Releases a codec and its working memory.
 * @param c the codec, or NULL
 * @owner c is freed */
IPFSRT_API void ipfsrt_codec_free(ipfsrt_codec *c);
/** The codec's name (numcodecs' id), without any "numcodecs." prefix.
 * @param c the codec
 * @return the name
 * @owner the codec's */
IPFSRT_API const char *ipfsrt_codec_id(const ipfsrt_codec *c);

/** Decodes src into exactly dst_len bytes at dst.
 * @param c the codec
 * @param src src_len encoded bytes (untrusted)
 * @param src_len how many
 * @param dst room for dst_len bytes
 * @param dst_len the size the data must decode to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA (corrupt data, or data that decodes to another size,
 * caught before a byte past dst is written); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                             size_t dst_len, ipfsrt_error *err);
/** Decodes src, which must decode to dst_len bytes, as far as the first need
 * bytes at dst: a selection that ends early in a chunk needs no more. Codecs
 * that can stop early (zstd, a block at a time) leave the rest of dst unwritten
 * and the data past it unchecked; the others decode it all.
 * @param c the codec
 * @param src src_len encoded bytes (untrusted)
 * @param src_len how many
 * @param dst room for dst_len bytes
 * @param dst_len the size the data must decode to
 * @param need the first bytes wanted
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA (corrupt data, or data that decodes to another size,
 * caught before a byte past dst is written); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode_prefix(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                                    size_t dst_len, size_t need, ipfsrt_error *err);
/** For the filters whose decoded data are as long as their encoded form
 * (shuffle, delta): how many first encoded bytes the first need decoded bytes
 * come from, so that the codec before them in a chain may stop early too.
 * @param c the codec
 * @param len the encoded length
 * @param need the first decoded bytes wanted
 * @param src_need set when the codec is such a filter
 * @return true for shuffle and delta, false for others */
IPFSRT_API bool ipfsrt_codec_prefix_needs(const ipfsrt_codec *c, size_t len, size_t need, size_t *src_need);
/** The decoded size, when src states it (zstd frame sizes, blosc's header,
 * lz4's prefix, crc32c and the filters' own sizes).
 * @param c the codec
 * @param src src_len encoded bytes (untrusted)
 * @param src_len how many
 * @param size set when known
 * @param known false when src does not state it (gzip, zlib, bz2, a zstd frame without its size)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA (a header that does not parse) */
IPFSRT_API ipfsrt_status ipfsrt_codec_decoded_size(const ipfsrt_codec *c, const void *src, size_t src_len, size_t *size,
                                                   bool *known, ipfsrt_error *err);
/** Decodes src whatever its decoded size, appending to out, failing past limit
 * bytes (for a codec in the middle of a chain, whose output size nothing states).
 * @param c the codec
 * @param src src_len encoded bytes (untrusted)
 * @param src_len how many
 * @param limit the most bytes accepted
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA; IPFSRT_ETOO_LARGE (past limit); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_codec_decode_any(const ipfsrt_codec *c, const void *src, size_t src_len, size_t limit,
                                                 ipfsrt_buf *out, ipfsrt_error *err);
/** Encodes src, appending to out.
 * @param c the codec
 * @param src src_len bytes
 * @param src_len how many
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a length the filter cannot take); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_codec_encode(const ipfsrt_codec *c, const void *src, size_t src_len, ipfsrt_buf *out,
                                             ipfsrt_error *err);

/** CRC-32C (Castagnoli) of n bytes, continuing from crc; the CPU's instruction
 * where it has one.
 * @param crc 0 to start, else the CRC so far
 * @param data n bytes
 * @param n how many
 * @return the CRC */
IPFSRT_API uint32_t ipfsrt_crc32c(uint32_t crc, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif
