/* Blocks by CID: block jobs (one format=raw request each, hashed on the worker
 * threads), the client's block sources, batches, and the read-ahead that reads
 * a large file many blocks at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "base/base_internal.h"

static void block_request(task *t, char *path, size_t path_size, char *query, size_t query_size) {
    const block_job *j = t->owner;
    ipfsrt_cid v1;
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_v1(&j->cid, &v1);
    snprintf(path, path_size, "/ipfs/%s", ipfsrt_cid_to_string(&v1, s));
    snprintf(query, query_size, "%s", t->kind == IPFSRT_REQUEST_PLAIN ? "" : "format=raw");
}

static int block_body(attempt *a, const uint8_t *data, size_t len) {
    if (a->rc) {
        if (len > a->rc_cap - a->rc->len) return 1; /* more than Content-Length said */
        memcpy(a->rc->data + a->rc->len, data, len);
        a->rc->len += len;
        return 0;
    }
    ipfsrt_buf_append(&a->body, data, len);
    return a->body.failed;
}

static void block_fail_verify(attempt *a, ipfsrt_status st, const char *message) {
    ipfsrt_attempt_fail(a, st == IPFSRT_EHASH_MISMATCH ? IPFSRT_GWERR_HASH_MISMATCH : IPFSRT_GWERR_BAD_RESPONSE,
                 "%s", message);
}

static void block_accept(attempt *a, ipfsrt_rcblock *rc) {
    block_job *j = a->t->owner;
    j->result = rc;
    if (a->t->kind == IPFSRT_REQUEST_BLOCK && !j->cache_later) ipfsrt_blockcache_put(a->t->c->cache, rc);
}

static ipfsrt_gateway_error block_complete(attempt *a) {
    block_job *j = a->t->owner;
    ipfsrt_client *c = a->t->c;
    ipfsrt_rcblock *rc = a->rc ? a->rc : ipfsrt_rcblock_new(&j->cid, a->body.data, a->body.len);
    a->rc = NULL;
    if (!rc) {
        ipfsrt_attempt_fail(a, IPFSRT_GWERR_BAD_RESPONSE, "out of memory");
        return a->error;
    }
    if (a->t->kind != IPFSRT_REQUEST_BLOCK) { /* unverified: taken as it is */
        block_accept(a, rc);
        return IPFSRT_GWERR_NONE;
    }
    if (c->pool && ipfsrt_attempt_hash_elsewhere(a, rc, 0)) return IPFSRT_GWERR_NONE; /* judged when it returns */
    ipfsrt_error e;
    ipfsrt_status st = ipfsrt_cid_verify_with(&j->cid, rc->data, rc->len, c->hash_backend, &e);
    if (st != IPFSRT_OK) {
        ipfsrt_rcblock_unref(rc);
        block_fail_verify(a, st, e.message);
        return a->error;
    }
    block_accept(a, rc);
    return IPFSRT_GWERR_NONE;
}

static void block_hashed(attempt *a, ipfsrt_vjob *job) {
    if (job->status == IPFSRT_OK) {
        block_accept(a, job->block);
        job->block = NULL;
    } else {
        block_fail_verify(a, job->status, job->message);
    }
    ipfsrt_attempt_settle(a);
}

static void block_settled(task *t) {
    block_job *j = t->owner;
    if (j->batch) j->batch->ready[j->batch->ready_count++] = j->index;
}

/* With a Content-Length the body goes straight into the block it will become. */
static void block_head(attempt *a, const ipfsrt_fetch_head *head) {
    const block_job *j = a->t->owner;
    if (head->content_length <= 0 || (uint64_t)head->content_length > a->t->c->max_block) return;
    a->rc = ipfsrt_rcblock_new(&j->cid, NULL, (size_t)head->content_length);
    if (a->rc) {
        a->rc_cap = a->rc->len;
        a->rc->len = 0;
    }
}

static const task_ops block_ops = {block_request, block_body, block_complete, block_settled, block_head,
                                   block_hashed, true, false, false};

/* Done at once when the CID carries the block or the cache has it, else fetched.
 * False when out of memory. */
bool ipfsrt_blockjob_start(ipfsrt_client *c, block_job *j) {
    if (j->cid.hash_code == IPFSRT_MH_IDENTITY) {
        j->result = ipfsrt_rcblock_new(&j->cid, j->cid.bytes + j->cid.digest_offset, j->cid.digest_len);
        if (!j->result) return false;
    } else if (c->verify) {
        j->result = ipfsrt_blockcache_get(c->cache, &j->cid);
    }
    if (j->result) j->t.state = TASK_DONE;
    /* unverified clients: plain GETs of /ipfs/CID, nothing checked or cached */
    else ipfsrt_task_begin(&j->t, c, &block_ops, c->verify ? IPFSRT_REQUEST_BLOCK : IPFSRT_REQUEST_PLAIN, j);
    return true;
}

/* Runs the jobs until each is done, or the first failure; fn sees results as
 * they come. */
ipfsrt_status ipfsrt_blockjob_run(ipfsrt_client *c, block_job *jobs, size_t n,
                                    ipfsrt_client_block_fn fn, void *user, ipfsrt_error *err) {
    block_batch batch = {calloc(n ? n : 1, sizeof(size_t)), 0};
    if (!batch.ready) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        block_job *j = &jobs[i];
        j->index = i;
        j->batch = &batch;
        if (!ipfsrt_blockjob_start(c, j)) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        else if (j->result) batch.ready[batch.ready_count++] = i;
    }
    size_t handed = 0;
    while (st == IPFSRT_OK && handed < n) {
        while (handed < batch.ready_count && st == IPFSRT_OK) {
            block_job *j = &jobs[batch.ready[handed++]];
            if (j->t.state == TASK_DONE) {
                if (fn) st = fn(user, j->index, &j->cid, j->result->data, j->result->len, err);
                if (!j->keep) { /* handed over: memory stays bounded by what is in flight */
                    ipfsrt_rcblock_unref(j->result);
                    j->result = NULL;
                }
            } else {
                st = ipfsrt_task_error(&j->t, err);
                if (err) ipfsrt_cid_to_string(&j->cid, err->cid);
            }
        }
        if (st == IPFSRT_OK && handed < n) st = ipfsrt_task_pump(c, 50, err);
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].t.c) ipfsrt_task_end(&jobs[i].t);
        if (!jobs[i].keep || st != IPFSRT_OK) {
            ipfsrt_rcblock_unref(jobs[i].result);
            jobs[i].result = NULL;
        }
    }
    free(batch.ready);
    return st;
}

/* Lends a held block through a block source: the reference travels in the token. */
ipfsrt_status ipfsrt_block_lend(ipfsrt_blocksource_ref *ref, ipfsrt_rcblock *b) {
    ref->data = b->data;
    ref->len = b->len;
    ref->token = b;
    return IPFSRT_OK;
}

static ipfsrt_status run_one_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_rcblock **out,
                                   ipfsrt_error *err);

static ipfsrt_status client_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                ipfsrt_error *err) {
    ipfsrt_client *c = ctx;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(c->cache, cid);
    if (!b) {
        ipfsrt_status st = run_one_block(c, cid, &b, err);
        if (st != IPFSRT_OK) return st;
    }
    return ipfsrt_block_lend(ref, b);
}

void ipfsrt_client_blocksource(ipfsrt_client *c, ipfsrt_blocksource *src) {
    IPFSRT_NEED_OR(c, );
    IPFSRT_NEED_OR(src, );
    src->size = sizeof *src;
    src->ctx = c;
    src->get = client_get;
    src->release = ipfsrt_block_release;
}

/* Only what the cache holds; remembers whether anything was missing. */

static ipfsrt_status probe_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    probe *p = ctx;
    ipfsrt_rcblock *b = ipfsrt_blockcache_get(p->c->cache, cid);
    if (!b) {
        p->missed = true;
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not cached");
    }
    return ipfsrt_block_lend(ref, b);
}

static void probe_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    ipfsrt_rcblock_unref(ref->token);
    (void)ctx;
}

void ipfsrt_probe_source(probe *p, ipfsrt_blocksource *src) {
    src->size = sizeof *src;
    src->ctx = p;
    src->get = probe_get;
    src->release = probe_release;
}

static ipfsrt_status run_one_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_rcblock **out,
                                   ipfsrt_error *err) {
    block_job *j = calloc(1, sizeof *j);
    if (!j) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    j->cid = *cid;
    j->keep = true;
    ipfsrt_status st = ipfsrt_blockjob_run(c, j, 1, NULL, NULL, err);
    *out = j->result;
    free(j);
    return st;
}

ipfsrt_status ipfsrt_client_block(ipfsrt_client *c, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                  ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(ref, err);
    ipfsrt_client_call_start(c);
    ipfsrt_blocksource src;
    ipfsrt_client_blocksource(c, &src);
    return ipfsrt_blocksource_get(&src, cid, ref, err);
}

ipfsrt_status ipfsrt_client_blocks(ipfsrt_client *c, const ipfsrt_cid *cids, size_t n,
                                   ipfsrt_client_block_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED_N(cids, n, err);
    ipfsrt_client_call_start(c);
    if (n > SIZE_MAX / sizeof(block_job)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "too many blocks");
    block_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    if (!jobs) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n; i++) jobs[i].cid = cids[i];
    ipfsrt_status st = ipfsrt_blockjob_run(c, jobs, n, fn, user, err);
    free(jobs);
    return st;
}

/* ----------------------------------------------------------- read-ahead */

#define READAHEAD_MIN_FILE ((uint64_t)8 << 20) /* whole files this big are read this way */
#define READAHEAD_MAX_WINDOW 32

/* Reads a whole large file by fetching its blocks by CID, many at once and
 * across gateways, in the order the walk will want them: each block's links
 * join a queue as it arrives, children ahead of what came before, so the queue
 * follows the depth-first walk. */
typedef struct readahead {
    ipfsrt_client *c;
    size_t window;
    block_job *jobs[READAHEAD_MAX_WINDOW + 1]; /* + one the walk asked for out of turn */
    size_t job_count;
    ipfsrt_cid *queue; /* a stack: the next CID to fetch is at the end */
    size_t queued, queue_cap;
    ipfsrt_mhmap expanded; /* blocks whose links were queued (the walk may load one twice) */
} readahead;

static block_job *readahead_start(readahead *r, const ipfsrt_cid *cid) {
    block_job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->cid = *cid;
    if (!ipfsrt_blockjob_start(r->c, j)) {
        free(j);
        return NULL;
    }
    r->jobs[r->job_count++] = j;
    return j;
}

static void readahead_drop(readahead *r, size_t i) {
    block_job *j = r->jobs[i];
    if (j->t.c) ipfsrt_task_end(&j->t);
    ipfsrt_rcblock_unref(j->result);
    free(j);
    r->jobs[i] = r->jobs[--r->job_count];
}

static void readahead_fill(readahead *r) {
    while (r->job_count < r->window && r->queued) {
        ipfsrt_cid next = r->queue[--r->queued];
        bool have = false;
        for (size_t i = 0; i < r->job_count && !have; i++) have = ipfsrt_cid_equal(&r->jobs[i]->cid, &next);
        if (!have && next.hash_code != IPFSRT_MH_IDENTITY && !readahead_start(r, &next)) return;
    }
}

/* Queues what a dag-pb block links, first link to be fetched first. */
static void readahead_links(readahead *r, const ipfsrt_rcblock *b) {
    if (b->cid.codec != IPFSRT_CODEC_DAG_PB) return;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&b->cid, &mh_len);
    bool inserted = false;
    if (ipfsrt_mhmap_put(&r->expanded, mh, mh_len, 0, 0, &inserted) != IPFSRT_OK || !inserted) return;
    ipfsrt_dagpb_node node;
    if (ipfsrt_dagpb_decode(b->data, b->len, &node, NULL) != IPFSRT_OK) return; /* the walk will say why */
    if (ipfsrt_array_reserve(&r->queue, &r->queue_cap, r->queued + node.link_count,
                             sizeof *r->queue)) {
        ipfsrt_dagpb_node_free(&node);
        return; /* read-ahead is an optimisation: go on without it */
    }
    for (size_t i = node.link_count; i-- > 0;) r->queue[r->queued++] = node.links[i].cid;
    ipfsrt_dagpb_node_free(&node);
}

static ipfsrt_status readahead_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                   ipfsrt_error *err) {
    readahead *r = ctx;
    size_t i = 0;
    while (i < r->job_count && !ipfsrt_cid_equal(&r->jobs[i]->cid, cid)) i++;
    if (i == r->job_count) { /* not foreseen */
        if (r->job_count > r->window) readahead_drop(r, 0); /* a guess that went stale */
        if (!readahead_start(r, cid)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        i = r->job_count - 1;
    }
    block_job *j = r->jobs[i];
    while (!ipfsrt_task_over(&j->t)) {
        ipfsrt_status st = ipfsrt_task_pump(r->c, 100, err);
        if (st != IPFSRT_OK) return st;
    }
    if (j->t.state == TASK_FAILED) {
        ipfsrt_status st = ipfsrt_task_error(&j->t, err);
        if (err) ipfsrt_cid_to_string(cid, err->cid);
        return st;
    }
    ipfsrt_rcblock *b = j->result;
    j->result = NULL;
    readahead_drop(r, i);
    readahead_links(r, b);
    readahead_fill(r);
    return ipfsrt_block_lend(ref, b);
}

static void readahead_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    readahead *r = ctx;
    ipfsrt_block_release(r->c, ref);
}

ipfsrt_status ipfsrt_readahead_read(ipfsrt_client *c, const ipfsrt_cid *file, ipfsrt_unixfs_write_fn write,
                                    void *user, ipfsrt_error *err) {
    readahead r = {.c = c};
    ipfsrt_mhmap_init(&r.expanded);
    size_t window = 2 * (size_t)c->in_flight_max * c->gateways.count;
    r.window = window < 4 ? 4 : window > READAHEAD_MAX_WINDOW ? READAHEAD_MAX_WINDOW : window;
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &r, readahead_get, readahead_release};
    ipfsrt_status st = ipfsrt_unixfs_read(&src, file, 0, UINT64_MAX, write, user, err);
    while (r.job_count) readahead_drop(&r, r.job_count - 1);
    free(r.queue);
    ipfsrt_mhmap_free(&r.expanded);
    return st;
}
