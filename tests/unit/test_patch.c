/* A patched DAG against the folder it stands for: the same changes made to a
 * folder and to its packed DAG give the root that packing the changed folder
 * gives, for every preset and for HAMT-sharded directories; only blocks the
 * old version lacks are sent; paths through files and missing blocks fail. */
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_sharded),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
