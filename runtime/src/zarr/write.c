/* Writing a selection of an array: the values laid out over the selection
 * once, the stored chunks (shards, for a sharded array) it touches but does
 * not cover read first, then every chunk rebuilt and encoded on worker
 * threads while the calling thread stores what they finish. A chunk left
 * holding only the fill value is removed instead (unless asked to keep it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/reader.h"

#define PENDING_MAX 8 /* encoded chunks waiting to be stored, per thread */

typedef struct encoded {
    size_t k;
    bool erase; /* the chunk holds only the fill value */
    ipfsrt_buf data;
} encoded;

typedef struct writer {
    reader r; /* the plan: units are the stored chunks */
    ipfsrt_zarr_store *store;
    const ipfsrt_zarr_write_options *opts;
    bool *partial;       /* per chunk: the selection does not cover it */
    ipfsrt_buf *old;     /* per partial chunk: its stored bytes */
    bool *absent;        /* per partial chunk: never written */
    size_t *asked;       /* the chunk of each request for old chunks */
    pthread_t threads[THREADS_MAX];
    unsigned nthreads;
    pthread_mutex_t mu;
    pthread_cond_t ready, room;
    size_t next;         /* the next chunk to encode */
    encoded *done;       /* finished, not yet stored (a stack) */
    size_t done_count, done_cap, in_flight;
    bool failed;
    ipfsrt_error error;
} writer;

/* --------------------------------------------------------------- values */

/* The values, broadcast and converted, over the selection's positions. */
static ipfsrt_status lay_out(writer *w, const ipfsrt_ndarray *values, ipfsrt_error *err) {
    ipfsrt_ndslice per_dim[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_ndarray view;
    ipfsrt_ndarray_init(&view);
    ipfsrt_zarr_reader_as_asked(&w->r, per_dim);
    ipfsrt_status st = ipfsrt_ndarray_slice(&view, &w->r.full, per_dim, w->r.m->ndim, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_assign(&view, values, err);
    ipfsrt_ndarray_free(&view);
    return st;
}

/* The selection covers every element of chunk k that lies in the array. */
static bool covers(const writer *w, size_t k) {
    const reader *r = &w->r;
    size_t pos[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_odometer(r, k, pos);
    for (int d = 0; d < r->m->ndim; d++) {
        const dim_plan *p = &r->dims[d];
        size_t c = p->chunk[pos[d]], lo = c * r->m->chunks[d], hi = lo + r->m->chunks[d];
        if (hi > r->m->shape[d]) hi = r->m->shape[d];
        if (p->step != 1 || p->j1[pos[d]] - p->j0[pos[d]] != hi - lo) return false;
    }
    return true;
}

/* ------------------------------------------------- chunks already stored */

static ipfsrt_status keep_old(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    writer *w = user;
    size_t k = w->asked[res->index];
    if (res->status == IPFSRT_ENOT_FOUND) {
        w->absent[k] = true;
        return IPFSRT_OK;
    }
    if (res->status != IPFSRT_OK) {
        if (err) *err = res->error;
        return res->status;
    }
    if (res->len > w->r.stored_max)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: a stored chunk of more than %llu bytes, the most its "
                           "chunks can be stored in", w->r.m->name, (unsigned long long)w->r.stored_max);
    ipfsrt_buf_append(&w->old[k], res->data, res->len);
    return w->old[k].failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

/* The keys of every chunk, and the partial ones read. */
static ipfsrt_status read_partial(writer *w, ipfsrt_error *err) {
    reader *r = &w->r;
    r->key_size = ipfsrt_zarr_reader_key_size(r);
    r->keys = malloc(r->total * r->key_size);
    r->stored_max = ipfsrt_zarr_stored_max(r->m);
    w->partial = calloc(r->total, sizeof *w->partial);
    w->absent = calloc(r->total, sizeof *w->absent);
    w->old = calloc(r->total, sizeof *w->old);
    w->asked = calloc(r->total, sizeof *w->asked);
    ipfsrt_range_request *req = calloc(r->total, sizeof *req);
    ipfsrt_status st = r->keys && w->partial && w->absent && w->old && w->asked && req
                           ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t n = 0, pos[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS];
    for (size_t k = 0; k < r->total && st == IPFSRT_OK; k++) {
        ipfsrt_zarr_reader_odometer(r, k, pos);
        for (int d = 0; d < r->m->ndim; d++) index[d] = r->dims[d].chunk[pos[d]];
        char *key = r->keys + k * r->key_size;
        st = ipfsrt_zarr_reader_key(r, index, key, r->key_size, err);
        w->partial[k] = !covers(w, k);
        if (!w->partial[k]) continue;
        w->asked[n] = k;
        req[n++] = (ipfsrt_range_request){key, 0, r->stored_max + 1, false};
    }
    if (st == IPFSRT_OK && n) st = ipfsrt_zarr_store_get_many(w->store, req, n, keep_old, w, err);
    free(req);
    return st;
}

/* ------------------------------------------------------------- encoding */

/* Chunk k as it is to be stored: the old one (or the fill value), with the
 * selection's values written over it. */
static ipfsrt_status rebuild(writer *w, size_t k, ipfsrt_ndarray *chunk, ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = w->r.m;
    size_t index[IPFSRT_NDARRAY_MAX_DIMS], lstart[IPFSRT_NDARRAY_MAX_DIMS], lstep[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_ndarray region, target;
    ipfsrt_zarr_reader_region(&w->r, k, &region, index, lstart, lstep);
    ipfsrt_status st = ipfsrt_ndarray_zeros(chunk, m->dtype, m->itemsize, m->ndim, m->chunks, err);
    bool old = st == IPFSRT_OK && w->partial[k] && !w->absent[k];
    if (old && m->inner) st = ipfsrt_zarr_decode_shard(m, w->old[k].data, w->old[k].len, chunk, s, err);
    else if (old) {
        size_t zeros[IPFSRT_NDARRAY_MAX_DIMS] = {0}, ones[IPFSRT_NDARRAY_MAX_DIMS];
        for (int d = 0; d < m->ndim; d++) ones[d] = 1;
        st = ipfsrt_zarr_decode_into(m, w->old[k].data, w->old[k].len, chunk, zeros, ones, s, err);
    } else if (st == IPFSRT_OK && m->has_fill) {
        st = ipfsrt_ndarray_assign(chunk, &m->fill, err);
    }
    target = *chunk;
    target.buffer = NULL;
    for (int d = 0; d < m->ndim; d++) {
        target.data += (ptrdiff_t)lstart[d] * chunk->strides[d];
        target.shape[d] = region.shape[d];
        target.strides[d] = chunk->strides[d] * (ptrdiff_t)lstep[d];
    }
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_assign(&target, &region, err);
    if (st != IPFSRT_OK) ipfsrt_zarr_name_chunk(m, index, err);
    return st;
}

static ipfsrt_status encode_one(writer *w, size_t k, encoded *e, ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    ipfsrt_ndarray chunk;
    ipfsrt_ndarray_init(&chunk);
    ipfsrt_status st = rebuild(w, k, &chunk, s, err);
    e->k = k;
    e->erase = st == IPFSRT_OK && !w->opts->write_empty_chunks && ipfsrt_zarr_all_fill(w->r.m, &chunk);
    ipfsrt_buf_init(&e->data);
    if (st == IPFSRT_OK && !e->erase)
        st = w->r.m->inner ? ipfsrt_zarr_encode_shard(w->r.m, &chunk, s, &e->data, err)
                           : ipfsrt_zarr_encode_chunk(w->r.m, &chunk, s, &e->data, err);
    ipfsrt_ndarray_free(&chunk);
    if (st != IPFSRT_OK) ipfsrt_buf_free(&e->data);
    return st;
}

static void *encoder(void *arg) {
    writer *w = arg;
    ipfsrt_zarr_scratch s = {0};
    pthread_mutex_lock(&w->mu);
    while (!w->failed && w->next < w->r.total) {
        while (!w->failed && w->done_count + w->in_flight >= PENDING_MAX * w->nthreads)
            pthread_cond_wait(&w->room, &w->mu);
        if (w->failed || w->next >= w->r.total) break; /* another took the last while this one waited */
        size_t k = w->next++;
        w->in_flight++;
        pthread_mutex_unlock(&w->mu);
        encoded e;
        ipfsrt_error err;
        ipfsrt_status st = encode_one(w, k, &e, &s, &err);
        pthread_mutex_lock(&w->mu);
        w->in_flight--;
        if (st != IPFSRT_OK && !w->failed) w->error = err;
        w->failed = w->failed || st != IPFSRT_OK;
        if (st == IPFSRT_OK) w->done[w->done_count++] = e; /* room was made for it */
        pthread_cond_broadcast(&w->ready);
    }
    pthread_cond_broadcast(&w->ready);
    pthread_mutex_unlock(&w->mu);
    ipfsrt_zarr_scratch_free(&s);
    return NULL;
}

static ipfsrt_status store_one(writer *w, encoded *e, ipfsrt_error *err) {
    const char *key = w->r.keys + e->k * w->r.key_size;
    ipfsrt_status st = e->erase ? ipfsrt_zarr_store_erase(w->store, key, err)
                                : ipfsrt_zarr_store_put(w->store, key, e->data.data, e->data.len, err);
    ipfsrt_buf_free(&e->data);
    return st;
}

/* The calling thread stores what the encoders finish, as they finish it. */
static ipfsrt_status store_all(writer *w, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    size_t stored = 0;
    pthread_mutex_lock(&w->mu);
    while (stored < w->r.total && !w->failed) {
        while (!w->done_count && !w->failed) pthread_cond_wait(&w->ready, &w->mu);
        if (w->failed) break;
        encoded e = w->done[--w->done_count];
        pthread_cond_broadcast(&w->room);
        pthread_mutex_unlock(&w->mu);
        st = store_one(w, &e, err);
        stored++;
        pthread_mutex_lock(&w->mu);
        if (st != IPFSRT_OK && !w->failed) w->error = *err;
        w->failed = w->failed || st != IPFSRT_OK;
        pthread_cond_broadcast(&w->room);
    }
    pthread_mutex_unlock(&w->mu);
    return st;
}

static ipfsrt_status encode_and_store(writer *w, ipfsrt_error *err) {
    unsigned n = w->opts->threads ? w->opts->threads : ipfsrt_threads();
    if (n > THREADS_MAX) n = THREADS_MAX;
    w->done_cap = PENDING_MAX * n;
    w->done = calloc(w->done_cap, sizeof *w->done);
    if (!w->done) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->ready, NULL);
    pthread_cond_init(&w->room, NULL);
    w->nthreads = n;
    unsigned started = 0;
    while (started < n && ipfsrt_thread_start(&w->threads[started], encoder, w) == 0) started++;
    ipfsrt_status st = started ? store_all(w, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "no encoding thread");
    pthread_mutex_lock(&w->mu);
    w->failed = w->failed || st != IPFSRT_OK; /* the encoders stop */
    pthread_cond_broadcast(&w->room);
    pthread_mutex_unlock(&w->mu);
    for (unsigned i = 0; i < started; i++) pthread_join(w->threads[i], NULL);
    if (st == IPFSRT_OK && w->failed) {
        st = w->error.code;
        if (err) *err = w->error;
    }
    for (size_t i = 0; i < w->done_count; i++) ipfsrt_buf_free(&w->done[i].data);
    free(w->done);
    pthread_cond_destroy(&w->ready);
    pthread_cond_destroy(&w->room);
    pthread_mutex_destroy(&w->mu);
    return st;
}

static void writer_free(writer *w) {
    for (size_t k = 0; w->old && k < w->r.total; k++) ipfsrt_buf_free(&w->old[k]);
    free(w->old);
    free(w->partial);
    free(w->absent);
    free(w->asked);
    ipfsrt_zarr_reader_release(&w->r);
    free(w);
}

void ipfsrt_zarr_write_options_init(ipfsrt_zarr_write_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_zarr_write(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                const ipfsrt_ndarray *values, const ipfsrt_zarr_write_options *opts,
                                ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(values, err);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (!m) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is a group, not an array", ipfsrt_zarr_path(array));
    ipfsrt_zarr_write_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_zarr_write_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    writer *w = calloc(1, sizeof *w);
    if (!w) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    w->r.m = m;
    w->r.unit = m; /* whole shards are rewritten */
    w->store = ipfsrt_zarr_node_store(array);
    w->opts = &mine; /* the writer lives within this call */
    const char *path = ipfsrt_zarr_path(array);
    snprintf(w->r.prefix, sizeof w->r.prefix, "%s%s", path, *path ? "/" : "");
    ipfsrt_ndarray_init(&w->r.full);
    ipfsrt_status st = ipfsrt_zarr_store_writable(w->store)
                           ? ipfsrt_zarr_reader_plan(&w->r, sel, n, err)
                           : ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: the store is read-only",
                                         ipfsrt_zarr_store_url(w->store));
    if (st == IPFSRT_OK) st = lay_out(w, values, err);
    if (st == IPFSRT_OK && w->r.total) st = read_partial(w, err);
    if (st == IPFSRT_OK && w->r.total) st = encode_and_store(w, err);
    writer_free(w);
    return st;
}
