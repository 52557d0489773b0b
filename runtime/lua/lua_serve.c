/* ipfsrt.serve: a trustless gateway over CAR files, on threads of its own. */
#include <signal.h>
#include <string.h>

#include "bindings.h"

#define GATEWAY "ipfsrt.gateway"

static ipfsrt_server **check_gateway(lua_State *L) {
    ipfsrt_server **gw = luaL_checkudata(L, 1, GATEWAY);
    if (!*gw) ipfsrt_lua_raise_arg(L, "the gateway is stopped");
    return gw;
}

static double fault_rate(lua_State *L, int t, const char *key) {
    lua_getfield(L, t, key);
    double v = luaL_optnumber(L, -1, 0);
    lua_pop(L, 1);
    if (v < 0 || v > 1) ipfsrt_lua_raise_arg(L, "faults.%s must be a probability in [0, 1]", key);
    return v;
}

static lua_Integer fault_int(lua_State *L, int t, const char *key) {
    lua_getfield(L, t, key);
    lua_Integer v = luaL_optinteger(L, -1, 0);
    lua_pop(L, 1);
    if (v < 0) ipfsrt_lua_raise_arg(L, "faults.%s must not be negative", key);
    return v;
}

/* ipfsrt.serve{cars = {path, ...}, listen = "127.0.0.1:0", threads = 4, log = path,
 *   faults = {tamper, fail, truncate, reset, wrong_block, wrong_dag (probabilities), delay_ms,
 *             delay_jitter_ms, slow (bytes/s), seed}} */
static int l_serve(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "cars");
    if (!lua_istable(L, -1)) return ipfsrt_lua_raise_arg(L, "serve needs cars = {path, ...}");
    lua_Integer n = luaL_len(L, -1);
    if (n < 1 || n > 1024) return ipfsrt_lua_raise_arg(L, "serve needs 1 to 1024 CAR files");
    /* the paths array is a userdata so that an error cannot leak it */
    const char **paths = lua_newuserdatauv(L, sizeof *paths * (size_t)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        paths[i - 1] = luaL_checkstring(L, -1);
        lua_pop(L, 1); /* still referenced by the cars table */
    }
    ipfsrt_server_options opts;
    ipfsrt_server_options_init(&opts);
    lua_getfield(L, 1, "listen");
    opts.listen = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "threads");
    opts.threads = (unsigned)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 1, "log");
    opts.log_path = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "tls_cert");
    opts.tls_cert = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "tls_key");
    opts.tls_key = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "faults");
    if (lua_istable(L, -1)) {
        int t = lua_gettop(L);
        ipfsrt_server_faults *f = &opts.faults;
        f->tamper = fault_rate(L, t, "tamper");
        f->fail = fault_rate(L, t, "fail");
        f->truncate = fault_rate(L, t, "truncate");
        f->reset = fault_rate(L, t, "reset");
        f->wrong_block = fault_rate(L, t, "wrong_block");
        f->wrong_dag = fault_rate(L, t, "wrong_dag");
        f->delay_ms = (unsigned)fault_int(L, t, "delay_ms");
        f->delay_jitter_ms = (unsigned)fault_int(L, t, "delay_jitter_ms");
        f->slow_bytes_per_s = (uint64_t)fault_int(L, t, "slow");
        f->seed = (uint64_t)fault_int(L, t, "seed");
    }
    ipfsrt_server **gw = lua_newuserdatauv(L, sizeof *gw, 0);
    *gw = NULL;
    luaL_setmetatable(L, GATEWAY);
    ipfsrt_error err;
    opts.cars = paths;
    opts.n_cars = (size_t)n;
    if (ipfsrt_server_new(gw, &opts, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int gw_url(lua_State *L) {
    lua_pushstring(L, ipfsrt_server_url(*check_gateway(L)));
    return 1;
}

static int gw_stats(lua_State *L) {
    ipfsrt_server_stats st;
    ipfsrt_server_get_stats(*check_gateway(L), &st);
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)st.requests);
    lua_setfield(L, -2, "requests");
    lua_pushinteger(L, (lua_Integer)st.bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)st.status_2xx);
    lua_setfield(L, -2, "status_2xx");
    lua_pushinteger(L, (lua_Integer)st.status_4xx);
    lua_setfield(L, -2, "status_4xx");
    lua_pushinteger(L, (lua_Integer)st.status_5xx);
    lua_setfield(L, -2, "status_5xx");
    lua_pushinteger(L, (lua_Integer)st.faults);
    lua_setfield(L, -2, "faults");
    return 1;
}

static int gw_stop(lua_State *L) {
    ipfsrt_server **gw = luaL_checkudata(L, 1, GATEWAY);
    ipfsrt_server_free(*gw);
    *gw = NULL;
    return 0;
}

/* gateway:wait() blocks until SIGINT or SIGTERM and returns its name. The
 * gateway's threads take no signals, so they reach this thread. */
static int gw_wait(lua_State *L) {
    check_gateway(L);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : "SIGTERM");
    return 1;
}

void ipfsrt_lua_open_serve(lua_State *L) {
    static const luaL_Reg methods[] = {{"url", gw_url},   {"stats", gw_stats},
                                       {"stop", gw_stop}, {"wait", gw_wait},
                                       {NULL, NULL}};
    ipfsrt_lua_class(L, GATEWAY, methods, gw_stop, NULL);
    lua_pushcfunction(L, l_serve);
    lua_setfield(L, -2, "serve");
}
