/* Single elements, by index. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

static ipfsrt_status locate(const ipfsrt_ndarray *a, const int64_t *index, int n, unsigned char **p,
                            ipfsrt_error *err) {
    if (n != a->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%d indices for an array of %d dimensions", n, a->ndim);
    unsigned char *q = a->data;
    for (int d = 0; d < n; d++) {
        int64_t k = index[d] < 0 ? index[d] + (int64_t)a->shape[d] : index[d];
        if (k < 0 || k >= (int64_t)a->shape[d])
            return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "index %lld is out of bounds for axis %d with size %zu",
                               (long long)index[d], d, a->shape[d]);
        q += k * a->strides[d];
    }
    *p = q;
    return IPFSRT_OK;
}

static void load(const ipfsrt_ndarray *a, const unsigned char *p, ipfsrt_ndvalue *v) {
    memset(v, 0, sizeof *v);
    union { int8_t i1; int16_t i2; int32_t i4; int64_t i8; uint16_t u2; uint32_t u4; uint64_t u8;
            float f4; double f8; float c8[2]; double c16[2]; } x;
    memcpy(&x, p, a->itemsize < sizeof x ? a->itemsize : sizeof x);
    switch (a->dtype) {
    case IPFSRT_DTYPE_BOOL: v->kind = IPFSRT_NDVALUE_BOOL; v->b = *p != 0; break;
    case IPFSRT_DTYPE_INT8: v->kind = IPFSRT_NDVALUE_INT; v->i = x.i1; break;
    case IPFSRT_DTYPE_INT16: v->kind = IPFSRT_NDVALUE_INT; v->i = x.i2; break;
    case IPFSRT_DTYPE_INT32: v->kind = IPFSRT_NDVALUE_INT; v->i = x.i4; break;
    case IPFSRT_DTYPE_INT64: v->kind = IPFSRT_NDVALUE_INT; v->i = x.i8; break;
    case IPFSRT_DTYPE_UINT8: v->kind = IPFSRT_NDVALUE_UINT; v->u = *p; break;
    case IPFSRT_DTYPE_UINT16: v->kind = IPFSRT_NDVALUE_UINT; v->u = x.u2; break;
    case IPFSRT_DTYPE_UINT32: v->kind = IPFSRT_NDVALUE_UINT; v->u = x.u4; break;
    case IPFSRT_DTYPE_UINT64: v->kind = IPFSRT_NDVALUE_UINT; v->u = x.u8; break;
    case IPFSRT_DTYPE_FLOAT32: v->kind = IPFSRT_NDVALUE_FLOAT; v->f = x.f4; break;
    case IPFSRT_DTYPE_FLOAT64: v->kind = IPFSRT_NDVALUE_FLOAT; v->f = x.f8; break;
    case IPFSRT_DTYPE_COMPLEX64: v->kind = IPFSRT_NDVALUE_COMPLEX; v->f = x.c8[0]; v->imag = x.c8[1]; break;
    case IPFSRT_DTYPE_COMPLEX128: v->kind = IPFSRT_NDVALUE_COMPLEX; v->f = x.c16[0]; v->imag = x.c16[1]; break;
    default: /* bytes: trailing NULs are padding */
        v->kind = IPFSRT_NDVALUE_BYTES;
        v->bytes = p;
        v->len = a->itemsize;
        while (v->len && !p[v->len - 1]) v->len--;
    }
}

ipfsrt_status ipfsrt_ndarray_get(const ipfsrt_ndarray *a, const int64_t *index, int n,
                                 ipfsrt_ndvalue *value, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED_N(index, n, err);
    IPFSRT_NEED(value, err);
    unsigned char *p;
    ipfsrt_status st = locate(a, index, n, &p, err);
    if (st == IPFSRT_OK) load(a, p, value);
    return st;
}

/* An exact integer into an integer dtype: range-checked without going through a
 * double (which would round past 2^53). */
static ipfsrt_status store_int(ipfsrt_dtype d, unsigned char *p, int64_t v, ipfsrt_error *err) {
    static const int64_t lo[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, 0, 0, 0, 0};
    static const int64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX, UINT8_MAX, UINT16_MAX,
                                 UINT32_MAX, INT64_MAX};
    int k = (int)d - IPFSRT_DTYPE_INT8;
    if (v < lo[k] || v > hi[k])
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%lld does not fit %s", (long long)v, ipfsrt_dtype_name(d));
    unsigned char bytes[8];
    size_t size = ipfsrt_dtype_size(d);
    uint64_t u = (uint64_t)v;
    for (size_t i = 0; i < 8; i++) bytes[i] = (unsigned char)(u >> (8 * i)); /* little-endian ... */
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe) memcpy(p, bytes, size); /* ... as this machine is */
    else for (size_t i = 0; i < size; i++) p[i] = bytes[size - 1 - i];
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_set(ipfsrt_ndarray *a, const int64_t *index, int n, double value,
                                 int64_t ivalue, bool is_int, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED_N(index, n, err);
    unsigned char *p;
    ipfsrt_status st = locate(a, index, n, &p, err);
    if (st != IPFSRT_OK) return st;
    if (is_int && ipfsrt_dtype_is_int(a->dtype)) return store_int(a->dtype, p, ivalue, err);
    if (is_int) value = (double)ivalue;
    st = ipfsrt_ndcheck_double(a->dtype, value, err);
    if (st == IPFSRT_OK) ipfsrt_ndstore_double(a->dtype, p, value);
    return st;
}
