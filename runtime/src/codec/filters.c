/* The v2 filters that keep the byte count: shuffle (bytes of each element
 * gathered by position, numcodecs' Shuffle) and delta (differences of
 * successive elements, numcodecs' Delta; integers wrap as numpy's). */
#include <stdlib.h>
#include <string.h>

#include "codec/codec_internal.h"

static ipfsrt_status shuffle_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    int es;
    ipfsrt_status st = ipfsrt_codec_int(c, config, "elementsize", (int)c->itemsize, 1, 1 << 20, &es, err);
    c->elementsize = (size_t)es;
    return st;
}

/* How many whole elements of es bytes the first need bytes reach into. */
static size_t elements_reached(size_t need, size_t es) { return need / es + (need % es != 0); }

/* Element i's bytes from the es runs (shuffled[b * count + i]) for the first
 * k elements, or the other way round. With the width a constant and the two
 * buffers apart (restrict), the usual widths vectorize: this file is built at
 * -O3 for them. */
#define MOVE_ELEMENTS(ES, TO, FROM) \
    for (size_t i = 0; i < k; i++) \
        for (size_t b = 0; b < (ES); b++) TO = FROM
#define BY_WIDTH(TO, FROM) \
    switch (es) { \
    case 2: MOVE_ELEMENTS(2, TO, FROM); break; \
    case 4: MOVE_ELEMENTS(4, TO, FROM); break; \
    case 8: MOVE_ELEMENTS(8, TO, FROM); break; \
    default: MOVE_ELEMENTS(es, TO, FROM); \
    }

static void gather(const uint8_t *restrict shuffled, uint8_t *restrict dst, size_t count, size_t es, size_t k) {
    BY_WIDTH(dst[i * es + b], shuffled[b * count + i])
}

static void scatter(const uint8_t *restrict src, uint8_t *restrict shuffled, size_t count, size_t es) {
    size_t k = count;
    BY_WIDTH(shuffled[b * count + i], src[i * es + b])
}

/* Bytes past the last whole element stay where they are, as numcodecs does. */
static void unshuffle(const uint8_t *src, uint8_t *dst, size_t n, size_t es) {
    size_t count = n / es;
    gather(src, dst, count, es, count);
    memcpy(dst + count * es, src + count * es, n - count * es);
}

static ipfsrt_status shuffle_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                    size_t *written, ipfsrt_error *err) {
    if (n > cap) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "shuffled data hold %zu bytes, more than %zu", n, cap);
    unshuffle(src, dst, n, c->elementsize);
    *written = n;
    return IPFSRT_OK;
}

/* The first need bytes hold the first k elements, whose bytes lie at the
 * start of each of the elementsize runs: the last run's start is the furthest. */
static size_t shuffle_needs(const ipfsrt_codec *c, size_t len, size_t need) {
    size_t es = c->elementsize, count = len / es, k = elements_reached(need, es);
    return k >= count ? len : (es - 1) * count + k;
}

static ipfsrt_status shuffle_decode_prefix(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst,
                                           size_t cap, size_t need, ipfsrt_error *err) {
    if (n != cap) return ipfsrt_codec_wrong_size(c, n, n > cap, cap, err);
    size_t es = c->elementsize, count = n / es, k = elements_reached(need, es);
    if (k >= count) unshuffle(src, dst, n, es);
    else gather(src, dst, count, es, k);
    return IPFSRT_OK;
}

static ipfsrt_status same_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                               ipfsrt_error *err) {
    (void)c, (void)src, (void)err;
    *size = n;
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status shuffle_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                    ipfsrt_error *err) {
    uint8_t *at = ipfsrt_buf_reserve(out, n);
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t es = c->elementsize, count = n / es;
    scatter(src, at, count, es);
    memcpy(at + count * es, src + count * es, n - count * es);
    out->len += n;
    return IPFSRT_OK;
}

/* numpy's typestr ("<i4", "|u1", "<f8") of the elements; this machine's
 * byte order only. */
static ipfsrt_status delta_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    const cJSON *dt = config ? cJSON_GetObjectItemCaseSensitive(config, "dtype") : NULL;
    const cJSON *as = config ? cJSON_GetObjectItemCaseSensitive(config, "astype") : NULL;
    if (!cJSON_IsString(dt)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec delta: dtype is missing");
    const char *s = dt->valuestring;
    if (as && !cJSON_IsNull(as) && (!cJSON_IsString(as) || strcmp(as->valuestring, s) != 0))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "codec delta: astype other than dtype (%s)", s);
    uint16_t probe = 1;
    char native = *(unsigned char *)&probe ? '<' : '>';
    char *end;
    long size = strlen(s) >= 3 ? strtol(s + 2, &end, 10) : 0;
    bool ok = strlen(s) >= 3 && (s[0] == native || s[0] == '|' || s[0] == '=') && strchr("iuf", s[1]) && !*end &&
              (size == 1 || size == 2 || size == 4 || size == 8) && !(s[1] == 'f' && size < 4);
    if (!ok) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "codec delta: dtype \"%s\" is not supported", s);
    c->delta_kind = s[1];
    c->elementsize = (size_t)size;
    return IPFSRT_OK;
}

/* Running sums (decode) or differences (encode) in type T; integers go through
 * the unsigned type of their width, so they wrap. */
#define DELTA(T, OP)                                                       \
    {                                                                      \
        T prev = 0;                                                        \
        for (size_t i = 0; i < count; i++) {                               \
            T v, r;                                                        \
            memcpy(&v, src + i * sizeof(T), sizeof v);                     \
            r = OP;                                                        \
            memcpy(dst + i * sizeof(T), &r, sizeof r);                     \
            prev = decoding ? r : v;                                       \
        }                                                                  \
    }

static void delta_run(const ipfsrt_codec *c, const uint8_t *src, uint8_t *dst, size_t n, bool decoding) {
    size_t count = n / c->elementsize;
    if (c->delta_kind == 'f' && c->elementsize == 4) {
        if (decoding) DELTA(float, i ? prev + v : v) else DELTA(float, i ? v - prev : v)
    } else if (c->delta_kind == 'f') {
        if (decoding) DELTA(double, i ? prev + v : v) else DELTA(double, i ? v - prev : v)
    } else if (c->elementsize == 1) {
        if (decoding) DELTA(uint8_t, (uint8_t)(prev + v)) else DELTA(uint8_t, (uint8_t)(v - prev))
    } else if (c->elementsize == 2) {
        if (decoding) DELTA(uint16_t, (uint16_t)(prev + v)) else DELTA(uint16_t, (uint16_t)(v - prev))
    } else if (c->elementsize == 4) {
        if (decoding) DELTA(uint32_t, prev + v) else DELTA(uint32_t, v - prev)
    } else {
        if (decoding) DELTA(uint64_t, prev + v) else DELTA(uint64_t, v - prev)
    }
}

static ipfsrt_status whole_elements(const ipfsrt_codec *c, size_t n, ipfsrt_error *err) {
    if (n % c->elementsize == 0) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "delta data: %zu bytes are not whole elements of %zu", n,
                       c->elementsize);
}

static ipfsrt_status delta_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                  size_t *written, ipfsrt_error *err) {
    if (whole_elements(c, n, err) != IPFSRT_OK) return IPFSRT_EBAD_CHUNK_DATA;
    if (n > cap) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "delta data hold %zu bytes, more than %zu", n, cap);
    delta_run(c, src, dst, n, true);
    *written = n;
    return IPFSRT_OK;
}

/* A running sum: the first k elements come from the first k. */
static size_t delta_needs(const ipfsrt_codec *c, size_t len, size_t need) {
    size_t es = c->elementsize, k = elements_reached(need, es);
    return k < len / es ? k * es : len;
}

static ipfsrt_status delta_decode_prefix(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst,
                                         size_t cap, size_t need, ipfsrt_error *err) {
    if (n != cap) return ipfsrt_codec_wrong_size(c, n, n > cap, cap, err);
    if (whole_elements(c, n, err) != IPFSRT_OK) return IPFSRT_EBAD_CHUNK_DATA;
    delta_run(c, src, dst, delta_needs(c, n, need), true);
    return IPFSRT_OK;
}

static ipfsrt_status delta_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                  ipfsrt_error *err) {
    if (n % c->elementsize)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "delta: %zu bytes are not whole elements of %zu", n, c->elementsize);
    uint8_t *at = ipfsrt_buf_reserve(out, n);
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    delta_run(c, src, at, n, false);
    out->len += n;
    return IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_shuffle = {"shuffle",      shuffle_configure,     shuffle_decode, same_size,
                                               shuffle_encode, shuffle_decode_prefix, shuffle_needs};
const ipfsrt_codec_ops ipfsrt_codec_delta = {"delta",      delta_configure,     delta_decode, same_size,
                                             delta_encode, delta_decode_prefix, delta_needs};
