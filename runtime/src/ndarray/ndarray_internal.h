/* What the ndarray files share; not public. */
#ifndef IPFSRT_NDARRAY_INTERNAL_H
#define IPFSRT_NDARRAY_INTERNAL_H

#include "ipfsrt/ndarray.h"

struct ipfsrt_ndbuffer {
    size_t refs;
    size_t size;
    size_t mapped; /* bytes mapped for it (header included), 0 when from malloc */
    _Alignas(16) unsigned char data[];
};

/* A new buffer of size bytes with one reference: zeroed, or holding whatever
 * bytes a reused buffer held (for results whose every element is written). */
ipfsrt_ndbuffer *ipfsrt_ndbuffer_new(size_t size, bool zeroed);
/* The bytes an array of shape holds (0 when a dimension is 0), or ETOO_LARGE
 * when its dimensions other than 0 do not fit together in memory. */
ipfsrt_status ipfsrt_ndarray_shape_bytes(int ndim, const size_t *shape, size_t itemsize, size_t *bytes,
                                         ipfsrt_error *err);
void ipfsrt_ndbuffer_unref(ipfsrt_ndbuffer *b);

/* ipfsrt_ndarray_zeros, with the choice of ipfsrt_ndbuffer_new. */
ipfsrt_status ipfsrt_ndarray_new_buffer(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                        const size_t *shape, bool zeroed, ipfsrt_error *err);

/* Stores v (already checked to fit) into the element at p. */
void ipfsrt_ndstore_double(ipfsrt_dtype dtype, unsigned char *p, double v);
/* Whether v fits dtype exactly enough to store: integers in range (floats
 * truncate toward zero), no NaN or infinity into integers. */
ipfsrt_status ipfsrt_ndcheck_double(ipfsrt_dtype dtype, double v, ipfsrt_error *err);

/* Calls fn for each element of a in C order (offsets from a->data). */
void ipfsrt_ndarray_each(const ipfsrt_ndarray *a, void (*fn)(void *user, unsigned char *p),
                         void *user);

/* The typed loops are compiled twice on x86-64, for AVX2 and for the baseline,
 * and the loader picks one for the CPU (as numpy dispatches its loops): the
 * baseline's 16-byte vectors leave half the speed of a current CPU unused. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute) && !defined(IPFSRT_NO_CLONES)
#if __has_attribute(target_clones)
#define IPFSRT_NDVECTOR __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef IPFSRT_NDVECTOR
#define IPFSRT_NDVECTOR
#endif

/* A family of typed loops is NAME_i8, NAME_i16, ... NAME_f64, one per dtype
 * (bool shares uint8's): these call the one for dtype d (switch statements). */
#define IPFSRT_NDTYPED_RETURN(d, NAME, ...)                                           \
    switch (d) {                                                                      \
    case IPFSRT_DTYPE_INT8: return NAME##_i8(__VA_ARGS__);                            \
    case IPFSRT_DTYPE_INT16: return NAME##_i16(__VA_ARGS__);                          \
    case IPFSRT_DTYPE_INT32: return NAME##_i32(__VA_ARGS__);                          \
    case IPFSRT_DTYPE_INT64: return NAME##_i64(__VA_ARGS__);                          \
    case IPFSRT_DTYPE_UINT16: return NAME##_u16(__VA_ARGS__);                         \
    case IPFSRT_DTYPE_UINT32: return NAME##_u32(__VA_ARGS__);                         \
    case IPFSRT_DTYPE_UINT64: return NAME##_u64(__VA_ARGS__);                         \
    case IPFSRT_DTYPE_FLOAT32: return NAME##_f32(__VA_ARGS__);                        \
    case IPFSRT_DTYPE_FLOAT64: return NAME##_f64(__VA_ARGS__);                        \
    default: return NAME##_u8(__VA_ARGS__);                                           \
    }
#define IPFSRT_NDTYPED_CALL(d, NAME, ...)                                             \
    switch (d) {                                                                      \
    case IPFSRT_DTYPE_INT8: NAME##_i8(__VA_ARGS__); break;                            \
    case IPFSRT_DTYPE_INT16: NAME##_i16(__VA_ARGS__); break;                          \
    case IPFSRT_DTYPE_INT32: NAME##_i32(__VA_ARGS__); break;                          \
    case IPFSRT_DTYPE_INT64: NAME##_i64(__VA_ARGS__); break;                          \
    case IPFSRT_DTYPE_UINT16: NAME##_u16(__VA_ARGS__); break;                         \
    case IPFSRT_DTYPE_UINT32: NAME##_u32(__VA_ARGS__); break;                         \
    case IPFSRT_DTYPE_UINT64: NAME##_u64(__VA_ARGS__); break;                         \
    case IPFSRT_DTYPE_FLOAT32: NAME##_f32(__VA_ARGS__); break;                        \
    case IPFSRT_DTYPE_FLOAT64: NAME##_f64(__VA_ARGS__); break;                        \
    default: NAME##_u8(__VA_ARGS__); break;                                           \
    }

/* Inside typed loops: NaN tests that are no test for integers (a self-compare
 * of an integer draws a warning), and a loop writing expr of element i as U. */
#define IPFSRT_NDNAN_INT(v) 0
#define IPFSRT_NDNAN_FLOAT(v) ((v) != (v))
#define IPFSRT_NDLOOP(U, expr)                                                        \
    do {                                                                              \
        U *o = (U *)(void *)out;                                                      \
        for (size_t i = 0; i < n; i++) o[i] = (U)(expr);                              \
    } while (0)

/* What elementwise code needs to know about a dtype. */
typedef enum ipfsrt_ndkind { IPFSRT_NDKIND_BOOL, IPFSRT_NDKIND_INT, IPFSRT_NDKIND_UINT, IPFSRT_NDKIND_FLOAT,
                             IPFSRT_NDKIND_OTHER } ipfsrt_ndkind;
ipfsrt_ndkind ipfsrt_ndkind_of(ipfsrt_dtype d);

/* Marks in reduced the n axes given (NULL: all), each once, or an error. */
ipfsrt_status ipfsrt_ndaxes_mark(const ipfsrt_ndarray *a, const int *axes, int n, bool *reduced, ipfsrt_error *err);
/* The axes of a marked in reduced moved last and merged, in a contiguous copy
 * (*len the merged lane); shape gets the others' lengths, *kept their count. */
ipfsrt_status ipfsrt_ndlanes_copy(ipfsrt_ndarray *lanes, const ipfsrt_ndarray *a, const bool *reduced, size_t *len,
                                  size_t *shape, int *kept, ipfsrt_error *err);

/* The values of lane l (of len, in a contiguous copy of lanes) as doubles
 * into out, NaN left out (*nan: one was met); how many there are. */
size_t ipfsrt_ndlane_values(const ipfsrt_ndarray *lanes, size_t l, size_t len, double *out, bool *nan);

/* Lanes [first, last) of a job of independent lanes. */
typedef ipfsrt_status (*ipfsrt_ndlanes_fn)(void *user, size_t first, size_t last, ipfsrt_error *err);
/* fn over lanes 0..lanes-1 (each of lane_len values), cut into parts run on
 * the worker threads and the calling one (ipfsrt_threads() in all; small
 * jobs on the calling thread alone); the first failure is returned. */
ipfsrt_status ipfsrt_ndlanes_run(size_t lanes, size_t lane_len, ipfsrt_ndlanes_fn fn, void *user, ipfsrt_error *err);

/* Places the k-th smallest of v[0..n) (no NaN) at v[k], the smaller before
 * it, the greater after it, in O(n log n) at worst. */
void ipfsrt_ndselect_kth(double *v, size_t n, size_t k);

/* One element as a double, or as the low 64 bits of its integer value
 * (sign-extended); stores of a double into a float dtype, of low bits into an
 * integer dtype (wrapping) or a bool (nonzero is true). */
double ipfsrt_ndload_double(ipfsrt_dtype d, const unsigned char *p);
uint64_t ipfsrt_ndload_bits(ipfsrt_dtype d, const unsigned char *p);
/* numpy's truth of an element: nonzero, NaN included. */
bool ipfsrt_ndtruthy(ipfsrt_dtype d, const unsigned char *p);
void ipfsrt_ndstore_float(ipfsrt_dtype d, unsigned char *p, double v);
void ipfsrt_ndstore_bits(ipfsrt_dtype d, unsigned char *p, uint64_t v);

/* The same for n elements stride s bytes apart, in typed loops: what makes the
 * elementwise code run at memory speed. Rows are processed in blocks of
 * IPFSRT_NDROW_BLOCK elements through buffers on the stack. */
#define IPFSRT_NDROW_BLOCK 512
void ipfsrt_ndrow_load_double(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, double *out);
void ipfsrt_ndrow_load_bits(ipfsrt_dtype d, const unsigned char *p, ptrdiff_t s, size_t n, uint64_t *out);
void ipfsrt_ndrow_store_float(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const double *in);
void ipfsrt_ndrow_store_bits(ipfsrt_dtype d, unsigned char *p, ptrdiff_t s, size_t n, const uint64_t *in);

/* n elements of size bytes from in (is bytes apart) to out (os apart). */
void ipfsrt_ndrow_copy(unsigned char *out, ptrdiff_t os, const unsigned char *in, ptrdiff_t is, size_t n,
                       size_t size);

/* n elements of size bytes, s bytes apart from p, as an aligned contiguous
 * run: p itself when it is one, else buf (room for n) filled from it. */
const void *ipfsrt_ndrow_gather(const unsigned char *p, ptrdiff_t s, size_t n, size_t size, void *buf);

/* Up to four operands (out first, then the inputs) walked together over one
 * shape, each with its own strides (0 along broadcast dimensions). Dimensions
 * laid out contiguously for every operand are merged first, so row sees runs as
 * long as the layouts allow: a whole contiguous array is a single row. Set row,
 * or elem to be called once per element. */
typedef struct ipfsrt_ndwalk {
    int ndim, n;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    unsigned char *p[4];
    ptrdiff_t strides[4][IPFSRT_NDARRAY_MAX_DIMS];
    void (*row)(void *ctx, unsigned char **p, const ptrdiff_t *strides, size_t n);
    void (*elem)(void *ctx, unsigned char **p);
    void *ctx;
} ipfsrt_ndwalk;

/* A walk of n operands over shape, with no operands added yet. */
void ipfsrt_ndwalk_init(ipfsrt_ndwalk *w, int ndim, const size_t *shape);
/* Adds an operand; a (broadcast to the walk's shape, right-aligned) or, for
 * the output, its own strides. */
void ipfsrt_ndwalk_add(ipfsrt_ndwalk *w, const ipfsrt_ndarray *a);
void ipfsrt_ndwalk_run(ipfsrt_ndwalk *w);

/* Whether operations may take their typed loops; false sends every one the
 * general, element-by-element way, the reference the tests check the typed
 * loops against. ipfsrt_ndfast_hits counts the operations typed loops took. */
/* numpy's pairwise sum of a block (at most its buffer of 8192 values): what a
 * sum of a contiguous run adds each block with. */
float ipfsrt_ndfast_pairwise_f32(const float *a, size_t n);
double ipfsrt_ndfast_pairwise_f64(const double *a, size_t n);
#define IPFSRT_NDFAST_PAIRWISE_BLOCK 8192
void ipfsrt_ndfast_allow(bool allowed);
bool ipfsrt_ndfast_allowed(void);
void ipfsrt_ndfast_hit(void);
size_t ipfsrt_ndfast_hits(void);

/* A contiguous array as outer lines of len elements, each element inner apart:
 * the lines along axis (all_axes: one line of every element). */
typedef struct ipfsrt_ndlines {
    size_t outer, len, inner;
} ipfsrt_ndlines;
ipfsrt_ndlines ipfsrt_ndlines_of(const ipfsrt_ndarray *a, bool all_axes, int axis);

/* What typed loops made of their case: none (the walk takes it), the
 * results, results of which one had no element to take (min of nothing), or
 * a value that does not fit its conversion. */
enum { IPFSRT_NDFAST_NO, IPFSRT_NDFAST_DONE, IPFSRT_NDFAST_EMPTY, IPFSRT_NDFAST_MISFIT };

/* fn of n elements s bytes apart into a contiguous run of result; false
 * when out is not one (the walk takes it). */
bool ipfsrt_ndfast_unary(ipfsrt_ndfn fn, ipfsrt_dtype in, ipfsrt_dtype result, unsigned char *out,
                         ptrdiff_t out_stride, const unsigned char *x, ptrdiff_t in_stride, size_t n);

/* op on a row of the walk (out, x, y) whose inputs are both of dtype d and
 * whose result is d or bool; false when the case or layout is not one the
 * typed loops take (each input contiguous or stride 0, out contiguous). */
bool ipfsrt_ndfast_binary(ipfsrt_ndop op, ipfsrt_dtype d, ipfsrt_dtype result, unsigned char **p,
                          const ptrdiff_t *s, size_t n);

/* A row of x (dtype d) clipped between single values of d (lo, hi: NULL for
 * none) into out; false when either is not a contiguous, aligned run. */
bool ipfsrt_ndfast_clip(ipfsrt_dtype d, unsigned char *out, ptrdiff_t out_stride, const unsigned char *x,
                        ptrdiff_t in_stride, size_t n, const void *lo, const void *hi);

/* A row of where (out, a bool condition, x, y) whose x, y and out share one
 * dtype of size bytes; false unless the condition is a contiguous run, out
 * one too, x and y runs or single values. */
bool ipfsrt_ndfast_choose(size_t size, unsigned char **p, const ptrdiff_t *s, size_t n);

/* The running sums of a contiguous array along axis into res (shaped, of the
 * running sums' dtype); false when a is not contiguous. */
bool ipfsrt_ndfast_cumsum(ipfsrt_ndarray *res, const ipfsrt_ndarray *a, int axis, bool skipna);

/* n elements s bytes apart converted between dtypes (numbers and bool);
 * MISFIT with the first value (*misfit) of a float that no integer of to holds. */
int ipfsrt_ndfast_cast(ipfsrt_dtype from, ipfsrt_dtype to, unsigned char *out, ptrdiff_t out_stride,
                       const unsigned char *in, ptrdiff_t in_stride, size_t n, double *misfit);

/* min, max, argmin, argmax over everything (any layout) or along an axis of
 * a contiguous array, into res (already shaped). */
int ipfsrt_ndfast_extrema(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                          int axis, bool skipna);

/* any, all and count over everything (any layout) or along an axis of a
 * contiguous array. */
int ipfsrt_ndfast_tally(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                        int axis, bool skipna);
/* var and std, likewise. */
int ipfsrt_ndfast_moments(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                          int axis, bool skipna);

/* Sums and means of contiguous arrays, and masked ones of everything, into
 * res (already shaped); false when the case is not one of those, for the
 * general walk to take. mask: NULL, or a bool array of a's shape. */
bool ipfsrt_ndfast_reduce(ipfsrt_ndarray *res, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                          const ipfsrt_ndarray *mask, bool all_axes, int axis, bool skipna);

/* ipfsrt_ndarray_reduce over one axis (all_axes: over everything) (reduce.c). */
ipfsrt_status ipfsrt_ndreduce_one(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a, bool all_axes,
                                  int axis, bool skipna, const ipfsrt_ndarray *where, ipfsrt_error *err);

#endif
