/* ipfsrt.error: the one error convention of the Lua API. Functions raise an
 * error object (a table with code, message and, where known, cid and offset);
 * tostring() gives "ipfsrt: <code>: <message>". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bindings.h"

static int error_tostring(lua_State *L) {
    lua_getfield(L, 1, "code");
    lua_getfield(L, 1, "message");
    lua_pushfstring(L, "ipfsrt: %s: %s", luaL_optstring(L, -2, "error"),
                    luaL_optstring(L, -1, ""));
    return 1;
}

static void push_metatable(lua_State *L) {
    if (luaL_newmetatable(L, IPFSRT_LUA_ERROR)) {
        lua_pushcfunction(L, error_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushstring(L, "ipfsrt.error");
        lua_setfield(L, -2, "__name");
    }
}

void ipfsrt_lua_push_error(lua_State *L, const ipfsrt_error *err) {
    lua_createtable(L, 0, 4);
    lua_pushstring(L, ipfsrt_status_name(err->code));
    lua_setfield(L, -2, "code");
    lua_pushstring(L, err->message[0] ? err->message : ipfsrt_status_name(err->code));
    lua_setfield(L, -2, "message");
    if (err->cid[0]) {
        lua_pushstring(L, err->cid);
        lua_setfield(L, -2, "cid");
    }
    if (err->offset >= 0) {
        lua_pushinteger(L, (lua_Integer)err->offset);
        lua_setfield(L, -2, "offset");
    }
    push_metatable(L);
    lua_setmetatable(L, -2);
}

int ipfsrt_lua_raise(lua_State *L, const ipfsrt_error *err) {
    ipfsrt_lua_push_error(L, err);
    return lua_error(L);
}

int ipfsrt_lua_raise_arg(lua_State *L, const char *fmt, ...) {
    ipfsrt_error err;
    ipfsrt_error_clear(&err);
    err.code = IPFSRT_EBAD_ARGUMENT;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    return ipfsrt_lua_raise(L, &err);
}

/* ipfsrt.error.is(value[, code]): is it an ipfsrt error (of that code)? */
static int error_is(lua_State *L) {
    if (!lua_istable(L, 1) || !lua_getmetatable(L, 1)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    luaL_getmetatable(L, IPFSRT_LUA_ERROR);
    int is = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (is && !lua_isnoneornil(L, 2)) {
        lua_getfield(L, 1, "code");
        is = lua_rawequal(L, -1, 2) || (lua_type(L, -1) == LUA_TSTRING &&
                                        lua_type(L, 2) == LUA_TSTRING &&
                                        strcmp(lua_tostring(L, -1), lua_tostring(L, 2)) == 0);
    }
    lua_pushboolean(L, is);
    return 1;
}

/* ipfsrt.error.new(code, message[, fields]) for Lua code that raises in the same shape. */
static int error_new(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_checkstring(L, 2);
    lua_createtable(L, 0, 4);
    if (lua_istable(L, 3)) {
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -4);
        }
    }
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "code");
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "message");
    push_metatable(L);
    lua_setmetatable(L, -2);
    return 1;
}

void ipfsrt_lua_open_error(lua_State *L) {
    static const luaL_Reg fns[] = {{"is", error_is}, {"new", error_new}, {NULL, NULL}};
    luaL_newlib(L, fns);
    push_metatable(L);
    lua_setfield(L, -2, "metatable");
    lua_setfield(L, -2, "error");
}
