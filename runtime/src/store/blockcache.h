/* Verified blocks kept by the gateway client (blockcache.c): shared, refcounted
 * block buffers, a multihash-keyed map of them, and the cache proper (an LRU in
 * memory, bounded in bytes, plus an optional directory of blocks on disk). */
#ifndef IPFSRT_BLOCKCACHE_H
#define IPFSRT_BLOCKCACHE_H

#include <stdatomic.h>

#include "ipfsrt/cid.h"
#include "base/base_internal.h"

typedef struct ipfsrt_rcblock {
    atomic_uint refs; /* lent to decoding threads, which drop their references */
    unsigned arrivals;             /* copies a stream delivered and nobody took yet */
    bool mapped;                   /* in a map (at most one) */
    bool taken;                    /* a walk has read it (sessions keep such blocks) */
    struct ipfsrt_rcblock *hnext;  /* chain of the one map it is in */
    struct ipfsrt_rcblock *prev, *next; /* LRU order */
    uint64_t key_hash;
    ipfsrt_cid cid;
    size_t len;
    uint8_t data[];
} ipfsrt_rcblock;

/* A block with one reference, its bytes copied in (data may be NULL to fill later). */
IPFSRT_PRIVATE ipfsrt_rcblock *ipfsrt_rcblock_new(const ipfsrt_cid *cid, const uint8_t *data, size_t len);
IPFSRT_PRIVATE void ipfsrt_rcblock_ref(ipfsrt_rcblock *b);
IPFSRT_PRIVATE void ipfsrt_rcblock_unref(ipfsrt_rcblock *b);
/* The two as an ipfsrt_lent's hold and release. */
void ipfsrt_rcblock_hold(void *block);
void ipfsrt_rcblock_release(void *block);

/* Blocks by multihash; a block is in at most one map at a time. The map holds a
 * reference to each block in it. */
typedef struct ipfsrt_blockmap {
    ipfsrt_rcblock **buckets;
    size_t cap, count;
    uint64_t bytes;
} ipfsrt_blockmap;

IPFSRT_PRIVATE void ipfsrt_blockmap_init(ipfsrt_blockmap *m);
IPFSRT_PRIVATE void ipfsrt_blockmap_free(ipfsrt_blockmap *m);
IPFSRT_PRIVATE ipfsrt_rcblock *ipfsrt_blockmap_get(const ipfsrt_blockmap *m, const ipfsrt_cid *cid);
IPFSRT_PRIVATE ipfsrt_status ipfsrt_blockmap_put(ipfsrt_blockmap *m, ipfsrt_rcblock *b, ipfsrt_error *err);
/* Takes b out and hands over the map's reference to the caller. */
void ipfsrt_blockmap_remove(ipfsrt_blockmap *m, ipfsrt_rcblock *b);
/* Removes (and releases) the blocks no walk has taken. */
void ipfsrt_blockmap_drop_untaken(ipfsrt_blockmap *m);

typedef struct ipfsrt_blockcache ipfsrt_blockcache;

typedef struct ipfsrt_blockcache_stats {
    uint64_t hits, misses, disk_hits, disk_rejected, evictions;
    uint64_t bytes, blocks;
} ipfsrt_blockcache_stats;

/* memory_bytes 0 keeps nothing in memory. Raw-codec (data) blocks and the rest
 * (directories, file nodes) are budgeted apart, so a long read cannot push the
 * directories out. dir (may be NULL) is created when missing. */
ipfsrt_status ipfsrt_blockcache_new(ipfsrt_blockcache **c, uint64_t memory_bytes, const char *dir,
                                     bool trust_dir, ipfsrt_error *err);
/* A new reference to the cached block, or NULL. Blocks read back from disk are
 * verified unless the directory is trusted; one that fails is deleted. */
ipfsrt_rcblock *ipfsrt_blockcache_get(ipfsrt_blockcache *c, const ipfsrt_cid *cid);
/* The block from the directory alone, verified unless trusted (one that fails
 * is deleted), or NULL; any thread may call it while another uses the cache:
 * it reads only the files, whose writes are atomic renames. */
ipfsrt_rcblock *ipfsrt_blockcache_dir_get(ipfsrt_blockcache *c, const ipfsrt_cid *cid);
/* Keeps a verified block (takes its own reference). */
void ipfsrt_blockcache_put(ipfsrt_blockcache *c, ipfsrt_rcblock *b);
/* Moves every block of the map into the cache (what fits) and empties the map. */
void ipfsrt_blockcache_put_all(ipfsrt_blockcache *c, ipfsrt_blockmap *m);
/* Keeps the directory's blocks under max bytes (0: no limit), the ones used
 * longest ago deleted first. */
void ipfsrt_blockcache_set_dir_limit(ipfsrt_blockcache *c, uint64_t max);
/* blockcache_trim.c: deletes the blocks of dir used longest ago until the
 * rest fit in keep bytes; returns the bytes left. */
uint64_t ipfsrt_blockcache_dir_trim(const char *dir, uint64_t keep);
void ipfsrt_blockcache_get_stats(const ipfsrt_blockcache *c, ipfsrt_blockcache_stats *stats);
/* Whether the cache keeps a folder: blocks of earlier runs (an older version
 * of what is read) may be in it. */
bool ipfsrt_blockcache_keeps_folder(const ipfsrt_blockcache *c);
void ipfsrt_blockcache_free(ipfsrt_blockcache *c);

#endif
