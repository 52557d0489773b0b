/* Weighted sums over the last dimensions of a selection, folded as its chunks
 * are decoded (a weighted daily mean over latitude and longitude without the
 * days ever built): each unit adds value x weight and weight, in float64, into
 * parts of its own (one per kept position and per column of units across the
 * folded dimensions), and the parts are added in unit order at the end. No
 * two units share a part, so decoders never wait on one another, and the sums
 * are the same on any thread count and in any order of arrival. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ndarray/ndarray_internal.h"
#include "zarr/reader.h"

/* Partial sums at most (num and den, per kept position and unit column): past
 * it a caller reads and reduces instead. */
#define PARTS_BYTES_MAX ((size_t)256 << 20)
#define PIECE 512
#define LANES 8 /* independent sums a row is added into: a loop the compiler vectorizes, in a fixed order */

typedef struct weighted_plan {
    const double *w;
    size_t wstride[IPFSRT_NDARRAY_MAX_DIMS]; /* per array dimension, into w (0: kept or indexed) */
    size_t kstride[IPFSRT_NDARRAY_MAX_DIMS]; /* ... into the kept positions (0: folded or indexed) */
    size_t ustride[IPFSRT_NDARRAY_MAX_DIMS]; /* a unit's position, into its column (0: kept) */
    size_t n_kept, n_columns;
    double *parts; /* [n_kept][n_columns][2]: num, den */
    const fold_spec *fold;
} weighted_plan;

/* Values the fold leaves out: NaN, and the caller's. */
static void mark_gone(const fold_spec *fold, const double *x, size_t n, double *keep) {
    for (size_t i = 0; i < n; i++) keep[i] = x[i] == x[i] ? 1.0 : 0.0;
    for (size_t k = 0; k < fold->n_skip; k++)
        for (size_t i = 0; i < n; i++)
            if (x[i] == fold->skip[k]) keep[i] = 0.0;
}

/* A piece along a folded last dimension, its weights contiguous: into lanes. */
static void add_row(const double *restrict x, const double *restrict keep, const double *restrict w, size_t n,
                    double *restrict num, double *restrict den) {
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t l = 0; l < LANES; l++) {
            double kw = keep[i + l] * w[i + l];
            num[l] += keep[i + l] != 0.0 ? x[i + l] * kw : 0.0;
            den[l] += kw;
        }
    for (size_t l = 0; i < n; i++, l++) {
        double kw = keep[i] * w[i];
        num[l] += keep[i] != 0.0 ? x[i] * kw : 0.0;
        den[l] += kw;
    }
}

/* The common rows: contiguous values along a folded last dimension, in a
 * loop the vectorizer takes; floats leave out NaN, integers (CF-packed, summed
 * as stored) at most one value, their fill. */
#define DEFINE_ROW(name, T, KEEP)                                                                                   \
    IPFSRT_NDVECTOR static void name(const T *restrict x, T fill, const double *restrict w, size_t n,             \
                                     double *restrict num, double *restrict den) {                                 \
        (void)fill;                                                                                                \
        double s[LANES] = {0}, t[LANES] = {0};                                                                     \
        size_t i = 0, l;                                                                                           \
        for (; i + LANES <= n; i += LANES)                                                                         \
            for (l = 0; l < LANES; l++) {                                                                          \
                T v = x[i + l];                                                                                    \
                s[l] += KEEP ? (double)v * w[i + l] : 0.0;                                                         \
                t[l] += KEEP ? w[i + l] : 0.0;                                                                     \
            }                                                                                                      \
        for (l = 0; i < n; i++, l++) {                                                                             \
            T v = x[i];                                                                                            \
            s[l] += KEEP ? (double)v * w[i] : 0.0;                                                                 \
            t[l] += KEEP ? w[i] : 0.0;                                                                             \
        }                                                                                                          \
        for (l = 0; l < LANES; l++) num[l] += s[l], den[l] += t[l];                                                \
    }

DEFINE_ROW(row_f32, float, v == v)
DEFINE_ROW(row_f64, double, v == v)
DEFINE_ROW(row_i8, int8_t, v != fill)
DEFINE_ROW(row_u8, uint8_t, v != fill)
DEFINE_ROW(row_i16, int16_t, v != fill)
DEFINE_ROW(row_u16, uint16_t, v != fill)
DEFINE_ROW(row_i32, int32_t, v != fill)

/* The one value a common integer row leaves out: the caller's, when it is
 * one and fits the type. */
static bool int_fill(const fold_spec *fold, double lo, double hi, double *fill) {
    if (fold->n_skip != 1) return false;
    *fill = fold->skip[0];
    return *fill == trunc(*fill) && *fill >= lo && *fill <= hi;
}

/* Adds a common row; false when the row is not one. */
static bool add_common_row(const weighted_plan *p, const ipfsrt_ndarray *region, const unsigned char *row,
                           const double *w, double *num, double *den) {
    int last = region->ndim - 1;
    size_t n = region->shape[last];
    if (p->kstride[last] != 0 || p->wstride[last] != 1 || region->strides[last] != (ptrdiff_t)region->itemsize)
        return false;
    const void *x = row;
    double fill = 0;
    switch (region->dtype) {
    case IPFSRT_DTYPE_FLOAT32: if (p->fold->n_skip) return false; row_f32(x, 0, w, n, num, den); return true;
    case IPFSRT_DTYPE_FLOAT64: if (p->fold->n_skip) return false; row_f64(x, 0, w, n, num, den); return true;
    case IPFSRT_DTYPE_INT8: if (!int_fill(p->fold, INT8_MIN, INT8_MAX, &fill)) return false;
        row_i8(x, (int8_t)fill, w, n, num, den); return true;
    case IPFSRT_DTYPE_UINT8: if (!int_fill(p->fold, 0, UINT8_MAX, &fill)) return false;
        row_u8(x, (uint8_t)fill, w, n, num, den); return true;
    case IPFSRT_DTYPE_INT16: if (!int_fill(p->fold, INT16_MIN, INT16_MAX, &fill)) return false;
        row_i16(x, (int16_t)fill, w, n, num, den); return true;
    case IPFSRT_DTYPE_UINT16: if (!int_fill(p->fold, 0, UINT16_MAX, &fill)) return false;
        row_u16(x, (uint16_t)fill, w, n, num, den); return true;
    case IPFSRT_DTYPE_INT32: if (!int_fill(p->fold, INT32_MIN, INT32_MAX, &fill)) return false;
        row_i32(x, (int32_t)fill, w, n, num, den); return true;
    default: return false;
    }
}

/* One row of the unit (its first element at kept position ko, weight wo), a
 * piece at a time. */
static void add_unit_row(const weighted_plan *p, const ipfsrt_ndarray *region, const unsigned char *row, size_t ko,
                         size_t wo, size_t column) {
    int last = region->ndim - 1;
    size_t inner = region->shape[last], ks = p->kstride[last], ws = p->wstride[last];
    double x[PIECE], keep[PIECE], num[LANES] = {0}, den[LANES] = {0};
    bool common = add_common_row(p, region, row, p->w + wo, num, den);
    for (size_t at = 0; !common && at < inner; at += PIECE) {
        size_t n = inner - at < PIECE ? inner - at : PIECE;
        ipfsrt_ndrow_load_double(region->dtype, row + (ptrdiff_t)at * region->strides[last], region->strides[last], n, x);
        mark_gone(p->fold, x, n, keep);
        if (ks == 0 && ws == 1) {
            add_row(x, keep, p->w + wo + at, n, num, den);
            continue;
        }
        for (size_t i = 0; i < n; i++) { /* kept along the last dimension, or weights that do not vary along it */
            double *part = p->parts + ((ko + (at + i) * ks) * p->n_columns + column) * 2;
            double kw = keep[i] * p->w[wo + (at + i) * ws];
            part[0] += keep[i] != 0.0 ? x[i] * kw : 0.0;
            part[1] += kw;
        }
    }
    if (ks != 0 || ws != 1) return;
    double *part = p->parts + (ko * p->n_columns + column) * 2;
    for (size_t l = 0; l < LANES; l++) part[0] += num[l], part[1] += den[l];
}

ipfsrt_status ipfsrt_zarr_fold_weighted(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err) {
    (void)err;
    const weighted_plan *p = r->fold->weighted;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS], lstart[IPFSRT_NDARRAY_MAX_DIMS],
        lstep[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS], pos[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    ipfsrt_zarr_reader_odometer(r, k, pos);
    int nd = region->ndim;
    size_t column = 0, inner = nd ? region->shape[nd - 1] : 1;
    for (int d = 0; d < nd; d++) column += pos[d] * p->ustride[d];
    size_t rows = inner ? ipfsrt_ndarray_size(region) / inner : 0, idx[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (size_t row = 0; row < rows; row++) {
        size_t ko = 0, wo = 0;
        const unsigned char *q = region->data;
        for (int d = 0; d < nd; d++) {
            ko += (j0[d] + idx[d]) * p->kstride[d];
            wo += (j0[d] + idx[d]) * p->wstride[d];
            q += (ptrdiff_t)idx[d] * region->strides[d];
        }
        add_unit_row(p, region, q, ko, wo, column);
        for (int d = nd - 2; d >= 0 && ++idx[d] == region->shape[d]; d--) idx[d] = 0; /* the next row */
    }
    return IPFSRT_OK;
}

/* Strides into the kept positions, the weights and the unit columns; false
 * when the weights do not fit the folded dimensions. */
static bool plan_strides(weighted_plan *p, const reader *r, int kept, const ipfsrt_ndarray *weights) {
    int nd = r->m->ndim, result = 0, wdim = weights->ndim;
    size_t ks = 1, ws = 1, us = 1;
    for (int d = 0; d < nd; d++) result += !r->dims[d].dropped;
    if (kept < 0 || kept > result || wdim != result - kept) return false;
    for (int d = nd, rd = result; d-- > 0;) {
        if (r->dims[d].dropped) continue;
        rd--;
        if (rd >= kept) {
            if (weights->shape[rd - kept] != r->dims[d].count) return false;
            p->wstride[d] = ws, ws *= r->dims[d].count;
            p->ustride[d] = us, us *= r->dims[d].n;
        } else {
            p->kstride[d] = ks, ks *= r->dims[d].count;
        }
    }
    p->n_kept = ks, p->n_columns = us;
    return true;
}

/* The parts added in unit order into num and den (float64, the kept shape). */
static ipfsrt_status finish(const weighted_plan *p, const reader *r, int kept, ipfsrt_ndarray *num, ipfsrt_ndarray *den,
                            ipfsrt_error *err) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < r->m->ndim && n < kept; d++)
        if (!r->dims[d].dropped) shape[n++] = r->dims[d].count;
    ipfsrt_status st = ipfsrt_ndarray_zeros(num, IPFSRT_DTYPE_FLOAT64, 0, kept, shape, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_zeros(den, IPFSRT_DTYPE_FLOAT64, 0, kept, shape, err);
    if (st != IPFSRT_OK) return st;
    double *a = (double *)(void *)num->data, *b = (double *)(void *)den->data;
    for (size_t i = 0; i < p->n_kept; i++)
        for (size_t c = 0; c < p->n_columns; c++) {
            a[i] += p->parts[(i * p->n_columns + c) * 2];
            b[i] += p->parts[(i * p->n_columns + c) * 2 + 1];
        }
    return IPFSRT_OK;
}

static ipfsrt_status check_weights(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *weights, ipfsrt_error *err) {
    if (weights->dtype != IPFSRT_DTYPE_FLOAT64 || !ipfsrt_ndarray_is_contiguous(weights))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: weighted sums take contiguous float64 weights", m->name);
    if (!ipfsrt_dtype_is_int(m->dtype) && !ipfsrt_dtype_is_float(m->dtype))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: no weighted sums of %s values", m->name,
                           ipfsrt_dtype_name(m->dtype));
    return IPFSRT_OK;
}

static ipfsrt_status run(reader *r, const ipfsrt_zarr_node *array, weighted_plan *p, int kept,
                         const ipfsrt_ndarray *weights, ipfsrt_ndarray *num, ipfsrt_ndarray *den, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *m = r->m;
    if (!plan_strides(p, r, kept, weights))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %d dimensions kept, weights of %d dimensions: they "
                           "must be shaped as the selection's dimensions after the kept ones", m->name, kept,
                           weights->ndim);
    if (p->n_columns && p->n_kept > PARTS_BYTES_MAX / 16 / p->n_columns)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: %zu positions kept across %zu chunks would take more "
                           "than %zu MiB of partial sums", m->name, p->n_kept, p->n_columns, PARTS_BYTES_MAX >> 20);
    p->parts = calloc(p->n_kept * p->n_columns * 2 + 1, sizeof *p->parts);
    if (!p->parts) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for partial sums");
    ipfsrt_status st = r->total ? ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err) : IPFSRT_OK;
    return st == IPFSRT_OK ? finish(p, r, kept, num, den, err) : st;
}

ipfsrt_status ipfsrt_zarr_weighted_sums(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n, int kept,
                                        const ipfsrt_ndarray *weights, const ipfsrt_zarr_fold_options *fold_opts,
                                        ipfsrt_ndarray *num, ipfsrt_ndarray *den, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(weights, err);
    IPFSRT_NEED(num, err);
    IPFSRT_NEED(den, err);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (!m) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "weighted sums: not an array");
    ipfsrt_status st = check_weights(m, weights, err);
    fold_spec fold;
    const ipfsrt_zarr_read_options *opts;
    if (st == IPFSRT_OK) st = ipfsrt_zarr_fold_take(fold_opts, &fold, &opts, err);
    if (st != IPFSRT_OK) return st;
    weighted_plan plan = {.w = (const double *)(const void *)weights->data, .fold = &fold};
    fold.weighted = &plan;
    reader *r = NULL;
    st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, &fold, NULL, err);
    ipfsrt_ndarray a, b;
    ipfsrt_ndarray_init(&a);
    ipfsrt_ndarray_init(&b);
    if (st == IPFSRT_OK) st = run(r, array, &plan, kept, weights, &a, &b, err);
    ipfsrt_zarr_reader_free(r);
    free(plan.parts);
    if (st == IPFSRT_OK) {
        ipfsrt_ndarray_free(num);
        ipfsrt_ndarray_free(den);
        *num = a, *den = b;
    } else {
        ipfsrt_ndarray_free(&a);
        ipfsrt_ndarray_free(&b);
    }
    return st;
}
