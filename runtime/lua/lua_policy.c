/* The bridge from the client's C policy callbacks to a policy object written in
 * Lua (order, hedge_after, observe, max_in_flight): one contract, whether a
 * Lua client takes the object (client:set_policy_object) or a C host loads a
 * policy file or name (ipfsrt_lua_policy_new). lua/ipfsrt/policy.lua finds,
 * loads and checks such objects. A method that raises, or answers what the
 * contract does not allow, fails the call under way with IPFSRT_EBAD_POLICY,
 * naming the policy. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "base/base_internal.h"
#include "lua_client.h"

typedef struct lua_policy {
    lua_State *L;          /* where its methods run, unless a Lua client lends its call's state */
    lua_State *owned;      /* a state of the policy's own (closed with it), or NULL */
    ipfsrt_lua_client *lc; /* a Lua client's policy: it runs on the state of the client's call */
    int policy_ref;        /* the policy object, in L's registry */
    int gateways_ref;      /* {{url =, index =}, ...}, as the object's methods receive them */
    char what[256];        /* "policy FILE" or "the policy", for messages */
    ipfsrt_lua_budget budget; /* what each call of a method may take */
} lua_policy;

/* Every method runs under the policy's budget: one that loops or allocates
 * without end fails the call under way instead of hanging the client. */
static int call_method(const lua_policy *lp, lua_State *L, int nargs, int nresults) {
    return ipfsrt_lua_budget_pcall(L, nargs, nresults, &lp->budget);
}

static lua_State *running_state(const lua_policy *lp) { return lp->lc && lp->lc->L ? lp->lc->L : lp->L; }

static ipfsrt_status bad_policy(const lua_policy *lp, ipfsrt_error *err, const char *fmt, ...) IPFSRT_PRINTF(3, 4);
static ipfsrt_status bad_policy(const lua_policy *lp, ipfsrt_error *err, const char *fmt, ...) {
    char what[500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ipfsrt_fail(err, IPFSRT_EBAD_POLICY, -1, "%s: %s", lp->what, what);
}

/* A method raised (its error at -1, popped here). */
static ipfsrt_status method_failed(const lua_policy *lp, lua_State *L, const char *method, ipfsrt_error *err) {
    char shown[400];
    ipfsrt_lua_describe(L, -1, shown, sizeof shown);
    lua_pop(L, 1);
    return bad_policy(lp, err, "%s failed: %s", method, shown);
}

static const char *kind_name(ipfsrt_policy_request_kind k) {
    return k == IPFSRT_REQUEST_BLOCK ? "block" : k == IPFSRT_REQUEST_CAR ? "car" : "plain";
}

static void push_request(lua_State *L, const ipfsrt_policy_request *req) {
    lua_createtable(L, 0, 4);
    lua_pushstring(L, kind_name(req->kind));
    lua_setfield(L, -2, "kind");
    lua_pushstring(L, req->path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, req->query);
    lua_setfield(L, -2, "query");
    lua_pushinteger(L, (lua_Integer)req->attempt);
    lua_setfield(L, -2, "attempt");
}

static void push_gateway(lua_State *L, const lua_policy *lp, size_t gw) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, lp->gateways_ref);
    lua_rawgeti(L, -1, (lua_Integer)gw + 1);
    lua_remove(L, -2);
}

/* Pushes policy[name] and the policy itself; false (nothing pushed) when absent. */
static bool policy_method(const lua_policy *lp, lua_State *L, const char *name) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, lp->policy_ref);
    lua_getfield(L, -1, name);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 2);
        return false;
    }
    lua_insert(L, -2);
    return true;
}

/* The order a policy returned (at -1), read raw: no metamethod (__len,
 * __index) runs here, inside the client's loop, where a raise would unwind
 * over C frames; the walk is as long as the list really is. Entries are
 * gateways ({index =}) or their 1-based indices; anything else breaks the
 * contract, named with where it stands. */
static ipfsrt_status read_order(const lua_policy *lp, lua_State *L, size_t n, size_t *order, size_t *count,
                                ipfsrt_error *err) {
    char shown[120];
    if (!lua_istable(L, -1))
        return bad_policy(lp, err, "order returned %s, not a list of gateways or their indices (1 to %zu)",
                          ipfsrt_lua_describe(L, -1, shown, sizeof shown), n);
    size_t len = (size_t)lua_rawlen(L, -1);
    *count = 0;
    for (size_t i = 1; i <= len && *count < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        if (lua_istable(L, -1)) {
            lua_pushliteral(L, "index");
            lua_rawget(L, -2);
            lua_remove(L, -2);
        }
        int is_int = 0;
        lua_Integer idx = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &is_int) : 0;
        lua_pop(L, 1);
        if (!is_int || idx < 1 || (size_t)idx > n) {
            lua_rawgeti(L, -1, (lua_Integer)i); /* the entry as returned, for the message */
            ipfsrt_lua_describe(L, -1, shown, sizeof shown);
            lua_pop(L, 1);
            return bad_policy(lp, err, "order's entry %zu is %s, not a gateway or its index (1 to %zu)", i, shown,
                              n);
        }
        order[(*count)++] = (size_t)idx - 1;
    }
    return IPFSRT_OK;
}

static ipfsrt_status lp_order(void *ctx, const ipfsrt_policy_request *req, size_t n, size_t *order,
                              size_t *count_out, ipfsrt_error *err) {
    lua_policy *lp = ctx;
    lua_State *L = running_state(lp);
    int top = lua_gettop(L);
    size_t count = 0;
    ipfsrt_status st = IPFSRT_OK;
    if (policy_method(lp, L, "order")) {
        push_request(L, req);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lp->gateways_ref);
        if (call_method(lp, L, 3, 1) != LUA_OK) st = method_failed(lp, L, "order", err);
        else st = read_order(lp, L, n, order, &count, err);
    } else {
        for (; count < n; count++) order[count] = count;
    }
    lua_settop(L, top);
    *count_out = count;
    return st;
}

static ipfsrt_status lp_hedge(void *ctx, const ipfsrt_policy_request *req, double *seconds, ipfsrt_error *err) {
    lua_policy *lp = ctx;
    lua_State *L = running_state(lp);
    int top = lua_gettop(L);
    ipfsrt_status st = IPFSRT_OK;
    *seconds = -1;
    if (policy_method(lp, L, "hedge_after")) {
        push_request(L, req);
        char shown[120];
        if (call_method(lp, L, 2, 1) != LUA_OK) st = method_failed(lp, L, "hedge_after", err);
        else if (lua_type(L, -1) == LUA_TNUMBER) *seconds = lua_tonumber(L, -1);
        else if (!lua_isnil(L, -1))
            st = bad_policy(lp, err, "hedge_after returned %s, not seconds or nil",
                            ipfsrt_lua_describe(L, -1, shown, sizeof shown));
    }
    lua_settop(L, top);
    return st;
}

static void push_outcome(lua_State *L, const ipfsrt_policy_outcome *o) {
    lua_createtable(L, 0, 10);
    lua_pushboolean(L, o->ok);
    lua_setfield(L, -2, "ok");
    lua_pushboolean(L, o->verified);
    lua_setfield(L, -2, "verified");
    lua_pushstring(L, o->error == IPFSRT_GWERR_NONE ? "" : ipfsrt_gateway_error_name(o->error));
    lua_setfield(L, -2, "error");
    lua_pushboolean(L, o->verification_failed);
    lua_setfield(L, -2, "verification_failed");
    lua_pushinteger(L, o->status);
    lua_setfield(L, -2, "status");
    lua_pushnumber(L, o->latency_s);
    lua_setfield(L, -2, "latency");
    lua_pushnumber(L, o->duration_s);
    lua_setfield(L, -2, "duration");
    lua_pushinteger(L, (lua_Integer)o->bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushstring(L, o->detail);
    lua_setfield(L, -2, "detail");
    lua_pushboolean(L, o->guess);
    lua_setfield(L, -2, "guess");
}

static ipfsrt_status lp_observe(void *ctx, size_t gw, const ipfsrt_policy_request *req,
                                const ipfsrt_policy_outcome *o, ipfsrt_error *err) {
    lua_policy *lp = ctx;
    lua_State *L = running_state(lp);
    int top = lua_gettop(L);
    ipfsrt_status st = IPFSRT_OK;
    if (policy_method(lp, L, "observe")) { /* policy:observe(request, gateway, outcome) */
        push_request(L, req);
        push_gateway(L, lp, gw);
        push_outcome(L, o);
        if (call_method(lp, L, 4, 0) != LUA_OK) st = method_failed(lp, L, "observe", err);
    }
    lua_settop(L, top);
    return st;
}

static ipfsrt_status lp_max_in_flight(void *ctx, size_t gw, unsigned *cap, ipfsrt_error *err) {
    lua_policy *lp = ctx;
    lua_State *L = running_state(lp);
    int top = lua_gettop(L);
    ipfsrt_status st = IPFSRT_OK;
    *cap = 0;
    if (policy_method(lp, L, "max_in_flight")) {
        char shown[120];
        push_gateway(L, lp, gw); /* the client's message names the gateway */
        lua_Integer n = 0;
        if (call_method(lp, L, 2, 1) != LUA_OK) st = method_failed(lp, L, "max_in_flight", err);
        else if (lua_isinteger(L, -1) && (n = lua_tointeger(L, -1)) >= 1) *cap = n > UINT_MAX ? UINT_MAX : (unsigned)n;
        else if (!lua_isnil(L, -1))
            st = bad_policy(lp, err, "max_in_flight must be a whole number of requests (1 or more) or nil, not %s",
                            ipfsrt_lua_describe(L, -1, shown, sizeof shown));
    }
    lua_settop(L, top);
    return st;
}

static void lp_free(void *ctx) {
    lua_policy *lp = ctx;
    if (lp->owned) {
        lua_close(lp->owned);
    } else {
        luaL_unref(lp->L, LUA_REGISTRYINDEX, lp->policy_ref);
        luaL_unref(lp->L, LUA_REGISTRYINDEX, lp->gateways_ref);
    }
    free(lp);
}

/* A policy over the object and gateway list at the top of L (popped), which
 * stays valid as long as L's main thread: lp->L is that thread, never a
 * coroutine that may be collected before the policy is freed. */
static void fill_policy(ipfsrt_policy *p, lua_policy *lp, lua_State *L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lp->L = lua_tothread(L, -1);
    lua_pop(L, 1);
    lp->gateways_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lp->policy_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ipfsrt_policy_init(p);
    p->ctx = lp;
    p->order = lp_order;
    p->hedge_after = lp_hedge;
    p->observe = lp_observe;
    p->free = lp_free;
    p->max_in_flight = lp_max_in_flight;
}

/* client:set_policy_object(policy | nil, gateways[, what]): gateways is the
 * list the policy's methods receive ({url =, index =}, as ipfsrt.policy.load
 * got it); what names the policy in messages ("policy FILE"). */
int ipfsrt_lua_client_set_policy_object(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L); /* the engine may be inside the
                                                                policy it would replace */
    if (!lua_isnil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    const char *what = luaL_optstring(L, 4, "the policy");
    ipfsrt_error err;
    if (lua_isnil(L, 2)) {
        ipfsrt_client_set_policy(lc->c, NULL, &err);
        return 0;
    }
    lua_policy *lp = calloc(1, sizeof *lp);
    if (!lp) return luaL_error(L, "out of memory");
    snprintf(lp->what, sizeof lp->what, "%s", what);
    lp->lc = lc;
    ipfsrt_lua_budget_init(&lp->budget, 0, 0);
    lua_settop(L, 3);
    ipfsrt_policy p;
    fill_policy(&p, lp, L);
    lc->L = L; /* max_in_flight is asked now, on this state */
    if (ipfsrt_client_set_policy(lc->c, &p, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

typedef struct host_log {
    void (*log)(void *user, const char *line);
    void *user;
} host_log;

static int log_line(lua_State *L) {
    const host_log *to = lua_touserdata(L, lua_upvalueindex(1));
    to->log(to->user, luaL_checkstring(L, 1));
    return 0;
}

void ipfsrt_lua_policy_options_init(ipfsrt_lua_policy_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

/* Pushes {{url =, index =}, ...} for the client's gateways. */
static void push_gateways(lua_State *L, const ipfsrt_client *client) {
    size_t n = ipfsrt_client_gateway_count(client);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, ipfsrt_client_gateway_url(client, i));
        lua_setfield(L, -2, "url");
        lua_pushinteger(L, (lua_Integer)i + 1);
        lua_setfield(L, -2, "index");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* What a host asks for, handed to the protected loader. */
typedef struct load_request {
    const char *spec;
    const ipfsrt_client *client;
    const ipfsrt_lua_policy_options *opts;
    bool own_state; /* the policy's own state: ipfsrt becomes its global, as in the executable */
} load_request;

/* ipfsrt opened in L if it is not yet (a lent state may have it already). */
static void open_ipfsrt(lua_State *L, bool set_global) {
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    bool opened = lua_getfield(L, -1, "ipfsrt") != LUA_TNIL;
    lua_pop(L, 2);
    if (opened) return;
    ipfsrt_lua_open(L);
    if (set_global) lua_setglobal(L, "ipfsrt");
    else lua_pop(L, 1);
}

/* Runs require("ipfsrt.policy").load(spec, gateways, log), protected (every
 * push may raise): leaves the policy object, the gateways and what names the
 * policy. */
static int load_policy(lua_State *L) {
    const load_request *req = lua_touserdata(L, 1);
    if (req->own_state) luaL_openlibs(L);
    open_ipfsrt(L, req->own_state);
    push_gateways(L, req->client);
    int gateways = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "ipfsrt.policy");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "load");
    lua_pushstring(L, req->spec);
    lua_pushvalue(L, gateways);
    if (req->opts->log) { /* ctx.log, as the executable's -v prints it */
        host_log *to = lua_newuserdatauv(L, sizeof *to, 0);
        *to = (host_log){req->opts->log, req->opts->log_user};
        lua_pushcclosure(L, log_line, 1);
    } else {
        lua_pushnil(L);
    }
    lua_createtable(L, 0, 3); /* how it loads: sandboxed or trusted, under which budget */
    lua_pushboolean(L, req->opts->trusted);
    lua_setfield(L, -2, "trusted");
    lua_pushinteger(L, (lua_Integer)(req->opts->max_instructions > INT64_MAX ? INT64_MAX : req->opts->max_instructions));
    lua_setfield(L, -2, "max_instructions");
    lua_pushinteger(L, (lua_Integer)(req->opts->max_memory > INT64_MAX ? INT64_MAX : req->opts->max_memory));
    lua_setfield(L, -2, "max_memory");
    lua_call(L, 4, 2);
    int policy = lua_gettop(L) - 1;
    if (lua_isnil(L, policy)) return luaL_error(L, "no policy given, and IPFSRT_POLICY names none");
    lua_pushvalue(L, policy);
    lua_pushvalue(L, gateways);
    lua_pushvalue(L, policy + 1);
    return 3;
}

/* The state a policy runs on: the host's, or a new one of its own. */
static lua_State *policy_state(const ipfsrt_lua_policy_options *o, lua_State **owned) {
    *owned = NULL;
    if (o->L) return o->L;
    return *owned = luaL_newstate(); /* its libraries are opened protected, in load_policy */
}

ipfsrt_status ipfsrt_lua_policy_new(ipfsrt_policy *policy, const char *spec, const ipfsrt_client *client,
                                    const ipfsrt_lua_policy_options *opts, ipfsrt_error *err) {
    ipfsrt_policy_init(policy);
    ipfsrt_lua_policy_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_lua_policy_options_init, err);
    if (st != IPFSRT_OK) return st;
    lua_policy *lp = calloc(1, sizeof *lp);
    lua_State *owned = NULL, *L = lp ? policy_state(&o, &owned) : NULL;
    if (!L) {
        free(lp);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    int top = lua_gettop(L);
    load_request req = {spec, client, &o, owned != NULL};
    lua_pushcfunction(L, load_policy);
    lua_pushlightuserdata(L, &req);
    if (lua_pcall(L, 1, 3, 0) != LUA_OK) {
        char shown[600];
        ipfsrt_lua_describe(L, -1, shown, sizeof shown);
        lua_settop(L, top);
        if (owned) lua_close(owned);
        free(lp);
        return ipfsrt_fail(err, IPFSRT_EBAD_POLICY, -1, "%s", shown);
    }
    snprintf(lp->what, sizeof lp->what, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    lp->owned = owned;
    ipfsrt_lua_budget_init(&lp->budget, o.max_instructions, o.max_memory);
    fill_policy(policy, lp, L);
    lua_settop(L, top);
    return IPFSRT_OK;
}
