/* Two operands of one dtype into a result of it (or bool, for comparisons)
 * in typed loops compilers vectorize: each operand contiguous or a single
 * value (stride 0, a scalar or a broadcast dimension). Integers wrap through
 * unsigned arithmetic at least as wide as int (no overflow in C's promoted
 * types); maximum and minimum of floats propagate NaN, as numpy's. */
#include <string.h>

#include "ndarray/ndarray_internal.h"

/* EXPR of a and b for each element, with x and y arrays or single values. */
#define LOOP3(T, R, EXPR)                                                                \
    do {                                                                              \
        R *o = (R *)(void *)out;                                                      \
        if (xs && ys) {                                                               \
            for (size_t i = 0; i < n; i++) {                                          \
                T a = x[i], b = y[i];                                                 \
                o[i] = (R)(EXPR);                                                     \
            }                                                                         \
        } else if (xs) {                                                              \
            T b = y[0];                                                               \
            for (size_t i = 0; i < n; i++) {                                          \
                T a = x[i];                                                           \
                o[i] = (R)(EXPR);                                                     \
            }                                                                         \
        } else {                                                                      \
            T a = x[0];                                                               \
            for (size_t i = 0; i < n; i++) {                                          \
                T b = y[i];                                                           \
                o[i] = (R)(EXPR);                                                     \
            }                                                                         \
        }                                                                             \
    } while (0)

/* NaN-propagating maximum (CMP >) and minimum (<); for integers ISNAN is 0. */
#define PICK(a, b, CMP, ISNAN) ((((a) CMP (b)) | ISNAN(a)) ? (a) : (b))

/* U: T's unsigned twin, W: the unsigned type its integers compute in (both T
 * itself for floats). Results are written through U: the same bits, without
 * C's implementation-defined narrowing into signed types. */
#define DEFINE_BINARY(SUF, T, U, W, IS_FLOAT, ISNAN)                                     \
    IPFSRT_NDVECTOR static bool binary_##SUF(ipfsrt_ndop op, unsigned char *out, const T *x, bool xs, \
                                             const T *y, bool ys, size_t n) {         \
        switch (op) {                                                                 \
        case IPFSRT_NDOP_ADD: LOOP3(T, U, (W)a + (W)b); break;                          \
        case IPFSRT_NDOP_SUB: LOOP3(T, U, (W)a - (W)b); break;                          \
        case IPFSRT_NDOP_MUL: LOOP3(T, U, (W)a * (W)b); break;                          \
        case IPFSRT_NDOP_DIV:                                                         \
            if (!IS_FLOAT) return false;                                              \
            LOOP3(T, T, a / b);                                                          \
            break;                                                                    \
        case IPFSRT_NDOP_MAXIMUM: LOOP3(T, T, PICK(a, b, >, ISNAN)); break;              \
        case IPFSRT_NDOP_MINIMUM: LOOP3(T, T, PICK(a, b, <, ISNAN)); break;              \
        case IPFSRT_NDOP_LT: LOOP3(T, uint8_t, a < b); break;                            \
        case IPFSRT_NDOP_LE: LOOP3(T, uint8_t, a <= b); break;                           \
        case IPFSRT_NDOP_GT: LOOP3(T, uint8_t, a > b); break;                            \
        case IPFSRT_NDOP_GE: LOOP3(T, uint8_t, a >= b); break;                           \
        case IPFSRT_NDOP_EQ: LOOP3(T, uint8_t, a == b); break;                           \
        case IPFSRT_NDOP_NE: LOOP3(T, uint8_t, a != b); break;                           \
        case IPFSRT_NDOP_AND: LOOP3(T, uint8_t, (a != 0) & (b != 0)); break;             \
        case IPFSRT_NDOP_OR: LOOP3(T, uint8_t, (a != 0) | (b != 0)); break;              \
        case IPFSRT_NDOP_XOR: LOOP3(T, uint8_t, (a != 0) ^ (b != 0)); break;             \
        default: return false; /* //, % and ** take the walk */                       \
        }                                                                             \
        return true;                                                                  \
    }

DEFINE_BINARY(i8, int8_t, uint8_t, unsigned, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(i16, int16_t, uint16_t, unsigned, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(i32, int32_t, uint32_t, uint32_t, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(i64, int64_t, uint64_t, uint64_t, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(u8, uint8_t, uint8_t, unsigned, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(u16, uint16_t, uint16_t, unsigned, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(u32, uint32_t, uint32_t, uint32_t, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(u64, uint64_t, uint64_t, uint64_t, 0, IPFSRT_NDNAN_INT)
DEFINE_BINARY(f32, float, float, float, 1, IPFSRT_NDNAN_FLOAT)
DEFINE_BINARY(f64, double, double, double, 1, IPFSRT_NDNAN_FLOAT)

/* A contiguous run of x (type T) between single values lo and hi (NULL: no
 * bound; neither NaN), in one pass. A NaN of x fails both compares: it stays. */
#define DEFINE_CLIP(SUF, T)                                                           \
    IPFSRT_NDVECTOR static void clip_##SUF(T *o, const T *x, size_t n, const T *lo, const T *hi) { \
        if (lo && hi) {                                                               \
            T l = *lo, h = *hi;                                                       \
            for (size_t i = 0; i < n; i++) {                                          \
                T v = x[i] < l ? l : x[i];                                            \
                o[i] = v > h ? h : v;                                                 \
            }                                                                         \
        } else if (lo) {                                                              \
            T l = *lo;                                                                \
            for (size_t i = 0; i < n; i++) o[i] = x[i] < l ? l : x[i];                \
        } else {                                                                      \
            T h = *hi;                                                                \
            for (size_t i = 0; i < n; i++) o[i] = x[i] > h ? h : x[i];                \
        }                                                                             \
    }

DEFINE_CLIP(i8, int8_t)
DEFINE_CLIP(i16, int16_t)
DEFINE_CLIP(i32, int32_t)
DEFINE_CLIP(i64, int64_t)
DEFINE_CLIP(u8, uint8_t)
DEFINE_CLIP(u16, uint16_t)
DEFINE_CLIP(u32, uint32_t)
DEFINE_CLIP(u64, uint64_t)
DEFINE_CLIP(f32, float)
DEFINE_CLIP(f64, double)

static bool aligned_run(const unsigned char *p, ptrdiff_t s, size_t size) {
    return (s == 0 || s == (ptrdiff_t)size) && (uintptr_t)p % size == 0;
}

bool ipfsrt_ndfast_binary(ipfsrt_ndop op, ipfsrt_dtype d, ipfsrt_dtype result, unsigned char **p,
                          const ptrdiff_t *s, size_t n) {
    size_t size = ipfsrt_dtype_size(d);
    if (ipfsrt_ndkind_of(d) == IPFSRT_NDKIND_OTHER || s[0] != (ptrdiff_t)ipfsrt_dtype_size(result) ||
        !aligned_run(p[0], s[0], ipfsrt_dtype_size(result)) || !aligned_run(p[1], s[1], size) ||
        !aligned_run(p[2], s[2], size) || (!s[1] && !s[2]))
        return false;
    const void *x = p[1], *y = p[2];
    bool xs = s[1] != 0, ys = s[2] != 0;
    IPFSRT_NDTYPED_RETURN(d, binary, op, p[0], x, xs, y, ys, n)
}

bool ipfsrt_ndfast_clip(ipfsrt_dtype d, unsigned char *out, ptrdiff_t out_stride, const unsigned char *x,
                        ptrdiff_t in_stride, size_t n, const void *lo, const void *hi) {
    size_t size = ipfsrt_dtype_size(d);
    if (ipfsrt_ndkind_of(d) == IPFSRT_NDKIND_OTHER || in_stride != (ptrdiff_t)size || !aligned_run(out, out_stride, size) ||
        !aligned_run(x, in_stride, size))
        return false;
    void *o = out;
    const void *v = x;
    IPFSRT_NDTYPED_CALL(d, clip, o, v, n, lo, hi)
    return true;
}

/* where's choice moves bits only: one loop per element width, the condition a
 * run of bool bytes, x and y runs or single values. The choice is a mask, not
 * a branch: both values are read, and the loop vectorizes. */
#define PICK_BITS(U, m, a, b) ((U)((a) & (U) - (U)((m) != 0)) | (U)((b) & (U)((U)((m) != 0) - 1)))
#define DEFINE_CHOOSE(BITS)                                                           \
    IPFSRT_NDVECTOR static void choose_##BITS(uint##BITS##_t *o, const uint8_t *m, const uint##BITS##_t *x, \
                                              bool xs, const uint##BITS##_t *y, bool ys, size_t n) { \
        typedef uint##BITS##_t U;                                                     \
        if (xs && ys)                                                                 \
            for (size_t i = 0; i < n; i++) o[i] = PICK_BITS(U, m[i], x[i], y[i]);     \
        else if (xs)                                                                  \
            for (size_t i = 0; i < n; i++) o[i] = PICK_BITS(U, m[i], x[i], y[0]);     \
        else if (ys)                                                                  \
            for (size_t i = 0; i < n; i++) o[i] = PICK_BITS(U, m[i], x[0], y[i]);     \
        else                                                                          \
            for (size_t i = 0; i < n; i++) o[i] = PICK_BITS(U, m[i], x[0], y[0]);     \
    }

DEFINE_CHOOSE(8)
DEFINE_CHOOSE(16)
DEFINE_CHOOSE(32)
DEFINE_CHOOSE(64)

bool ipfsrt_ndfast_choose(size_t size, unsigned char **p, const ptrdiff_t *s, size_t n) {
    if (s[1] != 1 || !aligned_run(p[0], s[0], size) || s[0] == 0 || !aligned_run(p[2], s[2], size) ||
        !aligned_run(p[3], s[3], size))
        return false;
    void *o = p[0];
    const void *x = p[2], *y = p[3];
    bool xs = s[2] != 0, ys = s[3] != 0;
    switch (size) {
    case 1: choose_8(o, p[1], x, xs, y, ys, n); return true;
    case 2: choose_16(o, p[1], x, xs, y, ys, n); return true;
    case 4: choose_32(o, p[1], x, xs, y, ys, n); return true;
    case 8: choose_64(o, p[1], x, xs, y, ys, n); return true;
    default: return false;
    }
}
