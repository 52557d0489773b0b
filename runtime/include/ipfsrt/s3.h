/* ipfsrt — S3 object stores: one bucket's keys read (whole, a range, the last
 * bytes) many at once, listed, written and removed, over the same libcurl
 * engine as the gateway client (many requests in flight, timeouts, retries of
 * 429/5xx and broken transfers after a pause). Requests are signed with AWS
 * SigV4 by libcurl, or sent anonymously for public buckets (and to plain
 * web servers, whose files are read the same way). Nothing here is
 * verified: S3 hands out bytes with no hash to check them against (a CAR on S3
 * read through ipfsrt's CAR reader is). Secrets never appear in messages. */
#ifndef IPFSRT_S3_H
#define IPFSRT_S3_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ipfsrt_s3 ipfsrt_s3;

/* Every field left NULL or 0 takes what AWS tools take: AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL (a custom endpoint, addressed path-style; none: AWS itself,
 * virtual-hosted), AWS_REGION, AWS_DEFAULT_REGION (else us-east-1),
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
 * AWS_NO_SIGN_REQUEST=YES for anonymous requests. */
typedef struct ipfsrt_s3_options {
    const char *endpoint;   /* "http(s)://host[:port]" */
    const char *region;
    const char *access_key, *secret_key, *session_token;
    int anonymous;          /* 0: the environment says; 1: unsigned requests; -1: signed */
    bool forbidden_is_absent; /* a 403 for a key means it is absent (buckets that answer so) */
    unsigned concurrency;   /* requests in flight; 0 = 16 */
    unsigned retries;       /* further rounds for 429/5xx/broken transfers; 0 = 3 */
    double backoff_s;       /* the first pause (doubling, or Retry-After); 0 = 0.2 s */
    unsigned timeout_ms;    /* no byte for this long fails a transfer; 0 = 20 s */
    const char *ca_file;    /* PEM bundle for https endpoints; NULL = the system's */
    uint64_t part_size;     /* files above this go up in parts of it (multipart); 0 = 64 MiB;
                               at least 5 MiB (S3's smallest part) */
} ipfsrt_s3_options;

/* A client for bucket (its keys are relative to it). */
IPFSRT_API ipfsrt_status ipfsrt_s3_new(ipfsrt_s3 **s3, const char *bucket, const ipfsrt_s3_options *opts,
                                       ipfsrt_error *err);
/* The files of a plain web server read with the same machinery (ranges
 * checked, many in flight, retries): a key is a path under base_url ("" is
 * base_url itself), nothing is signed, 404 is absent, there is no listing.
 * Of opts only forbidden_is_absent, concurrency, retries, backoff_s,
 * timeout_ms and ca_file count. */
IPFSRT_API ipfsrt_status ipfsrt_s3_new_http(ipfsrt_s3 **s3, const char *base_url, const ipfsrt_s3_options *opts,
                                            ipfsrt_error *err);
IPFSRT_API void ipfsrt_s3_free(ipfsrt_s3 *s3);
/* "s3://bucket/key" (url's first len bytes): the bucket (into cap bytes) and
 * the key, slashes trimmed at both ends (*key points into url). */
IPFSRT_API ipfsrt_status ipfsrt_s3_url_split(const char *url, size_t len, char *bucket, size_t cap, const char **key,
                                             size_t *key_len, ipfsrt_error *err);
/* "s3://bucket" and where it is ("at http://127.0.0.1:9000", "in us-west-2"), for messages. */
IPFSRT_API const char *ipfsrt_s3_describe(const ipfsrt_s3 *s3);

/* One read: bytes [offset, offset + length) of key (length UINT64_MAX = to the
 * end), or with from_end its last length bytes (all of it when shorter). */
typedef struct ipfsrt_s3_request {
    const char *key;
    uint64_t offset, length;
    bool from_end;
} ipfsrt_s3_request;

typedef struct ipfsrt_s3_result {
    size_t index;         /* the request's position */
    ipfsrt_status status; /* IPFSRT_OK; IPFSRT_ENOT_FOUND: no such key; else why it failed */
    ipfsrt_error error;
    const uint8_t *data;  /* valid during the callback */
    size_t len;
    uint64_t object_size; /* the whole object's, UINT64_MAX when the answer did not say */
    const char *etag;     /* the object's ETag as S3 sent it ("" when it did not) */
} ipfsrt_s3_result;

/* Sees each result as it completes; anything but IPFSRT_OK stops the call. */
typedef ipfsrt_status (*ipfsrt_s3_result_fn)(void *user, const ipfsrt_s3_result *result, ipfsrt_error *err);

/* Many reads at once; each is reported exactly once, a key's failure is its
 * result's (the call fails only for what stops everything). A range is only
 * taken from a 206 whose Content-Range is the one asked (or from a 200 of the
 * whole object); a server that answers a suffix from the start is asked again
 * for the bytes it now knows to ask for. */
IPFSRT_API ipfsrt_status ipfsrt_s3_get_many(ipfsrt_s3 *s3, const ipfsrt_s3_request *requests, size_t n,
                                            ipfsrt_s3_result_fn fn, void *user, ipfsrt_error *err);

/* Bytes of a whole object as they arrive (never held whole); a failure of the
 * sink stops the transfer. A transfer that breaks after bytes went to the sink
 * is not tried again. *size (may be NULL): the object's size; etag (may be
 * NULL, 128 bytes): its ETag. */
typedef ipfsrt_status (*ipfsrt_s3_write_fn)(void *user, const uint8_t *data, size_t len, ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_s3_get_stream(ipfsrt_s3 *s3, const char *key, ipfsrt_s3_write_fn sink, void *user,
                                              uint64_t *size, char *etag, ipfsrt_error *err);

/* One name under a prefix: a key (with its size) or, with a delimiter, a
 * common prefix (ending in the delimiter). */
typedef ipfsrt_status (*ipfsrt_s3_entry_fn)(void *user, const char *name, uint64_t size, bool is_prefix,
                                            ipfsrt_error *err);
/* ListObjectsV2 page by page; delimiter NULL lists every key under prefix. */
IPFSRT_API ipfsrt_status ipfsrt_s3_list(ipfsrt_s3 *s3, const char *prefix, const char *delimiter, ipfsrt_s3_entry_fn fn,
                                        void *user, ipfsrt_error *err);
/* PUT with the body's SHA-256 in x-amz-content-sha256. */
IPFSRT_API ipfsrt_status ipfsrt_s3_put(ipfsrt_s3 *s3, const char *key, const void *data, size_t len, ipfsrt_error *err);
/* A file's bytes to key, read from it as they are sent (hashed first, read
 * again by each try, never held whole): one PUT up to the part size, else a
 * multipart upload (parts of the part size, doubled as needed to stay within
 * S3's 10,000 parts, several in flight; aborted if anything fails), up to
 * S3's 5 TiB. */
IPFSRT_API ipfsrt_status ipfsrt_s3_put_file(ipfsrt_s3 *s3, const char *key, const char *path, ipfsrt_error *err);
/* Removing an absent key is not an error. */
IPFSRT_API ipfsrt_status ipfsrt_s3_delete(ipfsrt_s3 *s3, const char *key, ipfsrt_error *err);

typedef struct ipfsrt_s3_stats {
    uint64_t requests, retries, bytes;
} ipfsrt_s3_stats;
IPFSRT_API void ipfsrt_s3_get_stats(const ipfsrt_s3 *s3, ipfsrt_s3_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
