/* Lanes shared among the process's worker threads: independent lanes (a
 * median's, a quantile's) cut into parts of whole lanes, one part on the
 * calling thread and the others on workers, each writing only its own lanes'
 * results, so the result is the same on any number of threads. */
#include <pthread.h>
#include <stdlib.h>

#include "base/base_internal.h"
#include "ndarray/ndarray_internal.h"

/* Lanes below this many values in all are done on the calling thread. */
#define PARALLEL_VALUES_MIN ((size_t)1 << 18)

typedef struct lanes_job {
    ipfsrt_ndlanes_fn fn;
    void *user;
    size_t lanes, parts;
    pthread_mutex_t mu;
    pthread_cond_t done;
    size_t finished;
    ipfsrt_status st;
    ipfsrt_error error;
} lanes_job;

typedef struct lanes_part {
    lanes_job *job;
    size_t first, last;
} lanes_part;

static void run_part(void *arg) {
    lanes_part *p = arg;
    lanes_job *j = p->job;
    ipfsrt_error err;
    ipfsrt_status st = j->fn(j->user, p->first, p->last, &err);
    pthread_mutex_lock(&j->mu);
    if (st != IPFSRT_OK && j->st == IPFSRT_OK) j->st = st, j->error = err;
    j->finished++;
    pthread_cond_signal(&j->done);
    pthread_mutex_unlock(&j->mu);
}

ipfsrt_status ipfsrt_ndlanes_run(size_t lanes, size_t lane_len, ipfsrt_ndlanes_fn fn, void *user, ipfsrt_error *err) {
    size_t parts = ipfsrt_threads();
    if (parts > 64) parts = 64;
    if (parts > lanes) parts = lanes;
    if (parts < 2 || lanes * (lane_len ? lane_len : 1) < PARALLEL_VALUES_MIN) return fn(user, 0, lanes, err);
    lanes_job j = {fn, user, lanes, parts, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, IPFSRT_OK, {0}};
    lanes_part part[64];
    size_t started = 1;
    for (size_t i = 0; i < parts; i++) part[i] = (lanes_part){&j, lanes * i / parts, lanes * (i + 1) / parts};
    for (size_t i = 1; i < parts; i++) {
        if (!ipfsrt_workers_run(run_part, &part[i])) break; /* no thread: the rest done here */
        started++;
    }
    run_part(&part[0]);
    for (size_t i = started; i < parts; i++) run_part(&part[i]);
    pthread_mutex_lock(&j.mu);
    while (j.finished < parts) pthread_cond_wait(&j.done, &j.mu);
    pthread_mutex_unlock(&j.mu);
    pthread_mutex_destroy(&j.mu);
    pthread_cond_destroy(&j.done);
    if (j.st != IPFSRT_OK && err) *err = j.error;
    return j.st;
}
