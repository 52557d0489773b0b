/* The relay's wants: a hash table of CIDs, the list of those the driver works
 * on, and the done ones kept in least-recently-used order. */
#include <stdlib.h>

#include "client/relay_internal.h"

/* FNV-1a over the CID's bytes: digests are random, codecs and lengths vary. */
static uint64_t cid_hash(const ipfsrt_cid *cid) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < cid->len; i++) h = (h ^ cid->bytes[i]) * 1099511628211ull;
    return h;
}

void ipfsrt_wants_init(want_table *t, uint64_t budget) {
    *t = (want_table){.budget = budget};
}

static void unchain(want_table *t, want *w) {
    for (want **p = &t->buckets[w->hash & (t->nbuckets - 1)]; *p; p = &(*p)->hnext)
        if (*p == w) {
            *p = w->hnext;
            t->count--;
            return;
        }
}

static void drop(want_table *t, want *w) {
    unchain(t, w);
    ipfsrt_rcblock_unref(w->block);
    free(w);
}

void ipfsrt_wants_free(want_table *t) {
    for (size_t b = 0; b < t->nbuckets; b++)
        for (want *w = t->buckets[b], *next; w; w = next) {
            next = w->hnext;
            ipfsrt_rcblock_unref(w->block);
            free(w);
        }
    free(t->buckets);
    *t = (want_table){0};
}

want *ipfsrt_wants_find(want_table *t, const ipfsrt_cid *cid) {
    if (!t->nbuckets) return NULL;
    uint64_t h = cid_hash(cid);
    for (want *w = t->buckets[h & (t->nbuckets - 1)]; w; w = w->hnext)
        if (w->hash == h && ipfsrt_cid_equal(&w->cid, cid)) return w;
    return NULL;
}

/* Twice the buckets once there are twice as many wants: chains stay short. */
static bool grow(want_table *t) {
    if (t->nbuckets && t->count < 2 * t->nbuckets) return true;
    size_t n = t->nbuckets ? 2 * t->nbuckets : 256;
    want **buckets = calloc(n, sizeof *buckets);
    if (!buckets) return false;
    for (size_t b = 0; b < t->nbuckets; b++)
        for (want *w = t->buckets[b], *next; w; w = next) {
            next = w->hnext;
            w->hnext = buckets[w->hash & (n - 1)];
            buckets[w->hash & (n - 1)] = w;
        }
    free(t->buckets);
    t->buckets = buckets;
    t->nbuckets = n;
    return true;
}

want *ipfsrt_wants_add(want_table *t, const ipfsrt_cid *cid) {
    want *w = grow(t) ? calloc(1, sizeof *w) : NULL;
    if (!w) return NULL;
    w->cid = *cid;
    w->hash = cid_hash(cid);
    w->hnext = t->buckets[w->hash & (t->nbuckets - 1)];
    t->buckets[w->hash & (t->nbuckets - 1)] = w;
    t->count++;
    w->active_next = t->active;
    t->active = w;
    return w;
}

static void lru_unlink(want_table *t, want *w) {
    if (w->lru_prev) w->lru_prev->lru_next = w->lru_next;
    else t->lru_head = w->lru_next;
    if (w->lru_next) w->lru_next->lru_prev = w->lru_prev;
    else t->lru_tail = w->lru_prev;
    w->lru_prev = w->lru_next = NULL;
}

static void lru_push_front(want_table *t, want *w) {
    w->lru_prev = NULL;
    w->lru_next = t->lru_head;
    if (t->lru_head) t->lru_head->lru_prev = w;
    else t->lru_tail = w;
    t->lru_head = w;
}

void ipfsrt_wants_left(want_table *t, want *w) {
    if (w->state != WANT_DONE) {
        drop(t, w);
        return;
    }
    w->kept = true;
    t->kept_bytes += w->block->len;
    lru_push_front(t, w);
    while (t->kept_bytes > t->budget && t->lru_tail) {
        want *old = t->lru_tail;
        lru_unlink(t, old);
        t->kept_bytes -= old->block->len;
        drop(t, old);
    }
}

void ipfsrt_wants_touch(want_table *t, want *w) {
    if (!w->kept || t->lru_head == w) return;
    lru_unlink(t, w);
    lru_push_front(t, w);
}

void ipfsrt_wants_keep(want_table *t, ipfsrt_rcblock *block) {
    if (ipfsrt_wants_find(t, &block->cid)) return;
    want *w = ipfsrt_wants_add(t, &block->cid);
    if (!w) return; /* kept is an optimisation: the walk asks again */
    t->active = w->active_next; /* done already: not the driver's */
    w->active_next = NULL;
    ipfsrt_rcblock_ref(block);
    w->block = block;
    w->state = WANT_DONE;
    ipfsrt_wants_left(t, w);
}
