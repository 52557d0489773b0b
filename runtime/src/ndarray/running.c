/* Running sums of contiguous arrays in typed loops: along the last axis one
 * line at a time (each sum needs the one before), along an outer axis a row
 * at a time, every column at once (which vectorizes). Floats add in their own
 * type, as numpy's cumsum; integers in 64 bits, wrapping. */
#include <string.h>

#include "ndarray/ndarray_internal.h"


/* R: the result's type (the unsigned bits of int64/uint64 for integers), A
 * what a value of T adds as. */
#define DEFINE_RUNNING(SUF, T, R, A, ISNAN)                                           \
    IPFSRT_NDVECTOR static void running_##SUF(const T *x, R *o, ipfsrt_ndlines l, bool skipna) { \
        for (size_t k = 0; k < l.outer; k++) {                                        \
            const T *in = x + k * l.len * l.inner;                                    \
            R *out = o + k * l.len * l.inner;                                         \
            if (l.inner == 1) {                                                       \
                R sum = 0;                                                            \
                for (size_t i = 0; i < l.len; i++) {                                  \
                    sum += skipna && ISNAN(in[i]) ? 0 : (R)(A)in[i];                  \
                    out[i] = sum;                                                     \
                }                                                                     \
                continue;                                                             \
            }                                                                         \
            for (size_t j = 0; l.len && j < l.inner; j++)                             \
                out[j] = skipna && ISNAN(in[j]) ? 0 : (R)(A)in[j];                    \
            for (size_t r = 1; r < l.len; r++) {                                      \
                const T *row = in + r * l.inner;                                      \
                R *prev = out + (r - 1) * l.inner, *cur = out + r * l.inner;          \
                for (size_t j = 0; j < l.inner; j++)                                  \
                    cur[j] = prev[j] + (skipna && ISNAN(row[j]) ? 0 : (R)(A)row[j]);  \
            }                                                                         \
        }                                                                             \
    }

DEFINE_RUNNING(i8, int8_t, uint64_t, int64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(i16, int16_t, uint64_t, int64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(i32, int32_t, uint64_t, int64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(i64, int64_t, uint64_t, int64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(u8, uint8_t, uint64_t, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(u16, uint16_t, uint64_t, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(u32, uint32_t, uint64_t, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(u64, uint64_t, uint64_t, uint64_t, IPFSRT_NDNAN_INT)
DEFINE_RUNNING(f32, float, float, float, IPFSRT_NDNAN_FLOAT)
DEFINE_RUNNING(f64, double, double, double, IPFSRT_NDNAN_FLOAT)

bool ipfsrt_ndfast_cumsum(ipfsrt_ndarray *res, const ipfsrt_ndarray *a, int axis, bool skipna) {
    if (!ipfsrt_ndarray_is_contiguous(a) || (uintptr_t)a->data % a->itemsize) return false;
    ipfsrt_ndlines l = ipfsrt_ndlines_of(a, false, axis);
    const void *x = a->data;
    void *o = res->data;
    IPFSRT_NDTYPED_CALL(a->dtype, running, x, o, l, skipna)
    return true;
}
