/** @file
 * ipfsrt — multibase encodings. */
#ifndef IPFSRT_MULTIBASE_H
#define IPFSRT_MULTIBASE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The multibase encodings read and written (the prefix each has in a multibase string). */
typedef enum ipfsrt_base {
    IPFSRT_BASE16,         /**< 'f': hex, lower case */
    IPFSRT_BASE16UPPER,    /**< 'F' */
    IPFSRT_BASE32,         /**< 'b': RFC 4648 lower case, no padding (CIDv1's default) */
    IPFSRT_BASE32UPPER,    /**< 'B' */
    IPFSRT_BASE32PAD,      /**< 'c' */
    IPFSRT_BASE32PADUPPER, /**< 'C' */
    IPFSRT_BASE36,         /**< 'k' */
    IPFSRT_BASE36UPPER,    /**< 'K' */
    IPFSRT_BASE58BTC,      /**< 'z' (CIDv0's, without the prefix) */
    IPFSRT_BASE64,         /**< 'm': RFC 4648, no padding */
    IPFSRT_BASE64PAD,      /**< 'M' */
    IPFSRT_BASE64URL,      /**< 'u' */
    IPFSRT_BASE64URLPAD,   /**< 'U' */
    IPFSRT_BASE_COUNT      /**< how many */
} ipfsrt_base;

/** The multibase table's name of a base ("base32", "base58btc").
 * @param base any value; those outside the enum are named "unknown"
 * @return a static string
 * @owner the library's */
IPFSRT_API const char *ipfsrt_multibase_name(ipfsrt_base base);
/** The prefix character of a base ('b' for base32).
 * @param base any value; '?' outside the enum
 * @return the character */
IPFSRT_API char ipfsrt_multibase_prefix(ipfsrt_base base);
/** The base a multibase name stands for.
 * @param name as ipfsrt_multibase_name gives them
 * @param base set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: no base of this name here */
IPFSRT_API ipfsrt_status ipfsrt_multibase_from_name(const char *name, ipfsrt_base *base, ipfsrt_error *err);
/** Characters needed to encode n bytes, including the prefix and a NUL.
 * @param base the base
 * @param n bytes to encode
 * @return the room ipfsrt_multibase_encode needs */
IPFSRT_API size_t ipfsrt_multibase_encoded_size(ipfsrt_base base, size_t n);
/** Writes the prefix, the encoding and a NUL into out.
 * @param base the base
 * @param data n bytes
 * @param n how many
 * @param out the text
 * @param out_size out's room (ipfsrt_multibase_encoded_size)
 * @param out_len the characters written without the NUL, when not NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: an unknown base, or out too small;
 * IPFSRT_ETOO_LARGE: over 4096 bytes in base36 or base58; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_multibase_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                                 size_t out_size, size_t *out_len, ipfsrt_error *err);
/** Decodes a prefixed string, its base named by its first character.
 * @param s the text (untrusted: only slen characters are read)
 * @param slen its length
 * @param out the bytes
 * @param out_size out's room: slen is always enough
 * @param out_len the bytes written, when not NULL
 * @param base the base found, when not NULL
 * @param err filled on failure, with the offset at fault in s
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_MULTIBASE: empty, a character outside the base, bits set
 * past the data, a string cut short, bad padding; IPFSRT_EUNSUPPORTED: a known
 * prefix this library does not decode; IPFSRT_EBAD_ARGUMENT: out too small;
 * IPFSRT_ETOO_LARGE: over 8192 characters of base36 or base58;
 * IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_multibase_decode(const char *s, size_t slen, uint8_t *out, size_t out_size,
                                                 size_t *out_len, ipfsrt_base *base, ipfsrt_error *err);
/** ipfsrt_multibase_encode without the prefix character.
 * @param base the base
 * @param data n bytes
 * @param n how many
 * @param out the text and a NUL
 * @param out_size out's room
 * @param out_len the characters written without the NUL, when not NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_multibase_encode */
IPFSRT_API ipfsrt_status ipfsrt_base_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                            size_t out_size, size_t *out_len, ipfsrt_error *err);
/** ipfsrt_multibase_decode of a string without its prefix, in a base given.
 * @param base the base
 * @param s the text (untrusted: only slen characters are read)
 * @param slen its length
 * @param out the bytes
 * @param out_size out's room: slen is always enough
 * @param out_len the bytes written, when not NULL
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors as ipfsrt_multibase_decode, but for the prefix */
IPFSRT_API ipfsrt_status ipfsrt_base_decode(ipfsrt_base base, const char *s, size_t slen, uint8_t *out,
                                            size_t out_size, size_t *out_len, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
