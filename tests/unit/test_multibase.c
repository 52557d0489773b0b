#include "testutil.h"

/* multiformats/multibase test vectors */
static const struct {
    const char *base;
    const char *input; /* "\0"-prefixed inputs are written with a length */
    size_t len;
    const char *encoded;
} vectors[] = {
    {"base32", "yes mani !", 10, "bpfsxgidnmfxgsibb"},
    {"base32upper", "yes mani !", 10, "BPFSXGIDNMFXGSIBB"},
    {"base36", "yes mani !", 10, "k2lcpzo5yikidynfl"},
    {"base58btc", "yes mani !", 10, "z7paNL19xttacUY"},
    {"base16", "yes mani !", 10, "f796573206d616e692021"},
    {"base16upper", "yes mani !", 10, "F796573206D616E692021"},
    {"base64", "yes mani !", 10, "meWVzIG1hbmkgIQ"},
    {"base64pad", "yes mani !", 10, "MeWVzIG1hbmkgIQ=="},
    {"base64url", "yes mani !", 10, "ueWVzIG1hbmkgIQ"},
    {"base32", "\0yes mani !", 11, "bab4wk4zanvqw42jaee"},
    {"base36", "\0yes mani !", 11, "k02lcpzo5yikidynfl"},
    {"base58btc", "\0yes mani !", 11, "z17paNL19xttacUY"},
    {"base36", "\0\1", 2, "k01"},
    {"base36", "\0\0\xff", 3, "k0073"},
    {"base36", "\1\0", 2, "k74"},
    {"base32pad", "f", 1, "cmy======"},
    {"base58btc", "", 0, "z"},
};

static void test_vectors(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        ipfsrt_base base;
        assert_int_equal(ipfsrt_multibase_from_name(vectors[i].base, &base, NULL), IPFSRT_OK);
        char out[128];
        size_t len;
        assert_int_equal(ipfsrt_multibase_encode(base, (const uint8_t *)vectors[i].input,
                                                 vectors[i].len, out, sizeof out, &len, NULL),
                         IPFSRT_OK);
        assert_string_equal(out, vectors[i].encoded);
        assert_int_equal(len, strlen(vectors[i].encoded));
        uint8_t back[128];
        ipfsrt_base got_base;
        assert_int_equal(ipfsrt_multibase_decode(vectors[i].encoded, strlen(vectors[i].encoded),
                                                 back, sizeof back, &len, &got_base, NULL),
                         IPFSRT_OK);
        assert_int_equal(got_base, base);
        assert_int_equal(len, vectors[i].len);
        assert_memory_equal(back, vectors[i].input, len);
    }
}

static void test_case_insensitive(void **state) {
    (void)state;
    const char *mixed[] = {"bnbswy3dpeB3W64TMMQ", "kfUvrsIvVnfRbjWaJo"};
    for (size_t i = 0; i < 2; i++) {
        uint8_t out[64];
        size_t len;
        assert_int_equal(ipfsrt_multibase_decode(mixed[i], strlen(mixed[i]), out, sizeof out, &len,
                                                 NULL, NULL),
                         IPFSRT_OK);
        assert_int_equal(len, 11);
        assert_memory_equal(out, "hello world", 11);
    }
}

static void expect_fail(const char *s, ipfsrt_status want) {
    uint8_t out[256];
    size_t len;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_multibase_decode(s, strlen(s), out, sizeof out, &len, NULL, &err), want);
    assert_true(strlen(err.message) > 0);
}

static void test_rejects(void **state) {
    (void)state;
    expect_fail("", IPFSRT_EBAD_MULTIBASE);
    expect_fail("Qmfoo", IPFSRT_EBAD_MULTIBASE);    /* reserved: bare CIDv0 */
    expect_fail("1abc", IPFSRT_EBAD_MULTIBASE);     /* reserved */
    expect_fail("/ipfs", IPFSRT_EBAD_MULTIBASE);    /* reserved */
    expect_fail("xabc", IPFSRT_EBAD_MULTIBASE);     /* unknown */
    expect_fail("9123", IPFSRT_EUNSUPPORTED);   /* base10: registered, not supported */
    expect_fail("\xf0\x9f\x9a\x80", IPFSRT_EUNSUPPORTED);
    expect_fail("bpfsxgidnmfxgsibb=", IPFSRT_EBAD_MULTIBASE); /* padding where none belongs */
    expect_fail("meWVzIG1hbmkgIQ==", IPFSRT_EBAD_MULTIBASE);
    expect_fail("b1", IPFSRT_EBAD_MULTIBASE);       /* '1' is not base32 */
    expect_fail("z0", IPFSRT_EBAD_MULTIBASE);       /* '0' is not base58 */
    expect_fail("zI", IPFSRT_EBAD_MULTIBASE);
    expect_fail("fabc", IPFSRT_EBAD_MULTIBASE);     /* odd hex */
    expect_fail("fzz", IPFSRT_EBAD_MULTIBASE);
    expect_fail("bb", IPFSRT_EBAD_MULTIBASE);       /* 5 bits: less than a byte */
    expect_fail("bmz", IPFSRT_EBAD_MULTIBASE); /* non-zero leftover bits ("bmy" is "f") */
    expect_fail("MeWVzIG1hbmkgIQ=", IPFSRT_EBAD_MULTIBASE);  /* wrong padded length */
    /* the two ends of a string that does not decode, each named for what it is */
    uint8_t out[16];
    size_t n;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_multibase_decode("bb", 2, out, sizeof out, &n, NULL, &err), IPFSRT_EBAD_MULTIBASE);
    assert_non_null(strstr(err.message, "cut short"));
    assert_int_equal(ipfsrt_multibase_decode("bmz", 3, out, sizeof out, &n, NULL, &err), IPFSRT_EBAD_MULTIBASE);
    assert_non_null(strstr(err.message, "the last character, 'z' at position 1, sets bits past the data"));
}

static void test_roundtrip_random(void **state) {
    (void)state;
    for (int b = 0; b < IPFSRT_BASE_COUNT; b++) {
        for (size_t n = 0; n < 80; n++) {
            uint8_t data[80];
            fill_random(data, n, n * 31 + (size_t)b);
            if (n > 2 && n % 3 == 0) data[0] = data[1] = 0; /* leading zeros matter for bignum bases */
            size_t cap = ipfsrt_multibase_encoded_size((ipfsrt_base)b, n);
            char *s = malloc(cap);
            size_t len;
            assert_int_equal(ipfsrt_multibase_encode((ipfsrt_base)b, data, n, s, cap, &len, NULL),
                             IPFSRT_OK);
            assert_true(len < cap);
            uint8_t back[200];
            size_t blen;
            ipfsrt_base got;
            assert_int_equal(ipfsrt_multibase_decode(s, len, back, sizeof back, &blen, &got, NULL),
                             IPFSRT_OK);
            assert_int_equal(got, b);
            assert_int_equal(blen, n);
            assert_memory_equal(back, data, n);
            free(s);
        }
    }
}

static void test_names(void **state) {
    (void)state;
    ipfsrt_base b;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_multibase_from_name("base2", &b, &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "base2"));
    for (int i = 0; i < IPFSRT_BASE_COUNT; i++) {
        assert_int_equal(ipfsrt_multibase_from_name(ipfsrt_multibase_name((ipfsrt_base)i), &b, NULL),
                         IPFSRT_OK);
        assert_int_equal(b, i);
    }
}

/* Unescapes the CSV's "\xNN" escapes. */
static size_t unescape(const char *s, uint8_t *out) {
    size_t n = 0;
    while (*s) {
        unsigned v;
        if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
            out[n++] = (uint8_t)v;
            s += 4;
        } else {
            out[n++] = (uint8_t)*s++;
        }
    }
    return n;
}

/* Rows: name, "value"; the first row holds the input. */
static void run_csv(const char *name) {
    char rel[128];
    snprintf(rel, sizeof rel, "multibase/%s", name);
    const char *path = fixture_path(rel);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024], key[64], value[512];
    uint8_t input[256];
    size_t input_len = 0;
    bool canonical = true;
    int supported = 0, rejected = 0;
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        assert_int_equal(sscanf(line, "%63[^,], \"%511[^\"]\"", key, value), 2);
        if (row == 0) {
            canonical = strcmp(key, "encoding") == 0;
            input_len = unescape(value, input);
            continue;
        }
        ipfsrt_base base;
        uint8_t out[512];
        size_t len;
        ipfsrt_error err;
        if (ipfsrt_multibase_from_name(key, &base, NULL) != IPFSRT_OK) {
            assert_int_equal(ipfsrt_multibase_decode(value, strlen(value), out, sizeof out, &len,
                                                     NULL, &err),
                             IPFSRT_EUNSUPPORTED);
            rejected++;
            continue;
        }
        supported++;
        ipfsrt_base got;
        if (ipfsrt_multibase_decode(value, strlen(value), out, sizeof out, &len, &got, &err) !=
            IPFSRT_OK)
            fail_msg("%s %s: %s", name, key, err.message);
        assert_int_equal(got, base);
        assert_int_equal(len, input_len);
        assert_memory_equal(out, input, len);
        if (canonical) {
            char enc[512];
            assert_int_equal(ipfsrt_multibase_encode(base, input, input_len, enc, sizeof enc, NULL,
                                                     NULL),
                             IPFSRT_OK);
            assert_string_equal(enc, value);
        }
    }
    fclose(f);
    assert_true(supported >= 8);
    assert_true(rejected >= 2 || !canonical);
}

static void test_multibase_repo_vectors(void **state) {
    (void)state;
    const char *files[] = {"basic.csv", "leading_zero.csv", "two_leading_zeros.csv", "test1.csv",
                           "test6.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) run_csv(files[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),        cmocka_unit_test(test_case_insensitive),
        cmocka_unit_test(test_rejects),        cmocka_unit_test(test_roundtrip_random),
        cmocka_unit_test(test_names),          cmocka_unit_test(test_multibase_repo_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
