#include "testutil.h"

#ifdef IPFSRT_HAVE_OPENSSL
#include <mbedtls/sha256.h>
#include <mbedtls/sha512.h>
#else
#include <openssl/sha.h>
#endif

static void test_vectors(void **state) {
    (void)state;
    /* multihash test_cases.csv hashes the input column as text */
    const uint8_t *input = (const uint8_t *)"431fb5d4c9b735ba1a34d0df045118806ae2336f2c";
    size_t n = 42;
    uint8_t want[100];
    ipfsrt_multihash_bytes mh;
    assert_int_equal(ipfsrt_multihash_sum(IPFSRT_MH_SHA2_256, input, n, 0, &mh, NULL), IPFSRT_OK);
    size_t wn = hex2bin("1220ffb31f07aa15348368c90c73a834dbf9f8710365860fa0fd4ddce9ac2782cc17",
                        want, sizeof want);
    assert_int_equal(mh.len, wn);
    assert_memory_equal(mh.data, want, wn);
    assert_int_equal(ipfsrt_multihash_sum(IPFSRT_MH_SHA2_256, input, n, 10, &mh, NULL), IPFSRT_OK);
    wn = hex2bin("120affb31f07aa15348368c9", want, sizeof want);
    assert_int_equal(mh.len, wn);
    assert_memory_equal(mh.data, want, wn);

    /* FIPS 180-2 "abc" */
    assert_int_equal(ipfsrt_multihash_sum(IPFSRT_MH_SHA2_512, (const uint8_t *)"abc", 3, 0, &mh, NULL), IPFSRT_OK);
    wn = hex2bin("1340ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a8"
                 "36ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
                 want, sizeof want);
    assert_int_equal(mh.len, wn);
    assert_memory_equal(mh.data, want, wn);

    assert_int_equal(ipfsrt_multihash_sum(IPFSRT_MH_IDENTITY, (const uint8_t *)"inline", 6, 0, &mh, NULL), IPFSRT_OK);
    assert_int_equal(mh.len, 8);
    assert_memory_equal(mh.data, "\x00\x06inline", 8);
    assert_int_equal(ipfsrt_multihash_sum(IPFSRT_MH_IDENTITY, (const uint8_t *)"x", 1, 0, NULL, NULL),
                     IPFSRT_EBAD_ARGUMENT);
}

static void test_parse(void **state) {
    (void)state;
    uint8_t buf[100];
    ipfsrt_multihash mh;
    size_t used;
    ipfsrt_error err;
    size_t n = hex2bin("120affb31f07aa15348368c9", buf, sizeof buf);
    assert_int_equal(ipfsrt_multihash_parse(buf, n, &mh, &used, NULL), IPFSRT_OK);
    assert_int_equal(mh.code, 0x12);
    assert_int_equal(mh.digest_len, 10);
    assert_int_equal(used, n);
    n = hex2bin("1221", buf, sizeof buf); /* 33 > sha2-256's 32 */
    memset(buf + 2, 0, 33);
    assert_int_equal(ipfsrt_multihash_parse(buf, 35, &mh, &used, &err), IPFSRT_EBAD_MULTIHASH);
    assert_non_null(strstr(err.message, "sha2-256"));
    n = hex2bin("1220aabb", buf, sizeof buf); /* truncated digest */
    assert_int_equal(ipfsrt_multihash_parse(buf, n, &mh, &used, &err), IPFSRT_EBAD_MULTIHASH);
    n = hex2bin("008101", buf, sizeof buf); /* identity over 128 bytes */
    assert_int_equal(ipfsrt_multihash_parse(buf, n, &mh, &used, &err), IPFSRT_EBAD_MULTIHASH);
    n = hex2bin("8100", buf, sizeof buf); /* non-minimal code */
    assert_int_equal(ipfsrt_multihash_parse(buf, n, &mh, &used, &err), IPFSRT_EBAD_VARINT);
}

static void test_unsupported(void **state) {
    (void)state;
    ipfsrt_multihash_bytes out;
    ipfsrt_error err;
    static const struct {
        uint64_t code;
        const char *name;
    } known[] = {{0x11, "sha1"}, {0x1e, "blake3"}, {0xb220, "blake2b-256"}, {0x16, "sha3-256"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        assert_string_equal(ipfsrt_multihash_name(known[i].code), known[i].name);
        uint64_t code;
        assert_int_equal(ipfsrt_multihash_code(known[i].name, &code, NULL), IPFSRT_OK);
        assert_int_equal(code, known[i].code);
        assert_false(ipfsrt_multihash_supported(known[i].code));
        assert_int_equal(ipfsrt_multihash_sum(known[i].code, (const uint8_t *)"x", 1, 0, &out, &err),
                         IPFSRT_EUNSUPPORTED);
        assert_non_null(strstr(err.message, known[i].name));
    }
    assert_null(ipfsrt_multihash_name(0x9999));
    assert_int_equal(ipfsrt_multihash_code("md5", &(uint64_t){0}, &err), IPFSRT_EUNSUPPORTED);
}

/* The other crypto library than the build's, linked into this test alone:
 * an independent implementation to compare the built-in backend with. */
static void reference_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out) {
#ifdef IPFSRT_HAVE_OPENSSL
    if (alg == IPFSRT_SHA2_256) assert_int_equal(mbedtls_sha256_ret(data, len, out, 0), 0);
    else assert_int_equal(mbedtls_sha512_ret(data, len, out, 0), 0);
#else
    if (alg == IPFSRT_SHA2_256) SHA256(data, len, out);
    else SHA512(data, len, out);
#endif
}

/* The backend built in agrees with the other library, byte for byte. */
static void test_backend_agrees(void **state) {
    (void)state;
    const ipfsrt_hash_backend *b = ipfsrt_hash_backends()[0];
    assert_null(ipfsrt_hash_backends()[1]); /* one crypto library a build */
    static const size_t large[] = {1u << 20, (1u << 20) + 17, 5u << 20};
    uint8_t *data = malloc(5u << 20);
    fill_random(data, 5u << 20, 42);
    for (int alg = IPFSRT_SHA2_256; alg <= IPFSRT_SHA2_512; alg++) {
        for (size_t n = 0; n <= 300 + 3; n++) {
            size_t len = n <= 300 ? n : large[n - 301];
            uint8_t ref[64], got[64];
            reference_digest((ipfsrt_hash_alg)alg, data, len, ref);
            assert_int_equal(b->digest((ipfsrt_hash_alg)alg, data, len, got, NULL), IPFSRT_OK);
            assert_memory_equal(ref, got, ipfsrt_hash_alg_size((ipfsrt_hash_alg)alg));
        }
    }
    free(data);
}

/* Streaming digests, fed in uneven pieces, equal one-shot digests on every backend. */
static void test_streaming(void **state) {
    (void)state;
    const char *before = ipfsrt_hash_backend_current()->name;
    const ipfsrt_hash_backend *const *b = ipfsrt_hash_backends();
    size_t len = (1u << 20) + 333;
    uint8_t *data = malloc(len);
    fill_random(data, len, 7);
    for (size_t k = 0; b[k]; k++) {
        assert_int_equal(ipfsrt_hash_backend_select(b[k]->name, NULL), IPFSRT_OK);
        ipfsrt_hash_ctx *ctx;
        assert_int_equal(ipfsrt_hash_ctx_new(&ctx, NULL), IPFSRT_OK);
        for (int alg = IPFSRT_SHA2_256; alg <= IPFSRT_SHA2_512; alg++) {
            for (size_t piece = 1; piece < len; piece = piece * 7 + 3) {
                uint8_t want[64], got[64];
                size_t n = piece * 40 < len ? piece * 40 : len;
                assert_int_equal(b[k]->digest((ipfsrt_hash_alg)alg, data, n, want, NULL), IPFSRT_OK);
                assert_int_equal(ipfsrt_hash_ctx_start(ctx, (ipfsrt_hash_alg)alg, NULL), IPFSRT_OK);
                for (size_t off = 0; off < n; off += piece)
                    assert_int_equal(ipfsrt_hash_ctx_update(ctx, data + off,
                                                            n - off < piece ? n - off : piece, NULL),
                                     IPFSRT_OK);
                assert_int_equal(ipfsrt_hash_ctx_finish(ctx, got, NULL), IPFSRT_OK);
                assert_memory_equal(want, got, ipfsrt_hash_alg_size((ipfsrt_hash_alg)alg));
            }
        }
        ipfsrt_hash_ctx_free(ctx);
    }
    free(data);
    assert_int_equal(ipfsrt_hash_backend_select(before, NULL), IPFSRT_OK);
}

static void test_backend_select(void **state) {
    (void)state;
    const char *before = ipfsrt_hash_backend_current()->name;
    assert_int_equal(ipfsrt_hash_backend_select(before, NULL), IPFSRT_OK);
    assert_string_equal(ipfsrt_hash_backend_current()->name, before);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_hash_backend_select("nonesuch", &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, before)); /* names the one built in */
    assert_string_equal(ipfsrt_hash_backend_current()->name, before);
    assert_int_equal(ipfsrt_hash_backend_select(before, NULL), IPFSRT_OK);
#ifdef IPFSRT_HAVE_OPENSSL
    assert_string_equal(before, "openssl"); /* the fast one is the default */
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_unsupported),    cmocka_unit_test(test_backend_agrees),
        cmocka_unit_test(test_streaming),      cmocka_unit_test(test_backend_select),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
