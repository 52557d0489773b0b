/* gzip (RFC 1952) and zlib (RFC 1950) streams, through zlib: one inflate
 * stream per thread, reset between chunks rather than made anew. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/codec_internal.h"

#define GZIP_BITS (15 + 16)
#define ZLIB_BITS 15

static pthread_key_t stream_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void free_stream(void *p) {
    inflateEnd(p);
    free(p);
}

static void make_key(void) { (void)pthread_key_create(&stream_key, free_stream); }

static z_stream *thread_stream(int bits) {
    pthread_once(&key_once, make_key);
    z_stream *zs = pthread_getspecific(stream_key);
    if (zs) return inflateReset2(zs, bits) == Z_OK ? zs : NULL;
    zs = calloc(1, sizeof *zs);
    if (!zs) return NULL;
    if (inflateInit2(zs, bits) != Z_OK) {
        free(zs);
        return NULL;
    }
    pthread_setspecific(stream_key, zs);
    return zs;
}

static ipfsrt_status deflate_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    return ipfsrt_codec_int(c, config, "level", 1, 0, 9, &c->level, err);
}

static ipfsrt_status inflate_with(const ipfsrt_codec *c, int bits, const uint8_t *src, size_t n, uint8_t *dst,
                                  size_t cap, size_t *written, ipfsrt_error *err) {
    if (n > UINT_MAX || cap > UINT_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: chunks over 4 GiB are not supported", c->ops->name);
    z_stream *zs = thread_stream(bits);
    if (!zs) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a %s stream", c->ops->name);
    zs->next_in = (Bytef *)(uintptr_t)src; /* zlib's interface is not const; it only reads */
    zs->avail_in = (uInt)n;
    zs->next_out = dst;
    zs->avail_out = (uInt)cap;
    int r = inflate(zs, Z_FINISH);
    if (r == Z_STREAM_END) {
        if (zs->avail_in)
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)(n - zs->avail_in), "%s data: %u bytes after the end",
                               c->ops->name, zs->avail_in);
        *written = cap - zs->avail_out;
        return IPFSRT_OK;
    }
    if (r == Z_BUF_ERROR && zs->avail_out == 0)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s data decode to more than %zu bytes", c->ops->name, cap);
    if (r == Z_BUF_ERROR) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s data end too soon", c->ops->name);
    return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s data: %s", c->ops->name, zs->msg ? zs->msg : "corrupt");
}

static ipfsrt_status gzip_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *written, ipfsrt_error *err) {
    return inflate_with(c, GZIP_BITS, src, n, dst, cap, written, err);
}

static ipfsrt_status zlib_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *written, ipfsrt_error *err) {
    return inflate_with(c, ZLIB_BITS, src, n, dst, cap, written, err);
}

static ipfsrt_status deflate_with(const ipfsrt_codec *c, int bits, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                  ipfsrt_error *err) {
    if (n > UINT_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: chunks over 4 GiB are not supported", c->ops->name);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, c->level, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for a %s stream", c->ops->name);
    uLong bound = deflateBound(&zs, (uLong)n);
    uint8_t *at = bound <= UINT_MAX ? ipfsrt_buf_reserve(out, bound) : NULL;
    if (!at) {
        deflateEnd(&zs);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory compressing %zu bytes", n);
    }
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = at;
    zs.avail_out = (uInt)bound;
    int r = deflate(&zs, Z_FINISH);
    size_t len = bound - zs.avail_out;
    deflateEnd(&zs);
    if (r != Z_STREAM_END) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s: compression failed", c->ops->name);
    out->len += len;
    return IPFSRT_OK;
}

static ipfsrt_status gzip_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                 ipfsrt_error *err) {
    return deflate_with(c, GZIP_BITS, src, n, out, err);
}

static ipfsrt_status zlib_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                 ipfsrt_error *err) {
    return deflate_with(c, ZLIB_BITS, src, n, out, err);
}

const ipfsrt_codec_ops ipfsrt_codec_gzip = {"gzip", deflate_configure, gzip_decode, NULL, gzip_encode, NULL, NULL};
const ipfsrt_codec_ops ipfsrt_codec_zlib = {"zlib", deflate_configure, zlib_decode, NULL, zlib_encode, NULL, NULL};
