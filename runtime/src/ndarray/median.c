/* Medians along axes, as numpy's median and nanmedian: the reduced axes are
 * moved last and merged, each lane copied out as doubles (NaN dropped, or met
 * and the result NaN), and the middle value (or the two middle ones) found by
 * selection. The two middles are averaged as numpy's mean of them: added in
 * the result's type, then halved. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

static int compare_doubles(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static void swap(double *v, size_t i, size_t j) {
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
}

/* Places the k-th smallest of v[0..n) at v[k], the smaller ones before it.
 * Quickselect on medians of three; after 2 log2(n) + 8 rounds (only crafted
 * orders get there) the rest is sorted, so time stays O(n log n). */
void ipfsrt_ndselect_kth(double *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    int rounds = 8;
    for (size_t m = n; m > 1; m >>= 1) rounds += 2;
    while (lo < hi) {
        if (rounds-- == 0) {
            qsort(v + lo, hi - lo + 1, sizeof *v, compare_doubles);
            return;
        }
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo]) swap(v, mid, lo);
        if (v[hi] < v[lo]) swap(v, hi, lo);
        if (v[hi] < v[mid]) swap(v, hi, mid);
        double pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (pivot < v[j]) j--;
            if (i <= j) {
                swap(v, i, j);
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return;
    }
}

/* The median of the m values in v (reordered), in the result's type. */
static double middle_of(double *v, size_t m, ipfsrt_dtype result) {
    if (m == 0) return NAN;
    size_t k = m / 2;
    ipfsrt_ndselect_kth(v, m, k);
    if (m % 2) return v[k];
    double lower = v[0];
    for (size_t i = 1; i < k; i++)
        if (v[i] > lower) lower = v[i];
    if (result == IPFSRT_DTYPE_FLOAT32) return (double)((float)lower + (float)v[k]) / 2.0;
    return (lower + v[k]) / 2.0;
}

typedef struct median_job {
    const ipfsrt_ndarray *x;
    size_t len;
    bool skipna;
    ipfsrt_ndarray *out;
} median_job;

/* Lanes [first, last) of x (C order, contiguous, the last axis of length
 * len) into out, with scratch of their own. */
static ipfsrt_status median_lanes(void *user, size_t first, size_t last, ipfsrt_error *err) {
    const median_job *j = user;
    const ipfsrt_ndarray *x = j->x;
    size_t len = j->len;
    double *scratch = malloc((len ? len : 1) * sizeof *scratch);
    if (!scratch) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a lane of %zu values", len);
    for (size_t l = first; l < last; l++) {
        bool nan;
        size_t m = ipfsrt_ndlane_values(x, l, len, scratch, &nan);
        double r = nan && !j->skipna ? NAN : middle_of(scratch, m, j->out->dtype);
        ipfsrt_ndstore_double(j->out->dtype, j->out->data + l * j->out->itemsize, r);
    }
    free(scratch);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_median(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int *axes, int n,
                                    bool skipna, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    ipfsrt_ndkind kind = ipfsrt_ndkind_of(a->dtype);
    if (kind == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no median of %s", ipfsrt_dtype_name(a->dtype));
    bool reduced[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_status st = ipfsrt_ndaxes_mark(a, axes, n, reduced, err);
    ipfsrt_dtype result = a->dtype == IPFSRT_DTYPE_FLOAT32 ? IPFSRT_DTYPE_FLOAT32 : IPFSRT_DTYPE_FLOAT64;
    ipfsrt_ndarray lanes, res;
    ipfsrt_ndarray_init(&lanes);
    ipfsrt_ndarray_init(&res);
    size_t len = 0, shape[IPFSRT_NDARRAY_MAX_DIMS];
    int kept = 0;
    if (st == IPFSRT_OK) st = ipfsrt_ndlanes_copy(&lanes, a, reduced, &len, shape, &kept, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_zeros(&res, result, 0, kept, shape, err);
    median_job job = {&lanes, len, skipna, &res};
    size_t count = st == IPFSRT_OK ? ipfsrt_ndarray_size(&res) : 0;
    if (st == IPFSRT_OK && count) st = ipfsrt_ndlanes_run(count, len, median_lanes, &job, err);
    if (st == IPFSRT_OK) {
        ipfsrt_ndarray_free(out);
        *out = res;
        ipfsrt_ndarray_init(&res);
    }
    ipfsrt_ndarray_free(&lanes);
    ipfsrt_ndarray_free(&res);
    return st;
}
