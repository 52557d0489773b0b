/* The NetCDF-4 writer for lua/ipfsrt/dataset/to_netcdf.lua (in require "ipfsrt.core"):
 * netcdf_writer(path, replace) -> w; w:dim(name, len); w:var(name, {dim, ...},
 * values, attributes_json | nil); w:strings(name, dim, {s, ...}, json | nil);
 * w:attributes(json); w:finish(). */
#include "bindings.h"

#define NETCDF_WRITER "ipfsrt.netcdf_writer"

typedef struct lua_writer {
    ipfsrt_netcdf_writer *w;
} lua_writer;

static ipfsrt_netcdf_writer *check_writer(lua_State *L) {
    lua_writer *lw = luaL_checkudata(L, 1, NETCDF_WRITER);
    if (!lw->w) ipfsrt_lua_raise_arg(L, "the NetCDF writer is finished");
    return lw->w;
}

static int l_netcdf_writer(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    bool replace = lua_toboolean(L, 2);
    lua_writer *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = NULL;
    luaL_setmetatable(L, NETCDF_WRITER);
    ipfsrt_error err;
    if (ipfsrt_netcdf_writer_new(&lw->w, path, replace, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int writer_dim(lua_State *L) {
    ipfsrt_netcdf_writer *w = check_writer(L);
    const char *name = luaL_checkstring(L, 2);
    lua_Integer len = luaL_checkinteger(L, 3);
    if (len < 0) return ipfsrt_lua_raise_arg(L, "dimension %s: a length >= 0", name);
    ipfsrt_error err;
    if (ipfsrt_netcdf_writer_dim(w, name, (size_t)len, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int writer_var(lua_State *L) {
    ipfsrt_netcdf_writer *w = check_writer(L);
    const char *name = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    const ipfsrt_ndarray *values = ipfsrt_lua_check_ndarray(L, 4);
    const char *attributes = luaL_optstring(L, 5, NULL);
    lua_Integer n = luaL_len(L, 3);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "%s: too many dimensions", name);
    const char *dims[IPFSRT_NDARRAY_MAX_DIMS];
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 3, i);
        dims[i - 1] = luaL_checkstring(L, -1); /* the table at 3 keeps it */
        lua_pop(L, 1);
    }
    ipfsrt_error err;
    if (ipfsrt_netcdf_writer_var(w, name, dims, (int)n, values, attributes, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int writer_strings(lua_State *L) {
    ipfsrt_netcdf_writer *w = check_writer(L);
    const char *name = luaL_checkstring(L, 2), *dim = luaL_checkstring(L, 3);
    luaL_checktype(L, 4, LUA_TTABLE);
    const char *attributes = luaL_optstring(L, 5, NULL);
    lua_settop(L, 5);
    size_t n = (size_t)luaL_len(L, 4);
    const char **strings = lua_newuserdatauv(L, (n ? n : 1) * sizeof *strings, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 4, (lua_Integer)i + 1);
        strings[i] = luaL_checkstring(L, -1); /* the table at 4 keeps it */
        lua_pop(L, 1);
    }
    ipfsrt_error err;
    if (ipfsrt_netcdf_writer_strings(w, name, dim, strings, n, attributes, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int writer_attributes(lua_State *L) {
    ipfsrt_netcdf_writer *w = check_writer(L);
    ipfsrt_error err;
    if (ipfsrt_netcdf_writer_attributes(w, luaL_checkstring(L, 2), &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int writer_finish(lua_State *L) {
    ipfsrt_netcdf_writer *w = check_writer(L);
    lua_writer *lw = lua_touserdata(L, 1);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_netcdf_writer_finish(w, &err);
    ipfsrt_netcdf_writer_free(w);
    lw->w = NULL;
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* Unfinished: nothing left at the path. */
static int writer_gc(lua_State *L) {
    lua_writer *lw = luaL_checkudata(L, 1, NETCDF_WRITER);
    ipfsrt_netcdf_writer_free(lw->w);
    lw->w = NULL;
    return 0;
}

void ipfsrt_lua_open_netcdf(lua_State *L) {
    static const luaL_Reg methods[] = {{"dim", writer_dim}, {"var", writer_var}, {"strings", writer_strings}, {"attributes", writer_attributes},
                                       {"finish", writer_finish}, {NULL, NULL}};
    ipfsrt_lua_class(L, NETCDF_WRITER, methods, writer_gc, NULL);
    ipfsrt_lua_push_core(L); /* for lua/ipfsrt/dataset/to_netcdf.lua */
    lua_pushcfunction(L, l_netcdf_writer);
    lua_setfield(L, -2, "netcdf_writer");
    lua_pop(L, 1);
}
