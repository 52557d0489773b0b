/* n-d array methods that order values along an axis: take, sort, argsort,
 * quantile. Thin: arguments checked, the C function called. */
#include <string.h>

#include "bindings.h"
#include "lua_ndarray.h"

/* a:take({i, ...}, axis): the positions (from 0, negative from the end) along axis */
static int array_take(lua_State *L) {
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int axis = (int)luaL_checkinteger(L, 3);
    lua_settop(L, 3);
    size_t n = (size_t)luaL_len(L, 2);
    int64_t *idx = lua_newuserdatauv(L, (n ? n : 1) * sizeof *idx, 0); /* freed by Lua on any error */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        if (!lua_isinteger(L, -1)) return ipfsrt_lua_raise_arg(L, "take: item %zu is not a whole number", i + 1);
        idx[i] = (int64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_take(out, a, idx, n, axis, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int sort_along(lua_State *L, bool positions) {
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int axis = (int)luaL_optinteger(L, 2, -1);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_sort(out, a, axis, positions, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:sort([axis = -1]), a:argsort([axis = -1]): stable, NaN last */
static int array_sort(lua_State *L) { return sort_along(L, false); }
static int array_argsort(lua_State *L) { return sort_along(L, true); }

/* The method named at idx (nil: linear), or an error listing them. */
static ipfsrt_quantile_method method_of(lua_State *L, int idx) {
    const char *name = luaL_optstring(L, idx, "linear");
    for (int m = 0; ipfsrt_quantile_method_name((ipfsrt_quantile_method)m); m++)
        if (strcmp(name, ipfsrt_quantile_method_name((ipfsrt_quantile_method)m)) == 0) return (ipfsrt_quantile_method)m;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int m = 0; ipfsrt_quantile_method_name((ipfsrt_quantile_method)m); m++) {
        if (m) luaL_addstring(&b, ", ");
        luaL_addstring(&b, ipfsrt_quantile_method_name((ipfsrt_quantile_method)m));
    }
    luaL_pushresult(&b);
    ipfsrt_lua_raise_arg(L, "quantile: no method %s (methods: %s)", name, lua_tostring(L, -1));
    return IPFSRT_QUANTILE_LINEAR;
}

/* a:quantile(q | {q, ...}[, axes][, {method = "linear", skipna = true}]):
 * axes an axis, a list, or nil (everything). A list of q gives a first axis
 * of its length; a single q none (a number when over everything). */
static int array_quantile(lua_State *L) {
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    lua_settop(L, 4); /* what is pushed below lies past the arguments */
    bool listed = lua_istable(L, 2);
    size_t nq = listed ? (size_t)luaL_len(L, 2) : 1;
    double *q = lua_newuserdatauv(L, (nq ? nq : 1) * sizeof *q, 0);
    for (size_t i = 0; i < nq; i++) {
        if (listed) lua_rawgeti(L, 2, (lua_Integer)i + 1);
        else lua_pushvalue(L, 2);
        if (!lua_isnumber(L, -1)) return ipfsrt_lua_raise_arg(L, "quantile: q is a number or a list of numbers");
        q[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    int n = ipfsrt_lua_nd_check_axes(L, 3, axes);
    bool all = n < 0;
    bool skipna = true;
    ipfsrt_quantile_method method = IPFSRT_QUANTILE_LINEAR;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        skipna = ipfsrt_lua_opt_bool(L, 4, "skipna", true);
        lua_getfield(L, 4, "method");
        method = method_of(L, lua_gettop(L));
        lua_pop(L, 1);
    }
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_quantile(out, a, q, nq, all ? NULL : axes, n, method, skipna, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    if (listed) return 1;
    int64_t shape[IPFSRT_NDARRAY_MAX_DIMS]; /* the q axis of one dropped */
    for (int d = 1; d < out->ndim; d++) shape[d - 1] = (int64_t)out->shape[d];
    ipfsrt_ndarray *one = ipfsrt_lua_nd_push_new(L);
    if (ipfsrt_ndarray_reshape(one, out, out->ndim - 1, shape, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    if (!all) return 1;
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(one, NULL, 0, &v, NULL);
    ipfsrt_lua_nd_push_value(L, &v);
    return 1;
}

const luaL_Reg ipfsrt_lua_nd_order_methods[] = {
    {"take", array_take}, {"sort", array_sort}, {"argsort", array_argsort}, {"quantile", array_quantile},
    {NULL, NULL}};
