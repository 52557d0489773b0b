/* Reference-counted buffers. Big ones are mapped directly and offered
 * transparent huge pages (as numpy does past 4 MiB); when freed, a few are kept
 * for reuse. Writing a fresh mapping means a page fault and the kernel zeroing
 * each page: for the result of `a * 0.01` on a 3 GB grid that is most of the
 * cost, and a script computing such expressions in a loop would pay it every
 * time. The kept mappings are bounded (a quarter of physical memory, a few
 * at most) and ipfsrt_ndarray_trim_cache gives them back. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ndarray/ndarray_internal.h"

#define MAP_THRESHOLD ((size_t)4 << 20)
#define CACHE_SLOTS 4
#define POPULATE_MIN ((size_t)256 << 10)
#define POPULATE_MAX ((size_t)64 << 20) /* bigger arrays may be zeros mostly never written */

static struct {
    pthread_mutex_t lock;
    ipfsrt_ndbuffer *slot[CACHE_SLOTS]; /* oldest first */
    int count;
    size_t bytes, limit;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic uint64_t allocated;

uint64_t ipfsrt_ndarray_allocated_bytes(void) { return atomic_load(&allocated); }

static size_t cache_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : 0;
}

static void cache_drop(int i) {
    cache.bytes -= cache.slot[i]->mapped;
    memmove(&cache.slot[i], &cache.slot[i + 1], (size_t)(cache.count - i - 1) * sizeof cache.slot[0]);
    cache.count--;
}

/* The smallest kept mapping that holds total bytes without wasting over a
 * quarter of itself. */
static ipfsrt_ndbuffer *cache_take(size_t total) {
    ipfsrt_ndbuffer *found = NULL;
    pthread_mutex_lock(&cache.lock);
    int best = -1;
    for (int i = 0; i < cache.count; i++) {
        size_t m = cache.slot[i]->mapped;
        if (m >= total && m - total <= m / 4 && (best < 0 || m < cache.slot[best]->mapped)) best = i;
    }
    if (best >= 0) {
        found = cache.slot[best];
        cache_drop(best);
    }
    pthread_mutex_unlock(&cache.lock);
    return found;
}

/* Keeps b for reuse, dropping the oldest kept ones to make room; false when it
 * does not fit at all. */
static bool cache_put(ipfsrt_ndbuffer *b) {
    ipfsrt_ndbuffer *evicted[CACHE_SLOTS];
    int n_evicted = 0;
    bool kept = false;
    pthread_mutex_lock(&cache.lock);
    if (!cache.limit) cache.limit = cache_limit();
    if (b->mapped <= cache.limit) {
        while (cache.count && (cache.count == CACHE_SLOTS || cache.bytes + b->mapped > cache.limit)) {
            evicted[n_evicted++] = cache.slot[0];
            cache_drop(0);
        }
        cache.slot[cache.count++] = b;
        cache.bytes += b->mapped;
        kept = true;
    }
    pthread_mutex_unlock(&cache.lock);
    for (int i = 0; i < n_evicted; i++) munmap(evicted[i], evicted[i]->mapped);
    return kept;
}

void ipfsrt_ndarray_trim_cache(void) {
    for (;;) {
        pthread_mutex_lock(&cache.lock);
        ipfsrt_ndbuffer *b = cache.count ? cache.slot[0] : NULL;
        if (b) cache_drop(0);
        pthread_mutex_unlock(&cache.lock);
        if (!b) return;
        munmap(b, b->mapped);
    }
}

static ipfsrt_ndbuffer *map_new(size_t total, size_t size, bool zeroed) {
    ipfsrt_ndbuffer *b = cache_take(total);
    if (b) {
        if (zeroed) memset(b->data, 0, size);
        return b;
    }
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        ipfsrt_ndarray_trim_cache(); /* the kept mappings may be what stands in the way */
        p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(p, total, MADV_HUGEPAGE); /* advice only: without it the pages are small */
#endif
    b = p; /* anonymous mappings come zeroed */
    b->mapped = total;
    return b;
}

/* Maps the pages of [p, p + len) now, in one call, instead of one fault per
 * page when first written: on virtual machines a fault costs microseconds,
 * and a fresh output of a few MB is then most of a small read's time. */
static void populate(void *p, size_t len) {
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + len) & ~(page - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* advice only (Linux 5.14+) */
#else
    (void)p;
    (void)len;
#endif
}

ipfsrt_ndbuffer *ipfsrt_ndbuffer_new(size_t size, bool zeroed) {
    if (size > SIZE_MAX - sizeof(ipfsrt_ndbuffer)) return NULL;
    size_t total = sizeof(ipfsrt_ndbuffer) + size;
    ipfsrt_ndbuffer *b = total >= MAP_THRESHOLD ? map_new(total, size, zeroed) : calloc(1, total);
    if (!b) return NULL;
    if (total >= POPULATE_MIN && total <= POPULATE_MAX) populate(b, total);
    b->refs = 1;
    b->size = size;
    atomic_fetch_add(&allocated, size);
    return b;
}

void ipfsrt_ndbuffer_unref(ipfsrt_ndbuffer *b) {
    if (!b || --b->refs) return;
    if (!b->mapped) free(b);
    else if (!cache_put(b)) munmap(b, b->mapped);
}
