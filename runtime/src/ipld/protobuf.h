/* The few protobuf wire-format pieces dag-pb and UnixFS need. */
#ifndef IPFSRT_PROTOBUF_H
#define IPFSRT_PROTOBUF_H

#include "ipfsrt/buf.h"

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

/* Protobuf varints: up to 10 bytes; unlike multiformats varints they need not
 * be minimal. Returns false on truncation or a value over 64 bits. */
static inline bool pb_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *value) {
    if (*pos < len && buf[*pos] < 0x80) { /* keys and short lengths: most of a dag-pb node */
        *value = buf[(*pos)++];
        return true;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (*pos >= len) return false;
        uint8_t b = buf[(*pos)++];
        if (i == 9 && b > 1) return false;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *value = v;
            return true;
        }
    }
    return false;
}

/* A length-delimited field's payload, bounded by the enclosing message. */
static inline bool pb_bytes(const uint8_t *buf, size_t len, size_t *pos, const uint8_t **p,
                            size_t *n) {
    uint64_t l;
    if (!pb_varint(buf, len, pos, &l) || l > len - *pos) return false;
    *p = buf + *pos;
    *n = (size_t)l;
    *pos += (size_t)l;
    return true;
}

static inline void pb_put_varint(ipfsrt_buf *b, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    ipfsrt_buf_append(b, tmp, n);
}

static inline void pb_put_key(ipfsrt_buf *b, unsigned field, unsigned wire) {
    pb_put_varint(b, (uint64_t)field << 3 | wire);
}

static inline void pb_put_bytes(ipfsrt_buf *b, unsigned field, const void *p, size_t n) {
    pb_put_key(b, field, PB_LEN);
    pb_put_varint(b, n);
    ipfsrt_buf_append(b, p, n);
}

#endif
