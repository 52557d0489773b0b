/* A request's head is given so many seconds in all. libmicrohttpd's timeout
 * is one of idleness, which every byte resets: a client sending a byte every
 * 20 s kept its connection (and, in front of an upstream, its thread) for as
 * long as it liked, and 1,100 of them locked everyone out. Each connection is
 * timed from its start, and from the end of each request it carries, to the
 * end of the next head; one past its time is shut down (its socket, which
 * libmicrohttpd then sees end and closes). */
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "base/base_internal.h"
#include "server/server_internal.h"

typedef struct watched {
    int fd;
    double since;   /* when its head began, or 0 while a request is under way */
    struct watched *prev, *next;
} watched;

struct ipfsrt_server_watch {
    double seconds;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool stopping;
    watched *list;
};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Four times a second: enough for a deadline of seconds, cheap for thousands. */
static void *sweep(void *arg) {
    ipfsrt_server_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        double now = now_s();
        for (watched *e = w->list; e; e = e->next)
            if (e->since > 0 && now - e->since > w->seconds) {
                shutdown(e->fd, SHUT_RDWR);
                e->since = 0;
            }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

ipfsrt_status ipfsrt_server_watch_new(ipfsrt_server_watch **out, double seconds, ipfsrt_error *err) {
    ipfsrt_server_watch *w = calloc(1, sizeof *w);
    if (!w) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    w->seconds = seconds;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (ipfsrt_thread_start(&w->thread, sweep, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "cannot start a thread to time requests' heads");
    }
    *out = w;
    return IPFSRT_OK;
}

void ipfsrt_server_watch_free(ipfsrt_server_watch *w) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    for (watched *e = w->list, *next; e; e = next) {
        next = e->next;
        free(e);
    }
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* libmicrohttpd's connection notices: the connection joins the list when it
 * starts and leaves it before its socket is closed (so that the sweep never
 * shuts a number that another connection has since been given). */
void ipfsrt_server_watch_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                                enum MHD_ConnectionNotificationCode toe) {
    ipfsrt_server_watch *w = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        watched *e = info ? calloc(1, sizeof *e) : NULL;
        if (!e) return; /* untimed, as before: no reason to refuse the client */
        e->fd = info->connect_fd;
        e->since = now_s();
        pthread_mutex_lock(&w->lock);
        e->next = w->list;
        if (w->list) w->list->prev = e;
        w->list = e;
        pthread_mutex_unlock(&w->lock);
        *socket_context = e;
        return;
    }
    watched *e = *socket_context;
    if (!e) return;
    pthread_mutex_lock(&w->lock);
    if (e->prev) e->prev->next = e->next;
    else w->list = e->next;
    if (e->next) e->next->prev = e->prev;
    pthread_mutex_unlock(&w->lock);
    free(e);
    *socket_context = NULL;
}

/* A request's head has come whole (head true), or a request is over and the
 * next head is timed from now (head false). */
void ipfsrt_server_watch_mark(ipfsrt_server_watch *w, struct MHD_Connection *c, bool head) {
    if (!w) return;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    watched *e = info ? info->socket_context : NULL;
    if (!e) return;
    pthread_mutex_lock(&w->lock);
    e->since = head ? 0 : now_s();
    pthread_mutex_unlock(&w->lock);
}
