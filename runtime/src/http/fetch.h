/* The HTTP engine (fetch.c): many transfers in flight from one thread on libcurl's
 * multi interface. Not part of the public API; the gateway client and the S3
 * client drive it. */
#ifndef IPFSRT_FETCH_H
#define IPFSRT_FETCH_H

#include "ipfsrt/error.h"
#include "base/base_internal.h"

typedef struct ipfsrt_fetch ipfsrt_fetch;
typedef struct ipfsrt_fetch_req ipfsrt_fetch_req;

typedef enum ipfsrt_fetch_end {
    IPFSRT_FETCH_DONE,      /* a complete response (any status) */
    IPFSRT_FETCH_CONNECT,   /* could not connect / resolve */
    IPFSRT_FETCH_TIMEOUT,   /* connect, first-byte, stall or total timeout */
    IPFSRT_FETCH_TOO_LARGE, /* body over the request's cap */
    IPFSRT_FETCH_ABORTED,   /* a callback stopped it */
    IPFSRT_FETCH_BROKEN,    /* the connection broke or the body ended early */
    IPFSRT_FETCH_TLS,       /* TLS failed: an untrusted certificate, a failed handshake */
} ipfsrt_fetch_end;

typedef struct ipfsrt_fetch_head {
    long status;
    const char *content_type;  /* "" when absent */
    int64_t content_length;    /* -1 when unknown */
    const char *content_range; /* "" when absent */
    const char *bucket_region; /* S3's x-amz-bucket-region, "" when absent */
    const char *etag;          /* "" when absent */
    /* how long the transfer waited for its connection (connecting, TLS's
     * handshake, or a multiplexed one's): not the server's time */
    double setup_s;
    bool one_per_connection; /* HTTP/1.x: a connection carries one request at a time */
    bool new_connection;     /* the transfer opened a connection, not one kept from before */
} ipfsrt_fetch_head;

/* A Content-Range value, "bytes FROM-TO/TOTAL" (TOTAL may be "*": UINT64_MAX);
 * false when it is not that. */
IPFSRT_PRIVATE bool ipfsrt_fetch_content_range_parse(const char *s, uint64_t *from, uint64_t *to, uint64_t *total);

typedef struct ipfsrt_fetch_result {
    ipfsrt_fetch_end end;
    long status;          /* 0 when no response arrived */
    double retry_after_s; /* from Retry-After, -1 when absent */
    uint64_t body_bytes;
    double first_byte_s;  /* since the transfer started; -1 when none arrived */
    double total_s;
    size_t backlog;       /* transfers of its group still waiting for room when it ended */
    char detail[300];     /* what went wrong, for messages */
} ipfsrt_fetch_result;

typedef struct ipfsrt_fetch_spec {
    const char *url;
    const char *accept; /* NULL = no Accept header */
    const char *range;  /* "FROM-[TO]" for a Range header, NULL = none */
    unsigned slot;      /* concurrency group (one per gateway) */
    uint64_t max_body;  /* 0 = no cap */
    const char *method; /* NULL = GET; "PUT", "POST", "HEAD", "DELETE" */
    const uint8_t *body; /* PUT, POST: the body (borrowed until the request is done or canceled) */
    size_t body_len;
    /* PUT: or a body of body_size bytes pulled from here as it is sent (a
     * file, never held whole): up to cap bytes into buf, the count (0 at the
     * end), or SIZE_MAX to abort */
    size_t (*body_read)(void *user, uint8_t *buf, size_t cap);
    uint64_t body_size;
    const char *const *headers; /* more header lines ("Name: value"), NULL-terminated; copied */
    /* S3: libcurl signs the request with SigV4 ("aws:amz:REGION:s3") and
     * userpwd ("KEY:SECRET", copied, wiped when freed); redirects are then the
     * caller's to follow */
    const char *aws_sigv4;
    const char *userpwd;
    /* When the transfer leaves the queue and goes out (may be NULL). */
    void (*on_start)(void *user);
    /* Once, before the first body byte (or at the end for an empty body). A
     * nonzero return aborts the transfer. */
    int (*on_head)(void *user, const ipfsrt_fetch_head *head);
    /* Body bytes as they arrive; nonzero aborts. */
    int (*on_body)(void *user, const uint8_t *data, size_t len);
    /* Exactly once unless the request is canceled; the request is gone afterwards. */
    void (*on_done)(void *user, const ipfsrt_fetch_result *result);
    void *user;
} ipfsrt_fetch_spec;

typedef struct ipfsrt_fetch_config {
    unsigned slots;             /* number of concurrency groups */
    unsigned per_slot;          /* transfers in flight per group; 0 = 8 */
    unsigned connect_timeout_ms;    /* 0 = 10 s */
    unsigned first_byte_timeout_ms; /* after the request went out; 0 = 30 s */
    unsigned stall_timeout_ms;      /* no body bytes for this long; 0 = 20 s */
    unsigned total_timeout_ms;      /* curl's own, 0 = none */
    unsigned deadline_ms;           /* the whole transfer; 0 = none */
    unsigned min_bytes_per_s;       /* a body slower than this ... */
    unsigned rate_window_ms;        /* ... over this long fails; 0 = no minimum */
    const char *ca_file;            /* PEM bundle of trusted CAs (copied); NULL = CURL_CA_BUNDLE,
                                       else SSL_CERT_FILE, else the system's */
} ipfsrt_fetch_config;

IPFSRT_PRIVATE ipfsrt_status ipfsrt_fetch_new(ipfsrt_fetch **f, const ipfsrt_fetch_config *cfg,
                                ipfsrt_error *err);
/* Queues a transfer; it starts when its group has room. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_fetch_start(ipfsrt_fetch *f, const ipfsrt_fetch_spec *spec,
                                 ipfsrt_fetch_req **req, ipfsrt_error *err);
/* How many transfers of group slot may be in flight from now on (at least 1). */
void ipfsrt_fetch_set_limit(ipfsrt_fetch *f, unsigned slot, unsigned limit);
/* Drops a queued or running transfer without calling on_done. */
IPFSRT_PRIVATE void ipfsrt_fetch_cancel(ipfsrt_fetch *f, ipfsrt_fetch_req *req);
/* Moves every transfer along, waiting up to max_wait_ms for the network;
 * callbacks run from here. Returns the number of transfers still queued or running. */
IPFSRT_PRIVATE size_t ipfsrt_fetch_pump(ipfsrt_fetch *f, int max_wait_ms);
size_t ipfsrt_fetch_pending(const ipfsrt_fetch *f);
/* Waits up to max_wait_ms for ipfsrt_fetch_wakeup when nothing is in flight. */
void ipfsrt_fetch_wait(ipfsrt_fetch *f, int max_wait_ms);
/* Interrupts a pump waiting for the network; safe from any thread. */
void ipfsrt_fetch_wakeup(ipfsrt_fetch *f);
/* Cancels whatever is left and releases the engine. */
IPFSRT_PRIVATE void ipfsrt_fetch_free(ipfsrt_fetch *f);

/* What the client's scheduler drives its transfers through: the engine above,
 * or a stand-in (unit tests script gateways with one). The calls mean what the
 * ipfsrt_fetch_* functions of the same names mean; requests are opaque. */
typedef struct ipfsrt_transport {
    void *ctx;
    ipfsrt_status (*start)(void *ctx, const ipfsrt_fetch_spec *spec, void **req, ipfsrt_error *err);
    void (*cancel)(void *ctx, void *req);
    size_t (*pump)(void *ctx, int max_wait_ms);
    size_t (*pending)(const void *ctx);
    void (*wait)(void *ctx, int max_wait_ms);
    void (*wakeup)(void *ctx);
    void (*free)(void *ctx);
    void (*set_limit)(void *ctx, unsigned slot, unsigned limit); /* may be NULL */
} ipfsrt_transport;

/* The engine as a transport (free releases it). */
void ipfsrt_fetch_transport(ipfsrt_fetch *f, ipfsrt_transport *t);

#endif
