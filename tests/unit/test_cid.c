#include "testutil.h"

static ipfsrt_cid parse_ok(const char *s) {
    ipfsrt_cid c;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_cid_parse(&c, s, strlen(s), NULL, &err);
    if (st != IPFSRT_OK) fail_msg("parsing %s: %s", s, err.message);
    return c;
}

static void assert_str(const ipfsrt_cid *c, ipfsrt_base base, const char *want) {
    char s[IPFSRT_CID_STR_MAX];
    assert_int_equal(ipfsrt_cid_format(c, base, s, sizeof s, NULL), IPFSRT_OK);
    assert_string_equal(s, want);
}

static void test_worked_vectors(void **state) {
    (void)state;
    ipfsrt_cid c = parse_ok("zb2rhe5P4gXftAwvA4eXQ5HJwsER2owDyS9sKaQRRVQPn93bA");
    uint8_t want[64];
    size_t n = hex2bin("015512206e6ff7950a36187a801613426e858dce686cd7d7e3c0fc42ee0330072d245c95",
                       want, sizeof want);
    assert_int_equal(c.len, n);
    assert_memory_equal(c.bytes, want, n);
    assert_int_equal(c.version, 1);
    assert_int_equal(c.codec, IPFSRT_CODEC_RAW);
    assert_str(&c, IPFSRT_BASE32, "bafkreidon73zkcrwdb5iafqtijxildoonbwnpv7dyd6ef3qdgads2jc4su");

    const char *hello[] = {
        "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e",
        "f01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
        "zb2rhj7crUKTQYRGCRATFaQ6YFLTde2YzdqbbhAASkL9uRDXn",
        "mAVUSILlNJ7mTTT4IpS5S19p9q/rEhO/jelOA7pCI96zi783p",
        "uAVUSILlNJ7mTTT4IpS5S19p9q_rEhO_jelOA7pCI96zi783p",
        "k2cwued9o1pvrt3q271rrqbo49x30tbxwpoeaq75z14e5ui2rzygpbe1",
    };
    ipfsrt_base bases[] = {IPFSRT_BASE32, IPFSRT_BASE16, IPFSRT_BASE58BTC,
                           IPFSRT_BASE64, IPFSRT_BASE64URL, IPFSRT_BASE36};
    ipfsrt_cid sum;
    assert_int_equal(ipfsrt_cid_sum(&sum, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256,
                                    (const uint8_t *)"hello world", 11, NULL),
                     IPFSRT_OK);
    for (size_t i = 0; i < 6; i++) {
        ipfsrt_cid h = parse_ok(hello[i]);
        ipfsrt_base base;
        assert_int_equal(ipfsrt_cid_parse(&h, hello[i], strlen(hello[i]), &base, NULL), IPFSRT_OK);
        assert_int_equal(base, bases[i]);
        assert_true(ipfsrt_cid_equal(&h, &sum));
        for (size_t k = 0; k < 6; k++) assert_str(&h, bases[k], hello[k]);
    }
    assert_int_equal(ipfsrt_cid_verify(&sum, (const uint8_t *)"hello world", 11, NULL), IPFSRT_OK);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_cid_verify(&sum, (const uint8_t *)"hello worle", 11, &err),
                     IPFSRT_EHASH_MISMATCH);
    assert_string_equal(err.cid, hello[0]);
    assert_non_null(strstr(err.message, hello[0]));
}

static void test_v0_v1(void **state) {
    (void)state;
    const char *pairs[][2] = {
        {"QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n",
         "bafybeihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"},
        {"QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn",
         "bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354"},
    };
    for (size_t i = 0; i < 2; i++) {
        ipfsrt_cid v0 = parse_ok(pairs[i][0]), v1 = parse_ok(pairs[i][1]), conv;
        assert_int_equal(v0.version, 0);
        assert_int_equal(v0.codec, IPFSRT_CODEC_DAG_PB);
        assert_int_equal(v0.len, 34);
        ipfsrt_cid_to_v1(&v0, &conv);
        assert_true(ipfsrt_cid_equal(&conv, &v1));
        assert_false(ipfsrt_cid_equal(&v0, &v1)); /* different CIDs, same block */
        assert_int_equal(ipfsrt_cid_to_v0(&v1, &conv, NULL), IPFSRT_OK);
        assert_true(ipfsrt_cid_equal(&conv, &v0));
        char s[IPFSRT_CID_STR_MAX];
        assert_string_equal(ipfsrt_cid_to_string(&v0, s), pairs[i][0]);
        assert_string_equal(ipfsrt_cid_to_string(&v1, s), pairs[i][1]);
        assert_int_equal(ipfsrt_cid_format(&v0, IPFSRT_BASE32, s, sizeof s, NULL),
                         IPFSRT_EUNSUPPORTED);
    }
    ipfsrt_cid empty = parse_ok("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n");
    assert_int_equal(ipfsrt_cid_verify(&empty, (const uint8_t *)"", 0, NULL), IPFSRT_OK);
    ipfsrt_cid raw = parse_ok("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"), out;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_cid_to_v0(&raw, &out, &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "bafkrei"));
}

static void test_identity(void **state) {
    (void)state;
    ipfsrt_cid c = parse_ok("bafkqaaa");
    assert_int_equal(c.hash_code, IPFSRT_MH_IDENTITY);
    assert_int_equal(c.digest_len, 0);
    assert_int_equal(ipfsrt_cid_verify(&c, (const uint8_t *)"", 0, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_cid_verify(&c, (const uint8_t *)"x", 1, NULL), IPFSRT_EHASH_MISMATCH);
    ipfsrt_cid dir = parse_ok("bafyaabakaieac");
    assert_int_equal(dir.codec, IPFSRT_CODEC_DAG_PB);
    assert_int_equal(ipfsrt_cid_verify(&dir, (const uint8_t *)"\x0a\x02\x08\x01", 4, NULL),
                     IPFSRT_OK);
    /* 128 bytes of identity digest are accepted, 129 are not (IPIP-512) */
    uint8_t data[129];
    memset(data, 'B', sizeof data);
    ipfsrt_cid ok, bad;
    assert_int_equal(ipfsrt_cid_sum(&ok, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_IDENTITY, data, 128, NULL),
                     IPFSRT_OK);
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid back = parse_ok(ipfsrt_cid_to_string(&ok, s));
    assert_true(ipfsrt_cid_equal(&back, &ok));
    memset(data, 'A', sizeof data);
    assert_int_equal(ipfsrt_cid_sum(&bad, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_IDENTITY, data, 129, NULL),
                     IPFSRT_ETOO_LARGE);
    /* the same, hand-built as a string: 01 55 00 81 01 + 129 x 'A' */
    uint8_t bytes[134] = {0x01, 0x55, 0x00, 0x81, 0x01};
    memset(bytes + 5, 'A', 129);
    char str[IPFSRT_CID_STR_MAX];
    assert_int_equal(ipfsrt_multibase_encode(IPFSRT_BASE32, bytes, sizeof bytes, str, sizeof str,
                                             NULL, NULL),
                     IPFSRT_OK);
    assert_memory_equal(str, "bafkqbaib", 9);
    ipfsrt_error err;
    assert_int_not_equal(ipfsrt_cid_parse(&bad, str, strlen(str), NULL, &err), IPFSRT_OK);
}

static void expect_reject(const char *s) {
    ipfsrt_cid c;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_cid_parse(&c, s, strlen(s), NULL, &err);
    if (st == IPFSRT_OK) fail_msg("accepted invalid CID %s", s);
    assert_true(strlen(err.message) > 0);
}

static void expect_reject_bytes(const char *hex) {
    uint8_t buf[200];
    size_t n = hex2bin(hex, buf, sizeof buf);
    ipfsrt_cid c;
    ipfsrt_error err;
    if (ipfsrt_cid_from_bytes(&c, buf, n, NULL, &err) == IPFSRT_OK)
        fail_msg("accepted invalid binary CID %s", hex);
}

static void test_rejects(void **state) {
    (void)state;
    expect_reject("");
    expect_reject("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1"); /* 45 chars */
    expect_reject("QmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR10"); /* '0' not base58 */
    expect_reject("zQmdfTbBqBPQ7VNxZEYEj14VmRuZBkqFbiwReogJgS1zR1n"); /* multibase-wrapped v0 */
    expect_reject("bciqaaaaaaaaaaaaa");
    expect_reject("xafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e");
    expect_reject("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5"); /* short */
    expect_reject("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5eaa"); /* trailing */
    expect_reject("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e="); /* padding */
    expect_reject_bytes("00551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    expect_reject_bytes("02551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    expect_reject_bytes("03551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    expect_reject_bytes("8101551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    expect_reject_bytes("01d5001220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
    expect_reject_bytes("01551221b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde900");
    expect_reject_bytes("01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcd");
    expect_reject_bytes("1220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde900");
    expect_reject_bytes("1220b94d27");
    expect_reject_bytes("01");
    expect_reject_bytes("0155");
}

static void test_weak_and_unsupported(void **state) {
    (void)state;
    /* a 10-byte truncated sha2-256 parses but is too weak to verify */
    uint8_t digest[10] = {0xff, 0xb3, 0x1f, 0x07, 0xaa, 0x15, 0x34, 0x83, 0x68, 0xc9};
    ipfsrt_cid c;
    assert_int_equal(ipfsrt_cid_create(&c, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, digest, 10, NULL),
                     IPFSRT_OK);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_cid_verify(&c, (const uint8_t *)"x", 1, &err), IPFSRT_EUNSUPPORTED);
    uint8_t d32[32] = {0};
    assert_int_equal(ipfsrt_cid_create(&c, 1, IPFSRT_CODEC_RAW, 0xb220, d32, 32, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_cid_verify(&c, (const uint8_t *)"x", 1, &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "blake2b-256"));
    assert_non_null(strstr(err.message, "not verified"));
    assert_int_equal(ipfsrt_cid_create(&c, 0, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, d32, 32, NULL),
                     IPFSRT_EBAD_ARGUMENT);
}

static void test_codecs(void **state) {
    (void)state;
    const char *names[] = {"raw", "dag-pb", "dag-cbor", "dag-json", "json", "libp2p-key", "car"};
    uint64_t codes[] = {0x55, 0x70, 0x71, 0x0129, 0x0200, 0x72, 0x0202};
    for (size_t i = 0; i < 7; i++) {
        uint64_t code;
        assert_int_equal(ipfsrt_codec_code(names[i], &code, NULL), IPFSRT_OK);
        assert_int_equal(code, codes[i]);
        assert_string_equal(ipfsrt_codec_name(codes[i]), names[i]);
    }
    ipfsrt_cid c = parse_ok("baguqeerasords4njcts6vs7qvdjfcvgnume4hqohf65zsfguprqphs3icwea");
    assert_int_equal(c.codec, IPFSRT_CODEC_DAG_JSON);
    assert_null(ipfsrt_codec_name(0x123456));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_vectors), cmocka_unit_test(test_v0_v1),
        cmocka_unit_test(test_identity),       cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_weak_and_unsupported), cmocka_unit_test(test_codecs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
