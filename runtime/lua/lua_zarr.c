/* ipfsrt.zarr (C side): array metadata and chunk decoding for the Lua Zarr
 * module. meta(json, format[, name]) gives an object with the metadata's
 * fields and chunk_key(i, j, ...), decode_chunk({i, j, ...}, bytes). */
#include <string.h>

#include "lua_zarr.h"

#define ZARR_META "ipfsrt.zarr.meta"

static ipfsrt_zarr_meta *check_meta(lua_State *L, int idx) {
    ipfsrt_zarr_meta **m = luaL_checkudata(L, idx, ZARR_META);
    return *m;
}

static int meta_gc(lua_State *L) {
    ipfsrt_zarr_meta **m = luaL_checkudata(L, 1, ZARR_META);
    ipfsrt_zarr_meta_free(*m);
    *m = NULL;
    return 0;
}

static void push_sizes(lua_State *L, const size_t *v, int n) {
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

void ipfsrt_lua_zarr_check_index(lua_State *L, const ipfsrt_zarr_meta *m, int first, size_t *index) {
    for (int d = 0; d < ipfsrt_zarr_meta_ndim(m); d++) {
        lua_Integer i = luaL_checkinteger(L, first + d);
        if (i < 0) ipfsrt_lua_raise_arg(L, "negative chunk index %lld", (long long)i);
        index[d] = (size_t)i;
    }
}

/* m:chunk_key(i, j, ...) */
static int meta_chunk_key(lua_State *L) {
    const ipfsrt_zarr_meta *m = check_meta(L, 1);
    size_t index[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_lua_zarr_check_index(L, m, 2, index);
    char key[512];
    ipfsrt_error err;
    if (ipfsrt_zarr_chunk_key(m, index, key, sizeof key, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_pushstring(L, key);
    return 1;
}

/* m:decode_chunk({i, j, ...}, bytes): the whole chunk as an n-d array */
static int meta_decode_chunk(lua_State *L) {
    const ipfsrt_zarr_meta *m = check_meta(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t len, index[IPFSRT_NDARRAY_MAX_DIMS];
    const char *bytes = luaL_checklstring(L, 3, &len);
    for (int d = 0; d < ipfsrt_zarr_meta_ndim(m); d++) {
        lua_rawgeti(L, 2, d + 1);
        lua_Integer i = luaL_checkinteger(L, -1);
        if (i < 0) return ipfsrt_lua_raise_arg(L, "negative chunk index %lld", (long long)i);
        index[d] = (size_t)i;
        lua_pop(L, 1);
    }
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    ipfsrt_error err;
    if (ipfsrt_zarr_decode_chunk(m, index, bytes, len, &a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_ndarray(L, &a);
    return 1;
}

/* m:set_attributes(zattrs_json) (v2) */
static int meta_set_attributes(lua_State *L) {
    ipfsrt_zarr_meta *m = check_meta(L, 1);
    size_t len;
    const char *json = luaL_checklstring(L, 2, &len);
    ipfsrt_error err;
    if (ipfsrt_zarr_meta_set_attributes(m, json, len, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int meta_codecs(lua_State *L, const ipfsrt_zarr_meta *m) {
    int n = ipfsrt_zarr_meta_codec_count(m);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, ipfsrt_codec_id(ipfsrt_zarr_meta_codec(m, i)));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static void meta_attributes(lua_State *L, const ipfsrt_zarr_meta *m) {
    ipfsrt_buf *b = ipfsrt_lua_push_buf(L);
    ipfsrt_error err;
    if (ipfsrt_zarr_meta_attributes(m, b, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_json_buf(L, b);
}

static int meta_dimension_names(lua_State *L, const ipfsrt_zarr_meta *m) {
    int ndim = ipfsrt_zarr_meta_ndim(m);
    lua_createtable(L, ndim, 0);
    for (int i = 0; i < ndim; i++) {
        const char *name = ipfsrt_zarr_meta_dimension_name(m, i);
        if (name) lua_pushstring(L, name);
        else ipfsrt_lua_push_null(L);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const char *const field_names[] = {"zarr_format", "shape", "chunks", "grid", "ndim", "dtype",
                                         "itemsize", "name", "datetime_unit", "codecs", "dimension_names",
                                         "attrs", "fill_value", "order", "inner_chunks", "inner_codecs", NULL};

/* Pushes field k of m (nothing, and false, when it has none). */
static bool push_field(lua_State *L, const ipfsrt_zarr_meta *m, const char *k) {
    int ndim = ipfsrt_zarr_meta_ndim(m);
    const ipfsrt_zarr_meta *inner = ipfsrt_zarr_meta_inner(m);
    const ipfsrt_ndarray *fill = ipfsrt_zarr_meta_fill(m);
    if (!strcmp(k, "zarr_format")) lua_pushinteger(L, ipfsrt_zarr_meta_format(m));
    else if (!strcmp(k, "shape")) push_sizes(L, ipfsrt_zarr_meta_shape(m), ndim);
    else if (!strcmp(k, "chunks")) push_sizes(L, ipfsrt_zarr_meta_chunks(m), ndim);
    else if (!strcmp(k, "grid")) push_sizes(L, ipfsrt_zarr_meta_grid(m), ndim);
    else if (!strcmp(k, "ndim")) lua_pushinteger(L, ndim);
    else if (!strcmp(k, "dtype")) lua_pushstring(L, ipfsrt_dtype_name(ipfsrt_zarr_meta_dtype(m)));
    else if (!strcmp(k, "itemsize")) lua_pushinteger(L, (lua_Integer)ipfsrt_zarr_meta_itemsize(m));
    else if (!strcmp(k, "name")) lua_pushstring(L, ipfsrt_zarr_meta_name(m));
    else if (!strcmp(k, "order")) lua_pushstring(L, ipfsrt_zarr_meta_fortran_order(m) ? "F" : "C");
    else if (!strcmp(k, "datetime_unit") && ipfsrt_zarr_meta_datetime_unit(m)[0])
        lua_pushstring(L, ipfsrt_zarr_meta_datetime_unit(m));
    else if (!strcmp(k, "codecs")) meta_codecs(L, m);
    else if (!strcmp(k, "inner_chunks") && inner) push_sizes(L, ipfsrt_zarr_meta_chunks(inner), ndim);
    else if (!strcmp(k, "inner_codecs") && inner) meta_codecs(L, inner);
    else if (!strcmp(k, "dimension_names")) meta_dimension_names(L, m);
    else if (!strcmp(k, "attrs")) meta_attributes(L, m);
    else if (!strcmp(k, "fill_value") && fill) {
        ipfsrt_ndarray copy;
        ipfsrt_ndarray_init(&copy);
        ipfsrt_error err;
        if (ipfsrt_ndarray_copy(&copy, fill, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
        ipfsrt_lua_push_ndarray(L, &copy);
    } else return false;
    return true;
}

void ipfsrt_lua_zarr_meta_fields(lua_State *L, const ipfsrt_zarr_meta *m) {
    for (int i = 0; field_names[i]; i++)
        if (push_field(L, m, field_names[i])) lua_setfield(L, -2, field_names[i]);
}

/* Fields: those of field_names (fill_value: a 0-d array, nil when v2 has none) */
static int meta_index(lua_State *L) {
    const ipfsrt_zarr_meta *m = check_meta(L, 1);
    const char *k = luaL_checkstring(L, 2);
    for (int i = 0; field_names[i]; i++)
        if (!strcmp(k, field_names[i])) return push_field(L, m, k) ? 1 : 0;
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
    return 1;
}

/* meta(json, format[, name]) */
static int zarr_meta(lua_State *L) {
    size_t len;
    const char *json = luaL_checklstring(L, 1, &len);
    lua_Integer format = luaL_checkinteger(L, 2);
    const char *name = luaL_optstring(L, 3, "");
    if (format != 2 && format != 3) return ipfsrt_lua_raise_arg(L, "zarr_format %lld (2 or 3)", (long long)format);
    ipfsrt_zarr_meta **m = lua_newuserdatauv(L, sizeof *m, 0);
    *m = NULL;
    luaL_setmetatable(L, ZARR_META);
    ipfsrt_error err;
    if (ipfsrt_zarr_meta_parse(m, json, len, (int)format, name, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

void ipfsrt_lua_open_zarr(lua_State *L) {
    static const luaL_Reg meta[] = {{"__index", meta_index}, {"__gc", meta_gc}, {"__close", meta_gc}, {NULL, NULL}};
    static const luaL_Reg methods[] = {{"chunk_key", meta_chunk_key}, {"decode_chunk", meta_decode_chunk},
                                       {"set_attributes", meta_set_attributes}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"meta", zarr_meta}, {NULL, NULL}};
    ipfsrt_lua_class_indexed(L, ZARR_META, meta, methods);
    ipfsrt_lua_push_core(L); /* the stores and nodes, for lua/ipfsrt/zarr.lua */
    lua_newtable(L);
    ipfsrt_lua_zarr_store_functions(L);
    ipfsrt_lua_zarr_node_functions(L);
    lua_setfield(L, -2, "zarr");
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    static const char *const from_lua[] = {"open", "store", "create", "group", "consolidate", "copy", "read_many",
                                           NULL};
    for (int i = 0; from_lua[i]; i++) { /* lua/ipfsrt/zarr.lua */
        ipfsrt_lua_push_lua_function(L, "ipfsrt.zarr", from_lua[i]);
        lua_setfield(L, -2, from_lua[i]);
    }
    lua_setfield(L, -2, "zarr");
}
