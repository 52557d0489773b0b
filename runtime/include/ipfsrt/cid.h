/** @file
 * ipfsrt — content identifiers. */
#ifndef IPFSRT_CID_H
#define IPFSRT_CID_H

#include "multibase.h"
#include "multihash.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Multicodec codes of the codecs CIDs name. raw: the bytes themselves. */
#define IPFSRT_CODEC_RAW 0x55
/** cbor: plain CBOR, no links. */
#define IPFSRT_CODEC_CBOR 0x51
/** dag-pb: UnixFS nodes. */
#define IPFSRT_CODEC_DAG_PB 0x70
/** dag-cbor. */
#define IPFSRT_CODEC_DAG_CBOR 0x71
/** libp2p-key: a public key (IPNS names). */
#define IPFSRT_CODEC_LIBP2P_KEY 0x72
/** dag-json. */
#define IPFSRT_CODEC_DAG_JSON 0x0129
/** json. */
#define IPFSRT_CODEC_JSON 0x0200
/** car. */
#define IPFSRT_CODEC_CAR 0x0202
/** The most bytes a CID's binary form takes here. */
#define IPFSRT_CID_MAX_BYTES 160

/** A CID is a small value type: copy it freely. */
typedef struct ipfsrt_cid {
    uint8_t version;         /**< 0 or 1 */
    uint16_t len;            /**< bytes used in bytes[] */
    uint16_t mh_offset;      /**< where the multihash starts in bytes[] */
    uint16_t digest_offset;  /**< where the digest starts in bytes[] */
    uint16_t digest_len;     /**< the digest's bytes */
    uint64_t codec;          /**< the content's multicodec (IPFSRT_CODEC_...) */
    uint64_t hash_code;      /**< the hash function's multicodec (IPFSRT_MH_...) */
    uint8_t bytes[IPFSRT_CID_MAX_BYTES]; /**< binary form (CIDv0: the bare multihash) */
} ipfsrt_cid;

/** The multicodec table's name of a content codec ("dag-pb", "raw").
 * @param code a multicodec code
 * @return a static string, or NULL for a code not in the library's table
 * @owner the library's */
IPFSRT_API const char *ipfsrt_codec_name(uint64_t code);
/** The code of a content codec named as ipfsrt_codec_name names it.
 * @param name the name
 * @param code set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: a name not in the table */
IPFSRT_API ipfsrt_status ipfsrt_codec_code(const char *name, uint64_t *code, ipfsrt_error *err);

/** Parses a binary CID.
 * @param cid set on success
 * @param buf the bytes (untrusted: only len of them are read)
 * @param len how many
 * @param used NULL: the whole buffer must be the CID; else it is read from the start of buf and *used says how long it was
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID: empty, cut short, a bad version or prefix, too long;
 * IPFSRT_EBAD_MULTIHASH: its multihash; IPFSRT_EUNSUPPORTED: a reserved version; IPFSRT_ETRAILING_DATA: bytes after it when used is NULL */
IPFSRT_API ipfsrt_status ipfsrt_cid_from_bytes(ipfsrt_cid *cid, const uint8_t *buf, size_t len, size_t *used,
                                               ipfsrt_error *err);
/** Parses a CID string: bare base58btc for a CIDv0, multibase for a CIDv1.
 * @param cid set on success
 * @param s the text (untrusted: only slen characters are read)
 * @param slen its length
 * @param base the base it was written in, when not NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID: empty, cut short, a bad version or prefix, too long;
 * IPFSRT_EBAD_MULTIHASH: its multihash; IPFSRT_EUNSUPPORTED: a reserved version; IPFSRT_EBAD_MULTIBASE: its text; IPFSRT_ETRAILING_DATA */
IPFSRT_API ipfsrt_status ipfsrt_cid_parse(ipfsrt_cid *cid, const char *s, size_t slen, ipfsrt_base *base,
                                          ipfsrt_error *err);
/** A CID from its parts.
 * @param cid set on success
 * @param version 0 (dag-pb and sha2-256 only) or 1
 * @param codec the content codec
 * @param hash_code the multihash function
 * @param digest digest_len bytes (copied)
 * @param digest_len at most IPFSRT_MH_MAX_DIGEST
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ETOO_LARGE: the digest; IPFSRT_EBAD_ARGUMENT: a CIDv0 of another codec or hash, codes out of range; IPFSRT_EUNSUPPORTED: another version */
IPFSRT_API ipfsrt_status ipfsrt_cid_create(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                           const uint8_t *digest, size_t digest_len, ipfsrt_error *err);
/** Hashes data and builds its CID (a full-length digest).
 * @param cid set on success
 * @param version 0 or 1
 * @param codec the content codec
 * @param hash_code identity, sha2-256 or sha2-512
 * @param data len bytes
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_multihash_sum and ipfsrt_cid_create */
IPFSRT_API ipfsrt_status ipfsrt_cid_sum(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                        const uint8_t *data, size_t len, ipfsrt_error *err);
/** Writes a CID as text: a CIDv0 only as bare base58btc, a CIDv1 in any base.
 * @param cid the CID
 * @param base the base
 * @param out the text and a NUL
 * @param out_size out's room (IPFSRT_CID_STR_MAX always suffices)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: a CIDv0 in another base; IPFSRT_EBAD_ARGUMENT: out too small */
IPFSRT_API ipfsrt_status ipfsrt_cid_format(const ipfsrt_cid *cid, ipfsrt_base base, char *out,
                                           size_t out_size, ipfsrt_error *err);
/** The default text of a CID: base58btc for v0, base32 for v1. Never fails (an
 * invalid CID struct reads "(invalid CID)").
 * @param cid the CID
 * @param out room for IPFSRT_CID_STR_MAX
 * @return out
 * @owner the caller's out */
IPFSRT_API const char *ipfsrt_cid_to_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]);
/** The CIDv1 of a CID (a CIDv1 is copied as it is).
 * @param cid the CID
 * @param out set (may be cid itself) */
IPFSRT_API void ipfsrt_cid_to_v1(const ipfsrt_cid *cid, ipfsrt_cid *out);
/** The CIDv0 of a CIDv1 of dag-pb and sha2-256 (a CIDv0 is copied).
 * @param cid the CID
 * @param out set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: another codec or hash has no CIDv0 */
IPFSRT_API ipfsrt_status ipfsrt_cid_to_v0(const ipfsrt_cid *cid, ipfsrt_cid *out, ipfsrt_error *err);
/** Whether two CIDs are the same bytes (a CIDv0 and its CIDv1 are not).
 * @param a a CID
 * @param b another
 * @return true when equal */
IPFSRT_API bool ipfsrt_cid_equal(const ipfsrt_cid *a, const ipfsrt_cid *b);
/** The multihash part of the binary form.
 * @param cid the CID
 * @param len set to its length
 * @return a pointer into cid->bytes
 * @owner borrows cid: valid as long as it is */
IPFSRT_API const uint8_t *ipfsrt_cid_multihash(const ipfsrt_cid *cid, size_t *len);
/** ipfsrt_cid_verify hashing with a backend of the caller's choice.
 * @param cid the CID
 * @param data the block's len bytes
 * @param len how many
 * @param backend NULL = the current one
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK when data is the block the CID names
 * @errors as ipfsrt_cid_verify */
IPFSRT_API ipfsrt_status ipfsrt_cid_verify_with(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                                const ipfsrt_hash_backend *backend, ipfsrt_error *err);
/** Checks that data is the block this CID names: hashes it and compares, or
 * for an identity CID compares the bytes.
 * @param cid the CID
 * @param data the block's len bytes
 * @param len how many
 * @param err filled on failure, naming the CID
 * @return IPFSRT_OK when data is the block the CID names
 * @errors IPFSRT_EHASH_MISMATCH; IPFSRT_EUNSUPPORTED: a hash function this library
 * cannot compute, or a digest shorter than IPFSRT_MH_MIN_SECURE_DIGEST (never
 * accepted unverified) */
IPFSRT_API ipfsrt_status ipfsrt_cid_verify(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                           ipfsrt_error *err);

/** ipfsrt_fail naming a CID: the message starts with "block <cid>", and
 * err->cid holds its text.
 * @param err filled when not NULL
 * @param code the status to report
 * @param cid the CID at fault
 * @param offset the byte offset at fault; < 0 for none
 * @param fmt printf-style message, then its arguments
 * @return code
 * @errors none of its own: it returns the code given */
IPFSRT_API ipfsrt_status ipfsrt_fail_cid(ipfsrt_error *err, ipfsrt_status code, const ipfsrt_cid *cid,
                                         int64_t offset, const char *fmt, ...) IPFSRT_PRINTF(5, 6);

#ifdef __cplusplus
}
#endif

#endif
