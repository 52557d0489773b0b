/* The gateway client through the C API alone (no Lua), with a policy written as
 * a C callback struct, against ipfsrt gateways in this process on 127.0.0.1. */
#include "testutil.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "store/blockcache.h"

#define FILE_SIZE 400000

static uint8_t content[FILE_SIZE];
static char root[IPFSRT_CID_STR_MAX];
static char car_path[600];

static int setup(void **state) {
    if (tmpdir_setup(state) != 0) return -1;
    char dir[600];
    snprintf(dir, sizeof dir, "%s", tmp_path("tree"));
    mkdir(dir, 0755);
    fill_random(content, sizeof content, 42);
    char file[700];
    snprintf(file, sizeof file, "%s/data.bin", dir);
    write_file(file, content, sizeof content);
    snprintf(car_path, sizeof car_path, "%s", tmp_path("tree.car"));
    ipfsrt_pack_options o;
    ipfsrt_pack_preset("kubo-v1-2025", &o, NULL);
    o.chunk_size = 65536;
    ipfsrt_cid cid;
    if (ipfsrt_pack_to_car(dir, &o, car_path, 1, &cid, NULL) != IPFSRT_OK) return -1;
    ipfsrt_cid_to_string(&cid, root);
    return 0;
}

static ipfsrt_server *start_gateway(const ipfsrt_server_faults *faults) {
    const char *paths[] = {car_path};
    ipfsrt_server_options opts = {.size = sizeof opts, .threads = 2};
    if (faults) opts.faults = *faults;
    ipfsrt_server *gw;
    opts.cars = paths;
    opts.n_cars = 1;
    assert_int_equal(ipfsrt_server_new(&gw, &opts, NULL), IPFSRT_OK);
    return gw;
}

typedef struct collected {
    uint8_t *data;
    size_t len;
} collected;

static ipfsrt_status collect_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    collected *c = user;
    c->data = realloc(c->data, c->len + len);
    assert_non_null(c->data);
    memcpy(c->data + c->len, data, len);
    c->len += len;
    return IPFSRT_OK;
}

/* A policy in C: always the last gateway first, and a record of what it saw. */
typedef struct last_first {
    size_t observed, verify_failures, freed;
    size_t guesses_not_found; /* prefetches' 404s, marked as saying nothing */
    size_t last_gateway;
    unsigned first_attempt, last_attempt; /* request.attempt of the first and last observed */
    unsigned cap_asked;                   /* max_in_flight calls */
} last_first;

static ipfsrt_status lf_order(void *ctx, const ipfsrt_policy_request *req, size_t n, size_t *order,
                              size_t *count, ipfsrt_error *err) {
    (void)ctx, (void)req, (void)err;
    for (size_t i = 0; i < n; i++) order[i] = n - 1 - i;
    *count = n;
    return IPFSRT_OK;
}

static ipfsrt_status lf_observe(void *ctx, size_t gw, const ipfsrt_policy_request *req,
                                const ipfsrt_policy_outcome *o, ipfsrt_error *err) {
    (void)err;
    last_first *p = ctx;
    p->observed++;
    p->last_gateway = gw;
    if (p->observed == 1) p->first_attempt = req->attempt;
    p->last_attempt = req->attempt;
    if (o->verification_failed) p->verify_failures++;
    assert_int_equal(o->verification_failed, ipfsrt_gateway_error_is_verification(o->error));
    if (o->guess && o->error == IPFSRT_GWERR_NOT_FOUND) p->guesses_not_found++;
    return IPFSRT_OK;
}

/* A policy that cannot decide: the call stops with its error, naming it. */
static ipfsrt_status broken_order(void *ctx, const ipfsrt_policy_request *req, size_t n, size_t *order,
                                  size_t *count, ipfsrt_error *err) {
    (void)ctx, (void)req, (void)n, (void)order, (void)count;
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no table of gateways for %s", req->path);
}

static void lf_free(void *ctx) { ((last_first *)ctx)->freed++; }

/* A client under policy (its record p cleared first). */
static ipfsrt_client *client_under(const ipfsrt_client_options *opts, ipfsrt_policy *policy, last_first *p) {
    ipfsrt_client *c;
    assert_int_equal(ipfsrt_client_new(&c, opts, NULL), IPFSRT_OK);
    *p = (last_first){0};
    assert_int_equal(ipfsrt_client_set_policy(c, policy, NULL), IPFSRT_OK);
    return c;
}

/* The blocks under a file's root by CID, concurrently, by a fresh client whose
 * cache must fetch them: each one an answer of the gateway's. */
static void read_leaves(const ipfsrt_client_options *opts, const ipfsrt_cid *file) {
    ipfsrt_client *c;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_new(&c, opts, NULL), IPFSRT_OK);
    ipfsrt_blocksource src;
    ipfsrt_client_blocksource(c, &src);
    ipfsrt_blocksource_ref ref;
    assert_int_equal(ipfsrt_blocksource_get(&src, file, &ref, &err), IPFSRT_OK);
    ipfsrt_dagpb_node node;
    assert_int_equal(ipfsrt_dagpb_decode(ref.data, ref.len, &node, NULL), IPFSRT_OK);
    assert_true(node.link_count >= 6);
    ipfsrt_cid *leaves = calloc(node.link_count, sizeof *leaves);
    for (size_t i = 0; i < node.link_count; i++) leaves[i] = node.links[i].cid;
    size_t n = node.link_count;
    ipfsrt_dagpb_node_free(&node);
    ipfsrt_blocksource_release(&src, &ref);
    assert_int_equal(ipfsrt_client_blocks(c, leaves, n, NULL, NULL, &err), IPFSRT_OK);
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.ok, n + 1);
    free(leaves);
    ipfsrt_client_free(c);
}

/* A hash backend of the test's own: the built-in one, counting what it hashes. */
static atomic_uint counted;
static const ipfsrt_hash_backend *inner_backend;
static ipfsrt_status counting_digest(ipfsrt_hash_alg alg, const uint8_t *data, size_t len, uint8_t *out,
                                     ipfsrt_error *err) {
    atomic_fetch_add(&counted, 1);
    return inner_backend->digest(alg, data, len, out, err);
}
static ipfsrt_status counting_start(void *stream, ipfsrt_hash_alg alg, ipfsrt_error *err) {
    atomic_fetch_add(&counted, 1);
    return inner_backend->stream_start(stream, alg, err);
}
static ipfsrt_status counting_update(void *stream, const uint8_t *data, size_t len, ipfsrt_error *err) {
    return inner_backend->stream_update(stream, data, len, err);
}
static ipfsrt_status counting_finish(void *stream, uint8_t *out, ipfsrt_error *err) {
    return inner_backend->stream_finish(stream, out, err);
}
static void *counting_new(void) { return inner_backend->stream_new(); }
static void counting_free(void *stream) { inner_backend->stream_free(stream); }

/* Two clients of one process hash with different backends: the one given in
 * its options, and the process's. */
static void test_hash_backend_per_client(void **state) {
    (void)state;
    inner_backend = ipfsrt_hash_backends()[0];
    assert_non_null(inner_backend);
    static const ipfsrt_hash_backend counting = {"counting", counting_digest, counting_new, counting_start,
                                                 counting_update, counting_finish, counting_free};
    ipfsrt_server *gw = start_gateway(NULL);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(gw), NULL), IPFSRT_OK);
    char path[IPFSRT_CID_STR_MAX + 32];
    snprintf(path, sizeof path, "ipfs://%s/data.bin", root);
    ipfsrt_error err;
    for (int own = 0; own < 2; own++) {
        ipfsrt_client_options opts = {.size = sizeof opts, .gateways = &list, .cache_bytes = UINT64_MAX,
                                      .hash_backend = own ? &counting : NULL};
        ipfsrt_client *c;
        assert_int_equal(ipfsrt_client_new(&c, &opts, &err), IPFSRT_OK);
        unsigned before = atomic_load(&counted);
        collected got = {0};
        assert_int_equal(ipfsrt_client_read(c, path, 0, UINT64_MAX, collect_bytes, &got, &err), IPFSRT_OK);
        assert_int_equal(got.len, FILE_SIZE);
        assert_memory_equal(got.data, content, FILE_SIZE);
        if (own) assert_true(atomic_load(&counted) - before >= FILE_SIZE / 65536); /* every block through it */
        else assert_int_equal(atomic_load(&counted), before);                      /* none */
        free(got.data);
        ipfsrt_client_free(c);
    }
    /* a CAR read with it too */
    ipfsrt_car_options copts;
    ipfsrt_car_options_init(&copts);
    copts.hash_backend = &counting;
    unsigned before = atomic_load(&counted);
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    assert_int_equal(ipfsrt_car_verify_file(car_path, &copts, NULL, NULL, &counts, &err), IPFSRT_OK);
    assert_true(atomic_load(&counted) - before >= counts.blocks);
    ipfsrt_gateway_list_free(&list);
    ipfsrt_server_free(gw);
}

static void test_read_through_c_policy(void **state) {
    (void)state;
    ipfsrt_server_faults lying = {.tamper = 1};
    ipfsrt_server *honest = start_gateway(NULL), *liar = start_gateway(&lying);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(honest), NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(liar), NULL), IPFSRT_OK);
    ipfsrt_client_options opts = {.size = sizeof opts, .gateways = &list};
    last_first p;
    ipfsrt_policy policy = {.size = sizeof policy, .ctx = &p, .order = lf_order, .observe = lf_observe, .free = lf_free};
    ipfsrt_client *c = client_under(&opts, &policy, &p);

    char path[IPFSRT_CID_STR_MAX + 32];
    snprintf(path, sizeof path, "ipfs://%s/data.bin", root);
    collected got = {0};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_read(c, path, 1000, 200000, collect_bytes, &got, &err), IPFSRT_OK);
    assert_int_equal(got.len, 200000);
    assert_memory_equal(got.data, content + 1000, 200000);
    /* the liar was asked first, caught, and the honest gateway served the read:
     * the first try of the request is attempt 1, the honest one's attempt 2 */
    assert_int_equal(p.verify_failures, 1);
    assert_int_equal(p.last_gateway, 0);
    assert_int_equal(p.first_attempt, 1);
    assert_int_equal(p.last_attempt, 2);
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 1, &st);
    assert_int_equal(st.errors[IPFSRT_GWERR_HASH_MISMATCH], 1);
    assert_int_equal(st.verify_failures, 1);

    ipfsrt_unixfs_node_info info;
    assert_int_equal(ipfsrt_client_stat(c, path, &info, &err), IPFSRT_OK);
    assert_int_equal(info.size, FILE_SIZE);

    /* the blocks of the file, by CID, concurrently (the cache has them already; a
     * fresh client must fetch them) */
    ipfsrt_client_free(c);
    assert_int_equal(p.freed, 1);
    opts.cache_bytes = UINT64_MAX;
    read_leaves(&opts, &info.cid);

    /* a policy that fails stops the call with its own error */
    ipfsrt_policy broken = {.size = sizeof broken, .order = broken_order};
    assert_int_equal(ipfsrt_client_new(&c, &opts, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_set_policy(c, &broken, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_read(c, path, 0, 10, collect_bytes, &got, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "policy order: no table of gateways for /ipfs/"));
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.requests, 0);

    free(got.data);
    ipfsrt_client_free(c);
    ipfsrt_gateway_list_free(&list);
    ipfsrt_server_free(liar);
    ipfsrt_server_free(honest);
}

static void test_all_gateways_fail(void **state) {
    (void)state;
    /* every answer is another DAG (a lie in one block may hit a block the client
     * holds already, and then does no harm) */
    ipfsrt_server_faults lying = {.wrong_dag = 1};
    ipfsrt_server *liar = start_gateway(&lying);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_gateway_list_add(&list, ipfsrt_server_url(liar), NULL);
    ipfsrt_gateway_list_add(&list, "http://127.0.0.1:1", NULL); /* nobody listens there */
    ipfsrt_client_options opts = {.size = sizeof opts, .gateways = &list, .retries = 1, .timeout_s = 2};
    ipfsrt_client *c;
    assert_int_equal(ipfsrt_client_new(&c, &opts, NULL), IPFSRT_OK);
    char path[IPFSRT_CID_STR_MAX + 32];
    snprintf(path, sizeof path, "/ipfs/%s/data.bin", root);
    collected got = {0};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_read(c, path, 0, UINT64_MAX, collect_bytes, &got, &err), IPFSRT_EFETCH_FAILED);
    /* bytes come out as their blocks are proven, so a prefix may have; never others */
    assert_true(got.len < FILE_SIZE);
    if (got.len) assert_memory_equal(got.data, content, got.len);
    assert_non_null(strstr(err.message, ipfsrt_server_url(liar)));
    assert_non_null(strstr(err.message, "http://127.0.0.1:1: cannot connect"));
    assert_non_null(strstr(err.message, "lacks block"));
    free(got.data);
    ipfsrt_client_free(c);
    ipfsrt_gateway_list_free(&list);
    ipfsrt_server_free(liar);
}

static void test_gateway_list_sources(void **state) {
    (void)state;
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    setenv("IPFS_GATEWAY", "http://a.example, https://b.example/ http://c.example", 1);
    assert_int_equal(ipfsrt_gateway_list_default(&list, NULL), IPFSRT_OK);
    assert_int_equal(list.count, 3);
    assert_string_equal(list.urls[1], "https://b.example");
    assert_string_equal(list.source, "IPFS_GATEWAY");
    ipfsrt_gateway_list_free(&list);
    setenv("IPFS_GATEWAY", "ftp://nope", 1);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_gateway_list_default(&list, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_gateway_list_free(&list);
    unsetenv("IPFS_GATEWAY");
    char dir[600];
    snprintf(dir, sizeof dir, "%s", tmp_path("ipfs"));
    mkdir(dir, 0755);
    char file[700];
    snprintf(file, sizeof file, "%s/gateway", dir);
    write_file(file, (const uint8_t *)"http://from-file.example\nignored\n", 33);
    setenv("IPFS_PATH", dir, 1);
    assert_int_equal(ipfsrt_gateway_list_default(&list, NULL), IPFSRT_OK);
    assert_int_equal(list.count, 1);
    assert_string_equal(list.urls[0], "http://from-file.example");
    assert_string_equal(list.source, file);
    ipfsrt_gateway_list_free(&list);
    unsetenv("IPFS_PATH");
}

static ipfsrt_rcblock *raw_block(size_t len, uint64_t seed) {
    uint8_t *data = malloc(len);
    fill_random(data, len, seed);
    ipfsrt_cid cid;
    assert_int_equal(ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, data, len, NULL), IPFSRT_OK);
    ipfsrt_rcblock *b = ipfsrt_rcblock_new(&cid, data, len);
    free(data);
    return b;
}

/* The memory LRU keeps to its budget, and a block lent out survives its eviction. */
/* Requests in flight follow the gateway's answers: they grow while answers
 * keep their pace and more wait, up to the cap; shrink when answers slow, and
 * halve on overload, at most once a round trip; and never fall below one. */
static void test_pacing(void **state) {
    (void)state;
    ipfsrt_pacing p;
    ipfsrt_pacing_init(&p, 16, 40);
    double now = 100;
    assert_int_equal(ipfsrt_pacing_observe(&p, IPFSRT_GWERR_NONE, 0.010, 0, now), 16); /* nothing waits: no need */
    unsigned limit = 16;
    for (int i = 0; i < 30; i++) limit = ipfsrt_pacing_observe(&p, IPFSRT_GWERR_NONE, 0.010, 100, now += 0.001);
    assert_int_equal(limit, 40); /* grew, up to the cap */
    for (int i = 0; i < 10; i++) limit = ipfsrt_pacing_observe(&p, IPFSRT_GWERR_NONE, 0.090, 100, now);
    assert_true(limit < 40 && limit >= 30); /* answers slowed: shrunk once, then calm */
    now += 1;
    assert_int_equal(ipfsrt_pacing_observe(&p, IPFSRT_GWERR_RATE_LIMITED, -1, 100, now), limit / 2);
    assert_int_equal(ipfsrt_pacing_observe(&p, IPFSRT_GWERR_SERVER, -1, 100, now), limit / 2); /* once per trip */
    for (int i = 0; i < 20; i++) {
        now += 1;
        limit = ipfsrt_pacing_observe(&p, IPFSRT_GWERR_TIMEOUT, -1, 100, now);
    }
    assert_int_equal(limit, 1);
    assert_int_equal(ipfsrt_pacing_observe(&p, IPFSRT_GWERR_NOT_FOUND, 0.01, 100, now), 1); /* not the gateway's load */
    ipfsrt_pacing_init(&p, 16, 4); /* a cap below the start bounds the start */
    assert_int_equal(ipfsrt_pacing_observe(&p, IPFSRT_GWERR_NONE, 0.010, 100, now += 1), 4);
}

/* Two transfers through one slot: the second waits in the queue, and the
 * first's head cancels it from inside curl's callbacks (a hedged race won).
 * It must never go out: its user data is gone by then. */
typedef struct race {
    ipfsrt_fetch *f;
    ipfsrt_fetch_req *loser;
    int winner_heads, winner_done, loser_starts, loser_done;
} race;

static int winner_head(void *user, const ipfsrt_fetch_head *head) {
    (void)head;
    race *r = user;
    r->winner_heads++;
    ipfsrt_fetch_cancel(r->f, r->loser);
    return 0;
}

static int drop_body(void *user, const uint8_t *data, size_t len) { return (void)user, (void)data, (void)len, 0; }
static void winner_done(void *user, const ipfsrt_fetch_result *res) { (void)res, ((race *)user)->winner_done++; }
static void loser_start(void *user) { ((race *)user)->loser_starts++; }
static void loser_done(void *user, const ipfsrt_fetch_result *res) { (void)res, ((race *)user)->loser_done++; }

/* An honest gateway, and in url its URL for the root block. */
static ipfsrt_server *root_block_gateway(char *url, size_t size) {
    ipfsrt_server *gw = start_gateway(NULL);
    snprintf(url, size, "%s/ipfs/%s?format=raw", ipfsrt_server_url(gw), root);
    return gw;
}

/* Runs the engine until nothing is pending (10 s at most). */
static void drain(ipfsrt_fetch *f) {
    double until = ipfsrt_clock() + 10;
    while (ipfsrt_fetch_pump(f, 50) && ipfsrt_clock() < until) {}
}

static void test_fetch_cancel_while_queued(void **state) {
    (void)state;
    char url[400];
    ipfsrt_server *gw = root_block_gateway(url, sizeof url);
    ipfsrt_fetch_config cfg = {.slots = 1, .per_slot = 1};
    race r = {0};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_fetch_new(&r.f, &cfg, &err), IPFSRT_OK);
    ipfsrt_fetch_spec win = {.url = url, .on_head = winner_head, .on_body = drop_body, .on_done = winner_done,
                             .user = &r};
    ipfsrt_fetch_spec lose = {.url = url, .on_start = loser_start, .on_body = drop_body, .on_done = loser_done,
                              .user = &r};
    ipfsrt_fetch_req *first;
    assert_int_equal(ipfsrt_fetch_start(r.f, &win, &first, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_fetch_start(r.f, &lose, &r.loser, &err), IPFSRT_OK);
    drain(r.f);
    assert_int_equal(ipfsrt_fetch_pending(r.f), 0);
    assert_int_equal(r.winner_heads, 1);
    assert_int_equal(r.winner_done, 1);
    assert_int_equal(r.loser_starts, 0);
    assert_int_equal(r.loser_done, 0);
    ipfsrt_fetch_free(r.f);
    ipfsrt_server_free(gw);
}

/* Every connection a wave of requests opened is kept for the next wave: curl's
 * own pool (four per easy handle attached, and the engine attaches them only
 * while they run) closed most of them as the wave ended, and over HTTP/1.1
 * each closed one is a new connection in slow start. */
typedef struct wave {
    int heads, new_connections, done;
} wave;

static int count_connection(void *user, const ipfsrt_fetch_head *head) {
    wave *w = user;
    w->heads++;
    w->new_connections += head->new_connection;
    return 0;
}

static void wave_done(void *user, const ipfsrt_fetch_result *res) { (void)res, ((wave *)user)->done++; }

static void run_wave(ipfsrt_fetch *f, const char *url, int n, wave *w) {
    ipfsrt_error err;
    ipfsrt_fetch_spec spec = {.url = url, .on_head = count_connection, .on_body = drop_body, .on_done = wave_done,
                              .user = w};
    for (int i = 0; i < n; i++) {
        ipfsrt_fetch_req *req;
        assert_int_equal(ipfsrt_fetch_start(f, &spec, &req, &err), IPFSRT_OK);
    }
    drain(f);
    assert_int_equal(w->done, n);
    assert_int_equal(w->heads, n);
}

static void test_fetch_keeps_its_connections(void **state) {
    (void)state;
    char url[400];
    ipfsrt_server *gw = root_block_gateway(url, sizeof url);
    ipfsrt_fetch_config cfg = {.slots = 1, .per_slot = 4};
    ipfsrt_fetch *f;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_fetch_new(&f, &cfg, &err), IPFSRT_OK);
    ipfsrt_fetch_set_limit(f, 0, 12); /* raised as a scheduler does: the pool follows */
    wave first = {0}, lone = {0}, again = {0};
    run_wave(f, url, 12, &first);
    assert_true(first.new_connections >= 1);
    /* one transfer alone: curl's pool would be four, and its end closed one */
    run_wave(f, url, 1, &lone);
    assert_int_equal(lone.new_connections, 0);
    run_wave(f, url, first.new_connections, &again);
    assert_int_equal(again.new_connections, 0);
    ipfsrt_fetch_free(f);
    ipfsrt_server_free(gw);
}

static void test_blockcache_lru(void **state) {
    (void)state;
    ipfsrt_blockcache *cache;
    /* 400 KiB: 300 KiB for data blocks, 100 KiB for the rest */
    assert_int_equal(ipfsrt_blockcache_new(&cache, 400 << 10, NULL, false, NULL), IPFSRT_OK);
    ipfsrt_rcblock *blocks[5];
    for (int i = 0; i < 5; i++) {
        blocks[i] = raw_block(100 << 10, (uint64_t)i + 1);
        ipfsrt_blockcache_put(cache, blocks[i]);
    }
    ipfsrt_blockcache_stats st;
    ipfsrt_blockcache_get_stats(cache, &st);
    assert_int_equal(st.blocks, 3);
    assert_true(st.bytes <= 300 << 10);
    assert_int_equal(st.evictions, 2);
    assert_null(ipfsrt_blockcache_get(cache, &blocks[0]->cid)); /* the oldest went first */
    ipfsrt_rcblock *lent = ipfsrt_blockcache_get(cache, &blocks[2]->cid);
    assert_non_null(lent);
    ipfsrt_rcblock_unref(blocks[2]);
    blocks[2] = NULL;
    for (int i = 10; i < 14; i++) { /* push everything else out */
        ipfsrt_rcblock *b = raw_block(100 << 10, (uint64_t)i);
        ipfsrt_blockcache_put(cache, b);
        ipfsrt_rcblock_unref(b);
    }
    assert_null(ipfsrt_blockcache_get(cache, &lent->cid));
    assert_int_equal(ipfsrt_cid_verify(&lent->cid, lent->data, lent->len, NULL), IPFSRT_OK);
    ipfsrt_rcblock_unref(lent);
    for (int i = 0; i < 5; i++) ipfsrt_rcblock_unref(blocks[i]);
    ipfsrt_blockcache_free(cache);
}

/* Blocks on disk are re-hashed when read back; a damaged one is deleted. */
/* The directory kept under its size, blocks used longest ago deleted first:
 * one read back (its file touched) outlives those written after it. */
static void test_blockcache_dir_limit(void **state) {
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s", tmp_path("cache/limited"));
    ipfsrt_blockcache *cache;
    assert_int_equal(ipfsrt_blockcache_new(&cache, 0, dir, false, NULL), IPFSRT_OK);
    ipfsrt_blockcache_set_dir_limit(cache, 50000);
    ipfsrt_rcblock *blocks[20];
    for (int i = 0; i < 20; i++) {
        blocks[i] = raw_block(4000, 500 + (uint64_t)i);
        ipfsrt_blockcache_put(cache, blocks[i]);
        if (i == 0) {
            struct timespec pause = {0, 20000000}; /* file times apart, on any file system */
            nanosleep(&pause, NULL);
        }
        if (i >= 1) { /* block 0 read back after each write: the most recently used */
            ipfsrt_rcblock *again = ipfsrt_blockcache_get(cache, &blocks[0]->cid);
            assert_non_null(again);
            ipfsrt_rcblock_unref(again);
        }
    }
    assert_true(ipfsrt_blockcache_dir_trim(dir, UINT64_MAX) <= 50000);
    ipfsrt_rcblock *kept = ipfsrt_blockcache_get(cache, &blocks[0]->cid);
    assert_non_null(kept);
    ipfsrt_rcblock_unref(kept);
    assert_null(ipfsrt_blockcache_get(cache, &blocks[1]->cid)); /* the oldest unused went first */
    for (int i = 0; i < 20; i++) ipfsrt_rcblock_unref(blocks[i]);
    ipfsrt_blockcache_free(cache);
}

/* Where the cache keeps a block: dir/<last two characters>/<CIDv1>. */
static void block_path(const char *dir, const ipfsrt_cid *cid, char *path, size_t size) {
    char name[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(cid, name);
    snprintf(path, size, "%s/%s/%s", dir, name + strlen(name) - 2, name);
}

static bool exists(const char *path) {
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static void test_blockcache_disk(void **state) {
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s", tmp_path("cache/nested"));
    ipfsrt_blockcache *cache;
    assert_int_equal(ipfsrt_blockcache_new(&cache, UINT64_MAX - 1, dir, false, NULL), IPFSRT_OK);
    ipfsrt_rcblock *b = raw_block(5000, 77);
    ipfsrt_blockcache_put(cache, b);
    ipfsrt_blockcache_free(cache);
    assert_int_equal(ipfsrt_blockcache_new(&cache, 0, dir, false, NULL), IPFSRT_OK);
    ipfsrt_rcblock *back = ipfsrt_blockcache_get(cache, &b->cid);
    assert_non_null(back);
    assert_memory_equal(back->data, b->data, b->len);
    ipfsrt_rcblock_unref(back);
    back = ipfsrt_blockcache_dir_get(cache, &b->cid); /* the directory alone, as any thread reads it */
    assert_non_null(back);
    assert_memory_equal(back->data, b->data, b->len);
    ipfsrt_rcblock_unref(back);
    /* damage it */
    char path[1400];
    block_path(dir, &b->cid, path, sizeof path);
    write_file(path, (const uint8_t *)"bad", 3);
    assert_null(ipfsrt_blockcache_dir_get(cache, &b->cid));
    write_file(path, (const uint8_t *)"bad", 3);
    assert_null(ipfsrt_blockcache_get(cache, &b->cid));
    assert_false(exists(path));
    ipfsrt_blockcache_stats st;
    ipfsrt_blockcache_get_stats(cache, &st);
    assert_int_equal(st.disk_rejected, 2);
    ipfsrt_blockcache_free(cache);
    ipfsrt_rcblock_unref(b);
}

/* Trimming deletes only blocks the cache wrote: not other files in its
 * two-character folders, not a file named as a block in the wrong folder,
 * never through a link to a folder outside it. */
static void test_blockcache_trim_own_files(void **state) {
    (void)state;
    char dir[600], outside[600], path[1400], other[1400], misplaced[1400];
    snprintf(dir, sizeof dir, "%s", tmp_path("cache/shared"));
    snprintf(outside, sizeof outside, "%s", tmp_path("outside"));
    ipfsrt_blockcache *cache;
    assert_int_equal(ipfsrt_blockcache_new(&cache, 0, dir, false, NULL), IPFSRT_OK);
    ipfsrt_rcblock *b = raw_block(4000, 901), *moved = raw_block(4000, 902);
    ipfsrt_blockcache_put(cache, b);
    block_path(dir, &b->cid, path, sizeof path);
    assert_true(exists(path));
    snprintf(other, sizeof other, "%s/js", dir);
    assert_int_equal(mkdir(other, 0755), 0);
    snprintf(other, sizeof other, "%s/js/app.js", dir);
    write_file(other, (const uint8_t *)"app", 3);
    char name[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&moved->cid, name);
    snprintf(misplaced, sizeof misplaced, "%s/js/%s", dir, name);
    write_file(misplaced, moved->data, moved->len);
    assert_int_equal(mkdir(outside, 0755), 0);
    snprintf(other, sizeof other, "%s/notes.txt", outside);
    write_file(other, (const uint8_t *)"notes", 5);
    char link[700];
    snprintf(link, sizeof link, "%s/zz", dir);
    assert_int_equal(symlink(outside, link), 0);
    assert_int_equal(ipfsrt_blockcache_dir_trim(dir, 0), 0);
    assert_false(exists(path));
    assert_true(exists(other));
    assert_true(exists(misplaced));
    snprintf(other, sizeof other, "%s/js/app.js", dir);
    assert_true(exists(other));
    ipfsrt_blockcache_free(cache);
    ipfsrt_rcblock_unref(b);
    ipfsrt_rcblock_unref(moved);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char said[] = "a FIFO in the cache made the read wait\n";
    if (write(2, said, sizeof said - 1) < 0) _exit(1);
    _exit(1);
}

/* A FIFO (or a link) under a block's name is a miss, at once: opening a FIFO
 * for reading would wait for a writer for good. */
static void test_blockcache_fifo(void **state) {
    (void)state;
    char dir[600], path[1400];
    snprintf(dir, sizeof dir, "%s", tmp_path("cache/fifo"));
    ipfsrt_blockcache *cache;
    assert_int_equal(ipfsrt_blockcache_new(&cache, 0, dir, false, NULL), IPFSRT_OK);
    ipfsrt_rcblock *b = raw_block(3000, 903), *linked = raw_block(3000, 904);
    ipfsrt_blockcache_put(cache, b);
    ipfsrt_blockcache_put(cache, linked);
    block_path(dir, &b->cid, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0644), 0);
    char target[1400];
    block_path(dir, &linked->cid, target, sizeof target);
    char moved[1500];
    snprintf(moved, sizeof moved, "%s.elsewhere", target);
    assert_int_equal(rename(target, moved), 0);
    assert_int_equal(symlink(moved, target), 0);
    signal(SIGALRM, on_alarm);
    alarm(20);
    assert_null(ipfsrt_blockcache_dir_get(cache, &b->cid));
    assert_null(ipfsrt_blockcache_get(cache, &b->cid));
    assert_null(ipfsrt_blockcache_dir_get(cache, &linked->cid));
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    assert_true(exists(path)); /* not the cache's to delete */
    ipfsrt_blockcache_free(cache);
    ipfsrt_rcblock_unref(b);
    ipfsrt_rcblock_unref(linked);
}

/* Many reads in flight: ranges, a whole file, a block and a missing path, each
 * reported once with its own status; a batch freed mid-way leaves nothing behind. */
/* test_batch's reads: a range, the whole file, a missing name, the root block. */
static void check_batch_result(const ipfsrt_range_result *r, const ipfsrt_cid *root_cid) {
    if (r->index == 0) {
        assert_int_equal(r->status, IPFSRT_OK);
        assert_int_equal(r->len, 100000);
        assert_memory_equal(r->data, content + 70000, 100000);
    } else if (r->index == 1) {
        assert_int_equal(r->len, FILE_SIZE);
        assert_memory_equal(r->data, content, FILE_SIZE);
    } else if (r->index == 2) {
        assert_int_equal(r->status, IPFSRT_ENOT_FOUND);
        assert_non_null(strstr(r->error.message, "nothing.bin"));
    } else {
        assert_int_equal(r->status, IPFSRT_OK);
        assert_int_equal(ipfsrt_cid_verify(root_cid, r->data, r->len, NULL), IPFSRT_OK);
    }
}

static void test_batch(void **state) {
    (void)state;
    ipfsrt_server *honest = start_gateway(NULL);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(honest), NULL), IPFSRT_OK);
    ipfsrt_client_options opts = {.size = sizeof opts, .gateways = &list};
    ipfsrt_client *c;
    assert_int_equal(ipfsrt_client_new(&c, &opts, NULL), IPFSRT_OK);
    char path[IPFSRT_CID_STR_MAX + 32], missing[IPFSRT_CID_STR_MAX + 32];
    snprintf(path, sizeof path, "ipfs://%s/data.bin", root);
    snprintf(missing, sizeof missing, "ipfs://%s/nothing.bin", root);
    ipfsrt_cid root_cid;
    assert_int_equal(ipfsrt_cid_parse(&root_cid, root, strlen(root), NULL, NULL), IPFSRT_OK);

    ipfsrt_client_batch *b;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_batch_new(&b, c, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, path, 70000, 100000, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, path, 0, UINT64_MAX, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, missing, 0, UINT64_MAX, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_block(b, &root_cid, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, "http://example.org/x", 0, 1, &err), IPFSRT_EBAD_ARGUMENT);
    bool seen[4] = {false}, done = false;
    size_t results = 0;
    while (!done) {
        ipfsrt_range_result r;
        assert_int_equal(ipfsrt_client_batch_next(b, &r, &done, &err), IPFSRT_OK);
        if (done) break;
        assert_true(r.index < 4);
        assert_false(seen[r.index]);
        seen[r.index] = true;
        results++;
        check_batch_result(&r, &root_cid);
    }
    assert_int_equal(results, 4);
    ipfsrt_client_batch_free(b);

    /* freed with reads still open */
    assert_int_equal(ipfsrt_client_batch_new(&b, c, &err), IPFSRT_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(ipfsrt_client_batch_add_path(b, path, (uint64_t)i * 1000, 10, &err), IPFSRT_OK);
    ipfsrt_range_result r;
    assert_int_equal(ipfsrt_client_batch_next(b, &r, &done, &err), IPFSRT_OK);
    ipfsrt_client_batch_free(b);

    ipfsrt_client_free(c);
    ipfsrt_gateway_list_free(&list);
    ipfsrt_server_free(honest);
}

/* Runs a batch of: bytes [70000, 170000) of data.bin, all of it, and a name
 * that is not there; checks each result. */
static void run_three_reads(ipfsrt_client *c) {
    char path[IPFSRT_CID_STR_MAX + 32], missing[IPFSRT_CID_STR_MAX + 32];
    snprintf(path, sizeof path, "ipfs://%s/data.bin", root);
    snprintf(missing, sizeof missing, "ipfs://%s/nothing.bin", root);
    ipfsrt_client_batch *b;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_batch_new(&b, c, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, path, 70000, 100000, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, path, 0, UINT64_MAX, &err), IPFSRT_OK);
    assert_int_equal(ipfsrt_client_batch_add_path(b, missing, 0, UINT64_MAX, &err), IPFSRT_OK);
    bool done = false;
    size_t results = 0;
    while (!done) {
        ipfsrt_range_result r;
        assert_int_equal(ipfsrt_client_batch_next(b, &r, &done, &err), IPFSRT_OK);
        if (done) break;
        results++;
        if (r.index == 0) {
            assert_int_equal(r.status, IPFSRT_OK);
            assert_int_equal(r.len, 100000);
            assert_memory_equal(r.data, content + 70000, 100000);
        } else if (r.index == 1) {
            assert_int_equal(r.status, IPFSRT_OK);
            assert_int_equal(r.len, FILE_SIZE);
            assert_memory_equal(r.data, content, FILE_SIZE);
        } else {
            assert_int_equal(r.status, IPFSRT_ENOT_FOUND);
            assert_non_null(strstr(r.error.message, "nothing.bin"));
        }
    }
    assert_int_equal(results, 3);
    ipfsrt_client_batch_free(b);
}

/* A cold batch asks for each path in one CAR request (one round trip each,
 * however deep the path); a name that is not there costs its gateway nothing
 * in the policy's eyes (observed, marked a guess: the root directory proves it
 * absent). A lying gateway
 * asked first is caught, and the reads then walk block by block elsewhere. */
static void test_batch_prefetch(void **state) {
    (void)state;
    ipfsrt_server_faults lying = {.tamper = 1};
    ipfsrt_server *honest = start_gateway(NULL), *liar = start_gateway(&lying);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(honest), NULL), IPFSRT_OK);
    ipfsrt_client_options opts = {.size = sizeof opts, .gateways = &list};
    last_first p;
    ipfsrt_policy policy = {.size = sizeof policy, .ctx = &p, .order = lf_order, .observe = lf_observe};
    ipfsrt_client *c = client_under(&opts, &policy, &p);
    run_three_reads(c);
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.requests, 3);
    assert_int_equal(st.errors[IPFSRT_GWERR_NOT_FOUND], 1);
    assert_int_equal(p.observed, 3);
    assert_int_equal(p.guesses_not_found, 1);
    ipfsrt_client_free(c);

    assert_int_equal(ipfsrt_gateway_list_add(&list, ipfsrt_server_url(liar), NULL), IPFSRT_OK);
    c = client_under(&opts, &policy, &p);
    run_three_reads(c);
    assert_true(p.verify_failures >= 1);
    ipfsrt_client_get_gateway_stats(c, 1, &st);
    assert_int_equal(st.ok, 0);
    ipfsrt_client_free(c);

    ipfsrt_gateway_list_free(&list);
    ipfsrt_server_free(liar);
    ipfsrt_server_free(honest);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_through_c_policy),
        cmocka_unit_test(test_hash_backend_per_client),
        cmocka_unit_test(test_all_gateways_fail),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_fetch_cancel_while_queued),
        cmocka_unit_test(test_fetch_keeps_its_connections),
        cmocka_unit_test(test_batch_prefetch),
        cmocka_unit_test(test_gateway_list_sources),
        cmocka_unit_test(test_pacing), cmocka_unit_test(test_blockcache_lru),
        cmocka_unit_test(test_blockcache_disk),
        cmocka_unit_test(test_blockcache_dir_limit), cmocka_unit_test(test_blockcache_trim_own_files),
        cmocka_unit_test(test_blockcache_fifo),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
