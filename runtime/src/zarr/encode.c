/* Encoding chunks for writing: the elements laid out as stored (F order, a
 * v3 transpose, the byte order, float16), then the codecs in order; a shard
 * as its inner chunks (those holding only the fill value left out) and its
 * index. Also: whether a chunk holds only the fill value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"

static uint16_t float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)(x >> 16 & 0x8000);
    if (isnan(f)) return sign | 0x7e00;
    float a = fabsf(f);
    if (a >= 65520.0f) return sign | 0x7c00; /* rounds to infinity */
    if (a < 6.103515625e-05f) /* subnormal: a multiple of 2^-24, rounded to even */
        return sign | (uint16_t)nearbyintf(a * 16777216.0f);
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)nearbyintf(m * 2048.0f); /* 11 bits, rounded to even */
    if (mant == 2048) {
        mant = 1024;
        e++;
    }
    return sign | (uint16_t)((uint32_t)(e + 14) << 10 | (mant - 1024));
}

/* The chunk as stored: its axes permuted for F order or a transpose. */
static ipfsrt_status stored_view(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk, ipfsrt_ndarray *view,
                                 ipfsrt_error *err) {
    ipfsrt_ndarray_init(view);
    if (!m->fortran_order && !m->transposed) {
        *view = *chunk;
        view->buffer = NULL; /* a borrowed view: its buffer's count is not ours to touch */
        return IPFSRT_OK;
    }
    ipfsrt_ndarray borrowed = *chunk;
    borrowed.buffer = NULL;
    return ipfsrt_ndarray_transpose(view, &borrowed, m->transposed ? m->order : NULL, err);
}

/* The stored bytes of the elements (before any codec) into s->raw. */
static ipfsrt_status serialize(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk, ipfsrt_zarr_scratch *s,
                               ipfsrt_error *err) {
    ipfsrt_ndarray view;
    ipfsrt_status st = stored_view(m, chunk, &view, err);
    size_t n = ipfsrt_ndarray_size(chunk), due = n * m->stored_itemsize;
    s->raw.len = 0;
    uint8_t *raw = st == IPFSRT_OK ? ipfsrt_buf_reserve(&s->raw, due + 1) : NULL;
    if (st == IPFSRT_OK && !raw) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK && m->float16) { /* float32 elements in C order first, then narrowed */
        s->wide.len = 0;
        float *f = (float *)(void *)ipfsrt_buf_reserve(&s->wide, n * 4 + 1);
        st = f ? ipfsrt_ndarray_store_bytes(&view, f, n * 4, false, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "oom");
        for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
            float v;
            memcpy(&v, (uint8_t *)f + 4 * i, 4);
            uint16_t h = float_to_half(v);
            raw[2 * i] = (uint8_t)(m->big_endian ? h >> 8 : h);
            raw[2 * i + 1] = (uint8_t)(m->big_endian ? h : h >> 8);
        }
    } else if (st == IPFSRT_OK) {
        st = ipfsrt_ndarray_store_bytes(&view, raw, due, m->big_endian, err);
    }
    if (st == IPFSRT_OK && m->utf32) { /* the UTF-8 of each element back to UTF-32 */
        s->wide.len = 0;
        uint8_t *tmp = ipfsrt_buf_reserve(&s->wide, m->itemsize);
        for (size_t i = 0; tmp && i < n; i++) {
            ipfsrt_zarr_utf8_to_utf32(raw + i * m->itemsize, m->itemsize, tmp, m->big_endian);
            memcpy(raw + i * m->itemsize, tmp, m->itemsize);
        }
        if (!tmp) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (st == IPFSRT_OK) s->raw.len = due;
    ipfsrt_ndarray_free(&view);
    return st;
}

ipfsrt_status ipfsrt_zarr_encode_chunk(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk,
                                       ipfsrt_zarr_scratch *s, ipfsrt_buf *out, ipfsrt_error *err) {
    ipfsrt_status st = serialize(m, chunk, s, err);
    const uint8_t *src = s->raw.data;
    size_t len = s->raw.len;
    for (int i = 0; i < m->n_codecs && st == IPFSRT_OK; i++) {
        ipfsrt_buf *dst = i == m->n_codecs - 1 ? out : &s->chain[i % 2];
        if (dst != out) dst->len = 0;
        st = ipfsrt_codec_encode(m->codecs[i], src, len, dst, err);
        src = dst->data;
        len = dst->len;
    }
    if (st == IPFSRT_OK && m->n_codecs == 0) {
        ipfsrt_buf_append(out, src, len);
        if (out->failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    return st;
}

/* Element i of a equals the fill value (NaN equals NaN; v2 arrays without one: zero). */
static bool is_fill(const ipfsrt_zarr_meta *m, const uint8_t *p) {
    if (memcmp(p, m->fill.data, m->itemsize) == 0) return true;
    if (m->dtype == IPFSRT_DTYPE_FLOAT32) {
        float a, b;
        memcpy(&a, p, 4), memcpy(&b, m->fill.data, 4);
        return isnan(a) && isnan(b);
    }
    if (m->dtype == IPFSRT_DTYPE_FLOAT64) {
        double a, b;
        memcpy(&a, p, 8), memcpy(&b, m->fill.data, 8);
        return isnan(a) && isnan(b);
    }
    return false;
}

bool ipfsrt_zarr_all_fill(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk) {
    /* chunks being written are C-order arrays of their own */
    size_t n = ipfsrt_ndarray_size(chunk);
    for (size_t i = 0; i < n; i++)
        if (!is_fill(m, chunk->data + i * m->itemsize)) return false;
    return true;
}

static void put_u64(uint8_t *p, uint64_t v, bool big) {
    for (int i = 0; i < 8; i++) p[big ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Inner chunk e of the shard (a C-order array) as a view, copied into a C-order array of its own. */
static ipfsrt_status inner_chunk(const ipfsrt_zarr_meta *in, const ipfsrt_ndarray *shard, size_t e,
                                 ipfsrt_ndarray *out, ipfsrt_error *err) {
    ipfsrt_ndarray region = *shard;
    region.buffer = NULL;
    for (int d = in->ndim; d-- > 0;) {
        size_t i = e % in->grid[d];
        e /= in->grid[d];
        region.data += (ptrdiff_t)(i * in->chunks[d]) * shard->strides[d];
        region.shape[d] = in->chunks[d];
    }
    return ipfsrt_ndarray_copy(out, &region, err);
}

ipfsrt_status ipfsrt_zarr_encode_shard(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *shard,
                                       ipfsrt_zarr_scratch *s, ipfsrt_buf *out, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *in = m->inner;
    size_t n = 1, isz = ipfsrt_zarr_shard_index_size(m);
    for (int d = 0; d < m->ndim; d++) n *= in->grid[d];
    uint8_t *index = malloc(isz);
    ipfsrt_buf body;
    ipfsrt_buf_init(&body);
    ipfsrt_ndarray chunk;
    ipfsrt_ndarray_init(&chunk);
    ipfsrt_status st = index ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    uint64_t base = m->index_at_start ? isz : 0;
    for (size_t e = 0; e < n && st == IPFSRT_OK; e++) {
        st = inner_chunk(in, shard, e, &chunk, err);
        size_t at = body.len;
        if (st == IPFSRT_OK && ipfsrt_zarr_all_fill(in, &chunk)) {
            put_u64(index + 16 * e, UINT64_MAX, m->index_big_endian);
            put_u64(index + 16 * e + 8, UINT64_MAX, m->index_big_endian);
            continue;
        }
        if (st == IPFSRT_OK) st = ipfsrt_zarr_encode_chunk(in, &chunk, s, &body, err);
        put_u64(index + 16 * e, base + at, m->index_big_endian);
        put_u64(index + 16 * e + 8, body.len - at, m->index_big_endian);
    }
    if (st == IPFSRT_OK && m->index_checksum) {
        uint32_t crc = ipfsrt_crc32c(0, index, 16 * n);
        for (int i = 0; i < 4; i++) index[16 * n + (size_t)i] = (uint8_t)(crc >> (8 * i));
    }
    if (st == IPFSRT_OK && m->index_at_start) ipfsrt_buf_append(out, index, isz);
    if (st == IPFSRT_OK) ipfsrt_buf_append(out, body.data, body.len);
    if (st == IPFSRT_OK && !m->index_at_start) ipfsrt_buf_append(out, index, isz);
    if (st == IPFSRT_OK && (out->failed || body.failed)) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_ndarray_free(&chunk);
    ipfsrt_buf_free(&body);
    free(index);
    return st;
}
