/** @file
 * ipfsrt — verified reads through untrusted HTTP gateways. */
#ifndef IPFSRT_CLIENT_H
#define IPFSRT_CLIENT_H

#include "ranges.h"
#include "ipns.h"
#include "unixfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads through untrusted HTTP gateways (the trustless gateway protocol): every
 * block is hash-checked against its CID, and a path's blocks must form the path
 * from the root CID down (walked with the UnixFS resolver), so a gateway that
 * answers with valid blocks of something else fails. The calling thread drives
 * many transfers at once (libcurl multi) and worker threads hash what arrives;
 * functions block until their result is complete. A client is used from one
 * thread at a time, and its callbacks (policy, progress, write, entry, block)
 * must not call its fetching functions. */

/** The most gateways a list holds. */
#define IPFSRT_MAX_GATEWAYS 64

/** Gateway base URLs and where they came from. Caller-owned: _init, then _free. */
typedef struct ipfsrt_gateway_list {
    char *urls[IPFSRT_MAX_GATEWAYS]; /**< base URLs, without trailing slashes (the list's own) */
    size_t count;                    /**< how many */
    char source[4200]; /**< "IPFS_GATEWAY", a file's path, "the built-in list ..." */
} ipfsrt_gateway_list;

/** An empty list, source "".
 * @param list the caller's struct
 * @owner the caller's; the URLs added are released by ipfsrt_gateway_list_free */
IPFSRT_API void ipfsrt_gateway_list_init(ipfsrt_gateway_list *list);

/** Appends a gateway's base URL, trailing slashes dropped.
 * @param list an initialized list
 * @param url http:// or https://
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: not an http(s) URL, more than IPFSRT_MAX_GATEWAYS;
 * IPFSRT_EOUT_OF_MEMORY
 * @owner url is copied */
IPFSRT_API ipfsrt_status ipfsrt_gateway_list_add(ipfsrt_gateway_list *list, const char *url, ipfsrt_error *err);
/** The gateways a user configured: the IPFS_GATEWAY variable (URLs separated
 * by commas or spaces), else the first line of the first IPIP-280 file found
 * ($IPFS_PATH/gateway, ~/.ipfs/gateway, $XDG_CONFIG_HOME/ipfs/gateway,
 * /etc/ipfs/gateway), else public gateways; list->source says which.
 * @param list an initialized list, appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_gateway_list_add, naming where the URL came from */
IPFSRT_API ipfsrt_status ipfsrt_gateway_list_default(ipfsrt_gateway_list *list, ipfsrt_error *err);
/** Releases the URLs and empties the list (initialized again).
 * @param list the list
 * @owner its URLs are freed */
IPFSRT_API void ipfsrt_gateway_list_free(ipfsrt_gateway_list *list);

/** Why a gateway's answer was not used. */
typedef enum ipfsrt_gateway_error {
    IPFSRT_GWERR_NONE,          /**< no error */
    IPFSRT_GWERR_CONNECT,       /**< could not connect */
    IPFSRT_GWERR_TIMEOUT,       /**< no answer, or the body stalled */
    IPFSRT_GWERR_NOT_FOUND,     /**< 404, 410, 451 */
    IPFSRT_GWERR_REFUSED,       /**< another 4xx */
    IPFSRT_GWERR_RATE_LIMITED,  /**< 429 */
    IPFSRT_GWERR_SERVER,        /**< 5xx */
    IPFSRT_GWERR_TRUNCATED,     /**< the body broke off */
    IPFSRT_GWERR_TOO_LARGE,     /**< over the size cap */
    IPFSRT_GWERR_BAD_RESPONSE,  /**< not the format asked for, malformed CAR */
    IPFSRT_GWERR_HASH_MISMATCH, /**< verification: bytes that do not hash to their CID */
    IPFSRT_GWERR_WRONG_DAG,     /**< verification: valid blocks, but not the ones the path needs */
    IPFSRT_GWERR_TLS,           /**< TLS failed (untrusted certificate, handshake): not retried */
    IPFSRT_GWERR_COUNT
} ipfsrt_gateway_error;

/** A stable lower-case name for a kind of gateway failure ("hash_mismatch"),
 * as policies written in Lua see it.
 * @param e the kind
 * @return a static string ("unknown" outside the enum)
 * @owner the library's */
IPFSRT_API const char *ipfsrt_gateway_error_name(ipfsrt_gateway_error e);
/** Whether a kind of failure means the gateway sent bad data (hash_mismatch,
 * wrong_dag): what outcome.verification_failed says.
 * @param e the kind
 * @return true for the verification failures */
IPFSRT_API bool ipfsrt_gateway_error_is_verification(ipfsrt_gateway_error e);

/** What a request asks a gateway for. */
typedef enum ipfsrt_policy_request_kind {
    IPFSRT_REQUEST_BLOCK, /**< ?format=raw for one CID */
    IPFSRT_REQUEST_CAR,   /**< ?format=car for a path and dag-scope */
    IPFSRT_REQUEST_PLAIN, /**< unverified GET, or a batch's guess (see ipfsrt_client_batch) */
} ipfsrt_policy_request_kind;

/** The request and outcome a policy is handed are the library's (valid during
 * the call only); fields are only ever added at their end. */
typedef struct ipfsrt_policy_request {
    ipfsrt_policy_request_kind kind; /**< what it asks for */
    const char *path;   /**< "/ipfs/CID[/path]" (or the URL of a plain request) */
    const char *query;  /**< "format=car&dag-scope=entity..." or "" */
    unsigned attempt;   /**< 1 for the first try of this request, 2 for the next gateway or round... */
} ipfsrt_policy_request;

/** How an attempt went (the library's, valid during observe only). */
typedef struct ipfsrt_policy_outcome {
    bool ok;             /**< the answer was used */
    bool verified;       /**< its bytes were checked (false in unverified mode and on failure) */
    ipfsrt_gateway_error error; /**< why it was not used; IPFSRT_GWERR_NONE when ok */
    long status;         /**< HTTP status, 0 when none arrived */
    double latency_s;    /**< to the first byte, or to the failure */
    double duration_s;   /**< start to end, seconds */
    uint64_t bytes;      /**< body bytes received */
    const char *detail;  /**< what went wrong, "" when ok */
    bool guess;          /**< a CAR asked for a path before the reader's walk from the root has
                            proven it exists (every Zarr read of chunks starts with such
                            requests, so most of a Zarr read's outcomes have it): its
                            not_found says nothing against the gateway; the walk then asks
                            for what it still lacks, without guess */
    bool verification_failed; /**< the gateway sent bad data: hash_mismatch or wrong_dag
                                 (ipfsrt_gateway_error_is_verification) */
} ipfsrt_policy_outcome;

/** Decides which gateway serves each request: the contract a policy written in
 * Lua keeps too (scripts/policies/README.md; ipfsrt_lua_policy_new in
 * ipfsrt/lua.h turns such a file into this struct). Every function may be
 * NULL: the defaults try gateways in the configured order, never hedge,
 * observe nothing and cap nothing. When each is asked: order and hedge_after
 * when a request is dispatched, once per round of gateways (attempt 1, then
 * each retry round); observe when an attempt ends; max_in_flight once per
 * gateway when the policy is set. The requests of one read (a Zarr
 * selection's chunks, a batch) are dispatched together, so what observe
 * learns from one of them steers only requests dispatched after it, not the
 * others of that read already under way. A function that fails (returns anything but
 * IPFSRT_OK, with err filled) stops the call under way, which returns that
 * error. Caller-filled: size first (ipfsrt_policy_init, or .size = sizeof),
 * so that a host built against an older, shorter struct still works. */
typedef struct ipfsrt_policy {
    size_t size; /**< sizeof the struct: set by ipfsrt_policy_init (or .size = sizeof) */
    void *ctx;   /**< the policy's state, handed to every function */
    /** Writes the indices of the gateways to try, best first, into order (room for
     * n_gateways) and their number into *count; gateways left out are not tried. */
    ipfsrt_status (*order)(void *ctx, const ipfsrt_policy_request *req, size_t n_gateways,
                           size_t *order, size_t *count, ipfsrt_error *err);
    /** Seconds to wait for the first gateway's first byte before racing the next
     * one as well; negative = do not race. */
    ipfsrt_status (*hedge_after)(void *ctx, const ipfsrt_policy_request *req, double *seconds,
                                 ipfsrt_error *err);
    /** Each finished attempt: which gateway and how it went. */
    ipfsrt_status (*observe)(void *ctx, size_t gateway, const ipfsrt_policy_request *req,
                             const ipfsrt_policy_outcome *outcome, ipfsrt_error *err);
    /** Releases ctx: called once, by the client that took the policy over. */
    void (*free)(void *ctx);
    /** The most requests at once at a gateway (*cap, 1 or more; 0 = the client's
     * cap): asked once per gateway when a client takes the policy. */
    ipfsrt_status (*max_in_flight)(void *ctx, size_t gateway, unsigned *cap, ipfsrt_error *err);
} ipfsrt_policy;
/** Every callback NULL, size set: what a caller then fills in.
 * @param policy the caller's struct
 * @owner the caller's struct; ctx and free are set by the caller */
IPFSRT_API void ipfsrt_policy_init(ipfsrt_policy *policy);

/** How a client reads (size first: ipfsrt_client_options_init). */
typedef struct ipfsrt_client_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_client_options_init (or .size = sizeof) */
    const ipfsrt_gateway_list *gateways; /**< NULL or empty = ipfsrt_gateway_list_default */
    bool no_verify;          /**< unverified mode: plain GETs, nothing checked */
    uint64_t cache_bytes;    /**< memory cache; 0 = 64 MiB; UINT64_MAX = none */
    const char *cache_dir;   /**< blocks on disk by CID; NULL = none */
    bool trust_cache_dir;    /**< skip re-hashing blocks read back from cache_dir */
    unsigned concurrency;    /**< transfers in flight per gateway, fixed; 0 = adapted to each gateway's
                                answers (from 16, growing while answers keep their pace,
                                shrinking when they slow or the gateway refuses) */
    unsigned max_concurrency; /**< the most in flight per gateway when adapting; 0 = 128 */
    double timeout_s;        /**< first-byte and stall timeout; 0 = 30 */
    double min_rate;         /**< a body slower than this many bytes/s over timeout_s fails (the
                                gateway's fault: a drip would hold a request for ever);
                                0 = 1024; negative = no minimum */
    double deadline_s;       /**< one request, start to end; 0 = none */
    unsigned retries;        /**< extra rounds over the gateways after all failed; 0 = 2 */
    size_t max_block;        /**< largest block accepted; 0 = 2 MiB */
    const char *ca_file;     /**< CAs to trust for https gateways (PEM); NULL = CURL_CA_BUNDLE,
                                else SSL_CERT_FILE, else the system's */
    unsigned threads;        /**< hashing threads; 0 = ipfsrt_threads(), at most 4 */
    const ipfsrt_hash_backend *hash_backend; /**< the client's own; NULL: the process's
                                                (ipfsrt_hash_backend_select) */
    double give_up_s;        /**< a call fails once no gateway has answered anything (a header, a
                                byte) for this long, all its attempts and retries together, so a
                                gateway that takes connections and never answers is not waited
                                for round after round; 0 = 60; negative = never */
    uint64_t cache_dir_bytes; /**< cache_dir kept under this, the blocks used longest ago deleted
                                 first (processes sharing it each keep to it); 0 = 10 GiB;
                                 UINT64_MAX = no limit */
} ipfsrt_client_options;
/** The defaults, size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_client_options_init(ipfsrt_client_options *opts);

/** A client reading through gateways (ipfsrt_client_new): opaque. */
typedef struct ipfsrt_client ipfsrt_client;

/** A client reading through gateways, verifying every block (unless no_verify).
 * @param client the new client, on success (NULL on failure)
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_gateway_list_add (a gateway in opts or the defaults);
 * IPFSRT_EIO (cache_dir); IPFSRT_EOUT_OF_MEMORY; libcurl's setup failing
 * @owner the caller's: ipfsrt_client_free. opts is read now: its gateway list
 * is copied */
IPFSRT_API ipfsrt_status ipfsrt_client_new(ipfsrt_client **client, const ipfsrt_client_options *opts,
                                            ipfsrt_error *err);
/** Stops the client's transfers and threads and releases it, its cache and its
 * policy (whose free it calls).
 * @param client the client, or NULL
 * @owner everything it lent (blocks, URLs) is no longer valid */
IPFSRT_API void ipfsrt_client_free(ipfsrt_client *client);
/** The client takes over the policy; NULL restores the default. Every
 * gateway's cap is then set to what the policy's max_in_flight answers (0
 * without one). Ownership passes on every return, as with every callback
 * table handed to the library: a policy the client cannot take (no size, a
 * failing max_in_flight, a NULL client) has its free called before the call
 * returns, and the policy set before stays. Setting the policy the client
 * holds (the same ctx) again changes nothing.
 * @param client an idle client (not inside one of its own callbacks)
 * @param policy copied at its size; NULL = the default order
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: a NULL client, a policy without its size;
 * IPFSRT_EUNSUPPORTED: a longer struct setting members this library does not
 * know; the policy's max_in_flight failure
 * @owner the policy's ctx passes to the client, whatever the return: its free
 * is called once, by ipfsrt_client_free, a later set, or this call's failure */
IPFSRT_API ipfsrt_status ipfsrt_client_set_policy(ipfsrt_client *client, const ipfsrt_policy *policy,
                                                  ipfsrt_error *err);
/** The most requests in flight at one gateway from now on: a gateway's own
 * limit (rate limits, a small server), within the client's cap (max_concurrency,
 * or the fixed concurrency). A policy's max_in_flight sets the same.
 * @param client the client
 * @param gateway 0 to count-1 (others are ignored)
 * @param cap requests; 0 = the client's cap again */
IPFSRT_API void ipfsrt_client_set_gateway_cap(ipfsrt_client *client, size_t gateway, unsigned cap);
/** How many gateways the client reads through.
 * @param client the client
 * @return the count */
IPFSRT_API size_t ipfsrt_client_gateway_count(const ipfsrt_client *client);
/** A gateway's base URL, as messages and policies show it: a password in it
 * (user:password\@host) is ***.
 * @param client the client
 * @param i 0 to count-1
 * @return the URL, or NULL past the end
 * @owner the client's: valid until ipfsrt_client_free */
IPFSRT_API const char *ipfsrt_client_gateway_url(const ipfsrt_client *client, size_t i);
/** Where the gateway list came from (see ipfsrt_gateway_list.source).
 * @param client the client
 * @return "IPFS_GATEWAY", a file's path, "the built-in list ...", or the caller's
 * @owner the client's: valid until ipfsrt_client_free */
IPFSRT_API const char *ipfsrt_client_gateway_source(const ipfsrt_client *client);
/** Whether the client checks what it reads (false in no_verify mode).
 * @param client the client
 * @return true when every byte it hands out was verified */
IPFSRT_API bool ipfsrt_client_verifies(const ipfsrt_client *client);

/** Called as body bytes arrive: total so far and, when known, expected (else 0);
 * and again after each second without any (done unchanged: a caller can say
 * what it is waiting for). Anything but IPFSRT_OK stops the call under way
 * with that error (a way to cancel a long read). */
typedef ipfsrt_status (*ipfsrt_client_progress_fn)(void *user, uint64_t done, uint64_t expected,
                                                   ipfsrt_error *err);
/** The function told of body bytes as they arrive (see
 * ipfsrt_client_progress_fn): total so far and, when known, expected; and again
 * after each second without any. Anything but IPFSRT_OK from it stops the call
 * under way with that error (a way to cancel a long read).
 * @param client the client
 * @param fn NULL = none
 * @param user handed to fn
 * @owner user stays the caller's, and must outlive the client or the next call here */
IPFSRT_API void ipfsrt_client_set_progress(ipfsrt_client *client, ipfsrt_client_progress_fn fn, void *user);

/** One verified block, from the cache or a gateway.
 * @param client the client (verifying)
 * @param cid the block's CID
 * @param ref set on success: the bytes, lent
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY
 * @owner lent until ipfsrt_blocksource_release on ipfsrt_client_blocksource's source */
IPFSRT_API ipfsrt_status ipfsrt_client_block(ipfsrt_client *client, const ipfsrt_cid *cid,
                                             ipfsrt_blocksource_ref *ref, ipfsrt_error *err);
/** A block source over the client: blocks come from the cache, else by CID
 * from the gateways, verified.
 * @param src filled, size set
 * @param client the client
 * @owner the client must outlive the source; one thread at a time, as the client */
IPFSRT_API void ipfsrt_client_blocksource(ipfsrt_client *client, ipfsrt_blocksource *src);

/** Many blocks at once; fn sees each verified block as it arrives (in any order,
 * index = its position in cids). The first failure stops the batch. Unverified
 * clients make plain GETs of /ipfs/CID instead and check nothing. */
typedef ipfsrt_status (*ipfsrt_client_block_fn)(void *user, size_t index, const ipfsrt_cid *cid,
                                                 const uint8_t *data, size_t len,
                                                 ipfsrt_error *err);
/** Many blocks at once; fn sees each verified block as it arrives (in any
 * order, index = its position in cids). The first failure stops the batch.
 * Unverified clients make plain GETs of /ipfs/CID instead and check nothing.
 * @param client the client
 * @param cids n CIDs
 * @param n how many
 * @param fn called for each (its data valid during the call only); NULL: the
 * blocks are only fetched and verified (into the cache)
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; fn's own error
 * @owner fn must not call the client's fetching functions */
IPFSRT_API ipfsrt_status ipfsrt_client_blocks(ipfsrt_client *client, const ipfsrt_cid *cids, size_t n,
                                              ipfsrt_client_block_fn fn, void *user, ipfsrt_error *err);

/** The /ipfs/ path an IPNS path stands for: ipns://NAME[/path] or
 * /ipns/NAME[/path] (any form of NAME: k51..., base32, a peer ID). The record
 * for NAME is asked of every gateway at once, each answer verified (the IPNS
 * spec's rules, EOL included); the highest valid sequence wins and is kept for
 * its TTL (a later call costs no request), never giving way to a lower
 * sequence. A value that is another name is followed (8 deep at most). With
 * cache_dir, records are kept in its ipns/ folder (verified again when read
 * back), so a new client starts from them. A record past its TTL that no
 * gateway can renew still stands until its EOL. The client's other calls take
 * ipns:// paths too, resolving them so.
 * @param client the client
 * @param path the IPNS path (an /ipfs/ or ipfs:// one comes back as it is)
 * @param resolved set to "/ipfs/CID[/path]" (malloc'd), on success
 * @param err filled on failure, naming the name and what each gateway did
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID (not a name); IPFSRT_EBAD_RECORD, IPFSRT_EBAD_SIGNATURE,
 * IPFSRT_EEXPIRED (the best a gateway offered was false); IPFSRT_EUNAVAILABLE
 * (no gateway had one), IPFSRT_EFETCH_FAILED, IPFSRT_ETIMED_OUT; IPFSRT_ETOO_LARGE
 * (names too deep); IPFSRT_EOUT_OF_MEMORY
 * @owner *resolved is the caller's: free() it */
IPFSRT_API ipfsrt_status ipfsrt_client_resolve_name(ipfsrt_client *client, const char *path, char **resolved,
                                                    ipfsrt_error *err);
/** A name's record as ipfsrt_client_resolve_name finds it (the best valid
 * one the gateways hold, or the one kept within its TTL): its bytes, as a
 * gateway sent them, and what it says. What a gateway passes on to others.
 * @param client the client
 * @param name the name (a CIDv1 libp2p-key: ipfsrt_ipns_name_parse)
 * @param record appended to
 * @param info filled (released first)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_client_resolve_name
 * @owner info->value is the caller's (ipfsrt_ipns_record_free) */
IPFSRT_API ipfsrt_status ipfsrt_client_name_record(ipfsrt_client *client, const ipfsrt_cid *name, ipfsrt_buf *record,
                                                   ipfsrt_ipns_record *info, ipfsrt_error *err);
/** What is at a path: its type, size and CID. Paths are CID[/path],
 * /ipfs/CID[/path] or ipfs://CID[/path].
 * @param client the client
 * @param path the path
 * @param info set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; the path's: IPFSRT_EBAD_CID (its root), IPFSRT_ENOT_FOUND (a verified
 * directory without the name), IPFSRT_ENOT_DIRECTORY, IPFSRT_ESYMLINK,
 * IPFSRT_EBAD_UNIXFS, IPFSRT_EBAD_DAGPB */
IPFSRT_API ipfsrt_status ipfsrt_client_stat(ipfsrt_client *client, const char *path,
                                            ipfsrt_unixfs_node_info *info, ipfsrt_error *err);
/** Lists a directory (HAMT-sharded ones too), each entry checked against the
 * verified directory.
 * @param client the client
 * @param path the directory's path
 * @param fetch_types look each entry's type and size up (one block per entry,
 * fetched concurrently); else they are unknown
 * @param fn called per entry (its fields valid during the call only)
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; the path's: IPFSRT_EBAD_CID (its root), IPFSRT_ENOT_FOUND (a verified
 * directory without the name), IPFSRT_ENOT_DIRECTORY, IPFSRT_ESYMLINK,
 * IPFSRT_EBAD_UNIXFS, IPFSRT_EBAD_DAGPB; fn's own error
 * @owner each entry lent to fn is valid during its call only; fn must not call the client's fetching functions */
IPFSRT_API ipfsrt_status ipfsrt_client_ls(ipfsrt_client *client, const char *path, bool fetch_types,
                                          ipfsrt_unixfs_entry_fn fn, void *user, ipfsrt_error *err);
/** File bytes [offset, offset + length) in order. Verified bytes reach write
 * only once their block matched its CID and sits on the path from the root.
 * Unverified clients also take http(s):// URLs.
 * @param client the client
 * @param path the file's path
 * @param offset the first byte
 * @param length bytes; UINT64_MAX = to the end
 * @param write called with the bytes in order (valid during the call only)
 * @param user handed to write
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; the path's: IPFSRT_EBAD_CID (its root), IPFSRT_ENOT_FOUND (a verified
 * directory without the name), IPFSRT_ENOT_DIRECTORY, IPFSRT_ESYMLINK,
 * IPFSRT_EBAD_UNIXFS, IPFSRT_EBAD_DAGPB; IPFSRT_ENOT_FILE; IPFSRT_EBAD_RANGE (offset past
 * the end); write's own error
 * @owner the bytes lent to write are valid during its call only; write must not call the client's fetching functions */
IPFSRT_API ipfsrt_status ipfsrt_client_read(ipfsrt_client *client, const char *path, uint64_t offset,
                                            uint64_t length, ipfsrt_unixfs_write_fn write, void *user,
                                            ipfsrt_error *err);
/** Writes the file, tree or symlink at path to dest (which must not exist);
 * nothing is left behind on failure.
 * @param client the client
 * @param path the path
 * @param dest a file system path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; the path's: IPFSRT_EBAD_CID (its root), IPFSRT_ENOT_FOUND (a verified
 * directory without the name), IPFSRT_ENOT_DIRECTORY, IPFSRT_ESYMLINK,
 * IPFSRT_EBAD_UNIXFS, IPFSRT_EBAD_DAGPB; IPFSRT_EIO (dest, naming it) */
IPFSRT_API ipfsrt_status ipfsrt_client_export(ipfsrt_client *client, const char *path, const char *dest,
                                              ipfsrt_error *err);
/** The DAG under path (UnixFS), every block verified, written to the CAR file
 * dest with the path's CID as its root (as `ipfs dag export` does): an archive
 * any IPFS tool can import. dest must not exist; it appears complete or not at all.
 * @param client the client (verifying)
 * @param path the path
 * @param dest the CAR's path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EFETCH_FAILED (every gateway failed: the message names each and
 * why), IPFSRT_EUNAVAILABLE (every gateway said it has none: no proof of
 * absence), IPFSRT_ETIMED_OUT, IPFSRT_ECANCELED (a stop request), IPFSRT_EBAD_POLICY
 * (the policy), a progress callback's own error, IPFSRT_EOUT_OF_MEMORY; the path's: IPFSRT_EBAD_CID (its root), IPFSRT_ENOT_FOUND (a verified
 * directory without the name), IPFSRT_ENOT_DIRECTORY, IPFSRT_ESYMLINK,
 * IPFSRT_EBAD_UNIXFS, IPFSRT_EBAD_DAGPB; IPFSRT_EIO (dest, naming it) */
IPFSRT_API ipfsrt_status ipfsrt_client_export_car(ipfsrt_client *client, const char *path, const char *dest,
                                                  ipfsrt_error *err);

/* ------------------------------------------------- many reads in flight */

/** Many path and block reads on one client, collected as each completes (like
 * curl's multi handle), with the verification, policy, retries, hedging and
 * cache of single reads. Paths are worked on level by level: every block the
 * reads in flight need next is fetched at once, by CID, so a directory block on
 * many routes is fetched once. A directory that many paths go through is asked
 * for whole, in one CAR request (dag-scope=entity), and that request is dropped
 * once it sends more shards than the paths could need (a huge directory read for
 * a few paths): their routes are then fetched shard by shard. From an HTTP/1.x
 * gateway 10 ms or more away, that directory is asked for beside the reads,
 * not before them, and reads let in meanwhile guess: a plain GET of the file
 * (no proof, and none of the shards its path crosses), whose bytes are used
 * only if they hash to the block the verified listing names for it; else the
 * read asks for that block by CID. Unverified clients make one plain GET per
 * path, all in flight at once (within the concurrency). */
typedef struct ipfsrt_client_batch ipfsrt_client_batch;

/** A batch of reads on one client, collected as each completes (like curl's
 * multi handle), with the verification, policy, retries, hedging and cache of
 * single reads.
 * @param batch the new batch, on success
 * @param client the client, used by nothing else until the batch is freed
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_client_batch_free; the client must outlive it */
IPFSRT_API ipfsrt_status ipfsrt_client_batch_new(ipfsrt_client_batch **batch, ipfsrt_client *client,
                                                 ipfsrt_error *err);
/** Adds bytes [offset, offset + length) of the file at path; reads are added
 * before the first ipfsrt_client_batch_next.
 * @param batch the batch
 * @param path the file's path (copied)
 * @param offset the first byte
 * @param length bytes; UINT64_MAX = to the end
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (after the first _next, or a plain URL on a
 * verifying client); IPFSRT_EBAD_CID (the root); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_client_batch_add_path(ipfsrt_client_batch *batch, const char *path,
                                                      uint64_t offset, uint64_t length, ipfsrt_error *err);
/** Adds the last length bytes of the file at path (all of it when it is shorter).
 * @param batch the batch
 * @param path the file's path (copied)
 * @param length bytes from the end
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_client_batch_add_path */
IPFSRT_API ipfsrt_status ipfsrt_client_batch_add_suffix(ipfsrt_client_batch *batch, const char *path, uint64_t length,
                                                        ipfsrt_error *err);
/** Adds one block by CID.
 * @param batch the batch
 * @param cid the block's CID (copied)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (after the first _next); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_client_batch_add_block(ipfsrt_client_batch *batch, const ipfsrt_cid *cid,
                                                       ipfsrt_error *err);
/** Waits for the next read to complete and describes it in *result, or sets
 * *done when every read has been reported. A read that failed is a result with
 * its own status (and error); the call itself fails only for what stops the
 * whole batch.
 * @param batch the batch
 * @param result its key (the path as added, "" for a block), its cid (the
 * block's, or the file's once resolved), its bytes and status
 * @param done set when nothing is left
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY, IPFSRT_EBAD_POLICY or a progress callback's
 * error, IPFSRT_ECANCELED (a stop request)
 * @owner the result's key, cid and bytes are valid until the next call */
IPFSRT_API ipfsrt_status ipfsrt_client_batch_next(ipfsrt_client_batch *batch, ipfsrt_range_result *result,
                                                  bool *done, ipfsrt_error *err);
/** Cancels the reads still in flight and releases the batch.
 * @param batch the batch, or NULL
 * @owner results it lent are no longer valid */
IPFSRT_API void ipfsrt_client_batch_free(ipfsrt_client_batch *batch);

/** Ranges of the files at the requests' paths, as a batch: fn sees each as it
 * completes (as ipfsrt_client_batch_next describes it).
 * @param client the client
 * @param requests n requests (keys are paths)
 * @param n how many
 * @param fn called per result, each exactly once
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_client_batch_next; fn's own error
 * @owner each result is valid during fn's call only (or held through its lent) */
IPFSRT_API ipfsrt_status ipfsrt_client_get_many(ipfsrt_client *client, const ipfsrt_range_request *requests,
                                                size_t n, ipfsrt_range_fn fn, void *user, ipfsrt_error *err);

/** The most recent first-byte latencies kept per gateway for its percentiles. */
#define IPFSRT_LATENCY_SAMPLES 512

/** Counts a gateway has seen, filled up to the size the caller set
 * (IPFSRT_CLIENT_GATEWAY_STATS_INIT): counts added later reach only hosts
 * that know them. */
typedef struct ipfsrt_client_gateway_stats {
    size_t size;          /**< sizeof the struct: IPFSRT_CLIENT_GATEWAY_STATS_INIT sets it */
    uint64_t requests;    /**< attempts that went out */
    uint64_t ok;          /**< answers used */
    uint64_t bytes;       /**< body bytes received */
    uint64_t errors[IPFSRT_GWERR_COUNT]; /**< by kind */
    uint64_t verify_failures; /**< answers that failed verification (hash_mismatch, wrong_dag) */
    double latency_p50_s; /**< median seconds to the first byte, over recent requests */
    double latency_p90_s; /**< 90th percentile of the same */
    double latency_p99_s; /**< 99th percentile of the same */
} ipfsrt_client_gateway_stats;
/** An ipfsrt_client_gateway_stats with its size set. */
#define IPFSRT_CLIENT_GATEWAY_STATS_INIT {.size = sizeof(ipfsrt_client_gateway_stats)}

/** A gateway's counts since the client was made: requests, answers used,
 * bytes, failures by kind, and recent first-byte latencies.
 * @param client the client
 * @param i 0 to count-1 (zeros past the end)
 * @param stats size set (IPFSRT_CLIENT_GATEWAY_STATS_INIT); filled up to it */
IPFSRT_API void ipfsrt_client_get_gateway_stats(const ipfsrt_client *client, size_t i,
                                            ipfsrt_client_gateway_stats *stats);

/** A relay shares one client with many threads: its block source may be called
 * from any thread (each call waits for its block), while one thread drives the
 * client in ipfsrt_client_relay_run, where the client's policy and progress
 * functions run. Several calls wanting one block at once share one fetch.
 * Blocks are verified (the client must verify) and come from its cache when
 * there (its directory read by the calling thread, so hits never wait on the
 * driver). The client must outlive the relay and be used by nothing else while
 * the relay runs. */
typedef struct ipfsrt_client_relay ipfsrt_client_relay;

/** Filled up to the size the caller set (IPFSRT_CLIENT_RELAY_STATS_INIT). */
typedef struct ipfsrt_client_relay_stats {
    size_t size;        /**< sizeof the struct: IPFSRT_CLIENT_RELAY_STATS_INIT sets it */
    uint64_t jobs;      /**< blocks looked for (in the cache, else at the gateways) */
    uint64_t coalesced; /**< calls answered by a look under way, or by a block kept from one
                           (as many bytes as the client's memory cache) */
    uint64_t prefetched; /**< blocks that came in prefetches' answers */
} ipfsrt_client_relay_stats;
/** An ipfsrt_client_relay_stats with its size set. */
#define IPFSRT_CLIENT_RELAY_STATS_INIT {.size = sizeof(ipfsrt_client_relay_stats)}

/** A relay that shares one client with many threads: its block source may be
 * called from any thread, while one thread drives the client in
 * ipfsrt_client_relay_run.
 * @param relay the new relay, on success
 * @param client a verifying client, used by nothing else while the relay runs
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (an unverified client); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_client_relay_free; the client must outlive it */
IPFSRT_API ipfsrt_status ipfsrt_client_relay_new(ipfsrt_client_relay **relay, ipfsrt_client *client,
                                                 ipfsrt_error *err);
/** A block source any thread may call: each call waits for its block (from
 * the cache, a block kept, or fetched by the driving thread).
 * @param relay the relay
 * @param src filled, size set
 * @owner the relay must outlive the source */
IPFSRT_API void ipfsrt_client_relay_blocksource(ipfsrt_client_relay *relay, ipfsrt_blocksource *src);
/** The blocks the relay holds now (kept, or fetched for a caller), and
 * IPFSRT_ENOT_FOUND for the rest: nothing is asked for. A walk over it tells
 * whether a path needs a prefetch.
 * @param relay the relay
 * @param src filled, size set
 * @owner the relay must outlive the source */
IPFSRT_API void ipfsrt_client_relay_blocksource_at_hand(ipfsrt_client_relay *relay, ipfsrt_blocksource *src);
/** Unless the relay holds them already, asks the gateways for the blocks a
 * walk of path needs (the trustless gateway's dag-scope) in one CAR request,
 * each block checked as it comes and kept like fetched ones, and waits for the
 * answer: a walk of a path the relay has not seen then costs one round trip.
 * Calls for the same path and scope at once share one request. What the answer
 * lacked, or a failed request, is left to the walk.
 * @param relay the relay
 * @param path the path
 * @param scope the dag-scope
 * @param offset for ENTITY: the first byte of a file
 * @param length for ENTITY: bytes; UINT64_MAX = to the end
 * @param err filled on failure
 * @return IPFSRT_OK unless the relay has stopped
 * @errors IPFSRT_ECANCELED (stopped); IPFSRT_EBAD_CID (the path's root);
 * IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_client_relay_prefetch(ipfsrt_client_relay *relay, const char *path,
                                                      ipfsrt_unixfs_scope scope, uint64_t offset, uint64_t length,
                                                      ipfsrt_error *err);
/** ipfsrt_client_relay_prefetch's request, not waited for: its blocks are kept
 * as they come, for the walks that follow.
 * @param relay the relay
 * @param path the path
 * @param scope the dag-scope
 * @param offset for ENTITY: the first byte
 * @param length for ENTITY: bytes; UINT64_MAX = to the end
 * @param err filled on failure
 * @return IPFSRT_OK unless the relay has stopped
 * @errors as ipfsrt_client_relay_prefetch */
IPFSRT_API ipfsrt_status ipfsrt_client_relay_prefetch_nowait(ipfsrt_client_relay *relay, const char *path,
                                                             ipfsrt_unixfs_scope scope, uint64_t offset,
                                                             uint64_t length, ipfsrt_error *err);
/** The fastest gateway's time to a first byte lately, for callers choosing
 * between waiting and asking; safe from any thread.
 * @param relay the relay
 * @return seconds, 0 before any gateway has answered */
IPFSRT_API double ipfsrt_client_relay_round_trip(ipfsrt_client_relay *relay);
/** Drives the client until ipfsrt_client_relay_stop or a stop request
 * (ipfsrt_request_stop, a signal); calls made before it runs wait for it. A
 * call whose gateways all fail, or that the client gives up on, fails alone;
 * once stopped, waiting and later calls fail with IPFSRT_ECANCELED.
 * @param relay the relay
 * @param err filled on failure
 * @return IPFSRT_OK once stopped
 * @errors IPFSRT_EOUT_OF_MEMORY; the engine's failure */
IPFSRT_API ipfsrt_status ipfsrt_client_relay_run(ipfsrt_client_relay *relay, ipfsrt_error *err);
/** Stops the relay's run; safe from any thread (a signal handler sets the stop
 * request instead).
 * @param relay the relay */
IPFSRT_API void ipfsrt_client_relay_stop(ipfsrt_client_relay *relay);
/** What the relay has done: blocks looked for, calls answered by a look under
 * way or a block kept, blocks prefetched.
 * @param relay the relay
 * @param stats size set (IPFSRT_CLIENT_RELAY_STATS_INIT); filled up to it */
IPFSRT_API void ipfsrt_client_relay_get_stats(ipfsrt_client_relay *relay, ipfsrt_client_relay_stats *stats);
/** Releases a relay, after ipfsrt_client_relay_run has returned and with no
 * call waiting.
 * @param relay the relay, or NULL
 * @owner its block sources are no longer valid; the client stays the caller's */
IPFSRT_API void ipfsrt_client_relay_free(ipfsrt_client_relay *relay);

#ifdef __cplusplus
}
#endif

#endif
