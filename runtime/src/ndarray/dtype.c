/* Element types: names, sizes, and storing a number into one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

static const struct {
    const char *name;
    size_t size;
} types[IPFSRT_DTYPE_COUNT] = {
    [IPFSRT_DTYPE_BOOL] = {"bool", 1},        [IPFSRT_DTYPE_INT8] = {"int8", 1},
    [IPFSRT_DTYPE_INT16] = {"int16", 2},      [IPFSRT_DTYPE_INT32] = {"int32", 4},
    [IPFSRT_DTYPE_INT64] = {"int64", 8},      [IPFSRT_DTYPE_UINT8] = {"uint8", 1},
    [IPFSRT_DTYPE_UINT16] = {"uint16", 2},    [IPFSRT_DTYPE_UINT32] = {"uint32", 4},
    [IPFSRT_DTYPE_UINT64] = {"uint64", 8},    [IPFSRT_DTYPE_FLOAT32] = {"float32", 4},
    [IPFSRT_DTYPE_FLOAT64] = {"float64", 8},  [IPFSRT_DTYPE_COMPLEX64] = {"complex64", 8},
    [IPFSRT_DTYPE_COMPLEX128] = {"complex128", 16}, [IPFSRT_DTYPE_BYTES] = {"bytes", 0},
};

const char *ipfsrt_dtype_name(ipfsrt_dtype d) { return d < IPFSRT_DTYPE_COUNT ? types[d].name : "?"; }

size_t ipfsrt_dtype_size(ipfsrt_dtype d) { return d < IPFSRT_DTYPE_COUNT ? types[d].size : 0; }

bool ipfsrt_dtype_is_int(ipfsrt_dtype d) { return d >= IPFSRT_DTYPE_INT8 && d <= IPFSRT_DTYPE_UINT64; }

bool ipfsrt_dtype_is_float(ipfsrt_dtype d) {
    return d == IPFSRT_DTYPE_FLOAT32 || d == IPFSRT_DTYPE_FLOAT64;
}

ipfsrt_status ipfsrt_dtype_parse(const char *name, ipfsrt_dtype *dtype, size_t *itemsize,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(dtype, err);
    for (int d = 0; d < IPFSRT_DTYPE_COUNT; d++) {
        if (d != IPFSRT_DTYPE_BYTES && strcmp(name, types[d].name) == 0) {
            *dtype = (ipfsrt_dtype)d;
            *itemsize = types[d].size;
            return IPFSRT_OK;
        }
    }
    if (name[0] == 'S' && name[1] >= '1' && name[1] <= '9') {
        char *end;
        unsigned long n = strtoul(name + 1, &end, 10);
        if (!*end && n <= 1u << 20) {
            *dtype = IPFSRT_DTYPE_BYTES;
            *itemsize = n;
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                       "unknown dtype '%.40s' (bool, int8..int64, uint8..uint64, float32, "
                       "float64, complex64, complex128, S<n>)", name);
}

/* The range an integer dtype holds, as doubles (exact at the ends that matter). */
static void int_range(ipfsrt_dtype d, double *lo, double *hi) {
    static const double los[] = {-128.0, -32768.0, -2147483648.0, -9223372036854775808.0, 0, 0, 0, 0};
    static const double his[] = {127.0, 32767.0, 2147483647.0, 9223372036854775807.0,
                                 255.0, 65535.0, 4294967295.0, 18446744073709551615.0};
    *lo = los[d - IPFSRT_DTYPE_INT8];
    *hi = his[d - IPFSRT_DTYPE_INT8];
}

ipfsrt_status ipfsrt_ndcheck_double(ipfsrt_dtype d, double v, ipfsrt_error *err) {
    if (d == IPFSRT_DTYPE_BYTES)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a number does not go into a bytes array");
    if (!ipfsrt_dtype_is_int(d)) return IPFSRT_OK;
    double lo, hi;
    int_range(d, &lo, &hi);
    double t = trunc(v);
    /* hi for 64-bit types rounds up to 2^63 / 2^64 as a double: exclusive there */
    bool big = d == IPFSRT_DTYPE_INT64 || d == IPFSRT_DTYPE_UINT64;
    if (isnan(v) || t < lo || (big ? t >= hi : t > hi))
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%g does not fit %s", v, ipfsrt_dtype_name(d));
    return IPFSRT_OK;
}

void ipfsrt_ndstore_double(ipfsrt_dtype d, unsigned char *p, double v) {
    switch (d) {
    case IPFSRT_DTYPE_BOOL: *p = v != 0; break;
    case IPFSRT_DTYPE_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case IPFSRT_DTYPE_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case IPFSRT_DTYPE_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case IPFSRT_DTYPE_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case IPFSRT_DTYPE_UINT8: *p = (uint8_t)v; break;
    case IPFSRT_DTYPE_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case IPFSRT_DTYPE_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case IPFSRT_DTYPE_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case IPFSRT_DTYPE_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); break; }
    case IPFSRT_DTYPE_FLOAT64: memcpy(p, &v, 8); break;
    case IPFSRT_DTYPE_COMPLEX64: { float x[2] = {(float)v, 0}; memcpy(p, x, 8); break; }
    case IPFSRT_DTYPE_COMPLEX128: { double x[2] = {v, 0}; memcpy(p, x, 16); break; }
    default: break;
    }
}
