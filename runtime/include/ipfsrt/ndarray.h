/* ipfsrt — n-d arrays: the values Zarr decodes into, for C hosts and Lua scripts.
 * Indices are 0-based and slices half-open, as in Zarr, numpy and xarray. */
#ifndef IPFSRT_NDARRAY_H
#define IPFSRT_NDARRAY_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPFSRT_NDARRAY_MAX_DIMS 32

typedef enum ipfsrt_dtype {
    IPFSRT_DTYPE_BOOL,
    IPFSRT_DTYPE_INT8, IPFSRT_DTYPE_INT16, IPFSRT_DTYPE_INT32, IPFSRT_DTYPE_INT64,
    IPFSRT_DTYPE_UINT8, IPFSRT_DTYPE_UINT16, IPFSRT_DTYPE_UINT32, IPFSRT_DTYPE_UINT64,
    IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64,
    IPFSRT_DTYPE_COMPLEX64, IPFSRT_DTYPE_COMPLEX128, /* storage */
    IPFSRT_DTYPE_BYTES,                              /* fixed length, NUL-padded */
    IPFSRT_DTYPE_COUNT
} ipfsrt_dtype;

/* numpy's names: "bool", "int8" ... "float64", "complex64", "S<n>" for bytes. */
IPFSRT_API const char *ipfsrt_dtype_name(ipfsrt_dtype dtype);
IPFSRT_API ipfsrt_status ipfsrt_dtype_parse(const char *name, ipfsrt_dtype *dtype, size_t *itemsize,
                                            ipfsrt_error *err);
/* Bytes per element (0 for BYTES: its length is the array's). */
IPFSRT_API size_t ipfsrt_dtype_size(ipfsrt_dtype dtype);
IPFSRT_API bool ipfsrt_dtype_is_int(ipfsrt_dtype dtype);   /* signed or unsigned integers */
IPFSRT_API bool ipfsrt_dtype_is_float(ipfsrt_dtype dtype);

/* The memory arrays share: reference-counted, freed with its last view. */
typedef struct ipfsrt_ndbuffer ipfsrt_ndbuffer;

/* An array: a view (shape, strides in bytes, first element) over a buffer, in
 * native byte order. Caller-owned: ipfsrt_ndarray_init, then one of the
 * functions that fill it, then ipfsrt_ndarray_free (which drops the view's
 * reference to the buffer). */
typedef struct ipfsrt_ndarray {
    ipfsrt_ndbuffer *buffer;
    unsigned char *data; /* the element at index (0, ..., 0) */
    ipfsrt_dtype dtype;
    size_t itemsize;
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    ptrdiff_t strides[IPFSRT_NDARRAY_MAX_DIMS];
} ipfsrt_ndarray;

IPFSRT_API void ipfsrt_ndarray_init(ipfsrt_ndarray *a);
IPFSRT_API void ipfsrt_ndarray_free(ipfsrt_ndarray *a);
/* Gives back to the system the big buffers kept for reuse after their arrays
 * were freed (at most a quarter of physical memory is kept). */
IPFSRT_EXPERIMENTAL void ipfsrt_ndarray_trim_cache(void);
/* Bytes of array buffers allocated so far (never decreases): a garbage-collected
 * host compares it between collections, as the arrays' memory is not its own. */
IPFSRT_EXPERIMENTAL uint64_t ipfsrt_ndarray_allocated_bytes(void);
/* Elements (the product of the shape; 1 for 0-d). */
IPFSRT_API size_t ipfsrt_ndarray_size(const ipfsrt_ndarray *a);
/* C order with no gaps: the elements are data[0 .. size * itemsize). */
IPFSRT_API bool ipfsrt_ndarray_is_contiguous(const ipfsrt_ndarray *a);

/* New arrays in C order, into a caller's struct (initialized or freed: what
 * it held is released first, as by the operations below), like numpy's
 * constructors of the same names. itemsize is for BYTES (0 or ignored
 * otherwise). Sizes are checked before anything is allocated. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_zeros(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                              const size_t *shape, ipfsrt_error *err);
/* The same with elements left unset (numpy's empty), for results whose every
 * element the caller writes before anyone reads them: a large one then costs
 * no pass of zeros. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_empty(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                              const size_t *shape, ipfsrt_error *err);
/* Every element value (converted as astype would: floats truncate into ints;
 * NaN, infinities and out-of-range values are errors). */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_full(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                             const size_t *shape, double value, ipfsrt_error *err);
/* start, start + step, ... below stop (above, for a negative step). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_arange(ipfsrt_ndarray *a, ipfsrt_dtype dtype, double start, double stop,
                                                        double step, ipfsrt_error *err);
/* num values from start to stop, both included (numpy's linspace), float64. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_linspace(ipfsrt_ndarray *a, double start, double stop, size_t num,
                                                          ipfsrt_error *err);
/* Fills dst (an array or any view of one) from len bytes holding its elements
 * in C order and the given byte order; len must be dst's size times its
 * itemsize. Bool bytes other than 0 become true. How decoded chunks land in
 * arrays: straight into the chunk's region of the whole. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_load_bytes(ipfsrt_ndarray *dst, const void *src, size_t len, bool big_endian,
                                                   ipfsrt_error *err);
/* The reverse: src's elements in C order and the given byte order into out,
 * which has room for exactly len = size * itemsize bytes. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_store_bytes(const ipfsrt_ndarray *src, void *out, size_t len, bool big_endian,
                                                    ipfsrt_error *err);
/* Stored values to measured ones, as CF decoding (and xarray) do it, in one
 * pass: values equal to a missing value become NaN; the others are converted
 * to dtype (float32 or float64), then multiplied by scale, then offset added,
 * each step rounded in dtype. */
#define IPFSRT_NDARRAY_MAX_FILLS 4
typedef struct ipfsrt_ndarray_scaling {
    int nfills;
    double fills[IPFSRT_NDARRAY_MAX_FILLS];
    bool has_scale, has_offset;
    double scale, offset;
} ipfsrt_ndarray_scaling;
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unscale(ipfsrt_ndarray *out, const ipfsrt_ndarray *raw, ipfsrt_dtype dtype,
                                                         const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err);
/* The same into dst, an existing float32 or float64 array (any strides, a view
 * into a larger one as well) that raw's values fill (raw broadcast to its shape). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unscale_into(ipfsrt_ndarray *dst, const ipfsrt_ndarray *raw,
                                                              const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err);
/* A C-order copy of src. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_copy(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);

/* One element, by an index per dimension (negatives count from the end). */
typedef struct ipfsrt_ndvalue {
    enum { IPFSRT_NDVALUE_BOOL, IPFSRT_NDVALUE_INT, IPFSRT_NDVALUE_UINT, IPFSRT_NDVALUE_FLOAT,
           IPFSRT_NDVALUE_COMPLEX, IPFSRT_NDVALUE_BYTES } kind;
    bool b;
    int64_t i;
    uint64_t u;
    double f, imag;
    const unsigned char *bytes; /* BYTES: into the array, len trailing NULs dropped */
    size_t len;
} ipfsrt_ndvalue;

IPFSRT_API ipfsrt_status ipfsrt_ndarray_get(const ipfsrt_ndarray *a, const int64_t *index, int n,
                                            ipfsrt_ndvalue *value, ipfsrt_error *err);
/* Sets one element from a double (or an exact integer when is_int): values the
 * dtype cannot hold are errors, not wrapped. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_set(ipfsrt_ndarray *a, const int64_t *index, int n, double value,
                                            int64_t ivalue, bool is_int, ipfsrt_error *err);

/* Per dimension of a slice: an index (the dimension goes), or a range with
 * optional start and stop (absent: open) and a step (0 is an error). Bounds
 * are normalized as Python's slice.indices does; indices out of range fail. */
typedef struct ipfsrt_ndslice {
    bool is_index;
    int64_t index;
    bool has_start, has_stop;
    int64_t start, stop, step;
} ipfsrt_ndslice;

/* The parts of a slice, made whole (a part written with designated
 * initializers alone gets step 0, which is refused): an index (the
 * dimension goes; negative from the end), the whole dimension, [start, stop)
 * (negative from the end), and [start, stop) by step (negative: backwards;
 * use ipfsrt_ndslice_from for an open end). */
static inline ipfsrt_ndslice ipfsrt_ndslice_index(int64_t i) {
    ipfsrt_ndslice s = {true, i, false, false, 0, 0, 1};
    return s;
}
static inline ipfsrt_ndslice ipfsrt_ndslice_all(void) {
    ipfsrt_ndslice s = {false, 0, false, false, 0, 0, 1};
    return s;
}
static inline ipfsrt_ndslice ipfsrt_ndslice_range(int64_t start, int64_t stop) {
    ipfsrt_ndslice s = {false, 0, true, true, start, stop, 1};
    return s;
}
static inline ipfsrt_ndslice ipfsrt_ndslice_steps(int64_t start, int64_t stop, int64_t step) {
    ipfsrt_ndslice s = {false, 0, true, true, start, stop, step};
    return s;
}
/* From start to the end (step > 0) or to the beginning (step < 0). */
static inline ipfsrt_ndslice ipfsrt_ndslice_from(int64_t start, int64_t step) {
    ipfsrt_ndslice s = {false, 0, true, false, start, 0, step};
    return s;
}

/* One dimension of length n: the first index the slice takes and how many
 * (an index: itself, 1). */
IPFSRT_API ipfsrt_status ipfsrt_ndslice_resolve(const ipfsrt_ndslice *s, size_t n, int dim, int64_t *start, int64_t *count,
                                                ipfsrt_error *err);

/* Views: dst shares src's buffer (dst must be initialized; its old view is
 * released). Dimensions past the n given are kept whole. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_slice(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                              const ipfsrt_ndslice *per_dim, int n, ipfsrt_error *err);
/* axes NULL: reversed. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_transpose(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                                  const int *axes, ipfsrt_error *err);
/* A view when src is contiguous, else a copy; one dimension may be -1 (inferred). */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_reshape(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                                const int64_t *shape, ipfsrt_error *err);
/* Drops the dimensions of size 1. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_squeeze(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);
/* src read as if of shape (numpy broadcasting: a dimension of 1 repeats with stride 0). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_broadcast_to(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                                              const size_t *shape, ipfsrt_error *err);
/* The shape two shapes broadcast to, or an error naming both. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_broadcast_shape(int na, const size_t *a, int nb, const size_t *b,
                                                                 int *ndim, size_t *shape, ipfsrt_error *err);

/* ----------------------------------------------------------------- math */

/* numpy's promotion of two array dtypes (see README: the table implemented);
 * complex and bytes take no arithmetic here (an error). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_dtype_promote(ipfsrt_dtype a, ipfsrt_dtype b, ipfsrt_dtype *out,
                                                       ipfsrt_error *err);

typedef enum ipfsrt_ndop {
    IPFSRT_NDOP_ADD, IPFSRT_NDOP_SUB, IPFSRT_NDOP_MUL, IPFSRT_NDOP_DIV, IPFSRT_NDOP_FLOORDIV,
    IPFSRT_NDOP_MOD, IPFSRT_NDOP_POW,
    IPFSRT_NDOP_MAXIMUM, IPFSRT_NDOP_MINIMUM, /* NaN propagates, as numpy's maximum/minimum */
    IPFSRT_NDOP_LT, IPFSRT_NDOP_LE, IPFSRT_NDOP_GT, IPFSRT_NDOP_GE, IPFSRT_NDOP_EQ, IPFSRT_NDOP_NE,
    IPFSRT_NDOP_AND, IPFSRT_NDOP_OR, IPFSRT_NDOP_XOR /* bool arrays */
} ipfsrt_ndop;

/* out = a op b elementwise, a and b broadcast together (out is initialized; it
 * may be a or b). Integers wrap as numpy's do; x // 0 and x % 0 give 0 for
 * integers; negative integer powers are errors. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_binary(ipfsrt_ndarray *out, ipfsrt_ndop op, const ipfsrt_ndarray *a,
                                                        const ipfsrt_ndarray *b, ipfsrt_error *err);

typedef enum ipfsrt_ndfn {
    IPFSRT_NDFN_NEG, IPFSRT_NDFN_ABS, IPFSRT_NDFN_SQRT, IPFSRT_NDFN_EXP, IPFSRT_NDFN_LOG,
    IPFSRT_NDFN_FLOOR, IPFSRT_NDFN_CEIL, IPFSRT_NDFN_ISNAN, IPFSRT_NDFN_ISFINITE, IPFSRT_NDFN_NOT,
    IPFSRT_NDFN_SIN, IPFSRT_NDFN_COS, IPFSRT_NDFN_TAN, IPFSRT_NDFN_DEG2RAD, IPFSRT_NDFN_RAD2DEG
} ipfsrt_ndfn;

/* out = fn(a) elementwise: floats stay floats, sqrt/exp/log/sin/cos/tan and
 * the angle conversions of integers give floats (float32 for 8 and 16 bits, as
 * numpy), isnan/isfinite/not give bool. deg2rad and rad2deg multiply by pi/180
 * (180/pi) rounded to the array's type, as numpy's do. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unary(ipfsrt_ndarray *out, ipfsrt_ndfn fn, const ipfsrt_ndarray *a,
                                                       ipfsrt_error *err);

/* out = a converted to dtype (floats truncate into integers; NaN, infinities
 * and values out of range are errors rather than numpy's undefined results). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_astype(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, ipfsrt_dtype dtype,
                                                        ipfsrt_error *err);

/* out = x where cond is true (nonzero; NaN counts as true), else y; all three
 * broadcast together, the result in the promotion of x and y. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_where(ipfsrt_ndarray *out, const ipfsrt_ndarray *cond, const ipfsrt_ndarray *x,
                                                       const ipfsrt_ndarray *y, ipfsrt_error *err);
/* out = a with values below lo raised to it and above hi lowered to it (either
 * bound NULL: none), as maximum then minimum: bounds broadcast, dtypes promote,
 * NaN stays NaN. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_clip(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const ipfsrt_ndarray *lo,
                                                      const ipfsrt_ndarray *hi, ipfsrt_error *err);
/* Sets every element of a (through views too) to value's one element, converted
 * to a's dtype as astype does. */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_fill(ipfsrt_ndarray *a, const ipfsrt_ndarray *value, ipfsrt_error *err);

typedef enum ipfsrt_ndreduce {
    IPFSRT_NDREDUCE_SUM, IPFSRT_NDREDUCE_MEAN, IPFSRT_NDREDUCE_MIN, IPFSRT_NDREDUCE_MAX,
    IPFSRT_NDREDUCE_COUNT,
    IPFSRT_NDREDUCE_VAR, IPFSRT_NDREDUCE_STD, /* ddof 0, two passes (mean, then deviations) */
    IPFSRT_NDREDUCE_ARGMIN, IPFSRT_NDREDUCE_ARGMAX, /* int64 index along the axis (flat for all) */
    IPFSRT_NDREDUCE_ANY, IPFSRT_NDREDUCE_ALL  /* bool: nonzero, NaN counting as true */
} ipfsrt_ndreduce;

/* Reduces a over the n axes given (each once; negatives count from the end),
 * or over everything when axes is NULL (a 0-d result). skipna leaves NaN out
 * (xarray's default); otherwise NaN propagates (numpy's: argmin/argmax then
 * give the first NaN). where (a bool array broadcast to a's shape, or NULL)
 * leaves out the elements where it is false, as numpy's where= does (not for
 * argmin and argmax). sum: int64/uint64 for integers,
 * the float type for floats; mean, var, std: float64 (float32 stays float32);
 * min/max: the input's dtype; count: int64, the non-NaN elements. Sums and
 * means of masked elements accumulate in double (float32 included) or 64-bit
 * integers. min, max, argmin and argmax of nothing are errors. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_reduce(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                                                        const int *axes, int n, bool skipna, const ipfsrt_ndarray *where,
                                                        ipfsrt_error *err);

/* Medians over axes (axes NULL: over everything, a 0-d result), as numpy's
 * nanmedian with skipna (NaN left out; NaN where nothing is left), else its
 * median (NaN where a NaN is met): float32 stays float32, the rest gives
 * float64. The input is copied once; each lane is selected in O(n log n) at
 * worst. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_median(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int *axes, int n,
                                                        bool skipna, ipfsrt_error *err);

/* numpy's quantile methods (Hyndman and Fan's nine, and numpy's four others). */
typedef enum ipfsrt_quantile_method {
    IPFSRT_QUANTILE_LINEAR, IPFSRT_QUANTILE_LOWER, IPFSRT_QUANTILE_HIGHER, IPFSRT_QUANTILE_MIDPOINT,
    IPFSRT_QUANTILE_NEAREST, IPFSRT_QUANTILE_INVERTED_CDF, IPFSRT_QUANTILE_AVERAGED_INVERTED_CDF,
    IPFSRT_QUANTILE_CLOSEST_OBSERVATION, IPFSRT_QUANTILE_INTERPOLATED_INVERTED_CDF, IPFSRT_QUANTILE_HAZEN,
    IPFSRT_QUANTILE_WEIBULL, IPFSRT_QUANTILE_MEDIAN_UNBIASED, IPFSRT_QUANTILE_NORMAL_UNBIASED
} ipfsrt_quantile_method;

/* numpy's name of a method ("linear", ...), NULL past the last. */
IPFSRT_EXPERIMENTAL const char *ipfsrt_quantile_method_name(ipfsrt_quantile_method m);
/* Whether a method picks one of the values (lower, higher, nearest,
 * inverted_cdf, closest_observation) rather than interpolating. */
IPFSRT_EXPERIMENTAL bool ipfsrt_quantile_method_discrete(ipfsrt_quantile_method m);

/* The nq quantiles q (each in [0, 1]) over axes (NULL: everything), as
 * numpy's nanquantile with skipna (NaN left out; NaN where nothing is left),
 * else its quantile (NaN where a NaN is met). out has a first axis of nq,
 * then a's axes not reduced. Methods that pick a value keep a's dtype; the
 * others give float64. Each lane is selected, not sorted: O(n) on average. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_quantile(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const double *q,
                                                          size_t nq, const int *axes, int n, ipfsrt_quantile_method method,
                                                          bool skipna, ipfsrt_error *err);

/* a sorted along axis (positions false), or the positions that sort it (int64,
 * positions true): stable (equal values keep their order), NaN last, as
 * numpy's sort and argsort with kind="stable". */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_sort(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool positions,
                                                      ipfsrt_error *err);

/* The n positions of a along axis (negative ones from the end), in the order
 * given, as numpy's take: a copy, of a's dtype. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_take(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int64_t *indices,
                                                      size_t n, int axis, ipfsrt_error *err);

/* Weighted sums over the last n axes of x (floats): num = sum of x * w and
 * den = sum of w, over the values of x other than NaN, in the bits the
 * arrays where(isnan(x), 0, x * w) and where(isnan(x), 0, w) summed over those
 * axes give, without making them. w broadcasts to x and may vary along the
 * last n axes only (else EUNSUPPORTED). num is in the promotion of x and w,
 * den in w's dtype; both of x's shape without its last n axes. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_weighted_sums(ipfsrt_ndarray *num, ipfsrt_ndarray *den, const ipfsrt_ndarray *x,
                                                               const ipfsrt_ndarray *w, int n, ipfsrt_error *err);

typedef enum ipfsrt_ndaccumulate {
    IPFSRT_NDACCUMULATE_SUM, IPFSRT_NDACCUMULATE_MIN, IPFSRT_NDACCUMULATE_MAX
} ipfsrt_ndaccumulate;

/* Folds the rows of x (along its first axis) into total, in place, as a
 * reduction along that axis folds them: sums one row after another in the
 * sum's dtype (float32 stays float32, integers int64/uint64), NaN counting as
 * 0 with skipna; extremes with NaN never winning (when first, total starts
 * as NaN for floats, x's first row for integers; else it holds the extremes
 * so far). count (int64,
 * or NULL) gains 1 per value other than NaN. total and count are contiguous
 * arrays of x's shape without its first axis: parts of the rows folded in
 * turn give the reduction of all of them, bit for bit. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_accumulate(ipfsrt_ndarray *total, ipfsrt_ndarray *count, const ipfsrt_ndarray *x,
                                                            ipfsrt_ndaccumulate how, bool skipna, bool first, ipfsrt_error *err);

/* Rounds half to even at `decimals` digits (negative: tens, hundreds...);
 * integers with decimals >= 0 are unchanged; the dtype is kept. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_round(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int decimals,
                                                       ipfsrt_error *err);

/* Running sums along an axis, in sum's dtype; with skipna NaN counts as 0
 * (nancumsum, xarray's default), else it propagates (numpy's cumsum). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_cumsum(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool skipna,
                                                        ipfsrt_error *err);

/* Writes src into dst (a view, often), src broadcast to dst's shape and
 * converted to its dtype as astype does. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_assign(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);

/* Joins arrays along an existing axis (concat: the other dimensions equal), or
 * along a new one (stack: all shapes equal), in their promoted dtype. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_concat(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                                        ipfsrt_error *err);
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_stack(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                                       ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
