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
    ipfsrt_client *c = a->t->c;
    ipfsrt_rcblock *b = ipfsrt_rcblock_new(&blk->cid, blk->data, blk->len);
    if (!b) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
        return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", a->detail);
    }
    if (c->pool && ipfsrt_attempt_hash_elsewhere(a, b, blk->offset)) return IPFSRT_OK;
    if (c->pool) { /* the reader left hashing to us */
        ipfsrt_error e;
        if (ipfsrt_cid_verify(&b->cid, b->data, b->len, &e) != IPFSRT_OK) {
            ipfsrt_rcblock_unref(b);
            ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                                (unsigned long long)blk->offset, e.message);
            return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", a->detail);
        }
    }
    if (prefetch_accept(a, b)) return IPFSRT_OK;
    a->enough = true;
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "the reader has had enough");
}

static int prefetch_body(attempt *a, const uint8_t *data, size_t len) {
    ipfsrt_client *c = a->t->c;
    ipfsrt_error e;
    if (a->enough) return 1;
    if (!a->car) {
        ipfsrt_car_options opts = {.max_block_size = c->max_block};
        if (ipfsrt_car_reader_new(&a->car, &opts, prefetch_block, a, &e) != IPFSRT_OK) {
            ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
            return 1;
        }
        if (c->pool) ipfsrt_car_reader_defer_hashing(a->car);
    }
    ipfsrt_status st = ipfsrt_car_reader_feed(a->car, data, len, &e);
    if (st == IPFSRT_OK || a->enough) return st != IPFSRT_OK;
    if (st == IPFSRT_EHASH_MISMATCH) ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "%s", e.message);
    else if (st == IPFSRT_ETOO_LARGE) ipfsrt_attempt_fail(a, IPFSRT_GWERR_TOO_LARGE, "%s", e.message);
    else ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
    return 1;
}

static ipfsrt_gateway_error prefetch_complete(attempt *a) {
    if (a->enough) return IPFSRT_GWERR_NONE;
    ipfsrt_error e;
    if (!a->car) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "empty body where a CAR was expected");
        return a->error;
    }
    ipfsrt_status st = ipfsrt_car_reader_finish(a->car, &e);
    if (st == IPFSRT_ETRUNCATED) ipfsrt_attempt_fail(a, IPFSRT_GWERR_TRUNCATED, "%s", e.message);
    else if (st != IPFSRT_OK) ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
    return a->error;
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

static const task_ops prefetch_ops = {prefetch_request, prefetch_body, prefetch_complete, NULL, NULL,
                                      prefetch_hashed, false, false, true};

bool ipfsrt_prefetch_start(ipfsrt_client *c, prefetch *p, const char *path, uint64_t offset,
                           uint64_t length, bool from_end) {
    ipfsrt_cid root;
    const char *rest;
    if (ipfsrt_client_split_target(path, &root, &rest, NULL) != IPFSRT_OK ||
        ipfsrt_path_to_url(&root, rest, p->path, sizeof p->path, NULL) != IPFSRT_OK)
        return false;
    if (from_end && length == 0)
        snprintf(p->query, sizeof p->query, "format=car&dag-scope=block");
    else if (from_end)
        snprintf(p->query, sizeof p->query, "format=car&dag-scope=entity&entity-bytes=-%llu:*",
                 (unsigned long long)length);
    else
        ipfsrt_session_range_query(p->query, sizeof p->query, offset,
                                   length == UINT64_MAX ? UINT64_MAX : offset + length);
    ipfsrt_task_begin(&p->t, c, &prefetch_ops, IPFSRT_REQUEST_CAR, p);
    return true;
}
