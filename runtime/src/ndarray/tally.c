/* any, all and count in typed loops: each counts elements of a kind in
 * blocks (nonzero ones for any and all, NaN counting as nonzero as numpy's;
 * numbers other than NaN for count) with plain loops compilers vectorize. Over
 * everything, any and all stop at the first block that settles them (as
 * numpy's do). Along an inner axis of a contiguous array, the columns of a
 * tile are counted a row at a time. */
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define BLOCK 4096
#define TILE 16384

typedef struct tally {
    ipfsrt_dtype d;
    bool count_numbers; /* count: numbers other than NaN; any, all: nonzero elements */
    bool want_any, want_all;
    uint64_t hits, seen; /* over everything */
} tally;

/* Whether any or all knows its answer already. */
static bool settled(const tally *t) { return (t->want_any && t->hits) || (t->want_all && t->hits < t->seen); }

/* Elements of the kind in n elements s bytes apart; a settled any or all stops
 * at the end of the block that settled it. any and all only need to know
 * whether a block holds a nonzero (or a zero) element: an OR of flags as wide
 * as the elements, which vectorizes without widening. */
#define DEFINE_COUNT(SUF, T, U)                                                       \
    IPFSRT_NDVECTOR static void count_##SUF(tally *t, const unsigned char *p, ptrdiff_t s, size_t n) { \
        T buf[BLOCK];                                                                 \
        for (size_t off = 0; off < n; off += BLOCK) {                                 \
            size_t m = n - off < BLOCK ? n - off : BLOCK;                             \
            const T *v = ipfsrt_ndrow_gather(p + (ptrdiff_t)off * s, s, m, sizeof(T), buf); \
            uint32_t c = 0;                                                           \
            U flag = 0;                                                               \
            if (t->count_numbers) {                                                   \
                for (size_t i = 0; i < m; i++) c += v[i] == v[i];                     \
            } else if (t->want_any) {                                                 \
                for (size_t i = 0; i < m; i++) flag |= (U)(v[i] != 0);                \
                c = flag ? 1 : 0; /* enough to settle it */                           \
            } else if (t->want_all) {                                                 \
                for (size_t i = 0; i < m; i++) flag |= (U)(v[i] == 0);                \
                c = flag ? 0 : (uint32_t)m;                                           \
            } else {                                                                  \
                for (size_t i = 0; i < m; i++) c += v[i] != 0;                        \
            }                                                                         \
            t->hits += c;                                                             \
            t->seen += m;                                                             \
            if (settled(t)) return;                                                   \
        }                                                                             \
    }

DEFINE_COUNT(u8, uint8_t, uint8_t)
DEFINE_COUNT(u16, uint16_t, uint16_t)
DEFINE_COUNT(u32, uint32_t, uint32_t)
DEFINE_COUNT(u64, uint64_t, uint64_t)
DEFINE_COUNT(f32, float, uint32_t)
DEFINE_COUNT(f64, double, uint64_t)

/* Integers of one width count alike, signed or not; bool is uint8. */
static void count(tally *t, const unsigned char *p, ptrdiff_t s, size_t n) {
    if (t->d == IPFSRT_DTYPE_FLOAT32) count_f32(t, p, s, n);
    else if (t->d == IPFSRT_DTYPE_FLOAT64) count_f64(t, p, s, n);
    else if (ipfsrt_dtype_size(t->d) == 1) count_u8(t, p, s, n);
    else if (ipfsrt_dtype_size(t->d) == 2) count_u16(t, p, s, n);
    else if (ipfsrt_dtype_size(t->d) == 4) count_u32(t, p, s, n);
    else count_u64(t, p, s, n);
}

static void walk_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    tally *t = ctx;
    if (!settled(t)) count(t, p[0], s[0], n);
}

static void give(const tally *t, ipfsrt_dtype result, unsigned char *out) {
    if (t->want_any) *out = t->hits > 0;
    else if (t->want_all) *out = t->hits == t->seen;
    else ipfsrt_ndstore_bits(result, out, t->hits);
}

/* w columns down rows rows into hits. */
#define DEFINE_COLUMNS(SUF, T)                                                        \
    IPFSRT_NDVECTOR static void tally_columns_##SUF(const tally *t, const unsigned char *p, size_t rows, \
                                              size_t row_bytes, size_t w, uint32_t *hits) { \
        memset(hits, 0, w * sizeof *hits);                                            \
        for (size_t r = 0; r < rows; r++) {                                           \
            const T *v = (const T *)(const void *)(p + r * row_bytes);                \
            if (t->count_numbers)                                                     \
                for (size_t j = 0; j < w; j++) hits[j] += v[j] == v[j];               \
            else                                                                      \
                for (size_t j = 0; j < w; j++) hits[j] += v[j] != 0;                  \
        }                                                                             \
    }

DEFINE_COLUMNS(u8, uint8_t)
DEFINE_COLUMNS(u16, uint16_t)
DEFINE_COLUMNS(u32, uint32_t)
DEFINE_COLUMNS(u64, uint64_t)
DEFINE_COLUMNS(f32, float)
DEFINE_COLUMNS(f64, double)

static void columns(const tally *t, const unsigned char *p, size_t rows, size_t row_bytes, size_t w,
                    uint32_t *hits) {
    if (t->d == IPFSRT_DTYPE_FLOAT32) tally_columns_f32(t, p, rows, row_bytes, w, hits);
    else if (t->d == IPFSRT_DTYPE_FLOAT64) tally_columns_f64(t, p, rows, row_bytes, w, hits);
    else if (ipfsrt_dtype_size(t->d) == 1) tally_columns_u8(t, p, rows, row_bytes, w, hits);
    else if (ipfsrt_dtype_size(t->d) == 2) tally_columns_u16(t, p, rows, row_bytes, w, hits);
    else if (ipfsrt_dtype_size(t->d) == 4) tally_columns_u32(t, p, rows, row_bytes, w, hits);
    else tally_columns_u64(t, p, rows, row_bytes, w, hits);
}

static int tally_columns(tally *t, ipfsrt_ndarray *res, const ipfsrt_ndarray *a, ipfsrt_ndlines l) {
    uint32_t *hits = malloc(TILE * sizeof *hits);
    if (!hits) return IPFSRT_NDFAST_NO; /* the walk's way needs no memory */
    for (size_t o = 0; o < l.outer; o++)
        for (size_t j0 = 0; j0 < l.inner; j0 += TILE) {
            size_t w = l.inner - j0 < TILE ? l.inner - j0 : TILE;
            columns(t, a->data + (o * l.len * l.inner + j0) * a->itemsize, l.len, l.inner * a->itemsize, w, hits);
            for (size_t j = 0; j < w; j++) {
                tally c = *t;
                c.hits = hits[j];
                c.seen = l.len;
                give(&c, res->dtype, res->data + (o * l.inner + j0 + j) * res->itemsize);
            }
        }
    free(hits);
    return IPFSRT_NDFAST_DONE;
}

int ipfsrt_ndfast_tally(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                        int axis, bool skipna) {
    (void)skipna; /* count leaves NaN out, any and all count them as true, either way */
    tally t = {.d = a->dtype, .count_numbers = how == IPFSRT_NDREDUCE_COUNT,
               .want_any = how == IPFSRT_NDREDUCE_ANY, .want_all = how == IPFSRT_NDREDUCE_ALL};
    if (t.count_numbers && ipfsrt_ndkind_of(a->dtype) != IPFSRT_NDKIND_FLOAT) { /* every element is a number */
        uint64_t n = all_axes ? ipfsrt_ndarray_size(a) : a->shape[axis];
        for (size_t i = 0; i < ipfsrt_ndarray_size(res); i++) ipfsrt_ndstore_bits(res->dtype, res->data + i * res->itemsize, n);
        return IPFSRT_NDFAST_DONE;
    }
    if (all_axes) {
        ipfsrt_ndwalk w;
        ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
        ipfsrt_ndwalk_add(&w, a);
        w.row = walk_row;
        w.ctx = &t;
        ipfsrt_ndwalk_run(&w);
        give(&t, res->dtype, res->data);
        return IPFSRT_NDFAST_DONE;
    }
    if (!ipfsrt_ndarray_is_contiguous(a)) return IPFSRT_NDFAST_NO;
    ipfsrt_ndlines l = ipfsrt_ndlines_of(a, false, axis);
    if (l.outer == 0 || l.inner == 0) return IPFSRT_NDFAST_DONE; /* no results to give */
    if (l.inner > 1 && l.len <= UINT32_MAX) return tally_columns(&t, res, a, l);
    for (size_t o = 0; o < l.outer; o++) {
        tally c = t;
        count(&c, a->data + o * l.len * a->itemsize, (ptrdiff_t)a->itemsize, l.len);
        give(&c, res->dtype, res->data + o * res->itemsize);
    }
    return IPFSRT_NDFAST_DONE;
}
