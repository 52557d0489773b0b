/* ipfsrt.serve: a trustless gateway over CAR files, on threads of its own,
 * and in front of upstream gateways through a client (which gateway:wait()
 * drives on the calling thread, where its policy runs). */
#include <signal.h>
#include <string.h>

#include "bindings.h"
#include "lua_client.h"

#define GATEWAY "ipfsrt.gateway"

typedef struct lua_gateway {
    ipfsrt_server *server;
    ipfsrt_client_relay *relay; /* with an upstream client, kept in the user value */
    ipfsrt_lua_client *client;
} lua_gateway;

static lua_gateway *check_gateway(lua_State *L) {
    lua_gateway *gw = luaL_checkudata(L, 1, GATEWAY);
    if (!gw->server) ipfsrt_lua_raise_arg(L, "the gateway is stopped");
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

/* The CAR paths (maybe none when there is an upstream) in a userdata, so that
 * an error cannot leak them; n receives their number. */
static const char **car_paths(lua_State *L, bool upstream, size_t *n) {
    lua_getfield(L, 1, "cars");
    if (lua_isnil(L, -1) && upstream) {
        *n = 0;
        return NULL;
    }
    if (!lua_istable(L, -1)) ipfsrt_lua_raise_arg(L, "serve needs cars = {path, ...} or an upstream");
    lua_Integer count = luaL_len(L, -1);
    if (count < (upstream ? 0 : 1) || count > 1024) ipfsrt_lua_raise_arg(L, "serve takes 1 to 1024 CAR files");
    const char **paths = lua_newuserdatauv(L, sizeof *paths * (size_t)(count ? count : 1), 0);
    for (lua_Integer i = 1; i <= count; i++) {
        lua_rawgeti(L, -2, i);
        paths[i - 1] = luaL_checkstring(L, -1);
        lua_pop(L, 1); /* still referenced by the cars table */
    }
    *n = (size_t)count;
    return paths;
}

static void read_faults(lua_State *L, ipfsrt_server_faults *f) {
    lua_getfield(L, 1, "faults");
    if (lua_istable(L, -1)) {
        int t = lua_gettop(L);
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
    lua_pop(L, 1);
}

/* upstream = client: a relay over it, the client kept in the gateway's user
 * value (at -1) for as long as the gateway lives. */
static void attach_upstream(lua_State *L, lua_gateway *gw) {
    lua_getfield(L, 1, "upstream");
    ipfsrt_lua_client *lc = luaL_testudata(L, -1, IPFSRT_LUA_CLIENT);
    if (!lc || !lc->c) ipfsrt_lua_raise_arg(L, "upstream must be an open ipfsrt.client");
    lua_setiuservalue(L, -2, 1);
    ipfsrt_error err;
    if (ipfsrt_client_relay_new(&gw->relay, lc->c, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    gw->client = lc;
}

/* ipfsrt.serve{cars = {path, ...}, upstream = client, listen = "127.0.0.1:0",
 *   threads = 4, max_connections = 1024, head_seconds = 10, per_address = 512, log = path, tls_cert =, tls_key =,
 *   ipns_records = folder, ipns_client = client (not upstream's),
 *   faults = {tamper, fail, truncate, reset, wrong_block, wrong_dag (probabilities),
 *             delay_ms, delay_jitter_ms, slow (bytes/s), seed}} */
/* ipns_client = client: names not in ipns_records asked of its gateways; kept
 * in the gateway's second user value (the gateway is at -1). It must be a
 * client of its own: the server calls it from its threads. */
static ipfsrt_client *ipns_client(lua_State *L) {
    lua_getfield(L, 1, "ipns_client");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    ipfsrt_lua_client *lc = luaL_testudata(L, -1, IPFSRT_LUA_CLIENT);
    if (!lc || !lc->c) ipfsrt_lua_raise_arg(L, "ipns_client must be an open ipfsrt.client");
    lua_getfield(L, 1, "upstream");
    if (lua_touserdata(L, -1) == lc) ipfsrt_lua_raise_arg(L, "ipns_client must be another client than upstream");
    lua_pop(L, 1);
    lua_setiuservalue(L, -2, 2);
    return lc->c;
}

static int l_serve(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "upstream");
    bool upstream = !lua_isnil(L, -1);
    lua_pop(L, 1);
    ipfsrt_server_options opts;
    ipfsrt_server_options_init(&opts);
    opts.cars = car_paths(L, upstream, &opts.n_cars);
    lua_getfield(L, 1, "listen");
    opts.listen = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "threads");
    opts.threads = (unsigned)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 1, "max_connections");
    opts.max_connections = (unsigned)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 1, "head_seconds");
    opts.head_seconds = (unsigned)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 1, "per_address");
    opts.per_address = (unsigned)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 1, "log");
    opts.log_path = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "tls_cert");
    opts.tls_cert = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "tls_key");
    opts.tls_key = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 1, "ipns_records");
    opts.ipns_records = luaL_optstring(L, -1, NULL);
    read_faults(L, &opts.faults);
    lua_gateway *gw = lua_newuserdatauv(L, sizeof *gw, 2);
    memset(gw, 0, sizeof *gw);
    luaL_setmetatable(L, GATEWAY);
    if (upstream) {
        attach_upstream(L, gw);
        opts.upstream = gw->relay;
    }
    opts.ipns_client = ipns_client(L);
    ipfsrt_error err;
    if (ipfsrt_server_new(&gw->server, &opts, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int gw_url(lua_State *L) {
    lua_pushstring(L, ipfsrt_server_url(check_gateway(L)->server));
    return 1;
}

static int gw_stats(lua_State *L) {
    ipfsrt_server_stats st = IPFSRT_SERVER_STATS_INIT;
    ipfsrt_server_get_stats(check_gateway(L)->server, &st);
    lua_createtable(L, 0, 7);
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
    lua_pushinteger(L, (lua_Integer)st.peak_in_flight);
    lua_setfield(L, -2, "peak_in_flight");
    return 1;
}

/* The relay first, so that requests waiting on it end (503) and the
 * server's threads can stop. */
static int gw_stop(lua_State *L) {
    lua_gateway *gw = luaL_checkudata(L, 1, GATEWAY);
    if (gw->relay) ipfsrt_client_relay_stop(gw->relay);
    ipfsrt_server_free(gw->server);
    ipfsrt_client_relay_free(gw->relay);
    *gw = (lua_gateway){0};
    lua_pushnil(L);
    lua_setiuservalue(L, 1, 1);
    return 0;
}

/* Fetches what requests ask of upstream, on this thread, until a signal. */
static int wait_driving(lua_State *L, lua_gateway *gw) {
    ipfsrt_lua_client_enter(L, gw->client); /* raises when it was closed */
    ipfsrt_lua_catch_signals();
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_client_relay_run(gw->relay, &err);
    gw->client->busy = false; /* a policy's errors were each request's answer, not this call's */
    int sig = ipfsrt_stop_requested();
    ipfsrt_request_stop(0);
    if (st != IPFSRT_OK && !sig) return ipfsrt_lua_raise(L, &err);
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
    return 1;
}

/* gateway:wait() blocks until SIGINT or SIGTERM and returns its name. The
 * gateway's threads take no signals, so they reach this thread. With an
 * upstream client, this thread fetches for the requests meanwhile. */
static int gw_wait(lua_State *L) {
    lua_gateway *gw = check_gateway(L);
    if (gw->relay) return wait_driving(L, gw);
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
