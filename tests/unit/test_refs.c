/* Kerchunk references: parsing (versions 0 and 1, templates, gen, inline and
 * base64 values, URLs made absolute), what is refused (loops, overflowing
 * ranges, keys given twice, keys or targets climbing out), and the store over
 * them reading ranges of a local file: merged neighbours, a file too short or
 * absent is an error naming the key, an absent key is absent. */
#include "testutil.h"

#include <sys/resource.h>

#include "refs/refs.h"

static ipfsrt_status parse(ipfsrt_zarr_refs *r, const char *json, const char *base, ipfsrt_error *err) {
    return ipfsrt_zarr_refs_parse(r, json, strlen(json), base, err);
}

static const char *target_of(const ipfsrt_zarr_refs *r, const char *key) {
    const ipfsrt_zarr_ref *ref = ipfsrt_zarr_refs_find(r, key);
    assert_non_null(ref);
    assert_null(ref->data);
    return r->targets[ref->target];
}

static void test_version0(void **state) {
    (void)state;
    ipfsrt_zarr_refs r;
    const char *json = "{\".zgroup\": \"{\\\"zarr_format\\\": 2}\", \"a/0\": \"base64:AAEC/w==\","
                       "\"a/1\": [\"x.nc\", 100, 20], \"a/2\": [\"/ipfs/bafkqaaa/y.nc\"],"
                       "\"a/3\": [\"https://h.example/z.nc\", 0, 0], \"b/.zattrs\": {\"units\": \"K\"}}";
    ipfsrt_error err;
    assert_int_equal(parse(&r, json, "ipfs://bafkqaaa/dir/refs.json", &err), IPFSRT_OK);
    assert_int_equal(r.count, 6);
    const ipfsrt_zarr_ref *g = ipfsrt_zarr_refs_find(&r, ".zgroup");
    assert_int_equal(g->len, 18);
    assert_memory_equal(g->data, "{\"zarr_format\": 2}", 18);
    const ipfsrt_zarr_ref *b = ipfsrt_zarr_refs_find(&r, "a/0");
    assert_int_equal(b->len, 4);
    assert_memory_equal(b->data, "\x00\x01\x02\xff", 4);
    assert_string_equal(target_of(&r, "a/1"), "ipfs://bafkqaaa/dir/x.nc");
    assert_int_equal(ipfsrt_zarr_refs_find(&r, "a/1")->offset, 100);
    assert_int_equal(ipfsrt_zarr_refs_find(&r, "a/1")->length, 20);
    assert_string_equal(target_of(&r, "a/2"), "ipfs://bafkqaaa/y.nc");
    assert_true(ipfsrt_zarr_refs_find(&r, "a/2")->length == IPFSRT_REFS_WHOLE);
    assert_string_equal(target_of(&r, "a/3"), "https://h.example/z.nc");
    const ipfsrt_zarr_ref *attrs = ipfsrt_zarr_refs_find(&r, "b/.zattrs");
    assert_memory_equal(attrs->data, "{\"units\":\"K\"}", attrs->len);
    assert_null(ipfsrt_zarr_refs_find(&r, "a/4"));
    ipfsrt_zarr_refs_free(&r);
}

static void test_version1_templates_and_gen(void **state) {
    (void)state;
    ipfsrt_zarr_refs r;
    const char *json =
        "{\"version\": 1, \"templates\": {\"u\": \"https://h.example/data\", \"f\": \"{{u}}/{{c}}.nc\"},"
        " \"gen\": [{\"key\": \"v/{{i}}.{{j}}\", \"url\": \"{{u}}/day{{i}}.nc\","
        "            \"offset\": \"{{(i + 1) * 1000 + j // 2}}\", \"length\": \"{{100 - j % 3}}\","
        "            \"dimensions\": {\"i\": {\"stop\": 3}, \"j\": [0, 5]}}],"
        " \"refs\": {\"k\": [\"{{f(c='text')}}\", 7, 8], \"l\": [\"{{u}}\"]}}";
    ipfsrt_error err;
    assert_int_equal(parse(&r, json, NULL, &err), IPFSRT_OK);
    assert_int_equal(r.count, 8);
    assert_string_equal(target_of(&r, "k"), "https://h.example/data/text.nc");
    assert_string_equal(target_of(&r, "l"), "https://h.example/data");
    assert_string_equal(target_of(&r, "v/2.5"), "https://h.example/data/day2.nc");
    const ipfsrt_zarr_ref *v = ipfsrt_zarr_refs_find(&r, "v/2.5");
    assert_int_equal(v->offset, 3002);
    assert_int_equal(v->length, 98);
    v = ipfsrt_zarr_refs_find(&r, "v/0.0");
    assert_int_equal(v->offset, 1000);
    assert_int_equal(v->length, 100);
    assert_int_equal(r.ntargets, 5); /* three days, text.nc and the bare URL: each once */
    ipfsrt_zarr_refs_free(&r);
}

static void expect_refused(const char *json, const char *base, ipfsrt_status code, const char *says) {
    ipfsrt_zarr_refs r;
    ipfsrt_error err;
    assert_int_equal(parse(&r, json, base, &err), code);
    if (!strstr(err.message, says)) fail_msg("'%s' does not say '%s'", err.message, says);
    assert_int_equal(r.count, 0);
}

static void test_refused(void **state) {
    (void)state;
    expect_refused("[1]", NULL, IPFSRT_EBAD_ARGUMENT, "not a JSON object");
    expect_refused("{\"version\": 1, \"templates\": {\"a\": \"{{b}}\", \"b\": \"x{{a}}\"}, \"refs\": {\"k\": [\"{{a}}\"]}}",
                   NULL, IPFSRT_EBAD_ARGUMENT, "template loop");
    expect_refused("{\"k\": [\"/f\", 1e300, 5]}", NULL, IPFSRT_EBAD_ARGUMENT, "key k: the offset");
    expect_refused("{\"k\": [\"/f\", 0, -5]}", NULL, IPFSRT_EBAD_ARGUMENT, "key k: the length");
    expect_refused("{\"k\": [\"/f\", 0.5, 5]}", NULL, IPFSRT_EBAD_ARGUMENT, "key k: the offset");
    expect_refused("{\"k\": [\"/f\", 1]}", NULL, IPFSRT_EBAD_ARGUMENT, "[url, offset, length]");
    expect_refused("{\"k\": 5}", NULL, IPFSRT_EBAD_ARGUMENT, "key k: a value");
    expect_refused("{\"../k\": \"x\"}", NULL, IPFSRT_EBAD_ARGUMENT, "key '../k'");
    expect_refused("{\"k\": \"x\", \"k\": \"y\"}", NULL, IPFSRT_EBAD_ARGUMENT, "given twice");
    expect_refused("{\"k\": [\"../f.nc\"]}", "ipfs://bafkqaaa/refs.json", IPFSRT_EBAD_ARGUMENT, "climbs out");
    expect_refused("{\"k\": [\"f.nc\"]}", NULL, IPFSRT_EBAD_ARGUMENT, "relative target");
    expect_refused("{\"k\": \"base64:!!!\"}", NULL, IPFSRT_EBAD_ARGUMENT, "bad base64");
    expect_refused("{\"version\": 2}", NULL, IPFSRT_EUNSUPPORTED, "version");
    expect_refused("{\"version\": 1, \"gen\": [{\"key\": \"k{{i}}\", \"url\": \"/f\", \"offset\": \"{{i / 0}}\","
                   " \"length\": 1, \"dimensions\": {\"i\": {\"stop\": 2}}}]}",
                   NULL, IPFSRT_EBAD_ARGUMENT, "division by zero");
    expect_refused("{\"version\": 1, \"gen\": [{\"key\": \"k{{i}}.{{j}}.{{l}}\", \"url\": \"/f\", \"offset\": 0,"
                   " \"length\": 1, \"dimensions\": {\"i\": {\"stop\": 100000}, \"j\": {\"stop\": 100000},"
                   " \"l\": {\"stop\": 100000}}}]}",
                   NULL, IPFSRT_ETOO_LARGE, "more than");
    /* 16 million keys fit the key limit, not the bytes references may take:
     * refused before the first is made (expanded, they took 1.3 GB first) */
    expect_refused("{\"version\": 1, \"gen\": [{\"key\": \"analysed_sst/{{i}}.{{j}}.0\", \"url\": \"/f\", \"offset\": 0,"
                   " \"length\": 1, \"dimensions\": {\"i\": {\"stop\": 4000}, \"j\": {\"stop\": 4000}}}]}",
                   NULL, IPFSRT_ETOO_LARGE, "gen makes 16000000 keys, over the 1073741824 bytes");
    expect_refused("{\"version\": 1, \"templates\": {\"a\": \"x\"}, \"templates\": {\"a\": \"y\"}}", NULL,
                   IPFSRT_EBAD_ARGUMENT, "given once");
    expect_refused("{\"refs\": {\"k\": \"x\"}}", NULL, IPFSRT_EBAD_ARGUMENT, "need \"version\": 1");
    expect_refused("{\"k\": [\"/f\", 1, 2", NULL, IPFSRT_EBAD_ARGUMENT, "not valid JSON at byte");
    expect_refused("{\"version\": 1, \"gen\": [{\"key\": \"k{{i}}\", \"url\": \"/f\", \"offset\": \"{{9223372036854775807 + i}}\","
                   " \"length\": 1, \"dimensions\": {\"i\": {\"start\": 1, \"stop\": 2}}}]}",
                   NULL, IPFSRT_EBAD_ARGUMENT, "overflow");
}

/* References are read as a stream: parsing 40 MB of them takes memory of
 * the order of the keys kept, not a tree of the document (a cJSON tree took
 * 42 times the file; now about 1.4). The parse's own peak is measured, outside sanitizers
 * (whose allocators keep freed memory). */
static void test_memory_of_large_refs(void **state) {
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    skip();
#endif
#endif
    enum { FILES = 2000, KEYS_PER_FILE = 300 };
    ipfsrt_buf json;
    ipfsrt_buf_init(&json);
    const char *start = "{\"version\": 1, \"refs\": {";
    ipfsrt_buf_append(&json, start, strlen(start));
    char line[200];
    for (int f = 0; f < FILES; f++)
        for (int k = 0; k < KEYS_PER_FILE; k++) {
            int n = snprintf(line, sizeof line, "%s\"sst/%d.%d.0\": [\"https://h.example/data/day%05d.nc\", %d, 4000]",
                             f || k ? ", " : "", f, k, f, 10000 + 4000 * k);
            ipfsrt_buf_append(&json, line, (size_t)n);
        }
    ipfsrt_buf_append(&json, "}}", 2);
    assert_false(json.failed);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    ipfsrt_zarr_refs r;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_zarr_refs_parse(&r, (const char *)json.data, json.len, NULL, &err), IPFSRT_OK);
    getrusage(RUSAGE_SELF, &after);
    assert_int_equal(r.count, FILES * KEYS_PER_FILE);
    assert_int_equal(r.ntargets, FILES);
    uint64_t grown = (uint64_t)(after.ru_maxrss - before.ru_maxrss) * 1024;
    if (grown > 3 * json.len) fail_msg("parsing %zu bytes of references took %llu more", json.len, (unsigned long long)grown);
    ipfsrt_zarr_refs_free(&r);
    ipfsrt_buf_free(&json);
}

/* ---------------------------------------------------------- the store */

static uint8_t blob[4096];

typedef struct seen {
    ipfsrt_status status[8];
    char message[8][800];
    uint8_t data[8][64];
    size_t len[8];
} seen;

static ipfsrt_status keep(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    (void)err;
    seen *s = user;
    s->status[r->index] = r->status;
    snprintf(s->message[r->index], sizeof s->message[r->index], "%s", r->error.message);
    s->len[r->index] = r->len;
    if (r->status == IPFSRT_OK) memcpy(s->data[r->index], r->data, r->len < 64 ? r->len : 64);
    return IPFSRT_OK;
}

static void test_store_over_a_file(void **state) {
    (void)state;
    fill_random(blob, sizeof blob, 5);
    write_file(tmp_path("blob.bin"), blob, sizeof blob);
    const char *json = "{\"version\": 1, \"refs\": {\".zgroup\": \"{\\\"zarr_format\\\": 2}\","
                       "\"v/0\": [\"blob.bin\", 10, 20], \"v/1\": [\"blob.bin\", 40, 10],"
                       "\"v/2\": [\"blob.bin\", 4000, 200], \"v/3\": [\"gone.bin\", 0, 5],"
                       "\"w/x/0\": [\"blob.bin\"]}}";
    write_file(tmp_path("refs.json"), (const uint8_t *)json, strlen(json));
    ipfsrt_zarr_store *s;
    ipfsrt_error err;
    /* the core names the module until it is enabled (process-wide, so last) */
    ipfsrt_zarr_store_set_opener(IPFSRT_ZARR_SCHEME_REFS, NULL);
    assert_int_equal(ipfsrt_zarr_store_open(&s, tmp_path("refs.json"), NULL, &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "libipfsrt-netcdf"));
    assert_non_null(strstr(err.message, "refs.json"));
    ipfsrt_refs_stores_enable();
    assert_int_equal(ipfsrt_zarr_store_open(&s, tmp_path("refs.json"), NULL, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_zarr_store_kind(s), "refs");
    assert_false(ipfsrt_zarr_store_verified(s)); /* local files */
    ipfsrt_range_request q[] = {{"v/0", 0, UINT64_MAX, false}, {"v/1", 2, 3, false}, {"v/2", 0, UINT64_MAX, false},
                                {"v/3", 0, UINT64_MAX, false}, {"v/9", 0, UINT64_MAX, false},
                                {".zgroup", 0, UINT64_MAX, false}, {"v/0", 0, 5, true},
                                {"w/x/0", 4090, 100, false}};
    seen got = {0};
    assert_int_equal(ipfsrt_zarr_store_get_many(s, q, 8, keep, &got, &err), IPFSRT_OK);
    assert_int_equal(got.status[0], IPFSRT_OK);
    assert_int_equal(got.len[0], 20);
    assert_memory_equal(got.data[0], blob + 10, 20);
    assert_int_equal(got.status[1], IPFSRT_OK);
    assert_memory_equal(got.data[1], blob + 42, 3);
    assert_int_equal(got.status[2], IPFSRT_EBAD_RANGE); /* past the file's end: never a short chunk */
    assert_non_null(strstr(got.message[2], "v/2"));
    assert_int_equal(got.status[3], IPFSRT_EIO); /* an absent file is no absent key */
    assert_non_null(strstr(got.message[3], "gone.bin"));
    assert_int_equal(got.status[4], IPFSRT_ENOT_FOUND);
    assert_int_equal(got.status[5], IPFSRT_OK);
    assert_int_equal(got.len[5], 18);
    assert_int_equal(got.status[6], IPFSRT_OK); /* the last 5 bytes of v/0 */
    assert_memory_equal(got.data[6], blob + 25, 5);
    assert_int_equal(got.status[7], IPFSRT_OK);
    assert_int_equal(got.len[7], 6);
    assert_memory_equal(got.data[7], blob + 4090, 6);
    ipfsrt_zarr_store_free(s);
}

static ipfsrt_status count_name(void *user, const ipfsrt_zarr_store_entry *e, ipfsrt_error *err) {
    (void)err;
    char *names = user;
    strcat(names, e->name);
    strcat(names, e->is_folder ? "/ " : " ");
    return IPFSRT_OK;
}

static void test_store_lists(void **state) {
    (void)state;
    const char *json = "{\".zgroup\": \"{}\", \"a/.zarray\": \"{}\", \"a/0.0\": [\"/x\", 0, 1],"
                       "\"a/0.1\": [\"/x\", 1, 1], \"b/c/.zarray\": \"{}\"}";
    ipfsrt_zarr_store *s;
    assert_int_equal(ipfsrt_refs_store_new(&s, json, strlen(json), NULL, NULL, NULL), IPFSRT_OK);
    char names[256] = "";
    assert_int_equal(ipfsrt_zarr_store_list_dir(s, "", count_name, names, NULL), IPFSRT_OK);
    assert_string_equal(names, ".zgroup a/ b/ ");
    names[0] = '\0';
    assert_int_equal(ipfsrt_zarr_store_list_dir(s, "a/", count_name, names, NULL), IPFSRT_OK);
    assert_string_equal(names, ".zarray 0.0 0.1 ");
    ipfsrt_zarr_store_free(s);
}

int main(void) {
    ipfsrt_refs_stores_enable(); /* as a host linking libipfsrt-netcdf does */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version0),
        cmocka_unit_test(test_version1_templates_and_gen),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_memory_of_large_refs),
        cmocka_unit_test(test_store_over_a_file),
        cmocka_unit_test(test_store_lists),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
