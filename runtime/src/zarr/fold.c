/* Folds: a selection summarized (count, sum, min, max of its values other
 * than NaN and the missing values) without building it. Each unit is
 * summarized on the decoding thread that decoded it, into its own place; the
 * places are added up in unit order at the end, so that the sums come out the
 * same whatever the thread count and the order the chunks arrive in. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/reader.h"

/* One element's value. */
static double as_double(const ipfsrt_ndarray *a) {
    ipfsrt_ndvalue v;
    if (ipfsrt_ndarray_get(a, NULL, 0, &v, NULL) != IPFSRT_OK) return NAN;
    return v.kind == IPFSRT_NDVALUE_FLOAT ? v.f : v.kind == IPFSRT_NDVALUE_UINT ? (double)v.u : (double)v.i;
}

static int64_t as_int(const ipfsrt_ndarray *a) {
    ipfsrt_ndvalue v;
    if (ipfsrt_ndarray_get(a, NULL, 0, &v, NULL) != IPFSRT_OK) return 0;
    return v.kind == IPFSRT_NDVALUE_UINT ? (int64_t)v.u : v.kind == IPFSRT_NDVALUE_FLOAT ? (int64_t)v.f : v.i;
}

/* The elements of x that count: none of the skipped values (NULL: all). */
static ipfsrt_status kept(const reader *r, const ipfsrt_ndarray *x, ipfsrt_ndarray *mask, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    ipfsrt_ndarray value, ne;
    ipfsrt_ndarray_init(&value);
    ipfsrt_ndarray_init(&ne);
    for (size_t i = 0; i < r->fold->n_skip && st == IPFSRT_OK; i++) {
        double v = r->fold->skip[i];
        if (isnan(v) || (!ipfsrt_dtype_is_float(x->dtype) && v != trunc(v))) continue; /* NaN are left out anyway */
        if (ipfsrt_ndarray_full(&value, x->dtype, 0, 0, NULL, v, NULL) != IPFSRT_OK) continue; /* no element is v */
        st = ipfsrt_ndarray_binary(&ne, IPFSRT_NDOP_NE, x, &value, err);
        if (st == IPFSRT_OK && mask->data) st = ipfsrt_ndarray_binary(mask, IPFSRT_NDOP_AND, mask, &ne, err);
        else if (st == IPFSRT_OK) {
            *mask = ne;
            ipfsrt_ndarray_init(&ne);
        }
    }
    ipfsrt_ndarray_free(&value);
    ipfsrt_ndarray_free(&ne);
    return st;
}

static ipfsrt_status reduce_to(ipfsrt_ndreduce how, const ipfsrt_ndarray *x, const ipfsrt_ndarray *mask,
                               ipfsrt_ndarray *out, ipfsrt_error *err) {
    return ipfsrt_ndarray_reduce(out, how, x, NULL, 0, true, mask->data ? mask : NULL, err);
}

/* Least and greatest of the kept values, NaN when there are none. */
static ipfsrt_status extremes(const ipfsrt_ndarray *x, const ipfsrt_ndarray *mask, ipfsrt_zarr_summary *p,
                              ipfsrt_error *err) {
    ipfsrt_ndarray y, nan, r;
    ipfsrt_ndarray_init(&y);
    ipfsrt_ndarray_init(&nan);
    ipfsrt_ndarray_init(&r);
    ipfsrt_status st = ipfsrt_ndarray_full(&nan, IPFSRT_DTYPE_FLOAT64, 0, 0, NULL, NAN, err);
    if (st == IPFSRT_OK && mask->data) st = ipfsrt_ndarray_where(&y, mask, x, &nan, err); /* left out: NaN */
    if (st == IPFSRT_OK && !mask->data) st = ipfsrt_ndarray_astype(&y, x, IPFSRT_DTYPE_FLOAT64, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_reduce(&r, IPFSRT_NDREDUCE_MIN, &y, NULL, 0, true, NULL, err);
    if (st == IPFSRT_OK) p->min = as_double(&r);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_reduce(&r, IPFSRT_NDREDUCE_MAX, &y, NULL, 0, true, NULL, err);
    if (st == IPFSRT_OK) p->max = as_double(&r);
    if (st == IPFSRT_EBAD_ARGUMENT) st = IPFSRT_OK; /* nothing at all: min and max stay NaN */
    ipfsrt_ndarray_free(&y);
    ipfsrt_ndarray_free(&nan);
    ipfsrt_ndarray_free(&r);
    return st;
}

ipfsrt_status ipfsrt_zarr_fold_unit(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err) {
    if (r->fold->along) return ipfsrt_zarr_fold_along(r, k, region, err);
    if (r->fold->locate) return ipfsrt_zarr_extremes_unit(r, k, region, err);
    if (r->fold->weighted) return ipfsrt_zarr_fold_weighted(r, k, region, err);
    ipfsrt_zarr_summary *p = &r->partials[k];
    *p = (ipfsrt_zarr_summary){.integer = !ipfsrt_dtype_is_float(region->dtype), .min = NAN, .max = NAN};
    ipfsrt_ndarray mask, x, out;
    ipfsrt_ndarray_init(&mask);
    ipfsrt_ndarray_init(&x);
    ipfsrt_ndarray_init(&out);
    ipfsrt_status st = kept(r, region, &mask, err);
    /* float32 is summed in float64 (its own sums round at every chunk) */
    bool wide = region->dtype == IPFSRT_DTYPE_FLOAT32;
    if (st == IPFSRT_OK && wide) st = ipfsrt_ndarray_astype(&x, region, IPFSRT_DTYPE_FLOAT64, err);
    const ipfsrt_ndarray *values = wide ? &x : region;
    if (st == IPFSRT_OK) st = reduce_to(IPFSRT_NDREDUCE_COUNT, values, &mask, &out, err);
    if (st == IPFSRT_OK) p->count = (uint64_t)as_int(&out);
    if (st == IPFSRT_OK) st = reduce_to(IPFSRT_NDREDUCE_SUM, values, &mask, &out, err);
    if (st == IPFSRT_OK && p->integer) p->isum = as_int(&out);
    else if (st == IPFSRT_OK) p->sum = as_double(&out);
    bool extremes_wanted = r->fold->what & IPFSRT_ZARR_FOLD_EXTREMES;
    if (st == IPFSRT_OK && extremes_wanted && p->count) st = extremes(values, &mask, p, err);
    ipfsrt_ndarray_free(&mask);
    ipfsrt_ndarray_free(&x);
    ipfsrt_ndarray_free(&out);
    return st;
}

/* The units' summaries added up in unit order. */
static void combine(const reader *r, ipfsrt_zarr_summary *out) {
    for (size_t k = 0; k < r->total; k++) {
        const ipfsrt_zarr_summary *p = &r->partials[k];
        out->count += p->count;
        out->isum = (int64_t)((uint64_t)out->isum + (uint64_t)p->isum); /* wraps, as numpy's sums */
        out->sum += p->sum;
        if (p->min < out->min || isnan(out->min)) out->min = p->min;
        if (p->max > out->max || isnan(out->max)) out->max = p->max;
    }
}

void ipfsrt_zarr_fold_options_init(ipfsrt_zarr_fold_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_zarr_fold_take(const ipfsrt_zarr_fold_options *theirs, fold_spec *fold,
                                    const ipfsrt_zarr_read_options **read, ipfsrt_error *err) {
    ipfsrt_zarr_fold_options mine;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(mine, theirs, ipfsrt_zarr_fold_options_init, err);
    *fold = (fold_spec){.skip = mine.skip, .n_skip = mine.n_skip, .what = mine.what, .group_dim = -1};
    *read = mine.read;
    return st;
}

ipfsrt_status ipfsrt_zarr_summarize(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                    const ipfsrt_zarr_fold_options *fold_opts, ipfsrt_zarr_summary *out, ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sel, n, err);
    IPFSRT_NEED(out, err);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(array);
    if (m && !ipfsrt_dtype_is_int(m->dtype) && !ipfsrt_dtype_is_float(m->dtype))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: no sums of %s values", m->name, ipfsrt_dtype_name(m->dtype));
    fold_spec fold;
    const ipfsrt_zarr_read_options *opts;
    ipfsrt_status st = ipfsrt_zarr_fold_take(fold_opts, &fold, &opts, err);
    if (st != IPFSRT_OK) return st;
    fold.what &= IPFSRT_ZARR_FOLD_EXTREMES; /* sums are always taken over everything */
    reader *r;
    st = ipfsrt_zarr_reader_new(&r, array, sel, n, opts, &fold, NULL, err);
    if (st != IPFSRT_OK) return st;
    r->partials = calloc(r->total ? r->total : 1, sizeof *r->partials);
    if (!r->partials) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu chunk summaries", r->total);
    if (st == IPFSRT_OK && r->total) st = ipfsrt_zarr_reader_run(r, ipfsrt_zarr_node_store(array), err);
    if (st == IPFSRT_OK) {
        ipfsrt_dtype d = r->opts->unscale ? r->opts->unscale_dtype : m->dtype;
        *out = (ipfsrt_zarr_summary){.integer = !ipfsrt_dtype_is_float(d), .min = NAN, .max = NAN};
        combine(r, out);
    }
    ipfsrt_zarr_reader_free(r);
    return st;
}
