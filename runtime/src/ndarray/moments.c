/* var and std (ddof 0) in typed loops: two passes, the mean's and then the
 * squared deviations', each adding into eight double lanes that compilers
 * vectorize (numbers only: NaN are counted, and make the result NaN unless
 * skipped). Along an inner axis of a contiguous array the columns of a tile
 * are taken a row at a time, both passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define BLOCK 2048
#define TILE 4096

/* What one output gathers. */
typedef struct moment {
    double sum, numbers, squares, mean;
    uint64_t seen;
} moment;

typedef struct moments {
    ipfsrt_dtype d;
    bool skipna, second; /* second: the deviations' pass */
    moment all;
} moments;

/* Over n elements s bytes apart: the sum and count of numbers, or the sum of
 * their squared deviations from m->mean; each pass its own loop (a choice
 * inside would keep it from vectorizing), integers with no NaN test. */
#define DEFINE_PASS(SUF, T, ISNAN)                                                   \
    IPFSRT_NDVECTOR static void pass_##SUF(bool second, moment *m, const unsigned char *p, ptrdiff_t s, \
                                           size_t n) {                                \
        T buf[BLOCK];                                                                 \
        double lane[8] = {0}, kept[8] = {0}, mean = m->mean;                          \
        for (size_t off = 0; off < n; off += BLOCK) {                                 \
            size_t b = n - off < BLOCK ? n - off : BLOCK, i = 0;                      \
            const T *v = ipfsrt_ndrow_gather(p + (ptrdiff_t)off * s, s, b, sizeof(T), buf); \
            if (second) {                                                             \
                for (; i + 8 <= b; i += 8)                                            \
                    for (int j = 0; j < 8; j++) {                                     \
                        double d = (double)v[i + j] - mean;                           \
                        lane[j] += !ISNAN(v[i + j]) ? d * d : 0.0;                    \
                    }                                                                 \
            } else {                                                                  \
                for (; i + 8 <= b; i += 8)                                            \
                    for (int j = 0; j < 8; j++) {                                     \
                        lane[j] += !ISNAN(v[i + j]) ? (double)v[i + j] : 0.0;         \
                        kept[j] += !ISNAN(v[i + j]) ? 1.0 : 0.0;                      \
                    }                                                                 \
            }                                                                         \
            for (; i < b; i++) {                                                      \
                double x = (double)v[i], d = x - mean;                                \
                lane[0] += !ISNAN(v[i]) ? (second ? d * d : x) : 0.0;                 \
                kept[0] += !ISNAN(v[i]) ? 1.0 : 0.0;                                  \
            }                                                                         \
        }                                                                             \
        double total = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])); \
        if (second) {                                                                 \
            m->squares += total;                                                      \
            return;                                                                   \
        }                                                                             \
        m->sum += total;                                                              \
        for (int j = 0; j < 8; j++) m->numbers += kept[j];                            \
        m->seen += n;                                                                 \
    }

DEFINE_PASS(i8, int8_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(i16, int16_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(i32, int32_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(i64, int64_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(u8, uint8_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(u16, uint16_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(u32, uint32_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(u64, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_PASS(f32, float, IPFSRT_NDNAN_FLOAT)
DEFINE_PASS(f64, double, IPFSRT_NDNAN_FLOAT)

static void pass(const moments *ms, moment *m, const unsigned char *p, ptrdiff_t s, size_t n) {
    IPFSRT_NDTYPED_CALL(ms->d, pass, ms->second, m, p, s, n)
}

/* NaN when there was no number, or a NaN that is not skipped. */
static void give(const moments *ms, const moment *m, ipfsrt_ndreduce how, ipfsrt_dtype result, unsigned char *out) {
    bool nan = m->numbers == 0 || (!ms->skipna && m->numbers < (double)m->seen);
    double var = nan ? NAN : m->squares / m->numbers;
    ipfsrt_ndstore_float(result, out, how == IPFSRT_NDREDUCE_STD ? sqrt(var) : var);
}

static void walk_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    moments *ms = ctx;
    pass(ms, &ms->all, p[0], s[0], n);
}

static void walk_all(moments *ms, const ipfsrt_ndarray *a) {
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
    ipfsrt_ndwalk_add(&w, a);
    w.row = walk_row;
    w.ctx = ms;
    ipfsrt_ndwalk_run(&w);
}

/* Both passes down w columns of rows rows, into c (w moments). */
#define DEFINE_COLUMNS(SUF, T)                                                        \
    IPFSRT_NDVECTOR static void moment_columns_##SUF(const unsigned char *p, size_t rows, size_t row_bytes, \
                                              size_t w, double *sum, double *numbers, double *squares) { \
        memset(sum, 0, w * sizeof *sum);                                              \
        memset(numbers, 0, w * sizeof *numbers);                                      \
        memset(squares, 0, w * sizeof *squares);                                      \
        for (size_t r = 0; r < rows; r++) {                                           \
            const T *v = (const T *)(const void *)(p + r * row_bytes);                \
            for (size_t j = 0; j < w; j++) {                                          \
                double x = (double)v[j];                                              \
                sum[j] += x == x ? x : 0.0;                                           \
                numbers[j] += x == x ? 1.0 : 0.0;                                     \
            }                                                                         \
        }                                                                             \
        for (size_t j = 0; j < w; j++) sum[j] /= numbers[j]; /* the means */          \
        for (size_t r = 0; r < rows; r++) {                                           \
            const T *v = (const T *)(const void *)(p + r * row_bytes);                \
            for (size_t j = 0; j < w; j++) {                                          \
                double x = (double)v[j], d = x - sum[j];                              \
                squares[j] += x == x ? d * d : 0.0;                                   \
            }                                                                         \
        }                                                                             \
    }

DEFINE_COLUMNS(i8, int8_t)
DEFINE_COLUMNS(i16, int16_t)
DEFINE_COLUMNS(i32, int32_t)
DEFINE_COLUMNS(i64, int64_t)
DEFINE_COLUMNS(u8, uint8_t)
DEFINE_COLUMNS(u16, uint16_t)
DEFINE_COLUMNS(u32, uint32_t)
DEFINE_COLUMNS(u64, uint64_t)
DEFINE_COLUMNS(f32, float)
DEFINE_COLUMNS(f64, double)

typedef struct tile {
    double sum[TILE], numbers[TILE], squares[TILE];
} tile;

static void columns(ipfsrt_dtype d, const unsigned char *p, size_t rows, size_t row_bytes, size_t w, tile *t) {
    IPFSRT_NDTYPED_CALL(d, moment_columns, p, rows, row_bytes, w, t->sum, t->numbers, t->squares)
}

static int moments_columns(const moments *ms, ipfsrt_ndreduce how, ipfsrt_ndarray *res, const ipfsrt_ndarray *a,
                           ipfsrt_ndlines l) {
    tile *t = malloc(sizeof *t);
    if (!t) return IPFSRT_NDFAST_NO; /* the walk's way needs no memory */
    for (size_t o = 0; o < l.outer; o++)
        for (size_t j0 = 0; j0 < l.inner; j0 += TILE) {
            size_t w = l.inner - j0 < TILE ? l.inner - j0 : TILE;
            columns(a->dtype, a->data + (o * l.len * l.inner + j0) * a->itemsize, l.len, l.inner * a->itemsize, w, t);
            for (size_t j = 0; j < w; j++) {
                moment m = {.numbers = t->numbers[j], .squares = t->squares[j], .seen = l.len};
                give(ms, &m, how, res->dtype, res->data + (o * l.inner + j0 + j) * res->itemsize);
            }
        }
    free(t);
    return IPFSRT_NDFAST_DONE;
}

int ipfsrt_ndfast_moments(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                          int axis, bool skipna) {
    moments ms = {.d = a->dtype, .skipna = skipna};
    if (all_axes) {
        walk_all(&ms, a);
        ms.all.mean = ms.all.sum / ms.all.numbers;
        ms.second = true;
        if (ms.all.numbers > 0) walk_all(&ms, a);
        give(&ms, &ms.all, how, res->dtype, res->data);
        return IPFSRT_NDFAST_DONE;
    }
    if (!ipfsrt_ndarray_is_contiguous(a)) return IPFSRT_NDFAST_NO;
    ipfsrt_ndlines l = ipfsrt_ndlines_of(a, false, axis);
    if (l.outer == 0 || l.inner == 0) return IPFSRT_NDFAST_DONE; /* no results to give */
    if (l.inner > 1) return moments_columns(&ms, how, res, a, l);
    for (size_t o = 0; o < l.outer; o++) {
        moment m = {0};
        const unsigned char *line = a->data + o * l.len * a->itemsize;
        ms.second = false;
        pass(&ms, &m, line, (ptrdiff_t)a->itemsize, l.len);
        m.mean = m.sum / m.numbers;
        ms.second = true;
        if (m.numbers > 0) pass(&ms, &m, line, (ptrdiff_t)a->itemsize, l.len);
        give(&ms, &m, how, res->dtype, res->data + o * res->itemsize);
    }
    return IPFSRT_NDFAST_DONE;
}
