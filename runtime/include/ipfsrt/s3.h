/** @file
 * ipfsrt — S3 object stores: one bucket's keys read (whole, a range, the last bytes) many at once, listed, written and removed, over the same libcurl engine as the gateway client (many requests in flight, timeouts, retries of 429/5xx and broken transfers after a pause). Requests are signed with AWS SigV4 by libcurl, or sent anonymously for public buckets (and to plain web servers, whose files are read the same way). Nothing here is verified: S3 hands out bytes with no hash to check them against (a CAR on S3 read through ipfsrt's CAR reader is). Secrets never appear in messages. */
#ifndef IPFSRT_S3_H
#define IPFSRT_S3_H

#include "ranges.h"
#include "zarr_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An S3 client for one bucket (ipfsrt_s3_new): opaque. */
typedef struct ipfsrt_s3 ipfsrt_s3;

/** Every field left NULL or 0 takes what AWS tools take: AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL (a custom endpoint, addressed path-style; none: AWS itself,
 * virtual-hosted), AWS_REGION, AWS_DEFAULT_REGION (else us-east-1),
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
 * AWS_NO_SIGN_REQUEST=YES for anonymous requests. */
typedef struct ipfsrt_s3_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_s3_options_init (or .size = sizeof) */
    const char *endpoint;   /**< "http(s)://host[:port]" */
    const char *region;        /**< "us-east-1", ... */
    const char *access_key;    /**< AWS_ACCESS_KEY_ID's part */
    const char *secret_key;    /**< AWS_SECRET_ACCESS_KEY's (never shown in messages) */
    const char *session_token; /**< AWS_SESSION_TOKEN's */
    int anonymous;          /**< 0: the environment says; 1: unsigned requests; -1: signed */
    bool forbidden_is_absent; /**< a 403 for a key means it is absent (buckets that answer so) */
    unsigned concurrency;   /**< requests in flight; 0 = 16 */
    unsigned retries;       /**< further rounds for 429/5xx/broken transfers; 0 = 3 */
    double backoff_s;       /**< the first pause (doubling, or Retry-After); 0 = 0.2 s */
    unsigned timeout_ms;    /**< no byte for this long fails a transfer; 0 = 20 s */
    const char *ca_file;    /**< PEM bundle for https endpoints; NULL = CURL_CA_BUNDLE, else
                               SSL_CERT_FILE, else the system's */
    uint64_t part_size;     /**< files above this go up in parts of it (multipart); 0 = 64 MiB;
                               at least 5 MiB (S3's smallest part) */
} ipfsrt_s3_options;
/** The defaults (what AWS tools take from the environment), size set: what a
 * caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_s3_options_init(ipfsrt_s3_options *opts);

/** A client for a bucket (its keys are relative to it), signing requests with
 * SigV4 unless anonymous.
 * @param s3 the new client, on success
 * @param bucket the bucket's name
 * @param opts NULL = the environment's
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (an endpoint, a bucket name, credentials half given);
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_s3_free; opts' strings are copied */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_new(ipfsrt_s3 **s3, const char *bucket, const ipfsrt_s3_options *opts,
                                                ipfsrt_error *err);
/** The files of a plain web server read with the same machinery (ranges
 * checked, many in flight, retries): a key is a path under base_url ("" is
 * base_url itself), nothing is signed, 404 is absent, there is no listing. Of
 * opts only forbidden_is_absent, concurrency, retries, backoff_s, timeout_ms
 * and ca_file count.
 * @param s3 the new client, on success
 * @param base_url http(s)://...
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not an http(s) URL); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_s3_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_new_http(ipfsrt_s3 **s3, const char *base_url, const ipfsrt_s3_options *opts,
                                                     ipfsrt_error *err);
/** Releases a client.
 * @param s3 the client, or NULL
 * @owner its range readers and description are no longer valid */
IPFSRT_EXPERIMENTAL void ipfsrt_s3_free(ipfsrt_s3 *s3);
/** "s3://bucket/key" (url's first len bytes): the bucket and the key, slashes
 * trimmed at both ends.
 * @param url the URL
 * @param len its length
 * @param bucket the bucket's name
 * @param cap bucket's room
 * @param key set to the key, pointing into url
 * @param key_len set to its length
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not s3://, no bucket, a bucket too long)
 * @owner *key borrows url */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_url_split(const char *url, size_t len, char *bucket, size_t cap, const char **key,
                                                      size_t *key_len, ipfsrt_error *err);
/** "s3://bucket" and where it is ("at http://127.0.0.1:9000", "in us-west-2"),
 * for messages.
 * @param s3 the client
 * @return the text
 * @owner the client's */
IPFSRT_EXPERIMENTAL const char *ipfsrt_s3_describe(const ipfsrt_s3 *s3);


/** Many reads at once; each is reported exactly once, a key's failure is its
 * result's. A range is only taken from a 206 whose Content-Range is the one
 * asked (or from a 200 of the whole object).
 * @param s3 the client
 * @param requests n requests
 * @param n how many
 * @param fn called per result
 * @param user handed to fn
 * @param err filled when the whole call fails
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY; IPFSRT_ECANCELED; fn's own error (a result's own
 * status: IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY)
 * @owner each result's bytes are valid during fn's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_get_many(ipfsrt_s3 *s3, const ipfsrt_range_request *requests, size_t n,
                                                     ipfsrt_range_fn fn, void *user, ipfsrt_error *err);

/** Bytes of a whole object as they arrive (never held whole); a failure of the
 * sink stops the transfer. A transfer that breaks after bytes went to the sink
 * is not tried again.
 * @param s3 the client
 * @param key the key
 * @param sink called with the bytes in order
 * @param user handed to sink
 * @param size the object's size, when not NULL
 * @param etag its ETag, when not NULL (room for 128 bytes)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY; sink's own error
 * @owner the bytes lent to sink are valid during its call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_get_stream(ipfsrt_s3 *s3, const char *key, ipfsrt_range_sink_fn sink, void *user,
                                                       uint64_t *size, char *etag, ipfsrt_error *err);

/** One name under a prefix: a key (with its size) or, with a delimiter, a
 * common prefix (ending in the delimiter). */
typedef ipfsrt_status (*ipfsrt_s3_entry_fn)(void *user, const char *name, uint64_t size, bool is_prefix,
                                            ipfsrt_error *err);
/** ListObjectsV2, page by page.
 * @param s3 the client
 * @param prefix the keys' prefix
 * @param delimiter NULL lists every key under prefix; else common prefixes too
 * @param fn called per name (a key with its size, or a prefix)
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY; IPFSRT_EUNSUPPORTED (a plain web server); IPFSRT_ETOO_LARGE
 * (a page past the bounds); fn's own error
 * @owner each name is valid during fn's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_list(ipfsrt_s3 *s3, const char *prefix, const char *delimiter, ipfsrt_s3_entry_fn fn,
                                                 void *user, ipfsrt_error *err);
/** A PUT of data, its SHA-256 in x-amz-content-sha256.
 * @param s3 the client
 * @param key the key
 * @param data len bytes
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_put(ipfsrt_s3 *s3, const char *key, const void *data, size_t len, ipfsrt_error *err);
/** A file's bytes to key, read from it as they are sent (hashed first, read
 * again by each try, never held whole): one PUT up to the part size, else a
 * multipart upload (parts doubled as needed to stay within S3's 10,000 parts,
 * several in flight; aborted if anything fails), up to S3's 5 TiB.
 * @param s3 the client
 * @param key the key
 * @param path the file
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY; IPFSRT_EIO (the file); IPFSRT_ETOO_LARGE (past 5 TiB) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_put_file(ipfsrt_s3 *s3, const char *key, const char *path, ipfsrt_error *err);
/** Removes a key; removing an absent key is not an error.
 * @param s3 the client
 * @param key the key
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (an absent key); IPFSRT_EDENIED (credentials, permissions, no
 * such bucket); IPFSRT_EFETCH_FAILED (the server failed, after the retries,
 * naming the key and status); IPFSRT_ECANCELED (a stop request); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_delete(ipfsrt_s3 *s3, const char *key, ipfsrt_error *err);

/** The client as a source of ranged reads, for what reads through any (a CAR on
 * S3 or a web server: ipfsrt_car_ranged_new).
 * @param s3 the client
 * @param reader filled, size set
 * @owner the reader is the client's: valid while the client is */
IPFSRT_EXPERIMENTAL void ipfsrt_s3_range_reader(ipfsrt_s3 *s3, ipfsrt_range_reader *reader);

/** Filled up to the size the caller set (IPFSRT_S3_STATS_INIT). */
typedef struct ipfsrt_s3_stats {
    size_t size;       /**< sizeof the struct: IPFSRT_S3_STATS_INIT sets it */
    uint64_t requests; /**< requests sent */
    uint64_t retries;  /**< of them, retries */
    uint64_t bytes;    /**< body bytes received */
} ipfsrt_s3_stats;
/** An ipfsrt_s3_stats with its size set. */
#define IPFSRT_S3_STATS_INIT {.size = sizeof(ipfsrt_s3_stats)}
/** The client's requests, retries and bytes so far.
 * @param s3 the client
 * @param stats size set (IPFSRT_S3_STATS_INIT); filled up to it */
IPFSRT_EXPERIMENTAL void ipfsrt_s3_get_stats(const ipfsrt_s3 *s3, ipfsrt_s3_stats *stats);

/** Lets ipfsrt_zarr_store_open read "s3://" URLs and CARs by ranges
 * ("s3://bucket/x.car[/path]", "http(s)://host/x.car[/path]"): a host that
 * links libipfsrt-s3 calls it once (the Lua library does). Safe from any thread. */
IPFSRT_EXPERIMENTAL void ipfsrt_s3_stores_enable(void);
/** "s3://bucket[/prefix]" (unverified, writable), or a CAR there,
 * "s3://bucket/x.car[/path]" (read by ranges, verified).
 * @param store the new store, on success
 * @param url the URL
 * @param s3_options NULL = the environment's
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_s3_new; a CAR's as ipfsrt_car_ranged_new
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_s3_zarr_store_new(ipfsrt_zarr_store **store, const char *url,
                                                           const ipfsrt_s3_options *s3_options, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
