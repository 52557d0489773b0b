#include <string.h>

#include <mbedtls/sha256.h>
#include <mbedtls/sha512.h>

#include "internal.h"

static int mbedtls_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out) {
    switch (alg) {
    case IPFSRT_SHA2_256: return mbedtls_sha256_ret(data, len, out, 0);
    case IPFSRT_SHA2_512: return mbedtls_sha512_ret(data, len, out, 0);
    }
    return -1;
}

static const ipfsrt_hash_backend mbedtls_backend = {"mbedtls", mbedtls_digest};

#ifdef IPFSRT_HAVE_OPENSSL
#include <openssl/sha.h>

static int openssl_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out) {
    switch (alg) {
    case IPFSRT_SHA2_256: return SHA256(data, len, out) ? 0 : -1;
    case IPFSRT_SHA2_512: return SHA512(data, len, out) ? 0 : -1;
    }
    return -1;
}

static const ipfsrt_hash_backend openssl_backend = {"openssl", openssl_digest};
#endif

static const ipfsrt_hash_backend *const backends[] = {
#ifdef IPFSRT_HAVE_OPENSSL
    &openssl_backend,
#endif
    &mbedtls_backend,
    NULL,
};

/* The first entry is the fastest one built in. */
static const ipfsrt_hash_backend *current = NULL;

const ipfsrt_hash_backend *ipfsrt_hash_backend_current(void) {
    return current ? current : backends[0];
}

const ipfsrt_hash_backend *const *ipfsrt_hash_backends(void) { return backends; }

const ipfsrt_hash_backend *ipfsrt_hash_backend_find(const char *name) {
    for (size_t i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

ipfsrt_status ipfsrt_hash_backend_select(const char *name, ipfsrt_error *err) {
    const ipfsrt_hash_backend *b = ipfsrt_hash_backend_find(name);
    if (!b)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                           "hash backend '%s' is not built into this ipfsrt", name);
    current = b;
    return IPFSRT_OK;
}

size_t ipfsrt_hash_alg_size(ipfsrt_hash_alg alg) { return alg == IPFSRT_SHA2_512 ? 64 : 32; }

ipfsrt_status ipfsrt_hash_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                 ipfsrt_error *err) {
    const ipfsrt_hash_backend *b = ipfsrt_hash_backend_current();
    if (b->digest(alg, data, len, out) != 0)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "hash backend %s failed", b->name);
    return IPFSRT_OK;
}
