#include "testutil.h"

static ipfsrt_cid sum(uint64_t codec, const void *data, size_t len) {
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, codec, IPFSRT_MH_SHA2_256, data, len, NULL), IPFSRT_OK);
    return cid;
}

static ipfsrt_cid put(ipfsrt_memstore *m, uint64_t codec, const void *data, size_t len) {
    ipfsrt_cid cid = sum(codec, data, len);
    assert_int_equal(ipfsrt_memstore_put(m, &cid, data, len, NULL), IPFSRT_OK);
    return cid;
}

/* {"a": [1, LINK], "b": {"c": "text"}, "d": h'00'} */
static void document_with_link(ipfsrt_buf *b, const ipfsrt_cid *link) {
    ipfsrt_buf_init(b);
    ipfsrt_dagcbor_put_map(b, 3);
    ipfsrt_dagcbor_put_text(b, "a", 1);
    ipfsrt_dagcbor_put_array(b, 2);
    ipfsrt_dagcbor_put_uint(b, 1);
    ipfsrt_dagcbor_put_cid(b, link);
    ipfsrt_dagcbor_put_text(b, "b", 1);
    ipfsrt_dagcbor_put_map(b, 1);
    ipfsrt_dagcbor_put_text(b, "c", 1);
    ipfsrt_dagcbor_put_text(b, "text", 4);
    ipfsrt_dagcbor_put_text(b, "d", 1);
    ipfsrt_dagcbor_put_bytes(b, (const uint8_t *)"", 1);
    assert_false(b->failed);
}

static void test_follow_dagcbor(void **state) {
    (void)state;
    ipfsrt_cid target = sum(IPFSRT_CODEC_RAW, "x", 1), link;
    ipfsrt_buf b;
    document_with_link(&b, &target);
    ipfsrt_cid cid = sum(IPFSRT_CODEC_DAG_CBOR, b.data, b.len);
    size_t consumed;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len, "a/1/rest", &consumed, &link, &err), IPFSRT_OK);
    assert_int_equal(consumed, 3);
    assert_true(ipfsrt_cid_equal(&link, &target));
    assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len, "//a//1", &consumed, &link, &err), IPFSRT_OK);
    assert_int_equal(consumed, 6);
    /* values that are not links; names that are not there; steps into scalars */
    assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len, "b/c", &consumed, &link, &err), IPFSRT_EINSIDE_BLOCK);
    assert_non_null(strstr(err.message, "'b/c'"));
    assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len, "a/0", &consumed, &link, &err), IPFSRT_EINSIDE_BLOCK);
    const char *missing[] = {"z", "a/2", "a/01", "a/-1", "a/x", "b/c/more", "d/0", "a/0/x", "a/99999999999"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
        assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len, missing[i], &consumed, &link, &err),
                         IPFSRT_ENOT_FOUND);
    ipfsrt_cid *links;
    size_t count;
    assert_int_equal(ipfsrt_ipld_links(&cid, b.data, b.len, &links, &count, &err), IPFSRT_OK);
    assert_int_equal(count, 1);
    assert_true(ipfsrt_cid_equal(&links[0], &target));
    free(links);
    /* a block under the codec that is not DAG-CBOR is refused, never walked */
    assert_int_equal(ipfsrt_ipld_follow(&cid, b.data, b.len - 1, "a/1", &consumed, &link, &err), IPFSRT_EBAD_DAGCBOR);
    ipfsrt_buf_free(&b);
}

static void test_follow_dagjson(void **state) {
    (void)state;
    ipfsrt_cid target = sum(IPFSRT_CODEC_RAW, "x", 1), link;
    char s[IPFSRT_CID_STR_MAX], doc[1024];
    snprintf(doc, sizeof doc,
             "{\"a\": [1, {\"/\": \"%s\"}], \"b\": {\"/\": {\"bytes\": \"AA\"}}, \"c\": {\"d\": null}}",
             ipfsrt_cid_to_string(&target, s));
    size_t len = strlen(doc), consumed;
    ipfsrt_cid cid = sum(IPFSRT_CODEC_DAG_JSON, doc, len);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ipld_follow(&cid, (const uint8_t *)doc, len, "a/1", &consumed, &link, &err), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&link, &target));
    assert_int_equal(ipfsrt_ipld_follow(&cid, (const uint8_t *)doc, len, "c/d", &consumed, &link, &err),
                     IPFSRT_EINSIDE_BLOCK);
    /* bytes are a value, not a map with a "/" key */
    assert_int_equal(ipfsrt_ipld_follow(&cid, (const uint8_t *)doc, len, "b/%2F", &consumed, &link, &err),
                     IPFSRT_ENOT_FOUND);
    assert_int_equal(ipfsrt_ipld_follow(&cid, (const uint8_t *)doc, len, "b//", &consumed, &link, &err),
                     IPFSRT_EINSIDE_BLOCK);
    ipfsrt_cid *links;
    size_t count;
    assert_int_equal(ipfsrt_ipld_links(&cid, (const uint8_t *)doc, len, &links, &count, &err), IPFSRT_OK);
    assert_int_equal(count, 1);
    free(links);
    const char *bad[] = {"{\"a\": {\"/\": \"not-a-cid\"}}", "{\"a\": ", "{\"a\": 1, \"a\": 2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ipfsrt_cid c = sum(IPFSRT_CODEC_DAG_JSON, bad[i], strlen(bad[i]));
        assert_int_equal(ipfsrt_ipld_links(&c, (const uint8_t *)bad[i], strlen(bad[i]), &links, &count, &err),
                         IPFSRT_EBAD_DAGCBOR);
        assert_null(links);
    }
    /* plain JSON holds no links: any path ends inside it */
    ipfsrt_cid plain = sum(IPFSRT_CODEC_JSON, doc, len);
    assert_int_equal(ipfsrt_ipld_follow(&plain, (const uint8_t *)doc, len, "a/1", &consumed, &link, &err),
                     IPFSRT_EINSIDE_BLOCK);
    assert_int_equal(ipfsrt_ipld_links(&plain, (const uint8_t *)doc, len, &links, &count, &err), IPFSRT_OK);
    assert_int_equal(count, 0);
}

/* A document of more links than one document may hold is refused. */
static void test_link_bound(void **state) {
    (void)state;
    ipfsrt_cid target = sum(IPFSRT_CODEC_RAW, "x", 1);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_dagcbor_put_array(&b, IPFSRT_IPLD_MAX_LINKS + 1);
    for (size_t i = 0; i <= IPFSRT_IPLD_MAX_LINKS; i++) ipfsrt_dagcbor_put_cid(&b, &target);
    ipfsrt_cid cid = sum(IPFSRT_CODEC_DAG_CBOR, b.data, b.len);
    ipfsrt_cid *links;
    size_t count;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ipld_links(&cid, b.data, b.len, &links, &count, &err), IPFSRT_ETOO_LARGE);
    ipfsrt_buf_free(&b);
}

/* UnixFS paths cross DAG-CBOR documents: a directory holding a document
 * whose link leads to a file; the block lists of each scope. */
static ipfsrt_status collect_cid(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    ipfsrt_cid *seen = user;
    size_t i = 0;
    while (seen[i].codec) i++;
    seen[i] = *cid;
    return IPFSRT_OK;
}

static ipfsrt_status no_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)e;
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a document has no entries");
}

static void test_unixfs_through_documents(void **state) {
    (void)state;
    ipfsrt_memstore *m;
    ipfsrt_memstore_new(&m, NULL);
    ipfsrt_blocksource src;
    ipfsrt_blocksource_memstore(&src, m);
    ipfsrt_cid file = put(m, IPFSRT_CODEC_RAW, "x", 1);
    ipfsrt_buf b;
    document_with_link(&b, &file);
    ipfsrt_cid doc = put(m, IPFSRT_CODEC_DAG_CBOR, b.data, b.len);
    ipfsrt_buf_free(&b);
    char path[512], s[IPFSRT_CID_STR_MAX];
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    snprintf(path, sizeof path, "%s/a/1", ipfsrt_cid_to_string(&doc, s));
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_OK);
    assert_int_equal(info.type, IPFSRT_UNIXFS_FILE);
    assert_true(ipfsrt_cid_equal(&info.cid, &file));
    assert_int_equal(ipfsrt_unixfs_resolve(&src, s, NULL, &info, &err), IPFSRT_OK);
    assert_int_equal(info.type, IPFSRT_UNIXFS_IPLD);
    assert_string_equal(ipfsrt_unixfs_type_name(info.type), "ipld");
    snprintf(path, sizeof path, "%s/b/c", s);
    assert_int_equal(ipfsrt_unixfs_resolve(&src, path, NULL, &info, &err), IPFSRT_EINSIDE_BLOCK);
    /* a document is neither a directory nor a file */
    assert_int_equal(ipfsrt_unixfs_ls(&src, &doc, false, no_entry, NULL, &err), IPFSRT_EBAD_UNIXFS);
    assert_non_null(strstr(err.message, "dag-cbor is not UnixFS"));
    ipfsrt_unixfs_options o;
    ipfsrt_unixfs_options_init(&o);
    ipfsrt_cid seen[4] = {0};
    o.scope = IPFSRT_SCOPE_ENTITY;
    assert_int_equal(ipfsrt_unixfs_blocks_for(&src, s, &o, collect_cid, seen, &err), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&seen[0], &doc));
    assert_int_equal(seen[1].codec, 0);
    memset(seen, 0, sizeof seen);
    o.scope = IPFSRT_SCOPE_ALL;
    assert_int_equal(ipfsrt_unixfs_blocks_for(&src, s, &o, collect_cid, seen, &err), IPFSRT_OK);
    assert_true(ipfsrt_cid_equal(&seen[1], &file));
    ipfsrt_memstore_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follow_dagcbor),
        cmocka_unit_test(test_follow_dagjson),
        cmocka_unit_test(test_link_bound),
        cmocka_unit_test(test_unixfs_through_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
