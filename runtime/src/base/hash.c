#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "ipfsrt/hash.h"
#include "base/base_internal.h"

/* One backend a build (HASH=openssl or mbedtls): one crypto library linked. */

/* A provider's result (0: done) as a status naming the backend. */
static ipfsrt_status hash_result(bool ok, const char *backend, ipfsrt_error *err) {
    return ok ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "hash backend %s failed", backend);
}

/* ---------------------------------------------------------------- mbedTLS */

#ifndef IPFSRT_HAVE_OPENSSL
#include <mbedtls/sha256.h>
#include <mbedtls/sha512.h>

static ipfsrt_status hash_mbedtls_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                         ipfsrt_error *err) {
    int rc = alg == IPFSRT_SHA2_256 ? mbedtls_sha256_ret(data, len, out, 0)
             : alg == IPFSRT_SHA2_512 ? mbedtls_sha512_ret(data, len, out, 0) : -1;
    return hash_result(rc == 0, "mbedtls", err);
}

typedef struct hash_mbedtls_stream {
    ipfsrt_hash_alg alg;
    mbedtls_sha256_context sha256;
    mbedtls_sha512_context sha512;
} hash_mbedtls_stream;

static void *hash_mbedtls_stream_new(void) {
    hash_mbedtls_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    mbedtls_sha256_init(&s->sha256);
    mbedtls_sha512_init(&s->sha512);
    return s;
}

static ipfsrt_status hash_mbedtls_stream_start(void *stream, ipfsrt_hash_alg alg, ipfsrt_error *err) {
    hash_mbedtls_stream *s = stream;
    s->alg = alg;
    int rc = alg == IPFSRT_SHA2_256 ? mbedtls_sha256_starts_ret(&s->sha256, 0)
                                    : mbedtls_sha512_starts_ret(&s->sha512, 0);
    return hash_result(rc == 0, "mbedtls", err);
}

static ipfsrt_status hash_mbedtls_stream_update(void *stream, const uint8_t *data, size_t len, ipfsrt_error *err) {
    hash_mbedtls_stream *s = stream;
    int rc = s->alg == IPFSRT_SHA2_256 ? mbedtls_sha256_update_ret(&s->sha256, data, len)
                                       : mbedtls_sha512_update_ret(&s->sha512, data, len);
    return hash_result(rc == 0, "mbedtls", err);
}

static ipfsrt_status hash_mbedtls_stream_finish(void *stream, uint8_t *out, ipfsrt_error *err) {
    hash_mbedtls_stream *s = stream;
    int rc = s->alg == IPFSRT_SHA2_256 ? mbedtls_sha256_finish_ret(&s->sha256, out)
                                       : mbedtls_sha512_finish_ret(&s->sha512, out);
    return hash_result(rc == 0, "mbedtls", err);
}

static void hash_mbedtls_stream_free(void *stream) {
    hash_mbedtls_stream *s = stream;
    if (!s) return;
    mbedtls_sha256_free(&s->sha256);
    mbedtls_sha512_free(&s->sha512);
    free(s);
}

static const ipfsrt_hash_backend hash_mbedtls_backend = {
    "mbedtls",           hash_mbedtls_digest,        hash_mbedtls_stream_new, hash_mbedtls_stream_start,
    hash_mbedtls_stream_update, hash_mbedtls_stream_finish, hash_mbedtls_stream_free,
};

#endif

/* ---------------------------------------------------------------- OpenSSL */

#ifdef IPFSRT_HAVE_OPENSSL
/* libcrypto's own SHA-2 functions rather than EVP: the same code (with the
 * CPU's SHA instructions), but EVP looks the algorithm up through a provider,
 * which the first digest of a process pays 0.4-0.7 ms to set up and every one
 * after it a lookup. OpenSSL 3 marks them deprecated; they are still built. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

static ipfsrt_status hash_openssl_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                         ipfsrt_error *err) {
    bool ok = false;
    if (alg == IPFSRT_SHA2_256) {
        SHA256_CTX c;
        ok = SHA256_Init(&c) == 1 && SHA256_Update(&c, data, len) == 1 && SHA256_Final(out, &c) == 1;
    } else if (alg == IPFSRT_SHA2_512) {
        SHA512_CTX c;
        ok = SHA512_Init(&c) == 1 && SHA512_Update(&c, data, len) == 1 && SHA512_Final(out, &c) == 1;
    }
    return hash_result(ok, "openssl", err);
}

typedef struct hash_openssl_stream {
    ipfsrt_hash_alg alg;
    SHA256_CTX sha256;
    SHA512_CTX sha512;
} hash_openssl_stream;

static void *hash_openssl_stream_new(void) { return calloc(1, sizeof(hash_openssl_stream)); }

static ipfsrt_status hash_openssl_stream_start(void *stream, ipfsrt_hash_alg alg, ipfsrt_error *err) {
    hash_openssl_stream *s = stream;
    s->alg = alg;
    return hash_result((alg == IPFSRT_SHA2_256 ? SHA256_Init(&s->sha256) : SHA512_Init(&s->sha512)) == 1, "openssl",
                       err);
}

static ipfsrt_status hash_openssl_stream_update(void *stream, const uint8_t *data, size_t len, ipfsrt_error *err) {
    hash_openssl_stream *s = stream;
    int ok = s->alg == IPFSRT_SHA2_256 ? SHA256_Update(&s->sha256, data, len) : SHA512_Update(&s->sha512, data, len);
    return hash_result(ok == 1, "openssl", err);
}

static ipfsrt_status hash_openssl_stream_finish(void *stream, uint8_t *out, ipfsrt_error *err) {
    hash_openssl_stream *s = stream;
    int ok = s->alg == IPFSRT_SHA2_256 ? SHA256_Final(out, &s->sha256) : SHA512_Final(out, &s->sha512);
    return hash_result(ok == 1, "openssl", err);
}

static void hash_openssl_stream_free(void *stream) { free(stream); }

static const ipfsrt_hash_backend hash_openssl_backend = {
    "openssl",           hash_openssl_digest,        hash_openssl_stream_new, hash_openssl_stream_start,
    hash_openssl_stream_update, hash_openssl_stream_finish, hash_openssl_stream_free,
};
#endif

/* ------------------------------------------------------------- selection */

static const ipfsrt_hash_backend *const backends[] = {
#ifdef IPFSRT_HAVE_OPENSSL
    &hash_openssl_backend,
#else
    &hash_mbedtls_backend,
#endif
    NULL,
};

/* The first entry is the fastest one built in. Atomic: a script may switch
 * backends while the verifying threads of an earlier read still hash. */
static _Atomic(const ipfsrt_hash_backend *) current = NULL;

const ipfsrt_hash_backend *ipfsrt_hash_backend_current(void) {
    const ipfsrt_hash_backend *b = atomic_load_explicit(&current, memory_order_acquire);
    return b ? b : backends[0];
}

const ipfsrt_hash_backend *const *ipfsrt_hash_backends(void) { return backends; }

const ipfsrt_hash_backend *ipfsrt_hash_backend_find(const char *name) {
    IPFSRT_NEED_OR(name, NULL);
    for (size_t i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

ipfsrt_status ipfsrt_hash_backend_select(const char *name, ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    const ipfsrt_hash_backend *b = ipfsrt_hash_backend_find(name);
    if (!b)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                           "hash backend '%s' is not built into this ipfsrt (it has %s)", name, backends[0]->name);
    atomic_store_explicit(&current, b, memory_order_release);
    return IPFSRT_OK;
}

size_t ipfsrt_hash_alg_size(ipfsrt_hash_alg alg) { return alg == IPFSRT_SHA2_512 ? 64 : 32; }

ipfsrt_status ipfsrt_hash_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    return ipfsrt_hash_digest_with(NULL, alg, data, len, out, err);
}

ipfsrt_status ipfsrt_hash_digest_with(const ipfsrt_hash_backend *backend, ipfsrt_hash_alg alg, const uint8_t *data,
                                      size_t len, uint8_t *out, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    return (backend ? backend : ipfsrt_hash_backend_current())->digest(alg, data, len, out, err);
}

/* ------------------------------------------------------------- streaming */

struct ipfsrt_hash_ctx {
    const ipfsrt_hash_backend *backend;
    void *stream;
};

ipfsrt_status ipfsrt_hash_ctx_new(ipfsrt_hash_ctx **out, ipfsrt_error *err) {
    return ipfsrt_hash_ctx_new_with(out, NULL, err);
}

ipfsrt_status ipfsrt_hash_ctx_new_with(ipfsrt_hash_ctx **out, const ipfsrt_hash_backend *backend, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    *out = NULL;
    ipfsrt_hash_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ctx->backend = backend ? backend : ipfsrt_hash_backend_current();
    ctx->stream = ctx->backend->stream_new();
    if (!ctx->stream) {
        free(ctx);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    *out = ctx;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_hash_ctx_start(ipfsrt_hash_ctx *ctx, ipfsrt_hash_alg alg, ipfsrt_error *err) {
    IPFSRT_NEED(ctx, err);
    return ctx->backend->stream_start(ctx->stream, alg, err);
}

ipfsrt_status ipfsrt_hash_ctx_update(ipfsrt_hash_ctx *ctx, const uint8_t *data, size_t len,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(ctx, err);
    return ctx->backend->stream_update(ctx->stream, data, len, err);
}

ipfsrt_status ipfsrt_hash_ctx_finish(ipfsrt_hash_ctx *ctx, uint8_t *out, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    return ctx->backend->stream_finish(ctx->stream, out, err);
}

void ipfsrt_hash_ctx_free(ipfsrt_hash_ctx *ctx) {
    if (!ctx) return;
    ctx->backend->stream_free(ctx->stream);
    free(ctx);
}
