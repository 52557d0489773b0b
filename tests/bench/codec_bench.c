/* The codec benchmark's measuring half (scripts/bench/codecs.lua drives it):
 * a chunk encoded by ipfsrt's codec, then decoded over and over into the same
 * buffer by ipfsrt_codec_decode and by the library's own call made directly
 * (ZSTD_decompressDCtx, inflate, BZ2_bzBuffToBuffDecompress,
 * LZ4_decompress_safe, blosc_decompress_ctx), the two alternating so that
 * both see the same machine. Prints one JSON object: MB/s of decoded output,
 * medians of the rounds.
 * Usage: codec_bench NAME CONFIG_JSON ITEMSIZE RAW_FILE [ROUNDS] */
#include <blosc.h>
#include <bzlib.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <zstd.h>

#include "ipfsrt.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int inflate_all(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, int window) {
    z_stream z = {0};
    if (inflateInit2(&z, window) != Z_OK) return -1;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    int r = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    return r == Z_STREAM_END ? 0 : -1;
}

/* The library's own call for codec name; -1 when there is none to compare with. */
static int direct(const char *name, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, ZSTD_DCtx *dctx) {
    if (!strcmp(name, "zstd")) return ZSTD_isError(ZSTD_decompressDCtx(dctx, dst, cap, src, n)) ? -2 : 0;
    if (!strcmp(name, "gzip")) return inflate_all(src, n, dst, cap, 16 + MAX_WBITS);
    if (!strcmp(name, "zlib")) return inflate_all(src, n, dst, cap, MAX_WBITS);
    if (!strcmp(name, "bz2")) {
        unsigned int len = (unsigned int)cap;
        return BZ2_bzBuffToBuffDecompress((char *)dst, &len, (char *)(uintptr_t)src, (unsigned int)n, 0, 0) == BZ_OK
                   ? 0 : -2;
    }
    if (!strcmp(name, "lz4")) /* numcodecs' framing: the size, then one block */
        return LZ4_decompress_safe((const char *)src + 4, (char *)dst, (int)n - 4, (int)cap) < 0 ? -2 : 0;
    if (!strcmp(name, "blosc")) return blosc_decompress_ctx(src, dst, cap, 1) < 0 ? -2 : 0;
    return -1;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*len ? *len : 1);
    if (p && fread(p, 1, *len, f) != *len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s NAME CONFIG_JSON ITEMSIZE RAW_FILE [ROUNDS]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 5 ? atoi(argv[5]) : 15;
    if (rounds < 1 || rounds > 1000) rounds = 15;
    size_t raw_len;
    uint8_t *raw = slurp(argv[4], &raw_len);
    ipfsrt_codec *c = NULL;
    ipfsrt_error err;
    ipfsrt_buf enc;
    ipfsrt_buf_init(&enc);
    if (!raw || ipfsrt_codec_new(&c, argv[1], argv[2], (size_t)atoi(argv[3]), &err) != IPFSRT_OK ||
        ipfsrt_codec_encode(c, raw, raw_len, &enc, &err) != IPFSRT_OK) {
        fprintf(stderr, "codec_bench: %s\n", raw ? err.message : "cannot read the raw file");
        return 1;
    }
    uint8_t *dst = malloc(raw_len);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    double ours[1000], theirs[1000];
    int reps = (int)(64e6 / (double)(raw_len + 1)) + 1; /* about 64 MB decoded per round */
    bool has_direct = direct(argv[1], enc.data, enc.len, dst, raw_len, dctx) != -1;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < reps; i++)
            if (ipfsrt_codec_decode(c, enc.data, enc.len, dst, raw_len, &err) != IPFSRT_OK) return 1;
        double t1 = now();
        for (int i = 0; i < reps && has_direct; i++)
            if (direct(argv[1], enc.data, enc.len, dst, raw_len, dctx) != 0) return 1;
        double t2 = now();
        ours[r] = (double)raw_len * reps / (t1 - t0) / 1e6;
        theirs[r] = has_direct ? (double)raw_len * reps / (t2 - t1) / 1e6 : 0;
    }
    if (memcmp(dst, raw, raw_len) != 0 && has_direct) return 1;
    printf("{\"ours\": %.1f, \"direct\": %.1f, \"encoded\": %zu, \"decoded\": %zu}\n", median(ours, rounds),
           has_direct ? median(theirs, rounds) : 0.0, enc.len, raw_len);
    ZSTD_freeDCtx(dctx);
    ipfsrt_codec_free(c);
    ipfsrt_buf_free(&enc);
    free(dst);
    free(raw);
    return 0;
}
