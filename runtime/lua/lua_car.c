/* ipfsrt.car: file reader, push reader, writer, and whole-file verification. */
#include <string.h>

#include "bindings.h"

#define CAR_FILE IPFSRT_LUA_CAR_FILE
#define CAR_READER "ipfsrt.car.reader"
#define CAR_WRITER "ipfsrt.car.writer"

static void check_options(lua_State *L, int idx, ipfsrt_car_options *opts, bool slices) {
    ipfsrt_car_options_init(opts);
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "max_block_size");
    if (!lua_isnil(L, -1)) opts->max_block_size = (size_t)luaL_checkinteger(L, -1);
    lua_getfield(L, idx, "max_header_size");
    if (!lua_isnil(L, -1)) opts->max_header_size = (size_t)luaL_checkinteger(L, -1);
    lua_getfield(L, idx, "slice");
    if (slices && !lua_isnil(L, -1)) {
        lua_Integer s = luaL_checkinteger(L, -1);
        if (s < 1) ipfsrt_lua_raise_arg(L, "slice must be at least 1 byte");
        opts->slice_size = (size_t)s;
    }
    lua_pop(L, 3);
}

static void push_roots(lua_State *L, const ipfsrt_car_header *h) {
    lua_createtable(L, (int)h->root_count, 0);
    for (size_t i = 0; i < h->root_count; i++) {
        ipfsrt_lua_push_cid(L, &h->roots[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_header(lua_State *L, const ipfsrt_car_header *h) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, h->version);
    lua_setfield(L, -2, "version");
    push_roots(L, h);
    lua_setfield(L, -2, "roots");
    if (h->version == 2) {
        lua_pushinteger(L, (lua_Integer)h->data_offset);
        lua_setfield(L, -2, "data_offset");
        lua_pushinteger(L, (lua_Integer)h->data_size);
        lua_setfield(L, -2, "data_size");
        lua_pushinteger(L, (lua_Integer)h->index_offset);
        lua_setfield(L, -2, "index_offset");
        lua_pushboolean(L, (h->characteristics[0] & 0x80) != 0);
        lua_setfield(L, -2, "fully_indexed");
    }
}

/* ------------------------------------------------------------ file reader */

static ipfsrt_car_file **check_file(lua_State *L) {
    ipfsrt_car_file **f = luaL_checkudata(L, 1, CAR_FILE);
    if (!*f) ipfsrt_lua_raise_arg(L, "CAR file is closed");
    return f;
}

static int car_open(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    ipfsrt_car_options opts;
    check_options(L, 2, &opts, false);
    ipfsrt_car_file **f = lua_newuserdatauv(L, sizeof *f, 0);
    *f = NULL;
    luaL_setmetatable(L, CAR_FILE);
    ipfsrt_error err;
    if (ipfsrt_car_file_new(f, path, &opts, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int file_close(lua_State *L) {
    ipfsrt_car_file **f = luaL_checkudata(L, 1, CAR_FILE);
    ipfsrt_car_file_free(*f);
    *f = NULL;
    return 0;
}

static int file_roots(lua_State *L) {
    push_roots(L, ipfsrt_car_file_header(*check_file(L)));
    return 1;
}

static int file_header(lua_State *L) {
    ipfsrt_car_file *f = *check_file(L);
    push_header(L, ipfsrt_car_file_header(f));
    lua_pushstring(L, ipfsrt_car_file_index_source(f));
    lua_setfield(L, -2, "index");
    return 1;
}

/* file:get(cid) -> verified bytes, or nil when the CAR lacks the block */
static int file_get(lua_State *L) {
    ipfsrt_car_file *f = *check_file(L);
    ipfsrt_cid tmp;
    const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, 2, &tmp);
    const uint8_t *data;
    size_t len;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_car_file_get(f, cid, &data, &len, &err);
    if (st == IPFSRT_ENOT_FOUND) {
        lua_pushnil(L);
        return 1;
    }
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_pushlstring(L, (const char *)data, len);
    return 1;
}

static int file_has(lua_State *L) {
    ipfsrt_car_file *f = *check_file(L);
    ipfsrt_cid tmp;
    lua_pushboolean(L, ipfsrt_car_file_has(f, ipfsrt_lua_check_cid(L, 2, &tmp)));
    return 1;
}

static int blocks_step(lua_State *L) {
    ipfsrt_car_file **f = luaL_checkudata(L, lua_upvalueindex(1), CAR_FILE);
    if (!*f) return ipfsrt_lua_raise_arg(L, "CAR file closed during iteration");
    uint64_t cursor = (uint64_t)lua_tointeger(L, lua_upvalueindex(2));
    ipfsrt_car_block block;
    bool done;
    ipfsrt_error err;
    if (ipfsrt_car_file_next(*f, &cursor, &block, &done, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    if (done) return 0;
    lua_pushinteger(L, (lua_Integer)cursor);
    lua_replace(L, lua_upvalueindex(2));
    ipfsrt_lua_push_cid(L, &block.cid);
    lua_pushlstring(L, (const char *)block.data, block.len);
    lua_pushinteger(L, (lua_Integer)block.offset);
    return 3;
}

/* for cid, bytes, offset in file:blocks() do ... end; every block verified */
static int file_blocks(lua_State *L) {
    check_file(L);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, blocks_step, 2);
    return 1;
}

/* ----------------------------------------------------------- push reader */

typedef struct lua_reader {
    ipfsrt_car_reader *reader;
    lua_State *L;   /* valid during feed() only */
    lua_Integer n;  /* blocks collected in the table on top of L's stack */
} lua_reader;

static lua_reader *check_reader(lua_State *L) {
    lua_reader *r = luaL_checkudata(L, 1, CAR_READER);
    if (!r->reader) ipfsrt_lua_raise_arg(L, "CAR reader is closed");
    return r;
}

static ipfsrt_status collect_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    (void)err;
    lua_reader *r = user;
    lua_State *L = r->L;
    lua_createtable(L, 0, 3);
    ipfsrt_lua_push_cid(L, &b->cid);
    lua_setfield(L, -2, "cid");
    lua_pushlstring(L, (const char *)b->data, b->len);
    lua_setfield(L, -2, "data");
    lua_pushinteger(L, (lua_Integer)b->offset);
    lua_setfield(L, -2, "offset");
    lua_rawseti(L, -2, ++r->n);
    return IPFSRT_OK;
}

static int car_reader(lua_State *L) {
    ipfsrt_car_options opts;
    check_options(L, 1, &opts, false);
    lua_reader *r = lua_newuserdatauv(L, sizeof *r, 0);
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, CAR_READER);
    ipfsrt_error err;
    if (ipfsrt_car_reader_new(&r->reader, &opts, collect_block, r, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* reader:feed(bytes) -> array of {cid, data, offset} completed by these bytes */
static int reader_feed(lua_State *L) {
    lua_reader *r = check_reader(L);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    lua_newtable(L);
    r->L = L;
    r->n = 0;
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_car_reader_feed(r->reader, (const uint8_t *)data, n, &err);
    r->L = NULL;
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int reader_finish(lua_State *L) {
    lua_reader *r = check_reader(L);
    ipfsrt_error err;
    if (ipfsrt_car_reader_finish(r->reader, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int reader_header(lua_State *L) {
    const ipfsrt_car_header *h = ipfsrt_car_reader_header(check_reader(L)->reader);
    if (!h) return 0;
    push_header(L, h);
    return 1;
}

static int reader_roots(lua_State *L) {
    const ipfsrt_car_header *h = ipfsrt_car_reader_header(check_reader(L)->reader);
    if (!h) return 0;
    push_roots(L, h);
    return 1;
}

static int reader_offset(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)ipfsrt_car_reader_offset(check_reader(L)->reader));
    return 1;
}

static int reader_close(lua_State *L) {
    lua_reader *r = luaL_checkudata(L, 1, CAR_READER);
    ipfsrt_car_reader_free(r->reader);
    r->reader = NULL;
    return 0;
}

/* ---------------------------------------------------------------- verify */

/* car.verify(path[, {slice=, max_block_size=, bytes=false}]) -> {blocks=, bytes=};
 * raises on failure. With bytes = true the first argument is the CAR itself. */
/* car.diff(old, new, out) -> {new_blocks, new_bytes, shared_blocks, shared_bytes} */
static int car_diff(lua_State *L) {
    const char *old = luaL_checkstring(L, 1), *new = luaL_checkstring(L, 2), *out = luaL_checkstring(L, 3);
    ipfsrt_car_diff_stats stats = IPFSRT_CAR_DIFF_STATS_INIT;
    ipfsrt_error err;
    if (ipfsrt_car_diff(old, new, out, &stats, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)stats.new_blocks);
    lua_setfield(L, -2, "new_blocks");
    lua_pushinteger(L, (lua_Integer)stats.new_bytes);
    lua_setfield(L, -2, "new_bytes");
    lua_pushinteger(L, (lua_Integer)stats.shared_blocks);
    lua_setfield(L, -2, "shared_blocks");
    lua_pushinteger(L, (lua_Integer)stats.shared_bytes);
    lua_setfield(L, -2, "shared_bytes");
    return 1;
}

static int car_verify(lua_State *L) {
    size_t len;
    const char *arg = luaL_checklstring(L, 1, &len);
    ipfsrt_car_options opts;
    check_options(L, 2, &opts, true);
    bool in_memory = false;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "bytes");
        in_memory = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    opts.verify_only = true; /* only counts are returned: no block needs its bytes kept */
    ipfsrt_car_counts counts = IPFSRT_CAR_COUNTS_INIT;
    ipfsrt_error err;
    ipfsrt_status st = in_memory ? ipfsrt_car_verify_buffer((const uint8_t *)arg, len, &opts, NULL, NULL, &counts, &err)
                                 : ipfsrt_car_verify_file(arg, &opts, NULL, NULL, &counts, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)counts.blocks);
    lua_setfield(L, -2, "blocks");
    lua_pushinteger(L, (lua_Integer)counts.bytes);
    lua_setfield(L, -2, "bytes");
    return 1;
}

/* ---------------------------------------------------------------- writer */

static ipfsrt_car_writer **check_writer(lua_State *L) {
    ipfsrt_car_writer **w = luaL_checkudata(L, 1, CAR_WRITER);
    if (!*w) ipfsrt_lua_raise_arg(L, "CAR writer is closed");
    return w;
}

/* car.writer(path, roots[, {version = 1|2}]) */
static int car_writer(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int version = 1;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "version");
        version = (int)luaL_optinteger(L, -1, 1);
        lua_pop(L, 1);
    }
    lua_Integer n = luaL_len(L, 2);
    if (n < 0 || n > 4096) return ipfsrt_lua_raise_arg(L, "too many roots");
    /* The roots array is a userdata so an error while reading them cannot leak it. */
    ipfsrt_cid *roots = lua_newuserdatauv(L, sizeof *roots * (size_t)(n ? n : 1), 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        roots[i - 1] = *ipfsrt_lua_check_cid(L, -1, &roots[i - 1]);
        lua_pop(L, 1);
    }
    ipfsrt_car_writer **w = lua_newuserdatauv(L, sizeof *w, 0);
    *w = NULL;
    luaL_setmetatable(L, CAR_WRITER);
    ipfsrt_error err;
    ipfsrt_car_writer_options opts = {.size = sizeof opts, .version = (int)version, .roots = roots,
                                      .root_count = (size_t)n};
    if (ipfsrt_car_writer_new(w, path, &opts, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int writer_put(lua_State *L) {
    ipfsrt_car_writer *w = *check_writer(L);
    ipfsrt_cid tmp;
    const ipfsrt_cid *cid = ipfsrt_lua_check_cid(L, 2, &tmp);
    size_t n;
    const char *data = luaL_checklstring(L, 3, &n);
    ipfsrt_error err;
    if (ipfsrt_car_writer_put(w, cid, (const uint8_t *)data, n, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 0;
}

static int writer_close(lua_State *L) {
    ipfsrt_car_writer **w = check_writer(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_car_writer_finish(*w, &err);
    ipfsrt_car_writer_free(*w);
    *w = NULL;
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* Garbage-collected before close(): the unfinished file is removed. */
static int writer_gc(lua_State *L) {
    ipfsrt_car_writer **w = luaL_checkudata(L, 1, CAR_WRITER);
    ipfsrt_car_writer_free(*w);
    *w = NULL;
    return 0;
}

/* A to-be-closed writer finishes its file when the scope ends normally and
 * discards it when the scope ends by an error. */
static int writer_tbc(lua_State *L) {
    ipfsrt_car_writer **w = luaL_checkudata(L, 1, CAR_WRITER);
    if (*w && lua_isnil(L, 2)) return writer_close(L);
    return writer_gc(L);
}

void ipfsrt_lua_open_car(lua_State *L) {
    static const luaL_Reg file_methods[] = {
        {"roots", file_roots}, {"header", file_header}, {"get", file_get}, {"has", file_has},
        {"blocks", file_blocks}, {"close", file_close}, {NULL, NULL}};
    static const luaL_Reg reader_methods[] = {
        {"feed", reader_feed},   {"finish", reader_finish}, {"header", reader_header},
        {"roots", reader_roots}, {"offset", reader_offset}, {"close", reader_close},
        {NULL, NULL}};
    static const luaL_Reg writer_methods[] = {{"put", writer_put}, {"close", writer_close},
                                              {NULL, NULL}};
    static const luaL_Reg fns[] = {{"open", car_open},     {"reader", car_reader},
                                   {"writer", car_writer}, {"verify", car_verify}, {"diff", car_diff},
                                   {NULL, NULL}};
    ipfsrt_lua_class(L, CAR_FILE, file_methods, file_close, NULL);
    ipfsrt_lua_class(L, CAR_READER, reader_methods, reader_close, NULL);
    ipfsrt_lua_class(L, CAR_WRITER, writer_methods, writer_gc, writer_tbc);
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "car");
}
