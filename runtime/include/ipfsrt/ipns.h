/** @file
 * ipfsrt — IPNS: names (the hash of a public key), the keys that sign for
 * them (libp2p's key formats), and records (the "IPNS Record and
 * Verification" spec): made, parsed and verified. Ed25519 signatures go
 * through libsodium, RSA ones through OpenSSL's libcrypto, whichever hash
 * backend the build has. */
#ifndef IPFSRT_IPNS_H
#define IPFSRT_IPNS_H

#include "buf.h"
#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The largest record the spec has implementations take (bytes of the IpnsEntry). */
#define IPFSRT_IPNS_MAX_RECORD 10240
/** Room for a name's text (base36 CIDv1), NUL included. */
#define IPFSRT_IPNS_NAME_MAX 128

/** libp2p's key types (the KeyType enum of its key protobufs). */
typedef enum ipfsrt_key_type {
    IPFSRT_KEY_RSA = 0,       /**< RSA (legacy names; verified, and made on request) */
    IPFSRT_KEY_ED25519 = 1,   /**< Ed25519: the default */
    IPFSRT_KEY_SECP256K1 = 2, /**< secp256k1 (not supported) */
    IPFSRT_KEY_ECDSA = 3,     /**< ECDSA (not supported) */
} ipfsrt_key_type;

/** A private key that signs records: the library's (ipfsrt_key_new_*, ipfsrt_key_free). */
typedef struct ipfsrt_key ipfsrt_key;

/** A new random key.
 * @param type IPFSRT_KEY_ED25519, or IPFSRT_KEY_RSA (2048 bits)
 * @param key set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (another type); IPFSRT_EOUT_OF_MEMORY
 * @owner *key is the caller's: ipfsrt_key_free */
IPFSRT_API ipfsrt_status ipfsrt_key_new_random(ipfsrt_key_type type, ipfsrt_key **key, ipfsrt_error *err);
/** A key from libp2p's PrivateKey protobuf (Ed25519: 64 bytes, seed then
 * public key; RSA: PKCS#1 DER), as Kubo and js-libp2p store them.
 * @param buf the protobuf (untrusted: only len bytes are read)
 * @param len its bytes
 * @param key set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RECORD (malformed; an Ed25519 key whose halves disagree);
 * IPFSRT_EUNSUPPORTED (another type); IPFSRT_EOUT_OF_MEMORY
 * @owner *key is the caller's: ipfsrt_key_free */
IPFSRT_API ipfsrt_status ipfsrt_key_new_private(const uint8_t *buf, size_t len, ipfsrt_key **key,
                                                ipfsrt_error *err);
/** Releases a key (its private bytes wiped).
 * @param key the key, or NULL
 * @owner the key is freed */
IPFSRT_API void ipfsrt_key_free(ipfsrt_key *key);
/** The key's type.
 * @param key the key
 * @return its type (NULL: IPFSRT_KEY_ED25519) */
IPFSRT_API ipfsrt_key_type ipfsrt_key_kind(const ipfsrt_key *key);
/** Appends libp2p's PrivateKey protobuf of the key (what a keystore holds).
 * @param key the key
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_key_private_encode(const ipfsrt_key *key, ipfsrt_buf *out, ipfsrt_error *err);
/** Appends libp2p's PublicKey protobuf of the key (what a name hashes).
 * @param key the key
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_key_public_encode(const ipfsrt_key *key, ipfsrt_buf *out, ipfsrt_error *err);
/** The name the key signs for: a CIDv1 libp2p-key of its public key's
 * multihash (identity for Ed25519, SHA-256 for RSA).
 * @param key the key
 * @param name set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_key_name(const ipfsrt_key *key, ipfsrt_cid *name, ipfsrt_error *err);

/** A name in any form users paste: a CIDv1 libp2p-key in any multibase
 * (k51... base36, bafz... base32), or a legacy peer ID (base58btc
 * multihash: 12D3KooW..., Qm...); /ipns/ and ipns:// in front are allowed.
 * @param s the text (untrusted: only len characters are read)
 * @param len its length
 * @param name set to the CIDv1 libp2p-key
 * @param err filled on failure, naming the text
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID (not a key's name: another codec, a multihash
 * other than identity or sha2-256) and the CID parser's errors */
IPFSRT_API ipfsrt_status ipfsrt_ipns_name_parse(const char *s, size_t len, ipfsrt_cid *name, ipfsrt_error *err);
/** A name's canonical text: base36 CIDv1 (k51...).
 * @param name the name
 * @param out IPFSRT_IPNS_NAME_MAX bytes
 * @return out (NULL when name or out is)
 * @owner out is the caller's */
IPFSRT_API const char *ipfsrt_ipns_name_format(const ipfsrt_cid *name, char out[IPFSRT_IPNS_NAME_MAX]);

/** What a verified record says: the caller's struct (ipfsrt_ipns_record_init,
 * ipfsrt_ipns_record_free). */
typedef struct ipfsrt_ipns_record {
    char *value;            /**< the path it points at, NUL-terminated ("/ipfs/CID/path") */
    uint64_t sequence;      /**< its version */
    uint64_t ttl_ns;        /**< how long it may be cached, nanoseconds */
    int64_t eol_seconds;    /**< valid until (seconds since the epoch) ... */
    uint32_t eol_nanos;     /**< ... and nanoseconds */
    char validity[64];      /**< that time as the record writes it (RFC 3339) */
    bool has_v1;            /**< it carries the legacy V1 fields (equal to the signed ones) */
    ipfsrt_key_type key_type; /**< the type of the key that signed it */
} ipfsrt_ipns_record;

/** Empties a record struct.
 * @param rec the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_ipns_record_init(ipfsrt_ipns_record *rec);
/** Releases what a record struct holds and empties it.
 * @param rec the caller's struct, or NULL
 * @owner rec->value is freed; the struct stays the caller's */
IPFSRT_API void ipfsrt_ipns_record_free(ipfsrt_ipns_record *rec);

/** Verifies a record for a name by the spec's rules, failing on the first
 * broken one: at most IPFSRT_IPNS_MAX_RECORD bytes; signatureV2 and data
 * present; the public key from pubKey (whose hash must be the name's) or
 * inlined in the name; data strict DAG-CBOR with Value, Validity,
 * ValidityType 0, Sequence and TTL; the V2 signature over "ipns-signature:"
 * and data; V1 fields, when present, equal to data's; the EOL later than now.
 * @param name the name the record was asked for
 * @param buf the record (untrusted: only len bytes are read)
 * @param len its bytes
 * @param now_seconds the time to judge the EOL by (seconds since the epoch);
 * INT64_MIN: not judged (an expired record verifies)
 * @param rec filled on success (released first)
 * @param err filled on failure, naming the name and what is wrong
 * @return IPFSRT_OK
 * @errors IPFSRT_ETOO_LARGE (over the limit); IPFSRT_EBAD_RECORD (malformed, a
 * missing field, V1 fields that differ, a key whose hash is not the name);
 * IPFSRT_EBAD_SIGNATURE (the signature does not verify); IPFSRT_EEXPIRED;
 * IPFSRT_EUNSUPPORTED (a key type not supported); IPFSRT_EOUT_OF_MEMORY
 * @owner rec->value is the caller's (ipfsrt_ipns_record_free) */
IPFSRT_API ipfsrt_status ipfsrt_ipns_record_verify(const ipfsrt_cid *name, const uint8_t *buf, size_t len,
                                                   int64_t now_seconds, ipfsrt_ipns_record *rec, ipfsrt_error *err);

/** What a new record says (size first: ipfsrt_ipns_create_options_init). */
typedef struct ipfsrt_ipns_create_options {
    size_t size;            /**< sizeof the struct: set by ipfsrt_ipns_create_options_init */
    const char *value;      /**< the path it points at ("/ipfs/CID[/path]"); required */
    uint64_t sequence;      /**< its version */
    int64_t eol_seconds;    /**< valid until (seconds since the epoch) ... */
    uint32_t eol_nanos;     /**< ... and nanoseconds */
    uint64_t ttl_ns;        /**< how long readers may cache it; default 5 minutes */
    bool v1;                /**< also the legacy V1 fields and signature (for old readers) */
} ipfsrt_ipns_create_options;
/** The defaults (TTL 5 minutes, V2 only), size set.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_ipns_create_options_init(ipfsrt_ipns_create_options *opts);
/** Appends a new record signed by key (the public key included for RSA).
 * @param key the signing key
 * @param opts what it says
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (no value, an EOL outside years 1-9999);
 * IPFSRT_ETOO_LARGE (over IPFSRT_IPNS_MAX_RECORD); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_ipns_record_create(const ipfsrt_key *key, const ipfsrt_ipns_create_options *opts,
                                                   ipfsrt_buf *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
