/* Running reductions along a first axis that arrives in parts: each part's
 * rows folded into totals kept by the caller, in place, in the order and the
 * type a reduction of all the rows at once folds them in (float32 sums in
 * float32, one row after another, as fast.c's column tiles): a sum built a
 * part at a time is the sum of the whole, bit for bit, with no copy of the
 * totals per part. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

#define ROW_F(T, r, j) (((const T *)(const void *)(x + (r) * row_bytes))[j])

#define DEFINE_SUM_ROWS(name, T)                                                       \
    IPFSRT_NDVECTOR static void name(T *acc, int64_t *count, const unsigned char *x, size_t rows, \
                                     size_t width, size_t row_bytes, bool skipna) {   \
        for (size_t r = 0; r < rows; r++) {                                           \
            if (skipna)                                                               \
                for (size_t j = 0; j < width; j++) {                                  \
                    T v = ROW_F(T, r, j);                                             \
                    acc[j] += v != v ? 0 : v;                                         \
                }                                                                     \
            else                                                                      \
                for (size_t j = 0; j < width; j++) acc[j] += ROW_F(T, r, j);          \
            if (count)                                                                \
                for (size_t j = 0; j < width; j++) count[j] += ROW_F(T, r, j) == ROW_F(T, r, j); \
        }                                                                             \
    }

DEFINE_SUM_ROWS(sum_rows_f32, float)
DEFINE_SUM_ROWS(sum_rows_f64, double)

/* NaN never wins; a total still NaN takes the first value that is not. */
#define DEFINE_EXTREME_ROWS(name, T)                                                   \
    IPFSRT_NDVECTOR static void name(T *acc, const unsigned char *x, size_t rows, size_t width, \
                                     size_t row_bytes, bool max) {                    \
        for (size_t r = 0; r < rows; r++)                                             \
            for (size_t j = 0; j < width; j++) {                                      \
                T v = ROW_F(T, r, j);                                                 \
                bool better = max ? v > acc[j] : v < acc[j];                          \
                if (better || (acc[j] != acc[j] && v == v)) acc[j] = v;               \
            }                                                                         \
    }

DEFINE_EXTREME_ROWS(extreme_rows_f32, float)
DEFINE_EXTREME_ROWS(extreme_rows_f64, double)

/* Integers (and bools): exact sums in 64 bits, extremes as they are. */
static void integer_rows(ipfsrt_ndaccumulate how, unsigned char *acc, ipfsrt_dtype acc_type, int64_t *count,
                         const unsigned char *x, ipfsrt_dtype in, size_t rows, size_t width, bool first) {
    bool unsigned_kind = ipfsrt_ndkind_of(in) != IPFSRT_NDKIND_INT;
    size_t item = ipfsrt_dtype_size(in), acc_item = ipfsrt_dtype_size(acc_type);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < width; j++) {
            uint64_t v = ipfsrt_ndload_bits(in, x + (r * width + j) * item);
            unsigned char *a = acc + j * acc_item;
            uint64_t t = ipfsrt_ndload_bits(acc_type, a);
            if (how == IPFSRT_NDACCUMULATE_SUM) {
                ipfsrt_ndstore_bits(acc_type, a, t + v);
            } else if (first && r == 0) {
                ipfsrt_ndstore_bits(acc_type, a, v);
            } else {
                bool less = unsigned_kind ? v < t : (int64_t)v < (int64_t)t;
                if (how == IPFSRT_NDACCUMULATE_MIN ? less : (v != t && !less)) ipfsrt_ndstore_bits(acc_type, a, v);
            }
            if (count) count[j]++;
        }
}

/* The dtype totals of in have: a sum's, or in's own for extremes. */
static ipfsrt_dtype total_type(ipfsrt_ndaccumulate how, ipfsrt_dtype in) {
    if (how != IPFSRT_NDACCUMULATE_SUM || ipfsrt_ndkind_of(in) == IPFSRT_NDKIND_FLOAT) return in;
    return ipfsrt_ndkind_of(in) == IPFSRT_NDKIND_INT ? IPFSRT_DTYPE_INT64 : IPFSRT_DTYPE_UINT64;
}

static ipfsrt_status check_shapes(const ipfsrt_ndarray *total, const ipfsrt_ndarray *count, const ipfsrt_ndarray *x,
                                  ipfsrt_dtype want, ipfsrt_error *err) {
    bool fits = x->ndim >= 1 && total->ndim == x->ndim - 1 && ipfsrt_ndarray_is_contiguous(total) &&
                total->dtype == want;
    for (int d = 1; fits && d < x->ndim; d++) fits = total->shape[d - 1] == x->shape[d];
    if (fits && count) {
        fits = count->dtype == IPFSRT_DTYPE_INT64 && ipfsrt_ndarray_is_contiguous(count) &&
               ipfsrt_ndarray_size(count) == ipfsrt_ndarray_size(total);
    }
    if (fits) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "accumulate: the totals are contiguous %s arrays of the rows' shape "
                       "(counts int64)", ipfsrt_dtype_name(want));
}

ipfsrt_status ipfsrt_ndarray_accumulate(ipfsrt_ndarray *total, ipfsrt_ndarray *count, const ipfsrt_ndarray *x,
                                        ipfsrt_ndaccumulate how, bool skipna, bool first, ipfsrt_error *err) {
    IPFSRT_NEED(total, err);
    IPFSRT_NEED(x, err);
    ipfsrt_ndkind kind = ipfsrt_ndkind_of(x->dtype);
    if (kind == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no sums of %s", ipfsrt_dtype_name(x->dtype));
    ipfsrt_status st = check_shapes(total, count, x, total_type(how, x->dtype), err);
    ipfsrt_ndarray rows;
    ipfsrt_ndarray_init(&rows);
    if (st != IPFSRT_OK) return st;
    if (ipfsrt_ndarray_is_contiguous(x)) {
        rows = *x; /* read in place: not freed below */
        rows.buffer = NULL;
    } else if ((st = ipfsrt_ndarray_copy(&rows, x, err)) != IPFSRT_OK) {
        return st;
    }
    size_t n = x->shape[0], width = ipfsrt_ndarray_size(total), row_bytes = width * rows.itemsize;
    int64_t *c = count ? (int64_t *)(void *)count->data : NULL;
    bool f32 = x->dtype == IPFSRT_DTYPE_FLOAT32;
    if (kind == IPFSRT_NDKIND_FLOAT && how == IPFSRT_NDACCUMULATE_SUM) {
        if (f32) sum_rows_f32((float *)(void *)total->data, c, rows.data, n, width, row_bytes, skipna);
        else sum_rows_f64((double *)(void *)total->data, c, rows.data, n, width, row_bytes, skipna);
    } else if (kind == IPFSRT_NDKIND_FLOAT) {
        for (size_t j = 0; first && j < width; j++) /* NaN until a value: the reduction's NaN, NAN */
            ipfsrt_ndstore_float(total->dtype, total->data + j * total->itemsize, NAN);
        bool max = how == IPFSRT_NDACCUMULATE_MAX;
        if (f32) extreme_rows_f32((float *)(void *)total->data, rows.data, n, width, row_bytes, max);
        else extreme_rows_f64((double *)(void *)total->data, rows.data, n, width, row_bytes, max);
        for (size_t r = 0; c && r < n; r++)
            for (size_t j = 0; j < width; j++) {
                double v = ipfsrt_ndload_double(x->dtype, rows.data + r * row_bytes + j * rows.itemsize);
                c[j] += v == v;
            }
    } else {
        integer_rows(how, total->data, total->dtype, c, rows.data, x->dtype, n, width, first);
    }
    ipfsrt_ndarray_free(&rows);
    return IPFSRT_OK;
}
