/* Zarr stores for Lua: store_open(url, client|nil, writable) over the C
 * stores, store_lua(table, name) over a table with get(key) (bytes, or nil
 * when absent) and optionally list(prefix) (names). Methods: get, list_dir,
 * put, erase, info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lua_zarr.h"

struct ipfsrt_lua_store_ctx {
    lua_State *L;
    int table_ref;
    char error[600]; /* the first error the table's functions raised in a call */
};

ipfsrt_lua_zstore *ipfsrt_lua_check_zstore(lua_State *L, int idx) {
    ipfsrt_lua_zstore *zs = luaL_checkudata(L, idx, IPFSRT_LUA_ZARR_STORE);
    if (!zs->s) ipfsrt_lua_raise_arg(L, "the store is closed");
    return zs;
}

void ipfsrt_lua_zstore_enter(lua_State *L, ipfsrt_lua_zstore *zs) {
    if (zs->lc) ipfsrt_lua_client_enter(L, zs->lc);
    if (zs->lua) {
        zs->lua->L = L;
        zs->lua->error[0] = '\0';
    }
}

void ipfsrt_lua_zstore_leave(lua_State *L, ipfsrt_lua_zstore *zs, ipfsrt_status st, const ipfsrt_error *err) {
    if (zs->lua && zs->lua->error[0]) {
        if (zs->lc) ipfsrt_lua_client_leave(L, zs->lc, IPFSRT_OK, NULL);
        ipfsrt_error e;
        ipfsrt_fail(&e, IPFSRT_ECANCELED, -1, "%s", zs->lua->error);
        ipfsrt_lua_raise(L, &e);
    }
    if (zs->lc) ipfsrt_lua_client_leave(L, zs->lc, st, err);
    else if (st != IPFSRT_OK) ipfsrt_lua_raise(L, err);
}

/* ------------------------------------------------------ a store in Lua */

/* Calls table[method](table, arg) with nresults results; false (error kept)
 * when it raised. */
/* table[method](table, arg), the method looked up inside the protected call
 * (a table's __index may raise too). */
static int call_method(lua_State *L) {
    lua_getfield(L, 1, lua_tostring(L, 2));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_call(L, 2, LUA_MULTRET); /* the caller's lua_pcall keeps as many results as it wants */
    return lua_gettop(L) - 3;
}

static bool call_table(ipfsrt_lua_store_ctx *c, const char *method, const char *arg, int nresults) {
    lua_State *L = c->L;
    lua_pushcfunction(L, call_method);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->table_ref);
    lua_pushstring(L, method);
    lua_pushstring(L, arg);
    if (lua_pcall(L, 3, nresults, 0) == LUA_OK) return true;
    char msg[400];
    if (!c->error[0])
        snprintf(c->error, sizeof c->error, "store %s: %s", method, ipfsrt_lua_describe(L, -1, msg, sizeof msg));
    lua_pop(L, 1);
    return false;
}

static ipfsrt_status lua_get_one(ipfsrt_lua_store_ctx *c, const ipfsrt_range_request *req,
                                 ipfsrt_range_result *r) {
    lua_State *L = c->L;
    if (!call_table(c, "get", req->key, 1)) return ipfsrt_fail(&r->error, IPFSRT_ECANCELED, -1, "%s", c->error);
    size_t len = 0;
    if (lua_isnil(L, -1)) return ipfsrt_fail(&r->error, IPFSRT_ENOT_FOUND, -1, "%s: not in the store", req->key);
    const char *bytes = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL; /* a number is no bytes */
    if (!bytes)
        return ipfsrt_fail(&r->error, IPFSRT_EBAD_ARGUMENT, -1, "store get(\"%s\") returned neither bytes nor nil", req->key);
    uint64_t offset = req->from_end ? (len > req->length ? len - req->length : 0) : req->offset;
    if (offset > len)
        return ipfsrt_fail(&r->error, IPFSRT_EBAD_RANGE, -1, "%s: offset %llu is past its %zu bytes", req->key,
                           (unsigned long long)offset, len);
    r->data = (const uint8_t *)bytes + offset;
    r->len = len - (size_t)offset;
    if (req->length < r->len) r->len = (size_t)req->length;
    return IPFSRT_OK;
}

static ipfsrt_status lua_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                  ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    ipfsrt_lua_store_ctx *c = ctx;
    for (size_t i = 0; i < n; i++) {
        int top = lua_gettop(c->L);
        ipfsrt_range_result r = {.index = i, .key = requests[i].key, .object_size = UINT64_MAX};
        r.status = lua_get_one(c, &requests[i], &r);
        if (r.status == IPFSRT_ECANCELED) return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", c->error);
        ipfsrt_status st = fn(user, &r, err); /* the bytes stay on the stack until it returns */
        lua_settop(c->L, top);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static ipfsrt_status lua_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                  ipfsrt_error *err) {
    ipfsrt_lua_store_ctx *c = ctx;
    lua_State *L = c->L;
    if (!call_table(c, "list", prefix, 1)) return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", c->error);
    ipfsrt_status st = IPFSRT_OK;
    if (!lua_istable(L, -1)) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "store list(\"%s\") returned no list", prefix);
    for (lua_Integer i = 1; st == IPFSRT_OK && lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
        size_t len = 0;
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        ipfsrt_zarr_store_entry entry = {name && strlen(name) == len ? name : NULL, UINT64_MAX, false, NULL};
        st = entry.name ? fn(user, &entry, err)
                        : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "store list: entry %lld is not a name", (long long)i);
        lua_pop(L, 1);
    }
    lua_settop(L, lua_gettop(L) - (st == IPFSRT_OK ? 2 : 1));
    return st;
}

static void lua_store_free(void *ctx) {
    ipfsrt_lua_store_ctx *c = ctx;
    free(c);
}

static const ipfsrt_zarr_store_ops lua_reader = {sizeof(ipfsrt_zarr_store_ops), "lua", false, lua_get_many, NULL, NULL, NULL, lua_store_free, NULL};
static const ipfsrt_zarr_store_ops lua_lister = {sizeof(ipfsrt_zarr_store_ops), "lua", false, lua_get_many, lua_list_dir, NULL, NULL, lua_store_free, NULL};

/* ------------------------------------------------------------- binding */

static int store_gc(lua_State *L) {
    ipfsrt_lua_zstore *zs = luaL_checkudata(L, 1, IPFSRT_LUA_ZARR_STORE);
    if (zs->lua) luaL_unref(L, LUA_REGISTRYINDEX, zs->lua->table_ref);
    ipfsrt_zarr_store_free(zs->s);
    zs->s = NULL;
    zs->lua = NULL;
    return 0;
}

static ipfsrt_lua_zstore *push_store(lua_State *L) {
    ipfsrt_lua_zstore *zs = lua_newuserdatauv(L, sizeof *zs, 1);
    memset(zs, 0, sizeof *zs);
    luaL_setmetatable(L, IPFSRT_LUA_ZARR_STORE);
    return zs;
}

/* store_open(url, client | nil, writable[, s3 options[, allow_unverified]]) */
static int zarr_store_open(lua_State *L) {
    const char *url = ipfsrt_lua_check_name(L, 1);
    ipfsrt_lua_client *lc = lua_isnoneornil(L, 2) ? NULL : luaL_checkudata(L, 2, IPFSRT_LUA_CLIENT);
    if (lc && !lc->c) return ipfsrt_lua_raise_arg(L, "the client is closed");
    ipfsrt_zarr_store_options opts = {.size = sizeof opts, .client = lc ? lc->c : NULL, .writable = lua_toboolean(L, 3),
                                      .allow_unverified = lua_toboolean(L, 5)};
    ipfsrt_s3_options s3;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        ipfsrt_lua_s3_options(L, 4, &s3);
        opts.s3_options = &s3;
    }
    ipfsrt_lua_zstore *zs = push_store(L);
    if (lc) {
        lua_pushvalue(L, 2);
        lua_setiuservalue(L, -2, 1);
    }
    ipfsrt_error err;
    if (ipfsrt_zarr_store_open(&zs->s, url, &opts, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    zs->lc = lc;
    return 1;
}

/* store_version(old store[, pack settings]) -> a new version of it (the old
 * store is kept alive as its user value) */
static int zarr_store_version(lua_State *L) {
    ipfsrt_lua_zstore *old = ipfsrt_lua_check_zstore(L, 1);
    if (lua_isnoneornil(L, 2)) lua_newtable(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    ipfsrt_pack_options o;
    ipfsrt_lua_pack_options(L, 2, &o);
    ipfsrt_lua_zstore *zs = push_store(L);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_new_version(&zs->s, old->s, &o, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    zs->lc = old->lc;
    return 1;
}

/* s:commit([car path]) -> the new root, and without a path the new blocks in
 * a block store */
static int store_commit(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = luaL_optstring(L, 2, NULL);
    ipfsrt_memstore **m = path ? NULL : ipfsrt_lua_new_blockstore(L);
    ipfsrt_cid root;
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = path ? ipfsrt_zarr_store_commit_car(zs->s, path, &root, &err)
                            : ipfsrt_zarr_store_commit(zs->s, ipfsrt_lua_blockstore_sink, *m, &root, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    ipfsrt_lua_push_cid(L, &root);
    if (m) lua_insert(L, -2);
    return m ? 2 : 1;
}

/* store_cars({car, ...}[, path]): CARs read as one, the first one's root */
static int zarr_store_cars(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *path = luaL_optstring(L, 2, NULL);
    size_t n = (size_t)luaL_len(L, 1);
    if (n == 0 || n > 64) return ipfsrt_lua_raise_arg(L, "1 to 64 CAR files");
    const char *paths[64];
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        if (!lua_isstring(L, -1)) return ipfsrt_lua_raise_arg(L, "CAR %zu is not a path", i + 1);
        paths[i] = lua_tostring(L, -1); /* the table keeps it */
        lua_pop(L, 1);
    }
    ipfsrt_lua_zstore *zs = push_store(L);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_new_cars(&zs->s, paths, n, path, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* store_diff(old store, new store) -> {{path, kind, old_cid?, new_cid?, ...}, ...} */
static int zarr_store_diff(lua_State *L) {
    ipfsrt_lua_zstore *old = ipfsrt_lua_check_zstore(L, 1), *new_store = ipfsrt_lua_check_zstore(L, 2);
    lua_settop(L, 2);
    lua_newtable(L);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, old);
    if (new_store->lc != old->lc) ipfsrt_lua_zstore_enter(L, new_store);
    ipfsrt_status st = ipfsrt_zarr_store_diff(old->s, new_store->s, ipfsrt_lua_add_change, L, &err);
    if (new_store->lc != old->lc) ipfsrt_lua_zstore_leave(L, new_store, IPFSRT_OK, NULL);
    ipfsrt_lua_zstore_leave(L, old, st, &err);
    return 1;
}

/* store_lua(table, name) */
static int zarr_store_lua(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *name = ipfsrt_lua_opt_name(L, 2, "a Lua store");
    lua_getfield(L, 1, "list");
    bool listable = !lua_isnil(L, -1);
    lua_pop(L, 1);
    ipfsrt_lua_zstore *zs = push_store(L);
    ipfsrt_lua_store_ctx *c = calloc(1, sizeof *c);
    if (!c) return luaL_error(L, "out of memory");
    lua_pushvalue(L, 1);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    c->table_ref = ref;
    c->L = L;
    ipfsrt_error err;
    if (ipfsrt_zarr_store_new(&zs->s, listable ? &lua_lister : &lua_reader, c, name, &err) != IPFSRT_OK) {
        luaL_unref(L, LUA_REGISTRYINDEX, ref); /* c was freed with the failed store */
        return ipfsrt_lua_raise(L, &err);
    }
    zs->lua = c;
    return 1;
}

/* s:get(key[, offset[, length]]) -> bytes, or nil when absent; a negative
 * offset -n: the last n bytes */
static int store_get(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *key = ipfsrt_lua_check_name(L, 2);
    lua_Integer off = luaL_optinteger(L, 3, 0), len = luaL_optinteger(L, 4, -1);
    if (off == LUA_MININTEGER) return ipfsrt_lua_raise_arg(L, "offset out of range");
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = off < 0 ? ipfsrt_zarr_store_get_suffix(zs->s, key, (uint64_t)-off, &b, &err)
                               : ipfsrt_zarr_store_get_range(zs->s, key, (uint64_t)off,
                                                             len < 0 ? UINT64_MAX : (uint64_t)len, &b, &err);
    if (st == IPFSRT_OK) lua_pushlstring(L, b.data ? (const char *)b.data : "", b.len);
    ipfsrt_buf_free(&b);
    if (st == IPFSRT_ENOT_FOUND) st = IPFSRT_OK, lua_pushnil(L);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

static ipfsrt_status add_entry(void *user, const ipfsrt_zarr_store_entry *e, ipfsrt_error *err) {
    lua_State *L = user;
    (void)err;
    lua_createtable(L, 0, 3);
    lua_pushstring(L, e->name);
    lua_setfield(L, -2, "name");
    if (e->size != UINT64_MAX) {
        lua_pushinteger(L, (lua_Integer)e->size);
        lua_setfield(L, -2, "size");
    }
    lua_pushboolean(L, e->is_folder);
    lua_setfield(L, -2, "folder");
    if (e->cid) {
        char text[IPFSRT_CID_STR_MAX];
        lua_pushstring(L, ipfsrt_cid_to_string(e->cid, text));
        lua_setfield(L, -2, "cid");
    }
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    return IPFSRT_OK;
}

/* s:list_dir([prefix]) -> {{name =, size =, folder =, cid =}, ...}: size (the
 * bytes under it) when the store says, folder when it knows, cid (a string)
 * from content-addressed stores */
static int store_list_dir(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *prefix = ipfsrt_lua_opt_name(L, 2, "");
    lua_newtable(L);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_store_list_dir(zs->s, prefix, add_entry, L, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* s:know(keys, cids): reads of these keys ask for these CIDs (strings or
 * CIDs) straight away; stores that are not content-addressed ignore it */
static int store_know(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    if (luaL_len(L, 3) != n) return ipfsrt_lua_raise_arg(L, "know: as many CIDs as keys");
    ipfsrt_error err;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 2, i);
        lua_geti(L, 3, i);
        const char *key = ipfsrt_lua_check_name(L, -2);
        ipfsrt_cid tmp;
        const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, -1, &tmp);
        if (ipfsrt_zarr_store_know(zs->s, key, cid, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
        lua_pop(L, 2);
    }
    return 0;
}

/* s:put(key, bytes) */
static int store_put(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *key = ipfsrt_lua_check_name(L, 2);
    size_t len;
    const char *bytes = luaL_checklstring(L, 3, &len);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_put(zs->s, key, bytes, len, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* s:erase(key) */
static int store_erase(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_erase(zs->s, ipfsrt_lua_check_name(L, 2), &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* s:begin_change([wait seconds]): see ipfsrt_zarr_store_begin */
static int store_begin_change(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_begin(zs->s, luaL_optnumber(L, 2, 300), &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* s:end_change(commit) */
static int store_end_change(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    ipfsrt_error err;
    if (ipfsrt_zarr_store_end(zs->s, lua_toboolean(L, 2), &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* s:info() -> {url, kind, verified, writable, listable} */
static int store_info(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, ipfsrt_zarr_store_url(zs->s));
    lua_setfield(L, -2, "url");
    lua_pushstring(L, ipfsrt_zarr_store_kind(zs->s));
    lua_setfield(L, -2, "kind");
    lua_pushboolean(L, ipfsrt_zarr_store_verified(zs->s));
    lua_setfield(L, -2, "verified");
    lua_pushboolean(L, ipfsrt_zarr_store_writable(zs->s));
    lua_setfield(L, -2, "writable");
    lua_pushboolean(L, ipfsrt_zarr_store_listable(zs->s));
    lua_setfield(L, -2, "listable");
    return 1;
}

/* path_kind(path) -> "none" | "folder" | "file" | "link" | "other": what
 * stands at a path, links not followed (where a write would land). */
static int zarr_path_kind(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    struct stat sb;
    const char *kind = lstat(path, &sb) != 0 ? "none"
                       : S_ISLNK(sb.st_mode) ? "link"
                       : S_ISDIR(sb.st_mode) ? "folder"
                       : S_ISREG(sb.st_mode) ? "file"
                                             : "other";
    lua_pushstring(L, kind);
    return 1;
}

void ipfsrt_lua_zarr_store_functions(lua_State *L) {
    static const luaL_Reg methods[] = {{"get", store_get},     {"list_dir", store_list_dir}, {"put", store_put},
                                       {"erase", store_erase}, {"info", store_info},         {"know", store_know},
                                       {"commit", store_commit}, {"begin_change", store_begin_change},
                                       {"end_change", store_end_change}, {NULL, NULL}};
    ipfsrt_lua_class(L, IPFSRT_LUA_ZARR_STORE, methods, store_gc, NULL);
    lua_pushcfunction(L, zarr_store_open);
    lua_setfield(L, -2, "store_open");
    lua_pushcfunction(L, zarr_store_lua);
    lua_setfield(L, -2, "store_lua");
    lua_pushcfunction(L, zarr_store_version);
    lua_setfield(L, -2, "store_version");
    lua_pushcfunction(L, zarr_store_cars);
    lua_setfield(L, -2, "store_cars");
    lua_pushcfunction(L, zarr_store_diff);
    lua_setfield(L, -2, "store_diff");
    lua_pushcfunction(L, zarr_path_kind);
    lua_setfield(L, -2, "path_kind");
}
