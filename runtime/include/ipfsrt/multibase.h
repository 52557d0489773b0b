/* ipfsrt — multibase encodings. */
#ifndef IPFSRT_MULTIBASE_H
#define IPFSRT_MULTIBASE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

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

IPFSRT_API const char *ipfsrt_multibase_name(ipfsrt_base base);
IPFSRT_API char ipfsrt_multibase_prefix(ipfsrt_base base);
IPFSRT_API ipfsrt_status ipfsrt_multibase_from_name(const char *name, ipfsrt_base *base, ipfsrt_error *err);
/* Characters needed to encode n bytes, including the prefix and a NUL. */
IPFSRT_API size_t ipfsrt_multibase_encoded_size(ipfsrt_base base, size_t n);
/* Writes prefix + encoding + NUL into out. */
IPFSRT_API ipfsrt_status ipfsrt_multibase_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                                 size_t out_size, size_t *out_len, ipfsrt_error *err);
/* Decodes a prefixed string; out needs at most slen bytes. base may be NULL. */
IPFSRT_API ipfsrt_status ipfsrt_multibase_decode(const char *s, size_t slen, uint8_t *out, size_t out_size,
                                                 size_t *out_len, ipfsrt_base *base, ipfsrt_error *err);
/* The same without the prefix character. */
IPFSRT_API ipfsrt_status ipfsrt_base_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                            size_t out_size, size_t *out_len, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_base_decode(ipfsrt_base base, const char *s, size_t slen, uint8_t *out,
                                            size_t out_size, size_t *out_len, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
