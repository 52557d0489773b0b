#include "testutil.h"

static ipfsrt_status decode_hex(const char *hex, ipfsrt_dagcbor_doc *doc, ipfsrt_error *err,
                                uint8_t *buf, size_t cap) {
    size_t n = hex2bin(hex, buf, cap);
    return ipfsrt_dagcbor_decode(buf, n, doc, err);
}

/* The CARv1 header from the CAR spec vector: {roots: [bafkrei...], version: 1} */
static void test_car_header(void **state) {
    (void)state;
    uint8_t buf[128];
    ipfsrt_dagcbor_doc doc;
    assert_int_equal(
        decode_hex("a265726f6f747381d82a58250001551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5"
                   "380ee9088f7ace2efcde96776657273696f6e01",
                   &doc, NULL, buf, sizeof buf),
        IPFSRT_OK);
    assert_int_equal(doc.root->type, IPFSRT_DAGCBOR_MAP);
    const ipfsrt_dagcbor_item *roots = ipfsrt_dagcbor_map_get(doc.root, "roots");
    const ipfsrt_dagcbor_item *version = ipfsrt_dagcbor_map_get(doc.root, "version");
    assert_non_null(roots);
    assert_non_null(version);
    assert_int_equal(version->v.u, 1);
    assert_int_equal(roots->v.list.count, 1);
    assert_int_equal(roots->v.list.items[0].type, IPFSRT_DAGCBOR_CID);
    char s[IPFSRT_CID_STR_MAX];
    assert_string_equal(ipfsrt_cid_to_string(roots->v.list.items[0].v.cid, s),
                        "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e");
    assert_null(ipfsrt_dagcbor_map_get(doc.root, "other"));
    ipfsrt_dagcbor_doc_free(&doc);
}

static void test_scalars(void **state) {
    (void)state;
    uint8_t buf[64];
    ipfsrt_dagcbor_doc doc;
    /* [0, 23, 24, 255, 256, 65536, 4294967296, -1, -25, false, true, null, 1.5, h'01', "é"] */
    assert_int_equal(decode_hex("8f00171818" "18ff" "190100" "1a00010000" "1b0000000100000000"
                                "20" "3818" "f4f5f6" "fb3ff8000000000000" "4101" "62c3a9",
                                &doc, NULL, buf, sizeof buf),
                     IPFSRT_OK);
    const ipfsrt_dagcbor_item *it = doc.root->v.list.items;
    assert_int_equal(doc.root->v.list.count, 15);
    uint64_t want[] = {0, 23, 24, 255, 256, 65536, 4294967296ull};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(it[i].type, IPFSRT_DAGCBOR_UINT);
        assert_true(it[i].v.u == want[i]);
    }
    assert_int_equal(it[7].type, IPFSRT_DAGCBOR_NEGINT);
    assert_int_equal(it[7].v.u, 0);
    assert_int_equal(it[8].v.u, 24);
    assert_int_equal(it[9].type, IPFSRT_DAGCBOR_BOOL);
    assert_false(it[9].v.b);
    assert_true(it[10].v.b);
    assert_int_equal(it[11].type, IPFSRT_DAGCBOR_NULL);
    assert_int_equal(it[12].type, IPFSRT_DAGCBOR_FLOAT);
    assert_true(it[12].v.f == 1.5);
    assert_int_equal(it[13].type, IPFSRT_DAGCBOR_BYTES);
    assert_int_equal(it[14].type, IPFSRT_DAGCBOR_TEXT);
    assert_int_equal(it[14].v.str.len, 2);
    ipfsrt_dagcbor_doc_free(&doc);
}

static void expect_reject(const char *hex, ipfsrt_status want, const char *why) {
    uint8_t buf[300];
    ipfsrt_dagcbor_doc doc;
    ipfsrt_error err;
    ipfsrt_status st = decode_hex(hex, &doc, &err, buf, sizeof buf);
    if (st == IPFSRT_OK) fail_msg("accepted %s (%s)", hex, why);
    assert_int_equal(st, want);
    assert_true(err.offset >= 0);
}

static void test_rejects(void **state) {
    (void)state;
    expect_reject("1817", IPFSRT_EBAD_DAGCBOR, "non-shortest uint8");
    expect_reject("1900ff", IPFSRT_EBAD_DAGCBOR, "non-shortest uint16");
    expect_reject("1a0000ffff", IPFSRT_EBAD_DAGCBOR, "non-shortest uint32");
    expect_reject("1b00000000ffffffff", IPFSRT_EBAD_DAGCBOR, "non-shortest uint64");
    expect_reject("5801ff", IPFSRT_EBAD_DAGCBOR, "non-shortest length");
    expect_reject("9f00ff", IPFSRT_EBAD_DAGCBOR, "indefinite array");
    expect_reject("5f4100ff", IPFSRT_EBAD_DAGCBOR, "indefinite bytes");
    expect_reject("c11a514b67b0", IPFSRT_EBAD_DAGCBOR, "tag 1");
    expect_reject("d82a4100", IPFSRT_EBAD_CID, "tag 42 with a bare 0x00 (empty CID)");
    expect_reject("d82a4101", IPFSRT_EBAD_DAGCBOR, "tag 42 without the 0x00 prefix");
    expect_reject("d82a6130", IPFSRT_EBAD_DAGCBOR, "tag 42 over text");
    expect_reject("fa3fc00000", IPFSRT_EBAD_DAGCBOR, "float32");
    expect_reject("f93e00", IPFSRT_EBAD_DAGCBOR, "float16");
    expect_reject("fb7ff8000000000000", IPFSRT_EBAD_DAGCBOR, "NaN");
    expect_reject("fb7ff0000000000000", IPFSRT_EBAD_DAGCBOR, "Infinity");
    expect_reject("f7", IPFSRT_EBAD_DAGCBOR, "undefined");
    expect_reject("f0", IPFSRT_EBAD_DAGCBOR, "simple value 16");
    expect_reject("f820", IPFSRT_EBAD_DAGCBOR, "simple value 32");
    expect_reject("ff", IPFSRT_EBAD_DAGCBOR, "lone break");
    expect_reject("a2616201616101", IPFSRT_EBAD_DAGCBOR, "keys out of order");
    expect_reject("a2626161016162", IPFSRT_EBAD_DAGCBOR, "longer key first");
    expect_reject("a2616101616102", IPFSRT_EBAD_DAGCBOR, "duplicate keys");
    expect_reject("a10101", IPFSRT_EBAD_DAGCBOR, "integer key");
    expect_reject("62c328", IPFSRT_EBAD_DAGCBOR, "invalid UTF-8");
    expect_reject("63eda080", IPFSRT_EBAD_DAGCBOR, "UTF-8 surrogate");
    expect_reject("62c0af", IPFSRT_EBAD_DAGCBOR, "overlong UTF-8");
    expect_reject("0000", IPFSRT_ETRAILING_DATA, "trailing bytes");
    expect_reject("", IPFSRT_EBAD_DAGCBOR, "empty input");
    expect_reject("5b7fffffffffffffff", IPFSRT_EBAD_DAGCBOR, "huge byte string");
    expect_reject("9b7fffffffffffffff", IPFSRT_EBAD_DAGCBOR, "huge array");
    expect_reject("bb7fffffffffffffff", IPFSRT_EBAD_DAGCBOR, "huge map");
    expect_reject("1c", IPFSRT_EBAD_DAGCBOR, "reserved info 28");
    expect_reject("83010203ff", IPFSRT_ETRAILING_DATA, "break after definite array");
    expect_reject("8301", IPFSRT_EBAD_DAGCBOR, "short array");
    /* 129 nested arrays */
    char deep[2 * 130 + 1];
    for (int i = 0; i < 129; i++) memcpy(deep + 2 * i, "81", 2);
    memcpy(deep + 2 * 129, "00", 3);
    expect_reject(deep, IPFSRT_EBAD_DAGCBOR, "nesting deeper than the limit");
}

static void test_encode_roundtrip(void **state) {
    (void)state;
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256,
                                    (const uint8_t *)"x", 1, NULL),
                     IPFSRT_OK);
    ipfsrt_dagcbor_put_map(&b, 8);
    ipfsrt_dagcbor_put_text(&b, "a", 1);
    ipfsrt_dagcbor_put_uint(&b, 5000000000ull);
    ipfsrt_dagcbor_put_text(&b, "b", 1);
    ipfsrt_dagcbor_put_negint(&b, 99);
    ipfsrt_dagcbor_put_text(&b, "c", 1);
    ipfsrt_dagcbor_put_bytes(&b, (const uint8_t *)"\0\1", 2);
    ipfsrt_dagcbor_put_text(&b, "d", 1);
    ipfsrt_dagcbor_put_cid(&b, &cid);
    ipfsrt_dagcbor_put_text(&b, "e", 1);
    ipfsrt_dagcbor_put_bool(&b, true);
    ipfsrt_dagcbor_put_text(&b, "f", 1);
    ipfsrt_dagcbor_put_null(&b);
    ipfsrt_dagcbor_put_text(&b, "g", 1);
    ipfsrt_dagcbor_put_float(&b, -0.25);
    ipfsrt_dagcbor_put_text(&b, "hh", 2);
    ipfsrt_dagcbor_put_array(&b, 300);
    for (int i = 0; i < 300; i++) ipfsrt_dagcbor_put_uint(&b, (uint64_t)i);
    assert_false(b.failed);
    ipfsrt_dagcbor_doc doc;
    assert_int_equal(ipfsrt_dagcbor_decode(b.data, b.len, &doc, NULL), IPFSRT_OK);
    assert_true(ipfsrt_dagcbor_map_get(doc.root, "a")->v.u == 5000000000ull);
    assert_int_equal(ipfsrt_dagcbor_map_get(doc.root, "b")->v.u, 99);
    assert_true(ipfsrt_cid_equal(ipfsrt_dagcbor_map_get(doc.root, "d")->v.cid, &cid));
    assert_true(ipfsrt_dagcbor_map_get(doc.root, "g")->v.f == -0.25);
    assert_int_equal(ipfsrt_dagcbor_map_get(doc.root, "hh")->v.list.count, 300);
    assert_int_equal(ipfsrt_dagcbor_map_get(doc.root, "hh")->v.list.items[299].v.u, 299);
    ipfsrt_dagcbor_doc_free(&doc);
    ipfsrt_buf_free(&b);
}

/* Truncating a valid document anywhere must fail cleanly. */
static void test_truncations(void **state) {
    (void)state;
    uint8_t buf[128];
    size_t n = hex2bin("a265726f6f747381d82a58250001551220b94d27b9934d3e08a52e52d7da7dabfac484efe3"
                       "7a5380ee9088f7ace2efcde96776657273696f6e01",
                       buf, sizeof buf);
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any over-read */
        memcpy(copy, buf, len);
        ipfsrt_dagcbor_doc doc;
        assert_int_not_equal(ipfsrt_dagcbor_decode(copy, len, &doc, NULL), IPFSRT_OK);
        free(copy);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_car_header), cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_rejects),    cmocka_unit_test(test_encode_roundtrip),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
