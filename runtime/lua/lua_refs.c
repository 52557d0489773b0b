/* ipfsrt.refs: make(path[, {target =, inline_threshold =}]) -> the kerchunk
 * references of a NetCDF-4/HDF5 file (JSON text), and the list of what was
 * left out ({name, why}, ...). */
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

static int refs_make(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    ipfsrt_refs_options o;
    ipfsrt_refs_options_init(&o);
    if (lua_istable(L, 2)) {
        o.target = ipfsrt_lua_opt_string(L, 2, "target", NULL);
        lua_Integer n = ipfsrt_lua_opt_int(L, 2, "inline_threshold", 0);
        if (n < 0) ipfsrt_lua_raise_arg(L, "inline_threshold is a number of bytes");
        o.inline_threshold = (uint64_t)n;
    }
    lua_newtable(L); /* what was left out */
    int skipped = lua_gettop(L);
    char *json = NULL;
    ipfsrt_error err;
    if (ipfsrt_refs_make(path, &o, note_skipped, L, &json, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_pushstring(L, json);
    free(json);
    lua_pushvalue(L, skipped);
    return 2;
}

void ipfsrt_lua_open_refs(lua_State *L) {
    static const luaL_Reg fns[] = {{"make", refs_make}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "refs");
}
