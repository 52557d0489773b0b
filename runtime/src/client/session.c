/* Sessions: a path read as one CAR stream. The body streams through the push
 * reader into a pending map of verified blocks, and the UnixFS walker pulls from
 * there (pumping the engine while it waits), starting at the root CID: a block
 * only counts when the walk from the root reaches it, which is what proves the
 * path. An answer that falls short is resumed with a narrower request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client_internal.h"

void ipfsrt_session_range_query(char *query, size_t size, uint64_t from, uint64_t end) {
    if (end != UINT64_MAX && from >= end) {
        snprintf(query, size, "format=car&dag-scope=block");
    } else if (end == UINT64_MAX) {
        snprintf(query, size, "format=car&dag-scope=entity&entity-bytes=%llu:*",
                 (unsigned long long)from);
    } else {
        snprintf(query, size, "format=car&dag-scope=entity&entity-bytes=%llu:%llu",
                 (unsigned long long)from, (unsigned long long)(end - 1));
    }
}

static void session_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    session *s = t->owner;
    char cs[IPFSRT_CID_STR_MAX];
    if (t->attempts > 0 && s->mode == RESUME_RANGE && s->target_known) {
        ipfsrt_cid_v1_string(&s->target, cs);
        snprintf(path, path_size, "/ipfs/%s", cs);
        ipfsrt_session_range_query(query, query_size, s->range_from + s->written, s->range_end);
        s->request_root = s->target;
    } else if (t->attempts > 0 && s->mode == RESUME_SUBDAG && s->target_known) {
        /* the DAG under the block the walk waits for; before the path is resolved
         * that would be the root's whole DAG, so the path is asked for again */
        ipfsrt_cid_v1_string(&s->wanted, cs);
        snprintf(path, path_size, "/ipfs/%s", cs);
        snprintf(query, query_size, "format=car&dag-scope=all");
        s->request_root = s->wanted;
    } else {
        snprintf(path, path_size, "%s", s->first_path);
        snprintf(query, query_size, "%s", s->first_query);
        ipfsrt_cid root;
        const char *p = s->first_path + 6; /* "/ipfs/" */
        if (ipfsrt_cid_parse(&root, p, strcspn(p, "/"), NULL, NULL) == IPFSRT_OK) s->request_root = root;
    }
}

static void promise(attempt *a, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    ipfsrt_mhmap_put(&a->promised, mh, n, 0, 0, NULL);
}

static bool promised(const attempt *a, const ipfsrt_cid *cid) {
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &n);
    return ipfsrt_mhmap_get(&a->promised, mh, n) != NULL;
}

/* A verified block of the stream joins the pending map (takes the reference). */
static bool session_accept(attempt *a, ipfsrt_rcblock *b) {
    session *s = a->t->owner;
    if (b->cid.codec == IPFSRT_CODEC_DAG_PB) { /* what it links, the answer must hold too */
        ipfsrt_dagpb_node node;
        if (ipfsrt_dagpb_decode(b->data, b->len, &node, NULL) == IPFSRT_OK) {
            for (size_t i = 0; i < node.link_count; i++) promise(a, &node.links[i].cid);
            ipfsrt_dagpb_node_free(&node);
        }
    }
    ipfsrt_rcblock *have = ipfsrt_blockmap_get(&s->pending, &b->cid);
    if (have) {
        have->arrivals++;
        ipfsrt_rcblock_unref(b);
        return true;
    }
    bool ok = ipfsrt_blockmap_put(&s->pending, b, NULL) == IPFSRT_OK;
    if (ok) b->arrivals = 1;
    ipfsrt_rcblock_unref(b); /* the map keeps it */
    if (!ok) ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
    return ok;
}

/* Blocks as the push reader parses them; hashed on the worker threads when
 * there are some, before they can reach the walk. */
static ipfsrt_status session_block(void *user, const ipfsrt_car_block *blk, ipfsrt_error *err) {
    attempt *a = user;
    session *s = a->t->owner;
    /* Counted per arrival, so a flood of repeats is bounded like one of new blocks. */
    s->ahead += blk->len;
    s->ahead_blocks++;
    if (s->ahead > s->c->pending_cap || s->ahead_blocks > s->c->pending_blocks_cap) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE,
                            "sent over %llu MiB or %llu blocks that the walk from the root did not reach",
                            (unsigned long long)(s->c->pending_cap >> 20),
                            (unsigned long long)s->c->pending_blocks_cap);
        return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", a->detail);
    }
    bool handed;
    ipfsrt_rcblock *b = ipfsrt_attempt_car_block(a, blk, &handed);
    if (handed) return IPFSRT_OK;
    if (b && session_accept(a, b)) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", a->detail);
}

static void session_hashed(attempt *a, ipfsrt_vjob *job) {
    if (job->status == IPFSRT_OK) {
        ipfsrt_rcblock *b = job->block;
        job->block = NULL;
        if (session_accept(a, b)) return;
    } else {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                     (unsigned long long)job->stream_offset, job->message);
    }
    session *s = a->t->owner;
    if (s->finishing) { /* the walk is complete: report the liar, ask nobody else */
        ipfsrt_attempt_report(a);
        ipfsrt_task_detach(a->t, a);
        ipfsrt_attempt_free(a);
        return;
    }
    ipfsrt_attempt_abandon(a);
}

/* ------------------------------------------- CAR answers (and prefetches) */

bool ipfsrt_attempt_car_start(attempt *a, ipfsrt_car_block_fn on_block) {
    ipfsrt_client *c = a->t->c;
    ipfsrt_car_options opts = {.size = sizeof opts, .max_block_size = c->max_block, .hash_backend = c->hash_backend};
    ipfsrt_error e;
    if (ipfsrt_car_reader_new(&a->car, &opts, on_block, a, &e) != IPFSRT_OK) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
        return false;
    }
    if (c->pool) ipfsrt_car_reader_defer_hashing(a->car);
    return true;
}

ipfsrt_rcblock *ipfsrt_attempt_car_block(attempt *a, const ipfsrt_car_block *blk, bool *handed) {
    ipfsrt_client *c = a->t->c;
    *handed = false;
    ipfsrt_rcblock *b = ipfsrt_rcblock_new(&blk->cid, blk->data, blk->len);
    if (!b) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
        return NULL;
    }
    if (c->pool && ipfsrt_attempt_hash_elsewhere(a, b, blk->offset)) {
        *handed = true;
        return NULL;
    }
    ipfsrt_error e;
    if (c->pool && ipfsrt_cid_verify_with(&b->cid, b->data, b->len, c->hash_backend, &e) != IPFSRT_OK) { /* the reader left it to us */
        ipfsrt_rcblock_unref(b);
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "CAR section at byte offset %llu: %s",
                            (unsigned long long)blk->offset, e.message);
        return NULL;
    }
    return b;
}

int ipfsrt_attempt_car_feed(attempt *a, const uint8_t *data, size_t len) {
    ipfsrt_error e;
    ipfsrt_status st = ipfsrt_car_reader_feed(a->car, data, len, &e);
    if (st == IPFSRT_OK) return 0;
    if (a->enough) return 1; /* the owner stopped it: no fault of the gateway's */
    if (st == IPFSRT_EHASH_MISMATCH) ipfsrt_attempt_fail(a, IPFSRT_GWERR_HASH_MISMATCH, "%s", e.message);
    else if (st == IPFSRT_ETOO_LARGE) ipfsrt_attempt_fail(a, IPFSRT_GWERR_TOO_LARGE, "%s", e.message);
    else ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "%s", e.message);
    return 1;
}

ipfsrt_gateway_error ipfsrt_attempt_car_complete(attempt *a) {
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

/* ---------------------------------------------------------------- sessions */

static int session_body(attempt *a, const uint8_t *data, size_t len) {
    session *s = a->t->owner;
    if (!a->car) {
        if (!ipfsrt_attempt_car_start(a, session_block)) return 1;
        promise(a, &s->request_root);
        /* A new answer: what earlier ones sent beyond the walk is dropped, and the
         * budget for blocks sent ahead of it starts again (this gateway's own). */
        ipfsrt_blockmap_drop_untaken(&s->pending);
        s->ahead = 0;
        s->ahead_blocks = 0;
    }
    return ipfsrt_attempt_car_feed(a, data, len);
}

static const task_ops session_ops = {session_request, session_body, ipfsrt_attempt_car_complete, NULL, NULL,
                                     session_hashed, false, true, false};

void ipfsrt_session_init(session *s, ipfsrt_client *c, resume_mode mode) {
    memset(s, 0, sizeof *s);
    s->c = c;
    s->mode = mode;
    s->range_end = UINT64_MAX;
    ipfsrt_blockmap_init(&s->pending);
}

/* Called with the session's answer complete: books the attempt that served the walk. */
void ipfsrt_session_finish(session *s, bool walk_ok) {
    task *t = &s->t;
    if (s->started) {
        if (walk_ok && t->live_n == 1 && t->live[0]->head_ok) {
            attempt *a = t->live[0];
            if (a->req) s->c->engine.cancel(s->c->engine.ctx, a->req); /* the rest is not needed */
            a->req = NULL;
            /* Blocks it sent and the walk did not need are still being hashed: a
             * gateway that sent a bad one is reported all the same. */
            s->finishing = true;
            while (t->live_n == 1 && t->live[0]->hashing)
                if (ipfsrt_task_pump(s->c, 100, NULL) != IPFSRT_OK) break;
            if (t->live_n == 1) ipfsrt_attempt_report(t->live[0]);
        }
        ipfsrt_task_end(t);
    }
    /* the nodes the walk kept (and any other block that arrived hashed): cached
     * by CID, which their hashes make safe */
    ipfsrt_blockcache_put_all(s->c->cache, &s->pending);
    ipfsrt_blockmap_free(&s->pending);
    ipfsrt_rcblock_unref(s->last_taken);
    s->last_taken = NULL;
}

ipfsrt_status ipfsrt_session_end(session *s, ipfsrt_status st, ipfsrt_error *err) {
    ipfsrt_session_finish(s, st == IPFSRT_OK);
    /* the answer is booked last: a policy's observe failing there fails the call */
    if (st == IPFSRT_OK) st = ipfsrt_client_halt_status(s->c, err);
    return st;
}

/* Takes a block of the answer for one read. Each arrival serves one read: the
 * gateway repeats a block each time the DAG does (dups=y), and file data is
 * not kept once read. A node stays for the session, though: the walk reads
 * some twice (a file's root, to size the range and to read it) while it
 * arrived once. Returns a reference of the caller's own. */
static ipfsrt_rcblock *take_pending(session *s, ipfsrt_rcblock *b) {
    bool node = b->cid.codec == IPFSRT_CODEC_DAG_PB;
    b->taken = true;
    if (b->arrivals > 1 || !node) {
        s->ahead -= b->len;
        s->ahead_blocks--;
    }
    if (b->arrivals > 1 || node) {
        if (b->arrivals > 1) b->arrivals--;
    } else {
        ipfsrt_blockmap_remove(&s->pending, b); /* its reference is ours now */
        ipfsrt_rcblock_unref(s->last_taken);
        s->last_taken = b;
    }
    ipfsrt_rcblock_ref(b);
    return b;
}

/* The answer is complete and lacks cid: a wrong DAG when the answer promised
 * it (or it was asked for once already), else beyond what that request
 * covered: the same gateway is asked for it. */
static void answer_lacks(session *s, const ipfsrt_cid *cid) {
    task *t = &s->t;
    attempt *a = t->live[0];
    char want[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(cid, want);
    bool first_time = !s->have_unblamed || !ipfsrt_cid_equal(&s->unblamed_for, cid);
    if (promised(a, cid) || !first_time) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_WRONG_DAG,
                            "answer to %s?%s lacks block %s, which the walk from the root needs", t->path, t->query,
                            want);
    } else {
        s->unblamed_for = *cid;
        s->have_unblamed = true;
        t->same_gateway_again = true;
    }
    ipfsrt_attempt_report(a);
    ipfsrt_task_detach(t, a);
    ipfsrt_attempt_free(a);
    ipfsrt_task_advance(t);
}

static ipfsrt_status session_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                 ipfsrt_error *err) {
    session *s = ctx;
    ipfsrt_client *c = s->c;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(c->cache, cid);
    if (!b && s->last_taken && ipfsrt_cid_equal(&s->last_taken->cid, cid)) {
        b = s->last_taken;
        ipfsrt_rcblock_ref(b);
    }
    s->wanted = *cid;
    task *t = &s->t;
    while (!b) {
        ipfsrt_rcblock *arrived = ipfsrt_blockmap_get(&s->pending, cid);
        if (arrived) {
            b = take_pending(s, arrived);
        } else if (!s->started) {
            s->started = true;
            ipfsrt_task_begin(t, c, &session_ops, IPFSRT_REQUEST_CAR, s);
        } else if (t->state == TASK_FAILED) {
            ipfsrt_status st = ipfsrt_task_error(t, err);
            if (err) ipfsrt_cid_to_string(cid, err->cid);
            return st;
        } else if (t->live_n == 1 && t->live[0]->finished && !t->live[0]->hashing) {
            answer_lacks(s, cid);
        } else {
            ipfsrt_status st = ipfsrt_task_pump(c, 100, err);
            if (st != IPFSRT_OK) return st;
        }
    }
    return ipfsrt_block_lend(ref, b);
}

void ipfsrt_block_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    ipfsrt_client *c = ctx;
    ipfsrt_rcblock *b = ref->token;
    ipfsrt_blockcache_put(c->cache, b);
    ipfsrt_rcblock_unref(b);
}

static void session_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    session *s = ctx;
    ipfsrt_block_release(s->c, ref);
}

void ipfsrt_session_source(session *s, ipfsrt_blocksource *src) {
    src->size = sizeof *src;
    src->ctx = s;
    src->get = session_get;
    src->release = session_release;
}

ipfsrt_status ipfsrt_session_start_at(session *s, const ipfsrt_cid *root, const char *rest,
                                      const char *query, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_path_to_url(root, rest, s->first_path, sizeof s->first_path, err);
    snprintf(s->first_query, sizeof s->first_query, "%s", query);
    return st;
}
