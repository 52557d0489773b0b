#include "ipfsrt/varint.h"
#include "base/base_internal.h"

ipfsrt_status ipfsrt_varint_decode(const uint8_t *buf, size_t len, uint64_t *value, size_t *used,
                                   ipfsrt_error *err) {
    IPFSRT_NEED(value, err);
    if (len > 0 && buf[0] < 0x80) { /* codes, lengths and versions mostly fit one byte */
        *value = buf[0];
        if (used) *used = 1;
        return IPFSRT_OK;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < IPFSRT_VARINT_MAX_BYTES; i++) {
        if (i >= len) return ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)len, "varint truncated");
        uint8_t b = buf[i];
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            /* A zero final byte after others means the same value fitted in fewer bytes. */
            if (b == 0 && i > 0)
                return ipfsrt_fail(err, IPFSRT_EBAD_VARINT, (int64_t)i, "non-minimal varint");
            *value = v;
            if (used) *used = i + 1;
            return IPFSRT_OK;
        }
    }
    return ipfsrt_fail(err, IPFSRT_EBAD_VARINT, IPFSRT_VARINT_MAX_BYTES - 1,
                       "varint longer than %d bytes", IPFSRT_VARINT_MAX_BYTES);
}

size_t ipfsrt_varint_size(uint64_t value) {
    size_t n = 1;
    while (value >= 0x80) {
        value >>= 7;
        n++;
    }
    return n;
}

size_t ipfsrt_varint_encode(uint64_t value, uint8_t out[IPFSRT_VARINT_MAX_BYTES]) {
    IPFSRT_NEED_OR(out, 0);
    if (value > IPFSRT_VARINT_MAX_VALUE) return 0;
    size_t n = 0;
    while (value >= 0x80) {
        out[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}
