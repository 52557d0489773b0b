/* ipfsrt.blockstore(): verified blocks kept in memory (ipfsrt_memstore), and
 * the block sources Lua values stand for. */
#include "bindings.h"

static ipfsrt_memstore **check_store(lua_State *L, int idx) {
    ipfsrt_memstore **m = luaL_checkudata(L, idx, IPFSRT_LUA_BLOCKSTORE);
    if (!*m) ipfsrt_lua_raise_arg(L, "block store is closed");
    return m;
}

ipfsrt_memstore **ipfsrt_lua_new_blockstore(lua_State *L) {
    ipfsrt_memstore **m = lua_newuserdatauv(L, sizeof *m, 0);
    *m = NULL;
    luaL_setmetatable(L, IPFSRT_LUA_BLOCKSTORE);
    ipfsrt_error err;
    if (ipfsrt_memstore_new(m, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    return m;
}

static int blockstore_new(lua_State *L) {
    ipfsrt_lua_new_blockstore(L);
    return 1;
}

/* store:put(cid, bytes): verified, then kept */
static int store_put(lua_State *L) {
    ipfsrt_memstore *m = *check_store(L, 1);
    ipfsrt_cid tmp;
    const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, 2, &tmp);
    size_t n;
    const char *data = luaL_checklstring(L, 3, &n);
    ipfsrt_error err;
    if (ipfsrt_memstore_put(m, cid, (const uint8_t *)data, n, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int store_get(lua_State *L) {
    ipfsrt_blocksource src;
    ipfsrt_lua_check_source(L, 1, &src);
    ipfsrt_cid tmp;
    const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, 2, &tmp);
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_blocksource_get(&src, cid, &ref, &err);
    if (st == IPFSRT_ENOT_FOUND) return 0;
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_pushlstring(L, (const char *)ref.data, ref.len);
    ipfsrt_blocksource_release(&src, &ref);
    return 1;
}

static int store_count(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)ipfsrt_memstore_count(*check_store(L, 1)));
    return 1;
}

static int store_gc(lua_State *L) {
    ipfsrt_memstore **m = luaL_checkudata(L, 1, IPFSRT_LUA_BLOCKSTORE);
    ipfsrt_memstore_free(*m);
    *m = NULL;
    return 0;
}

void ipfsrt_lua_check_source(lua_State *L, int idx, ipfsrt_blocksource *src) {
    ipfsrt_car_file **car = luaL_testudata(L, idx, IPFSRT_LUA_CAR_FILE);
    if (car && *car) {
        ipfsrt_blocksource_car(src, *car);
        return;
    }
    ipfsrt_memstore **m = luaL_testudata(L, idx, IPFSRT_LUA_BLOCKSTORE);
    if (m && *m) {
        ipfsrt_blocksource_memstore(src, *m);
        return;
    }
    ipfsrt_lua_raise_arg(L, "argument #%d: expected an open CAR file or a block store, got %s",
                         idx, luaL_typename(L, idx));
}

void ipfsrt_lua_open_blockstore(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"put", store_put}, {"get", store_get}, {"count", store_count}, {NULL, NULL}};
    ipfsrt_lua_class(L, IPFSRT_LUA_BLOCKSTORE, methods, store_gc, NULL);
    lua_pushcfunction(L, blockstore_new);
    lua_setfield(L, -2, "blockstore");
}
