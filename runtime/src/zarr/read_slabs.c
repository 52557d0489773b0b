/* Reads in slabs: one read of a whole selection (every chunk asked for at
 * once, one pipeline of requests) whose values are handed over a slab at a
 * time along its first kept dimension, in order, as soon as a slab's chunks
 * are all decoded. The caller works on a slab while the next ones are fetched
 * and decoded, and memory holds a few slabs, never the whole selection.
 *
 * The caller's function runs on the thread that drives the store, between
 * two of the store's answers. Decoders take only the chunks of the few slabs
 * after the one handed over last (the window); chunks of later slabs wait,
 * still encoded, in the queue. */
#include <stdlib.h>
#include <string.h>

#include "zarr/reader.h"
#include "base/base_internal.h"

struct slab_plan {
    int dim;              /* the slab dimension: the array's first one not indexed */
    size_t n;             /* slabs */
    size_t *start;        /* per slab, its first selected position along dim */
    size_t *of_row;       /* per unit position along dim (dims[dim]), its slab */
    size_t *units_left;   /* per slab, units not yet decoded */
    ipfsrt_ndarray *data; /* per slab, its values as they are decoded (made with its first unit) */
    size_t handed;        /* slabs handed to fn so far */
    size_t ahead;         /* slabs decoded ahead of those handed over (the window) */
    ipfsrt_zarr_slab_fn fn;
    void *user;
};

/* The rows of slab s: from its start to the next one's (the last, to the selection's end). */
static size_t slab_rows(const reader *r, size_t s) {
    const slab_plan *p = r->slabs;
    return (s + 1 < p->n ? p->start[s + 1] : r->dims[p->dim].count) - p->start[s];
}

static size_t slab_of_unit(const reader *r, size_t k) {
    size_t pos[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_odometer(r, k, pos);
    return r->slabs->of_row[pos[r->slabs->dim]];
}

bool ipfsrt_zarr_slab_in_window(const reader *r, size_t k) {
    return slab_of_unit(r, k) < r->slabs->handed + r->slabs->ahead;
}

/* Slab s's array: the selection's shape (every dimension kept), its rows along dim. Locked. */
static ipfsrt_status make_slab(reader *r, size_t s, ipfsrt_error *err) {
    slab_plan *p = r->slabs;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < r->m->ndim; d++) shape[d] = r->dims[d].count;
    shape[p->dim] = slab_rows(r, s);
    ipfsrt_dtype dtype = r->opts->unscale ? r->opts->unscale_dtype : r->m->dtype;
    return ipfsrt_ndarray_empty(&p->data[s], dtype, r->opts->unscale ? 0 : r->m->itemsize, r->m->ndim, shape,
                                    err);
}

ipfsrt_status ipfsrt_zarr_slab_region(reader *r, size_t k, ipfsrt_ndarray *region, size_t *index, size_t *lstart,
                                      size_t *lstep, ipfsrt_error *err) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    slab_plan *p = r->slabs;
    size_t s = slab_of_unit(r, k);
    ipfsrt_status st = IPFSRT_OK;
    if (r->nthreads) pthread_mutex_lock(&r->mu);
    if (!p->data[s].ndim) st = make_slab(r, s, err);
    if (r->nthreads) pthread_mutex_unlock(&r->mu);
    if (st != IPFSRT_OK) return st;
    *region = p->data[s];
    region->buffer = NULL; /* a view of the slab's */
    j0[p->dim] -= p->start[s];
    for (int d = 0; d < r->m->ndim; d++) {
        region->data += (ptrdiff_t)j0[d] * p->data[s].strides[d];
        region->shape[d] = shape[d];
    }
    return IPFSRT_OK;
}

void ipfsrt_zarr_slab_unit_done(reader *r, size_t k) { r->slabs->units_left[slab_of_unit(r, k)]--; }

bool ipfsrt_zarr_slab_ready(const reader *r) {
    const slab_plan *p = r->slabs;
    return p->handed < p->n && p->units_left[p->handed] == 0;
}

/* Slab s as asked (indexed dimensions dropped) to fn, which then owns it. */
static ipfsrt_status hand_over(reader *r, size_t s, ipfsrt_error *err) {
    slab_plan *p = r->slabs;
    ipfsrt_status st = p->data[s].ndim ? IPFSRT_OK : make_slab(r, s, err); /* no units: an empty slab */
    ipfsrt_ndarray slab = p->data[s], out;
    ipfsrt_ndarray_init(&p->data[s]);
    ipfsrt_ndarray_init(&out);
    ipfsrt_ndslice per_dim[IPFSRT_NDARRAY_MAX_DIMS];
    if (st == IPFSRT_OK && ipfsrt_zarr_reader_as_asked(r, per_dim)) {
        out = slab;
    } else if (st == IPFSRT_OK) {
        st = ipfsrt_ndarray_slice(&out, &slab, per_dim, r->m->ndim, err); /* indexed ones only: contiguous */
        ipfsrt_ndarray_free(&slab);
    }
    if (st == IPFSRT_OK) st = p->fn(p->user, p->start[s], slab_rows(r, s), &out, err);
    else ipfsrt_ndarray_free(&out);
    return st;
}

ipfsrt_status ipfsrt_zarr_slabs_hand_over(reader *r, bool all, ipfsrt_error *err) {
    slab_plan *p = r->slabs;
    ipfsrt_status st = IPFSRT_OK;
    while (st == IPFSRT_OK && p->handed < p->n) {
        if (r->nthreads) pthread_mutex_lock(&r->mu);
        while (all && r->nthreads && !r->failed && !ipfsrt_zarr_slab_ready(r)) pthread_cond_wait(&r->room, &r->mu);
        bool ready = !r->failed && ipfsrt_zarr_slab_ready(r);
        if (r->failed) {
            st = r->error.code;
            if (err) *err = r->error;
        }
        if (r->nthreads) pthread_mutex_unlock(&r->mu);
        if (!ready) break;
        st = hand_over(r, p->handed, err);
        if (r->nthreads) pthread_mutex_lock(&r->mu);
        p->handed++; /* the window moves on: decoders may take the next slab's units */
        if (st != IPFSRT_OK && !r->failed) {
            r->error = err ? *err : (ipfsrt_error){.code = st};
            r->failed = true;
        }
        if (r->nthreads) pthread_cond_broadcast(&r->work);
        if (r->nthreads) pthread_mutex_unlock(&r->mu);
    }
    return st;
}

/* ------------------------------------------------------------- the plan */

static void slab_plan_free(slab_plan *p) {
    for (size_t s = 0; p->data && s < p->n; s++) ipfsrt_ndarray_free(&p->data[s]);
    free(p->data);
    free(p->start);
    free(p->of_row);
    free(p->units_left);
}

static size_t mul_sat(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* How many slabs the decoders may work on: the bytes allowed of the largest. */
static size_t window(const reader *r, const slab_plan *p) {
    size_t rows = 0;
    for (size_t i = 0; i < p->n; i++) rows = slab_rows(r, i) > rows ? slab_rows(r, i) : rows;
    size_t bytes = r->opts->unscale ? ipfsrt_dtype_size(r->opts->unscale_dtype) : r->m->itemsize;
    for (int d = 0; d < r->m->ndim; d++) bytes = mul_sat(bytes, d == p->dim ? rows : r->dims[d].count);
    size_t allowed = r->opts->slabs_ahead_bytes ? r->opts->slabs_ahead_bytes : SLABS_AHEAD_BYTES;
    size_t n = bytes ? allowed / bytes : SIZE_MAX;
    return n < 2 ? 2 : n;
}

/* The slab dimension, the slabs' starts from ends, and each unit row's slab:
 * every end falls at a boundary between units. */
static ipfsrt_status plan_slabs(const reader *r, slab_plan *p, const size_t *ends, ipfsrt_error *err) {
    const char *name = r->m->name;
    p->dim = ipfsrt_zarr_reader_first_kept(r);
    const dim_plan *dp = &r->dims[p->dim];
    for (int d = 0; d < r->m->ndim; d++)
        if (r->dims[d].reversed)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: a read in slabs takes no reversed dimension", name);
    if (!p->n || ends[p->n - 1] != dp->count)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the slabs must end at the selection's %zu", name, dp->count);
    p->start = malloc(p->n * sizeof *p->start);
    p->of_row = malloc((dp->n ? dp->n : 1) * sizeof *p->of_row);
    p->units_left = calloc(p->n, sizeof *p->units_left);
    p->data = calloc(p->n, sizeof *p->data);
    if (!p->start || !p->of_row || !p->units_left || !p->data)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t per_row = dp->n ? r->total / dp->n : 0, s = 0;
    for (size_t i = 0; i < p->n; i++) {
        p->start[i] = i ? ends[i - 1] : 0;
        if (ends[i] <= p->start[i])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: slab %zu is empty or out of order", name, i);
    }
    p->ahead = window(r, p);
    for (size_t row = 0; row < dp->n; row++) {
        while (dp->j0[row] >= ends[s]) s++;
        if (dp->j1[row] > ends[s])
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: slab %zu ends at %zu, inside a chunk (positions "
                               "%zu to %zu)", name, s, ends[s], dp->j0[row], dp->j1[row] - 1);
        p->of_row[row] = s;
        p->units_left[s] += per_row;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_read_slabs(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                     const size_t *ends, size_t n_slabs, const ipfsrt_zarr_read_options *opts,
                                     ipfsrt_zarr_slab_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(fn, err);
    slab_plan p = {.n = n_slabs, .fn = fn, .user = user};
    reader *r;
    ipfsrt_status st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, NULL, &p, err);
    if (st != IPFSRT_OK) return st;
    if (r->m->ndim == 0) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no dimension to read in slabs", r->m->name);
    if (st == IPFSRT_OK) st = plan_slabs(r, &p, ends, err);
    if (st == IPFSRT_OK && r->total) st = ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err);
    else if (st == IPFSRT_OK) st = ipfsrt_zarr_slabs_hand_over(r, true, err); /* nothing to read: empty slabs */
    ipfsrt_zarr_reader_free(r);
    slab_plan_free(&p);
    return st;
}
