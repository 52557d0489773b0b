/* bzip2 streams, through libbz2's one-call buffer functions. */
#include <bzlib.h>
#include <limits.h>

#include "codec/codec_internal.h"

static ipfsrt_status bz2_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    return ipfsrt_codec_int(c, config, "level", 1, 1, 9, &c->level, err);
}

static ipfsrt_status bz2_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *written, ipfsrt_error *err) {
    (void)c;
    if (n > UINT_MAX || cap > UINT_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "bz2: chunks over 4 GiB are not supported");
    unsigned int len = (unsigned int)cap;
    int r = BZ2_bzBuffToBuffDecompress((char *)dst, &len, (char *)(uintptr_t)src, (unsigned int)n, 0, 0);
    if (r == BZ_OUTBUFF_FULL)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "bz2 data decode to more than %zu bytes", cap);
    if (r != BZ_OK) return ipfsrt_fail(err, IPFSRT_ECODEC, -1, "bz2 data are corrupt (libbz2 error %d)", r);
    *written = len;
    return IPFSRT_OK;
}

static ipfsrt_status bz2_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                ipfsrt_error *err) {
    size_t bound = n + n / 100 + 600; /* libbz2's documented worst case */
    uint8_t *at = n <= UINT_MAX - 1024 - n / 100 ? ipfsrt_buf_reserve(out, bound) : NULL;
    if (!at) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "bz2: cannot compress %zu bytes", n);
    unsigned int len = (unsigned int)bound;
    int r = BZ2_bzBuffToBuffCompress((char *)at, &len, (char *)(uintptr_t)src, (unsigned int)n, c->level, 0, 0);
    if (r != BZ_OK) return ipfsrt_fail(err, IPFSRT_ECODEC, -1, "bz2: compression failed (libbz2 error %d)", r);
    out->len += len;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_bz2 = {"bz2", bz2_configure, bz2_decode, NULL, bz2_encode, NULL};
