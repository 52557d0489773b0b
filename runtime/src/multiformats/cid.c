#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipfsrt/varint.h"
#include "multiformats/multiformats_internal.h"
#include "base/base_internal.h"

static const struct {
    uint64_t code;
    const char *name;
} codecs[] = {
    {0x51, "cbor"},         {0x55, "raw"},          {0x70, "dag-pb"},
    {0x71, "dag-cbor"},     {0x72, "libp2p-key"},   {0x78, "git-raw"},
    {0x85, "dag-jose"},     {0x86, "dag-cose"},     {0x0129, "dag-json"},
    {0x0200, "json"},       {0x0202, "car"},        {0x0300, "ipns-record"},
    {0x0400, "car-index-sorted"},                   {0x0401, "car-multihash-index-sorted"},
};

const char *ipfsrt_codec_name(uint64_t code) {
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (codecs[i].code == code) return codecs[i].name;
    return NULL;
}

ipfsrt_status ipfsrt_codec_code(const char *name, uint64_t *code, ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(code, err);
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        if (strcmp(codecs[i].name, name) == 0) {
            *code = codecs[i].code;
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "unknown codec '%s'", name);
}

static bool is_v0_multihash(const uint8_t *buf, size_t len) {
    return len >= 34 && buf[0] == 0x12 && buf[1] == 0x20;
}

static ipfsrt_status cid_v0_from_bytes(ipfsrt_cid *cid, const uint8_t *buf, size_t len, size_t *used,
                                       ipfsrt_error *err) {
    if (!used && len != 34)
        return ipfsrt_fail(err, IPFSRT_ETRAILING_DATA, 34, "%zu bytes after a CIDv0", len - 34);
    cid->version = 0;
    cid->codec = IPFSRT_CODEC_DAG_PB;
    cid->hash_code = IPFSRT_MH_SHA2_256;
    cid->mh_offset = 0;
    cid->digest_offset = 2;
    cid->digest_len = 32;
    cid->len = 34;
    memcpy(cid->bytes, buf, 34);
    if (used) *used = 34;
    return IPFSRT_OK;
}

/* The version varint: only 1 is a CID here (a CIDv0 has none). */
static ipfsrt_status cid_version(const uint8_t *buf, size_t len, size_t *n, ipfsrt_error *err) {
    uint64_t version;
    ipfsrt_status st = ipfsrt_varint_decode(buf, len, &version, n, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "CID version: ");
        return st == IPFSRT_ETRUNCATED ? ipfsrt_fail(err, IPFSRT_EBAD_CID, 0, "CID truncated") : st;
    }
    if (version == 0x12)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0,
                           "CIDv0 multihash must be sha2-256 with a 32-byte digest");
    if (version == 2 || version == 3)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, 0, "CID version %llu is reserved",
                           (unsigned long long)version);
    if (version != 1)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0, "invalid CID version %llu",
                           (unsigned long long)version);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_cid_from_bytes(ipfsrt_cid *cid, const uint8_t *buf, size_t len, size_t *used,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    memset(cid, 0, sizeof *cid);
    if (len == 0) return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0, "empty CID");
    if (is_v0_multihash(buf, len)) return cid_v0_from_bytes(cid, buf, len, used, err);
    uint64_t codec;
    size_t n1, n2, n3;
    ipfsrt_status st = cid_version(buf, len, &n1, err);
    if (st != IPFSRT_OK) return st;
    st = ipfsrt_varint_decode(buf + n1, len - n1, &codec, &n2, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(err, (int64_t)n1);
        ipfsrt_error_prefix(err, "CID codec: ");
        return st == IPFSRT_ETRUNCATED ? ipfsrt_fail(err, IPFSRT_EBAD_CID, (int64_t)len,
                                                     "CID truncated in its codec")
                                       : st;
    }
    ipfsrt_multihash mh;
    st = ipfsrt_multihash_parse(buf + n1 + n2, len - n1 - n2, &mh, &n3, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(err, (int64_t)(n1 + n2));
        return st;
    }
    size_t total = n1 + n2 + n3;
    if (!used && total != len)
        return ipfsrt_fail(err, IPFSRT_ETRAILING_DATA, (int64_t)total,
                           "%zu bytes after the CID's multihash", len - total);
    if (total > IPFSRT_CID_MAX_BYTES) /* unreachable with the digest bound; kept as a guard */
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0, "CID of %zu bytes is too long", total);
    /* field by field: the struct was zeroed above, and a dag-pb shard parses
     * hundreds of these per walk */
    cid->version = 1;
    cid->codec = codec;
    cid->hash_code = mh.code;
    cid->mh_offset = (uint16_t)(n1 + n2);
    cid->digest_offset = (uint16_t)(mh.digest - buf);
    cid->digest_len = (uint16_t)mh.digest_len;
    cid->len = (uint16_t)total;
    memcpy(cid->bytes, buf, total);
    if (used) *used = total;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_cid_parse(ipfsrt_cid *cid, const char *s, size_t slen, ipfsrt_base *base,
                               ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    uint8_t buf[IPFSRT_CID_MAX_BYTES * 2 + 16];
    size_t n = 0;
    ipfsrt_status st;
    memset(cid, 0, sizeof *cid);
    if (slen == 0) return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0, "empty CID string");
    if (slen > IPFSRT_CID_STR_MAX)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1, "CID string of %zu characters is too long",
                           slen);
    if (memchr(s, '\0', slen))
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1, "CID string contains a NUL byte");
    if (slen == 46 && s[0] == 'Q' && s[1] == 'm') {
        st = ipfsrt_base_decode(IPFSRT_BASE58BTC, s, slen, buf, sizeof buf, &n, err);
        if (st != IPFSRT_OK) {
            ipfsrt_error_prefix(err, "CIDv0 '%.*s': ", (int)slen, s);
            return st;
        }
        if (n != 34 || !is_v0_multihash(buf, n))
            return ipfsrt_fail(err, IPFSRT_EBAD_CID, -1,
                               "CIDv0 '%.*s' is not a 34-byte sha2-256 multihash", (int)slen, s);
        if (base) *base = IPFSRT_BASE58BTC;
        return ipfsrt_cid_from_bytes(cid, buf, n, NULL, err);
    }
    ipfsrt_base b;
    st = ipfsrt_multibase_decode(s, slen, buf, sizeof buf, &n, &b, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "CID '%.*s': ", (int)(slen > 80 ? 80 : slen), s);
        return st;
    }
    if (n > 0 && buf[0] == 0x12)
        return ipfsrt_fail(err, IPFSRT_EBAD_CID, 0,
                           "CID '%.*s': a CIDv0 cannot carry a multibase prefix",
                           (int)(slen > 80 ? 80 : slen), s);
    st = ipfsrt_cid_from_bytes(cid, buf, n, NULL, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "CID '%.*s': ", (int)(slen > 80 ? 80 : slen), s);
        return st;
    }
    if (base) *base = b;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_cid_create(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                                const uint8_t *digest, size_t digest_len, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED_N(digest, digest_len, err);
    uint8_t buf[IPFSRT_CID_MAX_BYTES + 4 * IPFSRT_VARINT_MAX_BYTES];
    size_t n = 0;
    if (digest_len > IPFSRT_MH_MAX_DIGEST)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "digest of %zu bytes exceeds %d",
                           digest_len, IPFSRT_MH_MAX_DIGEST);
    if (version == 0) {
        if (codec != IPFSRT_CODEC_DAG_PB || hash_code != IPFSRT_MH_SHA2_256 || digest_len != 32)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                               "a CIDv0 is always dag-pb with a 32-byte sha2-256 digest");
    } else if (version == 1) {
        if (codec > IPFSRT_VARINT_MAX_VALUE || hash_code > IPFSRT_VARINT_MAX_VALUE)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "codec or hash code out of range");
        n += ipfsrt_varint_encode(1, buf + n);
        n += ipfsrt_varint_encode(codec, buf + n);
    } else {
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "CID version %d is not supported",
                           version);
    }
    n += ipfsrt_varint_encode(hash_code, buf + n);
    n += ipfsrt_varint_encode(digest_len, buf + n);
    memcpy(buf + n, digest, digest_len);
    n += digest_len;
    return ipfsrt_cid_from_bytes(cid, buf, n, NULL, err);
}

ipfsrt_status ipfsrt_cid_sum(ipfsrt_cid *cid, int version, uint64_t codec, uint64_t hash_code,
                             const uint8_t *data, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    ipfsrt_multihash_bytes mh;
    ipfsrt_status st = ipfsrt_multihash_sum(hash_code, data, len, 0, &mh, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_multihash parsed;
    st = ipfsrt_multihash_parse(mh.data, mh.len, &parsed, NULL, err);
    if (st != IPFSRT_OK) return st;
    return ipfsrt_cid_create(cid, version, codec, hash_code, parsed.digest, parsed.digest_len,
                             err);
}

ipfsrt_status ipfsrt_cid_format(const ipfsrt_cid *cid, ipfsrt_base base, char *out,
                                size_t out_size, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED_N(out, out_size, err);
    if (cid->version == 0) {
        if (base != IPFSRT_BASE58BTC)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                               "a CIDv0 is always base58btc; convert it to v1 for %s",
                               ipfsrt_multibase_name(base));
        return ipfsrt_base_encode(base, cid->bytes, cid->len, out, out_size, NULL, err);
    }
    return ipfsrt_multibase_encode(base, cid->bytes, cid->len, out, out_size, NULL, err);
}

const char *ipfsrt_cid_to_string(const ipfsrt_cid *cid, char out[IPFSRT_CID_STR_MAX]) {
    IPFSRT_NEED_OR(cid, NULL);
    IPFSRT_NEED_OR(out, NULL);
    ipfsrt_base base = cid->version == 0 ? IPFSRT_BASE58BTC : IPFSRT_BASE32;
    if (ipfsrt_cid_format(cid, base, out, IPFSRT_CID_STR_MAX, NULL) != IPFSRT_OK)
        snprintf(out, IPFSRT_CID_STR_MAX, "(invalid CID)");
    return out;
}

void ipfsrt_cid_to_v1(const ipfsrt_cid *cid, ipfsrt_cid *out) {
    IPFSRT_NEED_OR(cid, );
    IPFSRT_NEED_OR(out, );
    if (cid->version == 1) {
        *out = *cid;
        return;
    }
    ipfsrt_cid tmp = {0};
    tmp.version = 1;
    tmp.codec = IPFSRT_CODEC_DAG_PB;
    tmp.hash_code = cid->hash_code;
    tmp.bytes[0] = 0x01;
    tmp.bytes[1] = 0x70;
    memcpy(tmp.bytes + 2, cid->bytes, cid->len);
    tmp.len = (uint16_t)(cid->len + 2);
    tmp.mh_offset = 2;
    tmp.digest_offset = (uint16_t)(cid->digest_offset + 2);
    tmp.digest_len = cid->digest_len;
    *out = tmp;
}

ipfsrt_status ipfsrt_cid_to_v0(const ipfsrt_cid *cid, ipfsrt_cid *out, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(out, err);
    if (cid->version == 0) {
        *out = *cid;
        return IPFSRT_OK;
    }
    if (cid->codec != IPFSRT_CODEC_DAG_PB || cid->hash_code != IPFSRT_MH_SHA2_256 ||
        cid->digest_len != 32) {
        char s[IPFSRT_CID_STR_MAX];
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                           "%s has no CIDv0 form (needs dag-pb and a 32-byte sha2-256 digest)",
                           ipfsrt_cid_to_string(cid, s));
    }
    return ipfsrt_cid_from_bytes(out, cid->bytes + cid->mh_offset, cid->len - cid->mh_offset,
                                 NULL, err);
}

bool ipfsrt_cid_equal(const ipfsrt_cid *a, const ipfsrt_cid *b) {
    IPFSRT_NEED_OR(a, false);
    IPFSRT_NEED_OR(b, false);
    return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

const uint8_t *ipfsrt_cid_multihash(const ipfsrt_cid *cid, size_t *len) {
    IPFSRT_NEED_OR(cid, NULL);
    IPFSRT_NEED_OR(len, NULL);
    *len = (size_t)(cid->len - cid->mh_offset);
    return cid->bytes + cid->mh_offset;
}

bool ipfsrt_cid_streamable(const ipfsrt_cid *cid, ipfsrt_hash_alg *alg) {
    if (cid->digest_len < IPFSRT_MH_MIN_SECURE_DIGEST) return false;
    if (cid->hash_code == IPFSRT_MH_SHA2_256) *alg = IPFSRT_SHA2_256;
    else if (cid->hash_code == IPFSRT_MH_SHA2_512) *alg = IPFSRT_SHA2_512;
    else return false;
    return true;
}

ipfsrt_status ipfsrt_cid_check_digest(const ipfsrt_cid *cid, const uint8_t *computed,
                                      size_t data_len, ipfsrt_error *err) {
    if (memcmp(computed, cid->bytes + cid->digest_offset, cid->digest_len) != 0)
        return ipfsrt_fail_cid(err, IPFSRT_EHASH_MISMATCH, cid, -1,
                               "hash mismatch: the %zu block bytes hash to something else",
                               data_len);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_cid_verify(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    return ipfsrt_cid_verify_with(cid, data, len, NULL, err);
}

ipfsrt_status ipfsrt_cid_verify_with(const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                     const ipfsrt_hash_backend *backend, ipfsrt_error *err) {
    IPFSRT_NEED(cid, err);
    if (cid->hash_code == IPFSRT_MH_IDENTITY) {
        if (len != cid->digest_len || memcmp(data, cid->bytes + cid->digest_offset, len) != 0)
            return ipfsrt_fail_cid(err, IPFSRT_EHASH_MISMATCH, cid, -1,
                                   "identity CID does not match the %zu block bytes", len);
        return IPFSRT_OK;
    }
    if (!ipfsrt_multihash_supported(cid->hash_code)) {
        const char *name = ipfsrt_multihash_name(cid->hash_code);
        return ipfsrt_fail_cid(err, IPFSRT_EUNSUPPORTED, cid, -1,
                               "hash function %s (0x%llx) is not supported, block not verified",
                               name ? name : "unknown", (unsigned long long)cid->hash_code);
    }
    ipfsrt_hash_alg alg;
    if (!ipfsrt_cid_streamable(cid, &alg))
        return ipfsrt_fail_cid(err, IPFSRT_EUNSUPPORTED, cid, -1,
                               "digest of %u bytes is too short to verify (minimum %d)",
                               (unsigned)cid->digest_len, IPFSRT_MH_MIN_SECURE_DIGEST);
    uint8_t got[64];
    ipfsrt_status st = ipfsrt_hash_digest_with(backend, alg, data, len, got, err);
    if (st != IPFSRT_OK) return st;
    return ipfsrt_cid_check_digest(cid, got, len, err);
}

ipfsrt_status ipfsrt_fail_cid(ipfsrt_error *err, ipfsrt_status code, const ipfsrt_cid *cid,
                              int64_t offset, const char *fmt, ...) {
    if (!err) return code;
    IPFSRT_NEED(fmt, err);
    IPFSRT_NEED(cid, err);
    char message[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    char cid_str[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(cid, cid_str);
    ipfsrt_fail(err, code, offset, "block %s: %s", cid_str, message);
    memcpy(err->cid, cid_str, sizeof err->cid);
    return code;
}
