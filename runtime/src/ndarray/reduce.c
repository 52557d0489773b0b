/* Reductions: over everything, one axis or several (moved last and merged),
 * NaN skipped on request; integer sums wrap in 64 bits, means of integers come
 * from their exact 64-bit sums. Contiguous inputs take the typed loops of
 * fast.c; the rest goes element by element through the walk. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

/* ------------------------------------------------------------ reductions */

typedef struct acc {
    double f;       /* float sums, mins and maxes */
    uint64_t bits;  /* integer sums (wrapping), mins and maxes */
    uint64_t n;     /* elements taken (not NaN, with skipna) */
    bool nan;       /* a NaN was met (without skipna: the result) */
    uint64_t seen;  /* elements visited, NaN or not: the next one's position */
    uint64_t at;    /* argmin/argmax: the position of the best so far */
    uint64_t nan_at; /* ... and of the first NaN */
    double mean, sq; /* var/std: the first pass's mean, the squared deviations */
    bool any, all;
} acc;

typedef struct reducing {
    ipfsrt_ndreduce how;
    ipfsrt_dtype in, result;
    bool skipna;
    /* along one axis: its length and stride in the input (and in the mask) */
    size_t len;
    ptrdiff_t stride, mask_stride;
    bool masked; /* a where= mask comes with the input: its false elements are left out */
    bool empty_minmax;
    acc all; /* over everything */
} reducing;

static bool wants_min(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_MIN || h == IPFSRT_NDREDUCE_ARGMIN; }
static bool wants_max(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_MAX || h == IPFSRT_NDREDUCE_ARGMAX; }

static void take(const reducing *r, acc *a, const unsigned char *p) {
    ipfsrt_ndkind k = ipfsrt_ndkind_of(r->in);
    uint64_t pos = a->seen++;
    if (r->how == IPFSRT_NDREDUCE_ANY || r->how == IPFSRT_NDREDUCE_ALL) {
        bool t = ipfsrt_ndtruthy(r->in, p);
        a->any = a->any || t;
        a->all = (a->n == 0 || a->all) && t;
        a->n++;
        return;
    }
    if (k == IPFSRT_NDKIND_FLOAT) {
        double x = ipfsrt_ndload_double(r->in, p);
        if (isnan(x)) {
            if (!a->nan) a->nan_at = pos;
            a->nan = true;
            return;
        }
        bool better = a->n == 0 || (wants_min(r->how) ? x < a->f : x > a->f);
        if ((wants_min(r->how) || wants_max(r->how)) && better) {
            a->f = x;
            a->at = pos;
        } else if (!wants_min(r->how) && !wants_max(r->how)) {
            a->f += x;
        }
    } else {
        uint64_t x = ipfsrt_ndload_bits(r->in, p);
        bool less = k == IPFSRT_NDKIND_UINT ? x < a->bits : (int64_t)x < (int64_t)a->bits;
        bool more = k == IPFSRT_NDKIND_UINT ? x > a->bits : (int64_t)x > (int64_t)a->bits;
        if (wants_min(r->how) || wants_max(r->how)) {
            if (a->n == 0 || (wants_min(r->how) ? less : more)) {
                a->bits = x;
                a->at = pos;
            }
        } else {
            a->bits += x;
            a->f += k == IPFSRT_NDKIND_UINT ? (double)x : (double)(int64_t)x; /* for the mean */
        }
    }
    a->n++;
}

/* The second pass of var/std: squared deviations from the first pass's mean. */
static void take_deviation(const reducing *r, acc *a, const unsigned char *p) {
    double x = ipfsrt_ndload_double(r->in, p);
    if (isnan(x)) return;
    a->sq += (x - a->mean) * (x - a->mean);
}

static void give(reducing *r, const acc *a, unsigned char *out) {
    bool is_float = ipfsrt_ndkind_of(r->in) == IPFSRT_NDKIND_FLOAT;
    bool nan_result = a->nan && !r->skipna;
    switch (r->how) {
    case IPFSRT_NDREDUCE_COUNT: ipfsrt_ndstore_bits(r->result, out, a->n); return;
    case IPFSRT_NDREDUCE_ANY: *out = a->any; return;
    case IPFSRT_NDREDUCE_ALL: *out = a->n == 0 || a->all; return;
    case IPFSRT_NDREDUCE_VAR:
    case IPFSRT_NDREDUCE_STD: {
        double v = nan_result || !a->n ? NAN : a->sq / (double)a->n;
        ipfsrt_ndstore_float(r->result, out, r->how == IPFSRT_NDREDUCE_STD ? sqrt(v) : v);
        return;
    }
    case IPFSRT_NDREDUCE_ARGMIN:
    case IPFSRT_NDREDUCE_ARGMAX:
        if (!a->n && !(a->nan && !r->skipna)) r->empty_minmax = true;
        ipfsrt_ndstore_bits(r->result, out, nan_result ? a->nan_at : a->at);
        return;
    case IPFSRT_NDREDUCE_MEAN: ipfsrt_ndstore_float(r->result, out, nan_result || !a->n ? NAN : a->f / (double)a->n); return;
    case IPFSRT_NDREDUCE_SUM:
        if (is_float) ipfsrt_ndstore_float(r->result, out, nan_result ? NAN : a->f);
        else ipfsrt_ndstore_bits(r->result, out, a->bits);
        return;
    default: /* min, max */
        if (!a->n && !a->nan) r->empty_minmax = true;
        if (is_float) ipfsrt_ndstore_float(r->result, out, nan_result || !a->n ? NAN : a->f);
        else ipfsrt_ndstore_bits(r->result, out, a->bits);
    }
}

static bool two_pass(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_VAR || h == IPFSRT_NDREDUCE_STD; }

static void take_all(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    if (!r->masked || *p[1]) take(r, &r->all, p[0]);
}

static void deviation_all(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    if (!r->masked || *p[1]) take_deviation(r, &r->all, p[0]);
}

/* p: the output, the line's first input element, its first mask element. */
static void reduce_axis_one(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    acc a = {0};
    for (size_t i = 0; i < r->len; i++)
        if (!r->masked || p[2][(ptrdiff_t)i * r->mask_stride]) take(r, &a, p[1] + (ptrdiff_t)i * r->stride);
    if (two_pass(r->how) && a.n) {
        a.mean = a.f / (double)a.n;
        for (size_t i = 0; i < r->len; i++)
            if (!r->masked || p[2][(ptrdiff_t)i * r->mask_stride])
                take_deviation(r, &a, p[1] + (ptrdiff_t)i * r->stride);
    }
    give(r, &a, p[0]);
}

/* Operands: a, then the mask (broadcast to a) when there is one. */
static void walk_all(reducing *r, const ipfsrt_ndarray *a, const ipfsrt_ndarray *mask,
                     void (*elem)(void *, unsigned char **)) {
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
    ipfsrt_ndwalk_add(&w, a);
    if (mask) ipfsrt_ndwalk_add(&w, mask);
    w.elem = elem;
    w.ctx = r;
    ipfsrt_ndwalk_run(&w);
}

/* Everything at once (twice for var and std), or each output's line along axis. */
static void reduce_walk(reducing *r, ipfsrt_ndarray *res, const ipfsrt_ndarray *a, const ipfsrt_ndarray *mask,
                        bool all_axes, int axis) {
    r->masked = mask != NULL;
    if (all_axes) {
        walk_all(r, a, mask, take_all);
        if (two_pass(r->how) && r->all.n) {
            r->all.mean = r->all.f / (double)r->all.n;
            walk_all(r, a, mask, deviation_all);
        }
        give(r, &r->all, res->data);
        return;
    }
    r->len = a->shape[axis];
    r->stride = a->strides[axis];
    r->mask_stride = mask ? mask->strides[axis] : 0;
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, res->ndim, res->shape);
    ipfsrt_ndwalk_add(&w, res);
    w.n = mask ? 3 : 2;
    w.p[1] = a->data;
    w.p[2] = mask ? mask->data : NULL;
    for (int d = 0, k = 0; d < a->ndim; d++) {
        if (d == axis) continue;
        w.strides[1][k] = a->strides[d];
        w.strides[2][k++] = mask ? mask->strides[d] : 0;
    }
    w.elem = reduce_axis_one;
    w.ctx = r;
    ipfsrt_ndwalk_run(&w);
}

static ipfsrt_dtype reduce_result(ipfsrt_ndreduce how, ipfsrt_dtype in) {
    ipfsrt_ndkind k = ipfsrt_ndkind_of(in);
    switch (how) {
    case IPFSRT_NDREDUCE_COUNT:
    case IPFSRT_NDREDUCE_ARGMIN:
    case IPFSRT_NDREDUCE_ARGMAX: return IPFSRT_DTYPE_INT64;
    case IPFSRT_NDREDUCE_ANY:
    case IPFSRT_NDREDUCE_ALL: return IPFSRT_DTYPE_BOOL;
    case IPFSRT_NDREDUCE_MEAN:
    case IPFSRT_NDREDUCE_VAR:
    case IPFSRT_NDREDUCE_STD: return in == IPFSRT_DTYPE_FLOAT32 ? in : IPFSRT_DTYPE_FLOAT64;
    case IPFSRT_NDREDUCE_SUM: return k == IPFSRT_NDKIND_FLOAT ? in : k == IPFSRT_NDKIND_UINT ? IPFSRT_DTYPE_UINT64 : IPFSRT_DTYPE_INT64;
    default: return in;
    }
}

/* where broadcast to a's shape, after checking it can be a mask for a. */
static ipfsrt_status mask_for(ipfsrt_ndarray *mask, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                              const ipfsrt_ndarray *where, ipfsrt_error *err) {
    if (where->dtype != IPFSRT_DTYPE_BOOL)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a where= mask must be a bool array, not %s",
                           ipfsrt_dtype_name(where->dtype));
    if (how == IPFSRT_NDREDUCE_ARGMIN || how == IPFSRT_NDREDUCE_ARGMAX)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "argmin and argmax take no where= mask (as numpy)");
    return ipfsrt_ndarray_broadcast_to(mask, where, a->ndim, a->shape, err);
}

static ipfsrt_status check_axis(const ipfsrt_ndarray *a, bool all_axes, int *axis, ipfsrt_error *err) {
    if (ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no reductions of %s", ipfsrt_dtype_name(a->dtype));
    int given = *axis;
    if (!all_axes && *axis < 0) *axis += a->ndim;
    if (!all_axes && (*axis < 0 || *axis >= a->ndim))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis %d is out of bounds for an array of %d dimensions", given,
                           a->ndim);
    return IPFSRT_OK;
}

/* The typed loops' way when they have one for the case. */
static int typed_reduce(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, const ipfsrt_ndarray *mask,
                        bool all_axes, int axis, bool skipna) {
    if (!ipfsrt_ndfast_allowed()) return IPFSRT_NDFAST_NO;
    int got;
    switch (mask ? IPFSRT_NDREDUCE_SUM : how) {
    case IPFSRT_NDREDUCE_MIN:
    case IPFSRT_NDREDUCE_MAX:
    case IPFSRT_NDREDUCE_ARGMIN:
    case IPFSRT_NDREDUCE_ARGMAX: got = ipfsrt_ndfast_extrema(res, how, a, all_axes, axis, skipna); break;
    case IPFSRT_NDREDUCE_ANY:
    case IPFSRT_NDREDUCE_ALL:
    case IPFSRT_NDREDUCE_COUNT: got = ipfsrt_ndfast_tally(res, how, a, all_axes, axis, skipna); break;
    case IPFSRT_NDREDUCE_VAR:
    case IPFSRT_NDREDUCE_STD: got = ipfsrt_ndfast_moments(res, how, a, all_axes, axis, skipna); break;
    default:
        got = ipfsrt_ndfast_reduce(res, how, a, mask, all_axes, axis, skipna) ? IPFSRT_NDFAST_DONE : IPFSRT_NDFAST_NO;
    }
    if (got != IPFSRT_NDFAST_NO) ipfsrt_ndfast_hit();
    return got;
}

ipfsrt_status ipfsrt_ndreduce_one(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                                  int axis, bool skipna, const ipfsrt_ndarray *where, ipfsrt_error *err) {
    ipfsrt_ndarray res, mask;
    ipfsrt_ndarray_init(&res);
    ipfsrt_ndarray_init(&mask);
    ipfsrt_status st = check_axis(a, all_axes, &axis, err);
    if (st == IPFSRT_OK && where) st = mask_for(&mask, how, a, where, err);
    reducing r = {.how = how, .in = a->dtype, .result = reduce_result(how, a->dtype), .skipna = skipna};
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; !all_axes && d < a->ndim; d++)
        if (d != axis) shape[ndim++] = a->shape[d];
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_zeros(&res, r.result, 0, ndim, shape, err);
    if (st == IPFSRT_OK) {
        const ipfsrt_ndarray *m = where ? &mask : NULL;
        int typed = typed_reduce(&res, how, a, m, all_axes, axis, skipna);
        if (typed == IPFSRT_NDFAST_NO) reduce_walk(&r, &res, a, m, all_axes, axis);
        if (r.empty_minmax || typed == IPFSRT_NDFAST_EMPTY)
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s of an empty (or all-NaN) array or slice: it has no value",
                             how == IPFSRT_NDREDUCE_MIN ? "min" : how == IPFSRT_NDREDUCE_MAX ? "max"
                             : how == IPFSRT_NDREDUCE_ARGMIN ? "argmin" : "argmax");
    }
    ipfsrt_ndarray_free(&mask);
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

