/* libFuzzer target: varints, multibase strings and CIDs (string and binary)
 * from hostile bytes. What parses must round-trip: a varint re-encodes to the
 * same bytes (minimal), a multibase string to the same string, a CID to the
 * same binary form. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt.h"

static void varint(const uint8_t *data, size_t size) {
    uint64_t v;
    size_t used;
    if (ipfsrt_varint_decode(data, size, &v, &used, NULL) != IPFSRT_OK) return;
    uint8_t again[IPFSRT_VARINT_MAX_BYTES];
    if (ipfsrt_varint_encode(v, again) != used || memcmp(again, data, used) != 0) abort();
}

static void multibase(const uint8_t *data, size_t size) {
    uint8_t *out = malloc(size + 1);
    size_t n;
    ipfsrt_base base;
    if (out && ipfsrt_multibase_decode((const char *)data, size, out, size + 1, &n, &base, NULL) ==
                   IPFSRT_OK) {
        size_t cap = ipfsrt_multibase_encoded_size(base, n);
        char *s = malloc(cap);
        size_t slen;
        if (!s || ipfsrt_multibase_encode(base, out, n, s, cap, &slen, NULL) != IPFSRT_OK) abort();
        /* case-insensitive bases may come back in the other case */
        if (slen != size || strncasecmp(s, (const char *)data, size) != 0) abort();
        free(s);
    }
    free(out);
}

static void cid(const uint8_t *data, size_t size) {
    ipfsrt_cid c, again;
    size_t used;
    if (ipfsrt_cid_from_bytes(&c, data, size, &used, NULL) == IPFSRT_OK) {
        if (used != c.len || memcmp(c.bytes, data, used) != 0) abort();
        char s[IPFSRT_CID_STR_MAX];
        ipfsrt_cid_to_string(&c, s);
        if (ipfsrt_cid_parse(&again, s, strlen(s), NULL, NULL) != IPFSRT_OK ||
            !ipfsrt_cid_equal(&c, &again))
            abort();
    }
    if (ipfsrt_cid_parse(&c, (const char *)data, size, NULL, NULL) == IPFSRT_OK) {
        if (ipfsrt_cid_from_bytes(&again, c.bytes, c.len, NULL, NULL) != IPFSRT_OK ||
            !ipfsrt_cid_equal(&c, &again))
            abort();
        ipfsrt_cid v1;
        ipfsrt_cid_to_v1(&c, &v1);
        char s[IPFSRT_CID_STR_MAX];
        for (int b = 0; b < IPFSRT_BASE_COUNT; b++)
            ipfsrt_cid_format(&v1, (ipfsrt_base)b, s, sizeof s, NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    varint(data, size);
    multibase(data, size);
    cid(data, size);
    return 0;
}
