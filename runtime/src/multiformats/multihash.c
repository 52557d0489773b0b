#include <stdio.h>
#include <string.h>

#include "ipfsrt/multihash.h"
#include "ipfsrt/varint.h"
#include "base/base_internal.h"

static const struct {
    uint64_t code;
    const char *name;
    size_t native; /* 0: variable or not applicable */
} known[] = {
    {0x00, "identity", 0},       {0x11, "sha1", 20},           {0x12, "sha2-256", 32},
    {0x13, "sha2-512", 64},      {0x14, "sha3-512", 64},       {0x15, "sha3-384", 48},
    {0x16, "sha3-256", 32},      {0x17, "sha3-224", 28},       {0x18, "shake-128", 0},
    {0x19, "shake-256", 0},      {0x1a, "keccak-224", 28},     {0x1b, "keccak-256", 32},
    {0x1c, "keccak-384", 48},    {0x1d, "keccak-512", 64},     {0x1e, "blake3", 0},
    {0x20, "sha2-384", 48},      {0x22, "murmur3-x64-64", 8},  {0x56, "dbl-sha2-256", 32},
    {0x1012, "sha2-256-trunc254-padded", 32},                  {0xb220, "blake2b-256", 32},
    {0xb240, "blake2b-512", 64}, {0xb260, "blake2s-256", 32},
};

const char *ipfsrt_multihash_name(uint64_t code) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].code == code) return known[i].name;
    return NULL;
}

ipfsrt_status ipfsrt_multihash_code(const char *name, uint64_t *code, ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(code, err);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(known[i].name, name) == 0) {
            *code = known[i].code;
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "unknown hash function '%s'", name);
}

size_t ipfsrt_multihash_native_size(uint64_t code) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].code == code) return known[i].native;
    return 0;
}

bool ipfsrt_multihash_supported(uint64_t code) {
    return code == IPFSRT_MH_IDENTITY || code == IPFSRT_MH_SHA2_256 || code == IPFSRT_MH_SHA2_512;
}

static void describe(uint64_t code, char *buf, size_t size) {
    const char *name = ipfsrt_multihash_name(code);
    if (name)
        snprintf(buf, size, "%s (0x%llx)", name, (unsigned long long)code);
    else
        snprintf(buf, size, "0x%llx", (unsigned long long)code);
}

ipfsrt_status ipfsrt_multihash_parse(const uint8_t *buf, size_t len, ipfsrt_multihash *mh,
                                     size_t *used, ipfsrt_error *err) {
    IPFSRT_NEED(mh, err);
    uint64_t code, dlen;
    size_t n1, n2;
    ipfsrt_status st = ipfsrt_varint_decode(buf, len, &code, &n1, err);
    if (st != IPFSRT_OK) {
        if (err) ipfsrt_error_prefix(err, "multihash code: ");
        return st == IPFSRT_ETRUNCATED ? ipfsrt_fail(err, IPFSRT_EBAD_MULTIHASH, (int64_t)len,
                                                     "multihash truncated in its code")
                                       : st;
    }
    st = ipfsrt_varint_decode(buf + n1, len - n1, &dlen, &n2, err);
    if (st != IPFSRT_OK) {
        if (st == IPFSRT_ETRUNCATED)
            return ipfsrt_fail(err, IPFSRT_EBAD_MULTIHASH, (int64_t)len,
                               "multihash truncated in its length");
        ipfsrt_error_shift(err, (int64_t)n1);
        ipfsrt_error_prefix(err, "multihash length: ");
        return st;
    }
    if (dlen > IPFSRT_MH_MAX_DIGEST)
        return ipfsrt_fail(err, IPFSRT_EBAD_MULTIHASH, (int64_t)n1,
                           "multihash digest length %llu exceeds %d bytes",
                           (unsigned long long)dlen, IPFSRT_MH_MAX_DIGEST);
    size_t native = ipfsrt_multihash_native_size(code);
    if (native && dlen > native) {
        char name[64];
        describe(code, name, sizeof name);
        return ipfsrt_fail(err, IPFSRT_EBAD_MULTIHASH, (int64_t)n1,
                           "multihash digest length %llu exceeds the %zu bytes of %s",
                           (unsigned long long)dlen, native, name);
    }
    if (len - n1 - n2 < dlen)
        return ipfsrt_fail(err, IPFSRT_EBAD_MULTIHASH, (int64_t)len,
                           "multihash truncated: digest of %llu bytes, %zu present",
                           (unsigned long long)dlen, len - n1 - n2);
    mh->code = code;
    mh->digest = buf + n1 + n2;
    mh->digest_len = (size_t)dlen;
    if (used) *used = n1 + n2 + (size_t)dlen;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_multihash_sum(uint64_t code, const uint8_t *data, size_t len, size_t digest_len,
                                   ipfsrt_multihash_bytes *out, ipfsrt_error *err) {
    if (!out) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_multihash_sum: out is NULL");
    uint8_t full[64];
    const uint8_t *digest = full;
    size_t native;
    switch (code) {
    case IPFSRT_MH_IDENTITY:
        if (len > IPFSRT_MH_MAX_DIGEST)
            return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1,
                               "identity multihash of %zu bytes exceeds %d", len,
                               IPFSRT_MH_MAX_DIGEST);
        digest = data;
        native = len;
        break;
    case IPFSRT_MH_SHA2_256:
    case IPFSRT_MH_SHA2_512: {
        ipfsrt_hash_alg alg = code == IPFSRT_MH_SHA2_256 ? IPFSRT_SHA2_256 : IPFSRT_SHA2_512;
        ipfsrt_status st = ipfsrt_hash_digest(alg, data, len, full, err);
        if (st != IPFSRT_OK) return st;
        native = ipfsrt_hash_alg_size(alg);
        break;
    }
    default: {
        char name[64];
        describe(code, name, sizeof name);
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "hash function %s is not supported",
                           name);
    }
    }
    if (digest_len == 0) digest_len = native;
    if (digest_len > native)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "digest length %zu exceeds the native %zu",
                           digest_len, native);
    size_t h = ipfsrt_varint_encode(code, out->data);
    h += ipfsrt_varint_encode(digest_len, out->data + h);
    memcpy(out->data + h, digest, digest_len); /* digest_len <= IPFSRT_MH_MAX_DIGEST, checked above */
    out->len = h + digest_len;
    return IPFSRT_OK;
}
