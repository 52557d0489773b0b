/* lz4 as numcodecs frames it: the decoded size as 4 little-endian bytes, then
 * one raw LZ4 block (not the LZ4 frame format). */
#include <limits.h>
#include <lz4.h>

#include "codec/codec_internal.h"

static ipfsrt_status lz4_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    return ipfsrt_codec_int(c, config, "acceleration", 1, 1, 65537, &c->acceleration, err);
}

static ipfsrt_status lz4_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                              ipfsrt_error *err) {
    (void)c;
    if (n < 4) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, 0, "lz4 data: %zu bytes, shorter than the size prefix", n);
    *size = (size_t)src[0] | (size_t)src[1] << 8 | (size_t)src[2] << 16 | (size_t)src[3] << 24;
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status lz4_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *written, ipfsrt_error *err) {
    size_t stated = 0;
    bool known;
    ipfsrt_status st = lz4_size(c, src, n, &stated, &known, err);
    if (st != IPFSRT_OK) return st;
    if (stated > cap)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "lz4 data state %zu bytes, more than %zu", stated, cap);
    if (n - 4 > INT_MAX || stated > INT_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "lz4: blocks over 2 GiB are not supported");
    int r = LZ4_decompress_safe((const char *)src + 4, (char *)dst, (int)(n - 4), (int)stated);
    if (r < 0 || (size_t)r != stated)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "lz4 data are corrupt or not the %zu bytes stated", stated);
    *written = stated;
    return IPFSRT_OK;
}

static ipfsrt_status lz4_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                ipfsrt_error *err) {
    if (n > LZ4_MAX_INPUT_SIZE) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "lz4: %zu bytes is too much", n);
    int bound = LZ4_compressBound((int)n);
    uint8_t *at = ipfsrt_buf_reserve(out, (size_t)bound + 4);
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory compressing %zu bytes", n);
    at[0] = (uint8_t)n, at[1] = (uint8_t)(n >> 8), at[2] = (uint8_t)(n >> 16), at[3] = (uint8_t)(n >> 24);
    int r = LZ4_compress_fast((const char *)src, (char *)at + 4, (int)n, bound, c->acceleration);
    if (r <= 0 && n) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "lz4: compression failed");
    out->len += (size_t)r + 4;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_lz4 = {"lz4", lz4_configure, lz4_decode, lz4_size, lz4_encode, NULL, NULL};
