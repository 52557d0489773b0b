#include <stdlib.h>
#include <string.h>

#include "ipfsrt/multibase.h"
#include "base/base_internal.h"

/* base36 and base58 are big-number conversions, quadratic in the length; CIDs
 * are far below this, and the cap keeps hostile inputs from costing seconds. */
#define BIGNUM_BASE_MAX_BYTES 4096

typedef enum { FAMILY_RFC4648, FAMILY_BIGNUM } family;

static const struct base_info {
    const char *name;
    char prefix;
    family fam;
    unsigned bits; /* RFC 4648 bits per character; radix for bignum bases */
    bool upper;
    bool pad;
    const char *alphabet;
} bases[IPFSRT_BASE_COUNT] = {
    [IPFSRT_BASE16] = {"base16", 'f', FAMILY_RFC4648, 4, false, false, "0123456789abcdef"},
    [IPFSRT_BASE16UPPER] = {"base16upper", 'F', FAMILY_RFC4648, 4, true, false, "0123456789ABCDEF"},
    [IPFSRT_BASE32] = {"base32", 'b', FAMILY_RFC4648, 5, false, false,
                       "abcdefghijklmnopqrstuvwxyz234567"},
    [IPFSRT_BASE32UPPER] = {"base32upper", 'B', FAMILY_RFC4648, 5, true, false,
                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
    [IPFSRT_BASE32PAD] = {"base32pad", 'c', FAMILY_RFC4648, 5, false, true,
                          "abcdefghijklmnopqrstuvwxyz234567"},
    [IPFSRT_BASE32PADUPPER] = {"base32padupper", 'C', FAMILY_RFC4648, 5, true, true,
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
    [IPFSRT_BASE36] = {"base36", 'k', FAMILY_BIGNUM, 36, false, false,
                       "0123456789abcdefghijklmnopqrstuvwxyz"},
    [IPFSRT_BASE36UPPER] = {"base36upper", 'K', FAMILY_BIGNUM, 36, true, false,
                            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    [IPFSRT_BASE58BTC] = {"base58btc", 'z', FAMILY_BIGNUM, 58, false, false,
                          "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"},
    [IPFSRT_BASE64] = {"base64", 'm', FAMILY_RFC4648, 6, false, false,
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"},
    [IPFSRT_BASE64PAD] = {"base64pad", 'M', FAMILY_RFC4648, 6, false, true,
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"},
    [IPFSRT_BASE64URL] = {"base64url", 'u', FAMILY_RFC4648, 6, false, false,
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"},
    [IPFSRT_BASE64URLPAD] = {"base64urlpad", 'U', FAMILY_RFC4648, 6, false, true,
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"},
};

/* Registered in the multibase table but not implemented here. */
static const char unsupported_prefixes[] = "079vVtThRZp";

const char *ipfsrt_multibase_name(ipfsrt_base base) {
    return (unsigned)base < IPFSRT_BASE_COUNT ? bases[base].name : "unknown";
}

char ipfsrt_multibase_prefix(ipfsrt_base base) {
    return (unsigned)base < IPFSRT_BASE_COUNT ? bases[base].prefix : '?';
}

ipfsrt_status ipfsrt_multibase_from_name(const char *name, ipfsrt_base *base, ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(base, err);
    for (int i = 0; i < IPFSRT_BASE_COUNT; i++) {
        if (strcmp(bases[i].name, name) == 0) {
            *base = (ipfsrt_base)i;
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "unknown or unsupported multibase '%s'", name);
}

static size_t raw_encoded_len(const struct base_info *b, size_t n) {
    if (b->fam == FAMILY_BIGNUM) {
        /* log(256)/log(58) < 1.37, log(256)/log(36) < 1.55 */
        return b->bits == 58 ? n * 137 / 100 + 1 : n * 155 / 100 + 1;
    }
    size_t chars = (n * 8 + b->bits - 1) / b->bits;
    if (b->pad) {
        size_t group = b->bits == 5 ? 8 : 4;
        chars = (chars + group - 1) / group * group;
    }
    return chars;
}

size_t ipfsrt_multibase_encoded_size(ipfsrt_base base, size_t n) {
    if ((unsigned)base >= IPFSRT_BASE_COUNT || n > SIZE_MAX / 8 - 16) return 0;
    return raw_encoded_len(&bases[base], n) + 2;
}

static int char_value(const struct base_info *b, unsigned char c) {
    if (b->fam == FAMILY_RFC4648 && b->bits == 6) {
        const char *p = memchr(b->alphabet, c, 64);
        return p && c ? (int)(p - b->alphabet) : -1;
    }
    if (b->bits == 58) {
        const char *p = memchr(b->alphabet, c, 58);
        return p && c ? (int)(p - b->alphabet) : -1;
    }
    /* base16, base32 and base36 decode case-insensitively */
    if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
    const char *lower = bases[b->bits == 4 ? IPFSRT_BASE16 : b->bits == 5 ? IPFSRT_BASE32
                                                                         : IPFSRT_BASE36]
                            .alphabet;
    size_t alen = strlen(lower);
    const char *p = memchr(lower, c, alen);
    return p && c ? (int)(p - lower) : -1;
}

static ipfsrt_status rfc4648_encode(const struct base_info *b, const uint8_t *data, size_t n,
                                    char *out, size_t *out_len) {
    size_t o = 0;
    unsigned bits = 0;
    uint32_t acc = 0;
    uint32_t mask = (1u << b->bits) - 1;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 8) | data[i];
        bits += 8;
        while (bits >= b->bits) {
            bits -= b->bits;
            out[o++] = b->alphabet[(acc >> bits) & mask];
        }
    }
    if (bits) out[o++] = b->alphabet[(acc << (b->bits - bits)) & mask];
    if (b->pad) {
        size_t group = b->bits == 5 ? 8 : 4;
        while (o % group) out[o++] = '=';
    }
    *out_len = o;
    return IPFSRT_OK;
}

static ipfsrt_status rfc4648_decode(const struct base_info *b, const char *s, size_t slen,
                                    uint8_t *out, size_t *out_len, ipfsrt_error *err) {
    size_t end = slen;
    if (b->pad) {
        size_t group = b->bits == 5 ? 8 : 4;
        if (slen % group)
            return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)slen,
                               "%s: length %zu is not a multiple of %zu", b->name, slen, group);
        while (end > 0 && s[end - 1] == '=') end--;
        if (slen - end >= group)
            return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)end, "%s: too much padding",
                               b->name);
    }
    size_t o = 0;
    unsigned bits = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < end; i++) {
        int v = char_value(b, (unsigned char)s[i]);
        if (v < 0)
            return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)i,
                               "%s: invalid character 0x%02x at position %zu", b->name,
                               (unsigned char)s[i], i);
        acc = (acc << b->bits) | (uint32_t)v;
        bits += b->bits;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    /* Leftover bits must be fewer than one character (else the string was
     * cut short) and zero (else the string has more than one spelling: the
     * last character is mistyped, or not the canonical one). */
    if (bits >= b->bits)
        return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)end,
                           "%s: %zu characters end inside a byte: the string is cut short", b->name, end);
    if (acc & ((1u << bits) - 1))
        return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)end - 1,
                           "%s: the last character, '%c' at position %zu, sets bits past the data (mistyped, "
                           "or not the canonical spelling)", b->name, s[end - 1], end - 1);
    *out_len = o;
    return IPFSRT_OK;
}

static ipfsrt_status bignum_encode(const struct base_info *b, const uint8_t *data, size_t n,
                                   char *out, size_t *out_len, ipfsrt_error *err) {
    if (n > BIGNUM_BASE_MAX_BYTES)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: input of %zu bytes exceeds %d",
                           b->name, n, BIGNUM_BASE_MAX_BYTES);
    unsigned radix = b->bits;
    size_t zeros = 0;
    while (zeros < n && data[zeros] == 0) zeros++;
    size_t cap = raw_encoded_len(b, n);
    uint8_t *digits = calloc(cap ? cap : 1, 1);
    if (!digits) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t used = 0; /* digits, least significant first */
    for (size_t i = zeros; i < n; i++) {
        uint32_t carry = data[i];
        for (size_t j = 0; j < used; j++) {
            carry += (uint32_t)digits[j] << 8;
            digits[j] = (uint8_t)(carry % radix);
            carry /= radix;
        }
        while (carry) {
            digits[used++] = (uint8_t)(carry % radix);
            carry /= radix;
        }
    }
    size_t o = 0;
    for (size_t i = 0; i < zeros; i++) out[o++] = b->alphabet[0];
    for (size_t j = used; j > 0; j--) out[o++] = b->alphabet[digits[j - 1]];
    free(digits);
    *out_len = o;
    return IPFSRT_OK;
}

static ipfsrt_status bignum_decode(const struct base_info *b, const char *s, size_t slen,
                                   uint8_t *out, size_t *out_len, ipfsrt_error *err) {
    if (slen > BIGNUM_BASE_MAX_BYTES * 2)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: string of %zu characters is too long",
                           b->name, slen);
    unsigned radix = b->bits;
    size_t zeros = 0;
    while (zeros < slen && char_value(b, (unsigned char)s[zeros]) == 0) zeros++;
    uint8_t *acc = calloc(slen ? slen : 1, 1); /* little-endian bytes */
    if (!acc) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t used = 0;
    for (size_t i = zeros; i < slen; i++) {
        int v = char_value(b, (unsigned char)s[i]);
        if (v < 0) {
            free(acc);
            return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, (int64_t)i,
                               "%s: invalid character 0x%02x at position %zu", b->name,
                               (unsigned char)s[i], i);
        }
        uint32_t carry = (uint32_t)v;
        for (size_t j = 0; j < used; j++) {
            carry += (uint32_t)acc[j] * radix;
            acc[j] = (uint8_t)carry;
            carry >>= 8;
        }
        while (carry) {
            acc[used++] = (uint8_t)carry;
            carry >>= 8;
        }
    }
    size_t o = 0;
    memset(out, 0, zeros);
    o = zeros;
    for (size_t j = used; j > 0; j--) out[o++] = acc[j - 1];
    free(acc);
    *out_len = o;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_base_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                 size_t out_size, size_t *out_len, ipfsrt_error *err) {
    IPFSRT_NEED_N(out, out_size, err);
    if ((unsigned)base >= IPFSRT_BASE_COUNT)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "unknown base %d", (int)base);
    const struct base_info *b = &bases[base];
    if (n > SIZE_MAX / 8 - 16 || raw_encoded_len(b, n) + 1 > out_size)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: output buffer too small", b->name);
    size_t len = 0;
    ipfsrt_status st = b->fam == FAMILY_BIGNUM ? bignum_encode(b, data, n, out, &len, err)
                                               : rfc4648_encode(b, data, n, out, &len);
    if (st != IPFSRT_OK) return st;
    out[len] = '\0';
    if (out_len) *out_len = len;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_base_decode(ipfsrt_base base, const char *s, size_t slen, uint8_t *out,
                                 size_t out_size, size_t *out_len, ipfsrt_error *err) {
    IPFSRT_NEED_N(out, out_size, err);
    if ((unsigned)base >= IPFSRT_BASE_COUNT)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "unknown base %d", (int)base);
    if (out_size < slen)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: output buffer too small", bases[base].name);
    const struct base_info *b = &bases[base];
    size_t len = 0;
    ipfsrt_status st = b->fam == FAMILY_BIGNUM ? bignum_decode(b, s, slen, out, &len, err)
                                               : rfc4648_decode(b, s, slen, out, &len, err);
    if (st == IPFSRT_OK && out_len) *out_len = len;
    return st;
}

ipfsrt_status ipfsrt_multibase_encode(ipfsrt_base base, const uint8_t *data, size_t n, char *out,
                                      size_t out_size, size_t *out_len, ipfsrt_error *err) {
    IPFSRT_NEED_N(out, out_size, err);
    if ((unsigned)base >= IPFSRT_BASE_COUNT)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "unknown base %d", (int)base);
    if (out_size < 2) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "output buffer too small");
    out[0] = bases[base].prefix;
    size_t len = 0;
    ipfsrt_status st = ipfsrt_base_encode(base, data, n, out + 1, out_size - 1, &len, err);
    if (st == IPFSRT_OK && out_len) *out_len = len + 1;
    return st;
}

ipfsrt_status ipfsrt_multibase_decode(const char *s, size_t slen, uint8_t *out, size_t out_size,
                                      size_t *out_len, ipfsrt_base *base, ipfsrt_error *err) {
    IPFSRT_NEED_N(out, out_size, err);
    if (slen == 0) return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, 0, "empty multibase string");
    char prefix = s[0];
    for (int i = 0; i < IPFSRT_BASE_COUNT; i++) {
        if (bases[i].prefix == prefix) {
            if (base) *base = (ipfsrt_base)i;
            ipfsrt_status st =
                ipfsrt_base_decode((ipfsrt_base)i, s + 1, slen - 1, out, out_size, out_len, err);
            if (st != IPFSRT_OK) ipfsrt_error_shift(err, 1); /* past the prefix; err untouched on success */
            return st;
        }
    }
    if (prefix && strchr(unsupported_prefixes, prefix))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, 0, "multibase prefix '%c' is not supported",
                           prefix);
    if ((unsigned char)prefix == 0xF0) /* base256emoji, 🚀 */
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, 0, "multibase base256emoji is not supported");
    return ipfsrt_fail(err, IPFSRT_EBAD_MULTIBASE, 0, "unknown multibase prefix 0x%02x",
                       (unsigned char)prefix);
}
