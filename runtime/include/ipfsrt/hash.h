/* ipfsrt — SHA-2 through a small backend interface. */
#ifndef IPFSRT_HASH_H
#define IPFSRT_HASH_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ipfsrt_hash_alg { IPFSRT_SHA2_256, IPFSRT_SHA2_512 } ipfsrt_hash_alg;

/* One small interface for every SHA-2 provider; "mbedtls" is always built in,
 * "openssl" (libcrypto, uses the CPU's SHA instructions) when available and
 * then the default. Each call returns IPFSRT_OK or fills err naming the
 * backend. The streaming calls let a reader hash bytes as they arrive, while
 * they are still in cache. */
typedef struct ipfsrt_hash_backend {
    const char *name;
    ipfsrt_status (*digest)(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out, ipfsrt_error *err);
    void *(*stream_new)(void); /* NULL: out of memory */
    ipfsrt_status (*stream_start)(void *stream, ipfsrt_hash_alg alg, ipfsrt_error *err);
    ipfsrt_status (*stream_update)(void *stream, const uint8_t *data, size_t len, ipfsrt_error *err);
    ipfsrt_status (*stream_finish)(void *stream, uint8_t *out, ipfsrt_error *err);
    void (*stream_free)(void *stream);
} ipfsrt_hash_backend;

/* An incremental hash bound to the backend current when it was made. */
typedef struct ipfsrt_hash_ctx ipfsrt_hash_ctx;

IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_new(ipfsrt_hash_ctx **ctx, ipfsrt_error *err);
/* The same with a backend of the caller's choice (NULL: the current one): two
 * users of one process may hash with different backends. */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_new_with(ipfsrt_hash_ctx **ctx, const ipfsrt_hash_backend *backend,
                                                  ipfsrt_error *err);
/* (Re)starts a digest; a context can be reused for any number of digests. */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_start(ipfsrt_hash_ctx *ctx, ipfsrt_hash_alg alg, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_update(ipfsrt_hash_ctx *ctx, const uint8_t *data, size_t len,
                                                ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_finish(ipfsrt_hash_ctx *ctx, uint8_t *out, ipfsrt_error *err);
IPFSRT_API void ipfsrt_hash_ctx_free(ipfsrt_hash_ctx *ctx);

IPFSRT_API const ipfsrt_hash_backend *ipfsrt_hash_backend_current(void);
/* NULL when that backend was not built in. */
IPFSRT_API const ipfsrt_hash_backend *ipfsrt_hash_backend_find(const char *name);
/* NULL-terminated list of the built-in backends. */
IPFSRT_API const ipfsrt_hash_backend *const *ipfsrt_hash_backends(void);
IPFSRT_API ipfsrt_status ipfsrt_hash_backend_select(const char *name, ipfsrt_error *err);
IPFSRT_API size_t ipfsrt_hash_alg_size(ipfsrt_hash_alg alg);
IPFSRT_API ipfsrt_status ipfsrt_hash_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                            ipfsrt_error *err);
/* With a backend of the caller's choice (NULL: the current one). */
IPFSRT_API ipfsrt_status ipfsrt_hash_digest_with(const ipfsrt_hash_backend *backend, ipfsrt_hash_alg alg,
                                                 const uint8_t *data, size_t len, uint8_t *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
