/* ipfsrt — multihashes. */
#ifndef IPFSRT_MULTIHASH_H
#define IPFSRT_MULTIHASH_H

#include "hash.h"

#ifdef __cplusplus
extern "C" {
#endif

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
IPFSRT_API const char *ipfsrt_multihash_name(uint64_t code);
IPFSRT_API ipfsrt_status ipfsrt_multihash_code(const char *name, uint64_t *code, ipfsrt_error *err);
IPFSRT_API bool ipfsrt_multihash_supported(uint64_t code);
/* Native digest length of a known fixed-size function, 0 otherwise. */
IPFSRT_API size_t ipfsrt_multihash_native_size(uint64_t code);
/* Parses one multihash at the start of buf; used tells how many bytes it took. */
IPFSRT_API ipfsrt_status ipfsrt_multihash_parse(const uint8_t *buf, size_t len, ipfsrt_multihash *mh,
                                                size_t *used, ipfsrt_error *err);
/* Hashes data into a full multihash. digest_len 0 = native length; a shorter
 * one truncates. out needs at most 2 * IPFSRT_VARINT_MAX_BYTES + 128 bytes. */
IPFSRT_API ipfsrt_status ipfsrt_multihash_sum(uint64_t code, const uint8_t *data, size_t len,
                                              size_t digest_len, uint8_t *out, size_t out_size,
                                              size_t *out_len, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
