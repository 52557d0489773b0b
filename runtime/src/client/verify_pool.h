/* Hashing on worker threads (verify_pool.c): the thread driving the transfers
 * hands finished block bodies over and goes on receiving while other cores
 * check them. Not part of the public API. */
#ifndef IPFSRT_VERIFY_POOL_H
#define IPFSRT_VERIFY_POOL_H

#include "store/blockcache.h"

typedef struct ipfsrt_vjob {
    struct ipfsrt_rcblock *block; /* the bytes to check against block->cid; the job owns
                                     this reference until it is taken back */
    uint64_t stream_offset; /* where the block was in its response, for messages */
    ipfsrt_status status;
    char message[400];
    void *user;
    bool canceled; /* the owner is gone: drop the result (set under the pool's lock; read by the
                      taker after take_done, which took that lock after the last write) */
    struct ipfsrt_vjob *next;    /* in the pool's lists, or the list take_done returns */
    /* the owner's own list of its jobs under way: doubly linked, so a job
     * taken back leaves it in O(1) however many a CAR of tiny blocks made */
    struct ipfsrt_vjob *sibling;
    struct ipfsrt_vjob **sibling_prev;
} ipfsrt_vjob;

typedef struct ipfsrt_vpool ipfsrt_vpool;

/* wake(user) is called from a worker thread after a job finished. backend:
 * what the workers hash with (NULL: the process's). */
ipfsrt_status ipfsrt_vpool_new(ipfsrt_vpool **pool, unsigned threads, const ipfsrt_hash_backend *backend,
                                void (*wake)(void *user), void *user, ipfsrt_error *err);
void ipfsrt_vpool_submit(ipfsrt_vpool *pool, ipfsrt_vjob *job);
/* Abandons a submitted job: marked canceled, it still comes back through
 * take_done (unhashed if no worker had started it), where its taker frees it. */
void ipfsrt_vpool_cancel(ipfsrt_vpool *pool, ipfsrt_vjob *job);
/* Finished jobs, oldest first, canceled ones among them (job->canceled: the
 * taker frees them unread); NULL when none. */
ipfsrt_vjob *ipfsrt_vpool_take_done(ipfsrt_vpool *pool);
void ipfsrt_vjob_free(ipfsrt_vjob *job);
/* Waits for the jobs under way, then stops the threads. */
void ipfsrt_vpool_free(ipfsrt_vpool *pool);

#endif
