/* Helpers every binding file shares (luv's util.c): the null value, classes,
 * fields of option tables, and entries written in Lua. */
#include <stdio.h>
#include <string.h>

#include "bindings.h"
#include "lua_embedded.h"

static const char null_sentinel = 0;

void ipfsrt_lua_push_null(lua_State *L) { lua_pushlightuserdata(L, (void *)&null_sentinel); }

int ipfsrt_lua_is_null(lua_State *L, int idx) {
    return lua_touserdata(L, idx) == (void *)&null_sentinel;
}

void ipfsrt_lua_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
                      lua_CFunction close) {
    if (luaL_newmetatable(L, name)) {
        lua_newtable(L);
        luaL_setfuncs(L, methods, 0);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, close ? close : gc);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
}

void ipfsrt_lua_class_indexed(lua_State *L, const char *name, const luaL_Reg *meta,
                              const luaL_Reg *methods) {
    if (luaL_newmetatable(L, name)) {
        luaL_setfuncs(L, meta, 0);
        lua_newtable(L);
        luaL_setfuncs(L, methods, 0);
        lua_setfield(L, -2, "methods");
    }
    lua_pop(L, 1);
}

lua_Integer ipfsrt_lua_opt_int(lua_State *L, int t, const char *key, lua_Integer dflt) {
    lua_getfield(L, t, key);
    lua_Integer v = luaL_opt(L, luaL_checkinteger, -1, dflt);
    lua_pop(L, 1);
    return v;
}

lua_Number ipfsrt_lua_opt_number(lua_State *L, int t, const char *key, lua_Number dflt) {
    lua_getfield(L, t, key);
    lua_Number v = luaL_opt(L, luaL_checknumber, -1, dflt);
    lua_pop(L, 1);
    return v;
}

bool ipfsrt_lua_opt_bool(lua_State *L, int t, const char *key, bool dflt) {
    lua_getfield(L, t, key);
    bool v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

const char *ipfsrt_lua_opt_string(lua_State *L, int t, const char *key, const char *dflt) {
    lua_getfield(L, t, key);
    const char *v = luaL_opt(L, luaL_checkstring, -1, dflt);
    lua_pop(L, 1); /* the string stays referenced by the table */
    return v;
}

/* Calls require(module)[field] with the call's arguments. */
static int call_lua_function(lua_State *L) {
    lua_getglobal(L, "require");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 1, 1);
    lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(2)));
    lua_remove(L, -2);
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void ipfsrt_lua_push_lua_function(lua_State *L, const char *module, const char *field) {
    lua_pushstring(L, module);
    lua_pushstring(L, field);
    lua_pushcclosure(L, call_lua_function, 2);
}

/* package.searchers entry: the compiled-in copy of a library module (Lua
 * compiled by the build's lua5.4: a Lua of another format refuses it, saying so).
 * Compiled chunks carry their own name, "@lua/ipfsrt/NAME.lua". */
static int search_embedded(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    for (const ipfsrt_lua_source *s = ipfsrt_lua_sources; s->module; s++) {
        if (strcmp(s->module, name) != 0) continue;
        if (luaL_loadbufferx(L, s->code, s->len, s->path, "b") != LUA_OK)
            return luaL_error(L, "ipfsrt's built-in %s: %s (built for Lua %s)", s->path, lua_tostring(L, -1),
                              LUA_VERSION_MAJOR "." LUA_VERSION_MINOR);
        lua_pushfstring(L, "%s (built in)", s->path);
        return 2;
    }
    lua_pushfstring(L, "no module '%s' built into ipfsrt", name);
    return 1;
}

void ipfsrt_lua_add_searcher(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "ipfsrt.searcher");
    bool added = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (added) return;
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "ipfsrt.searcher");
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) { /* a host without the package library: nothing to extend */
        lua_pop(L, 1);
        return;
    }
    lua_getfield(L, -1, "searchers");
    if (lua_istable(L, -1)) {
        lua_pushcfunction(L, search_embedded);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1); /* last: files on the path win */
    }
    lua_pop(L, 2);
}

static int tostring_unprotected(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

const char *ipfsrt_lua_describe(lua_State *L, int idx, char *buf, size_t cap) {
    idx = lua_absindex(L, idx);
    if (!lua_checkstack(L, 4)) {
        snprintf(buf, cap, "(an error value: no stack left to describe it)");
        return buf;
    }
    lua_pushcfunction(L, tostring_unprotected);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
        snprintf(buf, cap, "%s", lua_tostring(L, -1));
    else
        snprintf(buf, cap, "(a %s value whose __tostring failed)", luaL_typename(L, idx));
    lua_pop(L, 1);
    return buf;
}

const char *ipfsrt_lua_check_name(lua_State *L, int idx) {
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    if (strlen(s) != len) luaL_argerror(L, idx, "a name with a NUL byte inside");
    return s;
}

const char *ipfsrt_lua_opt_name(lua_State *L, int idx, const char *dflt) {
    return lua_isnoneornil(L, idx) ? dflt : ipfsrt_lua_check_name(L, idx);
}
