/* S3 from Lua: the options table every S3 user takes, and uploads of files
 * (ipfsrt.s3_put_file; lua/ipfsrt/s3.lua checks the arguments). */
#include <stdlib.h>
#include <string.h>

#include "bindings.h"

void ipfsrt_lua_s3_options(lua_State *L, int idx, ipfsrt_s3_options *o) {
    ipfsrt_s3_options_init(o);
    o->endpoint = ipfsrt_lua_opt_string(L, idx, "endpoint", NULL);
    o->region = ipfsrt_lua_opt_string(L, idx, "region", NULL);
    o->access_key = ipfsrt_lua_opt_string(L, idx, "access_key", NULL);
    o->secret_key = ipfsrt_lua_opt_string(L, idx, "secret_key", NULL);
    o->session_token = ipfsrt_lua_opt_string(L, idx, "session_token", NULL);
    lua_getfield(L, idx, "anonymous");
    o->anonymous = lua_isnil(L, -1) ? 0 : lua_toboolean(L, -1) ? 1 : -1;
    lua_pop(L, 1);
    o->forbidden_is_absent = ipfsrt_lua_opt_bool(L, idx, "forbidden_is_absent", false);
    o->concurrency = (unsigned)ipfsrt_lua_opt_int(L, idx, "concurrency", 0);
    o->retries = (unsigned)ipfsrt_lua_opt_int(L, idx, "retries", 0);
    o->backoff_s = ipfsrt_lua_opt_number(L, idx, "backoff", 0);
    lua_Integer part = ipfsrt_lua_opt_int(L, idx, "part_size", 0);
    o->part_size = part > 0 ? (uint64_t)part : 0;
}

/* s3_put_file(url, path[, options]) */
static int l_s3_put_file(lua_State *L) {
    size_t len;
    const char *url = luaL_checklstring(L, 1, &len);
    const char *path = luaL_checkstring(L, 2);
    ipfsrt_s3_options o, *opts = NULL;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        ipfsrt_lua_s3_options(L, 3, &o);
        opts = &o;
    }
    char bucket[128], *key = NULL;
    const char *k;
    size_t key_len;
    ipfsrt_s3 *s3 = NULL;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_s3_url_split(url, len, bucket, sizeof bucket, &k, &key_len, &err);
    if (st == IPFSRT_OK && !(key = strndup(k, key_len))) st = ipfsrt_fail(&err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) st = ipfsrt_s3_new(&s3, bucket, opts, &err);
    if (st == IPFSRT_OK) st = ipfsrt_s3_put_file(s3, key, path, &err);
    ipfsrt_s3_free(s3);
    free(key);
    return st == IPFSRT_OK ? 0 : ipfsrt_lua_raise(L, &err);
}

void ipfsrt_lua_open_s3(lua_State *L) {
    ipfsrt_s3_stores_enable(); /* s3:// and remote CARs for ipfsrt.zarr.open */
    ipfsrt_lua_push_core(L); /* for lua/ipfsrt/s3.lua */
    lua_pushcfunction(L, l_s3_put_file);
    lua_setfield(L, -2, "s3_put_file");
    lua_pop(L, 1);
    lua_createtable(L, 0, 2); /* ipfsrt.s3: lua/ipfsrt/s3.lua */
    ipfsrt_lua_push_lua_function(L, "ipfsrt.s3", "put_file");
    lua_setfield(L, -2, "put_file");
    ipfsrt_lua_push_lua_function(L, "ipfsrt.s3", "options");
    lua_setfield(L, -2, "options");
    lua_setfield(L, -2, "s3");
}
