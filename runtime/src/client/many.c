/* Many reads in flight (ipfsrt_client_batch): every path is walked over the
 * blocks the batch holds; a walk that lacks blocks asks for them (block jobs:
 * verified, policy, retries) and waits for them, while the other reads go on.
 * A block on many routes is asked for once: a read that finds it in flight
 * waits for the same job. Each read is reported as soon as its blocks are in.
 * Before the first walk, a directory that many paths share is asked for whole
 * in one CAR request and listed once, so that its entries resolve without
 * walking its shards for each path. A read whose first walk lacks a block asks
 * for its whole path in one CAR request (a prefetch) before it asks for blocks
 * one level at a time: one round trip, as a plain GET takes. When its
 * directory is at hand, the prefetch starts at the file the walk lacked (by
 * its CID), so nothing at hand is sent again. With a block cache on disk,
 * which may hold an older version of what is read, bytes come before round
 * trips: reads that lack the same block (a new version's root, a sharded
 * directory) ride on the one prefetch that asks for it, and a prefetch below
 * a sharded directory at hand starts at the shard the walk lacked, so that a
 * new version over a warm cache fetches its new blocks only (a cold read of
 * many chunks then takes a round trip or two more).
 * Over HTTP/1.x from a gateway FAR_ROUND_TRIP_S or more away, the listing is
 * asked for beside the paths rather than before them: it comes on one
 * connection, through TCP's slow start (a 2,928-entry HAMT is 207 KB: four
 * round trips), and a connection carries one request at a time. Meanwhile
 * reads are admitted as many as the gateways take at once, each on a
 * connection of its own, and guess: a plain GET of the file, without the
 * shards its path crosses (a path's CAR carries the HAMT's 12 KB top shard:
 * 16% more than a 74 KB chunk, on a link those first reads fill). A guess
 * proves nothing: its bytes are kept as the raw block they hash to (CIDv1,
 * sha2-256, as packers make file leaves), and the read waits for the listing
 * too. Its walk then finds the file by name in the verified listing and the
 * block by that CID among the guesses; when the gateway sent other bytes (or
 * the file is not one raw block), the read asks for its block by CID, and the
 * batch guesses no more. Reads admitted once the listing is in ask by CID.
 * (366 chunks through the emulator over HTTP/1.1, 80 ms away: 31.6 MB with
 * each first read's shards, 30.2 MB with guesses, plain reads 30.0.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "base/base_internal.h"

#define BATCH_WINDOW 1024       /* reads walked at once; later ones wait their turn */
#define DIR_GROUP_MIN 32        /* paths through one directory that make it worth one request
                                   (fewer are prefetched each: as fast, and no shards to spare) */
#define DIR_SHARDS_PER_PATH 4   /* ... as long as it holds no more blocks than this per path */
#define DIR_SHARDS_BASE 64
#define RESERVED_RANGE_MAX ((uint64_t)16 << 20) /* a range's buffer made whole up front up to this */

typedef enum item_state { ITEM_RESOLVE, ITEM_READ, ITEM_DONE, ITEM_FAILED } item_state;

typedef struct item {
    char *path;       /* NULL for a block read; an ipns:// path's /ipfs/ path */
    char *key;        /* the path as asked, when that was an ipns:// one (else NULL) */
    ipfsrt_cid cid;   /* the block; for a path, the file once resolved */
    uint64_t offset, length;
    bool from_end; /* the file's last length bytes: offset is found once its size is known */
    item_state state;
    size_t waiting;   /* blocks in flight its walk lacked: it walks again at 0 */
    ipfsrt_error error;
    ipfsrt_buf data;
    ipfsrt_rcblock *block; /* a raw block read whole: lent as it is, not copied */
    plain_read *plain;     /* unverified clients: the GET under way */
    plain_read *guess;     /* its file asked for as a plain GET beside its directory's listing */
    bool guessed;          /* ... once */
    bool prefetched;       /* its path was asked for in one request (or could not be) */
} item;

/* A block asked for, and the reads waiting for it. The job's task is linked
 * into the client's scheduler, so a pending block never moves. */
typedef struct pending {
    block_job job;
    size_t *waiters;
    size_t waiter_count, waiter_cap;
    size_t slot; /* where it is in the batch's in-flight list */
} pending;

/* A prefetch of one read's path; the read waits for it. */
typedef struct ahead {
    prefetch pf;
    ipfsrt_client_batch *b;
    size_t item;
    size_t slot;        /* where it is in the batch's list */
    ipfsrt_cid lacked;  /* the block the read's walk lacked first */
    size_t *riders;     /* other reads that lacked it too, waiting for this answer */
    size_t rider_count, rider_cap;
} ahead;

/* A shared directory's listing asked for beside its paths (HTTP/1.x, far). */
typedef struct dir_ahead {
    prefetch pf;
    ipfsrt_client_batch *b;
    char *dir;
    size_t blocks, budget; /* its answer stops past budget blocks */
    size_t *waiters;       /* reads that guessed their file and wait for the listing */
    size_t waiter_count, waiter_cap;
} dir_ahead;

typedef struct failed_block {
    ipfsrt_cid cid;
    ipfsrt_error error;
} failed_block;

/* A shared directory's entries, from one listing: name -> CID. */
typedef struct listing {
    char *dir; /* as the paths spell it, up to the last slash */
    ipfsrt_mhmap names; /* offset: index into cids */
    ipfsrt_cid *cids;
    size_t count, cap;
} listing;

struct ipfsrt_client_batch {
    ipfsrt_client *c;
    item *items;
    size_t count, cap;
    size_t *ready; /* finished reads not yet reported, in order (a queue) */
    size_t ready_head, ready_tail, ready_cap;
    size_t *runnable; /* reads to walk (again): admitted, or no longer waiting */
    size_t runnable_count, runnable_cap;
    size_t admitted;  /* reads before it have entered the window */
    size_t open;      /* admitted and not finished */
    size_t reported;
    bool has_last;
    size_t last;            /* reported last: its bytes are freed at the next call */
    bool dirs_fetched;
    listing *listings;
    size_t listing_count, listing_cap;
    ipfsrt_blockmap have;   /* verified blocks fetched for this batch */
    ipfsrt_blockmap guessed; /* guesses' bytes as the raw blocks they hash to, until a walk asks for one */
    failed_block *failed;   /* blocks no gateway delivered */
    size_t failed_count, failed_cap;
    ipfsrt_mhmap failed_set; /* multihash -> index into failed */
    pending **inflight;
    size_t inflight_count, inflight_cap;
    ahead **aheads; /* prefetches under way */
    size_t ahead_count, ahead_cap;
    dir_ahead **dir_aheads; /* listings under way beside the reads */
    size_t dir_ahead_count, dir_ahead_cap;
    uint64_t prefetched; /* bytes prefetches brought: past the client's pending_cap, no more */
    size_t *plains; /* unverified clients: reads whose GET is under way */
    size_t plain_count, plain_cap;
    size_t *guesses; /* reads whose guess is under way */
    size_t guess_count, guess_cap;
    bool no_guess;   /* a guess failed or missed: the gateway serves no plain files, or not as raw blocks */
    ipfsrt_mhmap inflight_set; /* multihash -> the pending block (offset holds the pointer) */
    size_t walking;         /* the read whose walk is under way */
    bool missed;            /* that walk lacked a block */
    bool probing;           /* the walk under way only looks: it asks for nothing */
    bool lacked_set;        /* ... and lacked this block first */
    ipfsrt_cid lacked;
    ipfsrt_status want_failed; /* ... and could not ask for it */
    ipfsrt_error want_error;
    bool consuming;         /* the walk under way is a read's last: its data blocks go */
};

/* ------------------------------------------------------------ the source */

static const failed_block *failure_of(const ipfsrt_client_batch *b, const ipfsrt_cid *cid) {
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    const ipfsrt_mhmap_entry *e = ipfsrt_mhmap_get(&b->failed_set, mh, mh_len);
    return e ? &b->failed[e->offset] : NULL;
}

static ipfsrt_status add_waiter(pending *p, size_t i, item *it) {
    if (p->waiter_count && p->waiters[p->waiter_count - 1] == i) return IPFSRT_OK; /* asked twice */
    if (ipfsrt_array_reserve(&p->waiters, &p->waiter_cap, p->waiter_count + 1, sizeof *p->waiters))
        return IPFSRT_EOUT_OF_MEMORY;
    p->waiters[p->waiter_count++] = i;
    it->waiting++;
    return IPFSRT_OK;
}

/* Starts the job for a block no one asked for yet. */
static ipfsrt_status start_pending(ipfsrt_client_batch *b, const ipfsrt_cid *cid, pending **out) {
    if (ipfsrt_array_reserve(&b->inflight, &b->inflight_cap, b->inflight_count + 1,
                             sizeof *b->inflight))
        return IPFSRT_EOUT_OF_MEMORY;
    pending *p = calloc(1, sizeof *p);
    if (!p) return IPFSRT_EOUT_OF_MEMORY;
    p->job.cid = *cid;
    p->job.keep = true;
    p->job.cache_later = true; /* the batch keeps it in its own map (no copy), then hands it to the cache */
    if (!ipfsrt_blockjob_start(b->c, &p->job)) {
        free(p);
        return IPFSRT_EOUT_OF_MEMORY;
    }
    p->slot = b->inflight_count;
    b->inflight[b->inflight_count++] = p;
    *out = p;
    return IPFSRT_OK;
}

/* The read being walked lacks cid: it waits for the block, asked for once. */
static ipfsrt_status want(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_client_batch *b = user;
    b->missed = true;
    if (b->probing && !b->lacked_set) {
        b->lacked = *cid;
        b->lacked_set = true;
    }
    if (b->probing) return IPFSRT_OK;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    ipfsrt_mhmap_entry *e;
    bool added;
    ipfsrt_status st = ipfsrt_mhmap_slot(&b->inflight_set, mh, mh_len, &e, &added);
    pending *p = st == IPFSRT_OK && !added ? (pending *)(uintptr_t)e->offset : NULL;
    if (st == IPFSRT_OK && !p) st = start_pending(b, cid, &p);
    if (st == IPFSRT_OK) {
        e->offset = (uint64_t)(uintptr_t)p;
        st = add_waiter(p, b->walking, &b->items[b->walking]);
    }
    if (st != IPFSRT_OK && !b->want_failed) {
        b->want_failed = st;
        ipfsrt_fail_cid(&b->want_error, st, cid, -1, "out of memory asking for the block");
    }
    return st == IPFSRT_OK ? IPFSRT_OK : ipfsrt_fail(err, st, -1, "out of memory");
}

/* A guess's block a walk asks for joins the batch's blocks (a hash that
 * matches is all the proof a block needs); the batch's map holds it. */
static ipfsrt_rcblock *take_guessed(ipfsrt_client_batch *b, const ipfsrt_cid *cid) {
    ipfsrt_rcblock *rc = ipfsrt_blockmap_get(&b->guessed, cid);
    if (!rc) return NULL;
    ipfsrt_blockmap_remove(&b->guessed, rc);
    rc->cid = *cid; /* the CID the walk names it by (a v0 or another codec) */
    ipfsrt_status st = ipfsrt_blockmap_put(&b->have, rc, NULL);
    ipfsrt_rcblock_unref(rc);
    return st == IPFSRT_OK ? rc : NULL;
}

/* The batch's blocks, then the cache; a block neither has is asked for and
 * reported missing, one no gateway delivered is an error. */
static ipfsrt_status batch_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_client_batch *b = ctx;
    ipfsrt_rcblock *rc = ipfsrt_blockmap_get(&b->have, cid);
    if (!rc) rc = take_guessed(b, cid);
    if (rc) ipfsrt_rcblock_ref(rc);
    else rc = ipfsrt_blockcache_get(b->c->cache, cid);
    if (rc) return ipfsrt_block_lend(ref, rc);
    const failed_block *f = failure_of(b, cid);
    if (f) {
        if (err) *err = f->error;
        return f->error.code;
    }
    ipfsrt_status st = want(b, cid, err);
    if (st != IPFSRT_OK) return st;
    return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not fetched yet");
}

/* A data block read for the last time leaves the batch for the cache, so the
 * batch holds the data of the reads in flight, not of every read so far. */
static void hand_to_cache(ipfsrt_client_batch *b, ipfsrt_rcblock *rc) {
    if (ipfsrt_blockmap_get(&b->have, &rc->cid) != rc) return; /* not the batch's */
    ipfsrt_blockmap_remove(&b->have, rc); /* the map's reference is ours now */
    ipfsrt_blockcache_put(b->c->cache, rc);
    ipfsrt_rcblock_unref(rc);
}

static void batch_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    ipfsrt_client_batch *b = ctx;
    ipfsrt_rcblock *rc = ref->token;
    if (b->consuming && rc->cid.codec == IPFSRT_CODEC_RAW) hand_to_cache(b, rc);
    ipfsrt_rcblock_unref(rc);
}

/* Keeps a verified block for the rest of the batch (a copy when another map
 * holds it already). */
static void keep(ipfsrt_client_batch *b, ipfsrt_rcblock *rc) {
    if (ipfsrt_blockmap_get(&b->have, &rc->cid)) return;
    ipfsrt_rcblock *mine = rc->mapped ? ipfsrt_rcblock_new(&rc->cid, rc->data, rc->len) : rc;
    if (!mine) return; /* the walk asks for it again */
    (void)ipfsrt_blockmap_put(&b->have, mine, NULL);
    if (mine != rc) ipfsrt_rcblock_unref(mine);
}

/* ----------------------------------------------------------- block jobs */

static ipfsrt_status push_runnable(ipfsrt_client_batch *b, size_t i, ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&b->runnable, &b->runnable_cap, b->runnable_count + 1,
                             sizeof *b->runnable))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    b->runnable[b->runnable_count++] = i;
    return IPFSRT_OK;
}

static ipfsrt_status record_failure(ipfsrt_client_batch *b, pending *p, ipfsrt_error *err) {
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&p->job.cid, &mh_len);
    if (ipfsrt_array_reserve(&b->failed, &b->failed_cap, b->failed_count + 1, sizeof *b->failed) ||
        ipfsrt_mhmap_put(&b->failed_set, mh, mh_len, b->failed_count, 0, NULL) != IPFSRT_OK)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    failed_block *f = &b->failed[b->failed_count++];
    f->cid = p->job.cid;
    ipfsrt_task_error(&p->job.t, &f->error);
    ipfsrt_cid_to_string(&p->job.cid, f->error.cid);
    return IPFSRT_OK;
}

static void pending_free(pending *p) {
    if (p->job.t.c) ipfsrt_task_end(&p->job.t);
    ipfsrt_rcblock_unref(p->job.result);
    free(p->waiters);
    free(p);
}

/* A job came to an end: its block is kept (or its failure noted) and the
 * reads that waited for nothing else walk again. */
static ipfsrt_status settle(ipfsrt_client_batch *b, pending *p, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    if (p->job.t.state == TASK_DONE) keep(b, p->job.result);
    else st = record_failure(b, p, err);
    for (size_t k = 0; k < p->waiter_count && st == IPFSRT_OK; k++) {
        item *it = &b->items[p->waiters[k]];
        if (--it->waiting == 0) st = push_runnable(b, p->waiters[k], err);
    }
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&p->job.cid, &mh_len);
    ipfsrt_mhmap_entry *e;
    if (ipfsrt_mhmap_slot(&b->inflight_set, mh, mh_len, &e, NULL) == IPFSRT_OK) e->offset = 0;
    b->inflight[p->slot] = b->inflight[--b->inflight_count];
    b->inflight[p->slot]->slot = p->slot;
    pending_free(p);
    return st;
}

static void finish(ipfsrt_client_batch *b, size_t i, item_state state, const ipfsrt_error *e);

/* Finishes the unverified reads whose GET is over. */
static void settle_plains(ipfsrt_client_batch *b) {
    for (size_t k = b->plain_count; k-- > 0;) {
        item *it = &b->items[b->plains[k]];
        ipfsrt_status st;
        ipfsrt_error e;
        if (!ipfsrt_plain_over(it->plain, &st, &e)) continue;
        ipfsrt_plain_end(it->plain);
        it->plain = NULL;
        finish(b, b->plains[k], st == IPFSRT_OK ? ITEM_DONE : ITEM_FAILED, st == IPFSRT_OK ? NULL : &e);
        b->plains[k] = b->plains[--b->plain_count];
    }
}

/* ----------------------------------------------------------- prefetches */

static bool ended(const ahead *a) { return ipfsrt_task_over(&a->pf.t); }

/* Keeps a block a prefetch brought; false once prefetches brought the
 * client's pending_cap. Blocks past the budget are still kept (they are
 * checked); the answer stops. */
static bool keep_prefetched(ipfsrt_client_batch *b, ipfsrt_rcblock *rc) {
    keep(b, rc);
    b->prefetched += rc->len;
    return b->prefetched < b->c->pending_cap;
}

static bool ahead_block(void *user, ipfsrt_rcblock *rc) { return keep_prefetched(((ahead *)user)->b, rc); }

/* What read i's prefetch asks for: the block its walk lacked, by CID, when the
 * directory holding it is at hand: plain, its link names that very file; sharded
 * (with a cache on disk), a shard or the file; else the whole path. */
static char *ahead_target(ipfsrt_client_batch *b, const item *it) {
    const char *slash = strrchr(it->path, '/');
    char *parent = slash && b->lacked_set ? strndup(it->path, (size_t)(slash - it->path)) : NULL;
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), b, batch_get, batch_release};
    ipfsrt_unixfs_node_info info;
    b->probing = true;
    b->missed = false;
    bool at_hand = parent && ipfsrt_unixfs_resolve(&src, parent, NULL, &info, NULL) == IPFSRT_OK && !b->missed &&
                   (info.type == IPFSRT_UNIXFS_DIRECTORY ||
                    (info.type == IPFSRT_UNIXFS_HAMT_SHARD && ipfsrt_blockcache_keeps_folder(b->c->cache)));
    b->probing = false;
    b->missed = true; /* the read's walk did lack a block */
    free(parent);
    if (!at_hand) return strdup(it->path);
    char cid[IPFSRT_CID_STR_MAX], *target = malloc(sizeof cid + 8);
    if (target) snprintf(target, sizeof cid + 8, "ipfs://%s", ipfsrt_cid_to_string(&b->lacked, cid));
    return target;
}

/* Read i waits for a prefetch under way that asks for the block its walk
 * lacked, when a cache on disk may hold what lies below it; false when there
 * is none. */
static bool ride_along(ipfsrt_client_batch *b, size_t i) {
    if (!b->lacked_set || !ipfsrt_blockcache_keeps_folder(b->c->cache)) return false;
    for (size_t k = 0; k < b->ahead_count; k++) {
        ahead *a = b->aheads[k];
        if (ended(a) || !ipfsrt_cid_equal(&a->lacked, &b->lacked)) continue;
        if (ipfsrt_array_reserve(&a->riders, &a->rider_cap, a->rider_count + 1, sizeof *a->riders)) return false;
        a->riders[a->rider_count++] = i;
        b->items[i].waiting++;
        return true;
    }
    return false;
}

/* Asks for read i's path in one request; false when it cannot (it then walks
 * block by block). Asked once per read. */
static bool start_ahead(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    it->prefetched = true;
    if (b->prefetched >= b->c->pending_cap ||
        ipfsrt_array_reserve(&b->aheads, &b->ahead_cap, b->ahead_count + 1, sizeof *b->aheads))
        return false;
    ahead *a = calloc(1, sizeof *a);
    if (!a) return false;
    *a = (ahead){.b = b, .item = i, .slot = b->ahead_count, .lacked = b->lacked};
    a->pf.on_block = ahead_block;
    a->pf.user = a;
    char *target = ahead_target(b, it);
    if (!target || !ipfsrt_prefetch_start(b->c, &a->pf, target, it->offset, it->length, it->from_end)) {
        free(target);
        free(a);
        return false;
    }
    free(target);
    b->aheads[b->ahead_count++] = a;
    it->waiting++;
    return true;
}

static void ahead_free(ahead *a) {
    if (a->pf.t.c) ipfsrt_task_end(&a->pf.t);
    free(a->riders);
    free(a);
}

/* Prefetches that ended: their reads walk again and ask for whatever the
 * answers lacked. A read whose prefetch failed (a name that is not there, as
 * often as not) waits for the others first: they bring the directories that
 * prove it. */
static ipfsrt_status settle_aheads(ipfsrt_client_batch *b, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    size_t running = 0;
    for (size_t k = 0; k < b->ahead_count; k++) running += !ended(b->aheads[k]);
    for (size_t k = b->ahead_count; k-- > 0 && st == IPFSRT_OK;) {
        ahead *a = b->aheads[k];
        if (!ended(a) || (a->pf.t.state == TASK_FAILED && running)) continue;
        if (--b->items[a->item].waiting == 0) st = push_runnable(b, a->item, err);
        for (size_t r = 0; r < a->rider_count && st == IPFSRT_OK; r++)
            if (--b->items[a->riders[r]].waiting == 0) st = push_runnable(b, a->riders[r], err);
        b->aheads[k] = b->aheads[--b->ahead_count];
        b->aheads[k]->slot = k;
        ahead_free(a);
    }
    return st;
}

static ipfsrt_status settle_dir_aheads(ipfsrt_client_batch *b, ipfsrt_error *err);
static ipfsrt_status settle_guesses(ipfsrt_client_batch *b, ipfsrt_error *err);

/* Runs the engine once, then settles every job that has ended. */
static ipfsrt_status pump(ipfsrt_client_batch *b, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_task_pump(b->c, 50, err);
    for (size_t k = b->inflight_count; k-- > 0 && st == IPFSRT_OK;) {
        pending *p = b->inflight[k];
        if (ipfsrt_task_over(&p->job.t)) st = settle(b, p, err);
    }
    if (st == IPFSRT_OK) st = settle_aheads(b, err);
    if (st == IPFSRT_OK) st = settle_guesses(b, err);
    if (st == IPFSRT_OK) st = settle_dir_aheads(b, err);
    settle_plains(b);
    return st;
}

/* -------------------------------------------------------------- guesses */

static size_t dir_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

/* Whether dir is the first len bytes of path (its directory, as it spells it). */
static bool same_dir(const char *dir, const char *path, size_t len) {
    return strlen(dir) == len && memcmp(dir, path, len) == 0;
}

static ipfsrt_status collect(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *buf = user;
    ipfsrt_buf_append(buf, data, len);
    return buf->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

static dir_ahead *dir_ahead_of(const ipfsrt_client_batch *b, const char *path) {
    size_t len = dir_len(path);
    for (size_t k = 0; k < b->dir_ahead_count; k++)
        if (same_dir(b->dir_aheads[k]->dir, path, len)) return b->dir_aheads[k];
    return NULL;
}

/* Read i, let in while its directory's listing is under way, asks for its
 * file as a plain GET (see the top of this file) and waits for both answers;
 * false when it does not qualify (a part of a file, a guess that went wrong
 * before). */
static bool start_guess(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    dir_ahead *d = b->no_guess || it->guessed || it->offset || it->from_end || !it->length
                       ? NULL : dir_ahead_of(b, it->path);
    if (!d || b->prefetched >= b->c->pending_cap ||
        ipfsrt_array_reserve(&b->guesses, &b->guess_cap, b->guess_count + 1, sizeof *b->guesses) ||
        ipfsrt_array_reserve(&d->waiters, &d->waiter_cap, d->waiter_count + 1, sizeof *d->waiters))
        return false;
    it->guessed = true;
    ipfsrt_error e;
    if (ipfsrt_plain_guess(b->c, it->path, it->length, collect, &it->data, &it->guess, &e) != IPFSRT_OK)
        return false;
    b->guesses[b->guess_count++] = i;
    d->waiters[d->waiter_count++] = i;
    it->waiting += 2;
    return true;
}

/* A guess's bytes as the raw block they hash to, kept aside until a walk asks
 * for that block; false when they cannot be. */
static bool keep_guess(ipfsrt_client_batch *b, const ipfsrt_buf *data) {
    ipfsrt_cid cid;
    if (data->failed ||
        ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, data->data, data->len, NULL) != IPFSRT_OK)
        return false;
    if (ipfsrt_blockmap_get(&b->guessed, &cid)) return true;
    ipfsrt_rcblock *rc = ipfsrt_rcblock_new(&cid, data->data, data->len);
    if (!rc) return false;
    b->prefetched += rc->len;
    bool kept = ipfsrt_blockmap_put(&b->guessed, rc, NULL) == IPFSRT_OK;
    ipfsrt_rcblock_unref(rc);
    return kept;
}

/* Guesses that are over: a whole file's bytes are kept as a block; the read
 * walks again once the listing is in too. */
static ipfsrt_status settle_guesses(ipfsrt_client_batch *b, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    for (size_t k = b->guess_count; k-- > 0 && st == IPFSRT_OK;) {
        size_t i = b->guesses[k];
        item *it = &b->items[i];
        ipfsrt_status got;
        ipfsrt_error e;
        if (!ipfsrt_plain_over(it->guess, &got, &e)) continue;
        if (got != IPFSRT_OK || !ipfsrt_plain_whole(it->guess) || !keep_guess(b, &it->data)) b->no_guess = true;
        ipfsrt_buf_free(&it->data);
        ipfsrt_plain_end(it->guess);
        it->guess = NULL;
        b->guesses[k] = b->guesses[--b->guess_count];
        if (--it->waiting == 0) st = push_runnable(b, i, err);
    }
    return st;
}

/* A guessed read whose file the listing names by another block than the one
 * its guess hashed to: the gateway's plain answers are not the files' raw
 * blocks (other leaves, another hash), and later reads guess no more. */
static void judge_guess(ipfsrt_client_batch *b, const item *it) {
    if (it->guessed && it->cid.hash_code != IPFSRT_MH_IDENTITY && !ipfsrt_blockmap_get(&b->have, &it->cid) &&
        !ipfsrt_blockmap_get(&b->guessed, &it->cid))
        b->no_guess = true;
}

/* ---------------------------------------------------------------- walks */

static void finish(ipfsrt_client_batch *b, size_t i, item_state state, const ipfsrt_error *e) {
    item *it = &b->items[i];
    it->state = state;
    if (e) it->error = *e;
    b->ready[b->ready_tail++] = i;
    b->open--;
}

/* A whole raw block (a small file, or a block read): handed out from the block
 * itself. */
static void step_raw(ipfsrt_client_batch *b, size_t i, const ipfsrt_blocksource *src) {
    item *it = &b->items[i];
    ipfsrt_blocksource_ref ref;
    ipfsrt_error e;
    ipfsrt_status st = ipfsrt_blocksource_get(src, &it->cid, &ref, &e);
    if (b->missed) return;
    if (st != IPFSRT_OK) {
        finish(b, i, ITEM_FAILED, &e);
        return;
    }
    it->block = ref.token; /* the lent reference is the item's now */
    hand_to_cache(b, it->block);
    finish(b, i, ITEM_DONE, NULL);
}

static const listing *listing_of(const ipfsrt_client_batch *b, const char *path, size_t dir_len) {
    for (size_t k = 0; k < b->listing_count; k++)
        if (same_dir(b->listings[k].dir, path, dir_len)) return &b->listings[k];
    return NULL;
}

/* An entry of a directory listed already needs no walk of its shards. */
static bool resolve_listed(ipfsrt_client_batch *b, item *it) {
    const char *slash = strrchr(it->path, '/');
    if (!slash || !slash[1] || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0) return false;
    const listing *l = listing_of(b, it->path, (size_t)(slash - it->path));
    const ipfsrt_mhmap_entry *e =
        l ? ipfsrt_mhmap_get(&l->names, (const uint8_t *)slash + 1, strlen(slash + 1)) : NULL;
    if (!e) return false;
    it->cid = l->cids[e->offset];
    it->state = ITEM_READ;
    return true;
}

/* A read of the file's last bytes becomes a plain range once the file's root
 * block says how long it is; false when that block is not at hand (or bad). */
static bool settle_suffix(ipfsrt_client_batch *b, item *it, const ipfsrt_blocksource *src, ipfsrt_error *e) {
    char cid[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&it->cid, cid);
    ipfsrt_unixfs_node_info info;
    if (ipfsrt_unixfs_resolve(src, cid, NULL, &info, e) != IPFSRT_OK || b->missed) return false;
    it->offset = info.size > it->length ? info.size - it->length : 0;
    it->length = info.size - it->offset;
    it->from_end = false;
    return true;
}

/* Takes a read as far as the blocks at hand allow. */
static void step(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), b, batch_get, batch_release};
    ipfsrt_error e;
    ipfsrt_status st;
    if (it->state == ITEM_RESOLVE && resolve_listed(b, it)) {
        judge_guess(b, it);
    } else if (it->state == ITEM_RESOLVE) {
        ipfsrt_unixfs_node_info info;
        bool first = !it->prefetched;
        b->probing = first; /* what the first walk lacks comes in one request */
        b->lacked_set = false;
        st = ipfsrt_unixfs_resolve(&src, it->path, NULL, &info, &e);
        b->probing = false;
        if (b->missed && first) {
            if (start_guess(b, i) || ride_along(b, i) || start_ahead(b, i)) return;
            b->missed = false;
            st = ipfsrt_unixfs_resolve(&src, it->path, NULL, &info, &e);
        }
        if (b->missed) return;
        if (st != IPFSRT_OK) {
            finish(b, i, ITEM_FAILED, &e);
            return;
        }
        it->cid = info.cid;
        it->state = ITEM_READ;
    }
    if (it->from_end && !settle_suffix(b, it, &src, &e)) {
        if (!b->missed) finish(b, i, ITEM_FAILED, &e);
        return;
    }
    if (it->cid.codec == IPFSRT_CODEC_RAW && it->offset == 0 && it->cid.hash_code != IPFSRT_MH_IDENTITY) {
        step_raw(b, i, &src);
        return;
    }
    st = ipfsrt_unixfs_missing(&src, &it->cid, it->offset, it->length, want, b, &e);
    if (b->missed) return;
    b->consuming = true;
    if (st == IPFSRT_OK && it->length <= RESERVED_RANGE_MAX) /* one buffer, not one regrown block by block */
        (void)ipfsrt_buf_reserve(&it->data, (size_t)it->length); /* on failure the read's append says so */
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(&src, &it->cid, it->offset, it->length, collect, &it->data, &e);
    b->consuming = false;
    if (b->missed) { /* evicted from the cache since: fetched again */
        ipfsrt_buf_free(&it->data);
        return;
    }
    finish(b, i, st == IPFSRT_OK ? ITEM_DONE : ITEM_FAILED, st == IPFSRT_OK ? NULL : &e);
}

/* Unverified clients: a plain GET per path, all in flight at once (the
 * engine keeps the client's concurrency per gateway). */
static void step_plain(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    ipfsrt_error e;
    ipfsrt_status st = IPFSRT_OK;
    if (ipfsrt_array_reserve(&b->plains, &b->plain_cap, b->plain_count + 1, sizeof *b->plains))
        st = ipfsrt_fail(&e, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK)
        st = ipfsrt_plain_begin(b->c, it->path, it->offset, it->length, it->from_end, collect, &it->data, &it->plain, &e);
    if (st != IPFSRT_OK) finish(b, i, ITEM_FAILED, &e);
    else b->plains[b->plain_count++] = i;
}

/* One walk of read i; a walk that lacks blocks leaves it waiting for them. */
static void walk(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    b->walking = i;
    b->missed = false;
    b->want_failed = IPFSRT_OK;
    if (!it->path) {
        ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), b, batch_get, batch_release};
        step_raw(b, i, &src);
    } else if (!b->c->verify) {
        step_plain(b, i);
    } else {
        step(b, i);
    }
    if (b->want_failed && it->state < ITEM_DONE) finish(b, i, ITEM_FAILED, &b->want_error);
}

/* Walks the reads that can go on. */
static void walk_runnable(ipfsrt_client_batch *b) {
    for (size_t k = 0; k < b->runnable_count; k++) {
        size_t i = b->runnable[k];
        if (b->items[i].state < ITEM_DONE && !b->items[i].plain) walk(b, i);
    }
    b->runnable_count = 0; /* walks add no runnable reads (only settled jobs do) */
}

/* ----------------------------------------------------- shared directories */

typedef struct pinning {
    ipfsrt_client_batch *b;
    ipfsrt_blocksource stream; /* the session's source */
    size_t taken, budget;
} pinning;

/* The session's blocks, kept by the batch; stops the walk past the budget. */
static ipfsrt_status pin_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                             ipfsrt_error *err) {
    pinning *p = ctx;
    if (++p->taken > p->budget)
        return ipfsrt_fail_cid(err, IPFSRT_ECANCELED, cid, -1, "directory larger than the paths need");
    ipfsrt_status st = ipfsrt_blocksource_get(&p->stream, cid, ref, err);
    if (st == IPFSRT_OK && ref->token) keep(p->b, ref->token);
    return st;
}

static void pin_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    pinning *p = ctx;
    ipfsrt_blocksource_release(&p->stream, ref);
}

static void listing_free(listing *l) {
    free(l->dir);
    ipfsrt_mhmap_free(&l->names);
    free(l->cids);
}

static ipfsrt_status list_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    listing *l = user;
    bool added;
    if (ipfsrt_mhmap_put(&l->names, (const uint8_t *)e->name, e->name_len, l->count, 0, &added) ||
        ipfsrt_array_reserve(&l->cids, &l->cap, l->count + 1, sizeof *l->cids))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (added) l->cids[l->count++] = e->cid; /* a name twice: the walk finds the first too */
    return IPFSRT_OK;
}

/* Lists the directory at dir over src (verified blocks); kept when the whole
 * listing worked. */
static void list_dir(ipfsrt_client_batch *b, const char *dir, const ipfsrt_blocksource *src) {
    listing l = {.dir = strdup(dir)};
    ipfsrt_unixfs_node_info info;
    ipfsrt_mhmap_init(&l.names);
    ipfsrt_status st = l.dir ? ipfsrt_unixfs_resolve(src, dir, NULL, &info, NULL) : IPFSRT_EOUT_OF_MEMORY;
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(src, &info.cid, false, list_entry, &l, NULL);
    if (st == IPFSRT_OK &&
        ipfsrt_array_reserve(&b->listings, &b->listing_cap, b->listing_count + 1, sizeof *b->listings) == IPFSRT_OK) {
        b->listings[b->listing_count++] = l;
        return;
    }
    listing_free(&l); /* an error the blocks prove is the walks' to report */
}

/* True when the directory and all its shards are at hand already (it is then
 * listed); nothing is asked for. */
static bool list_if_at_hand(ipfsrt_client_batch *b, const char *dir) {
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), b, batch_get, batch_release};
    b->probing = true; /* what it lacks is not asked for */
    b->missed = false;
    list_dir(b, dir, &src);
    b->probing = false;
    return !b->missed;
}

/* The blocks a shared directory's answer may bring for paths reading it. */
static size_t dir_budget(size_t paths) { return DIR_SHARDS_BASE + DIR_SHARDS_PER_PATH * paths; }

/* One CAR request for the directory at dir (its path blocks and every shard),
 * proven by walking it from the root and listed; dropped past the budget. */
static void fetch_dir(ipfsrt_client_batch *b, const char *dir, size_t paths) {
    ipfsrt_cid root;
    const char *rest;
    if (ipfsrt_client_split_target(dir, &root, &rest, NULL) != IPFSRT_OK || list_if_at_hand(b, dir))
        return;
    session s;
    ipfsrt_session_init(&s, b->c, RESUME_ORIGINAL);
    ipfsrt_status st = ipfsrt_session_start_at(&s, &root, rest, "format=car&dag-scope=entity", NULL);
    pinning p = {b, {0}, 0, dir_budget(paths)};
    ipfsrt_session_source(&s, &p.stream);
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &p, pin_get, pin_release};
    size_t listed = b->listing_count;
    if (st == IPFSRT_OK) list_dir(b, dir, &src);
    ipfsrt_session_finish(&s, st == IPFSRT_OK && b->listing_count > listed);
}

static int by_dir(const void *x, const void *y) {
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    size_t la = dir_len(a), lb = dir_len(b);
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static bool dir_ahead_block(void *user, ipfsrt_rcblock *rc) {
    dir_ahead *d = user;
    bool room = keep_prefetched(d->b, rc);
    return ++d->blocks < d->budget && room;
}

static void dir_ahead_free(dir_ahead *d) {
    if (d->pf.t.c) ipfsrt_task_end(&d->pf.t);
    free(d->waiters);
    free(d->dir);
    free(d);
}

/* Asks for the directory at dir in one CAR request beside the reads (its
 * blocks are kept as they come); nothing when it is at hand already. */
static void start_dir_ahead(ipfsrt_client_batch *b, const char *dir, size_t paths) {
    if (list_if_at_hand(b, dir) ||
        ipfsrt_array_reserve(&b->dir_aheads, &b->dir_ahead_cap, b->dir_ahead_count + 1, sizeof *b->dir_aheads))
        return;
    dir_ahead *d = calloc(1, sizeof *d);
    if (!d) return; /* an optimisation: the walks work without it */
    *d = (dir_ahead){.b = b, .dir = strdup(dir), .budget = dir_budget(paths)};
    d->pf.on_block = dir_ahead_block;
    d->pf.user = d;
    if (!d->dir || !ipfsrt_prefetch_start_query(b->c, &d->pf, dir, "format=car&dag-scope=entity")) {
        dir_ahead_free(d);
        return;
    }
    b->dir_aheads[b->dir_ahead_count++] = d;
}

/* Listings whose answers ended are listed when all their blocks came (past
 * the budget or failed, they are not: the walks prove each path), and the
 * reads that guessed walk again once their guess is in too. */
static ipfsrt_status settle_dir_aheads(ipfsrt_client_batch *b, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    for (size_t k = b->dir_ahead_count; k-- > 0 && st == IPFSRT_OK;) {
        dir_ahead *d = b->dir_aheads[k];
        if (!ipfsrt_task_over(&d->pf.t)) continue;
        (void)list_if_at_hand(b, d->dir);
        for (size_t w = 0; w < d->waiter_count && st == IPFSRT_OK; w++)
            if (--b->items[d->waiters[w]].waiting == 0) st = push_runnable(b, d->waiters[w], err);
        b->dir_aheads[k] = b->dir_aheads[--b->dir_ahead_count];
        dir_ahead_free(d);
    }
    return st;
}

/* Directories that DIR_GROUP_MIN or more of the paths go through, each fetched
 * in one request and listed: before the walks, or beside them over HTTP/1.x
 * from far away. */
static void fetch_shared_dirs(ipfsrt_client_batch *b) {
    const char **paths = calloc(b->count ? b->count : 1, sizeof *paths);
    size_t n = 0;
    if (!paths) return; /* an optimisation: the walks work without it */
    for (size_t i = 0; i < b->count; i++)
        if (b->items[i].path && dir_len(b->items[i].path)) paths[n++] = b->items[i].path;
    qsort(paths, n, sizeof *paths, by_dir);
    bool beside = ipfsrt_client_http1_round_trip(b->c) >= FAR_ROUND_TRIP_S;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && by_dir(&paths[i], &paths[j]) == 0;) j++;
        char *dir = j - i >= DIR_GROUP_MIN ? strndup(paths[i], dir_len(paths[i])) : NULL;
        if (dir && beside) start_dir_ahead(b, dir, j - i);
        else if (dir) fetch_dir(b, dir, j - i);
        free(dir);
    }
    free(paths);
}

/* ---------------------------------------------------------------- rounds */

/* Lets reads into the window as others finish. While a listing is under way
 * beside them, as many as the gateways take at once: a read let in now
 * guesses and waits for the listing, one let in once the listing is in asks
 * by CID, so the rest wait for a connection, not for the listing. (Fewer
 * left connections unopened, which opened cold once the listing came.) */
static ipfsrt_status admit(ipfsrt_client_batch *b, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    size_t window = BATCH_WINDOW;
    if (b->dir_ahead_count) window = (size_t)b->c->in_flight_max * b->c->gateways.count;
    if (window == 0) window = 1;
    while (st == IPFSRT_OK && b->admitted < b->count && b->open < window) {
        b->open++;
        st = push_runnable(b, b->admitted++, err);
    }
    return st;
}

/* Takes the batch on until at least one read is finished (or nothing is left). */
static ipfsrt_status advance(ipfsrt_client_batch *b, ipfsrt_error *err) {
    if (!b->dirs_fetched && b->c->verify) {
        b->dirs_fetched = true;
        fetch_shared_dirs(b);
        ipfsrt_status st = ipfsrt_client_halt_status(b->c, err);
        if (st != IPFSRT_OK) return st;
    }
    ipfsrt_status st = admit(b, err);
    while (st == IPFSRT_OK && b->ready_head == b->ready_tail) {
        walk_runnable(b);
        if (b->ready_head != b->ready_tail) break;
        if (!b->inflight_count && !b->plain_count && !b->ahead_count && !b->dir_ahead_count && !b->guess_count)
            return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "batch stalled: its reads wait for no block");
        st = pump(b, err);
        if (st == IPFSRT_OK) st = admit(b, err); /* reads that finished, or a listing that came, make room */
    }
    return st;
}

/* ------------------------------------------------------------------ API */

ipfsrt_status ipfsrt_client_batch_new(ipfsrt_client_batch **out, ipfsrt_client *c, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(c, err);
    ipfsrt_client_batch *b = calloc(1, sizeof *b);
    if (!b) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    b->c = c;
    ipfsrt_blockmap_init(&b->have);
    ipfsrt_blockmap_init(&b->guessed);
    ipfsrt_mhmap_init(&b->inflight_set);
    ipfsrt_mhmap_init(&b->failed_set);
    *out = b;
    return IPFSRT_OK;
}

static ipfsrt_status add(ipfsrt_client_batch *b, item **out, ipfsrt_error *err) {
    if (b->admitted) /* reads under way hold pointers into items */
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "reads are added to a batch before its first result is asked for");
    if (ipfsrt_array_reserve(&b->ready, &b->ready_cap, b->count + 1, sizeof *b->ready) ||
        ipfsrt_array_reserve(&b->items, &b->cap, b->count + 1, sizeof *b->items))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    item *it = &b->items[b->count++];
    memset(it, 0, sizeof *it);
    it->length = UINT64_MAX; /* a block: the whole of it */
    ipfsrt_buf_init(&it->data);
    ipfsrt_error_clear(&it->error);
    *out = it;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_client_batch_add_path(ipfsrt_client_batch *b, const char *path, uint64_t offset,
                                           uint64_t length, ipfsrt_error *err) {
    IPFSRT_NEED(b, err);
    IPFSRT_NEED(path, err);
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = IPFSRT_OK;
    bool url = strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0;
    if (b->c->verify && url)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: a plain URL cannot be verified", path);
    const char *target = path;
    char *resolved = NULL, *key = NULL;
    if (!url) st = ipfsrt_client_name_target(b->c, path, &target, &resolved, err);
    if (st == IPFSRT_OK && !url) st = ipfsrt_client_split_target(target, &root, &rest, err);
    if (st == IPFSRT_OK && length != UINT64_MAX && offset > UINT64_MAX - length)
        st = ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "byte range overflows");
    char *copy = st == IPFSRT_OK ? (resolved ? resolved : strdup(path)) : NULL;
    if (resolved && st == IPFSRT_OK) key = strdup(path);
    if (st == IPFSRT_OK && (!copy || (resolved && !key))) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    item *it;
    if (st == IPFSRT_OK) st = add(b, &it, err);
    if (st != IPFSRT_OK) {
        free(copy != resolved ? copy : NULL);
        free(resolved);
        free(key);
        return st;
    }
    it->path = copy;
    it->key = key;
    it->offset = offset;
    it->length = length;
    it->state = ITEM_RESOLVE;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_client_batch_add_suffix(ipfsrt_client_batch *b, const char *path, uint64_t length,
                                             ipfsrt_error *err) {
    IPFSRT_NEED(b, err);
    ipfsrt_status st = ipfsrt_client_batch_add_path(b, path, 0, length, err);
    if (st == IPFSRT_OK) b->items[b->count - 1].from_end = true;
    return st;
}

ipfsrt_status ipfsrt_client_batch_add_block(ipfsrt_client_batch *b, const ipfsrt_cid *cid,
                                            ipfsrt_error *err) {
    IPFSRT_NEED(b, err);
    IPFSRT_NEED(cid, err);
    item *it;
    ipfsrt_status st = add(b, &it, err);
    if (st != IPFSRT_OK) return st;
    it->cid = *cid;
    it->state = ITEM_READ;
    return IPFSRT_OK;
}

static void describe(ipfsrt_client_batch *b, size_t i, ipfsrt_range_result *r) {
    item *it = &b->items[i];
    memset(r, 0, sizeof *r);
    r->index = i;
    r->key = it->key ? it->key : it->path ? it->path : "";
    r->cid = &it->cid;
    r->object_size = UINT64_MAX;
    r->status = it->state == ITEM_DONE ? IPFSRT_OK : it->error.code;
    r->error = it->error;
    r->data = it->block ? it->block->data : it->data.data ? it->data.data : (const uint8_t *)"";
    r->len = it->block ? it->block->len : it->data.len;
    if (it->block && !it->from_end && r->len > it->length) r->len = (size_t)it->length; /* a raw block read in part */
    if (it->block && r->status == IPFSRT_OK) r->lent = (ipfsrt_lent){ipfsrt_rcblock_hold, ipfsrt_rcblock_release, it->block};
}

ipfsrt_status ipfsrt_client_batch_next(ipfsrt_client_batch *b, ipfsrt_range_result *result,
                                       bool *done, ipfsrt_error *err) {
    IPFSRT_NEED(b, err);
    IPFSRT_NEED(result, err);
    IPFSRT_NEED(done, err);
    if (b->has_last) { /* handed over: memory stays bounded by what is in flight */
        ipfsrt_buf_free(&b->items[b->last].data);
        ipfsrt_rcblock_unref(b->items[b->last].block);
        b->items[b->last].block = NULL;
        b->has_last = false;
    }
    *done = false;
    ipfsrt_client_call_start(b->c);
    while (b->ready_head == b->ready_tail) {
        if (b->reported == b->count) {
            *done = true;
            return IPFSRT_OK;
        }
        ipfsrt_status st = advance(b, err);
        if (st != IPFSRT_OK) return st;
    }
    size_t i = b->ready[b->ready_head++];
    b->reported++;
    b->has_last = true;
    b->last = i;
    describe(b, i, result);
    return IPFSRT_OK;
}

void ipfsrt_client_batch_free(ipfsrt_client_batch *b) {
    if (!b) return;
    for (size_t i = 0; i < b->count; i++) {
        ipfsrt_plain_end(b->items[i].plain); /* cancels */
        ipfsrt_plain_end(b->items[i].guess);
        free(b->items[i].path);
        free(b->items[i].key);
        ipfsrt_buf_free(&b->items[i].data);
        ipfsrt_rcblock_unref(b->items[i].block);
    }
    free(b->items);
    free(b->ready);
    free(b->runnable);
    for (size_t k = 0; k < b->inflight_count; k++) pending_free(b->inflight[k]); /* cancels */
    free(b->inflight);
    for (size_t k = 0; k < b->ahead_count; k++) ahead_free(b->aheads[k]); /* cancels */
    free(b->aheads);
    for (size_t k = 0; k < b->dir_ahead_count; k++) dir_ahead_free(b->dir_aheads[k]); /* cancels */
    free(b->dir_aheads);
    free(b->plains);
    free(b->guesses);
    ipfsrt_blockmap_free(&b->guessed); /* what no walk asked for: hashed, never proven to belong */
    ipfsrt_mhmap_free(&b->inflight_set);
    for (size_t k = 0; k < b->listing_count; k++) listing_free(&b->listings[k]);
    free(b->listings);
    free(b->failed);
    ipfsrt_mhmap_free(&b->failed_set);
    ipfsrt_blockcache_put_all(b->c->cache, &b->have); /* verified: worth keeping */
    ipfsrt_blockmap_free(&b->have);
    free(b);
}

ipfsrt_status ipfsrt_client_get_many(ipfsrt_client *c, const ipfsrt_range_request *requests, size_t n,
                                     ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED(fn, err);
    ipfsrt_client_batch *b;
    ipfsrt_status st = ipfsrt_client_batch_new(&b, c, err);
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        const ipfsrt_range_request *r = &requests[i];
        st = r->from_end ? ipfsrt_client_batch_add_suffix(b, r->key, r->length, err)
                         : ipfsrt_client_batch_add_path(b, r->key, r->offset, r->length, err);
    }
    bool done = false;
    while (st == IPFSRT_OK && !done) {
        ipfsrt_range_result r;
        st = ipfsrt_client_batch_next(b, &r, &done, err);
        if (st == IPFSRT_OK && !done && fn) st = fn(user, &r, err);
    }
    if (b) ipfsrt_client_batch_free(b);
    return st;
}
