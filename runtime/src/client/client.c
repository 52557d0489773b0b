/* The gateway client: which gateway to ask (the policy), what to ask for (the
 * strategy), and the proof that what came back is what was asked for.
 *
 * Requests are "tasks": one logical request tried on gateway after gateway until
 * one answer is usable. Each try is an "attempt" (one HTTP transfer). Path reads
 * stream a CAR through the push reader into a pending map of verified blocks,
 * and the UnixFS walker pulls blocks from there (pumping the engine while it
 * waits), starting at the root CID: a block only counts when the walk from the
 * root reaches it, which is what proves the path. Received blocks are hashed on
 * worker threads (verify_pool.c) while this thread goes on receiving; nothing
 * reaches the walk or a caller before its hash matched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>

#include "ipfsrt/client.h"
#include "ipfsrt/path.h"
#include "car/car_internal.h"
#include "client/fetch.h"
#include "client/verify_pool.h"
#include "store/blockcache.h"

#define PENDING_CAP ((uint64_t)128 << 20) /* verified blocks streamed ahead of the walk */
#define ERROR_BODY_CAP (64u << 10)
#define MAX_BACKOFF_S 30.0

static const char *const gw_error_names[IPFSRT_GWERR_COUNT] = {
    [IPFSRT_GWERR_NONE] = "none",
    [IPFSRT_GWERR_CONNECT] = "connect",
    [IPFSRT_GWERR_TIMEOUT] = "timeout",
    [IPFSRT_GWERR_NOT_FOUND] = "not_found",
    [IPFSRT_GWERR_REFUSED] = "refused",
    [IPFSRT_GWERR_RATE_LIMITED] = "rate_limited",
    [IPFSRT_GWERR_SERVER] = "server_error",
    [IPFSRT_GWERR_TRUNCATED] = "truncated",
    [IPFSRT_GWERR_TOO_LARGE] = "too_large",
    [IPFSRT_GWERR_BAD_RESPONSE] = "bad_response",
    [IPFSRT_GWERR_HASH_MISMATCH] = "hash_mismatch",
    [IPFSRT_GWERR_WRONG_DAG] = "wrong_dag",
};

const char *ipfsrt_gw_error_name(ipfsrt_gw_error e) {
    return (unsigned)e < IPFSRT_GWERR_COUNT ? gw_error_names[e] : "unknown";
}

bool ipfsrt_gw_error_is_verification(ipfsrt_gw_error e) {
    return e == IPFSRT_GWERR_HASH_MISMATCH || e == IPFSRT_GWERR_WRONG_DAG;
}

/* Worth another round over the gateways after a pause. */
static bool retryable(ipfsrt_gw_error e) {
    return e == IPFSRT_GWERR_CONNECT || e == IPFSRT_GWERR_TIMEOUT ||
           e == IPFSRT_GWERR_RATE_LIMITED || e == IPFSRT_GWERR_SERVER ||
           e == IPFSRT_GWERR_TRUNCATED;
}

typedef struct gw_state {
    ipfsrt_gateway_client_stats stats;
    double latency[IPFSRT_LATENCY_SAMPLES]; /* ring of recent first-byte latencies */
    size_t latency_count, latency_next;
} gw_state;

typedef struct task task;

struct ipfsrt_client {
    ipfsrt_gateway_list gateways;
    gw_state *gw;
    ipfsrt_fetch *engine;
    ipfsrt_vpool *pool;    /* hashes received blocks on other threads (NULL when unverified) */
    size_t pool_jobs;      /* submitted and not yet taken back */
    ipfsrt_blockcache *cache;
    ipfsrt_policy policy;
    bool verify;
    unsigned retries;
    unsigned concurrency; /* per gateway */
    size_t max_block;
    ipfsrt_progress_fn progress;
    void *progress_user;
    uint64_t progress_done, progress_expected;
    task *timed; /* tasks waiting on a timer (backoff or hedge) */
};

/* ------------------------------------------------------------ attempts */

typedef struct attempt attempt;

enum task_state { TASK_IDLE, TASK_RUNNING, TASK_BACKOFF, TASK_DONE, TASK_FAILED };

typedef struct task_ops {
    /* Fills the request to send (path + query) for the next attempt. */
    void (*request)(task *t, char *path, size_t path_size, char *query, size_t query_size);
    int (*on_body)(attempt *a, const uint8_t *data, size_t len);
    /* The transfer ended with 200 and a complete body: judge it. Returns the
     * error kind (NONE = usable; the task is then done or, for streams, lives on). */
    ipfsrt_gw_error (*on_complete)(attempt *a);
    void (*on_settled)(task *t); /* done or failed for good; may be NULL */
    void (*on_ok_head)(attempt *a, const ipfsrt_fetch_head *head); /* a 200/206 began; may be NULL */
    /* A block this attempt handed to the hashing threads came back (job->status). */
    void (*on_hashed)(attempt *a, ipfsrt_vjob *job);
    bool one_block; /* the body is a single block: capped at the client's max_block */
} task_ops;

struct attempt {
    task *t;
    size_t gw;
    ipfsrt_fetch_req *req;
    bool head_ok;   /* 200 with the right content type */
    bool finished;  /* the transfer is over */
    long status;
    double started, first_byte;
    uint64_t bytes;
    ipfsrt_gw_error error;
    char detail[400];
    /* CAR attempts */
    ipfsrt_car_reader *car;
    ipfsrt_mhmap promised; /* blocks this answer must contain: its root and what its blocks link */
    /* block attempts: the body, in a block sized by Content-Length when one came */
    ipfsrt_rcblock *rc;
    size_t rc_cap;
    ipfsrt_buf body;
    ipfsrt_vjob *hashing; /* blocks of this answer on the hashing threads (a list) */
};

struct task {
    ipfsrt_client *c;
    const task_ops *ops;
    void *owner;
    ipfsrt_request_kind kind;
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
    double hedge_ms, hedge_at, wake_at;
    bool any_retryable;
    double retry_after;
    bool same_gateway_again; /* the next attempt reuses the last gateway (a narrower request) */
    size_t last_gw;
    char failures[700];
    task *timed_next;
    bool in_timed;
};

static void record_latency(gw_state *g, double s) {
    g->latency[g->latency_next] = s;
    g->latency_next = (g->latency_next + 1) % IPFSRT_LATENCY_SAMPLES;
    if (g->latency_count < IPFSRT_LATENCY_SAMPLES) g->latency_count++;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ipfsrt_client_gateway_stats(const ipfsrt_client *c, size_t i,
                                 ipfsrt_gateway_client_stats *out) {
    memset(out, 0, sizeof *out);
    if (i >= c->gateways.count) return;
    const gw_state *g = &c->gw[i];
    *out = g->stats;
    if (!g->latency_count) return;
    double sorted[IPFSRT_LATENCY_SAMPLES];
    memcpy(sorted, g->latency, g->latency_count * sizeof *sorted);
    qsort(sorted, g->latency_count, sizeof *sorted, cmp_double);
    size_t n = g->latency_count;
    out->latency_p50_s = sorted[(n - 1) * 50 / 100];
    out->latency_p90_s = sorted[(n - 1) * 90 / 100];
    out->latency_p99_s = sorted[(n - 1) * 99 / 100];
}

static void info_of(const task *t, ipfsrt_request_info *info) {
    info->kind = t->kind;
    info->path = t->path;
    info->query = t->query;
    info->attempt = t->attempts;
}

/* Books an attempt's end: statistics, the policy's observe, the task's list of
 * what went wrong. */
static void attempt_report(attempt *a) {
    task *t = a->t;
    ipfsrt_client *c = t->c;
    gw_state *g = &c->gw[a->gw];
    g->stats.bytes += a->bytes;
    double now = ipfsrt_clock();
    double latency = a->first_byte >= 0 ? a->first_byte : now - a->started;
    if (a->error == IPFSRT_GWERR_NONE) {
        g->stats.ok++;
        record_latency(g, latency);
    } else {
        g->stats.errors[a->error]++;
        if (ipfsrt_gw_error_is_verification(a->error)) g->stats.verify_failures++;
        if (retryable(a->error)) t->any_retryable = true;
        size_t used = strlen(t->failures);
        if (used + 1 < sizeof t->failures)
            snprintf(t->failures + used, sizeof t->failures - used, "%s%s: %s", used ? "; " : "",
                     c->gateways.urls[a->gw], a->detail);
    }
    if (c->policy.observe) {
        ipfsrt_request_info info;
        info_of(t, &info);
        ipfsrt_outcome o = {
            .ok = a->error == IPFSRT_GWERR_NONE,
            .verified = a->error == IPFSRT_GWERR_NONE && t->kind != IPFSRT_REQUEST_PLAIN,
            .error = a->error,
            .status = a->status,
            .latency_s = latency,
            .duration_s = now - a->started,
            .bytes = a->bytes,
            .detail = a->error == IPFSRT_GWERR_NONE ? "" : a->detail,
        };
        c->policy.observe(c->policy.ctx, a->gw, &info, &o);
    }
}

static void attempt_free(attempt *a) {
    if (!a) return;
    ipfsrt_car_reader_free(a->car);
    ipfsrt_mhmap_free(&a->promised);
    ipfsrt_buf_free(&a->body);
    ipfsrt_rcblock_unref(a->rc);
    for (ipfsrt_vjob *j = a->hashing, *next; j; j = next) {
        next = j->sibling;
        ipfsrt_vpool_cancel(a->t->c->pool, j);
        a->t->c->pool_jobs--;
    }
    free(a);
}

static void attempt_fail(attempt *a, ipfsrt_gw_error e, const char *fmt, ...) IPFSRT_PRINTF(3, 4);
static void attempt_fail(attempt *a, ipfsrt_gw_error e, const char *fmt, ...) {
    if (a->error != IPFSRT_GWERR_NONE) return; /* the first reason is the real one */
    a->error = e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->detail, sizeof a->detail, fmt, ap);
    va_end(ap);
}

static void task_detach(task *t, attempt *a) {
    for (size_t i = 0; i < t->live_n; i++) {
        if (t->live[i] == a) {
            t->live[i] = t->live[--t->live_n];
            t->live[t->live_n] = NULL;
            return;
        }
    }
}

static void timed_add(ipfsrt_client *c, task *t) {
    if (t->in_timed) return;
    t->in_timed = true;
    t->timed_next = c->timed;
    c->timed = t;
}

static void timed_remove(ipfsrt_client *c, task *t) {
    if (!t->in_timed) return;
    for (task **p = &c->timed; *p; p = &(*p)->timed_next) {
        if (*p == t) {
            *p = t->timed_next;
            break;
        }
    }
    t->in_timed = false;
}

static void task_advance(task *t);

static int on_head(void *user, const ipfsrt_fetch_head *head) {
    attempt *a = user;
    task *t = a->t;
    a->status = head->status;
    a->first_byte = ipfsrt_clock() - a->started;
    if (head->status != 200 && head->status != 206) return 0; /* judged at the end */
    if (t->kind == IPFSRT_REQUEST_CAR && !strstr(head->content_type, "application/vnd.ipld.car")) {
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "asked for a CAR, got Content-Type '%.80s'",
                     head->content_type);
        return 1;
    }
    if (t->ops->on_ok_head) t->ops->on_ok_head(a, head);
    if (t->kind == IPFSRT_REQUEST_PLAIN && head->content_length > 0 && t->c->progress &&
        !t->c->progress_expected)
        t->c->progress_expected = (uint64_t)head->content_length;
    a->head_ok = true;
    /* A hedged race is won by the first usable answer. */
    for (size_t i = 0; i < t->live_n; i++) {
        attempt *other = t->live[i];
        if (other == a) continue;
        ipfsrt_fetch_cancel(t->c->engine, other->req);
        task_detach(t, other);
        attempt_free(other);
        i--;
    }
    timed_remove(t->c, t);
    return 0;
}

static int on_body(void *user, const uint8_t *data, size_t len) {
    attempt *a = user;
    a->bytes += len;
    if (!a->head_ok) return a->bytes > ERROR_BODY_CAP; /* an error page: read and drop */
    ipfsrt_client *c = a->t->c;
    if (c->progress) {
        c->progress_done += len;
        c->progress(c->progress_user, c->progress_done, c->progress_expected);
    }
    return a->t->ops->on_body(a, data, len);
}

static ipfsrt_gw_error status_error(long status) {
    if (status == 404 || status == 410 || status == 451) return IPFSRT_GWERR_NOT_FOUND;
    if (status == 429) return IPFSRT_GWERR_RATE_LIMITED;
    if (status >= 500) return IPFSRT_GWERR_SERVER;
    if (status >= 400) return IPFSRT_GWERR_REFUSED;
    return IPFSRT_GWERR_BAD_RESPONSE;
}

static void attempt_settle(attempt *a);

static void on_done(void *user, const ipfsrt_fetch_result *res) {
    attempt *a = user;
    task *t = a->t;
    a->req = NULL;
    a->finished = true;
    a->status = res->status;
    if (res->retry_after_s > t->retry_after) t->retry_after = res->retry_after_s;
    switch (res->end) {
    case IPFSRT_FETCH_DONE:
        if (!a->head_ok)
            attempt_fail(a, status_error(res->status), "HTTP %ld%s", res->status,
                         res->retry_after_s >= 0 ? " (with Retry-After)" : "");
        break;
    case IPFSRT_FETCH_CONNECT:
        attempt_fail(a, IPFSRT_GWERR_CONNECT, "cannot connect: %s", res->detail);
        break;
    case IPFSRT_FETCH_TIMEOUT:
        attempt_fail(a, IPFSRT_GWERR_TIMEOUT, "timed out: %s", res->detail);
        break;
    case IPFSRT_FETCH_TOO_LARGE:
        attempt_fail(a, IPFSRT_GWERR_TOO_LARGE, "%s", res->detail);
        break;
    case IPFSRT_FETCH_ABORTED: /* our callbacks already said why */
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "transfer stopped");
        break;
    case IPFSRT_FETCH_BROKEN:
        attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "body broke off after %llu bytes: %s",
                     (unsigned long long)a->bytes, res->detail);
        break;
    }
    if (a->error == IPFSRT_GWERR_NONE) {
        ipfsrt_gw_error e = t->ops->on_complete(a);
        if (a->hashing && t->kind != IPFSRT_REQUEST_CAR) return; /* judged once hashed */
        if (e != IPFSRT_GWERR_NONE && a->error == IPFSRT_GWERR_NONE)
            attempt_fail(a, e, "unusable answer");
    }
    attempt_settle(a);
}

/* Uses the judged answer, or moves on to the next gateway. */
static void attempt_settle(attempt *a) {
    task *t = a->t;
    if (a->error == IPFSRT_GWERR_NONE) {
        /* Streams stay attached until the walk has judged them. */
        if (t->kind != IPFSRT_REQUEST_CAR) {
            attempt_report(a);
            task_detach(t, a);
            attempt_free(a);
            t->state = TASK_DONE;
            timed_remove(t->c, t);
            if (t->ops->on_settled) t->ops->on_settled(t);
        }
        return;
    }
    attempt_report(a);
    task_detach(t, a);
    attempt_free(a);
    if (t->live_n == 0) task_advance(t);
}

static const char *accept_for(ipfsrt_request_kind kind) {
    switch (kind) {
    case IPFSRT_REQUEST_BLOCK:
        return "application/vnd.ipld.raw";
    case IPFSRT_REQUEST_CAR:
        return "application/vnd.ipld.car; version=1; order=dfs; dups=y";
    default:
        return NULL;
    }
}

static void arm_hedge(task *t) {
    if (t->hedge_ms >= 0 && t->order_pos < t->order_n) {
        t->hedge_at = ipfsrt_clock() + t->hedge_ms / 1000.0;
        timed_add(t->c, t);
    }
}

/* The transfer went out. Latency and the hedge's wait count from here: time
 * spent queued for a free slot says nothing about the gateway. */
static void on_start(void *user) {
    attempt *a = user;
    a->started = ipfsrt_clock();
    if (a->t->live_n == 1) arm_hedge(a->t);
}

static void drain_pool(ipfsrt_client *c);

/* Hands a received block (and the reference) to the hashing threads; false when
 * that is not possible and the caller must hash it itself. */
static bool hash_elsewhere(attempt *a, ipfsrt_rcblock *b, uint64_t stream_offset) {
    ipfsrt_client *c = a->t->c;
    ipfsrt_vjob *job = calloc(1, sizeof *job);
    if (!job) return false;
    job->block = b;
    job->user = a;
    job->stream_offset = stream_offset;
    job->sibling = a->hashing;
    a->hashing = job;
    c->pool_jobs++;
    ipfsrt_vpool_submit(c->pool, job);
    return true;
}

static void unlink_hashing(attempt *a, ipfsrt_vjob *job) {
    for (ipfsrt_vjob **p = &a->hashing; *p; p = &(*p)->sibling) {
        if (*p == job) {
            *p = job->sibling;
            return;
        }
    }
}

/* Takes back what the hashing threads finished. A job whose attempt went away
 * meanwhile (canceled while in this list) is only freed. */
static void drain_pool(ipfsrt_client *c) {
    if (!c->pool_jobs) return;
    for (ipfsrt_vjob *j = ipfsrt_vpool_take_done(c->pool), *next; j; j = next) {
        next = j->next;
        if (j->canceled) {
            ipfsrt_vjob_free(j);
            continue;
        }
        attempt *a = j->user;
        unlink_hashing(a, j);
        c->pool_jobs--;
        a->t->ops->on_hashed(a, j);
        ipfsrt_vjob_free(j);
    }
}

static bool attempt_start(task *t, size_t gw) {
    ipfsrt_client *c = t->c;
    attempt *a = calloc(1, sizeof *a);
    if (!a) return false;
    a->t = t;
    a->gw = gw;
    a->started = ipfsrt_clock();
    a->first_byte = -1;
    ipfsrt_mhmap_init(&a->promised);
    ipfsrt_buf_init(&a->body);
    char url[4096];
    const char *base = t->kind == IPFSRT_REQUEST_PLAIN && strstr(t->path, "://") ? "" : c->gateways.urls[gw];
    snprintf(url, sizeof url, "%s%s%s%s", base, t->path, t->query[0] ? "?" : "", t->query);
    ipfsrt_fetch_spec spec = {
        .url = url,
        .accept = accept_for(t->kind),
        .slot = (unsigned)gw,
        .max_body = t->ops->one_block ? c->max_block : 0,
        .range = t->range[0] ? t->range : NULL,
        .on_start = on_start,
        .on_head = on_head,
        .on_body = on_body,
        .on_done = on_done,
        .user = a,
    };
    t->tried[gw] = true;
    t->last_gw = gw;
    c->gw[gw].stats.requests++;
    t->attempts++;
    t->live[t->live_n++] = a;
    if (ipfsrt_fetch_start(c->engine, &spec, &a->req, NULL) != IPFSRT_OK) {
        task_detach(t, a);
        attempt_free(a);
        return false;
    }
    return true;
}

static void task_order(task *t) {
    ipfsrt_client *c = t->c;
    size_t n = c->gateways.count;
    t->order_pos = 0;
    if (c->policy.order) {
        ipfsrt_request_info info;
        info_of(t, &info);
        size_t got = c->policy.order(c->policy.ctx, &info, n, t->order);
        t->order_n = 0;
        for (size_t i = 0; i < got && i < n; i++) /* keep what is valid, once each */
            if (t->order[i] < n) {
                bool dup = false;
                for (size_t j = 0; j < t->order_n; j++) dup |= t->order[j] == t->order[i];
                if (!dup) t->order[t->order_n++] = t->order[i];
            }
    } else {
        for (size_t i = 0; i < n; i++) t->order[i] = i;
        t->order_n = n;
    }
    t->hedge_ms = -1;
    if (c->policy.hedge_after_ms) {
        ipfsrt_request_info info;
        info_of(t, &info);
        t->hedge_ms = c->policy.hedge_after_ms(c->policy.ctx, &info);
    }
}

/* The next gateway of this round that has not been tried. */
static bool next_gateway(task *t, size_t *gw) {
    while (t->order_pos < t->order_n) {
        size_t g = t->order[t->order_pos++];
        if (!t->tried[g]) {
            *gw = g;
            return true;
        }
    }
    return false;
}

static void start_round(task *t) {
    memset(t->tried, 0, sizeof t->tried);
    t->any_retryable = false;
    t->retry_after = -1;
    task_order(t);
    task_advance(t);
}

/* Starts the next attempt, a pause before the next round, or gives up. */
static void task_advance(task *t) {
    ipfsrt_client *c = t->c;
    if (t->state == TASK_DONE || t->state == TASK_FAILED) return;
    size_t gw;
    bool have = false;
    if (t->same_gateway_again) {
        t->same_gateway_again = false;
        gw = t->last_gw;
        have = true;
    } else {
        have = next_gateway(t, &gw);
    }
    if (have) {
        t->ops->request(t, t->path, sizeof t->path, t->query, sizeof t->query);
        t->state = TASK_RUNNING;
        if (!attempt_start(t, gw)) {
            snprintf(t->failures, sizeof t->failures, "out of memory");
            t->state = TASK_FAILED;
            if (t->ops->on_settled) t->ops->on_settled(t);
            return;
        }
        return;
    }
    if (t->any_retryable && t->round < c->retries) {
        double pause = 0.2 * pow(2.0, t->round);
        if (t->retry_after > pause) pause = t->retry_after;
        if (pause > MAX_BACKOFF_S) pause = MAX_BACKOFF_S;
        pause *= 1.0 + (double)(rand() % 200) / 1000.0; /* spread out retries */
        t->round++;
        t->wake_at = ipfsrt_clock() + pause;
        t->state = TASK_BACKOFF;
        timed_add(c, t);
        return;
    }
    t->state = TASK_FAILED;
    timed_remove(c, t);
    if (t->ops->on_settled) t->ops->on_settled(t);
}

static void task_begin(task *t, ipfsrt_client *c, const task_ops *ops, ipfsrt_request_kind kind,
                       void *owner) {
    memset(t, 0, sizeof *t);
    t->c = c;
    t->ops = ops;
    t->kind = kind;
    t->owner = owner;
    t->state = TASK_IDLE;
    t->retry_after = -1;
    ops->request(t, t->path, sizeof t->path, t->query, sizeof t->query);
    start_round(t);
}

/* Drops whatever the task still has in flight. */
static void task_end(task *t) {
    timed_remove(t->c, t);
    while (t->live_n) {
        attempt *a = t->live[0];
        if (a->req) ipfsrt_fetch_cancel(t->c->engine, a->req);
        task_detach(t, a);
        attempt_free(a);
    }
}

static void run_timers(ipfsrt_client *c) {
    double now = ipfsrt_clock();
    for (task *t = c->timed, *next; t; t = next) {
        next = t->timed_next;
        if (t->state == TASK_BACKOFF && now >= t->wake_at) {
            timed_remove(c, t);
            start_round(t);
        } else if (t->state == TASK_RUNNING && t->live_n == 1 && !t->live[0]->head_ok &&
                   t->hedge_ms >= 0 && now >= t->hedge_at) {
            timed_remove(c, t);
            size_t gw; /* race a second gateway; if it cannot start, the first goes on alone */
            if (next_gateway(t, &gw)) (void)attempt_start(t, gw);
        } else if (t->state != TASK_BACKOFF && (t->live_n != 1 || t->live[0]->head_ok)) {
            timed_remove(c, t);
        }
    }
}

static void client_pump(ipfsrt_client *c, int wait_ms) {
    if (c->timed) {
        double soonest = 1e9, now = ipfsrt_clock();
        for (task *t = c->timed; t; t = t->timed_next) {
            double at = t->state == TASK_BACKOFF ? t->wake_at : t->hedge_at;
            if (at - now < soonest) soonest = at - now;
        }
        int ms = soonest <= 0 ? 0 : (int)(soonest * 1000) + 1;
        if (ms < wait_ms) wait_ms = ms;
    }
    if (ipfsrt_fetch_pending(c->engine)) ipfsrt_fetch_pump(c->engine, wait_ms);
    else if (c->pool_jobs) ipfsrt_fetch_wait(c->engine, wait_ms); /* a hashing thread wakes it */
    else if (wait_ms > 0) {
        struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    drain_pool(c);
    run_timers(c);
}

static ipfsrt_status task_error(task *t, ipfsrt_error *err) {
    const char *q = t->query[0] ? "?" : "";
    if (!t->failures[0])
        return ipfsrt_fail(err, IPFSRT_EFETCH, -1, "%s%s%s: no gateway to ask (the policy named none)",
                           t->path, q, t->query);
    return ipfsrt_fail(err, IPFSRT_EFETCH, -1, "%s%s%s: every gateway failed: %s", t->path, q,
                       t->query, t->failures);
}

/* --------------------------------------------------------- raw blocks */

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
} block_job;

static void block_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    const block_job *j = t->owner;
    ipfsrt_cid v1;
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_v1(&j->cid, &v1);
    snprintf(path, path_size, "/ipfs/%s", ipfsrt_cid_to_string(&v1, s));
    snprintf(query, query_size, "%s", t->kind == IPFSRT_REQUEST_PLAIN ? "" : "format=raw");
}

static int block_body(attempt *a, const uint8_t *data, size_t len) {
    if (a->rc) {
        if (len > a->rc_cap - a->rc->len) return 1; /* more than Content-Length said */
        memcpy(a->rc->data + a->rc->len, data, len);
        a->rc->len += len;
        return 0;
    }
    ipfsrt_buf_append(&a->body, data, len);
    return a->body.failed;
}

static void block_fail_verify(attempt *a, ipfsrt_status st, const char *message) {
    attempt_fail(a, st == IPFSRT_EHASH_MISMATCH ? IPFSRT_GWERR_HASH_MISMATCH : IPFSRT_GWERR_BAD_RESPONSE,
                 "%s", message);
}

static void block_accept(attempt *a, ipfsrt_rcblock *rc) {
    block_job *j = a->t->owner;
    j->result = rc;
    if (a->t->kind == IPFSRT_REQUEST_BLOCK) ipfsrt_blockcache_put(a->t->c->cache, rc);
}

static ipfsrt_gw_error block_complete(attempt *a) {
    block_job *j = a->t->owner;
    ipfsrt_client *c = a->t->c;
    ipfsrt_rcblock *rc = a->rc ? a->rc : ipfsrt_rcblock_new(&j->cid, a->body.data, a->body.len);
    a->rc = NULL;
    if (!rc) {
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
        return a->error;
    }
    if (a->t->kind != IPFSRT_REQUEST_BLOCK) { /* unverified: taken as it is */
        block_accept(a, rc);
        return IPFSRT_GWERR_NONE;
    }
    if (c->pool && hash_elsewhere(a, rc, 0)) return IPFSRT_GWERR_NONE; /* judged when it returns */
    ipfsrt_error e;
    ipfsrt_status st = ipfsrt_cid_verify(&j->cid, rc->data, rc->len, &e);
    if (st != IPFSRT_OK) {
        ipfsrt_rcblock_unref(rc);
        block_fail_verify(a, st, e.message);
        return a->error;
    }
    block_accept(a, rc);
    return IPFSRT_GWERR_NONE;
}

static void block_hashed(attempt *a, ipfsrt_vjob *job) {
    if (job->status == IPFSRT_OK) {
        block_accept(a, job->block);
        job->block = NULL;
    } else {
        block_fail_verify(a, job->status, job->message);
    }
    attempt_settle(a);
}

static void block_settled(task *t) {
    block_job *j = t->owner;
    if (j->batch) j->batch->ready[j->batch->ready_count++] = j->index;
}

/* With a Content-Length the body goes straight into the block it will become. */
static void block_head(attempt *a, const ipfsrt_fetch_head *head) {
    const block_job *j = a->t->owner;
    if (head->content_length <= 0 || (uint64_t)head->content_length > a->t->c->max_block) return;
    a->rc = ipfsrt_rcblock_new(&j->cid, NULL, (size_t)head->content_length);
    if (a->rc) {
        a->rc_cap = a->rc->len;
        a->rc->len = 0;
    }
}

static const task_ops block_ops = {block_request, block_body, block_complete, block_settled, block_head,
                                   block_hashed, true};

/* Done at once when the CID carries the block or the cache has it, else fetched.
 * False when out of memory. */
static bool block_job_start(ipfsrt_client *c, block_job *j) {
    if (j->cid.hash_code == IPFSRT_MH_IDENTITY) {
        j->result = ipfsrt_rcblock_new(&j->cid, j->cid.bytes + j->cid.digest_offset, j->cid.digest_len);
        if (!j->result) return false;
    } else if (c->verify) {
        j->result = ipfsrt_blockcache_get(c->cache, &j->cid);
    }
    if (j->result) j->t.state = TASK_DONE;
    /* unverified clients: plain GETs of /ipfs/CID, nothing checked or cached */
    else task_begin(&j->t, c, &block_ops, c->verify ? IPFSRT_REQUEST_BLOCK : IPFSRT_REQUEST_PLAIN, j);
    return true;
}

/* Runs the jobs until each is done, or the first failure; fn sees results as
 * they come. */
static ipfsrt_status run_block_jobs(ipfsrt_client *c, block_job *jobs, size_t n,
                                    ipfsrt_indexed_block_fn fn, void *user, ipfsrt_error *err) {
    block_batch batch = {calloc(n ? n : 1, sizeof(size_t)), 0};
    if (!batch.ready) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        block_job *j = &jobs[i];
        j->index = i;
        j->batch = &batch;
        if (!block_job_start(c, j)) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        else if (j->result) batch.ready[batch.ready_count++] = i;
    }
    size_t handed = 0;
    while (st == IPFSRT_OK && handed < n) {
        while (handed < batch.ready_count && st == IPFSRT_OK) {
            block_job *j = &jobs[batch.ready[handed++]];
            if (j->t.state == TASK_DONE) {
                if (fn) st = fn(user, j->index, &j->cid, j->result->data, j->result->len, err);
                if (!j->keep) { /* handed over: memory stays bounded by what is in flight */
                    ipfsrt_rcblock_unref(j->result);
                    j->result = NULL;
                }
            } else {
                st = task_error(&j->t, err);
                if (err) ipfsrt_cid_to_string(&j->cid, err->cid);
            }
        }
        if (st == IPFSRT_OK && handed < n) client_pump(c, 50);
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].t.c) task_end(&jobs[i].t);
        if (!jobs[i].keep || st != IPFSRT_OK) {
            ipfsrt_rcblock_unref(jobs[i].result);
            jobs[i].result = NULL;
        }
    }
    free(batch.ready);
    return st;
}

/* Lends a held block through a block source: the reference travels in the token. */
static ipfsrt_status lend(ipfsrt_block_ref *ref, ipfsrt_rcblock *b) {
    ref->data = b->data;
    ref->len = b->len;
    ref->token = b;
    return IPFSRT_OK;
}

/* ------------------------------------------------------------- sessions */

/* What to ask for after an answer fell short. */
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

static void cid_v1_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]) {
    ipfsrt_cid v1;
    ipfsrt_cid_to_v1(cid, &v1);
    ipfsrt_cid_to_string(&v1, out);
}

static void range_query(char *query, size_t size, uint64_t from, uint64_t end) {
    if (end != UINT64_MAX && from >= end) {
        snprintf(query, size, "format=car&dag-scope=block");
    } else if (end == UINT64_MAX) {
        snprintf(query, size, "format=car&dag-scope=entity&entity-bytes=%llu:*",
                 (unsigned long long)from);
    } else {
        snprintf(query, size, "format=car&dag-scope=entity&entity-bytes=%llu:%llu",
                 (unsigned long long)from, (unsigned long long)(end - 1));
    }
}

static void session_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    session *s = t->owner;
    char cs[IPFSRT_CID_STR_MAX];
    if (t->attempts > 0 && s->mode == RESUME_RANGE && s->target_known) {
        cid_v1_string(&s->target, cs);
        snprintf(path, path_size, "/ipfs/%s", cs);
        range_query(query, query_size, s->range_from + s->written, s->range_end);
        s->request_root = s->target;
    } else if (t->attempts > 0 && s->mode == RESUME_SUBDAG) {
        cid_v1_string(&s->wanted, cs);
        snprintf(path, path_size, "/ipfs/%s", cs);
        snprintf(query, query_size, "format=car&dag-scope=all");
        s->request_root = s->wanted;
    } else {
        snprintf(path, path_size, "%s", s->first_path);
        snprintf(query, query_size, "%s", s->first_query);
        ipfsrt_cid root;
        const char *p = s->first_path + 6; /* "/ipfs/" */
        if (ipfsrt_cid_parse(&root, p, strcspn(p, "/"), NULL, NULL) == IPFSRT_OK) s->request_root = root;
    }
}

static void promise(attempt *a, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    ipfsrt_mhmap_put(&a->promised, mh, n, 0, 0, NULL);
}

static bool promised(const attempt *a, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    return ipfsrt_mhmap_get(&a->promised, mh, n) != NULL;
}

/* A verified block of the stream joins the pending map (takes the reference). */
static bool session_accept(attempt *a, ipfsrt_rcblock *b) {
    session *s = a->t->owner;
    if (b->cid.codec == IPFSRT_CODEC_DAG_PB) { /* what it links, the answer must hold too */
        ipfsrt_pb_node node;
        if (ipfsrt_dagpb_decode(b->data, b->len, &node, NULL) == IPFSRT_OK) {
            for (size_t i = 0; i < node.link_count; i++) promise(a, &node.links[i].cid);
            ipfsrt_dagpb_node_free(&node);
        }
    }
    ipfsrt_rcblock *have = ipfsrt_blockmap_get(&s->pending, &b->cid);
    if (have) {
        have->arrivals++;
        ipfsrt_rcblock_unref(b);
        return true;
    }
    bool ok = ipfsrt_blockmap_put(&s->pending, b, NULL) == IPFSRT_OK;
    if (ok) b->arrivals = 1;
    ipfsrt_rcblock_unref(b); /* the map keeps it */
    if (!ok) attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
    return ok;
}

/* Blocks as the push reader parses them; hashed on the worker threads when
 * there are some, before they can reach the walk. */
static int session_block(void *user, const ipfsrt_car_block *blk) {
    attempt *a = user;
    session *s = a->t->owner;
    /* Counted per arrival, so a flood of repeats is bounded like one of new blocks. */
    s->ahead += blk->len;
    if (s->ahead > PENDING_CAP) {
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE,
                     "sent over %llu MiB of blocks the walk from the root did not reach",
                     (unsigned long long)(PENDING_CAP >> 20));
        return 1;
    }
    ipfsrt_rcblock *b = ipfsrt_rcblock_new(&blk->cid, blk->data, blk->len);
    if (!b) {
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
        return 1;
    }
    if (s->c->pool && hash_elsewhere(a, b, blk->offset)) return 0;
    if (s->c->pool) { /* the reader left hashing to us */
        ipfsrt_error e;
        ipfsrt_status st = ipfsrt_cid_verify(&b->cid, b->data, b->len, &e);
        if (st != IPFSRT_OK) {
            ipfsrt_rcblock_unref(b);
            attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                         (unsigned long long)blk->offset, e.message);
            return 1;
        }
    }
    return session_accept(a, b) ? 0 : 1;
}

/* Gives up on an answer whose block failed its hash, even mid-stream. */
static void attempt_abandon(attempt *a) {
    task *t = a->t;
    if (a->req) ipfsrt_fetch_cancel(t->c->engine, a->req);
    a->req = NULL;
    attempt_report(a);
    task_detach(t, a);
    attempt_free(a);
    if (t->live_n == 0) task_advance(t);
}

static void session_hashed(attempt *a, ipfsrt_vjob *job) {
    if (job->status == IPFSRT_OK) {
        ipfsrt_rcblock *b = job->block;
        job->block = NULL;
        if (session_accept(a, b)) return;
    } else {
        attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                     (unsigned long long)job->stream_offset, job->message);
    }
    session *s = a->t->owner;
    if (s->finishing) { /* the walk is complete: report the liar, ask nobody else */
        attempt_report(a);
        task_detach(a->t, a);
        attempt_free(a);
        return;
    }
    attempt_abandon(a);
}

static int session_body(attempt *a, const uint8_t *data, size_t len) {
    session *s = a->t->owner;
    ipfsrt_error e;
    if (!a->car) {
        ipfsrt_car_options opts = {.max_block_size = s->c->max_block};
        if (ipfsrt_car_reader_init(&a->car, &opts, session_block, a, &e) != IPFSRT_OK) {
            attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
            return 1;
        }
        if (s->c->pool) ipfsrt_car_reader_defer_hashing(a->car);
        promise(a, &s->request_root);
    }
    ipfsrt_status st = ipfsrt_car_reader_feed(a->car, data, len, &e);
    if (st == IPFSRT_OK) return 0;
    if (st == IPFSRT_EHASH_MISMATCH) attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "%s", e.message);
    else if (st == IPFSRT_ETOO_LARGE) attempt_fail(a, IPFSRT_GWERR_TOO_LARGE, "%s", e.message);
    else attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
    return 1;
}

static ipfsrt_gw_error session_complete(attempt *a) {
    ipfsrt_error e;
    if (!a->car) {
        attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "empty body where a CAR was expected");
        return a->error;
    }
    ipfsrt_status st = ipfsrt_car_reader_finish(a->car, &e);
    if (st == IPFSRT_ETRUNCATED) attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "%s", e.message);
    else if (st != IPFSRT_OK) attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
    return a->error;
}

static const task_ops session_ops = {session_request, session_body, session_complete, NULL, NULL,
                                     session_hashed, false};

static void session_init(session *s, ipfsrt_client *c, resume_mode mode) {
    memset(s, 0, sizeof *s);
    s->c = c;
    s->mode = mode;
    s->range_end = UINT64_MAX;
    ipfsrt_blockmap_init(&s->pending);
}

/* Called with the session's answer complete: books the attempt that served the walk. */
static void session_finish(session *s, bool walk_ok) {
    task *t = &s->t;
    if (s->started) {
        if (walk_ok && t->live_n == 1 && t->live[0]->head_ok) {
            attempt *a = t->live[0];
            if (a->req) ipfsrt_fetch_cancel(s->c->engine, a->req); /* the rest is not needed */
            a->req = NULL;
            /* Blocks it sent and the walk did not need are still being hashed: a
             * gateway that sent a bad one is reported all the same. */
            s->finishing = true;
            while (t->live_n == 1 && t->live[0]->hashing) client_pump(s->c, 100);
            if (t->live_n == 1) attempt_report(t->live[0]);
        }
        task_end(t);
    }
    ipfsrt_blockmap_clear(&s->pending);
}

static ipfsrt_status session_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                                 ipfsrt_error *err) {
    session *s = ctx;
    ipfsrt_client *c = s->c;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(c->cache, cid);
    s->wanted = *cid;
    task *t = &s->t;
    while (!b) {
        b = ipfsrt_blockmap_get(&s->pending, cid);
        if (b) {
            s->ahead -= b->len;
            if (--b->arrivals == 0) ipfsrt_blockmap_remove(&s->pending, b); /* its reference is ours now */
            else ipfsrt_rcblock_ref(b);
            break;
        }
        if (!s->started) {
            s->started = true;
            task_begin(t, c, &session_ops, IPFSRT_REQUEST_CAR, s);
            continue;
        }
        if (t->state == TASK_FAILED) {
            ipfsrt_status st = task_error(t, err);
            if (err) ipfsrt_cid_to_string(cid, err->cid);
            return st;
        }
        if (t->live_n == 1 && t->live[0]->finished && !t->live[0]->hashing) {
            /* The answer is complete and this block is not in it. */
            attempt *a = t->live[0];
            char want[IPFSRT_CID_STR_MAX];
            ipfsrt_cid_to_string(cid, want);
            bool first_time = !s->have_unblamed || !ipfsrt_cid_equal(&s->unblamed_for, cid);
            if (promised(a, cid) || !first_time) {
                attempt_fail(a, IPFSRT_GWERR_WRONG_DAG,
                             "answer to %s?%s lacks block %s, which the walk from the root needs",
                             t->path, t->query, want);
            } else {
                /* Beyond what that request covered: ask the same gateway for it. */
                s->unblamed_for = *cid;
                s->have_unblamed = true;
                t->same_gateway_again = true;
            }
            attempt_report(a);
            task_detach(t, a);
            attempt_free(a);
            task_advance(t);
            continue;
        }
        client_pump(c, 100);
    }
    return lend(ref, b);
}

static void rc_release(void *ctx, ipfsrt_block_ref *ref) {
    ipfsrt_client *c = ctx;
    ipfsrt_rcblock *b = ref->token;
    ipfsrt_blockcache_put(c->cache, b);
    ipfsrt_rcblock_unref(b);
}

static void session_release(void *ctx, ipfsrt_block_ref *ref) {
    session *s = ctx;
    rc_release(s->c, ref);
}

static void session_source(session *s, ipfsrt_blocksource *src) {
    src->ctx = s;
    src->get = session_get;
    src->release = session_release;
}

/* ------------------------------------------------------- block sources */

static ipfsrt_status run_one_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_rcblock **out,
                                   ipfsrt_error *err);

static ipfsrt_status client_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                                ipfsrt_error *err) {
    ipfsrt_client *c = ctx;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(c->cache, cid);
    if (!b) {
        ipfsrt_status st = run_one_block(c, cid, &b, err);
        if (st != IPFSRT_OK) return st;
    }
    return lend(ref, b);
}

void ipfsrt_client_blocksource(ipfsrt_client *c, ipfsrt_blocksource *src) {
    src->ctx = c;
    src->get = client_get;
    src->release = rc_release;
}

/* Only what the cache holds; remembers whether anything was missing. */
typedef struct probe {
    ipfsrt_client *c;
    bool missed;
} probe;

static ipfsrt_status probe_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                               ipfsrt_error *err) {
    probe *p = ctx;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(p->c->cache, cid);
    if (!b) {
        p->missed = true;
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not cached");
    }
    return lend(ref, b);
}

static void probe_release(void *ctx, ipfsrt_block_ref *ref) {
    ipfsrt_rcblock_unref(ref->token);
    (void)ctx;
}

static void probe_source(probe *p, ipfsrt_blocksource *src) {
    src->ctx = p;
    src->get = probe_get;
    src->release = probe_release;
}

static ipfsrt_status run_one_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_rcblock **out,
                                   ipfsrt_error *err) {
    block_job *j = calloc(1, sizeof *j);
    if (!j) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    j->cid = *cid;
    j->keep = true;
    ipfsrt_status st = run_block_jobs(c, j, 1, NULL, NULL, err);
    *out = j->result;
    free(j);
    return st;
}

ipfsrt_status ipfsrt_client_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                                  ipfsrt_error *err) {
    ipfsrt_blocksource src;
    ipfsrt_client_blocksource(c, &src);
    return ipfsrt_blocksource_get(&src, cid, ref, err);
}

ipfsrt_status ipfsrt_client_blocks(ipfsrt_client *c, const ipfsrt_cid *cids, size_t n,
                                   ipfsrt_indexed_block_fn fn, void *user, ipfsrt_error *err) {
    if (n > SIZE_MAX / sizeof(block_job)) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "too many blocks");
    block_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    if (!jobs) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < n; i++) jobs[i].cid = cids[i];
    ipfsrt_status st = run_block_jobs(c, jobs, n, fn, user, err);
    free(jobs);
    return st;
}

/* ----------------------------------------------------------- read-ahead */

#define READAHEAD_MIN_FILE ((uint64_t)8 << 20) /* whole files this big are read this way */
#define READAHEAD_MAX_WINDOW 32

/* Reads a whole large file by fetching its blocks by CID, many at once and
 * across gateways, in the order the walk will want them: each block's links
 * join a queue as it arrives, children ahead of what came before, so the queue
 * follows the depth-first walk. */
typedef struct readahead {
    ipfsrt_client *c;
    size_t window;
    block_job *jobs[READAHEAD_MAX_WINDOW + 1]; /* + one the walk asked for out of turn */
    size_t job_count;
    ipfsrt_cid *queue; /* a stack: the next CID to fetch is at the end */
    size_t queued, queue_cap;
    ipfsrt_mhmap expanded; /* blocks whose links were queued (the walk may load one twice) */
} readahead;

static block_job *readahead_start(readahead *r, const ipfsrt_cid *cid) {
    block_job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->cid = *cid;
    if (!block_job_start(r->c, j)) {
        free(j);
        return NULL;
    }
    r->jobs[r->job_count++] = j;
    return j;
}

static void readahead_drop(readahead *r, size_t i) {
    block_job *j = r->jobs[i];
    if (j->t.c) task_end(&j->t);
    ipfsrt_rcblock_unref(j->result);
    free(j);
    r->jobs[i] = r->jobs[--r->job_count];
}

static void readahead_fill(readahead *r) {
    while (r->job_count < r->window && r->queued) {
        ipfsrt_cid next = r->queue[--r->queued];
        bool have = false;
        for (size_t i = 0; i < r->job_count && !have; i++) have = ipfsrt_cid_equal(&r->jobs[i]->cid, &next);
        if (!have && next.hash_code != IPFSRT_MH_IDENTITY && !readahead_start(r, &next)) return;
    }
}

/* Queues what a dag-pb block links, first link to be fetched first. */
static void readahead_links(readahead *r, const ipfsrt_rcblock *b) {
    if (b->cid.codec != IPFSRT_CODEC_DAG_PB) return;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&b->cid, &mh_len);
    bool inserted = false;
    if (ipfsrt_mhmap_put(&r->expanded, mh, mh_len, 0, 0, &inserted) != IPFSRT_OK || !inserted) return;
    ipfsrt_pb_node node;
    if (ipfsrt_dagpb_decode(b->data, b->len, &node, NULL) != IPFSRT_OK) return; /* the walk will say why */
    if (r->queued + node.link_count > r->queue_cap) {
        size_t cap = (r->queued + node.link_count) * 2;
        ipfsrt_cid *q = realloc(r->queue, cap * sizeof *q);
        if (!q) {
            ipfsrt_dagpb_node_free(&node);
            return; /* read-ahead is an optimisation: go on without it */
        }
        r->queue = q;
        r->queue_cap = cap;
    }
    for (size_t i = node.link_count; i-- > 0;) r->queue[r->queued++] = node.links[i].cid;
    ipfsrt_dagpb_node_free(&node);
}

static ipfsrt_status readahead_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_block_ref *ref,
                                   ipfsrt_error *err) {
    readahead *r = ctx;
    size_t i = 0;
    while (i < r->job_count && !ipfsrt_cid_equal(&r->jobs[i]->cid, cid)) i++;
    if (i == r->job_count) { /* not foreseen */
        if (r->job_count > r->window) readahead_drop(r, 0); /* a guess that went stale */
        if (!readahead_start(r, cid)) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        i = r->job_count - 1;
    }
    block_job *j = r->jobs[i];
    while (j->t.state != TASK_DONE && j->t.state != TASK_FAILED) client_pump(r->c, 100);
    if (j->t.state == TASK_FAILED) {
        ipfsrt_status st = task_error(&j->t, err);
        if (err) ipfsrt_cid_to_string(cid, err->cid);
        return st;
    }
    ipfsrt_rcblock *b = j->result;
    j->result = NULL;
    readahead_drop(r, i);
    readahead_links(r, b);
    readahead_fill(r);
    return lend(ref, b);
}

static void readahead_release(void *ctx, ipfsrt_block_ref *ref) {
    readahead *r = ctx;
    rc_release(r->c, ref);
}

static ipfsrt_status readahead_read(ipfsrt_client *c, const ipfsrt_cid *file, ipfsrt_write_fn write,
                                    void *user, ipfsrt_error *err) {
    readahead r = {.c = c};
    ipfsrt_mhmap_init(&r.expanded);
    size_t window = 2 * (size_t)c->concurrency * c->gateways.count;
    r.window = window < 4 ? 4 : window > READAHEAD_MAX_WINDOW ? READAHEAD_MAX_WINDOW : window;
    ipfsrt_blocksource src = {&r, readahead_get, readahead_release};
    ipfsrt_status st = ipfsrt_unixfs_read(&src, file, 0, UINT64_MAX, write, user, err);
    while (r.job_count) readahead_drop(&r, r.job_count - 1);
    free(r.queue);
    ipfsrt_mhmap_free(&r.expanded);
    return st;
}

/* ------------------------------------------------------------ requests */

/* ipfsrt_path_split for client requests, which carry no query or fragment of
 * their own: the client writes the query it sends. */
static ipfsrt_status split_target(const char *path, ipfsrt_cid *root, const char **rest,
                                  ipfsrt_error *err) {
    if (strpbrk(path, "?#"))
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "'%.200s': queries and fragments are not paths", path);
    ipfsrt_status st = ipfsrt_path_split(path, root, rest, err);
    if (st != IPFSRT_OK && err) ipfsrt_error_prefix(err, "'%.200s': ", path);
    return st;
}

/* "/ipfs/<cidv1>/<each segment percent-encoded>" */
static ipfsrt_status url_path(const ipfsrt_cid *root, const char *rest, char *out, size_t size,
                              ipfsrt_error *err) {
    char cs[IPFSRT_CID_STR_MAX];
    cid_v1_string(root, cs);
    size_t n = (size_t)snprintf(out, size, "/ipfs/%s", cs);
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)rest; *p && n + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    if (n + 4 >= size) return ipfsrt_fail(err, IPFSRT_EARG, -1, "path too long");
    while (n > 1 && out[n - 1] == '/') n--;
    out[n] = '\0';
    return IPFSRT_OK;
}

/* Resolves from the cache alone. *known says whether that was enough; an error
 * the cached blocks prove (no such name, not a directory) is final. */
static ipfsrt_status resolve_cached(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                    bool *known, ipfsrt_error *err) {
    probe p = {c, false};
    ipfsrt_blocksource src;
    probe_source(&p, &src);
    ipfsrt_status st = ipfsrt_unixfs_resolve(&src, path, NULL, info, err);
    *known = st == IPFSRT_OK;
    if (st != IPFSRT_OK && p.missed) {
        if (err) ipfsrt_error_clear(err);
        return IPFSRT_OK;
    }
    return st;
}

static ipfsrt_status session_for(session *s, const ipfsrt_cid *root, const char *rest,
                                 const char *query, ipfsrt_error *err) {
    ipfsrt_status st = url_path(root, rest, s->first_path, sizeof s->first_path, err);
    snprintf(s->first_query, sizeof s->first_query, "%s", query);
    return st;
}

ipfsrt_status ipfsrt_client_stat(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                 ipfsrt_error *err) {
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    bool known;
    st = resolve_cached(c, path, info, &known, err);
    if (st != IPFSRT_OK || known) return st;
    session s;
    session_init(&s, c, RESUME_ORIGINAL);
    st = session_for(&s, &root, rest, "format=car&dag-scope=block", err);
    if (st == IPFSRT_OK) {
        ipfsrt_blocksource src;
        session_source(&s, &src);
        st = ipfsrt_unixfs_resolve(&src, path, NULL, info, err);
    }
    session_finish(&s, st == IPFSRT_OK);
    return st;
}

typedef struct entry_list {
    ipfsrt_unixfs_entry *items;
    size_t count, cap;
} entry_list;

static ipfsrt_status collect_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    entry_list *l = user;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        ipfsrt_unixfs_entry *p = realloc(l->items, cap * sizeof *p);
        if (!p) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        l->items = p;
        l->cap = cap;
    }
    ipfsrt_unixfs_entry copy = *e;
    copy.name = strndup(e->name, e->name_len);
    if (!copy.name) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    l->items[l->count++] = copy;
    return IPFSRT_OK;
}

static void entry_list_free(entry_list *l) {
    for (size_t i = 0; i < l->count; i++) free((char *)l->items[i].name);
    free(l->items);
}

ipfsrt_status ipfsrt_client_ls(ipfsrt_client *c, const char *path, bool fetch_types,
                               ipfsrt_entry_fn fn, void *user, ipfsrt_error *err) {
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    entry_list entries = {0};
    /* From the cache when every directory block is there. */
    probe p = {c, false};
    ipfsrt_blocksource src;
    probe_source(&p, &src);
    ipfsrt_unixfs_node_info info;
    st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, collect_entry, &entries, err);
    if (st != IPFSRT_OK && p.missed) {
        entry_list_free(&entries);
        memset(&entries, 0, sizeof entries);
        session s;
        session_init(&s, c, RESUME_ORIGINAL);
        st = session_for(&s, &root, rest, "format=car&dag-scope=entity", err);
        session_source(&s, &src);
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, collect_entry, &entries, err);
        session_finish(&s, st == IPFSRT_OK);
    }
    if (st == IPFSRT_OK && fetch_types) {
        /* Each entry's first block tells its type and size: fetch them all at once. */
        ipfsrt_cid *need = calloc(entries.count ? entries.count : 1, sizeof *need);
        size_t n = 0;
        if (!need) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        for (size_t i = 0; st == IPFSRT_OK && i < entries.count; i++)
            if (!entries.items[i].has_type) need[n++] = entries.items[i].cid;
        if (st == IPFSRT_OK && n) st = ipfsrt_client_blocks(c, need, n, NULL, NULL, err);
        free(need);
        if (st == IPFSRT_OK) {
            ipfsrt_client_blocksource(c, &src);
            st = ipfsrt_unixfs_ls(&src, &info.cid, true, fn, user, err);
        }
    } else {
        for (size_t i = 0; st == IPFSRT_OK && i < entries.count; i++) st = fn(user, &entries.items[i], err);
    }
    entry_list_free(&entries);
    return st;
}

/* ----------------------------------------------------------- unverified */

typedef struct plain_read {
    task t;
    const char *url;     /* a full http(s) URL, or NULL */
    char ipfs_path[2048];
    uint64_t offset, length, written;
    ipfsrt_write_fn write;
    void *user;
    ipfsrt_status write_status;
    ipfsrt_error write_err;
    uint64_t skip; /* bytes to drop when a server ignored Range */
} plain_read;

static void plain_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    plain_read *r = t->owner;
    snprintf(path, path_size, "%s", r->url ? r->url : r->ipfs_path);
    query[0] = '\0';
    (void)query_size;
    uint64_t from = r->offset + r->written;
    if (from == 0 && r->length == UINT64_MAX) t->range[0] = '\0';
    else if (r->length == UINT64_MAX)
        snprintf(t->range, sizeof t->range, "%llu-", (unsigned long long)from);
    else
        snprintf(t->range, sizeof t->range, "%llu-%llu", (unsigned long long)from,
                 (unsigned long long)(r->offset + r->length - 1));
}

static int plain_body(attempt *a, const uint8_t *data, size_t len) {
    plain_read *r = a->t->owner;
    if (a->status == 200 && a->bytes == len) r->skip = r->offset + r->written; /* Range ignored */
    if (r->skip) {
        size_t drop = r->skip < len ? (size_t)r->skip : len;
        r->skip -= drop;
        data += drop;
        len -= drop;
    }
    if (r->length != UINT64_MAX && len > r->length - r->written) len = (size_t)(r->length - r->written);
    if (!len) return 0;
    r->write_status = r->write(r->user, data, len, &r->write_err);
    if (r->write_status != IPFSRT_OK) return 1;
    r->written += len;
    return 0;
}

static ipfsrt_gw_error plain_complete(attempt *a) {
    plain_read *r = a->t->owner;
    if (r->length != UINT64_MAX && r->written < r->length) {
        attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "body ended after %llu of %llu bytes",
                     (unsigned long long)r->written, (unsigned long long)r->length);
        return a->error;
    }
    return IPFSRT_GWERR_NONE;
}

static const task_ops plain_ops = {plain_request, plain_body, plain_complete, NULL, NULL, NULL, false};

static ipfsrt_status plain_get(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                               ipfsrt_write_fn write, void *user, ipfsrt_error *err) {
    plain_read *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0) {
        r->url = path;
    } else {
        ipfsrt_cid root;
        const char *rest;
        st = split_target(path, &root, &rest, err);
        if (st == IPFSRT_OK) st = url_path(&root, rest, r->ipfs_path, sizeof r->ipfs_path, err);
    }
    if (st != IPFSRT_OK) {
        free(r);
        return st;
    }
    r->offset = offset;
    r->length = length;
    r->write = write;
    r->user = user;
    if (length == 0) {
        free(r);
        return IPFSRT_OK;
    }
    task_begin(&r->t, c, &plain_ops, IPFSRT_REQUEST_PLAIN, r);
    while (r->t.state != TASK_DONE && r->t.state != TASK_FAILED && r->write_status == IPFSRT_OK)
        client_pump(c, 100);
    if (r->write_status != IPFSRT_OK) {
        st = r->write_status;
        if (err) *err = r->write_err;
    } else if (r->t.state == TASK_FAILED) {
        st = task_error(&r->t, err);
    }
    task_end(&r->t);
    free(r);
    return st;
}

/* ---------------------------------------------------------------- reads */

typedef struct counted_write {
    session *s;
    ipfsrt_write_fn write;
    void *user;
} counted_write;

static ipfsrt_status count_written(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    counted_write *w = user;
    ipfsrt_status st = w->write(w->user, data, len, err);
    if (st == IPFSRT_OK) w->s->written += len;
    return st;
}

ipfsrt_status ipfsrt_client_read(ipfsrt_client *c, const char *path, uint64_t offset,
                                 uint64_t length, ipfsrt_write_fn write, void *user,
                                 ipfsrt_error *err) {
    c->progress_done = c->progress_expected = 0;
    if (!c->verify) return plain_get(c, path, offset, length, write, user, err);
    if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0)
        return ipfsrt_fail(err, IPFSRT_EARG, -1,
                           "%.200s: a plain URL cannot be verified (use the unverified mode)", path);
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    if (length != UINT64_MAX && offset > UINT64_MAX - length)
        return ipfsrt_fail(err, IPFSRT_ERANGE, -1, "byte range overflows");
    uint64_t end = length == UINT64_MAX ? UINT64_MAX : offset + length;
    ipfsrt_unixfs_node_info info;
    bool known;
    st = resolve_cached(c, path, &info, &known, err);
    if (st != IPFSRT_OK) return st;
    if (known && (info.cid.codec == IPFSRT_CODEC_RAW || info.cid.hash_code == IPFSRT_MH_IDENTITY)) {
        ipfsrt_blocksource src; /* a single block: by CID */
        ipfsrt_client_blocksource(c, &src);
        return ipfsrt_unixfs_read(&src, &info.cid, offset, length, write, user, err);
    }
    bool whole = offset == 0 && length == UINT64_MAX;
    if (known && whole && info.type == IPFSRT_UNIXFS_FILE && info.size >= READAHEAD_MIN_FILE) {
        c->progress_expected = info.size;
        return readahead_read(c, &info.cid, write, user, err);
    }
    session s;
    session_init(&s, c, RESUME_RANGE);
    s.range_from = offset;
    s.range_end = end;
    char query[256];
    range_query(query, sizeof query, offset, end);
    if (known) {
        s.target_known = true;
        s.target = info.cid;
        st = session_for(&s, &info.cid, "", query, err);
    } else {
        st = session_for(&s, &root, rest, query, err);
    }
    ipfsrt_blocksource src;
    session_source(&s, &src);
    if (st == IPFSRT_OK && !known) {
        st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
        if (st == IPFSRT_OK) {
            s.target_known = true;
            s.target = info.cid;
        }
    }
    if (st == IPFSRT_OK && whole && info.type == IPFSRT_UNIXFS_FILE && info.size >= READAHEAD_MIN_FILE &&
        info.cid.codec == IPFSRT_CODEC_DAG_PB) {
        /* A large file: drop the stream (it has proven the path) and fetch the
         * blocks many at once instead, hashed on every core. */
        session_finish(&s, true);
        c->progress_expected = info.size;
        return readahead_read(c, &info.cid, write, user, err);
    }
    if (st == IPFSRT_OK) {
        if (info.type == IPFSRT_UNIXFS_FILE || info.type == IPFSRT_UNIXFS_RAW)
            c->progress_expected = offset >= info.size ? 0 : (end < info.size ? end : info.size) - offset;
        counted_write cw = {&s, write, user};
        st = ipfsrt_unixfs_read(&src, &info.cid, offset, length, count_written, &cw, err);
    }
    session_finish(&s, st == IPFSRT_OK);
    return st;
}

typedef struct file_out {
    FILE *f;
    const char *path;
} file_out;

static ipfsrt_status write_file(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    file_out *o = user;
    if (fwrite(data, 1, len, o->f) != len)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", o->path);
    return IPFSRT_OK;
}

/* Unverified download of one file, into a temporary sibling renamed into place. */
static ipfsrt_status plain_export(ipfsrt_client *c, const char *path, const char *dest,
                                  ipfsrt_error *err) {
    if (access(dest, F_OK) == 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s already exists", dest);
    size_t n = strlen(dest) + 32;
    char *tmp = malloc(n);
    if (!tmp) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    snprintf(tmp, n, "%s.part-XXXXXX", dest);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ipfsrt_status st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create a file next to %s", dest);
        free(tmp);
        return st;
    }
    file_out o = {fdopen(fd, "wb"), dest};
    ipfsrt_status st = o.f ? plain_get(c, path, 0, UINT64_MAX, write_file, &o, err)
                           : ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write next to %s", dest);
    if (o.f && fclose(o.f) != 0 && st == IPFSRT_OK) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed", dest);
    if (!o.f) close(fd);
    if (st == IPFSRT_OK && rename(tmp, dest) != 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s", dest);
    if (st != IPFSRT_OK) unlink(tmp);
    free(tmp);
    return st;
}

ipfsrt_status ipfsrt_client_export(ipfsrt_client *c, const char *path, const char *dest,
                                   ipfsrt_error *err) {
    c->progress_done = c->progress_expected = 0;
    if (!c->verify) return plain_export(c, path, dest, err);
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_unixfs_node_info info;
    bool known;
    st = resolve_cached(c, path, &info, &known, err);
    if (st != IPFSRT_OK) return st;
    session s;
    session_init(&s, c, RESUME_SUBDAG);
    st = known ? session_for(&s, &info.cid, "", "format=car&dag-scope=all", err)
               : session_for(&s, &root, rest, "format=car&dag-scope=all", err);
    ipfsrt_blocksource src;
    session_source(&s, &src);
    if (st == IPFSRT_OK && !known) st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
    if (st == IPFSRT_OK && info.type == IPFSRT_UNIXFS_FILE) c->progress_expected = info.size;
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_export(&src, &info.cid, dest, err);
    session_finish(&s, st == IPFSRT_OK);
    return st;
}

/* ------------------------------------------------------------- the client */

static void wake_engine(void *engine) { ipfsrt_fetch_wakeup(engine); }

ipfsrt_status ipfsrt_client_init(ipfsrt_client **out, const ipfsrt_client_options *opts,
                                 ipfsrt_error *err) {
    ipfsrt_client_options defaults = {0};
    if (!opts) opts = &defaults;
    ipfsrt_client *c = calloc(1, sizeof *c);
    if (!c) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    if (opts->gateways && opts->gateways->count) {
        snprintf(c->gateways.source, sizeof c->gateways.source, "%s",
                 opts->gateways->source[0] ? opts->gateways->source : "the caller");
        for (size_t i = 0; i < opts->gateways->count && st == IPFSRT_OK; i++)
            st = ipfsrt_gateway_list_add(&c->gateways, opts->gateways->urls[i], err);
    } else {
        st = ipfsrt_gateway_list_default(&c->gateways, err);
    }
    c->verify = !opts->no_verify;
    c->retries = opts->retries ? opts->retries : 2;
    c->concurrency = opts->concurrency ? opts->concurrency : 8;
    c->max_block = opts->max_block ? opts->max_block : IPFSRT_CAR_DEFAULT_MAX_BLOCK;
    uint64_t cache = opts->cache_bytes == 0 ? (uint64_t)64 << 20
                     : opts->cache_bytes == UINT64_MAX ? 0 : opts->cache_bytes;
    if (st == IPFSRT_OK && !(c->gw = calloc(c->gateways.count ? c->gateways.count : 1, sizeof *c->gw)))
        st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (st == IPFSRT_OK)
        st = ipfsrt_blockcache_init(&c->cache, cache, opts->cache_dir, opts->trust_cache_dir, err);
    if (st == IPFSRT_OK) {
        unsigned timeout_ms = opts->timeout_s > 0 ? (unsigned)(opts->timeout_s * 1000) : 30000;
        ipfsrt_fetch_config cfg = {
            .slots = (unsigned)(c->gateways.count ? c->gateways.count : 1),
            .per_slot = opts->concurrency ? opts->concurrency : 8,
            .connect_timeout_ms = timeout_ms < 10000 ? timeout_ms : 10000,
            .first_byte_timeout_ms = timeout_ms,
            .stall_timeout_ms = timeout_ms,
        };
        st = ipfsrt_fetch_init(&c->engine, &cfg, err);
    }
    if (st == IPFSRT_OK && c->verify) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned threads = cores < 1 ? 1 : cores > 4 ? 4 : (unsigned)cores;
        st = ipfsrt_vpool_init(&c->pool, threads, wake_engine, c->engine, err);
    }
    if (st != IPFSRT_OK) {
        ipfsrt_client_free(c);
        return st;
    }
    *out = c;
    return IPFSRT_OK;
}

void ipfsrt_client_free(ipfsrt_client *c) {
    if (!c) return;
    ipfsrt_fetch_free(c->engine);
    ipfsrt_vpool_free(c->pool);
    ipfsrt_client_set_policy(c, NULL);
    ipfsrt_blockcache_free(c->cache);
    ipfsrt_gateway_list_free(&c->gateways);
    free(c->gw);
    free(c);
}

void ipfsrt_client_set_policy(ipfsrt_client *c, const ipfsrt_policy *policy) {
    if (c->policy.free) c->policy.free(c->policy.ctx);
    memset(&c->policy, 0, sizeof c->policy);
    if (policy) c->policy = *policy;
}

size_t ipfsrt_client_gateway_count(const ipfsrt_client *c) { return c->gateways.count; }

const char *ipfsrt_client_gateway_url(const ipfsrt_client *c, size_t i) {
    return i < c->gateways.count ? c->gateways.urls[i] : NULL;
}

const char *ipfsrt_client_gateway_source(const ipfsrt_client *c) { return c->gateways.source; }

bool ipfsrt_client_verifies(const ipfsrt_client *c) { return c->verify; }

void ipfsrt_client_set_progress(ipfsrt_client *c, ipfsrt_progress_fn fn, void *user) {
    c->progress = fn;
    c->progress_user = user;
}
