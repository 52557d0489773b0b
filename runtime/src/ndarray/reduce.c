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
    /* along one axis: its length and stride in the input */
    size_t len;
    ptrdiff_t stride;
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
    take(r, &r->all, p[0]);
}

static void deviation_all(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    take_deviation(r, &r->all, p[0]);
}

static void reduce_axis_one(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    acc a = {0};
    const unsigned char *q = p[1];
    for (size_t i = 0; i < r->len; i++, q += r->stride) take(r, &a, q);
    if (two_pass(r->how) && a.n) {
        a.mean = a.f / (double)a.n;
        q = p[1];
        for (size_t i = 0; i < r->len; i++, q += r->stride) take_deviation(r, &a, q);
    }
    give(r, &a, p[0]);
}

/* Everything at once (twice for var and std), or each output's line along axis. */
static void reduce_walk(reducing *r, ipfsrt_ndarray *res, const ipfsrt_ndarray *a, bool all_axes, int axis) {
    ipfsrt_ndwalk w;
    if (all_axes) {
        ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
        ipfsrt_ndwalk_add(&w, a);
        w.elem = take_all;
        w.ctx = r;
        ipfsrt_ndwalk_run(&w);
        if (two_pass(r->how) && r->all.n) {
            r->all.mean = r->all.f / (double)r->all.n;
            ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
            ipfsrt_ndwalk_add(&w, a);
            w.elem = deviation_all;
            w.ctx = r;
            ipfsrt_ndwalk_run(&w);
        }
        give(r, &r->all, res->data);
        return;
    }
    r->len = a->shape[axis];
    r->stride = a->strides[axis];
    ipfsrt_ndwalk_init(&w, res->ndim, res->shape);
    ipfsrt_ndwalk_add(&w, res);
    w.n = 2;
    w.p[1] = a->data;
    for (int d = 0, k = 0; d < a->ndim; d++)
        if (d != axis) w.strides[1][k++] = a->strides[d];
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

ipfsrt_status ipfsrt_ndarray_reduce(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                                    bool all_axes, int axis, bool skipna, ipfsrt_error *err) {
    if (ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no reductions of %s", ipfsrt_dtype_name(a->dtype));
    if (!all_axes && axis < 0) axis += a->ndim;
    if (!all_axes && (axis < 0 || axis >= a->ndim))
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "axis %d is out of bounds for an array of %d dimensions",
                           axis < 0 ? axis - a->ndim : axis, a->ndim);
    reducing r = {.how = how, .in = a->dtype, .result = reduce_result(how, a->dtype), .skipna = skipna};
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; !all_axes && d < a->ndim; d++)
        if (d != axis) shape[ndim++] = a->shape[d];
    ipfsrt_status st = ipfsrt_ndarray_new_zeros(&res, r.result, 0, ndim, shape, err);
    if (st != IPFSRT_OK) return st;
    if (!ipfsrt_ndfast_reduce(&res, how, a, all_axes, axis, skipna)) reduce_walk(&r, &res, a, all_axes, axis);
    if (r.empty_minmax) {
        ipfsrt_ndarray_free(&res);
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "%s of an empty (or all-NaN) array or slice: it has no value",
                           how == IPFSRT_NDREDUCE_MIN ? "min" : how == IPFSRT_NDREDUCE_MAX ? "max"
                           : how == IPFSRT_NDREDUCE_ARGMIN ? "argmin" : "argmax");
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

