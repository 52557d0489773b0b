/* ipfsrt.varint, ipfsrt.multibase, ipfsrt.multihash */
#include <stdlib.h>

#include "bindings.h"

static int varint_encode(lua_State *L) {
    lua_Integer v = luaL_checkinteger(L, 1);
    if (v < 0) return ipfsrt_lua_raise_arg(L, "varint value must be non-negative");
    uint8_t out[IPFSRT_VARINT_MAX_BYTES];
    size_t n = ipfsrt_varint_encode((uint64_t)v, out);
    lua_pushlstring(L, (const char *)out, n);
    return 1;
}

/* varint.decode(bytes[, pos = 1]) -> value, next position */
static int varint_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_Integer pos = luaL_optinteger(L, 2, 1);
    if (pos < 1 || (size_t)pos > n + 1) return ipfsrt_lua_raise_arg(L, "position out of range");
    uint64_t v;
    size_t used;
    ipfsrt_error err;
    if (ipfsrt_varint_decode((const uint8_t *)s + pos - 1, n - (size_t)(pos - 1), &v, &used,
                             &err) != IPFSRT_OK) {
        if (err.offset >= 0) err.offset += pos - 1;
        return ipfsrt_lua_raise(L, &err);
    }
    lua_pushinteger(L, (lua_Integer)v);
    lua_pushinteger(L, pos + (lua_Integer)used);
    return 2;
}

static int multibase_encode(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    ipfsrt_base base;
    ipfsrt_error err;
    if (ipfsrt_multibase_from_name(name, &base, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    size_t cap = ipfsrt_multibase_encoded_size(base, n);
    if (!cap) return ipfsrt_lua_raise_arg(L, "input too large");
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, cap);
    size_t len;
    if (ipfsrt_multibase_encode(base, (const uint8_t *)data, n, out, cap, &len, &err) !=
        IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    luaL_pushresultsize(&b, len);
    return 1;
}

/* multibase.decode(s) -> bytes, base name */
static int multibase_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    uint8_t *out = (uint8_t *)luaL_buffinitsize(L, &b, n ? n : 1);
    size_t len;
    ipfsrt_base base;
    ipfsrt_error err;
    if (ipfsrt_multibase_decode(s, n, out, n ? n : 1, &len, &base, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    luaL_pushresultsize(&b, len);
    lua_pushstring(L, ipfsrt_multibase_name(base));
    return 2;
}

/* multihash.sum(name, bytes[, length]) -> multihash bytes */
static int multihash_sum(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    lua_Integer length = luaL_optinteger(L, 3, 0);
    if (length < 0 || length > IPFSRT_MH_MAX_DIGEST)
        return ipfsrt_lua_raise_arg(L, "digest length %d out of range", (int)length);
    uint64_t code;
    ipfsrt_error err;
    ipfsrt_multihash_bytes out;
    if (ipfsrt_multihash_code(name, &code, &err) != IPFSRT_OK ||
        ipfsrt_multihash_sum(code, (const uint8_t *)data, n, (size_t)length, &out, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    lua_pushlstring(L, (const char *)out.data, out.len);
    return 1;
}

/* multihash.decode(bytes) -> {name, code, length, digest} */
static int multihash_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    ipfsrt_multihash mh;
    size_t used;
    ipfsrt_error err;
    if (ipfsrt_multihash_parse((const uint8_t *)s, n, &mh, &used, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    if (used != n) {
        ipfsrt_error_clear(&err);
        err.code = IPFSRT_ETRAILING_DATA;
        err.offset = (int64_t)used;
        snprintf(err.message, sizeof err.message, "%zu bytes after the multihash", n - used);
        return ipfsrt_lua_raise(L, &err);
    }
    lua_createtable(L, 0, 4);
    const char *name = ipfsrt_multihash_name(mh.code);
    if (name) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, "name");
    }
    lua_pushinteger(L, (lua_Integer)mh.code);
    lua_setfield(L, -2, "code");
    lua_pushinteger(L, (lua_Integer)mh.digest_len);
    lua_setfield(L, -2, "length");
    lua_pushlstring(L, (const char *)mh.digest, mh.digest_len);
    lua_setfield(L, -2, "digest");
    return 1;
}

void ipfsrt_lua_open_multiformats(lua_State *L) {
    static const luaL_Reg varint[] = {{"encode", varint_encode}, {"decode", varint_decode},
                                      {NULL, NULL}};
    static const luaL_Reg multibase[] = {{"encode", multibase_encode},
                                         {"decode", multibase_decode}, {NULL, NULL}};
    static const luaL_Reg multihash[] = {{"sum", multihash_sum}, {"decode", multihash_decode},
                                         {NULL, NULL}};
    luaL_newlib(L, varint);
    lua_setfield(L, -2, "varint");
    luaL_newlib(L, multibase);
    lua_setfield(L, -2, "multibase");
    luaL_newlib(L, multihash);
    lua_setfield(L, -2, "multihash");
}
