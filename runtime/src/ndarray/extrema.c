/* min, max, argmin and argmax in typed loops, numpy's answers to the element:
 * without skipna a NaN is the result (and its first position the arg result),
 * with it NaN are passed over; ties go to the first position.
 *
 * A run is taken in blocks held in L1: the block's extreme is found in
 * sixteen lanes of plain compares (which compile to vector min/max), NaN are
 * counted beside it, and only a block that betters the result so far is read
 * again for the position. Along an inner axis of a contiguous array the
 * columns of a tile are compared a row at a time instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define LANES 16
#define PICK(a, b, CMP) ((a) CMP (b) || (b) != (b) ? (a) : (b))
#define BLOCK 2048
#define TILE 32768

/* What one output has gathered. */
typedef struct extremum {
    unsigned char best[8]; /* the extreme so far, in the input's type */
    bool has;              /* a value other than NaN was taken */
    bool nan;              /* a NaN was met */
    uint64_t at, nan_at;   /* positions of the extreme and of the first NaN */
    uint64_t seen;         /* elements taken before the next run */
} extremum;

typedef struct extrema {
    ipfsrt_dtype d;
    bool want_max, want_arg, skipna;
    extremum all;
} extrema;

/* A block's extreme, for MIN (CMP <) or MAX (>), and its NaN count.
 * Integers go in lanes, which compilers vectorize as min/max reductions. Floats
 * cannot (their order is fixed without -ffast-math), so halves are folded onto
 * each other instead: every step a plain loop of compares that compiles to
 * vector min/max. PICK keeps a number over a NaN. */
#define DEFINE_INT_BLOCK(NAME, T, CMP)                                                \
    IPFSRT_NDVECTOR static T NAME(const T *x, size_t n, size_t *nans) {               \
        T lane[LANES], m = x[0];                                                      \
        size_t i = 0;                                                                 \
        *nans = 0;                                                                    \
        for (int j = 0; j < LANES; j++) lane[j] = m;                                  \
        for (; i + LANES <= n; i += LANES)                                            \
            for (int j = 0; j < LANES; j++) lane[j] = x[i + j] CMP lane[j] ? x[i + j] : lane[j]; \
        for (int j = 0; j < LANES; j++) m = lane[j] CMP m ? lane[j] : m;              \
        for (; i < n; i++) m = x[i] CMP m ? x[i] : m;                                 \
        return m;                                                                     \
    }

#define DEFINE_FLOAT_BLOCK(NAME, T, C, CMP)                                           \
    IPFSRT_NDVECTOR static T NAME(const T *x, size_t n, size_t *nans) {               \
        C c = 0; /* as wide as T: one vector width in the loop */                     \
        for (size_t i = 0; i < n; i++) c += x[i] != x[i];                             \
        *nans = (size_t)c;                                                            \
        T t[BLOCK / 2], m = x[0];                                                     \
        size_t h = n / 2;                                                             \
        if (n < 2 * LANES) {                                                          \
            for (size_t i = 1; i < n; i++) m = PICK(x[i], m, CMP);                    \
            return m;                                                                 \
        }                                                                             \
        for (size_t i = 0; i < h; i++) t[i] = PICK(x[i], x[i + h], CMP);              \
        if (n % 2) t[0] = PICK(t[0], x[n - 1], CMP);                                  \
        for (; h > LANES; h /= 2) {                                                   \
            if (h % 2) t[0] = PICK(t[0], t[h - 1], CMP);                              \
            for (size_t i = 0; i < h / 2; i++) t[i] = PICK(t[i], t[i + h / 2], CMP);  \
        }                                                                             \
        m = t[0];                                                                     \
        for (size_t i = 1; i < h; i++) m = PICK(t[i], m, CMP);                        \
        return m;                                                                     \
    }

/* A run of n elements stride s bytes apart, block by block into e; it stops
 * once the answer is settled (a NaN that propagates: e->nan). */
#define DEFINE_INT_RUN(SUF, T)                                                        \
    DEFINE_INT_BLOCK(min_##SUF, T, <)                                                 \
    DEFINE_INT_BLOCK(max_##SUF, T, >)                                                 \
    DEFINE_RUN(SUF, T, IPFSRT_NDNAN_INT)
#define DEFINE_FLOAT_RUN(SUF, T, C)                                                   \
    DEFINE_FLOAT_BLOCK(min_##SUF, T, C, <)                                            \
    DEFINE_FLOAT_BLOCK(max_##SUF, T, C, >)                                            \
    DEFINE_RUN(SUF, T, IPFSRT_NDNAN_FLOAT)
#define DEFINE_RUN(SUF, T, ISNAN)                                                     \
    static void run_##SUF(const extrema *x, extremum *e, const unsigned char *p, ptrdiff_t s, size_t n) { \
        T buf[BLOCK];                                                                 \
        for (size_t off = 0; off < n; off += BLOCK) {                                 \
            size_t m = n - off < BLOCK ? n - off : BLOCK, nans = 0;                   \
            const T *v = ipfsrt_ndrow_gather(p + (ptrdiff_t)off * s, s, m, sizeof(T), buf); \
            T best = x->want_max ? max_##SUF(v, m, &nans) : min_##SUF(v, m, &nans);   \
            if (nans && !x->skipna) {                                                 \
                size_t i = 0;                                                         \
                while (!ISNAN(v[i])) i++;                                             \
                e->nan = true;                                                        \
                e->nan_at = e->seen + i;                                              \
                return;                                                               \
            }                                                                         \
            e->nan = e->nan || nans;                                                  \
            T old;                                                                    \
            memcpy(&old, e->best, sizeof old);                                        \
            if (nans < m && (!e->has || (x->want_max ? best > old : best < old))) {   \
                memcpy(e->best, &best, sizeof best);                                  \
                e->has = true;                                                        \
                size_t i = 0;                                                         \
                while (x->want_arg && v[i] != best) i++;                              \
                e->at = e->seen + i;                                                  \
            }                                                                         \
            e->seen += m;                                                             \
        }                                                                             \
    }

DEFINE_INT_RUN(i8, int8_t)
DEFINE_INT_RUN(i16, int16_t)
DEFINE_INT_RUN(i32, int32_t)
DEFINE_INT_RUN(i64, int64_t)
DEFINE_INT_RUN(u8, uint8_t)
DEFINE_INT_RUN(u16, uint16_t)
DEFINE_INT_RUN(u32, uint32_t)
DEFINE_INT_RUN(u64, uint64_t)
DEFINE_FLOAT_RUN(f32, float, int32_t)
DEFINE_FLOAT_RUN(f64, double, int64_t)

static void run(const extrema *x, extremum *e, const unsigned char *p, ptrdiff_t s, size_t n) {
    IPFSRT_NDTYPED_CALL(x->d, run, x, e, p, s, n)
}

/* One output from what e gathered; false when there was nothing to take. A
 * slice of NaN only has NaN for its min and max (numpy's nanmax, xarray's
 * max) but no position. */
static bool give(const extrema *x, const extremum *e, ipfsrt_dtype result, unsigned char *out) {
    bool nan = e->nan && !x->skipna;
    if (x->want_arg) {
        ipfsrt_ndstore_bits(result, out, nan ? e->nan_at : e->at);
        return nan || e->has;
    }
    if (nan || (e->nan && !e->has)) ipfsrt_ndstore_float(result, out, NAN);
    else memcpy(out, e->best, ipfsrt_dtype_size(result));
    return e->nan || e->has;
}

static void walk_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    extrema *x = ctx;
    if (x->all.nan && !x->skipna) return; /* settled */
    run(x, &x->all, p[0], s[0], n);
}

/* ------------------------------------------------------- columns of a tile */

/* Per column: the extreme so far (in the input's type) and its row. */
typedef struct tile {
    _Alignas(64) unsigned char best[TILE * 8];
    uint64_t at[TILE];
} tile;

/* Whether v replaces best: skipping NaN, a NaN best (a column that starts
 * with NaN) gives way to anything; propagating them, the first NaN takes the
 * place and keeps it (nothing compares above or below it). */
#define TAKES(v, b, CMP, ISNAN, skipna) \
    (((v) CMP (b)) | ((skipna) ? ISNAN(b) : ISNAN(v) & !ISNAN(b)))

#define COLUMN_LOOP(CMP, ISNAN, SKIPNA, ARG)                                                 \
    for (size_t j = 0; j < w; j++) {                                                  \
        bool b = TAKES(v[j], best[j], CMP, ISNAN, SKIPNA);                            \
        best[j] = b ? v[j] : best[j];                                                 \
        if (ARG) at[j] = b ? r : at[j];                                               \
    }

/* w columns down rows rows (row_bytes apart), one loop per case. */
#define DEFINE_COLUMNS(SUF, T, ISNAN)                                                 \
    IPFSRT_NDVECTOR static void columns_##SUF(const extrema *x, const unsigned char *p, size_t rows, \
                                              size_t row_bytes, size_t w, tile *t) {  \
        T *best = (T *)(void *)t->best;                                               \
        uint64_t *at = t->at;                                                         \
        memcpy(best, p, w * sizeof(T));                                               \
        memset(at, 0, w * sizeof *at);                                                \
        int which = x->want_max * 4 + x->want_arg * 2 + x->skipna;                    \
        for (size_t r = 1; r < rows; r++) {                                           \
            const T *v = (const T *)(const void *)(p + r * row_bytes);                \
            switch (which) {                                                          \
            case 0: COLUMN_LOOP(<, ISNAN, 0, 0) break;                            \
            case 1: COLUMN_LOOP(<, ISNAN, 1, 0) break;                            \
            case 2: COLUMN_LOOP(<, ISNAN, 0, 1) break;                            \
            case 3: COLUMN_LOOP(<, ISNAN, 1, 1) break;                            \
            case 4: COLUMN_LOOP(>, ISNAN, 0, 0) break;                            \
            case 5: COLUMN_LOOP(>, ISNAN, 1, 0) break;                            \
            case 6: COLUMN_LOOP(>, ISNAN, 0, 1) break;                            \
            default: COLUMN_LOOP(>, ISNAN, 1, 1) break;                           \
            }                                                                         \
        }                                                                             \
    }

DEFINE_COLUMNS(i8, int8_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(i16, int16_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(i32, int32_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(i64, int64_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(u8, uint8_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(u16, uint16_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(u32, uint32_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(u64, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_COLUMNS(f32, float, IPFSRT_NDNAN_FLOAT)
DEFINE_COLUMNS(f64, double, IPFSRT_NDNAN_FLOAT)

static void columns(const extrema *x, const unsigned char *p, size_t rows, size_t row_bytes, size_t w, tile *t) {
    IPFSRT_NDTYPED_CALL(x->d, columns, x, p, rows, row_bytes, w, t)
}

/* The tile's w results into out; false when a column had no number for its
 * position (a column still NaN while skipping them was all NaN: its min and
 * max are NaN, as numpy's nanmax, but it has no argmax). */
static bool give_columns(const extrema *x, const tile *t, size_t w, ipfsrt_dtype result, unsigned char *out) {
    size_t size = ipfsrt_dtype_size(x->d);
    if (!x->want_arg) {
        memcpy(out, t->best, w * size);
        return true;
    }
    ipfsrt_ndrow_store_bits(result, out, (ptrdiff_t)sizeof(int64_t), w, t->at);
    bool ok = true;
    for (size_t j = 0; x->skipna && ipfsrt_ndkind_of(x->d) == IPFSRT_NDKIND_FLOAT && j < w; j++)
        ok = ok && !isnan(ipfsrt_ndload_double(x->d, t->best + j * size));
    return ok;
}

static int reduce_columns(const extrema *x, ipfsrt_ndarray *res, const ipfsrt_ndarray *a, ipfsrt_ndlines l) {
    tile *t = malloc(sizeof *t);
    bool ok = true;
    if (!t) return IPFSRT_NDFAST_NO; /* the walk's way needs no memory */
    for (size_t o = 0; o < l.outer; o++)
        for (size_t j0 = 0; j0 < l.inner; j0 += TILE) {
            size_t w = l.inner - j0 < TILE ? l.inner - j0 : TILE;
            columns(x, a->data + (o * l.len * l.inner + j0) * a->itemsize, l.len, l.inner * a->itemsize, w, t);
            ok = give_columns(x, t, w, res->dtype, res->data + (o * l.inner + j0) * res->itemsize) && ok;
        }
    free(t);
    return ok ? IPFSRT_NDFAST_DONE : IPFSRT_NDFAST_EMPTY;
}

/* ------------------------------------------------------------------ entry */

int ipfsrt_ndfast_extrema(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                          int axis, bool skipna) {
    extrema x = {.d = a->dtype, .skipna = skipna,
                 .want_max = how == IPFSRT_NDREDUCE_MAX || how == IPFSRT_NDREDUCE_ARGMAX,
                 .want_arg = how == IPFSRT_NDREDUCE_ARGMIN || how == IPFSRT_NDREDUCE_ARGMAX};
    if (all_axes) {
        ipfsrt_ndwalk w;
        ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
        ipfsrt_ndwalk_add(&w, a);
        w.row = walk_row;
        w.ctx = &x;
        ipfsrt_ndwalk_run(&w);
        return give(&x, &x.all, res->dtype, res->data) ? IPFSRT_NDFAST_DONE : IPFSRT_NDFAST_EMPTY;
    }
    if (!ipfsrt_ndarray_is_contiguous(a)) return IPFSRT_NDFAST_NO;
    ipfsrt_ndlines l = ipfsrt_ndlines_of(a, false, axis);
    if (l.outer == 0 || l.inner == 0) return IPFSRT_NDFAST_DONE; /* no results to give */
    if (l.len == 0) return IPFSRT_NDFAST_EMPTY;
    if (l.inner > 1) return reduce_columns(&x, res, a, l);
    bool ok = true;
    for (size_t o = 0; o < l.outer; o++) {
        extremum e = {0};
        run(&x, &e, a->data + o * l.len * a->itemsize, (ptrdiff_t)a->itemsize, l.len);
        ok = give(&x, &e, res->dtype, res->data + o * res->itemsize) && ok;
    }
    return ok ? IPFSRT_NDFAST_DONE : IPFSRT_NDFAST_EMPTY;
}
