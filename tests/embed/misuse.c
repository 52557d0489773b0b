/* A C host misusing the library as a newcomer might: NULL out-pointers and
 * handles, a policy set twice, a policy that fails to be set, one without its
 * size or with members this library does not know, an error struct read back
 * after a success. Each answered with a status and a message (or nothing at
 * all), never a crash; every policy released exactly once. Run under
 * valgrind's memcheck by tests/embed/run.sh when valgrind is there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipfsrt.h>

static int failures;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

typedef struct counted {
    int frees;
    int fail_caps;
} counted;

static void count_free(void *ctx) { ((counted *)ctx)->frees++; }

static ipfsrt_status caps(void *ctx, size_t gw, unsigned *cap, ipfsrt_error *err) {
    (void)gw;
    *cap = 4;
    if (((counted *)ctx)->fail_caps) return ipfsrt_fail(err, IPFSRT_EBAD_POLICY, -1, "no caps today");
    return IPFSRT_OK;
}

static ipfsrt_policy policy_of(counted *c) {
    ipfsrt_policy p;
    ipfsrt_policy_init(&p);
    p.ctx = c;
    p.free = count_free;
    p.max_in_flight = caps;
    return p;
}

static void null_handles(void) {
    ipfsrt_error err;
    check(ipfsrt_client_new(NULL, NULL, &err) == IPFSRT_EBAD_ARGUMENT && strstr(err.message, "NULL"),
          "ipfsrt_client_new(NULL, ...) answers bad_argument");
    counted c = {0, 0};
    ipfsrt_policy p = policy_of(&c);
    check(ipfsrt_client_set_policy(NULL, &p, &err) == IPFSRT_EBAD_ARGUMENT, "set_policy on no client");
    check(c.frees == 1, "a policy handed to no client is released once");
}

/* The same policy twice, a failing one, one without size, one too long. */
static void policies(ipfsrt_client *client) {
    ipfsrt_error err;
    counted first = {0, 0}, failing = {0, 1}, unsized = {0, 0};
    ipfsrt_policy p = policy_of(&first);
    check(ipfsrt_client_set_policy(client, &p, &err) == IPFSRT_OK, "a policy is taken");
    check(ipfsrt_client_set_policy(client, &p, &err) == IPFSRT_OK && first.frees == 0,
          "the same policy set twice changes nothing");
    ipfsrt_policy f = policy_of(&failing);
    check(ipfsrt_client_set_policy(client, &f, &err) == IPFSRT_EBAD_POLICY && strstr(err.message, "no caps today"),
          "a failing max_in_flight fails the set, saying why");
    check(failing.frees == 1 && first.frees == 0, "a failed set releases the new policy and keeps the one before");
    ipfsrt_policy z = policy_of(&unsized);
    z.size = 0;
    check(ipfsrt_client_set_policy(client, &z, &err) == IPFSRT_EBAD_ARGUMENT && unsized.frees == 1,
          "a policy without its size is refused and released");
    struct {
        ipfsrt_policy p;
        void *unknown;
    } longer = {policy_of(&unsized), &longer};
    longer.p.size = sizeof longer;
    check(ipfsrt_client_set_policy(client, &longer.p, &err) == IPFSRT_EUNSUPPORTED && unsized.frees == 2,
          "a longer policy setting unknown members is refused and released");
    check(first.frees == 0, "the first policy is still the client's");
    ipfsrt_client_free(client);
    check(first.frees == 1, "the client releases the policy it held, once");
}

/* A success leaves the caller's error struct as it was. */
static void error_untouched(void) {
    ipfsrt_error err, before;
    memset(&err, 0x5a, sizeof err);
    before = err;
    uint8_t out[64];
    size_t len;
    check(ipfsrt_multibase_decode("mAQID", 5, out, sizeof out, &len, NULL, &err) == IPFSRT_OK && len == 3,
          "a multibase string decodes");
    check(memcmp(&err, &before, sizeof err) == 0, "a successful decode writes nothing into err");
    ipfsrt_cid cid;
    check(ipfsrt_cid_parse(&cid, "bafkqaaa", 8, NULL, &err) == IPFSRT_OK, "a CID parses");
    check(memcmp(&err, &before, sizeof err) == 0, "a successful parse writes nothing into err");
    ipfsrt_error *fresh = malloc(sizeof *fresh); /* never initialized: memcheck sees any read of it */
    check(fresh && ipfsrt_multibase_decode("mAQID", 5, out, sizeof out, &len, NULL, fresh) == IPFSRT_OK,
          "a decode into a fresh error struct");
    free(fresh);
}

int main(void) {
    null_handles();
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    ipfsrt_client *client = NULL;
    if (ipfsrt_gateway_list_add(&list, "http://127.0.0.1:9", &err) != IPFSRT_OK) return 2;
    ipfsrt_client_options o;
    ipfsrt_client_options_init(&o);
    o.gateways = &list;
    if (ipfsrt_client_new(&client, &o, &err) != IPFSRT_OK) return 2;
    ipfsrt_gateway_list_free(&list);
    policies(client);
    error_untouched();
    printf("misuse: %s\n", failures ? "failed" : "every misuse answered, every policy released once");
    return failures ? 1 : 0;
}
