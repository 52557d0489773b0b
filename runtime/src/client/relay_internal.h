/* The client relay's parts: the driver and the callers' side (relay.c), the
 * wants (relay_wants.c: each CID asked for, by hash, while it is fetched and,
 * once done, kept for later callers, least recently used out past a byte
 * budget) and path prefetches (relay_prefetch.c: one CAR request for a path's
 * blocks). The relay's lock guards all of it. Not public. */
#ifndef IPFSRT_RELAY_INTERNAL_H
#define IPFSRT_RELAY_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>

#include "client/client_internal.h"

typedef enum want_state { WANT_QUEUED, WANT_FETCHING, WANT_DONE, WANT_FAILED } want_state;

/* A caller waiting for a want or a prefetch to settle, on its own stack. It is
 * woken after the relay's lock is let go (ipfsrt_relay_unlock): woken under the
 * lock, it would at once wait again, for the lock. */
typedef struct relay_waiter {
    sem_t woken;
    struct relay_waiter *next;
} relay_waiter;

typedef struct want {
    ipfsrt_cid cid;
    want_state state;
    unsigned waiters;
    block_job *job;        /* the driver's, while fetching */
    ipfsrt_rcblock *block; /* done: a reference the want holds */
    ipfsrt_error error;    /* failed */
    relay_waiter *waiting;  /* woken when it settles */
    uint64_t hash;
    struct want *hnext;    /* the bucket's chain */
    struct want *active_next; /* queued or fetching: the driver's list */
    struct want *lru_prev, *lru_next; /* done and nobody waiting: kept */
    bool kept;
} want;

typedef struct want_table {
    want **buckets;
    size_t nbuckets, count;
    want *active;
    want *lru_head, *lru_tail;
    uint64_t kept_bytes, budget;
} want_table;

void ipfsrt_wants_init(want_table *t, uint64_t budget);
/* Frees every want (jobs must have ended) and the blocks they hold. */
void ipfsrt_wants_free(want_table *t);
want *ipfsrt_wants_find(want_table *t, const ipfsrt_cid *cid);
/* A new queued want, at the front of the active list; NULL when out of memory. */
want *ipfsrt_wants_add(want_table *t, const ipfsrt_cid *cid);
/* Its last waiter has gone: a done want is kept (the oldest kept ones go past
 * the budget), a failed one is freed (the next caller asks again). */
void ipfsrt_wants_left(want_table *t, want *w);
/* A caller took a kept want's block: it becomes the most recently used. */
void ipfsrt_wants_touch(want_table *t, want *w);
/* A block that came without being wanted (a prefetch's): kept like a done
 * want's, unless a want for it is there already (its job finds it cached). */
void ipfsrt_wants_keep(want_table *t, ipfsrt_rcblock *block);

/* One path's blocks asked for in one CAR request, for the callers waiting on it. */
typedef struct path_prefetch {
    prefetch pf;
    char key[2048 + 256]; /* path and query: what makes two prefetches one */
    ipfsrt_unixfs_scope scope;
    uint64_t offset, length;
    bool started, settled;
    relay_waiter *waiting;
    unsigned waiters;
    struct ipfsrt_client_relay *relay;
    struct path_prefetch *next;
} path_prefetch;

struct ipfsrt_client_relay {
    ipfsrt_client *c;
    pthread_mutex_t lock;
    want_table wants;
    path_prefetch *prefetches;
    relay_waiter *to_wake; /* of what settled under the lock held now */
    bool stopping;
    bool running; /* in ipfsrt_client_relay_run: only then is the client touched */
    uint64_t jobs, coalesced, prefetched;
    double round_trip; /* the driver's copy of the fastest gateway's, for callers */
};

/* Under the lock: waiting becomes to be woken as the lock is let go. */
void ipfsrt_relay_wake_later(struct ipfsrt_client_relay *r, relay_waiter **waiting);
/* Lets the lock go, then wakes those settled meanwhile. */
void ipfsrt_relay_unlock(struct ipfsrt_client_relay *r);
/* Under the lock: waits on it (let go meanwhile) until woken. */
void ipfsrt_relay_wait(struct ipfsrt_client_relay *r, relay_waiter **waiting);

/* The driver's side, under the lock: starts the prefetches asked for; settles
 * those over (or, with stopping, all); returns how many are in flight. */
void ipfsrt_relay_start_prefetches(struct ipfsrt_client_relay *r);
size_t ipfsrt_relay_settle_prefetches(struct ipfsrt_client_relay *r, bool stopping);

#endif
