/* The delay fault without holding a worker thread: a delayed request's
 * connection is suspended and resumed by this one waker thread when its time
 * comes, so many delayed requests wait side by side, as on a slow network. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "server/server_internal.h"

typedef struct waiting {
    double at; /* ipfsrt_clock() time to resume */
    struct MHD_Connection *c;
} waiting;

struct ipfsrt_server_waker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on the realtime clock: timedwait takes wall time */
    waiting *items;
    size_t count, cap;
    bool stop;
};

/* Resumes what is due; returns seconds to the next one (negative: none). */
static double resume_due(ipfsrt_server_waker *w) {
    double now = ipfsrt_clock(), next = -1;
    for (size_t i = 0; i < w->count;) {
        if (w->items[i].at <= now || w->stop) {
            MHD_resume_connection(w->items[i].c);
            w->items[i] = w->items[--w->count];
            continue;
        }
        double left = w->items[i].at - now;
        if (next < 0 || left < next) next = left;
        i++;
    }
    return next;
}

static void *run(void *arg) {
    ipfsrt_server_waker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        double next = resume_due(w);
        if (w->stop) break;
        if (next < 0) {
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)((next - (double)(long)next) * 1e9);
        until.tv_sec += (time_t)next + ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&w->cond, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

ipfsrt_status ipfsrt_server_waker_new(ipfsrt_server_waker **out, ipfsrt_error *err) {
    *out = NULL;
    ipfsrt_server_waker *w = calloc(1, sizeof *w);
    if (!w) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    if (ipfsrt_thread_start(&w->thread, run, w) != 0) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot start the delay thread");
    }
    *out = w;
    return IPFSRT_OK;
}

bool ipfsrt_server_waker_add(ipfsrt_server_waker *w, struct MHD_Connection *c, double seconds) {
    pthread_mutex_lock(&w->lock);
    bool ok = !w->stop &&
              ipfsrt_array_reserve(&w->items, &w->cap, w->count + 1, sizeof *w->items) == IPFSRT_OK;
    if (ok) {
        w->items[w->count++] = (waiting){ipfsrt_clock() + seconds, c};
        pthread_cond_signal(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return ok;
}

void ipfsrt_server_waker_free(ipfsrt_server_waker *w) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stop = true; /* what still waits is resumed at once */
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w->items);
    free(w);
}
