/* ipfsrt.ndarray and Lua tables: nested tables of numbers (or booleans) in
 * (nd.from), 1-based nested tables out (a:tolist()). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "lua_ndarray.h"

static void push_list(lua_State *L, const ipfsrt_ndarray *a, int dim, int64_t *index) {
    if (dim == a->ndim) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL); /* in range by construction */
        ipfsrt_lua_nd_push_value(L, &v);
        return;
    }
    luaL_checkstack(L, 3, "array too deep");
    lua_createtable(L, a->shape[dim] > INT32_MAX ? 0 : (int)a->shape[dim], 0);
    for (size_t i = 0; i < a->shape[dim]; i++) {
        index[dim] = (int64_t)i;
        push_list(L, a, dim + 1, index);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int array_tolist(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    push_list(L, a, 0, index);
    return 1;
}


/* ------------------------------------------------------------ from tables */

typedef struct scan {
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    bool any_float, all_bool;
} scan;

/* The shape, by the first element at each depth; the kinds of the leaves. */
static void scan_shape(lua_State *L, int idx, scan *s) {
    lua_pushvalue(L, idx);
    while (lua_istable(L, -1)) {
        if (s->ndim == IPFSRT_NDARRAY_MAX_DIMS) ipfsrt_lua_raise_arg(L, "nested deeper than %d", IPFSRT_NDARRAY_MAX_DIMS);
        s->shape[s->ndim++] = (size_t)luaL_len(L, -1);
        lua_rawgeti(L, -1, 1);
        lua_remove(L, -2);
    }
    lua_pop(L, 1);
}

/* Checks that the table at the top is rectangular, and notes the leaves' kinds. */
static void scan_leaves(lua_State *L, int dim, scan *s) {
    if (dim == s->ndim) {
        if (lua_isboolean(L, -1)) return;
        s->all_bool = false;
        if (!lua_isnumber(L, -1)) ipfsrt_lua_raise_arg(L, "a %s among the numbers", luaL_typename(L, -1));
        if (!lua_isinteger(L, -1)) s->any_float = true;
        return;
    }
    if (!lua_istable(L, -1) || (size_t)luaL_len(L, -1) != s->shape[dim])
        ipfsrt_lua_raise_arg(L, "ragged nesting: every list at depth %d must hold %zu items", dim + 1, s->shape[dim]);
    luaL_checkstack(L, 2, "nested too deep");
    for (size_t i = 1; i <= s->shape[dim]; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        scan_leaves(L, dim + 1, s);
        lua_pop(L, 1);
    }
}

static void fill_from(lua_State *L, ipfsrt_ndarray *a, int dim, int64_t *index) {
    if (dim == a->ndim) {
        bool is_int = lua_isinteger(L, -1);
        double v = lua_isboolean(L, -1) ? lua_toboolean(L, -1) : is_int ? 0 : lua_tonumber(L, -1);
        ipfsrt_error err;
        if (ipfsrt_ndarray_set(a, index, a->ndim, v, is_int ? lua_tointeger(L, -1) : 0, is_int, &err) != IPFSRT_OK)
            ipfsrt_lua_raise(L, &err);
        return;
    }
    for (size_t i = 0; i < a->shape[dim]; i++) {
        index[dim] = (int64_t)i;
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        fill_from(L, a, dim + 1, index);
        lua_pop(L, 1);
    }
}

/* ndarray.from(nested table | number[, dtype]) */
static int nd_from(lua_State *L) {
    scan s = {.all_bool = true};
    luaL_argexpected(L, lua_istable(L, 1) || lua_isnumber(L, 1) || lua_isboolean(L, 1), 1, "table or number");
    scan_shape(L, 1, &s);
    lua_pushvalue(L, 1);
    scan_leaves(L, 0, &s);
    lua_pop(L, 1);
    size_t size = 1;
    for (int i = 0; i < s.ndim; i++) size *= s.shape[i];
    ipfsrt_dtype dflt = s.all_bool && size ? IPFSRT_DTYPE_BOOL : s.any_float ? IPFSRT_DTYPE_FLOAT64 : IPFSRT_DTYPE_INT64;
    size_t itemsize;
    ipfsrt_dtype d = ipfsrt_lua_nd_check_dtype(L, 2, dflt, &itemsize);
    ipfsrt_ndarray *a = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_zeros(a, d, itemsize, s.ndim, s.shape, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    lua_pushvalue(L, 1);
    fill_from(L, a, 0, index);
    lua_pop(L, 1);
    return 1;
}

const luaL_Reg ipfsrt_lua_nd_tables_methods[] = {{"tolist", array_tolist}, {NULL, NULL}};
const luaL_Reg ipfsrt_lua_nd_tables_functions[] = {{"from", nd_from}, {NULL, NULL}};
