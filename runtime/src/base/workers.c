/* The process's worker threads for CPU work (decoding chunks). Starting a
 * thread costs a stack mapping and its first page faults, most of a small
 * read's fixed cost in a fresh process; here a thread, once started, waits
 * for the next task instead of exiting, and threads can be started ahead of
 * the first read (while a dataset opens, waiting on the network anyway).
 * Every task gets a thread of its own at once: an idle one, else a new one.
 * The pool never makes a task wait for another to finish, so a task that
 * blocks (a decoder waiting for chunks) cannot hold up the one it waits on.
 * Idle threads are joined when the library is unloaded; a forked child starts
 * with none. */
#include <pthread.h>
#include <stdlib.h>

#include "base/base_internal.h"

#define IDLE_MAX 64 /* threads kept waiting; more end when their task does */

typedef struct worker {
    struct worker *next; /* in the idle list */
    pthread_t thread;
    pthread_cond_t wake;
    void (*fn)(void *arg); /* the task handed over; NULL: none yet */
    void *arg;
    bool stop;
} worker;

static struct {
    pthread_mutex_t lock;
    worker *idle;
    size_t idle_count;
    bool atfork_set;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Runs the task it was started with, then waits to be handed the next one. */
static void *work(void *arg) {
    worker *w = arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!w->fn && !w->stop) pthread_cond_wait(&w->wake, &pool.lock);
        if (w->stop) break;
        void (*fn)(void *) = w->fn;
        void *task = w->arg;
        pthread_mutex_unlock(&pool.lock);
        fn(task);
        pthread_mutex_lock(&pool.lock);
        w->fn = NULL;
        if (pool.idle_count >= IDLE_MAX) { /* enough wait already: this one ends, and nobody joins it */
            pthread_detach(w->thread);
            break;
        }
        w->next = pool.idle;
        pool.idle = w;
        pool.idle_count++;
    }
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_destroy(&w->wake);
    free(w);
    return NULL;
}

/* The child of a fork has none of the parent's threads: it forgets them. */
static void forget_threads(void) {
    pthread_mutex_init(&pool.lock, NULL);
    pool.idle = NULL; /* (their memory is the parent's copy: left alone) */
    pool.idle_count = 0;
}

static void lock_for_fork(void) { pthread_mutex_lock(&pool.lock); }
static void unlock_after_fork(void) { pthread_mutex_unlock(&pool.lock); }

/* A new thread running fn(arg) (NULL: started idle, into the idle list). Locked. */
static bool start_locked(void (*fn)(void *), void *arg) {
    if (!pool.atfork_set) pool.atfork_set = pthread_atfork(lock_for_fork, unlock_after_fork, forget_threads) == 0;
    worker *w = calloc(1, sizeof *w);
    if (!w) return false;
    pthread_cond_init(&w->wake, NULL);
    w->fn = fn;
    w->arg = arg;
    if (ipfsrt_thread_start(&w->thread, work, w) != 0) {
        pthread_cond_destroy(&w->wake);
        free(w);
        return false;
    }
    if (!fn) {
        w->next = pool.idle;
        pool.idle = w;
        pool.idle_count++;
    }
    return true;
}

bool ipfsrt_workers_run(void (*fn)(void *arg), void *arg) {
    pthread_mutex_lock(&pool.lock);
    worker *w = pool.idle;
    bool ok = true;
    if (w) {
        pool.idle = w->next;
        pool.idle_count--;
        w->fn = fn;
        w->arg = arg;
        pthread_cond_signal(&w->wake);
    } else {
        ok = start_locked(fn, arg);
    }
    pthread_mutex_unlock(&pool.lock);
    return ok;
}

void ipfsrt_workers_warm(unsigned n) {
    pthread_mutex_lock(&pool.lock);
    while (pool.idle_count < n && pool.idle_count < IDLE_MAX && start_locked(NULL, NULL)) {}
    pthread_mutex_unlock(&pool.lock);
}

/* The idle threads are stopped and waited for before the library's code goes
 * away (dlclose, or exit). Busy ones (a read under way at exit) are left. */
__attribute__((destructor)) static void stop_idle(void) {
    pthread_t stopping[IDLE_MAX];
    size_t n = 0;
    pthread_mutex_lock(&pool.lock);
    for (worker *w = pool.idle; w && n < IDLE_MAX; w = w->next) {
        w->stop = true;
        stopping[n++] = w->thread; /* w is freed by its thread once it sees stop */
        pthread_cond_signal(&w->wake);
    }
    pool.idle = NULL;
    pool.idle_count = 0;
    pthread_mutex_unlock(&pool.lock);
    for (size_t i = 0; i < n; i++) pthread_join(stopping[i], NULL);
}
