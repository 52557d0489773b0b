/* The client's scheduler (retries, failover, hedged races, verification of
 * what arrives) driven through a stand-in transport: each test scripts what
 * every gateway answers, request by request, with no network at all. */
#include <time.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "testutil.h"

#define GW0 "http://127.0.0.1:9"
#define GW1 "http://127.0.0.1:10"
#define MAX_REQS 64

/* What a gateway does with one request. */
typedef struct answer {
    ipfsrt_fetch_end end;
    long status;
    const char *content_type;
    const uint8_t *body;
    size_t len;
    size_t send;         /* body bytes sent before the end (BROKEN); 0 = all */
    double retry_after;  /* -1 = none */
    bool hold;           /* never answers: waits to be canceled */
    bool http1;          /* answered over HTTP/1.1: a connection per request */
    bool far;            /* its head comes 12 ms after the request (a gateway a round trip away) */
} answer;

typedef struct fake_req {
    ipfsrt_fetch_spec spec;
    char url[512];
    answer a;
    bool live;
    bool started; /* on_start ran: the request went out */
} fake_req;

/* script(gateway, n-th request to it, url) -> answer */
typedef answer (*script_fn)(int gateway, int nth, const char *url);

typedef struct fake {
    script_fn script;
    fake_req reqs[MAX_REQS];
    size_t count;
    int asked[2];     /* requests each gateway got */
    unsigned limit[2]; /* the last limit set for each gateway (0: none yet) */
    int canceled;
    bool freed;
} fake;

static fake the_fake;

static ipfsrt_status fake_start(void *ctx, const ipfsrt_fetch_spec *spec, void **req,
                                ipfsrt_error *err) {
    fake *f = ctx;
    if (f->count == MAX_REQS) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "fake: too many requests");
    fake_req *r = &f->reqs[f->count++];
    r->spec = *spec;
    snprintf(r->url, sizeof r->url, "%s", spec->url);
    int gw = strncmp(spec->url, GW1, strlen(GW1)) == 0 ? 1 : 0;
    r->a = f->script(gw, f->asked[gw]++, r->url);
    r->live = true;
    *req = r;
    return IPFSRT_OK;
}

static void fake_cancel(void *ctx, void *req) {
    fake *f = ctx;
    fake_req *r = req;
    if (r->live) f->canceled++;
    r->live = false;
}

/* Plays one request's answer through the callbacks, as the engine would. */
static void play(fake_req *r) {
    r->live = false; /* gone for good once on_done ran, or when a callback aborts */
    const answer *a = &r->a;
    const ipfsrt_fetch_spec *s = &r->spec;
    ipfsrt_fetch_result res = {.end = a->end, .status = a->status, .retry_after_s = a->retry_after,
                               .first_byte_s = 0.001, .total_s = 0.002};
    if (a->far) nanosleep(&(struct timespec){0, 12000000}, NULL);
    if (a->end == IPFSRT_FETCH_DONE || a->end == IPFSRT_FETCH_BROKEN) {
        ipfsrt_fetch_head head = {a->status, a->content_type ? a->content_type : "", (int64_t)a->len, "", "", "",
                                  0, a->http1, false};
        size_t n = a->send ? a->send : a->len;
        if (s->on_head && s->on_head(s->user, &head)) {
            res.end = IPFSRT_FETCH_ABORTED;
        } else if (n && s->on_body && s->on_body(s->user, a->body, n)) {
            res.end = IPFSRT_FETCH_ABORTED;
        }
        res.body_bytes = n;
    } else {
        res.first_byte_s = -1;
    }
    snprintf(res.detail, sizeof res.detail, "scripted");
    s->on_done(s->user, &res);
}

static size_t fake_pending(const void *ctx) {
    const fake *f = ctx;
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++) n += f->reqs[i].live;
    return n;
}

static size_t fake_pump(void *ctx, int max_wait_ms) {
    fake *f = ctx;
    for (size_t i = 0; i < f->count; i++) { /* every request goes out at once */
        fake_req *r = &f->reqs[i];
        if (r->live && !r->started && r->spec.on_start) r->spec.on_start(r->spec.user);
        r->started = true;
    }
    for (size_t i = 0; i < f->count; i++) { /* callbacks may start or cancel others */
        if (f->reqs[i].live && !f->reqs[i].a.hold) {
            play(&f->reqs[i]);
            return fake_pending(f);
        }
    }
    struct timespec ts = {0, (long)(max_wait_ms < 2 ? max_wait_ms : 2) * 1000000L};
    nanosleep(&ts, NULL); /* only held requests: time passes, as on a network */
    return fake_pending(f);
}

static void fake_wait(void *ctx, int max_wait_ms) {
    (void)ctx;
    struct timespec ts = {0, (long)(max_wait_ms < 1 ? max_wait_ms : 1) * 1000000L};
    nanosleep(&ts, NULL);
}

static void fake_wakeup(void *ctx) { (void)ctx; }

static void fake_set_limit(void *ctx, unsigned slot, unsigned limit) {
    fake *f = ctx;
    if (slot < 2) f->limit[slot] = limit; /* recorded only: the fake starts every request */
}

static void fake_free(void *ctx) {
    fake *f = ctx;
    f->freed = true;
}

/* A client of GW0 and GW1 (no cache) on the fake transport, with o's other options. */
static ipfsrt_client *fake_client_with(script_fn script, ipfsrt_client_options o) {
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.script = script;
    ipfsrt_transport t = {&the_fake, fake_start, fake_cancel, fake_pump, fake_pending,
                          fake_wait, fake_wakeup, fake_free, fake_set_limit};
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    assert_int_equal(ipfsrt_gateway_list_add(&list, GW0, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_gateway_list_add(&list, GW1, NULL), IPFSRT_OK);
    o.gateways = &list;
    o.cache_bytes = UINT64_MAX;
    ipfsrt_client *c;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_new_on(&c, &o, &t, &err), IPFSRT_OK);
    ipfsrt_gateway_list_free(&list);
    return c;
}

static ipfsrt_client *fake_client(script_fn script, double timeout_s) {
    return fake_client_with(script, (ipfsrt_client_options){.size = sizeof(ipfsrt_client_options), .timeout_s = timeout_s});
}

/* ------------------------------------------------------------ the blocks */

static const uint8_t good[] = "the block the CID names";
static const uint8_t bad[] = "the block the CID names!";
static ipfsrt_cid block_cid;

static int setup(void **state) {
    (void)state;
    return ipfsrt_cid_sum(&block_cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, good, sizeof good,
                          NULL) == IPFSRT_OK ? 0 : -1;
}

static answer ok_block(void) {
    return (answer){IPFSRT_FETCH_DONE, 200, "application/vnd.ipld.raw", good, sizeof good, 0, -1, false, false, false};
}

static answer status_only(long status, double retry_after) {
    return (answer){IPFSRT_FETCH_DONE, status, "text/plain", (const uint8_t *)"no", 2, 0, retry_after, false, false, false};
}

typedef struct got {
    uint8_t data[64];
    size_t len;
    int calls;
} got;

static ipfsrt_status take(void *user, size_t index, const ipfsrt_cid *cid, const uint8_t *data,
                          size_t len, ipfsrt_error *err) {
    (void)index, (void)cid, (void)err;
    got *g = user;
    assert_true(len <= sizeof g->data);
    memcpy(g->data, data, len);
    g->len = len;
    g->calls++;
    return IPFSRT_OK;
}

static ipfsrt_status read_into(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    got *g = user;
    assert_true(len <= sizeof g->data - g->len);
    memcpy(g->data + g->len, data, len);
    g->len += len;
    return IPFSRT_OK;
}

static ipfsrt_status fetch(ipfsrt_client *c, got *g, ipfsrt_error *err) {
    memset(g, 0, sizeof *g);
    return ipfsrt_client_blocks(c, &block_cid, 1, take, g, err);
}

static void assert_good(const got *g) {
    assert_int_equal(g->calls, 1);
    assert_int_equal(g->len, sizeof good);
    assert_memory_equal(g->data, good, sizeof good);
}

/* ----------------------------------------------------------------- tests */

static answer busy_then_fine(int gw, int nth, const char *url) {
    assert_non_null(strstr(url, "/ipfs/"));
    if (gw == 1) return status_only(404, -1);
    return nth == 0 ? status_only(503, 0.01) : ok_block();
}

/* A gateway's own cap (a policy's max_in_flight) reaches the engine at once,
 * bounds the adapted limit, never lifts it past the client's cap, and 0 gives
 * the client's cap back. */
static answer always_ok(int gateway, int nth, const char *url) {
    (void)gateway, (void)nth, (void)url;
    return ok_block();
}

static void test_gateway_cap(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(always_ok, 1);
    ipfsrt_client_set_gateway_cap(c, 1, 3);
    assert_int_equal(the_fake.limit[1], 3);
    assert_int_equal(the_fake.limit[0], 0); /* the other gateway untouched */
    ipfsrt_client_set_gateway_cap(c, 1, 1000); /* above the client's cap (128): the adapted limit stays */
    assert_int_equal(the_fake.limit[1], 3);
    ipfsrt_client_set_gateway_cap(c, 5, 2); /* no such gateway: nothing */
    ipfsrt_client_free(c);

    c = fake_client_with(always_ok, (ipfsrt_client_options){.size = sizeof(ipfsrt_client_options), .concurrency = 6});
    ipfsrt_client_set_gateway_cap(c, 0, 2);
    assert_int_equal(the_fake.limit[0], 2); /* fixed concurrency, capped */
    ipfsrt_client_set_gateway_cap(c, 0, 0);
    assert_int_equal(the_fake.limit[0], 6); /* the client's own again */
    ipfsrt_client_free(c);
}

/* Over HTTP/1.1 a request in flight is a connection: the first answer that
 * says so gives a gateway a round trip away the client's cap at once (as many
 * connections as a batch needs, opened together), where HTTP/2 answers, and
 * those of a gateway nearer than connections open, grow it a step at a time. */
static answer over_http1(int gateway, int nth, const char *url) {
    (void)nth, (void)url;
    answer a = gateway == 0 ? ok_block() : status_only(404, -1);
    a.http1 = a.far = gateway == 0;
    return a;
}

static answer over_http1_near(int gateway, int nth, const char *url) {
    answer a = over_http1(gateway, nth, url);
    a.far = false;
    return a;
}

static void test_http1_gateway_gets_its_cap_at_once(void **state) {
    (void)state;
    got g;
    ipfsrt_error err;
    ipfsrt_client *c = fake_client(always_ok, 1);
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_true(the_fake.limit[0] < MAX_IN_FLIGHT); /* HTTP/2 (the fake's default): not there yet */
    ipfsrt_client_free(c);

    c = fake_client(over_http1, 1);
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    assert_int_equal(the_fake.limit[0], MAX_IN_FLIGHT);
    ipfsrt_client_free(c);

    c = fake_client(over_http1_near, 1);
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    assert_true(the_fake.limit[0] < MAX_IN_FLIGHT);
    assert_true(ipfsrt_client_http1_round_trip(c) > 0); /* known to be HTTP/1.1 all the same */
    ipfsrt_client_free(c);

    /* a policy's cap on the gateway still holds */
    c = fake_client(over_http1, 1);
    ipfsrt_client_set_gateway_cap(c, 0, 5);
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_int_equal(the_fake.limit[0], 5);
    ipfsrt_client_free(c);

    /* a fixed concurrency is the caller's: left as it is */
    c = fake_client_with(over_http1, (ipfsrt_client_options){.size = sizeof(ipfsrt_client_options), .concurrency = 6});
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_true(the_fake.limit[0] == 0 || the_fake.limit[0] == 6);
    ipfsrt_client_free(c);
}

static void test_retries_after_server_errors(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(busy_then_fine, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    assert_int_equal(the_fake.asked[0], 2); /* 503, then the block a round later */
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.ok, 1);
    assert_int_equal(st.errors[IPFSRT_GWERR_SERVER], 1);
    ipfsrt_client_free(c);
    assert_true(the_fake.freed); /* the client owns its transport */
}

static answer first_lies(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    if (gw == 0) return (answer){IPFSRT_FETCH_DONE, 200, "application/vnd.ipld.raw", bad, sizeof bad, 0, -1, false, false, false};
    return ok_block();
}

static void test_never_hands_out_what_fails_its_hash(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(first_lies, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g); /* the second gateway's bytes, never the first's */
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.verify_failures, 1);
    assert_int_equal(st.ok, 0);
    ipfsrt_client_free(c);
}

static answer cut_short(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    answer a = ok_block();
    if (gw == 0) {
        a.end = IPFSRT_FETCH_BROKEN;
        a.send = 5;
    }
    return a;
}

static void test_broken_body_goes_elsewhere(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(cut_short, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    assert_int_equal(st.errors[IPFSRT_GWERR_TRUNCATED], 1);
    ipfsrt_client_free(c);
}

static answer nobody_has_it(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    if (gw == 0) return status_only(404, -1);
    return (answer){IPFSRT_FETCH_CONNECT, 0, NULL, NULL, 0, 0, -1, false, false, false};
}

static void test_failure_names_every_gateway(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(nobody_has_it, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_EFETCH_FAILED);
    assert_int_equal(g.calls, 0);
    assert_non_null(strstr(err.message, GW0));
    assert_non_null(strstr(err.message, "404"));
    assert_non_null(strstr(err.message, GW1));
    assert_non_null(strstr(err.message, "connect"));
    char s[IPFSRT_CID_STR_MAX];
    assert_string_equal(err.cid, ipfsrt_cid_to_string(&block_cid, s));
    ipfsrt_client_free(c);
}

static answer nobody_answers_in_time(int gw, int nth, const char *url) {
    (void)gw, (void)nth, (void)url;
    return (answer){IPFSRT_FETCH_TIMEOUT, 0, NULL, NULL, 0, 0, -1, false, false, false};
}

/* Timeouts everywhere are told apart from failures (a gateway in front of
 * these answers 504 for them, 502 for the rest). */
static void test_every_timeout_is_timed_out(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(nobody_answers_in_time, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_ETIMED_OUT);
    assert_non_null(strstr(err.message, GW0));
    assert_non_null(strstr(err.message, GW1));
    ipfsrt_client_free(c);
}

/* A policy that races the second gateway 20 ms after the first. */
static ipfsrt_status race_order(void *ctx, const ipfsrt_policy_request *req, size_t n,
                                size_t *order, size_t *count, ipfsrt_error *err) {
    (void)ctx, (void)req, (void)err;
    for (size_t i = 0; i < n; i++) order[i] = i;
    *count = n;
    return IPFSRT_OK;
}

static ipfsrt_status race_after(void *ctx, const ipfsrt_policy_request *req, double *seconds,
                                ipfsrt_error *err) {
    (void)ctx, (void)req, (void)err;
    *seconds = 0.02;
    return IPFSRT_OK;
}

static answer first_never_answers(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    answer a = ok_block();
    a.hold = gw == 0;
    return a;
}

static void test_hedged_race_cancels_the_loser(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(first_never_answers, 30);
    ipfsrt_policy p = {.size = sizeof p, .order = race_order, .hedge_after = race_after};
    assert_int_equal(ipfsrt_client_set_policy(c, &p, NULL), IPFSRT_OK);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    ipfsrt_client_gateway_stats held = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 0, &held);
    assert_int_equal(held.errors[IPFSRT_GWERR_TIMEOUT], 0); /* won by the race, not by the 30 s timeout */
    assert_int_equal(the_fake.asked[0], 1);
    assert_int_equal(the_fake.asked[1], 1);
    assert_int_equal(the_fake.canceled, 1); /* the held request was dropped */
    assert_int_equal(fake_pending(&the_fake), 0);
    ipfsrt_client_free(c);
}

static answer wrong_type(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    answer a = ok_block();
    if (gw == 0) a.content_type = "text/html";
    return a;
}

static void test_block_read_in_any_content_type_is_still_hashed(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(wrong_type, 5);
    got g;
    ipfsrt_error err;
    assert_int_equal(fetch(c, &g, &err), IPFSRT_OK);
    assert_good(&g);
    ipfsrt_client_free(c);
}

static answer car_in_a_parameter(int gw, int nth, const char *url) {
    (void)gw, (void)nth, (void)url;
    return (answer){IPFSRT_FETCH_DONE, 200, "text/plain; x=application/vnd.ipld.car", good,
                    sizeof good, 0, -1, false, false, false};
}

static ipfsrt_status ignore(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)user, (void)data, (void)len, (void)err;
    return IPFSRT_OK;
}

static void test_car_media_type_matched_exactly(void **state) {
    (void)state;
    ipfsrt_client *c = fake_client(car_in_a_parameter, 5);
    char path[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&block_cid, path);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_read(c, path, 0, UINT64_MAX, ignore, NULL, &err), IPFSRT_EFETCH_FAILED);
    assert_non_null(strstr(err.message, "asked for a CAR, got Content-Type 'text/plain"));
    ipfsrt_client_free(c);
}

/* CAR bodies made once: the liar's (valid blocks, none the walk needs, more
 * than the budget) and the honest one. */
static uint8_t liar_car[32768], honest_car[1024];
static size_t liar_len, honest_len;

static size_t encode(uint8_t *out, size_t cap, const uint8_t *junk, size_t junk_blocks) {
    ipfsrt_car_encoder *e;
    assert_int_equal(ipfsrt_car_encoder_new(&e, &block_cid, 1, NULL), IPFSRT_OK);
    for (size_t i = 0; i < junk_blocks; i++) {
        ipfsrt_cid cid;
        ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, junk + i * 1000, 1000, NULL);
        assert_int_equal(ipfsrt_car_encoder_add(e, &cid, junk + i * 1000, 1000, NULL, NULL), IPFSRT_OK);
    }
    if (!junk_blocks)
        assert_int_equal(ipfsrt_car_encoder_add(e, &block_cid, good, sizeof good, NULL, NULL), IPFSRT_OK);
    assert_true(ipfsrt_car_encoder_size(e) <= cap);
    size_t n = ipfsrt_car_encoder_read(e, out, cap);
    ipfsrt_car_encoder_free(e);
    return n;
}

static answer flood_then_honest(int gw, int nth, const char *url) {
    (void)nth, (void)url;
    const char *car = "application/vnd.ipld.car; version=1; order=dfs; dups=y";
    if (gw == 0) return (answer){IPFSRT_FETCH_DONE, 200, car, liar_car, liar_len, 0, -1, false, false, false};
    return (answer){IPFSRT_FETCH_DONE, 200, car, honest_car, honest_len, 0, -1, false, false, false};
}

/* Reads the block asking the liar (gateway 0) first, then the honest one:
 * the true bytes come back, from the honest one; the liar's statistics. */
static ipfsrt_client_gateway_stats read_liar_first(ipfsrt_client *c) {
    ipfsrt_policy p = {.size = sizeof p, .order = race_order};
    assert_int_equal(ipfsrt_client_set_policy(c, &p, NULL), IPFSRT_OK);
    char path[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&block_cid, path);
    got g = {.len = 0};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_client_read(c, path, 0, UINT64_MAX, read_into, &g, &err), IPFSRT_OK);
    assert_int_equal(g.len, sizeof good);
    assert_memory_equal(g.data, good, sizeof good);
    ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
    ipfsrt_client_get_gateway_stats(c, 1, &st);
    assert_int_equal(st.ok, 1);
    ipfsrt_client_get_gateway_stats(c, 0, &st);
    return st;
}

/* The budget for blocks sent ahead of the walk is each answer's own: the
 * honest gateway is not blamed for what the liar sent. */
static void test_flood_budget_per_answer(void **state) {
    (void)state;
    static uint8_t junk[20 * 1000];
    fill_random(junk, sizeof junk, 7);
    liar_len = encode(liar_car, sizeof liar_car, junk, 20);
    honest_len = encode(honest_car, sizeof honest_car, NULL, 0);
    ipfsrt_client *c = fake_client(flood_then_honest, 5);
    c->pending_cap = 8000;
    ipfsrt_client_gateway_stats st = read_liar_first(c);
    assert_int_equal(st.ok, 0);
    ipfsrt_client_free(c);
}

/* Blocks of 4 bytes each, all valid, none linked: their bookkeeping, not their
 * bytes, is what the budget must bound. */
static size_t encode_tiny(uint8_t *out, size_t cap, size_t blocks) {
    static uint8_t tiny[4 * 1000]; /* the encoder reads the blocks' bytes when it writes them */
    assert_true(blocks <= sizeof tiny / 4);
    ipfsrt_car_encoder *e;
    assert_int_equal(ipfsrt_car_encoder_new(&e, &block_cid, 1, NULL), IPFSRT_OK);
    for (uint32_t i = 0; i < blocks; i++) {
        uint8_t *data = tiny + 4 * i;
        memcpy(data, (uint8_t[4]){(uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i}, 4);
        ipfsrt_cid cid;
        ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, data, 4, NULL);
        assert_int_equal(ipfsrt_car_encoder_add(e, &cid, data, 4, NULL, NULL), IPFSRT_OK);
    }
    assert_true(ipfsrt_car_encoder_size(e) <= cap);
    size_t n = ipfsrt_car_encoder_read(e, out, cap);
    ipfsrt_car_encoder_free(e);
    return n;
}

/* A flood of tiny unlinked blocks is bounded by their count, though their
 * bytes are far under the byte budget: the liar fails, the honest one serves. */
static void test_tiny_block_flood_bounded_by_count(void **state) {
    (void)state;
    liar_len = encode_tiny(liar_car, sizeof liar_car, 300);
    honest_len = encode(honest_car, sizeof honest_car, NULL, 0);
    ipfsrt_client *c = fake_client(flood_then_honest, 5);
    c->pending_blocks_cap = 100;
    ipfsrt_client_gateway_stats st = read_liar_first(c);
    assert_int_equal(st.ok, 0);
    assert_int_equal(st.errors[IPFSRT_GWERR_BAD_RESPONSE], 1);
    ipfsrt_client_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retries_after_server_errors),
        cmocka_unit_test(test_gateway_cap),
        cmocka_unit_test(test_http1_gateway_gets_its_cap_at_once),
        cmocka_unit_test(test_never_hands_out_what_fails_its_hash),
        cmocka_unit_test(test_broken_body_goes_elsewhere),
        cmocka_unit_test(test_failure_names_every_gateway),
        cmocka_unit_test(test_every_timeout_is_timed_out),
        cmocka_unit_test(test_hedged_race_cancels_the_loser),
        cmocka_unit_test(test_block_read_in_any_content_type_is_still_hashed),
        cmocka_unit_test(test_car_media_type_matched_exactly),
        cmocka_unit_test(test_flood_budget_per_answer),
        cmocka_unit_test(test_tiny_block_flood_bounded_by_count),
    };
    alarm(120); /* a scheduler that waits for an answer never scripted fails, not hangs */
    return cmocka_run_group_tests(tests, setup, NULL);
}
