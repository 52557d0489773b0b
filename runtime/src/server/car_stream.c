/* A CAR answer streamed as its DAG is walked (or, bare, any bytes a walk
 * writes: a TAR): the walk runs on a thread of
 * its own and hands each block over as it meets it; the answer copies blocks
 * out as the client takes them. A few blocks wait between the two at most, so
 * an answer costs the same memory whatever the DAG (car-dups=y over a diamond
 * repeats its blocks a million times, never holding a list of them), and the
 * first bytes go out before the walk is over. The answer's length is unknown
 * when it starts (chunked): a walk that fails once the queue has filled ends
 * the body short, which a client sees as an error, never a CAR that silently
 * lacks a block. One that fails before is answered with its status. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/varint.h"
#include "server/server_internal.h"

#define QUEUE 64                            /* blocks waiting for the client, at most */
#define QUEUE_BYTES ((size_t)8 << 20)       /* and their bytes (one larger block still passes) */
#define TAMPER_ONE_IN 4                     /* a fault hits each block with this chance, else the last */

typedef struct queued {
    ipfsrt_cid cid;
    ipfsrt_blocksource_ref ref;
    bool held;  /* ref is the source's (else data is the server's own, for as long as it runs) */
    bool owned; /* data is a copy the stream frees (bare bytes) */
} queued;

struct ipfsrt_server_car_stream {
    ipfsrt_server_request *rq; /* gone once the answer is over: the free must not touch it */
    ipfsrt_server *gw;
    bool bare; /* bytes as written: no CAR header, no sections */
    ipfsrt_server_walk_fn walk;
    void *walk_user;
    void (*walk_free)(void *);
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    queued queue[QUEUE];
    size_t head, count, bytes;
    bool done, cancel; /* the walk is over; the answer is (the walk stops at its next block) */
    bool full;         /* the walk waits for room */
    bool starving;     /* the reader waits for blocks */
    /* in front of an upstream the reader never waits: its connection is
     * parked until the walk brings more (suspend.c) */
    bool parks, parked, stopped; /* parks: in the gateway's list of waiters; stopped: the gateway stops */
    ipfsrt_server_waiter waiter;
    ipfsrt_status status;
    ipfsrt_error err;
    /* the reader's side */
    uint8_t header[IPFSRT_VARINT_MAX_BYTES + 128 + IPFSRT_CID_MAX_BYTES];
    size_t header_len, header_pos;
    queued current;
    bool has_current, faulted;
    uint8_t prefix[IPFSRT_VARINT_MAX_BYTES + IPFSRT_CID_MAX_BYTES]; /* the section's length and CID */
    size_t prefix_len;
    uint64_t section_pos, tamper_at, cut_at; /* within the current section */
};

static void release_item(ipfsrt_server_car_stream *s, queued *q) {
    if (q->held) ipfsrt_blocksource_release(&s->gw->src, &q->ref);
    if (q->owned) free((void *)q->ref.data);
    q->held = q->owned = false;
}

/* The walk's side: waits for room, then queues the block (data given: the
 * server's own bytes, else the block is got from the source). */
static ipfsrt_status enqueue(ipfsrt_server_car_stream *s, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                             bool owned, ipfsrt_error *err) {
    queued q = {.cid = *cid, .ref = {.data = data, .len = len}, .owned = owned};
    if (!data) {
        ipfsrt_status st = ipfsrt_blocksource_get(&s->gw->src, cid, &q.ref, err);
        if (st != IPFSRT_OK) return st;
        q.held = true;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->cancel && (s->count == QUEUE || (s->count && s->bytes + q.ref.len > QUEUE_BYTES))) {
        s->full = true;
        pthread_cond_broadcast(&s->changed);
        pthread_cond_wait(&s->changed, &s->lock);
    }
    s->full = false;
    bool cancelled = s->cancel;
    bool wake = false;
    if (!cancelled) {
        s->queue[(s->head + s->count) % QUEUE] = q;
        s->count++;
        s->bytes += q.ref.len;
        if (s->starving) pthread_cond_broadcast(&s->changed); /* else no wake-up a block: they cost */
        wake = s->parked && s->count >= 2;
        if (wake) s->parked = false;
    }
    pthread_mutex_unlock(&s->lock);
    if (wake) ipfsrt_server_waiter_wake(s->gw, &s->waiter);
    if (!cancelled) return IPFSRT_OK;
    release_item(s, &q);
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "the client went away");
}

ipfsrt_status ipfsrt_server_car_stream_emit(void *stream, const ipfsrt_cid *cid, ipfsrt_error *err) {
    return enqueue(stream, cid, NULL, 0, false, err);
}

ipfsrt_status ipfsrt_server_car_stream_emit_own(ipfsrt_server_car_stream *s, const ipfsrt_server_spare *block,
                                                ipfsrt_error *err) {
    return enqueue(s, &block->cid, block->data, block->len, false, err);
}

ipfsrt_status ipfsrt_server_car_stream_write(ipfsrt_server_car_stream *s, const void *data, size_t len,
                                             ipfsrt_error *err) {
    if (!len) return IPFSRT_OK;
    uint8_t *copy = malloc(len);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(copy, data, len);
    return enqueue(s, &(ipfsrt_cid){0}, copy, len, true, err);
}

static void *run_walk(void *arg) {
    ipfsrt_server_car_stream *s = arg;
    ipfsrt_error err;
    ipfsrt_error_clear(&err);
    ipfsrt_status st = s->walk(s->walk_user, s, &err);
    pthread_mutex_lock(&s->lock);
    s->done = true;
    s->status = st;
    s->err = err;
    pthread_cond_broadcast(&s->changed);
    bool wake = s->parked;
    s->parked = false;
    pthread_mutex_unlock(&s->lock);
    if (wake) ipfsrt_server_waiter_wake(s->gw, &s->waiter);
    return NULL;
}

static void car_stream_free(void *cls) {
    ipfsrt_server_car_stream *s = cls;
    pthread_mutex_lock(&s->lock);
    s->cancel = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    if (s->parks) ipfsrt_server_waiter_remove(s->gw, &s->waiter);
    for (size_t i = 0; i < s->count; i++) release_item(s, &s->queue[(s->head + i) % QUEUE]);
    if (s->has_current) release_item(s, &s->current);
    if (s->walk_free) s->walk_free(s->walk_user);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

typedef enum next { NEXT_BLOCK, NEXT_NONE, NEXT_PARKED, NEXT_LATER } next;

/* Waits until a block can start going out: the next one, and one more (or
 * the walk's end) so that the reader knows whether it is the last. NONE when
 * the walk is over (s->status says how) or the gateway stops; PARKED when the
 * reader must not wait and its connection waits instead (LATER: the reader
 * has bytes to send first, and is called again). */
static next next_block(ipfsrt_server_car_stream *s, bool *last, bool may_park) {
    pthread_mutex_lock(&s->lock);
    while (!s->done && s->count < 2) {
        if (s->parks && !may_park) {
            pthread_mutex_unlock(&s->lock);
            return NEXT_LATER;
        }
        if (s->parks) {
            bool parked = ipfsrt_server_waiter_park(s->gw, &s->waiter);
            s->parked = parked;
            s->stopped = !parked; /* the body ends short, never as if whole */
            pthread_mutex_unlock(&s->lock);
            return parked ? NEXT_PARKED : NEXT_NONE;
        }
        s->starving = true;
        pthread_cond_wait(&s->changed, &s->lock);
    }
    s->starving = false;
    bool any = s->count > 0;
    if (any) {
        s->current = s->queue[s->head];
        s->head = (s->head + 1) % QUEUE;
        s->count--;
        s->bytes -= s->current.ref.len;
        s->has_current = true;
        if (s->full) pthread_cond_broadcast(&s->changed);
    }
    *last = s->done && s->count == 0 && s->status == IPFSRT_OK;
    pthread_mutex_unlock(&s->lock);
    return any ? NEXT_BLOCK : NEXT_NONE;
}

/* The fault plan's block faults, placed as blocks go out: each block is hit
 * with a chance, and the last one surely when none was before it. */
static bool fault_here(ipfsrt_server_car_stream *s, bool last) {
    ipfsrt_server_request *rq = s->rq;
    if (s->bare || !(rq->tamper || rq->truncate || rq->wrong_block) || s->faulted) return false;
    s->faulted = last || ipfsrt_server_random(rq) % TAMPER_ONE_IN == 0;
    return s->faulted;
}

static void start_section(ipfsrt_server_car_stream *s, bool last) {
    ipfsrt_server_request *rq = s->rq;
    bool fault = fault_here(s, last);
    const ipfsrt_server_spare *spare = fault && rq->wrong_block ? ipfsrt_server_spare_for(rq->gw, &s->current.cid) : NULL;
    if (spare) { /* a valid block, of another CID */
        release_item(s, &s->current);
        s->current.cid = spare->cid;
        s->current.ref = (ipfsrt_blocksource_ref){.data = spare->data, .len = spare->len};
    }
    const queued *q = &s->current;
    s->prefix_len = 0;
    if (!s->bare) {
        s->prefix_len = ipfsrt_varint_encode((uint64_t)q->cid.len + q->ref.len, s->prefix);
        memcpy(s->prefix + s->prefix_len, q->cid.bytes, q->cid.len);
        s->prefix_len += q->cid.len;
    }
    s->section_pos = 0;
    s->tamper_at = s->cut_at = UINT64_MAX;
    if (fault && rq->tamper && q->ref.len) s->tamper_at = s->prefix_len + ipfsrt_server_random(rq) % q->ref.len;
    if (fault && rq->truncate) s->cut_at = (s->prefix_len + q->ref.len) / 2;
}

/* Copies what is left of the current section into buf (faults applied);
 * true when it is over. */
static bool copy_section(ipfsrt_server_car_stream *s, uint8_t *buf, size_t max, size_t *out) {
    uint64_t end = s->prefix_len + s->current.ref.len;
    if (s->cut_at < end) end = s->cut_at;
    while (*out < max && s->section_pos < end) {
        bool in_prefix = s->section_pos < s->prefix_len;
        const uint8_t *from = in_prefix ? s->prefix + s->section_pos
                                        : s->current.ref.data + (s->section_pos - s->prefix_len);
        uint64_t left = (in_prefix ? s->prefix_len : end) - s->section_pos;
        size_t n = left < max - *out ? (size_t)left : max - *out;
        memcpy(buf + *out, from, n);
        if (s->tamper_at >= s->section_pos && s->tamper_at < s->section_pos + n)
            buf[*out + (s->tamper_at - s->section_pos)] ^= 0x20;
        *out += n;
        s->section_pos += n;
    }
    return s->section_pos == end;
}

/* Why the body ended short, for the log line. */
static void note_cut(ipfsrt_server_car_stream *s, const char *why) {
    snprintf(s->rq->cut, sizeof s->rq->cut, "cut: %.240s", why);
}

static ssize_t car_stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    ipfsrt_server_car_stream *s = cls;
    size_t out = 0;
    max = ipfsrt_server_piece(s->rq, max);
    if (s->header_pos < s->header_len) {
        out = s->header_len - s->header_pos < max ? s->header_len - s->header_pos : max;
        memcpy(buf, s->header + s->header_pos, out);
        s->header_pos += out;
    }
    while (out < max) {
        bool last;
        if (!s->has_current) {
            next got = next_block(s, &last, out == 0);
            if (got == NEXT_PARKED) return 0; /* called again once the connection is resumed */
            if (got != NEXT_BLOCK) break; /* LATER: these bytes first */
            start_section(s, last);
        }
        if (!copy_section(s, (uint8_t *)buf, max, &out)) break;
        if (s->section_pos < s->prefix_len + s->current.ref.len) { /* truncated here */
            note_cut(s, "truncate fault");
            return out ? (ssize_t)out : MHD_CONTENT_READER_END_WITH_ERROR;
        }
        release_item(s, &s->current);
        s->has_current = false;
    }
    if (out) {
        /* a slow answer's pause: its other faults were placed among the blocks */
        ipfsrt_server_body_faults(s->rq, 0, (uint8_t *)buf, out, UINT64_MAX, UINT64_MAX);
        ipfsrt_server_count_sent(s->rq, out);
        return (ssize_t)out;
    }
    pthread_mutex_lock(&s->lock); /* the walk may still run (the gateway stopping) */
    bool whole = s->done && s->status == IPFSRT_OK && !s->stopped;
    if (!whole) note_cut(s, s->done && s->status != IPFSRT_OK ? s->err.message : "the gateway is stopping");
    pthread_mutex_unlock(&s->lock);
    return whole ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

/* Waits until the walk is over or the queue is full, so that an answer that
 * fits in it (most do) and fails is answered with its error's status, never
 * a body cut short: false (and why) when it failed so. */
static bool started(ipfsrt_server_car_stream *s, ipfsrt_status *st, ipfsrt_error *err) {
    pthread_mutex_lock(&s->lock);
    while (!s->done && !s->full) pthread_cond_wait(&s->changed, &s->lock);
    bool failed = s->done && s->status != IPFSRT_OK;
    *st = s->status;
    if (failed && err) *err = s->err;
    pthread_mutex_unlock(&s->lock);
    return !failed;
}

static ipfsrt_status start(ipfsrt_server_car_stream *s, const ipfsrt_cid *root, ipfsrt_error *err) {
    ipfsrt_buf header;
    ipfsrt_buf_init(&header);
    ipfsrt_status st = s->bare ? IPFSRT_OK : ipfsrt_car_header_encode(root, 1, &header, err);
    if (st == IPFSRT_OK && (header.failed || header.len > sizeof s->header))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK && header.len) { /* a bare stream has none */
        memcpy(s->header, header.data, header.len);
        s->header_len = header.len;
    }
    ipfsrt_buf_free(&header);
    if (st != IPFSRT_OK) return st;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (ipfsrt_thread_start(&s->thread, run_walk, s) != 0) {
        pthread_cond_destroy(&s->changed);
        pthread_mutex_destroy(&s->lock);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "cannot start a thread for the walk");
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_server_car_stream_start(ipfsrt_server_request *rq, struct MHD_Connection *c, const ipfsrt_cid *root,
                                             ipfsrt_server_walk_fn walk, void *walk_user, void (*walk_free)(void *),
                                             struct MHD_Response **r, ipfsrt_error *err) {
    *r = NULL;
    ipfsrt_server_car_stream *s = calloc(1, sizeof *s);
    if (!s) {
        if (walk_free) walk_free(walk_user);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    *s = (ipfsrt_server_car_stream){.rq = rq, .gw = rq->gw, .walk = walk, .walk_user = walk_user,
                                   .walk_free = walk_free, .parks = rq->gw->has_upstream, .bare = !root};
    ipfsrt_status st = start(s, root, err);
    if (st != IPFSRT_OK) {
        if (walk_free) walk_free(walk_user);
        free(s);
        return st;
    }
    if (s->parks) ipfsrt_server_waiter_add(s->gw, &s->waiter, c); /* not parked yet: listed, so freed alike */
    if (!started(s, &st, err)) {
        car_stream_free(s);
        return st;
    }
    *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, car_stream_read, s, car_stream_free);
    if (*r) return IPFSRT_OK;
    car_stream_free(s);
    return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}
