/* The scheduler: a task is one logical request tried on gateway after gateway
 * (in the policy's order, with retry rounds and hedging) until one answer is
 * usable; each try is an attempt, one HTTP transfer on the engine. What an
 * answer means is up to the task's ops (blocks.c, session.c, plain.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/client_internal.h"
#include "base/base_internal.h"

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
    [IPFSRT_GWERR_TLS] = "tls",
};

const char *ipfsrt_gateway_error_name(ipfsrt_gateway_error e) {
    return (unsigned)e < IPFSRT_GWERR_COUNT ? gw_error_names[e] : "unknown";
}

bool ipfsrt_gateway_error_is_verification(ipfsrt_gateway_error e) {
    return e == IPFSRT_GWERR_HASH_MISMATCH || e == IPFSRT_GWERR_WRONG_DAG;
}

/* Worth another round over the gateways after a pause. */
static bool retryable(ipfsrt_gateway_error e) {
    return e == IPFSRT_GWERR_CONNECT || e == IPFSRT_GWERR_TIMEOUT ||
           e == IPFSRT_GWERR_RATE_LIMITED || e == IPFSRT_GWERR_SERVER ||
           e == IPFSRT_GWERR_TRUNCATED;
}

static void record_latency(gw_state *g, double s) {
    g->latency[g->latency_next] = s;
    g->latency_next = (g->latency_next + 1) % IPFSRT_LATENCY_SAMPLES;
    if (g->latency_count < IPFSRT_LATENCY_SAMPLES) g->latency_count++;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The recent first-byte latencies' percentiles. */
static void latencies(const gw_state *g, ipfsrt_client_gateway_stats *out) {
    if (!g->latency_count) return;
    double sorted[IPFSRT_LATENCY_SAMPLES];
    memcpy(sorted, g->latency, g->latency_count * sizeof *sorted);
    qsort(sorted, g->latency_count, sizeof *sorted, cmp_double);
    size_t n = g->latency_count;
    out->latency_p50_s = sorted[(n - 1) * 50 / 100];
    out->latency_p90_s = sorted[(n - 1) * 90 / 100];
    out->latency_p99_s = sorted[(n - 1) * 99 / 100];
}

void ipfsrt_client_get_gateway_stats(const ipfsrt_client *c, size_t i,
                                 ipfsrt_client_gateway_stats *out) {
    IPFSRT_NEED_OR(c, );
    IPFSRT_NEED_OR(out, );
    ipfsrt_client_gateway_stats all = {0};
    if (i < c->gateways.count) {
        const gw_state *g = &c->gw[i];
        all = g->stats;
        latencies(g, &all);
    }
    ipfsrt_stats_hand_over(out, &all, sizeof all);
}

/* The request as the policy sees it, its attempt the one to come. */
static void info_of(const task *t, ipfsrt_policy_request *info) {
    info->kind = t->kind;
    info->path = t->path;
    info->query = t->query;
    info->attempt = t->attempts + 1;
}

/* Once per gateway and kind of failure: the first detail says what happened
 * (later ones differ in little more than timings). */
static void note_failure(task *t, size_t gw, ipfsrt_gateway_error kind, const char *detail) {
    for (size_t i = 0; i < t->failure_count; i++) {
        if (t->failures[i].gw == gw && t->failures[i].kind == kind) {
            t->failures[i].count++;
            return;
        }
    }
    if (t->failure_count == sizeof t->failures / sizeof t->failures[0]) {
        t->failures_left_out++;
        return;
    }
    char *d = t->failures[t->failure_count].detail;
    size_t n = strnlen(detail, sizeof t->failures[0].detail - 1);
    memcpy(d, detail, n);
    d[n] = '\0';
    t->failures[t->failure_count].gw = gw;
    t->failures[t->failure_count].kind = kind;
    t->failures[t->failure_count].count = 1;
    t->failure_count++;
}

/* Books an attempt's end: statistics, the policy's observe, the task's list of
 * what went wrong. */
void ipfsrt_attempt_report(attempt *a) {
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
        if (ipfsrt_gateway_error_is_verification(a->error)) g->stats.verify_failures++;
        if (retryable(a->error)) t->any_retryable = true;
        note_failure(t, a->gw, a->error, a->detail);
        g->last_error = a->error;
        snprintf(g->last_detail, sizeof g->last_detail, "%s", a->detail);
    }
    /* paced on the gateway's answers, not on the handshakes of a new
     * connection: a new one's first answer would read as a loaded gateway.
     * But a near HTTP/1.x gateway's new connections are what a higher limit
     * costs (a connection a request), and their handshakes count. */
    double answer = g->near_http1 || latency < a->setup ? latency : latency - a->setup;
    if (c->adaptive && c->engine.set_limit) {
        unsigned before = (unsigned)g->pace.limit;
        unsigned limit = ipfsrt_pacing_observe(&g->pace, a->error, answer, a->backlog, now);
        if (limit != before) c->engine.set_limit(c->engine.ctx, (unsigned)a->gw, limit);
    } else if (a->error == IPFSRT_GWERR_NONE) {
        ipfsrt_pacing_note(&g->pace, answer);
    }
    if (c->policy.observe && !c->halted) {
        ipfsrt_policy_request info;
        info_of(t, &info);
        info.attempt = a->number;
        ipfsrt_policy_outcome o = {
            .ok = a->error == IPFSRT_GWERR_NONE,
            .verified = a->error == IPFSRT_GWERR_NONE && t->kind != IPFSRT_REQUEST_PLAIN,
            .error = a->error,
            .status = a->status,
            .latency_s = latency,
            .duration_s = now - a->started,
            .bytes = a->bytes,
            .detail = a->error == IPFSRT_GWERR_NONE ? "" : a->detail,
            .guess = t->ops->hint,
            .verification_failed = ipfsrt_gateway_error_is_verification(a->error),
        };
        ipfsrt_error e;
        ipfsrt_error_clear(&e);
        if (c->policy.observe(c->policy.ctx, a->gw, &info, &o, &e) != IPFSRT_OK) {
            ipfsrt_error_prefix(&e, "policy observe: ");
            ipfsrt_client_halt(c, &e);
        }
    }
}

void ipfsrt_attempt_free(attempt *a) {
    if (!a) return;
    ipfsrt_car_reader_free(a->car);
    ipfsrt_mhmap_free(&a->promised);
    ipfsrt_buf_free(&a->body);
    ipfsrt_rcblock_unref(a->rc);
    for (ipfsrt_vjob *j = a->hashing; j; j = j->sibling) ipfsrt_vpool_cancel(a->t->c->pool, j); /* counted back when drained */
    free(a);
}

void ipfsrt_attempt_fail(attempt *a, ipfsrt_gateway_error e, const char *fmt, ...) {
    if (a->error != IPFSRT_GWERR_NONE) return; /* the first reason is the real one */
    a->error = e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->detail, sizeof a->detail, fmt, ap);
    va_end(ap);
}

void ipfsrt_task_detach(task *t, attempt *a) {
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

/* Whether a Content-Type names the media type (its parameters aside): a
 * parameter that merely mentions it does not count. */
static bool media_type_is(const char *content_type, const char *type) {
    while (*content_type == ' ' || *content_type == '\t') content_type++;
    size_t n = strcspn(content_type, "; \t");
    return n == strlen(type) && strncasecmp(content_type, type, n) == 0;
}

/* Over HTTP/1.x each request in flight is a connection of its own, and one
 * opened later starts later (TCP's and TLS's handshakes) and colder (slow
 * start): growing the limit answer by answer, as over HTTP/2, would open a
 * batch's connections round trip after round trip. A gateway whose first
 * answer (less its connection's set-up) took FAR_ROUND_TRIP_S or more gets
 * its cap at once; the connections are kept and reused (curl prefers an idle
 * one). A nearer one answers about as fast as connections open (loopback,
 * or 0 ms through the emulator over TLS: a first answer in 2.5 ms, and the
 * time series 8-15% slower with 128 at once), and its limit grows answer by
 * answer. */
static void one_per_connection(ipfsrt_client *c, size_t gw, double answer_s) {
    gw_state *g = &c->gw[gw];
    if (g->one_per_connection) return;
    g->one_per_connection = true;
    g->near_http1 = answer_s < FAR_ROUND_TRIP_S;
    if (!c->adaptive || !c->engine.set_limit || g->near_http1) return;
    g->pace.limit = g->pace.cap;
    c->engine.set_limit(c->engine.ctx, (unsigned)gw, (unsigned)g->pace.limit);
}

static int on_head(void *user, const ipfsrt_fetch_head *head) {
    attempt *a = user;
    task *t = a->t;
    t->c->heard = true;
    a->status = head->status;
    a->first_byte = ipfsrt_clock() - a->started;
    a->setup = head->setup_s < a->first_byte ? head->setup_s : a->first_byte;
    if (head->one_per_connection) one_per_connection(t->c, a->gw, a->first_byte - a->setup);
    if (head->status != 200 && head->status != 206) return 0; /* judged at the end */
    if (t->kind == IPFSRT_REQUEST_CAR && !media_type_is(head->content_type, "application/vnd.ipld.car")) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "asked for a CAR, got Content-Type '%.80s'",
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
        t->c->engine.cancel(t->c->engine.ctx, other->req);
        ipfsrt_task_detach(t, other);
        ipfsrt_attempt_free(other);
        i--;
    }
    timed_remove(t->c, t);
    return 0;
}

static int on_body(void *user, const uint8_t *data, size_t len) {
    attempt *a = user;
    ipfsrt_client *c = a->t->c;
    c->heard = true;
    a->bytes += len;
    if (!a->head_ok) return a->bytes > ERROR_BODY_CAP; /* an error page: read and drop */
    if (c->progress && !c->halted) {
        c->progress_done += len;
        c->progress_last = ipfsrt_clock();
        ipfsrt_error e;
        ipfsrt_error_clear(&e);
        if (c->progress(c->progress_user, c->progress_done, c->progress_expected, &e) != IPFSRT_OK) {
            ipfsrt_client_halt(c, &e);
            return 1;
        }
    }
    return a->t->ops->on_body(a, data, len);
}

static ipfsrt_gateway_error status_error(long status) {
    if (status == 404 || status == 410 || status == 451) return IPFSRT_GWERR_NOT_FOUND;
    if (status == 429) return IPFSRT_GWERR_RATE_LIMITED;
    if (status >= 500) return IPFSRT_GWERR_SERVER;
    if (status >= 400) return IPFSRT_GWERR_REFUSED;
    return IPFSRT_GWERR_BAD_RESPONSE;
}

static void on_done(void *user, const ipfsrt_fetch_result *res) {
    attempt *a = user;
    task *t = a->t;
    a->req = NULL;
    a->finished = true;
    a->status = res->status;
    a->backlog = res->backlog;
    if (res->retry_after_s > t->retry_after) t->retry_after = res->retry_after_s;
    switch (res->end) {
    case IPFSRT_FETCH_DONE:
        if (!a->head_ok)
            ipfsrt_attempt_fail(a, status_error(res->status), "HTTP %ld%s", res->status,
                         res->retry_after_s >= 0 ? " (with Retry-After)" : "");
        break;
    case IPFSRT_FETCH_CONNECT:
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_CONNECT, "cannot connect: %s", res->detail);
        break;
    case IPFSRT_FETCH_TIMEOUT:
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_TIMEOUT, "timed out: %s", res->detail);
        break;
    case IPFSRT_FETCH_TOO_LARGE:
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_TOO_LARGE, "%s", res->detail);
        break;
    case IPFSRT_FETCH_ABORTED: /* our callbacks already said why */
        if (!a->enough) ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "transfer stopped");
        break;
    case IPFSRT_FETCH_TLS: /* retrying cannot make a certificate trusted */
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_TLS, "TLS failed: %s", res->detail);
        break;
    case IPFSRT_FETCH_BROKEN:
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "body broke off after %llu bytes: %s",
                     (unsigned long long)a->bytes, res->detail);
        break;
    }
    if (a->error == IPFSRT_GWERR_NONE) {
        ipfsrt_gateway_error e = t->ops->on_complete(a);
        if (a->hashing && !t->ops->walk_judges) return; /* judged once hashed */
        if (e != IPFSRT_GWERR_NONE && a->error == IPFSRT_GWERR_NONE)
            ipfsrt_attempt_fail(a, e, "unusable answer");
    }
    ipfsrt_attempt_settle(a);
}

/* Uses the judged answer, or moves on to the next gateway. */
void ipfsrt_attempt_settle(attempt *a) {
    task *t = a->t;
    if (a->error == IPFSRT_GWERR_NONE) {
        /* Streams stay attached until the walk has judged them. */
        if (!t->ops->walk_judges) {
            ipfsrt_attempt_report(a);
            ipfsrt_task_detach(t, a);
            ipfsrt_attempt_free(a);
            t->state = TASK_DONE;
            timed_remove(t->c, t);
            if (t->ops->on_settled) t->ops->on_settled(t);
        }
        return;
    }
    ipfsrt_attempt_report(a);
    ipfsrt_task_detach(t, a);
    ipfsrt_attempt_free(a);
    if (t->live_n == 0) ipfsrt_task_advance(t);
}

static const char *accept_for(ipfsrt_policy_request_kind kind) {
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
    if (t->hedge_s >= 0 && t->order_pos < t->order_n) {
        t->hedge_at = ipfsrt_clock() + t->hedge_s;
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

/* Hands a received block (and the reference) to the hashing threads; false when
 * that is not possible and the caller must hash it itself. */
bool ipfsrt_attempt_hash_elsewhere(attempt *a, ipfsrt_rcblock *b, uint64_t stream_offset) {
    ipfsrt_client *c = a->t->c;
    ipfsrt_vjob *job = calloc(1, sizeof *job);
    if (!job) return false;
    job->block = b;
    job->user = a;
    job->stream_offset = stream_offset;
    job->sibling = a->hashing;
    job->sibling_prev = &a->hashing;
    if (a->hashing) a->hashing->sibling_prev = &job->sibling;
    a->hashing = job;
    c->pool_jobs++;
    ipfsrt_vpool_submit(c->pool, job);
    return true;
}

static void unlink_hashing(ipfsrt_vjob *job) {
    *job->sibling_prev = job->sibling;
    if (job->sibling) job->sibling->sibling_prev = job->sibling_prev;
}

/* Takes back what the hashing threads finished. A job whose attempt went away
 * meanwhile (canceled) is only freed. */
static void drain_pool(ipfsrt_client *c) {
    if (!c->pool_jobs) return;
    for (ipfsrt_vjob *j = ipfsrt_vpool_take_done(c->pool), *next; j; j = next) {
        next = j->next;
        c->pool_jobs--;
        if (j->canceled) {
            ipfsrt_vjob_free(j);
            continue;
        }
        attempt *a = j->user;
        unlink_hashing(j);
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
    a->number = t->attempts + 1;
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
    if (c->engine.start(c->engine.ctx, &spec, &a->req, NULL) != IPFSRT_OK) {
        ipfsrt_task_detach(t, a);
        ipfsrt_attempt_free(a);
        return false;
    }
    return true;
}

/* No gateway will be asked again: the task failed for good. */
static void task_give_up(task *t) {
    t->state = TASK_FAILED;
    timed_remove(t->c, t);
    if (t->ops->on_settled) t->ops->on_settled(t);
}

/* The policy failed: the call stops with its error, which the task reports. */
static bool policy_failed(task *t, const ipfsrt_error *e) {
    ipfsrt_client_halt(t->c, e);
    task_give_up(t);
    return false;
}

/* An unverified read of a URL the caller gave whole: no gateway is asked, so
 * there is none to choose or to name. */
static bool own_url(const task *t) { return t->kind == IPFSRT_REQUEST_PLAIN && strstr(t->path, "://"); }

/* Asks the policy for this round's order (and how long to wait before racing
 * the next gateway). False when the policy failed: the task fails with its error. */
static bool task_order(task *t) {
    ipfsrt_client *c = t->c;
    size_t n = c->gateways.count;
    t->order_pos = 0;
    t->hedge_s = -1;
    if (own_url(t)) { /* its first gateway's slot carries it */
        t->order[0] = 0;
        t->order_n = 1;
        return true;
    }
    ipfsrt_policy_request info;
    info_of(t, &info);
    ipfsrt_error e;
    ipfsrt_error_clear(&e);
    if (!c->policy.order) {
        for (size_t i = 0; i < n; i++) t->order[i] = i;
        t->order_n = n;
    } else {
        size_t got = 0;
        if (c->policy.order(c->policy.ctx, &info, n, t->order, &got, &e) != IPFSRT_OK) {
            ipfsrt_error_prefix(&e, "policy order: ");
            return policy_failed(t, &e);
        }
        t->order_n = 0;
        for (size_t i = 0; i < got && i < n; i++) /* keep what is valid, once each */
            if (t->order[i] < n) {
                bool dup = false;
                for (size_t j = 0; j < t->order_n; j++) dup |= t->order[j] == t->order[i];
                if (!dup) t->order[t->order_n++] = t->order[i];
            }
    }
    if (c->policy.hedge_after && c->policy.hedge_after(c->policy.ctx, &info, &t->hedge_s, &e) != IPFSRT_OK) {
        ipfsrt_error_prefix(&e, "policy hedge_after: ");
        return policy_failed(t, &e);
    }
    return true;
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
    if (task_order(t)) ipfsrt_task_advance(t);
}

/* Starts the next attempt, a pause before the next round, or gives up. */
void ipfsrt_task_advance(task *t) {
    ipfsrt_client *c = t->c;
    if (ipfsrt_task_over(t)) return;
    if (t->ops->hint && t->attempts > 0) {
        if (t->live_n == 0) task_give_up(t);
        return;
    }
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
            t->out_of_memory = true;
            task_give_up(t);
        }
        return;
    }
    if (t->any_retryable && t->round < c->retries) {
        double pause = c->backoff_s * pow(2.0, t->round);
        if (t->retry_after > pause) pause = t->retry_after;
        if (pause > MAX_BACKOFF_S) pause = MAX_BACKOFF_S;
        pause *= 1.0 + (double)(rand() % 200) / 1000.0; /* spread out retries */
        t->round++;
        t->wake_at = ipfsrt_clock() + pause;
        t->state = TASK_BACKOFF;
        timed_add(c, t);
        return;
    }
    task_give_up(t);
}

void ipfsrt_task_begin(task *t, ipfsrt_client *c, const task_ops *ops, ipfsrt_policy_request_kind kind,
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
void ipfsrt_task_end(task *t) {
    timed_remove(t->c, t);
    while (t->live_n) {
        attempt *a = t->live[0];
        if (a->req) t->c->engine.cancel(t->c->engine.ctx, a->req);
        ipfsrt_task_detach(t, a);
        ipfsrt_attempt_free(a);
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
                   t->hedge_s >= 0 && now >= t->hedge_at) {
            timed_remove(c, t);
            size_t gw; /* race a second gateway; if it cannot start, the first goes on alone */
            if (next_gateway(t, &gw)) (void)attempt_start(t, gw);
        } else if (t->state != TASK_BACKOFF && (t->live_n != 1 || t->live[0]->head_ok)) {
            timed_remove(c, t);
        }
    }
}

/* A second without a byte: progress is told so (done unchanged), so that a
 * caller can say what it is waiting for instead of looking dead. */
static void heartbeat(ipfsrt_client *c) {
    double now = ipfsrt_clock();
    if (!c->progress || c->halted || now - c->progress_last < 1.0) return;
    c->progress_last = now;
    ipfsrt_error e;
    ipfsrt_error_clear(&e);
    if (c->progress(c->progress_user, c->progress_done, c->progress_expected, &e) != IPFSRT_OK)
        ipfsrt_client_halt(c, &e);
}

/* Silence is counted only while transfers are out, so that time the caller
 * spends between pumps (decoding, a Lua callback) is never held against the
 * gateways; every attempt and retry of the call counts together. */
static void count_silence(ipfsrt_client *c, double waited) {
    if (c->heard) {
        c->heard = false;
        c->silent_s = 0;
        return;
    }
    c->silent_s += waited;
    if (c->give_up_s <= 0 || c->silent_s < c->give_up_s || c->halted) return;
    char who[512];
    size_t used = 0;
    who[0] = '\0';
    for (size_t i = 0; i < c->gateways.count && used + 1 < sizeof who; i++) {
        int n = snprintf(who + used, sizeof who - used, "%s%s", i ? ", " : "", c->shown.urls[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    ipfsrt_error e;
    ipfsrt_fail(&e, IPFSRT_ETIMED_OUT, -1, "no gateway answered for %.0f s (%s): gave up", c->silent_s, who);
    ipfsrt_client_halt(c, &e);
}

ipfsrt_status ipfsrt_task_pump(ipfsrt_client *c, int wait_ms, ipfsrt_error *err) {
    if (c->progress && wait_ms > 1000) wait_ms = 1000; /* wakes for the heartbeat */
    if (c->timed) {
        double soonest = 1e9, now = ipfsrt_clock();
        for (task *t = c->timed; t; t = t->timed_next) {
            double at = t->state == TASK_BACKOFF ? t->wake_at : t->hedge_at;
            if (at - now < soonest) soonest = at - now;
        }
        int ms = soonest <= 0 ? 0 : (int)(soonest * 1000) + 1;
        if (ms < wait_ms) wait_ms = ms;
    }
    if (c->engine.pending(c->engine.ctx)) {
        double before = ipfsrt_clock();
        c->engine.pump(c->engine.ctx, wait_ms);
        count_silence(c, ipfsrt_clock() - before);
    } else if (c->pool_jobs) c->engine.wait(c->engine.ctx, wait_ms); /* a hashing thread wakes it */
    else if (wait_ms > 0) {
        struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    drain_pool(c);
    run_timers(c);
    heartbeat(c);
    int sig = ipfsrt_stop_requested();
    if (sig && !c->halted) {
        ipfsrt_error e;
        ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "interrupted (signal %d)", sig);
        ipfsrt_client_halt(c, &e);
    }
    return ipfsrt_client_halt_status(c, err);
}

/* "URL: what went wrong (N attempts); ..." */
static void describe_failures(const task *t, char *out, size_t size) {
    size_t used = 0;
    bool named = !own_url(t); /* the URL given whole names itself, before these */
    out[0] = '\0';
    for (size_t i = 0; i < t->failure_count && used + 1 < size; i++) {
        char times[32] = "";
        if (t->failures[i].count > 1) snprintf(times, sizeof times, " (%u attempts)", t->failures[i].count);
        int n = snprintf(out + used, size - used, "%s%s%s%s%s", i ? "; " : "",
                         named ? t->c->shown.urls[t->failures[i].gw] : "", named ? ": " : "",
                         t->failures[i].detail, times);
        used += n > 0 ? (size_t)n : 0;
    }
    if (t->failures_left_out && used + 1 < size)
        snprintf(out + used, size - used, "; and %zu more failures", t->failures_left_out);
}

/* "; before: URL: hash_mismatch: ...", what each gateway last did wrong (in
 * earlier calls too), or "" when none has failed. */
static void describe_last_failures(const ipfsrt_client *c, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < c->gateways.count && used + 1 < size; i++) {
        const gw_state *g = &c->gw[i];
        if (g->last_error == IPFSRT_GWERR_NONE) continue;
        int n = snprintf(out + used, size - used, "%s%s: %s: %s", used ? "; " : "; before: ", c->shown.urls[i],
                         ipfsrt_gateway_error_name(g->last_error), g->last_detail);
        used += n > 0 ? (size_t)n : 0;
    }
}

ipfsrt_status ipfsrt_task_error(task *t, ipfsrt_error *err) {
    if (t->c->halted) return ipfsrt_client_halt_status(t->c, err);
    const char *q = t->query[0] ? "?" : "";
    if (t->out_of_memory) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (!t->failure_count) {
        char before[900];
        describe_last_failures(t->c, before, sizeof before);
        return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "%s%s%s: no gateway to ask (the policy named none)%s",
                           t->path, q, t->query, before);
    }
    char what[700];
    describe_failures(t, what, sizeof what);
    /* every gateway said it has no such thing: unavailable, which proves nothing
     * (only a verified directory without the name proves a path absent) */
    bool all_not_found = !t->failures_left_out, all_timeouts = !t->failures_left_out;
    for (size_t i = 0; i < t->failure_count; i++) {
        all_not_found = all_not_found && t->failures[i].kind == IPFSRT_GWERR_NOT_FOUND;
        all_timeouts = all_timeouts && t->failures[i].kind == IPFSRT_GWERR_TIMEOUT;
    }
    ipfsrt_status code = all_not_found ? IPFSRT_EUNAVAILABLE : all_timeouts ? IPFSRT_ETIMED_OUT : IPFSRT_EFETCH_FAILED;
    if (own_url(t)) {
        char *shown = ipfsrt_url_redact(t->path);
        ipfsrt_fail(err, code, -1, "%s: %s", shown ? shown : "the URL", what);
        free(shown);
        return code;
    }
    return ipfsrt_fail(err, code, -1,
                       "%s%s%s: every gateway failed: %s", t->path, q, t->query, what);
}

/* Gives up on an answer whose block failed its hash, even mid-stream. */
void ipfsrt_attempt_abandon(attempt *a) {
    task *t = a->t;
    if (a->req) t->c->engine.cancel(t->c->engine.ctx, a->req);
    a->req = NULL;
    ipfsrt_attempt_report(a);
    ipfsrt_task_detach(t, a);
    ipfsrt_attempt_free(a);
    if (t->live_n == 0) ipfsrt_task_advance(t);
}

void ipfsrt_client_halt(ipfsrt_client *c, const ipfsrt_error *err) {
    if (c->halted) return;
    c->halted = true;
    c->halt = *err;
    if (c->halt.code == IPFSRT_OK) c->halt.code = IPFSRT_ECANCELED;
}

ipfsrt_status ipfsrt_client_halt_status(const ipfsrt_client *c, ipfsrt_error *err) {
    if (!c->halted) return IPFSRT_OK;
    if (err) *err = c->halt;
    return c->halt.code;
}

void ipfsrt_client_call_start(ipfsrt_client *c) {
    c->halted = false;
    ipfsrt_error_clear(&c->halt);
    c->progress_done = c->progress_expected = 0;
    c->progress_last = ipfsrt_clock();
    c->silent_s = 0;
    c->heard = false;
}
