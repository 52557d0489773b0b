/* The gateway client's parts, shared by its files: the scheduler (tasks tried
 * gateway after gateway, attempts, timers), block jobs and read-ahead, CAR-stream
 * sessions that prove a path, unverified reads, many reads in flight, and the
 * public API. Not part of the public API. */
#ifndef IPFSRT_CLIENT_INTERNAL_H
#define IPFSRT_CLIENT_INTERNAL_H

#include "ipfsrt/client.h"
#include "ipfsrt/path.h"
#include "car/car_internal.h"
#include "http/fetch.h"
#include "client/verify_pool.h"
#include "store/blockcache.h"

#define PENDING_CAP ((uint64_t)128 << 20) /* verified blocks a stream may send ahead of the walk */
/* ... and their count: a block's bookkeeping (its hashing job, its map entry)
 * outweighs a tiny block's bytes, so a flood of tiny ones is bounded here */
#define PENDING_BLOCKS_CAP 65536u
#define START_IN_FLIGHT 16 /* requests in flight per gateway at first, adapting */
#define MAX_IN_FLIGHT 128  /* ... at most, unless the caller says (max_concurrency) */
#define READAHEAD_MIN_FILE ((uint64_t)8 << 20) /* whole files this big are read by CID, many at once */

/* Requests in flight at one gateway, adapted to its answers (pacing.c). */
typedef struct ipfsrt_pacing {
    double limit, cap;
    double base;       /* the least first-byte latency lately: the gateway unloaded */
    double smooth;     /* recent first-byte latencies, smoothed */
    double calm_until; /* no change before this time, after a shrink */
} ipfsrt_pacing;

void ipfsrt_pacing_init(ipfsrt_pacing *p, unsigned start, unsigned cap);
/* An answer's first-byte latency, into the fastest lately (base) and the
 * smoothed one; kept with a fixed concurrency too (the relay reads base). */
void ipfsrt_pacing_note(ipfsrt_pacing *p, double latency);
/* With adapted concurrency, each gateway's limit raised to start (within its
 * cap) unless it is there already. */
void ipfsrt_client_pace_from(ipfsrt_client *c, unsigned start);
/* When every gateway heard from so far answers over HTTP/1.x (a connection
 * per request in flight), the least round trip among them (first-byte
 * latency less connecting); else 0. FAR_ROUND_TRIP_S: far enough that a
 * directory's listing, through one connection's slow start, costs more than
 * the shards its paths bring with them (public gateways are 10-100 ms away). */
#define FAR_ROUND_TRIP_S 0.010
double ipfsrt_client_http1_round_trip(const ipfsrt_client *c);
/* An attempt's end (error IPFSRT_GWERR_NONE when it went well, its first-byte
 * latency, the requests still waiting for room): the limit from now on. */
unsigned ipfsrt_pacing_observe(ipfsrt_pacing *p, ipfsrt_gateway_error error, double latency, size_t backlog,
                               double now);

typedef struct gw_state {
    ipfsrt_client_gateway_stats stats;
    ipfsrt_pacing pace;
    double latency[IPFSRT_LATENCY_SAMPLES]; /* ring of recent first-byte latencies */
    size_t latency_count, latency_next;
    /* its last failure, of any call: what a call the policy sends nowhere
     * names (a policy leaves a gateway out for what it did before) */
    ipfsrt_gateway_error last_error;
    char last_detail[400];
    bool one_per_connection; /* it answers over HTTP/1.x (learned from its first answer) */
    bool near_http1;         /* ... and nearer than FAR_ROUND_TRIP_S */
} gw_state;

typedef struct task task;

/* ipfsrt_client_new on a given transport (taken over: the client frees it);
 * NULL = libcurl. */
ipfsrt_status ipfsrt_client_new_on(ipfsrt_client **client, const ipfsrt_client_options *opts,
                                   const ipfsrt_transport *transport, ipfsrt_error *err);

typedef struct ipfsrt_name_entry ipfsrt_name_entry; /* names.c */

struct ipfsrt_client {
    ipfsrt_gateway_list gateways;
    ipfsrt_gateway_list shown; /* the same URLs as messages and policies see them (no passwords) */
    gw_state *gw;
    ipfsrt_transport engine; /* libcurl (fetch.c), or a test's stand-in */
    ipfsrt_vpool *pool;    /* hashes received blocks on other threads (NULL when unverified) */
    size_t pool_jobs;      /* submitted and not yet taken back */
    ipfsrt_blockcache *cache;
    ipfsrt_policy policy;
    bool verify;
    unsigned retries;
    double backoff_s;     /* the first pause between rounds (doubling); tests set 0 */
    uint64_t pending_cap; /* bytes one answer may send ahead of the walk (PENDING_CAP) */
    uint64_t pending_blocks_cap; /* ... and blocks (PENDING_BLOCKS_CAP) */
    unsigned concurrency; /* per gateway: the start when adaptive */
    unsigned in_flight_max; /* per gateway: the cap when adaptive, else concurrency */
    bool adaptive;        /* the limit follows the gateway's answers (no concurrency given) */
    size_t max_block;
    uint64_t memory_cache_bytes; /* the cache's budget in memory (a relay keeps as much) */
    const ipfsrt_hash_backend *hash_backend; /* NULL: the process's */
    ipfsrt_client_progress_fn progress;
    void *progress_user;
    uint64_t progress_done, progress_expected;
    double progress_last; /* when progress was last called: it is called again after a second of silence */
    task *timed; /* tasks waiting on a timer (backoff or hedge) */
    double give_up_s;  /* a call fails after this long with transfers out and no answer; 0 = never */
    double silent_s;   /* how long transfers have been out with no answer, this call */
    bool heard;        /* an answer (head or body) came since the last pump */
    /* A callback (the policy's, the progress one) failed: every call under way
     * stops and returns this error. Cleared when a call starts. */
    bool halted;
    ipfsrt_error halt;
    ipfsrt_name_entry *names; /* IPNS names resolved, with their TTLs (names.c) */
    size_t name_count, names_cap;
    char *names_dir;          /* cache_dir/ipns: the records, across runs (NULL: none) */
};

typedef struct attempt attempt;

enum task_state { TASK_IDLE, TASK_RUNNING, TASK_BACKOFF, TASK_DONE, TASK_FAILED };

typedef struct task_ops {
    /* Fills the request to send (path + query) for the next attempt. */
    void (*request)(task *t, char *path, size_t path_size, char *query, size_t query_size);
    int (*on_body)(attempt *a, const uint8_t *data, size_t len);
    /* The transfer ended with 200 and a complete body: judge it. Returns the
     * error kind (NONE = usable; the task is then done or, for streams, lives on). */
    ipfsrt_gateway_error (*on_complete)(attempt *a);
    void (*on_settled)(task *t); /* done or failed for good; may be NULL */
    void (*on_ok_head)(attempt *a, const ipfsrt_fetch_head *head); /* a 200/206 began; may be NULL */
    /* A block this attempt handed to the hashing threads came back (job->status). */
    void (*on_hashed)(attempt *a, ipfsrt_vjob *job);
    bool one_block; /* the body is a single block: capped at the client's max_block */
    /* Sessions: the answer stays attached after its transfer, until the walk
     * over it has judged it. Other tasks are done once their answer is. */
    bool walk_judges;
    /* Prefetches: the owner does without a failed one, so one attempt is all
     * (bar a hedge), and a not-found is not held against the gateway (the
     * path may not exist: the owner's walk finds out). */
    bool hint;
} task_ops;

struct attempt {
    task *t;
    size_t gw;
    unsigned number; /* the task's 1st, 2nd... attempt: request.attempt as the policy saw it */
    void *req; /* the transfer on the engine */
    bool head_ok;   /* 200 with the right content type */
    bool finished;  /* the transfer is over */
    bool enough;    /* the owner stopped the transfer: what came is the answer */
    long status;
    double started, first_byte;
    double setup; /* of first_byte, the wait for a connection (not the gateway's doing) */
    size_t backlog; /* requests for its gateway waiting for room when it ended */
    uint64_t bytes;
    ipfsrt_gateway_error error;
    char detail[400];
    /* CAR attempts */
    ipfsrt_car_reader *car;
    ipfsrt_mhmap promised; /* blocks this answer must contain: its root and what its blocks link */
    /* block attempts: the body, in a block sized by Content-Length when one came */
    ipfsrt_rcblock *rc;
    size_t rc_cap;
    ipfsrt_buf body;
    ipfsrt_vjob *hashing; /* blocks of this answer on the hashing threads (a list) */
    uint64_t car_blocks; /* prefetches: the blocks the answer sent, counted before hashing */
};

struct task {
    ipfsrt_client *c;
    const task_ops *ops;
    void *owner;
    ipfsrt_policy_request_kind kind;
    enum task_state state;
    char path[2048];
    char query[256];
    char range[64]; /* plain requests: "FROM-[TO]" */
    size_t order[IPFSRT_MAX_GATEWAYS];
    size_t order_n, order_pos;
    bool tried[IPFSRT_MAX_GATEWAYS];
    unsigned round, attempts;
    attempt *live[2];
    size_t live_n;
    double hedge_s, hedge_at, wake_at; /* hedge_s < 0: no racing */
    bool any_retryable;
    double retry_after;
    bool same_gateway_again; /* the next attempt reuses the last gateway (a narrower request) */
    size_t last_gw;
    /* what went wrong, once per gateway and reason (a dead gateway is named once,
     * with the number of attempts); more distinct ones than fit are counted */
    struct {
        size_t gw;
        ipfsrt_gateway_error kind;
        unsigned count;
        char detail[400]; /* as the attempt said it */
    } failures[6];
    size_t failure_count, failures_left_out;
    bool out_of_memory;
    task *timed_next;
    bool in_timed;
};

/* Done or failed for good: nothing more will come of it. */
static inline bool ipfsrt_task_over(const task *t) { return t->state == TASK_DONE || t->state == TASK_FAILED; }

/* ------------------------------------------------------------ scheduler.c */

/* Starts trying a request: ops->request says what to send. */
void ipfsrt_task_begin(task *t, ipfsrt_client *c, const task_ops *ops, ipfsrt_policy_request_kind kind,
                       void *owner);
/* Starts the next attempt, a pause before the next round, or gives up. */
void ipfsrt_task_advance(task *t);
/* Drops whatever the task still has in flight. */
void ipfsrt_task_end(task *t);
/* The error of a task that failed for good, naming every gateway and why. */
ipfsrt_status ipfsrt_task_error(task *t, ipfsrt_error *err);
/* Moves transfers, hashing results and timers along, waiting up to wait_ms.
 * Returns the client's halt status: a caller waiting in a loop stops on it. */
ipfsrt_status ipfsrt_task_pump(ipfsrt_client *c, int wait_ms, ipfsrt_error *err);
void ipfsrt_task_detach(task *t, attempt *a);

void ipfsrt_attempt_fail(attempt *a, ipfsrt_gateway_error e, const char *fmt, ...) IPFSRT_PRINTF(3, 4);
/* Books an attempt's end: statistics, the policy's observe, the task's failures. */
void ipfsrt_attempt_report(attempt *a);
void ipfsrt_attempt_free(attempt *a);
/* Uses the judged answer, or moves on to the next gateway. */
void ipfsrt_attempt_settle(attempt *a);
/* Gives up on an answer whose block failed its hash, even mid-stream. */
void ipfsrt_attempt_abandon(attempt *a);
/* Hands a received block (and the reference) to the hashing threads; false when
 * that is not possible and the caller must hash it itself. */
bool ipfsrt_attempt_hash_elsewhere(attempt *a, ipfsrt_rcblock *b, uint64_t stream_offset);
/* Records the first failure of a callback; every call under way then stops. */
void ipfsrt_client_halt(ipfsrt_client *c, const ipfsrt_error *err);
/* IPFSRT_OK, or the error that halted the client (copied into err). */
ipfsrt_status ipfsrt_client_halt_status(const ipfsrt_client *c, ipfsrt_error *err);
/* Clears the halt state and the progress counters at the start of a call. */
void ipfsrt_client_call_start(ipfsrt_client *c);

/* ---------------------------------------------------------------- blocks.c */

typedef struct block_batch {
    size_t *ready; /* indices of jobs that settled, in order */
    size_t ready_count;
} block_batch;

typedef struct block_job {
    task t;
    ipfsrt_cid cid;
    size_t index;
    block_batch *batch;
    ipfsrt_rcblock *result;
    bool keep; /* the caller takes result */
    bool cache_later; /* ... and puts it in the cache itself (a block is in one map at a time) */
} block_job;

/* Done at once when the CID carries the block or the cache has it, else fetched.
 * False when out of memory. */
bool ipfsrt_blockjob_start(ipfsrt_client *c, block_job *j);
/* Runs the jobs until each is done, or the first failure; fn sees results as
 * they come. */
ipfsrt_status ipfsrt_blockjob_run(ipfsrt_client *c, block_job *jobs, size_t n, ipfsrt_client_block_fn fn,
                                  void *user, ipfsrt_error *err);
/* Lends a held block through a block source: the reference travels in the token. */
ipfsrt_status ipfsrt_block_lend(ipfsrt_blocksource_ref *ref, ipfsrt_rcblock *b);
/* Release function of the sources that lend blocks: they go to the cache. ctx is the client. */
void ipfsrt_block_release(void *ctx, ipfsrt_blocksource_ref *ref);

/* A source of the cached blocks alone; remembers whether anything was missing. */
typedef struct probe {
    ipfsrt_client *c;
    bool missed;
} probe;
void ipfsrt_probe_source(probe *p, ipfsrt_blocksource *src);

/* Reads a whole large file by fetching its blocks by CID, many at once. */
ipfsrt_status ipfsrt_readahead_read(ipfsrt_client *c, const ipfsrt_cid *file, ipfsrt_unixfs_write_fn write,
                                    void *user, ipfsrt_error *err);

/* --------------------------------------------------------------- session.c */

/* CAR answers, for sessions and prefetches: the push reader made for the
 * attempt's body (blocks to on_block, hashed on the worker threads when there
 * are some), fed, and judged once complete; a failure is the attempt's
 * (false / 1 to stop the transfer). */
bool ipfsrt_attempt_car_start(attempt *a, ipfsrt_car_block_fn on_block);
int ipfsrt_attempt_car_feed(attempt *a, const uint8_t *data, size_t len);
/* A block the reader parsed, as a block of its own: handed to the hashing
 * threads (*handed; they give it back through on_hashed), or checked here and
 * returned; NULL when it fails (the attempt has failed). */
ipfsrt_rcblock *ipfsrt_attempt_car_block(attempt *a, const ipfsrt_car_block *blk, bool *handed);
ipfsrt_gateway_error ipfsrt_attempt_car_complete(attempt *a);

typedef enum resume_mode {
    RESUME_ORIGINAL, /* the first request again (small ones: stat, ls) */
    RESUME_RANGE,    /* the rest of a file read: entity-bytes from where it stopped */
    RESUME_SUBDAG,   /* the DAG under the block the walk waits for */
} resume_mode;

typedef struct session {
    ipfsrt_client *c;
    task t;
    bool started;
    ipfsrt_blockmap pending; /* verified blocks streamed ahead of the walk */
    uint64_t ahead;          /* bytes of arrivals the walk has not taken (repeats too) */
    uint64_t ahead_blocks;   /* ... and their count */
    ipfsrt_rcblock *last_taken; /* the data block the walk took last: read twice when a
                                   path ends at it (resolved, then read) */
    bool finishing;          /* the walk is complete; only judging what is left */
    char first_path[2048], first_query[256];
    resume_mode mode;
    ipfsrt_cid wanted;        /* the block the walk waits for */
    ipfsrt_cid unblamed_for;  /* a narrower request was already granted for this block */
    bool have_unblamed;
    ipfsrt_cid request_root;  /* root of the request now under way */
    bool target_known;
    ipfsrt_cid target;
    uint64_t range_from, range_end; /* RESUME_RANGE: [from, end), end UINT64_MAX = to the end */
    uint64_t written;
} session;

void ipfsrt_session_init(session *s, ipfsrt_client *c, resume_mode mode);
/* The first request: root and rest become its URL path, query its query. */
ipfsrt_status ipfsrt_session_start_at(session *s, const ipfsrt_cid *root, const char *rest,
                                      const char *query, ipfsrt_error *err);
/* A block source over the stream: blocks reach the walk only once verified. */
void ipfsrt_session_source(session *s, ipfsrt_blocksource *src);
/* Called once the walk is over: books the attempt that served it. */
void ipfsrt_session_finish(session *s, bool walk_ok);
/* ipfsrt_session_finish after a call's walk ended with st: st, or the client's
 * halt when the booking of the answer failed it (a policy's observe). */
ipfsrt_status ipfsrt_session_end(session *s, ipfsrt_status st, ipfsrt_error *err);
/* "format=car&dag-scope=entity&entity-bytes=FROM:TO" for [from, end). */
void ipfsrt_session_range_query(char *query, size_t size, uint64_t from, uint64_t end);

/* -------------------------------------------------------------- prefetch.c */

/* A checked block of a prefetch's answer (borrowed). False: enough, stop. */
typedef bool (*prefetch_block_fn)(void *user, ipfsrt_rcblock *block);

typedef struct prefetch {
    task t; /* done when the answer is over, failed when no gateway gave one */
    char path[2048], query[256];
    prefetch_block_fn on_block;
    void *user;
} prefetch;

/* Asks for the blocks of path (and of bytes [offset, offset + length) of its
 * file, or of the last length bytes when from_end) in one CAR request; the
 * client's pump moves it along. False when the path cannot be asked for. */
bool ipfsrt_prefetch_start(ipfsrt_client *c, prefetch *p, const char *path, uint64_t offset,
                           uint64_t length, bool from_end);
/* ... with the trustless gateway's query as given (format=car&dag-scope=...). */
bool ipfsrt_prefetch_start_query(ipfsrt_client *c, prefetch *p, const char *path, const char *query);

/* ----------------------------------------------------------------- plain.c */

/* Unverified reads: plain GETs of /ipfs/... or any http(s) URL, with Range. */
typedef struct plain_read plain_read;
/* Starts a read (path is borrowed until ipfsrt_plain_end); the client's pump
 * moves it along. from_end: the last length bytes (a suffix Range). */
ipfsrt_status ipfsrt_plain_begin(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                                 bool from_end, ipfsrt_unixfs_write_fn write, void *user, plain_read **read,
                                 ipfsrt_error *err);
/* A guess: the file at path from its first byte, up to length bytes, asked
 * once and capped at the client's largest block (a not-found not held against
 * the gateway). Its bytes are no answer until hashed. */
ipfsrt_status ipfsrt_plain_guess(ipfsrt_client *c, const char *path, uint64_t length, ipfsrt_unixfs_write_fn write,
                                 void *user, plain_read **read, ipfsrt_error *err);
/* Whether a read that is over brought the whole file (not a part of it). */
bool ipfsrt_plain_whole(const plain_read *read);
/* Whether the read is over, and then how it went (err filled on failure). */
bool ipfsrt_plain_over(plain_read *read, ipfsrt_status *status, ipfsrt_error *err);
/* Drops the read, whether over or not. */
void ipfsrt_plain_end(plain_read *read);
/* One read from start to end. */
ipfsrt_status ipfsrt_plain_get(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                               ipfsrt_unixfs_write_fn write, void *user, ipfsrt_error *err);
/* Unverified download of one file, into a temporary sibling renamed into place. */
ipfsrt_status ipfsrt_plain_export(ipfsrt_client *c, const char *path, const char *dest,
                                  ipfsrt_error *err);

/* ---------------------------------------------------------------- client.c */

/* names.c: target is path, or (an ipns:// or /ipns/ path) the /ipfs/ path it
 * resolves to, in *owned (the caller frees it). */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_client_name_target(ipfsrt_client *c, const char *path, const char **target,
                                                       char **owned, ipfsrt_error *err);
IPFSRT_PRIVATE void ipfsrt_client_names_free(ipfsrt_client *c);
/* dnslink.c: what domain's _dnslink TXT record names ("/ipfs/..." or
 * "/ipns/...", malloc'd): looked up through the system resolver, or read
 * from a DNS answer (tests give canned ones). */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_dnslink_lookup(const char *domain, size_t len, char **value, ipfsrt_error *err);
IPFSRT_PRIVATE ipfsrt_status ipfsrt_dnslink_value(const uint8_t *answer, size_t len, const char *domain, char **value,
                                                  ipfsrt_error *err);
/* Keeps the records it resolves under cache_dir/ipns, and starts from them. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_client_names_dir(ipfsrt_client *c, const char *cache_dir, ipfsrt_error *err);
/* ipfsrt_path_split for client requests, which carry no query or fragment. */
ipfsrt_status ipfsrt_client_split_target(const char *path, ipfsrt_cid *root, const char **rest,
                                         ipfsrt_error *err);
/* Resolves from the cache alone. *known says whether that was enough; an error
 * the cached blocks prove (no such name, not a directory) is final. */
ipfsrt_status ipfsrt_client_resolve_cached(ipfsrt_client *c, const char *path,
                                           ipfsrt_unixfs_node_info *info, bool *known,
                                           ipfsrt_error *err);

static inline void ipfsrt_cid_v1_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]) {
    ipfsrt_cid v1;
    ipfsrt_cid_to_v1(cid, &v1);
    ipfsrt_cid_to_string(&v1, out);
}

#endif
