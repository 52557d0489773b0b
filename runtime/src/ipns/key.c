/* libp2p keys: Ed25519 (the default; 32-byte raw keys) through libsodium,
 * whose verification takes half of OpenSSL 3.0's time (a record read is one,
 * and the target is under 100 us: 56 us here, OpenSSL's own 126 us); RSA
 * (PKIX DER public keys, PKCS#1 DER private keys, PKCS#1 v1.5 signatures over
 * SHA-256) through OpenSSL's libcrypto; both in libp2p's protobufs:
 *   PublicKey / PrivateKey { required KeyType Type = 1; required bytes Data = 2; } */
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "ipld/protobuf.h"
#include "ipns/ipns_internal.h"

#define ED25519_BYTES 32
#define RSA_BITS 2048
#define RSA_MIN_BITS 1024 /* libp2p refuses smaller keys */
#define RSA_MAX_BITS 8192
#define INLINE_MAX 42 /* libp2p inlines public keys up to this size in names */

struct ipfsrt_key {
    ipfsrt_key_type type;
    EVP_PKEY *pkey;                     /* RSA */
    uint8_t ed25519[2 * ED25519_BYTES]; /* Ed25519: the seed, then the public key (libp2p's and libsodium's form) */
};

static bool sodium_ready(void) { return sodium_init() >= 0; } /* once; then a no-op, from any thread */

/* libcrypto's failures also queue errors on the thread: dropped, as ours say what failed. */
static ipfsrt_status crypto_failed(ipfsrt_error *err, const char *what) {
    ERR_clear_error();
    return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "libcrypto: %s failed", what);
}

ipfsrt_status ipfsrt_key_new_random(ipfsrt_key_type type, ipfsrt_key **key, ipfsrt_error *err) {
    IPFSRT_NEED(key, err);
    *key = NULL;
    if (type != IPFSRT_KEY_ED25519 && type != IPFSRT_KEY_RSA)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "key type %d: only Ed25519 and RSA keys are made", (int)type);
    ipfsrt_key *k = calloc(1, sizeof *k);
    if (!k) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    k->type = type;
    uint8_t pk[ED25519_BYTES];
    bool made = type == IPFSRT_KEY_ED25519 ? sodium_ready() && crypto_sign_keypair(pk, k->ed25519) == 0
                                           : (k->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)RSA_BITS)) != NULL;
    if (!made) {
        ipfsrt_key_free(k);
        return crypto_failed(err, "key generation");
    }
    *key = k;
    return IPFSRT_OK;
}

/* { Type, Data } from a key protobuf; unknown fields refused (keys are not extended). */
static ipfsrt_status key_message(const uint8_t *buf, size_t len, ipfsrt_key_type *type, const uint8_t **data,
                                 size_t *data_len, ipfsrt_error *err) {
    bool has_type = false, has_data = false;
    for (size_t pos = 0; pos < len;) {
        uint64_t tag, v;
        if (!pb_varint(buf, len, &pos, &tag)) break;
        if (tag == (1 << 3 | PB_VARINT) && pb_varint(buf, len, &pos, &v) && v <= IPFSRT_KEY_ECDSA) {
            *type = (ipfsrt_key_type)v;
            has_type = true;
        } else if (tag == (2 << 3 | PB_LEN) && pb_bytes(buf, len, &pos, data, data_len)) {
            has_data = true;
        } else {
            return ipfsrt_fail(err, IPFSRT_EBAD_RECORD, (int64_t)pos, "key protobuf: bad field at byte offset %zu", pos);
        }
    }
    if (!has_type || !has_data)
        return ipfsrt_fail(err, IPFSRT_EBAD_RECORD, -1, "key protobuf: no %s", has_type ? "Data" : "Type");
    return IPFSRT_OK;
}

static ipfsrt_status key_message_encode(ipfsrt_key_type type, const uint8_t *data, size_t len, ipfsrt_buf *out,
                                        ipfsrt_error *err) {
    pb_put_key(out, 1, PB_VARINT);
    pb_put_varint(out, (uint64_t)type);
    pb_put_bytes(out, 2, data, len);
    return out->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

static bool rsa_size_ok(const EVP_PKEY *pkey) {
    int bits = EVP_PKEY_get_bits(pkey);
    return EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA && bits >= RSA_MIN_BITS && bits <= RSA_MAX_BITS;
}

/* Ed25519 private Data: the 32-byte seed, then the public key it makes. */
static bool ed25519_private(const uint8_t *data, size_t len, uint8_t out[2 * ED25519_BYTES]) {
    uint8_t pk[ED25519_BYTES];
    return len == 2 * ED25519_BYTES && sodium_ready() && crypto_sign_seed_keypair(pk, out, data) == 0 &&
           memcmp(pk, data + ED25519_BYTES, ED25519_BYTES) == 0;
}

ipfsrt_status ipfsrt_key_new_private(const uint8_t *buf, size_t len, ipfsrt_key **key, ipfsrt_error *err) {
    IPFSRT_NEED(buf || !len, err);
    IPFSRT_NEED(key, err);
    *key = NULL;
    ipfsrt_key_type type = IPFSRT_KEY_RSA;
    const uint8_t *data = NULL;
    size_t data_len = 0;
    ipfsrt_status st = key_message(buf, len, &type, &data, &data_len, err);
    if (st != IPFSRT_OK) return st;
    if (type != IPFSRT_KEY_ED25519 && type != IPFSRT_KEY_RSA)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "private key of type %d: only Ed25519 and RSA are read", (int)type);
    ipfsrt_key *k = calloc(1, sizeof *k);
    if (!k) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    k->type = type;
    bool read = false;
    if (type == IPFSRT_KEY_ED25519) {
        read = ed25519_private(data, data_len, k->ed25519);
    } else if (data_len <= LONG_MAX) {
        const unsigned char *p = data;
        k->pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)data_len);
        read = k->pkey && p == data + data_len && rsa_size_ok(k->pkey);
    }
    ERR_clear_error();
    if (!read) {
        ipfsrt_key_free(k);
        return ipfsrt_fail(err, IPFSRT_EBAD_RECORD, -1, "private key: its %s data does not read as one",
                           type == IPFSRT_KEY_ED25519 ? "Ed25519" : "RSA");
    }
    *key = k;
    return IPFSRT_OK;
}

void ipfsrt_key_free(ipfsrt_key *key) {
    if (!key) return;
    EVP_PKEY_free(key->pkey); /* libcrypto clears private key material it frees */
    sodium_memzero(key->ed25519, sizeof key->ed25519);
    free(key);
}

ipfsrt_key_type ipfsrt_key_kind(const ipfsrt_key *key) {
    IPFSRT_NEED_OR(key, IPFSRT_KEY_ED25519);
    return key->type;
}

/* A key's Data, DER or raw, as libcrypto writes it (private or public). */
static ipfsrt_status key_data(const ipfsrt_key *key, bool private_part, ipfsrt_buf *out, ipfsrt_error *err) {
    if (key->type == IPFSRT_KEY_ED25519)
        return private_part ? key_message_encode(key->type, key->ed25519, sizeof key->ed25519, out, err)
                            : key_message_encode(key->type, key->ed25519 + ED25519_BYTES, ED25519_BYTES, out, err);
    unsigned char *der = NULL;
    int n = private_part ? i2d_PrivateKey(key->pkey, &der) : i2d_PUBKEY(key->pkey, &der);
    if (n <= 0) return crypto_failed(err, "writing an RSA key");
    ipfsrt_status st = key_message_encode(key->type, der, (size_t)n, out, err);
    OPENSSL_clear_free(der, (size_t)n);
    return st;
}

ipfsrt_status ipfsrt_key_private_encode(const ipfsrt_key *key, ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(key && out, err);
    return key_data(key, true, out, err);
}

ipfsrt_status ipfsrt_key_public_encode(const ipfsrt_key *key, ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(key && out, err);
    return key_data(key, false, out, err);
}

ipfsrt_status ipfsrt_pubkey_name(const uint8_t *pub, size_t len, ipfsrt_cid *name, ipfsrt_error *err) {
    if (len <= INLINE_MAX)
        return ipfsrt_cid_create(name, 1, IPFSRT_CODEC_LIBP2P_KEY, IPFSRT_MH_IDENTITY, pub, len, err);
    return ipfsrt_cid_sum(name, 1, IPFSRT_CODEC_LIBP2P_KEY, IPFSRT_MH_SHA2_256, pub, len, err);
}

ipfsrt_status ipfsrt_key_name(const ipfsrt_key *key, ipfsrt_cid *name, ipfsrt_error *err) {
    IPFSRT_NEED(key && name, err);
    ipfsrt_buf pub;
    ipfsrt_buf_init(&pub);
    ipfsrt_status st = key_data(key, false, &pub, err);
    if (st == IPFSRT_OK) st = ipfsrt_pubkey_name(pub.data, pub.len, name, err);
    ipfsrt_buf_free(&pub);
    return st;
}

ipfsrt_status ipfsrt_key_sign(const ipfsrt_key *key, const uint8_t *msg, size_t len, ipfsrt_buf *out,
                              ipfsrt_error *err) {
    if (key->type == IPFSRT_KEY_ED25519) {
        uint8_t *sig = ipfsrt_buf_reserve(out, crypto_sign_BYTES);
        if (!sig || crypto_sign_detached(sig, NULL, msg, len, key->ed25519) != 0) return crypto_failed(err, "signing");
        out->len += crypto_sign_BYTES;
        return IPFSRT_OK;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t sig_len = 0;
    bool ok = ctx && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key->pkey) == 1 &&
              EVP_DigestSign(ctx, NULL, &sig_len, msg, len) == 1;
    uint8_t *sig = ok ? ipfsrt_buf_reserve(out, sig_len) : NULL;
    ok = sig && EVP_DigestSign(ctx, sig, &sig_len, msg, len) == 1;
    if (ok) out->len += sig_len;
    EVP_MD_CTX_free(ctx);
    return ok ? IPFSRT_OK : crypto_failed(err, "signing");
}

/* An RSA public key in libp2p's Data as libcrypto's, NULL when it is not one. */
static EVP_PKEY *rsa_decode(const uint8_t *data, size_t len) {
    if (len > LONG_MAX) return NULL;
    const unsigned char *p = data;
    EVP_PKEY *pkey = d2i_PUBKEY(NULL, &p, (long)len);
    if (pkey && (p != data + len || !rsa_size_ok(pkey))) {
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    return pkey;
}

/* The last RSA keys read, by their DER: OpenSSL 3's decoders take several
 * times the verification itself, and a name's key comes in each of its
 * records (the process's, shared by its threads). */
#define RSA_KEPT 8
#define RSA_DER_MAX 1200 /* an 8192-bit key's PKIX DER, and room */

static struct {
    uint8_t der[RSA_DER_MAX];
    size_t len;
    EVP_PKEY *pkey;
} rsa_kept[RSA_KEPT];
static size_t rsa_next;
static pthread_mutex_t rsa_lock = PTHREAD_MUTEX_INITIALIZER;

/* The key (a reference of the caller's: EVP_PKEY_free), NULL when the DER is not one. */
static EVP_PKEY *rsa_public_key(const uint8_t *data, size_t len) {
    EVP_PKEY *pkey = NULL;
    pthread_mutex_lock(&rsa_lock);
    for (size_t i = 0; i < RSA_KEPT && !pkey; i++)
        if (rsa_kept[i].pkey && rsa_kept[i].len == len && memcmp(rsa_kept[i].der, data, len) == 0 &&
            EVP_PKEY_up_ref(rsa_kept[i].pkey))
            pkey = rsa_kept[i].pkey;
    pthread_mutex_unlock(&rsa_lock);
    if (pkey || !(pkey = rsa_decode(data, len)) || len > RSA_DER_MAX || !EVP_PKEY_up_ref(pkey)) return pkey;
    pthread_mutex_lock(&rsa_lock);
    size_t slot = rsa_next++ % RSA_KEPT;
    EVP_PKEY_free(rsa_kept[slot].pkey);
    memcpy(rsa_kept[slot].der, data, len);
    rsa_kept[slot].len = len;
    rsa_kept[slot].pkey = pkey; /* the reference taken above */
    pthread_mutex_unlock(&rsa_lock);
    return pkey;
}

ipfsrt_status ipfsrt_pubkey_verify(const uint8_t *pub, size_t pub_len, const uint8_t *msg, size_t msg_len,
                                   const uint8_t *sig, size_t sig_len, ipfsrt_key_type *type, ipfsrt_error *err) {
    const uint8_t *data = NULL;
    size_t data_len = 0;
    ipfsrt_status st = key_message(pub, pub_len, type, &data, &data_len, err);
    if (st != IPFSRT_OK) return st;
    if (*type != IPFSRT_KEY_ED25519 && *type != IPFSRT_KEY_RSA)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "public key of type %d: only Ed25519 and RSA are verified",
                           (int)*type);
    if (*type == IPFSRT_KEY_ED25519) {
        if (data_len != ED25519_BYTES || !sodium_ready())
            return ipfsrt_fail(err, IPFSRT_EBAD_RECORD, -1, "public key: its Ed25519 data does not read as one");
        return sig_len == crypto_sign_BYTES && crypto_sign_verify_detached(sig, msg, msg_len, data) == 0
                   ? IPFSRT_OK
                   : ipfsrt_fail(err, IPFSRT_EBAD_SIGNATURE, -1, "the signature does not verify");
    }
    EVP_PKEY *pkey = rsa_public_key(data, data_len);
    ERR_clear_error();
    if (!pkey) return ipfsrt_fail(err, IPFSRT_EBAD_RECORD, -1, "public key: its RSA data does not read as one");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, pkey) == 1
                 ? EVP_DigestVerify(ctx, sig, sig_len, msg, msg_len)
                 : -1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    ERR_clear_error();
    if (rc < 0 && !ctx) return crypto_failed(err, "verifying");
    return rc == 1 ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EBAD_SIGNATURE, -1, "the signature does not verify");
}
