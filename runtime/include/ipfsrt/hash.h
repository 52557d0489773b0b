/** @file
 * ipfsrt — SHA-2 through a small backend interface. */
#ifndef IPFSRT_HASH_H
#define IPFSRT_HASH_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The hash functions a backend computes. */
typedef enum ipfsrt_hash_alg {
    IPFSRT_SHA2_256, /**< SHA-256: 32 bytes */
    IPFSRT_SHA2_512  /**< SHA-512: 64 bytes */
} ipfsrt_hash_alg;

/** One small interface for every SHA-2 provider. A build has one built in
 * (one crypto library linked): "openssl" (libcrypto, with the CPU's SHA
 * instructions; HASH=openssl, the default) or "mbedtls" (HASH=mbedtls); a
 * host may add its own through ipfsrt_hash_ctx_new_with and the client's
 * options. Each call returns IPFSRT_OK or fills err naming the
 * backend. The streaming calls let a reader hash bytes as they arrive, while
 * they are still in cache. */
typedef struct ipfsrt_hash_backend {
    const char *name; /**< "openssl", "mbedtls", or the host's own */
    /** One digest of data into out (32 or 64 bytes, as alg says). */
    ipfsrt_status (*digest)(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out, ipfsrt_error *err);
    void *(*stream_new)(void); /**< NULL: out of memory */
    /** Starts (or restarts) a streaming digest. */
    ipfsrt_status (*stream_start)(void *stream, ipfsrt_hash_alg alg, ipfsrt_error *err);
    /** Feeds it bytes. */
    ipfsrt_status (*stream_update)(void *stream, const uint8_t *data, size_t len, ipfsrt_error *err);
    /** Writes its digest to out. */
    ipfsrt_status (*stream_finish)(void *stream, uint8_t *out, ipfsrt_error *err);
    void (*stream_free)(void *stream); /**< releases a stream (NULL accepted) */
} ipfsrt_hash_backend;

/** An incremental hash bound to the backend current when it was made. */
typedef struct ipfsrt_hash_ctx ipfsrt_hash_ctx;

/** An incremental hash bound to the backend current when it is made.
 * @param ctx the new context, on success (NULL on failure)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_hash_ctx_free */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_new(ipfsrt_hash_ctx **ctx, ipfsrt_error *err);
/** An incremental hash on a backend of the caller's choice: two users of one
 * process may hash with different backends.
 * @param ctx the new context, on success (NULL on failure)
 * @param backend as ipfsrt_hash_backend_find gives it; NULL = the current one
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_hash_ctx_free; backend must outlive it (built-in ones always do) */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_new_with(ipfsrt_hash_ctx **ctx, const ipfsrt_hash_backend *backend,
                                                  ipfsrt_error *err);
/** (Re)starts a digest; a context can be reused for any number of digests.
 * @param ctx the context
 * @param alg the function
 * @param err filled on failure, naming the backend
 * @return IPFSRT_OK
 * @errors the backend's (IPFSRT_EUNSUPPORTED, IPFSRT_EOUT_OF_MEMORY) */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_start(ipfsrt_hash_ctx *ctx, ipfsrt_hash_alg alg, ipfsrt_error *err);
/** Hashes more bytes, as they arrive.
 * @param ctx a started context
 * @param data len bytes
 * @param len how many
 * @param err filled on failure, naming the backend
 * @return IPFSRT_OK
 * @errors the backend's */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_update(ipfsrt_hash_ctx *ctx, const uint8_t *data, size_t len,
                                                ipfsrt_error *err);
/** Ends the digest.
 * @param ctx a started context
 * @param out room for ipfsrt_hash_alg_size(alg) bytes
 * @param err filled on failure, naming the backend
 * @return IPFSRT_OK
 * @errors the backend's */
IPFSRT_API ipfsrt_status ipfsrt_hash_ctx_finish(ipfsrt_hash_ctx *ctx, uint8_t *out, ipfsrt_error *err);
/** Releases a context.
 * @param ctx the context, or NULL
 * @owner ctx is freed */
IPFSRT_API void ipfsrt_hash_ctx_free(ipfsrt_hash_ctx *ctx);

/** The process's backend: the one built in, or the one
 * ipfsrt_hash_backend_select chose.
 * @return a built-in backend
 * @owner the library's, for the process's life */
IPFSRT_API const ipfsrt_hash_backend *ipfsrt_hash_backend_current(void);
/** A built-in backend by name.
 * @param name "openssl" or "mbedtls"
 * @return the backend, or NULL when it was not built in
 * @owner the library's, for the process's life */
IPFSRT_API const ipfsrt_hash_backend *ipfsrt_hash_backend_find(const char *name);
/** The built-in backends.
 * @return a NULL-terminated list
 * @owner the library's, for the process's life */
IPFSRT_API const ipfsrt_hash_backend *const *ipfsrt_hash_backends(void);
/** Makes a built-in backend the process's, for contexts and clients made from
 * then on (call it before threads hash).
 * @param name "openssl" or "mbedtls"
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: not built in (the message lists those that are) */
IPFSRT_API ipfsrt_status ipfsrt_hash_backend_select(const char *name, ipfsrt_error *err);
/** A function's digest length.
 * @param alg the function
 * @return 32 or 64 */
IPFSRT_API size_t ipfsrt_hash_alg_size(ipfsrt_hash_alg alg);
/** Hashes a whole buffer with the current backend.
 * @param alg the function
 * @param data len bytes
 * @param len how many
 * @param out room for ipfsrt_hash_alg_size(alg) bytes
 * @param err filled on failure, naming the backend
 * @return IPFSRT_OK
 * @errors the backend's */
IPFSRT_API ipfsrt_status ipfsrt_hash_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                            ipfsrt_error *err);
/** Hashes a whole buffer with a backend of the caller's choice.
 * @param backend NULL = the current one
 * @param alg the function
 * @param data len bytes
 * @param len how many
 * @param out room for ipfsrt_hash_alg_size(alg) bytes
 * @param err filled on failure, naming the backend
 * @return IPFSRT_OK
 * @errors the backend's */
IPFSRT_API ipfsrt_status ipfsrt_hash_digest_with(const ipfsrt_hash_backend *backend, ipfsrt_hash_alg alg,
                                                 const uint8_t *data, size_t len, uint8_t *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
