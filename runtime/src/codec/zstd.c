/* zstd, through libzstd: one decompression and one compression context per
 * thread, kept and reused (numcodecs' ZSTD_decompress makes one per call). */
#include <pthread.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec_internal.h"

static pthread_key_t dctx_key, cctx_key;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void free_dctx(void *p) { ZSTD_freeDCtx(p); }
static void free_cctx(void *p) { ZSTD_freeCCtx(p); }

static void make_keys(void) {
    (void)pthread_key_create(&dctx_key, free_dctx);
    (void)pthread_key_create(&cctx_key, free_cctx);
}

static ZSTD_DCtx *thread_dctx(void) {
    pthread_once(&keys_once, make_keys);
    ZSTD_DCtx *d = pthread_getspecific(dctx_key);
    if (!d && (d = ZSTD_createDCtx()) != NULL) pthread_setspecific(dctx_key, d);
    return d;
}

static ZSTD_CCtx *thread_cctx(void) {
    pthread_once(&keys_once, make_keys);
    ZSTD_CCtx *c = pthread_getspecific(cctx_key);
    if (!c && (c = ZSTD_createCCtx()) != NULL) pthread_setspecific(cctx_key, c);
    return c;
}

static ipfsrt_status zstd_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_codec_int(c, config, "level", 0, ZSTD_minCLevel(), ZSTD_maxCLevel(), &c->level, err);
    const cJSON *sum = config ? cJSON_GetObjectItemCaseSensitive(config, "checksum") : NULL;
    if (st == IPFSRT_OK && sum && !cJSON_IsBool(sum) && !cJSON_IsNull(sum))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec zstd: checksum must be true or false");
    c->checksum = cJSON_IsTrue(sum);
    return st;
}

/* One call decodes every frame (sizes stated or not); it never writes past cap. */
static ipfsrt_status zstd_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *written, ipfsrt_error *err) {
    (void)c;
    ZSTD_DCtx *d = thread_dctx();
    if (!d) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a zstd context");
    size_t r = ZSTD_decompressDCtx(d, dst, cap, src, n);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "zstd data decode to more than %zu bytes", cap);
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "zstd data: %s", ZSTD_getErrorName(r));
    }
    *written = r;
    return IPFSRT_OK;
}

/* A prefix may stop short of the frame's end only where nothing past it is
 * checked: one frame that states the whole size, fills the data to the last
 * byte (a second frame, or bytes after it, fail the whole decode) and carries
 * no content checksum (RFC 8878: bit 2 of the byte after the magic number). */
static bool prefix_may_stop(const uint8_t *src, size_t n, size_t cap) {
    if (n < 5 || ZSTD_getFrameContentSize(src, n) != (unsigned long long)cap) return false;
    if (ZSTD_findFrameCompressedSize(src, n) != n) return false;
    bool checksummed = (src[4] >> 2) & 1;
    return !checksummed;
}

/* One zstd block at a time until need bytes are out: the blocks past them are
 * never decoded. Anything prefix_may_stop refuses is decoded whole, so that
 * every check the whole decode makes is still made. */
static ipfsrt_status zstd_decode_prefix(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst,
                                        size_t cap, size_t need, ipfsrt_error *err) {
    if (!prefix_may_stop(src, n, cap)) return ipfsrt_codec_decode(c, src, n, dst, cap, err);
    ZSTD_DCtx *d = thread_dctx();
    if (!d) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a zstd context");
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    ZSTD_inBuffer in = {src, n, 0};
    ZSTD_outBuffer out = {dst, need, 0}; /* room for the whole frame would decode it in one go */
    while (out.pos < need) {
        size_t in_before = in.pos, out_before = out.pos;
        size_t r = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(r)) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "zstd data: %s", ZSTD_getErrorName(r));
        if (out.pos < need && (r == 0 || (in.pos == in_before && out.pos == out_before))) /* short of cap */
            return ipfsrt_codec_wrong_size(c, out.pos, false, cap, err);
    }
    return IPFSRT_OK;
}

/* The sum of every frame's stated size (the stable API has no one call for it). */
static ipfsrt_status zstd_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                               ipfsrt_error *err) {
    (void)c;
    size_t total = 0, at = 0;
    while (at < n) {
        unsigned long long s = ZSTD_getFrameContentSize(src + at, n - at);
        size_t frame = ZSTD_findFrameCompressedSize(src + at, n - at);
        if (s == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(frame) || frame == 0)
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)at, "zstd data: no zstd frame at byte %zu", at);
        if (s == ZSTD_CONTENTSIZE_UNKNOWN) return IPFSRT_OK;
        if (s > SIZE_MAX - total) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "zstd data state too many bytes");
        total += (size_t)s;
        at += frame;
    }
    *size = total;
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status zstd_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                 ipfsrt_error *err) {
    ZSTD_CCtx *z = thread_cctx();
    size_t bound = ZSTD_compressBound(n);
    uint8_t *at = ZSTD_isError(bound) ? NULL : ipfsrt_buf_reserve(out, bound);
    if (!z || !at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory compressing %zu bytes", n);
    ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, c->level);
    ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, c->checksum);
    size_t r = ZSTD_compress2(z, at, bound, src, n);
    if (ZSTD_isError(r)) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "zstd: %s", ZSTD_getErrorName(r));
    out->len += r;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_zstd = {"zstd", zstd_configure, zstd_decode, zstd_size, zstd_encode,
                                             zstd_decode_prefix, NULL};
