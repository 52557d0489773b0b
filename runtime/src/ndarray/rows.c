/* Elements in and out of the widest type of their kind (double, 64-bit
 * integer bits): one at a time, and a row at a time in loops typed per dtype,
 * which compilers vectorize when the row is contiguous. Elements are copied
 * with memcpy: views of foreign buffers need not be aligned. */
#include <stdatomic.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

ipfsrt_ndkind ipfsrt_ndkind_of(ipfsrt_dtype d) {
    if (d == IPFSRT_DTYPE_BOOL) return IPFSRT_NDKIND_BOOL;
    if (d >= IPFSRT_DTYPE_INT8 && d <= IPFSRT_DTYPE_INT64) return IPFSRT_NDKIND_INT;
    if (d >= IPFSRT_DTYPE_UINT8 && d <= IPFSRT_DTYPE_UINT64) return IPFSRT_NDKIND_UINT;
    if (d == IPFSRT_DTYPE_FLOAT32 || d == IPFSRT_DTYPE_FLOAT64) return IPFSRT_NDKIND_FLOAT;
    return IPFSRT_NDKIND_OTHER;
}

double ipfsrt_ndload_double(ipfsrt_dtype d, const unsigned char *p) {
    double v;
    ipfsrt_ndrow_load_double(d, p, 0, 1, &v);
    return v;
}

uint64_t ipfsrt_ndload_bits(ipfsrt_dtype d, const unsigned char *p) {
    uint64_t v;
    ipfsrt_ndrow_load_bits(d, p, 0, 1, &v);
    return v;
}

bool ipfsrt_ndtruthy(ipfsrt_dtype d, const unsigned char *p) {
    if (ipfsrt_ndkind_of(d) == IPFSRT_NDKIND_FLOAT) return ipfsrt_ndload_double(d, p) != 0; /* NaN != 0 */
    return ipfsrt_ndload_bits(d, p) != 0;
}

void ipfsrt_ndstore_float(ipfsrt_dtype d, unsigned char *p, double v) {
    ipfsrt_ndrow_store_float(d, p, 0, 1, &v);
}

void ipfsrt_ndstore_bits(ipfsrt_dtype d, unsigned char *p, uint64_t v) {
    ipfsrt_ndrow_store_bits(d, p, 0, 1, &v);
}

/* The loops are static functions cloned per CPU (IPFSRT_NDVECTOR) behind the
 * exported names: a clone's resolver must live where the clone is defined.
 * The contiguous case gets a loop of its own: a constant stride is what lets
 * the compiler vectorize it. */
#define ROW_LOOP(T, body)                                                         \
    do {                                                                          \
        if (s == (ptrdiff_t)sizeof(T)) {                                          \
            for (size_t i = 0; i < n; i++) {                                      \
                unsigned char *at_ = (unsigned char *)p + i * sizeof(T);          \
                body;                                                             \
            }                                                                     \
        } else {                                                                  \
            for (size_t i = 0; i < n; i++) {                                      \
                unsigned char *at_ = (unsigned char *)p + (ptrdiff_t)i * s;       \
                body;                                                             \
            }                                                                     \
        }                                                                         \
    } while (0)

#define LOAD_AS(T, OUT, conv) ROW_LOOP(T, { T v_; memcpy(&v_, at_, sizeof v_); out[i] = (OUT)(conv); })

IPFSRT_NDVECTOR static void row_load_double(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, double *out) {
    switch (d) {
    case IPFSRT_DTYPE_BOOL: LOAD_AS(uint8_t, double, v_ != 0); break;
    case IPFSRT_DTYPE_INT8: LOAD_AS(int8_t, double, v_); break;
    case IPFSRT_DTYPE_INT16: LOAD_AS(int16_t, double, v_); break;
    case IPFSRT_DTYPE_INT32: LOAD_AS(int32_t, double, v_); break;
    case IPFSRT_DTYPE_INT64: LOAD_AS(int64_t, double, v_); break;
    case IPFSRT_DTYPE_UINT8: LOAD_AS(uint8_t, double, v_); break;
    case IPFSRT_DTYPE_UINT16: LOAD_AS(uint16_t, double, v_); break;
    case IPFSRT_DTYPE_UINT32: LOAD_AS(uint32_t, double, v_); break;
    case IPFSRT_DTYPE_UINT64: LOAD_AS(uint64_t, double, v_); break;
    case IPFSRT_DTYPE_FLOAT32: LOAD_AS(float, double, v_); break;
    default: LOAD_AS(double, double, v_); break;
    }
}

IPFSRT_NDVECTOR static void row_load_bits(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, uint64_t *out) {
    switch (d) {
    case IPFSRT_DTYPE_BOOL: LOAD_AS(uint8_t, uint64_t, v_ != 0); break;
    case IPFSRT_DTYPE_INT8: LOAD_AS(int8_t, uint64_t, (int64_t)v_); break;
    case IPFSRT_DTYPE_INT16: LOAD_AS(int16_t, uint64_t, (int64_t)v_); break;
    case IPFSRT_DTYPE_INT32: LOAD_AS(int32_t, uint64_t, (int64_t)v_); break;
    case IPFSRT_DTYPE_UINT8: LOAD_AS(uint8_t, uint64_t, v_); break;
    case IPFSRT_DTYPE_UINT16: LOAD_AS(uint16_t, uint64_t, v_); break;
    case IPFSRT_DTYPE_UINT32: LOAD_AS(uint32_t, uint64_t, v_); break;
    default: LOAD_AS(uint64_t, uint64_t, v_); break; /* int64 as its bits */
    }
}

#define STORE_AS(T, conv) ROW_LOOP(T, { T v_ = (T)(conv); memcpy(at_, &v_, sizeof v_); })

IPFSRT_NDVECTOR static void row_store_float(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const double *in) {
    if (d == IPFSRT_DTYPE_FLOAT32) STORE_AS(float, in[i]);
    else STORE_AS(double, in[i]);
}

/* Signed targets are written through the unsigned type of their width: the
 * same bits, without C's implementation-defined narrowing. */
IPFSRT_NDVECTOR static void row_store_bits(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const uint64_t *in) {
    if (d == IPFSRT_DTYPE_BOOL) {
        STORE_AS(uint8_t, in[i] != 0);
        return;
    }
    switch (ipfsrt_dtype_size(d)) {
    case 1: STORE_AS(uint8_t, in[i]); break;
    case 2: STORE_AS(uint16_t, in[i]); break;
    case 4: STORE_AS(uint32_t, in[i]); break;
    default: STORE_AS(uint64_t, in[i]); break;
    }
}

void ipfsrt_ndrow_load_double(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, double *out) { row_load_double(d, p, s, n, out); }

void ipfsrt_ndrow_load_bits(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, uint64_t *out) { row_load_bits(d, p, s, n, out); }

void ipfsrt_ndrow_store_float(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const double *in) { row_store_float(d, p, s, n, in); }

void ipfsrt_ndrow_store_bits(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const uint64_t *in) { row_store_bits(d, p, s, n, in); }

/* Typed moves of BITS-wide elements; the compiler vectorizes the ones whose
 * strides are the element size. */
#define DEFINE_COPY(BITS)                                                             \
    IPFSRT_NDVECTOR static void copy_##BITS(unsigned char *out, ptrdiff_t os, const unsigned char *in, \
                                            ptrdiff_t is, size_t n) {                 \
        typedef uint##BITS##_t U;                                                     \
        if (os == (ptrdiff_t)sizeof(U) && is == -(ptrdiff_t)sizeof(U) && (uintptr_t)out % sizeof(U) == 0 && \
            (uintptr_t)in % sizeof(U) == 0) {                                         \
            U *o = (U *)(void *)out;                                                  \
            const U *x = (const U *)(const void *)in;                                 \
            for (size_t i = 0; i < n; i++) o[i] = *(x - (ptrdiff_t)i); /* reversed */ \
            return;                                                                   \
        }                                                                             \
        if (os == (ptrdiff_t)sizeof(U) && is == 2 * (ptrdiff_t)sizeof(U) && (uintptr_t)out % sizeof(U) == 0 && \
            (uintptr_t)in % sizeof(U) == 0) {                                         \
            U *o = (U *)(void *)out;                                                  \
            const U *x = (const U *)(const void *)in;                                 \
            for (size_t i = 0; i < n; i++) o[i] = x[2 * i]; /* every other one */     \
            return;                                                                   \
        }                                                                             \
        for (size_t i = 0; i < n; i++) {                                              \
            U v;                                                                      \
            memcpy(&v, in + (ptrdiff_t)i * is, sizeof v);                             \
            memcpy(out + (ptrdiff_t)i * os, &v, sizeof v);                            \
        }                                                                             \
    }

DEFINE_COPY(8)
DEFINE_COPY(16)
DEFINE_COPY(32)
DEFINE_COPY(64)

void ipfsrt_ndrow_copy(unsigned char *out, ptrdiff_t os, const unsigned char *in, ptrdiff_t is, size_t n,
                       size_t size) {
    if (os == (ptrdiff_t)size && is == (ptrdiff_t)size) {
        memcpy(out, in, n * size);
        return;
    }
    switch (size) {
    case 1: copy_8(out, os, in, is, n); break;
    case 2: copy_16(out, os, in, is, n); break;
    case 4: copy_32(out, os, in, is, n); break;
    case 8: copy_64(out, os, in, is, n); break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(out + (ptrdiff_t)i * os, in + (ptrdiff_t)i * is, size);
    }
}

const void *ipfsrt_ndrow_gather(const unsigned char *p, ptrdiff_t s, size_t n, size_t size, void *buf) {
    if (s == (ptrdiff_t)size && (uintptr_t)p % size == 0) return p;
    ipfsrt_ndrow_copy(buf, (ptrdiff_t)size, p, s, n, size);
    return buf;
}

static atomic_bool typed_loops_refused;
static atomic_size_t typed_loops_taken;

void ipfsrt_ndfast_allow(bool allowed) { atomic_store(&typed_loops_refused, !allowed); }

bool ipfsrt_ndfast_allowed(void) { return !atomic_load_explicit(&typed_loops_refused, memory_order_relaxed); }

void ipfsrt_ndfast_hit(void) { atomic_fetch_add_explicit(&typed_loops_taken, 1, memory_order_relaxed); }

size_t ipfsrt_ndfast_hits(void) { return atomic_load(&typed_loops_taken); }
