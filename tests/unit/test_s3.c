/* The S3 client's parts that need no server: URL splitting, Content-Range,
 * S3's URI encoding, and the checks a web-server client makes up front. The
 * requests themselves are tested against a local S3 (tests/s3/). */
#include "testutil.h"

#include "s3/s3_internal.h"

static ipfsrt_status no_entry(void *user, const char *name, uint64_t size, bool is_prefix, ipfsrt_error *err) {
    (void)user, (void)name, (void)size, (void)is_prefix, (void)err;
    return IPFSRT_OK;
}

static void split_ok(const char *url, const char *bucket, const char *key) {
    char b[64];
    const char *k;
    size_t klen;
    assert_int_equal(ipfsrt_s3_url_split(url, strlen(url), b, sizeof b, &k, &klen, NULL), IPFSRT_OK);
    assert_string_equal(b, bucket);
    assert_int_equal(klen, strlen(key));
    assert_memory_equal(k, key, klen);
}

static void test_url_split(void **state) {
    (void)state;
    split_ok("s3://bucket", "bucket", "");
    split_ok("s3://bucket/", "bucket", "");
    split_ok("s3://bucket/a/b.car", "bucket", "a/b.car");
    split_ok("s3://bucket//a/b//", "bucket", "a/b");
    char b[8];
    const char *k;
    size_t klen;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_s3_url_split("s3://", 5, b, sizeof b, &k, &klen, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_url_split("s3:///key", 9, b, sizeof b, &k, &klen, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_url_split("s3://muchtoolong/k", 18, b, sizeof b, &k, &klen, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_url_split("http://b/k", 10, b, sizeof b, &k, &klen, &err), IPFSRT_EBAD_ARGUMENT);
    /* only the first len bytes count: "s3://bucket/x.car/inner/path" split at the CAR */
    const char *url = "s3://bkt/x.car/inner/path";
    assert_int_equal(ipfsrt_s3_url_split(url, 14, b, sizeof b, &k, &klen, NULL), IPFSRT_OK);
    assert_int_equal(klen, 5);
    assert_memory_equal(k, "x.car", 5);
}

static void test_content_range(void **state) {
    (void)state;
    uint64_t a, b, t;
    assert_true(ipfsrt_fetch_content_range_parse("bytes 0-9/100", &a, &b, &t));
    assert_true(a == 0 && b == 9 && t == 100);
    assert_true(ipfsrt_fetch_content_range_parse("bytes 5-5/*", &a, &b, &t));
    assert_true(a == 5 && b == 5 && t == UINT64_MAX);
    static const char *const bad[] = {"bytes 9-0/100", "bytes 0-100/100", "bytes -1-2/3", "bytes 1-2/3x",
                                      "items 0-1/2",   "bytes 0-1",       "bytes */100",  "bytes 1 -2/3",
                                      "bytes 0-99999999999999999999/1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(ipfsrt_fetch_content_range_parse(bad[i], &a, &b, &t));
}

static void test_uri_encode(void **state) {
    (void)state;
    char out[64];
    assert_true(ipfsrt_s3_uri_encode("a b/c~d_e.f-g", true, out, sizeof out));
    assert_string_equal(out, "a%20b/c~d_e.f-g");
    assert_true(ipfsrt_s3_uri_encode("a/b+c=\xc3\xa9", false, out, sizeof out));
    assert_string_equal(out, "a%2Fb%2Bc%3D%C3%A9");
    assert_false(ipfsrt_s3_uri_encode("%%%%%%", true, out, 10)); /* 18 bytes do not fit */
}

static void test_web_server_client(void **state) {
    (void)state;
    ipfsrt_s3 *s3;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_s3_new_http(&s3, "ftp://host/x.car", NULL, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_new_http(&s3, "http://host/a b.car", NULL, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_new_http(&s3, "https://host/dir/", NULL, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_s3_describe(s3), "https://host/dir");
    /* no listing on a web server; a file that cannot be opened is named before any request */
    assert_int_equal(ipfsrt_s3_list(s3, "", NULL, no_entry, NULL, &err), IPFSRT_EUNSUPPORTED);
    assert_int_equal(ipfsrt_s3_put_file(s3, "k", "/nonexistent/ipfsrt-test", &err), IPFSRT_EIO);
    assert_non_null(strstr(err.message, "/nonexistent/ipfsrt-test"));
    ipfsrt_s3_stats st = IPFSRT_S3_STATS_INIT;
    ipfsrt_s3_get_stats(s3, &st);
    assert_true(st.requests == 0);
    ipfsrt_s3_free(s3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_split),
        cmocka_unit_test(test_content_range),
        cmocka_unit_test(test_uri_encode),
        cmocka_unit_test(test_web_server_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
