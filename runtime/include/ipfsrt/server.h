/** @file
 * ipfsrt — a local trustless gateway over CAR files. */
#ifndef IPFSRT_SERVER_H
#define IPFSRT_SERVER_H

#include "blocksource.h"
#include "client.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A trustless gateway (raw blocks and CAR responses) over local CAR files, on
 * libmicrohttpd's thread pool. Every CAR is verified whole when it is opened;
 * blocks are served from the mapped files. */
typedef struct ipfsrt_server ipfsrt_server;

/** Faults a gateway injects, for tests and demos: probabilities per request in
 * [0, 1], drawn from a generator seeded with seed and the request's number, so a
 * sequence of requests sees the same faults run after run. */
typedef struct ipfsrt_server_faults {
    double tamper;       /**< flip one byte inside a block's payload */
    double fail;         /**< answer 500, 502, 503 or 429, with Retry-After */
    double truncate;     /**< cut the body in the middle (inside a block) */
    double reset;        /**< drop the connection without an answer */
    double wrong_block;  /**< send a valid block of another CID in place of the one asked */
    double wrong_dag;    /**< answer a CAR request with the valid CAR of another DAG (the root
                            of another CAR served), under the requested root's header */
    unsigned delay_ms;   /**< before answering, plus up to delay_jitter_ms more */
    unsigned delay_jitter_ms; /**< the most milliseconds added to delay_ms, at random */
    uint64_t slow_bytes_per_s; /**< pace bodies; 0 = as fast as possible */
    uint64_t seed;       /**< of the faults' random choices: the same seed, the same faults */
} ipfsrt_server_faults;

/** How the gateway serves (size first: ipfsrt_server_options_init). */
typedef struct ipfsrt_server_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_server_options_init (or .size = sizeof) */
    const char *const *cars; /**< the CAR files served (at least one) */
    size_t n_cars;      /**< how many */
    const char *listen; /**< "HOST:PORT", PORT 0 picks a free one; NULL = 127.0.0.1:0 */
    unsigned threads;   /**< 0 = 4 */
    ipfsrt_server_faults faults; /**< what it does wrong on purpose (all 0: nothing) */
    const char *log_path; /**< one line per request: time, method, path, query, status,
                             bytes, faults applied; NULL = no log */
    const char *tls_cert; /**< PEM files: with both, the gateway speaks HTTPS only
                             (libmicrohttpd's GnuTLS); NULL = plain HTTP */
    const char *tls_key;  /**< the key of tls_cert (PEM) */
    /** Blocks the CARs lack are asked of the relay's client (NULL: the CARs
     * alone, at least one), which makes the server a verifying gateway in front
     * of others; a path's blocks are asked for in one CAR request where the
     * relay has not seen them. The relay must run (ipfsrt_client_relay_run on
     * a thread of the caller's) while the server does, and outlive it. Its
     * failures are answered 502 (504 for timeouts), never with wrong bytes:
     * file bytes stream as their blocks arrive, and a failure mid-body ends the
     * connection short. Work that waits for upstream blocks runs on worker
     * threads, its connection suspended (a waiting or slow client holds no
     * thread), at most max_connections at once;
     * faults cannot be injected. */
    ipfsrt_client_relay *upstream;
    unsigned max_connections; /**< with upstream; 0 = 1024 */
    /** A request's head (its line, headers and any body) must be in within
     * head_seconds of the connection's start, or of the end of the request
     * before it on the same connection; else the connection is shut down, so
     * that clients sending a byte at a time hold no slot for long.
     * 0 = 10 s. */
    unsigned head_seconds;
    /** Connections one address may hold at once (0 = 512): one client cannot
     * take them all. Every local client shares 127.0.0.1. */
    unsigned per_address;
    /** A folder of IPNS records (each file a record, named NAME[_...]: the
     * name first), served at /ipns/NAME (?format=ipns-record) and followed for
     * /ipns/NAME/path; each verified when read, the folder read again when it
     * changes, the highest valid sequence of a name served. NULL: none. */
    const char *ipns_records;
    /** IPNS records not in ipns_records are asked of this client's gateways
     * (ipfsrt_client_name_record: each answer verified, the best passed on,
     * kept for its TTL), as serve --upstream does. The server calls it from
     * one request at a time; it must outlive the server and do nothing else
     * meanwhile (not the upstream relay's client). NULL: none. */
    struct ipfsrt_client *ipns_client;
} ipfsrt_server_options;
/** The defaults (127.0.0.1 on a free port, 4 threads, no faults), size set:
 * what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_server_options_init(ipfsrt_server_options *opts);

/** Filled by the library up to the size the caller set (.size = sizeof, or
 * IPFSRT_SERVER_STATS_INIT): counts added later reach only hosts that know
 * them. */
typedef struct ipfsrt_server_stats {
    size_t size;         /**< sizeof the struct: IPFSRT_SERVER_STATS_INIT sets it */
    uint64_t requests;   /**< requests answered */
    uint64_t bytes; /**< response body bytes sent */
    uint64_t status_2xx; /**< answers with a 2xx status */
    uint64_t status_4xx; /**< with a 4xx */
    uint64_t status_5xx; /**< with a 5xx */
    uint64_t faults; /**< requests that had a fault injected */
    uint64_t peak_in_flight; /**< the most requests under way at once (arrived, not yet answered
                                whole): requests waiting side by side show here, not in time */
} ipfsrt_server_stats;
/** An ipfsrt_server_stats with its size set. */
#define IPFSRT_SERVER_STATS_INIT {.size = sizeof(ipfsrt_server_stats)}

/** A trustless gateway serving CAR files (or verified blocks from a relay)
 * over HTTP, on threads of its own, until freed.
 * @param gw the new gateway, on success
 * @param opts the CARs or the upstream relay, at least one; NULL is refused for want of them
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (no CAR and no upstream, a bad listen address);
 * IPFSRT_EIO (a CAR, or the port: naming why it cannot listen); a CAR's errors
 * (as ipfsrt_car_file_new); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_server_free. The CAR paths are opened now; an
 * upstream relay must outlive the gateway */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_server_new(ipfsrt_server **gw, const ipfsrt_server_options *opts, ipfsrt_error *err);
/** Where the gateway listens: "http://HOST:PORT" (https with TLS).
 * @param gw the gateway
 * @return the URL
 * @owner the gateway's */
IPFSRT_EXPERIMENTAL const char *ipfsrt_server_url(const ipfsrt_server *gw);
/** The gateway's counts so far, filled up to the size the caller set.
 * @param gw the gateway
 * @param stats size set (IPFSRT_SERVER_STATS_INIT); filled */
IPFSRT_EXPERIMENTAL void ipfsrt_server_get_stats(const ipfsrt_server *gw, ipfsrt_server_stats *stats);
/** Stops serving (waits for requests under way) and releases everything.
 * @param gw the gateway, or NULL
 * @owner its URL is no longer valid */
IPFSRT_EXPERIMENTAL void ipfsrt_server_free(ipfsrt_server *gw);

#ifdef __cplusplus
}
#endif

#endif
