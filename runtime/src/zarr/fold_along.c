/* Folds along dimensions: `mean over time` of a selection without building
 * it, or per group along one (`monthly means`: each position of time added
 * into its month's). Each decoded unit is added into summaries shaped like the
 * selection with the folded dimensions of size 1: a decoder takes a set of
 * summaries nobody is adding into (one per decoder at work), so none waits for
 * another, and the sets are added up at the end. Counts, integer sums and
 * extremes do not depend on the order values are added in. Float sums along
 * the first dimension alone are added in order into one set (plan_order,
 * fold_in_order); elsewhere they are only taken where one unit holds every
 * value of a position (checked before any fetch), each added in that unit's
 * own order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/reader.h"
#include "base/base_internal.h"

void ipfsrt_zarr_summaries_init(ipfsrt_zarr_summaries *s) {
    IPFSRT_NEED_OR(s, );
    ipfsrt_ndarray_init(&s->count);
    ipfsrt_ndarray_init(&s->sum);
    ipfsrt_ndarray_init(&s->min);
    ipfsrt_ndarray_init(&s->max);
}

void ipfsrt_zarr_summaries_free(ipfsrt_zarr_summaries *s) {
    IPFSRT_NEED_OR(s, );
    ipfsrt_ndarray_free(&s->count);
    ipfsrt_ndarray_free(&s->sum);
    ipfsrt_ndarray_free(&s->min);
    ipfsrt_ndarray_free(&s->max);
}

/* The values a fold leaves out, as the unit's values are compared. */
typedef struct left_out {
    double f[16];
    int64_t i[16];
    size_t nf, ni;
} left_out;

static void left_out_of(const fold_spec *fold, left_out *lo) {
    memset(lo, 0, sizeof *lo);
    for (size_t k = 0; k < fold->n_skip && lo->nf < 16; k++) {
        double v = fold->skip[k];
        if (isnan(v)) continue; /* NaN are left out anyway */
        lo->f[lo->nf++] = v;
        if (v == trunc(v) && v >= -0x1p63 && v < 0x1p63) lo->i[lo->ni++] = (int64_t)v;
    }
}

/* Up to ROW_PIECE elements of a row (every stride bytes from p) as int64 or
 * double: the loops below then see one type. */
#define ROW_PIECE 512

#define LOAD(T, OUT)                                                                                              \
    for (size_t i = 0; i < n; i++) OUT[i] = *(const T *)(const void *)(p + (ptrdiff_t)i * stride)

static void load_ints(const unsigned char *p, ptrdiff_t stride, ipfsrt_dtype dt, size_t n, int64_t *out) {
    switch (dt) {
    case IPFSRT_DTYPE_INT8: LOAD(int8_t, out); break;
    case IPFSRT_DTYPE_INT16: LOAD(int16_t, out); break;
    case IPFSRT_DTYPE_INT32: LOAD(int32_t, out); break;
    case IPFSRT_DTYPE_UINT8: LOAD(uint8_t, out); break;
    case IPFSRT_DTYPE_UINT16: LOAD(uint16_t, out); break;
    case IPFSRT_DTYPE_UINT32: LOAD(uint32_t, out); break;
    case IPFSRT_DTYPE_UINT64: LOAD(uint64_t, out); break; /* wraps past INT64_MAX, as numpy's int64 sums */
    default: LOAD(int64_t, out); break;
    }
}

static void load_floats(const unsigned char *p, ptrdiff_t stride, ipfsrt_dtype dt, size_t n, double *out) {
    if (dt == IPFSRT_DTYPE_FLOAT32) LOAD(float, out);
    else LOAD(double, out);
}

/* v below (above) the least (greatest) so far m: -0 below +0, so that the
 * extremes do not depend on which comes first. */
static bool lower(double v, double m) { return v < m || (v == m && signbit(v) && !signbit(m)); }
static bool higher(double v, double m) { return v > m || (v == m && !signbit(v) && signbit(m)); }

/* Counts: without extremes, a set counts the values left out (written only
 * for those: land, the fill value), and the counts are made from them at the
 * end (counts_from_missing); with extremes it counts the values, which tell
 * the first value of a position. */

/* float32 sums of a contiguous piece, only NaN left out: the common case of
 * sums in order (CF-decoded values), in a loop the compiler vectorizes. */
static void add_float32_sums(int64_t *restrict missing, float *restrict sum, const double *restrict x, size_t n) {
    for (size_t i = 0; i < n; i++) sum[i] += x[i] == x[i] ? (float)x[i] : 0.0f;
    for (size_t i = 0; i < n; i++)
        if (x[i] != x[i]) missing[i]++;
}

/* Per position o + i * step, the piece's values added in: counted, summed,
 * least and greatest. Float sums are float64, or in the values' own type when
 * added in order (a value left out adds zero, as numpy's nansum of
 * where(isnan(x), 0, x)). */
static void add_floats(const ipfsrt_zarr_summaries *acc, size_t o, size_t step, const double *x, size_t n,
                       const left_out *lo) {
    int64_t *count = (int64_t *)(void *)acc->count.data;
    bool narrow = acc->sum.dtype == IPFSRT_DTYPE_FLOAT32;
    float *sum32 = narrow ? (float *)(void *)acc->sum.data : NULL;
    double *sum = narrow ? NULL : (double *)(void *)acc->sum.data, *mn = (double *)(void *)acc->min.data,
           *mx = (double *)(void *)acc->max.data;
    if (sum32 && !mn && step == 1 && !lo->nf) {
        add_float32_sums(count + o, sum32 + o, x, n);
        return;
    }
    for (size_t i = 0; i < n; i++, o += step) {
        double v = x[i];
        bool skip = isnan(v);
        for (size_t k = 0; k < lo->nf; k++) skip = skip || v == lo->f[k];
        if (sum32) sum32[o] += skip ? 0.0f : (float)v;
        if (sum) sum[o] += skip ? 0.0 : v;
        if (skip && !mn) count[o]++; /* counting what is left out */
        if (skip || !mn) continue;
        if (!count[o] || lower(v, mn[o])) mn[o] = v;
        if (!count[o] || higher(v, mx[o])) mx[o] = v;
        count[o]++;
    }
}

/* Sums of a contiguous piece with at most one value left out: the common
 * case (CF-packed integers, their fill value), in a loop the compiler
 * vectorizes. */
static void add_int_sums(int64_t *restrict missing, int64_t *restrict sum, const int64_t *restrict x, size_t n,
                         const left_out *lo) {
    int64_t fill = lo->ni ? lo->i[0] : 0;
    bool any = lo->ni != 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = x[i], kept = !any || v != fill;
        sum[i] = (int64_t)((uint64_t)sum[i] + (uint64_t)(kept ? v : 0)); /* wraps, as numpy's sums */
    }
    for (size_t i = 0; any && i < n; i++)
        if (x[i] == fill) missing[i]++;
}

static void add_ints(const ipfsrt_zarr_summaries *acc, size_t o, size_t step, const int64_t *x, size_t n,
                     const left_out *lo) {
    int64_t *count = (int64_t *)(void *)acc->count.data, *sum = (int64_t *)(void *)acc->sum.data;
    double *mn = (double *)(void *)acc->min.data, *mx = (double *)(void *)acc->max.data;
    if (sum && !mn && step == 1 && lo->ni <= 1) {
        add_int_sums(count + o, sum + o, x, n, lo);
        return;
    }
    for (size_t i = 0; i < n; i++, o += step) {
        int64_t v = x[i];
        bool skip = false;
        for (size_t k = 0; k < lo->ni; k++) skip = skip || v == lo->i[k];
        if (skip && !mn) count[o]++; /* counting what is left out */
        if (skip) continue;
        if (sum) sum[o] = (int64_t)((uint64_t)sum[o] + (uint64_t)v); /* wraps, as numpy's sums */
        if (!mn) continue;
        if (!count[o] || (double)v < mn[o]) mn[o] = (double)v;
        if (!count[o] || (double)v > mx[o]) mx[o] = (double)v;
        count[o]++;
    }
}

/* Whether dimension d is folded into groups. */
static bool grouped(const fold_spec *fold, int d) { return fold->group_of && d == fold->group_dim; }

/* Where row idx of a unit (its first element at selected position j0) goes in
 * the summaries: false when its group is none. */
static bool row_offset(const fold_spec *fold, int nd, const size_t *ostride, const size_t *j0, const size_t *idx,
                       size_t *o) {
    *o = 0;
    for (int d = 0; d < nd; d++) {
        size_t j = j0[d] + idx[d];
        bool in_groups = grouped(fold, d);
        if (in_groups && fold->group_of[j] == SIZE_MAX) return false;
        *o += (in_groups ? fold->group_of[j] : j) * ostride[d];
    }
    return true;
}

/* Adds the unit's region into the summaries, its first element at selected
 * position j0, row by row, a piece at a time. */
static void add_unit(const reader *r, const ipfsrt_zarr_summaries *acc, const left_out *lo,
                     const ipfsrt_ndarray *region, const size_t *j0) {
    int nd = region->ndim;
    size_t ostride[IPFSRT_NDARRAY_MAX_DIMS], idx[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (int d = 0; d < nd; d++) ostride[d] = r->fold->along[d] ? 0 : (size_t)acc->count.strides[d] / sizeof(int64_t);
    bool integer = !ipfsrt_dtype_is_float(region->dtype);
    size_t inner = region->shape[nd - 1], rows = inner ? ipfsrt_ndarray_size(region) / inner : 0;
    int64_t ints[ROW_PIECE];
    double floats[ROW_PIECE];
    for (size_t row = 0; row < rows; row++) {
        size_t o;
        const unsigned char *p = region->data;
        bool kept = row_offset(r->fold, nd, ostride, j0, idx, &o);
        for (int d = 0; d < nd; d++) p += (ptrdiff_t)idx[d] * region->strides[d];
        for (size_t at = 0; kept && at < inner; at += ROW_PIECE) {
            size_t n = inner - at < ROW_PIECE ? inner - at : ROW_PIECE;
            const unsigned char *q = p + (ptrdiff_t)at * region->strides[nd - 1];
            size_t oq = o + at * ostride[nd - 1];
            if (integer) load_ints(q, region->strides[nd - 1], region->dtype, n, ints);
            if (integer) add_ints(acc, oq, ostride[nd - 1], ints, n, lo);
            else load_floats(q, region->strides[nd - 1], region->dtype, n, floats);
            if (!integer) add_floats(acc, oq, ostride[nd - 1], floats, n, lo);
        }
        for (int d = nd - 2; d >= 0 && ++idx[d] == region->shape[d]; d--) idx[d] = 0; /* the next row */
    }
}

/* The summaries the decoders add into: sets made as decoders need them
 * (at most one per decoding thread, and one where units decode as they arrive). */
typedef struct fold_pool {
    pthread_mutex_t lock;
    pthread_cond_t returned;
    ipfsrt_zarr_summaries sets[THREADS_MAX + 1];
    ipfsrt_zarr_summaries *idle[THREADS_MAX + 1];
    size_t n_sets, n_idle;
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS]; /* the selection's, 1 where folded */
    unsigned what;
    ipfsrt_dtype sum_dtype;
    left_out lo; /* the values left out, worked out once */
    /* Float sums along the first dimension alone (order_dim, else -1): one
     * set, each column of units (the same chunks but along order_dim) added
     * in order along it, as read-then-reduce adds rows; a unit decoded before
     * its turn waits, copied, in parked. */
    int order_dim;
    size_t *turn; /* per column, the unit position along order_dim to add next */
    struct parked *parked, *spare;
    size_t parked_bytes, unit_bytes; /* parked, and the most a unit's copy takes */
} fold_pool;

/* Decoded units parked at once, at most (about): beyond, the decoders take
 * only units whose turn it is, the others waiting still encoded. */
#define PARKED_BYTES_MAX ((size_t)32 << 20)

typedef struct parked {
    struct parked *next;
    size_t column, pos;
    size_t j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_ndarray values; /* a view of bytes */
    unsigned char bytes[]; /* unit_bytes: the copies go round (pool->spare), never zeroed */
} parked;

static ipfsrt_status make_set(const fold_pool *p, ipfsrt_zarr_summaries *s, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_ndarray_zeros(&s->count, IPFSRT_DTYPE_INT64, 0, p->ndim, p->shape, err);
    if (st == IPFSRT_OK && (p->what & IPFSRT_ZARR_FOLD_SUMS))
        st = ipfsrt_ndarray_zeros(&s->sum, p->sum_dtype, 0, p->ndim, p->shape, err);
    if (st == IPFSRT_OK && (p->what & IPFSRT_ZARR_FOLD_EXTREMES))
        st = ipfsrt_ndarray_zeros(&s->min, IPFSRT_DTYPE_FLOAT64, 0, p->ndim, p->shape, err);
    if (st == IPFSRT_OK && (p->what & IPFSRT_ZARR_FOLD_EXTREMES))
        st = ipfsrt_ndarray_zeros(&s->max, IPFSRT_DTYPE_FLOAT64, 0, p->ndim, p->shape, err);
    return st;
}

/* A set nobody adds into: an idle one, a new one while there are fewer than
 * decoders can be, else (never with THREADS_MAX decoders) the next given back. */
static ipfsrt_status take_set(fold_pool *p, ipfsrt_zarr_summaries **out, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    pthread_mutex_lock(&p->lock);
    while (!p->n_idle && p->n_sets == THREADS_MAX + 1) pthread_cond_wait(&p->returned, &p->lock);
    if (p->n_idle) {
        *out = p->idle[--p->n_idle];
    } else {
        *out = &p->sets[p->n_sets++];
        st = make_set(p, *out, err); /* a set half made is freed with the rest */
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

static void give_set(fold_pool *p, ipfsrt_zarr_summaries *s) {
    pthread_mutex_lock(&p->lock);
    p->idle[p->n_idle++] = s;
    pthread_cond_signal(&p->returned);
    pthread_mutex_unlock(&p->lock);
}

/* Unit k's column (its place among the units, order_dim left out) and its
 * position along order_dim. */
static void column_of(const reader *r, int order_dim, size_t k, size_t *column, size_t *pos) {
    size_t at[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_odometer(r, k, at);
    *column = 0;
    for (int d = 0; d < r->m->ndim; d++)
        if (d != order_dim) *column = *column * r->dims[d].n + at[d];
    *pos = at[order_dim];
}

/* The parked unit at column's turn, taken out of the list (NULL: none). Locked. */
static parked *unpark(fold_pool *p, size_t column) {
    for (parked **q = &p->parked; *q; q = &(*q)->next)
        if ((*q)->column == column && (*q)->pos == p->turn[column]) {
            parked *u = *q;
            *q = u->next;
            return u;
        }
    return NULL;
}

/* A parked copy given back for the next one. */
static void recycle(fold_pool *p, parked *u) {
    if (!u) return;
    pthread_mutex_lock(&p->lock);
    u->next = p->spare;
    p->spare = u;
    pthread_mutex_unlock(&p->lock);
}

static void free_list(parked *u) {
    for (parked *next; u; u = next) {
        next = u->next;
        free(u);
    }
}

/* A copy of a unit decoded before its turn (C order, in a spare copy's bytes
 * when there is one). */
static ipfsrt_status park_copy(fold_pool *p, parked **out, size_t column, size_t pos,
                               const ipfsrt_ndarray *region, const size_t *j0, ipfsrt_error *err) {
    pthread_mutex_lock(&p->lock);
    parked *u = p->spare;
    if (u) p->spare = u->next;
    pthread_mutex_unlock(&p->lock);
    if (!u) u = malloc(sizeof *u + p->unit_bytes);
    if (!u) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a chunk of %zu bytes", p->unit_bytes);
    u->column = column, u->pos = pos;
    memcpy(u->j0, j0, (size_t)region->ndim * sizeof *j0);
    u->values = *region;
    u->values.buffer = NULL;
    u->values.data = u->bytes;
    ptrdiff_t step = (ptrdiff_t)region->itemsize;
    for (int d = region->ndim; d-- > 0; step *= (ptrdiff_t)region->shape[d]) u->values.strides[d] = step;
    ipfsrt_status st = ipfsrt_ndarray_assign(&u->values, region, err);
    if (st != IPFSRT_OK) recycle(p, u), u = NULL;
    *out = u;
    return st;
}

/* Adds the unit when its turn has come (then the parked ones whose turn that
 * makes), else parks a copy of it. Units of one column never add at once:
 * only the one at the column's turn adds. */
static ipfsrt_status fold_in_order(reader *r, size_t k, const ipfsrt_ndarray *region, const size_t *j0,
                                   ipfsrt_error *err) {
    fold_pool *p = r->fold->pool;
    size_t column, pos;
    column_of(r, p->order_dim, k, &column, &pos);
    parked *copy = NULL;
    ipfsrt_status st = IPFSRT_OK;
    pthread_mutex_lock(&p->lock);
    while (st == IPFSRT_OK && p->turn[column] != pos && !copy) { /* copied unlocked, then looked at again */
        pthread_mutex_unlock(&p->lock);
        st = park_copy(p, &copy, column, pos, region, j0, err);
        pthread_mutex_lock(&p->lock);
    }
    bool mine = st == IPFSRT_OK && p->turn[column] == pos;
    if (copy && !mine) copy->next = p->parked, p->parked = copy, p->parked_bytes += p->unit_bytes;
    pthread_mutex_unlock(&p->lock);
    if (!mine) return st;
    recycle(p, copy); /* its turn came while it was copied */
    add_unit(r, &p->sets[0], &p->lo, region, j0);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        p->turn[column]++;
        parked *next = unpark(p, column);
        if (next) p->parked_bytes -= p->unit_bytes;
        pthread_mutex_unlock(&p->lock);
        if (!next) break;
        add_unit(r, &p->sets[0], &p->lo, &next->values, next->j0);
        recycle(p, next);
    }
    if (r->nthreads) { /* a queued unit may have its turn now */
        pthread_mutex_lock(&r->mu);
        pthread_cond_broadcast(&r->work);
        pthread_mutex_unlock(&r->mu);
    }
    return IPFSRT_OK;
}

bool ipfsrt_zarr_fold_in_order(const reader *r) { return r->fold->pool && r->fold->pool->order_dim >= 0; }

int ipfsrt_zarr_fold_may_take(const reader *r, size_t k) {
    fold_pool *p = r->fold->pool;
    size_t column, pos;
    column_of(r, p->order_dim, k, &column, &pos);
    pthread_mutex_lock(&p->lock);
    int rank = p->turn[column] == pos ? 2 : p->parked_bytes + p->unit_bytes <= PARKED_BYTES_MAX;
    pthread_mutex_unlock(&p->lock);
    return rank;
}

ipfsrt_status ipfsrt_zarr_fold_along(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS], lstart[IPFSRT_NDARRAY_MAX_DIMS],
        lstep[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    if (r->fold->pool->order_dim >= 0) return fold_in_order(r, k, region, j0, err); /* empty ones take turns too */
    if (!ipfsrt_ndarray_size(region)) return IPFSRT_OK;
    ipfsrt_zarr_summaries *set;
    ipfsrt_status st = take_set(r->fold->pool, &set, err);
    if (st != IPFSRT_OK) return st;
    add_unit(r, set, &r->fold->pool->lo, region, j0);
    give_set(r->fold->pool, set);
    return IPFSRT_OK;
}

static double *doubles(const ipfsrt_ndarray *a) { return (double *)(void *)a->data; }
static int64_t *int64s(const ipfsrt_ndarray *a) { return (int64_t *)(void *)a->data; }

/* Set b added into set a, position by position. A float sum is one set's
 * (one unit holds its values): taken as it is, not added to zeros. */
static void merge_sets(const ipfsrt_zarr_summaries *a, const ipfsrt_zarr_summaries *b) {
    int64_t *ca = int64s(&a->count), *cb = int64s(&b->count);
    bool ints = a->sum.data && a->sum.dtype == IPFSRT_DTYPE_INT64;
    if (!a->min.data) { /* counts of what is left out: sums added (a float one to the +0 of the other sets) */
        for (size_t i = 0, n = ipfsrt_ndarray_size(&a->count); i < n; i++) {
            ca[i] += cb[i];
            if (ints) int64s(&a->sum)[i] = (int64_t)((uint64_t)int64s(&a->sum)[i] + (uint64_t)int64s(&b->sum)[i]);
            else if (a->sum.data) doubles(&a->sum)[i] += doubles(&b->sum)[i];
        }
        return;
    }
    for (size_t i = 0, n = ipfsrt_ndarray_size(&a->count); i < n; i++) {
        if (!cb[i]) continue;
        if (ints) int64s(&a->sum)[i] = (int64_t)((uint64_t)int64s(&a->sum)[i] + (uint64_t)int64s(&b->sum)[i]);
        else if (a->sum.data) doubles(&a->sum)[i] = doubles(&b->sum)[i];
        if (a->min.data) {
            double *mn = doubles(&a->min) + i, *mx = doubles(&a->max) + i;
            double bmn = doubles(&b->min)[i], bmx = doubles(&b->max)[i];
            if (!ca[i] || lower(bmn, *mn)) *mn = bmn;
            if (!ca[i] || higher(bmx, *mx)) *mx = bmx;
        }
        ca[i] += cb[i];
    }
}

static void pool_init(fold_pool *p, const reader *r, const bool *along, unsigned what, ipfsrt_dtype values) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->returned, NULL);
    p->ndim = r->m->ndim;
    for (int d = 0; d < p->ndim; d++)
        p->shape[d] = along[d] ? 1 : grouped(r->fold, d) ? r->fold->n_groups : r->dims[d].count;
    p->what = what;
    p->sum_dtype = ipfsrt_dtype_is_float(values) ? IPFSRT_DTYPE_FLOAT64 : IPFSRT_DTYPE_INT64;
    p->order_dim = -1;
    left_out_of(r->fold, &p->lo);
    for (size_t i = 0; i < THREADS_MAX + 1; i++) ipfsrt_zarr_summaries_init(&p->sets[i]);
}

/* Float sums added in order along order_dim, in the values' own type, into
 * the one set (made now, before any unit is decoded). */
static ipfsrt_status pool_order(fold_pool *p, const reader *r, int order_dim, ipfsrt_dtype values,
                                ipfsrt_error *err) {
    size_t columns = r->dims[order_dim].n ? r->total / r->dims[order_dim].n : 0;
    p->order_dim = order_dim;
    p->sum_dtype = values;
    p->unit_bytes = ipfsrt_dtype_size(values);
    for (int d = 0; d < r->m->ndim; d++) p->unit_bytes *= r->unit->chunks[d]; /* a unit holds no more */
    p->turn = calloc(columns ? columns : 1, sizeof *p->turn);
    if (!p->turn) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    p->n_sets = 1;
    return make_set(p, &p->sets[0], err);
}

static void pool_free(fold_pool *p) {
    for (size_t i = 0; i < p->n_sets; i++) ipfsrt_zarr_summaries_free(&p->sets[i]);
    free_list(p->parked); /* a failed read leaves some */
    free_list(p->spare);
    free(p->turn);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->returned);
}

/* Every set added into the first (made now when no unit had values). */
static ipfsrt_status merge_pool(fold_pool *p, ipfsrt_zarr_summaries *out, ipfsrt_error *err) {
    if (!p->n_sets) {
        p->n_sets = 1;
        ipfsrt_status st = make_set(p, &p->sets[0], err);
        if (st != IPFSRT_OK) return st;
    }
    for (size_t i = 1; i < p->n_sets; i++) merge_sets(&p->sets[0], &p->sets[i]);
    *out = p->sets[0];
    ipfsrt_zarr_summaries_init(&p->sets[0]);
    return IPFSRT_OK;
}

/* Positions where nothing counted: NaN extremes. */
static void no_extremes(ipfsrt_zarr_summaries *acc) {
    if (!acc->min.data) return;
    const int64_t *count = (const int64_t *)(const void *)acc->count.data;
    for (size_t i = 0, n = ipfsrt_ndarray_size(&acc->count); i < n; i++)
        if (!count[i]) ((double *)(void *)acc->min.data)[i] = ((double *)(void *)acc->max.data)[i] = NAN;
}

/* The summaries as the caller sees them: folded and indexed dimensions gone. */
static ipfsrt_status drop_dims(const reader *r, const bool *along, ipfsrt_zarr_summaries *acc, ipfsrt_error *err) {
    int64_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < r->m->ndim; d++)
        if (!along[d] && !r->dims[d].dropped)
            shape[n++] = (int64_t)(grouped(r->fold, d) ? r->fold->n_groups : r->dims[d].count);
    ipfsrt_ndarray *all[4] = {&acc->count, &acc->sum, &acc->min, &acc->max};
    ipfsrt_status st = IPFSRT_OK;
    for (int i = 0; i < 4 && st == IPFSRT_OK; i++)
        if (all[i]->data) st = ipfsrt_ndarray_reshape(all[i], all[i], n, shape, err);
    return st;
}

/* Float sums along the first kept dimension alone (folded or grouped) are
 * added in order along it, in the values' type, as read-then-reduce adds
 * rows. Along other dimensions they are float64, and refused where they span
 * units: added as units arrive, they would round differently from run to run. */
static ipfsrt_status plan_order(reader *r, const bool *along, unsigned what, ipfsrt_dtype values,
                                ipfsrt_error *err) {
    if (!(what & IPFSRT_ZARR_FOLD_SUMS) || !ipfsrt_dtype_is_float(values)) return IPFSRT_OK;
    int first = ipfsrt_zarr_reader_first_kept(r), folded = 0, spanning = -1, n_spanning = 0;
    for (int d = 0; d < r->m->ndim; d++) {
        bool f = along[d] || grouped(r->fold, d);
        folded += f;
        if (f && r->dims[d].n > 1) spanning = d, n_spanning++;
    }
    bool only_first = folded == 1 && (along[first] || grouped(r->fold, first));
    if (only_first) return pool_order(r->fold->pool, r, first, values, err); /* in order even in one unit */
    if (!n_spanning) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: float sums along dimension %d span %zu chunks, beside "
                       "other dimensions folded: added as they arrive, they would round differently from run to "
                       "run", r->m->name, spanning, r->dims[spanning].n);
}

/* Counts of what was left out to counts of values: a position holds the
 * selected positions folded into it (its group's), less those. */
static ipfsrt_status counts_from_missing(const reader *r, ipfsrt_zarr_summaries *acc, ipfsrt_error *err) {
    const fold_spec *fold = r->fold;
    int64_t folded = 1, *count = int64s(&acc->count);
    for (int d = 0; d < r->m->ndim; d++)
        if (fold->along[d]) folded *= (int64_t)r->dims[d].count; /* at most the selection's size */
    size_t n = ipfsrt_ndarray_size(&acc->count);
    if (!fold->group_of) {
        for (size_t i = 0; i < n; i++) count[i] = folded - count[i];
        return IPFSRT_OK;
    }
    int64_t *size = calloc(fold->n_groups ? fold->n_groups : 1, sizeof *size);
    if (!size) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t j = 0; j < r->dims[fold->group_dim].count; j++)
        if (fold->group_of[j] != SIZE_MAX) size[fold->group_of[j]]++;
    size_t every = (size_t)acc->count.strides[fold->group_dim] / sizeof *count;
    for (size_t i = 0; i < n; i++) count[i] = folded * size[i / every % fold->n_groups] - count[i];
    free(size);
    return IPFSRT_OK;
}

static ipfsrt_status run_along(reader *r, const ipfsrt_zarr_node *array, const bool *along, unsigned what,
                               ipfsrt_dtype values, ipfsrt_zarr_summaries *acc, ipfsrt_error *err) {
    ipfsrt_status st = plan_order(r, along, what, values, err);
    if (st == IPFSRT_OK && r->total) st = ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err);
    if (st == IPFSRT_OK) st = merge_pool(r->fold->pool, acc, err);
    if (st == IPFSRT_OK && !(what & IPFSRT_ZARR_FOLD_EXTREMES)) st = counts_from_missing(r, acc, err);
    if (st == IPFSRT_OK) no_extremes(acc);
    if (st == IPFSRT_OK) st = drop_dims(r, along, acc, err);
    return st;
}

/* The groups fit the selection: group_dim kept (not indexed, not the last),
 * every group below n_groups. */
static ipfsrt_status check_groups(const reader *r, const fold_spec *fold, ipfsrt_error *err) {
    int d = fold->group_dim;
    if (!fold->group_of) return IPFSRT_OK;
    if (d < 0 || d >= r->m->ndim - 1 || r->dims[d].dropped || fold->along[d])
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: dimension %d cannot be grouped (indexed, folded along, or the "
                           "last)", r->m->name, d);
    for (size_t j = 0; j < r->dims[d].count; j++)
        if (fold->group_of[j] != SIZE_MAX && fold->group_of[j] >= fold->n_groups)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: position %zu is in group %zu of %zu", r->m->name, j,
                               fold->group_of[j], fold->n_groups);
    return IPFSRT_OK;
}

static ipfsrt_status summarize(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                               const ipfsrt_zarr_read_options *opts, fold_spec *fold, ipfsrt_zarr_summaries *out,
                               ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (m && !ipfsrt_dtype_is_int(m->dtype) && !ipfsrt_dtype_is_float(m->dtype))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: no sums of %s values", m->name, ipfsrt_dtype_name(m->dtype));
    if (m && m->ndim == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no dimension to fold along", m->name);
    fold_pool pool;
    const bool *along = fold->along;
    unsigned what = fold->what;
    fold->pool = &pool;
    reader *r = NULL;
    ipfsrt_status st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, fold, NULL, err);
    if (st == IPFSRT_OK) st = check_groups(r, fold, err);
    if (st != IPFSRT_OK) {
        ipfsrt_zarr_reader_free(r);
        return st;
    }
    ipfsrt_dtype values = r->opts->unscale ? r->opts->unscale_dtype : m->dtype;
    pool_init(&pool, r, along, what, values);
    ipfsrt_zarr_summaries acc;
    ipfsrt_zarr_summaries_init(&acc);
    st = run_along(r, array, along, what, values, &acc, err);
    ipfsrt_zarr_reader_free(r);
    pool_free(&pool);
    if (st == IPFSRT_OK) {
        ipfsrt_zarr_summaries_free(out);
        *out = acc;
    } else {
        ipfsrt_zarr_summaries_free(&acc);
    }
    return st;
}

ipfsrt_status ipfsrt_zarr_summarize_along(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                          const bool *along, const ipfsrt_zarr_fold_options *fold_opts,
                                          ipfsrt_zarr_summaries *out, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED_N(along, n, err);
    IPFSRT_NEED(out, err);
    fold_spec fold;
    const ipfsrt_zarr_read_options *opts;
    ipfsrt_status st = ipfsrt_zarr_fold_take(fold_opts, &fold, &opts, err);
    if (st != IPFSRT_OK) return st;
    fold.along = along;
    return summarize(array, sel, n, opts, &fold, out, err);
}

ipfsrt_status ipfsrt_zarr_summarize_groups(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                           const ipfsrt_zarr_groups *groups, const ipfsrt_zarr_fold_options *fold_opts,
                                           ipfsrt_zarr_summaries *out, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(groups, err);
    IPFSRT_NEED(out, err);
    bool along[IPFSRT_NDARRAY_MAX_DIMS] = {false};
    fold_spec fold;
    const ipfsrt_zarr_read_options *opts;
    ipfsrt_status st = ipfsrt_zarr_fold_take(fold_opts, &fold, &opts, err);
    if (st != IPFSRT_OK) return st;
    fold.along = along;
    fold.group_dim = groups->dim;
    fold.group_of = groups->group_of;
    fold.n_groups = groups->n_groups;
    return summarize(array, sel, n, opts, &fold, out, err);
}
