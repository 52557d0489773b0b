/* Views: new shapes and strides over the same buffer, never a copy (reshape of
 * a non-contiguous array excepted). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

/* dst becomes a view of src with src's fields (the buffer gains a reference). */
static void share(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_ndarray *tmp) {
    *tmp = *src;
    if (tmp->buffer) tmp->buffer->refs++;
    (void)dst;
}

static void install(ipfsrt_ndarray *dst, ipfsrt_ndarray *view) {
    ipfsrt_ndarray_free(dst); /* after the view took its reference: dst may be src */
    *dst = *view;
}

/* Normalizes a slice of a dimension of length n as Python's slice.indices. */
static ipfsrt_status slice_range(const ipfsrt_ndslice *s, int64_t n, int64_t *start, int64_t *len,
                                 int dim, ipfsrt_error *err) {
    if (s->step == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "slice step of 0 (axis %d)", dim);
    int64_t lo = s->step > 0 ? 0 : -1, hi = s->step > 0 ? n : n - 1;
    int64_t a = s->has_start ? s->start : (s->step > 0 ? 0 : n - 1);
    int64_t b = s->has_stop ? s->stop : (s->step > 0 ? n : -1);
    if (s->has_start && a < 0) a += n;
    if (s->has_stop && b < 0) b += n;
    a = a < lo ? lo : a > hi ? hi : a;
    b = b < lo ? lo : b > hi ? hi : b;
    int64_t span = s->step > 0 ? b - a : a - b;
    uint64_t step = s->step > 0 ? (uint64_t)s->step : 0 - (uint64_t)s->step; /* INT64_MIN too */
    *start = a;
    *len = span <= 0 ? 0 : (int64_t)(((uint64_t)span - 1) / step + 1);
    return IPFSRT_OK;
}

static ipfsrt_status index_of(int64_t i, size_t n, int dim, int64_t *out, ipfsrt_error *err) {
    int64_t k = i < 0 ? i + (int64_t)n : i;
    if (k < 0 || k >= (int64_t)n)
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "index %lld is out of bounds for axis %d with size %zu",
                           (long long)i, dim, n);
    *out = k;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndslice_resolve(const ipfsrt_ndslice *s, size_t n, int dim, int64_t *start, int64_t *count,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(start, err);
    IPFSRT_NEED(count, err);
    *count = 1;
    return s->is_index ? index_of(s->index, n, dim, start, err) : slice_range(s, (int64_t)n, start, count, dim, err);
}

ipfsrt_status ipfsrt_ndarray_slice(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                   const ipfsrt_ndslice *per_dim, int n, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    IPFSRT_NEED_N(per_dim, n, err);
    if (n > src->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%d indices for an array of %d dimensions", n, src->ndim);
    ipfsrt_ndarray v = *src;
    v.ndim = 0;
    unsigned char *p = src->data;
    bool empty = ipfsrt_ndarray_size(src) == 0; /* nothing to point at: the data pointer stays */
    for (int d = 0; d < src->ndim; d++) {
        ipfsrt_ndslice whole = {.step = 1};
        const ipfsrt_ndslice *s = d < n ? &per_dim[d] : &whole;
        int64_t start = 0, len = 0;
        ipfsrt_status st = ipfsrt_ndslice_resolve(s, src->shape[d], d, &start, &len, err);
        if (st != IPFSRT_OK) return st;
        if (!empty && (s->is_index || len > 0)) p += start * src->strides[d];
        if (s->is_index) continue; /* the dimension goes */
        v.shape[v.ndim] = (size_t)len;
        /* a step as long as the dimension or longer takes one element, whose stride is never used */
        v.strides[v.ndim++] = len > 1 && !empty ? src->strides[d] * s->step : src->strides[d];
    }
    v.data = p;
    if (v.buffer) v.buffer->refs++;
    install(dst, &v);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_transpose(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                       const int *axes, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    ipfsrt_ndarray v;
    bool seen[IPFSRT_NDARRAY_MAX_DIMS] = {false};
    for (int d = 0; d < src->ndim; d++) {
        int from = axes ? axes[d] : src->ndim - 1 - d;
        if (from < 0) from += src->ndim;
        if (from < 0 || from >= src->ndim || seen[from])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "axes are not a permutation of the %d axes",
                               src->ndim);
        seen[from] = true;
    }
    share(dst, src, &v);
    for (int d = 0; d < src->ndim; d++) {
        int from = axes ? (axes[d] < 0 ? axes[d] + src->ndim : axes[d]) : src->ndim - 1 - d;
        v.shape[d] = src->shape[from];
        v.strides[d] = src->strides[from];
    }
    install(dst, &v);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_reshape(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                     const int64_t *shape, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    IPFSRT_NEED_N(shape, ndim, err);
    if (ndim < 0 || ndim > IPFSRT_NDARRAY_MAX_DIMS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%d dimensions (at most %d)", ndim, IPFSRT_NDARRAY_MAX_DIMS);
    size_t total = ipfsrt_ndarray_size(src), known = 1, bytes;
    int infer = -1;
    size_t dims[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == -1 && infer < 0) {
            infer = d;
            dims[d] = 1;
            continue;
        }
        if (shape[d] < 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "bad size %lld in a shape", (long long)shape[d]);
        dims[d] = (size_t)shape[d];
    }
    if (ipfsrt_ndarray_shape_bytes(ndim, dims, src->itemsize, &bytes, err) != IPFSRT_OK) return IPFSRT_ETOO_LARGE;
    for (int d = 0; d < ndim; d++) known *= dims[d]; /* fits: shape_bytes checked it */
    if (infer >= 0) dims[infer] = known ? total / known : 0;
    size_t n = 1;
    for (int d = 0; d < ndim; d++) n *= dims[d];
    if (n != total || (infer >= 0 && known == 0))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "cannot reshape an array of %zu elements to that shape", total);
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = IPFSRT_OK;
    if (ipfsrt_ndarray_is_contiguous(src)) share(dst, src, &v);
    else st = ipfsrt_ndarray_copy(&v, src, err);
    if (st != IPFSRT_OK) return st;
    v.ndim = ndim;
    memcpy(v.shape, dims, (size_t)ndim * sizeof *dims);
    ptrdiff_t s = (ptrdiff_t)v.itemsize;
    for (int d = ndim - 1; d >= 0; d--) {
        v.strides[d] = s;
        s *= (ptrdiff_t)(dims[d] ? dims[d] : 1);
    }
    install(dst, &v);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_squeeze(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    (void)err;
    ipfsrt_ndarray v;
    share(dst, src, &v);
    v.ndim = 0;
    for (int d = 0; d < src->ndim; d++) {
        if (src->shape[d] == 1) continue;
        v.shape[v.ndim] = src->shape[d];
        v.strides[v.ndim++] = src->strides[d];
    }
    install(dst, &v);
    return IPFSRT_OK;
}

static void shape_string(int n, const size_t *shape, char *out, size_t size) {
    size_t used = (size_t)snprintf(out, size, "(");
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%zu", i ? ", " : "", shape[i]);
    if (used < size) snprintf(out + used, size - used, n == 1 ? ",)" : ")");
}

ipfsrt_status ipfsrt_ndarray_broadcast_shape(int na, const size_t *a, int nb, const size_t *b,
                                             int *ndim, size_t *shape, ipfsrt_error *err) {
    IPFSRT_NEED_N(a, na, err);
    IPFSRT_NEED_N(b, nb, err);
    IPFSRT_NEED(ndim, err);
    IPFSRT_NEED(shape, err);
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        size_t x = i < n - na ? 1 : a[i - (n - na)];
        size_t y = i < n - nb ? 1 : b[i - (n - nb)];
        if (x != y && x != 1 && y != 1) {
            char sa[256], sb[256];
            shape_string(na, a, sa, sizeof sa);
            shape_string(nb, b, sb, sizeof sb);
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                               "operands could not be broadcast together with shapes %s %s", sa, sb);
        }
        shape[i] = x == 1 ? y : x;
    }
    *ndim = n;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_broadcast_to(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                          const size_t *shape, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    IPFSRT_NEED_N(shape, ndim, err);
    int n;
    size_t out[IPFSRT_NDARRAY_MAX_DIMS];
    if (ndim < src->ndim || ndim > IPFSRT_NDARRAY_MAX_DIMS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "cannot broadcast %d dimensions to %d", src->ndim, ndim);
    ipfsrt_status st = ipfsrt_ndarray_broadcast_shape(src->ndim, src->shape, ndim, shape, &n, out, err);
    if (st != IPFSRT_OK) return st;
    if (ndim && memcmp(out, shape, (size_t)ndim * sizeof *shape) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "cannot broadcast to a smaller shape");
    size_t bytes; /* a view no allocation could hold is refused, as numpy refuses it ("array is too big") */
    st = ipfsrt_ndarray_shape_bytes(ndim, shape, src->itemsize, &bytes, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ndarray v;
    share(dst, src, &v);
    v.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        int from = d - (ndim - src->ndim);
        bool stretched = from < 0 || src->shape[from] != shape[d];
        v.shape[d] = shape[d];
        v.strides[d] = stretched ? 0 : src->strides[from]; /* a repeated dimension reads in place */
    }
    install(dst, &v);
    return IPFSRT_OK;
}
