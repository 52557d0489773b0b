/* Helpers shared by the C modules of every layer; not part of the public API. */
#ifndef IPFSRT_BASE_INTERNAL_H
#define IPFSRT_BASE_INTERNAL_H

#include <stddef.h>

#include "ipfsrt/error.h"
#include "ipfsrt/buf.h"

/* Marks what the core exports for its modules alone (libipfsrt-server, -s3,
 * -netcdf, -lua: version node IPFSRT_PRIVATE_N). No public header declares
 * it; it may change in any release, so only modules built from the same tree
 * call it. */
#if defined(__GNUC__)
#define IPFSRT_PRIVATE __attribute__((visibility("default")))
#else
#define IPFSRT_PRIVATE
#endif

/* A public entry point's check of what a host must pass (ipfsrt.h: a NULL
 * where its declaration does not allow one is answered, never followed):
 * functions returning a status fail with IPFSRT_EBAD_ARGUMENT naming the
 * function and the argument, others return value (nothing, 0, NULL). */
#define IPFSRT_NEED(arg, err)                                                                                   \
    do {                                                                                                        \
        if (!(arg)) return ipfsrt_fail((err), IPFSRT_EBAD_ARGUMENT, -1, "%s: %s is NULL", __func__, #arg);    \
    } while (0)
/* The same for an array of count items: NULL only when count is 0. */
#define IPFSRT_NEED_N(arg, count, err)                                                                          \
    do {                                                                                                        \
        if (!(arg) && (count) > 0)                                                                              \
            return ipfsrt_fail((err), IPFSRT_EBAD_ARGUMENT, -1, "%s: %s is NULL", __func__, #arg);            \
    } while (0)
#define IPFSRT_NEED_OR(arg, value)                                                                              \
    do {                                                                                                        \
        if (!(arg)) return value;                                                                               \
    } while (0)

/* Multihash-keyed table: multihash bytes -> (offset, length). Keys are copied. */
typedef struct ipfsrt_mhmap_entry {
    uint8_t *key;
    uint32_t key_len;
    uint32_t len;
    uint64_t offset;
    uint64_t hash;
} ipfsrt_mhmap_entry;

typedef struct ipfsrt_mhmap {
    ipfsrt_mhmap_entry *slots;
    size_t cap;   /* power of two */
    size_t count;
} ipfsrt_mhmap;

IPFSRT_PRIVATE void ipfsrt_mhmap_init(ipfsrt_mhmap *m);
IPFSRT_PRIVATE void ipfsrt_mhmap_free(ipfsrt_mhmap *m);
/* Returns IPFSRT_OK and sets *inserted=false when the key was already there. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_mhmap_put(ipfsrt_mhmap *m, const uint8_t *key, size_t key_len,
                               uint64_t offset, uint32_t len, bool *inserted);
/* The entry for key, added (offset and len 0) when absent: the caller may set
 * its offset and len. *inserted says which. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_mhmap_slot(ipfsrt_mhmap *m, const uint8_t *key, size_t key_len,
                                ipfsrt_mhmap_entry **entry, bool *inserted);
IPFSRT_PRIVATE const ipfsrt_mhmap_entry *ipfsrt_mhmap_get(const ipfsrt_mhmap *m, const uint8_t *key,
                                           size_t key_len);

/* Writes to a file descriptor from a thread of its own (async_write.c). Bytes
 * reach the file in order; errors surface on a later write or on flush. */
typedef struct ipfsrt_async_writer ipfsrt_async_writer;
ipfsrt_status ipfsrt_async_writer_new(ipfsrt_async_writer **w, int fd, const char *path, ipfsrt_error *err);
ipfsrt_status ipfsrt_async_writer_write(ipfsrt_async_writer *w, const void *data, size_t len,
                              ipfsrt_error *err);
/* Goes on with another file; the writer closes the previous one once its bytes
 * are out. The caller keeps closing the last fd itself. */
ipfsrt_status ipfsrt_async_writer_next_file(ipfsrt_async_writer *w, int fd, const char *path,
                                  ipfsrt_error *err);
/* Returns once everything written so far is in the file. */
ipfsrt_status ipfsrt_async_writer_flush(ipfsrt_async_writer *w, ipfsrt_error *err);
/* Stops the thread; unflushed bytes are written first. Does not close the fd. */
void ipfsrt_async_writer_free(ipfsrt_async_writer *w);


/* pthread_create with every signal blocked in the new thread (threads.c):
 * the library's threads take no signals, which stay with the host's threads
 * (a host that sigwaits for SIGTERM would otherwise be killed by it landing
 * on one of ours). */
#include <pthread.h>
IPFSRT_PRIVATE int ipfsrt_thread_start(pthread_t *thread, void *(*fn)(void *arg), void *arg);

/* The process's worker threads (workers.c). Runs fn(arg) on a thread of its
 * own at once (an idle one, else a new one): tasks never wait for each other.
 * false: no thread could be started. */
IPFSRT_PRIVATE bool ipfsrt_workers_run(void (*fn)(void *arg), void *arg);
/* Starts threads until n (at most 64) wait idle: ahead of work, so that its
 * first task does not pay for starting them. */
void ipfsrt_workers_warm(unsigned n);

/* Makes room for need items of elem_size bytes in the array that items_ptr (a
 * T **) points to, doubling its capacity *cap (counted in items). On failure
 * (IPFSRT_EOUT_OF_MEMORY) the array is left as it was. Bytes go in an ipfsrt_buf. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_array_reserve(void *items_ptr, size_t *cap, size_t need, size_t elem_size);

/* Little-endian integers (CARv2 headers, the HAMT hash). */
static inline uint64_t ipfsrt_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint32_t ipfsrt_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void ipfsrt_put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ipfsrt_put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Appends s percent-encoded (RFC 3986: every byte but the unreserved ones as
 * %XX), '/' kept between segments when keep_slash. False when out of memory. */
IPFSRT_PRIVATE bool ipfsrt_url_escape(ipfsrt_buf *out, const char *s, bool keep_slash);
/* A URL as messages show it: a password in it (user:password@host) as ***.
 * Newly allocated (the caller frees it); NULL out of memory. */
char *ipfsrt_url_redact(const char *url);

/* Takes a caller's options (a struct whose first field is its size) over
 * mine, which holds this build's defaults (mine's size field stays mine):
 * the fields the caller's struct has are copied; a larger struct (a newer
 * header's) only when the fields past mine are all zero. init_name names the
 * caller's _init for the message when theirs has no size. */
IPFSRT_PRIVATE ipfsrt_status ipfsrt_options_take(void *mine, size_t my_size, const void *theirs, const char *init_name,
                                  ipfsrt_error *err);
/* Whether a caller's struct of the given type, read at its size, reaches
 * member (an older, shorter struct does not have it). */
#define IPFSRT_HAS_MEMBER(s, type, member) ((s)->size >= offsetof(type, member) + sizeof((s)->member))
/* The same for a table of callbacks (theirs not NULL): mine is zeroed first,
 * so that a function an older, shorter struct lacks is NULL. */
ipfsrt_status ipfsrt_callbacks_take(void *mine, size_t my_size, const void *theirs, const char *type_name,
                                    ipfsrt_error *err);
#define IPFSRT_TAKE_CALLBACKS(mine, theirs, type_name, err) ipfsrt_callbacks_take(&(mine), sizeof(mine), (theirs), type_name, (err))
/* Counts the library fills into a caller's struct whose first field is its
 * size: copied up to the smaller size (an older host's struct is shorter),
 * the caller's size field left as it is. */
IPFSRT_PRIVATE void ipfsrt_stats_hand_over(void *theirs, const void *mine, size_t my_size);
/* mine = init's defaults, then theirs (NULL: defaults alone) over them. */
#define IPFSRT_TAKE_OPTIONS(mine, theirs, init, err)                                                               \
    (init(&(mine)), (theirs) ? ipfsrt_options_take(&(mine), sizeof(mine), (theirs), #init, (err)) : IPFSRT_OK)

#endif
