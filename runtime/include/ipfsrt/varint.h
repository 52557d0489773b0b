/* ipfsrt — unsigned varints (multiformats). */
#ifndef IPFSRT_VARINT_H
#define IPFSRT_VARINT_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPFSRT_VARINT_MAX_BYTES 9
#define IPFSRT_VARINT_MAX_VALUE ((UINT64_C(1) << 63) - 1)

/* Decodes a minimal unsigned varint of at most 9 bytes. Returns
 * IPFSRT_ETRUNCATED when buf ends before the varint does, so streaming callers
 * can wait for more bytes. */
IPFSRT_API ipfsrt_status ipfsrt_varint_decode(const uint8_t *buf, size_t len, uint64_t *value, size_t *used,
                                              ipfsrt_error *err);
/* Returns the number of bytes written, 0 when value > IPFSRT_VARINT_MAX_VALUE. */
IPFSRT_API size_t ipfsrt_varint_encode(uint64_t value, uint8_t out[IPFSRT_VARINT_MAX_BYTES]);
IPFSRT_API size_t ipfsrt_varint_size(uint64_t value);

#ifdef __cplusplus
}
#endif

#endif
