/** @file
 * ipfsrt — n-d arrays: the values Zarr decodes into, for C hosts and Lua scripts. Indices are 0-based and slices half-open, as in Zarr, numpy and xarray. */
#ifndef IPFSRT_NDARRAY_H
#define IPFSRT_NDARRAY_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most dimensions an array has (numpy's limit too). */
#define IPFSRT_NDARRAY_MAX_DIMS 32

/** Element types, as numpy names them. */
typedef enum ipfsrt_dtype {
    IPFSRT_DTYPE_BOOL,
    IPFSRT_DTYPE_INT8, IPFSRT_DTYPE_INT16, IPFSRT_DTYPE_INT32, IPFSRT_DTYPE_INT64,
    IPFSRT_DTYPE_UINT8, IPFSRT_DTYPE_UINT16, IPFSRT_DTYPE_UINT32, IPFSRT_DTYPE_UINT64,
    IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64,
    IPFSRT_DTYPE_COMPLEX64, IPFSRT_DTYPE_COMPLEX128, /**< storage */
    IPFSRT_DTYPE_BYTES,                              /**< fixed length, NUL-padded */
    IPFSRT_DTYPE_COUNT                               /**< how many */
} ipfsrt_dtype;

/** numpy's name of a dtype: "bool", "int8" ... "float64", "complex64", "S" for bytes.
 * @param dtype the dtype
 * @return a static string ("unknown" outside the enum)
 * @owner the library's */
IPFSRT_API const char *ipfsrt_dtype_name(ipfsrt_dtype dtype);
/** The dtype a numpy name stands for ("float32", "S16").
 * @param name the name
 * @param dtype set on success
 * @param itemsize the bytes per element (a BYTES length), when not NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: not a dtype name */
IPFSRT_API ipfsrt_status ipfsrt_dtype_parse(const char *name, ipfsrt_dtype *dtype, size_t *itemsize,
                                            ipfsrt_error *err);
/** Bytes per element.
 * @param dtype the dtype
 * @return the size, 0 for BYTES (its length is the array's itemsize) */
IPFSRT_API size_t ipfsrt_dtype_size(ipfsrt_dtype dtype);
/** Whether a dtype is a signed or unsigned integer.
 * @param dtype the dtype
 * @return true for integers (not bool) */
IPFSRT_API bool ipfsrt_dtype_is_int(ipfsrt_dtype dtype);
/** Whether a dtype is float32 or float64.
 * @param dtype the dtype
 * @return true for floats */
IPFSRT_API bool ipfsrt_dtype_is_float(ipfsrt_dtype dtype);

/** The memory arrays share: reference-counted, freed with its last view. */
typedef struct ipfsrt_ndbuffer ipfsrt_ndbuffer;

/** An array: a view (shape, strides in bytes, first element) over a buffer, in
 * native byte order. Caller-owned: ipfsrt_ndarray_init, then one of the
 * functions that fill it, then ipfsrt_ndarray_free (which drops the view's
 * reference to the buffer). */
typedef struct ipfsrt_ndarray {
    ipfsrt_ndbuffer *buffer; /**< the memory viewed, counted (NULL: none) */
    unsigned char *data; /**< the element at index (0, ..., 0) */
    ipfsrt_dtype dtype;  /**< the elements' type */
    size_t itemsize;     /**< bytes per element */
    int ndim;            /**< dimensions, 0 for a scalar */
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];      /**< elements per dimension */
    ptrdiff_t strides[IPFSRT_NDARRAY_MAX_DIMS]; /**< bytes from one element to the next, per dimension */
} ipfsrt_ndarray;

/** An empty array (no buffer, 0 dimensions), ready to be filled.
 * @param a the caller's struct
 * @owner the caller's; ipfsrt_ndarray_free releases its view */
IPFSRT_API void ipfsrt_ndarray_init(ipfsrt_ndarray *a);
/** Drops the array's reference to its buffer (freed with its last view) and
 * leaves the struct empty (initialized).
 * @param a the array
 * @owner pointers into its data are valid only while another view holds the buffer */
IPFSRT_API void ipfsrt_ndarray_free(ipfsrt_ndarray *a);
/** Gives back to the system the big buffers kept for reuse after their arrays
 * were freed (at most a quarter of physical memory is kept). */
IPFSRT_EXPERIMENTAL void ipfsrt_ndarray_trim_cache(void);
/** Bytes of array buffers allocated so far (never decreases): a
 * garbage-collected host compares it between collections, as the arrays' memory
 * is not its own.
 * @return the bytes */
IPFSRT_EXPERIMENTAL uint64_t ipfsrt_ndarray_allocated_bytes(void);
/** The array's elements: the product of its shape.
 * @param a the array
 * @return the count (1 for 0-d) */
IPFSRT_API size_t ipfsrt_ndarray_size(const ipfsrt_ndarray *a);
/** Whether the array is in C order with no gaps: its elements are the size
 * times itemsize bytes from data on.
 * @param a the array
 * @return true when contiguous */
IPFSRT_API bool ipfsrt_ndarray_is_contiguous(const ipfsrt_ndarray *a);

/** A new C-order array of zeros (numpy's zeros). Sizes are checked before
 * anything is allocated.
 * @param a initialized or freed: what it held is released first
 * @param dtype the element type
 * @param itemsize for BYTES; 0 or ignored otherwise
 * @param ndim dimensions
 * @param shape ndim lengths
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (ndim past IPFSRT_NDARRAY_MAX_DIMS, a dtype);
 * IPFSRT_ETOO_LARGE (a size that overflows); IPFSRT_EOUT_OF_MEMORY
 * @owner a's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_zeros(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                              const size_t *shape, ipfsrt_error *err);
/** ipfsrt_ndarray_zeros with elements left unset (numpy's empty), for results
 * whose every element the caller writes before anyone reads them.
 * @param a initialized or freed: what it held is released first
 * @param dtype the element type
 * @param itemsize for BYTES
 * @param ndim dimensions
 * @param shape ndim lengths
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_ndarray_zeros
 * @owner a's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_empty(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                              const size_t *shape, ipfsrt_error *err);
/** A new C-order array of one value (numpy's full), converted as astype would:
 * floats truncate into integers.
 * @param a initialized or freed: what it held is released first
 * @param dtype the element type
 * @param itemsize for BYTES
 * @param ndim dimensions
 * @param shape ndim lengths
 * @param value the value
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_ndarray_zeros; IPFSRT_EBAD_RANGE (NaN, infinities and values the dtype cannot hold)
 * @owner a's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_full(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                             const size_t *shape, double value, ipfsrt_error *err);
/** start, start + step, ... below stop (above, for a negative step), numpy's arange.
 * @param a initialized or freed: what it held is released first
 * @param dtype the element type
 * @param start the first value
 * @param stop the end, not included
 * @param step not 0
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a step of 0, NaN bounds); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner a's buffer is the caller's */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_arange(ipfsrt_ndarray *a, ipfsrt_dtype dtype, double start, double stop,
                                                        double step, ipfsrt_error *err);
/** num float64 values from start to stop, both included (numpy's linspace).
 * @param a initialized or freed
 * @param start the first value
 * @param stop the last value
 * @param num how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner a's buffer is the caller's */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_linspace(ipfsrt_ndarray *a, double start, double stop, size_t num,
                                                          ipfsrt_error *err);
/** Fills dst (an array or any view of one) from bytes holding its elements in C
 * order and the given byte order; bool bytes other than 0 become true. How
 * decoded chunks land in arrays: straight into the chunk's region of the whole.
 * @param dst the array written
 * @param src len bytes
 * @param len dst's size times its itemsize
 * @param big_endian the bytes' order
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: another length */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_load_bytes(ipfsrt_ndarray *dst, const void *src, size_t len, bool big_endian,
                                                   ipfsrt_error *err);
/** src's elements in C order and the given byte order into out.
 * @param src the array read
 * @param out room for exactly len bytes
 * @param len src's size times its itemsize
 * @param big_endian the order wanted
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: another length */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_store_bytes(const ipfsrt_ndarray *src, void *out, size_t len, bool big_endian,
                                                    ipfsrt_error *err);
/** Stored values to measured ones, as CF decoding (and xarray) do it, in one
 * pass: values equal to a missing value become NaN; the others are converted
 * to dtype (float32 or float64), then multiplied by scale, then offset added,
 * each step rounded in dtype. */
#define IPFSRT_NDARRAY_MAX_FILLS 4
/** How stored values become measured ones (ipfsrt_ndarray_unscale). */
typedef struct ipfsrt_ndarray_scaling {
    int nfills;                             /**< how many missing values */
    double fills[IPFSRT_NDARRAY_MAX_FILLS]; /**< stored values that mean missing (NaN) */
    bool has_scale;                         /**< multiply by scale */
    bool has_offset;                        /**< then add offset */
    double scale;                           /**< CF scale_factor */
    double offset;                          /**< CF add_offset */
} ipfsrt_ndarray_scaling;
/** Stored values to measured ones, as CF decoding (and xarray) do it, in one
 * pass: values equal to a missing value become NaN; the others are converted
 * to dtype, then multiplied by scale, then offset added, each step rounded in dtype.
 * @param out initialized; replaced by the result (what it held released first)
 * @param raw the stored values
 * @param dtype float32 or float64
 * @param scaling the missing values, scale and offset
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unscale(ipfsrt_ndarray *out, const ipfsrt_ndarray *raw, ipfsrt_dtype dtype,
                                                         const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err);
/** ipfsrt_ndarray_unscale into dst, an existing float32 or float64 array (any
 * strides, a view into a larger one as well) that raw's values fill (raw
 * broadcast to its shape).
 * @param dst written
 * @param raw the stored values
 * @param scaling the missing values, scale and offset
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unscale_into(ipfsrt_ndarray *dst, const ipfsrt_ndarray *raw,
                                                              const ipfsrt_ndarray_scaling *scaling, ipfsrt_error *err);
/** A C-order copy of src.
 * @param dst initialized; replaced by the copy
 * @param src the array (dst may be src)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner dst's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_copy(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);

/** One element, by an index per dimension (negatives count from the end). */
typedef struct ipfsrt_ndvalue {
    enum { IPFSRT_NDVALUE_BOOL, IPFSRT_NDVALUE_INT, IPFSRT_NDVALUE_UINT, IPFSRT_NDVALUE_FLOAT,
           IPFSRT_NDVALUE_COMPLEX, IPFSRT_NDVALUE_BYTES } kind; /**< which field holds the value */
    bool b;     /**< BOOL */
    int64_t i;  /**< INT */
    uint64_t u; /**< UINT */
    double f;   /**< FLOAT; COMPLEX's real part */
    double imag; /**< COMPLEX's imaginary part */
    const unsigned char *bytes; /**< BYTES: into the array, len trailing NULs dropped */
    size_t len;  /**< BYTES: how many */
} ipfsrt_ndvalue;

/** One element.
 * @param a the array
 * @param index n indices, one per dimension (negatives count from the end)
 * @param n a's dimensions
 * @param value set on success (bytes point into a)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RANGE: another count of indices, an index out of bounds
 * @owner value->bytes borrows a's buffer */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_get(const ipfsrt_ndarray *a, const int64_t *index, int n,
                                            ipfsrt_ndvalue *value, ipfsrt_error *err);
/** Sets one element; values the dtype cannot hold are errors, not wrapped.
 * @param a the array
 * @param index n indices (negatives count from the end)
 * @param n a's dimensions
 * @param value the value as a double
 * @param ivalue the value as an exact integer, with is_int
 * @param is_int take ivalue
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RANGE (the index, a value out of range); IPFSRT_EUNSUPPORTED (complex, bytes) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_set(ipfsrt_ndarray *a, const int64_t *index, int n, double value,
                                            int64_t ivalue, bool is_int, ipfsrt_error *err);

/** Per dimension of a slice: an index (the dimension goes), or a range with
 * optional start and stop (absent: open) and a step (0 is an error). Bounds
 * are normalized as Python's slice.indices does; indices out of range fail. */
typedef struct ipfsrt_ndslice {
    bool is_index;   /**< an index: the dimension goes */
    int64_t index;   /**< which (negative: from the end) */
    bool has_start;  /**< start given; else open */
    bool has_stop;   /**< stop given; else open */
    int64_t start;   /**< the first position (negative: from the end) */
    int64_t stop;    /**< the position past the last */
    int64_t step;    /**< 1 or more, or negative (0: an error) */
} ipfsrt_ndslice;

/** The parts of a slice, made whole: a part written with designated
 * initializers alone gets step 0, which is refused. */
/** An index: the dimension goes.
 * @param i the position (negative from the end)
 * @return the part */
static inline ipfsrt_ndslice ipfsrt_ndslice_index(int64_t i) {
    ipfsrt_ndslice s = {true, i, false, false, 0, 0, 1};
    return s;
}
/** The whole dimension.
 * @return the part */
static inline ipfsrt_ndslice ipfsrt_ndslice_all(void) {
    ipfsrt_ndslice s = {false, 0, false, false, 0, 0, 1};
    return s;
}
/** [start, stop), bounds normalized as Python's slice.indices does.
 * @param start the first position (negative from the end)
 * @param stop the end, not included (negative from the end)
 * @return the part */
static inline ipfsrt_ndslice ipfsrt_ndslice_range(int64_t start, int64_t stop) {
    ipfsrt_ndslice s = {false, 0, true, true, start, stop, 1};
    return s;
}
/** [start, stop) by step (negative: backwards; ipfsrt_ndslice_from for an open end).
 * @param start the first position
 * @param stop the end, not included
 * @param step not 0
 * @return the part */
static inline ipfsrt_ndslice ipfsrt_ndslice_steps(int64_t start, int64_t stop, int64_t step) {
    ipfsrt_ndslice s = {false, 0, true, true, start, stop, step};
    return s;
}
/** From start to the end (step > 0) or to the beginning (step < 0).
 * @param start the first position
 * @param step not 0
 * @return the part */
static inline ipfsrt_ndslice ipfsrt_ndslice_from(int64_t start, int64_t step) {
    ipfsrt_ndslice s = {false, 0, true, false, start, 0, step};
    return s;
}
/** One dimension's part of a slice, normalized as Python's slice.indices does.
 * @param s the part
 * @param n the dimension's length
 * @param dim its number, for messages
 * @param start the first index the part takes
 * @param count how many (an index: 1)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a step of 0); IPFSRT_EBAD_RANGE (an index out of range) */
IPFSRT_API ipfsrt_status ipfsrt_ndslice_resolve(const ipfsrt_ndslice *s, size_t n, int dim, int64_t *start, int64_t *count,
                                                ipfsrt_error *err);

/** A view of part of src: dst shares src's buffer.
 * @param dst initialized; its old view released
 * @param src the array (dst may be src)
 * @param per_dim n parts; dimensions past n are kept whole
 * @param n how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RANGE (more parts than dimensions, an index out of bounds);
 * IPFSRT_EBAD_ARGUMENT (a step of 0)
 * @owner dst holds a reference to src's buffer: free both */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_slice(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                              const ipfsrt_ndslice *per_dim, int n, ipfsrt_error *err);
/** A view with the axes permuted.
 * @param dst initialized; its old view released
 * @param src the array
 * @param axes a permutation of src's axes; NULL: reversed
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: not a permutation
 * @owner dst holds a reference to src's buffer */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_transpose(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src,
                                                  const int *axes, ipfsrt_error *err);
/** src in another shape: a view when src is contiguous, else a copy.
 * @param dst initialized; replaced
 * @param src the array
 * @param ndim dimensions
 * @param shape ndim lengths; one may be -1 (inferred)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: another element count, two -1; IPFSRT_EOUT_OF_MEMORY
 * @owner dst's buffer (shared or new) is released by ipfsrt_ndarray_free */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_reshape(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                                const int64_t *shape, ipfsrt_error *err);
/** A view without the dimensions of size 1.
 * @param dst initialized; its old view released
 * @param src the array
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors none: a view never fails (the status is for the call's form)
 * @owner dst holds a reference to src's buffer */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_squeeze(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);
/** src read as if of shape (numpy broadcasting: a dimension of 1 repeats with stride 0).
 * @param dst initialized; its old view released
 * @param src the array
 * @param ndim dimensions
 * @param shape ndim lengths
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: shapes that do not broadcast, naming both
 * @owner dst holds a reference to src's buffer */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_broadcast_to(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, int ndim,
                                                              const size_t *shape, ipfsrt_error *err);
/** The shape two shapes broadcast to.
 * @param na a's dimensions
 * @param a na lengths
 * @param nb b's dimensions
 * @param b nb lengths
 * @param ndim set to the result's dimensions
 * @param shape room for IPFSRT_NDARRAY_MAX_DIMS lengths
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: they do not broadcast (the message names both) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_broadcast_shape(int na, const size_t *a, int nb, const size_t *b,
                                                                 int *ndim, size_t *shape, ipfsrt_error *err);

/* ----------------------------------------------------------------- math */

/** numpy's promotion of two array dtypes (lua/README.md gives the table).
 * @param a a dtype
 * @param b another
 * @param out set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED: complex and bytes take no arithmetic here */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_dtype_promote(ipfsrt_dtype a, ipfsrt_dtype b, ipfsrt_dtype *out,
                                                       ipfsrt_error *err);

/** Elementwise operations on two arrays (ipfsrt_ndarray_binary). */
typedef enum ipfsrt_ndop {
    IPFSRT_NDOP_ADD, IPFSRT_NDOP_SUB, IPFSRT_NDOP_MUL, IPFSRT_NDOP_DIV, IPFSRT_NDOP_FLOORDIV,
    IPFSRT_NDOP_MOD, IPFSRT_NDOP_POW,
    IPFSRT_NDOP_MAXIMUM, IPFSRT_NDOP_MINIMUM, /**< NaN propagates, as numpy's maximum/minimum */
    IPFSRT_NDOP_LT, IPFSRT_NDOP_LE, IPFSRT_NDOP_GT, IPFSRT_NDOP_GE, IPFSRT_NDOP_EQ, IPFSRT_NDOP_NE,
    IPFSRT_NDOP_AND, IPFSRT_NDOP_OR, IPFSRT_NDOP_XOR /**< bool arrays */
} ipfsrt_ndop;

/** out = a op b elementwise, a and b broadcast together, in their promoted
 * dtype (comparisons: bool). Integers wrap as numpy's do; x // 0 and x % 0
 * give 0 for integers; negative integer powers are errors.
 * @param out initialized; replaced (it may be a or b)
 * @param op the operation
 * @param a an operand
 * @param b the other
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_binary(ipfsrt_ndarray *out, ipfsrt_ndop op, const ipfsrt_ndarray *a,
                                                        const ipfsrt_ndarray *b, ipfsrt_error *err);

/** Elementwise functions of one array (ipfsrt_ndarray_unary). */
typedef enum ipfsrt_ndfn {
    IPFSRT_NDFN_NEG, IPFSRT_NDFN_ABS, IPFSRT_NDFN_SQRT, IPFSRT_NDFN_EXP, IPFSRT_NDFN_LOG,
    IPFSRT_NDFN_FLOOR, IPFSRT_NDFN_CEIL, IPFSRT_NDFN_ISNAN, IPFSRT_NDFN_ISFINITE, IPFSRT_NDFN_NOT,
    IPFSRT_NDFN_SIN, IPFSRT_NDFN_COS, IPFSRT_NDFN_TAN, IPFSRT_NDFN_DEG2RAD, IPFSRT_NDFN_RAD2DEG
} ipfsrt_ndfn;

/** out = fn(a) elementwise: floats stay floats, sqrt/exp/log/sin/cos/tan and the
 * angle conversions of integers give floats (float32 for 8 and 16 bits, as
 * numpy), isnan/isfinite/not give bool.
 * @param out initialized; replaced by the result (what it held released first) (it may be a)
 * @param fn the function
 * @param a the array
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_unary(ipfsrt_ndarray *out, ipfsrt_ndfn fn, const ipfsrt_ndarray *a,
                                                       ipfsrt_error *err);

/** out = a converted to dtype (floats truncate into integers).
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param dtype the type wanted
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RANGE (NaN, infinities and values out of range: errors
 * rather than numpy's undefined results); IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_astype(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, ipfsrt_dtype dtype,
                                                        ipfsrt_error *err);

/** out = x where cond is true (nonzero; NaN counts as true), else y; all three
 * broadcast together, the result in the promotion of x and y.
 * @param out initialized; replaced by the result (what it held released first)
 * @param cond the condition
 * @param x where true
 * @param y where false
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_where(ipfsrt_ndarray *out, const ipfsrt_ndarray *cond, const ipfsrt_ndarray *x,
                                                       const ipfsrt_ndarray *y, ipfsrt_error *err);
/** out = a with values below lo raised to it and above hi lowered to it, as
 * maximum then minimum: bounds broadcast, dtypes promote, NaN stays NaN.
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param lo the lower bound, or NULL
 * @param hi the upper bound, or NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_clip(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const ipfsrt_ndarray *lo,
                                                      const ipfsrt_ndarray *hi, ipfsrt_error *err);
/** Sets every element of a (through views too) to value's one element,
 * converted to a's dtype as astype does.
 * @param a written
 * @param value a one-element array
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not one element); IPFSRT_EBAD_RANGE (a value a's dtype cannot hold) */
IPFSRT_API ipfsrt_status ipfsrt_ndarray_fill(ipfsrt_ndarray *a, const ipfsrt_ndarray *value, ipfsrt_error *err);

/** Reductions over axes (ipfsrt_ndarray_reduce). */
typedef enum ipfsrt_ndreduce {
    IPFSRT_NDREDUCE_SUM, IPFSRT_NDREDUCE_MEAN, IPFSRT_NDREDUCE_MIN, IPFSRT_NDREDUCE_MAX,
    IPFSRT_NDREDUCE_COUNT,
    IPFSRT_NDREDUCE_VAR, IPFSRT_NDREDUCE_STD, /**< ddof 0, two passes (mean, then deviations) */
    IPFSRT_NDREDUCE_ARGMIN, IPFSRT_NDREDUCE_ARGMAX, /**< int64 index along the axis (flat for all) */
    IPFSRT_NDREDUCE_ANY, IPFSRT_NDREDUCE_ALL  /**< bool: nonzero, NaN counting as true */
} ipfsrt_ndreduce;

/** Reduces a over the n axes given, or over everything when axes is NULL (a 0-d
 * result). skipna leaves NaN out (xarray's default); otherwise NaN propagates.
 * where leaves out the elements where it is false, as numpy's where= does (not
 * for argmin and argmax). sum: int64/uint64 for integers, the float type for
 * floats; mean, var, std: float64 (float32 stays float32); min/max: the input's
 * dtype; count: int64.
 * @param out initialized; replaced by the result (what it held released first)
 * @param how the reduction
 * @param a the array
 * @param axes n axes, each once (negatives count from the end), or NULL
 * @param n how many
 * @param skipna leave NaN out
 * @param where a bool array broadcast to a's shape, or NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY; min, max, argmin and argmax of nothing (IPFSRT_EBAD_ARGUMENT)
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_reduce(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                                                        const int *axes, int n, bool skipna, const ipfsrt_ndarray *where,
                                                        ipfsrt_error *err);

/** Medians over axes, as numpy's nanmedian with skipna, else its median (NaN
 * where a NaN is met): float32 stays float32, the rest gives float64. Each lane
 * is selected in O(n log n) at worst.
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param axes n axes, or NULL: over everything (a 0-d result)
 * @param n how many
 * @param skipna leave NaN out (NaN where nothing is left)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_median(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int *axes, int n,
                                                        bool skipna, ipfsrt_error *err);

/** numpy's quantile methods (Hyndman and Fan's nine, and numpy's four others). */
typedef enum ipfsrt_quantile_method {
    IPFSRT_QUANTILE_LINEAR, IPFSRT_QUANTILE_LOWER, IPFSRT_QUANTILE_HIGHER, IPFSRT_QUANTILE_MIDPOINT,
    IPFSRT_QUANTILE_NEAREST, IPFSRT_QUANTILE_INVERTED_CDF, IPFSRT_QUANTILE_AVERAGED_INVERTED_CDF,
    IPFSRT_QUANTILE_CLOSEST_OBSERVATION, IPFSRT_QUANTILE_INTERPOLATED_INVERTED_CDF, IPFSRT_QUANTILE_HAZEN,
    IPFSRT_QUANTILE_WEIBULL, IPFSRT_QUANTILE_MEDIAN_UNBIASED, IPFSRT_QUANTILE_NORMAL_UNBIASED
} ipfsrt_quantile_method;

/** numpy's name of a quantile method ("linear", ...).
 * @param m the method
 * @return a static string, NULL past the last
 * @owner the library's */
IPFSRT_EXPERIMENTAL const char *ipfsrt_quantile_method_name(ipfsrt_quantile_method m);
/** Whether a method picks one of the values (lower, higher, nearest,
 * inverted_cdf, closest_observation) rather than interpolating.
 * @param m the method
 * @return true when it picks */
IPFSRT_EXPERIMENTAL bool ipfsrt_quantile_method_discrete(ipfsrt_quantile_method m);

/** The quantiles q over axes, as numpy's nanquantile with skipna, else its
 * quantile. Methods that pick a value keep a's dtype; the others give float64.
 * Each lane is selected, not sorted: O(n) on average.
 * @param out initialized; replaced by the result (what it held released first): a first axis of nq, then a's axes not reduced
 * @param a the array
 * @param q nq quantiles, each in [0, 1]
 * @param nq how many
 * @param axes n axes, or NULL: everything
 * @param n how many
 * @param method numpy's method
 * @param skipna leave NaN out (NaN where nothing is left)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY; IPFSRT_EBAD_ARGUMENT (a q outside [0, 1])
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_quantile(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const double *q,
                                                          size_t nq, const int *axes, int n, ipfsrt_quantile_method method,
                                                          bool skipna, ipfsrt_error *err);

/** a sorted along axis, or the positions that sort it: stable (equal values
 * keep their order), NaN last, as numpy's sort and argsort with kind="stable".
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param axis the axis (negative from the end)
 * @param positions the positions (int64) rather than the values
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_sort(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool positions,
                                                      ipfsrt_error *err);

/** The positions of a along axis, in the order given, as numpy's take: a copy,
 * of a's dtype.
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param indices n positions (negative from the end)
 * @param n how many
 * @param axis the axis
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_RANGE (a position out of bounds); IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_take(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const int64_t *indices,
                                                      size_t n, int axis, ipfsrt_error *err);

/** Weighted sums over the last n axes of x (floats): num = sum of x * w and den
 * = sum of w, over the values of x other than NaN, in the bits
 * where(isnan(x), 0, x * w) and where(isnan(x), 0, w) summed over those axes
 * give, without making them.
 * @param num initialized; replaced: the promotion of x and w, x's shape without its last n axes
 * @param den initialized; replaced: w's dtype, the same shape
 * @param x the values
 * @param w broadcasts to x and may vary along the last n axes only
 * @param n axes
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY (IPFSRT_EUNSUPPORTED: w varying along other axes)
 * @owner num's and den's buffers are the caller's */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_weighted_sums(ipfsrt_ndarray *num, ipfsrt_ndarray *den, const ipfsrt_ndarray *x,
                                                               const ipfsrt_ndarray *w, int n, ipfsrt_error *err);

/** Running reductions along an axis (ipfsrt_ndarray_accumulate). */
typedef enum ipfsrt_ndaccumulate {
    IPFSRT_NDACCUMULATE_SUM, IPFSRT_NDACCUMULATE_MIN, IPFSRT_NDACCUMULATE_MAX
} ipfsrt_ndaccumulate;

/** Folds the rows of x (along its first axis) into total, in place, as a
 * reduction along that axis folds them: parts of the rows folded in turn give
 * the reduction of all of them, bit for bit. Sums go one row after another in
 * the sum's dtype, NaN counting as 0 with skipna; extremes with NaN never
 * winning (when first, total starts as NaN for floats, x's first row for
 * integers; else it holds the extremes so far).
 * @param total contiguous, x's shape without its first axis, updated
 * @param count int64 of the same shape gaining 1 per value other than NaN, or NULL
 * @param x the rows
 * @param how sum, min or max
 * @param skipna NaN counts as nothing
 * @param first x's rows are the first folded
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (shapes or dtypes that do not fit); IPFSRT_EUNSUPPORTED */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_accumulate(ipfsrt_ndarray *total, ipfsrt_ndarray *count, const ipfsrt_ndarray *x,
                                                            ipfsrt_ndaccumulate how, bool skipna, bool first, ipfsrt_error *err);

/** Rounds half to even at decimals digits; integers with decimals >= 0 are
 * unchanged; the dtype is kept.
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param decimals digits (negative: tens, hundreds...)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_round(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int decimals,
                                                       ipfsrt_error *err);

/** Running sums along an axis, in sum's dtype; with skipna NaN counts as 0
 * (nancumsum, xarray's default), else it propagates (numpy's cumsum).
 * @param out initialized; replaced by the result (what it held released first)
 * @param a the array
 * @param axis the axis
 * @param skipna NaN counts as 0
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_cumsum(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, int axis, bool skipna,
                                                        ipfsrt_error *err);

/** Writes src into dst (a view, often), src broadcast to dst's shape and
 * converted to its dtype as astype does.
 * @param dst written
 * @param src the values
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (shapes that do not broadcast); IPFSRT_EBAD_RANGE (values dst cannot hold) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_assign(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);

/** Joins arrays along an existing axis (the other dimensions equal), in their
 * promoted dtype.
 * @param out initialized; replaced by the result (what it held released first)
 * @param arrays n arrays
 * @param n how many (1 or more)
 * @param axis the axis
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_concat(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                                        ipfsrt_error *err);
/** Joins arrays of one shape along a new axis, in their promoted dtype.
 * @param out initialized; replaced by the result (what it held released first)
 * @param arrays n arrays
 * @param n how many (1 or more)
 * @param axis where the new axis goes
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (axes, shapes or dtypes that do not fit, naming them);
 * IPFSRT_EUNSUPPORTED (a dtype the operation does not take: complex, bytes);
 * IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_ndarray_stack(ipfsrt_ndarray *out, const ipfsrt_ndarray *const *arrays, int n, int axis,
                                                       ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
