/* Orders along an axis: taking positions, sorting, and quantiles as numpy's
 * take, sort(kind="stable"), argsort(kind="stable"), quantile and
 * nanquantile. Each works lane by lane: the axis moved last in a contiguous
 * copy, one lane of values copied out at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

ipfsrt_status ipfsrt_ndarray_take(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int64_t *indices, size_t n,
                                  int axis, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    if (axis < 0) axis += a->ndim;
    if (axis < 0 || axis >= a->ndim) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis %d is out of bounds", axis);
    size_t len = a->shape[axis], shape[IPFSRT_NDARRAY_MAX_DIMS];
    memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
    shape[axis] = n;
    ipfsrt_ndarray res, from, to;
    ipfsrt_ndarray_init(&res);
    ipfsrt_ndarray_init(&from);
    ipfsrt_ndarray_init(&to);
    ipfsrt_status st = ipfsrt_ndarray_empty(&res, a->dtype, a->itemsize, a->ndim, shape, err);
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        int64_t k = indices[i] < 0 ? indices[i] + (int64_t)len : indices[i];
        if (k < 0 || k >= (int64_t)len) {
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "index %lld is out of bounds for an axis of %zu",
                             (long long)indices[i], len);
            break;
        }
        ipfsrt_ndslice part[IPFSRT_NDARRAY_MAX_DIMS] = {{0}};
        for (int d = 0; d < a->ndim; d++) part[d] = (ipfsrt_ndslice){.step = 1};
        part[axis] = (ipfsrt_ndslice){.has_start = true, .has_stop = true, .start = k, .stop = k + 1, .step = 1};
        st = ipfsrt_ndarray_slice(&from, a, part, a->ndim, err);
        part[axis].start = (int64_t)i, part[axis].stop = (int64_t)i + 1;
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_slice(&to, &res, part, a->ndim, err);
        if (st == IPFSRT_OK) st = ipfsrt_ndarray_assign(&to, &from, err);
    }
    ipfsrt_ndarray_free(&from);
    ipfsrt_ndarray_free(&to);
    if (st == IPFSRT_OK) {
        ipfsrt_ndarray_free(out);
        *out = res;
    } else {
        ipfsrt_ndarray_free(&res);
    }
    return st;
}

ipfsrt_status ipfsrt_ndlanes_copy(ipfsrt_ndarray *lanes, const ipfsrt_ndarray *a, const bool *reduced, size_t *len,
                                size_t *shape, int *kept, ipfsrt_error *err) {
    int order[IPFSRT_NDARRAY_MAX_DIMS], k = 0;
    *len = 1;
    for (int d = 0; d < a->ndim; d++)
        if (!reduced[d]) shape[k] = a->shape[d], order[k++] = d;
    *kept = k;
    for (int d = 0; d < a->ndim; d++)
        if (reduced[d]) order[k++] = d, *len *= a->shape[d];
    ipfsrt_ndarray t;
    ipfsrt_ndarray_init(&t);
    ipfsrt_status st = ipfsrt_ndarray_transpose(&t, a, order, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_copy(lanes, &t, err);
    ipfsrt_ndarray_free(&t);
    return st;
}

size_t ipfsrt_ndlane_values(const ipfsrt_ndarray *lanes, size_t l, size_t len, double *out, bool *nan) {
    const unsigned char *p = lanes->data + l * len * lanes->itemsize;
    size_t m = 0;
    *nan = false;
    for (size_t i = 0; i < len; i++) {
        double v = ipfsrt_ndload_double(lanes->dtype, p + i * lanes->itemsize);
        if (isnan(v)) *nan = true;
        else out[m++] = v;
    }
    return m;
}

ipfsrt_status ipfsrt_ndaxes_mark(const ipfsrt_ndarray *a, const int *axes, int n, bool *reduced, ipfsrt_error *err) {
    memset(reduced, 0, IPFSRT_NDARRAY_MAX_DIMS * sizeof *reduced);
    for (int i = 0; i < (axes ? n : a->ndim); i++) {
        int ax = !axes ? i : axes[i] < 0 ? axes[i] + a->ndim : axes[i];
        if (ax < 0 || ax >= a->ndim || reduced[ax])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axis %d is out of bounds or given twice", axes ? axes[i] : i);
        reduced[ax] = true;
    }
    return IPFSRT_OK;
}

/* ---------------------------------------------------------------- sorting */

/* A value and where it was: ties ordered by position make qsort stable.
 * 64-bit integers compare as themselves (a double would merge neighbours). */
typedef struct keyed {
    double key;
    int64_t ikey;
    size_t at;
} keyed;

static int compare_float_keys(const void *pa, const void *pb) {
    const keyed *a = pa, *b = pb;
    bool na = isnan(a->key), nb = isnan(b->key);
    if (na || nb) return na != nb ? (na ? 1 : -1) : (a->at > b->at) - (a->at < b->at); /* NaN last, as numpy */
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

static int compare_int_keys(const void *pa, const void *pb) {
    const keyed *a = pa, *b = pb;
    if (a->ikey != b->ikey) return a->ikey < b->ikey ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

static int compare_uint_keys(const void *pa, const void *pb) {
    const keyed *a = pa, *b = pb;
    if ((uint64_t)a->ikey != (uint64_t)b->ikey) return (uint64_t)a->ikey < (uint64_t)b->ikey ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* One lane of n values at p sorted into k (each value and its position). */
static void sort_lane(ipfsrt_dtype d, const unsigned char *p, size_t itemsize, size_t n, keyed *k) {
    ipfsrt_ndkind kind = ipfsrt_ndkind_of(d);
    for (size_t i = 0; i < n; i++) {
        k[i].at = i;
        if (kind == IPFSRT_NDKIND_FLOAT) k[i].key = ipfsrt_ndload_double(d, p + i * itemsize);
        else k[i].ikey = (int64_t)ipfsrt_ndload_bits(d, p + i * itemsize);
    }
    int (*cmp)(const void *, const void *) = kind == IPFSRT_NDKIND_FLOAT ? compare_float_keys
                                             : kind == IPFSRT_NDKIND_UINT ? compare_uint_keys
                                                                          : compare_int_keys;
    qsort(k, n, sizeof *k, cmp);
}

/* The axis of x moved back from last to where it was (a view of res into out). */
static ipfsrt_status axis_back(ipfsrt_ndarray *out, ipfsrt_ndarray *res, int ndim, int axis, ipfsrt_error *err) {
    int order[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0, k = 0; d < ndim; d++) order[d] = d == axis ? ndim - 1 : k++;
    ipfsrt_ndarray back;
    ipfsrt_ndarray_init(&back);
    ipfsrt_status st = ipfsrt_ndarray_transpose(&back, res, order, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_copy(out, &back, err);
    ipfsrt_ndarray_free(&back);
    return st;
}

ipfsrt_status ipfsrt_ndarray_sort(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool positions,
                                  ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    ipfsrt_ndkind kind = ipfsrt_ndkind_of(a->dtype);
    if (kind == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no sort of %s", ipfsrt_dtype_name(a->dtype));
    if (a->ndim == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a 0-d array has no axis to sort along");
    if (axis < 0) axis += a->ndim;
    bool reduced[IPFSRT_NDARRAY_MAX_DIMS];
    int one[1] = {axis}, kept = 0;
    ipfsrt_status st = ipfsrt_ndaxes_mark(a, one, 1, reduced, err);
    ipfsrt_ndarray lanes, res;
    ipfsrt_ndarray_init(&lanes);
    ipfsrt_ndarray_init(&res);
    size_t len = 0, shape[IPFSRT_NDARRAY_MAX_DIMS];
    if (st == IPFSRT_OK) st = ipfsrt_ndlanes_copy(&lanes, a, reduced, &len, shape, &kept, err);
    shape[kept] = len;
    ipfsrt_dtype to = positions ? IPFSRT_DTYPE_INT64 : a->dtype;
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_empty(&res, to, positions ? 8 : a->itemsize, a->ndim, shape, err);
    keyed *k = NULL;
    if (st == IPFSRT_OK && !(k = malloc((len ? len : 1) * sizeof *k)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a lane of %zu values", len);
    size_t n_lanes = st == IPFSRT_OK && len ? ipfsrt_ndarray_size(&lanes) / len : 0;
    for (size_t l = 0; l < n_lanes; l++) {
        const unsigned char *p = lanes.data + l * len * lanes.itemsize;
        unsigned char *q = res.data + l * len * res.itemsize;
        sort_lane(a->dtype, p, lanes.itemsize, len, k);
        for (size_t i = 0; i < len; i++) {
            if (positions) *(int64_t *)(void *)(q + i * 8) = (int64_t)k[i].at;
            else memcpy(q + i * res.itemsize, p + k[i].at * lanes.itemsize, res.itemsize);
        }
    }
    free(k);
    if (st == IPFSRT_OK) st = axis_back(out, &res, a->ndim, axis, err);
    ipfsrt_ndarray_free(&lanes);
    ipfsrt_ndarray_free(&res);
    return st;
}

/* -------------------------------------------------------------- quantiles */

static const char *const METHOD_NAMES[] = {
    "linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased", "normal_unbiased"};

const char *ipfsrt_quantile_method_name(ipfsrt_quantile_method m) {
    return (unsigned)m < sizeof METHOD_NAMES / sizeof METHOD_NAMES[0] ? METHOD_NAMES[m] : NULL;
}

bool ipfsrt_quantile_method_discrete(ipfsrt_quantile_method m) {
    return m == IPFSRT_QUANTILE_LOWER || m == IPFSRT_QUANTILE_HIGHER || m == IPFSRT_QUANTILE_NEAREST ||
           m == IPFSRT_QUANTILE_INVERTED_CDF || m == IPFSRT_QUANTILE_CLOSEST_OBSERVATION;
}

/* numpy's _compute_virtual_index, in its order of operations. */
static double virtual_index(double n, double q, double alpha, double beta) {
    return n * q + (alpha + q * (1 - alpha - beta)) - 1;
}

/* Where a discrete method's index falls: floor, or the next where taken. */
static size_t boundary(double index, bool previous_when) {
    double previous = floor(index);
    double at = previous_when ? previous : previous + 1;
    return at < 0 ? 0 : (size_t)at;
}

/* The position (discrete methods) or virtual index (the others) of q among m
 * sorted values, as numpy's get_virtual_index. */
static double position_of(ipfsrt_quantile_method method, size_t m, double q) {
    double n = (double)m, v;
    switch (method) {
    case IPFSRT_QUANTILE_LOWER: return floor((n - 1) * q);
    case IPFSRT_QUANTILE_HIGHER: return ceil((n - 1) * q);
    case IPFSRT_QUANTILE_NEAREST: return nearbyint((n - 1) * q);
    case IPFSRT_QUANTILE_MIDPOINT: return 0.5 * (floor((n - 1) * q) + ceil((n - 1) * q));
    case IPFSRT_QUANTILE_INVERTED_CDF:
        v = n * q - 1;
        return (double)boundary(v, v - floor(v) == 0);
    case IPFSRT_QUANTILE_CLOSEST_OBSERVATION:
        v = n * q - 1 - 0.5;
        return (double)boundary(v, v - floor(v) == 0 && fmod(floor(v), 2) == 0);
    case IPFSRT_QUANTILE_AVERAGED_INVERTED_CDF:
    case IPFSRT_QUANTILE_INTERPOLATED_INVERTED_CDF: return n * q - 1;
    case IPFSRT_QUANTILE_HAZEN: return virtual_index(n, q, 0.5, 0.5);
    case IPFSRT_QUANTILE_WEIBULL: return virtual_index(n, q, 0, 0);
    case IPFSRT_QUANTILE_MEDIAN_UNBIASED: return virtual_index(n, q, 1 / 3.0, 1 / 3.0);
    case IPFSRT_QUANTILE_NORMAL_UNBIASED: return virtual_index(n, q, 3 / 8.0, 3 / 8.0);
    default: return (n - 1) * q;
    }
}

/* The quantile q of the m values in v (reordered): the positions it needs
 * found by selection (a sort per lane would cost most of the time). */
static double quantile_of(double *v, size_t m, double q, ipfsrt_quantile_method method) {
    if (m == 0) return NAN;
    double at = position_of(method, m, q);
    if (ipfsrt_quantile_method_discrete(method)) {
        size_t k = at >= (double)(m - 1) ? m - 1 : (size_t)at;
        ipfsrt_ndselect_kth(v, m, k);
        return v[k];
    }
    size_t previous = (size_t)(at < 0 ? 0 : floor(at));
    bool one = at >= (double)(m - 1) || at < 0;
    if (at >= (double)(m - 1)) previous = m - 1;
    double gamma = at - (double)previous;
    if (method == IPFSRT_QUANTILE_AVERAGED_INVERTED_CDF) gamma = gamma == 0 ? 0.5 : 1;
    ipfsrt_ndselect_kth(v, m, previous);
    double a = v[previous], b = a;
    if (!one) { /* the next in order: the least of those after the k-th */
        b = v[previous + 1];
        for (size_t i = previous + 2; i < m; i++)
            if (v[i] < b) b = v[i];
    }
    double diff = b - a;
    return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma; /* numpy's _lerp */
}

typedef struct quantile_job {
    const double *q;
    size_t nq;
    ipfsrt_quantile_method method;
    bool skipna, keep_type;
    const ipfsrt_ndarray *lanes;
    ipfsrt_ndarray *out;
    size_t len, lane_count;
} quantile_job;

/* One lane's quantiles into out at stride (one result per q); scratch holds
 * the lane as doubles, then (integers kept) as keyed values sorted exactly. */
static void quantile_lane(const quantile_job *j, size_t l, double *scratch) {
    const ipfsrt_ndarray *lanes = j->lanes;
    size_t len = j->len;
    const unsigned char *p = lanes->data + l * len * lanes->itemsize;
    if (j->keep_type && !ipfsrt_dtype_is_float(lanes->dtype))
        sort_lane(lanes->dtype, p, lanes->itemsize, len, (keyed *)(void *)(scratch + len));
    bool nan;
    size_t m = ipfsrt_ndlane_values(lanes, l, len, scratch, &nan);
    for (size_t i = 0; i < j->nq; i++) {
        unsigned char *o = j->out->data + (i * j->lane_count + l) * j->out->itemsize;
        if (j->keep_type && !ipfsrt_dtype_is_float(j->out->dtype)) {
            /* integers stay exact: the value at the position, copied */
            double at = m ? position_of(j->method, m, j->q[i]) : 0;
            size_t k = at >= (double)(m - 1) ? m - 1 : (size_t)at;
            const keyed *sorted = (const keyed *)(const void *)(scratch + len);
            memcpy(o, p + sorted[k].at * lanes->itemsize, j->out->itemsize);
            continue;
        }
        double r = nan && !j->skipna ? NAN : quantile_of(scratch, m, j->q[i], j->method);
        ipfsrt_ndstore_double(j->out->dtype, o, r);
    }
}

/* Lanes [first, last) of a quantile job, with scratch of their own. */
static ipfsrt_status quantile_lanes(void *user, size_t first, size_t last, ipfsrt_error *err) {
    const quantile_job *j = user;
    double *scratch = malloc((j->len ? j->len : 1) * (sizeof(double) + sizeof(keyed)));
    if (!scratch) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a lane of %zu values", j->len);
    for (size_t l = first; l < last; l++) quantile_lane(j, l, scratch);
    free(scratch);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_quantile(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const double *q, size_t nq,
                                      const int *axes, int n, ipfsrt_quantile_method method, bool skipna,
                                      ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    IPFSRT_NEED(q, err);
    ipfsrt_ndkind kind = ipfsrt_ndkind_of(a->dtype);
    if (kind == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no quantile of %s", ipfsrt_dtype_name(a->dtype));
    if (!ipfsrt_quantile_method_name(method)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no such quantile method");
    for (size_t i = 0; i < nq; i++)
        if (!(q[i] >= 0 && q[i] <= 1)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "quantiles must be in [0, 1], not %g", q[i]);
    bool reduced[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_status st = ipfsrt_ndaxes_mark(a, axes, n, reduced, err);
    ipfsrt_ndarray lanes, res;
    ipfsrt_ndarray_init(&lanes);
    ipfsrt_ndarray_init(&res);
    size_t len = 0, shape[IPFSRT_NDARRAY_MAX_DIMS + 1];
    int kept = 0;
    if (st == IPFSRT_OK) st = ipfsrt_ndlanes_copy(&lanes, a, reduced, &len, shape + 1, &kept, err);
    if (st == IPFSRT_OK && len == 0) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no quantile of an empty axis");
    shape[0] = nq;
    bool keep_type = ipfsrt_quantile_method_discrete(method);
    ipfsrt_dtype to = keep_type ? a->dtype : IPFSRT_DTYPE_FLOAT64;
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_zeros(&res, to, 0, kept + 1, shape, err);
    size_t lane_count = st == IPFSRT_OK && nq ? ipfsrt_ndarray_size(&res) / nq : 0;
    quantile_job job = {q, nq, method, skipna, keep_type && kind != IPFSRT_NDKIND_FLOAT, &lanes, &res, len, lane_count};
    if (st == IPFSRT_OK && lane_count) st = ipfsrt_ndlanes_run(lane_count, len, quantile_lanes, &job, err);
    if (st == IPFSRT_OK) {
        ipfsrt_ndarray_free(out);
        *out = res;
        ipfsrt_ndarray_init(&res);
    }
    ipfsrt_ndarray_free(&lanes);
    ipfsrt_ndarray_free(&res);
    return st;
}
