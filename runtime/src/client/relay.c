/* A block source any thread may call, whose blocks one client fetches on the
 * one thread that drives it: callers post what they want and wait; the driver
 * starts a block job per CID (one for all the callers wanting it at once),
 * pumps the client, and hands each block or error to every caller waiting on
 * it. The client, its cache and its policy stay on the driving thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "client/relay_internal.h"
#include "store/blockcache.h"
#include "base/base_internal.h"

#define RELAY_START_IN_FLIGHT 64 /* per gateway, within its cap */

static void relay_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    (void)ctx;
    ipfsrt_rcblock_unref(ref->token);
}

void ipfsrt_relay_wake_later(ipfsrt_client_relay *r, relay_waiter **waiting) {
    while (*waiting) {
        relay_waiter *x = *waiting;
        *waiting = x->next;
        x->next = r->to_wake;
        r->to_wake = x;
    }
}

void ipfsrt_relay_unlock(ipfsrt_client_relay *r) {
    relay_waiter *x = r->to_wake;
    r->to_wake = NULL;
    pthread_mutex_unlock(&r->lock);
    while (x) {
        relay_waiter *next = x->next; /* x is gone once posted */
        sem_post(&x->woken);
        x = next;
    }
}

void ipfsrt_relay_wait(ipfsrt_client_relay *r, relay_waiter **waiting) {
    relay_waiter me = {.next = *waiting};
    sem_init(&me.woken, 0, 0);
    *waiting = &me;
    ipfsrt_relay_unlock(r);
    while (sem_wait(&me.woken) != 0) continue; /* EINTR: a signal, not the wake-up */
    sem_destroy(&me.woken);
    pthread_mutex_lock(&r->lock);
}

/* Under the lock: the want for cid, a new one queued for the driver. */
static want *want_for(ipfsrt_client_relay *r, const ipfsrt_cid *cid) {
    want *w = ipfsrt_wants_find(&r->wants, cid);
    if (w) {
        r->coalesced++;
        return w;
    }
    w = ipfsrt_wants_add(&r->wants, cid);
    if (w && r->running) r->c->engine.wakeup(r->c->engine.ctx);
    return w;
}

/* A done block (kept, or fetched for another caller) with a new reference, or
 * NULL (always, once the relay has stopped: *stopped says so). */
static ipfsrt_rcblock *take_kept(ipfsrt_client_relay *r, const ipfsrt_cid *cid, bool *stopped) {
    pthread_mutex_lock(&r->lock);
    *stopped = r->stopping;
    want *w = r->stopping ? NULL : ipfsrt_wants_find(&r->wants, cid);
    ipfsrt_rcblock *block = w && w->state == WANT_DONE ? w->block : NULL;
    if (block) {
        ipfsrt_wants_touch(&r->wants, w);
        ipfsrt_rcblock_ref(block);
        r->coalesced++;
    }
    pthread_mutex_unlock(&r->lock);
    return block;
}

/* A block held: kept, or read (and checked) from the cache directory by the
 * calling thread, which many callers then do at once, none waiting on the
 * driver; what was read is kept for the next callers. */
static ipfsrt_rcblock *take_held(ipfsrt_client_relay *r, const ipfsrt_cid *cid) {
    bool stopped;
    ipfsrt_rcblock *block = take_kept(r, cid, &stopped);
    if (block || stopped || !(block = ipfsrt_blockcache_dir_get(r->c->cache, cid))) return block;
    pthread_mutex_lock(&r->lock);
    ipfsrt_wants_keep(&r->wants, block);
    r->jobs++;
    pthread_mutex_unlock(&r->lock);
    return block;
}

/* A block held at once, else waits for the driver to settle it; called from
 * any thread. */
static ipfsrt_status relay_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_client_relay *r = ctx;
    ipfsrt_rcblock *held = take_held(r, cid);
    if (held) return ipfsrt_block_lend(ref, held);
    pthread_mutex_lock(&r->lock);
    want *w = r->stopping ? NULL : want_for(r, cid);
    if (!w) {
        bool stopping = r->stopping;
        pthread_mutex_unlock(&r->lock);
        return stopping ? ipfsrt_fail_cid(err, IPFSRT_ECANCELED, cid, -1, "the gateway client has stopped")
                        : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (w->state == WANT_DONE) {
        ipfsrt_wants_touch(&r->wants, w);
        ipfsrt_rcblock_ref(w->block);
        pthread_mutex_unlock(&r->lock);
        return ipfsrt_block_lend(ref, w->block);
    }
    w->waiters++;
    while (w->state != WANT_DONE && w->state != WANT_FAILED) ipfsrt_relay_wait(r, &w->waiting);
    ipfsrt_status st = IPFSRT_OK;
    if (w->state == WANT_DONE) {
        ipfsrt_rcblock_ref(w->block);
        ipfsrt_block_lend(ref, w->block);
    } else {
        st = w->error.code;
        if (err) *err = w->error;
    }
    if (--w->waiters == 0) ipfsrt_wants_left(&r->wants, w);
    pthread_mutex_unlock(&r->lock);
    return st;
}

/* The blocks held only: nothing is asked for. */
static ipfsrt_status relay_get_at_hand(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                       ipfsrt_error *err) {
    ipfsrt_client_relay *r = ctx;
    ipfsrt_rcblock *block = take_held(r, cid);
    if (!block) return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not at hand");
    return ipfsrt_block_lend(ref, block);
}

/* Under the lock: the want's end, for its waiters. */
static void fail_want(ipfsrt_client_relay *r, want *w, const ipfsrt_error *e) {
    w->error = *e;
    ipfsrt_cid_to_string(&w->cid, w->error.cid);
    w->state = WANT_FAILED;
    ipfsrt_relay_wake_later(r, &w->waiting);
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
        ipfsrt_relay_wake_later(r, &w->waiting);
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

/* Starts a job for each queued want (one the cache holds is done at once). */
static void start_queued(ipfsrt_client_relay *r) {
    for (want *w = r->wants.active; w; w = w->active_next) {
        if (w->state == WANT_QUEUED) {
            block_job *j = calloc(1, sizeof *j);
            if (j) j->cid = w->cid;
            if (!j || !ipfsrt_blockjob_start(r->c, j)) {
                free(j);
                ipfsrt_error e;
                ipfsrt_fail(&e, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
                fail_want(r, w, &e);
                continue;
            }
            w->job = j;
            w->state = WANT_FETCHING;
            r->jobs++;
        }
    }
}

/* Settles what finished (with failure, everything still fetching), taking
 * the settled off the active list; returns how many are still fetching. */
static size_t settle_finished(ipfsrt_client_relay *r, const ipfsrt_error *failure) {
    size_t fetching = 0;
    for (want **p = &r->wants.active, *w; (w = *p);) {
        if (w->state == WANT_FETCHING &&
            (failure || ipfsrt_task_over(&w->job->t)))
            settle(r, w, failure);
        if (w->state == WANT_DONE || w->state == WANT_FAILED) {
            *p = w->active_next; /* its waiters (there is one at least) take it from here */
            w->active_next = NULL;
            continue;
        }
        fetching += w->state == WANT_FETCHING;
        p = &w->active_next;
    }
    return fetching;
}

/* Under the lock, as the relay stops: every want not settled fails. */
static void fail_unsettled(ipfsrt_client_relay *r) {
    ipfsrt_error e;
    ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "the gateway client has stopped");
    for (want *w = r->wants.active; w; w = w->active_next)
        if (w->state == WANT_QUEUED) fail_want(r, w, &e);
    settle_finished(r, &e);
    ipfsrt_relay_settle_prefetches(r, true);
}

/* The lowest of the gateways' recent first-byte times (0: none answered yet). */
static double fastest_round_trip(const ipfsrt_client *c) {
    double best = 0;
    for (size_t i = 0; i < c->gateways.count; i++) {
        double base = c->gw[i].pace.base;
        if (base > 0 && (best == 0 || base < best)) best = base;
    }
    return best;
}

ipfsrt_status ipfsrt_client_relay_run(ipfsrt_client_relay *r, ipfsrt_error *err) {
    IPFSRT_NEED(r, err);
    ipfsrt_client *c = r->c;
    pthread_mutex_lock(&r->lock);
    r->running = true;
    ipfsrt_status st = IPFSRT_OK;
    while (!r->stopping) {
        start_queued(r);
        ipfsrt_relay_start_prefetches(r);
        size_t fetching = settle_finished(r, NULL) + ipfsrt_relay_settle_prefetches(r, false);
        r->round_trip = fastest_round_trip(c);
        ipfsrt_relay_unlock(r);
        ipfsrt_error e;
        ipfsrt_status pumped = IPFSRT_OK;
        if (fetching && (c->engine.pending(c->engine.ctx) || c->pool_jobs)) {
            pumped = ipfsrt_task_pump(c, 100, &e);
        } else { /* nothing on the wire: wait where a caller's wakeup ends it */
            c->engine.wait(c->engine.ctx, fetching ? 10 : 100);
            if (fetching) pumped = ipfsrt_task_pump(c, 0, &e); /* timers: backoffs, hedges */
            else if (ipfsrt_stop_requested()) pumped = ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "interrupted");
        }
        pthread_mutex_lock(&r->lock);
        if (pumped == IPFSRT_OK) continue;
        /* a halt (no answer for too long, a policy's error) ends what is
         * fetching now, not the relay; a stop request ends the relay */
        settle_finished(r, &e);
        ipfsrt_relay_settle_prefetches(r, true);
        ipfsrt_client_call_start(c);
        if (ipfsrt_stop_requested()) {
            st = ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "stopped by signal %d", ipfsrt_stop_requested());
            r->stopping = true;
        }
    }
    fail_unsettled(r);
    r->running = false;
    ipfsrt_relay_unlock(r);
    return st;
}

void ipfsrt_client_relay_stop(ipfsrt_client_relay *r) {
    IPFSRT_NEED_OR(r, );
    pthread_mutex_lock(&r->lock);
    r->stopping = true;
    if (r->running) r->c->engine.wakeup(r->c->engine.ctx);
    else fail_unsettled(r); /* nobody will drive them: only queued ones wait */
    ipfsrt_relay_unlock(r);
}

ipfsrt_status ipfsrt_client_relay_new(ipfsrt_client_relay **out, ipfsrt_client *c, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    *out = NULL;
    if (!c->verify)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a relay hands out verified blocks: the client must verify");
    ipfsrt_client_relay *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    r->c = c;
    /* A relay's callers are many clients at once, each of which would have
     * asked the gateways itself: a Zarr reader's first hundred chunks go out
     * in one round trip, not the three a ramp from one caller's start takes. */
    ipfsrt_client_pace_from(c, RELAY_START_IN_FLIGHT);
    ipfsrt_wants_init(&r->wants, c->memory_cache_bytes); /* the client's budget: callers' hits skip the driver */
    pthread_mutex_init(&r->lock, NULL);
    *out = r;
    return IPFSRT_OK;
}

void ipfsrt_client_relay_blocksource(ipfsrt_client_relay *r, ipfsrt_blocksource *src) {
    IPFSRT_NEED_OR(r, );
    IPFSRT_NEED_OR(src, );
    *src = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), r, relay_get, relay_release};
}

void ipfsrt_client_relay_blocksource_at_hand(ipfsrt_client_relay *r, ipfsrt_blocksource *src) {
    IPFSRT_NEED_OR(r, );
    IPFSRT_NEED_OR(src, );
    *src = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), r, relay_get_at_hand, relay_release};
}

double ipfsrt_client_relay_round_trip(ipfsrt_client_relay *r) {
    IPFSRT_NEED_OR(r, 0);
    pthread_mutex_lock(&r->lock);
    double round_trip = r->round_trip;
    pthread_mutex_unlock(&r->lock);
    return round_trip;
}

void ipfsrt_client_relay_get_stats(ipfsrt_client_relay *r, ipfsrt_client_relay_stats *stats) {
    IPFSRT_NEED_OR(stats, );
    pthread_mutex_lock(&r->lock);
    ipfsrt_client_relay_stats all = {.jobs = r->jobs, .coalesced = r->coalesced, .prefetched = r->prefetched};
    pthread_mutex_unlock(&r->lock);
    ipfsrt_stats_hand_over(stats, &all, sizeof all);
}

void ipfsrt_client_relay_free(ipfsrt_client_relay *r) {
    if (!r) return;
    ipfsrt_wants_free(&r->wants);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
