/* A file writer that hands full buffers to a thread of its own, so that the
 * kernel's cost of taking the bytes (page-cache allocation and copying, about as
 * much CPU time as SHA-256 on this hardware) runs beside the hashing instead of
 * after it. It can move on to another file without waiting for the last one to
 * reach the disk. Memory is bounded: BUFFERS buffers of BUFFER_SIZE bytes. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base_internal.h"

#define BUFFER_SIZE (4u << 20)
#define BUFFERS 4

typedef struct slot {
    uint8_t *buf;
    size_t len;
    int fd;
    char *path;  /* the file's name, the slot's own copy: an error names it */
    bool closes; /* a file's last slot: close fd */
} slot;

struct ipfsrt_async_writer {
    int fd;            /* the file being filled */
    char *path;
    slot slots[BUFFERS];
    size_t fill;            /* slot being filled by the caller */
    size_t head, queued;    /* ring of slots waiting for the thread */
    int error;              /* errno of the first failure, 0 if none */
    char *error_path;
    bool stop;
    pthread_t thread;
    bool running;
    pthread_mutex_t lock;
    pthread_cond_t changed;
};

static int write_all_fd(int fd, const uint8_t *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void *run(void *arg) {
    ipfsrt_async_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->queued == 0 && !w->stop) pthread_cond_wait(&w->changed, &w->lock);
        if (w->queued == 0) break;
        slot *s = &w->slots[w->head];
        bool failed_before = w->error != 0;
        pthread_mutex_unlock(&w->lock);
        int e = failed_before ? 0 : write_all_fd(s->fd, s->buf, s->len);
        if (s->closes && close(s->fd) != 0 && !e && !failed_before) e = errno;
        pthread_mutex_lock(&w->lock);
        if (e && !w->error) {
            w->error = e;
            w->error_path = s->path;
            s->path = NULL;
        }
        free(s->path);
        s->path = NULL;
        w->head = (w->head + 1) % BUFFERS;
        w->queued--;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

ipfsrt_status ipfsrt_async_writer_new(ipfsrt_async_writer **out, int fd, const char *path, ipfsrt_error *err) {
    *out = NULL;
    ipfsrt_async_writer *w = calloc(1, sizeof *w);
    if (!w) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    w->fd = fd;
    w->path = strdup(path);
    bool ok = w->path != NULL;
    for (int i = 0; ok && i < BUFFERS; i++) ok = (w->slots[i].buf = malloc(BUFFER_SIZE)) != NULL;
    if (ok) {
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->changed, NULL);
        ok = ipfsrt_thread_start(&w->thread, run, w) == 0;
        w->running = ok;
        if (!ok) {
            pthread_mutex_destroy(&w->lock);
            pthread_cond_destroy(&w->changed);
        }
    }
    if (!ok) {
        for (int i = 0; i < BUFFERS; i++) free(w->slots[i].buf);
        free(w->path);
        free(w);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "cannot start a writer thread for %s", path);
    }
    *out = w;
    return IPFSRT_OK;
}

/* Called after w->error was seen under the lock: error and error_path are set
 * once, together, and never change after. */
static ipfsrt_status failed(ipfsrt_async_writer *w, ipfsrt_error *err) {
    return ipfsrt_fail(err, IPFSRT_EIO, -1, "write error on %s: %s", w->error_path ? w->error_path : "a file",
                       strerror(w->error));
}

/* Queues the slot being filled (tagged with the current file and its name),
 * waiting while every other slot is queued; closes hands the file over to be
 * closed. */
static ipfsrt_status submit(ipfsrt_async_writer *w, bool closes, ipfsrt_error *err) {
    slot *s = &w->slots[w->fill];
    if (s->len == 0 && !closes) return IPFSRT_OK;
    s->fd = w->fd;
    s->closes = closes;
    s->path = strdup(w->path);
    if (!s->path) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    pthread_mutex_lock(&w->lock);
    while (w->queued == BUFFERS - 1) pthread_cond_wait(&w->changed, &w->lock);
    w->queued++;
    pthread_cond_broadcast(&w->changed);
    int e = w->error;
    pthread_mutex_unlock(&w->lock);
    w->fill = (w->fill + 1) % BUFFERS;
    w->slots[w->fill].len = 0;
    return e ? failed(w, err) : IPFSRT_OK;
}

ipfsrt_status ipfsrt_async_writer_write(ipfsrt_async_writer *w, const void *data, size_t len,
                              ipfsrt_error *err) {
    const uint8_t *p = data;
    while (len) {
        slot *s = &w->slots[w->fill];
        size_t room = BUFFER_SIZE - s->len;
        size_t take = len < room ? len : room;
        memcpy(s->buf + s->len, p, take);
        s->len += take;
        p += take;
        len -= take;
        if (s->len == BUFFER_SIZE) {
            ipfsrt_status st = submit(w, false, err);
            if (st != IPFSRT_OK) return st;
        }
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_async_writer_next_file(ipfsrt_async_writer *w, int fd, const char *path,
                                  ipfsrt_error *err) {
    char *next = strdup(path);
    if (!next) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = submit(w, true, err); /* the thread closes the file */
    free(w->path);
    w->fd = fd;
    w->path = next;
    return st;
}

ipfsrt_status ipfsrt_async_writer_flush(ipfsrt_async_writer *w, ipfsrt_error *err) {
    ipfsrt_status st = submit(w, false, err);
    pthread_mutex_lock(&w->lock);
    while (w->queued) pthread_cond_wait(&w->changed, &w->lock);
    int e = w->error;
    pthread_mutex_unlock(&w->lock);
    if (st == IPFSRT_OK && e) st = failed(w, err);
    return st;
}

void ipfsrt_async_writer_free(ipfsrt_async_writer *w) {
    if (!w) return;
    if (w->running) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->changed);
    }
    for (int i = 0; i < BUFFERS; i++) {
        free(w->slots[i].buf);
        free(w->slots[i].path);
    }
    free(w->path);
    free(w->error_path);
    free(w);
}
