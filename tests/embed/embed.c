/* A host program that uses libipfsrt as an ordinary C library, found through
 * pkg-config: parse a CID, verify a CAR, then hand the module (libipfsrt-lua)
 * to its own Lua: a client with a named and an inline policy, then a script
 * of the host's given (SCRIPT ARGS...). */
#define IPFSRT_EXPERIMENTAL_API /* the gateway it starts (ipfsrt/server.h) is experimental */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include <ipfsrt.h>
#include <ipfsrt/server.h>
#include <ipfsrt/lua.h>

static ipfsrt_status count_block(void *user, const ipfsrt_car_block *block, ipfsrt_error *err) {
    (void)block;
    (void)err;
    (*(unsigned *)user)++;
    return IPFSRT_OK;
}

static int fail(const ipfsrt_error *err) {
    fprintf(stderr, "embed: %s: %s\n", ipfsrt_status_name(err->code), err->message);
    return 1;
}

/* The C side: the CAR verified whole, then its root block read. */
static int verify_car(const char *path, const char *root_text) {
    ipfsrt_cid root;
    ipfsrt_error err;
    if (ipfsrt_cid_parse(&root, root_text, strlen(root_text), NULL, &err) != IPFSRT_OK) return fail(&err);
    unsigned seen = 0;
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    if (ipfsrt_car_verify_file(path, NULL, count_block, &seen, &counts, &err) != IPFSRT_OK)
        return fail(&err);
    ipfsrt_car_file *car;
    const uint8_t *data;
    size_t len;
    if (ipfsrt_car_file_new(&car, path, NULL, &err) != IPFSRT_OK ||
        ipfsrt_car_file_get(car, &root, &data, &len, &err) != IPFSRT_OK)
        return fail(&err);
    char s[IPFSRT_CID_STR_MAX];
    printf("root %s: %zu bytes; %u blocks (%llu bytes) verified\n", ipfsrt_cid_to_string(&root, s), len, seen,
           (unsigned long long)counts.bytes);
    ipfsrt_car_file_free(car);
    return 0;
}

/* An n-d array the script returned, read in C while it sits on the stack
 * (the Lua value owns it). */
static void print_returned_array(lua_State *L) {
    const ipfsrt_ndarray *a = ipfsrt_lua_test_ndarray(L, -1);
    if (!a) return;
    printf("host took a %s array of %zu values from Lua:", ipfsrt_dtype_name(a->dtype), ipfsrt_ndarray_size(a));
    for (int64_t i = 0; a->ndim == 1 && i < (int64_t)a->shape[0]; i++) {
        ipfsrt_ndvalue v;
        if (ipfsrt_ndarray_get(a, &i, 1, &v, NULL) == IPFSRT_OK) printf(" %.1f", v.f);
    }
    printf("\n");
    lua_pop(L, 1);
}

/* The Lua side, in the host's own state: a client with a named and an inline
 * policy through the gateway at url, then the host's script, if any. */
static int run_lua(const char *path, const char *url, const char *root, int argc, char **argv) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    ipfsrt_lua_open(L);
    lua_setglobal(L, "ipfsrt");
    /* ipfsrt.client and its policies come from the library itself: no
     * package.path set up by the host */
    const char *code =
        "local path, gw, root = ...\n"
        "local car = ipfsrt.car.open(path)\n"
        "print('lua sees ' .. #car:roots() .. ' root(s), first ' .. tostring(car:roots()[1]))\n"
        "local c = ipfsrt.client{gateways = {gw}, policy = 'failover', cache = false}\n"
        "local n = #c:get('ipfs://' .. root .. '/hello.txt')\n"
        "local asked = 0\n"
        "c:set_policy{order = function(self, request, gateways) asked = asked + 1; return gateways end}\n"
        "assert(#c:get('ipfs://' .. root .. '/hello.txt') == n and asked == 1)\n"
        "c:close()\n"
        "print('lua client read ' .. n .. ' verified bytes with policies failover and inline')";
    int status = luaL_loadstring(L, code);
    if (status == LUA_OK) {
        lua_pushstring(L, path);
        lua_pushstring(L, url);
        lua_pushstring(L, root);
        status = lua_pcall(L, 3, 0, 0);
    }
    if (status == LUA_OK && argc > 0 && (status = luaL_loadfile(L, argv[0])) == LUA_OK) {
        for (int i = 1; i < argc; i++) lua_pushstring(L, argv[i]);
        if ((status = lua_pcall(L, argc - 1, 1, 0)) == LUA_OK) print_returned_array(L);
    }
    if (status != LUA_OK) fprintf(stderr, "embed: lua: %s\n", luaL_tolstring(L, -1, NULL));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE.car ROOT-CID [SCRIPT.lua ARGS...]\n", argv[0]);
        return 2;
    }
    if (verify_car(argv[1], argv[2]) != 0) return 1;
    /* a gateway of the host's own, for the Lua client */
    const char *cars[] = {argv[1]};
    ipfsrt_server *gw;
    ipfsrt_server_options sopts;
    ipfsrt_server_options_init(&sopts);
    sopts.cars = cars;
    sopts.n_cars = 1;
    ipfsrt_error err;
    if (ipfsrt_server_new(&gw, &sopts, &err) != IPFSRT_OK) return fail(&err);
    int rc = run_lua(argv[1], ipfsrt_server_url(gw), argv[2], argc - 3, argv + 3);
    ipfsrt_server_free(gw);
    return rc;
}
