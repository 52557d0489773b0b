/* The bridge from the client's C policy callbacks to a policy object written in
 * Lua (order, hedge_after, observe); lua/ipfsrt/policy.lua loads such objects. */
#include "lua_client.h"

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
    lua_pushinteger(L, (lua_Integer)req->attempt + 1); /* 1 for the first try, as the README says */
    lua_setfield(L, -2, "attempt");
}

/* Pushes policy[name] and the policy itself; false (nothing pushed) when absent. */
static bool policy_method(ipfsrt_lua_client *lc, const char *name) {
    lua_State *L = lc->L;
    if (lc->policy_ref == LUA_NOREF) return false;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lc->policy_ref);
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
static ipfsrt_status read_order(ipfsrt_lua_client *lc, size_t n, size_t *order, size_t *count, ipfsrt_error *err) {
    lua_State *L = lc->L;
    char shown[120];
    if (!lua_istable(L, -1))
        return ipfsrt_lua_client_bad_policy(lc, err, "order returned %s, not a list of gateways or their indices (1 to %zu)",
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
        if (!is_int || idx < 1 || (size_t)idx > n) {
            lua_rawgeti(L, -2, (lua_Integer)i); /* the entry as returned, for the message */
            ipfsrt_lua_describe(L, -1, shown, sizeof shown);
            lua_pop(L, 2);
            return ipfsrt_lua_client_bad_policy(lc, err, "order's entry %zu is %s, not a gateway or its index (1 to %zu)",
                                                i, shown, n);
        }
        lua_pop(L, 1);
        order[(*count)++] = (size_t)idx - 1;
    }
    return IPFSRT_OK;
}

static ipfsrt_status lp_order(void *ctx, const ipfsrt_policy_request *req, size_t n, size_t *order,
                              size_t *count_out, ipfsrt_error *err) {
    ipfsrt_lua_client *lc = ctx;
    lua_State *L = lc->L;
    int top = lua_gettop(L);
    size_t count = 0;
    ipfsrt_status st = IPFSRT_OK;
    if (policy_method(lc, "order")) {
        push_request(L, req);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lc->gateways_ref);
        if (lua_pcall(L, 3, 1, 0) != LUA_OK) st = ipfsrt_lua_client_callback_failed(lc, "policy order", err);
        else st = read_order(lc, n, order, &count, err);
    } else {
        for (; count < n; count++) order[count] = count;
    }
    lua_settop(L, top);
    *count_out = count;
    return st;
}

static ipfsrt_status lp_hedge(void *ctx, const ipfsrt_policy_request *req, double *seconds,
                              ipfsrt_error *err) {
    ipfsrt_lua_client *lc = ctx;
    lua_State *L = lc->L;
    int top = lua_gettop(L);
    ipfsrt_status st = IPFSRT_OK;
    *seconds = -1;
    if (policy_method(lc, "hedge_after")) {
        push_request(L, req);
        char shown[120];
        if (lua_pcall(L, 2, 1, 0) != LUA_OK) st = ipfsrt_lua_client_callback_failed(lc, "policy hedge_after", err);
        else if (lua_type(L, -1) == LUA_TNUMBER) *seconds = lua_tonumber(L, -1);
        else if (!lua_isnil(L, -1))
            st = ipfsrt_lua_client_bad_policy(lc, err, "hedge_after returned %s, not seconds or nil",
                                              ipfsrt_lua_describe(L, -1, shown, sizeof shown));
    }
    lua_settop(L, top);
    return st;
}

static ipfsrt_status lp_observe(void *ctx, size_t gw, const ipfsrt_policy_request *req,
                                const ipfsrt_policy_outcome *o, ipfsrt_error *err) {
    ipfsrt_lua_client *lc = ctx;
    lua_State *L = lc->L;
    int top = lua_gettop(L);
    ipfsrt_status st = IPFSRT_OK;
    if (policy_method(lc, "observe")) { /* policy:observe(request, gateway, outcome) */
        push_request(L, req);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lc->gateways_ref);
        lua_rawgeti(L, -1, (lua_Integer)gw + 1);
        lua_remove(L, -2);
        lua_createtable(L, 0, 8);
        lua_pushboolean(L, o->ok);
        lua_setfield(L, -2, "ok");
        lua_pushboolean(L, o->verified);
        lua_setfield(L, -2, "verified");
        lua_pushstring(L, o->error == IPFSRT_GWERR_NONE ? "" : ipfsrt_gateway_error_name(o->error));
        lua_setfield(L, -2, "error");
        lua_pushboolean(L, ipfsrt_gateway_error_is_verification(o->error));
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
        if (lua_pcall(L, 4, 0, 0) != LUA_OK) st = ipfsrt_lua_client_callback_failed(lc, "policy observe", err);
    }
    lua_settop(L, top);
    return st;
}

static void lp_free(void *ctx) {
    ipfsrt_lua_client *lc = ctx;
    luaL_unref(lc->L, LUA_REGISTRYINDEX, lc->policy_ref);
    lc->policy_ref = LUA_NOREF;
}

/* client:set_policy_object(policy | nil, gateways[, what]): gateways is the
 * list the policy's methods receive ({url =, index =}, as ipfsrt.policy.load
 * got it); what names the policy in messages ("policy FILE"). */
int ipfsrt_lua_client_set_policy_object(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L); /* the engine may be inside the
                                                                policy it would replace */
    if (!lua_isnil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    snprintf(lc->policy_what, sizeof lc->policy_what, "%s", luaL_optstring(L, 4, "the policy"));
    lua_settop(L, 3);
    ipfsrt_client_set_policy(lc->c, NULL); /* releases the previous object */
    if (lua_isnil(L, 2)) return 0;
    luaL_unref(L, LUA_REGISTRYINDEX, lc->gateways_ref);
    lc->gateways_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lc->policy_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ipfsrt_policy p = {lc, lp_order, lp_hedge, lp_observe, lp_free};
    ipfsrt_client_set_policy(lc->c, &p);
    return 0;
}
