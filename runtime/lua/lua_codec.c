/* ipfsrt.codec: Zarr's chunk codecs for Lua scripts (tests, tools, stores
 * written in Lua). new(name[, config][, itemsize]) gives a codec with
 * encode(s) and decode(s[, size]). */

#include "bindings.h"

#define CODEC "ipfsrt.codec"
#define DECODE_LIMIT ((size_t)1 << 30) /* for decode(s) without a size */

static ipfsrt_codec **check_codec(lua_State *L, int idx) {
    ipfsrt_codec **c = luaL_checkudata(L, idx, CODEC);
    if (!*c) luaL_argerror(L, idx, "codec already freed");
    return c;
}

static int codec_gc(lua_State *L) {
    ipfsrt_codec **c = luaL_checkudata(L, 1, CODEC);
    ipfsrt_codec_free(*c);
    *c = NULL;
    return 0;
}

/* new(name[, config][, itemsize]): config a table of the codec's JSON fields */
static int codec_new(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    int size_at = lua_isinteger(L, 2) ? 2 : 3;
    lua_Integer itemsize = luaL_optinteger(L, size_at, 1);
    if (itemsize < 1 || itemsize > 1 << 20) return ipfsrt_lua_raise_arg(L, "itemsize %lld", (long long)itemsize);
    const char *config = NULL;
    if (lua_istable(L, 2) && !(config = ipfsrt_lua_push_json_text(L, 2)))
        return ipfsrt_lua_raise_arg(L, "the configuration cannot be written as JSON");
    ipfsrt_codec **c = lua_newuserdatauv(L, sizeof *c, 0);
    *c = NULL;
    luaL_setmetatable(L, CODEC);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_codec_new(c, name, config, (size_t)itemsize, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* Results are built in a C buffer and then copied once into a Lua string. */
static int push_buf(lua_State *L, ipfsrt_buf *b, ipfsrt_status st, ipfsrt_error *err) {
    if (st == IPFSRT_OK && b->failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st != IPFSRT_OK) {
        ipfsrt_buf_free(b);
        return ipfsrt_lua_raise(L, err);
    }
    lua_pushlstring(L, b->data ? (const char *)b->data : "", b->len);
    ipfsrt_buf_free(b);
    return 1;
}

static int codec_encode(lua_State *L) {
    ipfsrt_codec **c = check_codec(L, 1);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    ipfsrt_error err;
    ipfsrt_error_clear(&err);
    return push_buf(L, &out, ipfsrt_codec_encode(*c, s, n, &out, &err), &err);
}

/* decode(s[, size]): exactly size bytes when given */
static int codec_decode(lua_State *L) {
    ipfsrt_codec **c = check_codec(L, 1);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    ipfsrt_error err;
    ipfsrt_error_clear(&err);
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    if (lua_isnoneornil(L, 3)) return push_buf(L, &out, ipfsrt_codec_decode_any(*c, s, n, DECODE_LIMIT, &out, &err), &err);
    lua_Integer size = luaL_checkinteger(L, 3);
    if (size < 0 || (uint64_t)size > DECODE_LIMIT) return ipfsrt_lua_raise_arg(L, "size %lld", (long long)size);
    uint8_t *at = ipfsrt_buf_reserve(&out, (size_t)size);
    ipfsrt_status st = at ? ipfsrt_codec_decode(*c, s, n, at, (size_t)size, &err)
                          : ipfsrt_fail(&err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %lld bytes", (long long)size);
    if (st == IPFSRT_OK) out.len = (size_t)size;
    return push_buf(L, &out, st, &err);
}

static int codec_id(lua_State *L) {
    lua_pushstring(L, ipfsrt_codec_id(*check_codec(L, 1)));
    return 1;
}

/* crc32c(s[, crc]) */
static int l_crc32c(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushinteger(L, ipfsrt_crc32c((uint32_t)luaL_optinteger(L, 2, 0), s, n));
    return 1;
}

void ipfsrt_lua_open_codec(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"encode", codec_encode}, {"decode", codec_decode}, {"id", codec_id}, {NULL, NULL}};
    static const luaL_Reg fns[] = {{"new", codec_new}, {"crc32c", l_crc32c}, {NULL, NULL}};
    ipfsrt_lua_class(L, CODEC, methods, codec_gc, NULL);
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "codec");
}
