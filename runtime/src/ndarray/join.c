/* Whole-array operations built from views: several axes reduced at once,
 * rounding, running sums, assignment, and joining arrays. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

/* The reduced axes of x moved last and merged into one (a view, or a copy
 * where the layout does not allow one). */
static ipfsrt_status merge_axes(ipfsrt_ndarray *out, const ipfsrt_ndarray *x, const bool *reduced, int *kept,
                                ipfsrt_error *err) {
    int order[IPFSRT_NDARRAY_MAX_DIMS], k = 0;
    int64_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int64_t merged = 1;
    for (int d = 0; d < x->ndim; d++)
        if (!reduced[d]) shape[k] = (int64_t)x->shape[d], order[k++] = d;
    *kept = k;
    for (int d = 0; d < x->ndim; d++)
        if (reduced[d]) order[k++] = d, merged *= (int64_t)x->shape[d];
    shape[*kept] = merged;
    ipfsrt_ndarray t;
    ipfsrt_ndarray_init(&t);
    ipfsrt_status st = ipfsrt_ndarray_transpose(&t, x, order, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_reshape(out, &t, *kept + 1, shape, err);
    ipfsrt_ndarray_free(&t);
    return st;
}

ipfsrt_status ipfsrt_ndarray_reduce(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                                    const int *axes, int n, bool skipna, const ipfsrt_ndarray *where,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    if (!axes) return ipfsrt_ndreduce_one(out, how, a, true, 0, skipna, where, err);
    if (n < 1) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no axis to reduce over");
    if (n == 1) return ipfsrt_ndreduce_one(out, how, a, false, axes[0], skipna, where, err);
    bool reduced[IPFSRT_NDARRAY_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int ax = axes[i] < 0 ? axes[i] + a->ndim : axes[i];
        if (ax < 0 || ax >= a->ndim || reduced[ax])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis %d is out of bounds or given twice", axes[i]);
        reduced[ax] = true;
    }
    /* one reduction along the merged axis; the mask, broadcast to a, merged alike */
    ipfsrt_ndarray r, wide, m;
    ipfsrt_ndarray_init(&r);
    ipfsrt_ndarray_init(&wide);
    ipfsrt_ndarray_init(&m);
    int kept;
    ipfsrt_status st = merge_axes(&r, a, reduced, &kept, err);
    if (st == IPFSRT_OK && where) st = ipfsrt_ndarray_broadcast_to(&wide, where, a->ndim, a->shape, err);
    if (st == IPFSRT_OK && where) st = merge_axes(&m, &wide, reduced, &kept, err);
    if (st == IPFSRT_OK)
        st = ipfsrt_ndreduce_one(out, how, &r, false, kept, skipna, where ? &m : NULL, err);
    ipfsrt_ndarray_free(&r);
    ipfsrt_ndarray_free(&wide);
    ipfsrt_ndarray_free(&m);
    return st;
}

typedef struct rounding {
    ipfsrt_dtype d;
    int decimals;
} rounding;

static double round_half_even(double x, int decimals) {
    if (decimals == 0) return nearbyint(x);
    double scale = pow(10.0, decimals > 0 ? decimals : -decimals);
    return decimals > 0 ? nearbyint(x * scale) / scale : nearbyint(x / scale) * scale;
}

ipfsrt_status ipfsrt_ndarray_round(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int decimals,
                                   ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    ipfsrt_status st = ipfsrt_ndarray_copy(&res, a, err);
    if (st != IPFSRT_OK) return st;
    size_t n = ipfsrt_ndarray_size(&res);
    if (ipfsrt_dtype_is_float(a->dtype)) {
        for (size_t i = 0; i < n; i++) {
            unsigned char *p = res.data + i * res.itemsize;
            double x = a->dtype == IPFSRT_DTYPE_FLOAT32 ? (double)*(float *)(void *)p : *(double *)(void *)p;
            ipfsrt_ndstore_double(a->dtype, p, round_half_even(x, decimals));
        }
    } else if (ipfsrt_dtype_is_int(a->dtype) && decimals < 0) {
        ipfsrt_ndarray f;
        ipfsrt_ndarray_init(&f);
        st = ipfsrt_ndarray_astype(&f, &res, IPFSRT_DTYPE_FLOAT64, err);
        double *v = st == IPFSRT_OK ? (double *)(void *)f.data : NULL;
        for (size_t i = 0; v && i < n; i++) v[i] = round_half_even(v[i], decimals);
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_astype(&res, &f, a->dtype, err);
        ipfsrt_ndarray_free(&f);
    }
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* The general way: converted to the accumulator's type, then added along each
 * line in place (float32 sums rounded to float32 at each step, as numpy's). */
static ipfsrt_status cumsum_walk(ipfsrt_ndarray *res, const ipfsrt_ndarray *a, int axis, bool skipna,
                                 ipfsrt_dtype acc, ipfsrt_error *err) {
    bool is_float = ipfsrt_dtype_is_float(a->dtype);
    ipfsrt_status st = ipfsrt_ndarray_astype(res, a, is_float ? IPFSRT_DTYPE_FLOAT64 : acc, err);
    if (st != IPFSRT_OK) return st;
    size_t len = res->shape[axis], n = ipfsrt_ndarray_size(res), inner = 1;
    for (int d = axis + 1; d < res->ndim; d++) inner *= res->shape[d];
    ptrdiff_t step = (ptrdiff_t)(inner * res->itemsize);
    for (size_t line = 0; len && line < n / len; line++) { /* line: outer index * inner + inner index */
        unsigned char *p = res->data + ((line / inner) * len * inner + line % inner) * res->itemsize;
        double fsum = 0;
        uint64_t isum = 0;
        for (size_t i = 0; i < len; i++, p += step) {
            if (is_float) {
                double x = *(double *)(void *)p;
                fsum += skipna && isnan(x) ? 0 : x;
                if (acc == IPFSRT_DTYPE_FLOAT32) fsum = (float)fsum;
                *(double *)(void *)p = fsum;
            } else {
                uint64_t x;
                memcpy(&x, p, 8);
                isum += x; /* wraps, as numpy's */
                memcpy(p, &isum, 8);
            }
        }
    }
    if (is_float && acc != IPFSRT_DTYPE_FLOAT64) st = ipfsrt_ndarray_astype(res, res, acc, err);
    return st;
}

ipfsrt_status ipfsrt_ndarray_cumsum(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool skipna,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    if (axis < 0) axis += a->ndim;
    if (axis < 0 || axis >= a->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis out of bounds for an array of %d dimensions", a->ndim);
    if (ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no running sums of %s", ipfsrt_dtype_name(a->dtype));
    ipfsrt_dtype acc = ipfsrt_dtype_is_float(a->dtype) ? a->dtype
                     : ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_UINT ? IPFSRT_DTYPE_UINT64
                                                                        : IPFSRT_DTYPE_INT64;
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    ipfsrt_status st = IPFSRT_OK;
    bool typed = ipfsrt_ndfast_allowed() && ipfsrt_ndarray_is_contiguous(a);
    if (typed) st = ipfsrt_ndarray_new_buffer(&res, acc, 0, a->ndim, a->shape, false, err);
    if (typed && st == IPFSRT_OK && ipfsrt_ndfast_cumsum(&res, a, axis, skipna)) ipfsrt_ndfast_hit();
    else if (st == IPFSRT_OK) st = cumsum_walk(&res, a, axis, skipna, acc, err);
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_concat(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED_N(arrays, n, err);
    if (n < 1) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "nothing to join");
    const ipfsrt_ndarray *first = arrays[0];
    if (axis < 0) axis += first->ndim;
    if (axis < 0 || axis >= first->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis out of bounds for arrays of %d dimensions", first->ndim);
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    memcpy(shape, first->shape, sizeof shape);
    ipfsrt_dtype dtype = first->dtype;
    shape[axis] = 0;
    for (int i = 0; i < n; i++) {
        const ipfsrt_ndarray *a = arrays[i];
        bool same = a->ndim == first->ndim;
        for (int d = 0; same && d < a->ndim; d++) same = d == axis || a->shape[d] == first->shape[d];
        if (!same) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "array %d's shape does not match the first's but along the axis", i);
        if (shape[axis] > SIZE_MAX - a->shape[axis]) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "too long");
        shape[axis] += a->shape[axis];
        ipfsrt_status st = i ? ipfsrt_dtype_promote(dtype, a->dtype, &dtype, err) : IPFSRT_OK;
        if (st != IPFSRT_OK) return st;
    }
    ipfsrt_ndarray res, part;
    ipfsrt_ndarray_init(&res);
    ipfsrt_ndarray_init(&part);
    ipfsrt_status st = ipfsrt_ndarray_zeros(&res, dtype, first->itemsize, first->ndim, shape, err);
    int64_t at = 0;
    for (int i = 0; st == IPFSRT_OK && i < n; i++) {
        ipfsrt_ndslice s[IPFSRT_NDARRAY_MAX_DIMS];
        for (int d = 0; d <= axis; d++) s[d] = (ipfsrt_ndslice){.step = 1};
        s[axis] = (ipfsrt_ndslice){.has_start = true, .start = at, .has_stop = true,
                                   .stop = at + (int64_t)arrays[i]->shape[axis], .step = 1};
        at += (int64_t)arrays[i]->shape[axis];
        st = ipfsrt_ndarray_slice(&part, &res, s, axis + 1, err);
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_assign(&part, arrays[i], err);
    }
    ipfsrt_ndarray_free(&part);
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_stack(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                   ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED_N(arrays, n, err);
    if (n < 1) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "nothing to stack");
    int ndim = arrays[0]->ndim + 1;
    if (axis < 0) axis += ndim;
    if (axis < 0 || axis >= ndim || ndim > IPFSRT_NDARRAY_MAX_DIMS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis out of bounds for the stacked %d dimensions", ndim);
    /* each array with a new dimension of 1 at axis, then joined along it */
    ipfsrt_ndarray views[64];
    const ipfsrt_ndarray *parts[64];
    if (n > 64) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "at most 64 arrays at once");
    ipfsrt_status st = IPFSRT_OK;
    int made = 0;
    for (int i = 0; st == IPFSRT_OK && i < n; i++, made++) {
        const ipfsrt_ndarray *a = arrays[i];
        if (a->ndim != arrays[0]->ndim || memcmp(a->shape, arrays[0]->shape, (size_t)a->ndim * sizeof *a->shape))
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "stack needs arrays of one shape (array %d differs)", i);
        int64_t shape[IPFSRT_NDARRAY_MAX_DIMS];
        for (int d = 0, k = 0; d < ndim; d++) shape[d] = d == axis ? 1 : (int64_t)a->shape[k++];
        ipfsrt_ndarray_init(&views[i]);
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_reshape(&views[i], a, ndim, shape, err);
        parts[i] = &views[i];
    }
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_concat(out, parts, n, axis, err);
    for (int i = 0; i < made; i++) ipfsrt_ndarray_free(&views[i]);
    return st;
}
