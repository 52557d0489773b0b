/* libFuzzer target: every chunk codec's decoder, whole and as a prefix (and
 * the filters that convert element types) on any bytes. The first byte
 * picks the codec (and configuration), the second how many bytes the chunk is
 * due to decode to. A sized decode must never write past its destination
 * (canary bytes after it), and what decodes must encode and decode back the
 * same; decoding at any size stays within its limit; a prefix decode gives the
 * whole decode's first bytes, and fails wherever it fails (checksums, stream
 * ends, trailing bytes), bar blocks of a zstd frame without checksum that it
 * never reached. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "ipfsrt/codec.h"

static const struct {
    const char *name, *config;
    size_t itemsize;
} CODECS[] = {
    {"zstd", NULL, 4},
    {"gzip", NULL, 1},
    {"zlib", NULL, 1},
    {"bz2", NULL, 1},
    {"lz4", NULL, 1},
    {"blosc", "{\"cname\": \"lz4\", \"shuffle\": 1}", 4},
    {"blosc", "{\"cname\": \"zstd\", \"shuffle\": 2}", 2},
    {"blosc", "{\"cname\": \"blosclz\", \"shuffle\": 0}", 8},
    {"blosc", "{\"cname\": \"zlib\", \"shuffle\": 1}", 4},
    {"crc32c", NULL, 1},
    {"shuffle", "{\"elementsize\": 4}", 4},
    {"delta", "{\"dtype\": \"<i2\"}", 2},
    {"delta", "{\"dtype\": \"<f4\"}", 4},
    {"fixedscaleoffset", "{\"offset\": 1.5, \"scale\": 10, \"dtype\": \"<f8\", \"astype\": \"<i2\"}", 8},
    {"quantize", "{\"digits\": 2, \"dtype\": \"<f4\"}", 4},
    {"astype", "{\"encode_dtype\": \">i2\", \"decode_dtype\": \"<f8\"}", 8},
};
#define N_CODECS (sizeof CODECS / sizeof CODECS[0])
#define CANARY 16

static ipfsrt_codec *codecs[N_CODECS];

static void setup(void) {
    if (codecs[0]) return;
    for (size_t i = 0; i < N_CODECS; i++) {
        if (ipfsrt_codec_new(&codecs[i], CODECS[i].name, CODECS[i].config, CODECS[i].itemsize, NULL) != IPFSRT_OK)
            abort();
    }
}

/* One zstd frame filling the data, without a content checksum: the only case
 * where a prefix may stop before blocks whose corruption the whole decode sees. */
static bool unchecked_zstd_tail(const char *id, const uint8_t *data, size_t size) {
    return strcmp(id, "zstd") == 0 && size >= 5 && ZSTD_findFrameCompressedSize(data, size) == size &&
           !((data[4] >> 2) & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    if (size < 2) return 0;
    const ipfsrt_codec *c = codecs[data[0] % N_CODECS];
    size_t due = (size_t)data[1] * 97; /* 0 .. ~24 KiB */
    data += 2, size -= 2;
    uint8_t *out = malloc(due + CANARY);
    if (!out) return 0;
    memset(out + due, 0xC5, CANARY);
    /* float deltas with infinities do not survive a round trip (inf - inf), nor
     * do the converting filters (rounding, NaN payloads) */
    const char *id = ipfsrt_codec_id(c);
    bool converts = !strcmp(id, "fixedscaleoffset") || !strcmp(id, "quantize") || !strcmp(id, "astype");
    bool exact = !converts && (strcmp(id, "delta") != 0 || CODECS[data[-2] % N_CODECS].itemsize == 2);
    if (ipfsrt_codec_decode(c, data, size, out, due, NULL) == IPFSRT_OK && exact) {
        ipfsrt_buf enc, back;
        ipfsrt_buf_init(&enc);
        ipfsrt_buf_init(&back);
        if (ipfsrt_codec_encode(c, out, due, &enc, NULL) != IPFSRT_OK) abort();
        if (ipfsrt_codec_decode_any(c, enc.data, enc.len, due, &back, NULL) != IPFSRT_OK) abort();
        if (back.len != due || (due && memcmp(back.data, out, due) != 0)) abort();
        ipfsrt_buf_free(&enc);
        ipfsrt_buf_free(&back);
    }
    for (size_t i = 0; i < CANARY; i++)
        if (out[due + i] != 0xC5) abort();
    /* a prefix of the same size (the size byte's low bits pick how much) never
     * writes past the destination either, and agrees with the whole decode */
    uint8_t *part = malloc(due + CANARY);
    if (part) {
        memset(part + due, 0xC5, CANARY);
        size_t need = due * (data[-1] & 3) / 4;
        bool whole = ipfsrt_codec_decode(c, data, size, out, due, NULL) == IPFSRT_OK;
        bool prefix = ipfsrt_codec_decode_prefix(c, data, size, part, due, need, NULL) == IPFSRT_OK;
        if (whole && (!prefix || (need && memcmp(part, out, need) != 0))) abort();
        /* a prefix never passes what the whole decode refuses, but for blocks
         * it never reached of one zstd frame that no checksum covers */
        if (prefix && !whole && !unchecked_zstd_tail(id, data, size)) abort();
        for (size_t i = 0; i < CANARY; i++)
            if (part[due + i] != 0xC5) abort();
        free(part);
    }
    free(out);
    ipfsrt_buf any;
    ipfsrt_buf_init(&any);
    if (ipfsrt_codec_decode_any(c, data, size, 1 << 20, &any, NULL) == IPFSRT_OK && any.len > 1 << 20) abort();
    ipfsrt_buf_free(&any);
    return 0;
}
