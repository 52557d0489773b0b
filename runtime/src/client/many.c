/* Many reads in flight (ipfsrt_client_batch): every path is walked over the
 * blocks the batch holds; what the walks lack is gathered across all reads and
 * fetched at once by CID (block jobs: verified, policy, retries), and the walks
 * run again. Each round takes every open read one level further, so a directory
 * block on many routes is fetched once. Before the first round, a directory that
 * many paths share is asked for whole in one CAR request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

#define BATCH_WINDOW 1024       /* reads walked at once; later ones wait their turn */
#define DIR_GROUP_MIN 8         /* paths through one directory that make it worth one request */
#define DIR_SHARDS_PER_PATH 4   /* ... as long as it holds no more blocks than this per path */
#define DIR_SHARDS_BASE 64

typedef enum item_state { ITEM_RESOLVE, ITEM_READ, ITEM_DONE, ITEM_FAILED } item_state;

typedef struct item {
    char *path;       /* NULL for a block read */
    ipfsrt_cid cid;   /* the block; for a path, the file once resolved */
    uint64_t offset, length;
    item_state state;
    ipfsrt_error error;
    ipfsrt_buf data;
    ipfsrt_rcblock *block; /* a raw block read whole: lent as it is, not copied */
} item;

typedef struct failed_block {
    ipfsrt_cid cid;
    ipfsrt_error error;
} failed_block;

struct ipfsrt_client_batch {
    ipfsrt_client *c;
    item *items;
    size_t count, cap;
    size_t *ready; /* finished reads not yet reported, in order (a queue) */
    size_t ready_head, ready_tail, ready_cap;
    size_t open_from; /* reads before it are finished */
    size_t reported;
    bool has_last;
    size_t last;            /* reported last: its bytes are freed at the next call */
    bool dirs_fetched;
    ipfsrt_blockmap have;   /* verified blocks fetched for this batch */
    failed_block *failed;   /* blocks no gateway delivered */
    size_t failed_count, failed_cap;
    ipfsrt_cid *wanted;     /* what the walks of this round lack, once each */
    size_t wanted_count, wanted_cap;
    ipfsrt_mhmap wanted_set;
    bool missed;            /* the walk under way lacked a block */
    bool consuming;         /* the walk under way is a read's last: its data blocks go */
};

/* ------------------------------------------------------------ the source */

static const failed_block *failure_of(const ipfsrt_client_batch *b, const ipfsrt_cid *cid) {
    for (size_t i = 0; i < b->failed_count; i++)
        if (ipfsrt_cid_equal(&b->failed[i].cid, cid)) return &b->failed[i];
    return NULL;
}

static ipfsrt_status want(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_client_batch *b = user;
    b->missed = true;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    bool inserted = false;
    if (ipfsrt_mhmap_put(&b->wanted_set, mh, mh_len, 0, 0, &inserted) != IPFSRT_OK)
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    if (!inserted) return IPFSRT_OK;
    if (ipfsrt_array_reserve(&b->wanted, &b->wanted_cap, b->wanted_count + 1, sizeof *b->wanted))
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    b->wanted[b->wanted_count++] = *cid;
    return IPFSRT_OK;
}

/* The batch's blocks, then the cache; a block neither has is wanted for the
 * next round and reported missing, one no gateway delivered is an error. */
static ipfsrt_status batch_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_client_batch *b = ctx;
    ipfsrt_rcblock *rc = ipfsrt_blockmap_get(&b->have, cid);
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

/* The round's list of wanted blocks starts empty again. */
static void forget_wanted(ipfsrt_client_batch *b) {
    b->wanted_count = 0;
    ipfsrt_mhmap_free(&b->wanted_set);
    ipfsrt_mhmap_init(&b->wanted_set);
}

/* Keeps a verified block for the rest of the batch (a copy when another map
 * holds it already). */
static void keep(ipfsrt_client_batch *b, ipfsrt_rcblock *rc) {
    if (ipfsrt_blockmap_get(&b->have, &rc->cid)) return;
    ipfsrt_rcblock *mine = rc->mapped ? ipfsrt_rcblock_new(&rc->cid, rc->data, rc->len) : rc;
    if (!mine) return; /* the next round asks for it again */
    (void)ipfsrt_blockmap_put(&b->have, mine, NULL);
    if (mine != rc) ipfsrt_rcblock_unref(mine);
}

/* --------------------------------------------------------------- rounds */

/* Room to record every wanted block as failed. */
static ipfsrt_status reserve_failures(ipfsrt_client_batch *b, ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&b->failed, &b->failed_cap, b->failed_count + b->wanted_count,
                             sizeof *b->failed))
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    return IPFSRT_OK;
}

/* Fetches every wanted block at once and waits for all of them. */
static ipfsrt_status fetch_wanted(ipfsrt_client_batch *b, ipfsrt_error *err) {
    size_t n = b->wanted_count;
    if (reserve_failures(b, err) != IPFSRT_OK) return IPFSRT_ENOMEM;
    block_job *jobs = calloc(n, sizeof *jobs);
    if (!jobs) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    size_t started = 0;
    for (; started < n && st == IPFSRT_OK; started++) {
        jobs[started].cid = b->wanted[started];
        jobs[started].keep = true;
        if (!ipfsrt_blockjob_start(b->c, &jobs[started])) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    }
    for (size_t open = n; st == IPFSRT_OK && open;) {
        open = 0;
        for (size_t i = 0; i < n; i++) open += jobs[i].t.state != TASK_DONE && jobs[i].t.state != TASK_FAILED;
        if (open) st = ipfsrt_task_pump(b->c, 50, err);
    }
    for (size_t i = 0; i < started; i++) {
        block_job *j = &jobs[i];
        if (st == IPFSRT_OK && j->t.state == TASK_DONE) {
            keep(b, j->result);
        } else if (st == IPFSRT_OK) {
            failed_block *f = &b->failed[b->failed_count++];
            f->cid = j->cid;
            ipfsrt_task_error(&j->t, &f->error);
            ipfsrt_cid_to_string(&j->cid, f->error.cid);
        }
        if (j->t.c) ipfsrt_task_end(&j->t);
        ipfsrt_rcblock_unref(j->result);
    }
    free(jobs);
    forget_wanted(b);
    return st;
}

static void finish(ipfsrt_client_batch *b, size_t i, item_state state, const ipfsrt_error *e) {
    item *it = &b->items[i];
    it->state = state;
    if (e) it->error = *e;
    b->ready[b->ready_tail++] = i;
}

static ipfsrt_status collect(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    ipfsrt_buf *buf = user;
    ipfsrt_buf_append(buf, data, len);
    return buf->failed ? ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory") : IPFSRT_OK;
}

/* A whole raw block (a small file): handed out from the block itself. */
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

/* Takes a read as far as the blocks at hand allow. */
static void step(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    ipfsrt_blocksource src = {b, batch_get, batch_release};
    ipfsrt_error e;
    ipfsrt_status st;
    b->missed = false;
    if (it->state == ITEM_RESOLVE) {
        ipfsrt_unixfs_node_info info;
        st = ipfsrt_unixfs_resolve(&src, it->path, NULL, &info, &e);
        if (b->missed) return;
        if (st != IPFSRT_OK) {
            finish(b, i, ITEM_FAILED, &e);
            return;
        }
        it->cid = info.cid;
        it->state = ITEM_READ;
    }
    if (it->cid.codec == IPFSRT_CODEC_RAW && it->offset == 0 && it->length == UINT64_MAX &&
        it->cid.hash_code != IPFSRT_MH_IDENTITY) {
        step_raw(b, i, &src);
        return;
    }
    st = ipfsrt_unixfs_missing(&src, &it->cid, it->offset, it->length, want, b, &e);
    if (b->missed) return;
    b->consuming = true;
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(&src, &it->cid, it->offset, it->length, collect, &it->data, &e);
    b->consuming = false;
    if (b->missed) { /* evicted from the cache since: fetched again */
        ipfsrt_buf_free(&it->data);
        return;
    }
    finish(b, i, st == IPFSRT_OK ? ITEM_DONE : ITEM_FAILED, st == IPFSRT_OK ? NULL : &e);
}

/* Unverified clients: one plain GET per path. */
static void step_plain(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    ipfsrt_error e;
    ipfsrt_status st = ipfsrt_plain_get(b->c, it->path, it->offset, it->length, collect, &it->data, &e);
    finish(b, i, st == IPFSRT_OK ? ITEM_DONE : ITEM_FAILED, st == IPFSRT_OK ? NULL : &e);
}

static void step_block(ipfsrt_client_batch *b, size_t i) {
    item *it = &b->items[i];
    ipfsrt_blocksource src = {b, batch_get, batch_release};
    ipfsrt_blocksource_ref ref;
    ipfsrt_error e;
    b->missed = false;
    ipfsrt_status st = ipfsrt_blocksource_get(&src, &it->cid, &ref, &e);
    if (b->missed) return;
    if (st == IPFSRT_OK) {
        ipfsrt_buf_append(&it->data, ref.data, ref.len);
        ipfsrt_blocksource_release(&src, &ref);
        if (it->data.failed) st = ipfsrt_fail(&e, IPFSRT_ENOMEM, -1, "out of memory");
    }
    finish(b, i, st == IPFSRT_OK ? ITEM_DONE : ITEM_FAILED, st == IPFSRT_OK ? NULL : &e);
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

static ipfsrt_status ignore_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)e, (void)err;
    return IPFSRT_OK;
}

/* True when the directory and all its shards are at hand already. */
static bool dir_at_hand(ipfsrt_client_batch *b, const char *dir) {
    ipfsrt_blocksource src = {b, batch_get, batch_release};
    ipfsrt_unixfs_node_info info;
    b->missed = false;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&src, dir, NULL, &info, NULL);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, ignore_entry, NULL, NULL);
    (void)st; /* an error the blocks prove is the rounds' to report */
    bool at_hand = !b->missed;
    forget_wanted(b); /* the rounds will ask for what they need themselves */
    return at_hand;
}

/* One CAR request for the directory at dir (its path blocks and every shard),
 * proven by walking it from the root; dropped past the budget. */
static void fetch_dir(ipfsrt_client_batch *b, const char *dir, size_t paths) {
    ipfsrt_cid root;
    const char *rest;
    if (ipfsrt_client_split_target(dir, &root, &rest, NULL) != IPFSRT_OK || dir_at_hand(b, dir)) return;
    session s;
    ipfsrt_session_init(&s, b->c, RESUME_ORIGINAL);
    ipfsrt_status st = ipfsrt_session_start_at(&s, &root, rest, "format=car&dag-scope=entity", NULL);
    pinning p = {b, {0}, 0, DIR_SHARDS_BASE + DIR_SHARDS_PER_PATH * paths};
    ipfsrt_session_source(&s, &p.stream);
    ipfsrt_blocksource src = {&p, pin_get, pin_release};
    ipfsrt_unixfs_node_info info;
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_resolve(&src, dir, NULL, &info, NULL);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, ignore_entry, NULL, NULL);
    ipfsrt_session_finish(&s, st == IPFSRT_OK);
}

static size_t dir_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static int by_dir(const void *x, const void *y) {
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    size_t la = dir_len(a), lb = dir_len(b);
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* Directories that DIR_GROUP_MIN or more of the paths go through, each fetched
 * in one request. */
static void fetch_shared_dirs(ipfsrt_client_batch *b) {
    const char **paths = calloc(b->count ? b->count : 1, sizeof *paths);
    size_t n = 0;
    if (!paths) return; /* an optimisation: the rounds work without it */
    for (size_t i = 0; i < b->count; i++)
        if (b->items[i].path && dir_len(b->items[i].path)) paths[n++] = b->items[i].path;
    qsort(paths, n, sizeof *paths, by_dir);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && by_dir(&paths[i], &paths[j]) == 0;) j++;
        size_t len = dir_len(paths[i]);
        char *dir = j - i >= DIR_GROUP_MIN ? strndup(paths[i], len) : NULL;
        if (dir) fetch_dir(b, dir, j - i);
        free(dir);
    }
    free(paths);
}

/* One round: every open read in the window goes as far as it can, then what
 * they lack is fetched. */
static ipfsrt_status advance(ipfsrt_client_batch *b, ipfsrt_error *err) {
    if (!b->dirs_fetched && b->c->verify) {
        b->dirs_fetched = true;
        fetch_shared_dirs(b);
        ipfsrt_status st = ipfsrt_client_halt_status(b->c, err);
        if (st != IPFSRT_OK) return st;
    }
    while (b->open_from < b->count && b->items[b->open_from].state >= ITEM_DONE) b->open_from++;
    size_t end = b->open_from + BATCH_WINDOW < b->count ? b->open_from + BATCH_WINDOW : b->count;
    for (size_t i = b->open_from; i < end; i++) {
        item *it = &b->items[i];
        if (it->state >= ITEM_DONE) continue;
        if (!b->c->verify && it->path) step_plain(b, i);
        else if (it->path) step(b, i);
        else step_block(b, i);
        if (b->ready_tail > b->ready_head && !b->c->verify) break; /* report plain reads one by one */
    }
    if (!b->wanted_count) return IPFSRT_OK;
    return fetch_wanted(b, err);
}

/* ------------------------------------------------------------------ API */

ipfsrt_status ipfsrt_client_batch_new(ipfsrt_client_batch **out, ipfsrt_client *c, ipfsrt_error *err) {
    ipfsrt_client_batch *b = calloc(1, sizeof *b);
    if (!b) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    b->c = c;
    ipfsrt_blockmap_init(&b->have);
    ipfsrt_mhmap_init(&b->wanted_set);
    *out = b;
    return IPFSRT_OK;
}

static ipfsrt_status add(ipfsrt_client_batch *b, item **out, ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&b->ready, &b->ready_cap, b->count + 1, sizeof *b->ready) ||
        ipfsrt_array_reserve(&b->items, &b->cap, b->count + 1, sizeof *b->items))
        return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    item *it = &b->items[b->count++];
    memset(it, 0, sizeof *it);
    ipfsrt_buf_init(&it->data);
    ipfsrt_error_clear(&it->error);
    *out = it;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_client_batch_add_path(ipfsrt_client_batch *b, const char *path, uint64_t offset,
                                           uint64_t length, ipfsrt_error *err) {
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = IPFSRT_OK;
    bool url = strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0;
    if (b->c->verify && url)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "%.200s: a plain URL cannot be verified", path);
    if (!url) st = ipfsrt_client_split_target(path, &root, &rest, err);
    if (st == IPFSRT_OK && length != UINT64_MAX && offset > UINT64_MAX - length)
        st = ipfsrt_fail(err, IPFSRT_ERANGE, -1, "byte range overflows");
    char *copy = st == IPFSRT_OK ? strdup(path) : NULL;
    if (st == IPFSRT_OK && !copy) st = ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
    item *it;
    if (st == IPFSRT_OK) st = add(b, &it, err);
    if (st != IPFSRT_OK) {
        free(copy);
        return st;
    }
    it->path = copy;
    it->offset = offset;
    it->length = length;
    it->state = ITEM_RESOLVE;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_client_batch_add_block(ipfsrt_client_batch *b, const ipfsrt_cid *cid,
                                            ipfsrt_error *err) {
    item *it;
    ipfsrt_status st = add(b, &it, err);
    if (st != IPFSRT_OK) return st;
    it->cid = *cid;
    it->state = ITEM_READ;
    return IPFSRT_OK;
}

static void describe(ipfsrt_client_batch *b, size_t i, ipfsrt_client_batch_result *r) {
    item *it = &b->items[i];
    memset(r, 0, sizeof *r);
    r->index = i;
    r->path = it->path ? it->path : "";
    r->cid = it->cid;
    r->status = it->state == ITEM_DONE ? IPFSRT_OK : it->error.code;
    r->error = it->error;
    r->data = it->block ? it->block->data : it->data.data ? it->data.data : (const uint8_t *)"";
    r->len = it->block ? it->block->len : it->data.len;
}

ipfsrt_status ipfsrt_client_batch_next(ipfsrt_client_batch *b, ipfsrt_client_batch_result *result,
                                       bool *done, ipfsrt_error *err) {
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
        free(b->items[i].path);
        ipfsrt_buf_free(&b->items[i].data);
        ipfsrt_rcblock_unref(b->items[i].block);
    }
    free(b->items);
    free(b->ready);
    free(b->failed);
    free(b->wanted);
    ipfsrt_mhmap_free(&b->wanted_set);
    ipfsrt_blockcache_put_all(b->c->cache, &b->have); /* verified: worth keeping */
    ipfsrt_blockmap_free(&b->have);
    free(b);
}

ipfsrt_status ipfsrt_client_get_many(ipfsrt_client *c, const char *const *paths, size_t n,
                                     ipfsrt_client_result_fn fn, void *user, ipfsrt_error *err) {
    ipfsrt_client_batch *b;
    ipfsrt_status st = ipfsrt_client_batch_new(&b, c, err);
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++)
        st = ipfsrt_client_batch_add_path(b, paths[i], 0, UINT64_MAX, err);
    bool done = false;
    while (st == IPFSRT_OK && !done) {
        ipfsrt_client_batch_result r;
        st = ipfsrt_client_batch_next(b, &r, &done, err);
        if (st == IPFSRT_OK && !done && fn) st = fn(user, &r, err);
    }
    if (b) ipfsrt_client_batch_free(b);
    return st;
}
