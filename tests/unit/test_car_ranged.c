/* A CAR read by ranges (ipfsrt_car_ranged_*) through a range reader of the
 * test's own over bytes in memory, no S3 and no Zarr: the fixture's files
 * read through it as a block source (CARv1: the index made once, kept in the
 * cache folder, read from there next time; CARv2: its own index), how many
 * reads it costs, and every byte of the CAR changed in turn: an error or the
 * right bytes, never other bytes. */
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

#define ROOT "bafybeihjcinxwvt7yho4ukgcftiwrpwqd5mvc4ibnycf4crsgw2fh5ykju" /* ipfs-car's, for the fixture */

typedef struct memory_object {
    const uint8_t *data;
    size_t len;
    unsigned reads, streams;
    bool can_stream;
} memory_object;

static ipfsrt_status memory_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                                     void *user, ipfsrt_error *err) {
    memory_object *o = ctx;
    for (size_t i = 0; i < n; i++) {
        const ipfsrt_range_request *r = &requests[i];
        uint64_t from = r->from_end ? (r->length < o->len ? o->len - r->length : 0) : r->offset;
        if (from > o->len) from = o->len;
        uint64_t len = r->from_end || r->length > o->len - from ? o->len - from : r->length;
        ipfsrt_range_result res = {.index = i, .key = r->key, .status = IPFSRT_OK, .data = o->data + from,
                                   .len = (size_t)len, .object_size = o->len, .etag = "\"v1\""};
        ipfsrt_error_clear(&res.error);
        o->reads++;
        ipfsrt_status st = fn(user, &res, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static ipfsrt_status memory_stream(void *ctx, const char *key, ipfsrt_range_sink_fn sink, void *user,
                                   ipfsrt_error *err) {
    (void)key;
    memory_object *o = ctx;
    o->streams++;
    return sink(user, o->data, o->len, err);
}

static ipfsrt_range_reader reader_of(memory_object *o) {
    return (ipfsrt_range_reader){sizeof(ipfsrt_range_reader), o, memory_get_many, o->can_stream ? memory_stream : NULL, "memory://test"};
}

static ipfsrt_status append_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    ipfsrt_buf_append(user, data, len);
    return IPFSRT_OK;
}

/* hello.txt through the ranged CAR as a block source: its bytes, or why not. */
static ipfsrt_status read_hello(ipfsrt_car_ranged *car, ipfsrt_buf *out, ipfsrt_error *err) {
    ipfsrt_blocksource src;
    ipfsrt_car_ranged_blocksource(&src, car);
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&src, ROOT "/hello.txt", NULL, &info, err);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(&src, &info.cid, 0, UINT64_MAX, append_bytes, out, err);
    return st;
}

static char cache_dir[64];

static int make_cache(void **state) {
    (void)state;
    strcpy(cache_dir, "/tmp/ipfsrt-ranged-XXXXXX");
    if (!mkdtemp(cache_dir)) return -1;
    return setenv("IPFSRT_CACHE_DIR", cache_dir, 1);
}

static int remove_cache(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_v1_index_made_once(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = read_file(fixture_path("ipfs-car-small.car"), &len);
    for (int stream = 0; stream < 2; stream++) {
        memory_object o = {bytes, len, 0, 0, stream == 1};
        ipfsrt_range_reader reader = reader_of(&o);
        ipfsrt_error err;
        for (int pass = 0; pass < 2; pass++) {
            ipfsrt_car_ranged *car;
            unsigned before = o.reads;
            assert_int_equal(ipfsrt_car_ranged_new(&car, &reader, stream ? "streamed.car" : "ranged.car", &err),
                             IPFSRT_OK);
            char cid[IPFSRT_CID_STR_MAX];
            assert_string_equal(ipfsrt_cid_to_string(ipfsrt_car_ranged_root(car), cid), ROOT);
            /* the head, then (first time only) the whole CAR: streamed, or read by ranges */
            assert_int_equal(o.streams, (unsigned)stream);
            assert_int_equal(o.reads - before, pass == 0 && !stream ? 2u : 1u);
            ipfsrt_buf out;
            ipfsrt_buf_init(&out);
            assert_int_equal(read_hello(car, &out, &err), IPFSRT_OK);
            assert_int_equal(out.len, 12);
            assert_memory_equal(out.data, "hello world\n", 12);
            ipfsrt_buf_free(&out);
            ipfsrt_car_ranged_free(car);
        }
    }
    free(bytes);
}

typedef struct got_blocks {
    size_t ok, unavailable;
} got_blocks;

static ipfsrt_status count_block(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    (void)err;
    got_blocks *g = user;
    assert_non_null(r->cid);
    if (r->status == IPFSRT_OK) {
        assert_int_equal(ipfsrt_cid_verify(r->cid, r->data, r->len, NULL), IPFSRT_OK);
        g->ok++;
    } else {
        assert_int_equal(r->status, IPFSRT_EUNAVAILABLE);
        assert_non_null(strstr(r->error.message, "does not hold this block"));
        g->unavailable++;
    }
    return IPFSRT_OK;
}

/* A CARv2 packed here: its index is read, nothing is made; blocks in one set of reads. */
static void test_v2_many_blocks(void **state) {
    (void)state;
    char dir[] = "/tmp/ipfsrt-ranged-tree-XXXXXX", car_path[64], file[96];
    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/a.txt", dir);
    write_file(file, (const uint8_t *)"first file\n", 11);
    snprintf(file, sizeof file, "%s/b.txt", dir);
    write_file(file, (const uint8_t *)"second file\n", 12);
    snprintf(car_path, sizeof car_path, "%s.car", dir);
    ipfsrt_pack_options popts;
    ipfsrt_error err;
    ipfsrt_cid root;
    assert_int_equal(ipfsrt_pack_preset("ipfs-car", &popts, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_pack_to_car(dir, &popts, car_path, 2, &root, &err), IPFSRT_OK);
    size_t len;
    uint8_t *bytes = read_file(car_path, &len);
    memory_object o = {bytes, len, 0, 0, false};
    ipfsrt_range_reader reader = reader_of(&o);
    ipfsrt_car_ranged *car;
    assert_int_equal(ipfsrt_car_ranged_new(&car, &reader, "v2.car", &err), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(ipfsrt_car_ranged_root(car), &root));
    assert_int_equal(o.reads, 2); /* the head, the index */
    ipfsrt_blocksource src;
    ipfsrt_car_ranged_blocksource(&src, car);
    ipfsrt_cid cids[3] = {root};
    ipfsrt_unixfs_node_info info;
    char path[128];
    char text[IPFSRT_CID_STR_MAX];
    snprintf(path, sizeof path, "%s/a.txt", ipfsrt_cid_to_string(&root, text));
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_OK);
    cids[1] = info.cid;
    assert_int_equal(ipfsrt_cid_parse(&cids[2], "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4", 59, NULL,
                                      &err), IPFSRT_OK); /* hello world\n: not in this CAR */
    got_blocks g = {0, 0};
    unsigned before = o.reads;
    assert_int_equal(ipfsrt_car_ranged_get_many(car, cids, 3, count_block, &g, &err), IPFSRT_OK);
    assert_int_equal(g.ok, 2);
    assert_int_equal(g.unavailable, 1);
    assert_int_equal(o.reads - before, 2); /* one per block the CAR holds */
    ipfsrt_car_ranged_free(car);
    free(bytes);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, car_path);
    assert_int_equal(system(cmd), 0);
}

/* Every byte changed in turn (the index made afresh each time): opening or
 * reading fails, or hello.txt reads right. */
static void test_every_byte(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = read_file(fixture_path("ipfs-car-small.car"), &len);
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    size_t caught = 0;
    for (size_t at = 0; at < len; at++) {
        memcpy(bad, bytes, len);
        bad[at] ^= 0x20;
        memory_object o = {bad, len, 0, 0, true};
        ipfsrt_range_reader reader = reader_of(&o);
        char key[32];
        snprintf(key, sizeof key, "bad-%zu.car", at); /* a cache entry of its own */
        ipfsrt_car_ranged *car = NULL;
        ipfsrt_error err;
        ipfsrt_buf out;
        ipfsrt_buf_init(&out);
        ipfsrt_status st = ipfsrt_car_ranged_new(&car, &reader, key, &err);
        if (st == IPFSRT_OK) st = read_hello(car, &out, &err);
        if (st == IPFSRT_OK) {
            assert_int_equal(out.len, 12);
            assert_memory_equal(out.data, "hello world\n", 12);
        } else {
            caught++;
        }
        ipfsrt_buf_free(&out);
        ipfsrt_car_ranged_free(car);
    }
    assert_true(caught > len / 2); /* most bytes matter */
    free(bad);
    free(bytes);
}

int main(void) {
    ipfsrt_s3_stores_enable(); /* as a host linking libipfsrt-s3 does */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v1_index_made_once),
        cmocka_unit_test(test_v2_many_blocks),
        cmocka_unit_test(test_every_byte),
    };
    return cmocka_run_group_tests(tests, make_cache, remove_cache);
}
