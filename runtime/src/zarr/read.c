/* Reading a selection of an array: the chunks it touches are planned per
 * dimension, asked for in one batch, and each decoded on a worker thread as
 * it arrives, straight into its region of the output. The thread that drives
 * the store only copies the stored bytes into a job; a bounded queue holds it
 * back when the decoders fall behind. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/reader.h"

#define QUEUED_BYTES_MAX ((size_t)64 << 20) /* stored bytes waiting for a decoder */
/* Of those, copied into jobs: few, so that the jobs' buffers go round again.
 * Every job that waits is memory written for the first time, a page fault per
 * page (on virtual machines dearer than the copy); reading from a folder, the
 * store reads far faster than chunks decode, and a deep queue of copies cost
 * more than the decoding. */
#define COPIED_BYTES_MAX ((size_t)4 << 20)

/* ------------------------------------------------------------------ plan */

static ipfsrt_status plan_alloc(dim_plan *p, size_t n, ipfsrt_error *err) {
    p->chunk = malloc(n * sizeof *p->chunk);
    p->j0 = malloc(n * sizeof *p->j0);
    p->j1 = malloc(n * sizeof *p->j1);
    return p->chunk && p->j0 && p->j1 ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

/* Chunks holding at least one selected position: walked by position when
 * the step jumps whole chunks, else by chunk, so the work is bounded by both. */
static ipfsrt_status plan_chunks(dim_plan *p, size_t chunk_len, ipfsrt_error *err) {
    size_t last = p->first + (p->count - 1) * p->step;
    size_t c0 = p->first / chunk_len, c1 = last / chunk_len;
    size_t most = p->step >= chunk_len ? p->count : c1 - c0 + 1;
    ipfsrt_status st = plan_alloc(p, most, err);
    for (size_t c = c0; st == IPFSRT_OK && c <= c1;) {
        size_t lo = c * chunk_len, hi = lo + chunk_len; /* positions of chunk c */
        size_t j0 = lo <= p->first ? 0 : (lo - p->first + p->step - 1) / p->step;
        size_t j1 = hi > last ? p->count : (hi - p->first + p->step - 1) / p->step;
        if (j0 < j1) {
            p->chunk[p->n] = c;
            p->j0[p->n] = j0;
            p->j1[p->n++] = j1;
        }
        c = j1 < p->count ? (p->first + j1 * p->step) / chunk_len : c1 + 1; /* the next chunk with a position */
    }
    return st;
}

ipfsrt_status ipfsrt_zarr_reader_plan(reader *r, const ipfsrt_ndslice *sel, int n, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = r->m;
    if (n > m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%s: %d indices for an array of %d dimensions", m->name, n, m->ndim);
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    r->total = 1;
    for (int d = 0; d < m->ndim; d++) {
        ipfsrt_ndslice whole = {.step = 1};
        const ipfsrt_ndslice *s = d < n ? &sel[d] : &whole;
        int64_t start, count;
        ipfsrt_status st = ipfsrt_ndslice_resolve(s, m->shape[d], d, &start, &count, err);
        if (st != IPFSRT_OK) return st;
        dim_plan *p = &r->dims[d];
        int64_t step = s->is_index ? 1 : s->step;
        p->dropped = s->is_index;
        p->reversed = step < 0;
        /* one position or none: any step will do (a huge one would overflow the sums below) */
        p->step = count > 1 ? (size_t)(step < 0 ? -step : step) : 1;
        p->count = (size_t)count;
        p->first = (size_t)(step < 0 && count ? start + (count - 1) * step : start);
        shape[d] = p->count;
    }
    /* sized (and checked) first: no dimension then lists more chunks than it
     * selects elements, and the chunk count cannot overflow */
    bool unscaled = r->opts && r->opts->unscale; /* (a writer plans with no read options) */
    ipfsrt_status st = IPFSRT_OK; /* a fold builds no output, a read in slabs one per slab */
    bool whole = !r->fold && !r->slabs;
    /* every unit writes its region, decoded or filled (missing): no zeros first */
    if (whole && unscaled) st = ipfsrt_ndarray_empty(&r->full, r->opts->unscale_dtype, 0, m->ndim, shape, err);
    else if (whole) st = ipfsrt_ndarray_empty(&r->full, m->dtype, m->itemsize, m->ndim, shape, err);
    for (int d = 0; d < m->ndim && st == IPFSRT_OK; d++) {
        if (r->dims[d].count) st = plan_chunks(&r->dims[d], r->unit->chunks[d], err);
        if (st == IPFSRT_OK && r->dims[d].n && r->total > SIZE_MAX / r->dims[d].n)
            st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: the selection spans too many chunks", m->name);
        r->total *= r->dims[d].n;
    }
    return st;
}

int ipfsrt_zarr_reader_first_kept(const reader *r) {
    int d = 0;
    while (d < r->m->ndim - 1 && r->dims[d].dropped) d++;
    return d;
}

void ipfsrt_zarr_reader_odometer(const reader *r, size_t k, size_t *pos) {
    for (int d = r->m->ndim; d-- > 0;) {
        pos[d] = k % r->dims[d].n;
        k /= r->dims[d].n;
    }
}

ipfsrt_status ipfsrt_zarr_reader_key(const reader *r, const size_t *index, char *buf, size_t cap, ipfsrt_error *err) {
    size_t at = (size_t)snprintf(buf, cap, "%s", r->prefix);
    return ipfsrt_zarr_chunk_key(r->m, index, buf + at, cap - at, err);
}

size_t ipfsrt_zarr_reader_key_size(const reader *r) {
    return strlen(r->prefix) + 21 * (size_t)(r->m->ndim + 1) + 4; /* 20 digits and a separator each */
}

/* Keys and requests for units first .. first + n - 1, into r->keys and req. */
static ipfsrt_status make_keys(reader *r, size_t first, size_t n, ipfsrt_range_request *req,
                               ipfsrt_error *err) {
    size_t pos[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_status st = IPFSRT_OK;
    for (size_t k = 0; k < n && st == IPFSRT_OK; k++) {
        ipfsrt_zarr_reader_odometer(r, first + k, pos);
        for (int d = 0; d < r->m->ndim; d++) index[d] = r->dims[d].chunk[pos[d]];
        char *key = r->keys + k * r->key_size;
        st = ipfsrt_zarr_reader_key(r, index, key, r->key_size, err);
        /* one byte past the most a chunk may be stored in: a longer answer is refused when it arrives */
        req[k] = (ipfsrt_range_request){key, 0, r->stored_max + 1, false};
    }
    return st;
}

/* -------------------------------------------------------------- decoding */

/* Names the chunk of unit index in err: its key, and for an inner chunk
 * which one of its shard. */
static void name_unit(const reader *r, const size_t *index, ipfsrt_error *err) {
    size_t shard[IPFSRT_NDARRAY_MAX_DIMS], inner = 0;
    for (int d = 0; d < r->m->ndim; d++) {
        size_t per = r->m->inner ? r->unit->grid[d] : 1;
        shard[d] = index[d] / per;
        inner = inner * per + index[d] % per;
    }
    char key[IPFSRT_ZARR_KEY_MAX + 64];
    if (ipfsrt_zarr_chunk_key(r->m, shard, key, sizeof key, NULL) != IPFSRT_OK) strcpy(key, "?");
    if (r->m->inner) ipfsrt_error_prefix(err, "%s, chunk %s (inner chunk %zu): ", r->m->name, key, inner);
    else ipfsrt_error_prefix(err, "%s, chunk %s: ", r->m->name, key);
}

void ipfsrt_zarr_reader_geometry(const reader *r, size_t k, size_t *shape, size_t *index, size_t *lstart,
                                 size_t *lstep, size_t *j0) {
    size_t pos[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_odometer(r, k, pos);
    for (int d = 0; d < r->m->ndim; d++) {
        const dim_plan *p = &r->dims[d];
        j0[d] = p->j0[pos[d]];
        index[d] = p->chunk[pos[d]];
        shape[d] = p->j1[pos[d]] - j0[d];
        lstart[d] = p->first + j0[d] * p->step - index[d] * r->unit->chunks[d];
        lstep[d] = p->step;
    }
}

void ipfsrt_zarr_reader_region(const reader *r, size_t k, ipfsrt_ndarray *region, size_t *index, size_t *lstart,
                               size_t *lstep) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    *region = r->full;
    region->buffer = NULL;
    for (int d = 0; d < r->m->ndim; d++) {
        region->data += (ptrdiff_t)j0[d] * r->full.strides[d];
        region->shape[d] = shape[d];
    }
}

/* A fold decodes each unit into the first elements of the thread's own
 * unit-shaped array (made on first use): region is a view of them. */
static ipfsrt_status fold_region(reader *r, size_t k, ipfsrt_ndarray *tmp, ipfsrt_ndarray *region, size_t *index,
                                 size_t *lstart, size_t *lstep, ipfsrt_error *err) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    const ipfsrt_zarr_meta *m = r->unit;
    ipfsrt_dtype dtype = r->opts->unscale ? r->opts->unscale_dtype : m->dtype;
    ipfsrt_status st = IPFSRT_OK;
    if (!tmp->data) st = ipfsrt_ndarray_zeros(tmp, dtype, 0, m->ndim, m->chunks, err);
    ipfsrt_ndslice first[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < m->ndim; d++)
        first[d] = (ipfsrt_ndslice){.has_start = true, .start = 0, .has_stop = true, .stop = (int64_t)shape[d], .step = 1};
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_slice(region, tmp, first, m->ndim, err);
    return st;
}

/* Unit k (its stored bytes, or missing) into its region of the output, or,
 * folding, into tmp and then its summary. */
static ipfsrt_status decode_unit(reader *r, size_t k, bool missing, const uint8_t *data, size_t len,
                                 ipfsrt_zarr_scratch *s, ipfsrt_ndarray *tmp, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = r->unit;
    size_t index[IPFSRT_NDARRAY_MAX_DIMS], lstart[IPFSRT_NDARRAY_MAX_DIMS], lstep[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_ndarray region;
    ipfsrt_ndarray_init(&region);
    ipfsrt_status st = IPFSRT_OK;
    if (r->fold) st = fold_region(r, k, tmp, &region, index, lstart, lstep, err);
    else if (r->slabs) st = ipfsrt_zarr_slab_region(r, k, &region, index, lstart, lstep, err);
    else ipfsrt_zarr_reader_region(r, k, &region, index, lstart, lstep);
    if (st == IPFSRT_OK && missing) st = ipfsrt_zarr_fill_region(m, &region, s, err);
    else if (st == IPFSRT_OK) st = ipfsrt_zarr_decode_into(m, data, len, &region, lstart, lstep, s, err);
    if (st == IPFSRT_OK && r->fold) st = ipfsrt_zarr_fold_unit(r, k, &region, err);
    if (r->fold) ipfsrt_ndarray_free(&region);
    if (st != IPFSRT_OK) name_unit(r, index, err);
    return st;
}

static void fail_locked(reader *r, const ipfsrt_error *e) {
    if (!r->failed) r->error = *e;
    r->failed = true;
    pthread_cond_broadcast(&r->room);
}

/* Reads that decode their units in an order of their own: in slabs, or
 * folding float sums in order. */
static bool picky(const reader *r) { return r->slabs || (r->fold && ipfsrt_zarr_fold_in_order(r)); }

/* Whether a decoder may take unit k now: 2 yes, 1 if nothing better is
 * queued, 0 no. Reading in slabs, a unit of a slab in the window; folding in
 * order, one whose turn it is, else one to park (any once the read failed: it
 * is skipped). Every unit in, some unit may always be taken: the next slab's,
 * each column's next. Locked. */
static int may_take(const reader *r, size_t k) {
    if (r->failed) return 2;
    if (r->slabs) return ipfsrt_zarr_slab_in_window(r, k) ? 2 : 0;
    return r->fold && ipfsrt_zarr_fold_in_order(r) ? ipfsrt_zarr_fold_may_take(r, k) : 2;
}

/* The next job a decoder may take: the first queued it may take best. Locked. */
static job *take_job(reader *r) {
    job *prev = NULL, *j = r->head, *second = NULL, *second_prev = NULL;
    int rank = 0;
    for (; j && (rank = may_take(r, j->unit)) < 2; prev = j, j = j->next)
        if (rank == 1 && !second) second = j, second_prev = prev;
    if (!j) j = second, prev = second_prev;
    if (!j) return NULL;
    if (prev) prev->next = j->next;
    else r->head = j->next;
    if (r->tail == j) r->tail = prev;
    return j;
}

/* Whether a job can be taken now, or a decoder is at work. Locked. */
static bool decoders_can_go_on(reader *r) {
    if (r->decoding) return true;
    for (job *j = r->head; j; j = j->next)
        if (may_take(r, j->unit)) return true;
    return false;
}

/* One decoding thread's work: jobs as they come, until the read closes. */
static void decode_jobs(void *arg) {
    reader *r = arg;
    ipfsrt_zarr_scratch s = {.unscale = r->opts->unscale};
    ipfsrt_ndarray tmp;
    ipfsrt_ndarray_init(&tmp);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        job *j;
        while (!(j = take_job(r)) && !(r->closing && !r->head)) pthread_cond_wait(&r->work, &r->mu);
        if (!j) break;
        bool skip = r->failed;
        r->decoding++;
        pthread_mutex_unlock(&r->mu);
        ipfsrt_error e;
        ipfsrt_status st = skip ? IPFSRT_OK : decode_unit(r, j->unit, j->missing, j->bytes, j->len, &s, &tmp, &e);
        bool held = j->lent.owner != NULL;
        if (held) j->lent.release(j->lent.owner);
        j->lent.owner = NULL;
        pthread_mutex_lock(&r->mu);
        r->decoding--;
        if (st != IPFSRT_OK) fail_locked(r, &e);
        if (r->slabs) ipfsrt_zarr_slab_unit_done(r, j->unit);
        r->queued_bytes -= j->len;
        if (!held) r->copied_bytes -= j->len;
        r->done++;
        j->next = r->spare;
        r->spare = j;
        pthread_cond_broadcast(&r->room);
    }
    pthread_mutex_unlock(&r->mu);
    ipfsrt_zarr_scratch_free(&s);
    ipfsrt_ndarray_free(&tmp);
    pthread_mutex_lock(&r->mu);
    if (--r->running == 0) pthread_cond_signal(&r->ended);
    pthread_mutex_unlock(&r->mu); /* the last use of r here: the reader may go right after */
}

/* ------------------------------------------------------------ the queue */

/* A job with room for len bytes: a spare one when it is big enough. Locked. */
static job *job_for(reader *r, size_t len) {
    job *j = r->spare;
    if (j && j->cap >= len) {
        r->spare = j->next;
        return j;
    }
    if (j) {
        r->spare = j->next;
        free(j);
    }
    j = malloc(sizeof *j + (len ? len : 1));
    if (j) j->cap = len;
    return j;
}

/* A read of one chunk decodes it where it arrives, from the store's bytes:
 * starting a thread and copying the chunk to it would cost more. */
static ipfsrt_status decode_here(reader *r, size_t k, const uint8_t *data, size_t len, bool missing,
                                 ipfsrt_error *err) {
    ipfsrt_zarr_scratch s = {.unscale = r->opts->unscale};
    ipfsrt_ndarray tmp;
    ipfsrt_ndarray_init(&tmp);
    ipfsrt_status st = r->failed ? r->error.code : decode_unit(r, k, missing, data, len, &s, &tmp, err);
    ipfsrt_zarr_scratch_free(&s);
    ipfsrt_ndarray_free(&tmp);
    if (st != IPFSRT_OK && !r->failed) {
        r->error = err ? *err : (ipfsrt_error){.code = st};
        r->failed = true;
    } else if (r->failed && err) {
        *err = r->error;
    }
    r->done++;
    if (r->slabs) ipfsrt_zarr_slab_unit_done(r, k);
    if (st == IPFSRT_OK && r->opts->progress) st = r->opts->progress(r->opts->progress_user, r->done, r->total, err);
    if (st == IPFSRT_OK && r->slabs) st = ipfsrt_zarr_slabs_hand_over(r, false, err);
    return st;
}

/* Holds the store back while the decoders are behind. Reading in slabs, the
 * whole slabs are handed over meanwhile (which lets the decoders go on), and a
 * chunk is queued anyway when the decoders can take nothing yet (every queued
 * chunk beyond the window): holding it back would wait for ever. Locked. */
static void wait_for_room(reader *r, size_t len, bool held, ipfsrt_error *err) {
    while (!r->failed && r->head &&
           (r->queued_bytes + len > QUEUED_BYTES_MAX || (!held && r->copied_bytes + len > COPIED_BYTES_MAX))) {
        if (r->slabs && ipfsrt_zarr_slab_ready(r)) {
            pthread_mutex_unlock(&r->mu);
            ipfsrt_zarr_slabs_hand_over(r, false, err); /* a failure is the read's: r->failed */
            pthread_mutex_lock(&r->mu);
            continue;
        }
        if (picky(r) && !decoders_can_go_on(r)) break;
        pthread_cond_wait(&r->room, &r->mu);
    }
}

/* Queues unit k for the decoders: its bytes copied into the job, or held
 * when the store lends them. */
static ipfsrt_status enqueue(reader *r, size_t k, const uint8_t *data, size_t len, bool missing,
                             const ipfsrt_lent *lent, ipfsrt_error *err) {
    if (missing) len = 0;
    if (!r->nthreads) return decode_here(r, k, data, len, missing, err);
    bool held = lent && lent->owner && len;
    pthread_mutex_lock(&r->mu);
    wait_for_room(r, len, held, err);
    job *j = r->failed ? NULL : job_for(r, held ? 0 : len);
    if (j) {
        j->next = NULL;
        j->unit = k;
        j->missing = missing;
        j->len = len;
        j->lent = held ? *lent : (ipfsrt_lent){0};
        if (held) lent->hold(lent->owner);
        else if (len) memcpy(j->data, data, len);
        j->bytes = held ? data : j->data;
        r->queued_bytes += j->len;
        if (!held) r->copied_bytes += j->len;
        if (r->tail) r->tail->next = j;
        else r->head = j;
        r->tail = j;
        pthread_cond_signal(&r->work);
    }
    ipfsrt_status st = r->failed ? r->error.code : j ? IPFSRT_OK : IPFSRT_EOUT_OF_MEMORY;
    if (r->failed && err) *err = r->error;
    size_t done = r->done;
    pthread_mutex_unlock(&r->mu);
    if (st == IPFSRT_EOUT_OF_MEMORY && !r->failed) return ipfsrt_fail(err, st, -1, "out of memory for a chunk of %zu bytes", len);
    if (st == IPFSRT_OK && r->opts->progress) st = r->opts->progress(r->opts->progress_user, done, r->total, err);
    if (st == IPFSRT_OK && r->slabs) st = ipfsrt_zarr_slabs_hand_over(r, false, err);
    return st;
}

ipfsrt_status ipfsrt_zarr_reader_push(reader *r, size_t k, const uint8_t *data, size_t len, bool missing,
                                      ipfsrt_error *err) {
    return enqueue(r, k, data, len, missing, NULL, err);
}

ipfsrt_status ipfsrt_zarr_reader_push_lent(reader *r, size_t k, const uint8_t *data, size_t len,
                                           const ipfsrt_lent *lent, ipfsrt_error *err) {
    return enqueue(r, k, data, len, false, lent, err);
}

ipfsrt_status ipfsrt_zarr_reader_arrived(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    reader *r = user;
    const char *key = r->keys + res->index * r->key_size + strlen(r->prefix);
    if (res->status != IPFSRT_OK && res->status != IPFSRT_ENOT_FOUND) {
        if (err) *err = res->error;
        ipfsrt_error_prefix(err, "%s, chunk %s: ", r->m->name, key);
        return res->status;
    }
    if (res->status == IPFSRT_OK && res->len > r->stored_max)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s, chunk %s: more than %llu bytes, the most its chunks "
                           "can be stored in", r->m->name, key, (unsigned long long)r->stored_max);
    if (res->status == IPFSRT_ENOT_FOUND) return ipfsrt_zarr_reader_push(r, r->batch_first + res->index, NULL, 0, true, err);
    return ipfsrt_zarr_reader_push_lent(r, r->batch_first + res->index, res->data, res->len, &res->lent, err);
}

static unsigned thread_count(const reader *r) {
    unsigned n = r->opts->threads ? r->opts->threads : ipfsrt_threads();
    if (n > THREADS_MAX) n = THREADS_MAX;
    if (r->total == 1) return 0; /* decoded where it arrives */
    return r->total < n ? (unsigned)r->total : n;
}

/* Decoding threads from the process's workers (started once, kept waiting). */
static ipfsrt_status start_decoders(reader *r, ipfsrt_error *err) {
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work, NULL);
    pthread_cond_init(&r->room, NULL);
    pthread_cond_init(&r->ended, NULL);
    for (unsigned n = thread_count(r); r->nthreads < n; r->nthreads++) {
        pthread_mutex_lock(&r->mu);
        r->running++;
        pthread_mutex_unlock(&r->mu);
        if (ipfsrt_workers_run(decode_jobs, r)) continue;
        pthread_mutex_lock(&r->mu);
        r->running--;
        pthread_mutex_unlock(&r->mu);
        return r->nthreads ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "cannot start a decoding thread");
    }
    return IPFSRT_OK;
}

/* Lets the decoders finish what is queued, then stops them. */
static void stop_decoders(reader *r) {
    pthread_mutex_lock(&r->mu);
    r->closing = true;
    pthread_cond_broadcast(&r->work);
    while (r->running) pthread_cond_wait(&r->ended, &r->mu);
    pthread_mutex_unlock(&r->mu);
    for (job *j = r->spare, *next; j; j = next) {
        next = j->next;
        free(j);
    }
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->room);
    pthread_cond_destroy(&r->ended);
    pthread_mutex_destroy(&r->mu);
}

/* -------------------------------------------------------------- results */

bool ipfsrt_zarr_reader_as_asked(const reader *r, ipfsrt_ndslice *per_dim) {
    bool as_is = true;
    for (int d = 0; d < r->m->ndim; d++) {
        per_dim[d] = (ipfsrt_ndslice){.is_index = r->dims[d].dropped, .step = r->dims[d].reversed ? -1 : 1};
        as_is = as_is && !r->dims[d].dropped && !r->dims[d].reversed;
    }
    return as_is;
}

/* The output as asked: indexed dimensions dropped, reversed ones flipped, C order. */
static ipfsrt_status shape_output(reader *r, ipfsrt_ndarray *out, ipfsrt_error *err) {
    ipfsrt_ndslice per_dim[IPFSRT_NDARRAY_MAX_DIMS];
    bool as_is = ipfsrt_zarr_reader_as_asked(r, per_dim);
    if (as_is) {
        ipfsrt_ndarray_free(out);
        *out = r->full;
        ipfsrt_ndarray_init(&r->full);
        return IPFSRT_OK;
    }
    ipfsrt_ndarray view;
    ipfsrt_ndarray_init(&view);
    ipfsrt_status st = ipfsrt_ndarray_slice(&view, &r->full, per_dim, r->m->ndim, err);
    ipfsrt_ndarray result;
    ipfsrt_ndarray_init(&result);
    /* only indexed dimensions dropped: the view is the output in C order, a
     * copy would write every element again into fresh pages */
    if (st == IPFSRT_OK && ipfsrt_ndarray_is_contiguous(&view)) {
        result = view;
        ipfsrt_ndarray_init(&view);
    } else if (st == IPFSRT_OK) {
        st = ipfsrt_ndarray_copy(&result, &view, err);
    }
    ipfsrt_ndarray_free(&view);
    if (st == IPFSRT_OK) {
        ipfsrt_ndarray_free(out);
        *out = result;
    }
    return st;
}

void ipfsrt_zarr_reader_release(reader *r) {
    for (int d = 0; d < IPFSRT_NDARRAY_MAX_DIMS; d++) {
        free(r->dims[d].chunk);
        free(r->dims[d].j0);
        free(r->dims[d].j1);
    }
    free(r->keys);
    ipfsrt_ndarray_free(&r->full);
}

/* Keys are made and asked for a batch at a time: memory stays bounded by the
 * batch, not by the number of chunks (millions of small ones), while a batch
 * keeps far more requests in flight than any store serves at once. */
#define KEYS_PER_BATCH 4096

static ipfsrt_status fetch_chunks(reader *r, ipfsrt_zarr_store *store, ipfsrt_error *err) {
    size_t batch = r->total < KEYS_PER_BATCH ? r->total : KEYS_PER_BATCH;
    r->key_size = ipfsrt_zarr_reader_key_size(r);
    r->keys = malloc(batch * r->key_size);
    ipfsrt_range_request *req = malloc(batch * sizeof *req);
    ipfsrt_status st = r->keys && req ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for chunk keys");
    for (size_t first = 0; st == IPFSRT_OK && first < r->total; first += batch) {
        size_t n = r->total - first < batch ? r->total - first : batch;
        r->batch_first = first;
        st = make_keys(r, first, n, req, err);
        if (st == IPFSRT_OK) st = ipfsrt_zarr_store_get_many(store, req, n, ipfsrt_zarr_reader_arrived, r, err);
    }
    free(req);
    return st;
}

ipfsrt_status ipfsrt_zarr_reader_run(reader *r, ipfsrt_zarr_store *store, ipfsrt_error *err) {
    ipfsrt_status st = start_decoders(r, err);
    if (st == IPFSRT_OK) st = r->m->inner ? ipfsrt_zarr_read_shards(r, store, err) : fetch_chunks(r, store, err);
    if (st == IPFSRT_OK && r->slabs) st = ipfsrt_zarr_slabs_hand_over(r, true, err);
    if (st != IPFSRT_OK && picky(r) && r->nthreads) { /* the chunks still queued are skipped */
        pthread_mutex_lock(&r->mu);
        r->failed = true;
        pthread_mutex_unlock(&r->mu);
    }
    stop_decoders(r);
    if (st == IPFSRT_OK && r->failed) {
        st = r->error.code;
        if (err) *err = r->error;
    }
    if (st == IPFSRT_OK && r->opts->progress) st = r->opts->progress(r->opts->progress_user, r->total, r->total, err);
    return st;
}

/* The most bytes a chunk may be stored in: its decoded size twice over
 * (compressors grow incompressible data by well under that), eight times
 * when a filter may widen elements (astype, fixedscaleoffset), and 64 KiB for headers; a shard
 * holds as many inner chunks as fit in it, each at most that, and its index
 * (16 bytes each and a checksum). Saturates rather than overflows. */
static uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / 4 / b ? UINT64_MAX / 4 : a * b; }

uint64_t ipfsrt_zarr_stored_max(const ipfsrt_zarr_meta *m) {
    uint64_t per = 1, n = m->stored_itemsize ? m->stored_itemsize : 1;
    if (m->inner) {
        for (int d = 0; d < m->ndim; d++)
            per = mul_sat(per, m->inner->chunks[d] ? (m->chunks[d] + m->inner->chunks[d] - 1) / m->inner->chunks[d] : 1);
        return mul_sat(per, ipfsrt_zarr_stored_max(m->inner) + 16) + 4;
    }
    bool widens = false;
    for (int i = 0; i < m->n_codecs; i++) {
        const char *id = ipfsrt_codec_id(m->codecs[i]);
        widens = widens || strcmp(id, "astype") == 0 || strcmp(id, "fixedscaleoffset") == 0;
    }
    for (int d = 0; d < m->ndim; d++) n = mul_sat(n, m->chunks[d]);
    return mul_sat(n, widens ? 8 : 2) + 65536;
}

/* CF decoding takes numbers to floats. */
static bool unscalable(const ipfsrt_zarr_meta *m, ipfsrt_dtype to) {
    bool number = (m->dtype >= IPFSRT_DTYPE_INT8 && m->dtype <= IPFSRT_DTYPE_UINT64) ||
                  m->dtype == IPFSRT_DTYPE_FLOAT32 || m->dtype == IPFSRT_DTYPE_FLOAT64;
    return number && (to == IPFSRT_DTYPE_FLOAT32 || to == IPFSRT_DTYPE_FLOAT64);
}

void ipfsrt_zarr_read_options_init(ipfsrt_zarr_read_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_zarr_reader_new(reader **out, const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                     const ipfsrt_zarr_read_options *opts, const fold_spec *fold, slab_plan *slabs,
                                     ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (!m) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is a group, not an array", ipfsrt_zarr_path(array));
    reader *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(r->opts_held, opts, ipfsrt_zarr_read_options_init, err);
    if (taken != IPFSRT_OK) {
        free(r);
        return taken;
    }
    r->m = m;
    r->unit = m->inner ? m->inner : m;
    r->opts = &r->opts_held;
    r->fold = fold;
    r->slabs = slabs;
    if (r->opts->unscale && !unscalable(m, r->opts->unscale_dtype)) {
        ipfsrt_dtype to = r->opts->unscale_dtype;
        free(r);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s values cannot be unscaled to %s", m->name,
                           ipfsrt_dtype_name(m->dtype), ipfsrt_dtype_name(to));
    }
    const char *path = ipfsrt_zarr_path(array);
    snprintf(r->prefix, sizeof r->prefix, "%s%s", path, *path ? "/" : "");
    ipfsrt_ndarray_init(&r->full);
    r->stored_max = ipfsrt_zarr_stored_max(m);
    ipfsrt_status st = ipfsrt_zarr_reader_plan(r, sel, n, err);
    if (st != IPFSRT_OK) {
        ipfsrt_zarr_reader_free(r);
        return st;
    }
    *out = r;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_reader_keys(reader *r, ipfsrt_range_request *req, ipfsrt_error *err) {
    r->key_size = ipfsrt_zarr_reader_key_size(r);
    r->keys = malloc((r->total ? r->total : 1) * r->key_size);
    r->batch_first = 0;
    if (!r->keys) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for chunk keys");
    return make_keys(r, 0, r->total, req, err);
}

ipfsrt_status ipfsrt_zarr_reader_finish(reader *r, ipfsrt_ndarray *out, ipfsrt_error *err) {
    if (r->failed) {
        if (err) *err = r->error;
        return r->error.code;
    }
    return shape_output(r, out, err);
}

void ipfsrt_zarr_reader_free(reader *r) {
    if (!r) return;
    ipfsrt_zarr_reader_release(r);
    free(r->partials);
    free(r);
}

ipfsrt_status ipfsrt_zarr_read(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n, ipfsrt_ndarray *out,
                               const ipfsrt_zarr_read_options *opts, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(out, err);
    reader *r;
    ipfsrt_status st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, NULL, NULL, err);
    if (st != IPFSRT_OK) return st;
    if (r->total) st = ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err);
    if (st == IPFSRT_OK) st = shape_output(r, out, err);
    ipfsrt_zarr_reader_free(r);
    return st;
}
