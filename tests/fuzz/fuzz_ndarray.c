/* libFuzzer target: n-d array shapes, slices, reshapes, transposes, squeezes
 * and broadcasts from any bytes. Property: every view either fails with an
 * error or lies wholly inside its buffer (its lowest and highest element
 * within the bytes allocated), and an empty view is never dereferenced; never
 * undefined behaviour (UBSan) on any size, start, stop or step. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/ndarray.h"
#include "ndarray/ndarray_internal.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint64_t take(reader *r, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) v = v << 8 | (r->n ? (r->n--, *r->p++) : 0);
    return v;
}

/* Small values mostly; the top bit picks an extreme (0, 1, -1, huge). */
static int64_t number(reader *r) {
    uint8_t kind = (uint8_t)take(r, 1);
    if (kind < 200) return (int64_t)(kind % 24) - 8;
    static const int64_t extremes[] = {INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 62,
                                       -((int64_t)1 << 62), (int64_t)1 << 53, 0};
    if (kind < 240) return extremes[kind % 8];
    return (int64_t)take(r, 8);
}

static void check_inside(const ipfsrt_ndarray *a) {
    if (ipfsrt_ndarray_size(a) == 0) return;
    const unsigned char *lo = a->data, *hi = a->data;
    for (int d = 0; d < a->ndim; d++) {
        ptrdiff_t reach = (ptrdiff_t)(a->shape[d] - 1) * a->strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    const unsigned char *start = a->buffer->data, *end = start + a->buffer->size;
    if (lo < start || hi + a->itemsize > end) abort();
}

static void step(reader *r, ipfsrt_ndarray *a) {
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = IPFSRT_EBAD_ARGUMENT;
    int64_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int n = (int)(take(r, 1) % (IPFSRT_NDARRAY_MAX_DIMS + 2));
    switch (take(r, 1) % 5) {
    case 0: {
        ipfsrt_ndslice s[IPFSRT_NDARRAY_MAX_DIMS + 1];
        if (n > IPFSRT_NDARRAY_MAX_DIMS) n = IPFSRT_NDARRAY_MAX_DIMS;
        for (int d = 0; d < n; d++) {
            uint8_t flags = (uint8_t)take(r, 1);
            s[d] = (ipfsrt_ndslice){.is_index = flags & 1, .index = number(r), .has_start = flags & 2,
                                    .has_stop = flags & 4, .start = number(r), .stop = number(r), .step = number(r)};
        }
        st = ipfsrt_ndarray_slice(&v, a, s, n, NULL);
        break;
    }
    case 1: /* a copy when not contiguous: only of small arrays */
        if (!ipfsrt_ndarray_is_contiguous(a) && ipfsrt_ndarray_size(a) > 32768) break;
        for (int d = 0; d < n && d < IPFSRT_NDARRAY_MAX_DIMS; d++) shape[d] = number(r);
        st = ipfsrt_ndarray_reshape(&v, a, n, shape, NULL);
        break;
    case 2: st = ipfsrt_ndarray_transpose(&v, a, NULL, NULL); break;
    case 3: st = ipfsrt_ndarray_squeeze(&v, a, NULL); break;
    default: {
        size_t to[IPFSRT_NDARRAY_MAX_DIMS];
        if (n > IPFSRT_NDARRAY_MAX_DIMS) n = IPFSRT_NDARRAY_MAX_DIMS;
        for (int d = 0; d < n; d++) to[d] = (size_t)number(r);
        st = ipfsrt_ndarray_broadcast_to(&v, a, n, to, NULL);
    }
    }
    if (st == IPFSRT_OK) {
        check_inside(&v);
        ipfsrt_ndarray_free(a);
        *a = v;
    } else {
        ipfsrt_ndarray_free(&v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size};
    int ndim = (int)(take(&r, 1) % (IPFSRT_NDARRAY_MAX_DIMS + 2));
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS + 1];
    for (int d = 0; d < ndim; d++) shape[d] = (size_t)number(&r);
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    /* no more than 64 KiB is ever allocated: bigger shapes are checked but not made */
    size_t bytes;
    if (ipfsrt_ndarray_shape_bytes(ndim, shape, 2, &bytes, NULL) != IPFSRT_OK || bytes > 65536) return 0;
    if (ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_INT16, 0, ndim, shape, NULL) != IPFSRT_OK) return 0;
    check_inside(&a);
    for (int i = 0; i < 8 && r.n; i++) step(&r, &a);
    ipfsrt_ndarray_free(&a);
    return 0;
}
