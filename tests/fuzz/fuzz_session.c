/* libFuzzer target: the client's handling of a gateway's answer. A stand-in
 * transport answers every request with the input: the first byte picks the
 * status and Content-Type, the second the slice size, the rest is the body, fed
 * through the client's callbacks as a network would. The client asks for a
 * small file by path (a CAR answer) and for a block by CID (a raw answer);
 * whatever it hands back must be exactly the true bytes. */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

typedef struct answer {
    const uint8_t *body;
    size_t len, slice;
    long status;
    const char *type;
} answer;

typedef struct fake_req {
    ipfsrt_fetch_spec spec;
    bool live;
} fake_req;

static answer the_answer;
static fake_req reqs[16];
static size_t req_count;

static ipfsrt_status fake_start(void *ctx, const ipfsrt_fetch_spec *spec, void **req, ipfsrt_error *err) {
    (void)ctx;
    if (req_count == 16) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "fake: too many requests");
    reqs[req_count] = (fake_req){*spec, true};
    *req = &reqs[req_count++];
    return IPFSRT_OK;
}

static void fake_cancel(void *ctx, void *req) {
    (void)ctx;
    ((fake_req *)req)->live = false;
}

static void play(fake_req *r) {
    const ipfsrt_fetch_spec *s = &r->spec;
    r->live = false;
    ipfsrt_fetch_result res = {.end = IPFSRT_FETCH_DONE, .status = the_answer.status,
                               .retry_after_s = -1, .first_byte_s = 0.001, .total_s = 0.002};
    if (s->on_start) s->on_start(s->user);
    ipfsrt_fetch_head head = {the_answer.status, the_answer.type, (int64_t)the_answer.len, "", "", "", 0, false, false};
    if (s->on_head && s->on_head(s->user, &head)) res.end = IPFSRT_FETCH_ABORTED;
    for (size_t off = 0; res.end == IPFSRT_FETCH_DONE && off < the_answer.len; off += the_answer.slice) {
        size_t n = the_answer.len - off < the_answer.slice ? the_answer.len - off : the_answer.slice;
        if (s->on_body && s->on_body(s->user, the_answer.body + off, n)) res.end = IPFSRT_FETCH_ABORTED;
    }
    res.body_bytes = the_answer.len;
    s->on_done(s->user, &res);
}

static size_t fake_pending(const void *ctx) {
    (void)ctx;
    size_t n = 0;
    for (size_t i = 0; i < req_count; i++) n += reqs[i].live;
    return n;
}

static size_t fake_pump(void *ctx, int ms) {
    (void)ms;
    for (size_t i = 0; i < req_count; i++)
        if (reqs[i].live) {
            play(&reqs[i]);
            break;
        }
    return fake_pending(ctx);
}

static void fake_wait(void *ctx, int ms) { (void)ctx, (void)ms; }
static void fake_nothing(void *ctx) { (void)ctx; }

static const uint8_t truth[] = "the true bytes of the file";

typedef struct got {
    uint8_t data[4096];
    size_t len;
} got;

static ipfsrt_status keep(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    got *g = user;
    if (len > sizeof g->data - g->len) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "too much");
    memcpy(g->data + g->len, data, len);
    g->len += len;
    return IPFSRT_OK;
}

static ipfsrt_status keep_block(void *user, size_t i, const ipfsrt_cid *cid, const uint8_t *data,
                                size_t len, ipfsrt_error *err) {
    (void)i, (void)cid;
    return keep(user, data, len, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    static const long statuses[] = {200, 200, 200, 206, 404, 500, 429, 302};
    static const char *const types[] = {"application/vnd.ipld.car; version=1; order=dfs; dups=y",
                                        "application/vnd.ipld.raw", "text/plain",
                                        "application/vnd.ipld.car"};
    the_answer = (answer){data + 2, size - 2, (size_t)data[1] % 64 + 1, statuses[data[0] % 8],
                          types[(data[0] >> 3) % 4]};
    req_count = 0;
    ipfsrt_cid cid;
    ipfsrt_cid_sum(&cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, truth, sizeof truth, NULL);
    ipfsrt_transport t = {NULL, fake_start, fake_cancel, fake_pump, fake_pending, fake_wait,
                          fake_nothing, fake_nothing, NULL};
    ipfsrt_gateway_list list = {0};
    ipfsrt_gateway_list_add(&list, "http://127.0.0.1:9", NULL);
    ipfsrt_client_options o = {.size = sizeof o, .gateways = &list, .cache_bytes = UINT64_MAX, .retries = 1};
    ipfsrt_client *c;
    if (ipfsrt_client_new_on(&c, &o, &t, NULL) != IPFSRT_OK) abort();
    c->backoff_s = 0; /* retries at once: the fuzzer has no time to wait */
    char path[IPFSRT_CID_STR_MAX + 16];
    ipfsrt_cid_to_string(&cid, path);
    got g = {.len = 0};
    if (ipfsrt_client_read(c, path, 0, UINT64_MAX, keep, &g, NULL) == IPFSRT_OK &&
        (g.len != sizeof truth || memcmp(g.data, truth, sizeof truth) != 0))
        abort();
    if (g.len > sizeof truth || memcmp(g.data, truth, g.len) != 0) abort(); /* not even a part */
    req_count = 0;
    g.len = 0;
    if (ipfsrt_client_blocks(c, &cid, 1, keep_block, &g, NULL) == IPFSRT_OK &&
        (g.len != sizeof truth || memcmp(g.data, truth, sizeof truth) != 0))
        abort();
    strcat(path, "/a/b");
    ipfsrt_unixfs_node_info info;
    req_count = 0;
    ipfsrt_client_stat(c, path, &info, NULL);
    ipfsrt_client_free(c);
    ipfsrt_gateway_list_free(&list);
    return 0;
}
