/* One-operand functions in typed loops, one per input type, which compilers
 * vectorize: results as ipfsrt_ndarray_unary types them (integers negate and
 * take abs wrapping, through their unsigned twins; sqrt, exp and log of
 * integers are floats; isnan, isfinite and ~ are bool). */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

#define BLOCK 1024

/* A float function of x into the result's float type. */
#define INTO_FLOAT(F, F32)                                                            \
    if (result == IPFSRT_DTYPE_FLOAT32) IPFSRT_NDLOOP(float, F32((float)x[i]));                \
    else IPFSRT_NDLOOP(double, F((double)x[i]));                                               \
    break;

static float exp_f32(float x) { return (float)exp(x); } /* as the walk: in double, rounded once */
static float log_f32(float x) { return (float)log(x); }
static float sin_f32(float x) { return (float)sin(x); }
static float cos_f32(float x) { return (float)cos(x); }
static float tan_f32(float x) { return (float)tan(x); }
/* numpy multiplies by the constant rounded to the type (180/pi of float32 is
 * 180 over pi rounded to float32), in the type */
static double deg2rad(double x) { return x * (M_PI / 180.0); }
static float deg2rad_f32(float x) { return x * (float)(M_PI / 180.0); }
static double rad2deg(double x) { return x * (180.0 / M_PI); }
static float rad2deg_f32(float x) { return x * (180.0f / (float)M_PI); }

#define FINITE_INT(v) 1
#define SIGNED_NEGATIVE(v) ((v) < 0)
#define UNSIGNED_NEGATIVE(v) 0
#define FINITE_FLOAT(v) ((v) - (v) == 0) /* inf - inf and NaN - NaN are NaN */

/* IS_FLOAT: the kind of T; U its unsigned twin (T itself for floats);
 * NEGATIVE, ISNAN and FINITE its tests. */
#define DEFINE_UNARY(SUF, T, U, IS_FLOAT, NEGATIVE, ISNAN, FINITE)                                  \
    IPFSRT_NDVECTOR static void unary_##SUF(ipfsrt_ndfn fn, ipfsrt_dtype result, const T *x, unsigned char *out, \
                                            size_t n) {                               \
        switch (fn) {                                                                 \
        case IPFSRT_NDFN_NEG:                                                         \
            if (IS_FLOAT) IPFSRT_NDLOOP(T, -x[i]);                                             \
            else IPFSRT_NDLOOP(U, (U)0 - (U)x[i]);                                             \
            break;                                                                    \
        case IPFSRT_NDFN_ABS:                                                         \
            if (IS_FLOAT) IPFSRT_NDLOOP(T, fabs((double)x[i]));                                \
            else IPFSRT_NDLOOP(U, NEGATIVE(x[i]) ? (U)0 - (U)x[i] : (U)x[i]);                  \
            break;                                                                    \
        case IPFSRT_NDFN_SQRT: INTO_FLOAT(sqrt, sqrtf)                                \
        case IPFSRT_NDFN_EXP: INTO_FLOAT(exp, exp_f32)                                \
        case IPFSRT_NDFN_LOG: INTO_FLOAT(log, log_f32)                                \
        case IPFSRT_NDFN_SIN: INTO_FLOAT(sin, sin_f32)                                \
        case IPFSRT_NDFN_COS: INTO_FLOAT(cos, cos_f32)                                \
        case IPFSRT_NDFN_TAN: INTO_FLOAT(tan, tan_f32)                                \
        case IPFSRT_NDFN_DEG2RAD: INTO_FLOAT(deg2rad, deg2rad_f32)                    \
        case IPFSRT_NDFN_RAD2DEG: INTO_FLOAT(rad2deg, rad2deg_f32)                    \
        case IPFSRT_NDFN_FLOOR:                                                       \
            if (IS_FLOAT) IPFSRT_NDLOOP(T, floor((double)x[i]));                               \
            else IPFSRT_NDLOOP(U, x[i]);                                                       \
            break;                                                                    \
        case IPFSRT_NDFN_CEIL:                                                        \
            if (IS_FLOAT) IPFSRT_NDLOOP(T, ceil((double)x[i]));                                \
            else IPFSRT_NDLOOP(U, x[i]);                                                       \
            break;                                                                    \
        case IPFSRT_NDFN_ISNAN: IPFSRT_NDLOOP(uint8_t, ISNAN(x[i])); break;                     \
        case IPFSRT_NDFN_ISFINITE: IPFSRT_NDLOOP(uint8_t, FINITE(x[i])); break;                \
        default: IPFSRT_NDLOOP(uint8_t, x[i] == 0); break; /* NOT */                           \
        }                                                                             \
    }

DEFINE_UNARY(i8, int8_t, uint8_t, 0, SIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(i16, int16_t, uint16_t, 0, SIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(i32, int32_t, uint32_t, 0, SIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(i64, int64_t, uint64_t, 0, SIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(u8, uint8_t, uint8_t, 0, UNSIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(u16, uint16_t, uint16_t, 0, UNSIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(u32, uint32_t, uint32_t, 0, UNSIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(u64, uint64_t, uint64_t, 0, UNSIGNED_NEGATIVE, IPFSRT_NDNAN_INT, FINITE_INT)
DEFINE_UNARY(f32, float, float, 1, SIGNED_NEGATIVE, IPFSRT_NDNAN_FLOAT, FINITE_FLOAT)
DEFINE_UNARY(f64, double, double, 1, SIGNED_NEGATIVE, IPFSRT_NDNAN_FLOAT, FINITE_FLOAT)

static void unary_block(ipfsrt_ndfn fn, ipfsrt_dtype in, ipfsrt_dtype result, const void *x, unsigned char *out,
                        size_t n) {
    IPFSRT_NDTYPED_CALL(in, unary, fn, result, x, out, n)
}

bool ipfsrt_ndfast_unary(ipfsrt_ndfn fn, ipfsrt_dtype in, ipfsrt_dtype result, unsigned char *out,
                         ptrdiff_t out_stride, const unsigned char *x, ptrdiff_t in_stride, size_t n) {
    size_t in_size = ipfsrt_dtype_size(in), out_size = ipfsrt_dtype_size(result);
    if (out_stride != (ptrdiff_t)out_size || (uintptr_t)out % out_size) return false;
    _Alignas(64) unsigned char buf[BLOCK * 8];
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t m = n - off < BLOCK ? n - off : BLOCK;
        const void *v = ipfsrt_ndrow_gather(x + (ptrdiff_t)off * in_stride, in_stride, m, in_size, buf);
        unary_block(fn, in, result, v, out + off * out_size, m);
    }
    return true;
}
