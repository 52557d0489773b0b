#include "testutil.h"

static void test_vectors(void **state) {
    (void)state;
    static const struct {
        uint64_t value;
        const char *hex;
    } v[] = {{0, "00"},          {1, "01"},         {127, "7f"},
             {128, "8001"},      {255, "ff01"},     {300, "ac02"},
             {16384, "808001"},  {IPFSRT_VARINT_MAX_VALUE, "ffffffffffffffff7f"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t want[16], got[IPFSRT_VARINT_MAX_BYTES];
        size_t n = hex2bin(v[i].hex, want, sizeof want);
        assert_int_equal(ipfsrt_varint_encode(v[i].value, got), n);
        assert_memory_equal(got, want, n);
        assert_int_equal(ipfsrt_varint_size(v[i].value), n);
        uint64_t value;
        size_t used;
        assert_int_equal(ipfsrt_varint_decode(want, n, &value, &used, NULL), IPFSRT_OK);
        assert_true(value == v[i].value);
        assert_int_equal(used, n);
    }
}

static void expect(const char *hex, ipfsrt_status want) {
    uint8_t buf[16];
    size_t n = hex2bin(hex, buf, sizeof buf);
    uint64_t value;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_varint_decode(buf, n, &value, NULL, &err), want);
    assert_int_equal(err.code, want);
    assert_true(err.message[0] != '\0');
}

static void test_rejects(void **state) {
    (void)state;
    expect("8100", IPFSRT_EBAD_VARINT);             /* 1, non-minimal */
    expect("8080808000", IPFSRT_EBAD_VARINT);       /* 0, non-minimal */
    expect("ffffffffffffffffff01", IPFSRT_EBAD_VARINT); /* 10 bytes */
    expect("ffffffffffffffff80", IPFSRT_EBAD_VARINT); /* 9th byte may not continue */
    expect("80", IPFSRT_ETRUNCATED);
    expect("", IPFSRT_ETRUNCATED);
    uint8_t nine[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x01};
    uint64_t v;
    assert_int_equal(ipfsrt_varint_decode(nine, sizeof nine, &v, NULL, NULL), IPFSRT_EBAD_VARINT);
}

static void test_encode_range(void **state) {
    (void)state;
    uint8_t out[IPFSRT_VARINT_MAX_BYTES];
    assert_int_equal(ipfsrt_varint_encode(IPFSRT_VARINT_MAX_VALUE + 1, out), 0);
    for (uint64_t v = 1; v && v <= IPFSRT_VARINT_MAX_VALUE; v = v * 3 + 1) {
        size_t n = ipfsrt_varint_encode(v, out);
        uint64_t back;
        size_t used;
        assert_int_equal(ipfsrt_varint_decode(out, n, &back, &used, NULL), IPFSRT_OK);
        assert_true(back == v);
        assert_int_equal(used, n);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_encode_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
