/* Stored values to measured ones in one pass, as CF decoding does it (and
 * as xarray orders it): the values that mean "missing" become NaN, the rest
 * are converted to the float type, multiplied by the scale and offset, each
 * step rounded in that type. One pass instead of five temporaries. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

/* One loop per case, each simple enough for the vectorizer: no missing value,
 * one, two (the common _FillValue and missing_value), or any number. Each
 * value is scaled whether missing or not: a select, not a branch, which the
 * vectorizer takes. */
#define SCALE_LOOPS(F, EXPR)                                                                             \
    do {                                                                                                 \
        F f0 = nfills > 0 ? (F)fills[0] : 0, f1 = nfills > 1 ? (F)fills[1] : 0;                          \
        if (nfills == 0) {                                                                               \
            for (size_t i = 0; i < n; i++) {                                                             \
                F x = (F)in[i];                                                                          \
                out[i] = EXPR;                                                                           \
            }                                                                                            \
        } else if (nfills == 1) {                                                                        \
            for (size_t i = 0; i < n; i++) {                                                             \
                F x = (F)in[i], y = EXPR;                                                                \
                out[i] = x == f0 ? (F)NAN : y;                                                           \
            }                                                                                            \
        } else if (nfills == 2) {                                                                        \
            for (size_t i = 0; i < n; i++) {                                                             \
                F x = (F)in[i], y = EXPR;                                                                \
                out[i] = ((x == f0) | (x == f1)) ? (F)NAN : y;                                           \
            }                                                                                            \
        } else {                                                                                         \
            for (size_t i = 0; i < n; i++) {                                                             \
                F x = (F)in[i];                                                                          \
                bool missing = false;                                                                    \
                for (int k = 0; k < nfills; k++) missing |= x == (F)fills[k];                            \
                out[i] = missing ? (F)NAN : EXPR;                                                        \
            }                                                                                            \
        }                                                                                                \
    } while (0)

/* n values of type T at src into F at dst: missing ones NaN, the others
 * scaled, then offset (each step rounded in F, as xarray does it). */
#define SCALE_ROW(T, F)                                                                                 \
    static void scale_##T##_##F(const void *src, void *dst, size_t n, const double *fills, int nfills,   \
                                const ipfsrt_ndarray_scaling *sc) {                                      \
        const T *restrict in = src;                                                                      \
        F *restrict out = dst, s = (F)sc->scale, o = (F)sc->offset;                                     \
        if (sc->has_scale && sc->has_offset) SCALE_LOOPS(F, x * s + o);                                  \
        else if (sc->has_scale) SCALE_LOOPS(F, x * s);                                                   \
        else if (sc->has_offset) SCALE_LOOPS(F, x + o);                                                  \
        else SCALE_LOOPS(F, x);                                                                          \
    }

#define SCALE_BOTH(T) SCALE_ROW(T, float) SCALE_ROW(T, double)
SCALE_BOTH(int8_t)
SCALE_BOTH(int16_t)
SCALE_BOTH(int32_t)
SCALE_BOTH(int64_t)
SCALE_BOTH(uint8_t)
SCALE_BOTH(uint16_t)
SCALE_BOTH(uint32_t)
SCALE_BOTH(uint64_t)
SCALE_BOTH(float)
SCALE_BOTH(double)

typedef void (*scale_fn)(const void *, void *, size_t, const double *, int, const ipfsrt_ndarray_scaling *);

static scale_fn pick(ipfsrt_dtype in, bool to_double) {
#define CASE(D, T) \
    case D: return to_double ? scale_##T##_double : scale_##T##_float;
    switch (in) {
        CASE(IPFSRT_DTYPE_INT8, int8_t)
        CASE(IPFSRT_DTYPE_INT16, int16_t)
        CASE(IPFSRT_DTYPE_INT32, int32_t)
        CASE(IPFSRT_DTYPE_INT64, int64_t)
        CASE(IPFSRT_DTYPE_UINT8, uint8_t)
        CASE(IPFSRT_DTYPE_UINT16, uint16_t)
        CASE(IPFSRT_DTYPE_UINT32, uint32_t)
        CASE(IPFSRT_DTYPE_UINT64, uint64_t)
        CASE(IPFSRT_DTYPE_FLOAT32, float)
        CASE(IPFSRT_DTYPE_FLOAT64, double)
    default: return NULL;
    }
#undef CASE
}

/* Rows as long as both layouts allow; a row that is not one run of memory on
 * both sides goes an element at a time. */
typedef struct unscale_walk {
    scale_fn fn;
    size_t in_size, out_size;
    const ipfsrt_ndarray_scaling *sc;
} unscale_walk;

static void unscale_row(void *ctx, unsigned char **p, const ptrdiff_t *strides, size_t n) {
    const unscale_walk *u = ctx;
    if (strides[0] == (ptrdiff_t)u->out_size && strides[1] == (ptrdiff_t)u->in_size) {
        u->fn(p[1], p[0], n, u->sc->fills, u->sc->nfills, u->sc);
        return;
    }
    for (size_t i = 0; i < n; i++)
        u->fn(p[1] + (ptrdiff_t)i * strides[1], p[0] + (ptrdiff_t)i * strides[0], 1, u->sc->fills, u->sc->nfills,
              u->sc);
}

ipfsrt_status ipfsrt_ndarray_unscale_into(ipfsrt_ndarray *dst, const ipfsrt_ndarray *raw,
                                          const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(raw, err);
    IPFSRT_NEED(scaling, err);
    if (dst->dtype != IPFSRT_DTYPE_FLOAT32 && dst->dtype != IPFSRT_DTYPE_FLOAT64)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "unscaled values are float32 or float64");
    if (scaling->nfills < 0 || scaling->nfills > IPFSRT_NDARRAY_MAX_FILLS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "at most %d missing values", IPFSRT_NDARRAY_MAX_FILLS);
    unscale_walk u = {pick(raw->dtype, dst->dtype == IPFSRT_DTYPE_FLOAT64), raw->itemsize, dst->itemsize, scaling};
    if (!u.fn) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no unscaling of %s", ipfsrt_dtype_name(raw->dtype));
    if (raw->ndim > dst->ndim) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "values of more dimensions than their place");
    for (int d = 0; d < raw->ndim; d++) {
        size_t want = dst->shape[dst->ndim - raw->ndim + d];
        if (raw->shape[d] != want && raw->shape[d] != 1)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "values of shape that does not fit their place (dimension %d: %zu, "
                               "not %zu)", d, raw->shape[d], want);
    }
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, dst->ndim, dst->shape);
    ipfsrt_ndwalk_add(&w, dst);
    ipfsrt_ndwalk_add(&w, raw);
    w.row = unscale_row;
    w.ctx = &u;
    ipfsrt_ndwalk_run(&w);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_unscale(ipfsrt_ndarray *out, const ipfsrt_ndarray *raw, ipfsrt_dtype dtype,
                                     const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(raw, err);
    IPFSRT_NEED(scaling, err);
    if (dtype != IPFSRT_DTYPE_FLOAT32 && dtype != IPFSRT_DTYPE_FLOAT64)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "unscaled values are float32 or float64");
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    ipfsrt_status st = ipfsrt_ndarray_zeros(&res, dtype, 0, raw->ndim, raw->shape, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_unscale_into(&res, raw, scaling, err);
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}
