/* Chunks: their keys, and their bytes decoded through the codec chain into an
 * n-d array (byte order, float16, F order and v3 transposes undone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

ipfsrt_status ipfsrt_zarr_chunk_key(const ipfsrt_zarr_meta *m, const size_t *index, char *buf, size_t cap,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    IPFSRT_NEED(index, err);
    IPFSRT_NEED(buf, err);
    int n = m->v3_default_keys ? snprintf(buf, cap, "c") : m->ndim == 0 ? snprintf(buf, cap, "0") : 0;
    size_t at = (size_t)n;
    for (int d = 0; d < m->ndim && at < cap; d++) {
        if (index[d] >= m->grid[d])
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: chunk index %zu is past the grid's %zu in dimension %d",
                               m->name, index[d], m->grid[d], d);
        bool separated = d > 0 || m->v3_default_keys;
        n = separated ? snprintf(buf + at, cap - at, "%c%zu", m->separator, index[d])
                      : snprintf(buf + at, cap - at, "%zu", index[d]);
        at += (size_t)n;
    }
    if (at >= cap) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a chunk key longer than %zu bytes", m->name, cap);
    return IPFSRT_OK;
}

static size_t chunk_elements(const ipfsrt_zarr_meta *m) {
    size_t n = 1;
    for (int d = 0; d < m->ndim; d++) n *= m->chunks[d]; /* checked at parse time */
    return n;
}

/* Codecs undone from the last to the first: those past the filters that keep
 * the byte count (shuffle, delta) into buffers as long as they need (nothing
 * states their output's size), the one before those filters and the filters
 * themselves to exactly due bytes, each as far as the bytes the first need of
 * the chunk come from. */
static ipfsrt_status undo_codecs(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len, uint8_t *dst,
                                 size_t due, size_t need, ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    if (m->n_codecs == 0) {
        if (len != due)
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%zu bytes where the chunk holds %zu", len, due);
        memcpy(dst, src, len);
        return IPFSRT_OK;
    }
    size_t needs[IPFSRT_ZARR_MAX_CODECS];
    int sized = 0; /* codecs [0, sized] decode to exactly due bytes */
    needs[0] = need;
    while (sized + 1 < m->n_codecs &&
           ipfsrt_codec_prefix_needs(m->codecs[sized], due, needs[sized], &needs[sized + 1]))
        sized++;
    for (int i = m->n_codecs - 1; i > 0; i--) {
        ipfsrt_buf *out = &s->chain[i % 2];
        out->len = 0;
        ipfsrt_status st;
        if (i <= sized) {
            uint8_t *at = ipfsrt_buf_reserve(out, due ? due : 1);
            if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a chunk of %zu bytes", due);
            st = ipfsrt_codec_decode_prefix(m->codecs[i], src, len, at, due, needs[i], err);
            out->len = due;
        } else {
            st = ipfsrt_codec_decode_any(m->codecs[i], src, len, due + due / 2 + 4096, out, err);
        }
        if (st != IPFSRT_OK) return st;
        src = out->data;
        len = out->len;
    }
    return ipfsrt_codec_decode_prefix(m->codecs[0], src, len, dst, due, need, err);
}

/* The chunk's bytes as stored are the output's own: C order, native. */
static bool stored_as_output(const ipfsrt_zarr_meta *m) {
    bool swapped = m->big_endian && m->stored_itemsize > 1 && m->dtype != IPFSRT_DTYPE_BYTES;
    return !swapped && !m->float16 && !m->utf32 && !m->fortran_order && !m->transposed &&
           m->dtype != IPFSRT_DTYPE_BOOL;
}

/* dst is the whole chunk, laid out as one run of memory. */
static bool whole_and_contiguous(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *dst, const size_t *lstart,
                                 const size_t *lstep) {
    for (int d = 0; d < m->ndim; d++)
        if (dst->shape[d] != m->chunks[d] || lstart[d] != 0 || lstep[d] != 1) return false;
    return ipfsrt_ndarray_is_contiguous(dst);
}

/* Stored elements to native ones, in place (bool bytes to 0/1), or float16
 * widened into s->wide. Returns where the native elements are. */
static uint8_t *to_native(const ipfsrt_zarr_meta *m, uint8_t *raw, size_t n, ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    if (m->float16) {
        s->wide.len = 0;
        float *f = (float *)(void *)ipfsrt_buf_reserve(&s->wide, n * sizeof(float) + 1);
        if (!f) {
            ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            f[i] = ipfsrt_zarr_half_to_float(m->big_endian ? (uint16_t)(raw[2 * i] << 8 | raw[2 * i + 1])
                                                           : (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8));
        return (uint8_t *)f;
    }
    if (m->dtype == IPFSRT_DTYPE_BOOL)
        for (size_t i = 0; i < n; i++) raw[i] = raw[i] != 0;
    if (m->utf32)
        for (size_t i = 0; i < n; i++) ipfsrt_zarr_utf32_to_utf8(raw + i * m->itemsize, m->itemsize, m->big_endian);
    if (m->big_endian && m->stored_itemsize > 1 && m->dtype != IPFSRT_DTYPE_BYTES) {
        bool complex = m->dtype == IPFSRT_DTYPE_COMPLEX64 || m->dtype == IPFSRT_DTYPE_COMPLEX128;
        size_t w = complex ? m->itemsize / 2 : m->itemsize;
        for (uint8_t *p = raw, *end = raw + n * m->itemsize; p < end; p += w)
            for (size_t i = 0; i < w / 2; i++) {
                uint8_t t = p[i];
                p[i] = p[w - 1 - i];
                p[w - 1 - i] = t;
            }
    }
    return raw;
}

/* Where a selection (start, step per dimension) begins in the stored chunk, in
 * elements from its start, and its strides in elements: F order and
 * transposes undone by strides alone. */
static size_t chunk_layout(const ipfsrt_zarr_meta *m, const size_t *lstart, const size_t *lstep,
                           size_t *strides) {
    int nd = m->ndim, axis_of[IPFSRT_NDARRAY_MAX_DIMS]; /* chunk dimension -> stored axis */
    size_t stored_stride[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < nd; d++) axis_of[d] = m->fortran_order ? nd - 1 - d : d;
    if (m->transposed)
        for (int i = 0; i < nd; i++) axis_of[m->order[i]] = i;
    size_t stride = 1, start = 0;
    for (int i = nd; i-- > 0;) {
        int d = 0;
        while (axis_of[d] != i) d++;
        stored_stride[i] = stride;
        stride *= m->chunks[d];
    }
    for (int d = 0; d < nd; d++) {
        start += lstart[d] * stored_stride[axis_of[d]];
        strides[d] = stored_stride[axis_of[d]] * lstep[d];
    }
    return start;
}

/* Elements of the stored chunk that dst takes from, counted from its start: a
 * selection that ends early needs the chunk decoded only so far. */
static size_t elements_reached(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *dst, const size_t *lstart,
                               const size_t *lstep) {
    size_t strides[IPFSRT_NDARRAY_MAX_DIMS];
    size_t last = chunk_layout(m, lstart, lstep, strides);
    for (int d = 0; d < m->ndim; d++) {
        if (dst->shape[d] == 0) return 0;
        last += (dst->shape[d] - 1) * strides[d];
    }
    return last + 1;
}

/* A view (no buffer) of the native chunk in the chunk's axes, cut to what dst
 * takes. */
static void chunk_view(const ipfsrt_zarr_meta *m, uint8_t *native, const ipfsrt_ndarray *dst, const size_t *lstart,
                       const size_t *lstep, ipfsrt_ndarray *v) {
    size_t strides[IPFSRT_NDARRAY_MAX_DIMS];
    size_t start = chunk_layout(m, lstart, lstep, strides);
    ipfsrt_ndarray_init(v);
    v->dtype = m->dtype;
    v->itemsize = m->itemsize;
    v->ndim = m->ndim;
    v->data = native + start * m->itemsize;
    for (int d = 0; d < m->ndim; d++) {
        v->shape[d] = dst->shape[d];
        v->strides[d] = (ptrdiff_t)(strides[d] * m->itemsize);
    }
}

ipfsrt_status ipfsrt_zarr_decode_into(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len,
                                      const ipfsrt_ndarray *dst, const size_t *lstart, const size_t *lstep,
                                      ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    size_t n = chunk_elements(m), due = n * m->stored_itemsize;
    if (!s->unscale && stored_as_output(m) && whole_and_contiguous(m, dst, lstart, lstep))
        return undo_codecs(m, src, len, dst->data, due, due, s, err); /* no copy at all */
    size_t reached = elements_reached(m, dst, lstart, lstep);
    s->raw.len = 0;
    uint8_t *raw = ipfsrt_buf_reserve(&s->raw, due ? due : 1);
    if (!raw) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a chunk of %zu bytes", due);
    ipfsrt_status st = undo_codecs(m, src, len, raw, due, reached * m->stored_itemsize, s, err);
    uint8_t *native = st == IPFSRT_OK ? to_native(m, raw, reached, s, err) : NULL;
    if (!native) return st != IPFSRT_OK ? st : IPFSRT_EOUT_OF_MEMORY;
    ipfsrt_ndarray v, target = *dst;
    chunk_view(m, native, dst, lstart, lstep, &v);
    return s->unscale ? ipfsrt_ndarray_unscale_into(&target, &v, s->unscale, err)
                      : ipfsrt_ndarray_assign(&target, &v, err);
}

ipfsrt_status ipfsrt_zarr_fill_region(const ipfsrt_zarr_meta *m, ipfsrt_ndarray *region,
                                      const ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    if (!s->unscale) return m->has_fill ? ipfsrt_ndarray_assign(region, &m->fill, err) : IPFSRT_OK;
    if (m->has_fill) return ipfsrt_ndarray_unscale_into(region, &m->fill, s->unscale, err);
    uint64_t zero[2] = {0}; /* a stored zero, as wide as any element */
    ipfsrt_ndarray z;
    ipfsrt_ndarray_init(&z);
    z.dtype = m->dtype;
    z.itemsize = m->itemsize;
    z.data = (unsigned char *)zero;
    return ipfsrt_ndarray_unscale_into(region, &z, s->unscale, err);
}

void ipfsrt_zarr_scratch_free(ipfsrt_zarr_scratch *s) {
    ipfsrt_buf_free(&s->raw);
    ipfsrt_buf_free(&s->wide);
    ipfsrt_buf_free(&s->chain[0]);
    ipfsrt_buf_free(&s->chain[1]);
}

ipfsrt_status ipfsrt_zarr_decode_chunk(const ipfsrt_zarr_meta *m, const size_t *index, const void *src,
                                       size_t len, ipfsrt_ndarray *out, ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    IPFSRT_NEED(index, err);
    IPFSRT_NEED(out, err);
    size_t zeros[IPFSRT_NDARRAY_MAX_DIMS] = {0}, ones[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < IPFSRT_NDARRAY_MAX_DIMS; d++) ones[d] = 1;
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    ipfsrt_zarr_scratch s = {0};
    ipfsrt_status st = ipfsrt_ndarray_zeros(&a, m->dtype, m->itemsize, m->ndim, m->chunks, err);
    if (st == IPFSRT_OK)
        st = m->inner ? ipfsrt_zarr_decode_shard(m, src, len, &a, &s, err)
                      : ipfsrt_zarr_decode_into(m, src, len, &a, zeros, ones, &s, err);
    ipfsrt_zarr_scratch_free(&s);
    if (st != IPFSRT_OK) {
        ipfsrt_zarr_name_chunk(m, index, err);
        ipfsrt_ndarray_free(&a);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = a;
    return IPFSRT_OK;
}

void ipfsrt_zarr_name_chunk(const ipfsrt_zarr_meta *m, const size_t *index, ipfsrt_error *err) {
    char key[256];
    if (ipfsrt_zarr_chunk_key(m, index, key, sizeof key, NULL) != IPFSRT_OK) strcpy(key, "?");
    ipfsrt_error_prefix(err, "%s, chunk %s: ", m->name, key);
}
