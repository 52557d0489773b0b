/* Chunk codecs: public check values, round trips through every codec, the
 * sized-decoding contract (data that decode to more or fewer bytes than due
 * are errors, and nothing is written past the destination), corrupt data. */
#include "testutil.h"

static ipfsrt_codec *make(const char *name, const char *json, size_t itemsize) {
    ipfsrt_codec *c = NULL;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_codec_new(&c, name, json, itemsize, &err);
    if (st != IPFSRT_OK) fail_msg("%s %s: %s", name, json ? json : "", err.message);
    return c;
}

/* 64 KiB of 4-byte integers that compress, with a noisy tail. */
static void sample(uint8_t *p, size_t n) {
    uint32_t x = 1;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)(i / 4 % 1000) + (i > n / 2 ? (x = x * 1103515245u + 12345u) >> 20 : 0);
        memcpy(p + i, &v, 4);
    }
}

static void test_crc32c_vectors(void **state) {
    (void)state;
    assert_int_equal(ipfsrt_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(ipfsrt_crc32c(ipfsrt_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u); /* continued */
    /* the Zarr sharding spec's index: (0, 4) then an empty entry, checksum 8a 07 29 c5 */
    uint8_t index[32] = {0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
    memset(index + 16, 0xff, 16);
    ipfsrt_codec *c = make("crc32c", NULL, 1);
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    assert_int_equal(ipfsrt_codec_encode(c, index, 32, &out, NULL), IPFSRT_OK);
    static const uint8_t want[4] = {0x8a, 0x07, 0x29, 0xc5};
    assert_memory_equal(out.data + 32, want, 4);
    uint8_t back[32];
    assert_int_equal(ipfsrt_codec_decode(c, out.data, out.len, back, 32, NULL), IPFSRT_OK);
    out.data[5] ^= 1;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_codec_decode(c, out.data, out.len, back, 32, &err), IPFSRT_EBAD_CHUNK_DATA);
    assert_non_null(strstr(err.message, "crc32c mismatch"));
    ipfsrt_buf_free(&out);
    ipfsrt_codec_free(c);
}

static const struct {
    const char *name, *config;
    size_t itemsize;
} CODECS[] = {
    {"zstd", "{\"level\": 3, \"checksum\": true}", 4},
    {"zstd", NULL, 4},
    {"gzip", "{\"level\": 5}", 4},
    {"zlib", NULL, 4},
    {"bz2", "{\"level\": 9}", 4},
    {"lz4", "{\"acceleration\": 1}", 4},
    {"blosc", "{\"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1}", 4},
    {"blosc", "{\"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": 2}", 4},
    {"blosc", "{\"cname\": \"blosclz\", \"clevel\": 9, \"shuffle\": -1}", 1},
    {"blosc", "{\"cname\": \"lz4hc\", \"clevel\": 0, \"shuffle\": 0}", 4},
    {"blosc", "{\"cname\": \"zlib\", \"clevel\": 1, \"shuffle\": \"bitshuffle\", \"typesize\": 4}", 4},
    {"numcodecs.blosc", "{\"cname\": \"snappy\"}", 2},
    {"crc32c", NULL, 1},
    {"shuffle", "{\"elementsize\": 4}", 4},
    {"shuffle", "{\"elementsize\": 2}", 2},
    {"shuffle", "{\"elementsize\": 8}", 8},
    {"shuffle", "{\"elementsize\": 3}", 3},
    {"delta", "{\"dtype\": \"<i4\"}", 4},
    {"delta", "{\"dtype\": \"<f8\", \"astype\": \"<f8\"}", 8},
    {"numcodecs.delta", "{\"dtype\": \"|u1\"}", 1},
};
#define N_CODECS (sizeof CODECS / sizeof CODECS[0])

/* Every codec: encode, then decode to exactly the bytes, at sizes from 0 up. */
static void test_round_trips(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 8, 1000, 65536, 65537 / 8 * 8};
    uint8_t *in = malloc(65536), *back = malloc(65536 + 16);
    sample(in, 65536);
    for (size_t k = 0; k < N_CODECS; k++) {
        ipfsrt_codec *c = make(CODECS[k].name, CODECS[k].config, CODECS[k].itemsize);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s] > 65536 ? 65536 - 8 : sizes[s];
            ipfsrt_buf enc;
            ipfsrt_buf_init(&enc);
            ipfsrt_error err;
            if (ipfsrt_codec_encode(c, in, n, &enc, &err) != IPFSRT_OK) fail_msg("%s: %s", CODECS[k].name, err.message);
            if (ipfsrt_codec_decode(c, enc.data, enc.len, back, n, &err) != IPFSRT_OK)
                fail_msg("%s %s at %zu: %s", CODECS[k].name, CODECS[k].config, n, err.message);
            assert_memory_equal(back, in, n);
            size_t size;
            bool known;
            assert_int_equal(ipfsrt_codec_decoded_size(c, enc.data, enc.len, &size, &known, NULL), IPFSRT_OK);
            if (known) assert_int_equal(size, n);
            ipfsrt_buf any;
            ipfsrt_buf_init(&any);
            if (ipfsrt_codec_decode_any(c, enc.data, enc.len, 1 << 20, &any, &err) != IPFSRT_OK)
                fail_msg("%s %s at %zu, any size: %s", CODECS[k].name, CODECS[k].config, n, err.message);
            assert_int_equal(any.len, n);
            ipfsrt_buf_free(&any);
            ipfsrt_buf_free(&enc);
        }
        ipfsrt_codec_free(c);
    }
    free(in);
    free(back);
}

/* Data due to decode to n bytes: asked for n - 4 they fail without writing
 * past (the canary stays), asked for n + 4 they fail as too few. */
static void test_sized_decoding(void **state) {
    (void)state;
    enum { N = 4000 };
    uint8_t in[N], out[N + 8];
    sample(in, N);
    for (size_t k = 0; k < N_CODECS; k++) {
        ipfsrt_codec *c = make(CODECS[k].name, CODECS[k].config, CODECS[k].itemsize);
        ipfsrt_buf enc;
        ipfsrt_buf_init(&enc);
        assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
        memset(out, 0xAB, sizeof out);
        ipfsrt_error err;
        assert_int_equal(ipfsrt_codec_decode(c, enc.data, enc.len, out, N - 4, &err), IPFSRT_EBAD_CHUNK_DATA);
        assert_non_null(strstr(err.message, "more than"));
        for (size_t i = N - 4; i < sizeof out; i++) assert_int_equal(out[i], 0xAB);
        assert_int_equal(ipfsrt_codec_decode(c, enc.data, enc.len, out, N + 4, &err), IPFSRT_EBAD_CHUNK_DATA);
        assert_non_null(strstr(err.message, "not the"));
        ipfsrt_buf_free(&enc);
        ipfsrt_codec_free(c);
    }
}

/* Every codec asked for a prefix gives it (zstd stops a block past it, the
 * others decode all); the prefix of a frame that states another size, or of
 * a frame cut short before the prefix, is an error. */
static void test_prefix_decoding(void **state) {
    (void)state;
    enum { N = 400000 }; /* zstd: several 128 KiB blocks */
    static const size_t needs[] = {0, 1, 1000, 131073, N - 1, N};
    uint8_t *in = malloc(N), *out = malloc(N);
    sample(in, N);
    for (size_t k = 0; k < N_CODECS; k++) {
        ipfsrt_codec *c = make(CODECS[k].name, CODECS[k].config, CODECS[k].itemsize);
        ipfsrt_buf enc;
        ipfsrt_buf_init(&enc);
        assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
        for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
            ipfsrt_error err;
            if (ipfsrt_codec_decode_prefix(c, enc.data, enc.len, out, N, needs[i], &err) != IPFSRT_OK)
                fail_msg("%s %s, %zu bytes: %s", CODECS[k].name, CODECS[k].config, needs[i], err.message);
            assert_memory_equal(out, in, needs[i]);
        }
        if (strcmp(CODECS[k].name, "zstd") == 0) {
            ipfsrt_error err;
            assert_int_equal(ipfsrt_codec_decode_prefix(c, enc.data, enc.len, out, N + 8, 1000, &err), IPFSRT_EBAD_CHUNK_DATA);
            assert_int_equal(ipfsrt_codec_decode_prefix(c, enc.data, enc.len / 2, out, N, N - 10, &err),
                             IPFSRT_EBAD_CHUNK_DATA);
        }
        ipfsrt_buf_free(&enc);
        ipfsrt_codec_free(c);
    }
    free(in);
    free(out);
}

/* The filters that keep the byte count say which first bytes of their input
 * a prefix of their output comes from: with every byte past those spoiled,
 * the prefix still decodes right. Other codecs say nothing. */
static void test_filter_prefix_needs(void **state) {
    (void)state;
    enum { N = 4000 };
    static const size_t needs[] = {0, 1, 5, 999, 2001, N - 1, N};
    uint8_t in[N], spoiled[N], out[N];
    sample(in, N);
    for (size_t k = 0; k < N_CODECS; k++) {
        ipfsrt_codec *c = make(CODECS[k].name, CODECS[k].config, CODECS[k].itemsize);
        bool filter = strstr(CODECS[k].name, "shuffle") || strstr(CODECS[k].name, "delta");
        size_t src_need = 0;
        assert_int_equal(ipfsrt_codec_prefix_needs(c, N, 10, &src_need), filter);
        ipfsrt_buf enc;
        ipfsrt_buf_init(&enc);
        assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
        for (size_t i = 0; filter && i < sizeof needs / sizeof needs[0]; i++) {
            assert_true(ipfsrt_codec_prefix_needs(c, N, needs[i], &src_need));
            assert_true(src_need <= N && src_need >= needs[i] / 8);
            memcpy(spoiled, enc.data, src_need);
            memset(spoiled + src_need, 0x5A, N - src_need);
            ipfsrt_error err;
            if (ipfsrt_codec_decode_prefix(c, spoiled, N, out, N, needs[i], &err) != IPFSRT_OK)
                fail_msg("%s %s, %zu bytes: %s", CODECS[k].name, CODECS[k].config, needs[i], err.message);
            if (memcmp(out, in, needs[i]) != 0)
                fail_msg("%s %s: %zu bytes differ", CODECS[k].name, CODECS[k].config, needs[i]);
        }
        ipfsrt_buf_free(&enc);
        ipfsrt_codec_free(c);
    }
}

/* A prefix keeps every check the whole decode makes: a flipped byte in an
 * incompressible (raw) block decodes, and only the content checksum at the
 * frame's end notices; a second frame or trailing bytes after the first are
 * refused by the whole decode and so by the prefix too. */
static void test_prefix_keeps_checks(void **state) {
    (void)state;
    enum { N = 300000 };
    uint8_t *in = malloc(N), *out = malloc(N);
    uint32_t x = 7;
    for (size_t i = 0; i < N; i++) in[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
    ipfsrt_codec *c = make("zstd", "{\"checksum\": true}", 8);
    ipfsrt_buf enc;
    ipfsrt_buf_init(&enc);
    assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
    enc.data[enc.len / 8] ^= 0x10; /* inside the first raw block */
    ipfsrt_error err;
    assert_int_equal(ipfsrt_codec_decode(c, enc.data, enc.len, out, N, &err), IPFSRT_EBAD_CHUNK_DATA);
    assert_int_equal(ipfsrt_codec_decode_prefix(c, enc.data, enc.len, out, N, 40, &err), IPFSRT_EBAD_CHUNK_DATA);
    assert_non_null(strstr(err.message, "checksum"));
    enc.data[enc.len / 8] ^= 0x10;
    assert_int_equal(ipfsrt_codec_decode_prefix(c, enc.data, enc.len, out, N, 40, &err), IPFSRT_OK);
    ipfsrt_codec *plain = make("zstd", NULL, 8);
    enc.len = 0;
    assert_int_equal(ipfsrt_codec_encode(plain, in, N, &enc, NULL), IPFSRT_OK);
    size_t one = enc.len;
    assert_int_equal(ipfsrt_codec_decode_prefix(plain, enc.data, one, out, N, 40, &err), IPFSRT_OK);
    assert_memory_equal(out, in, 40);
    assert_int_equal(ipfsrt_codec_encode(plain, in, 10, &enc, NULL), IPFSRT_OK); /* a second frame */
    assert_int_equal(ipfsrt_codec_decode_prefix(plain, enc.data, enc.len, out, N, 40, &err), IPFSRT_EBAD_CHUNK_DATA);
    enc.len = one;
    memcpy(ipfsrt_buf_reserve(&enc, 3), "abc", 3); /* trailing garbage */
    enc.len += 3;
    assert_int_not_equal(ipfsrt_codec_decode(plain, enc.data, enc.len, out, N, &err), IPFSRT_OK);
    assert_int_not_equal(ipfsrt_codec_decode_prefix(plain, enc.data, enc.len, out, N, 40, &err), IPFSRT_OK);
    ipfsrt_buf_free(&enc);
    ipfsrt_codec_free(c);
    ipfsrt_codec_free(plain);
    free(in);
    free(out);
}

/* bz2: concatenated streams decode as Python's bz2 does, bytes after the
 * last stream that are not one are refused, a stream cut short is refused,
 * and a destination filled exactly by a stream is not taken for too small. */
static void test_bz2_stream_ends(void **state) {
    (void)state;
    enum { N = 5000 };
    uint8_t in[N], out[2 * N];
    sample(in, N);
    ipfsrt_codec *c = make("bz2", NULL, 1);
    ipfsrt_buf enc;
    ipfsrt_buf_init(&enc);
    assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
    size_t one = enc.len;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_codec_decode(c, enc.data, one, out, N, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_codec_decode(c, enc.data, one - 1, out, N, &err), IPFSRT_EBAD_CHUNK_DATA);
    assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_codec_decode(c, enc.data, enc.len, out, 2 * N, &err), IPFSRT_OK);
    assert_memory_equal(out + N, in, N);
    enc.len = one;
    memcpy(ipfsrt_buf_reserve(&enc, 4), "junk", 4);
    enc.len += 4;
    assert_int_equal(ipfsrt_codec_decode(c, enc.data, enc.len, out, N, &err), IPFSRT_EBAD_CHUNK_DATA);
    assert_int_equal(err.offset, (int64_t)one);
    ipfsrt_buf_free(&enc);
    ipfsrt_codec_free(c);
}

/* Every byte of each encoded chunk flipped in turn: decoding fails cleanly or
 * gives N bytes (compressors without a checksum may decode garbage; crc32c
 * and zstd with its checksum must notice). */
static void test_corrupt_data(void **state) {
    (void)state;
    enum { N = 600 };
    uint8_t in[N], out[N];
    sample(in, N);
    for (size_t k = 0; k < N_CODECS; k++) {
        ipfsrt_codec *c = make(CODECS[k].name, CODECS[k].config, CODECS[k].itemsize);
        ipfsrt_buf enc;
        ipfsrt_buf_init(&enc);
        assert_int_equal(ipfsrt_codec_encode(c, in, N, &enc, NULL), IPFSRT_OK);
        bool must_notice = strcmp(CODECS[k].name, "crc32c") == 0;
        for (size_t i = 0; i < enc.len; i++) {
            enc.data[i] ^= 0x5a;
            ipfsrt_status st = ipfsrt_codec_decode(c, enc.data, enc.len, out, N, NULL);
            if (must_notice) assert_int_not_equal(st, IPFSRT_OK);
            enc.data[i] ^= 0x5a;
        }
        for (size_t cut = 0; cut < enc.len; cut += 1 + enc.len / 50) /* truncated */
            (void)ipfsrt_codec_decode(c, enc.data, cut, out, N, NULL);
        ipfsrt_buf_free(&enc);
        ipfsrt_codec_free(c);
    }
}

static void test_bad_configurations(void **state) {
    (void)state;
    static const struct {
        const char *name, *config, *says;
    } bad[] = {
        {"snappy", NULL, "unknown codec snappy"},
        {"zstd", "{\"level\": 99}", "level must be an integer"},
        {"blosc", "{\"cname\": \"nope\"}", "unknown cname"},
        {"blosc", "{\"shuffle\": \"sideways\"}", "unknown shuffle"},
        {"blosc", "{\"shuffle\": 7}", "shuffle must be"},
        {"gzip", "{\"level\": \"high\"}", "level must be an integer"},
        {"delta", NULL, "dtype is missing"},
        {"delta", "{\"dtype\": \">i4\"}", "not supported"},
        {"delta", "{\"dtype\": \"<i4\", \"astype\": \"<i2\"}", "astype"},
        {"zstd", "[1]", "not an object"},
        {"zstd", "{\"level\": ", "not JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ipfsrt_codec *c = NULL;
        ipfsrt_error err;
        assert_int_not_equal(ipfsrt_codec_new(&c, bad[i].name, bad[i].config, 4, &err), IPFSRT_OK);
        assert_null(c);
        if (!strstr(err.message, bad[i].says)) fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].name, err.message, bad[i].says);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vectors),      cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_sized_decoding),      cmocka_unit_test(test_corrupt_data),
        cmocka_unit_test(test_prefix_decoding),     cmocka_unit_test(test_prefix_keeps_checks),
        cmocka_unit_test(test_filter_prefix_needs),
        cmocka_unit_test(test_bz2_stream_ends),
        cmocka_unit_test(test_bad_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
