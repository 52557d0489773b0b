/* bzip2 streams, through libbz2's streaming decoder and one-call encoder. */
#include <bzlib.h>
#include <limits.h>

#include "codec/codec_internal.h"

static ipfsrt_status bz2_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    return ipfsrt_codec_int(c, config, "level", 1, 1, 9, &c->level, err);
}

/* One stream from *at, appended at dst + *out; *at and *out move past it. */
static ipfsrt_status bz2_stream(const uint8_t *src, size_t n, size_t *at, uint8_t *dst, size_t cap, size_t *out,
                                ipfsrt_error *err) {
    bz_stream z = {0};
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for bz2");
    z.next_in = (char *)(uintptr_t)(src + *at);
    z.avail_in = (unsigned int)(n - *at);
    z.next_out = (char *)(dst + *out);
    z.avail_out = (unsigned int)(cap - *out);
    char spill; /* a full destination may still be followed by nothing but the stream's end */
    int r;
    bool moved;
    do {
        if (z.avail_out == 0 && z.next_out != &spill) z.next_out = &spill, z.avail_out = 1;
        unsigned int in_before = z.avail_in, out_before = z.avail_out;
        r = BZ2_bzDecompress(&z);
        moved = z.avail_in != in_before || z.avail_out != out_before;
    } while (r == BZ_OK && moved && z.next_out != &spill + 1);
    bool full = z.next_out == &spill, spilled = z.next_out == &spill + 1;
    size_t used = (n - *at) - z.avail_in, made = full ? cap - *out : (size_t)(z.next_out - (char *)(dst + *out));
    BZ2_bzDecompressEnd(&z);
    if (spilled) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "bz2 data decode to more than %zu bytes", cap);
    if (r == BZ_OK) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)n, "bz2 data end before their stream does");
    if (r == BZ_DATA_ERROR_MAGIC && *at > 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)*at, "bz2 data: %zu bytes after the end that are no stream",
                           n - *at);
    if (r != BZ_STREAM_END)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)*at, "bz2 data are corrupt (libbz2 error %d)", r);
    *at += used;
    *out += made;
    return IPFSRT_OK;
}

/* Every stream, as Python's bz2 module decodes concatenated ones; bytes after
 * the last that are not a stream are refused rather than ignored. */
static ipfsrt_status bz2_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *written, ipfsrt_error *err) {
    (void)c;
    if (n > UINT_MAX || cap > UINT_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "bz2: chunks over 4 GiB are not supported");
    size_t at = 0, out = 0;
    do {
        ipfsrt_status st = bz2_stream(src, n, &at, dst, cap, &out, err);
        if (st != IPFSRT_OK) return st;
    } while (at < n);
    *written = out;
    return IPFSRT_OK;
}

static ipfsrt_status bz2_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                ipfsrt_error *err) {
    size_t bound = n + n / 100 + 600; /* libbz2's documented worst case */
    uint8_t *at = n <= UINT_MAX - 1024 - n / 100 ? ipfsrt_buf_reserve(out, bound) : NULL;
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "bz2: cannot compress %zu bytes", n);
    unsigned int len = (unsigned int)bound;
    int r = BZ2_bzBuffToBuffCompress((char *)at, &len, (char *)(uintptr_t)src, (unsigned int)n, c->level, 0, 0);
    if (r != BZ_OK) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "bz2: compression failed (libbz2 error %d)", r);
    out->len += len;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_bz2 = {"bz2", bz2_configure, bz2_decode, NULL, bz2_encode, NULL, NULL};
