/** @file
 * ipfsrt — multihashes. */
#ifndef IPFSRT_MULTIHASH_H
#define IPFSRT_MULTIHASH_H

#include "hash.h"
#include "varint.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The identity "hash": the bytes themselves. */
#define IPFSRT_MH_IDENTITY 0x00
/** The multicodec code of SHA-256. */
#define IPFSRT_MH_SHA2_256 0x12
/** The multicodec code of SHA-512. */
#define IPFSRT_MH_SHA2_512 0x13
#define IPFSRT_MH_MAX_DIGEST 128 /**< the ecosystem's bound (boxo verifcid) */
/** Digests shorter than this (but identity) are refused as too weak. */
#define IPFSRT_MH_MIN_SECURE_DIGEST 20

/** A whole multihash as ipfsrt_multihash_sum writes it: code and length
 * (varints), then the digest. */
#define IPFSRT_MH_MAX_BYTES (2 * IPFSRT_VARINT_MAX_BYTES + IPFSRT_MH_MAX_DIGEST)
/** A multihash's bytes: ipfsrt_multihash_sum fills it. */
typedef struct ipfsrt_multihash_bytes {
    uint8_t data[IPFSRT_MH_MAX_BYTES]; /**< the multihash */
    size_t len;                        /**< its bytes */
} ipfsrt_multihash_bytes;

/** A parsed multihash: its function and digest. */
typedef struct ipfsrt_multihash {
    uint64_t code;         /**< the hash function's multicodec code */
    const uint8_t *digest; /**< borrowed from the parsed buffer */
    size_t digest_len;     /**< the digest's bytes */
} ipfsrt_multihash;

/** The multicodec table's name of a hash function code ("sha2-256").
 * @param code a multihash function code
 * @return a static string, or NULL for a code not in the library's table
 * @owner the library's */
IPFSRT_API const char *ipfsrt_multihash_name(uint64_t code);
/** The code of a hash function named as ipfsrt_multihash_name names it.
 * @param name the name
 * @param code set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: a name not in the table */
IPFSRT_API ipfsrt_status ipfsrt_multihash_code(const char *name, uint64_t *code, ipfsrt_error *err);
/** Whether blocks hashed with this function can be verified here: identity,
 * sha2-256 and sha2-512.
 * @param code a multihash function code
 * @return true when ipfsrt_multihash_sum computes it */
IPFSRT_API bool ipfsrt_multihash_supported(uint64_t code);
/** The digest length of a known fixed-size function.
 * @param code a multihash function code
 * @return bytes, 0 for identity and for codes not in the table */
IPFSRT_API size_t ipfsrt_multihash_native_size(uint64_t code);
/** Parses one multihash at the start of buf: its code, and its digest, which is
 * checked against IPFSRT_MH_MAX_DIGEST and, for known functions, their length.
 * @param buf the bytes (untrusted: only len of them are read)
 * @param len how many
 * @param mh set on success
 * @param used the bytes it took, when not NULL
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_MULTIHASH: cut short, a bad varint, a digest too long or of the wrong length for its function
 * @owner mh->digest borrows buf */
IPFSRT_API ipfsrt_status ipfsrt_multihash_parse(const uint8_t *buf, size_t len, ipfsrt_multihash *mh,
                                                size_t *used, ipfsrt_error *err);
/** Hashes data into a whole multihash (code, length, digest).
 * @param code identity, sha2-256 or sha2-512
 * @param data len bytes
 * @param len how many (at most IPFSRT_MH_MAX_DIGEST for identity)
 * @param digest_len 0 = the native length; a shorter one truncates
 * @param out set to the multihash, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: another function; IPFSRT_ETOO_LARGE: identity of more
 * than IPFSRT_MH_MAX_DIGEST bytes; IPFSRT_EBAD_ARGUMENT: digest_len past the native
 * one, out NULL; the hash backend's own failures */
IPFSRT_API ipfsrt_status ipfsrt_multihash_sum(uint64_t code, const uint8_t *data, size_t len, size_t digest_len,
                                              ipfsrt_multihash_bytes *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
