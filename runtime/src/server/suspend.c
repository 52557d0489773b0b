/* In front of an upstream, what waits for blocks waits off libmicrohttpd's
 * event threads, its connection suspended: a request is answered on a worker
 * thread (ipfsrt_server_defer) and a body that runs ahead of its blocks parks
 * its connection until they come (waiters). A client that waits, or sends
 * slowly, holds no thread; only work under way does. Every suspended
 * connection is resumed before the daemon stops, as libmicrohttpd requires. */
#include <stdlib.h>

#include "base/base_internal.h"
#include "server/server_internal.h"

void ipfsrt_server_waiter_add(ipfsrt_server *gw, ipfsrt_server_waiter *w, struct MHD_Connection *c) {
    w->c = c;
    w->suspended = false;
    pthread_mutex_lock(&gw->wait_lock);
    w->prev = NULL;
    w->next = gw->waiters;
    if (gw->waiters) gw->waiters->prev = w;
    gw->waiters = w;
    pthread_mutex_unlock(&gw->wait_lock);
}

void ipfsrt_server_waiter_remove(ipfsrt_server *gw, ipfsrt_server_waiter *w) {
    pthread_mutex_lock(&gw->wait_lock);
    if (w->prev) w->prev->next = w->next;
    else if (gw->waiters == w) gw->waiters = w->next;
    if (w->next) w->next->prev = w->prev;
    w->prev = w->next = NULL;
    pthread_mutex_unlock(&gw->wait_lock);
}

bool ipfsrt_server_waiter_park(ipfsrt_server *gw, ipfsrt_server_waiter *w) {
    pthread_mutex_lock(&gw->wait_lock);
    bool parked = !gw->stopping;
    if (parked) {
        w->suspended = true;
        MHD_suspend_connection(w->c); /* under the lock: no wake can come between */
    }
    pthread_mutex_unlock(&gw->wait_lock);
    return parked;
}

void ipfsrt_server_waiter_wake(ipfsrt_server *gw, ipfsrt_server_waiter *w) {
    pthread_mutex_lock(&gw->wait_lock);
    bool was = w->suspended;
    w->suspended = false;
    pthread_mutex_unlock(&gw->wait_lock);
    if (was) MHD_resume_connection(w->c);
}

typedef struct task {
    ipfsrt_server *gw;
    void (*fn)(void *arg);
    void *arg;
} task;

static void jobs_end(ipfsrt_server *gw) {
    pthread_mutex_lock(&gw->wait_lock);
    if (--gw->jobs == 0) pthread_cond_broadcast(&gw->jobs_over);
    pthread_mutex_unlock(&gw->wait_lock);
}

static void run_task(void *arg) {
    task t = *(task *)arg;
    free(arg);
    t.fn(t.arg);
    jobs_end(t.gw);
}

bool ipfsrt_server_spawn(ipfsrt_server *gw, void (*fn)(void *arg), void *arg) {
    task *t = malloc(sizeof *t);
    if (!t) return false;
    *t = (task){gw, fn, arg};
    pthread_mutex_lock(&gw->wait_lock);
    bool started = !gw->stopping;
    if (started) gw->jobs++;
    pthread_mutex_unlock(&gw->wait_lock);
    if (started && ipfsrt_workers_run(run_task, t)) return true;
    if (started) jobs_end(gw);
    free(t);
    return false;
}

typedef struct job {
    ipfsrt_server_request *rq;
    struct MHD_Connection *c;
    ipfsrt_server_job_fn fn;
} job;

static void run_job(void *arg) {
    job *j = arg;
    j->rq->job_result = j->fn(j->rq, j->c);
    j->rq->job_done = true;
    MHD_resume_connection(j->c); /* the handler is called again, and sends what the job answered */
    free(j);
}

bool ipfsrt_server_defer(ipfsrt_server_request *rq, struct MHD_Connection *c, ipfsrt_server_job_fn fn) {
    job *j = malloc(sizeof *j);
    if (!j) return false;
    *j = (job){rq, c, fn};
    rq->in_job = true;
    MHD_suspend_connection(c); /* before the job can resume it */
    if (ipfsrt_server_spawn(rq->gw, run_job, j)) return true;
    rq->in_job = false; /* no thread to be had, or stopping: answered here */
    MHD_resume_connection(c);
    free(j);
    return false;
}

void ipfsrt_server_resume_all(ipfsrt_server *gw) {
    pthread_mutex_lock(&gw->wait_lock);
    gw->stopping = true;
    while (gw->jobs) pthread_cond_wait(&gw->jobs_over, &gw->wait_lock);
    ipfsrt_server_waiter *parked = NULL;
    for (ipfsrt_server_waiter *w = gw->waiters; w; w = w->next)
        if (w->suspended) {
            w->suspended = false;
            w->resume_next = parked;
            parked = w;
        }
    /* resumed outside the lock; their streams, seeing the gateway stop, end
     * (and only then leave the list, once libmicrohttpd frees them) */
    pthread_mutex_unlock(&gw->wait_lock);
    while (parked) {
        ipfsrt_server_waiter *w = parked;
        parked = w->resume_next; /* before: resumed, its stream may end and be freed */
        MHD_resume_connection(w->c);
    }
}
