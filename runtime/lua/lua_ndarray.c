/* ipfsrt.ndarray: n-d arrays for Lua scripts, over the C module. Indices are
 * 0-based and slices half-open (as in Zarr, numpy and xarray). This file: the
 * userdata (and when dead ones are collected), constructors, elements and
 * views; lua_ndarray_tables.c: Lua tables in and out; lua_ndarray_text.c:
 * printing; lua_ndarray_math.c: operators, functions and reductions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "lua_ndarray.h"

ipfsrt_ndarray *ipfsrt_lua_check_ndarray(lua_State *L, int idx) { return luaL_checkudata(L, idx, IPFSRT_LUA_NDARRAY); }
ipfsrt_ndarray *ipfsrt_lua_test_ndarray(lua_State *L, int idx) { return luaL_testudata(L, idx, IPFSRT_LUA_NDARRAY); }

/* Lua sees a few bytes per array, not its buffer: left alone, the collector
 * would let gigabytes of dead temporaries (the a * 0.01 of a * 0.01 + b)
 * pile up. So a full collection runs once arrays worth GC_EVERY bytes have
 * been made since the last one. */
#define GC_EVERY ((uint64_t)256 << 20)
#define GC_MARK "ipfsrt.ndarray.gc_mark"

static void collect_dead_arrays(lua_State *L) {
    uint64_t now = ipfsrt_ndarray_allocated_bytes();
    lua_getfield(L, LUA_REGISTRYINDEX, GC_MARK);
    uint64_t mark = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (now - mark < GC_EVERY) return;
    lua_gc(L, LUA_GCCOLLECT);
    lua_pushinteger(L, (lua_Integer)now);
    lua_setfield(L, LUA_REGISTRYINDEX, GC_MARK);
}

/* A new, initialized array userdata at the top of the stack. */
ipfsrt_ndarray *ipfsrt_lua_nd_push_new(lua_State *L) {
    collect_dead_arrays(L);
    ipfsrt_ndarray *a = lua_newuserdatauv(L, sizeof *a, 0);
    ipfsrt_ndarray_init(a);
    luaL_setmetatable(L, IPFSRT_LUA_NDARRAY);
    return a;
}

void ipfsrt_lua_push_ndarray(lua_State *L, ipfsrt_ndarray *a) {
    ipfsrt_ndarray *u = ipfsrt_lua_nd_push_new(L);
    *u = *a;
    ipfsrt_ndarray_init(a);
}

static int array_gc(lua_State *L) {
    ipfsrt_ndarray_free(ipfsrt_lua_check_ndarray(L, 1));
    return 0;
}

ipfsrt_dtype ipfsrt_lua_nd_check_dtype(lua_State *L, int idx, ipfsrt_dtype dflt, size_t *itemsize) {
    *itemsize = ipfsrt_dtype_size(dflt);
    if (lua_isnoneornil(L, idx)) return dflt;
    ipfsrt_dtype d;
    ipfsrt_error err;
    if (ipfsrt_dtype_parse(luaL_checkstring(L, idx), &d, itemsize, &err) != IPFSRT_OK)
        ipfsrt_lua_raise(L, &err);
    return d;
}

/* A shape: a sequence of sizes, or one size. */
static int check_shape(lua_State *L, int idx, size_t *shape) {
    if (lua_isinteger(L, idx)) {
        lua_Integer n = lua_tointeger(L, idx);
        if (n < 0) ipfsrt_lua_raise_arg(L, "negative size %lld in a shape", (long long)n);
        shape[0] = (size_t)n;
        return 1;
    }
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer n = luaL_len(L, idx);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) ipfsrt_lua_raise_arg(L, "%lld dimensions (at most %d)", (long long)n,
                                                          IPFSRT_NDARRAY_MAX_DIMS);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        lua_Integer v = luaL_checkinteger(L, -1);
        if (v < 0) ipfsrt_lua_raise_arg(L, "negative size %lld in a shape", (long long)v);
        shape[i - 1] = (size_t)v;
        lua_pop(L, 1);
    }
    return (int)n;
}

static int make_full(lua_State *L, double value, int dtype_idx) {
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS], itemsize;
    int ndim = check_shape(L, 1, shape);
    ipfsrt_dtype d = ipfsrt_lua_nd_check_dtype(L, dtype_idx, IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *a = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = d == IPFSRT_DTYPE_BYTES && value == 0
                           ? ipfsrt_ndarray_zeros(a, d, itemsize, ndim, shape, &err)
                           : ipfsrt_ndarray_full(a, d, 0, ndim, shape, value, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* ndarray.zeros(shape[, dtype]), ones, empty (zeroed too), full(shape, v[, dtype]) */
static int nd_zeros(lua_State *L) { return make_full(L, 0, 2); }
static int nd_ones(lua_State *L) { return make_full(L, 1, 2); }
static int nd_full(lua_State *L) { return make_full(L, luaL_checknumber(L, 2), 3); }

/* Byte order: "<" little-endian (the default, as numpy's on most machines),
 * ">" big-endian, "=" this machine's. */
static bool check_big_endian(lua_State *L, int idx) {
    static const char *const orders[] = {"<", ">", "=", NULL};
    int o = luaL_checkoption(L, idx, "<", orders);
    if (o == 2) {
        uint16_t probe = 1;
        return *(unsigned char *)&probe == 0;
    }
    return o == 1;
}

/* ndarray.isarray(x) -> whether x is an n-d array */
static int nd_isarray(lua_State *L) {
    lua_pushboolean(L, luaL_testudata(L, 1, IPFSRT_LUA_NDARRAY) != NULL);
    return 1;
}

/* ndarray.frombytes(s, dtype, shape[, order]): the elements of s in C order */
static int nd_frombytes(lua_State *L) {
    size_t len, itemsize, shape[IPFSRT_NDARRAY_MAX_DIMS];
    const char *s = luaL_checklstring(L, 1, &len);
    ipfsrt_dtype d = ipfsrt_lua_nd_check_dtype(L, 2, IPFSRT_DTYPE_FLOAT64, &itemsize);
    int ndim = check_shape(L, 3, shape);
    bool big = check_big_endian(L, 4);
    ipfsrt_ndarray *a = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_zeros(a, d, itemsize, ndim, shape, &err) != IPFSRT_OK ||
        ipfsrt_ndarray_load_bytes(a, s, len, big, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:tobytes([order]): the elements in C order, as a string */
static int array_tobytes(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    bool big = check_big_endian(L, 2);
    size_t len = ipfsrt_ndarray_size(a) * a->itemsize;
    luaL_Buffer b;
    void *out = luaL_buffinitsize(L, &b, len);
    ipfsrt_error err;
    if (ipfsrt_ndarray_store_bytes(a, out, len, big, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    luaL_pushresultsize(&b, len);
    return 1;
}

/* ndarray.arange([start, ]stop[, step[, dtype]]): integers give int64, else float64 */
static int nd_arange(lua_State *L) {
    int top = lua_gettop(L);
    int dtype_idx = 0;
    if (top >= 1 && lua_type(L, top) == LUA_TSTRING) dtype_idx = top--;
    double start = 0, stop, step = 1;
    if (top == 1) stop = luaL_checknumber(L, 1);
    else {
        start = luaL_checknumber(L, 1);
        stop = luaL_checknumber(L, 2);
        if (top >= 3) step = luaL_checknumber(L, 3);
    }
    bool ints = true;
    for (int i = 1; i <= top; i++) ints = ints && lua_isinteger(L, i);
    size_t itemsize;
    ipfsrt_dtype d = ipfsrt_lua_nd_check_dtype(L, dtype_idx ? dtype_idx : top + 1,
                                 ints ? IPFSRT_DTYPE_INT64 : IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *a = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_arange(a, d, start, stop, step, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

void ipfsrt_lua_nd_push_value(lua_State *L, const ipfsrt_ndvalue *v) {
    switch (v->kind) {
    case IPFSRT_NDVALUE_BOOL: lua_pushboolean(L, v->b); break;
    case IPFSRT_NDVALUE_INT: lua_pushinteger(L, (lua_Integer)v->i); break;
    case IPFSRT_NDVALUE_UINT:
        if (v->u <= (uint64_t)LUA_MAXINTEGER) lua_pushinteger(L, (lua_Integer)v->u);
        else lua_pushnumber(L, (lua_Number)v->u); /* past Lua's integers: a float */
        break;
    case IPFSRT_NDVALUE_FLOAT: lua_pushnumber(L, v->f); break;
    case IPFSRT_NDVALUE_COMPLEX:
        lua_createtable(L, 2, 0);
        lua_pushnumber(L, v->f);
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, v->imag);
        lua_rawseti(L, -2, 2);
        break;
    case IPFSRT_NDVALUE_BYTES: lua_pushlstring(L, (const char *)v->bytes, v->len); break;
    }
}

/* Indices from arguments first .. last (0-based, negatives from the end). */
static int check_index(lua_State *L, int first, int last, int64_t *index) {
    int n = last - first + 1;
    if (n > IPFSRT_NDARRAY_MAX_DIMS) ipfsrt_lua_raise_arg(L, "too many indices");
    for (int i = 0; i < n; i++) index[i] = (int64_t)luaL_checkinteger(L, first + i);
    return n < 0 ? 0 : n;
}

/* a:get(i, j, ...) */
static int array_get(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS];
    int n = check_index(L, 2, lua_gettop(L), index);
    ipfsrt_ndvalue v;
    ipfsrt_error err;
    if (ipfsrt_ndarray_get(a, index, n, &v, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_nd_push_value(L, &v);
    return 1;
}

/* a:item(): the one element of an array of size 1 (any shape), as numpy's item() */
static int array_item(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    if (ipfsrt_ndarray_size(a) != 1)
        return ipfsrt_lua_raise_arg(L, "item: the array has %zu elements; item takes one (index it with get)",
                                    ipfsrt_ndarray_size(a));
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    ipfsrt_ndvalue v;
    ipfsrt_error err;
    if (ipfsrt_ndarray_get(a, index, a->ndim, &v, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_nd_push_value(L, &v);
    return 1;
}

/* a:set(i, j, ..., v) */
static int array_set(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int top = lua_gettop(L);
    if (top < 2) return ipfsrt_lua_raise_arg(L, "set needs a value");
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS];
    int n = check_index(L, 2, top - 1, index);
    bool is_int = lua_isinteger(L, top);
    double value = lua_isboolean(L, top) ? lua_toboolean(L, top) : is_int ? 0 : luaL_checknumber(L, top);
    ipfsrt_error err;
    if (ipfsrt_ndarray_set(a, index, n, value, is_int ? (int64_t)lua_tointeger(L, top) : 0, is_int, &err) !=
        IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* One dimension of a:slice{...}: an index, {start, stop[, step]} (nil bounds:
 * open), or nil (the whole dimension). */
void ipfsrt_lua_check_ndslice(lua_State *L, int idx, int dim, ipfsrt_ndslice *s) {
    memset(s, 0, sizeof *s);
    s->step = 1;
    if (lua_isinteger(L, idx)) {
        s->is_index = true;
        s->index = lua_tointeger(L, idx);
        return;
    }
    if (lua_isnil(L, idx)) return; /* the whole dimension */
    if (!lua_istable(L, idx)) ipfsrt_lua_raise_arg(L, "slice part %d: an index, {start, stop[, step]} or nil", dim);
    for (int k = 1; k <= 3; k++) {
        lua_rawgeti(L, idx, k);
        if (!lua_isnil(L, -1)) {
            if (!lua_isinteger(L, -1)) ipfsrt_lua_raise_arg(L, "slice part %d: bounds are integers", dim);
            int64_t v = lua_tointeger(L, -1);
            if (k == 1) s->has_start = true, s->start = v;
            else if (k == 2) s->has_stop = true, s->stop = v;
            else s->step = v;
        }
        lua_pop(L, 1);
    }
}

static int array_slice(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    ipfsrt_ndslice parts[IPFSRT_NDARRAY_MAX_DIMS];
    lua_Integer n = luaL_len(L, 2);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many slice parts");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        ipfsrt_lua_check_ndslice(L, lua_gettop(L), (int)i - 1, &parts[i - 1]);
        lua_pop(L, 1);
    }
    ipfsrt_ndarray *v = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_slice(v, a, parts, (int)n, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_transpose(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    bool given = !lua_isnoneornil(L, 2);
    if (given) {
        luaL_checktype(L, 2, LUA_TTABLE);
        if (luaL_len(L, 2) != a->ndim) return ipfsrt_lua_raise_arg(L, "transpose needs %d axes", a->ndim);
        for (int i = 0; i < a->ndim; i++) {
            lua_rawgeti(L, 2, i + 1);
            axes[i] = (int)luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
    }
    ipfsrt_ndarray *v = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_transpose(v, a, given ? axes : NULL, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_reshape(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int64_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int n = 1;
    if (lua_isinteger(L, 2)) {
        shape[0] = lua_tointeger(L, 2);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_Integer len = luaL_len(L, 2);
        if (len > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many dimensions");
        n = (int)len;
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, 2, i + 1);
            shape[i] = luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
    }
    ipfsrt_ndarray *v = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reshape(v, a, n, shape, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_squeeze(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray *v = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_squeeze(v, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_copy(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray *v = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_copy(v, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* Nested tables from dimension dim down, at byte position p. */
static int array_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)ipfsrt_ndarray_size(ipfsrt_lua_check_ndarray(L, 1)));
    return 1;
}

static void push_shape(lua_State *L, const ipfsrt_ndarray *a) {
    lua_createtable(L, a->ndim, 0);
    for (int i = 0; i < a->ndim; i++) {
        lua_pushinteger(L, (lua_Integer)a->shape[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Fields shape, ndim, size, dtype; methods otherwise. */
static int array_index(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    const char *key = lua_tostring(L, 2);
    if (key && strcmp(key, "shape") == 0) push_shape(L, a);
    else if (key && strcmp(key, "ndim") == 0) lua_pushinteger(L, a->ndim);
    else if (key && strcmp(key, "size") == 0) lua_pushinteger(L, (lua_Integer)ipfsrt_ndarray_size(a));
    else if (key && strcmp(key, "dtype") == 0) {
        if (a->dtype == IPFSRT_DTYPE_BYTES) lua_pushfstring(L, "S%d", (int)a->itemsize);
        else lua_pushstring(L, ipfsrt_dtype_name(a->dtype));
    } else {
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "methods");
        lua_pushvalue(L, 2);
        lua_rawget(L, -2);
    }
    return 1;
}

void ipfsrt_lua_open_ndarray(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"get", array_get},         {"item", array_item},         {"set", array_set},           {"slice", array_slice},
        {"transpose", array_transpose}, {"reshape", array_reshape}, {"squeeze", array_squeeze},
        {"copy", array_copy},       {"tobytes", array_tobytes},   {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__index", array_index}, {"__gc", array_gc}, {"__close", array_gc},
                                    {"__len", array_len},     {NULL, NULL}};
    static const luaL_Reg fns[] = {{"zeros", nd_zeros}, {"ones", nd_ones},     {"empty", nd_zeros},
                                   {"full", nd_full},   {"arange", nd_arange}, {"frombytes", nd_frombytes},
                                   {"isarray", nd_isarray}, {NULL, NULL}};
    static const luaL_Reg *const part_methods[] = {methods, ipfsrt_lua_nd_tables_methods, ipfsrt_lua_nd_text_methods,
                                                   ipfsrt_lua_nd_math_methods, ipfsrt_lua_nd_order_methods};
    static const luaL_Reg *const part_meta[] = {meta, ipfsrt_lua_nd_text_meta, ipfsrt_lua_nd_math_meta};
    static const luaL_Reg *const part_fns[] = {fns, ipfsrt_lua_nd_tables_functions, ipfsrt_lua_nd_math_functions};
    if (luaL_newmetatable(L, IPFSRT_LUA_NDARRAY)) { /* as ipfsrt_lua_class_indexed, from every part */
        for (size_t i = 0; i < sizeof part_meta / sizeof part_meta[0]; i++) luaL_setfuncs(L, part_meta[i], 0);
        lua_newtable(L);
        for (size_t i = 0; i < sizeof part_methods / sizeof part_methods[0]; i++) luaL_setfuncs(L, part_methods[i], 0);
        lua_setfield(L, -2, "methods");
    }
    lua_pop(L, 1);
    lua_newtable(L);
    for (size_t i = 0; i < sizeof part_fns / sizeof part_fns[0]; i++) luaL_setfuncs(L, part_fns[i], 0);
    lua_setfield(L, -2, "ndarray");
}
