/* The client userdata: ipfsrt.client_new (lua/ipfsrt/client.lua checks the
 * options and loads the policy first) and its methods; ipfsrt.gateways(): the
 * default gateway list. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_client.h"

ipfsrt_lua_client *ipfsrt_lua_check_client(lua_State *L) {
    ipfsrt_lua_client *lc = luaL_checkudata(L, 1, IPFSRT_LUA_CLIENT);
    if (!lc->c) ipfsrt_lua_raise_arg(L, "the client is closed");
    if (lc->busy) return lc; /* a callback looking at stats: keep the call's state */
    lc->L = L;
    lc->callback_error[0] = '\0';
    return lc;
}

ipfsrt_lua_client *ipfsrt_lua_check_idle_client(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_client(L);
    if (lc->busy) ipfsrt_lua_raise_arg(L, "the client is busy with a fetch (called from one of its callbacks)");
    return lc;
}

ipfsrt_status ipfsrt_lua_client_callback_failed(ipfsrt_lua_client *lc, const char *what,
                                                ipfsrt_error *err) {
    lua_State *L = lc->L;
    char msg[400];
    ipfsrt_lua_describe(L, -1, msg, sizeof msg);
    if (!lc->callback_error[0])
        snprintf(lc->callback_error, sizeof lc->callback_error, "%s: %s", what, msg);
    ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", msg);
    lua_pop(L, 1);
    return IPFSRT_ECANCELED;
}

/* Raises err, or the error of a Lua callback that caused it. */
static int raise_call(lua_State *L, ipfsrt_lua_client *lc, const ipfsrt_error *err) {
    if (lc->callback_error[0]) {
        ipfsrt_error e = {.code = IPFSRT_ECANCELED, .offset = -1};
        snprintf(e.message, sizeof e.message, "%s", lc->callback_error);
        ipfsrt_lua_push_error(L, &e);
        return lua_error(L);
    }
    return ipfsrt_lua_raise(L, err);
}

/* After a fetching call: raises its error, or the first error a Lua callback
 * raised during it. Callers release what they hold before. */
static void end_call(lua_State *L, ipfsrt_lua_client *lc, ipfsrt_status st, const ipfsrt_error *err) {
    lc->busy = false;
    if (st != IPFSRT_OK || lc->callback_error[0]) raise_call(L, lc, err);
}

void ipfsrt_lua_client_enter(lua_State *L, ipfsrt_lua_client *lc) {
    if (!lc->c) ipfsrt_lua_raise_arg(L, "the client is closed");
    if (lc->busy) ipfsrt_lua_raise_arg(L, "the client is busy with a fetch (called from one of its callbacks)");
    lc->L = L;
    lc->callback_error[0] = '\0';
    lc->busy = true;
}

void ipfsrt_lua_client_leave(lua_State *L, ipfsrt_lua_client *lc, ipfsrt_status st, const ipfsrt_error *err) {
    end_call(L, lc, st, err);
}

/* -------------------------------------------------------------- client */

static ipfsrt_status progress_cb(void *user, uint64_t done, uint64_t expected, ipfsrt_error *err) {
    ipfsrt_lua_client *lc = user;
    if (lc->progress_ref == LUA_NOREF) return IPFSRT_OK;
    lua_State *L = lc->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lc->progress_ref);
    lua_pushinteger(L, (lua_Integer)done);
    if (expected) lua_pushinteger(L, (lua_Integer)expected);
    else lua_pushnil(L);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) return ipfsrt_lua_client_callback_failed(lc, "progress", err);
    return IPFSRT_OK;
}

static ipfsrt_status check_gateways(lua_State *L, int idx, ipfsrt_gateway_list *list,
                                    ipfsrt_error *err) {
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer n = luaL_len(L, idx);
    ipfsrt_status st = IPFSRT_OK;
    for (lua_Integer i = 1; i <= n && st == IPFSRT_OK; i++) {
        lua_rawgeti(L, idx, i);
        const char *url = lua_tostring(L, -1);
        st = url ? ipfsrt_gateway_list_add(list, url, err)
                 : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "gateways[%d] is not a URL", (int)i);
        lua_pop(L, 1);
    }
    return st;
}

/* The options lua/ipfsrt/client.lua checked; strings stay referenced by opts. */
static void read_options(lua_State *L, int t, ipfsrt_client_options *o) {
    o->no_verify = !ipfsrt_lua_opt_bool(L, t, "verify", true);
    lua_Integer mem = ipfsrt_lua_opt_int(L, t, "cache_memory", -1);
    if (mem >= 0) o->cache_bytes = mem == 0 ? UINT64_MAX : (uint64_t)mem; /* 0: no cache */
    o->cache_dir = ipfsrt_lua_opt_string(L, t, "cache_dir", NULL);
    o->ca_file = ipfsrt_lua_opt_string(L, t, "ca_file", NULL);
    o->trust_cache_dir = ipfsrt_lua_opt_bool(L, t, "cache_trust", false);
    lua_Integer dir_bytes = ipfsrt_lua_opt_int(L, t, "cache_size", 0);
    o->cache_dir_bytes = dir_bytes < 0 ? UINT64_MAX : (uint64_t)dir_bytes; /* -1: no limit */
    o->concurrency = (unsigned)ipfsrt_lua_opt_int(L, t, "concurrency", 0);
    o->max_concurrency = (unsigned)ipfsrt_lua_opt_int(L, t, "max_concurrency", 0);
    o->threads = (unsigned)ipfsrt_lua_opt_int(L, t, "threads", 0);
    o->retries = (unsigned)ipfsrt_lua_opt_int(L, t, "retries", 0);
    o->timeout_s = ipfsrt_lua_opt_number(L, t, "timeout", 0);
    o->min_rate = ipfsrt_lua_opt_number(L, t, "min_rate", 0);
    o->deadline_s = ipfsrt_lua_opt_number(L, t, "deadline", 0);
    o->give_up_s = ipfsrt_lua_opt_number(L, t, "give_up", 0);
    const char *hash = ipfsrt_lua_opt_string(L, t, "hash", NULL);
    if (hash && !(o->hash_backend = ipfsrt_hash_backend_find(hash)))
        ipfsrt_lua_raise_arg(L, "hash backend %s is not built in", hash);
}

/* ipfsrt.client_new({url, ...}, options) -> client; ipfsrt.client{...} is the
 * way in (lua/ipfsrt/client.lua) */
static int l_client_new(lua_State *L) {
    luaL_checktype(L, 2, LUA_TTABLE);
    ipfsrt_lua_client *lc = lua_newuserdatauv(L, sizeof *lc, 0);
    memset(lc, 0, sizeof *lc);
    lc->L = L;
    lc->progress_ref = LUA_NOREF;
    luaL_setmetatable(L, IPFSRT_LUA_CLIENT);
    ipfsrt_client_options opts;
    ipfsrt_client_options_init(&opts);
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    read_options(L, 2, &opts);
    opts.gateways = &list;
    ipfsrt_status st = check_gateways(L, 1, &list, &err);
    if (st == IPFSRT_OK) st = ipfsrt_client_new(&lc->c, &opts, &err);
    ipfsrt_gateway_list_free(&list);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_client_set_progress(lc->c, progress_cb, lc);
    return 1;
}

static int client_close(lua_State *L) {
    ipfsrt_lua_client *lc = luaL_checkudata(L, 1, IPFSRT_LUA_CLIENT);
    if (lc->busy) return ipfsrt_lua_raise_arg(L, "the client is busy with a fetch (called from one of its callbacks)");
    lc->L = L;
    ipfsrt_client_free(lc->c); /* frees the policy too */
    lc->c = NULL;
    luaL_unref(L, LUA_REGISTRYINDEX, lc->progress_ref);
    lc->progress_ref = LUA_NOREF;
    return 0;
}

/* "ipfs://CID/path", "/ipfs/...", "CID/...", a cid object, or a URL */
static const char *check_target(lua_State *L, int idx) {
    if (luaL_testudata(L, idx, IPFSRT_LUA_CID)) {
        luaL_tolstring(L, idx, NULL);
        lua_replace(L, idx);
    }
    return luaL_checkstring(L, idx);
}

typedef struct sink {
    ipfsrt_lua_client *lc;
    int fn_idx;      /* a Lua function, or 0 */
    FILE *file;      /* an io file, or NULL */
    ipfsrt_buf buf;  /* otherwise: collected */
} sink;

static ipfsrt_status sink_write(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    sink *s = user;
    if (s->file) {
        if (fwrite(data, 1, len, s->file) != len)
            return ipfsrt_fail(err, IPFSRT_EIO, -1, "writing the output file failed");
    } else if (s->fn_idx) {
        lua_State *L = s->lc->L;
        lua_pushvalue(L, s->fn_idx);
        lua_pushlstring(L, (const char *)data, len);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) return ipfsrt_lua_client_callback_failed(s->lc, "output function", err);
    } else {
        ipfsrt_buf_append(&s->buf, data, len);
        if (s->buf.failed) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    return IPFSRT_OK;
}

/* client:get(url[, offset[, length]][, sink]) -> bytes (or nothing with a sink:
 * a function called with each piece, or an open io file) */
static int client_get(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = check_target(L, 2);
    int top = lua_gettop(L);
    int sink_idx = 0;
    if (top >= 3 && (lua_isfunction(L, top) || luaL_testudata(L, top, LUA_FILEHANDLE))) sink_idx = top;
    lua_Integer off = sink_idx == 3 ? 0 : luaL_optinteger(L, 3, 0);
    lua_Integer len = sink_idx == 3 || sink_idx == 4 ? -1 : luaL_optinteger(L, 4, -1);
    if (off < 0) return ipfsrt_lua_raise_arg(L, "offset must not be negative");
    sink s = {lc, 0, NULL, {0}};
    ipfsrt_buf_init(&s.buf);
    if (sink_idx && lua_isfunction(L, sink_idx)) s.fn_idx = sink_idx;
    else if (sink_idx) {
        luaL_Stream *stream = luaL_checkudata(L, sink_idx, LUA_FILEHANDLE);
        if (!stream->closef) return ipfsrt_lua_raise_arg(L, "the output file is closed");
        s.file = stream->f;
    }
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_read(lc->c, url, (uint64_t)off, len < 0 ? UINT64_MAX : (uint64_t)len,
                                          sink_write, &s, &err);
    if (st != IPFSRT_OK || lc->callback_error[0]) ipfsrt_buf_free(&s.buf);
    end_call(L, lc, st, &err);
    if (sink_idx) return 0;
    lua_pushlstring(L, s.buf.data ? (const char *)s.buf.data : "", s.buf.len);
    ipfsrt_buf_free(&s.buf);
    return 1;
}

/* client:save(url, dest): the file, tree or symlink written to dest */
static int client_save(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = check_target(L, 2);
    const char *dest = luaL_checkstring(L, 3);
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_export(lc->c, url, dest, &err);
    end_call(L, lc, st, &err);
    return 0;
}

/* client:save_car(url, dest): the DAG under url, verified, as a CAR file */
static int client_save_car(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = check_target(L, 2);
    const char *dest = luaL_checkstring(L, 3);
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_export_car(lc->c, url, dest, &err);
    end_call(L, lc, st, &err);
    return 0;
}

/* client:block(cid) -> bytes */
static int client_block(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    ipfsrt_cid tmp;
    const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, 2, &tmp);
    ipfsrt_blocksource src;
    ipfsrt_client_blocksource(lc->c, &src);
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_blocksource_get(&src, cid, &ref, &err);
    if (st == IPFSRT_OK) {
        lua_pushlstring(L, (const char *)ref.data, ref.len);
        ipfsrt_blocksource_release(&src, &ref);
    }
    end_call(L, lc, st, &err);
    return 1;
}

typedef struct batch {
    ipfsrt_lua_client *lc;
    int fn_idx;     /* function(i, cid, bytes), or 0 */
    int result_idx; /* else the results table */
} batch;

static ipfsrt_status batch_block(void *user, size_t index, const ipfsrt_cid *cid,
                                 const uint8_t *data, size_t len, ipfsrt_error *err) {
    batch *b = user;
    lua_State *L = b->lc->L;
    if (!b->fn_idx) {
        lua_pushlstring(L, (const char *)data, len);
        lua_rawseti(L, b->result_idx, (lua_Integer)index + 1);
        return IPFSRT_OK;
    }
    lua_pushvalue(L, b->fn_idx);
    lua_pushinteger(L, (lua_Integer)index + 1);
    ipfsrt_lua_push_cid(L, cid);
    lua_pushlstring(L, (const char *)data, len);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) return ipfsrt_lua_client_callback_failed(b->lc, "blocks callback", err);
    return IPFSRT_OK;
}

/* client:blocks(cids[, fn]) -> {bytes, ...} in the order of cids, or calls
 * fn(i, cid, bytes) as each block arrives */
static int client_blocks(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_Integer n = luaL_len(L, 2);
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(ipfsrt_cid)) return ipfsrt_lua_raise_arg(L, "too many CIDs");
    ipfsrt_cid *cids = lua_newuserdatauv(L, sizeof *cids * (size_t)(n ? n : 1), 0); /* freed by the GC */
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        ipfsrt_cid tmp; /* objects lend their CID, strings are parsed into tmp */
        cids[i - 1] = *ipfsrt_lua_check_cid(L, lua_gettop(L), &tmp);
        lua_pop(L, 1);
    }
    batch b = {lc, lua_isfunction(L, 3) ? 3 : 0, 0};
    if (!b.fn_idx) {
        lua_createtable(L, (int)n, 0);
        b.result_idx = lua_gettop(L);
    }
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_blocks(lc->c, cids, (size_t)n, batch_block, &b, &err);
    end_call(L, lc, st, &err);
    return b.fn_idx ? 0 : 1;
}

typedef struct many {
    ipfsrt_lua_client *lc;
    int fn_idx;                 /* function(i, path, bytes, err), or 0 */
    int result_idx, errors_idx; /* else the results and errors tables */
} many;

static ipfsrt_status many_result(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    many *m = user;
    lua_State *L = m->lc->L;
    lua_Integer i = (lua_Integer)r->index + 1;
    if (!m->fn_idx) {
        if (r->status == IPFSRT_OK) lua_pushlstring(L, (const char *)r->data, r->len);
        else ipfsrt_lua_push_error(L, &r->error);
        lua_rawseti(L, r->status == IPFSRT_OK ? m->result_idx : m->errors_idx, i);
        return IPFSRT_OK;
    }
    lua_pushvalue(L, m->fn_idx);
    lua_pushinteger(L, i);
    lua_pushstring(L, r->key);
    if (r->status == IPFSRT_OK) {
        lua_pushlstring(L, (const char *)r->data, r->len);
        lua_pushnil(L);
    } else {
        lua_pushnil(L);
        ipfsrt_lua_push_error(L, &r->error);
    }
    if (lua_pcall(L, 4, 0, 0) != LUA_OK) return ipfsrt_lua_client_callback_failed(m->lc, "get_many callback", err);
    return IPFSRT_OK;
}

/* client:get_many(paths[, fn]) -> results, errors (tables by position: the bytes
 * of each file, the error of each that failed), or calls fn(i, path, bytes, err)
 * as each read completes (bytes nil and err set when it failed) */
static int client_get_many(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_settop(L, 3);
    lua_Integer n = luaL_len(L, 2);
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(ipfsrt_range_request)) return ipfsrt_lua_raise_arg(L, "too many paths");
    ipfsrt_range_request *reqs = lua_newuserdatauv(L, sizeof *reqs * (size_t)(n ? n : 1), 0); /* 4, freed by the GC */
    lua_createtable(L, (int)n, 0); /* 5: keeps the strings alive */
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        reqs[i - 1] = (ipfsrt_range_request){.key = check_target(L, lua_gettop(L)), .length = UINT64_MAX};
        lua_rawseti(L, 5, i);
    }
    many m = {lc, lua_isfunction(L, 3) ? 3 : 0, 0, 0};
    if (!m.fn_idx) {
        lua_createtable(L, (int)n, 0);
        m.result_idx = lua_gettop(L);
        lua_newtable(L);
        m.errors_idx = lua_gettop(L);
    }
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_get_many(lc->c, reqs, (size_t)n, many_result, &m, &err);
    end_call(L, lc, st, &err);
    return m.fn_idx ? 0 : 2;
}

/* client:ls(url[, {types = true}]) -> {{name, cid, tsize, type?, size?}, ...} */
static int client_ls(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = check_target(L, 2);
    bool types = true;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "types");
        if (!lua_isnil(L, -1)) types = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lua_newtable(L);
    ipfsrt_lua_list l = {L, 0};
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_ls(lc->c, url, types, ipfsrt_lua_list_entry, &l, &err);
    end_call(L, lc, st, &err);
    return 1;
}

/* client:stat(url) -> {cid, type, size, mode?, mtime?} */
static int client_stat(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = check_target(L, 2);
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_stat(lc->c, url, &info, &err);
    end_call(L, lc, st, &err);
    ipfsrt_lua_push_node_info(L, &info);
    return 1;
}

/* client:resolve_name("ipns://NAME[/path]") -> "/ipfs/CID[/path]" (the record verified) */
static int client_resolve_name(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_idle_client(L);
    const char *url = luaL_checkstring(L, 2);
    char *resolved = NULL;
    ipfsrt_error err;
    lc->busy = true;
    ipfsrt_status st = ipfsrt_client_resolve_name(lc->c, url, &resolved, &err);
    end_call(L, lc, st, &err);
    lua_pushstring(L, resolved);
    free(resolved);
    return 1;
}

static void set_count(lua_State *L, const char *key, uint64_t v) {
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, key);
}

/* client:stats() -> {{url, requests, ok, bytes, errors = {kind = n}, verify_failures,
 *   latency = {p50, p90, p99}}, ...} (seconds) */
static int client_stats(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_client(L);
    size_t n = ipfsrt_client_gateway_count(lc->c);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        ipfsrt_client_gateway_stats st = IPFSRT_CLIENT_GATEWAY_STATS_INIT;
        ipfsrt_client_get_gateway_stats(lc->c, i, &st);
        lua_createtable(L, 0, 8);
        lua_pushstring(L, ipfsrt_client_gateway_url(lc->c, i));
        lua_setfield(L, -2, "url");
        set_count(L, "requests", st.requests);
        set_count(L, "ok", st.ok);
        set_count(L, "bytes", st.bytes);
        set_count(L, "verify_failures", st.verify_failures);
        lua_newtable(L);
        uint64_t total = 0;
        for (int k = 1; k < IPFSRT_GWERR_COUNT; k++) {
            total += st.errors[k];
            if (st.errors[k]) set_count(L, ipfsrt_gateway_error_name((ipfsrt_gateway_error)k), st.errors[k]);
        }
        lua_setfield(L, -2, "errors");
        set_count(L, "failed", total);
        lua_createtable(L, 0, 3);
        lua_pushnumber(L, st.latency_p50_s);
        lua_setfield(L, -2, "p50");
        lua_pushnumber(L, st.latency_p90_s);
        lua_setfield(L, -2, "p90");
        lua_pushnumber(L, st.latency_p99_s);
        lua_setfield(L, -2, "p99");
        lua_setfield(L, -2, "latency");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* client:gateways() -> {url, ...}, where they came from */
static int client_gateways(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_client(L);
    size_t n = ipfsrt_client_gateway_count(lc->c);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, ipfsrt_client_gateway_url(lc->c, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushstring(L, ipfsrt_client_gateway_source(lc->c));
    return 2;
}

static int client_verifies(lua_State *L) {
    lua_pushboolean(L, ipfsrt_client_verifies(ipfsrt_lua_check_client(L)->c));
    return 1;
}

/* client:set_progress_function(fn(done, expected) | nil), called at every
 * step (client:on_progress, in Lua, throttles) */
static int client_set_progress_function(lua_State *L) {
    ipfsrt_lua_client *lc = ipfsrt_lua_check_client(L);
    if (!lua_isnil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    luaL_unref(L, LUA_REGISTRYINDEX, lc->progress_ref);
    lua_settop(L, 2);
    lc->progress_ref = lua_isnil(L, 2) ? LUA_NOREF : luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* ipfsrt.gateways() -> {url, ...}, source: what a client with no gateways uses */
static int l_gateways(lua_State *L) {
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    ipfsrt_error err;
    if (ipfsrt_gateway_list_default(&list, &err) != IPFSRT_OK) {
        ipfsrt_gateway_list_free(&list);
        return ipfsrt_lua_raise(L, &err);
    }
    lua_createtable(L, (int)list.count, 0);
    for (size_t i = 0; i < list.count; i++) {
        lua_pushstring(L, list.urls[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushstring(L, list.source);
    ipfsrt_gateway_list_free(&list);
    return 2;
}

void ipfsrt_lua_open_client(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"get", client_get},         {"save", client_save},
        {"save_car", client_save_car},
        {"block", client_block},     {"blocks", client_blocks},
        {"get_many", client_get_many},
        {"ls", client_ls},           {"stat", client_stat},       {"resolve_name", client_resolve_name},
        {"stats", client_stats},     {"set_policy_object", ipfsrt_lua_client_set_policy_object},
        {"gateways", client_gateways}, {"verifies", client_verifies},
        {"set_progress_function", client_set_progress_function}, {"close", client_close},
        {NULL, NULL}};
    ipfsrt_lua_class(L, IPFSRT_LUA_CLIENT, methods, client_close, NULL);
    ipfsrt_lua_push_core(L); /* for lua/ipfsrt/client.lua */
    /* methods written in Lua (set_policy, on_progress) join these */
    luaL_getmetatable(L, IPFSRT_LUA_CLIENT);
    lua_getfield(L, -1, "__index");
    lua_setfield(L, -3, "client_methods");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_client_new);
    lua_setfield(L, -2, "client_new");
    lua_pop(L, 1);
    ipfsrt_lua_push_lua_function(L, "ipfsrt.client", "new");
    lua_setfield(L, -2, "client");
    lua_pushcfunction(L, l_gateways);
    lua_setfield(L, -2, "gateways");
}
