/* The callback structs a host fills (ipfsrt_policy, ipfsrt_zarr_store_ops,
 * ipfsrt_range_reader, ipfsrt_blocksource) are read at the size they say: a
 * struct from an older, shorter header is taken, the members it lacks count
 * as NULL (each test sets them to a trap and says the size ends before it);
 * a newer, longer one is taken while its unknown members are unset; one
 * without its size is refused, naming the struct. The counts the library
 * fills into a host's struct (a client's, a server's) stop at its size. */
#include <stddef.h>

#include "testutil.h"

static int trapped;

static ipfsrt_status trap_cap(void *ctx, size_t gw, unsigned *cap, ipfsrt_error *err) {
    (void)ctx, (void)gw, (void)err;
    trapped++;
    *cap = 1;
    return IPFSRT_OK;
}

static void count_free(void *ctx) { (*(int *)ctx)++; }

static ipfsrt_client *offline_client(void) {
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, "http://127.0.0.1:1", NULL), IPFSRT_OK);
    ipfsrt_client_options opts;
    ipfsrt_client_options_init(&opts);
    opts.gateways = &list;
    ipfsrt_client *c;
    assert_int_equal(ipfsrt_client_new(&c, &opts, NULL), IPFSRT_OK);
    ipfsrt_gateway_list_free(&list);
    return c;
}

static void test_policy(void **state) {
    (void)state;
    ipfsrt_client *c = offline_client();
    int freed_older = 0, freed_newer = 0, freed_refused = 0, freed_sizeless = 0;
    ipfsrt_error err;
    /* a host built before max_in_flight: its struct ends at free */
    ipfsrt_policy older = {.size = offsetof(ipfsrt_policy, max_in_flight), .ctx = &freed_older, .free = count_free,
                           .max_in_flight = trap_cap};
    trapped = 0;
    assert_int_equal(ipfsrt_client_set_policy(c, &older, &err), IPFSRT_OK);
    assert_int_equal(trapped, 0);
    /* a newer host's, one member past ours: unset is fine, set is refused (and
     * the policy freed all the same: ownership passes on every return; the one
     * the client holds stays) */
    struct {
        ipfsrt_policy known;
        void *later;
    } newer = {{.ctx = &freed_newer, .free = count_free}, NULL};
    newer.known.size = sizeof newer;
    assert_int_equal(ipfsrt_client_set_policy(c, &newer.known, &err), IPFSRT_OK);
    assert_int_equal(freed_older, 1); /* the older one, replaced */
    newer.known.ctx = &freed_refused;
    newer.later = &newer;
    assert_int_equal(ipfsrt_client_set_policy(c, &newer.known, &err), IPFSRT_EUNSUPPORTED);
    assert_int_equal(freed_refused, 1);
    assert_int_equal(freed_newer, 0);
    assert_non_null(strstr(err.message, "ipfsrt_policy set a field this ipfsrt does not know"));
    ipfsrt_policy sizeless = {.ctx = &freed_sizeless, .free = count_free};
    assert_int_equal(ipfsrt_client_set_policy(c, &sizeless, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, ".size = sizeof (ipfsrt_policy)"));
    assert_int_equal(freed_sizeless, 1);
    ipfsrt_client_free(c);
    assert_int_equal(freed_newer, 1);
}

static ipfsrt_status no_reads(void *ctx, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                              void *user, ipfsrt_error *err) {
    (void)ctx, (void)requests, (void)n, (void)fn, (void)user;
    return ipfsrt_fail(err, IPFSRT_EIO, -1, "nothing to read");
}

static ipfsrt_status trap_know(void *ctx, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)ctx, (void)key, (void)cid, (void)err;
    trapped++;
    return IPFSRT_OK;
}

static void test_zarr_store_ops(void **state) {
    (void)state;
    int freed = 0;
    ipfsrt_zarr_store_ops older = {.size = offsetof(ipfsrt_zarr_store_ops, know), .kind = "older",
                                   .get_many = no_reads, .free = count_free, .know = trap_know};
    ipfsrt_zarr_store *s;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_zarr_store_new(&s, &older, &freed, "older://", &err), IPFSRT_OK);
    trapped = 0;
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_parse(&cid, "bafkqaaa", 8, NULL, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_zarr_store_know(s, "a/0", &cid, &err), IPFSRT_OK);
    assert_int_equal(trapped, 0);
    ipfsrt_zarr_store_free(s);
    assert_int_equal(freed, 1);
    ipfsrt_zarr_store_ops sizeless = {.kind = "sizeless", .get_many = no_reads};
    assert_int_equal(ipfsrt_zarr_store_new(&s, &sizeless, NULL, "x://", &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, ".size = sizeof (ipfsrt_zarr_store_ops)"));
}

static ipfsrt_status trap_stream(void *ctx, const char *key, ipfsrt_range_sink_fn sink, void *user,
                                 ipfsrt_error *err) {
    (void)ctx, (void)key, (void)sink, (void)user, (void)err;
    trapped++;
    return IPFSRT_OK;
}

static void test_range_reader(void **state) {
    (void)state;
    /* before get_stream and what: the CAR is named "a CAR", never "trap://" */
    ipfsrt_range_reader older = {.size = offsetof(ipfsrt_range_reader, get_stream), .get_many = no_reads,
                                 .get_stream = trap_stream, .what = "trap://"};
    ipfsrt_car_ranged *car;
    ipfsrt_error err;
    trapped = 0;
    assert_int_equal(ipfsrt_car_ranged_new(&car, &older, "x.car", &err), IPFSRT_EIO);
    assert_int_equal(trapped, 0);
    assert_null(strstr(err.message, "trap://"));
    assert_non_null(strstr(err.message, "a CAR/x.car"));
    ipfsrt_range_reader sizeless = {.get_many = no_reads};
    assert_int_equal(ipfsrt_car_ranged_new(&car, &sizeless, "x.car", &err), IPFSRT_EBAD_ARGUMENT);
}

static const uint8_t block[] = "a block";

static ipfsrt_status lend(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    (void)ctx, (void)cid, (void)err;
    ref->data = block;
    ref->len = sizeof block;
    ref->token = (void *)block;
    return IPFSRT_OK;
}

static void trap_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    (void)ctx, (void)ref;
    trapped++;
}

static void test_blocksource(void **state) {
    (void)state;
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_parse(&cid, "bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am", 59, NULL, NULL),
                     IPFSRT_OK);
    ipfsrt_blocksource older = {.size = offsetof(ipfsrt_blocksource, release), .get = lend, .release = trap_release};
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    trapped = 0;
    assert_int_equal(ipfsrt_blocksource_get(&older, &cid, &ref, &err), IPFSRT_OK);
    assert_int_equal(ref.len, sizeof block);
    ipfsrt_blocksource_release(&older, &ref);
    assert_int_equal(trapped, 0);
    ipfsrt_blocksource sizeless = {.get = lend};
    assert_int_equal(ipfsrt_blocksource_get(&sizeless, &cid, &ref, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, ".size = sizeof (ipfsrt_blocksource)"));
}

/* An older host's stats end before the latencies: the bytes after its
 * struct (here, the later members, set to a mark) are never written. */
static void test_filled_stats_stop_at_their_size(void **state) {
    (void)state;
    ipfsrt_client *c = offline_client();
    ipfsrt_client_gateway_stats older;
    memset(&older, 0xAB, sizeof older);
    older.size = offsetof(ipfsrt_client_gateway_stats, latency_p50_s);
    ipfsrt_client_get_gateway_stats(c, 0, &older);
    assert_int_equal(older.requests, 0);
    const unsigned char *past = (const unsigned char *)&older + older.size;
    for (size_t i = 0; i < sizeof older - older.size; i++) assert_int_equal(past[i], 0xAB);
    ipfsrt_client_gateway_stats whole = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    whole.latency_p99_s = 7;
    ipfsrt_client_get_gateway_stats(c, 0, &whole);
    assert_true(whole.latency_p99_s == 0); /* a current host's is filled to its end */
    ipfsrt_client_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filled_stats_stop_at_their_size),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_zarr_store_ops),
        cmocka_unit_test(test_range_reader),
        cmocka_unit_test(test_blocksource),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
