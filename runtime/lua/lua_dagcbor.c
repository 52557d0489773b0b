/* ipfsrt.dagcbor: maps -> tables, byte strings -> strings, CIDs -> cid objects,
 * null -> ipfsrt.dagcbor.null. Text and byte strings both become Lua strings. */
#include <string.h>

#include "bindings.h"

static void push_item(lua_State *L, const ipfsrt_dagcbor_item *it) {
    switch (it->type) {
    case IPFSRT_DAGCBOR_UINT:
        if (it->v.u <= (uint64_t)LUA_MAXINTEGER) lua_pushinteger(L, (lua_Integer)it->v.u);
        else lua_pushnumber(L, (lua_Number)it->v.u);
        break;
    case IPFSRT_DAGCBOR_NEGINT:
        if (it->v.u <= (uint64_t)LUA_MAXINTEGER) lua_pushinteger(L, -1 - (lua_Integer)it->v.u);
        else lua_pushnumber(L, -1.0 - (lua_Number)it->v.u);
        break;
    case IPFSRT_DAGCBOR_BYTES:
    case IPFSRT_DAGCBOR_TEXT: lua_pushlstring(L, (const char *)it->v.str.ptr, it->v.str.len); break;
    case IPFSRT_DAGCBOR_ARRAY:
        luaL_checkstack(L, 3, "DAG-CBOR nesting");
        lua_createtable(L, (int)it->v.list.count, 0);
        for (size_t i = 0; i < it->v.list.count; i++) {
            push_item(L, &it->v.list.items[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    case IPFSRT_DAGCBOR_MAP:
        luaL_checkstack(L, 3, "DAG-CBOR nesting");
        lua_createtable(L, 0, (int)it->v.list.count);
        for (size_t i = 0; i < it->v.list.count; i++) {
            push_item(L, &it->v.list.items[2 * i]);
            push_item(L, &it->v.list.items[2 * i + 1]);
            lua_rawset(L, -3);
        }
        break;
    case IPFSRT_DAGCBOR_CID: ipfsrt_lua_push_cid(L, it->v.cid); break;
    case IPFSRT_DAGCBOR_BOOL: lua_pushboolean(L, it->v.b); break;
    case IPFSRT_DAGCBOR_NULL: ipfsrt_lua_push_null(L); break;
    case IPFSRT_DAGCBOR_FLOAT: lua_pushnumber(L, it->v.f); break;
    }
}

static int doc_gc(lua_State *L) {
    ipfsrt_dagcbor_doc_free(lua_touserdata(L, 1));
    return 0;
}

static int dagcbor_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    /* The decoded tree lives in a collectable box so that a Lua error while
     * building tables cannot leak it. */
    ipfsrt_dagcbor_doc *doc = lua_newuserdatauv(L, sizeof *doc, 0);
    memset(doc, 0, sizeof *doc);
    if (luaL_newmetatable(L, "ipfsrt.cbordoc")) {
        lua_pushcfunction(L, doc_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    ipfsrt_error err;
    if (ipfsrt_dagcbor_decode((const uint8_t *)s, n, doc, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    push_item(L, doc->root);
    ipfsrt_dagcbor_doc_free(doc);
    return 1;
}

void ipfsrt_lua_open_dagcbor(lua_State *L) {
    static const luaL_Reg fns[] = {{"decode", dagcbor_decode}, {NULL, NULL}};
    luaL_newlib(L, fns);
    ipfsrt_lua_push_null(L);
    lua_setfield(L, -2, "null");
    lua_setfield(L, -2, "dagcbor");
}
