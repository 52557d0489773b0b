/* ipfsrt.ndarray: n-d arrays for Lua scripts, over the C module. Indices are
 * 0-based and slices half-open (as in Zarr, numpy and xarray); tolist() gives
 * ordinary 1-based Lua tables. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"

#define NDARRAY "ipfsrt.ndarray"

ipfsrt_ndarray *ipfsrt_lua_check_ndarray(lua_State *L, int idx) { return luaL_checkudata(L, idx, NDARRAY); }
ipfsrt_ndarray *ipfsrt_lua_test_ndarray(lua_State *L, int idx) { return luaL_testudata(L, idx, NDARRAY); }

static ipfsrt_ndarray *check_array(lua_State *L, int idx) { return ipfsrt_lua_check_ndarray(L, idx); }

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
static ipfsrt_ndarray *push_new(lua_State *L) {
    collect_dead_arrays(L);
    ipfsrt_ndarray *a = lua_newuserdatauv(L, sizeof *a, 0);
    ipfsrt_ndarray_init(a);
    luaL_setmetatable(L, NDARRAY);
    return a;
}

void ipfsrt_lua_push_ndarray(lua_State *L, ipfsrt_ndarray *a) {
    ipfsrt_ndarray *u = push_new(L);
    *u = *a;
    ipfsrt_ndarray_init(a);
}

static int array_gc(lua_State *L) {
    ipfsrt_ndarray_free(check_array(L, 1));
    return 0;
}

static ipfsrt_dtype check_dtype(lua_State *L, int idx, ipfsrt_dtype dflt, size_t *itemsize) {
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
    ipfsrt_dtype d = check_dtype(L, dtype_idx, IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *a = push_new(L);
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
    lua_pushboolean(L, luaL_testudata(L, 1, NDARRAY) != NULL);
    return 1;
}

/* ndarray.frombytes(s, dtype, shape[, order]): the elements of s in C order */
static int nd_frombytes(lua_State *L) {
    size_t len, itemsize, shape[IPFSRT_NDARRAY_MAX_DIMS];
    const char *s = luaL_checklstring(L, 1, &len);
    ipfsrt_dtype d = check_dtype(L, 2, IPFSRT_DTYPE_FLOAT64, &itemsize);
    int ndim = check_shape(L, 3, shape);
    bool big = check_big_endian(L, 4);
    ipfsrt_ndarray *a = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_zeros(a, d, itemsize, ndim, shape, &err) != IPFSRT_OK ||
        ipfsrt_ndarray_load_bytes(a, s, len, big, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:tobytes([order]): the elements in C order, as a string */
static int array_tobytes(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
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
    ipfsrt_dtype d = check_dtype(L, dtype_idx ? dtype_idx : top + 1,
                                 ints ? IPFSRT_DTYPE_INT64 : IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *a = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_arange(a, d, start, stop, step, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static void push_value(lua_State *L, const ipfsrt_ndvalue *v) {
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
    ipfsrt_ndarray *a = check_array(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS];
    int n = check_index(L, 2, lua_gettop(L), index);
    ipfsrt_ndvalue v;
    ipfsrt_error err;
    if (ipfsrt_ndarray_get(a, index, n, &v, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    push_value(L, &v);
    return 1;
}

/* a:set(i, j, ..., v) */
static int array_set(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
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
    ipfsrt_ndarray *a = check_array(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    ipfsrt_ndslice parts[IPFSRT_NDARRAY_MAX_DIMS];
    lua_Integer n = luaL_len(L, 2);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many slice parts");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        ipfsrt_lua_check_ndslice(L, lua_gettop(L), (int)i - 1, &parts[i - 1]);
        lua_pop(L, 1);
    }
    ipfsrt_ndarray *v = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_slice(v, a, parts, (int)n, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_transpose(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
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
    ipfsrt_ndarray *v = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_transpose(v, a, given ? axes : NULL, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_reshape(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
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
    ipfsrt_ndarray *v = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reshape(v, a, n, shape, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_squeeze(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray *v = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_squeeze(v, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int array_copy(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray *v = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_copy(v, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* Nested tables from dimension dim down, at byte position p. */
static void push_list(lua_State *L, const ipfsrt_ndarray *a, int dim, int64_t *index) {
    if (dim == a->ndim) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL); /* in range by construction */
        push_value(L, &v);
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
    ipfsrt_ndarray *a = check_array(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    push_list(L, a, 0, index);
    return 1;
}

static int array_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)ipfsrt_ndarray_size(check_array(L, 1)));
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
    ipfsrt_ndarray *a = check_array(L, 1);
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
    ipfsrt_dtype d = check_dtype(L, 2, dflt, &itemsize);
    ipfsrt_ndarray *a = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_zeros(a, d, itemsize, s.ndim, s.shape, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    lua_pushvalue(L, 1);
    fill_from(L, a, 0, index);
    lua_pop(L, 1);
    return 1;
}

/* --------------------------------------------------------------- printing */

#define PRINT_THRESHOLD 1000
#define EDGE_ITEMS 3

static void add_value(luaL_Buffer *b, const ipfsrt_ndvalue *v) {
    char s[64];
    switch (v->kind) {
    case IPFSRT_NDVALUE_BOOL: luaL_addstring(b, v->b ? "True" : "False"); return;
    case IPFSRT_NDVALUE_INT: snprintf(s, sizeof s, "%lld", (long long)v->i); break;
    case IPFSRT_NDVALUE_UINT: snprintf(s, sizeof s, "%llu", (unsigned long long)v->u); break;
    case IPFSRT_NDVALUE_COMPLEX: snprintf(s, sizeof s, "%.8g%+.8gj", v->f, v->imag); break;
    case IPFSRT_NDVALUE_BYTES:
        luaL_addstring(b, "b'");
        luaL_addlstring(b, (const char *)v->bytes, v->len);
        luaL_addchar(b, '\'');
        return;
    case IPFSRT_NDVALUE_FLOAT:
        if (isnan(v->f)) snprintf(s, sizeof s, "nan");
        else if (isinf(v->f)) snprintf(s, sizeof s, v->f > 0 ? "inf" : "-inf");
        else if (v->f == floor(v->f) && fabs(v->f) < 1e16) snprintf(s, sizeof s, "%.0f.", v->f); /* 1. */
        else snprintf(s, sizeof s, "%.8g", v->f);
        break;
    }
    luaL_addstring(b, s);
}

static void add_level(luaL_Buffer *b, const ipfsrt_ndarray *a, int dim, int64_t *index, bool abbreviate) {
    if (dim == a->ndim) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL);
        add_value(b, &v);
        return;
    }
    luaL_addchar(b, '[');
    size_t n = a->shape[dim];
    for (size_t i = 0; i < n; i++) {
        if (abbreviate && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
            luaL_addstring(b, dim == a->ndim - 1 ? "..., " : "...,\n");
            i = n - EDGE_ITEMS;
        }
        index[dim] = (int64_t)i;
        add_level(b, a, dim + 1, index, abbreviate);
        if (i + 1 < n) {
            luaL_addchar(b, ',');
            if (dim == a->ndim - 1) {
                luaL_addchar(b, ' ');
            } else {
                luaL_addchar(b, '\n');
                for (int k = 0; k <= dim + 6; k++) luaL_addchar(b, ' '); /* under "array([" */
            }
        }
    }
    luaL_addchar(b, ']');
}

/* ------------------------------------------------- exact text (CLI output) */

/* The shortest text that reads back as the same float (Lua's tostring keeps
 * only 14 digits); float32 elements as float32 reads them. */
static void float_text(double f, bool single, char *s, size_t cap) {
    for (int digits = single ? 6 : 15; digits <= (single ? 9 : 17); digits++) {
        snprintf(s, cap, "%.*g", digits, f);
        double back = strtod(s, NULL);
        if (single ? (float)back == (float)f : back == f) return;
    }
}

/* One element's text, every digit kept; NULL for non-finite floats in JSON. */
static const char *exact_text(const ipfsrt_ndarray *a, const ipfsrt_ndvalue *v, bool json, char *s, size_t cap) {
    bool single = a->dtype == IPFSRT_DTYPE_FLOAT32 || a->dtype == IPFSRT_DTYPE_COMPLEX64;
    switch (v->kind) {
    case IPFSRT_NDVALUE_BOOL: snprintf(s, cap, v->b ? "true" : "false"); break;
    case IPFSRT_NDVALUE_INT: snprintf(s, cap, "%lld", (long long)v->i); break;
    case IPFSRT_NDVALUE_UINT: snprintf(s, cap, "%llu", (unsigned long long)v->u); break;
    case IPFSRT_NDVALUE_FLOAT:
    case IPFSRT_NDVALUE_COMPLEX:
        if (isfinite(v->f)) float_text(v->f, single, s, cap);
        else if (json) return NULL;
        else snprintf(s, cap, isnan(v->f) ? "nan" : v->f > 0 ? "inf" : "-inf");
        break;
    case IPFSRT_NDVALUE_BYTES: return NULL;
    }
    return s;
}

static cJSON *value_json(const ipfsrt_ndarray *a, const ipfsrt_ndvalue *v) {
    char s[64];
    if (v->kind == IPFSRT_NDVALUE_BYTES) {
        char *copy = malloc(v->len + 1);
        if (!copy) return NULL;
        memcpy(copy, v->bytes, v->len);
        copy[v->len] = '\0';
        cJSON *str = cJSON_CreateString(copy);
        free(copy);
        return str;
    }
    const char *t = exact_text(a, v, true, s, sizeof s);
    cJSON *item = t ? cJSON_CreateRaw(t) : cJSON_CreateNull();
    if (v->kind != IPFSRT_NDVALUE_COMPLEX || !item) return item;
    ipfsrt_ndvalue im = *v;
    im.f = v->imag;
    t = exact_text(a, &im, true, s, sizeof s);
    cJSON *pair = cJSON_CreateArray();
    if (pair) cJSON_AddItemToArray(pair, item);
    if (pair) cJSON_AddItemToArray(pair, t ? cJSON_CreateRaw(t) : cJSON_CreateNull());
    else cJSON_Delete(item);
    return pair;
}

static cJSON *level_json(const ipfsrt_ndarray *a, int dim, int64_t *index) {
    if (dim == a->ndim) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL); /* in range by construction */
        return value_json(a, &v);
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < a->shape[dim]; i++) {
        index[dim] = (int64_t)i;
        cJSON *item = level_json(a, dim + 1, index);
        if (!item) {
            cJSON_Delete(list);
            return NULL;
        }
        cJSON_AddItemToArray(list, item);
    }
    return list;
}

/* a:tojson(): nested lists as JSON text, integers and floats to the last digit */
static int array_tojson(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    cJSON *doc = level_json(a, 0, index);
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) return luaL_error(L, "out of memory");
    lua_pushstring(L, text);
    cJSON_free(text);
    return 1;
}

/* a:strings(): every element's exact text (nan, inf; bytes as they are; complex
 * as re+imj), in C order, as one flat list */
static int array_strings(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    size_t n = ipfsrt_ndarray_size(a);
    luaL_argcheck(L, n < INT32_MAX, 1, "too many elements for a list");
    lua_createtable(L, (int)n, 0);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (size_t k = 0; k < n; k++) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL);
        char s[64], im[64];
        if (v.kind == IPFSRT_NDVALUE_BYTES) {
            lua_pushlstring(L, (const char *)v.bytes, v.len);
        } else if (v.kind == IPFSRT_NDVALUE_COMPLEX) {
            ipfsrt_ndvalue i = v;
            i.f = v.imag;
            exact_text(a, &v, false, s, sizeof s);
            exact_text(a, &i, false, im, sizeof im);
            lua_pushfstring(L, "%s%s%sj", s, im[0] == '-' ? "" : "+", im);
        } else {
            lua_pushstring(L, exact_text(a, &v, false, s, sizeof s));
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
        for (int d = a->ndim - 1; d >= 0; d--) { /* the next index in C order */
            if (++index[d] < (int64_t)a->shape[d]) break;
            index[d] = 0;
        }
    }
    return 1;
}

/* tostring(a): numpy's repr, abbreviated past 1000 elements, with dtype and shape */
static int array_tostring(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "array(");
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    add_level(&b, a, 0, index, ipfsrt_ndarray_size(a) > PRINT_THRESHOLD);
    luaL_addstring(&b, ", dtype=");
    if (a->dtype == IPFSRT_DTYPE_BYTES) {
        char s[24];
        snprintf(s, sizeof s, "S%zu", a->itemsize);
        luaL_addstring(&b, s);
    } else {
        luaL_addstring(&b, ipfsrt_dtype_name(a->dtype));
    }
    luaL_addstring(&b, ", shape=(");
    for (int i = 0; i < a->ndim; i++) {
        char s[32];
        snprintf(s, sizeof s, "%s%zu", i ? ", " : "", a->shape[i]);
        luaL_addstring(&b, s);
    }
    luaL_addstring(&b, a->ndim == 1 ? ",))" : "))");
    luaL_pushresult(&b);
    return 1;
}

/* ------------------------------------------------------------------- math */

/* A Lua scalar as a 0-d array, "weak" as numpy 2 makes it (NEP 50): it takes the
 * other operand's dtype when that holds it — an integer with an integer array
 * (an error when it does not fit), a float with a float array — and otherwise
 * int64 (an integer with bools) or float64 (a float with integers or bools). */
static const ipfsrt_ndarray *operand(lua_State *L, int idx, ipfsrt_dtype other, ipfsrt_ndarray *tmp) {
    ipfsrt_ndarray *a = luaL_testudata(L, idx, NDARRAY);
    if (a) return a;
    ipfsrt_dtype d;
    bool is_int = lua_isinteger(L, idx);
    double v;
    if (lua_isboolean(L, idx)) {
        d = IPFSRT_DTYPE_BOOL;
        v = lua_toboolean(L, idx);
    } else {
        v = luaL_checknumber(L, idx);
        bool other_int = ipfsrt_dtype_is_int(other), other_float = ipfsrt_dtype_is_float(other);
        d = is_int ? (other_int || other_float ? other : IPFSRT_DTYPE_INT64)
                   : (other_float ? other : IPFSRT_DTYPE_FLOAT64);
    }
    ipfsrt_error err;
    ipfsrt_ndarray_init(tmp);
    if (ipfsrt_ndarray_zeros(tmp, d, 0, 0, NULL, &err) != IPFSRT_OK ||
        ipfsrt_ndarray_set(tmp, NULL, 0, v, is_int ? lua_tointeger(L, idx) : 0, is_int, &err) != IPFSRT_OK) {
        ipfsrt_ndarray_free(tmp);
        ipfsrt_lua_raise(L, &err);
    }
    return tmp;
}

static int binary(lua_State *L, ipfsrt_ndop op) {
    ipfsrt_ndarray *x = luaL_testudata(L, 1, NDARRAY), *y = luaL_testudata(L, 2, NDARRAY);
    if (!x && !y) return ipfsrt_lua_raise_arg(L, "an array operation without an array");
    ipfsrt_ndarray ta, tb;
    ipfsrt_ndarray_init(&ta);
    ipfsrt_ndarray_init(&tb);
    const ipfsrt_ndarray *a = operand(L, 1, y ? y->dtype : IPFSRT_DTYPE_FLOAT64, &ta);
    const ipfsrt_ndarray *b = operand(L, 2, a->dtype, &tb);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_binary(out, op, a, b, &err);
    ipfsrt_ndarray_free(&ta);
    ipfsrt_ndarray_free(&tb);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int op_add(lua_State *L) { return binary(L, IPFSRT_NDOP_ADD); }
static int op_sub(lua_State *L) { return binary(L, IPFSRT_NDOP_SUB); }
static int op_mul(lua_State *L) { return binary(L, IPFSRT_NDOP_MUL); }
static int op_div(lua_State *L) { return binary(L, IPFSRT_NDOP_DIV); }
static int op_idiv(lua_State *L) { return binary(L, IPFSRT_NDOP_FLOORDIV); }
static int op_mod(lua_State *L) { return binary(L, IPFSRT_NDOP_MOD); }
static int op_pow(lua_State *L) { return binary(L, IPFSRT_NDOP_POW); }
static int op_band(lua_State *L) { return binary(L, IPFSRT_NDOP_AND); }
static int op_bor(lua_State *L) { return binary(L, IPFSRT_NDOP_OR); }
static int op_bxor(lua_State *L) { return binary(L, IPFSRT_NDOP_XOR); }
static int op_lt(lua_State *L) { return binary(L, IPFSRT_NDOP_LT); }
static int op_le(lua_State *L) { return binary(L, IPFSRT_NDOP_LE); }
static int op_gt(lua_State *L) { return binary(L, IPFSRT_NDOP_GT); }
static int op_ge(lua_State *L) { return binary(L, IPFSRT_NDOP_GE); }
static int op_eq(lua_State *L) { return binary(L, IPFSRT_NDOP_EQ); }
static int op_ne(lua_State *L) { return binary(L, IPFSRT_NDOP_NE); }

static int unary(lua_State *L, ipfsrt_ndfn fn) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_unary(out, fn, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int fn_unm(lua_State *L) { return unary(L, IPFSRT_NDFN_NEG); }
static int fn_bnot(lua_State *L) { return unary(L, IPFSRT_NDFN_NOT); }
static int fn_abs(lua_State *L) { return unary(L, IPFSRT_NDFN_ABS); }
static int fn_sqrt(lua_State *L) { return unary(L, IPFSRT_NDFN_SQRT); }
static int fn_exp(lua_State *L) { return unary(L, IPFSRT_NDFN_EXP); }
static int fn_log(lua_State *L) { return unary(L, IPFSRT_NDFN_LOG); }
static int fn_floor(lua_State *L) { return unary(L, IPFSRT_NDFN_FLOOR); }
static int fn_ceil(lua_State *L) { return unary(L, IPFSRT_NDFN_CEIL); }
static int fn_isnan(lua_State *L) { return unary(L, IPFSRT_NDFN_ISNAN); }
static int fn_isfinite(lua_State *L) { return unary(L, IPFSRT_NDFN_ISFINITE); }
static int fn_sin(lua_State *L) { return unary(L, IPFSRT_NDFN_SIN); }
static int fn_cos(lua_State *L) { return unary(L, IPFSRT_NDFN_COS); }
static int fn_tan(lua_State *L) { return unary(L, IPFSRT_NDFN_TAN); }
static int fn_deg2rad(lua_State *L) { return unary(L, IPFSRT_NDFN_DEG2RAD); }
static int fn_rad2deg(lua_State *L) { return unary(L, IPFSRT_NDFN_RAD2DEG); }

static int array_astype(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    size_t itemsize;
    ipfsrt_dtype d = check_dtype(L, 2, IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_astype(out, a, d, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

void ipfsrt_lua_check_scaling(lua_State *L, int idx, ipfsrt_dtype *dtype, ipfsrt_ndarray_scaling *sc) {
    size_t itemsize;
    *dtype = check_dtype(L, idx, IPFSRT_DTYPE_FLOAT64, &itemsize);
    *sc = (ipfsrt_ndarray_scaling){0, {0}, !lua_isnoneornil(L, idx + 2), !lua_isnoneornil(L, idx + 3), 0, 0};
    if (!lua_isnoneornil(L, idx + 1)) {
        luaL_checktype(L, idx + 1, LUA_TTABLE);
        for (lua_Integer i = 1; lua_rawgeti(L, idx + 1, i) != LUA_TNIL; i++) {
            if (sc->nfills == IPFSRT_NDARRAY_MAX_FILLS) ipfsrt_lua_raise_arg(L, "too many missing values");
            sc->fills[sc->nfills++] = luaL_checknumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (sc->has_scale) sc->scale = luaL_checknumber(L, idx + 2);
    if (sc->has_offset) sc->offset = luaL_checknumber(L, idx + 3);
}

/* a:unscale(dtype, {missing values...}, scale | nil, offset | nil): CF decoding in one pass */
static int array_unscale(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_dtype d;
    ipfsrt_ndarray_scaling sc;
    ipfsrt_lua_check_scaling(L, 2, &d, &sc);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_unscale(out, a, d, &sc, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* Options {skipna = true, where = mask} at idx (0: none). The mask stays
 * referenced by the options table, an argument of the call. */
typedef struct reduce_opts {
    bool skipna;
    const ipfsrt_ndarray *where;
} reduce_opts;

static reduce_opts opts_of(lua_State *L, int idx) {
    reduce_opts o = {true, NULL};
    if (!idx || !lua_istable(L, idx)) return o;
    if (lua_getfield(L, idx, "skipna") != LUA_TNIL) o.skipna = lua_toboolean(L, -1);
    if (lua_getfield(L, idx, "where") != LUA_TNIL) {
        o.where = luaL_testudata(L, -1, NDARRAY);
        if (!o.where) ipfsrt_lua_raise_arg(L, "where= takes a bool array");
    }
    lua_pop(L, 2);
    return o;
}

static bool skipna_of(lua_State *L, int idx) { return opts_of(L, idx).skipna; }

/* a:sum(axes, opts) with a list of axes */
static int reduce_axes(lua_State *L, ipfsrt_ndreduce how, ipfsrt_ndarray *a) {
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    lua_Integer n = luaL_len(L, 2);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many axes");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        axes[i - 1] = (int)luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    reduce_opts o = opts_of(L, 3);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reduce(out, how, a, axes, (int)n, o.skipna, o.where, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:sum([axis | {axis, ...}][, {skipna = false, where = mask}]): over
 * everything a Lua number, along axes an array. A table second is a list of
 * axes when it has items, else the options. */
static int reduce(lua_State *L, ipfsrt_ndreduce how) {
    ipfsrt_ndarray *a = check_array(L, 1);
    bool listed = lua_istable(L, 2) && luaL_len(L, 2) > 0;
    if (listed) return reduce_axes(L, how, a);
    int opts = lua_istable(L, 2) ? 2 : lua_istable(L, 3) ? 3 : 0;
    bool all = lua_isnoneornil(L, 2) || opts == 2;
    int axis = all ? 0 : (int)luaL_checkinteger(L, 2);
    reduce_opts o = opts_of(L, opts);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reduce(out, how, a, all ? NULL : &axis, 1, o.skipna, o.where, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    if (!all) return 1;
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(out, NULL, 0, &v, NULL);
    push_value(L, &v);
    return 1;
}

/* total:accumulate(x[, {how = "sum" | "min" | "max", skipna = true, count = counts, first = false}]):
 * x's rows folded into total (and counts), in place; returns total */
static int array_accumulate(lua_State *L) {
    static const char *const hows[] = {"sum", "min", "max", NULL};
    ipfsrt_ndarray *total = check_array(L, 1);
    const ipfsrt_ndarray *x = check_array(L, 2);
    ipfsrt_ndaccumulate how = IPFSRT_NDACCUMULATE_SUM;
    bool skipna = true, first = false;
    ipfsrt_ndarray *count = NULL;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "how");
        how = (ipfsrt_ndaccumulate)luaL_checkoption(L, -1, "sum", hows);
        lua_pop(L, 1);
        skipna = ipfsrt_lua_opt_bool(L, 3, "skipna", true);
        first = ipfsrt_lua_opt_bool(L, 3, "first", false);
        if (lua_getfield(L, 3, "count") != LUA_TNIL) {
            count = luaL_testudata(L, -1, NDARRAY);
            if (!count) return ipfsrt_lua_raise_arg(L, "count= takes an int64 array");
        }
        lua_pop(L, 1); /* the table at 3 keeps the counts alive */
    }
    ipfsrt_error err;
    if (ipfsrt_ndarray_accumulate(total, count, x, how, skipna, first, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.weighted_sums(x, w, n) -> num, den: over x's last n axes */
static int nd_weighted_sums(lua_State *L) {
    const ipfsrt_ndarray *x = check_array(L, 1), *w = check_array(L, 2);
    int n = (int)luaL_checkinteger(L, 3);
    ipfsrt_ndarray *num = push_new(L), *den = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_weighted_sums(num, den, x, w, n, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 2;
}

/* a:median([axis | {axis, ...}][, {skipna = false}]): as sum's arguments */
static int red_median(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    int axes[IPFSRT_NDARRAY_MAX_DIMS], n = 0;
    bool all = lua_isnoneornil(L, 2) || (lua_istable(L, 2) && luaL_len(L, 2) == 0);
    if (lua_isinteger(L, 2)) {
        axes[n++] = (int)lua_tointeger(L, 2);
    } else if (!all) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_Integer len = luaL_len(L, 2);
        if (len > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many axes");
        for (n = 0; n < (int)len; n++) {
            lua_rawgeti(L, 2, n + 1);
            axes[n] = (int)luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
    }
    bool skipna = skipna_of(L, lua_istable(L, 2) && all ? 2 : 3);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_median(out, a, all ? NULL : axes, n, skipna, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    if (!all) return 1;
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(out, NULL, 0, &v, NULL);
    push_value(L, &v);
    return 1;
}

static int red_var(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_VAR); }
static int red_std(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_STD); }
static int red_argmin(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ARGMIN); }
static int red_argmax(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ARGMAX); }
static int red_any(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ANY); }
static int red_all(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ALL); }
static int nd_maximum(lua_State *L) { return binary(L, IPFSRT_NDOP_MAXIMUM); }
static int nd_minimum(lua_State *L) { return binary(L, IPFSRT_NDOP_MINIMUM); }

/* ndarray.where(cond, x, y): x and y arrays or Lua numbers (weak, as in arithmetic) */
static int nd_where(lua_State *L) {
    ipfsrt_ndarray *cond = check_array(L, 1);
    ipfsrt_ndarray *x = luaL_testudata(L, 2, NDARRAY), *y = luaL_testudata(L, 3, NDARRAY);
    ipfsrt_ndarray tx, ty;
    ipfsrt_ndarray_init(&tx);
    ipfsrt_ndarray_init(&ty);
    ipfsrt_dtype hint = x ? x->dtype : y ? y->dtype : IPFSRT_DTYPE_FLOAT64;
    const ipfsrt_ndarray *a = operand(L, 2, hint, &tx);
    const ipfsrt_ndarray *b = operand(L, 3, a->dtype, &ty);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_where(out, cond, a, b, &err);
    ipfsrt_ndarray_free(&tx);
    ipfsrt_ndarray_free(&ty);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:clip(lo, hi): either bound may be nil; NaN stays NaN */
static int array_clip(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray tlo, thi;
    ipfsrt_ndarray_init(&tlo);
    ipfsrt_ndarray_init(&thi);
    const ipfsrt_ndarray *lo = lua_isnoneornil(L, 2) ? NULL : operand(L, 2, a->dtype, &tlo);
    const ipfsrt_ndarray *hi = lua_isnoneornil(L, 3) ? NULL : operand(L, 3, a->dtype, &thi);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_clip(out, a, lo, hi, &err);
    ipfsrt_ndarray_free(&tlo);
    ipfsrt_ndarray_free(&thi);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:fill(v): every element, views included; returns a */
static int array_fill(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray tv;
    ipfsrt_ndarray_init(&tv);
    const ipfsrt_ndarray *v = operand(L, 2, a->dtype, &tv);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_fill(a, v, &err);
    ipfsrt_ndarray_free(&tv);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.linspace(start, stop[, num = 50]) */
static int nd_linspace(lua_State *L) {
    lua_Integer num = luaL_optinteger(L, 3, 50);
    if (num < 0) return ipfsrt_lua_raise_arg(L, "linspace needs a count of 0 or more");
    ipfsrt_ndarray *a = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_linspace(a, luaL_checknumber(L, 1), luaL_checknumber(L, 2), (size_t)num, &err) !=
        IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:round([decimals]) */
static int array_round(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    int decimals = (int)luaL_optinteger(L, 2, 0);
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_round(out, a, decimals, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:cumsum([axis = 0][, {skipna = ...}]) */
static int array_cumsum(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    int axis = lua_isinteger(L, 2) ? (int)lua_tointeger(L, 2) : 0;
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_cumsum(out, a, axis, skipna_of(L, lua_istable(L, 2) ? 2 : 3), &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:assign(value): numpy's a[...] = value (value an array or a number, broadcast) */
static int array_assign(lua_State *L) {
    ipfsrt_ndarray *a = check_array(L, 1);
    ipfsrt_ndarray tv;
    ipfsrt_ndarray_init(&tv);
    const ipfsrt_ndarray *v = operand(L, 2, a->dtype, &tv);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_assign(a, v, &err);
    ipfsrt_ndarray_free(&tv);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.concat({a, b, ...}[, axis = 0]) and ndarray.stack(...) */
static int join(lua_State *L, bool stack) {
    luaL_checktype(L, 1, LUA_TTABLE);
    int axis = (int)luaL_optinteger(L, 2, 0);
    const ipfsrt_ndarray *arrays[64];
    lua_Integer n = luaL_len(L, 1);
    if (n < 1 || n > 64) return ipfsrt_lua_raise_arg(L, "1 to 64 arrays to join");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        arrays[i - 1] = check_array(L, -1);
        lua_pop(L, 1); /* still referenced by the list */
    }
    ipfsrt_ndarray *out = push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = stack ? ipfsrt_ndarray_stack(out, arrays, (int)n, axis, &err)
                             : ipfsrt_ndarray_concat(out, arrays, (int)n, axis, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int nd_concat(lua_State *L) { return join(L, false); }
static int nd_stack(lua_State *L) { return join(L, true); }

static int red_sum(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_SUM); }
static int red_mean(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MEAN); }
static int red_min(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MIN); }
static int red_max(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MAX); }
static int red_count(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_COUNT); }

int ipfsrt_lua_open_ndarray(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"get", array_get},         {"set", array_set},           {"slice", array_slice},
        {"transpose", array_transpose}, {"reshape", array_reshape}, {"squeeze", array_squeeze},
        {"copy", array_copy},       {"tolist", array_tolist},     {"astype", array_astype},
        {"tojson", array_tojson},   {"strings", array_strings},
        {"unscale", array_unscale},
        {"lt", op_lt}, {"le", op_le}, {"gt", op_gt}, {"ge", op_ge}, {"eq", op_eq}, {"ne", op_ne},
        {"abs", fn_abs}, {"sqrt", fn_sqrt}, {"exp", fn_exp}, {"log", fn_log}, {"floor", fn_floor},
        {"ceil", fn_ceil}, {"isnan", fn_isnan}, {"isfinite", fn_isfinite}, {"sin", fn_sin}, {"cos", fn_cos},
        {"tan", fn_tan}, {"deg2rad", fn_deg2rad}, {"rad2deg", fn_rad2deg},
        {"sum", red_sum}, {"mean", red_mean}, {"min", red_min}, {"max", red_max}, {"count", red_count},
        {"var", red_var}, {"std", red_std}, {"median", red_median}, {"accumulate", array_accumulate}, {"argmin", red_argmin}, {"argmax", red_argmax},
        {"any", red_any}, {"all", red_all}, {"clip", array_clip}, {"fill", array_fill},
        {"round", array_round}, {"cumsum", array_cumsum}, {"assign", array_assign},
        {"tobytes", array_tobytes},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {
        {"__index", array_index}, {"__gc", array_gc}, {"__close", array_gc}, {"__len", array_len},
        {"__tostring", array_tostring}, {"__add", op_add}, {"__sub", op_sub}, {"__mul", op_mul},
        {"__div", op_div}, {"__idiv", op_idiv}, {"__mod", op_mod}, {"__pow", op_pow},
        {"__unm", fn_unm}, {"__band", op_band}, {"__bor", op_bor}, {"__bxor", op_bxor},
        {"__bnot", fn_bnot}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"zeros", nd_zeros}, {"ones", nd_ones},     {"empty", nd_zeros},
                                   {"full", nd_full},   {"arange", nd_arange}, {"from", nd_from},
                                   {"where", nd_where}, {"maximum", nd_maximum}, {"minimum", nd_minimum},
                                   {"weighted_sums", nd_weighted_sums},
                                   {"linspace", nd_linspace}, {"concat", nd_concat}, {"stack", nd_stack},
                                   {"frombytes", nd_frombytes}, {"isarray", nd_isarray},
                                   {NULL, NULL}};
    ipfsrt_lua_class_indexed(L, NDARRAY, meta, methods);
    luaL_newlib(L, fns);
    return 1;
}
