/* The relay's wants (relay_wants.c): each CID asked for, by hash, while it is
 * fetched and, once done, kept for later callers (least recently used out past
 * a byte budget). Not thread-safe: the relay's lock guards it. Not public. */
#ifndef IPFSRT_RELAY_WANTS_H
#define IPFSRT_RELAY_WANTS_H

#include "client/client_internal.h"

typedef enum want_state { WANT_QUEUED, WANT_FETCHING, WANT_DONE, WANT_FAILED } want_state;

typedef struct want {
    ipfsrt_cid cid;
    want_state state;
    unsigned waiters;
    block_job *job;        /* the driver's, while fetching */
    ipfsrt_rcblock *block; /* done: a reference the want holds */
    ipfsrt_error error;    /* failed */
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

#endif
