/* Where a selection's least and greatest values are, without building it:
 * each unit scanned once, row by row in its own type, on the decoding thread
 * that decoded it (values left out and NaN skipped), its first least and
 * greatest kept with their places in the selection; the units' answers are
 * combined in unit order, ties going to the place first in C order, as
 * numpy's argmin and argmax. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/reader.h"
#include "base/base_internal.h"

/* One unit's answer. */
typedef struct unit_extremes {
    uint64_t count;
    double min, max;
    uint64_t min_at, max_at; /* flat places in the selection (C order, kept dimensions) */
} unit_extremes;

/* The row being scanned: the values' type, the values left out (one is
 * scanned for without a loop: a fill value), and the unit's answer so far. */
typedef struct scan {
    ipfsrt_dtype dtype;
    const double *skip;
    size_t n_skip;
    unit_extremes *u;
} scan;

static bool left_out(const scan *s, double v) {
    if (v != v) return true;
    for (size_t i = 0; i < s->n_skip; i++)
        if (v == s->skip[i]) return true;
    return false;
}

/* A row in two passes: its least and greatest kept values first (branch
 * free, so the compiler vectorizes it), then, only where one betters the
 * unit's, the first place it is at. With more than one value left out, one
 * pass that asks each value. */
#define SCAN_ROW(T, LOWEST, HIGHEST)                                                                                  \
    static void first_at_##T(const scan *s, const unsigned char *p, ptrdiff_t stride, size_t n, T want,               \
                             uint64_t *at) {                                                                          \
        for (size_t i = 0; i < n; i++, p += stride)                                                                   \
            if (*(const T *)(const void *)p == want && !left_out(s, (double)want)) {                                  \
                *at += i;                                                                                             \
                return;                                                                                               \
            }                                                                                                         \
    }                                                                                                                 \
    static void scan_##T(const scan *s, const unsigned char *p, ptrdiff_t stride, size_t n, uint64_t at) {            \
        unit_extremes *u = s->u;                                                                                      \
        T skip = s->n_skip == 1 && (double)(T)s->skip[0] == s->skip[0] ? (T)s->skip[0] : (T)0;                        \
        bool skipping = s->n_skip == 1 && (double)(T)s->skip[0] == s->skip[0];                                        \
        if (s->n_skip > 1) {                                                                                          \
            for (size_t i = 0; i < n; i++) {                                                                          \
                double v = (double)*(const T *)(const void *)(p + (ptrdiff_t)i * stride);                             \
                if (left_out(s, v)) continue;                                                                         \
                if (u->count++ == 0 || v < u->min) u->min = v, u->min_at = at + i;                                    \
                if (u->count == 1 || v > u->max) u->max = v, u->max_at = at + i;                                      \
            }                                                                                                         \
            return;                                                                                                   \
        }                                                                                                             \
        T lo = HIGHEST, hi = LOWEST;                                                                                  \
        uint32_t kept = 0;                                                                                            \
        if (stride == (ptrdiff_t)sizeof(T) && n <= UINT32_MAX) { /* contiguous: vectorized */                         \
            const T *v = (const T *)(const void *)p;                                                                  \
            for (size_t i = 0; i < n; i++) {                                                                          \
                T x = v[i];                                                                                           \
                bool keep = x == x && (!skipping || x != skip);                                                       \
                T a = keep ? x : HIGHEST, b = keep ? x : LOWEST;                                                      \
                lo = a < lo ? a : lo;                                                                                 \
                hi = b > hi ? b : hi;                                                                                 \
            }                                                                                                         \
            for (size_t i = 0; i < n; i++) kept += (uint32_t)(v[i] == v[i] && (!skipping || v[i] != skip));          \
        } else {                                                                                                      \
            for (size_t i = 0; i < n; i++) {                                                                          \
                T v = *(const T *)(const void *)(p + (ptrdiff_t)i * stride);                                          \
                bool keep = v == v && !(skipping && v == skip);                                                       \
                kept += keep;                                                                                         \
                lo = keep && v < lo ? v : lo;                                                                         \
                hi = keep && v > hi ? v : hi;                                                                         \
            }                                                                                                         \
        }                                                                                                             \
        if (!kept) return;                                                                                            \
        bool first = u->count == 0;                                                                                   \
        u->count += kept;                                                                                             \
        if (first || (double)lo < u->min) {                                                                           \
            uint64_t where = at;                                                                                      \
            first_at_##T(s, p, stride, n, lo, &where);                                                                \
            u->min = (double)lo, u->min_at = where;                                                                   \
        }                                                                                                             \
        if (first || (double)hi > u->max) {                                                                           \
            uint64_t where = at;                                                                                      \
            first_at_##T(s, p, stride, n, hi, &where);                                                                \
            u->max = (double)hi, u->max_at = where;                                                                   \
        }                                                                                                             \
    }
SCAN_ROW(int8_t, INT8_MIN, INT8_MAX)
SCAN_ROW(uint8_t, 0, UINT8_MAX)
SCAN_ROW(int16_t, INT16_MIN, INT16_MAX)
SCAN_ROW(uint16_t, 0, UINT16_MAX)
SCAN_ROW(int32_t, INT32_MIN, INT32_MAX)
SCAN_ROW(uint32_t, 0, UINT32_MAX)
SCAN_ROW(float, -INFINITY, INFINITY)
SCAN_ROW(double, -INFINITY, INFINITY)

typedef void (*row_fn)(const scan *, const unsigned char *, ptrdiff_t, size_t, uint64_t);

static row_fn row_fn_of(ipfsrt_dtype d) {
    switch (d) {
    case IPFSRT_DTYPE_INT8: return scan_int8_t;
    case IPFSRT_DTYPE_UINT8: return scan_uint8_t;
    case IPFSRT_DTYPE_INT16: return scan_int16_t;
    case IPFSRT_DTYPE_UINT16: return scan_uint16_t;
    case IPFSRT_DTYPE_INT32: return scan_int32_t;
    case IPFSRT_DTYPE_UINT32: return scan_uint32_t;
    case IPFSRT_DTYPE_FLOAT32: return scan_float;
    case IPFSRT_DTYPE_FLOAT64: return scan_double;
    default: return NULL; /* 64-bit integers: a double would merge neighbours */
    }
}

/* The selection's kept lengths (strides of its flat places, per stored dimension). */
static void place_strides(const reader *r, uint64_t *stride) {
    uint64_t s = 1;
    for (int d = r->m->ndim - 1; d >= 0; d--) {
        stride[d] = r->dims[d].dropped ? 0 : s;
        if (!r->dims[d].dropped) s *= r->dims[d].count;
    }
}

ipfsrt_status ipfsrt_zarr_extremes_unit(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err) {
    (void)err;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS], lstart[IPFSRT_NDARRAY_MAX_DIMS],
        lstep[IPFSRT_NDARRAY_MAX_DIMS], j0[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_zarr_reader_geometry(r, k, shape, index, lstart, lstep, j0);
    unit_extremes *u = &((unit_extremes *)r->fold->extremes)[k];
    *u = (unit_extremes){.min = NAN, .max = NAN};
    scan s = {region->dtype, r->fold->skip, r->fold->n_skip, u};
    row_fn row = row_fn_of(region->dtype);
    int nd = region->ndim, last = nd - 1;
    uint64_t stride[IPFSRT_NDARRAY_MAX_DIMS];
    place_strides(r, stride);
    size_t rows = 1, pos[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (int d = 0; d < last; d++) rows *= region->shape[d];
    if (!ipfsrt_ndarray_size(region)) return IPFSRT_OK;
    for (size_t i = 0; i < rows; i++) {
        const unsigned char *p = region->data;
        uint64_t at = 0;
        for (int d = 0; d < nd; d++) {
            size_t local = d < last ? pos[d] : 0;
            p += (ptrdiff_t)local * region->strides[d];
            at += (uint64_t)(j0[d] + local) * stride[d];
        }
        row(&s, p, region->strides[last], region->shape[last], at);
        for (int d = last - 1; d >= 0; d--) { /* the next row */
            if (++pos[d] < region->shape[d]) break;
            pos[d] = 0;
        }
    }
    return IPFSRT_OK;
}

/* The units' answers in unit order: a tie goes to the place first in C order. */
static void combine(const reader *r, ipfsrt_zarr_extremes *out) {
    const unit_extremes *units = r->fold->extremes;
    for (size_t k = 0; k < r->total; k++) {
        const unit_extremes *u = &units[k];
        if (!u->count) continue;
        bool first = out->count == 0;
        out->count += u->count;
        if (first || u->min < out->min || (u->min == out->min && u->min_at < out->min_at))
            out->min = u->min, out->min_at = u->min_at;
        if (first || u->max > out->max || (u->max == out->max && u->max_at < out->max_at))
            out->max = u->max, out->max_at = u->max_at;
    }
}

/* What the extremes of a selection need of its array and selection. */
static ipfsrt_status check_extremes(const ipfsrt_zarr_meta *m, const reader *r, const ipfsrt_zarr_read_options *opts,
                                    ipfsrt_error *err) {
    ipfsrt_dtype d = opts && opts->unscale ? opts->unscale_dtype : m->dtype;
    if (!row_fn_of(d))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: no extremes located of %s values", m->name,
                           ipfsrt_dtype_name(d));
    for (int i = 0; i < m->ndim; i++)
        if (r->dims[i].reversed)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: extremes are located along rising selections only",
                               m->name);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_locate_extremes(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                          const ipfsrt_zarr_fold_options *fold_opts, ipfsrt_zarr_extremes *out,
                                          ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(out, err);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (!m) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is a group, not an array", ipfsrt_zarr_path(array));
    fold_spec fold;
    const ipfsrt_zarr_read_options *opts;
    ipfsrt_status st = ipfsrt_zarr_fold_take(fold_opts, &fold, &opts, err);
    if (st != IPFSRT_OK) return st;
    fold.what = IPFSRT_ZARR_FOLD_EXTREMES;
    fold.locate = true;
    reader *r;
    st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, &fold, NULL, err);
    if (st != IPFSRT_OK) return st;
    st = check_extremes(m, r, opts, err);
    if (st == IPFSRT_OK && !(fold.extremes = calloc(r->total ? r->total : 1, sizeof(unit_extremes))))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu chunk answers", r->total);
    if (st == IPFSRT_OK && r->total) st = ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err);
    if (st == IPFSRT_OK) {
        *out = (ipfsrt_zarr_extremes){.min = NAN, .max = NAN};
        combine(r, out);
    }
    free(fold.extremes);
    ipfsrt_zarr_reader_free(r);
    return st;
}
