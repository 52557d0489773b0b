/* CRC-32C (Castagnoli), which no Debian C library offers: the SSE 4.2
 * instruction where the CPU has it, else a table (slicing by one byte). The
 * Zarr v3 codec appends it little-endian to the bytes it covers. */
#include <pthread.h>
#include <string.h>

#include "codec/codec_internal.h"

#define POLY 0x82f63b78u /* reversed Castagnoli polynomial */

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        table[i] = c;
    }
}

static uint32_t crc_table(uint32_t crc, const uint8_t *p, size_t n) {
    pthread_once(&table_once, make_table);
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t c = crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n; n--, p++) c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}
#endif

uint32_t ipfsrt_crc32c(uint32_t crc, const void *data, size_t n) {
    crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("sse4.2")) return ~crc_sse42(crc, data, n);
#endif
    return ~crc_table(crc, data, n);
}

static uint32_t stored_crc(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static ipfsrt_status crc32c_size(const ipfsrt_codec *c, const uint8_t *src, size_t n, size_t *size, bool *known,
                                 ipfsrt_error *err) {
    (void)c, (void)src;
    if (n < 4) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, 0, "crc32c data: %zu bytes, shorter than the checksum", n);
    *size = n - 4;
    *known = true;
    return IPFSRT_OK;
}

static ipfsrt_status crc32c_decode(const ipfsrt_codec *c, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                   size_t *written, ipfsrt_error *err) {
    size_t len = 0;
    bool known;
    ipfsrt_status st = crc32c_size(c, src, n, &len, &known, err);
    if (st != IPFSRT_OK) return st;
    if (len > cap) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "crc32c data hold %zu bytes, more than %zu", len, cap);
    uint32_t want = stored_crc(src + len), got = ipfsrt_crc32c(0, src, len);
    if (got != want)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)len, "crc32c mismatch: the data sum to %08x, the stored sum is %08x",
                           got, want);
    memcpy(dst, src, len);
    *written = len;
    return IPFSRT_OK;
}

static ipfsrt_status crc32c_encode(const ipfsrt_codec *c, const uint8_t *src, size_t n, ipfsrt_buf *out,
                                   ipfsrt_error *err) {
    (void)c;
    uint32_t crc = ipfsrt_crc32c(0, src, n);
    uint8_t tail[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
    ipfsrt_buf_append(out, src, n);
    ipfsrt_buf_append(out, tail, 4);
    return out->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

const ipfsrt_codec_ops ipfsrt_codec_crc32c = {"crc32c", NULL, crc32c_decode, crc32c_size, crc32c_encode, NULL, NULL};
