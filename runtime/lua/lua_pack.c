/* ipfsrt.pack(path[, opts]): a file or tree imported as UnixFS, into a CAR or
 * a block store. */
#include "bindings.h"

ipfsrt_status ipfsrt_lua_blockstore_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    return ipfsrt_memstore_put(user, cid, data, len, err);
}

static lua_Integer size_field(lua_State *L, int t, const char *key, lua_Integer dflt) {
    lua_Integer v = ipfsrt_lua_opt_int(L, t, key, dflt);
    if (v < 0 || v > UINT32_MAX) ipfsrt_lua_raise_arg(L, "pack: %s is out of range", key);
    return v;
}

void ipfsrt_lua_pack_options(lua_State *L, int t, ipfsrt_pack_options *o) {
    ipfsrt_error err;
    if (ipfsrt_pack_preset(ipfsrt_lua_opt_string(L, t, "preset", "ipfs-car"), o, &err) != IPFSRT_OK)
        ipfsrt_lua_raise(L, &err);
    o->cid_version = (int)size_field(L, t, "cid_version", o->cid_version);
    o->chunk_size = (size_t)size_field(L, t, "chunk_size", (lua_Integer)o->chunk_size);
    o->max_links = (size_t)size_field(L, t, "max_links", (lua_Integer)o->max_links);
    o->hamt_fanout = (unsigned)size_field(L, t, "fanout", o->hamt_fanout);
    o->raw_leaves = ipfsrt_lua_opt_bool(L, t, "raw_leaves", o->raw_leaves);
    o->wrap = ipfsrt_lua_opt_bool(L, t, "wrap", o->wrap);
    o->hidden = ipfsrt_lua_opt_bool(L, t, "hidden", o->hidden);
    const char *rule = ipfsrt_lua_opt_string(L, t, "hamt", NULL);
    if (rule && ipfsrt_pack_parse_hamt_rule(rule, o, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
}

/* ipfsrt.pack(path[, opts]) -> root cid[, blockstore]
 * opts: preset ("ipfs-car", "kubo", "kubo-v1-2025"; default ipfs-car), output (CAR
 * path; without it the blocks are returned in a block store), car_version,
 * cid_version, chunk_size, max_links, raw_leaves, hamt, fanout, wrap, hidden */
static int l_pack(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    if (lua_isnoneornil(L, 2)) lua_newtable(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    ipfsrt_pack_options o;
    ipfsrt_lua_pack_options(L, 2, &o);
    const char *output = ipfsrt_lua_opt_string(L, 2, "output", NULL);
    int car_version = (int)size_field(L, 2, "car_version", 1);
    ipfsrt_cid root;
    ipfsrt_error err;
    if (output) {
        if (ipfsrt_pack_to_car(path, &o, output, car_version, &root, &err) != IPFSRT_OK)
            return ipfsrt_lua_raise(L, &err);
        ipfsrt_lua_push_cid(L, &root);
        return 1;
    }
    ipfsrt_memstore **m = ipfsrt_lua_new_blockstore(L);
    if (ipfsrt_pack(path, &o, ipfsrt_lua_blockstore_sink, *m, &root, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &root);
    lua_insert(L, -2);
    return 2;
}

void ipfsrt_lua_open_pack(lua_State *L) {
    lua_pushcfunction(L, l_pack);
    lua_setfield(L, -2, "pack");
}
