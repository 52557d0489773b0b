#include <cJSON.h>
#include <unistd.h>

#include "base/base_internal.h" /* little-endian helpers for patching CARv2 headers */
#include "testutil.h"

/* ------------------------------------------------ expected blocks (by @ipld/car) */

typedef struct expected {
    size_t count;
    ipfsrt_cid cids[32];
    uint8_t *data[32];
    size_t len[32];
    size_t root_count;
    ipfsrt_cid roots[4];
} expected;

static void load_expected(const char *fixture, expected *e) {
    size_t n;
    uint8_t *text = read_file(fixture_path("expected.json"), &n);
    cJSON *all = cJSON_ParseWithLength((const char *)text, n);
    assert_non_null(all);
    cJSON *fx = cJSON_GetObjectItemCaseSensitive(all, fixture);
    assert_non_null(fx);
    memset(e, 0, sizeof *e);
    cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(fx, "roots")) {
        assert_int_equal(ipfsrt_cid_parse(&e->roots[e->root_count++], it->valuestring,
                                          strlen(it->valuestring), NULL, NULL),
                         IPFSRT_OK);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(fx, "blocks")) {
        const char *cid = cJSON_GetObjectItemCaseSensitive(it, "cid")->valuestring;
        const char *b64 = cJSON_GetObjectItemCaseSensitive(it, "bytes")->valuestring;
        size_t i = e->count++;
        assert_true(i < 32);
        assert_int_equal(ipfsrt_cid_parse(&e->cids[i], cid, strlen(cid), NULL, NULL), IPFSRT_OK);
        e->data[i] = malloc(strlen(b64) + 1);
        assert_int_equal(ipfsrt_base_decode(IPFSRT_BASE64PAD, b64, strlen(b64), e->data[i],
                                            strlen(b64) + 1, &e->len[i], NULL),
                         IPFSRT_OK);
    }
    cJSON_Delete(all);
    free(text);
}

static void free_expected(expected *e) {
    for (size_t i = 0; i < e->count; i++) free(e->data[i]);
}

static void assert_blocks_equal(const collector *c, const expected *e) {
    assert_int_equal(c->count, e->count);
    for (size_t i = 0; i < e->count; i++) {
        assert_true(ipfsrt_cid_equal(&c->blocks[i].cid, &e->cids[i]));
        assert_int_equal(c->blocks[i].len, e->len[i]);
        assert_memory_equal(c->blocks[i].data, e->data[i], e->len[i]);
    }
}

/* Blocks large enough to span many slices, so that they are hashed as they stream. */
static uint8_t *make_big_car(size_t *len, collector *blocks) {
    const char *path = tmp_path("big.car");
    ipfsrt_car_writer *w;
    ipfsrt_cid none;
    assert_int_equal(ipfsrt_car_writer_new(&w, path, &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .roots = &none}, NULL), IPFSRT_OK);
    static const size_t sizes[] = {70000, 1, 300000, 0, 5000, 1u << 20};
    for (size_t i = 0; i < 6; i++) {
        uint8_t *data = malloc(sizes[i] + 1);
        fill_random(data, sizes[i], i + 100);
        ipfsrt_car_block b = {.data = data, .len = sizes[i]};
        assert_int_equal(ipfsrt_cid_sum(&b.cid, 1, IPFSRT_CODEC_RAW,
                                        i == 2 ? IPFSRT_MH_SHA2_512 : IPFSRT_MH_SHA2_256, data,
                                        sizes[i], NULL),
                         IPFSRT_OK);
        assert_int_equal(ipfsrt_car_writer_put(w, &b.cid, data, sizes[i], NULL), IPFSRT_OK);
        collect(blocks, &b, NULL);
        free(data);
    }
    assert_int_equal(ipfsrt_car_writer_finish(w, NULL), IPFSRT_OK);
    ipfsrt_car_writer_free(w);
    return read_file(path, len);
}

static ipfsrt_status push_all(const uint8_t *buf, size_t len, size_t slice,
                              const ipfsrt_car_options *opts, collector *c, ipfsrt_error *err,
                              ipfsrt_car_reader **keep) {
    ipfsrt_car_reader *r;
    assert_int_equal(ipfsrt_car_reader_new(&r, opts, collect, c, NULL), IPFSRT_OK);
    ipfsrt_status st = IPFSRT_OK;
    for (size_t off = 0; off < len && st == IPFSRT_OK; off += slice) {
        size_t n = len - off < slice ? len - off : slice;
        /* each slice in its own exact allocation, so ASan catches reads past it */
        uint8_t *copy = malloc(n);
        memcpy(copy, buf + off, n);
        st = ipfsrt_car_reader_feed(r, copy, n, err);
        free(copy);
    }
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_finish(r, err);
    if (keep)
        *keep = r;
    else
        ipfsrt_car_reader_free(r);
    return st;
}

static const char *fixtures[] = {"ipld-car-mixed.car", "ipfs-car-small.car"};

static void test_fixtures_push(void **state) {
    (void)state;
    for (size_t f = 0; f < 2; f++) {
        expected e;
        load_expected(fixtures[f], &e);
        size_t len;
        uint8_t *buf = read_file(fixture_path(fixtures[f]), &len);
        size_t slices[] = {1, 2, 7, 64, 4096, len};
        for (size_t s = 0; s < 6; s++) {
            collector c = {0};
            ipfsrt_car_reader *r;
            ipfsrt_error err;
            ipfsrt_status st = push_all(buf, len, slices[s], NULL, &c, &err, &r);
            if (st != IPFSRT_OK) fail_msg("%s slice %zu: %s", fixtures[f], slices[s], err.message);
            assert_blocks_equal(&c, &e);
            const ipfsrt_car_header *h = ipfsrt_car_reader_header(r);
            assert_non_null(h);
            assert_int_equal(h->version, 1);
            assert_int_equal(h->root_count, e.root_count);
            for (size_t i = 0; i < e.root_count; i++)
                assert_true(ipfsrt_cid_equal(&h->roots[i], &e.roots[i]));
            assert_int_equal(ipfsrt_car_reader_offset(r), len);
            ipfsrt_car_reader_free(r);
            collector_free(&c);
        }
        free(buf);
        free_expected(&e);
    }
}

static void test_fixtures_file(void **state) {
    (void)state;
    for (size_t f = 0; f < 2; f++) {
        expected e;
        load_expected(fixtures[f], &e);
        ipfsrt_car_file *car;
        ipfsrt_error err;
        assert_int_equal(ipfsrt_car_file_new(&car, fixture_path(fixtures[f]), NULL, &err),
                         IPFSRT_OK);
        assert_string_equal(ipfsrt_car_file_index_source(car), "scan");
        const ipfsrt_car_header *h = ipfsrt_car_file_header(car);
        assert_int_equal(h->root_count, e.root_count);
        uint64_t cursor = 0;
        size_t i = 0;
        for (;;) {
            ipfsrt_car_block b;
            bool done;
            assert_int_equal(ipfsrt_car_file_next(car, &cursor, &b, &done, &err), IPFSRT_OK);
            if (done) break;
            assert_true(ipfsrt_cid_equal(&b.cid, &e.cids[i]));
            assert_int_equal(b.len, e.len[i]);
            assert_memory_equal(b.data, e.data[i], b.len);
            i++;
        }
        assert_int_equal(i, e.count);
        for (i = 0; i < e.count; i++) {
            const uint8_t *data;
            size_t len;
            assert_true(ipfsrt_car_file_has(car, &e.cids[i]));
            assert_int_equal(ipfsrt_car_file_get(car, &e.cids[i], &data, &len, &err), IPFSRT_OK);
            assert_int_equal(len, e.len[i]);
            assert_memory_equal(data, e.data[i], len);
        }
        ipfsrt_cid absent;
        ipfsrt_cid_sum(&absent, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)"no", 2,
                       NULL);
        const uint8_t *data;
        size_t len;
        assert_false(ipfsrt_car_file_has(car, &absent));
        assert_int_equal(ipfsrt_car_file_get(car, &absent, &data, &len, &err), IPFSRT_ENOT_FOUND);
        assert_non_null(strstr(err.message, "bafkrei"));
        /* identity CIDs carry their own bytes */
        ipfsrt_cid id;
        ipfsrt_cid_parse(&id, "bafkqaaa", 8, NULL, NULL);
        assert_int_equal(ipfsrt_car_file_get(car, &id, &data, &len, NULL), IPFSRT_OK);
        assert_int_equal(len, 0);
        ipfsrt_car_file_free(car);
        ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
        ipfsrt_car_options tiny = {.size = sizeof tiny, .slice_size = 16};
        assert_int_equal(ipfsrt_car_verify_file(fixture_path(fixtures[f]), &tiny, NULL, NULL, &counts, &err),
                         IPFSRT_OK);
        assert_int_equal(counts.blocks, e.count);
        free_expected(&e);
    }
}

/* The CAR spec's vector: one raw "hello world" block that is also the root. */
static void test_streamed_hashing(void **state) {
    (void)state;
    collector want = {0};
    size_t len;
    uint8_t *buf = make_big_car(&len, &want);
    size_t slices[] = {1000, 4096, 16384, 65536, len};
    for (size_t s = 0; s < 5; s++) {
        for (int verify_only = 0; verify_only <= 1; verify_only++) {
            ipfsrt_car_options opts = {.size = sizeof opts, .verify_only = verify_only};
            collector got = {0};
            ipfsrt_error err;
            assert_int_equal(push_all(buf, len, slices[s], &opts, &got, &err, NULL), IPFSRT_OK);
            assert_int_equal(got.count, want.count);
            for (size_t i = 0; i < got.count; i++) {
                assert_true(ipfsrt_cid_equal(&got.blocks[i].cid, &want.blocks[i].cid));
                assert_int_equal(got.blocks[i].len, want.blocks[i].len);
                if (got.blocks[i].data)
                    assert_memory_equal(got.blocks[i].data, want.blocks[i].data, got.blocks[i].len);
                else /* only a verify_only reader drops bytes, and only of streamed blocks */
                    assert_true(verify_only && got.blocks[i].len > slices[s] - 200);
            }
            uint64_t big_offset = got.blocks[5].offset;
            collector_free(&got);
            /* a flipped byte deep inside the 1 MiB block is caught in every mode */
            buf[len - 1000] ^= 0x40;
            assert_int_equal(push_all(buf, len, slices[s], &opts, &got, &err, NULL),
                             IPFSRT_EHASH_MISMATCH);
            char s_cid[IPFSRT_CID_STR_MAX];
            assert_string_equal(err.cid, ipfsrt_cid_to_string(&want.blocks[5].cid, s_cid));
            assert_int_equal(err.offset, (int64_t)big_offset);
            assert_int_equal(got.count, 5);
            buf[len - 1000] ^= 0x40;
            collector_free(&got);
        }
    }
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    ipfsrt_car_options opts = {.size = sizeof opts, .verify_only = true, .slice_size = 16384};
    assert_int_equal(ipfsrt_car_verify_buffer(buf, len, &opts, NULL, NULL, &counts, NULL), IPFSRT_OK);
    assert_int_equal(counts.blocks, 6);
    assert_int_equal(counts.bytes, 70000 + 1 + 300000 + 5000 + (1u << 20));
    free(buf);
    collector_free(&want);
}

static void test_spec_vector(void **state) {
    (void)state;
    uint8_t want[128];
    size_t n = hex2bin("3aa265726f6f747381d82a58250001551220b94d27b9934d3e08a52e52d7da7dabfac484efe"
                       "37a5380ee9088f7ace2efcde96776657273696f6e01"
                       "2f01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
                       "68656c6c6f20776f726c64",
                       want, sizeof want);
    assert_int_equal(n, 107);
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)"hello world", 11,
                   NULL);
    ipfsrt_car_writer *w;
    assert_int_equal(ipfsrt_car_writer_new(&w, tmp_path("hello.car"), &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = 1, .roots = &cid, .root_count = 1}, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_car_writer_put(w, &cid, (const uint8_t *)"hello world", 11, NULL),
                     IPFSRT_OK);
    assert_int_equal(ipfsrt_car_writer_put(w, &cid, (const uint8_t *)"hello world", 11, NULL),
                     IPFSRT_OK); /* written once */
    assert_int_equal(ipfsrt_car_writer_finish(w, NULL), IPFSRT_OK);
    ipfsrt_car_writer_free(w);
    size_t len;
    uint8_t *got = read_file(tmp_path("hello.car"), &len);
    assert_int_equal(len, n);
    assert_memory_equal(got, want, n);
    free(got);
}

static ipfsrt_status push_hex(const char *hex, const ipfsrt_car_options *opts, ipfsrt_error *err,
                              size_t *blocks) {
    uint8_t buf[512];
    size_t n = hex2bin(hex, buf, sizeof buf);
    collector c = {0};
    ipfsrt_status st = push_all(buf, n, n ? n : 1, opts, &c, err, NULL);
    if (blocks) *blocks = c.count;
    collector_free(&c);
    return st;
}

#define HEADER_HELLO                                                                              \
    "3aa265726f6f747381d82a58250001551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ac" \
    "e2efcde96776657273696f6e01"
#define SECTION_HELLO                                                                             \
    "2f01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde968656c6c6f20776f72" \
    "6c64"

static void test_errors(void **state) {
    (void)state;
    ipfsrt_error err;
    size_t blocks;
    assert_int_equal(push_hex(HEADER_HELLO SECTION_HELLO, NULL, &err, &blocks), IPFSRT_OK);
    assert_int_equal(blocks, 1);
    /* header that is not DAG-CBOR / not the right shape */
    assert_int_equal(push_hex("03ffffff", NULL, &err, NULL), IPFSRT_EBAD_CAR_HEADER);
    assert_int_equal(push_hex("0aa16776657273696f6e01", NULL, &err, NULL), IPFSRT_EBAD_CAR_HEADER);
    assert_int_equal(push_hex("00", NULL, &err, NULL), IPFSRT_EBAD_CAR_HEADER);
    /* {roots: [], version: 3} */
    assert_int_equal(push_hex("11a265726f6f7473806776657273696f6e03", NULL, &err, NULL),
                     IPFSRT_EBAD_CAR_VERSION);
    /* zero roots are accepted (ipfs-car writes them to stdout) */
    assert_int_equal(push_hex("11a265726f6f7473806776657273696f6e01", NULL, &err, &blocks),
                     IPFSRT_OK);
    /* hash mismatch names the CID and the section offset (59) */
    assert_int_equal(push_hex(HEADER_HELLO "2f01551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380"
                                           "ee9088f7ace2efcde968656c6c6f20776f726c65",
                              NULL, &err, &blocks),
                     IPFSRT_EHASH_MISMATCH);
    assert_int_equal(blocks, 0);
    assert_string_equal(err.cid, "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e");
    assert_int_equal(err.offset, 59);
    assert_non_null(strstr(err.message, "byte offset 59"));
    assert_non_null(strstr(err.message, err.cid));
    /* malformed CID in a section (version 2) */
    assert_int_equal(push_hex(HEADER_HELLO "2f02551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380"
                                           "ee9088f7ace2efcde968656c6c6f20776f726c64",
                              NULL, &err, NULL),
                     IPFSRT_EBAD_CID);
    assert_int_equal(err.offset, 59);
    /* truncated inside a section, inside a length, inside the header */
    assert_int_equal(push_hex(HEADER_HELLO "2f0155", NULL, &err, NULL), IPFSRT_ETRUNCATED);
    assert_int_equal(push_hex(HEADER_HELLO "80", NULL, &err, NULL), IPFSRT_ETRUNCATED);
    assert_int_equal(push_hex("3aa265", NULL, &err, NULL), IPFSRT_ETRUNCATED);
    assert_int_equal(push_hex("", NULL, &err, NULL), IPFSRT_ETRUNCATED);
    /* trailing garbage: zero padding after the last block */
    assert_int_equal(push_hex(HEADER_HELLO SECTION_HELLO "0000", NULL, &err, &blocks),
                     IPFSRT_ETRAILING_DATA);
    assert_int_equal(blocks, 1);
    /* non-minimal section length */
    assert_int_equal(push_hex(HEADER_HELLO "af00", NULL, &err, NULL), IPFSRT_EBAD_VARINT);
    /* limits */
    ipfsrt_car_options small = {.size = sizeof small, .max_block_size = 10};
    assert_int_equal(push_hex(HEADER_HELLO SECTION_HELLO, &small, &err, NULL), IPFSRT_ETOO_LARGE);
    assert_non_null(strstr(err.message, "bafkrei"));
    assert_int_equal(push_hex(HEADER_HELLO "ffffff7f", NULL, &err, NULL), IPFSRT_ETOO_LARGE);
    ipfsrt_car_options tiny_header = {.size = sizeof tiny_header, .max_header_size = 16};
    assert_int_equal(push_hex(HEADER_HELLO, &tiny_header, &err, NULL), IPFSRT_ETOO_LARGE);
}

static ipfsrt_status stop_at_first(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    (void)b;
    (*(int *)user)++;
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "enough");
}

static void test_cancel_and_sticky_failure(void **state) {
    (void)state;
    uint8_t buf[256];
    size_t n = hex2bin(HEADER_HELLO SECTION_HELLO SECTION_HELLO, buf, sizeof buf);
    int calls = 0;
    ipfsrt_car_reader *r;
    assert_int_equal(ipfsrt_car_reader_new(&r, NULL, stop_at_first, &calls, NULL), IPFSRT_OK);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_car_reader_feed(r, buf, n, &err), IPFSRT_ECANCELED);
    assert_int_equal(calls, 1);
    assert_int_equal(ipfsrt_car_reader_feed(r, buf, n, &err), IPFSRT_ECANCELED);
    assert_int_equal(ipfsrt_car_reader_finish(r, &err), IPFSRT_ECANCELED);
    assert_int_equal(calls, 1);
    ipfsrt_car_reader_free(r);
}

/* Flip every byte of a CAR in turn: reading must fail, or yield exactly the
 * original block bytes under the original multihashes. */
static void check_corrupt(const uint8_t *buf, size_t len, const expected *e, size_t *failures) {
    collector c = {0};
    ipfsrt_error err;
    ipfsrt_status st = push_all(buf, len, len, NULL, &c, &err, NULL);
    if (st != IPFSRT_OK) {
        (*failures)++;
        assert_true(strlen(err.message) > 0);
        for (size_t i = 0; i < c.count; i++) { /* what came before the failure is still right */
            assert_int_equal(c.blocks[i].len, e->len[i]);
            assert_memory_equal(c.blocks[i].data, e->data[i], e->len[i]);
        }
    } else {
        assert_int_equal(c.count, e->count);
        for (size_t i = 0; i < c.count; i++) {
            size_t la, lb;
            const uint8_t *a = ipfsrt_cid_multihash(&c.blocks[i].cid, &la);
            const uint8_t *b = ipfsrt_cid_multihash(&e->cids[i], &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
            assert_int_equal(c.blocks[i].len, e->len[i]);
            assert_memory_equal(c.blocks[i].data, e->data[i], e->len[i]);
        }
    }
    collector_free(&c);

    write_file(tmp_path("corrupt.car"), buf, len);
    ipfsrt_car_file *car;
    if (ipfsrt_car_file_new(&car, tmp_path("corrupt.car"), NULL, &err) != IPFSRT_OK) return;
    uint64_t cursor = 0;
    for (size_t i = 0;; i++) {
        ipfsrt_car_block b;
        bool done;
        if (ipfsrt_car_file_next(car, &cursor, &b, &done, &err) != IPFSRT_OK || done) break;
        assert_true(i < e->count);
        assert_int_equal(b.len, e->len[i]);
        assert_memory_equal(b.data, e->data[i], b.len);
    }
    for (size_t i = 0; i < e->count; i++) {
        const uint8_t *data;
        size_t n;
        if (ipfsrt_car_file_get(car, &e->cids[i], &data, &n, &err) == IPFSRT_OK) {
            assert_int_equal(n, e->len[i]);
            assert_memory_equal(data, e->data[i], n);
        }
    }
    ipfsrt_car_file_free(car);
}

static void test_corruption(void **state) {
    (void)state;
    expected e;
    load_expected("ipld-car-mixed.car", &e);
    size_t len;
    uint8_t *orig = read_file(fixture_path("ipld-car-mixed.car"), &len);
    uint8_t *buf = malloc(len);
    size_t failures = 0;
    for (size_t i = 0; i < len; i++) {
        memcpy(buf, orig, len);
        buf[i] ^= 0x01;
        check_corrupt(buf, len, &e, &failures);
        buf[i] = orig[i] ^ 0xff;
        check_corrupt(buf, len, &e, &failures);
    }
    /* nearly every flip lands in hashed bytes, a CID or a length */
    assert_true(failures > len);
    free(buf);
    free(orig);
    free_expected(&e);
}

static void write_v2(const char *path, const expected *e) {
    ipfsrt_car_writer *w;
    assert_int_equal(ipfsrt_car_writer_new(&w, path, &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = 2, .roots = e->roots, .root_count = e->root_count}, NULL), IPFSRT_OK);
    for (size_t i = 0; i < e->count; i++)
        assert_int_equal(ipfsrt_car_writer_put(w, &e->cids[i], e->data[i], e->len[i], NULL),
                         IPFSRT_OK);
    assert_int_equal(ipfsrt_car_writer_finish(w, NULL), IPFSRT_OK);
    ipfsrt_car_writer_free(w);
}

/* The index entry (digest | offset) for a CID, found by its digest. */
static uint8_t *find_entry(uint8_t *index, size_t len, const ipfsrt_cid *cid) {
    const uint8_t *digest = cid->bytes + cid->digest_offset;
    for (size_t i = 0; i + cid->digest_len + 8 <= len; i++)
        if (memcmp(index + i, digest, cid->digest_len) == 0) return index + i;
    fail_msg("digest not in the index");
    return NULL;
}

/* Every block of e read from car, right. */
static void reads_every_block(ipfsrt_car_file *car, const expected *e) {
    ipfsrt_error err;
    for (size_t i = 0; i < e->count; i++) {
        const uint8_t *data;
        size_t n;
        assert_int_equal(ipfsrt_car_file_get(car, &e->cids[i], &data, &n, &err), IPFSRT_OK);
        assert_int_equal(n, e->len[i]);
        assert_memory_equal(data, e->data[i], n);
    }
}

/* A CARv2's header changed: an unknown characteristic, data past the end,
 * data ending inside its last section. */
static void check_header_errors(const uint8_t *buf, size_t len, uint64_t data_size) {
    uint8_t *lying = malloc(len);
    assert_non_null(lying);
    ipfsrt_car_file *car;
    ipfsrt_error err;
    memcpy(lying, buf, len);
    lying[12] = 1; /* unknown characteristic */
    write_file(tmp_path("badchar.car"), lying, len);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("badchar.car"), NULL, &err),
                     IPFSRT_EBAD_CAR_HEADER);
    memcpy(lying, buf, len);
    ipfsrt_put_le64(lying + 35, len); /* data runs past the end */
    write_file(tmp_path("baddata.car"), lying, len);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("baddata.car"), NULL, &err),
                     IPFSRT_ETRUNCATED);
    memcpy(lying, buf, len);
    ipfsrt_put_le64(lying + 35, data_size - 3); /* data ends inside the last section */
    write_file(tmp_path("shortdata.car"), lying, len);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("shortdata.car"), NULL, &err),
                     IPFSRT_OK); /* the index is fine ... */
    assert_int_equal(ipfsrt_car_verify_file(tmp_path("shortdata.car"), NULL, NULL, NULL, NULL, &err),
                     IPFSRT_ETRUNCATED); /* ... but the payload is cut */
    ipfsrt_car_file_free(car);
    free(lying);
}

static void test_carv2(void **state) {
    (void)state;
    expected e;
    load_expected("ipld-car-mixed.car", &e);
    write_v2(tmp_path("v2.car"), &e);
    size_t len;
    uint8_t *buf = read_file(tmp_path("v2.car"), &len);
    assert_memory_equal(buf, "\x0a\xa1\x67version\x02", 11);
    assert_int_equal(buf[11], 0x80);                 /* fully indexed */
    assert_int_equal(ipfsrt_le64(buf + 27), 51);     /* data offset */
    uint64_t data_size = ipfsrt_le64(buf + 35), index_offset = ipfsrt_le64(buf + 43);
    assert_int_equal(index_offset, 51 + data_size);
    assert_memory_equal(buf + index_offset, "\x81\x08", 2); /* MultihashIndexSorted */

    /* push reader unwraps it; the duplicate "hello world" was written once */
    collector c = {0};
    ipfsrt_car_reader *r;
    ipfsrt_error err;
    assert_int_equal(push_all(buf, len, 5, NULL, &c, &err, &r), IPFSRT_OK);
    assert_int_equal(c.count, e.count - 1);
    assert_int_equal(ipfsrt_car_reader_header(r)->version, 2);
    assert_int_equal(ipfsrt_car_reader_header(r)->data_size, data_size);
    assert_int_equal(ipfsrt_car_reader_header(r)->root_count, e.root_count);
    ipfsrt_car_reader_free(r);
    collector_free(&c);

    ipfsrt_car_file *car;
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("v2.car"), NULL, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_car_file_index_source(car), "carv2-index");
    reads_every_block(car, &e);
    ipfsrt_car_file_free(car);

    /* an index entry pointing at another block is a wrong hint: the payload is
     * scanned instead, and every block read right (never another's bytes) */
    uint8_t *lying = malloc(len);
    memcpy(lying, buf, len);
    uint8_t *entry0 = find_entry(lying + index_offset, len - index_offset, &e.cids[0]);
    uint8_t *entry1 = find_entry(lying + index_offset, len - index_offset, &e.cids[1]);
    memcpy(entry0 + e.cids[0].digest_len, entry1 + e.cids[1].digest_len, 8);
    write_file(tmp_path("lying.car"), lying, len);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("lying.car"), NULL, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_car_file_index_source(car), "carv2-index");
    reads_every_block(car, &e);
    assert_string_equal(ipfsrt_car_file_index_source(car), "scan");
    ipfsrt_car_file_free(car);

    /* a malformed index is ignored: the payload is scanned instead */
    memcpy(lying, buf, len);
    lying[index_offset] = 0x7f;
    write_file(tmp_path("badindex.car"), lying, len);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("badindex.car"), NULL, &err), IPFSRT_OK);
    assert_string_equal(ipfsrt_car_file_index_source(car), "scan");
    assert_true(ipfsrt_car_file_has(car, &e.cids[0]));
    ipfsrt_car_file_free(car);

    check_header_errors(buf, len, data_size);
    free(lying);
    free(buf);
    free_expected(&e);
}

static void test_writer(void **state) {
    (void)state;
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)"abc", 3, NULL);
    ipfsrt_car_writer *w;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_car_writer_new(&w, tmp_path("w.car"), &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = 1, .roots = &cid, .root_count = 1}, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_car_writer_put(w, &cid, (const uint8_t *)"abd", 3, &err),
                     IPFSRT_EHASH_MISMATCH);
    assert_non_null(strstr(err.message, "refusing"));
    ipfsrt_car_writer_free(w); /* unfinished: removed */
    assert_int_not_equal(access(tmp_path("w.car"), F_OK), 0);
    assert_int_equal(ipfsrt_car_writer_new(&w, tmp_path("w.car"), &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = 3, .roots = &cid, .root_count = 1}, &err),
                     IPFSRT_EBAD_CAR_VERSION);
    assert_int_equal(ipfsrt_car_writer_new(&w, "/nonexistent/dir/x.car", &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = 1, .roots = &cid, .root_count = 1}, &err),
                     IPFSRT_EIO);
}

/* Reads the encoder out in slices of every awkward size. */
static uint8_t *drain_encoder(ipfsrt_car_encoder *enc, size_t slice, size_t *len) {
    uint64_t size = ipfsrt_car_encoder_size(enc);
    uint8_t *out = malloc(size + slice);
    size_t n = 0, got;
    while ((got = ipfsrt_car_encoder_read(enc, out + n, slice)) > 0) {
        assert_true(got <= slice);
        n += got;
        assert_true(n <= size);
    }
    *len = n;
    return out;
}

/* The encoder lays out, byte for byte, the CARs @ipld/car and our writer made. */
static void check_encoder_matches(const uint8_t *car, size_t car_len) {
    collector c = {0};
    ipfsrt_car_reader *r;
    assert_int_equal(push_all(car, car_len, car_len, NULL, &c, NULL, &r), IPFSRT_OK);
    const ipfsrt_car_header *h = ipfsrt_car_reader_header(r);
    static const size_t slices[] = {1, 7, 100, 65536};
    for (size_t s = 0; s < 4; s++) {
        ipfsrt_car_encoder *enc;
        assert_int_equal(ipfsrt_car_encoder_new(&enc, h->roots, h->root_count, NULL), IPFSRT_OK);
        for (size_t i = 0; i < c.count; i++) {
            uint64_t at;
            const collected_block *b = &c.blocks[i];
            assert_int_equal(ipfsrt_car_encoder_add(enc, &b->cid, b->data, b->len, &at, NULL),
                             IPFSRT_OK);
            assert_true(at + b->len <= car_len);
            assert_memory_equal(car + at, b->data, b->len);
        }
        assert_int_equal(ipfsrt_car_encoder_size(enc), car_len);
        size_t n;
        uint8_t *out = drain_encoder(enc, slices[s], &n);
        assert_int_equal(n, car_len);
        assert_memory_equal(out, car, car_len);
        ipfsrt_error err;
        assert_int_equal(ipfsrt_car_encoder_add(enc, &c.blocks[0].cid, c.blocks[0].data,
                                                c.blocks[0].len, NULL, &err),
                         IPFSRT_EBAD_ARGUMENT); /* too late: reading has begun */
        free(out);
        ipfsrt_car_encoder_free(enc);
    }
    ipfsrt_car_reader_free(r);
    collector_free(&c);
}

static void test_encoder(void **state) {
    (void)state;
    size_t len;
    uint8_t *car = read_file(fixture_path("ipld-car-mixed.car"), &len);
    check_encoder_matches(car, len);
    free(car);
    collector blocks = {0};
    car = make_big_car(&len, &blocks);
    check_encoder_matches(car, len);
    free(car);
    collector_free(&blocks);
}

static void test_file_errors(void **state) {
    (void)state;
    ipfsrt_car_file *car;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("missing.car"), NULL, &err), IPFSRT_EIO);
    assert_non_null(strstr(err.message, "missing.car"));
    write_file(tmp_path("empty.car"), (const uint8_t *)"", 0);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("empty.car"), NULL, &err),
                     IPFSRT_ETRUNCATED);
    uint8_t buf[256];
    size_t n = hex2bin(HEADER_HELLO SECTION_HELLO, buf, sizeof buf);
    write_file(tmp_path("cut.car"), buf, n - 1);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("cut.car"), NULL, &err),
                     IPFSRT_ETRUNCATED);
    buf[n] = 0;
    write_file(tmp_path("pad.car"), buf, n + 1);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("pad.car"), NULL, &err), IPFSRT_ETRAILING_DATA);
    buf[n - 1] ^= 1; /* tampered block: opens, but get and iteration fail */
    write_file(tmp_path("bad.car"), buf, n);
    assert_int_equal(ipfsrt_car_file_new(&car, tmp_path("bad.car"), NULL, &err), IPFSRT_OK);
    const uint8_t *data;
    size_t len;
    assert_int_equal(ipfsrt_car_file_get(car, &ipfsrt_car_file_header(car)->roots[0], &data, &len,
                                         &err),
                     IPFSRT_EHASH_MISMATCH);
    assert_int_equal(err.offset, 59);
    ipfsrt_car_file_free(car);
    assert_int_equal(ipfsrt_car_file_new(&car, tmpdir, NULL, &err), IPFSRT_EIO);
}

/* Options that grow: a struct's size says which fields the caller has. A
 * host built against an older header (a shorter struct: what lies past it is
 * not read, defaults apply), a newer one (a longer struct: accepted while the
 * fields this build does not know are unset), or none at all (refused). */
static void test_options_sizes(void **state) {
    (void)state;
    size_t len;
    uint8_t *car = read_file(fixture_path("ipfs-car-small.car"), &len);
    ipfsrt_error err;
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    unsigned char raw[sizeof(ipfsrt_car_options) + 16];
    ipfsrt_car_options *o = (ipfsrt_car_options *)(void *)raw;
    memset(raw, 0, sizeof raw);
    assert_int_equal(ipfsrt_car_verify_buffer(car, len, o, NULL, NULL, &counts, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "ipfsrt_car_options_init"));
    /* an older header's: max_block_size only; past it, bytes that would refuse every block */
    memset(raw, 0xff, sizeof raw);
    o->size = offsetof(ipfsrt_car_options, max_block_size) + sizeof o->max_block_size;
    o->max_block_size = 0;
    assert_int_equal(ipfsrt_car_verify_buffer(car, len, o, NULL, NULL, &counts, &err), IPFSRT_OK);
    assert_int_equal(counts.blocks, 5);
    /* a newer header's: longer, its unknown fields unset, then one set */
    memset(raw, 0, sizeof raw);
    ipfsrt_car_options_init(o);
    o->size = sizeof raw;
    o->max_block_size = 10; /* known fields count */
    assert_int_not_equal(ipfsrt_car_verify_buffer(car, len, o, NULL, NULL, &counts, &err), IPFSRT_OK);
    o->max_block_size = 0;
    assert_int_equal(ipfsrt_car_verify_buffer(car, len, o, NULL, NULL, &counts, &err), IPFSRT_OK);
    raw[sizeof raw - 1] = 1;
    assert_int_equal(ipfsrt_car_verify_buffer(car, len, o, NULL, NULL, &counts, &err), IPFSRT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "does not know"));
    free(car);
}

/* A raw block's CID. */
static ipfsrt_cid raw_cid(const char *text) {
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)text,
                                    strlen(text), NULL), IPFSRT_OK);
    return cid;
}

static void write_raw_car(const char *path, int version, const char *const *texts, size_t n) {
    ipfsrt_cid root = raw_cid(texts[0]);
    ipfsrt_car_writer *w;
    assert_int_equal(ipfsrt_car_writer_new(&w, path, &(ipfsrt_car_writer_options){.size = sizeof(ipfsrt_car_writer_options), .version = version, .roots = &root, .root_count = 1}, NULL), IPFSRT_OK);
    for (size_t i = 0; i < n; i++) {
        ipfsrt_cid cid = raw_cid(texts[i]);
        assert_int_equal(ipfsrt_car_writer_put(w, &cid, (const uint8_t *)texts[i], strlen(texts[i]), NULL), IPFSRT_OK);
    }
    assert_int_equal(ipfsrt_car_writer_finish(w, NULL), IPFSRT_OK);
    ipfsrt_car_writer_free(w);
}

/* A CARv2 of blocks A and C whose index names B (which the payload lacks) where
 * C's entry was, still sorted: B is picked to sort on C's side of A. */
static const char *lying_index_car(char *b_text, size_t cap) {
    static const char *const ac[] = {"block A", "block C"};
    write_raw_car(tmp_path("ac.car"), 2, ac, 2);
    size_t len;
    uint8_t *buf = read_file(tmp_path("ac.car"), &len);
    uint64_t index_offset = ipfsrt_le64(buf + 43);
    ipfsrt_cid a = raw_cid(ac[0]), c = raw_cid(ac[1]);
    int c_side = memcmp(c.bytes + c.digest_offset, a.bytes + a.digest_offset, c.digest_len) > 0;
    ipfsrt_cid b;
    for (int i = 0;; i++) {
        snprintf(b_text, cap, "block B%d", i);
        b = raw_cid(b_text);
        if ((memcmp(b.bytes + b.digest_offset, a.bytes + a.digest_offset, b.digest_len) > 0) == c_side) break;
    }
    memcpy(find_entry(buf + index_offset, len - index_offset, &c), b.bytes + b.digest_offset, b.digest_len);
    write_file(tmp_path("lying-index.car"), buf, len);
    free(buf);
    return tmp_path("lying-index.car");
}

/* An index entry for a block the payload lacks: the file does not claim it,
 * car verify refuses the file, and a delta made against it carries the block. */
static void test_index_hits_checked_against_the_payload(void **state) {
    (void)state;
    char b_text[32], old[512];
    snprintf(old, sizeof old, "%s", lying_index_car(b_text, sizeof b_text)); /* tmp_path's buffer is reused */
    ipfsrt_car_file *car;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_car_file_new(&car, old, NULL, &err), IPFSRT_OK);
    ipfsrt_cid a = raw_cid("block A"), b = raw_cid(b_text);
    assert_true(ipfsrt_car_file_has(car, &a));
    assert_false(ipfsrt_car_file_has(car, &b));
    assert_int_equal(ipfsrt_car_file_check_index(car, &err), IPFSRT_EBAD_CAR_INDEX);
    assert_non_null(strstr(err.message, "does not hold its block"));
    ipfsrt_car_file_free(car);
    assert_int_equal(ipfsrt_car_verify_file(old, NULL, NULL, NULL, NULL, &err), IPFSRT_EBAD_CAR_INDEX);
    const char *const new_blocks[] = {"block A", b_text};
    char ab[512];
    snprintf(ab, sizeof ab, "%s", tmp_path("ab.car"));
    write_raw_car(ab, 1, new_blocks, 2);
    ipfsrt_car_diff_stats stats = IPFSRT_CAR_DIFF_STATS_INIT;
    assert_int_equal(ipfsrt_car_diff(old, ab, tmp_path("delta.car"), &stats, &err), IPFSRT_OK);
    assert_int_equal(stats.new_blocks, 1);
    assert_int_equal(stats.shared_blocks, 1);
    /* an honest CARv2 passes */
    const char *const ac[] = {"block A", "block C"};
    write_raw_car(tmp_path("honest.car"), 2, ac, 2);
    assert_int_equal(ipfsrt_car_verify_file(tmp_path("honest.car"), NULL, NULL, NULL, NULL, &err), IPFSRT_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_sizes),
        cmocka_unit_test(test_fixtures_push),
        cmocka_unit_test(test_fixtures_file),
        cmocka_unit_test(test_streamed_hashing),
        cmocka_unit_test(test_spec_vector),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cancel_and_sticky_failure),
        cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_carv2),
        cmocka_unit_test(test_index_hits_checked_against_the_payload),
        cmocka_unit_test(test_writer),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_encoder),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
