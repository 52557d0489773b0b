#define _GNU_SOURCE /* memmem */
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static void cid_is(const ipfsrt_cid *cid, const char *want) {
    char s[IPFSRT_CID_STR_MAX];
    assert_string_equal(ipfsrt_cid_to_string(cid, s), want);
}

/* ------------------------------------------------------------ dag-pb */

static void test_dagpb_vectors(void **state) {
    (void)state;
    uint8_t buf[300] = {0};
    ipfsrt_dagpb_node n;
    /* the empty block is a valid node with no Data and no links */
    assert_int_equal(ipfsrt_dagpb_decode(buf, 0, &n, NULL), IPFSRT_OK);
    assert_null(n.data);
    assert_int_equal(n.link_count, 0);
    /* empty directory: Data {Type: Directory} */
    size_t len = hex2bin("0a020801", buf, sizeof buf);
    assert_int_equal(ipfsrt_dagpb_decode(buf, len, &n, NULL), IPFSRT_OK);
    ipfsrt_unixfs_data d;
    assert_int_equal(ipfsrt_unixfs_data_decode(n.data, n.data_len, &d, NULL), IPFSRT_OK);
    assert_int_equal(d.type, IPFSRT_UNIXFS_DIRECTORY);
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 0, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, buf, len, NULL);
    cid_is(&cid, "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn");
    ipfsrt_unixfs_data_free(&d);
    ipfsrt_dagpb_node_free(&n);

    /* a one-link file node as Kubo writes it (empty Name), round-tripped */
    ipfsrt_cid leaf;
    ipfsrt_cid_parse(&leaf, "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e", 59, NULL, NULL);
    uint64_t sizes[] = {11};
    ipfsrt_unixfs_data fd = {.type = IPFSRT_UNIXFS_FILE, .has_filesize = true, .filesize = 11,
                             .blocksizes = sizes, .blocksize_count = 1};
    ipfsrt_buf data, node;
    ipfsrt_buf_init(&data);
    ipfsrt_buf_init(&node);
    assert_int_equal(ipfsrt_unixfs_data_encode(&fd, &data, NULL), IPFSRT_OK);
    char hex[600];
    assert_string_equal(bin2hex(data.data, data.len, hex), "0802180b200b");
    ipfsrt_dagpb_link link = {leaf, (const uint8_t *)"", 0, true, 11};
    ipfsrt_dagpb_node pn = {data.data, data.len, &link, 1};
    assert_int_equal(ipfsrt_dagpb_encode(&pn, &node, NULL), IPFSRT_OK);
    assert_string_equal(bin2hex(node.data, node.len, hex),
                        "122a0a2401551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2"
                        "efcde91200180b0a060802180b200b");
    assert_int_equal(ipfsrt_dagpb_decode(node.data, node.len, &n, NULL), IPFSRT_OK);
    assert_int_equal(n.link_count, 1);
    assert_true(ipfsrt_cid_equal(&n.links[0].cid, &leaf));
    assert_non_null(n.links[0].name);
    assert_int_equal(n.links[0].name_len, 0);
    assert_int_equal(n.links[0].tsize, 11);
    ipfsrt_dagpb_node_free(&n);
    ipfsrt_buf_free(&data);
    ipfsrt_buf_free(&node);
}

/* Rejected for the reason said: each case differs from a valid node in that
 * alone, so a wrong length elsewhere cannot pass for it. */
static void expect_pb_reject(const char *hex, const char *reason) {
    uint8_t buf[300];
    size_t len = hex2bin(hex, buf, sizeof buf);
    ipfsrt_dagpb_node n;
    ipfsrt_error err;
    if (ipfsrt_dagpb_decode(buf, len, &n, &err) == IPFSRT_OK) fail_msg("accepted %s (%s)", hex, reason);
    assert_int_equal(err.code, IPFSRT_EBAD_DAGPB);
    if (!strstr(err.message, reason)) fail_msg("%s: '%s', not '%s'", hex, err.message, reason);
}

#define LINK_HASH "0a2401551220b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

static void test_dagpb_rejects(void **state) {
    (void)state;
    expect_pb_reject("0a01000a0100", "duplicate Data");
    expect_pb_reject("1a0100", "unknown PBNode field");
    expect_pb_reject("0801", "unknown PBNode field or wire type"); /* Data as a varint */
    expect_pb_reject("0a05ff", "field runs past the end");
    expect_pb_reject("1202" "1200", "link without Hash");
    expect_pb_reject("1228" "1200" LINK_HASH, "out of order");                 /* Name before Hash */
    expect_pb_reject("122a" LINK_HASH "180b180b", "out of order or repeated"); /* Tsize twice */
    expect_pb_reject("1228" LINK_HASH "2000", "unknown PBLink field");         /* field 4 */
    expect_pb_reject("1206" "0a0401551220", "multihash truncated");            /* Hash not a CID */
    expect_pb_reject("1226" LINK_HASH "0a00" "1226" LINK_HASH, "Data between Links");
    expect_pb_reject("8a", "truncated field key");
    expect_pb_reject("12ffffffffffffffffffff01", "field runs past the end"); /* an absurd length */
    /* Data before the links (as old IPFS data has it) is accepted; a link of a
     * Hash alone has neither Name nor Tsize, after a link that had both */
    uint8_t buf[300];
    size_t len = hex2bin("0a00" "122a" LINK_HASH "1200180b" "1226" LINK_HASH, buf, sizeof buf);
    ipfsrt_dagpb_node n;
    assert_int_equal(ipfsrt_dagpb_decode(buf, len, &n, NULL), IPFSRT_OK);
    assert_int_equal(n.link_count, 2);
    assert_true(n.links[0].has_tsize && n.links[0].name);
    assert_null(n.links[1].name);
    assert_int_equal(n.links[1].name_len, 0);
    assert_false(n.links[1].has_tsize);
    assert_int_equal(n.links[1].tsize, 0);
    assert_true(ipfsrt_cid_equal(&n.links[0].cid, &n.links[1].cid));
    ipfsrt_dagpb_node_free(&n);
}

static void test_unixfs_data(void **state) {
    (void)state;
    uint8_t buf[64];
    ipfsrt_unixfs_data d;
    ipfsrt_error err;
    /* all fields, blocksizes packed, mode and mtime */
    size_t len = hex2bin("080212036162631803" "22020102" "2822" "308002" "38a403" "4208" "08e807" "1564000000",
                         buf, sizeof buf);
    assert_int_equal(ipfsrt_unixfs_data_decode(buf, len, &d, &err), IPFSRT_OK);
    assert_int_equal(d.type, IPFSRT_UNIXFS_FILE);
    assert_int_equal(d.data_len, 3);
    assert_int_equal(d.filesize, 3);
    assert_int_equal(d.blocksize_count, 2);
    assert_int_equal(d.fanout, 256);
    assert_int_equal(d.hash_type, 0x22);
    assert_int_equal(d.mode, 0644);
    assert_int_equal(d.mtime_seconds, 1000);
    assert_int_equal(d.mtime_nanos, 100);
    ipfsrt_unixfs_data_free(&d);
    static const char *bad[] = {"", "0806", "08020802", "0802180118 01", "0802 5000",
                                "0802 4205 1501000000", "0802 4207 08011500000000", "0802 1205 61"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char clean[64];
        size_t k = 0;
        for (const char *p = bad[i]; *p; p++)
            if (*p != ' ') clean[k++] = *p;
        clean[k] = '\0';
        len = hex2bin(clean, buf, sizeof buf);
        if (ipfsrt_unixfs_data_decode(buf, len, &d, &err) == IPFSRT_OK)
            fail_msg("accepted UnixFS data %s", bad[i]);
        assert_int_equal(err.code, IPFSRT_EBAD_UNIXFS);
    }
}

static void test_murmur3(void **state) {
    (void)state;
    static const struct {
        const char *name;
        uint64_t h1;
    } v[] = {{"470.txt", 0x006e88df5847e67cull},  {"742.txt", 0x00ff87d129ae5428ull},
             {"hello", 0xcbd8a7b341bd9b02ull},    {"exampleA", 0x9dff91f1f0e6364eull},
             {"exampleB", 0x5b0609f2b2dc335eull}, {"Othello.png", 0xa1177d5c61b781e1ull},
             {"Throttlebottom", 0x9307b3c12fe49196ull}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_true(ipfsrt_murmur3_x64_64((const uint8_t *)v[i].name, strlen(v[i].name)) == v[i].h1);
}

/* ----------------------------------------------------------- import/read */

static void write_file_bytes(const char *path, const uint8_t *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static ipfsrt_status store_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    return ipfsrt_memstore_put(user, cid, data, len, err);
}

static void pack_into(const char *path, const ipfsrt_pack_options *o, ipfsrt_memstore *m,
                      ipfsrt_cid *root) {
    ipfsrt_error err;
    if (ipfsrt_pack(path, o, store_sink, m, root, &err) != IPFSRT_OK)
        fail_msg("pack %s: %s", path, err.message);
}

/* Kubo's CIDs for inputs whose bytes are published with them. */
static void test_kubo_vectors(void **state) {
    (void)state;
    static const struct {
        const char *preset;
        int cid_version; /* -1: the preset's */
        int raw_leaves;  /* -1: the preset's */
        const char *content;
        size_t repeat;
        const char *cid;
    } v[] = {
        {"kubo", -1, -1, "", 1, "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"},
        {"kubo", -1, -1, "hello world", 1, "Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD"},
        {"kubo", -1, -1, "hello\n", 1, "QmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN"},
        {"kubo", -1, -1, "foo\n", 1, "QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6"},
        {"kubo", -1, -1, "KimlikDAO\n", 1, "QmafCiqeYQtiXokAEUB4ToMcZJREhJcShbzvjrYmC1WCsi"},
        {"kubo", -1, -1, "a", 2680, "Qmawd3DRAY5YwtCzQe8gBumMXA1JCrzvbH2WQR6ZTykVoG"},
        {"kubo", 1, 0, "Hello from IPFS Gateway Checker\n", 1,
         "bafybeifx7yeb55armcsxwwitkymga5xf53dxiarykms3ygqic223w5sk3m"},
        {"kubo-v1-2025", -1, -1, "hello world", 1,
         "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"},
        {"kubo-v1-2025", -1, -1, "", 1, "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t one = strlen(v[i].content), len = one * v[i].repeat;
        uint8_t *data = malloc(len + 1);
        for (size_t k = 0; k < v[i].repeat; k++) memcpy(data + k * one, v[i].content, one);
        write_file_bytes(tmp_path("vector"), data, len);
        ipfsrt_pack_options o;
        assert_int_equal(ipfsrt_pack_preset(v[i].preset, &o, NULL), IPFSRT_OK);
        if (v[i].cid_version >= 0) o.cid_version = v[i].cid_version;
        if (v[i].raw_leaves >= 0) o.raw_leaves = v[i].raw_leaves;
        ipfsrt_memstore *m;
        ipfsrt_memstore_new(&m, NULL);
        ipfsrt_cid root;
        pack_into(tmp_path("vector"), &o, m, &root);
        cid_is(&root, v[i].cid);
        free(data);
        ipfsrt_memstore_free(m);
    }
    /* the empty directory, as `ipfs add -r` makes it */
    mkdir(tmp_path("emptydir"), 0755);
    ipfsrt_pack_options o;
    ipfsrt_pack_preset("kubo", &o, NULL);
    ipfsrt_memstore *m;
    ipfsrt_memstore_new(&m, NULL);
    ipfsrt_cid root;
    pack_into(tmp_path("emptydir"), &o, m, &root);
    cid_is(&root, "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn");
    ipfsrt_memstore_free(m);
}

typedef struct sink_buf {
    uint8_t *data;
    size_t len;
} sink_buf;

static ipfsrt_status to_buf(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    sink_buf *b = user;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return IPFSRT_OK;
}

static ipfsrt_status count_cid(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)cid, (void)err;
    (*(size_t *)user)++;
    return IPFSRT_OK;
}

/* Deep DAGs (tiny chunks, few links) read back for many ranges, and a range
 * touches only the blocks under it. */
static void test_ranges_and_blocks(void **state) {
    (void)state;
    size_t len = 100003;
    uint8_t *data = malloc(len);
    fill_random(data, len, 5);
    write_file_bytes(tmp_path("ranged"), data, len);
    for (int raw = 0; raw <= 1; raw++) {
        ipfsrt_pack_options o;
        ipfsrt_pack_preset("kubo-v1-2025", &o, NULL);
        o.chunk_size = 100;
        o.max_links = 3;
        o.raw_leaves = raw;
        ipfsrt_memstore *m;
        ipfsrt_memstore_new(&m, NULL);
        ipfsrt_cid root;
        pack_into(tmp_path("ranged"), &o, m, &root);
        ipfsrt_blocksource src;
        ipfsrt_blocksource_memstore(&src, m);
        sink_buf b = {malloc(len), 0};
        ipfsrt_error err;
        assert_int_equal(ipfsrt_unixfs_read(&src, &root, 0, UINT64_MAX, to_buf, &b, &err), IPFSRT_OK);
        assert_int_equal(b.len, len);
        assert_memory_equal(b.data, data, len);
        for (uint64_t off = 0; off < len; off += 7919) {
            for (uint64_t n = 1; n < 5000; n *= 7) {
                b.len = 0;
                assert_int_equal(ipfsrt_unixfs_read(&src, &root, off, n, to_buf, &b, &err), IPFSRT_OK);
                uint64_t want = off + n > len ? len - off : n;
                assert_int_equal(b.len, want);
                assert_memory_equal(b.data, data + off, want);
            }
        }
        assert_int_equal(ipfsrt_unixfs_read(&src, &root, len + 1, 1, to_buf, &b, &err), IPFSRT_EBAD_RANGE);
        char path[IPFSRT_CID_STR_MAX];
        ipfsrt_cid_to_string(&root, path);
        /* 100 bytes in the middle: one leaf and its ancestors (depth ~ log3(1001) = 7) */
        size_t count = 0;
        ipfsrt_unixfs_options middle = {.size = sizeof middle, .offset = 50000, .length = 100};
        assert_int_equal(ipfsrt_unixfs_blocks_for(&src, path, &middle, count_cid, &count, &err), IPFSRT_OK);
        assert_true(count >= 2 && count <= 10);
        size_t all = 0;
        assert_int_equal(ipfsrt_unixfs_blocks_for(&src, path, NULL, count_cid, &all, &err), IPFSRT_OK);
        uint64_t blocks;
        assert_int_equal(ipfsrt_unixfs_count_blocks(&src, &root, &blocks, &err), IPFSRT_OK);
        assert_int_equal(all, blocks);
        assert_int_equal(blocks, ipfsrt_memstore_count(m) + (raw ? 0 : 0));
        free(b.data);
        ipfsrt_memstore_free(m);
    }
    free(data);
}

static ipfsrt_status count_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)err;
    size_t *n = user;
    if (strncmp(e->name, "f-", 2) == 0) (*n)++;
    return IPFSRT_OK;
}

/* Puts a dag-pb File node {data, children} into m; sizes are the children's. */
static ipfsrt_cid put_file_node(ipfsrt_memstore *m, const char *data, const ipfsrt_cid *kids,
                                const uint64_t *sizes, size_t n, bool lie) {
    ipfsrt_dagpb_link links[4];
    uint64_t total = data ? strlen(data) : 0;
    for (size_t i = 0; i < n; i++) {
        links[i] = (ipfsrt_dagpb_link){kids[i], (const uint8_t *)"", 0, true, sizes[i]};
        total += sizes[i];
    }
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_FILE, .data = (const uint8_t *)data,
                             .data_len = data ? strlen(data) : 0, .has_filesize = true,
                             .filesize = total + (lie ? 1 : 0), .blocksizes = (uint64_t *)sizes,
                             .blocksize_count = n};
    ipfsrt_buf d, node;
    ipfsrt_buf_init(&d);
    ipfsrt_buf_init(&node);
    assert_int_equal(ipfsrt_unixfs_data_encode(&fs, &d, NULL), IPFSRT_OK);
    ipfsrt_dagpb_node pb = {d.data, d.len, links, n};
    assert_int_equal(ipfsrt_dagpb_encode(&pb, &node, NULL), IPFSRT_OK);
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, node.data, node.len, NULL);
    assert_int_equal(ipfsrt_memstore_put(m, &cid, node.data, node.len, NULL), IPFSRT_OK);
    ipfsrt_buf_free(&d);
    ipfsrt_buf_free(&node);
    return cid;
}

static ipfsrt_cid put_raw(ipfsrt_memstore *m, const char *data) {
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)data,
                   strlen(data), NULL);
    assert_int_equal(ipfsrt_memstore_put(m, &cid, (const uint8_t *)data, strlen(data), NULL),
                     IPFSRT_OK);
    return cid;
}

/* Shapes no balanced importer makes (trickle-like: inline data beside children
 * of different depths) read right; sizes that do not add up are errors. */
static void test_irregular_dags(void **state) {
    (void)state;
    ipfsrt_memstore *m;
    ipfsrt_memstore_new(&m, NULL);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, m);
    ipfsrt_cid gh = put_raw(m, "gh");
    uint64_t two = 2;
    ipfsrt_cid efgh = put_file_node(m, "ef", &gh, &two, 1, false);
    ipfsrt_cid kids[3] = {put_raw(m, "cd"), efgh, put_raw(m, "ijk")};
    uint64_t sizes[3] = {2, 4, 3};
    ipfsrt_cid root = put_file_node(m, "ab", kids, sizes, 3, false);
    const char *all = "abcdefghijk";
    for (uint64_t off = 0; off <= 11; off++) {
        for (uint64_t len = 0; off + len <= 12; len++) {
            uint8_t out[16];
            sink_buf b = {out, 0};
            ipfsrt_error err;
            assert_int_equal(ipfsrt_unixfs_read(&src, &root, off, len, to_buf, &b, &err), IPFSRT_OK);
            uint64_t want = off + len > 11 ? 11 - off : len;
            assert_int_equal(b.len, want);
            assert_memory_equal(out, all + off, want);
        }
    }
    /* a parent that claims a child holds more than it does */
    uint64_t wrong[3] = {2, 5, 3};
    ipfsrt_cid liar = put_file_node(m, "ab", kids, wrong, 3, false);
    uint8_t out[32];
    sink_buf b = {out, 0};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_read(&src, &liar, 0, UINT64_MAX, to_buf, &b, &err), IPFSRT_EBAD_UNIXFS);
    char s[IPFSRT_CID_STR_MAX];
    assert_non_null(strstr(err.message, ipfsrt_cid_to_string(&efgh, s)));
    /* a filesize that disagrees with data + blocksizes */
    ipfsrt_cid bad = put_file_node(m, "ab", kids, sizes, 3, true);
    b.len = 0;
    assert_int_equal(ipfsrt_unixfs_read(&src, &bad, 0, UINT64_MAX, to_buf, &b, &err), IPFSRT_EBAD_UNIXFS);
    ipfsrt_memstore_free(m);
}

/* HAMT directories of several fanouts: every name resolves, listing finds all,
 * absent names are not found. */
/* Records the nodes a walk reports passing through. */
typedef struct steps_seen {
    ipfsrt_cid cids[8];
    size_t n;
} steps_seen;

static ipfsrt_status see_step(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    steps_seen *s = user;
    if (s->n < 8) s->cids[s->n] = *cid;
    s->n++;
    return IPFSRT_OK;
}

/* A path's nodes, reported in order: the root, then the file, never the
 * HAMT's inner shards on the way. */
static void check_steps(const ipfsrt_blocksource *src, const char *path, const ipfsrt_cid *root) {
    steps_seen seen = {0};
    ipfsrt_unixfs_options o;
    ipfsrt_unixfs_options_init(&o);
    o.step = see_step;
    o.step_user = &seen;
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_resolve(src, path, &o, &info, &err), IPFSRT_OK);
    assert_int_equal(seen.n, 2);
    assert_true(ipfsrt_cid_equal(&seen.cids[0], root));
    assert_true(ipfsrt_cid_equal(&seen.cids[1], &info.cid));
}

static void test_hamt(void **state) {
    (void)state;
    mkdir(tmp_path("hamt"), 0755);
    for (int i = 0; i < 300; i++) {
        char name[64];
        snprintf(name, sizeof name, "hamt/f-%d", i);
        write_file_bytes(tmp_path(name), (const uint8_t *)name, strlen(name));
    }
    unsigned fanouts[] = {2, 16, 256, 1024};
    for (size_t k = 0; k < 4; k++) {
        ipfsrt_pack_options o;
        ipfsrt_pack_preset("ipfs-car", &o, NULL);
        o.hamt_threshold = 10;
        o.hamt_fanout = fanouts[k];
        ipfsrt_memstore *m;
        ipfsrt_memstore_new(&m, NULL);
        ipfsrt_cid root;
        pack_into(tmp_path("hamt"), &o, m, &root);
        ipfsrt_blocksource src;
        ipfsrt_blocksource_memstore(&src, m);
        char rs[IPFSRT_CID_STR_MAX], path[IPFSRT_CID_STR_MAX + 64];
        ipfsrt_cid_to_string(&root, rs);
        ipfsrt_unixfs_node_info info;
        ipfsrt_error err;
        assert_int_equal(ipfsrt_unixfs_resolve(&src, rs, NULL, &info, &err), IPFSRT_OK);
        assert_int_equal(info.type, IPFSRT_UNIXFS_HAMT_SHARD);
        for (int i = 0; i < 300; i += 13) {
            snprintf(path, sizeof path, "/ipfs/%s/f-%d", rs, i);
            if (ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err) != IPFSRT_OK)
                fail_msg("fanout %u: %s", fanouts[k], err.message);
            assert_int_equal(info.type, IPFSRT_UNIXFS_FILE);
        }
        check_steps(&src, path, &root);
        snprintf(path, sizeof path, "ipfs://%s/f-300", rs);
        assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_ENOT_FOUND);
        size_t n = 0;
        assert_int_equal(ipfsrt_unixfs_ls(&src, &root, false, count_entry, &n, &err), IPFSRT_OK);
        assert_int_equal(n, 300);
        ipfsrt_memstore_free(m);
    }
}

/* Symlinks are reported, or followed when asked; '..' cannot climb out. */
static void test_symlinks_and_paths(void **state) {
    (void)state;
    mkdir(tmp_path("links"), 0755);
    mkdir(tmp_path("links/sub"), 0755);
    write_file_bytes(tmp_path("links/sub/target.txt"), (const uint8_t *)"target", 6);
    assert_int_equal(symlink("sub/target.txt", tmp_path("links/to-target")), 0);
    assert_int_equal(symlink("sub", tmp_path("links/to-sub")), 0);
    assert_int_equal(symlink("loop", tmp_path("links/loop")), 0);
    ipfsrt_pack_options o;
    ipfsrt_pack_preset("kubo-v1-2025", &o, NULL);
    ipfsrt_memstore *m;
    ipfsrt_memstore_new(&m, NULL);
    ipfsrt_cid root;
    pack_into(tmp_path("links"), &o, m, &root);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, m);
    char rs[IPFSRT_CID_STR_MAX], path[IPFSRT_CID_STR_MAX + 64];
    ipfsrt_cid_to_string(&root, rs);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    ipfsrt_unixfs_options follow = {.size = sizeof follow, .follow_symlinks = true};
    snprintf(path, sizeof path, "%s/to-target", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_OK);
    assert_int_equal(info.type, IPFSRT_UNIXFS_SYMLINK);
    assert_int_equal(info.size, 14);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, &follow, &info, &err), IPFSRT_OK);
    assert_int_equal(info.type, IPFSRT_UNIXFS_FILE);
    assert_int_equal(info.size, 6);
    snprintf(path, sizeof path, "%s/to-sub/target.txt", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_ESYMLINK);
    assert_non_null(strstr(err.message, "symlink"));
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, &follow, &info, &err), IPFSRT_OK);
    snprintf(path, sizeof path, "%s/loop", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, &follow, &info, &err), IPFSRT_ESYMLINK);
    snprintf(path, sizeof path, "%s/sub/../sub/./target.txt", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_OK);
    snprintf(path, sizeof path, "%s/../x", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_ENOT_FOUND);
    snprintf(path, sizeof path, "%s/sub/target.txt/deeper", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_ENOT_DIRECTORY);
    snprintf(path, sizeof path, "%s/missing", rs);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_ENOT_FOUND);
    assert_non_null(strstr(err.message, "missing"));
    char *target;
    assert_int_equal(ipfsrt_unixfs_export(&src, &root, tmp_path("links-out"), &err), IPFSRT_OK);
    char buf[64];
    ssize_t n = readlink(tmp_path("links-out/to-target"), buf, sizeof buf);
    assert_int_equal(n, 14);
    assert_int_equal(ipfsrt_unixfs_export(&src, &root, tmp_path("links-out"), &err), IPFSRT_EIO);
    (void)target;
    ipfsrt_memstore_free(m);
}

/* A tampered block along a path makes resolution fail, naming the CID. */
static void test_tampered_path(void **state) {
    (void)state;
    mkdir(tmp_path("tamper"), 0755);
    mkdir(tmp_path("tamper/dir"), 0755);
    write_file_bytes(tmp_path("tamper/dir/file.txt"), (const uint8_t *)"precious bytes", 14);
    ipfsrt_pack_options o;
    ipfsrt_pack_preset("kubo-v1-2025", &o, NULL);
    ipfsrt_cid root;
    ipfsrt_error err;
    char *in = strdup(tmp_path("tamper"));
    if (ipfsrt_pack_to_car(in, &o, tmp_path("t.car"), 1, &root, &err) != IPFSRT_OK)
        fail_msg("pack: %s", err.message);
    free(in);
    size_t len;
    uint8_t *car = read_file(tmp_path("t.car"), &len);
    /* the file's bytes, and the name "dir" in the root directory block */
    uint8_t *hit = memmem(car, len, "precious", 8);
    assert_non_null(hit);
    hit[0] ^= 1;
    write_file(tmp_path("bad.car"), car, len);
    hit[0] ^= 1;
    ipfsrt_car_file *f;
    assert_int_equal(ipfsrt_car_file_new(&f, tmp_path("bad.car"), NULL, &err), IPFSRT_OK);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_car(&src, f);
    char rs[IPFSRT_CID_STR_MAX], path[IPFSRT_CID_STR_MAX + 64];
    ipfsrt_cid_to_string(&root, rs);
    snprintf(path, sizeof path, "%s/dir/file.txt", rs);
    ipfsrt_unixfs_node_info info;
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_EHASH_MISMATCH);
    assert_true(strlen(err.cid) > 0);
    assert_non_null(strstr(err.message, err.cid));
    ipfsrt_car_file_free(f);
    hit = memmem(car, len, "dir", 3);
    hit[0] = 'D';
    write_file(tmp_path("bad2.car"), car, len);
    assert_int_equal(ipfsrt_car_file_new(&f, tmp_path("bad2.car"), NULL, &err), IPFSRT_OK);
    ipfsrt_blocksource_car(&src, f);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_EHASH_MISMATCH);
    char root_s[IPFSRT_CID_STR_MAX];
    assert_string_equal(err.cid, ipfsrt_cid_to_string(&root, root_s));
    ipfsrt_car_file_free(f);
    free(car);
}

/* A dag-pb HAMT shard (fanout 2) over links named names[i] to cids[i]. */
static void put_shard(ipfsrt_memstore *m, const char **names, const ipfsrt_cid *cids, size_t n,
                      ipfsrt_cid *out) {
    uint8_t bits = 3;
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_HAMT_SHARD, .data = &bits, .data_len = 1,
                             .has_hash_type = true, .hash_type = 0x22, .has_fanout = true, .fanout = 2};
    ipfsrt_buf data, block;
    ipfsrt_buf_init(&data);
    ipfsrt_buf_init(&block);
    assert_int_equal(ipfsrt_unixfs_data_encode(&fs, &data, NULL), IPFSRT_OK);
    ipfsrt_dagpb_link links[2];
    memset(links, 0, sizeof links);
    for (size_t i = 0; i < n; i++) {
        links[i].cid = cids[i];
        links[i].name = (const uint8_t *)names[i];
        links[i].name_len = strlen(names[i]);
    }
    ipfsrt_dagpb_node pb = {data.data, data.len, links, n};
    assert_int_equal(ipfsrt_dagpb_encode(&pb, &block, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_cid_sum(out, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, block.data,
                                    block.len, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_put(m, out, block.data, block.len, NULL), IPFSRT_OK);
    ipfsrt_buf_free(&data);
    ipfsrt_buf_free(&block);
}

static ipfsrt_status count_any(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)e, (void)err;
    (*(size_t *)user)++;
    return IPFSRT_OK;
}

/* Valid blocks, a malformed DAG: each shard's two buckets lead to the same next
 * shard, so a naive listing doubles at every level (2^40 entries from 41 small
 * blocks). Entries must hash to the buckets they are found under. */
static void test_diamond_hamt(void **state) {
    (void)state;
    ipfsrt_memstore *m;
    assert_int_equal(ipfsrt_memstore_new(&m, NULL), IPFSRT_OK);
    ipfsrt_cid leaf, cur;
    assert_int_equal(ipfsrt_cid_sum(&leaf, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256,
                                    (const uint8_t *)"x", 1, NULL), IPFSRT_OK);
    /* the bottom shard: two names in the buckets their hashes pick */
    const char *bottom[2];
    char names[2][32];
    for (int b = 0, k = 0; b < 2; k++) {
        char candidate[16];
        snprintf(candidate, sizeof candidate, "f%d", k);
        uint64_t h = ipfsrt_murmur3_x64_64((const uint8_t *)candidate, strlen(candidate));
        if ((int)(h >> 63) != b) continue;
        snprintf(names[b], sizeof names[b], "%d%s", b, candidate);
        bottom[b] = names[b];
        b++;
    }
    ipfsrt_cid two[2] = {leaf, leaf};
    put_shard(m, bottom, two, 2, &cur);
    const char *buckets[2] = {"0", "1"};
    for (int d = 0; d < 40; d++) {
        ipfsrt_cid same[2] = {cur, cur};
        put_shard(m, buckets, same, 2, &cur);
    }
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, m);
    size_t listed = 0;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_ls(&src, &cur, false, count_any, &listed, &err), IPFSRT_EBAD_UNIXFS);
    assert_non_null(strstr(err.message, "does not hash to"));
    assert_true(listed < 2);
    ipfsrt_memstore_free(m);
}

/* Sizes past 2^63 are malformed: they would turn negative in signed arithmetic
 * (a gateway's entity-bytes, a Lua integer). */
static void test_absurd_sizes(void **state) {
    (void)state;
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_FILE, .has_filesize = true,
                             .filesize = (uint64_t)1 << 63};
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    assert_int_equal(ipfsrt_unixfs_data_encode(&fs, &b, NULL), IPFSRT_OK);
    ipfsrt_unixfs_data got;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_data_decode(b.data, b.len, &got, &err), IPFSRT_EBAD_UNIXFS);
    assert_non_null(strstr(err.message, "2^63"));
    ipfsrt_buf_free(&b);
    fs.filesize = (uint64_t)INT64_MAX;
    ipfsrt_buf_init(&b);
    assert_int_equal(ipfsrt_unixfs_data_encode(&fs, &b, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_unixfs_data_decode(b.data, b.len, &got, &err), IPFSRT_OK);
    ipfsrt_unixfs_data_free(&got);
    ipfsrt_buf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dagpb_vectors),     cmocka_unit_test(test_dagpb_rejects),
        cmocka_unit_test(test_unixfs_data),       cmocka_unit_test(test_murmur3),
        cmocka_unit_test(test_kubo_vectors),      cmocka_unit_test(test_ranges_and_blocks),
        cmocka_unit_test(test_irregular_dags),
        cmocka_unit_test(test_hamt),              cmocka_unit_test(test_symlinks_and_paths),
        cmocka_unit_test(test_tampered_path),
        cmocka_unit_test(test_diamond_hamt),
        cmocka_unit_test(test_absurd_sizes),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
