/** @file
 * ipfsrt — unsigned varints (multiformats). */
#ifndef IPFSRT_VARINT_H
#define IPFSRT_VARINT_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest varint multiformats allow: 9 bytes. */
#define IPFSRT_VARINT_MAX_BYTES 9
/** The largest value a varint may hold: 2^63 - 1. */
#define IPFSRT_VARINT_MAX_VALUE ((UINT64_C(1) << 63) - 1)

/** Decodes a minimal unsigned varint of at most 9 bytes from the start of buf.
 * @param buf the bytes (untrusted: only len of them are read)
 * @param len how many there are
 * @param value the number, on success
 * @param used the bytes it took, on success; may be NULL
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_ETRUNCATED: buf ends before the varint does (a streaming
 * caller waits for more bytes); IPFSRT_EBAD_VARINT: not minimal, or longer
 * than 9 bytes */
IPFSRT_API ipfsrt_status ipfsrt_varint_decode(const uint8_t *buf, size_t len, uint64_t *value, size_t *used,
                                              ipfsrt_error *err);
/** Encodes value as a minimal unsigned varint.
 * @param value at most IPFSRT_VARINT_MAX_VALUE
 * @param out room for IPFSRT_VARINT_MAX_BYTES
 * @return the bytes written, 0 when value is too large */
IPFSRT_API size_t ipfsrt_varint_encode(uint64_t value, uint8_t out[IPFSRT_VARINT_MAX_BYTES]);
/** The bytes ipfsrt_varint_encode writes for value.
 * @param value any
 * @return 1 to 9 (0 past IPFSRT_VARINT_MAX_VALUE) */
IPFSRT_API size_t ipfsrt_varint_size(uint64_t value);

#ifdef __cplusplus
}
#endif

#endif
