/* Conversions between dtypes in typed loops, one per pair, which compilers
 * vectorize: integers wrap into narrower integers (as numpy), anything goes
 * into floats and bool, and floats go into integers only when every value of
 * the block fits once truncated (numpy writes garbage there; we refuse). */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define BLOCK 1024

/* The open interval of doubles that truncate into d's range. For 64-bit
 * types the upper end is 2^63 / 2^64 itself, and int64's lower end is the
 * double just below -2^63. */
static void fitting(ipfsrt_dtype d, double *lo, double *hi) {
    switch (d) {
    case IPFSRT_DTYPE_BOOL:
    case IPFSRT_DTYPE_FLOAT32:
    case IPFSRT_DTYPE_FLOAT64: *lo = -INFINITY, *hi = INFINITY; break; /* unchecked */
    case IPFSRT_DTYPE_INT8: *lo = -129.0, *hi = 128.0; break;
    case IPFSRT_DTYPE_INT16: *lo = -32769.0, *hi = 32768.0; break;
    case IPFSRT_DTYPE_INT32: *lo = -2147483649.0, *hi = 2147483648.0; break;
    case IPFSRT_DTYPE_INT64: *lo = -9223372036854777856.0, *hi = 9223372036854775808.0; break;
    case IPFSRT_DTYPE_UINT8: *lo = -1.0, *hi = 256.0; break;
    case IPFSRT_DTYPE_UINT16: *lo = -1.0, *hi = 65536.0; break;
    case IPFSRT_DTYPE_UINT32: *lo = -1.0, *hi = 4294967296.0; break;
    default: *lo = -1.0, *hi = 18446744073709551616.0; break; /* uint64 */
    }
}

/* Into an integer type: floats through its own type, each checked in the same
 * pass (one that does not fit is converted as 0, for C has no answer for it,
 * and fails the block); integers through its unsigned twin (wrapping, without
 * C's implementation-defined narrowing into signed types). */
#define INTO_INT(T, S, U)                                                                \
    if (is_float && (double)(T)lo == lo && (double)(T)hi == hi) {                     \
        S *o = (S *)(void *)out; /* the bounds are values of T: compared in T */      \
        T l = (T)lo, h = (T)hi;                                                       \
        for (size_t i = 0; i < n; i++) {                                              \
            int in = (x[i] > l) & (x[i] < h);                                         \
            fit &= in;                                                                \
            o[i] = (S)(in ? x[i] : 0);                                                \
        }                                                                             \
    } else if (is_float) {                                                            \
        S *o = (S *)(void *)out;                                                      \
        for (size_t i = 0; i < n; i++) {                                              \
            double v = (double)x[i];                                                  \
            int in = (v > lo) & (v < hi);                                             \
            fit &= in;                                                                \
            o[i] = (S)(in ? v : 0);                                                   \
        }                                                                             \
    } else {                                                                          \
        IPFSRT_NDLOOP(U, x[i]);                                                                \
    }                                                                                 \
    break;

/* n values of x (type T) into out as to; false when a float does not fit. */
#define DEFINE_CAST(SUF, T, IS_FLOAT)                                                 \
    IPFSRT_NDVECTOR static bool cast_##SUF(ipfsrt_dtype to, const T *x, unsigned char *out, size_t n) { \
        const bool is_float = IS_FLOAT;                                               \
        double lo = 0, hi = 0;                                                        \
        int fit = 1;                                                                  \
        if (is_float) fitting(to, &lo, &hi);                                          \
        switch (to) {                                                                 \
        case IPFSRT_DTYPE_BOOL: IPFSRT_NDLOOP(uint8_t, x[i] != 0); break;                      \
        case IPFSRT_DTYPE_INT8: INTO_INT(T, int8_t, uint8_t)                             \
        case IPFSRT_DTYPE_INT16: INTO_INT(T, int16_t, uint16_t)                          \
        case IPFSRT_DTYPE_INT32: INTO_INT(T, int32_t, uint32_t)                          \
        case IPFSRT_DTYPE_INT64: INTO_INT(T, int64_t, uint64_t)                          \
        case IPFSRT_DTYPE_UINT8: INTO_INT(T, uint8_t, uint8_t)                           \
        case IPFSRT_DTYPE_UINT16: INTO_INT(T, uint16_t, uint16_t)                        \
        case IPFSRT_DTYPE_UINT32: INTO_INT(T, uint32_t, uint32_t)                        \
        case IPFSRT_DTYPE_UINT64: INTO_INT(T, uint64_t, uint64_t)                        \
        case IPFSRT_DTYPE_FLOAT32: IPFSRT_NDLOOP(float, x[i]); break;                          \
        default: IPFSRT_NDLOOP(double, x[i]); break;                                           \
        }                                                                             \
        return fit;                                                                   \
    }

DEFINE_CAST(i8, int8_t, false)
DEFINE_CAST(i16, int16_t, false)
DEFINE_CAST(i32, int32_t, false)
DEFINE_CAST(i64, int64_t, false)
DEFINE_CAST(u8, uint8_t, false)
DEFINE_CAST(u16, uint16_t, false)
DEFINE_CAST(u32, uint32_t, false)
DEFINE_CAST(u64, uint64_t, false)
DEFINE_CAST(f32, float, true)
DEFINE_CAST(f64, double, true)

static bool cast_block(ipfsrt_dtype from, ipfsrt_dtype to, const void *x, unsigned char *out, size_t n) {
    IPFSRT_NDTYPED_RETURN(from, cast, to, x, out, n) /* bool as uint8: its 0 and 1 */
}

/* The first value of a refused block that does not fit. */
static double first_misfit(ipfsrt_dtype from, ipfsrt_dtype to, const unsigned char *x, size_t n) {
    double lo, hi, v = 0;
    fitting(to, &lo, &hi);
    for (size_t i = 0; i < n; i++) {
        v = ipfsrt_ndload_double(from, x + i * ipfsrt_dtype_size(from));
        if (!(v > lo && v < hi)) break;
    }
    return v;
}

int ipfsrt_ndfast_cast(ipfsrt_dtype from, ipfsrt_dtype to, unsigned char *out, ptrdiff_t out_stride,
                       const unsigned char *in, ptrdiff_t in_stride, size_t n, double *misfit) {
    if (ipfsrt_ndkind_of(from) == IPFSRT_NDKIND_OTHER || ipfsrt_ndkind_of(to) == IPFSRT_NDKIND_OTHER)
        return IPFSRT_NDFAST_NO;
    size_t in_size = ipfsrt_dtype_size(from), out_size = ipfsrt_dtype_size(to);
    _Alignas(64) unsigned char x_buf[BLOCK * 8], out_buf[BLOCK * 8];
    bool direct = out_stride == (ptrdiff_t)out_size && (uintptr_t)out % out_size == 0;
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t m = n - off < BLOCK ? n - off : BLOCK;
        const unsigned char *x = ipfsrt_ndrow_gather(in + (ptrdiff_t)off * in_stride, in_stride, m, in_size, x_buf);
        unsigned char *o = direct ? out + off * out_size : out_buf;
        if (!cast_block(from, to, x, o, m)) {
            *misfit = first_misfit(from, to, x, m);
            return IPFSRT_NDFAST_MISFIT;
        }
        for (size_t i = 0; !direct && i < m; i++)
            memcpy(out + (ptrdiff_t)(off + i) * out_stride, out_buf + i * out_size, out_size);
    }
    return IPFSRT_NDFAST_DONE;
}
