/* What the IPNS files share: libp2p key protobufs, signatures, and RFC 3339
 * times. Not part of the public API. */
#ifndef IPFSRT_IPNS_INTERNAL_H
#define IPFSRT_IPNS_INTERNAL_H

#include "ipfsrt/ipns.h"
#include "base/base_internal.h"

/* The bytes a key's signature covers, signed (Ed25519: the message itself;
 * RSA: PKCS#1 v1.5 over its SHA-256), appended to out. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_key_sign(const ipfsrt_key *key, const uint8_t *msg, size_t len,
                                             ipfsrt_buf *out, ipfsrt_error *err);
/* Whether sig is a valid signature of msg by the public key in pub (libp2p's
 * PublicKey protobuf, untrusted): IPFSRT_OK, IPFSRT_EBAD_SIGNATURE, or why the
 * key cannot be read (IPFSRT_EBAD_RECORD, IPFSRT_EUNSUPPORTED). *type is set
 * once the key is read. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_pubkey_verify(const uint8_t *pub, size_t pub_len, const uint8_t *msg,
                                                  size_t msg_len, const uint8_t *sig, size_t sig_len,
                                                  ipfsrt_key_type *type, ipfsrt_error *err);
/* The name a PublicKey protobuf hashes to (identity when it is 42 bytes or
 * fewer, as libp2p inlines Ed25519 keys; SHA-256 otherwise). */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_pubkey_name(const uint8_t *pub, size_t len, ipfsrt_cid *name, ipfsrt_error *err);

/* "2024-02-29T12:00:00.000000001Z" (offsets too) as seconds since the epoch
 * and nanoseconds; false when it is not RFC 3339. */
IPFSRT_PRIVATE bool ipfsrt_rfc3339_parse(const char *s, size_t len, int64_t *seconds, uint32_t *nanos);
/* The same, written in UTC with nine fractional digits; false outside years
 * 1-9999. out needs 40 bytes. */
IPFSRT_PRIVATE bool ipfsrt_rfc3339_format(int64_t seconds, uint32_t nanos, char out[40]);

#endif
