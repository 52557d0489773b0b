/* Weighted sums over the last axes: sum(x * w) and sum(w) over the values of
 * x other than NaN, as the arrays where(isnan(x), 0, x * w) and
 * where(isnan(x), 0, w) summed over those axes would give them (each lane in
 * numpy's pairwise blocks, the blocks added in turn): the same bits, one pass
 * over x, and neither array made. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

#define BLOCK IPFSRT_NDFAST_PAIRWISE_BLOCK

/* One lane: products and kept weights a block at a time. P is the product's
 * type, D the weights'; X the values', W the weights' as stored. */
#define DEFINE_LANE(name, X, W, P, D, PAIRWISE_P, PAIRWISE_D)                            \
    IPFSRT_NDVECTOR static void name(const X *x, const W *w, size_t len, P *bp, D *bd, P *num, D *den) { \
        P s = 0;                                                                       \
        D t = 0;                                                                       \
        for (size_t off = 0; off < len; off += BLOCK) {                                \
            size_t m = len - off < BLOCK ? len - off : BLOCK;                          \
            for (size_t i = 0; i < m; i++) {                                           \
                X v = x[off + i];                                                      \
                bool gone = v != v;                                                    \
                bp[i] = gone ? (P)0 : (P)v * (P)w[off + i];                            \
                bd[i] = gone ? (D)0 : (D)w[off + i];                                   \
            }                                                                          \
            s += PAIRWISE_P(bp, m);                                                    \
            t += PAIRWISE_D(bd, m);                                                    \
        }                                                                              \
        *num = s;                                                                      \
        *den = t;                                                                      \
    }

DEFINE_LANE(lane_f32_f32, float, float, float, float, ipfsrt_ndfast_pairwise_f32, ipfsrt_ndfast_pairwise_f32)
DEFINE_LANE(lane_f32_f64, float, double, double, double, ipfsrt_ndfast_pairwise_f64, ipfsrt_ndfast_pairwise_f64)
DEFINE_LANE(lane_f64_f32, double, float, double, float, ipfsrt_ndfast_pairwise_f64, ipfsrt_ndfast_pairwise_f32)
DEFINE_LANE(lane_f64_f64, double, double, double, double, ipfsrt_ndfast_pairwise_f64, ipfsrt_ndfast_pairwise_f64)

/* The weights over one lane, contiguous: w broadcast to x, taken at the first
 * position of the kept axes (where it must not vary). */
static ipfsrt_status lane_weights(ipfsrt_ndarray *out, const ipfsrt_ndarray *x, const ipfsrt_ndarray *w, int kept,
                                  ipfsrt_error *err) {
    ipfsrt_ndarray wide, first;
    ipfsrt_ndarray_init(&wide);
    ipfsrt_ndarray_init(&first);
    ipfsrt_status st = ipfsrt_ndarray_broadcast_to(&wide, w, x->ndim, x->shape, err);
    for (int d = 0; st == IPFSRT_OK && d < kept; d++)
        if (wide.strides[d] != 0 && wide.shape[d] > 1)
            st = ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "weighted sums: the weights vary along a kept axis");
    if (st == IPFSRT_OK) {
        first = wide;
        first.buffer = NULL; /* a view of wide's: not freed */
        first.ndim = x->ndim - kept;
        memmove(first.shape, wide.shape + kept, (size_t)first.ndim * sizeof first.shape[0]);
        memmove(first.strides, wide.strides + kept, (size_t)first.ndim * sizeof first.strides[0]);
        st = ipfsrt_ndarray_copy(out, &first, err);
    }
    ipfsrt_ndarray_free(&wide);
    return st;
}

static ipfsrt_status check_args(const ipfsrt_ndarray *x, const ipfsrt_ndarray *w, int n, ipfsrt_error *err) {
    if (ipfsrt_ndkind_of(x->dtype) != IPFSRT_NDKIND_FLOAT || ipfsrt_ndkind_of(w->dtype) != IPFSRT_NDKIND_FLOAT)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "weighted sums take float values and weights");
    if (n < 1 || n > x->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "weighted sums over %d of %d axes", n, x->ndim);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_weighted_sums(ipfsrt_ndarray *num, ipfsrt_ndarray *den, const ipfsrt_ndarray *x,
                                           const ipfsrt_ndarray *w, int n, ipfsrt_error *err) {
    IPFSRT_NEED(num, err);
    IPFSRT_NEED(den, err);
    IPFSRT_NEED(x, err);
    IPFSRT_NEED(w, err);
    ipfsrt_status st = check_args(x, w, n, err);
    if (st != IPFSRT_OK) return st;
    int kept = x->ndim - n;
    bool x64 = x->dtype == IPFSRT_DTYPE_FLOAT64, w64 = w->dtype == IPFSRT_DTYPE_FLOAT64;
    ipfsrt_ndarray wl, xs, sn, sd;
    ipfsrt_ndarray *all[] = {&wl, &xs, &sn, &sd};
    for (int i = 0; i < 4; i++) ipfsrt_ndarray_init(all[i]);
    st = lane_weights(&wl, x, w, kept, err);
    if (st == IPFSRT_OK && ipfsrt_ndarray_is_contiguous(x)) {
        xs = *x; /* read in place: not freed below */
        xs.buffer = NULL;
    } else if (st == IPFSRT_OK) {
        st = ipfsrt_ndarray_copy(&xs, x, err); /* contiguous lanes */
    }
    ipfsrt_dtype pt = x64 || w64 ? IPFSRT_DTYPE_FLOAT64 : IPFSRT_DTYPE_FLOAT32;
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_empty(&sn, pt, 0, kept, x->shape, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_empty(&sd, w->dtype, 0, kept, x->shape, err);
    double *buf = st == IPFSRT_OK ? malloc(2 * BLOCK * sizeof *buf) : NULL;
    if (st == IPFSRT_OK && !buf) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) {
        size_t len = ipfsrt_ndarray_size(&wl), lanes = len ? ipfsrt_ndarray_size(&xs) / len : ipfsrt_ndarray_size(&sn);
        for (size_t l = 0; l < lanes; l++) {
            const void *xl = xs.data + l * len * xs.itemsize, *wd = wl.data;
            void *o = sn.data + l * sn.itemsize, *d = sd.data + l * sd.itemsize, *bp = buf, *bd = buf + BLOCK;
            if (!x64 && !w64) lane_f32_f32(xl, wd, len, bp, bd, o, d);
            else if (!x64) lane_f32_f64(xl, wd, len, bp, bd, o, d);
            else if (!w64) lane_f64_f32(xl, wd, len, bp, bd, o, d);
            else lane_f64_f64(xl, wd, len, bp, bd, o, d);
        }
        ipfsrt_ndarray_free(num);
        ipfsrt_ndarray_free(den);
        *num = sn, *den = sd;
        ipfsrt_ndarray_init(&sn);
        ipfsrt_ndarray_init(&sd);
    }
    free(buf);
    for (int i = 0; i < 4; i++) ipfsrt_ndarray_free(all[i]);
    return st;
}
