/* The gateway client's verified block cache: refcounted buffers so a block can be
 * lent to a reader and evicted at the same time, an LRU per kind of block, and
 * blocks on disk under their CID. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/blockcache.h"
#include "base/base_internal.h"

ipfsrt_rcblock *ipfsrt_rcblock_new(const ipfsrt_cid *cid, const uint8_t *data, size_t len) {
    if (len > SIZE_MAX - sizeof(ipfsrt_rcblock)) return NULL;
    ipfsrt_rcblock *b = malloc(sizeof *b + len);
    if (!b) return NULL;
    memset(b, 0, sizeof *b);
    atomic_init(&b->refs, 1);
    b->cid = *cid;
    b->len = len;
    if (data && len) memcpy(b->data, data, len);
    return b;
}

void ipfsrt_rcblock_ref(ipfsrt_rcblock *b) { atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed); }

void ipfsrt_rcblock_unref(ipfsrt_rcblock *b) {
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) free(b);
}

void ipfsrt_rcblock_hold(void *block) { ipfsrt_rcblock_ref(block); }

void ipfsrt_rcblock_release(void *block) { ipfsrt_rcblock_unref(block); }

/* Digests are uniformly distributed already: their first bytes make the hash. */
static uint64_t key_hash(const ipfsrt_cid *cid) {
    const uint8_t *d = cid->bytes + cid->digest_offset;
    uint64_t h = cid->hash_code * 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < cid->digest_len && i < 8; i++) h = (h << 8 | h >> 56) ^ d[i];
    return h;
}

static bool same_multihash(const ipfsrt_cid *a, const ipfsrt_cid *b) {
    size_t la, lb;
    const uint8_t *ma = ipfsrt_cid_multihash(a, &la), *mb = ipfsrt_cid_multihash(b, &lb);
    return la == lb && memcmp(ma, mb, la) == 0;
}

void ipfsrt_blockmap_init(ipfsrt_blockmap *m) { memset(m, 0, sizeof *m); }

void ipfsrt_blockmap_free(ipfsrt_blockmap *m) {
    for (size_t i = 0; i < m->cap; i++) {
        for (ipfsrt_rcblock *b = m->buckets[i], *next; b; b = next) {
            next = b->hnext;
            b->hnext = NULL;
            b->mapped = false;
            ipfsrt_rcblock_unref(b);
        }
    }
    free(m->buckets);
    memset(m, 0, sizeof *m);
}

ipfsrt_rcblock *ipfsrt_blockmap_get(const ipfsrt_blockmap *m, const ipfsrt_cid *cid) {
    if (!m->cap) return NULL;
    uint64_t h = key_hash(cid);
    for (ipfsrt_rcblock *b = m->buckets[h & (m->cap - 1)]; b; b = b->hnext)
        if (b->key_hash == h && same_multihash(&b->cid, cid)) return b;
    return NULL;
}

ipfsrt_status ipfsrt_blockmap_put(ipfsrt_blockmap *m, ipfsrt_rcblock *b, ipfsrt_error *err) {
    if (m->count + 1 > m->cap / 2) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        ipfsrt_rcblock **buckets = calloc(cap, sizeof *buckets);
        if (!buckets) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        for (size_t i = 0; i < m->cap; i++) {
            for (ipfsrt_rcblock *e = m->buckets[i], *next; e; e = next) {
                next = e->hnext;
                e->hnext = buckets[e->key_hash & (cap - 1)];
                buckets[e->key_hash & (cap - 1)] = e;
            }
        }
        free(m->buckets);
        m->buckets = buckets;
        m->cap = cap;
    }
    b->key_hash = key_hash(&b->cid);
    ipfsrt_rcblock **head = &m->buckets[b->key_hash & (m->cap - 1)];
    b->hnext = *head;
    *head = b;
    b->mapped = true;
    ipfsrt_rcblock_ref(b);
    m->count++;
    m->bytes += b->len;
    return IPFSRT_OK;
}

void ipfsrt_blockmap_remove(ipfsrt_blockmap *m, ipfsrt_rcblock *b) {
    if (!b->mapped) return;
    ipfsrt_rcblock **p = &m->buckets[b->key_hash & (m->cap - 1)];
    while (*p && *p != b) p = &(*p)->hnext;
    if (!*p) return;
    *p = b->hnext;
    b->hnext = NULL;
    b->mapped = false;
    m->count--;
    m->bytes -= b->len;
}

void ipfsrt_blockmap_drop_untaken(ipfsrt_blockmap *m) {
    for (size_t i = 0; i < m->cap; i++) {
        for (ipfsrt_rcblock **p = &m->buckets[i]; *p;) {
            ipfsrt_rcblock *b = *p;
            if (b->taken) {
                p = &b->hnext;
                continue;
            }
            *p = b->hnext;
            b->hnext = NULL;
            b->mapped = false;
            m->count--;
            m->bytes -= b->len;
            ipfsrt_rcblock_unref(b);
        }
    }
}

/* One LRU: most recently used at the head. */
typedef struct lru {
    ipfsrt_blockmap map;
    ipfsrt_rcblock *head, *tail;
    uint64_t budget;
} lru;

struct ipfsrt_blockcache {
    lru data, meta;
    char *dir;
    bool trust_dir;
    uint64_t dir_limit;  /* 0: none */
    uint64_t dir_bytes;  /* an estimate: measured when trimmed, grown by our writes */
    bool dir_measured;
    ipfsrt_blockcache_stats stats;
    _Atomic uint64_t dir_rejected; /* counted by any thread reading the directory */
};

static void lru_unlink(lru *l, ipfsrt_rcblock *b) {
    if (b->prev) b->prev->next = b->next;
    else l->head = b->next;
    if (b->next) b->next->prev = b->prev;
    else l->tail = b->prev;
    b->prev = b->next = NULL;
}

static void lru_push_front(lru *l, ipfsrt_rcblock *b) {
    b->prev = NULL;
    b->next = l->head;
    if (l->head) l->head->prev = b;
    l->head = b;
    if (!l->tail) l->tail = b;
}

static void lru_clear(lru *l) {
    l->head = l->tail = NULL;
    ipfsrt_blockmap_free(&l->map);
}

static lru *lru_for(ipfsrt_blockcache *c, const ipfsrt_cid *cid) {
    return cid->codec == IPFSRT_CODEC_RAW ? &c->data : &c->meta;
}

static int make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

ipfsrt_status ipfsrt_blockcache_new(ipfsrt_blockcache **out, uint64_t memory_bytes,
                                     const char *dir, bool trust_dir, ipfsrt_error *err) {
    ipfsrt_blockcache *c = calloc(1, sizeof *c);
    if (!c) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    c->meta.budget = memory_bytes / 4;
    c->data.budget = memory_bytes - c->meta.budget;
    c->trust_dir = trust_dir;
    if (dir && *dir) {
        c->dir = strdup(dir);
        if (!c->dir) {
            free(c);
            return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        }
        if (make_dirs(c->dir) != 0) {
            ipfsrt_status st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create cache directory %s: %s",
                                           dir, strerror(errno));
            ipfsrt_blockcache_free(c);
            return st;
        }
    }
    *out = c;
    return IPFSRT_OK;
}

/* dir/<last two characters of the CIDv1>/<CIDv1 in base32> */
static void disk_path(const ipfsrt_blockcache *c, const ipfsrt_cid *cid, char *out, size_t size,
                      size_t *dir_len) {
    ipfsrt_cid v1;
    ipfsrt_cid_to_v1(cid, &v1);
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&v1, s);
    size_t n = strlen(s);
    int d = snprintf(out, size, "%s/%s", c->dir, s + (n > 2 ? n - 2 : 0));
    *dir_len = d > 0 ? (size_t)d : 0;
    snprintf(out + *dir_len, size - *dir_len, "/%s", s);
}

/* Larger than any block a client accepts: a bigger file is not ours. */
#define DISK_BLOCK_CAP ((off_t)16 << 20)

static ipfsrt_rcblock *disk_read(ipfsrt_blockcache *c, const ipfsrt_cid *cid) {
    char path[4096 + IPFSRT_CID_STR_MAX];
    size_t dir_len;
    disk_path(c, cid, path, sizeof path, &dir_len);
    /* Non-blocking: opening a FIFO left under a block's name must not wait
     * for a writer that never comes; anything but a regular file is a miss. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) return NULL;
    struct stat st;
    ipfsrt_rcblock *b = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= DISK_BLOCK_CAP)
        b = ipfsrt_rcblock_new(cid, NULL, (size_t)st.st_size);
    size_t got = 0;
    while (b && got < b->len) {
        ssize_t n = read(fd, b->data + got, b->len - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            break;
        }
        got += (size_t)n;
    }
    if (b && got == b->len) futimens(fd, NULL); /* used now: the last to go when the directory is trimmed */
    close(fd);
    if (!b) return NULL;
    if (got != b->len || (!c->trust_dir && ipfsrt_cid_verify(cid, b->data, b->len, NULL) != IPFSRT_OK)) {
        atomic_fetch_add(&c->dir_rejected, 1);
        unlink(path); /* damaged on disk: fetch it again */
        ipfsrt_rcblock_unref(b);
        return NULL;
    }
    return b;
}

/* Written under a temporary name and renamed, so a reader never sees half a block. */
static void disk_write(ipfsrt_blockcache *c, const ipfsrt_rcblock *b) {
    char path[4096 + IPFSRT_CID_STR_MAX], tmp[4096 + IPFSRT_CID_STR_MAX + 16];
    size_t dir_len;
    disk_path(c, &b->cid, path, sizeof path, &dir_len);
    if (access(path, F_OK) == 0) return;
    path[dir_len] = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return;
    path[dir_len] = '/';
    snprintf(tmp, sizeof tmp, "%.*s/.tmp-XXXXXX", (int)dir_len, path);
    int fd = mkstemp(tmp);
    if (fd < 0) return;
    size_t put = 0;
    while (put < b->len) {
        ssize_t n = write(fd, b->data + put, b->len - put);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        put += (size_t)n;
    }
    if (close(fd) != 0 || put != b->len || rename(tmp, path) != 0) {
        unlink(tmp);
        return;
    }
    if (!c->dir_limit) return;
    if (!c->dir_measured) c->dir_bytes = ipfsrt_blockcache_dir_trim(c->dir, c->dir_limit);
    c->dir_measured = true;
    c->dir_bytes += b->len;
    /* down to nine tenths, so that walking the directory is rare */
    if (c->dir_bytes > c->dir_limit) c->dir_bytes = ipfsrt_blockcache_dir_trim(c->dir, c->dir_limit / 10 * 9);
}

ipfsrt_rcblock *ipfsrt_blockcache_dir_get(ipfsrt_blockcache *c, const ipfsrt_cid *cid) {
    return c->dir && cid->hash_code != IPFSRT_MH_IDENTITY ? disk_read(c, cid) : NULL;
}

void ipfsrt_blockcache_set_dir_limit(ipfsrt_blockcache *c, uint64_t max) {
    c->dir_limit = max;
    c->dir_measured = false;
}

static void lru_evict(ipfsrt_blockcache *c, lru *l) {
    while (l->map.bytes > l->budget && l->tail) {
        ipfsrt_rcblock *victim = l->tail;
        lru_unlink(l, victim);
        ipfsrt_blockmap_remove(&l->map, victim);
        ipfsrt_rcblock_unref(victim);
        c->stats.evictions++;
    }
}

static void memory_put(ipfsrt_blockcache *c, ipfsrt_rcblock *b) {
    lru *l = lru_for(c, &b->cid);
    if (b->len > l->budget || b->mapped || ipfsrt_blockmap_get(&l->map, &b->cid)) return;
    if (ipfsrt_blockmap_put(&l->map, b, NULL) != IPFSRT_OK) return;
    lru_push_front(l, b);
    lru_evict(c, l);
}

ipfsrt_rcblock *ipfsrt_blockcache_get(ipfsrt_blockcache *c, const ipfsrt_cid *cid) {
    lru *l = lru_for(c, cid);
    ipfsrt_rcblock *b = ipfsrt_blockmap_get(&l->map, cid);
    if (b) {
        lru_unlink(l, b);
        lru_push_front(l, b);
        ipfsrt_rcblock_ref(b);
        c->stats.hits++;
        return b;
    }
    if (c->dir && (b = disk_read(c, cid))) {
        c->stats.hits++;
        c->stats.disk_hits++;
        memory_put(c, b);
        return b;
    }
    c->stats.misses++;
    return NULL;
}

void ipfsrt_blockcache_put(ipfsrt_blockcache *c, ipfsrt_rcblock *b) {
    if (b->cid.hash_code == IPFSRT_MH_IDENTITY) return;
    memory_put(c, b);
    if (c->dir) disk_write(c, b);
}

void ipfsrt_blockcache_put_all(ipfsrt_blockcache *c, ipfsrt_blockmap *m) {
    for (size_t i = 0; i < m->cap; i++) {
        for (ipfsrt_rcblock *b = m->buckets[i], *next; b; b = next) {
            next = b->hnext;
            b->hnext = NULL;
            b->mapped = false;
            ipfsrt_blockcache_put(c, b);
            ipfsrt_rcblock_unref(b); /* the map's reference */
        }
        m->buckets[i] = NULL;
    }
    m->count = 0;
    m->bytes = 0;
}

void ipfsrt_blockcache_get_stats(const ipfsrt_blockcache *c, ipfsrt_blockcache_stats *stats) {
    *stats = c->stats;
    stats->disk_rejected = atomic_load(&c->dir_rejected);
    stats->bytes = c->data.map.bytes + c->meta.map.bytes;
    stats->blocks = c->data.map.count + c->meta.map.count;
}

bool ipfsrt_blockcache_keeps_folder(const ipfsrt_blockcache *c) { return c && c->dir; }

void ipfsrt_blockcache_free(ipfsrt_blockcache *c) {
    if (!c) return;
    lru_clear(&c->data);
    lru_clear(&c->meta);
    free(c->dir);
    free(c);
}
