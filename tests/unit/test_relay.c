/* The client relay: many threads reading through one client, which the test's
 * main thread drives, against ipfsrt gateways in this process on 127.0.0.1.
 * Worker threads only record what they saw; the main thread asserts. */
#include "testutil.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_SIZE 400000
#define READERS 8

static uint8_t content[FILE_SIZE];
static char file_path[IPFSRT_CID_STR_MAX + 16];
static char car_path[600];

static int setup(void **state) {
    if (tmpdir_setup(state) != 0) return -1;
    char dir[600], file[700];
    snprintf(dir, sizeof dir, "%s", tmp_path("tree"));
    mkdir(dir, 0755);
    fill_random(content, sizeof content, 7);
    snprintf(file, sizeof file, "%s/data.bin", dir);
    write_file(file, content, sizeof content);
    snprintf(car_path, sizeof car_path, "%s", tmp_path("tree.car"));
    ipfsrt_pack_options o;
    ipfsrt_pack_preset("kubo-v1-2025", &o, NULL);
    o.chunk_size = 65536; /* seven leaves under one node */
    ipfsrt_cid cid;
    if (ipfsrt_pack_to_car(dir, &o, car_path, 1, &cid, NULL) != IPFSRT_OK) return -1;
    char s[IPFSRT_CID_STR_MAX];
    snprintf(file_path, sizeof file_path, "%s/data.bin", ipfsrt_cid_to_string(&cid, s));
    return 0;
}

static ipfsrt_server *start_gateway(const ipfsrt_server_faults *faults) {
    const char *paths[] = {car_path};
    ipfsrt_server_options opts = {.size = sizeof opts, .cars = paths, .n_cars = 1, .threads = 2};
    if (faults) opts.faults = *faults;
    ipfsrt_server *gw;
    assert_int_equal(ipfsrt_server_new(&gw, &opts, NULL), IPFSRT_OK);
    return gw;
}

static ipfsrt_client *client_with_cache(const ipfsrt_server *gw, double timeout_s, const char *cache_dir) {
    const char *urls[] = {ipfsrt_server_url(gw)};
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, urls[0], NULL), IPFSRT_OK);
    ipfsrt_client_options o;
    ipfsrt_client_options_init(&o);
    o.gateways = &list;
    o.retries = 1;
    o.timeout_s = timeout_s;
    o.cache_dir = cache_dir;
    ipfsrt_client *c;
    assert_int_equal(ipfsrt_client_new(&c, &o, NULL), IPFSRT_OK);
    ipfsrt_gateway_list_free(&list);
    return c;
}

static ipfsrt_client *client_of(const ipfsrt_server *gw, double timeout_s) {
    return client_with_cache(gw, timeout_s, NULL);
}

/* A gateway (with faults, or none), a client of it and a relay over the client. */
typedef struct rig {
    ipfsrt_server *gw;
    ipfsrt_client *c;
    ipfsrt_client_relay *relay;
} rig;

static void rig_open(rig *r, const ipfsrt_server_faults *faults, double timeout_s) {
    r->gw = start_gateway(faults);
    r->c = client_of(r->gw, timeout_s);
    assert_int_equal(ipfsrt_client_relay_new(&r->relay, r->c, NULL), IPFSRT_OK);
}

static void rig_close(rig *r) {
    ipfsrt_client_relay_free(r->relay);
    ipfsrt_client_free(r->c);
    ipfsrt_server_free(r->gw);
}

typedef struct reader {
    ipfsrt_blocksource src; /* counts, then asks relayed */
    ipfsrt_blocksource relayed;
    size_t gets;
    uint8_t *got;
    size_t len;
    ipfsrt_status status;
    ipfsrt_error err;
} reader;

static ipfsrt_status keep_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    reader *r = user;
    if (r->len + len > FILE_SIZE) return IPFSRT_EBAD_RANGE;
    memcpy(r->got + r->len, data, len);
    r->len += len;
    return IPFSRT_OK;
}

static ipfsrt_status counted_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                 ipfsrt_error *err) {
    reader *r = ctx;
    r->gets++;
    return ipfsrt_blocksource_get(&r->relayed, cid, ref, err);
}

static void counted_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    reader *r = ctx;
    ipfsrt_blocksource_release(&r->relayed, ref);
}

static void reader_init(reader *r, ipfsrt_client_relay *relay) {
    ipfsrt_client_relay_blocksource(relay, &r->relayed);
    r->src = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), r, counted_get, counted_release};
    assert_non_null(r->got = malloc(FILE_SIZE));
}

static void *read_file_through(void *arg) {
    reader *r = arg;
    ipfsrt_unixfs_node_info info;
    r->status = ipfsrt_unixfs_resolve(&r->src, file_path, NULL, &info, &r->err);
    if (r->status == IPFSRT_OK)
        r->status = ipfsrt_unixfs_read(&r->src, &info.cid, 0, UINT64_MAX, keep_bytes, r, &r->err);
    return NULL;
}

/* The readers run on threads of their own while this thread drives the relay;
 * the last to finish stops it. */
typedef struct crowd {
    ipfsrt_client_relay *relay;
    reader readers[READERS];
    size_t count;
    double stop_after_s; /* > 0: stop the relay this soon, readers or not */
} crowd;

static void *run_crowd(void *arg) {
    crowd *cr = arg;
    pthread_t t[READERS];
    if (cr->stop_after_s > 0) usleep((useconds_t)(cr->stop_after_s * 1e6));
    for (size_t i = 0; i < cr->count && cr->stop_after_s <= 0; i++)
        pthread_create(&t[i], NULL, read_file_through, &cr->readers[i]);
    if (cr->stop_after_s <= 0)
        for (size_t i = 0; i < cr->count; i++) pthread_join(t[i], NULL);
    ipfsrt_client_relay_stop(cr->relay);
    return NULL;
}

static void drive(crowd *cr, ipfsrt_client_relay *relay, size_t readers) {
    cr->relay = relay;
    cr->count = readers;
    for (size_t i = 0; i < readers; i++) reader_init(&cr->readers[i], relay);
    pthread_t boss;
    pthread_create(&boss, NULL, run_crowd, cr);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_relay_run(relay, &err), IPFSRT_OK);
    pthread_join(boss, NULL);
}

static void free_crowd(crowd *cr) {
    for (size_t i = 0; i < cr->count; i++) free(cr->readers[i].got);
}

/* Drives the relay on this thread until another stops it after_s from now. */
static void run_until_stopped(ipfsrt_client_relay *relay, double after_s) {
    crowd stopper = {.relay = relay, .stop_after_s = after_s};
    pthread_t boss;
    pthread_create(&boss, NULL, run_crowd, &stopper);
    assert_int_equal(ipfsrt_client_relay_run(relay, NULL), IPFSRT_OK);
    pthread_join(boss, NULL);
}

static void test_many_threads_one_fetch_per_block(void **state) {
    (void)state;
    rig g;
    rig_open(&g, NULL, 10);
    crowd cr = {0};
    drive(&cr, g.relay, READERS);
    for (size_t i = 0; i < READERS; i++) {
        assert_int_equal(cr.readers[i].status, IPFSRT_OK);
        assert_int_equal(cr.readers[i].len, FILE_SIZE);
        assert_memory_equal(cr.readers[i].got, content, FILE_SIZE);
    }
    /* the directory, the file's node and its seven leaves, each asked for once
     * however many threads wanted it at once (later ones come from the cache) */
    ipfsrt_server_stats st = IPFSRT_SERVER_STATS_INIT;
    ipfsrt_server_get_stats(g.gw, &st);
    assert_int_equal(st.requests, 9);
    ipfsrt_client_relay_stats rs = IPFSRT_CLIENT_RELAY_STATS_INIT;
    ipfsrt_client_relay_get_stats(g.relay, &rs);
    size_t gets = 0;
    for (size_t i = 0; i < READERS; i++) gets += cr.readers[i].gets;
    assert_int_equal(rs.jobs + rs.coalesced, gets);
    assert_true(rs.coalesced > 0 && rs.jobs < gets / 2);
    /* stopped: a call fails at once, it does not wait */
    ipfsrt_blocksource src;
    ipfsrt_client_relay_blocksource(g.relay, &src);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_unixfs_resolve(&src, file_path, NULL, &info, &err), IPFSRT_ECANCELED);
    free_crowd(&cr);
    rig_close(&g);
}

static void test_liar_fails_every_waiter(void **state) {
    (void)state;
    ipfsrt_server_faults faults = {.tamper = 1, .seed = 3};
    rig g;
    rig_open(&g, &faults, 10);
    crowd cr = {0};
    drive(&cr, g.relay, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(cr.readers[i].status, IPFSRT_EFETCH_FAILED);
        assert_non_null(strstr(cr.readers[i].err.message, ipfsrt_server_url(g.gw)));
        assert_true(cr.readers[i].err.cid[0] != '\0');
        assert_int_equal(cr.readers[i].len, 0); /* not a byte of what failed its hash */
    }
    free_crowd(&cr);
    rig_close(&g);
}

/* A reader waiting on a gateway that takes its time is let go when the relay stops. */
static void test_stop_releases_waiters(void **state) {
    (void)state;
    ipfsrt_server_faults faults = {.delay_ms = 5000};
    rig g;
    rig_open(&g, &faults, 30);
    reader waiting = {0};
    reader_init(&waiting, g.relay);
    pthread_t t;
    pthread_create(&t, NULL, read_file_through, &waiting);
    run_until_stopped(g.relay, 0.5);
    pthread_join(t, NULL);
    assert_int_equal(waiting.status, IPFSRT_ECANCELED); /* not the answer, 5 s away */
    free(waiting.got);
    rig_close(&g);
}

/* A caller that asks for a path's blocks without waiting (on a gateway 300 ms
 * away), then for the same path waiting, then reads the file. */
typedef struct early {
    ipfsrt_client_relay *relay;
    ipfsrt_status posted;
    double round_trip_before, round_trip_posted, round_trip_after;
    reader r;
} early;

static void *prefetch_early(void *arg) {
    early *e = arg;
    e->round_trip_before = ipfsrt_client_relay_round_trip(e->relay);
    e->posted = ipfsrt_client_relay_prefetch_nowait(e->relay, file_path, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX, NULL);
    e->round_trip_posted = ipfsrt_client_relay_round_trip(e->relay);
    (void)ipfsrt_client_relay_prefetch(e->relay, file_path, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX, NULL);
    e->round_trip_after = ipfsrt_client_relay_round_trip(e->relay);
    read_file_through(&e->r);
    ipfsrt_client_relay_stop(e->relay);
    return NULL;
}

/* The call without waiting returns at once; the waiting one joins its request;
 * the walk after finds every block kept: one CAR request in all. The gateway's
 * round trip is known once it has answered. */
static void test_prefetch_without_waiting(void **state) {
    (void)state;
    ipfsrt_server_faults faults = {.delay_ms = 300};
    rig g;
    rig_open(&g, &faults, 10);
    early e = {.relay = g.relay};
    reader_init(&e.r, g.relay);
    pthread_t t;
    pthread_create(&t, NULL, prefetch_early, &e);
    assert_int_equal(ipfsrt_client_relay_run(g.relay, NULL), IPFSRT_OK);
    pthread_join(t, NULL);
    assert_int_equal(e.posted, IPFSRT_OK);
    assert_true(e.round_trip_before == 0);
    assert_true(e.round_trip_posted == 0); /* posted before the gateway answered: it did not wait */
    assert_true(e.round_trip_after >= 0.3);
    assert_int_equal(e.r.status, IPFSRT_OK);
    assert_memory_equal(e.r.got, content, FILE_SIZE);
    ipfsrt_server_stats st = IPFSRT_SERVER_STATS_INIT;
    ipfsrt_server_get_stats(g.gw, &st);
    assert_int_equal(st.requests, 1);
    ipfsrt_client_relay_stats rs = IPFSRT_CLIENT_RELAY_STATS_INIT;
    ipfsrt_client_relay_get_stats(g.relay, &rs);
    assert_int_equal(rs.jobs, 0);
    assert_int_equal(rs.prefetched, 9); /* the directory, the file's node, its seven leaves */
    free(e.r.got);
    rig_close(&g);
}

/* A prefetch nobody waits for, still out when the relay stops, ends with it
 * (the sanitizers see it freed). */
static void test_unwaited_prefetch_at_stop(void **state) {
    (void)state;
    ipfsrt_server_faults faults = {.delay_ms = 5000};
    rig g;
    rig_open(&g, &faults, 30);
    assert_int_equal(ipfsrt_client_relay_prefetch_nowait(g.relay, file_path, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX, NULL),
                     IPFSRT_OK);
    run_until_stopped(g.relay, 0.3);
    ipfsrt_server_stats st = IPFSRT_SERVER_STATS_INIT;
    ipfsrt_server_get_stats(g.gw, &st);
    assert_int_equal(st.status_2xx, 0); /* the relay stopped without waiting for the answer */
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_relay_prefetch_nowait(g.relay, file_path, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX, &err),
                     IPFSRT_ECANCELED);
    rig_close(&g);
}

/* A second relay over the cache directory the first filled: its readers find
 * every block there themselves, on their own threads, with no driver running
 * and the gateway gone; a damaged file is no block. */
static void test_cache_directory_without_driver(void **state) {
    (void)state;
    char cache_dir[600];
    snprintf(cache_dir, sizeof cache_dir, "%s", tmp_path("relay-cache"));
    ipfsrt_server *gw = start_gateway(NULL);
    ipfsrt_client *c = client_with_cache(gw, 10, cache_dir);
    ipfsrt_client_relay *relay;
    assert_int_equal(ipfsrt_client_relay_new(&relay, c, NULL), IPFSRT_OK);
    crowd cr = {0};
    drive(&cr, relay, 1);
    assert_int_equal(cr.readers[0].status, IPFSRT_OK);
    free_crowd(&cr);
    ipfsrt_client_relay_free(relay);
    ipfsrt_client_free(c);
    c = client_with_cache(gw, 10, cache_dir);
    ipfsrt_server_free(gw);
    assert_int_equal(ipfsrt_client_relay_new(&relay, c, NULL), IPFSRT_OK);
    reader readers[4] = {0};
    pthread_t t[4];
    size_t gets = 0;
    for (size_t i = 0; i < 4; i++) {
        reader_init(&readers[i], relay);
        pthread_create(&t[i], NULL, read_file_through, &readers[i]);
    }
    for (size_t i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(readers[i].status, IPFSRT_OK);
        assert_memory_equal(readers[i].got, content, FILE_SIZE);
        free(readers[i].got);
        gets += readers[i].gets;
    }
    ipfsrt_client_relay_stats rs = IPFSRT_CLIENT_RELAY_STATS_INIT;
    ipfsrt_client_relay_get_stats(relay, &rs);
    /* every call answered from the directory (readers racing read a block each) or kept */
    assert_int_equal(rs.jobs + rs.coalesced, gets);
    assert_true(rs.jobs >= 9);
    reader later = {0}; /* then each block is kept: no file is read again */
    reader_init(&later, relay);
    read_file_through(&later);
    assert_int_equal(later.status, IPFSRT_OK);
    free(later.got);
    ipfsrt_client_relay_stats after = IPFSRT_CLIENT_RELAY_STATS_INIT;
    ipfsrt_client_relay_get_stats(relay, &after);
    assert_int_equal(after.jobs, rs.jobs);
    assert_int_equal(after.coalesced, rs.coalesced + later.gets);
    ipfsrt_client_relay_free(relay);
    ipfsrt_client_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_threads_one_fetch_per_block),
        cmocka_unit_test(test_liar_fails_every_waiter),
        cmocka_unit_test(test_stop_releases_waiters),
        cmocka_unit_test(test_prefetch_without_waiting),
        cmocka_unit_test(test_unwaited_prefetch_at_stop),
        cmocka_unit_test(test_cache_directory_without_driver),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
