/* Chunks: their keys, and their bytes decoded through the codec chain into an
 * n-d array (byte order, float16, F order and v3 transposes undone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"

ipfsrt_status ipfsrt_zarr_chunk_key(const ipfsrt_zarr_meta *m, const size_t *index, char *buf, size_t cap,
                                    ipfsrt_error *err) {
    int n = m->v3_default_keys ? snprintf(buf, cap, "c") : m->ndim == 0 ? snprintf(buf, cap, "0") : 0;
    size_t at = (size_t)n;
    for (int d = 0; d < m->ndim && at < cap; d++) {
        if (index[d] >= m->grid[d])
            return ipfsrt_fail(err, IPFSRT_EARG, -1, "%s: chunk index %zu is past the grid's %zu in dimension %d",
                               m->name, index[d], m->grid[d], d);
        bool separated = d > 0 || m->v3_default_keys;
        n = separated ? snprintf(buf + at, cap - at, "%c%zu", m->separator, index[d])
                      : snprintf(buf + at, cap - at, "%zu", index[d]);
        at += (size_t)n;
    }
    if (at >= cap) return ipfsrt_fail(err, IPFSRT_EARG, -1, "%s: a chunk key longer than %zu bytes", m->name, cap);
    return IPFSRT_OK;
}

static size_t chunk_elements(const ipfsrt_zarr_meta *m) {
    size_t n = 1;
    for (int d = 0; d < m->ndim; d++) n *= m->chunks[d]; /* checked at parse time */
    return n;
}

/* The codecs undone, last first: each into a buffer of its own (their
 * outputs' sizes are not stated in between), the first straight into exactly
 * the bytes due. */
static ipfsrt_status undo_codecs(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len, uint8_t *dst,
                                 size_t due, ipfsrt_error *err) {
    if (m->n_codecs == 0) {
        if (len != due)
            return ipfsrt_fail(err, IPFSRT_ECODEC, -1, "%zu bytes where the chunk holds %zu", len, due);
        memcpy(dst, src, len);
        return IPFSRT_OK;
    }
    ipfsrt_buf bufs[2];
    ipfsrt_buf_init(&bufs[0]);
    ipfsrt_buf_init(&bufs[1]);
    ipfsrt_status st = IPFSRT_OK;
    for (int i = m->n_codecs - 1; i > 0 && st == IPFSRT_OK; i--) {
        ipfsrt_buf *out = &bufs[i % 2];
        out->len = 0;
        st = ipfsrt_codec_decode_any(m->codecs[i], src, len, due + due / 2 + 4096, out, err);
        src = out->data;
        len = out->len;
    }
    if (st == IPFSRT_OK) st = ipfsrt_codec_decode(m->codecs[0], src, len, dst, due, err);
    ipfsrt_buf_free(&bufs[0]);
    ipfsrt_buf_free(&bufs[1]);
    return st;
}

/* The stored layout: chunk shape, reversed for F order, permuted by a v3 transpose. */
static void stored_shape(const ipfsrt_zarr_meta *m, size_t *shape) {
    for (int d = 0; d < m->ndim; d++)
        shape[d] = m->fortran_order ? m->chunks[m->ndim - 1 - d] : m->transposed ? m->chunks[m->order[d]] : m->chunks[d];
}

/* The stored elements back to the chunk's axes, then laid out in C order. */
static ipfsrt_status to_chunk_order(const ipfsrt_zarr_meta *m, ipfsrt_ndarray *a, ipfsrt_error *err) {
    if (!m->fortran_order && !m->transposed) return IPFSRT_OK;
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    for (int d = 0; d < m->ndim; d++) axes[m->transposed ? m->order[d] : m->ndim - 1 - d] = d;
    ipfsrt_ndarray view;
    ipfsrt_ndarray_init(&view);
    ipfsrt_status st = ipfsrt_ndarray_transpose(&view, a, axes, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_copy(a, &view, err);
    ipfsrt_ndarray_free(&view);
    return st;
}

static ipfsrt_status widen_half(const ipfsrt_zarr_meta *m, ipfsrt_ndarray *a, const uint8_t *raw, ipfsrt_error *err) {
    size_t n = ipfsrt_ndarray_size(a);
    float *f = (float *)(void *)a->data;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = m->big_endian ? (uint16_t)(raw[2 * i] << 8 | raw[2 * i + 1])
                                   : (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);
        f[i] = ipfsrt_zarr_half_to_float(h);
    }
    (void)err;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_decode_chunk(const ipfsrt_zarr_meta *m, const size_t *index, const void *src,
                                       size_t len, ipfsrt_ndarray *out, ipfsrt_error *err) {
    size_t due = chunk_elements(m) * m->stored_itemsize, shape[IPFSRT_NDARRAY_MAX_DIMS];
    uint8_t *raw = malloc(due ? due : 1);
    if (!raw) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory for a chunk of %zu bytes", due);
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    stored_shape(m, shape);
    ipfsrt_status st = undo_codecs(m, src, len, raw, due, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_new_zeros(&a, m->dtype, m->itemsize, m->ndim, shape, err);
    if (st == IPFSRT_OK)
        st = m->float16 ? widen_half(m, &a, raw, err) : ipfsrt_ndarray_load_bytes(&a, raw, due, m->big_endian, err);
    if (st == IPFSRT_OK) st = to_chunk_order(m, &a, err);
    free(raw);
    if (st != IPFSRT_OK) {
        char key[256];
        if (ipfsrt_zarr_chunk_key(m, index, key, sizeof key, NULL) != IPFSRT_OK) strcpy(key, "?");
        ipfsrt_error_prefix(err, "%s, chunk %s: ", m->name, key);
        ipfsrt_ndarray_free(&a);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = a;
    return IPFSRT_OK;
}
