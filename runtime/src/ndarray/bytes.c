/* Arrays from and to bytes in a given byte order: how decoded Zarr chunks land
 * in arrays (straight into the chunk's region of the result, any view) and
 * how arrays are encoded. In memory, arrays are always in native order. */
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_BIG true
#else
#define NATIVE_BIG false
#endif

typedef struct bytes_walk {
    unsigned char *flat; /* the C-order side, consumed as the walk goes */
    size_t itemsize, unit; /* unit: the bytes swapped together (0: none) */
    bool to_array;
    bool is_bool;
} bytes_walk;

/* n elements of `itemsize` bytes, reversing each `unit`-byte group. */
#define SWAP_LOOP(U, BSWAP)                                                              \
    for (size_t i = 0; i < n; i++)                                                       \
        for (size_t k = 0; k < w->itemsize; k += sizeof(U)) {                           \
            U v;                                                                         \
            memcpy(&v, from + (ptrdiff_t)i * fs + (ptrdiff_t)k, sizeof v);               \
            v = BSWAP(v);                                                                \
            memcpy(to + (ptrdiff_t)i * ts + (ptrdiff_t)k, &v, sizeof v);                 \
        }

IPFSRT_NDVECTOR static void swap_copy(const bytes_walk *w, unsigned char *to, ptrdiff_t ts,
                                      const unsigned char *from, ptrdiff_t fs, size_t n) {
    switch (w->unit) {
    case 2: SWAP_LOOP(uint16_t, __builtin_bswap16) break;
    case 4: SWAP_LOOP(uint32_t, __builtin_bswap32) break;
    case 8: SWAP_LOOP(uint64_t, __builtin_bswap64) break;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(to + (ptrdiff_t)i * ts, from + (ptrdiff_t)i * fs, w->itemsize);
    }
}

static void bytes_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    bytes_walk *w = ctx;
    ptrdiff_t flat_stride = (ptrdiff_t)w->itemsize;
    unsigned char *to = w->to_array ? p[0] : w->flat;
    const unsigned char *from = w->to_array ? w->flat : p[0];
    ptrdiff_t ts = w->to_array ? s[0] : flat_stride, fs = w->to_array ? flat_stride : s[0];
    if (!w->unit && ts == fs && ts == flat_stride) memcpy(to, from, n * w->itemsize);
    else swap_copy(w, to, ts, from, fs, n);
    if (w->is_bool && w->to_array) /* untrusted bytes: any nonzero is true, stored as 1 */
        for (size_t i = 0; i < n; i++) to[(ptrdiff_t)i * ts] = to[(ptrdiff_t)i * ts] != 0;
    w->flat += n * w->itemsize;
}

static ipfsrt_status walk_bytes(ipfsrt_ndarray *a, unsigned char *flat, size_t len, bool big_endian, bool to_array,
                                ipfsrt_error *err) {
    size_t want = ipfsrt_ndarray_size(a) * a->itemsize; /* the array exists: this fits */
    if (len != want)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%zu bytes for %zu elements of %zu bytes (%zu wanted)", len,
                           ipfsrt_ndarray_size(a), a->itemsize, want);
    bytes_walk w = {flat, a->itemsize, 0, to_array, a->dtype == IPFSRT_DTYPE_BOOL};
    bool complex = a->dtype == IPFSRT_DTYPE_COMPLEX64 || a->dtype == IPFSRT_DTYPE_COMPLEX128;
    if (big_endian != NATIVE_BIG && a->dtype != IPFSRT_DTYPE_BYTES && a->itemsize > 1)
        w.unit = complex ? a->itemsize / 2 : a->itemsize; /* each half of a complex on its own */
    ipfsrt_ndwalk walk;
    ipfsrt_ndwalk_init(&walk, a->ndim, a->shape);
    ipfsrt_ndwalk_add(&walk, a);
    walk.row = bytes_row;
    walk.ctx = &w;
    ipfsrt_ndwalk_run(&walk);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_ndarray_load_bytes(ipfsrt_ndarray *dst, const void *src, size_t len, bool big_endian,
                                        ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    /* the walk only reads through flat when filling the array */
    return walk_bytes(dst, (unsigned char *)(uintptr_t)src, len, big_endian, true, err);
}

ipfsrt_status ipfsrt_ndarray_store_bytes(const ipfsrt_ndarray *src, void *out, size_t len, bool big_endian,
                                         ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    ipfsrt_ndarray view = *src; /* the walk only reads the array when storing */
    return walk_bytes(&view, out, len, big_endian, false, err);
}
