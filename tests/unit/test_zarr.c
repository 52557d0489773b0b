/* Zarr: bad metadata refused with messages naming the array and the field,
 * keys that would leave a store refused, the folder store, and reading
 * selections from arrays written here (missing chunks, lying chunks,
 * consolidated metadata serving members without reads). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdatomic.h>
#include <unistd.h>

#include "testutil.h"
#include "base/json_internal.h"
#include "zarr/store_internal.h"
#include "zarr/zarr_internal.h"

static void expect_meta_error(const char *json, int format, ipfsrt_status code, const char *words) {
    ipfsrt_zarr_meta *m = NULL;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_zarr_meta_parse(&m, json, strlen(json), format, "grp/arr", &err);
    if (st != code) fail_msg("%s: status %s (%s), wanted %s", json, ipfsrt_status_name(st), st ? err.message : "",
                             ipfsrt_status_name(code));
    assert_null(m);
    if (!strstr(err.message, "grp/arr") || !strstr(err.message, words))
        fail_msg("%s: message \"%s\" lacks \"%s\"", json, err.message, words);
}

#define V2(fields) "{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": 0, " fields "}"
#define V2OK() V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null")

/* What a host reads of metadata, through the accessors alone. */
static void test_meta_accessors(void **state) {
    (void)state;
    static const char v3[] =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10, 6], \"data_type\": \"float32\", "
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}}, "
        "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 1.5, \"dimension_names\": [\"t\", null], "
        "\"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 3], "
        "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"zstd\", "
        "\"configuration\": {\"level\": 1, \"checksum\": false}}], \"index_codecs\": [{\"name\": \"bytes\", "
        "\"configuration\": {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}]}}]}";
    ipfsrt_zarr_meta *m;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_zarr_meta_parse(&m, v3, strlen(v3), 3, "grp/arr", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_meta_format(m), 3);
    assert_int_equal(ipfsrt_zarr_meta_ndim(m), 2);
    assert_int_equal(ipfsrt_zarr_meta_shape(m)[0], 10);
    assert_int_equal(ipfsrt_zarr_meta_chunks(m)[0], 4);
    assert_int_equal(ipfsrt_zarr_meta_grid(m)[0], 3);
    assert_int_equal(ipfsrt_zarr_meta_dtype(m), IPFSRT_DTYPE_FLOAT32);
    assert_int_equal(ipfsrt_zarr_meta_itemsize(m), 4);
    assert_string_equal(ipfsrt_zarr_meta_datetime_unit(m), "");
    assert_false(ipfsrt_zarr_meta_fortran_order(m));
    assert_string_equal(ipfsrt_zarr_meta_name(m), "grp/arr");
    assert_string_equal(ipfsrt_zarr_meta_dimension_name(m, 0), "t");
    assert_null(ipfsrt_zarr_meta_dimension_name(m, 1));
    assert_null(ipfsrt_zarr_meta_dimension_name(m, 2));
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(ipfsrt_zarr_meta_fill(m), NULL, 0, &v, NULL), IPFSRT_OK);
    assert_true(v.f == 1.5);
    const ipfsrt_zarr_meta *inner = ipfsrt_zarr_meta_inner(m);
    assert_non_null(inner);
    assert_int_equal(ipfsrt_zarr_meta_chunks(inner)[1], 3);
    assert_int_equal(ipfsrt_zarr_meta_codec_count(inner), 1);
    assert_string_equal(ipfsrt_codec_id(ipfsrt_zarr_meta_codec(inner, 0)), "zstd");
    assert_null(ipfsrt_zarr_meta_codec(inner, 1));
    assert_null(ipfsrt_zarr_meta_inner(inner));
    ipfsrt_zarr_meta_free(m);
}

static void test_bad_metadata(void **state) {
    (void)state;
    expect_meta_error("[1, 2]", 2, IPFSRT_EBAD_ARGUMENT, "not a JSON object");
    /* which of two fill values counts? zarr-python takes the last, cJSON the first: neither */
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null, "
                         "\"fill_value\": 7"), 2, IPFSRT_EBAD_ARGUMENT, "naming no key twice");
    expect_meta_error(V2OK(), 3, IPFSRT_EBAD_ARGUMENT, "zarr_format is not 3");
    expect_meta_error(V2("\"shape\": [-1], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null"), 2,
                      IPFSRT_EBAD_ARGUMENT, "shape[0]");
    expect_meta_error(V2("\"shape\": \"10\", \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null"), 2,
                      IPFSRT_EBAD_ARGUMENT, "shape must be a list");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [0], \"dtype\": \"<i4\", \"compressor\": null"), 2,
                      IPFSRT_EBAD_ARGUMENT, "chunks[0]");
    expect_meta_error(V2("\"shape\": [10, 10], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null"), 2,
                      IPFSRT_EBAD_ARGUMENT, "entries for 2 dimensions");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5.5], \"dtype\": \"<i4\", \"compressor\": null"), 2,
                      IPFSRT_EBAD_ARGUMENT, "chunks[0]");
    /* a chunk of 2^40 x 2^40 elements: refused before anything is sized from it */
    expect_meta_error(V2("\"shape\": [10, 10], \"chunks\": [1099511627776, 1099511627776], \"dtype\": \"<i4\", "
                         "\"compressor\": null"), 2, IPFSRT_ETOO_LARGE, "chunk");
    expect_meta_error(V2("\"shape\": [18014398509481984], \"chunks\": [1], \"dtype\": \"<i4\", \"compressor\": null"),
                      2, IPFSRT_EBAD_ARGUMENT, "shape[0]");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<x9\", \"compressor\": null"), 2,
                      IPFSRT_EUNSUPPORTED, "<x9");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i 8\", \"compressor\": null"), 2,
                      IPFSRT_EUNSUPPORTED, "<i 8");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i+8\", \"compressor\": null"), 2,
                      IPFSRT_EUNSUPPORTED, "<i+8");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": [[\"a\", \"<i4\"]], \"compressor\": null"), 2,
                      IPFSRT_EUNSUPPORTED, "structured");
    expect_meta_error(V2("\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": {\"id\": \"snappy9\"}"),
                      2, IPFSRT_EUNSUPPORTED, "snappy9");
    expect_meta_error("{\"zarr_format\": 2, \"order\": \"K\", \"filters\": null, \"fill_value\": 0, \"shape\": [10], "
                      "\"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null}", 2, IPFSRT_EBAD_ARGUMENT, "order");
    expect_meta_error("{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": \"many\", "
                      "\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i4\", \"compressor\": null}", 2, IPFSRT_EBAD_ARGUMENT,
                      "fill_value");
    expect_meta_error("{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": 300, "
                      "\"shape\": [10], \"chunks\": [5], \"dtype\": \"|u1\", \"compressor\": null}", 2, IPFSRT_EBAD_RANGE,
                      "fill_value");
}

/* Integer fill values to the last digit: past 2^53, at int64's and uint64's
 * ends; one past them refused. */
static void expect_int_fill(const char *dtype, const char *fill, int64_t want, uint64_t uwant, bool is_unsigned) {
    char json[512];
    snprintf(json, sizeof json, "{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": %s, "
             "\"shape\": [10], \"chunks\": [5], \"dtype\": \"%s\", \"compressor\": null}", fill, dtype);
    ipfsrt_zarr_meta *m = NULL;
    ipfsrt_error err;
    if (ipfsrt_zarr_meta_parse(&m, json, strlen(json), 2, "a", &err) != IPFSRT_OK) fail_msg("%s: %s", fill, err.message);
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(&m->fill, NULL, 0, &v, NULL), IPFSRT_OK);
    if (is_unsigned) assert_true(v.kind == IPFSRT_NDVALUE_UINT && v.u == uwant);
    else if (v.kind != IPFSRT_NDVALUE_INT || v.i != want) fail_msg("%s read back as %lld", fill, (long long)v.i);
    ipfsrt_zarr_meta_free(m);
}

static void test_exact_integers(void **state) {
    (void)state;
    expect_int_fill("<i8", "9007199254740993", 9007199254740993LL, 0, false);
    expect_int_fill("<i8", "-9007199254740993", -9007199254740993LL, 0, false);
    expect_int_fill("<i8", "9223372036854775807", INT64_MAX, 0, false);
    expect_int_fill("<i8", "-9223372036854775808", INT64_MIN, 0, false);
    expect_int_fill("<u8", "18446744073709551615", 0, UINT64_MAX, true);
    expect_int_fill("<i4", "1e3", 1000, 0, false);
    expect_meta_error("{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": 9223372036854775808, "
                      "\"shape\": [10], \"chunks\": [5], \"dtype\": \"<i8\", \"compressor\": null}", 2, IPFSRT_EBAD_ARGUMENT,
                      "does not fit");
    expect_meta_error("{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": 18446744073709551616, "
                      "\"shape\": [10], \"chunks\": [5], \"dtype\": \"<u8\", \"compressor\": null}", 2, IPFSRT_EBAD_ARGUMENT,
                      "fill_value");
    /* a <U2 fill keeps two characters, as numpy does, never half of one */
    static const struct {
        const char *fill, *kept;
    } texts[] = {{"abcdefghij", "ab"}, {"\u00e9\u65e5\u672c", "\xc3\xa9\xe6\x97\xa5"}, {"x", "x"}};
    for (size_t i = 0; i < 3; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"zarr_format\": 2, \"order\": \"C\", \"filters\": null, \"fill_value\": \"%s\", "
                 "\"shape\": [2], \"chunks\": [2], \"dtype\": \"<U2\", \"compressor\": null}", texts[i].fill);
        ipfsrt_zarr_meta *m = NULL;
        assert_int_equal(ipfsrt_zarr_meta_parse(&m, json, strlen(json), 2, "u", NULL), IPFSRT_OK);
        assert_int_equal(m->itemsize, 8);
        assert_string_equal((const char *)m->fill.data, texts[i].kept); /* zeros after the kept bytes */
        ipfsrt_zarr_meta_free(m);
    }
    static const char *const raw_fills[] = {"[1, 2]", "[300, 0]", "[1, \"a\"]", "[1, 2, 3]"}; /* r16: two bytes */
    for (size_t i = 0; i < 4; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], "
                 "\"data_type\": \"r16\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
                 "{\"chunk_shape\": [2]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": %s, "
                 "\"codecs\": [{\"name\": \"bytes\"}]}", raw_fills[i]);
        ipfsrt_zarr_meta *m = NULL;
        ipfsrt_status st = ipfsrt_zarr_meta_parse(&m, json, strlen(json), 3, "grp/arr", NULL);
        assert_int_equal(st, i == 0 ? IPFSRT_OK : IPFSRT_EBAD_ARGUMENT);
        ipfsrt_zarr_meta_free(m);
    }
    /* a document parsed and printed again keeps every digit, wherever the number sits */
    const char *text = "{\"a\":[12345678901234567,\"9007199254740993\",-9223372036854775808],"
                       "\"b\":{\"c\":18446744073709551615,\"d\":0.1,\"e\":\"x\\\"1\"},\"f\":1}";
    cJSON *doc = ipfsrt_json_parse(text, strlen(text), NULL);
    assert_non_null(doc);
    char *back = ipfsrt_json_print(doc, false);
    assert_string_equal(back, text);
    assert_true(cJSON_IsNumber(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "a"), 0))); /* printing left it a number */
    int64_t i;
    assert_true(ipfsrt_json_int64(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "a"), 2), &i) && i == INT64_MIN);
    assert_false(ipfsrt_json_int64(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "b"), "c"), &i));
    free(back);
    cJSON_Delete(doc);
}

#define V3(extra)                                                                                                   \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], \"data_type\": \"int16\", "                    \
    "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, "                          \
    "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0" extra "}"

static void test_bad_v3_metadata(void **state) {
    (void)state;
    expect_meta_error(V3(", \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
                         "\"frobnicate\": {\"must_understand\": true}"), 3, IPFSRT_EUNSUPPORTED, "frobnicate");
    expect_meta_error(V3(", \"codecs\": [{\"name\": \"gzip\"}]"), 3, IPFSRT_EBAD_ARGUMENT, "before the array-to-bytes");
    expect_meta_error(V3(", \"codecs\": []"), 3, IPFSRT_EBAD_ARGUMENT, "no array-to-bytes codec");
    expect_meta_error(V3(", \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
                         "{\"name\": \"lzma9\"}]"), 3, IPFSRT_EUNSUPPORTED, "lzma9");
    expect_meta_error(V3(", \"codecs\": [{\"name\": \"transpose\", \"configuration\": {\"order\": [1]}}, "
                         "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]"), 3, IPFSRT_EBAD_ARGUMENT,
                      "transpose");
    /* an unknown field that need not be understood is fine */
    const char *ok = V3(", \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], "
                        "\"extra\": {\"must_understand\": false}");
    ipfsrt_zarr_meta *m;
    assert_int_equal(ipfsrt_zarr_meta_parse(&m, ok, strlen(ok), 3, "a", NULL), IPFSRT_OK);
    ipfsrt_zarr_meta_free(m);
}

static void test_key_check(void **state) {
    (void)state;
    const char *bad[] = {"", "/abs", "a//b", "../x", "a/../b", "a/.", ".", "a/", "a\\b", "a\nb"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ipfsrt_zarr_key_check(bad[i], NULL) == IPFSRT_OK) fail_msg("key \"%s\" was accepted", bad[i]);
    const char *good[] = {"a", ".zarray", "a/b/c/0.1", "c/0/1", "x..y"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) assert_int_equal(ipfsrt_zarr_key_check(good[i], NULL), IPFSRT_OK);
}

static char *temp_dir(void) {
    static char dir[64];
    strcpy(dir, "/tmp/ipfsrt-zarr-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void remove_tree(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A writable folder store over dir. */
static ipfsrt_zarr_store *writable_folder(const char *dir) {
    ipfsrt_zarr_store_options w = {.size = sizeof w, .writable = true};
    ipfsrt_zarr_store *s;
    assert_int_equal(ipfsrt_zarr_store_open(&s, dir, &w, NULL), IPFSRT_OK);
    return s;
}

static ipfsrt_status count_name(void *user, const ipfsrt_zarr_store_entry *entry, ipfsrt_error *err) {
    (void)entry;
    (void)err;
    (*(int *)user)++;
    return IPFSRT_OK;
}

static void test_folder_store(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    assert_string_equal(ipfsrt_zarr_store_kind(s), "folder");
    assert_int_equal(ipfsrt_zarr_store_put(s, "a/b/c", "hello", 5, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_put(s, "a/b/c", "world!", 6, &err), IPFSRT_OK); /* replaced whole */
    assert_int_equal(ipfsrt_zarr_store_put(s, "../escape", "x", 1, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    assert_int_equal(ipfsrt_zarr_store_get(s, "a/b/c", &b, &err), IPFSRT_OK);
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.data, "world!", 6);
    b.len = 0;
    assert_int_equal(ipfsrt_zarr_store_get_range(s, "a/b/c", 2, 3, &b, &err), IPFSRT_OK);
    assert_memory_equal(b.data, "rld", 3);
    assert_int_equal(ipfsrt_zarr_store_get(s, "a/b/none", &b, &err), IPFSRT_ENOT_FOUND);
    assert_int_equal(ipfsrt_zarr_store_get(s, "a/b", &b, &err), IPFSRT_ENOT_FILE);
    int n = 0;
    assert_int_equal(ipfsrt_zarr_store_list_dir(s, "a/b/", count_name, &n, &err), IPFSRT_OK);
    assert_int_equal(n, 1); /* no temporary file left behind */
    assert_int_equal(ipfsrt_zarr_store_erase(s, "a/b/c", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_erase(s, "a/b/c", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_get(s, "a/b/c", &b, &err), IPFSRT_ENOT_FOUND);
    ipfsrt_zarr_store_free(s);
    assert_int_equal(ipfsrt_zarr_store_open(&s, dir, NULL, &err), IPFSRT_OK); /* read-only */
    assert_int_equal(ipfsrt_zarr_store_put(s, "x", "y", 1, &err), IPFSRT_EUNSUPPORTED);
    ipfsrt_zarr_store_free(s);
    ipfsrt_buf_free(&b);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none", dir);
    assert_int_equal(ipfsrt_zarr_store_open(&s, missing, NULL, &err), IPFSRT_ENOT_FOUND);
    remove_tree(dir);
}

/* A v2 array of int32 0..59 in 6x10, chunks 4x4 with zstd, in a folder;
 * chunk 0.2 never written (fill -7). */
static void write_array(ipfsrt_zarr_store *s) {
    static const char zarray[] = "{\"zarr_format\": 2, \"shape\": [6, 10], \"chunks\": [4, 4], \"dtype\": \"<i4\", "
                                 "\"compressor\": {\"id\": \"zstd\", \"level\": 1}, \"fill_value\": -7, "
                                 "\"order\": \"C\", \"filters\": null}";
    ipfsrt_error err;
    assert_int_equal(ipfsrt_zarr_store_put(s, "g/arr/.zarray", zarray, strlen(zarray), &err), IPFSRT_OK);
    ipfsrt_codec *zstd;
    assert_int_equal(ipfsrt_codec_new(&zstd, "zstd", "{\"level\": 1}", 4, &err), IPFSRT_OK);
    for (int ci = 0; ci < 2; ci++)
        for (int cj = 0; cj < 3; cj++) {
            if (ci == 0 && cj == 2) continue;
            int32_t v[16];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    int r = ci * 4 + i, c = cj * 4 + j;
                    v[i * 4 + j] = r < 6 && c < 10 ? r * 10 + c : 999; /* past the edge: anything */
                }
            ipfsrt_buf enc;
            ipfsrt_buf_init(&enc);
            assert_int_equal(ipfsrt_codec_encode(zstd, v, sizeof v, &enc, &err), IPFSRT_OK);
            char key[64];
            snprintf(key, sizeof key, "g/arr/%d.%d", ci, cj);
            assert_int_equal(ipfsrt_zarr_store_put(s, key, enc.data, enc.len, &err), IPFSRT_OK);
            ipfsrt_buf_free(&enc);
        }
    ipfsrt_codec_free(zstd);
    assert_int_equal(ipfsrt_zarr_store_put(s, "g/.zgroup", "{\"zarr_format\": 2}", 18, &err), IPFSRT_OK);
}

static int32_t expected(int r, int c) { return r < 4 && c >= 8 ? -7 : r * 10 + c; }

static void test_read_selections(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    write_array(s);
    ipfsrt_zarr_node *g, *a;
    assert_int_equal(ipfsrt_zarr_open(&g, s, "/g/", &err), IPFSRT_OK);
    assert_false(ipfsrt_zarr_is_array(g));
    assert_int_equal(ipfsrt_zarr_open_child(&a, g, "arr", &err), IPFSRT_OK);
    assert_true(ipfsrt_zarr_is_array(a));
    assert_string_equal(ipfsrt_zarr_path(a), "g/arr");
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        ipfsrt_ndslice sel[2] = {{.step = 1, .has_start = true, .start = 1, .has_stop = true, .stop = -1},
                                 {.step = -3}};
        ipfsrt_ndarray out;
        ipfsrt_ndarray_init(&out);
        ipfsrt_zarr_read_options opts = {.size = sizeof opts, .threads = threads};
        assert_int_equal(ipfsrt_zarr_read(a, sel, 2, &out, &opts, &err), IPFSRT_OK);
        assert_int_equal(out.ndim, 2);
        assert_int_equal(out.shape[0], 4); /* rows 1..4 */
        assert_int_equal(out.shape[1], 4); /* columns 9, 6, 3, 0 */
        const int32_t *v = (const int32_t *)(const void *)out.data;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) assert_int_equal(v[i * 4 + j], expected(1 + i, 9 - 3 * j));
        ipfsrt_ndarray_free(&out);
    }
    ipfsrt_ndslice one[2] = {{.is_index = true, .index = -1}, {.is_index = true, .index = 9}};
    ipfsrt_ndarray x;
    ipfsrt_ndarray_init(&x);
    assert_int_equal(ipfsrt_zarr_read(a, one, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(x.ndim, 0);
    assert_int_equal(*(const int32_t *)(const void *)x.data, 59);
    ipfsrt_ndarray_free(&x);
    /* a chunk that lies about its size is refused, naming the array and key */
    uint8_t junk[40] = {0};
    assert_int_equal(ipfsrt_zarr_store_put(s, "g/arr/1.1", junk, sizeof junk, &err), IPFSRT_OK);
    assert_int_not_equal(ipfsrt_zarr_read(a, NULL, 0, &x, NULL, &err), IPFSRT_OK);
    if (!strstr(err.message, "g/arr") || !strstr(err.message, "1.1")) fail_msg("message: %s", err.message);
    ipfsrt_ndslice in_it[2] = {{.is_index = true, .index = 4}, {.is_index = true, .index = 5}};
    assert_int_not_equal(ipfsrt_zarr_read(a, in_it, 2, &x, NULL, &err), IPFSRT_OK); /* one chunk: decoded in place */
    if (!strstr(err.message, "g/arr") || !strstr(err.message, "1.1")) fail_msg("message: %s", err.message);
    ipfsrt_zarr_node *escaping;
    assert_int_equal(ipfsrt_zarr_open(&escaping, s, "../g", &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_node_free(g);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

/* A store that passes reads to another, counting its batches and their keys. */
typedef struct counting {
    ipfsrt_zarr_store *inner;
    int batches;
    size_t keys;
} counting;

static ipfsrt_status counting_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                       ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    counting *c = ctx;
    c->batches++;
    c->keys += n;
    return ipfsrt_zarr_store_get_many(c->inner, requests, n, fn, user, err);
}

static const ipfsrt_zarr_store_ops counting_ops = {.size = sizeof(ipfsrt_zarr_store_ops), .kind = "counting", .get_many = counting_get_many};

/* Several arrays read together ask the store once for all their chunks, and
 * read what each read alone reads; a failing chunk fails the whole, naming it. */
static void test_read_many(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *folder = writable_folder(dir), *s;
    ipfsrt_error err;
    write_array(folder);
    static const char other[] = "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<f8\", "
                                "\"compressor\": null, \"fill_value\": 1.5, \"order\": \"C\", \"filters\": null}";
    assert_int_equal(ipfsrt_zarr_store_put(folder, "g/other/.zarray", other, strlen(other), &err), IPFSRT_OK);
    counting c = {folder, 0, 0};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &counting_ops, &c, "counting://", &err), IPFSRT_OK);
    ipfsrt_zarr_node *a, *b;
    assert_int_equal(ipfsrt_zarr_open(&a, s, "g/arr", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open(&b, s, "g/other", &err), IPFSRT_OK);
    const ipfsrt_zarr_node *both[3] = {a, b, a};
    ipfsrt_ndarray outs[3], alone;
    for (int i = 0; i < 3; i++) ipfsrt_ndarray_init(&outs[i]);
    ipfsrt_ndarray_init(&alone);
    c.batches = 0, c.keys = 0;
    assert_int_equal(ipfsrt_zarr_read_many(both, 3, outs, &err), IPFSRT_OK);
    assert_int_equal(c.batches, 1);
    assert_int_equal(c.keys, 6 + 2 + 6); /* every chunk of each read, absent ones too */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ipfsrt_zarr_read(both[i], NULL, 0, &alone, NULL, &err), IPFSRT_OK);
        assert_int_equal(outs[i].dtype, alone.dtype);
        assert_int_equal(ipfsrt_ndarray_size(&outs[i]), ipfsrt_ndarray_size(&alone));
        assert_memory_equal(outs[i].data, alone.data, ipfsrt_ndarray_size(&alone) * alone.itemsize);
        ipfsrt_ndarray_free(&outs[i]);
    }
    uint8_t junk[40] = {0};
    assert_int_equal(ipfsrt_zarr_store_put(folder, "g/arr/1.1", junk, sizeof junk, &err), IPFSRT_OK);
    assert_int_not_equal(ipfsrt_zarr_read_many(both, 2, outs, &err), IPFSRT_OK);
    if (!strstr(err.message, "g/arr") || !strstr(err.message, "1.1")) fail_msg("message: %s", err.message);
    for (int i = 0; i < 3; i++) ipfsrt_ndarray_free(&outs[i]);
    ipfsrt_ndarray_free(&alone);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_node_free(b);
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}

/* A store that answers a batch in a shuffled order (seeded), as a network does. */
typedef struct shuffling {
    ipfsrt_zarr_store *inner;
    unsigned seed;
} shuffling;

typedef struct unshuffle {
    const size_t *order;
    ipfsrt_range_fn fn;
    void *user;
} unshuffle;

static ipfsrt_status in_place(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    const unshuffle *u = user;
    ipfsrt_range_result mine = *res;
    mine.index = u->order[res->index];
    return u->fn(u->user, &mine, err);
}

static ipfsrt_status shuffled_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                       ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    shuffling *s = ctx;
    size_t *order = malloc(n * sizeof *order);
    ipfsrt_range_request *req = malloc(n * sizeof *req);
    assert_non_null(order);
    assert_non_null(req);
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates with a fixed generator */
        s->seed = s->seed * 1103515245u + 12345u;
        size_t j = (s->seed >> 8) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++) req[i] = requests[order[i]];
    unshuffle u = {order, fn, user};
    ipfsrt_status st = ipfsrt_zarr_store_get_many(s->inner, req, n, in_place, &u, err);
    free(order);
    free(req);
    return st;
}

static const ipfsrt_zarr_store_ops shuffling_ops = {.size = sizeof(ipfsrt_zarr_store_ops), .kind = "shuffling", .get_many = shuffled_get_many};

/* A float32 array (37 x 29 in chunks of 5 x 4) of tenths, its rows from 30 on
 * never written (NaN). */
static void write_tenths(ipfsrt_zarr_store *folder) {
    static const char zf[] = "{\"zarr_format\": 2, \"shape\": [37, 29], \"chunks\": [5, 4], \"dtype\": \"<f4\", "
                             "\"compressor\": null, \"fill_value\": \"NaN\", \"order\": \"C\", \"filters\": null}";
    ipfsrt_error err;
    assert_int_equal(ipfsrt_zarr_store_put(folder, "g/f/.zarray", zf, strlen(zf), &err), IPFSRT_OK);
    ipfsrt_zarr_node *f;
    assert_int_equal(ipfsrt_zarr_open(&f, folder, "g/f", &err), IPFSRT_OK);
    ipfsrt_ndarray v, tenth;
    ipfsrt_ndarray_init(&v);
    ipfsrt_ndarray_init(&tenth);
    assert_int_equal(ipfsrt_ndarray_arange(&v, IPFSRT_DTYPE_FLOAT32, 0, 37 * 29, 1, &err), IPFSRT_OK);
    int64_t shape[2] = {37, 29};
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &v, 2, shape, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_full(&tenth, IPFSRT_DTYPE_FLOAT32, 0, 0, NULL, 0.1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_binary(&v, IPFSRT_NDOP_MUL, &v, &tenth, &err), IPFSRT_OK); /* sums that round */
    ipfsrt_ndslice rows[1] = {{.has_start = true, .start = 0, .has_stop = true, .stop = 30, .step = 1}};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &v, rows, 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_write(f, rows, 1, &v, NULL, &err), IPFSRT_OK); /* rows 30.. stay NaN */
    ipfsrt_ndarray_free(&v);
    ipfsrt_ndarray_free(&tenth);
    ipfsrt_zarr_node_free(f);
}

/* A writable folder holding g/arr (int32, fill -7, one chunk never written)
 * and g/f (float32 tenths, rows 30.. NaN): the arrays reads and folds are
 * tried on. */
static ipfsrt_zarr_store *folder_of_arrays(char **dir) {
    *dir = temp_dir();
    ipfsrt_zarr_store *folder = writable_folder(*dir);
    write_array(folder);
    write_tenths(folder);
    return folder;
}

/* The eager way agrees with a fold: the selection read, 27 left out, reduced. */
static void assert_summary_as_read(const ipfsrt_zarr_node *a, const ipfsrt_ndslice *part,
                                   const ipfsrt_zarr_summary *first) {
    ipfsrt_error err;
    ipfsrt_ndarray x, keep, k27, r;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&keep), ipfsrt_ndarray_init(&k27), ipfsrt_ndarray_init(&r);
    assert_int_equal(ipfsrt_zarr_read(a, part, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_full(&k27, x.dtype, 0, 0, NULL, 27, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_binary(&keep, IPFSRT_NDOP_NE, &x, &k27, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_reduce(&r, IPFSRT_NDREDUCE_COUNT, &x, NULL, 0, true, &keep, &err),
                     IPFSRT_OK);
    assert_int_equal(*(const int64_t *)(const void *)r.data, (int64_t)first->count);
    assert_int_equal(ipfsrt_ndarray_reduce(&r, IPFSRT_NDREDUCE_SUM, &x, NULL, 0, true, &keep, &err),
                     IPFSRT_OK);
    if (first->integer) assert_int_equal(*(const int64_t *)(const void *)r.data, first->isum);
    else assert_true(fabs(*(const float *)(const void *)r.data - first->sum) <= 1e-3 * fabs(first->sum));
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&keep), ipfsrt_ndarray_free(&k27), ipfsrt_ndarray_free(&r);
}

/* folder_of_arrays behind a store that hands chunks out in a shuffled order,
 * its int (g/arr) and float (g/f) arrays open. */
typedef struct arrays {
    char *dir;
    ipfsrt_zarr_store *folder, *s;
    shuffling sh;
    ipfsrt_zarr_node *ints, *floats;
} arrays;

static void arrays_open(arrays *a) {
    ipfsrt_error err;
    a->folder = folder_of_arrays(&a->dir);
    a->sh = (shuffling){a->folder, 1};
    assert_int_equal(ipfsrt_zarr_store_new(&a->s, &shuffling_ops, &a->sh, "shuffling://", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open(&a->ints, a->s, "g/arr", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open(&a->floats, a->s, "g/f", &err), IPFSRT_OK);
}

static void arrays_close(arrays *a) {
    ipfsrt_zarr_node_free(a->ints);
    ipfsrt_zarr_node_free(a->floats);
    ipfsrt_zarr_store_free(a->s);
    ipfsrt_zarr_store_free(a->folder);
    remove_tree(a->dir);
}

/* A fold equals the read followed by the reduction, and is the same to the
 * bit on 1, 2 and 8 decoding threads whatever order the chunks arrive in; the
 * value left out is left out, chunks never written count as their fill. */
static void test_summarize(void **state) {
    (void)state;
    char *dir;
    ipfsrt_zarr_store *folder = folder_of_arrays(&dir), *s;
    ipfsrt_error err;
    shuffling sh = {folder, 1};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &shuffling_ops, &sh, "shuffling://", &err), IPFSRT_OK);
    const char *paths[2] = {"g/arr", "g/f"};
    for (int p = 0; p < 2; p++) {
        ipfsrt_zarr_node *a;
        assert_int_equal(ipfsrt_zarr_open(&a, s, paths[p], &err), IPFSRT_OK);
        ipfsrt_ndslice part[2] = {{.has_start = true, .start = 1, .has_stop = true, .stop = 33, .step = 1}, {.step = 2}};
        double skip[1] = {27}; /* left out where it occurs */
        ipfsrt_zarr_summary first = {0};
        for (unsigned threads = 1; threads <= 8; threads *= 2)
            for (unsigned seed = 1; seed <= 3; seed++) {
                sh.seed = seed;
                ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
                ipfsrt_zarr_summary got;
                ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .skip = skip, .n_skip = 1,
                                              .what = IPFSRT_ZARR_FOLD_EXTREMES};
                assert_int_equal(ipfsrt_zarr_summarize(a, part, 2, &f, &got, &err), IPFSRT_OK);
                if (threads == 1 && seed == 1) first = got;
                assert_int_equal(got.count, first.count);
                assert_true(got.integer ? got.isum == first.isum : got.sum == first.sum); /* to the bit */
                assert_true(got.min == first.min && got.max == first.max);
            }
        assert_summary_as_read(a, part, &first);
        ipfsrt_zarr_node_free(a);
    }
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}

/* Boxes read together are the reads of each box, in the order given. */
static void test_read_boxes(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *folder = writable_folder(dir);
    ipfsrt_error err;
    write_array(folder);
    ipfsrt_zarr_node *a;
    assert_int_equal(ipfsrt_zarr_open(&a, folder, "g/arr", &err), IPFSRT_OK);
    ipfsrt_ndslice boxes[3][2] = {
        {{.has_start = true, .start = 1, .has_stop = true, .stop = 3, .step = 1}, {.is_index = true, .index = 9}},
        {{.is_index = true, .index = 0}, {.step = 1}},
        {{.has_start = true, .start = 5, .has_stop = true, .stop = 6, .step = 1},
         {.has_start = true, .start = 2, .has_stop = true, .stop = 9, .step = 3}}};
    const ipfsrt_ndslice *sels[3] = {boxes[0], boxes[1], boxes[2]};
    int ns[3] = {2, 2, 2};
    ipfsrt_ndarray outs[3], one;
    for (int i = 0; i < 3; i++) ipfsrt_ndarray_init(&outs[i]);
    ipfsrt_ndarray_init(&one);
    assert_int_equal(ipfsrt_zarr_read_boxes(a, sels, ns, 3, outs, NULL, &err), IPFSRT_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ipfsrt_zarr_read(a, boxes[i], 2, &one, NULL, &err), IPFSRT_OK);
        assert_int_equal(outs[i].ndim, one.ndim);
        assert_int_equal(ipfsrt_ndarray_size(&outs[i]), ipfsrt_ndarray_size(&one));
        assert_memory_equal(outs[i].data, one.data, ipfsrt_ndarray_size(&one) * one.itemsize);
        ipfsrt_ndarray_free(&outs[i]);
    }
    ipfsrt_ndslice past[2] = {{.is_index = true, .index = 6}, {.step = 1}}; /* out of bounds: refused, named */
    const ipfsrt_ndslice *bad[2] = {boxes[0], past};
    assert_int_not_equal(ipfsrt_zarr_read_boxes(a, bad, ns, 2, outs, NULL, &err), IPFSRT_OK);
    ipfsrt_ndarray_free(&one);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}

/* The first least and greatest of the read selection x, skip and NaN left out. */
static void first_extremes(const ipfsrt_ndarray *x, double skip, ipfsrt_zarr_extremes *want) {
    *want = (ipfsrt_zarr_extremes){.min = NAN, .max = NAN};
    for (size_t i = 0, n = ipfsrt_ndarray_size(x); i < n; i++) {
        double v = x->dtype == IPFSRT_DTYPE_INT32 ? ((const int32_t *)(const void *)x->data)[i]
                                                   : ((const float *)(const void *)x->data)[i];
        if (isnan(v) || v == skip) continue;
        if (!want->count || v < want->min) want->min = v, want->min_at = i;
        if (!want->count || v > want->max) want->max = v, want->max_at = i;
        want->count++;
    }
}

/* Extremes located as read are the read's first least and greatest, on any
 * thread count and chunk order: ties (the fill value, unwritten chunks) go
 * to the first place in C order, whichever chunk comes first. */
static void test_locate_extremes(void **state) {
    (void)state;
    char *dir;
    ipfsrt_zarr_store *folder = folder_of_arrays(&dir), *s;
    ipfsrt_error err;
    shuffling sh = {folder, 1};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &shuffling_ops, &sh, "shuffling://", &err), IPFSRT_OK);
    const char *paths[2] = {"g/arr", "g/f"};
    ipfsrt_ndslice parts[3][2] = {
        {{.step = 1}, {.step = 1}},
        {{.has_start = true, .start = 1, .has_stop = true, .stop = 33, .step = 1}, {.step = 2}},
        {{.is_index = true, .index = 2}, {.has_start = true, .start = 3, .step = 3}}};
    for (int p = 0; p < 2; p++) {
        ipfsrt_zarr_node *a;
        assert_int_equal(ipfsrt_zarr_open(&a, s, paths[p], &err), IPFSRT_OK);
        for (int k = 0; k < 3; k++)
            for (double skip = 27; skip >= -7; skip -= 34) { /* 27 left out, or -7: the fill */
                ipfsrt_ndarray x;
                ipfsrt_ndarray_init(&x);
                assert_int_equal(ipfsrt_zarr_read(a, parts[k], 2, &x, NULL, &err), IPFSRT_OK);
                ipfsrt_zarr_extremes want, got;
                first_extremes(&x, skip, &want);
                ipfsrt_ndarray_free(&x);
                for (unsigned threads = 1; threads <= 8; threads *= 2) {
                    sh.seed = threads;
                    ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
                    ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .skip = &skip, .n_skip = 1};
                    assert_int_equal(ipfsrt_zarr_locate_extremes(a, parts[k], 2, &f, &got, &err), IPFSRT_OK);
                    assert_int_equal(got.count, want.count);
                    assert_true(got.min == want.min && got.max == want.max);
                    assert_int_equal(got.min_at, want.min_at);
                    assert_int_equal(got.max_at, want.max_at);
                }
            }
        ipfsrt_zarr_node_free(a);
    }
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}

/* What a fold along axis (0, 1; -1: both) of the 2-D float64 x must give at
 * kept position p, the values skip and NaN left out. */
static void expected_at(const ipfsrt_ndarray *x, int axis, size_t p, double skip, int64_t *count, double *sum,
                        double *mn, double *mx) {
    *count = 0, *sum = 0, *mn = NAN, *mx = NAN;
    for (size_t i = 0; i < x->shape[0]; i++)
        for (size_t j = 0; j < x->shape[1]; j++) {
            if ((axis == 0 && j != p) || (axis == 1 && i != p)) continue;
            double v = ((const double *)(const void *)x->data)[i * x->shape[1] + j];
            if (isnan(v) || v == skip) continue;
            *sum += v;
            if (!*count || v < *mn) *mn = v;
            if (!*count || v > *mx) *mx = v;
            ++*count;
        }
}

static double number_at(const ipfsrt_ndarray *a, size_t i) {
    if (a->dtype == IPFSRT_DTYPE_INT64) return (double)((const int64_t *)(const void *)a->data)[i];
    if (a->dtype == IPFSRT_DTYPE_FLOAT32) return ((const float *)(const void *)a->data)[i];
    return ((const double *)(const void *)a->data)[i];
}

static void assert_along(const ipfsrt_ndarray *x, int axis, double skip, const ipfsrt_zarr_summaries *got) {
    size_t kept = axis < 0 ? 1 : x->shape[axis == 0 ? 1 : 0];
    assert_int_equal(ipfsrt_ndarray_size(&got->count), kept);
    for (size_t p = 0; p < kept; p++) {
        int64_t count;
        double sum, mn, mx;
        expected_at(x, axis, p, skip, &count, &sum, &mn, &mx);
        assert_int_equal(((const int64_t *)(const void *)got->count.data)[p], count);
        double tolerance = got->sum.dtype == IPFSRT_DTYPE_FLOAT32 ? 1e-6 : 1e-9; /* float32 sums in float32 */
        if (got->sum.data) assert_true(fabs(number_at(&got->sum, p) - sum) <= tolerance * fabs(sum));
        if (!got->min.data) continue;
        assert_true(isnan(mn) ? isnan(number_at(&got->min, p)) : number_at(&got->min, p) == mn);
        assert_true(isnan(mx) ? isnan(number_at(&got->max, p)) : number_at(&got->max, p) == mx);
    }
}

static bool same_bits(const ipfsrt_ndarray *a, const ipfsrt_ndarray *b) {
    if (!a->data || !b->data) return !a->data && !b->data;
    return ipfsrt_ndarray_size(a) == ipfsrt_ndarray_size(b) &&
           memcmp(a->data, b->data, ipfsrt_ndarray_size(a) * a->itemsize) == 0;
}

/* Folds along one dimension, the other or both, on every thread count and
 * arrival order, agree with the selection read and folded here, to the bit
 * from one run to the next. */
static void fold_along_cases(const ipfsrt_zarr_node *a, const ipfsrt_ndslice *part, shuffling *sh, unsigned what,
                             double skip) {
    ipfsrt_error err;
    ipfsrt_ndarray x, x64;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&x64);
    assert_int_equal(ipfsrt_zarr_read(a, part, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_astype(&x64, &x, IPFSRT_DTYPE_FLOAT64, &err), IPFSRT_OK);
    for (int axis = -1; axis <= 1; axis++) {
        bool along[2] = {axis != 1, axis != 0};
        ipfsrt_zarr_summaries first, got;
        ipfsrt_zarr_summaries_init(&first), ipfsrt_zarr_summaries_init(&got);
        for (unsigned threads = 1; threads <= 8; threads *= 2)
            for (unsigned seed = 1; seed <= 3; seed++) {
                sh->seed = seed;
                ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
                ipfsrt_zarr_summaries *into = threads == 1 && seed == 1 ? &first : &got;
                ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .skip = &skip, .n_skip = 1, .what = what};
                assert_int_equal(ipfsrt_zarr_summarize_along(a, part, 2, along, &f, into, &err), IPFSRT_OK);
                assert_true(same_bits(&got.count, &first.count) || into == &first);
                assert_true(same_bits(&got.sum, &first.sum) || into == &first);
                assert_true(same_bits(&got.min, &first.min) || into == &first);
            }
        assert_along(&x64, axis, skip, &first);
        ipfsrt_zarr_summaries_free(&first), ipfsrt_zarr_summaries_free(&got);
    }
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&x64);
}

/* Float sums along the first dimension, over several chunks of it: float32,
 * added in order (on 1 to 8 threads, the chunks in three orders), the same
 * bits as the rows read and summed with NaN as zero; counts beside. */
static void assert_float_sums_in_order(const ipfsrt_zarr_node *a, const ipfsrt_ndslice *part, shuffling *sh) {
    ipfsrt_error err;
    ipfsrt_ndarray x, want;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&want);
    assert_int_equal(ipfsrt_zarr_read(a, part, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_reduce(&want, IPFSRT_NDREDUCE_SUM, &x, (int[]){0}, 1, true, NULL, &err), IPFSRT_OK);
    bool down[2] = {true, false};
    for (unsigned threads = 1; threads <= 8; threads *= 2)
        for (unsigned seed = 1; seed <= 3; seed++) {
            sh->seed = seed;
            ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
            ipfsrt_zarr_summaries got;
            ipfsrt_zarr_summaries_init(&got);
            ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .what = IPFSRT_ZARR_FOLD_SUMS};
            assert_int_equal(ipfsrt_zarr_summarize_along(a, part, 2, down, &f, &got, &err), IPFSRT_OK);
            assert_int_equal(got.sum.dtype, IPFSRT_DTYPE_FLOAT32);
            assert_true(same_bits(&got.sum, &want));
            ipfsrt_zarr_summaries_free(&got);
        }
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&want);
}

static void test_summarize_along(void **state) {
    (void)state;
    arrays a;
    arrays_open(&a);
    ipfsrt_zarr_node *ints = a.ints, *floats = a.floats;
    shuffling *sh = &a.sh;
    ipfsrt_error err;
    ipfsrt_ndslice part[2] = {{.has_start = true, .start = 1, .has_stop = true, .stop = 6, .step = 1}, {.step = 2}};
    fold_along_cases(ints, part, sh, IPFSRT_ZARR_FOLD_SUMS | IPFSRT_ZARR_FOLD_EXTREMES, 27);
    ipfsrt_ndslice rows[2] = {{.has_start = true, .start = 3, .has_stop = true, .stop = 36, .step = 1}, {.step = 3}};
    fold_along_cases(floats, rows, sh, IPFSRT_ZARR_FOLD_EXTREMES, 2.5f);
    /* float sums: along rows 5..9 (one chunk of rows), along rows 3..35 (in
     * order, float32: the bits of the rows read and summed), not along both */
    ipfsrt_ndslice one[2] = {{.has_start = true, .start = 5, .has_stop = true, .stop = 10, .step = 1}, {.step = 3}};
    bool down[2] = {true, false}, both[2] = {true, true};
    ipfsrt_zarr_summaries got;
    ipfsrt_zarr_summaries_init(&got);
    assert_float_sums_in_order(floats, rows, sh);
    ipfsrt_zarr_fold_options sums;
    ipfsrt_zarr_fold_options_init(&sums);
    sums.what = IPFSRT_ZARR_FOLD_SUMS;
    assert_int_equal(ipfsrt_zarr_summarize_along(floats, rows, 2, both, &sums, &got, &err), IPFSRT_EUNSUPPORTED);
    if (!strstr(err.message, "g/f") && !strstr(err.message, "f:")) fail_msg("message: %s", err.message);
    assert_int_equal(ipfsrt_zarr_summarize_along(floats, one, 2, down, &sums, &got, &err), IPFSRT_OK);
    ipfsrt_ndarray x, x64;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&x64);
    assert_int_equal(ipfsrt_zarr_read(floats, one, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_astype(&x64, &x, IPFSRT_DTYPE_FLOAT64, &err), IPFSRT_OK);
    assert_along(&x64, 0, NAN, &got);
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&x64);
    ipfsrt_zarr_summaries_free(&got);
    fold_along_cases(floats, one, sh, IPFSRT_ZARR_FOLD_EXTREMES, 2.5f);
    arrays_close(&a);
}

/* The weighted sums of the 2-D selection of a, over its columns (kept = 1)
 * or everything (kept = 0), worked out here from the selection read: value x
 * weight and weight where the value is not NaN nor skip, in float64. */
static void weighted_as_read(const ipfsrt_zarr_node *a, const ipfsrt_ndslice *part, int kept, const double *w,
                             double skip, double *num, double *den, size_t *rows) {
    ipfsrt_error err;
    ipfsrt_ndarray x, x64;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&x64);
    assert_int_equal(ipfsrt_zarr_read(a, part, 2, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_astype(&x64, &x, IPFSRT_DTYPE_FLOAT64, &err), IPFSRT_OK);
    size_t n = x64.shape[0], m = x64.shape[1];
    const double *v = (const double *)(const void *)x64.data;
    *rows = kept ? n : 1;
    for (size_t i = 0; i < *rows; i++) num[i] = den[i] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double e = v[i * m + j], wt = kept ? w[j] : w[i * m + j];
            if (isnan(e) || e == skip) continue;
            num[kept ? i : 0] += e * wt;
            den[kept ? i : 0] += wt;
        }
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&x64);
}

/* Weighted sums of one selection on 1, 2 and 8 threads, the chunks arriving
 * in three orders: the same bits each time, and the sums worked out here. */
static void weighted_cases(const ipfsrt_zarr_node *a, const ipfsrt_ndslice *part, int kept, double skip,
                           shuffling *sh) {
    ipfsrt_error err;
    ipfsrt_ndarray first_num, first_den, num, den, w;
    ipfsrt_ndarray_init(&first_num), ipfsrt_ndarray_init(&first_den), ipfsrt_ndarray_init(&num);
    ipfsrt_ndarray_init(&den), ipfsrt_ndarray_init(&w);
    ipfsrt_ndarray x;
    ipfsrt_ndarray_init(&x);
    assert_int_equal(ipfsrt_zarr_read(a, part, 2, &x, NULL, &err), IPFSRT_OK); /* its shape */
    size_t wshape[2] = {x.shape[0], x.shape[1]};
    int wdims = kept ? 1 : 2;
    assert_int_equal(ipfsrt_ndarray_zeros(&w, IPFSRT_DTYPE_FLOAT64, 0, wdims, kept ? wshape + 1 : wshape, &err),
                     IPFSRT_OK);
    double *wv = (double *)(void *)w.data;
    for (size_t i = 0; i < ipfsrt_ndarray_size(&w); i++) wv[i] = 0.5 + 0.37 * (double)(i % 7);
    for (unsigned threads = 1; threads <= 8; threads *= 2)
        for (unsigned seed = 1; seed <= 3; seed++) {
            sh->seed = seed;
            ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
            ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .skip = &skip, .n_skip = !isnan(skip)};
            bool first = threads == 1 && seed == 1;
            assert_int_equal(ipfsrt_zarr_weighted_sums(a, part, 2, kept, &w, &f, first ? &first_num : &num,
                                                       first ? &first_den : &den, &err), IPFSRT_OK);
            assert_true(first || (same_bits(&num, &first_num) && same_bits(&den, &first_den)));
        }
    double want_num[64], want_den[64];
    size_t rows;
    weighted_as_read(a, part, kept, wv, skip, want_num, want_den, &rows);
    assert_int_equal(ipfsrt_ndarray_size(&first_num), rows);
    for (size_t i = 0; i < rows; i++) {
        double got_num = ((const double *)(const void *)first_num.data)[i];
        double got_den = ((const double *)(const void *)first_den.data)[i];
        assert_true(fabs(got_num - want_num[i]) <= 1e-12 * fmax(1, fabs(want_num[i])));
        assert_true(fabs(got_den - want_den[i]) <= 1e-12 * fmax(1, want_den[i]));
    }
    ipfsrt_ndarray_free(&first_num), ipfsrt_ndarray_free(&first_den), ipfsrt_ndarray_free(&num);
    ipfsrt_ndarray_free(&den), ipfsrt_ndarray_free(&w), ipfsrt_ndarray_free(&x);
}

/* Weighted sums folded as the chunks are decoded: over the columns of every
 * row or over everything; floats (NaN rows), packed integers (a fill, a chunk
 * never written), contiguous rows and strided ones; weights of the wrong
 * shape or type refused, naming the array. */
static void test_weighted_sums(void **state) {
    (void)state;
    arrays a;
    arrays_open(&a);
    ipfsrt_zarr_node *ints = a.ints, *floats = a.floats;
    shuffling *sh = &a.sh;
    ipfsrt_error err;
    ipfsrt_ndslice rows[2] = {{.has_start = true, .start = 3, .has_stop = true, .stop = 36, .step = 1}, {.step = 1}};
    ipfsrt_ndslice strided[2] = {{.has_start = true, .start = 3, .has_stop = true, .stop = 36, .step = 2}, {.step = 3}};
    ipfsrt_ndslice all[2] = {{.step = 1}, {.step = 1}};
    for (int kept = 0; kept <= 1; kept++) {
        weighted_cases(floats, rows, kept, NAN, sh);
        weighted_cases(floats, strided, kept, 2.5, sh);
        weighted_cases(ints, all, kept, -7, sh);
        weighted_cases(ints, strided, kept, 27, sh);
    }
    ipfsrt_ndarray w, num, den;
    ipfsrt_ndarray_init(&w), ipfsrt_ndarray_init(&num), ipfsrt_ndarray_init(&den);
    size_t three = 3;
    assert_int_equal(ipfsrt_ndarray_zeros(&w, IPFSRT_DTYPE_FLOAT64, 0, 1, &three, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_weighted_sums(floats, rows, 2, 1, &w, NULL, &num, &den, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "f"));
    assert_int_equal(ipfsrt_zarr_weighted_sums(floats, rows, 2, 3, &w, NULL, &num, &den, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_ndarray_free(&w);
    size_t cols = 29;
    assert_int_equal(ipfsrt_ndarray_zeros(&w, IPFSRT_DTYPE_FLOAT32, 0, 1, &cols, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_weighted_sums(floats, rows, 2, 1, &w, NULL, &num, &den, &err), IPFSRT_EBAD_ARGUMENT);
    assert_null(num.data);
    ipfsrt_ndarray_free(&w);
    arrays_close(&a);
}

/* Groups of rows (interleaved, one row in none) of x (2-D float64): per group
 * and column, what a fold must give. */
static void assert_groups(const ipfsrt_ndarray *x, const size_t *group_of, size_t n_groups, double skip,
                          const ipfsrt_zarr_summaries *got) {
    size_t cols = x->shape[1];
    assert_int_equal(got->count.shape[0], n_groups);
    for (size_t g = 0; g < n_groups; g++)
        for (size_t c = 0; c < cols; c++) {
            int64_t count = 0;
            double sum = 0, mn = NAN, mx = NAN;
            for (size_t r = 0; r < x->shape[0]; r++) {
                double v = ((const double *)(const void *)x->data)[r * cols + c];
                if (group_of[r] != g || isnan(v) || v == skip) continue;
                sum += v;
                mn = count && mn <= v ? mn : v;
                mx = count && mx >= v ? mx : v;
                count++;
            }
            size_t at = g * cols + c;
            assert_int_equal(((const int64_t *)(const void *)got->count.data)[at], count);
            if (got->sum.data) assert_true(number_at(&got->sum, at) == sum); /* integers: exact */
            if (got->min.data) assert_true(isnan(mn) ? isnan(number_at(&got->min, at)) : number_at(&got->min, at) == mn);
            if (got->max.data) assert_true(isnan(mx) ? isnan(number_at(&got->max, at)) : number_at(&got->max, at) == mx);
        }
}

/* Folds per group of rows: on 1 to 8 threads, chunks in three orders, the
 * same as grouping the rows read; groups that do not fit refused. */
static void test_summarize_groups(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *folder = writable_folder(dir), *s;
    ipfsrt_error err;
    write_array(folder); /* 6 x 10 int32 in chunks of 4 x 4, fill -7, one chunk never written */
    shuffling sh = {folder, 1};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &shuffling_ops, &sh, "shuffling://", &err), IPFSRT_OK);
    ipfsrt_zarr_node *ints;
    assert_int_equal(ipfsrt_zarr_open(&ints, s, "g/arr", &err), IPFSRT_OK);
    ipfsrt_ndarray x, x64;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&x64);
    assert_int_equal(ipfsrt_zarr_read(ints, NULL, 0, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_astype(&x64, &x, IPFSRT_DTYPE_FLOAT64, &err), IPFSRT_OK);
    size_t group_of[6] = {1, 0, 1, SIZE_MAX, 0, 2};
    double skip = 27;
    for (unsigned threads = 1; threads <= 8; threads *= 2)
        for (unsigned seed = 1; seed <= 3; seed++) {
            sh.seed = seed;
            ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
            ipfsrt_zarr_summaries got;
            ipfsrt_zarr_summaries_init(&got);
            ipfsrt_zarr_fold_options f = {.size = sizeof f, .read = &o, .skip = &skip, .n_skip = 1,
                                          .what = IPFSRT_ZARR_FOLD_SUMS | IPFSRT_ZARR_FOLD_EXTREMES};
            ipfsrt_zarr_groups months = {0, group_of, 3};
            assert_int_equal(ipfsrt_zarr_summarize_groups(ints, NULL, 0, &months, &f, &got, &err), IPFSRT_OK);
            assert_groups(&x64, group_of, 3, skip, &got);
            ipfsrt_zarr_summaries_free(&got);
        }
    ipfsrt_zarr_summaries got;
    ipfsrt_zarr_summaries_init(&got);
    size_t too_far[6] = {0, 0, 0, 3, 0, 0};
    ipfsrt_zarr_groups past = {0, too_far, 3}, last = {1, group_of, 3};
    assert_int_equal(ipfsrt_zarr_summarize_groups(ints, NULL, 0, &past, NULL, &got, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "position 3 is in group 3 of 3"));
    assert_int_equal(ipfsrt_zarr_summarize_groups(ints, NULL, 0, &last, NULL, &got, &err),
                     IPFSRT_EBAD_ARGUMENT); /* the last dimension */
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&x64);
    ipfsrt_zarr_node_free(ints);
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}

/* A store that lends what it reads: each answer in a buffer of its own,
 * counted, poisoned and freed at its last release, so a reader that decodes
 * lent bytes without holding them reads garbage (or, under ASan, freed memory). */
typedef struct lending {
    ipfsrt_zarr_store *inner;
    atomic_int holds, releases;
} lending;

typedef struct loan {
    lending *store;
    atomic_int refs;
    size_t len;
    uint8_t bytes[];
} loan;

static void loan_hold(void *owner) {
    loan *l = owner;
    atomic_fetch_add(&l->refs, 1);
    atomic_fetch_add(&l->store->holds, 1);
}

static void loan_drop(loan *l) {
    if (atomic_fetch_sub(&l->refs, 1) != 1) return;
    memset(l->bytes, 0xA5, l->len);
    free(l);
}

static void loan_release(void *owner) {
    loan *l = owner;
    atomic_fetch_add(&l->store->releases, 1);
    loan_drop(l);
}

typedef struct lend_call {
    lending *store;
    ipfsrt_range_fn fn;
    void *user;
} lend_call;

static ipfsrt_status lend_one(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    const lend_call *c = user;
    if (res->status != IPFSRT_OK) return c->fn(c->user, res, err);
    loan *l = malloc(sizeof *l + res->len + 1);
    assert_non_null(l);
    l->store = c->store;
    atomic_init(&l->refs, 1);
    l->len = res->len;
    memcpy(l->bytes, res->data, res->len);
    ipfsrt_range_result mine = *res;
    mine.data = l->bytes;
    mine.lent = (ipfsrt_lent){loan_hold, loan_release, l};
    ipfsrt_status st = c->fn(c->user, &mine, err);
    loan_drop(l); /* the store's own reference: gone once the callback returns */
    return st;
}

static ipfsrt_status lending_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                      ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    lend_call c = {ctx, fn, user};
    return ipfsrt_zarr_store_get_many(((lending *)ctx)->inner, requests, n, lend_one, &c, err);
}

static const ipfsrt_zarr_store_ops lending_ops = {.size = sizeof(ipfsrt_zarr_store_ops), .kind = "lending", .get_many = lending_get_many};

/* Decoding threads hold lent bytes instead of copying them, and release each
 * once: the values equal a read from the store that lends nothing, on any
 * thread count. */
static void test_read_lent(void **state) {
    (void)state;
    char *dir;
    ipfsrt_zarr_store *folder = folder_of_arrays(&dir), *s;
    ipfsrt_error err;
    lending ln = {.inner = folder};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &lending_ops, &ln, "lending://", &err), IPFSRT_OK);
    const char *paths[2] = {"g/arr", "g/f"};
    for (int p = 0; p < 2; p++) {
        ipfsrt_zarr_node *lent, *plain;
        assert_int_equal(ipfsrt_zarr_open(&lent, s, paths[p], &err), IPFSRT_OK);
        assert_int_equal(ipfsrt_zarr_open(&plain, folder, paths[p], &err), IPFSRT_OK);
        ipfsrt_ndslice part[2] = {{.has_start = true, .start = 1, .has_stop = true, .stop = 33, .step = 1}, {.step = -3}};
        ipfsrt_ndarray want, got;
        ipfsrt_ndarray_init(&want), ipfsrt_ndarray_init(&got);
        assert_int_equal(ipfsrt_zarr_read(plain, part, 2, &want, NULL, &err), IPFSRT_OK);
        for (unsigned threads = 1; threads <= 8; threads *= 2) {
            int held = atomic_load(&ln.holds);
            ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads};
            assert_int_equal(ipfsrt_zarr_read(lent, part, 2, &got, &o, &err), IPFSRT_OK);
            assert_int_equal(got.dtype, want.dtype);
            assert_memory_equal(got.data, want.data, ipfsrt_ndarray_size(&want) * want.itemsize);
            assert_true(atomic_load(&ln.holds) > held); /* the lent path ran */
            assert_int_equal(atomic_load(&ln.holds), atomic_load(&ln.releases));
        }
        ipfsrt_ndarray_free(&want), ipfsrt_ndarray_free(&got);
        ipfsrt_zarr_node_free(lent);
        ipfsrt_zarr_node_free(plain);
    }
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}


/* What a read in slabs was handed, checked against the read of everything. */
typedef struct slab_check {
    const ipfsrt_ndarray *all; /* the selection read whole */
    size_t next, handed, fail_at;
    bool slow;
} slab_check;

static ipfsrt_status check_slab(void *user, size_t start, size_t count, ipfsrt_ndarray *slab, ipfsrt_error *err) {
    slab_check *c = user;
    assert_int_equal(start, c->next);
    assert_int_equal(slab->shape[0], count);
    ipfsrt_ndslice rows[1] = {{.has_start = true, .start = (int64_t)start, .has_stop = true,
                               .stop = (int64_t)(start + count), .step = 1}};
    ipfsrt_ndarray want;
    ipfsrt_ndarray_init(&want);
    assert_int_equal(ipfsrt_ndarray_slice(&want, c->all, rows, 1, err), IPFSRT_OK);
    assert_true(same_bits(slab, &want));
    ipfsrt_ndarray_free(&want);
    ipfsrt_ndarray_free(slab); /* the slab is ours */
    c->next = start + count;
    if (++c->handed == c->fail_at) return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "enough at slab %zu", c->handed);
    if (c->slow) usleep(2000); /* the decoders run ahead, up to the window */
    return IPFSRT_OK;
}

/* Slabs at ends (n of them) of a selection, on 1, 3 and 8 threads with the
 * chunks arriving in three orders: each slab in turn, the same bits as the
 * read of everything. */
static void slab_cases(const ipfsrt_zarr_node *a, shuffling *sh, const ipfsrt_ndslice *part, int parts,
                       const size_t *ends, size_t n) {
    ipfsrt_error err;
    ipfsrt_ndarray all;
    ipfsrt_ndarray_init(&all);
    assert_int_equal(ipfsrt_zarr_read(a, part, parts, &all, NULL, &err), IPFSRT_OK);
    for (unsigned threads = 1; threads <= 8; threads = threads == 1 ? 3 : 8 + threads)
        for (unsigned seed = 1; seed <= 3; seed++) {
            sh->seed = seed;
            /* a window of two slabs: most chunks arrive before they may be decoded */
            ipfsrt_zarr_read_options o = {.size = sizeof o, .threads = threads, .slabs_ahead_bytes = 1};
            slab_check c = {.all = &all, .slow = seed == 2};
            assert_int_equal(ipfsrt_zarr_read_slabs(a, part, parts, ends, n, &o, check_slab, &c, &err), IPFSRT_OK);
            assert_int_equal(c.handed, n);
        }
    ipfsrt_ndarray_free(&all);
}

/* Reads in slabs: rows and columns, indexed first dimensions, chunks never
 * written; 12 MB of 1 MB chunks arriving out of order, more than the decoders
 * may queue, most beyond the window (queued anyway, still encoded); a failure
 * of the slab function ends the read with it; boundaries inside chunks and
 * reversed selections refused. */
static void test_read_slabs(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *folder = writable_folder(dir), *s;
    ipfsrt_error err;
    write_tenths(folder); /* 37 x 29 float32 in chunks of 5 x 4, rows 30.. never written */
    shuffling sh = {folder, 1};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &shuffling_ops, &sh, "shuffling://", &err), IPFSRT_OK);
    ipfsrt_zarr_node *f, *big;
    assert_int_equal(ipfsrt_zarr_open(&f, s, "g/f", &err), IPFSRT_OK);
    ipfsrt_ndslice rows[2] = {{.has_start = true, .start = 3, .has_stop = true, .stop = 36, .step = 1}, {.step = 3}};
    size_t row_ends[] = {2, 7, 17, 22, 33}; /* rows 5, 10, 20, 25: chunk boundaries */
    slab_cases(f, &sh, rows, 2, row_ends, 5);
    ipfsrt_ndslice row4[1] = {{.is_index = true, .start = 4}};
    size_t col_ends[] = {8, 16, 29};
    slab_cases(f, &sh, row4, 1, col_ends, 3);
    size_t inside[] = {3, 33};
    assert_int_equal(ipfsrt_zarr_read_slabs(f, rows, 2, inside, 2, NULL, check_slab, &(slab_check){0}, &err),
                     IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "inside a chunk"));
    ipfsrt_ndslice back[1] = {{.step = -1}};
    size_t whole[] = {37};
    assert_int_equal(ipfsrt_zarr_read_slabs(f, back, 1, whole, 1, NULL, check_slab, &(slab_check){0}, &err),
                     IPFSRT_EUNSUPPORTED);
    static const char zb[] = "{\"zarr_format\": 2, \"shape\": [12, 512, 512], \"chunks\": [1, 512, 512], \"dtype\": "
                             "\"<f4\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}";
    assert_int_equal(ipfsrt_zarr_create_array(&big, folder, "big", zb, strlen(zb), &err), IPFSRT_OK);
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    assert_int_equal(ipfsrt_ndarray_arange(&v, IPFSRT_DTYPE_FLOAT32, 0, 12 * 512 * 512, 1, &err), IPFSRT_OK);
    int64_t shape[3] = {12, 512, 512};
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &v, 3, shape, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_write(big, NULL, 0, &v, NULL, &err), IPFSRT_OK);
    ipfsrt_ndarray_free(&v);
    ipfsrt_zarr_node_free(big);
    assert_int_equal(ipfsrt_zarr_open(&big, s, "big", &err), IPFSRT_OK);
    size_t days[12];
    for (size_t i = 0; i < 12; i++) days[i] = i + 1;
    slab_cases(big, &sh, NULL, 0, days, 12);
    ipfsrt_ndarray all;
    ipfsrt_ndarray_init(&all);
    assert_int_equal(ipfsrt_zarr_read(big, NULL, 0, &all, NULL, &err), IPFSRT_OK);
    slab_check c = {.all = &all, .fail_at = 3};
    ipfsrt_zarr_read_options three = {.size = sizeof three, .threads = 3};
    assert_int_equal(ipfsrt_zarr_read_slabs(big, NULL, 0, days, 12, &three, check_slab, &c, &err), IPFSRT_ECANCELED);
    assert_string_equal(err.message, "enough at slab 3");
    assert_int_equal(c.handed, 3);
    ipfsrt_ndarray_free(&all);
    ipfsrt_zarr_node_free(big);
    ipfsrt_zarr_node_free(f);
    ipfsrt_zarr_store_free(s);
    ipfsrt_zarr_store_free(folder);
    remove_tree(dir);
}
/* Consolidated metadata serves members: an array whose .zarray is gone from
 * the store opens from .zmetadata alone. */
static void test_consolidated(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    static const char zmeta[] =
        "{\"zarr_consolidated_format\": 1, \"metadata\": {\".zgroup\": {\"zarr_format\": 2}, "
        "\"t/.zarray\": {\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<f8\", "
        "\"compressor\": null, \"fill_value\": \"NaN\", \"order\": \"C\", \"filters\": null}, "
        "\"t/.zattrs\": {\"units\": \"K\", \"_ARRAY_DIMENSIONS\": [\"time\"]}, \"sub/.zgroup\": {\"zarr_format\": 2}}}";
    assert_int_equal(ipfsrt_zarr_store_put(s, ".zmetadata", zmeta, strlen(zmeta), &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_put(s, ".zgroup", "{\"zarr_format\": 2}", 18, &err), IPFSRT_OK);
    ipfsrt_zarr_node *root, *t;
    assert_int_equal(ipfsrt_zarr_open(&root, s, "", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open_child(&t, root, "t", &err), IPFSRT_OK);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(t);
    assert_non_null(m);
    assert_string_equal(m->dimension_names[0], "time");
    ipfsrt_buf attrs;
    ipfsrt_buf_init(&attrs);
    assert_int_equal(ipfsrt_zarr_attributes(t, &attrs, &err), IPFSRT_OK);
    assert_int_equal(attrs.len, strlen("{\"units\":\"K\"}")); /* _ARRAY_DIMENSIONS became names */
    assert_memory_equal(attrs.data, "{\"units\":\"K\"}", attrs.len);
    ipfsrt_buf_free(&attrs);
    ipfsrt_ndarray out;
    ipfsrt_ndarray_init(&out);
    assert_int_equal(ipfsrt_zarr_read(t, NULL, 0, &out, NULL, &err), IPFSRT_OK); /* no chunk: all fill */
    assert_true(((const double *)(const void *)out.data)[2] != ((const double *)(const void *)out.data)[2]);
    ipfsrt_ndarray_free(&out);
    ipfsrt_zarr_node_free(t);
    ipfsrt_zarr_node *none;
    assert_int_equal(ipfsrt_zarr_open_child(&none, root, "absent", &err), IPFSRT_ENOT_FOUND);
    ipfsrt_zarr_node_free(root);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

/* Writing with the C API: a sharded v3 array created from its JSON, written in
 * two overlapping pieces, read back; attributes replaced; the group's
 * metadata consolidated inline. */
static void test_write_sharded(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    static const char meta[] =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10, 9], \"data_type\": \"float64\", "
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}}, "
        "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"NaN\", \"codecs\": [{\"name\": "
        "\"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 3], \"codecs\": [{\"name\": \"bytes\", "
        "\"configuration\": {\"endian\": \"big\"}}, {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}], "
        "\"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}], "
        "\"index_location\": \"start\"}}], \"attributes\": {}}";
    ipfsrt_zarr_node *a;
    assert_int_equal(ipfsrt_zarr_create_array(&a, s, "g/a", meta, strlen(meta), &err), IPFSRT_OK);
    ipfsrt_ndarray v, one, out;
    ipfsrt_ndarray_init(&v), ipfsrt_ndarray_init(&one), ipfsrt_ndarray_init(&out);
    assert_int_equal(ipfsrt_ndarray_arange(&v, IPFSRT_DTYPE_FLOAT64, 0, 90, 1, &err), IPFSRT_OK);
    int64_t shape[2] = {10, 9};
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &v, 2, shape, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_write(a, NULL, 0, &v, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_full(&one, IPFSRT_DTYPE_FLOAT64, 0, 0, NULL, -5, &err), IPFSRT_OK);
    ipfsrt_ndslice patch[2] = {{.has_start = true, .start = 3, .has_stop = true, .stop = 5, .step = 1}, {.step = 4}};
    assert_int_equal(ipfsrt_zarr_write(a, patch, 2, &one, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_read(a, NULL, 0, &out, NULL, &err), IPFSRT_OK);
    const double *x = (const double *)(const void *)out.data;
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 9; c++) {
            double want = (r == 3 || r == 4) && c % 4 == 0 ? -5 : r * 9 + c;
            if (x[r * 9 + c] != want) fail_msg("[%d, %d] = %g, not %g", r, c, x[r * 9 + c], want);
        }
    assert_int_equal(ipfsrt_zarr_set_attributes(a, "{\"units\": \"K\", \"big\": 12345678901234567890}", &err),
                     IPFSRT_OK);
    assert_int_not_equal(ipfsrt_zarr_set_attributes(a, "[1]", &err), IPFSRT_OK);
    assert_non_null(strstr(err.message, "g/a: attributes must be a JSON object"));
    assert_int_equal(ipfsrt_zarr_consolidate(s, "g", &err), IPFSRT_OK);
    ipfsrt_zarr_node *g, *again;
    assert_int_equal(ipfsrt_zarr_open(&g, s, "g", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open_child(&again, g, "a", &err), IPFSRT_OK);
    ipfsrt_buf attrs;
    ipfsrt_buf_init(&attrs);
    assert_int_equal(ipfsrt_zarr_attributes(again, &attrs, &err), IPFSRT_OK);
    ipfsrt_buf_append(&attrs, "", 1);
    assert_string_equal((const char *)attrs.data, "{\"units\":\"K\",\"big\":12345678901234567890}");
    ipfsrt_buf_free(&attrs);
    ipfsrt_zarr_node_free(again);
    ipfsrt_zarr_node_free(g);
    ipfsrt_ndarray_free(&v), ipfsrt_ndarray_free(&one), ipfsrt_ndarray_free(&out);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

/* Many more chunks than the encoders hold at once, on several threads: every
 * one stored (encoders that waited for room once took chunks past the last). */
static void test_write_many_chunks(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    /* 4,500 chunks: more than one batch of keys (4,096), the last batch partial */
    static const char meta[] = "{\"zarr_format\": 2, \"shape\": [9000], \"chunks\": [2], \"dtype\": \"<i4\", "
                               "\"compressor\": {\"id\": \"zstd\"}, \"fill_value\": -1, \"order\": \"C\", "
                               "\"filters\": null}";
    ipfsrt_zarr_node *a;
    assert_int_equal(ipfsrt_zarr_create_array(&a, s, "a", meta, strlen(meta), &err), IPFSRT_OK);
    ipfsrt_ndarray v, out;
    ipfsrt_ndarray_init(&v), ipfsrt_ndarray_init(&out);
    assert_int_equal(ipfsrt_ndarray_arange(&v, IPFSRT_DTYPE_INT32, 0, 9000, 1, &err), IPFSRT_OK);
    for (unsigned threads = 1; threads <= 4; threads *= 2) {
        ipfsrt_zarr_write_options opts = {.size = sizeof opts, .threads = threads};
        assert_int_equal(ipfsrt_zarr_write(a, NULL, 0, &v, &opts, &err), IPFSRT_OK);
        assert_int_equal(ipfsrt_zarr_read(a, NULL, 0, &out, NULL, &err), IPFSRT_OK);
        const int32_t *x = (const int32_t *)(const void *)out.data;
        for (int i = 0; i < 9000; i++)
            if (x[i] != i) fail_msg("threads %u: element %d is %d", threads, i, x[i]);
        ipfsrt_ndarray_free(&out);
        ipfsrt_ndarray_init(&out);
    }
    ipfsrt_ndarray_free(&v);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

/* Selections that end early in a chunk decode it only so far (zstd a block at
 * a time; zlib under shuffle and delta, which say how far their input is
 * needed): points, rows and columns, C and F order, equal to the elements
 * written. */
static void test_partial_chunks(void **state) {
    (void)state;
    enum { ROWS = 200, COLS = 400 }; /* 320,000 bytes per chunk: three zstd blocks */
    static const ipfsrt_ndslice cuts[][2] = {
        {{.is_index = true, .index = 0}, {.is_index = true, .index = 0}},
        {{.is_index = true, .index = 81}, {.is_index = true, .index = 370}},
        {{.is_index = true, .index = -1}, {.is_index = true, .index = -1}},
        {{.step = 1, .has_start = true, .start = 10, .has_stop = true, .stop = 20}, {.step = 1}},
        {{.step = 1}, {.is_index = true, .index = 5}},
        {{.step = 7, .has_stop = true, .stop = 120}, {.step = -9}},
    };
    static const struct {
        char order;
        const char *compressor, *filters;
    } forms[] = {
        {'C', "{\"id\": \"zstd\"}", "null"},
        {'F', "{\"id\": \"zstd\"}", "null"},
        {'C', "{\"id\": \"zlib\", \"level\": 1}", "[{\"id\": \"shuffle\", \"elementsize\": 4}]"},
        {'F', "{\"id\": \"zlib\", \"level\": 1}", "[{\"id\": \"shuffle\", \"elementsize\": 4}]"},
        {'C', "{\"id\": \"zlib\", \"level\": 1}",
         "[{\"id\": \"delta\", \"dtype\": \"<i4\"}, {\"id\": \"shuffle\", \"elementsize\": 4}]"},
    };
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    ipfsrt_ndarray flat, v, out, want, view;
    ipfsrt_ndarray_init(&flat), ipfsrt_ndarray_init(&v), ipfsrt_ndarray_init(&out);
    ipfsrt_ndarray_init(&want), ipfsrt_ndarray_init(&view);
    int64_t shape[2] = {ROWS, COLS};
    assert_int_equal(ipfsrt_ndarray_arange(&flat, IPFSRT_DTYPE_INT32, 0, ROWS * COLS, 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &flat, 2, shape, &err), IPFSRT_OK);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        char meta[400], name[16];
        snprintf(meta, sizeof meta, "{\"zarr_format\": 2, \"shape\": [%d, %d], \"chunks\": [%d, %d], "
                 "\"dtype\": \"<i4\", \"compressor\": %s, \"fill_value\": 0, "
                 "\"order\": \"%c\", \"filters\": %s}", ROWS, COLS, ROWS, COLS, forms[f].compressor,
                 forms[f].order, forms[f].filters);
        snprintf(name, sizeof name, "a%zu", f);
        ipfsrt_zarr_node *a;
        assert_int_equal(ipfsrt_zarr_create_array(&a, s, name, meta, strlen(meta), &err), IPFSRT_OK);
        assert_int_equal(ipfsrt_zarr_write(a, NULL, 0, &v, NULL, &err), IPFSRT_OK);
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            assert_int_equal(ipfsrt_ndarray_slice(&view, &v, cuts[k], 2, &err), IPFSRT_OK);
            assert_int_equal(ipfsrt_zarr_read(a, cuts[k], 2, &out, NULL, &err), IPFSRT_OK);
            assert_int_equal(ipfsrt_ndarray_copy(&want, &view, &err), IPFSRT_OK);
            assert_int_equal(out.ndim, want.ndim);
            if (memcmp(out.data, want.data, ipfsrt_ndarray_size(&want) * 4) != 0)
                fail_msg("%s, selection %zu differs", meta, k);
            ipfsrt_ndarray_free(&out), ipfsrt_ndarray_free(&want);
            ipfsrt_ndarray_init(&out), ipfsrt_ndarray_init(&want);
        }
        ipfsrt_zarr_node_free(a);
    }
    ipfsrt_ndarray_free(&view), ipfsrt_ndarray_free(&v), ipfsrt_ndarray_free(&flat);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

/* zlib data under shuffle must decode to exactly the chunk's bytes (shuffle
 * keeps the count): a few bytes more or fewer are refused, naming the chunk,
 * for whole reads and points alike. */
static void test_filtered_chunk_sizes(void **state) {
    (void)state;
    static const char meta[] = "{\"zarr_format\": 2, \"shape\": [1000], \"chunks\": [1000], \"dtype\": \"<i2\", "
                               "\"compressor\": {\"id\": \"zlib\"}, \"fill_value\": 0, \"order\": \"C\", "
                               "\"filters\": [{\"id\": \"shuffle\", \"elementsize\": 2}]}";
    char *dir = temp_dir();
    ipfsrt_zarr_store *s = writable_folder(dir);
    ipfsrt_error err;
    ipfsrt_zarr_node *a;
    assert_int_equal(ipfsrt_zarr_create_array(&a, s, "a", meta, strlen(meta), &err), IPFSRT_OK);
    ipfsrt_codec *zlib;
    assert_int_equal(ipfsrt_codec_new(&zlib, "zlib", NULL, 2, &err), IPFSRT_OK);
    static uint8_t raw[2004];
    ipfsrt_ndslice point = {.is_index = true, .index = 3};
    for (int extra = -4; extra <= 4; extra += 4) {
        ipfsrt_buf enc;
        ipfsrt_buf_init(&enc);
        assert_int_equal(ipfsrt_codec_encode(zlib, raw, (size_t)(2000 + extra), &enc, &err), IPFSRT_OK);
        assert_int_equal(ipfsrt_zarr_store_put(s, "a/0", enc.data, enc.len, &err), IPFSRT_OK);
        ipfsrt_buf_free(&enc);
        ipfsrt_ndarray out;
        ipfsrt_ndarray_init(&out);
        ipfsrt_status whole = ipfsrt_zarr_read(a, NULL, 0, &out, NULL, &err);
        ipfsrt_ndarray_free(&out);
        ipfsrt_status one = ipfsrt_zarr_read(a, &point, 1, &out, NULL, &err);
        ipfsrt_ndarray_free(&out);
        assert_int_equal(whole, extra ? IPFSRT_EBAD_CHUNK_DATA : IPFSRT_OK);
        assert_int_equal(one, whole);
        if (extra && !strstr(err.message, "chunk 0")) fail_msg("message: %s", err.message);
    }
    ipfsrt_codec_free(zlib);
    ipfsrt_zarr_node_free(a);
    ipfsrt_zarr_store_free(s);
    remove_tree(dir);
}

static ipfsrt_cid cid_of(const char *text) {
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)text,
                                    strlen(text), NULL),
                     IPFSRT_OK);
    return cid;
}

/* The CIDs a store is told: found by key after any order of telling, the
 * last told of a key counting, told again after a lookup too. */
static void test_known_cids(void **state) {
    (void)state;
    ipfsrt_zarr_known k;
    ipfsrt_zarr_known_init(&k);
    assert_null(ipfsrt_zarr_known_find(&k, "a"));
    char key[32], text[32];
    for (int i = 999; i >= 0; i--) {
        snprintf(key, sizeof key, "sst/%d.0", i);
        ipfsrt_cid c = cid_of(key);
        assert_int_equal(ipfsrt_zarr_known_add(&k, key, &c, NULL), IPFSRT_OK);
    }
    ipfsrt_cid first = cid_of("first"), second = cid_of("second"), third = cid_of("third");
    assert_int_equal(ipfsrt_zarr_known_add(&k, "sst/5.0", &first, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_known_add(&k, "sst/5.0", &second, NULL), IPFSRT_OK);
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "sst/%d.0", i);
        ipfsrt_cid want = i == 5 ? second : cid_of(key);
        const ipfsrt_cid *got = ipfsrt_zarr_known_find(&k, key);
        assert_non_null(got);
        assert_true(ipfsrt_cid_equal(got, &want));
    }
    assert_int_equal(k.count, 1000); /* each key once after a lookup */
    assert_int_equal(ipfsrt_zarr_known_add(&k, "sst/5.0", &third, NULL), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(ipfsrt_zarr_known_find(&k, "sst/5.0"), &third));
    snprintf(text, sizeof text, "sst/1000.0");
    assert_null(ipfsrt_zarr_known_find(&k, text));
    assert_null(ipfsrt_zarr_known_find(&k, "sst/5"));
    ipfsrt_zarr_known_free(&k);
}

/* Each kind of store by its own constructor: a folder (written), the same
 * packed into a CAR (read, verified), and the forms the others refuse. */
static void test_store_constructors(void **state) {
    (void)state;
    char *dir = temp_dir();
    ipfsrt_error err;
    ipfsrt_zarr_store *s;
    assert_int_equal(ipfsrt_zarr_store_new_folder(&s, dir, true, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_zarr_store_kind(s), "folder");
    assert_int_equal(ipfsrt_zarr_store_put(s, "g/.zgroup", "{\"zarr_format\": 2}", 18, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_put(s, "h/.zgroup", "{\"zarr_format\": 2}", 18, &err), IPFSRT_OK);
    ipfsrt_zarr_store_free(s);
    char car[96];
    snprintf(car, sizeof car, "%s.car", dir);
    ipfsrt_pack_options popts;
    ipfsrt_pack_options_init(&popts);
    popts.hidden = true;
    ipfsrt_cid root;
    assert_int_equal(ipfsrt_pack_to_car(dir, &popts, car, 1, &root, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_new_car(&s, car, "g", &err), IPFSRT_OK);
    assert_true(ipfsrt_zarr_store_verified(s));
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    assert_int_equal(ipfsrt_zarr_store_get(s, ".zgroup", &b, &err), IPFSRT_OK);
    assert_int_equal(b.len, 18);
    ipfsrt_buf_free(&b);
    ipfsrt_zarr_store_free(s);
    assert_int_equal(ipfsrt_zarr_store_new_ipfs(&s, NULL, "ipfs://bafy", &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_s3_zarr_store_new(&s, "http://127.0.0.1:1/x", NULL, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "s3://bucket"));
    assert_int_equal(ipfsrt_zarr_store_new_http(&s, "s3://bucket", NULL, &err), IPFSRT_EBAD_ARGUMENT);
    assert_null(s);
    remove(car);
    remove_tree(dir);
}

int main(void) {
    ipfsrt_s3_stores_enable(); /* as hosts linking the modules do */
    ipfsrt_refs_stores_enable();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_constructors), cmocka_unit_test(test_meta_accessors),
        cmocka_unit_test(test_bad_metadata), cmocka_unit_test(test_bad_v3_metadata),
        cmocka_unit_test(test_key_check),    cmocka_unit_test(test_folder_store),
        cmocka_unit_test(test_read_selections), cmocka_unit_test(test_read_many), cmocka_unit_test(test_summarize), cmocka_unit_test(test_locate_extremes), cmocka_unit_test(test_read_boxes), cmocka_unit_test(test_read_lent), cmocka_unit_test(test_summarize_along), cmocka_unit_test(test_weighted_sums), cmocka_unit_test(test_summarize_groups),
        cmocka_unit_test(test_read_slabs), cmocka_unit_test(test_consolidated),
        cmocka_unit_test(test_write_sharded),   cmocka_unit_test(test_write_many_chunks),
        cmocka_unit_test(test_partial_chunks), cmocka_unit_test(test_filtered_chunk_sizes),
        cmocka_unit_test(test_known_cids),
        cmocka_unit_test(test_exact_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
