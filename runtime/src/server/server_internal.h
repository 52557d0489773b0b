/* The local gateway's parts: lifecycle (server.c), HTTP plumbing and routing
 * (http.c), fault injection (faults.c), trustless answers (trustless.c), plain
 * answers (plain.c) and the request parsers (http_parse.h). Not public. */
#ifndef IPFSRT_SERVER_INTERNAL_H
#define IPFSRT_SERVER_INTERNAL_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ipfsrt/server.h"
#include "ipfsrt/car.h"
#include "ipfsrt/ipns.h"
#include "base/base_internal.h"

#define IPFSRT_CAR_TYPE "application/vnd.ipld.car"
#define IPFSRT_RAW_TYPE "application/vnd.ipld.raw"

/* A valid block the wrong-block fault sends in place of the one asked for. */
typedef struct ipfsrt_server_spare {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
} ipfsrt_server_spare;

/* delay.c: resumes suspended connections when their delay is over. */
typedef struct ipfsrt_server_waker ipfsrt_server_waker;
ipfsrt_status ipfsrt_server_waker_new(ipfsrt_server_waker **waker, ipfsrt_error *err);
/* False when it cannot wait (then the caller must not leave c suspended). */
bool ipfsrt_server_waker_add(ipfsrt_server_waker *waker, struct MHD_Connection *c, double seconds);
/* Resumes whatever still waits, and stops. */
void ipfsrt_server_waker_free(ipfsrt_server_waker *waker);

/* watch.c: each request's head timed from the connection's start (or the
 * end of its last request), the connection shut down past its time. */
typedef struct ipfsrt_server_watch ipfsrt_server_watch;
ipfsrt_status ipfsrt_server_watch_new(ipfsrt_server_watch **w, double seconds, ipfsrt_error *err);
void ipfsrt_server_watch_free(ipfsrt_server_watch *w);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the watch). */
void ipfsrt_server_watch_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                                enum MHD_ConnectionNotificationCode toe);
/* head: the request has come whole; else it is over, the next head timed from now. */
void ipfsrt_server_watch_mark(ipfsrt_server_watch *w, struct MHD_Connection *c, bool head);

/* suspend.c: a body waiting for blocks parks its connection (suspended) and
 * is woken when they come; work that waits is deferred to a worker thread. */
typedef struct ipfsrt_server_waiter {
    struct MHD_Connection *c;
    bool suspended;
    struct ipfsrt_server_waiter *prev, *next, *resume_next;
} ipfsrt_server_waiter;
void ipfsrt_server_waiter_add(ipfsrt_server *gw, ipfsrt_server_waiter *w, struct MHD_Connection *c);
void ipfsrt_server_waiter_remove(ipfsrt_server *gw, ipfsrt_server_waiter *w);
/* Suspends w's connection (from its content reader, holding the lock that
 * guards what it waits for, so that the wake cannot come first); false when
 * the gateway is stopping: the body ends. */
bool ipfsrt_server_waiter_park(ipfsrt_server *gw, ipfsrt_server_waiter *w);
/* Resumes w's connection if it is parked (called holding the same lock). */
void ipfsrt_server_waiter_wake(ipfsrt_server *gw, ipfsrt_server_waiter *w);
struct ipfsrt_server_request;
typedef enum MHD_Result (*ipfsrt_server_job_fn)(struct ipfsrt_server_request *rq, struct MHD_Connection *c);
/* Runs fn on a worker thread, the connection suspended meanwhile (resumed
 * after: the handler then sends what fn answered); false when it could not:
 * the caller runs fn itself. */
bool ipfsrt_server_defer(struct ipfsrt_server_request *rq, struct MHD_Connection *c, ipfsrt_server_job_fn fn);
/* fn(arg) on a worker thread, counted so that the gateway stops only once it
 * is done; false when it could not start (or the gateway stops). */
bool ipfsrt_server_spawn(ipfsrt_server *gw, void (*fn)(void *arg), void *arg);
/* Waits for the deferred work and resumes every parked connection, before
 * the daemon stops. */
void ipfsrt_server_resume_all(ipfsrt_server *gw);

struct ipfsrt_server {
    ipfsrt_car_file **cars;
    size_t ncars;
    ipfsrt_mhmap index; /* every block of every CAR: multihash -> which CAR holds it */
    ipfsrt_blocksource src;   /* the CARs' blocks, then upstream's */
    ipfsrt_client_relay *relay; /* with an upstream */
    ipfsrt_mhmap missed_dirs;   /* directories paths missed in, and how often (upstream.c) */
    pthread_mutex_t dirs_lock;
    ipfsrt_blocksource upstream; /* the relay's */
    ipfsrt_blocksource at_hand;  /* the relay's blocks at hand (nothing asked for) */
    ipfsrt_blocksource held;     /* the CARs' blocks, then the relay's at hand */
    bool has_upstream;
    unsigned max_connections, per_address;
    struct MHD_Daemon *daemon;
    char url[80];
    ipfsrt_server_faults faults;
    ipfsrt_server_spare spares[2];
    ipfsrt_server_spare decoy; /* a valid DAG of its own, for wrong-dag when no other root is served */
    ipfsrt_server_waker *waker;
    ipfsrt_server_watch *watch;
    pthread_mutex_t wait_lock; /* the waiters, the jobs' count, stopping */
    pthread_cond_t jobs_over;
    ipfsrt_server_waiter *waiters;
    unsigned jobs;
    bool stopping;
    FILE *log;
    pthread_mutex_t log_lock;
    char *tls_cert, *tls_key; /* PEM text, kept for the daemon's lifetime; NULL: plain HTTP */
    struct ipfsrt_server_names *names; /* --ipns-records: the records served (names.c), or NULL */
    struct ipfsrt_client *ipns_client; /* names asked upstream, one request at a time (names_lock) */
    pthread_mutex_t names_lock;
    _Atomic uint64_t requests, bytes, s2xx, s4xx, s5xx, faulted;
    _Atomic uint64_t in_flight, peak_in_flight;
};

/* What one request is doing, for the fault plan and the log line. */
typedef struct ipfsrt_server_request {
    ipfsrt_server *gw;
    uint64_t number;
    uint64_t rng;
    char method[8];
    char *path;
    unsigned status;
    _Atomic uint64_t bytes;
    char faults[96];
    char cut[256]; /* why a body streamed from upstream ended short */
    /* body faults, applied by the callbacks that produce bodies */
    bool tamper, truncate, wrong_block, wrong_dag;
    uint64_t slow;
    bool set_up;     /* handle() has seen the request once */
    bool delayed;    /* its delay is over: resumed, it goes on */
    bool counted;    /* counted among the faulted requests */
    bool nul_in_uri; /* %00 in the raw URI: the decoded path would end early */
    bool encoded_slash; /* %2F in the raw URI's path: decoded, a name would become two */
    /* answered on a worker (in front of an upstream): what it answered, sent
     * by the handler once the connection is resumed */
    bool in_job, job_done;
    char negotiated[12]; /* the format= Accept chose ("raw", "car", "dag-json"...), none given */
    char document[12];   /* the form a document is asked in: "dag-json", "json", "cbor"... or "" */
    bool document_by_format; /* ... by format= (a UnixFS answer cannot be it: 406), not Accept */
    bool json_body;     /* a file answer's whole body, in hand, is JSON */
    bool want_json;     /* format=json: a file's bytes, if they are JSON, else 406 */
    bool mutable_answer; /* through an IPNS name: cached for ttl_s, not as immutable */
    uint64_t ttl_s;
    enum MHD_Result job_result;
    struct MHD_Response *answer;
    unsigned answer_status;
    uint64_t answer_body;
} ipfsrt_server_request;

/* http.c: libmicrohttpd's callbacks, and answers every part sends */
enum MHD_Result ipfsrt_server_handle(void *cls, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_size, void **req_cls);
void ipfsrt_server_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                             enum MHD_RequestTerminationCode why);
/* libmicrohttpd's URI log callback: sees the raw URI before it is decoded. */
void *ipfsrt_server_uri_seen(void *cls, const char *uri, struct MHD_Connection *c);
void ipfsrt_server_common_headers(struct MHD_Response *r);

/* headers.c: what every answer says beside its body */
/* CORS: any origin reads every answer (errors too), and the headers it needs. */
void ipfsrt_server_cors_headers(struct MHD_Response *r);
/* OPTIONS: the preflight's answer (the headers asked for allowed, when they are a header list). */
enum MHD_Result ipfsrt_server_preflight(struct ipfsrt_server_request *rq, struct MHD_Connection *c);
/* X-Ipfs-Path, Vary: Accept, and Content-Location when Accept chose the format. */
void ipfsrt_server_path_headers(const struct ipfsrt_server_request *rq, struct MHD_Response *r);
/* Content-Disposition: attachment (or inline, unless ?download=true), named by
 * ?filename= when given, else fallback. */
void ipfsrt_server_disposition(struct MHD_Connection *c, struct MHD_Response *r, const char *fallback,
                               bool attachment);
/* path percent-encoded (unreserved bytes and '/' kept) into out; its length. */
size_t ipfsrt_server_encode_path(const char *path, char *out, size_t size);
/* Whether the request's If-None-Match names etag: then answer 304, nothing read. */
bool ipfsrt_server_not_modified(struct MHD_Connection *c, const char *etag);
enum MHD_Result ipfsrt_server_send_not_modified(struct ipfsrt_server_request *rq, struct MHD_Connection *c,
                                                const char *etag);
/* Queues r, counts the answer and body bytes sent at once (0 for bodies that
 * count themselves as they are produced: ipfsrt_server_count_sent). */
enum MHD_Result ipfsrt_server_queue(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                    unsigned status, struct MHD_Response *r, uint64_t body);
void ipfsrt_server_count_sent(ipfsrt_server_request *rq, size_t n);
enum MHD_Result ipfsrt_server_send_text(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The status the trustless gateway spec asks for, with the error's message. */
enum MHD_Result ipfsrt_server_send_error(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_error *err);

/* faults.c */
uint64_t ipfsrt_server_random(ipfsrt_server_request *rq);
/* Draws the request's faults; *answered when one of them answered it already
 * (or dropped the connection: MHD_NO). */
enum MHD_Result ipfsrt_server_plan_faults(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          bool *answered);
const ipfsrt_server_spare *ipfsrt_server_spare_for(const ipfsrt_server *gw, const ipfsrt_cid *cid);
bool ipfsrt_server_body_faults_on(const ipfsrt_server_request *rq);
/* How much of a body to produce at once: all of max, or a slow answer's next drop. */
size_t ipfsrt_server_piece(const ipfsrt_server_request *rq, size_t max);
/* Applies the body faults to bytes [pos, pos + n) of a body of total bytes:
 * returns how many of them to send (fewer when truncating). */
size_t ipfsrt_server_body_faults(ipfsrt_server_request *rq, uint64_t pos, uint8_t *buf, size_t n,
                                 uint64_t total, uint64_t tamper_at);

/* trustless.c, plain.c */
/* A block's bytes as an answer (Range served): what it is called and tagged. */
typedef struct ipfsrt_server_block_answer {
    const ipfsrt_cid *cid;
    const char *type;     /* Content-Type */
    const char *filename; /* Content-Disposition's, unless ?filename= */
    bool attachment;      /* else inline (?download=true: attachment) */
    const char *etag;
    const char *roots;    /* X-Ipfs-Roots */
} ipfsrt_server_block_answer;
enum MHD_Result ipfsrt_server_send_block(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_server_block_answer *a);
enum MHD_Result ipfsrt_server_serve_raw(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *cid, const char *path);
enum MHD_Result ipfsrt_server_serve_car(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *root, const char *cid_str,
                                        const char *path, const char *accept);
enum MHD_Result ipfsrt_server_serve_plain(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const char *cid_str, const char *path);
/* names.c: the IPNS records of a folder, each verified, read again when it
 * changes; get: the best record for name (a copy, malloc'd) and what it says
 * (info->value the caller's), or ENOT_FOUND, or why none verifies. */
typedef struct ipfsrt_server_names ipfsrt_server_names;
ipfsrt_status ipfsrt_server_names_new(ipfsrt_server_names **out, const char *dir, ipfsrt_error *err);
void ipfsrt_server_names_free(ipfsrt_server_names *n);
ipfsrt_status ipfsrt_server_names_get(ipfsrt_server_names *n, const ipfsrt_cid *name, uint8_t **record, size_t *len,
                                      struct ipfsrt_ipns_record *info, ipfsrt_error *err);
/* ipns_answer.c: /ipns/NAME[/path]; /routing/v1/ipns/NAME (the delegated
 * routing API's record, for clients that look names up so; the rest of that
 * API answers 404). */
enum MHD_Result ipfsrt_server_serve_name(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *url);
enum MHD_Result ipfsrt_server_serve_routing(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *url);
/* http.c: the /ipfs/ answer for an IPNS record's value and the rest of the path. */
enum MHD_Result ipfsrt_server_route_ipfs(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *value,
                                         const char *rest);
/* tar.c: format=tar, the file or tree a path names as a TAR. */
enum MHD_Result ipfsrt_server_serve_tar(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *cid_str,
                                        const char *path);
/* car_stream.c: a CAR answer streamed as walk finds its blocks (root NULL:
 * bare, the bytes walk writes with _write, no CAR around them). walk runs on
 * a thread of its own, and hands each block to the stream
 * (ipfsrt_server_car_stream_emit: got from the gateway's block source;
 * _emit_own: bytes of the server's own), waiting while the client is behind;
 * it must not touch the request, which may end first. A walk that fails
 * before the stream's few blocks of room have filled is this function's
 * error (answered with its status); after, the body ends short. Takes walk_user (walk_free frees
 * it, on failure too). */
typedef struct ipfsrt_server_car_stream ipfsrt_server_car_stream;
typedef ipfsrt_status (*ipfsrt_server_walk_fn)(void *user, ipfsrt_server_car_stream *stream, ipfsrt_error *err);
ipfsrt_status ipfsrt_server_car_stream_start(ipfsrt_server_request *rq, struct MHD_Connection *c, const ipfsrt_cid *root,
                                             ipfsrt_server_walk_fn walk, void *walk_user, void (*walk_free)(void *),
                                             struct MHD_Response **r, ipfsrt_error *err);
/* An ipfsrt_unixfs_cid_fn: stream is the ipfsrt_server_car_stream. */
ipfsrt_status ipfsrt_server_car_stream_emit(void *stream, const ipfsrt_cid *cid, ipfsrt_error *err);
ipfsrt_status ipfsrt_server_car_stream_emit_own(ipfsrt_server_car_stream *stream, const ipfsrt_server_spare *block,
                                                ipfsrt_error *err);
/* A bare stream's next bytes (copied). */
ipfsrt_status ipfsrt_server_car_stream_write(ipfsrt_server_car_stream *stream, const void *data, size_t len,
                                             ipfsrt_error *err);
/* index_html.c: a listing (plain.c's JSON array) as an HTML page whose links
 * start with base (the request's /ipfs/ path), NUL-terminated, *len its
 * length; NULL when out of memory. */
struct cJSON;
/* plain.c: Content-Range for bytes [start, start + len) of size. */
void ipfsrt_server_content_range(struct MHD_Response *r, uint64_t start, uint64_t len, uint64_t size);
/* plain.c: 416, the size named in Content-Range. */
enum MHD_Result ipfsrt_server_send_unsatisfiable(struct ipfsrt_server_request *rq, struct MHD_Connection *c,
                                                 uint64_t size);
/* plain.c: a file's bytes (or its Range); *r is NULL when it was answered already. */
/* document.c: a DAG-CBOR, DAG-JSON, JSON or CBOR block a path ends at: its
 * bytes in the form asked (406 for another codec's), or an HTML preview for
 * browsers. */
enum MHD_Result ipfsrt_server_document_answer(struct ipfsrt_server_request *rq, struct MHD_Connection *c,
                                              const ipfsrt_unixfs_node_info *info, const char *roots);
enum MHD_Result ipfsrt_server_file_response(struct ipfsrt_server_request *rq, struct MHD_Connection *c,
                                            const ipfsrt_unixfs_node_info *info, const char *path,
                                            struct MHD_Response **r, unsigned *status);

/* directory.c: a directory's plain answer (its 301 to a trailing slash, its
 * index.html, or its listing), planned once the path is resolved, so that
 * its Etag is known before anything is read. */
typedef struct ipfsrt_server_dir {
    ipfsrt_cid cid;
    bool has_index;               /* index.html is a file in it: that is the answer */
    ipfsrt_unixfs_node_info index;
    bool json;                    /* a JSON listing, asked for by Accept */
    char etag[IPFSRT_CID_STR_MAX + 32];
} ipfsrt_server_dir;
enum MHD_Result ipfsrt_server_redirect_to_slash(struct ipfsrt_server_request *rq, struct MHD_Connection *c);
ipfsrt_status ipfsrt_server_dir_plan(struct ipfsrt_server_request *rq, struct MHD_Connection *c, const char *full,
                                     const ipfsrt_unixfs_node_info *dir, ipfsrt_server_dir *plan,
                                     ipfsrt_error *err);
enum MHD_Result ipfsrt_server_dir_answer(struct ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_server_dir *plan, struct MHD_Response **r, unsigned *status,
                                         uint64_t *body);
char *ipfsrt_server_index_html(const char *base, const struct cJSON *list, size_t *len);
/* index_html.c: n bytes of s as HTML text (entities escaped). */
void ipfsrt_server_put_html(ipfsrt_buf *b, const char *s, size_t n);
/* document_html.c: a document block as an HTML page for browsers (links
 * linked); NULL when out of memory. */
char *ipfsrt_server_document_html(const char *path, const ipfsrt_cid *cid, const uint8_t *block, size_t len,
                                  size_t *out_len);
/* upstream.c: a path's blocks asked of the relay in one request (nothing
 * without one). */
void ipfsrt_server_prefetch(ipfsrt_server_request *rq, const char *path, ipfsrt_unixfs_scope scope,
                            uint64_t offset, uint64_t length);
/* upstream.c: what path names, for a plain answer (range: its Range header;
 * opts: the walk's, NULL for the defaults); in front of an upstream, what is
 * held is walked at once and the first block lacking decides how to ask for
 * the rest. */
ipfsrt_status ipfsrt_server_resolve(ipfsrt_server_request *rq, const char *path, const char *range,
                                    const ipfsrt_unixfs_options *opts, ipfsrt_unixfs_node_info *info,
                                    ipfsrt_error *err);
/* upstream.c: a file's bytes read as the answer goes out, for blocks that are
 * not all at hand when it starts (*r NULL: answered already). */
enum MHD_Result ipfsrt_server_stream_file(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const ipfsrt_cid *file, uint64_t start, uint64_t len,
                                          struct MHD_Response **r);

#endif
