/* Zarr data types and fill values: numpy typestrs (v2), v3 names, and every
 * fill-value encoding (numbers, "NaN", "Infinity", hex bit patterns, base64). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"

static ipfsrt_status set_dtype(ipfsrt_zarr_meta *m, ipfsrt_dtype d, size_t size) {
    m->dtype = d;
    m->itemsize = size;
    m->stored_itemsize = size;
    return IPFSRT_OK;
}

/* kind + size as numpy spells them: b1, i1..i8, u1..u8, f2..f8, c8, c16 */
static ipfsrt_status numeric(ipfsrt_zarr_meta *m, char kind, long size) {
    static const struct {
        char kind;
        long size;
        ipfsrt_dtype d;
    } map[] = {{'b', 1, IPFSRT_DTYPE_BOOL},     {'i', 1, IPFSRT_DTYPE_INT8},    {'i', 2, IPFSRT_DTYPE_INT16},
               {'i', 4, IPFSRT_DTYPE_INT32},    {'i', 8, IPFSRT_DTYPE_INT64},   {'u', 1, IPFSRT_DTYPE_UINT8},
               {'u', 2, IPFSRT_DTYPE_UINT16},   {'u', 4, IPFSRT_DTYPE_UINT32},  {'u', 8, IPFSRT_DTYPE_UINT64},
               {'f', 4, IPFSRT_DTYPE_FLOAT32},  {'f', 8, IPFSRT_DTYPE_FLOAT64},  {'c', 8, IPFSRT_DTYPE_COMPLEX64},
               {'c', 16, IPFSRT_DTYPE_COMPLEX128}};
    if (kind == 'f' && size == 2) { /* float16: widened on read */
        set_dtype(m, IPFSRT_DTYPE_FLOAT32, 4);
        m->stored_itemsize = 2;
        m->float16 = true;
        return IPFSRT_OK;
    }
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].kind == kind && map[i].size == size) return set_dtype(m, map[i].d, (size_t)size);
    return IPFSRT_EUNSUPPORTED;
}

ipfsrt_status ipfsrt_zarr_dtype_v2(ipfsrt_zarr_meta *m, const char *s, ipfsrt_error *err) {
    size_t len = strlen(s);
    if (len < 3 || !strchr("<>|=", s[0])) goto bad;
    m->big_endian = s[0] == '>';
    char *end;
    if (s[2] < '0' || s[2] > '9') goto bad; /* strtol would take "<i 8" and "<i+8" */
    long size = strtol(s + 2, &end, 10);
    if (s[1] == 'S' && !*end && size > 0 && size <= 1 << 20) return set_dtype(m, IPFSRT_DTYPE_BYTES, (size_t)size);
    if (s[1] == 'U' && !*end && size > 0 && size <= 1 << 18) { /* code points: 4 bytes each, as UTF-8 at most 4 */
        m->utf32 = true;
        return set_dtype(m, IPFSRT_DTYPE_BYTES, 4 * (size_t)size);
    }
    if ((s[1] == 'M' || s[1] == 'm') && size == 8 && *end == '[' && strlen(end) < sizeof m->datetime_unit + 1 &&
        end[strlen(end) - 1] == ']') { /* datetime64/timedelta64: int64 counts of the unit */
        memcpy(m->datetime_unit, end + 1, strlen(end) - 2);
        m->datetime_unit[strlen(end) - 2] = '\0';
        return set_dtype(m, IPFSRT_DTYPE_INT64, 8);
    }
    if (!*end && numeric(m, s[1], size) == IPFSRT_OK) return IPFSRT_OK;
bad:
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: data type \"%.40s\" is not supported", m->name, s);
}

ipfsrt_status ipfsrt_zarr_dtype_v3(ipfsrt_zarr_meta *m, const cJSON *dt, ipfsrt_error *err) {
    static const struct {
        const char *name;
        char kind;
        long size;
    } names[] = {{"bool", 'b', 1},     {"int8", 'i', 1},     {"int16", 'i', 2},     {"int32", 'i', 4},
                 {"int64", 'i', 8},    {"uint8", 'u', 1},    {"uint16", 'u', 2},    {"uint32", 'u', 4},
                 {"uint64", 'u', 8},   {"float16", 'f', 2},  {"float32", 'f', 4},   {"float64", 'f', 8},
                 {"complex64", 'c', 8}, {"complex128", 'c', 16}};
    const char *s = cJSON_IsString(dt) ? dt->valuestring : NULL;
    if (!s) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: data_type must be a name", m->name);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) return numeric(m, names[i].kind, names[i].size);
    char *end;
    long bits = s[0] == 'r' && s[1] >= '0' && s[1] <= '9' ? strtol(s + 1, &end, 10) : 0;
    if (bits > 0 && bits % 8 == 0 && bits <= 8 << 20 && !*end) return set_dtype(m, IPFSRT_DTYPE_BYTES, (size_t)bits / 8);
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: data type \"%.40s\" is not supported", m->name, s);
}

/* One code point as UTF-8 at out; how many bytes (U+FFFD for what is none). */
static size_t utf8_put(uint32_t cp, uint8_t *out) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) return out[0] = (uint8_t)cp, 1;
    if (cp < 0x800) return out[0] = (uint8_t)(0xC0 | cp >> 6), out[1] = (uint8_t)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12), out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18), out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)), out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

void ipfsrt_zarr_utf32_to_utf8(uint8_t *elem, size_t size, bool big) {
    size_t at = 0;
    for (size_t i = 0; i + 4 <= size; i += 4) { /* never writes past what it has read */
        const uint8_t *p = elem + i;
        uint32_t cp = big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                          : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        if (!cp) break; /* numpy pads with NULs */
        uint8_t tmp[4];
        size_t n = utf8_put(cp, tmp);
        memcpy(elem + at, tmp, n);
        at += n;
    }
    memset(elem + at, 0, size - at);
}

/* The next code point of UTF-8 at p (n bytes left); U+FFFD for a bad sequence. */
static uint32_t utf8_get(const uint8_t *p, size_t n, size_t *used) {
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = p[0] < 0x80 ? 1 : p[0] >> 5 == 6 ? 2 : p[0] >> 4 == 14 ? 3 : p[0] >> 3 == 30 ? 4 : 0;
    *used = 1;
    if (!len || len > n) return 0xFFFD;
    uint32_t cp = len == 1 ? p[0] : p[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0xFFFD;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    *used = len;
    return cp < min[len] ? 0xFFFD : cp;
}

void ipfsrt_zarr_utf8_to_utf32(const uint8_t *elem, size_t size, uint8_t *out, bool big) {
    size_t at = 0;
    memset(out, 0, size);
    for (size_t i = 0; i < size && elem[i] && at + 4 <= size;) {
        size_t used;
        uint32_t cp = utf8_get(elem + i, size - i, &used);
        i += used;
        for (int k = 0; k < 4; k++) out[at + (size_t)k] = (uint8_t)(cp >> (big ? 24 - 8 * k : 8 * k));
        at += 4;
    }
}

float ipfsrt_zarr_half_to_float(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    float v = exp == 0 ? ldexpf((float)frac, -24)                       /* subnormal */
            : exp == 31 ? (frac ? NAN : INFINITY)
                        : ldexpf((float)(frac | 0x400), exp - 25);
    return sign ? -v : v;
}

/* "0x..." bit patterns (v3) of a float type, as stored. */
static bool hex_bits(ipfsrt_zarr_meta *m, const char *s, double *v) {
    if (strncmp(s, "0x", 2) != 0 || strlen(s) != 2 + 2 * m->stored_itemsize) return false;
    char *end;
    unsigned long long bits = strtoull(s + 2, &end, 16);
    if (*end) return false;
    if (m->float16) {
        *v = ipfsrt_zarr_half_to_float((uint16_t)bits);
    } else if (m->dtype == IPFSRT_DTYPE_FLOAT32) {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        *v = f;
    } else {
        memcpy(v, &bits, 8);
    }
    return true;
}

static bool special_float(ipfsrt_zarr_meta *m, const char *s, double *v) {
    if (strcmp(s, "NaN") == 0) *v = NAN;
    else if (strcmp(s, "Infinity") == 0) *v = INFINITY;
    else if (strcmp(s, "-Infinity") == 0) *v = -INFINITY;
    else return hex_bits(m, s, v);
    return true;
}

static int base64_value(char c) {
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

/* Standard base64 of the raw bytes (v2 fixed bytes), into the fill element. */
static ipfsrt_status base64_fill(ipfsrt_zarr_meta *m, const char *s, ipfsrt_error *err) {
    size_t at = 0, bits = 0;
    uint32_t acc = 0;
    for (const char *p = s; *p && *p != '='; p++) {
        int v = base64_value(*p);
        if (v < 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value is not base64", m->name);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (at < m->itemsize) m->fill.data[at] = (unsigned char)(acc >> bits);
            at++;
        }
    }
    if (at > m->itemsize) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value is longer than the type", m->name);
    return IPFSRT_OK;
}

/* A <U fill: its first itemsize / 4 characters, as numpy keeps them, held
 * as UTF-8 (never cut inside a character). */
static ipfsrt_status text_fill(ipfsrt_zarr_meta *m, const char *s) {
    size_t chars = m->itemsize / 4, at = 0;
    for (size_t k = 0; k < chars && s[at]; k++) {
        size_t len = 1;
        while ((s[at + len] & 0xC0) == 0x80) len++; /* continuation bytes (cJSON gives valid UTF-8) */
        at += len;
    }
    memcpy(m->fill.data, s, at); /* at most 4 bytes a character: fits */
    return IPFSRT_OK;
}

/* A v3 r<N> fill: exactly N bytes, each 0 to 255. */
static ipfsrt_status raw_fill(ipfsrt_zarr_meta *m, const cJSON *fill, ipfsrt_error *err) {
    size_t i = 0;
    for (const cJSON *b = fill->child; b; b = b->next, i++) {
        int64_t v;
        if (i >= m->itemsize || !ipfsrt_json_int64(b, &v) || v < 0 || v > 255)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value is not %zu bytes (0 to 255 each)", m->name,
                               m->itemsize);
        m->fill.data[i] = (unsigned char)v;
    }
    if (i != m->itemsize)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value has %zu bytes, not %zu", m->name, i, m->itemsize);
    return IPFSRT_OK;
}

/* An integer fill from its digits: exact to the last one, range-checked. */
static ipfsrt_status int_fill(ipfsrt_zarr_meta *m, bool negative, uint64_t magnitude, ipfsrt_error *err) {
    if (m->dtype == IPFSRT_DTYPE_UINT64 && !negative) { /* up to 2^64 - 1, past what int64 holds */
        memcpy(m->fill.data, &magnitude, sizeof magnitude);
        return IPFSRT_OK;
    }
    if (negative ? magnitude > (uint64_t)INT64_MAX + 1 : magnitude > (uint64_t)INT64_MAX)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value %s%llu does not fit %s", m->name,
                           negative ? "-" : "", (unsigned long long)magnitude, ipfsrt_dtype_name(m->dtype));
    int64_t v = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    ipfsrt_status st = ipfsrt_ndarray_set(&m->fill, NULL, 0, (double)v, v, true, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: fill_value: ", m->name);
    return st;
}

ipfsrt_status ipfsrt_zarr_fill(ipfsrt_zarr_meta *m, const cJSON *fill, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_ndarray_zeros(&m->fill, m->dtype, m->itemsize, 0, NULL, err);
    if (st != IPFSRT_OK) return st;
    m->has_fill = fill && !cJSON_IsNull(fill);
    if (!m->has_fill) return IPFSRT_OK;
    double v = 0;
    if (m->utf32 && cJSON_IsString(fill)) return text_fill(m, fill->valuestring);
    if (m->dtype == IPFSRT_DTYPE_BYTES && cJSON_IsString(fill)) return base64_fill(m, fill->valuestring, err);
    if (m->dtype == IPFSRT_DTYPE_BYTES && cJSON_IsArray(fill)) return raw_fill(m, fill, err);
    if (cJSON_IsArray(fill) && cJSON_GetArraySize(fill) == 2 && cJSON_IsNumber(fill->child) &&
        (m->dtype == IPFSRT_DTYPE_COMPLEX64 || m->dtype == IPFSRT_DTYPE_COMPLEX128)) {
        double re = fill->child->valuedouble, im = fill->child->next->valuedouble;
        if (m->dtype == IPFSRT_DTYPE_COMPLEX64) {
            float parts[2] = {(float)re, (float)im};
            memcpy(m->fill.data, parts, 8);
        } else {
            double parts[2] = {re, im};
            memcpy(m->fill.data, parts, 16);
        }
        return IPFSRT_OK;
    }
    bool negative;
    uint64_t magnitude;
    if (ipfsrt_dtype_is_int(m->dtype) && ipfsrt_json_integer(fill, &negative, &magnitude))
        return int_fill(m, negative, magnitude, err);
    if (ipfsrt_dtype_is_int(m->dtype) && cJSON_IsNumber(fill) && fill->valuestring)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value %s does not fit %s", m->name, fill->valuestring,
                           ipfsrt_dtype_name(m->dtype));
    if (cJSON_IsBool(fill)) v = cJSON_IsTrue(fill);
    else if (cJSON_IsNumber(fill)) v = fill->valuedouble;
    else if (!(cJSON_IsString(fill) && ipfsrt_dtype_is_float(m->dtype) && special_float(m, fill->valuestring, &v)))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: fill_value does not fit the data type %s", m->name,
                           ipfsrt_dtype_name(m->dtype));
    bool as_int = !ipfsrt_dtype_is_float(m->dtype) && fabs(v) < 9.2e18 && v == trunc(v); /* else checked as a double */
    st = ipfsrt_ndarray_set(&m->fill, NULL, 0, v, as_int ? (int64_t)v : 0, as_int, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: fill_value: ", m->name);
    return st;
}
