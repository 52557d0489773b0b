/* The codec registry, configuration helpers and the sized-decoding contract
 * every codec keeps. */
#include <stdlib.h>
#include <string.h>

#include "base/json_internal.h"
#include "codec/codec_internal.h"
#include "base/base_internal.h"

static const ipfsrt_codec_ops *const all_codecs[] = {
    &ipfsrt_codec_zstd,   &ipfsrt_codec_gzip,   &ipfsrt_codec_zlib,    &ipfsrt_codec_bz2,   &ipfsrt_codec_lz4,
    &ipfsrt_codec_blosc,  &ipfsrt_codec_crc32c, &ipfsrt_codec_shuffle, &ipfsrt_codec_delta,
    &ipfsrt_codec_astype, &ipfsrt_codec_quantize, &ipfsrt_codec_fixedscaleoffset,
};

ipfsrt_status ipfsrt_codec_int(const ipfsrt_codec *c, const cJSON *config, const char *key, int dflt, int lo,
                               int hi, int *out, ipfsrt_error *err) {
    const cJSON *v = config ? cJSON_GetObjectItemCaseSensitive(config, key) : NULL;
    if (!v || cJSON_IsNull(v)) {
        *out = dflt;
        return IPFSRT_OK;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi || /* the range before the cast */
        v->valuedouble != (double)(int)v->valuedouble)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec %s: %s must be an integer from %d to %d", c->ops->name,
                           key, lo, hi);
    *out = (int)v->valuedouble;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_codec_wrong_size(const ipfsrt_codec *c, size_t got, bool more, size_t want,
                                      ipfsrt_error *err) {
    if (more)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s data decode to more than the %zu bytes due", c->ops->name,
                           want);
    return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s data decode to %zu bytes, not the %zu due", c->ops->name, got,
                       want);
}

ipfsrt_status ipfsrt_codec_new(ipfsrt_codec **out, const char *name, const char *config, size_t itemsize,
                               ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(name, err);
    *out = NULL;
    cJSON *doc = NULL;
    if (config) {
        doc = ipfsrt_json_parse(config, strlen(config), NULL);
        if (!doc) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec %s: the configuration is not JSON", name);
    }
    ipfsrt_status st = ipfsrt_codec_new_config(out, name, doc, itemsize, err);
    cJSON_Delete(doc);
    return st;
}

ipfsrt_status ipfsrt_codec_new_config(ipfsrt_codec **out, const char *name, const cJSON *config, size_t itemsize,
                                      ipfsrt_error *err) {
    *out = NULL;
    if (strncmp(name, "numcodecs.", 10) == 0) name += 10;
    const ipfsrt_codec_ops *ops = NULL;
    for (size_t i = 0; i < sizeof all_codecs / sizeof all_codecs[0]; i++)
        if (strcmp(all_codecs[i]->name, name) == 0) ops = all_codecs[i];
    if (!ops) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "unknown codec %s", name);
    if (config && !cJSON_IsObject(config))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec %s: the configuration is not an object", name);
    ipfsrt_codec *c = calloc(1, sizeof *c);
    if (!c) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    c->ops = ops;
    c->itemsize = itemsize ? itemsize : 1;
    ipfsrt_status st = ops->configure ? ops->configure(c, config, err) : IPFSRT_OK;
    if (st != IPFSRT_OK) {
        free(c);
        return st;
    }
    *out = c;
    return IPFSRT_OK;
}

void ipfsrt_codec_free(ipfsrt_codec *c) { free(c); }

const char *ipfsrt_codec_id(const ipfsrt_codec *c) {
    IPFSRT_NEED_OR(c, NULL);
    return c->ops->name;
}

/* ops->decode writes at most dst_len bytes: it fails with ETOO_LARGE when the
 * data hold more, and reports what it wrote in *written. */
ipfsrt_status ipfsrt_codec_decode(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                  size_t dst_len, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED_N(src, src_len, err);
    IPFSRT_NEED_N(dst, dst_len, err);
    size_t written = 0;
    ipfsrt_error inner;
    ipfsrt_status st = c->ops->decode(c, src, src_len, dst, dst_len, &written, &inner);
    if (st == IPFSRT_ETOO_LARGE) return ipfsrt_codec_wrong_size(c, 0, true, dst_len, err);
    if (st != IPFSRT_OK) {
        if (err) *err = inner;
        return st;
    }
    if (written != dst_len) return ipfsrt_codec_wrong_size(c, written, false, dst_len, err);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_codec_decode_prefix(const ipfsrt_codec *c, const void *src, size_t src_len, void *dst,
                                         size_t dst_len, size_t need, ipfsrt_error *err) {
    IPFSRT_NEED_N(src, src_len, err);
    IPFSRT_NEED_N(dst, dst_len, err);
    if (need >= dst_len || !c->ops->decode_prefix) return ipfsrt_codec_decode(c, src, src_len, dst, dst_len, err);
    return c->ops->decode_prefix(c, src, src_len, dst, dst_len, need, err);
}

bool ipfsrt_codec_prefix_needs(const ipfsrt_codec *c, size_t len, size_t need, size_t *src_need) {
    IPFSRT_NEED_OR(src_need, false);
    if (!c->ops->needs) return false;
    *src_need = need >= len ? len : c->ops->needs(c, len, need);
    return true;
}

ipfsrt_status ipfsrt_codec_decoded_size(const ipfsrt_codec *c, const void *src, size_t src_len, size_t *size,
                                        bool *known, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED_N(src, src_len, err);
    IPFSRT_NEED(size, err);
    IPFSRT_NEED(known, err);
    *size = 0;
    *known = false;
    return c->ops->size ? c->ops->size(c, src, src_len, size, known, err) : IPFSRT_OK;
}

/* Unstated sizes: tries growing buffers (4x the input, then doubling) up to limit. */
ipfsrt_status ipfsrt_codec_decode_any(const ipfsrt_codec *c, const void *src, size_t src_len, size_t limit,
                                      ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED_N(src, src_len, err);
    IPFSRT_NEED(out, err);
    size_t size;
    bool known;
    ipfsrt_status st = ipfsrt_codec_decoded_size(c, src, src_len, &size, &known, err);
    if (st != IPFSRT_OK) return st;
    if (known && size > limit)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s data state %zu decoded bytes, over the limit of %zu",
                           c->ops->name, size, limit);
    size_t cap = known ? size : src_len < limit / 4 ? (src_len < 4096 ? 16384 : src_len * 4) : limit;
    if (cap > limit) cap = limit;
    for (;;) {
        uint8_t *at = ipfsrt_buf_reserve(out, cap);
        if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu decoded bytes", cap);
        size_t written = 0;
        st = c->ops->decode(c, src, src_len, at, cap, &written, err);
        if (st == IPFSRT_OK) {
            out->len += written;
            return IPFSRT_OK;
        }
        if (st != IPFSRT_ETOO_LARGE) return st;
        if (known) /* more than the data state */
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s data decode to more than the %zu bytes they state",
                               c->ops->name, size);
        if (cap >= limit)
            return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s data decode to over the limit of %zu bytes",
                               c->ops->name, limit);
        cap = cap > limit / 2 ? limit : cap < 4096 ? 8192 : cap * 2;
    }
}

ipfsrt_status ipfsrt_codec_encode(const ipfsrt_codec *c, const void *src, size_t src_len, ipfsrt_buf *out,
                                  ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED_N(src, src_len, err);
    IPFSRT_NEED(out, err);
    return c->ops->encode(c, src, src_len, out, err);
}
