/* ipfsrt.cid: CID objects (userdata holding an ipfsrt_cid value). */
#include <string.h>

#include "bindings.h"

void ipfsrt_lua_push_cid(lua_State *L, const ipfsrt_cid *cid) {
    ipfsrt_cid *u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = *cid;
    luaL_setmetatable(L, IPFSRT_LUA_CID);
}

static ipfsrt_cid *to_cid(lua_State *L, int idx) {
    return luaL_testudata(L, idx, IPFSRT_LUA_CID);
}

const ipfsrt_cid *ipfsrt_lua_check_cid(lua_State *L, int idx, ipfsrt_cid *tmp) {
    ipfsrt_cid *c = to_cid(L, idx);
    if (c) return c;
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        ipfsrt_error err;
        if (ipfsrt_cid_parse(tmp, s, n, NULL, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
        return tmp;
    }
    ipfsrt_lua_raise_arg(L, "argument #%d: expected a cid or a CID string, got %s", idx,
                         luaL_typename(L, idx));
    return NULL;
}

/* cid.parse(s) -> cid, name of the multibase it was written in */
static int cid_parse(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    ipfsrt_cid cid;
    ipfsrt_base base;
    ipfsrt_error err;
    if (ipfsrt_cid_parse(&cid, s, n, &base, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &cid);
    lua_pushstring(L, ipfsrt_multibase_name(base));
    return 2;
}

static int cid_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    ipfsrt_cid cid;
    ipfsrt_error err;
    if (ipfsrt_cid_from_bytes(&cid, (const uint8_t *)s, n, NULL, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &cid);
    return 1;
}

static uint64_t check_code(lua_State *L, int idx, bool is_codec) {
    if (lua_isinteger(L, idx)) return (uint64_t)lua_tointeger(L, idx);
    const char *name = luaL_checkstring(L, idx);
    uint64_t code;
    ipfsrt_error err;
    ipfsrt_status st = is_codec ? ipfsrt_codec_code(name, &code, &err)
                                : ipfsrt_multihash_code(name, &code, &err);
    if (st != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    return code;
}

/* ipfsrt.cid.sum(codec, bytes[, hash = "sha2-256"[, version = 1]]) */
static int cid_sum(lua_State *L) {
    uint64_t codec = check_code(L, 1, true);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    uint64_t hash = lua_isnoneornil(L, 3) ? IPFSRT_MH_SHA2_256 : check_code(L, 3, false);
    int version = (int)luaL_optinteger(L, 4, 1);
    ipfsrt_cid cid;
    ipfsrt_error err;
    if (ipfsrt_cid_sum(&cid, version, codec, hash, (const uint8_t *)data, n, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &cid);
    return 1;
}

/* ipfsrt.cid.new(version, codec, hash, digest) */
static int cid_new(lua_State *L) {
    int version = (int)luaL_checkinteger(L, 1);
    uint64_t codec = check_code(L, 2, true);
    uint64_t hash = check_code(L, 3, false);
    size_t n;
    const char *digest = luaL_checklstring(L, 4, &n);
    ipfsrt_cid cid;
    ipfsrt_error err;
    if (ipfsrt_cid_create(&cid, version, codec, hash, (const uint8_t *)digest, n, &err) !=
        IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &cid);
    return 1;
}

static int cid_tostring(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    char s[IPFSRT_CID_STR_MAX];
    lua_pushstring(L, ipfsrt_cid_to_string(c, s));
    return 1;
}

/* cid .. "/path" and "ipfs://" .. cid: strings, with the CID in its string form */
static int cid_concat(lua_State *L) {
    for (int i = 1; i <= 2; i++) {
        if (luaL_testudata(L, i, IPFSRT_LUA_CID)) {
            lua_pushcfunction(L, cid_tostring);
            lua_pushvalue(L, i);
            lua_call(L, 1, 1);
        } else if (lua_type(L, i) == LUA_TSTRING || lua_type(L, i) == LUA_TNUMBER) {
            lua_pushvalue(L, i);
        } else {
            return luaL_error(L, "attempt to concatenate a CID with a %s value", luaL_typename(L, i));
        }
    }
    lua_concat(L, 2);
    return 1;
}

static int cid_eq(lua_State *L) {
    ipfsrt_cid *a = to_cid(L, 1), *b = to_cid(L, 2);
    lua_pushboolean(L, a && b && ipfsrt_cid_equal(a, b));
    return 1;
}

static int cid_encode(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    const char *name = luaL_optstring(L, 2, c->version == 0 ? "base58btc" : "base32");
    ipfsrt_base base;
    ipfsrt_error err;
    char s[IPFSRT_CID_STR_MAX];
    if (ipfsrt_multibase_from_name(name, &base, &err) != IPFSRT_OK ||
        ipfsrt_cid_format(c, base, s, sizeof s, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    lua_pushstring(L, s);
    return 1;
}

static int cid_bytes(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    lua_pushlstring(L, (const char *)c->bytes, c->len);
    return 1;
}

static int cid_to_v1(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    ipfsrt_cid out;
    ipfsrt_cid_to_v1(c, &out);
    ipfsrt_lua_push_cid(L, &out);
    return 1;
}

static int cid_to_v0(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    ipfsrt_cid out;
    ipfsrt_error err;
    if (ipfsrt_cid_to_v0(c, &out, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &out);
    return 1;
}

/* cid:verify(bytes) -> true, or raises hash_mismatch / unsupported */
static int cid_verify(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    ipfsrt_error err;
    if (ipfsrt_cid_verify(c, (const uint8_t *)data, n, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int cid_index(lua_State *L) {
    ipfsrt_cid *c = luaL_checkudata(L, 1, IPFSRT_LUA_CID);
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "version") == 0) {
        lua_pushinteger(L, c->version);
    } else if (strcmp(key, "codec") == 0) {
        const char *name = ipfsrt_codec_name(c->codec);
        if (name) lua_pushstring(L, name);
        else lua_pushinteger(L, (lua_Integer)c->codec);
    } else if (strcmp(key, "codec_code") == 0) {
        lua_pushinteger(L, (lua_Integer)c->codec);
    } else if (strcmp(key, "digest") == 0) {
        lua_pushlstring(L, (const char *)c->bytes + c->digest_offset, c->digest_len);
    } else if (strcmp(key, "multihash") == 0) {
        lua_createtable(L, 0, 5);
        const char *name = ipfsrt_multihash_name(c->hash_code);
        if (name) lua_pushstring(L, name);
        else lua_pushinteger(L, (lua_Integer)c->hash_code);
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, (lua_Integer)c->hash_code);
        lua_setfield(L, -2, "code");
        lua_pushinteger(L, c->digest_len);
        lua_setfield(L, -2, "length");
        lua_pushlstring(L, (const char *)c->bytes + c->digest_offset, c->digest_len);
        lua_setfield(L, -2, "digest");
        size_t mh_len;
        const uint8_t *mh = ipfsrt_cid_multihash(c, &mh_len);
        lua_pushlstring(L, (const char *)mh, mh_len);
        lua_setfield(L, -2, "bytes");
    } else {
        luaL_getmetatable(L, IPFSRT_LUA_CID);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

void ipfsrt_lua_open_cid(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"encode", cid_encode}, {"bytes", cid_bytes},   {"to_v1", cid_to_v1},
        {"to_v0", cid_to_v0},   {"verify", cid_verify}, {"tostring", cid_tostring},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {
        {"__tostring", cid_tostring}, {"__eq", cid_eq}, {"__index", cid_index},
        {"__concat", cid_concat}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"parse", cid_parse}, {"decode", cid_decode},
                                   {"sum", cid_sum},     {"new", cid_new},
                                   {NULL, NULL}};
    ipfsrt_lua_class_indexed(L, IPFSRT_LUA_CID, meta, methods);
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "cid");
}
