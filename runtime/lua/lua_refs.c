/* ipfsrt.refs: make(path[, {target =, inline_threshold =, hdf5_seconds =, hdf5_memory =}]) -> the kerchunk
 * references of a NetCDF-4/HDF5 file (JSON text), and the list of what was
 * left out ({name, why}, ...); concat({path, ...}, dim[, {targets = {...},
 * inline_threshold =}]) -> the same for files joined along dim. */
#include <stdlib.h>

#include "bindings.h"

static void note_skipped(void *user, const char *name, const char *why) {
    lua_State *L = user;
    lua_createtable(L, 2, 0);
    lua_pushstring(L, name);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, why);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
}

static void check_options(lua_State *L, int idx, ipfsrt_refs_options *o) {
    ipfsrt_refs_options_init(o);
    if (!lua_istable(L, idx)) return;
    o->target = ipfsrt_lua_opt_string(L, idx, "target", NULL);
    lua_Integer n = ipfsrt_lua_opt_int(L, idx, "inline_threshold", 0);
    if (n < 0) ipfsrt_lua_raise_arg(L, "inline_threshold is a number of bytes");
    o->inline_threshold = (uint64_t)n;
    o->hdf5_seconds = ipfsrt_lua_opt_number(L, idx, "hdf5_seconds", 0);
    if (!(o->hdf5_seconds >= 0)) ipfsrt_lua_raise_arg(L, "hdf5_seconds is a number of seconds");
    lua_Integer memory = ipfsrt_lua_opt_int(L, idx, "hdf5_memory", 0);
    if (memory < 0) ipfsrt_lua_raise_arg(L, "hdf5_memory is a number of bytes");
    o->hdf5_memory = (uint64_t)memory;
}

/* json and what was left out (the table at skipped), or raised. */
static int pushed(lua_State *L, ipfsrt_status st, char *json, int skipped, const ipfsrt_error *err) {
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, err);
    lua_pushstring(L, json);
    free(json);
    lua_pushvalue(L, skipped);
    return 2;
}

static int refs_make(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    ipfsrt_refs_options o;
    check_options(L, 2, &o);
    lua_newtable(L); /* what was left out */
    char *json = NULL;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_refs_make(path, &o, note_skipped, L, &json, &err);
    return pushed(L, st, json, lua_gettop(L), &err);
}

/* The strings of the list at idx, in a userdata of n pointers (kept by the stack). */
static const char **string_list(lua_State *L, int idx, size_t n, const char *what) {
    luaL_checktype(L, idx, LUA_TTABLE);
    const char **list = lua_newuserdatauv(L, (n ? n : 1) * sizeof *list, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        if (!lua_isstring(L, -1)) ipfsrt_lua_raise_arg(L, "%s[%zu] is not a string", what, i + 1);
        list[i] = lua_tostring(L, -1); /* the table keeps it */
        lua_pop(L, 1);
    }
    return list;
}

static int refs_concat(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 1);
    const char *dim = luaL_checkstring(L, 2);
    ipfsrt_refs_options o;
    check_options(L, 3, &o);
    const char **paths = string_list(L, 1, n, "paths"), **targets = NULL;
    if (lua_istable(L, 3) && lua_getfield(L, 3, "targets") == LUA_TTABLE) {
        if ((size_t)luaL_len(L, -1) != n) ipfsrt_lua_raise_arg(L, "targets: one per path");
        targets = string_list(L, lua_gettop(L), n, "targets");
    }
    lua_newtable(L); /* what was left out */
    char *json = NULL;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_refs_concat(paths, targets, n, dim, &o, note_skipped, L, &json, &err);
    return pushed(L, st, json, lua_gettop(L), &err);
}

void ipfsrt_lua_open_refs(lua_State *L) {
    ipfsrt_refs_stores_enable(); /* references for ipfsrt.zarr.open */
    static const luaL_Reg fns[] = {{"make", refs_make}, {"concat", refs_concat}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "refs");
}
