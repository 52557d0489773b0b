/* Sums and means of contiguous arrays in typed loops that compilers vectorize,
 * in numpy's order so that results match it to the bit: along a run, floats are
 * summed pairwise in blocks of 8192 (numpy's buffer) in the input's own type;
 * across runs (an outer axis), rows are added one after another into an
 * accumulator. Integers sum exactly in 64 bits (wrapping as numpy does). The
 * strided walk of reduce.c takes every other case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define PAIRWISE_BLOCK IPFSRT_NDFAST_PAIRWISE_BLOCK
/* Integers of 8 and 16 bits add into 32 bits for this many values, then into
 * 64 (twice the lanes per instruction): no sum of 32768 values of 16 bits
 * overflows 31. */
#define NARROW_ROWS 32768

/* numpy's pairwise_sum, and its nansum form (NaN counts as 0). Skipping is a
 * parameter of the macro, not a run-time flag, and NaN are counted in a loop
 * of their own over the block while it is in L1: either in the 8-lane loop
 * would keep it from vectorizing. */
#define TAKE(x, SKIP) ((SKIP) && (x) != (x) ? 0 : (x))
#define DEFINE_PAIRWISE(name, T, SKIP)                                                 \
    IPFSRT_NDVECTOR static T name(const T *a, size_t n) {                              \
        T s, r[8];                                                                     \
        size_t i = 0;                                                                  \
        if (n < 8) {                                                                   \
            for (s = 0; i < n; i++) s += TAKE(a[i], SKIP);                             \
            return s;                                                                  \
        }                                                                              \
        if (n > 128) {                                                                 \
            size_t h = n / 2;                                                          \
            h -= h % 8;                                                                \
            return name(a, h) + name(a + h, n - h);                                    \
        }                                                                              \
        for (int j = 0; j < 8; j++) r[j] = TAKE(a[j], SKIP);                           \
        for (i = 8; i < n - n % 8; i += 8)                                             \
            for (int j = 0; j < 8; j++) r[j] += TAKE(a[i + j], SKIP);                  \
        s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));         \
        for (; i < n; i++) s += TAKE(a[i], SKIP);                                      \
        return s;                                                                      \
    }

#define DEFINE_COUNT_NAN(name, T, C)                                                   \
    IPFSRT_NDVECTOR static size_t name(const T *a, size_t n) {                         \
        C c = 0;                                                                       \
        for (size_t i = 0; i < n; i++) c += a[i] != a[i];                              \
        return c;                                                                      \
    }

DEFINE_PAIRWISE(pairwise_f32, float, 0)
DEFINE_PAIRWISE(pairwise_f64, double, 0)
DEFINE_PAIRWISE(pairwise_nan_f32, float, 1)
DEFINE_PAIRWISE(pairwise_nan_f64, double, 1)
float ipfsrt_ndfast_pairwise_f32(const float *a, size_t n) { return pairwise_f32(a, n); }
double ipfsrt_ndfast_pairwise_f64(const double *a, size_t n) { return pairwise_f64(a, n); }

DEFINE_COUNT_NAN(count_nan_f32, float, uint32_t) /* per block of PAIRWISE_BLOCK: 32 bits suffice */
DEFINE_COUNT_NAN(count_nan_f64, double, uint64_t)

/* A run in numpy's blocks. A block summed plainly shows whether it holds NaN
 * (they propagate): only then is it summed again skipping them, and counted. */
#define DEFINE_RUN(name, T, SUF)                                                       \
    static T name(const T *p, size_t n, bool skipna, bool count, size_t *nans) {       \
        T acc = 0;                                                                     \
        for (size_t off = 0; off < n; off += PAIRWISE_BLOCK) {                         \
            size_t m = n - off < PAIRWISE_BLOCK ? n - off : PAIRWISE_BLOCK;            \
            T part = pairwise_##SUF(p + off, m);                                       \
            if (skipna && part != part) {                                              \
                part = pairwise_nan_##SUF(p + off, m);                                 \
                if (count) *nans += count_nan_##SUF(p + off, m);                       \
            }                                                                          \
            acc += part;                                                               \
        }                                                                              \
        return acc;                                                                    \
    }

DEFINE_RUN(run_f32, float, f32)
DEFINE_RUN(run_f64, double, f64)

/* What one output accumulates. */
typedef struct fsum {
    double f;     /* float sums (float32 ones are kept in float32 on the way) */
    uint64_t i;   /* integer sums */
    uint64_t n;   /* elements taken: NaN left out with skipna */
} fsum;

#define INT_RUN(T)                                                  \
    {                                                               \
        const T *v = (const void *)p;                               \
        uint64_t s = 0;                                             \
        for (size_t i = 0; i < n; i++) s += (uint64_t)(int64_t)v[i]; \
        out->i = s;                                                 \
        return;                                                     \
    }

/* Narrow integers add in 32 bits, NARROW_ROWS at a time. */
#define NARROW_RUN(T)                                               \
    {                                                               \
        const T *v = (const void *)p;                               \
        uint64_t s = 0;                                             \
        for (size_t i0 = 0; i0 < n; i0 += NARROW_ROWS) {            \
            size_t end = n - i0 < NARROW_ROWS ? n : i0 + NARROW_ROWS; \
            int32_t part = 0;                                       \
            for (size_t i = i0; i < end; i++) part += v[i];         \
            s += (uint64_t)(int64_t)part;                           \
        }                                                           \
        out->i = s;                                                 \
        return;                                                     \
    }

/* One contiguous run of n elements; NaN counted (for a mean) when count. */
IPFSRT_NDVECTOR static void sum_run(ipfsrt_dtype d, const unsigned char *p, size_t n, bool skipna, bool count,
                                    fsum *out) {
    size_t nans = 0;
    if (d == IPFSRT_DTYPE_FLOAT32) out->f = run_f32((const float *)(const void *)p, n, skipna, count, &nans);
    else if (d == IPFSRT_DTYPE_FLOAT64) out->f = run_f64((const double *)(const void *)p, n, skipna, count, &nans);
    out->n = n - nans;
    if (ipfsrt_ndkind_of(d) == IPFSRT_NDKIND_FLOAT) return;
    switch (d) {
    case IPFSRT_DTYPE_INT8: NARROW_RUN(int8_t)
    case IPFSRT_DTYPE_INT16: NARROW_RUN(int16_t)
    case IPFSRT_DTYPE_UINT16: NARROW_RUN(uint16_t)
    case IPFSRT_DTYPE_INT32: INT_RUN(int32_t)
    case IPFSRT_DTYPE_UINT32: INT_RUN(uint32_t)
    case IPFSRT_DTYPE_INT64:
    case IPFSRT_DTYPE_UINT64: INT_RUN(uint64_t)
    default: NARROW_RUN(uint8_t) /* uint8 and bool */
    }
}

/* numpy's mean of float32 divides in float32; nanmean divides in double and
 * rounds once. */
static double mean_of(ipfsrt_dtype in, bool skipna, const fsum *s) {
    ipfsrt_ndkind k = ipfsrt_ndkind_of(in);
    if (!s->n) return NAN;
    if (in == IPFSRT_DTYPE_FLOAT32 && !skipna) return (float)s->f / (float)s->n;
    if (k == IPFSRT_NDKIND_FLOAT) return s->f / (double)s->n;
    if (k == IPFSRT_NDKIND_INT) return (double)(int64_t)s->i / (double)s->n;
    return (double)s->i / (double)s->n;
}

static void store_result(ipfsrt_ndreduce how, ipfsrt_dtype in, ipfsrt_dtype result, bool skipna, const fsum *s,
                         unsigned char *out) {
    if (how == IPFSRT_NDREDUCE_MEAN) ipfsrt_ndstore_float(result, out, mean_of(in, skipna, s));
    else if (ipfsrt_ndkind_of(in) == IPFSRT_NDKIND_FLOAT) ipfsrt_ndstore_float(result, out, s->f);
    else ipfsrt_ndstore_bits(result, out, s->i);
}

/* Columns are summed a tile at a time, down all the rows: the accumulators
 * stay in the L2 cache while each row's stretch streams in long enough for the
 * prefetcher (short stretches of many rows stall on every new page). Four rows
 * go into the accumulators per pass, added in the same order as one at a time
 * (results stay numpy's to the bit) for a quarter of the accumulator traffic.
 * NaN are counted per column only for a mean that skips them. */
#define TILE 65536

typedef struct tile {
    union {
        float f32[TILE];
        double f64[TILE];
        uint64_t i[TILE];
    } acc;
    int32_t narrow[TILE];
    uint32_t nans[TILE]; /* per column, when counted */
    size_t rows, row_bytes;
    bool skipna, count;
} tile;

#define ROW(T, r) ((const T *)(const void *)(p + (r) * t->row_bytes))

#define DEFINE_FLOAT_TILE(name, T, ACC)                                                \
    IPFSRT_NDVECTOR static void name(const unsigned char *p, size_t w, tile *t) {      \
        T *acc = t->acc.ACC;                                                           \
        uint32_t *nans = t->nans;                                                      \
        size_t r = 0;                                                                  \
        for (; r + 4 <= t->rows; r += 4) {                                             \
            const T *a0 = ROW(T, r), *a1 = ROW(T, r + 1), *a2 = ROW(T, r + 2), *a3 = ROW(T, r + 3); \
            if (t->count) {                                                            \
                for (size_t j = 0; j < w; j++) {                                       \
                    acc[j] = (((acc[j] + TAKE(a0[j], 1)) + TAKE(a1[j], 1)) + TAKE(a2[j], 1)) + TAKE(a3[j], 1); \
                    nans[j] += (uint32_t)((a0[j] != a0[j]) + (a1[j] != a1[j]) + (a2[j] != a2[j]) + (a3[j] != a3[j])); \
                }                                                                      \
            } else if (t->skipna) {                                                    \
                for (size_t j = 0; j < w; j++)                                         \
                    acc[j] = (((acc[j] + TAKE(a0[j], 1)) + TAKE(a1[j], 1)) + TAKE(a2[j], 1)) + TAKE(a3[j], 1); \
            } else {                                                                   \
                for (size_t j = 0; j < w; j++) acc[j] = (((acc[j] + a0[j]) + a1[j]) + a2[j]) + a3[j]; \
            }                                                                          \
        }                                                                              \
        for (; r < t->rows; r++) {                                                     \
            const T *a0 = ROW(T, r);                                                   \
            for (size_t j = 0; j < w; j++) acc[j] += t->skipna ? TAKE(a0[j], 1) : a0[j]; \
            if (t->count)                                                              \
                for (size_t j = 0; j < w; j++) nans[j] += a0[j] != a0[j];              \
        }                                                                              \
    }

DEFINE_FLOAT_TILE(tile_f32, float, f32)
DEFINE_FLOAT_TILE(tile_f64, double, f64)

#define DEFINE_WIDE_TILE(name, T)                                                      \
    IPFSRT_NDVECTOR static void name(const unsigned char *p, size_t w, tile *t) {      \
        uint64_t *acc = t->acc.i;                                                      \
        for (size_t r = 0; r < t->rows; r++) {                                         \
            const T *a0 = ROW(T, r);                                                   \
            for (size_t j = 0; j < w; j++) acc[j] += (uint64_t)(int64_t)a0[j];         \
        }                                                                              \
    }

#define DEFINE_NARROW_TILE(name, T)                                                    \
    IPFSRT_NDVECTOR static void name(const unsigned char *p, size_t w, tile *t) {      \
        int32_t *narrow = t->narrow;                                                   \
        for (size_t r0 = 0; r0 < t->rows; r0 += NARROW_ROWS) {                         \
            size_t end = t->rows - r0 < NARROW_ROWS ? t->rows : r0 + NARROW_ROWS;      \
            memset(narrow, 0, w * sizeof *narrow);                                     \
            size_t r = r0;                                                             \
            for (; r + 4 <= end; r += 4) {                                             \
                const T *a0 = ROW(T, r), *a1 = ROW(T, r + 1), *a2 = ROW(T, r + 2), *a3 = ROW(T, r + 3); \
                for (size_t j = 0; j < w; j++)                                         \
                    narrow[j] += (int32_t)a0[j] + (int32_t)a1[j] + (int32_t)a2[j] + (int32_t)a3[j]; \
            }                                                                          \
            for (; r < end; r++) {                                                     \
                const T *a0 = ROW(T, r);                                               \
                for (size_t j = 0; j < w; j++) narrow[j] += (int32_t)a0[j];            \
            }                                                                          \
            for (size_t j = 0; j < w; j++) t->acc.i[j] += (uint64_t)(int64_t)narrow[j]; \
        }                                                                              \
    }

DEFINE_NARROW_TILE(tile_i8, int8_t)
DEFINE_NARROW_TILE(tile_u8, uint8_t)
DEFINE_NARROW_TILE(tile_i16, int16_t)
DEFINE_NARROW_TILE(tile_u16, uint16_t)
DEFINE_WIDE_TILE(tile_i32, int32_t)
DEFINE_WIDE_TILE(tile_u32, uint32_t)
DEFINE_WIDE_TILE(tile_u64, uint64_t)

/* w columns starting at p, down the tile's rows. */
static void sum_tile(ipfsrt_dtype d, const unsigned char *p, size_t w, tile *t) {
    switch (d) {
    case IPFSRT_DTYPE_FLOAT32: tile_f32(p, w, t); break;
    case IPFSRT_DTYPE_FLOAT64: tile_f64(p, w, t); break;
    case IPFSRT_DTYPE_INT8: tile_i8(p, w, t); break;
    case IPFSRT_DTYPE_INT16: tile_i16(p, w, t); break;
    case IPFSRT_DTYPE_UINT16: tile_u16(p, w, t); break;
    case IPFSRT_DTYPE_INT32: tile_i32(p, w, t); break;
    case IPFSRT_DTYPE_UINT32: tile_u32(p, w, t); break;
    case IPFSRT_DTYPE_INT64:
    case IPFSRT_DTYPE_UINT64: tile_u64(p, w, t); break;
    default: tile_u8(p, w, t); break; /* uint8 and bool */
    }
}

/* m results of the tile from column c0 into v: one loop per case, as numpy's
 * mean() and nanmean() divide (see mean_of). */
IPFSRT_NDVECTOR static void tile_results(ipfsrt_ndreduce how, ipfsrt_dtype in, const tile *t, size_t c0, size_t m,
                                         double *v) {
    const float *f32 = t->acc.f32 + c0;
    const double *f64 = t->acc.f64 + c0;
    const uint64_t *i = t->acc.i + c0;
    const uint32_t *nans = t->nans + c0;
    bool mean = how == IPFSRT_NDREDUCE_MEAN;
    double rows = (double)t->rows;
    if (in == IPFSRT_DTYPE_FLOAT32 && t->count)
        for (size_t j = 0; j < m; j++) v[j] = (double)f32[j] / (double)(t->rows - nans[j]); /* 0/0: NaN */
    else if (in == IPFSRT_DTYPE_FLOAT32 && mean)
        for (size_t j = 0; j < m; j++) v[j] = f32[j] / (float)t->rows;
    else if (in == IPFSRT_DTYPE_FLOAT32)
        for (size_t j = 0; j < m; j++) v[j] = f32[j];
    else if (in == IPFSRT_DTYPE_FLOAT64 && t->count)
        for (size_t j = 0; j < m; j++) v[j] = f64[j] / (double)(t->rows - nans[j]);
    else if (in == IPFSRT_DTYPE_FLOAT64)
        for (size_t j = 0; j < m; j++) v[j] = mean ? f64[j] / rows : f64[j];
    else if (ipfsrt_ndkind_of(in) == IPFSRT_NDKIND_UINT)
        for (size_t j = 0; j < m; j++) v[j] = (double)i[j] / rows;
    else
        for (size_t j = 0; j < m; j++) v[j] = (double)(int64_t)i[j] / rows;
}

/* The tile's first w results, stored as one row. */
static void finish_tile(ipfsrt_ndreduce how, ipfsrt_dtype in, ipfsrt_dtype result, const tile *t, size_t w,
                        unsigned char *out) {
    size_t itemsize = ipfsrt_dtype_size(result);
    if (how == IPFSRT_NDREDUCE_SUM && ipfsrt_ndkind_of(in) != IPFSRT_NDKIND_FLOAT) {
        ipfsrt_ndrow_store_bits(result, out, (ptrdiff_t)itemsize, w, t->acc.i);
        return;
    }
    double v[IPFSRT_NDROW_BLOCK];
    for (size_t j0 = 0; j0 < w; j0 += IPFSRT_NDROW_BLOCK) {
        size_t m = w - j0 < IPFSRT_NDROW_BLOCK ? w - j0 : IPFSRT_NDROW_BLOCK;
        tile_results(how, in, t, j0, m, v);
        ipfsrt_ndrow_store_float(result, out + j0 * itemsize, (ptrdiff_t)itemsize, m, v);
    }
}

/* Integer means come from exact 64-bit sums where those cannot overflow; wider
 * ones are left to the double accumulation of the general path, as numpy.
 * Skipped NaN are counted in 32 bits. */
static bool handled(ipfsrt_ndreduce how, ipfsrt_dtype d, size_t len) {
    if (how != IPFSRT_NDREDUCE_SUM && how != IPFSRT_NDREDUCE_MEAN) return false;
    ipfsrt_ndkind k = ipfsrt_ndkind_of(d);
    if (k == IPFSRT_NDKIND_OTHER) return false;
    if (how == IPFSRT_NDREDUCE_SUM || ipfsrt_dtype_size(d) <= 2) return true;
    if (k == IPFSRT_NDKIND_FLOAT) return len <= UINT32_MAX;
    return ipfsrt_dtype_size(d) == 4 && len <= (size_t)1 << 31;
}

/* Along an axis with more axes inside it: tiles of the inner columns. */
static bool reduce_tiles(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, size_t outer,
                         size_t len, size_t inner, bool skipna) {
    tile *t = malloc(sizeof *t);
    if (!t) return false;
    t->rows = len;
    t->row_bytes = inner * a->itemsize;
    t->skipna = skipna;
    t->count = skipna && how == IPFSRT_NDREDUCE_MEAN && ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_FLOAT;
    for (size_t o = 0; o < outer; o++) {
        for (size_t j0 = 0; j0 < inner; j0 += TILE) {
            size_t w = inner - j0 < TILE ? inner - j0 : TILE;
            memset(&t->acc, 0, sizeof t->acc);
            memset(t->nans, 0, w * sizeof *t->nans);
            sum_tile(a->dtype, a->data + (o * len * inner + j0) * a->itemsize, w, t);
            finish_tile(how, a->dtype, res->dtype, t, w, res->data + (o * inner + j0) * res->itemsize);
        }
    }
    free(t);
    return true;
}

/* ------------------------------------------------------- masked, over all */

/* What a masked sum over everything gathers: one sum and one count. */
typedef struct masked {
    ipfsrt_dtype d;
    bool skipna;
    double f;
    uint64_t i, n;
} masked;

/* Contiguous rows of values and mask bytes, in typed loops: floats into eight
 * double lanes (their order is not numpy's anyway: it has no pairwise form
 * with where=), narrow integers into 32 bits per NARROW_ROWS, others into 64. */
/* In blocks, each step a plain loop over doubles only (one loop mixing the
 * widths of mask bytes, counts and values does not vectorize): widen values
 * and mask, keep or zero each value while noting 1 or 0 to count, add both
 * into eight lanes. Counts in double are exact far past any block. */
#define MASKED_FLOAT(T)                                                                \
    {                                                                                  \
        const T *x = (const void *)p;                                                  \
        double lane[8] = {0}, kept[8] = {0};                                           \
        double v[IPFSRT_NDROW_BLOCK], k[IPFSRT_NDROW_BLOCK];                           \
        for (size_t i0 = 0; i0 < n; i0 += IPFSRT_NDROW_BLOCK) {                        \
            size_t b = n - i0 < IPFSRT_NDROW_BLOCK ? n - i0 : IPFSRT_NDROW_BLOCK;      \
            for (size_t i = 0; i < b; i++) v[i] = (double)x[i0 + i];                   \
            for (size_t i = 0; i < b; i++) k[i] = (double)m[i0 + i];                   \
            for (size_t i = 0; i < b; i++) {                                           \
                k[i] = k[i] != 0.0 && (!skip || v[i] == v[i]) ? 1.0 : 0.0;             \
                v[i] = k[i] != 0.0 ? v[i] : 0.0;                                       \
            }                                                                          \
            size_t padded = (b + 7) / 8 * 8;                                           \
            for (size_t i = b; i < padded; i++) v[i] = k[i] = 0.0; /* the last block's tail */ \
            for (size_t i = 0; i < padded; i += 8)                                     \
                for (int j = 0; j < 8; j++) lane[j] += v[i + j];                       \
            for (size_t i = 0; i < padded; i += 8)                                     \
                for (int j = 0; j < 8; j++) kept[j] += k[i + j];                       \
        }                                                                              \
        for (int j = 0; j < 8; j++) acc->f += lane[j], acc->n += (uint64_t)kept[j];    \
        return;                                                                        \
    }

#define MASKED_NARROW(T)                                                               \
    {                                                                                  \
        const T *x = (const void *)p;                                                  \
        for (size_t i0 = 0; i0 < n; i0 += NARROW_ROWS) {                               \
            size_t end = n - i0 < NARROW_ROWS ? n : i0 + NARROW_ROWS;                  \
            int32_t part = 0, count = 0;                                               \
            for (size_t i = i0; i < end; i++) {                                        \
                part += (int32_t)x[i] * (int32_t)(m[i] != 0); /* no branch: vectorizes */ \
                count += m[i] != 0;                                                    \
            }                                                                          \
            acc->i += (uint64_t)(int64_t)part;                                         \
            acc->n += (uint64_t)count;                                                 \
        }                                                                              \
        return;                                                                        \
    }

#define MASKED_WIDE(T)                                                                 \
    {                                                                                  \
        const T *x = (const void *)p;                                                  \
        uint64_t part = 0, count = 0;                                                  \
        for (size_t i = 0; i < n; i++) {                                               \
            part += (uint64_t)(int64_t)x[i] * (uint64_t)(m[i] != 0);                   \
            count += m[i] != 0;                                                        \
        }                                                                              \
        acc->i += part;                                                                \
        acc->n += count;                                                               \
        return;                                                                        \
    }

IPFSRT_NDVECTOR static void masked_run(masked *acc, const unsigned char *p, const unsigned char *m, size_t n) {
    bool skip = acc->skipna;
    switch (acc->d) {
    case IPFSRT_DTYPE_FLOAT32: MASKED_FLOAT(float)
    case IPFSRT_DTYPE_FLOAT64: MASKED_FLOAT(double)
    case IPFSRT_DTYPE_INT8: MASKED_NARROW(int8_t)
    case IPFSRT_DTYPE_INT16: MASKED_NARROW(int16_t)
    case IPFSRT_DTYPE_UINT16: MASKED_NARROW(uint16_t)
    case IPFSRT_DTYPE_INT32: MASKED_WIDE(int32_t)
    case IPFSRT_DTYPE_UINT32: MASKED_WIDE(uint32_t)
    case IPFSRT_DTYPE_INT64:
    case IPFSRT_DTYPE_UINT64: MASKED_WIDE(uint64_t)
    default: MASKED_NARROW(uint8_t)
    }
}

/* A row of the walk: contiguous runs go to masked_run; a strided row (a
 * broadcast mask along the innermost axis, a view) one element at a time. */
static void masked_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    masked *acc = ctx;
    if (s[0] == (ptrdiff_t)ipfsrt_dtype_size(acc->d) && s[1] == 1) {
        masked_run(acc, p[0], p[1], n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        masked_run(acc, p[0] + (ptrdiff_t)i * s[0], p[1] + (ptrdiff_t)i * s[1], 1);
}

static bool reduce_masked(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                          const ipfsrt_ndarray *mask, bool skipna) {
    if (how != IPFSRT_NDREDUCE_SUM && how != IPFSRT_NDREDUCE_MEAN && how != IPFSRT_NDREDUCE_COUNT) return false;
    masked acc = {a->dtype, skipna, 0, 0, 0};
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
    ipfsrt_ndwalk_add(&w, a);
    ipfsrt_ndwalk_add(&w, mask);
    w.row = masked_row;
    w.ctx = &acc;
    ipfsrt_ndwalk_run(&w);
    ipfsrt_ndkind k = ipfsrt_ndkind_of(a->dtype);
    if (how == IPFSRT_NDREDUCE_COUNT) ipfsrt_ndstore_bits(res->dtype, res->data, acc.n);
    else if (how == IPFSRT_NDREDUCE_SUM && k == IPFSRT_NDKIND_FLOAT) ipfsrt_ndstore_float(res->dtype, res->data, acc.f);
    else if (how == IPFSRT_NDREDUCE_SUM) ipfsrt_ndstore_bits(res->dtype, res->data, acc.i);
    else {
        double sum = k == IPFSRT_NDKIND_FLOAT ? acc.f : k == IPFSRT_NDKIND_UINT ? (double)acc.i : (double)(int64_t)acc.i;
        ipfsrt_ndstore_float(res->dtype, res->data, acc.n ? sum / (double)acc.n : NAN);
    }
    return true;
}

/* ------------------------------------------------------------------ entry */

ipfsrt_ndlines ipfsrt_ndlines_of(const ipfsrt_ndarray *a, bool all_axes, int axis) {
    ipfsrt_ndlines l = {1, ipfsrt_ndarray_size(a), 1};
    if (all_axes) return l;
    l.len = a->shape[axis];
    for (int d = 0; d < a->ndim; d++)
        if (d < axis) l.outer *= a->shape[d];
        else if (d > axis) l.inner *= a->shape[d];
    return l;
}

bool ipfsrt_ndfast_reduce(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                          const ipfsrt_ndarray *mask, bool all_axes, int axis, bool skipna) {
    if (mask) return all_axes && ipfsrt_ndkind_of(a->dtype) != IPFSRT_NDKIND_OTHER &&
                     reduce_masked(res, how, a, mask, skipna);
    ipfsrt_ndlines l = ipfsrt_ndlines_of(a, all_axes, axis);
    size_t outer = l.outer, len = l.len, inner = l.inner;
    if (outer == 0 || inner == 0) return handled(how, a->dtype, len); /* no results to give */
    if (!handled(how, a->dtype, len) || !ipfsrt_ndarray_is_contiguous(a)) return false;
    if (inner > 1) return reduce_tiles(res, how, a, outer, len, inner, skipna);
    for (size_t o = 0; o < outer; o++) {
        fsum s = {0};
        sum_run(a->dtype, a->data + o * len * a->itemsize, len, skipna, skipna && how == IPFSRT_NDREDUCE_MEAN, &s);
        store_result(how, a->dtype, res->dtype, skipna, &s, res->data + o * res->itemsize);
    }
    return true;
}
