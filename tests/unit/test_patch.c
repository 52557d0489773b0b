/* A patched DAG against the folder it stands for: the same changes made to a
 * folder and to its packed DAG give the root that packing the changed folder
 * gives, for every preset and for HAMT-sharded directories; only blocks the
 * old version lacks are sent; paths through files and missing blocks fail.
 * Then what versions are for: the diff of two roots, the delta of two CARs,
 * and a Zarr array appended to in a new version of a CAR's store, from C. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path) { nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* path under the test's folder, its parents made */
static const char *at(const char *root, const char *rel) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    mkdir(root, 0755);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    return path;
}

static void put_both(const char *root, ipfsrt_patch *patch, const char *rel, size_t len, uint64_t seed) {
    uint8_t *data = malloc(len + 1);
    fill_random(data, len, seed);
    write_file(at(root, rel), data, len);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_patch_put(patch, rel, data, len, &err), IPFSRT_OK);
    free(data);
}

static void remove_both(const char *root, ipfsrt_patch *patch, const char *rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    remove_tree(path);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_patch_remove(patch, rel, &err), IPFSRT_OK);
}

static ipfsrt_status store_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    return ipfsrt_memstore_put(user, cid, data, len, err);
}

static ipfsrt_status no_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)user, (void)cid, (void)data, (void)len, (void)err;
    return IPFSRT_OK;
}

static bool holds(ipfsrt_memstore *m, const ipfsrt_cid *cid) {
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, m);
    ipfsrt_blocksource_ref ref;
    if (ipfsrt_blocksource_get(&src, cid, &ref, NULL) != IPFSRT_OK) return false;
    ipfsrt_blocksource_release(&src, &ref);
    return true;
}

/* The delta: blocks the patch sent, each checked against the old version. */
typedef struct delta {
    ipfsrt_memstore *old, *blocks;
    size_t sent;
} delta;

static ipfsrt_status delta_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    delta *d = user;
    assert_false(holds(d->old, cid)); /* no old block again (the new files' bytes are all new) */
    d->sent++;
    return ipfsrt_memstore_put(d->blocks, cid, data, len, err);
}

/* What the new version holds beyond the old one: every block of it. */
typedef struct beyond {
    ipfsrt_memstore *old, *delta;
    size_t count;
} beyond;

static ipfsrt_status count_beyond(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                  ipfsrt_error *err) {
    (void)data, (void)len, (void)err;
    beyond *b = user;
    if (!holds(b->old, cid)) {
        assert_true(holds(b->delta, cid));
        b->count++;
    }
    return IPFSRT_OK;
}

/* A Zarr-like folder: metadata, a flat array, a nested one, sizes that span
 * several leaves at the small chunk size. */
static void make_dataset(const char *root, int days) {
    static const char meta[] = "{\"zarr_format\": 2}";
    write_file(at(root, ".zgroup"), (const uint8_t *)meta, sizeof meta - 1);
    write_file(at(root, "sst/.zarray"), (const uint8_t *)meta, sizeof meta - 1);
    write_file(at(root, "time/.zarray"), (const uint8_t *)meta, sizeof meta - 1);
    uint8_t buf[5000];
    for (int d = 0; d < days; d++) {
        char rel[64];
        snprintf(rel, sizeof rel, "sst/%d.0.0", d);
        fill_random(buf, sizeof buf, (uint64_t)d + 1);
        write_file(at(root, rel), buf, 300 + (size_t)d * 97 % 4700);
        snprintf(rel, sizeof rel, "anom/c/%d/0", d);
        write_file(at(root, rel), buf, 64);
    }
    write_file(at(root, "time/0"), buf, 8 * (size_t)days);
}

static void check_patch(const char *name, const ipfsrt_pack_options *o) {
    char root[256];
    snprintf(root, sizeof root, "%s/%s", tmpdir, name);
    make_dataset(root, 40);
    ipfsrt_error err;
    ipfsrt_memstore *old, *blocks, *after;
    assert_int_equal(ipfsrt_memstore_new(&old, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_new(&blocks, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_new(&after, &err), IPFSRT_OK);
    ipfsrt_cid old_root, want, got;
    assert_int_equal(ipfsrt_pack(root, o, store_sink, old, &old_root, &err), IPFSRT_OK);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, old);
    delta d = {old, blocks, 0};
    ipfsrt_patch *patch;
    assert_int_equal(ipfsrt_patch_new(&patch, &src, &old_root, o, delta_sink, &d, &err), IPFSRT_OK);
    for (int day = 40; day < 43; day++) { /* a few days appended */
        char rel[64];
        snprintf(rel, sizeof rel, "sst/%d.0.0", day);
        put_both(root, patch, rel, 1234, 1000 + (uint64_t)day);
        snprintf(rel, sizeof rel, "anom/c/%d/0", day);
        put_both(root, patch, rel, 64, 2000 + (uint64_t)day);
    }
    put_both(root, patch, "time/0", 8 * 43, 3001);     /* a file replaced */
    put_both(root, patch, "sst/.zarray", 40, 3000);     /* ... and again, smaller */
    remove_both(root, patch, "sst/3.0.0");           /* a file removed */
    remove_both(root, patch, "anom/c/5");            /* a directory removed */
    remove_both(root, patch, "nothing/there");       /* nothing: no directory made */
    remove_both(root, patch, "anom/c/7/0");          /* a directory left empty */
    put_both(root, patch, "extra/deep/new/file", 10, 3002);
    assert_int_equal(ipfsrt_patch_finish(patch, &got, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_patch_finish(patch, &got, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_patch_free(patch);
    beyond b = {old, blocks, 0};
    assert_int_equal(ipfsrt_pack(root, o, count_beyond, &b, &want, &err), IPFSRT_OK);
    char s1[IPFSRT_CID_STR_MAX], s2[IPFSRT_CID_STR_MAX];
    if (!ipfsrt_cid_equal(&want, &got))
        fail_msg("%s: patched %s, packed %s", name, ipfsrt_cid_to_string(&got, s1), ipfsrt_cid_to_string(&want, s2));
    assert_int_equal(b.count, ipfsrt_memstore_count(blocks)); /* every new block, and each once */
    assert_true(d.sent == b.count);
    ipfsrt_memstore_free(old);
    ipfsrt_memstore_free(blocks);
    ipfsrt_memstore_free(after);
    remove_tree(root);
}

static void test_presets(void **state) {
    (void)state;
    static const char *const presets[] = {"ipfs-car", "kubo", "kubo-v1-2025"};
    for (size_t i = 0; i < 3; i++) {
        ipfsrt_pack_options o;
        assert_int_equal(ipfsrt_pack_preset(presets[i], &o, NULL), IPFSRT_OK);
        o.chunk_size = 1024; /* files of several leaves, and of several levels */
        o.max_links = 3;
        check_patch(presets[i], &o);
    }
}

static void test_sharded(void **state) {
    (void)state;
    static const char *const rules[] = {"entries:8", "link-bytes:200", "block-bytes:300"};
    for (size_t i = 0; i < 3; i++) {
        ipfsrt_pack_options o;
        assert_int_equal(ipfsrt_pack_preset(i == 1 ? "kubo" : "kubo-v1-2025", &o, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_pack_parse_hamt_rule(rules[i], &o, NULL), IPFSRT_OK);
        o.hamt_fanout = 4; /* sub-shards at forty names */
        char name[32];
        snprintf(name, sizeof name, "sharded%zu", i);
        check_patch(name, &o);
    }
}

static void test_refusals(void **state) {
    (void)state;
    char root[256];
    snprintf(root, sizeof root, "%s/refused", tmpdir);
    make_dataset(root, 3);
    ipfsrt_error err;
    ipfsrt_memstore *old, *blocks;
    assert_int_equal(ipfsrt_memstore_new(&old, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_new(&blocks, &err), IPFSRT_OK);
    ipfsrt_cid old_root, got;
    assert_int_equal(ipfsrt_pack(root, NULL, store_sink, old, &old_root, &err), IPFSRT_OK);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, old);
    ipfsrt_patch *patch;
    ipfsrt_pack_options kubo;
    ipfsrt_pack_preset("kubo", &kubo, NULL);
    assert_int_equal(ipfsrt_patch_new(&patch, &src, &old_root, &kubo, store_sink, blocks, &err),
                     IPFSRT_EBAD_ARGUMENT); /* a CIDv1 root is no kubo preset's */
    assert_non_null(strstr(err.message, "preset"));
    assert_int_equal(ipfsrt_patch_new(&patch, &src, &old_root, NULL, store_sink, blocks, &err), IPFSRT_OK);
    static const char *const bad[] = {"", "/a", "a//b", "a/", "./a", "a/../b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ipfsrt_patch_put(patch, bad[i], (const uint8_t *)"x", 1, &err), IPFSRT_EBAD_ARGUMENT);
        assert_int_equal(ipfsrt_patch_remove(patch, bad[i], &err), IPFSRT_EBAD_ARGUMENT);
    }
    assert_int_equal(ipfsrt_patch_put(patch, "sst/0.0.0/inside", (const uint8_t *)"x", 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_patch_finish(patch, &got, &err), IPFSRT_ENOT_DIRECTORY);
    assert_non_null(strstr(err.message, "sst/0.0.0"));
    ipfsrt_patch_free(patch);
    /* an old version missing a block it needs */
    ipfsrt_memstore *empty;
    assert_int_equal(ipfsrt_memstore_new(&empty, &err), IPFSRT_OK);
    ipfsrt_blocksource_memstore(&src, empty);
    assert_int_equal(ipfsrt_patch_new(&patch, &src, &old_root, NULL, store_sink, blocks, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_patch_put(patch, "sst/9.0.0", (const uint8_t *)"x", 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_patch_finish(patch, &got, &err), IPFSRT_ENOT_FOUND);
    ipfsrt_patch_free(patch);
    ipfsrt_memstore_free(empty);
    ipfsrt_memstore_free(old);
    ipfsrt_memstore_free(blocks);
    remove_tree(root);
}

/* A source that lends from the first map that has the block: a delta over
 * the old version. */
typedef struct layered {
    ipfsrt_blocksource top, under;
} layered;

static ipfsrt_status layered_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    layered *l = ctx;
    ipfsrt_status st = ipfsrt_blocksource_get(&l->top, cid, ref, err);
    return st == IPFSRT_ENOT_FOUND ? ipfsrt_blocksource_get(&l->under, cid, ref, err) : st;
}

typedef struct seen_changes {
    char text[4096];
} seen_changes;

static ipfsrt_status note_change(void *user, const ipfsrt_unixfs_change *c, ipfsrt_error *err) {
    (void)err;
    seen_changes *s = user;
    static const char mark[] = {'+', '-', '~'};
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "%c%s ", mark[c->kind], c->path);
    assert_true((c->old_cid != NULL) == (c->kind != IPFSRT_UNIXFS_ADDED));
    assert_true((c->new_cid != NULL) == (c->kind != IPFSRT_UNIXFS_REMOVED));
    return IPFSRT_OK;
}

/* The files that differ, in name order, depth first: added, removed,
 * changed, a file become a directory, a directory become a file; nothing
 * for the same root. */
static void test_diff(void **state) {
    (void)state;
    char root[256];
    snprintf(root, sizeof root, "%s/diffed", tmpdir);
    make_dataset(root, 4);
    ipfsrt_error err;
    ipfsrt_memstore *old, *fresh;
    assert_int_equal(ipfsrt_memstore_new(&old, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_new(&fresh, &err), IPFSRT_OK);
    ipfsrt_cid old_root, new_root;
    assert_int_equal(ipfsrt_pack(root, NULL, store_sink, old, &old_root, &err), IPFSRT_OK);
    layered l;
    ipfsrt_blocksource_memstore(&l.top, fresh);
    ipfsrt_blocksource_memstore(&l.under, old);
    ipfsrt_blocksource new_src = {sizeof new_src, &l, layered_get, NULL}, old_src;
    ipfsrt_blocksource_memstore(&old_src, old);
    ipfsrt_patch *patch;
    assert_int_equal(ipfsrt_patch_new(&patch, &old_src, &old_root, NULL, store_sink, fresh, &err), IPFSRT_OK);
    put_both(root, patch, "sst/4.0.0", 100, 4000);
    put_both(root, patch, "sst/0.0.0", 100, 4001);
    remove_both(root, patch, "sst/1.0.0");
    remove_both(root, patch, "time/0");
    put_both(root, patch, "time/0/x", 3, 4002);        /* a file become a directory */
    remove_both(root, patch, "anom/c/2");
    put_both(root, patch, "anom/c/2", 5, 4003);        /* a directory become a file */
    assert_int_equal(ipfsrt_patch_finish(patch, &new_root, &err), IPFSRT_OK);
    ipfsrt_patch_free(patch);
    seen_changes seen = {""};
    assert_int_equal(ipfsrt_unixfs_diff(&old_src, &old_root, &new_src, &new_root, note_change, &seen, &err), IPFSRT_OK);
    assert_string_equal(seen.text, "-anom/c/2/0 +anom/c/2 ~sst/0.0.0 -sst/1.0.0 +sst/4.0.0 -time/0 +time/0/x ");
    seen.text[0] = '\0';
    assert_int_equal(ipfsrt_unixfs_diff(&new_src, &new_root, &new_src, &new_root, note_change, &seen, &err), IPFSRT_OK);
    assert_string_equal(seen.text, "");
    /* a root that is no directory */
    const ipfsrt_cid *file_cid = NULL;
    ipfsrt_unixfs_node_info info;
    char path[IPFSRT_CID_STR_MAX + 16];
    snprintf(path, sizeof path, "%s/sst/0.0.0", ipfsrt_cid_to_string(&old_root, (char[IPFSRT_CID_STR_MAX]){0}));
    assert_int_equal(ipfsrt_unixfs_resolve(&old_src, path, NULL, &info, &err), IPFSRT_OK);
    file_cid = &info.cid;
    assert_int_equal(ipfsrt_unixfs_diff(&old_src, file_cid, &old_src, &old_root, note_change, &seen, &err),
                     IPFSRT_ENOT_DIRECTORY);
    ipfsrt_memstore_free(old);
    ipfsrt_memstore_free(fresh);
    remove_tree(root);
}

/* A plain UnixFS directory of width names, every one linking child. */
static ipfsrt_cid put_fan_dir(ipfsrt_memstore *m, const ipfsrt_cid *child, int width) {
    static const uint8_t dir_data[] = {0x08, 0x01}; /* UnixFS Data: Type = Directory */
    ipfsrt_dagpb_link links[100];
    char names[100][16];
    assert_true(width <= 100);
    for (int i = 0; i < width; i++) {
        snprintf(names[i], sizeof names[i], "n%03d", i);
        links[i] = (ipfsrt_dagpb_link){*child, (const uint8_t *)names[i], strlen(names[i]), true, 1};
    }
    ipfsrt_dagpb_node node = {dir_data, sizeof dir_data, links, (size_t)width};
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    assert_int_equal(ipfsrt_dagpb_encode(&node, &b, NULL), IPFSRT_OK);
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, b.data, b.len, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_put(m, &cid, b.data, b.len, NULL), IPFSRT_OK);
    ipfsrt_buf_free(&b);
    return cid;
}

/* levels directories, each of width names linking the one below; the bottom
 * one's names link a raw block of text: width^levels paths over levels + 1 blocks. */
static ipfsrt_cid put_diamond(ipfsrt_memstore *m, const char *text, int levels, int width) {
    ipfsrt_cid cur;
    assert_int_equal(ipfsrt_cid_sum(&cur, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)text,
                                    strlen(text), NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_put(m, &cur, (const uint8_t *)text, strlen(text), NULL), IPFSRT_OK);
    for (int l = 0; l < levels; l++) cur = put_fan_dir(m, &cur, width);
    return cur;
}

typedef struct counted {
    ipfsrt_blocksource under;
    size_t gets;
} counted;

static ipfsrt_status counted_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    counted *c = ctx;
    c->gets++;
    return ipfsrt_blocksource_get(&c->under, cid, ref, err);
}

static ipfsrt_status count_change(void *user, const ipfsrt_unixfs_change *c, ipfsrt_error *err) {
    (void)c, (void)err;
    (*(size_t *)user)++;
    return IPFSRT_OK;
}

/* Two diamond DAGs: every path is reported, each block read a bounded number
 * of times (a directory reached by many paths is listed once); past the
 * walk's bound on paths, the diff stops with an error. */
static void test_diff_diamonds(void **state) {
    (void)state;
    ipfsrt_memstore *m;
    assert_int_equal(ipfsrt_memstore_new(&m, NULL), IPFSRT_OK);
    ipfsrt_cid old_root = put_diamond(m, "old leaf", 3, 20), new_root = put_diamond(m, "new leaf", 3, 20);
    counted src = {.gets = 0};
    ipfsrt_blocksource_memstore(&src.under, m);
    ipfsrt_blocksource counting = {sizeof counting, &src, counted_get, NULL};
    size_t changes = 0;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_diff(&counting, &old_root, &counting, &new_root, count_change, &changes, &err),
                     IPFSRT_OK);
    assert_int_equal(changes, 20 * 20 * 20);
    assert_true(src.gets <= 4 * 8); /* 8 blocks, each read a few times at most, not once per path */
    /* 30^5 paths: over the bound, stopped, with a bounded number of reads */
    old_root = put_diamond(m, "old leaf", 5, 30);
    new_root = put_diamond(m, "new leaf", 5, 30);
    src.gets = 0;
    assert_int_equal(ipfsrt_unixfs_diff(&counting, &old_root, &counting, &new_root, count_change, &changes, &err),
                     IPFSRT_ETOO_LARGE);
    assert_non_null(strstr(err.message, "under many names"));
    assert_true(src.gets <= 4 * 12);
    ipfsrt_memstore_free(m);
}

/* The new version's block for a changed file is missing: an error naming it. */
static void test_diff_missing_block(void **state) {
    (void)state;
    ipfsrt_memstore *old, *fresh;
    assert_int_equal(ipfsrt_memstore_new(&old, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_memstore_new(&fresh, NULL), IPFSRT_OK);
    ipfsrt_cid old_root = put_diamond(old, "old leaf", 1, 1);
    ipfsrt_cid leaf; /* never put */
    assert_int_equal(ipfsrt_cid_sum(&leaf, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, (const uint8_t *)"new leaf", 8,
                                    NULL), IPFSRT_OK);
    ipfsrt_cid new_root = put_fan_dir(fresh, &leaf, 1);
    ipfsrt_blocksource old_src, new_src;
    ipfsrt_blocksource_memstore(&old_src, old);
    ipfsrt_blocksource_memstore(&new_src, fresh);
    size_t changes = 0;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_diff(&old_src, &old_root, &new_src, &new_root, count_change, &changes, &err),
                     IPFSRT_ENOT_FOUND);
    assert_int_equal(changes, 0);
    char want[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&leaf, want);
    assert_string_equal(err.cid, want);
    assert_non_null(strstr(err.message, "n000"));
    ipfsrt_memstore_free(old);
    ipfsrt_memstore_free(fresh);
}

/* A CAR's delta over another: the blocks the old one lacks, the new one's
 * root; a new CAR that does not verify is refused and leaves no file. */
static void test_car_diff(void **state) {
    (void)state;
    char root[256], old_car[300], new_car[300], delta_car[300];
    snprintf(root, sizeof root, "%s/cars", tmpdir);
    snprintf(old_car, sizeof old_car, "%s/old.car", tmpdir);
    snprintf(new_car, sizeof new_car, "%s/new.car", tmpdir);
    snprintf(delta_car, sizeof delta_car, "%s/delta.car", tmpdir);
    make_dataset(root, 6);
    ipfsrt_error err;
    ipfsrt_cid old_root, new_root;
    assert_int_equal(ipfsrt_pack_to_car(root, NULL, old_car, 2, &old_root, &err), IPFSRT_OK);
    uint8_t day[3000];
    fill_random(day, sizeof day, 5000);
    write_file(at(root, "sst/6.0.0"), day, sizeof day);
    assert_int_equal(ipfsrt_pack_to_car(root, NULL, new_car, 1, &new_root, &err), IPFSRT_OK);
    ipfsrt_car_diff_stats stats = IPFSRT_CAR_DIFF_STATS_INIT;
    assert_int_equal(ipfsrt_car_diff(old_car, new_car, delta_car, &stats, &err), IPFSRT_OK);
    ipfsrt_car_file *old, *fresh;
    assert_int_equal(ipfsrt_car_file_new(&old, old_car, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_car_file_new(&fresh, delta_car, NULL, &err), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&ipfsrt_car_file_header(fresh)->roots[0], &new_root));
    uint64_t cursor = 0, blocks = 0;
    bool done = false;
    ipfsrt_car_block b;
    while (ipfsrt_car_file_next(fresh, &cursor, &b, &done, &err) == IPFSRT_OK && !done) {
        assert_false(ipfsrt_car_file_has(old, &b.cid));
        blocks++;
    }
    assert_true(done);
    assert_int_equal(blocks, stats.new_blocks);
    assert_int_equal(stats.new_blocks, 3); /* the day (one raw leaf), sst/, the root */
    assert_true(stats.shared_blocks > 10);
    ipfsrt_car_file_free(old);
    ipfsrt_car_file_free(fresh);
    /* a flipped byte in the new CAR's last block */
    size_t len;
    uint8_t *bytes = read_file(new_car, &len);
    bytes[len - 5] ^= 1;
    write_file(new_car, bytes, len);
    free(bytes);
    remove(delta_car);
    assert_int_equal(ipfsrt_car_diff(old_car, new_car, delta_car, NULL, &err), IPFSRT_EHASH_MISMATCH);
    assert_non_null(strstr(err.message, "new.car"));
    assert_int_equal(access(delta_car, F_OK), -1);
    char partial[320];
    snprintf(partial, sizeof partial, "%s.partial", delta_car);
    assert_int_equal(access(partial, F_OK), -1);
    stats.size = 0;
    assert_int_equal(ipfsrt_car_diff(old_car, old_car, delta_car, &stats, &err), IPFSRT_EBAD_ARGUMENT);
    remove_tree(root);
}

static ipfsrt_status note_name(void *user, const ipfsrt_zarr_store_entry *e, ipfsrt_error *err) {
    (void)err;
    seen_changes *s = user;
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "%s ", e->name);
    return IPFSRT_OK;
}

/* The version lists the old keys and the new ones, erased ones gone; what it
 * erases here is put back (x's first rows: chunk 0.0's bytes). */
static void check_listing(ipfsrt_zarr_store *version, const ipfsrt_ndarray *x) {
    ipfsrt_error err;
    seen_changes names = {""};
    assert_int_equal(ipfsrt_zarr_store_list_dir(version, "", note_name, &names, &err), IPFSRT_OK);
    assert_string_equal(names.text, ".zarray 0.0 1.0 2.0 ");
    assert_int_equal(ipfsrt_zarr_store_put(version, "extra/x", "1", 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_erase(version, "extra/x", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_erase(version, "0.0", &err), IPFSRT_OK);
    names.text[0] = '\0';
    assert_int_equal(ipfsrt_zarr_store_list_dir(version, "", note_name, &names, &err), IPFSRT_OK);
    assert_string_equal(names.text, ".zarray 1.0 2.0 ");
    assert_int_equal(ipfsrt_zarr_store_put(version, "0.0", x->data, 16, &err), IPFSRT_OK);
}

/* What a C host does to publish a new version: the old one's CAR as a store,
 * a new version of it, an array appended to, the delta committed; the root
 * is the one the same append to the folder packs to. */
static void test_version_store(void **state) {
    (void)state;
    char root[256], old_car[300], delta_car[300];
    snprintf(root, sizeof root, "%s/zarr", tmpdir);
    snprintf(old_car, sizeof old_car, "%s/zarr.car", tmpdir);
    snprintf(delta_car, sizeof delta_car, "%s/zarr-delta.car", tmpdir);
    ipfsrt_error err;
    ipfsrt_zarr_store *folder, *car, *version;
    assert_int_equal(ipfsrt_zarr_store_new_folder(&folder, root, true, &err), IPFSRT_OK);
    static const char meta[] = "{\"zarr_format\": 2, \"shape\": [3, 4], \"chunks\": [2, 4], \"dtype\": \"<i2\", "
                               "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}";
    ipfsrt_zarr_node *a, *b;
    assert_int_equal(ipfsrt_zarr_create_array(&a, folder, "", meta, strlen(meta), &err), IPFSRT_OK);
    ipfsrt_ndarray x, more;
    ipfsrt_ndarray_init(&x), ipfsrt_ndarray_init(&more);
    assert_int_equal(ipfsrt_ndarray_full(&x, IPFSRT_DTYPE_INT16, 0, 2, (size_t[]){3, 4}, 7, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_write(a, NULL, 0, &x, NULL, &err), IPFSRT_OK);
    ipfsrt_cid old_root, new_root, want;
    assert_int_equal(ipfsrt_pack_to_car(root, NULL, old_car, 1, &old_root, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_full(&more, IPFSRT_DTYPE_INT16, 0, 2, (size_t[]){2, 4}, 9, &err), IPFSRT_OK);
    /* the CAR's new version */
    assert_int_equal(ipfsrt_zarr_store_new_car(&car, old_car, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_new_version(&version, car, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open(&b, version, "", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_append(b, 0, &more, NULL, &err), IPFSRT_OK);
    ipfsrt_ndarray wrong;
    ipfsrt_ndarray_init(&wrong);
    assert_int_equal(ipfsrt_ndarray_full(&wrong, IPFSRT_DTYPE_INT16, 0, 2, (size_t[]){1, 5}, 1, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_append(b, 0, &wrong, NULL, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "5 long on axis 1, the array 4"));
    check_listing(version, &x);
    assert_int_equal(ipfsrt_zarr_store_commit_car(version, delta_car, &new_root, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_commit_car(version, delta_car, &new_root, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_zarr_store_put(version, "x", "1", 1, &err), IPFSRT_EBAD_ARGUMENT); /* committed */
    /* the folder, the same append in place */
    assert_int_equal(ipfsrt_zarr_append(a, 0, &more, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_pack(root, NULL, no_sink, NULL, &want, &err), IPFSRT_OK);
    ipfsrt_zarr_node_free(a), ipfsrt_zarr_node_free(b);
    ipfsrt_zarr_store_free(version), ipfsrt_zarr_store_free(car), ipfsrt_zarr_store_free(folder);
    ipfsrt_ndarray_free(&x), ipfsrt_ndarray_free(&more), ipfsrt_ndarray_free(&wrong);
    char s1[IPFSRT_CID_STR_MAX], s2[IPFSRT_CID_STR_MAX];
    if (!ipfsrt_cid_equal(&want, &new_root))
        fail_msg("version %s, packed %s", ipfsrt_cid_to_string(&new_root, s1), ipfsrt_cid_to_string(&want, s2));
    /* the delta over the old CAR reads as the new version, values and all */
    const char *cars[] = {delta_car, old_car};
    ipfsrt_zarr_store *both;
    assert_int_equal(ipfsrt_zarr_store_new_cars(&both, cars, 2, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_open(&b, both, "", &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_meta_shape(ipfsrt_zarr_array_meta(b))[0], 5);
    assert_int_equal(ipfsrt_zarr_read(b, NULL, 0, &x, NULL, &err), IPFSRT_OK);
    assert_int_equal(((const int16_t *)(const void *)x.data)[2 * 4], 7);
    assert_int_equal(((const int16_t *)(const void *)x.data)[3 * 4], 9);
    ipfsrt_ndarray_free(&x);
    ipfsrt_zarr_node_free(b);
    ipfsrt_zarr_store_free(both);
    (void)old_root;
    remove_tree(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_sharded),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_diff_diamonds),
        cmocka_unit_test(test_diff_missing_block),
        cmocka_unit_test(test_car_diff),
        cmocka_unit_test(test_version_store),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
