/* Blosc 1 frames, through libblosc's context calls (no global state, no
 * threads of its own: parallelism is across chunks). The header is validated
 * (compressed size equal to the input's, decoded size within the destination)
 * before anything is decoded. */
#include <blosc.h>
#include <string.h>

#include "codec/codec_internal.h"

/* numcodecs' AUTOSHUFFLE: bit-shuffle for one-byte items, byte-shuffle otherwise. */
#define AUTOSHUFFLE (-1)

static ipfsrt_status shuffle_of(ipfsrt_codec *c, const cJSON *v, ipfsrt_error *err) {
    static const char *const names[] = {"noshuffle", "shuffle", "bitshuffle"};
    if (!v || cJSON_IsNull(v)) {
        c->shuffle = BLOSC_SHUFFLE;
        return IPFSRT_OK;
    }
    if (cJSON_IsString(v)) { /* Zarr v3 */
        for (int i = 0; i < 3; i++)
            if (strcmp(v->valuestring, names[i]) == 0) return c->shuffle = i, IPFSRT_OK;
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec blosc: unknown shuffle \"%s\"", v->valuestring);
    }
    if (!cJSON_IsNumber(v) || (v->valuedouble != AUTOSHUFFLE && (v->valuedouble < 0 || v->valuedouble > 2)) ||
        v->valuedouble != (double)(int)v->valuedouble)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec blosc: shuffle must be -1, 0, 1 or 2");
    int s = (int)v->valuedouble;
    c->shuffle = s == AUTOSHUFFLE ? (c->typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE) : s;
    return IPFSRT_OK;
}

static ipfsrt_status blosc_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    const cJSON *cname = config ? cJSON_GetObjectItemCaseSensitive(config, "cname") : NULL;
    const char *name = cJSON_IsString(cname) ? cname->valuestring : "lz4";
    if (cname && !cJSON_IsString(cname) && !cJSON_IsNull(cname))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec blosc: cname must be a string");
    if (strlen(name) >= sizeof c->cname || blosc_compname_to_compcode(name) < 0)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "codec blosc: unknown cname \"%s\"", name);
    strcpy(c->cname, name);
    int typesize, blocksize;
    ipfsrt_status st = ipfsrt_codec_int(c, config, "clevel", 5, 0, 9, &c->level, err);
    if (st == IPFSRT_OK) st = ipfsrt_codec_int(c, config, "typesize", (int)c->itemsize, 1, 255, &typesize, err);
    if (st == IPFSRT_OK) st = ipfsrt_codec_int(c, config, "blocksize", 0, 0, INT32_MAX, &blocksize, err);
    if (st != IPFSRT_OK) return st;
    c->typesize = (size_t)typesize;
    c->blocksize = (size_t)blocksize;
    return shuffle_of(c, config ? cJSON_GetObjectItemCaseSensitive(config, "shuffle") : NULL, err);
}

static ipfsrt_status blosc_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                                ipfsrt_error *err) {
    (void)c;
    if (blosc_cbuffer_validate(src, n, size) < 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "blosc data: the header does not describe these %zu bytes", n);
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status blosc_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                  size_t *written, ipfsrt_error *err) {
    size_t stated = 0;
    bool known;
    ipfsrt_status st = blosc_size(c, src, n, &stated, &known, err);
    if (st != IPFSRT_OK) return st;
    if (stated > cap)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "blosc data state %zu bytes, more than %zu", stated, cap);
    int r = blosc_decompress_ctx(src, dst, cap, 1);
    if (r < 0 || (size_t)r != stated) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "blosc data are corrupt");
    *written = stated;
    return IPFSRT_OK;
}

static ipfsrt_status blosc_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                  ipfsrt_error *err) {
    if (n > BLOSC_MAX_BUFFERSIZE) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "blosc: %zu bytes is too much", n);
    size_t bound = n + BLOSC_MAX_OVERHEAD;
    uint8_t *at = ipfsrt_buf_reserve(out, bound);
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory compressing %zu bytes", n);
    int r = blosc_compress_ctx(c->level, c->shuffle, c->typesize, n, src, at, bound, c->cname, c->blocksize, 1);
    if (r <= 0) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "blosc: compression failed");
    out->len += (size_t)r;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_blosc = {"blosc",      blosc_configure, blosc_decode, blosc_size,
                                             blosc_encode, NULL,            NULL};
