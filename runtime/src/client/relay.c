/* A block source any thread may call, whose blocks one client fetches on the
 * one thread that drives it: callers post what they want and wait; the driver
 * starts a block job per CID (one for all the callers wanting it at once),
 * pumps the client, and hands each block or error to every caller waiting on
 * it. The client, its cache and its policy stay on the driving thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

typedef enum want_state { WANT_QUEUED, WANT_FETCHING, WANT_DONE, WANT_FAILED } want_state;

/* One CID wanted by one or more callers; freed by the last caller to see its end. */
typedef struct want {
    ipfsrt_cid cid;
    want_state state;
    unsigned waiters;
    block_job *job;        /* the driver's, while fetching */
    ipfsrt_rcblock *block; /* done: a reference the want holds */
    ipfsrt_error error;    /* failed */
    struct want *next;
} want;

struct ipfsrt_client_relay {
    ipfsrt_client *c;
    pthread_mutex_t lock;
    pthread_cond_t settled; /* a want was settled, or the relay stopped */
    want *wants;
    bool stopping;
    bool running; /* in ipfsrt_client_relay_run: only then is the client touched */
    uint64_t jobs, coalesced;
};

static want *find_want(ipfsrt_client_relay *r, const ipfsrt_cid *cid) {
    for (want *w = r->wants; w; w = w->next)
        if (ipfsrt_cid_equal(&w->cid, cid)) return w;
    return NULL;
}

static void unlink_want(ipfsrt_client_relay *r, want *w) {
    for (want **p = &r->wants; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    ipfsrt_rcblock_unref(w->block);
    free(w);
}

static void relay_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    (void)ctx;
    ipfsrt_rcblock_unref(ref->token);
}

/* Waits for the driver to settle cid; called from any thread. */
static ipfsrt_status relay_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_client_relay *r = ctx;
    pthread_mutex_lock(&r->lock);
    if (r->stopping) {
        pthread_mutex_unlock(&r->lock);
        return ipfsrt_fail_cid(err, IPFSRT_ECANCELED, cid, -1, "the gateway client has stopped");
    }
    want *w = find_want(r, cid);
    if (w) {
        r->coalesced++;
    } else if ((w = calloc(1, sizeof *w))) {
        w->cid = *cid;
        w->next = r->wants;
        r->wants = w;
        if (r->running) r->c->engine.wakeup(r->c->engine.ctx);
    } else {
        pthread_mutex_unlock(&r->lock);
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    }
    w->waiters++;
    while (w->state != WANT_DONE && w->state != WANT_FAILED) pthread_cond_wait(&r->settled, &r->lock);
    ipfsrt_status st = IPFSRT_OK;
    if (w->state == WANT_DONE) {
        ipfsrt_rcblock_ref(w->block);
        ipfsrt_block_lend(ref, w->block);
    } else {
        st = w->error.code;
        if (err) *err = w->error;
    }
    if (--w->waiters == 0) unlink_want(r, w);
    pthread_mutex_unlock(&r->lock);
    return st;
}

/* Under the lock: the want's end, for its waiters. */
static void fail_want(ipfsrt_client_relay *r, want *w, const ipfsrt_error *e) {
    w->error = *e;
    ipfsrt_cid_to_string(&w->cid, w->error.cid);
    w->state = WANT_FAILED;
    pthread_cond_broadcast(&r->settled);
}

/* Under the lock: the job's outcome becomes the want's; a job not done when
 * failure is given (the client halted) fails with it. */
static void settle(ipfsrt_client_relay *r, want *w, const ipfsrt_error *failure) {
    block_job *j = w->job;
    ipfsrt_error e;
    if (j->t.state == TASK_DONE) {
        w->block = j->result;
        j->result = NULL;
        w->state = WANT_DONE;
        pthread_cond_broadcast(&r->settled);
    } else {
        if (failure) e = *failure;
        else ipfsrt_task_error(&j->t, &e);
        fail_want(r, w, &e);
    }
    if (j->t.c) ipfsrt_task_end(&j->t);
    ipfsrt_rcblock_unref(j->result);
    free(j);
    w->job = NULL;
}

/* Starts a job for each queued want; returns how many are fetching. */
static size_t start_queued(ipfsrt_client_relay *r) {
    size_t fetching = 0;
    for (want *w = r->wants; w; w = w->next) {
        if (w->state == WANT_QUEUED) {
            block_job *j = calloc(1, sizeof *j);
            if (j) j->cid = w->cid;
            if (!j || !ipfsrt_blockjob_start(r->c, j)) {
                free(j);
                ipfsrt_error e;
                ipfsrt_fail(&e, IPFSRT_ENOMEM, -1, "out of memory");
                fail_want(r, w, &e);
                continue;
            }
            w->job = j;
            w->state = WANT_FETCHING;
            r->jobs++;
        }
        if (w->state == WANT_FETCHING) fetching++;
    }
    return fetching;
}

/* Settles what finished; with failure, everything still fetching. */
static void settle_finished(ipfsrt_client_relay *r, const ipfsrt_error *failure) {
    for (want *w = r->wants; w; w = w->next) {
        if (w->state != WANT_FETCHING) continue;
        if (failure || w->job->t.state == TASK_DONE || w->job->t.state == TASK_FAILED) settle(r, w, failure);
    }
}

/* Under the lock, as the relay stops: every want not settled fails. */
static void fail_unsettled(ipfsrt_client_relay *r) {
    ipfsrt_error e;
    ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "the gateway client has stopped");
    settle_finished(r, &e);
    for (want *w = r->wants; w; w = w->next)
        if (w->state == WANT_QUEUED) fail_want(r, w, &e);
}

ipfsrt_status ipfsrt_client_relay_run(ipfsrt_client_relay *r, ipfsrt_error *err) {
    ipfsrt_client *c = r->c;
    pthread_mutex_lock(&r->lock);
    r->running = true;
    ipfsrt_status st = IPFSRT_OK;
    while (!r->stopping) {
        size_t fetching = start_queued(r);
        settle_finished(r, NULL);
        pthread_mutex_unlock(&r->lock);
        ipfsrt_error e;
        ipfsrt_status pumped = IPFSRT_OK;
        if (fetching) {
            pumped = ipfsrt_task_pump(c, 100, &e);
        } else {
            c->engine.wait(c->engine.ctx, 100); /* a caller's wakeup ends it */
            if (ipfsrt_stop_requested()) pumped = ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "interrupted");
        }
        pthread_mutex_lock(&r->lock);
        if (pumped == IPFSRT_OK) continue;
        /* a halt (no answer for too long, a policy's error) ends what is
         * fetching now, not the relay; a stop request ends the relay */
        settle_finished(r, &e);
        ipfsrt_client_call_start(c);
        if (ipfsrt_stop_requested()) {
            st = ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "stopped by signal %d", ipfsrt_stop_requested());
            r->stopping = true;
        }
    }
    fail_unsettled(r);
    r->running = false;
    pthread_mutex_unlock(&r->lock);
    return st;
}

void ipfsrt_client_relay_stop(ipfsrt_client_relay *r) {
    pthread_mutex_lock(&r->lock);
    r->stopping = true;
    if (r->running) r->c->engine.wakeup(r->c->engine.ctx);
    else fail_unsettled(r); /* nobody will drive them: only queued ones wait */
    pthread_mutex_unlock(&r->lock);
}

ipfsrt_status ipfsrt_client_relay_new(ipfsrt_client_relay **out, ipfsrt_client *c, ipfsrt_error *err) {
    *out = NULL;
    if (!c->verify)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "a relay hands out verified blocks: the client must verify");
    ipfsrt_client_relay *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    r->c = c;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->settled, NULL);
    *out = r;
    return IPFSRT_OK;
}

void ipfsrt_client_relay_blocksource(ipfsrt_client_relay *r, ipfsrt_blocksource *src) {
    *src = (ipfsrt_blocksource){r, relay_get, relay_release};
}

void ipfsrt_client_relay_get_stats(ipfsrt_client_relay *r, ipfsrt_client_relay_stats *stats) {
    pthread_mutex_lock(&r->lock);
    stats->jobs = r->jobs;
    stats->coalesced = r->coalesced;
    pthread_mutex_unlock(&r->lock);
}

void ipfsrt_client_relay_free(ipfsrt_client_relay *r) {
    if (!r) return;
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->settled);
    free(r);
}
