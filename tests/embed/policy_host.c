/* A C host that reads through two gateways, one of them lying, with a gateway
 * policy written in Lua: the host has no Lua state of its own (the policy
 * runs on one the library makes), then lends its own. It starts both
 * gateways itself, on 127.0.0.1. Usage: policy_host CAR ROOT POLICY.lua */
#define IPFSRT_EXPERIMENTAL_API /* the gateway it starts (ipfsrt/server.h) is experimental */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include <ipfsrt.h>
#include <ipfsrt/server.h>
#include <ipfsrt/lua.h>

static int fail(const char *what, const ipfsrt_error *err) {
    fprintf(stderr, "policy_host: %s: %s: %s\n", what, ipfsrt_status_name(err->code), err->message);
    return 1;
}

static void print_line(void *user, const char *line) { printf("%s: %s\n", (const char *)user, line); }

static ipfsrt_status keep(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    strncat(user, (const char *)data, len < 63 ? len : 63);
    return IPFSRT_OK;
}

static ipfsrt_status serve(ipfsrt_server **srv, const char *car, double tamper, ipfsrt_error *err) {
    ipfsrt_server_options opts;
    ipfsrt_server_options_init(&opts);
    opts.cars = &car;
    opts.n_cars = 1;
    opts.faults.tamper = tamper;
    return ipfsrt_server_new(srv, &opts, err);
}

/* A fresh client over the liar then the honest gateway, under the policy
 * file (on a state of its own when L is NULL), reading path. */
static int read_under_policy(const ipfsrt_server *liar, const ipfsrt_server *honest, const char *policy_file,
                             lua_State *L, const char *path) {
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    if (ipfsrt_gateway_list_add(&list, ipfsrt_server_url(liar), &err) != IPFSRT_OK ||
        ipfsrt_gateway_list_add(&list, ipfsrt_server_url(honest), &err) != IPFSRT_OK)
        return fail("gateways", &err);
    ipfsrt_client_options copts;
    ipfsrt_client_options_init(&copts);
    copts.gateways = &list;
    copts.cache_bytes = UINT64_MAX; /* no cache: each client asks the gateways */
    ipfsrt_client *client;
    ipfsrt_status st = ipfsrt_client_new(&client, &copts, &err);
    ipfsrt_gateway_list_free(&list);
    if (st != IPFSRT_OK) return fail("client", &err);
    ipfsrt_lua_policy_options popts;
    ipfsrt_lua_policy_options_init(&popts);
    popts.L = L;
    popts.log = print_line;
    popts.log_user = L ? "policy (host's state)" : "policy (own state)";
    ipfsrt_policy policy;
    if (ipfsrt_lua_policy_new(&policy, policy_file, client, &popts, &err) != IPFSRT_OK ||
        ipfsrt_client_set_policy(client, &policy, &err) != IPFSRT_OK) {
        ipfsrt_client_free(client);
        return fail("policy", &err);
    }
    char text[64] = "";
    for (int i = 0; i < 2 && st == IPFSRT_OK; i++) { /* the second read asks the honest gateway only */
        text[0] = '\0';
        st = ipfsrt_client_read(client, path, 0, UINT64_MAX, keep, text, &err);
    }
    ipfsrt_client_free(client);
    if (st != IPFSRT_OK) return fail("read", &err);
    printf("read %zu verified bytes: %s", strlen(text), text);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: policy_host CAR ROOT POLICY.lua\n");
        return 2;
    }
    ipfsrt_server *liar, *honest;
    ipfsrt_error err;
    if (serve(&liar, argv[1], 1.0, &err) != IPFSRT_OK) return fail("liar", &err);
    if (serve(&honest, argv[1], 0, &err) != IPFSRT_OK) return fail("honest gateway", &err);
    char path[512];
    snprintf(path, sizeof path, "ipfs://%s/hello.txt", argv[2]);
    int rc = read_under_policy(liar, honest, argv[3], NULL, path);
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (!rc) rc = read_under_policy(liar, honest, argv[3], L, path);
    lua_close(L);
    ipfsrt_server_stats liar_stats = IPFSRT_SERVER_STATS_INIT;
    ipfsrt_server_get_stats(liar, &liar_stats);
    printf("the liar was asked %llu times, for four reads\n", (unsigned long long)liar_stats.requests);
    ipfsrt_server_free(liar);
    ipfsrt_server_free(honest);
    return rc;
}
