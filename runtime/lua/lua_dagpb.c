/* ipfsrt.dagpb: a dag-pb node as a table, {data = STRING|nil, links = {{cid =
 * CID, name = STRING|nil, tsize = INTEGER|nil}, ...}}, for scripts that look
 * inside a DAG block by block. */
#include <string.h>

#include "bindings.h"

static int node_gc(lua_State *L) {
    ipfsrt_dagpb_node_free(lua_touserdata(L, 1));
    return 0;
}

static void push_link(lua_State *L, const ipfsrt_dagpb_link *l) {
    lua_createtable(L, 0, 3);
    ipfsrt_lua_push_cid(L, &l->cid);
    lua_setfield(L, -2, "cid");
    if (l->name) {
        lua_pushlstring(L, (const char *)l->name, l->name_len);
        lua_setfield(L, -2, "name");
    }
    if (l->has_tsize && l->tsize <= (uint64_t)LUA_MAXINTEGER) {
        lua_pushinteger(L, (lua_Integer)l->tsize);
        lua_setfield(L, -2, "tsize");
    }
}

static int dagpb_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    /* in a collectable box: a Lua error while building tables cannot leak it */
    ipfsrt_dagpb_node *node = lua_newuserdatauv(L, sizeof *node, 0);
    memset(node, 0, sizeof *node);
    if (luaL_newmetatable(L, "ipfsrt.pbnode")) {
        lua_pushcfunction(L, node_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    ipfsrt_error err;
    if (ipfsrt_dagpb_decode((const uint8_t *)s, n, node, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_createtable(L, 0, 2);
    if (node->data) {
        lua_pushlstring(L, (const char *)node->data, node->data_len);
        lua_setfield(L, -2, "data");
    }
    lua_createtable(L, (int)node->link_count, 0);
    for (size_t i = 0; i < node->link_count; i++) {
        push_link(L, &node->links[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "links");
    ipfsrt_dagpb_node_free(node);
    return 1;
}

void ipfsrt_lua_open_dagpb(lua_State *L) {
    static const luaL_Reg fns[] = {{"decode", dagpb_decode}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "dagpb");
}
