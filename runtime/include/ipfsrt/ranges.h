/* ipfsrt — many ranged reads at once: one request and one result type for
 * every source of named bytes (S3 objects and a web server's files, Zarr
 * stores, files over IPFS through the client), and an interface for a source
 * that reads them (what a CAR read by ranges reads through). */
#ifndef IPFSRT_RANGES_H
#define IPFSRT_RANGES_H

#include "cid.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes [offset, offset + length) of key (length UINT64_MAX = to the end),
 * or with from_end its last length bytes (all of it when it is shorter;
 * offset is then ignored). key names an object, a file, a store key or a
 * path, as the source reads them. */
typedef struct ipfsrt_range_request {
    const char *key;  /**< what to read */
    uint64_t offset;  /**< the first byte */
    uint64_t length;  /**< bytes; UINT64_MAX = to the end */
    bool from_end;    /**< the last length bytes instead */
} ipfsrt_range_request;

/** What a source reports of one request (the source's, valid during the callback). */
typedef struct ipfsrt_range_result {
    size_t index;          /**< the request's position */
    const char *key;       /**< the request's key */
    ipfsrt_status status;  /**< IPFSRT_OK; IPFSRT_ENOT_FOUND: the source proves it absent; else why it failed */
    ipfsrt_error error;    /**< why, when status is not IPFSRT_OK */
    const uint8_t *data;   /**< valid during the callback */
    size_t len;            /**< its bytes */
    ipfsrt_lent lent;      /**< sources whose bytes can outlive the callback set its owner */
    uint64_t object_size;  /**< the whole object's size; UINT64_MAX when the source did not say */
    const char *etag;      /**< HTTP sources: the object's ETag as sent ("" when none; NULL elsewhere) */
    const ipfsrt_cid *cid; /**< content-addressed sources: what the bytes were checked against; else NULL */
} ipfsrt_range_result;

/** Sees each result as it completes; anything but IPFSRT_OK stops the call. */
typedef ipfsrt_status (*ipfsrt_range_fn)(void *user, const ipfsrt_range_result *result, ipfsrt_error *err);

/** Sees the bytes of a whole object as they arrive; anything but IPFSRT_OK stops the transfer. */
typedef ipfsrt_status (*ipfsrt_range_sink_fn)(void *user, const uint8_t *data, size_t len, ipfsrt_error *err);

/** A source of many ranged reads at once: get_many reports every request
 * exactly once (a key's failure is its result's; the call fails only for what
 * stops everything). get_stream (may be NULL: reads of large ranges in turn
 * instead) hands a whole object over as it arrives, in one transfer. Size
 * first (.size = sizeof (ipfsrt_range_reader)): members an older, shorter
 * struct lacks count as NULL. */
typedef struct ipfsrt_range_reader {
    size_t size; /**< sizeof (ipfsrt_range_reader) */
    void *ctx;   /**< the reader's state, handed to its functions */
    /** Reads n ranges, each reported to fn exactly once. */
    ipfsrt_status (*get_many)(void *ctx, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                              void *user, ipfsrt_error *err);
    /** Streams a whole object to sink as it arrives (may be NULL). */
    ipfsrt_status (*get_stream)(void *ctx, const char *key, ipfsrt_range_sink_fn sink, void *user, ipfsrt_error *err);
    const char *what; /**< where it reads, for messages ("s3://bucket", a URL) */
} ipfsrt_range_reader;

#ifdef __cplusplus
}
#endif

#endif
