/* Prefetches: one CAR request for a path (the blocks that lead to it and the
 * file's blocks, or those of a byte range), each block checked against its CID
 * and handed over as it comes, so that a read that knows nothing of the path
 * yet takes one round trip instead of one per level of directories and shards.
 * A prefetch proves nothing by itself: the reader's walk from the root decides
 * which blocks are on the path and asks by CID for what the answer lacked. So
 * an answer that leaves blocks out, or that the owner stops because it has had
 * enough, is not held against the gateway; a block that fails its hash is. */
#include <stdio.h>
#include <string.h>

#include "client/client_internal.h"

static void prefetch_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    const prefetch *p = t->owner;
    snprintf(path, path_size, "%s", p->path);
    snprintf(query, query_size, "%s", p->query);
}

/* A checked block goes to the owner, unless the task is over already (the
 * loser of a hedged race). Returns false when the owner wants no more. */
static bool prefetch_accept(attempt *a, ipfsrt_rcblock *b) {
    prefetch *p = a->t->owner;
    bool more = a->t->state == TASK_DONE || p->on_block(p->user, b);
    ipfsrt_rcblock_unref(b);
    return more;
}

static ipfsrt_status prefetch_block(void *user, const ipfsrt_car_block *blk, ipfsrt_error *err) {
    attempt *a = user;
    const ipfsrt_client *c = a->t->c;
    /* Counted before hashing: repeats (dups=y of a diamond DAG) and floods of
     * tiny blocks would otherwise keep the hashing threads busy for ever; the
     * owner bounds the bytes it keeps. */
    if (++a->car_blocks > c->pending_blocks_cap) {
        a->enough = true;
        return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "a prefetch takes at most %llu blocks",
                           (unsigned long long)c->pending_blocks_cap);
    }
    bool handed;
    ipfsrt_rcblock *b = ipfsrt_attempt_car_block(a, blk, &handed);
    if (handed) return IPFSRT_OK;
    if (!b) return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", a->detail);
    if (prefetch_accept(a, b)) return IPFSRT_OK;
    a->enough = true;
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "the reader has had enough");
}

static int prefetch_body(attempt *a, const uint8_t *data, size_t len) {
    if (a->enough) return 1;
    if (!a->car && !ipfsrt_attempt_car_start(a, prefetch_block)) return 1;
    return ipfsrt_attempt_car_feed(a, data, len);
}

/* A block back from the hashing threads; the answer is judged once the last
 * one is back, or at once when one failed. */
static void prefetch_hashed(attempt *a, ipfsrt_vjob *job) {
    if (job->status != IPFSRT_OK) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                            (unsigned long long)job->stream_offset, job->message);
        ipfsrt_attempt_abandon(a);
        return;
    }
    ipfsrt_rcblock *b = job->block;
    job->block = NULL;
    if (!prefetch_accept(a, b) && !a->finished) {
        a->enough = true;
        if (a->req) a->t->c->engine.cancel(a->t->c->engine.ctx, a->req);
        a->req = NULL;
        a->finished = true;
    }
    if (a->finished && !a->hashing) ipfsrt_attempt_settle(a);
}

static const task_ops prefetch_ops = {prefetch_request, prefetch_body, ipfsrt_attempt_car_complete, NULL, NULL,
                                      prefetch_hashed, false, false, true};

bool ipfsrt_prefetch_start_query(ipfsrt_client *c, prefetch *p, const char *path, const char *query) {
    ipfsrt_cid root;
    const char *rest;
    if (ipfsrt_client_split_target(path, &root, &rest, NULL) != IPFSRT_OK ||
        ipfsrt_path_to_url(&root, rest, p->path, sizeof p->path, NULL) != IPFSRT_OK ||
        (size_t)snprintf(p->query, sizeof p->query, "%s", query) >= sizeof p->query)
        return false;
    ipfsrt_task_begin(&p->t, c, &prefetch_ops, IPFSRT_REQUEST_CAR, p);
    return true;
}

bool ipfsrt_prefetch_start(ipfsrt_client *c, prefetch *p, const char *path, uint64_t offset,
                           uint64_t length, bool from_end) {
    char query[256];
    if (from_end && length == 0)
        snprintf(query, sizeof query, "format=car&dag-scope=block");
    else if (from_end)
        snprintf(query, sizeof query, "format=car&dag-scope=entity&entity-bytes=-%llu:*",
                 (unsigned long long)length);
    else
        ipfsrt_session_range_query(query, sizeof query, offset,
                                   length == UINT64_MAX ? UINT64_MAX : offset + length);
    return ipfsrt_prefetch_start_query(c, p, path, query);
}
