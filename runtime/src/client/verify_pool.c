/* Worker threads that hash block bodies against their CIDs. Jobs go in through
 * one queue and come back through another, every one of them (canceled ones
 * too); the owner polls for finished jobs from its own loop, woken by the
 * callback it gave. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/verify_pool.h"
#include "multiformats/multiformats_internal.h"

typedef struct job_list {
    ipfsrt_vjob *head, *tail;
} job_list;

struct ipfsrt_vpool {
    pthread_mutex_t lock;
    pthread_cond_t work;
    job_list todo, done;
    bool stopping;
    pthread_t *threads;
    unsigned thread_count;
    void (*wake)(void *user);
    void *wake_user;
    const ipfsrt_hash_backend *backend;
};

static void push(job_list *l, ipfsrt_vjob *j) {
    j->next = NULL;
    if (l->tail) l->tail->next = j;
    else l->head = j;
    l->tail = j;
}

static ipfsrt_vjob *pop(job_list *l) {
    ipfsrt_vjob *j = l->head;
    if (j) {
        l->head = j->next;
        if (!l->head) l->tail = NULL;
        j->next = NULL;
    }
    return j;
}

void ipfsrt_vjob_free(ipfsrt_vjob *job) {
    if (!job) return;
    ipfsrt_rcblock_unref(job->block);
    free(job);
}

static void *worker(void *arg) {
    ipfsrt_vpool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        ipfsrt_vjob *j = pop(&p->todo);
        if (!j) {
            if (p->stopping) break;
            pthread_cond_wait(&p->work, &p->lock);
            continue;
        }
        if (!j->canceled) { /* a canceled one goes back unhashed: its owner counts every job back */
            pthread_mutex_unlock(&p->lock);
            ipfsrt_error err;
            j->status = ipfsrt_cid_verify_with(&j->block->cid, j->block->data, j->block->len, p->backend, &err);
            if (j->status != IPFSRT_OK) snprintf(j->message, sizeof j->message, "%.390s", err.message);
            pthread_mutex_lock(&p->lock);
        }
        bool first = !p->done.head; /* the owner drains all at once: one wake-up is enough */
        push(&p->done, j);
        pthread_mutex_unlock(&p->lock);
        if (first) p->wake(p->wake_user);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

ipfsrt_status ipfsrt_vpool_new(ipfsrt_vpool **out, unsigned threads, const ipfsrt_hash_backend *backend,
                                void (*wake)(void *user), void *user, ipfsrt_error *err) {
    ipfsrt_vpool *p = calloc(1, sizeof *p);
    if (!p) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (threads == 0) threads = 1;
    p->threads = calloc(threads, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    p->wake = wake;
    p->wake_user = user;
    p->backend = backend;
    for (unsigned i = 0; i < threads; i++) {
        if (ipfsrt_thread_start(&p->threads[i], worker, p) != 0) break;
        p->thread_count++;
    }
    if (!p->thread_count) {
        ipfsrt_vpool_free(p);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "cannot start a hashing thread");
    }
    *out = p;
    return IPFSRT_OK;
}

void ipfsrt_vpool_submit(ipfsrt_vpool *p, ipfsrt_vjob *job) {
    pthread_mutex_lock(&p->lock);
    job->canceled = false;
    push(&p->todo, job);
    pthread_mutex_unlock(&p->lock);
    /* after unlocking: a worker woken under the lock would only wait for it */
    pthread_cond_signal(&p->work);
}

/* Only marked: a job's place in the lists is not known without a walk, which
 * per job would cost an answer of N tiny blocks N^2. It comes back through
 * take_done all the same (unhashed when no worker had it yet). */
void ipfsrt_vpool_cancel(ipfsrt_vpool *p, ipfsrt_vjob *job) {
    pthread_mutex_lock(&p->lock);
    job->canceled = true;
    pthread_mutex_unlock(&p->lock);
}

ipfsrt_vjob *ipfsrt_vpool_take_done(ipfsrt_vpool *p) {
    pthread_mutex_lock(&p->lock);
    ipfsrt_vjob *list = p->done.head;
    p->done.head = p->done.tail = NULL;
    pthread_mutex_unlock(&p->lock);
    return list;
}

void ipfsrt_vpool_free(ipfsrt_vpool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->thread_count; i++) pthread_join(p->threads[i], NULL);
    ipfsrt_vjob *j;
    while ((j = pop(&p->todo))) ipfsrt_vjob_free(j);
    while ((j = pop(&p->done))) ipfsrt_vjob_free(j);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    free(p->threads);
    free(p);
}
