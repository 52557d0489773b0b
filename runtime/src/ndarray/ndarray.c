/* Arrays: buffers, creation, copies, and walking the elements of a view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

void ipfsrt_ndarray_init(ipfsrt_ndarray *a) {
    IPFSRT_NEED_OR(a, );
    memset(a, 0, sizeof *a);
}

void ipfsrt_ndarray_free(ipfsrt_ndarray *a) {
    IPFSRT_NEED_OR(a, );
    ipfsrt_ndbuffer_unref(a->buffer);
    memset(a, 0, sizeof *a);
}

size_t ipfsrt_ndarray_size(const ipfsrt_ndarray *a) {
    IPFSRT_NEED_OR(a, 0);
    size_t n = 1;
    for (int i = 0; i < a->ndim; i++) n *= a->shape[i]; /* checked when the shape was made */
    return n;
}

bool ipfsrt_ndarray_is_contiguous(const ipfsrt_ndarray *a) {
    IPFSRT_NEED_OR(a, false);
    ptrdiff_t want = (ptrdiff_t)a->itemsize;
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] != 1 && a->strides[i] != want) return false;
        want *= (ptrdiff_t)a->shape[i];
    }
    return true;
}

/* Bytes for shape in dtype, or an error before anything is allocated. As
 * numpy does, the dimensions other than 0 must fit together even when a 0
 * makes the array empty: every stride of every view then fits a ptrdiff_t. */
ipfsrt_status ipfsrt_ndarray_shape_bytes(int ndim, const size_t *shape, size_t itemsize, size_t *bytes,
                                         ipfsrt_error *err) {
    if (ndim < 0 || ndim > IPFSRT_NDARRAY_MAX_DIMS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%d dimensions (at most %d)", ndim,
                           IPFSRT_NDARRAY_MAX_DIMS);
    size_t n = itemsize;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) {
            empty = true;
            continue;
        }
        if (n > (size_t)PTRDIFF_MAX / shape[i])
            return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "an array of this shape does not fit in memory");
        n *= shape[i];
    }
    *bytes = empty ? 0 : n;
    return IPFSRT_OK;
}

static void c_order_strides(ipfsrt_ndarray *a) {
    ptrdiff_t s = (ptrdiff_t)a->itemsize;
    for (int i = a->ndim - 1; i >= 0; i--) {
        a->strides[i] = s;
        s *= (ptrdiff_t)(a->shape[i] ? a->shape[i] : 1);
    }
}

ipfsrt_status ipfsrt_ndarray_zeros(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize,
                                       int ndim, const size_t *shape, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED_N(shape, ndim, err);
    return ipfsrt_ndarray_new_buffer(a, dtype, itemsize, ndim, shape, true, err);
}

ipfsrt_status ipfsrt_ndarray_empty(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize,
                                       int ndim, const size_t *shape, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED_N(shape, ndim, err);
    return ipfsrt_ndarray_new_buffer(a, dtype, itemsize, ndim, shape, false, err);
}

ipfsrt_status ipfsrt_ndarray_new_buffer(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                        const size_t *shape, bool zeroed, ipfsrt_error *err) {
    if (dtype >= IPFSRT_DTYPE_COUNT) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no such dtype");
    if (dtype != IPFSRT_DTYPE_BYTES) itemsize = ipfsrt_dtype_size(dtype);
    if (itemsize == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "bytes of length 0");
    size_t bytes = 0;
    ipfsrt_status st = ipfsrt_ndarray_shape_bytes(ndim, shape, itemsize, &bytes, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ndbuffer *b = ipfsrt_ndbuffer_new(bytes, zeroed);
    if (!b) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu bytes", bytes);
    ipfsrt_ndarray_free(a);
    a->buffer = b;
    a->data = b->data;
    a->dtype = dtype;
    a->itemsize = itemsize;
    a->ndim = ndim;
    if (ndim) memcpy(a->shape, shape, (size_t)ndim * sizeof *shape); /* 0-d: shape may be NULL */
    c_order_strides(a);
    return IPFSRT_OK;
}

typedef struct filling {
    ipfsrt_dtype dtype;
    double value;
} filling;

static void fill_one(void *user, unsigned char *p) {
    const filling *f = user;
    ipfsrt_ndstore_double(f->dtype, p, f->value);
}

ipfsrt_status ipfsrt_ndarray_full(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                      const size_t *shape, double value, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED_N(shape, ndim, err);
    ipfsrt_status st = ipfsrt_ndcheck_double(dtype, value, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_zeros(a, dtype, itemsize, ndim, shape, err);
    if (st != IPFSRT_OK || value == 0) return st;
    filling f = {dtype, value};
    ipfsrt_ndarray_each(a, fill_one, &f);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_arange(ipfsrt_ndarray *a, ipfsrt_dtype dtype, double start,
                                        double stop, double step, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    if (step == 0 || !isfinite(start) || !isfinite(stop) || !isfinite(step))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "arange needs finite bounds and a step other than 0");
    double count = ceil((stop - start) / step);
    if (count < 0) count = 0;
    if (count > (double)((size_t)1 << 48))
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "arange of %g elements", count);
    size_t n = (size_t)count;
    ipfsrt_status st = ipfsrt_ndarray_zeros(a, dtype, 0, 1, &n, err);
    for (size_t i = 0; st == IPFSRT_OK && i < n; i++) {
        double v = start + (double)i * step;
        st = ipfsrt_ndcheck_double(dtype, v, err);
        if (st == IPFSRT_OK) ipfsrt_ndstore_double(dtype, a->data + i * a->itemsize, v);
    }
    if (st != IPFSRT_OK) ipfsrt_ndarray_free(a);
    return st;
}

ipfsrt_status ipfsrt_ndarray_linspace(ipfsrt_ndarray *a, double start, double stop, size_t num,
                                          ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    if (!isfinite(start) || !isfinite(stop))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "linspace needs finite bounds");
    ipfsrt_status st = ipfsrt_ndarray_zeros(a, IPFSRT_DTYPE_FLOAT64, 0, 1, &num, err);
    if (st != IPFSRT_OK) return st;
    double step = num > 1 ? (stop - start) / (double)(num - 1) : 0;
    double *v = (double *)(void *)a->data;
    for (size_t i = 0; i < num; i++) v[i] = start + (double)i * step;
    if (num > 1) v[num - 1] = stop; /* exactly, as numpy */
    return IPFSRT_OK;
}

/* Depth-first over the dimensions; the innermost loop is a plain stride walk. */
static void each_dim(const ipfsrt_ndarray *a, int dim, unsigned char *p,
                     void (*fn)(void *, unsigned char *), void *user) {
    if (dim == a->ndim) {
        fn(user, p);
        return;
    }
    for (size_t i = 0; i < a->shape[dim]; i++, p += a->strides[dim])
        each_dim(a, dim + 1, p, fn, user);
}

void ipfsrt_ndarray_each(const ipfsrt_ndarray *a, void (*fn)(void *user, unsigned char *p),
                         void *user) {
    if (ipfsrt_ndarray_size(a) == 0) return;
    each_dim(a, 0, a->data, fn, user);
}

/* A copy walks out and src together: rows as runs of typed copies, or, when
 * src's elements lie next to each other along another axis than out's last
 * (a transpose), squares of both axes at a time, so that every cache line
 * read is used whole before it is evicted. */
typedef struct copying {
    size_t size, n_last, n_near;
    ptrdiff_t out_last, out_near, in_last, in_near;
} copying;

#define SQUARE 32

static void copy_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    const copying *c = ctx;
    ipfsrt_ndrow_copy(p[0], s[0], p[1], s[1], n, c->size);
}

/* The plane of out's last axis and src's nearest one, from p, in squares. */
static void copy_plane(void *ctx, unsigned char **p) {
    const copying *c = ctx;
    for (size_t j0 = 0; j0 < c->n_near; j0 += SQUARE)
        for (size_t i0 = 0; i0 < c->n_last; i0 += SQUARE) {
            size_t nj = c->n_near - j0 < SQUARE ? c->n_near - j0 : SQUARE;
            size_t ni = c->n_last - i0 < SQUARE ? c->n_last - i0 : SQUARE;
            for (size_t j = j0; j < j0 + nj; j++)
                ipfsrt_ndrow_copy(p[0] + (ptrdiff_t)j * c->out_near + (ptrdiff_t)i0 * c->out_last, c->out_last,
                                  p[1] + (ptrdiff_t)j * c->in_near + (ptrdiff_t)i0 * c->in_last, c->in_last, ni,
                                  c->size);
        }
}

/* The axis other than the last along which src's elements are adjacent, or -1. */
static int adjacent_axis(const ipfsrt_ndarray *src) {
    int last = src->ndim - 1;
    if (last < 1 || src->strides[last] == (ptrdiff_t)src->itemsize) return -1;
    for (int d = 0; d < last; d++)
        if (src->strides[d] == (ptrdiff_t)src->itemsize && src->shape[d] > 1 && src->shape[last] > 1) return d;
    return -1;
}

static void copy_strided(ipfsrt_ndarray *out, const ipfsrt_ndarray *src) {
    int near = adjacent_axis(src), last = src->ndim - 1;
    copying c = {.size = src->itemsize};
    ipfsrt_ndwalk w;
    if (near < 0) {
        ipfsrt_ndwalk_init(&w, out->ndim, out->shape);
        w.row = copy_row;
    } else {
        size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
        memcpy(shape, out->shape, sizeof shape);
        c = (copying){src->itemsize, shape[last], shape[near], out->strides[last], out->strides[near],
                      src->strides[last], src->strides[near]};
        shape[last] = shape[near] = 1; /* the walk visits each plane once */
        ipfsrt_ndwalk_init(&w, out->ndim, shape);
        w.elem = copy_plane;
    }
    ipfsrt_ndwalk_add(&w, out);
    w.n = 2;
    w.p[1] = src->data;
    for (int d = 0; d < src->ndim; d++) w.strides[1][d] = src->strides[d];
    w.ctx = &c;
    ipfsrt_ndwalk_run(&w);
}

ipfsrt_status ipfsrt_ndarray_copy(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    ipfsrt_ndarray out;
    ipfsrt_ndarray_init(&out);
    ipfsrt_status st = ipfsrt_ndarray_new_buffer(&out, src->dtype, src->itemsize, src->ndim,
                                                src->shape, false, err);
    if (st != IPFSRT_OK) return st;
    if (ipfsrt_ndarray_is_contiguous(src)) {
        memcpy(out.data, src->data, ipfsrt_ndarray_size(src) * src->itemsize);
    } else {
        copy_strided(&out, src);
    }
    ipfsrt_ndarray_free(dst); /* after reading src: dst may be src */
    *dst = out;
    return IPFSRT_OK;
}
