/* The v2 filters that change the element type, as numcodecs defines them:
 * astype (elements converted as numpy's astype), quantize (rounded to a
 * number of decimal digits when encoding; decoding converts back) and
 * fixedscaleoffset ((x - offset) * scale rounded on encoding, enc / scale +
 * offset on decoding). The arithmetic is numpy 1.x's: in float32 when the
 * operand array is float32, else in float64. A value that cannot be
 * converted (a NaN or an out-of-range float into an integer) is an error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_internal.h"

enum { CAST_ASTYPE, CAST_QUANTIZE, CAST_SCALE_OFFSET };

/* numpy's typestr: byte order, kind (i, u, f), size 1..8 (floats 4 or 8). */
static bool parse_type(const char *s, ipfsrt_cast_type *t) {
    char *end;
    long size = strlen(s) >= 3 ? strtol(s + 2, &end, 10) : 0;
    if (strlen(s) < 3 || !strchr("<>|=", s[0]) || !strchr("iuf", s[1]) || *end) return false;
    if (size != 1 && size != 2 && size != 4 && size != 8) return false;
    if (s[1] == 'f' && size < 4) return false;
    t->kind = s[1];
    t->size = (size_t)size;
    t->big = s[0] == '>';
    return true;
}

static ipfsrt_status type_field(const ipfsrt_codec *c, const cJSON *config, const char *key, const char *dflt_key,
                                ipfsrt_cast_type *t, ipfsrt_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(config, key);
    if ((!v || cJSON_IsNull(v)) && dflt_key) v = cJSON_GetObjectItemCaseSensitive(config, dflt_key);
    if (!cJSON_IsString(v) || !parse_type(v->valuestring, t))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "codec %s: %s is missing or not a supported type", c->ops->name,
                           key);
    return IPFSRT_OK;
}

static ipfsrt_status number_field(const ipfsrt_codec *c, const cJSON *config, const char *key, double *out,
                                  ipfsrt_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(config, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec %s: %s must be a number", c->ops->name, key);
    *out = v->valuedouble;
    return IPFSRT_OK;
}

static ipfsrt_status astype_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    c->cast_mode = CAST_ASTYPE;
    ipfsrt_status st = type_field(c, config, "encode_dtype", NULL, &c->cast_enc, err);
    return st == IPFSRT_OK ? type_field(c, config, "decode_dtype", NULL, &c->cast_dec, err) : st;
}

static ipfsrt_status quantize_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    c->cast_mode = CAST_QUANTIZE;
    double digits;
    ipfsrt_status st = type_field(c, config, "dtype", NULL, &c->cast_dec, err);
    if (st == IPFSRT_OK) st = type_field(c, config, "astype", "dtype", &c->cast_enc, err);
    if (st == IPFSRT_OK) st = number_field(c, config, "digits", &digits, err);
    if (st == IPFSRT_OK && (c->cast_dec.kind != 'f' || c->cast_enc.kind != 'f' || digits != floor(digits) ||
                            fabs(digits) > 300))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec quantize: float types and whole digits only");
    if (st == IPFSRT_OK) { /* numcodecs' scale: the power of two just above 10^digits */
        int exp = (int)-digits;
        c->scale = ldexp(1.0, (int)ceil(log2(pow(10.0, -exp))));
    }
    return st;
}

static ipfsrt_status scale_offset_configure(ipfsrt_codec *c, const cJSON *config, ipfsrt_error *err) {
    c->cast_mode = CAST_SCALE_OFFSET;
    ipfsrt_status st = type_field(c, config, "dtype", NULL, &c->cast_dec, err);
    if (st == IPFSRT_OK) st = type_field(c, config, "astype", "dtype", &c->cast_enc, err);
    if (st == IPFSRT_OK) st = number_field(c, config, "scale", &c->scale, err);
    if (st == IPFSRT_OK) st = number_field(c, config, "offset", &c->offset, err);
    if (st == IPFSRT_OK && c->scale == 0) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec fixedscaleoffset: scale 0");
    return st;
}

/* ------------------------------------------------------------- elements */

typedef struct value {
    char kind; /* i, u, f */
    int64_t i;
    uint64_t u;
    double f;
} value;

static value load(const ipfsrt_cast_type *t, const uint8_t *p) {
    uint8_t b[8];
    for (size_t k = 0; k < t->size; k++) b[k] = p[t->big ? t->size - 1 - k : k]; /* to little-endian */
    uint64_t bits = 0;
    for (size_t k = t->size; k-- > 0;) bits = bits << 8 | b[k];
    value v = {t->kind, 0, bits, 0};
    if (t->kind == 'i') v.i = t->size == 8 ? (int64_t)bits : (int64_t)(bits ^ (1ULL << (8 * t->size - 1))) -
                                                              (int64_t)(1ULL << (8 * t->size - 1));
    if (t->kind == 'f' && t->size == 4) {
        uint32_t w = (uint32_t)bits;
        float f;
        memcpy(&f, &w, 4);
        v.f = f;
    } else if (t->kind == 'f') {
        memcpy(&v.f, &bits, 8);
    }
    return v;
}

/* v into type t at p, as numpy's astype: integers wrap to the width,
 * floats truncate into integers (false when they do not fit). */
static bool store(const ipfsrt_cast_type *t, value v, uint8_t *p) {
    uint64_t bits;
    if (t->kind == 'f') {
        double d = v.kind == 'f' ? v.f : v.kind == 'i' ? (double)v.i : (double)v.u;
        if (t->size == 4) {
            float f = v.kind == 'i' ? (float)v.i : v.kind == 'u' ? (float)v.u : (float)d; /* one rounding */
            uint32_t w;
            memcpy(&w, &f, 4);
            bits = w;
        } else {
            memcpy(&bits, &d, 8);
        }
    } else if (v.kind == 'f') {
        double lim = ldexp(1.0, 8 * (int)t->size - (t->kind == 'i'));
        double lo = t->kind == 'i' ? -lim : 0;
        if (!(v.f > lo - 1 && v.f < lim)) return false;
        bits = t->kind == 'i' ? (uint64_t)(int64_t)v.f : (uint64_t)v.f;
    } else {
        bits = v.kind == 'i' ? (uint64_t)v.i : v.u;
    }
    for (size_t k = 0; k < t->size; k++) p[t->big ? t->size - 1 - k : k] = (uint8_t)(bits >> (8 * k));
    return true;
}

static double as_double(value v) { return v.kind == 'f' ? v.f : v.kind == 'i' ? (double)v.i : (double)v.u; }

/* enc / scale + offset (decoding) or round((x - offset) * scale) (encoding),
 * in float32 when the array is float32. */
static value scale_offset(const ipfsrt_codec *c, value v, const ipfsrt_cast_type *t, bool decoding) {
    value r = {'f', 0, 0, 0};
    if (t->kind == 'f' && t->size == 4) {
        float x = (float)v.f, s = (float)c->scale, o = (float)c->offset;
        r.f = decoding ? (double)(x / s + o) : (double)nearbyintf((x - o) * s);
    } else {
        double x = as_double(v);
        r.f = decoding ? x / c->scale + c->offset : nearbyint((x - c->offset) * c->scale);
    }
    return r;
}

static value quantized(const ipfsrt_codec *c, value v, const ipfsrt_cast_type *t) {
    value r = {'f', 0, 0, 0};
    if (t->size == 4) {
        float s = (float)c->scale;
        r.f = (double)(nearbyintf(s * (float)v.f) / s);
    } else {
        r.f = nearbyint(c->scale * v.f) / c->scale;
    }
    return r;
}

/* n elements from type from (at src) to type to (at dst). */
static ipfsrt_status convert(const ipfsrt_codec *c, bool decoding, const uint8_t *src, size_t n, uint8_t *dst,
                             ipfsrt_error *err) {
    const ipfsrt_cast_type *from = decoding ? &c->cast_enc : &c->cast_dec, *to = decoding ? &c->cast_dec : &c->cast_enc;
    for (size_t i = 0; i < n; i++) {
        value v = load(from, src + i * from->size);
        if (c->cast_mode == CAST_SCALE_OFFSET) v = scale_offset(c, v, from, decoding);
        else if (c->cast_mode == CAST_QUANTIZE && !decoding) v = quantized(c, v, from);
        if (!store(to, v, dst + i * to->size))
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)(i * from->size),
                               "codec %s: element %zu (%g) does not fit the type it converts to", c->ops->name, i,
                               as_double(v));
    }
    return IPFSRT_OK;
}

static ipfsrt_status cast_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *written, ipfsrt_error *err) {
    if (n % c->cast_enc.size)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "codec %s: %zu bytes are not whole elements of %zu", c->ops->name, n,
                           c->cast_enc.size);
    size_t count = n / c->cast_enc.size, out = count * c->cast_dec.size; /* at most 8x n: no overflow in practice */
    if (out / c->cast_dec.size != count || out > cap)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "codec %s: %zu elements hold more than %zu bytes", c->ops->name,
                           count, cap);
    *written = out;
    return convert(c, true, src, count, dst, err);
}

static ipfsrt_status cast_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                               ipfsrt_error *err) {
    (void)src, (void)err;
    *size = n / c->cast_enc.size * c->cast_dec.size;
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status cast_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                 ipfsrt_error *err) {
    if (n % c->cast_dec.size)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec %s: %zu bytes are not whole elements", c->ops->name, n);
    size_t count = n / c->cast_dec.size;
    uint8_t *at = ipfsrt_buf_reserve(out, count * c->cast_enc.size + 1);
    if (!at) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = convert(c, false, src, count, at, err);
    if (st == IPFSRT_OK) out->len += count * c->cast_enc.size;
    return st;
}

const ipfsrt_codec_ops ipfsrt_codec_astype = {"astype", astype_configure, cast_decode, cast_size,
                                              cast_encode, NULL, NULL};
const ipfsrt_codec_ops ipfsrt_codec_quantize = {"quantize", quantize_configure, cast_decode, cast_size,
                                                cast_encode, NULL, NULL};
const ipfsrt_codec_ops ipfsrt_codec_fixedscaleoffset = {"fixedscaleoffset", scale_offset_configure, cast_decode,
                                                        cast_size, cast_encode, NULL, NULL};
