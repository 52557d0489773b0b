/* ipfsrt — content identifiers. */
#ifndef IPFSRT_CID_H
#define IPFSRT_CID_H

#include "multibase.h"
#include "multihash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPFSRT_CODEC_RAW 0x55
#define IPFSRT_CODEC_DAG_PB 0x70
#define IPFSRT_CODEC_DAG_CBOR 0x71
#define IPFSRT_CODEC_LIBP2P_KEY 0x72
#define IPFSRT_CODEC_DAG_JSON 0x0129
#define IPFSRT_CODEC_JSON 0x0200
#define IPFSRT_CODEC_CAR 0x0202
#define IPFSRT_CID_MAX_BYTES 160

/* A CID is a small value type: copy it freely. */
typedef struct ipfsrt_cid {
    uint8_t version;         /* 0 or 1 */
    uint16_t len;            /* bytes used in bytes[] */
    uint16_t mh_offset;      /* where the multihash starts in bytes[] */
    uint16_t digest_offset;  /* where the digest starts in bytes[] */
    uint16_t digest_len;
    uint64_t codec;
    uint64_t hash_code;
    uint8_t bytes[IPFSRT_CID_MAX_BYTES]; /* binary form (CIDv0: the bare multihash) */
} ipfsrt_cid;

/* Name of a known codec, or NULL. */
IPFSRT_API const char *ipfsrt_codec_name(uint64_t code);
IPFSRT_API ipfsrt_status ipfsrt_codec_code(const char *name, uint64_t *code, ipfsrt_error *err);

/* Parses a binary CID. With used == NULL the whole buffer must be the CID;
 * otherwise it is read from the start of buf and *used says how long it was. */
IPFSRT_API ipfsrt_status ipfsrt_cid_from_bytes(ipfsrt_cid *cid, const uint8_t *buf, size_t len, size_t *used,
                                               ipfsrt_error *err);
/* Parses a CID string (bare base58 CIDv0 or multibase CIDv1). base may be NULL. */
IPFSRT_API ipfsrt_status ipfsrt_cid_parse(ipfsrt_cid *cid, const char *s, size_t slen, ipfsrt_base *base,
                                          ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_cid_create(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                           const uint8_t *digest, size_t digest_len, ipfsrt_error *err);
/* Hashes data and builds its CID (full-length digest). */
IPFSRT_API ipfsrt_status ipfsrt_cid_sum(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                        const uint8_t *data, size_t len, ipfsrt_error *err);
/* CIDv0 formats only as bare base58btc; CIDv1 takes any base. */
IPFSRT_API ipfsrt_status ipfsrt_cid_format(const ipfsrt_cid *cid, ipfsrt_base base, char *out,
                                           size_t out_size, ipfsrt_error *err);
/* Default form: base58btc for v0, base32 for v1. Never fails. */
IPFSRT_API const char *ipfsrt_cid_to_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]);
IPFSRT_API void ipfsrt_cid_to_v1(const ipfsrt_cid *cid, ipfsrt_cid *out);
IPFSRT_API ipfsrt_status ipfsrt_cid_to_v0(const ipfsrt_cid *cid, ipfsrt_cid *out, ipfsrt_error *err);
IPFSRT_API bool ipfsrt_cid_equal(const ipfsrt_cid *a, const ipfsrt_cid *b);
/* The multihash part of the binary form. */
IPFSRT_API const uint8_t *ipfsrt_cid_multihash(const ipfsrt_cid *cid, size_t *len);
/* Checks that data is the block this CID names: hash and compare, or for an
 * identity CID compare the bytes. Digests shorter than 20 bytes are refused. */
/* ipfsrt_cid_verify hashing with backend (NULL: the current one). */
IPFSRT_API ipfsrt_status ipfsrt_cid_verify_with(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                                const ipfsrt_hash_backend *backend, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_cid_verify(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                           ipfsrt_error *err);

/* ipfsrt_fail naming a CID: the message starts with "block <cid>". */
IPFSRT_API ipfsrt_status ipfsrt_fail_cid(ipfsrt_error *err, ipfsrt_status code, const ipfsrt_cid *cid,
                                         int64_t offset, const char *fmt, ...) IPFSRT_PRINTF(5, 6);

#ifdef __cplusplus
}
#endif

#endif
