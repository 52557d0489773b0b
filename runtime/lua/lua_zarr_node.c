/* Zarr groups and arrays for Lua: open_node(store, path), create_array(store,
 * path, json), create_group(store, path, format, attrs) give a node (methods
 * info, members, child, read, write, set_attributes); consolidate_store(store,
 * path). lua/ipfsrt/zarr.lua makes the objects users see from these. */
#include <string.h>

#include "lua_zarr.h"

#define ZARR_NODE "ipfsrt.zarr.node"

typedef struct lua_znode {
    ipfsrt_zarr_node *n; /* its store's userdata is its user value */
} lua_znode;

static ipfsrt_zarr_node *check_node(lua_State *L, int idx) {
    lua_znode *z = luaL_checkudata(L, idx, ZARR_NODE);
    if (!z->n) ipfsrt_lua_raise_arg(L, "the node is closed");
    return z->n;
}

/* The store the node at idx reads through, checked open. */
static ipfsrt_lua_zstore *store_of(lua_State *L, int idx) {
    lua_getiuservalue(L, idx, 1);
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, -1);
    lua_pop(L, 1); /* the node's user value keeps it */
    return zs;
}

static int node_gc(lua_State *L) {
    lua_znode *z = luaL_checkudata(L, 1, ZARR_NODE);
    ipfsrt_zarr_node_free(z->n);
    z->n = NULL;
    return 0;
}

/* A new node userdata holding the store at store_idx. */
static lua_znode *push_node(lua_State *L, int store_idx) {
    lua_znode *z = lua_newuserdatauv(L, sizeof *z, 1);
    z->n = NULL;
    luaL_setmetatable(L, ZARR_NODE);
    lua_pushvalue(L, store_idx);
    lua_setiuservalue(L, -2, 1);
    return z;
}

/* open(store, path) */
static int zarr_open(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = ipfsrt_lua_opt_name(L, 2, "");
    lua_znode *z = push_node(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_open(&z->n, zs->s, path, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* create_array(store, path, metadata_json) */
static int zarr_create_array(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = ipfsrt_lua_check_name(L, 2);
    size_t len;
    const char *json = luaL_checklstring(L, 3, &len);
    lua_znode *z = push_node(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_create_array(&z->n, zs->s, path, json, len, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* create_group(store, path, zarr_format, attributes | nil) */
static int zarr_create_group(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = ipfsrt_lua_check_name(L, 2);
    lua_Integer format = luaL_checkinteger(L, 3);
    const char *attrs = lua_isnoneornil(L, 4) ? NULL : ipfsrt_lua_push_json_text(L, 4);
    if (!lua_isnoneornil(L, 4) && !attrs) return ipfsrt_lua_raise_arg(L, "attributes must be JSON-like");
    lua_znode *z = push_node(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_create_group(&z->n, zs->s, path, (int)format, attrs, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* create_like(store, path, node[, zarr_format]): what a copy writes, exactly */
static int zarr_create_like(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = ipfsrt_lua_check_name(L, 2);
    const ipfsrt_zarr_node *src = check_node(L, 3);
    lua_Integer format = luaL_optinteger(L, 4, 0);
    lua_znode *z = push_node(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_create_like(&z->n, zs->s, path, src, (int)format, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* consolidate(store, path) */
static int zarr_consolidate(lua_State *L) {
    ipfsrt_lua_zstore *zs = ipfsrt_lua_check_zstore(L, 1);
    const char *path = ipfsrt_lua_opt_name(L, 2, "");
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_consolidate(zs->s, path, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 0;
}

/* n:set_attributes(table) */
static int node_set_attributes(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    const char *attrs = ipfsrt_lua_push_json_text(L, 2);
    if (!attrs) return ipfsrt_lua_raise_arg(L, "attributes must be JSON-like");
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_set_attributes(n, attrs, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 0;
}

/* The selection table at idx (nil: everything); how many parts it has. */
static int check_selection(lua_State *L, int idx, ipfsrt_ndslice *sel) {
    lua_Integer parts = lua_isnoneornil(L, idx) ? 0 : (luaL_checktype(L, idx, LUA_TTABLE), luaL_len(L, idx));
    if (parts > IPFSRT_NDARRAY_MAX_DIMS) ipfsrt_lua_raise_arg(L, "too many selection parts");
    for (lua_Integer i = 1; i <= parts; i++) {
        lua_rawgeti(L, idx, i);
        ipfsrt_lua_check_ndslice(L, lua_gettop(L), (int)i - 1, &sel[i - 1]);
        lua_pop(L, 1);
    }
    return (int)parts;
}

/* n:write(selection | nil, values (n-d array), threads, write_empty_chunks) */
static int node_write(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    const ipfsrt_ndarray *values = ipfsrt_lua_check_ndarray(L, 3);
    lua_Integer threads = luaL_optinteger(L, 4, 0);
    if (threads < 0 || threads > 64) return ipfsrt_lua_raise_arg(L, "threads must be 0 to 64");
    ipfsrt_zarr_write_options opts = {.size = sizeof opts, .threads = (unsigned)threads,
                                      .write_empty_chunks = lua_toboolean(L, 5)};
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_write(n, sel, parts, values, &opts, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 0;
}

/* n:append(axis, values[, threads]): values appended along axis (from 0) */
static int node_append(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    lua_Integer axis = luaL_checkinteger(L, 2);
    const ipfsrt_ndarray *values = ipfsrt_lua_check_ndarray(L, 3);
    lua_Integer threads = luaL_optinteger(L, 4, 0);
    if (threads < 0 || threads > 64) return ipfsrt_lua_raise_arg(L, "threads must be 0 to 64");
    if (axis < 0 || axis >= IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "append: no axis %d", (int)axis);
    ipfsrt_zarr_write_options opts = {.size = sizeof opts, .threads = (unsigned)threads};
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_append(n, (int)axis, values, &opts, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 0;
}

/* n:child(name) */
static int node_child(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    const char *name = ipfsrt_lua_check_name(L, 2);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    lua_getiuservalue(L, 1, 1);
    lua_znode *z = push_node(L, lua_gettop(L));
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_open_child(&z->n, n, name, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

/* n:info() -> {path, zarr_format, is_array, and an array's metadata fields} */
static int node_info(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(n);
    lua_newtable(L);
    if (m) ipfsrt_lua_zarr_meta_fields(L, m);
    lua_pushstring(L, ipfsrt_zarr_path(n));
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, ipfsrt_zarr_format(n));
    lua_setfield(L, -2, "zarr_format");
    lua_pushboolean(L, m != NULL);
    lua_setfield(L, -2, "is_array");
    return 1;
}

/* n:attrs() -> the user attributes; n:metadata() -> the document as stored.
 * Apart from info: they may be large, and most reads never look at them. */
/* A node's JSON text, as the C call fill gives it, as Lua values. */
static int push_node_json(lua_State *L, ipfsrt_status (*fill)(const ipfsrt_zarr_node *, ipfsrt_buf *, ipfsrt_error *)) {
    const ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_buf *b = ipfsrt_lua_push_buf(L);
    ipfsrt_error err;
    if (fill(n, b, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_json_buf(L, b);
    return 1;
}

static int node_attrs(lua_State *L) { return push_node_json(L, ipfsrt_zarr_attributes); }
static int node_metadata(lua_State *L) { return push_node_json(L, ipfsrt_zarr_metadata); }

/* n:chunk_key(i, j, ...) -> the store key of a chunk (a shard, if sharded) of the array */
static int node_chunk_key(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(n);
    if (!m) return ipfsrt_lua_raise_arg(L, "chunk_key: %s is a group", ipfsrt_zarr_path(n));
    size_t index[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_lua_zarr_check_index(L, m, 2, index);
    char key[IPFSRT_ZARR_KEY_MAX + 1];
    ipfsrt_error err;
    if (ipfsrt_zarr_chunk_key(m, index, key, sizeof key, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    const char *path = ipfsrt_zarr_path(n);
    lua_pushfstring(L, "%s%s%s", path, *path ? "/" : "", key);
    return 1;
}

static ipfsrt_status add_member(void *user, const char *name, bool is_array, ipfsrt_error *err) {
    lua_State *L = user;
    (void)err;
    lua_createtable(L, 0, 2);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_pushboolean(L, is_array);
    lua_setfield(L, -2, "is_array");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    return IPFSRT_OK;
}

/* n:members() -> {{name =, is_array =}, ...} sorted by name */
static int node_members(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    lua_newtable(L);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_members(n, add_member, L, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 1;
}

typedef struct progress {
    lua_State *L;
    int fn_idx;
    char error[600];
} progress;

static ipfsrt_status report(void *user, size_t done, size_t total, ipfsrt_error *err) {
    progress *p = user;
    lua_pushvalue(p->L, p->fn_idx);
    lua_pushinteger(p->L, (lua_Integer)done);
    lua_pushinteger(p->L, (lua_Integer)total);
    if (lua_pcall(p->L, 2, 0, 0) == LUA_OK) return IPFSRT_OK;
    char msg[400];
    snprintf(p->error, sizeof p->error, "progress: %s", ipfsrt_lua_describe(p->L, -1, msg, sizeof msg));
    lua_pop(p->L, 1);
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "%s", p->error);
}

/* Decoding threads at threads_idx, and CF decoding (dtype, {missing...},
 * scale, offset) from scaling_idx when a dtype is there. */
static void check_read_options(lua_State *L, int threads_idx, int scaling_idx, ipfsrt_zarr_read_options *o,
                               ipfsrt_ndarray_scaling *sc) {
    lua_Integer threads = luaL_optinteger(L, threads_idx, 0);
    if (threads < 0 || threads > 64) ipfsrt_lua_raise_arg(L, "threads must be 0 to 64");
    *o = (ipfsrt_zarr_read_options){.size = sizeof(ipfsrt_zarr_read_options), .threads = (unsigned)threads, .unscale_dtype = IPFSRT_DTYPE_FLOAT64};
    if (lua_isnoneornil(L, scaling_idx)) return;
    ipfsrt_lua_check_scaling(L, scaling_idx, &o->unscale_dtype, sc);
    o->unscale = sc;
}

/* n:read(selection | nil, threads, progress | nil[, dtype, {missing...}, scale, offset])
 * -> n-d array; with a dtype, CF-decoded on the decoding threads */
static int node_read(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    progress p = {L, lua_isnoneornil(L, 4) ? 0 : 4, {0}};
    if (p.fn_idx) luaL_checktype(L, 4, LUA_TFUNCTION);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 5, &opts, &sc);
    opts.progress = p.fn_idx ? report : NULL;
    opts.progress_user = &p;
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_ndarray out;
    ipfsrt_ndarray_init(&out);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_read(n, sel, parts, &out, &opts, &err);
    if (st != IPFSRT_OK) ipfsrt_ndarray_free(&out);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    ipfsrt_lua_push_ndarray(L, &out);
    return 1;
}

/* {array, ...} of outs[0..n-1], each moved into Lua. */
static int push_arrays(lua_State *L, ipfsrt_ndarray *outs, lua_Integer n) {
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        ipfsrt_lua_push_ndarray(L, &outs[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* n:read_boxes({selection, ...}, threads[, dtype, {missing...}, scale, offset])
 * -> {n-d array, ...}: the selections' chunks asked for together */
#define READ_BOXES_MAX 4096

static int node_read_boxes(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer count = luaL_len(L, 2);
    if (count < 0 || count > READ_BOXES_MAX) return ipfsrt_lua_raise_arg(L, "read_boxes takes 0 to %d selections", READ_BOXES_MAX);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 4, &opts, &sc);
    lua_settop(L, 7); /* the scratch below lies past the arguments */
    size_t k = (size_t)count ? (size_t)count : 1;
    ipfsrt_ndslice *parts = lua_newuserdatauv(L, k * IPFSRT_NDARRAY_MAX_DIMS * sizeof *parts, 0);
    const ipfsrt_ndslice **sels = lua_newuserdatauv(L, k * sizeof *sels, 0);
    int *ns = lua_newuserdatauv(L, k * sizeof *ns, 0);
    ipfsrt_ndarray *outs = lua_newuserdatauv(L, k * sizeof *outs, 0);
    for (lua_Integer i = 0; i < count; i++) {
        lua_rawgeti(L, 2, i + 1);
        sels[i] = parts + i * IPFSRT_NDARRAY_MAX_DIMS;
        ns[i] = check_selection(L, lua_gettop(L), parts + i * IPFSRT_NDARRAY_MAX_DIMS);
        lua_pop(L, 1);
        ipfsrt_ndarray_init(&outs[i]);
    }
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_read_boxes(n, sels, ns, (size_t)count, outs, &opts, &err); /* failed: outs empty */
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return push_arrays(L, outs, count);
}

typedef struct slab_call {
    lua_State *L;
    int fn_idx;
    int error_ref; /* what fn raised, raised again once the read is over */
} slab_call;

static ipfsrt_status give_slab(void *user, size_t start, size_t count, ipfsrt_ndarray *slab, ipfsrt_error *err) {
    slab_call *c = user;
    lua_pushvalue(c->L, c->fn_idx);
    lua_pushinteger(c->L, (lua_Integer)start);
    lua_pushinteger(c->L, (lua_Integer)count);
    ipfsrt_lua_push_ndarray(c->L, slab);
    if (lua_pcall(c->L, 3, 0, 0) == LUA_OK) return IPFSRT_OK;
    c->error_ref = luaL_ref(c->L, LUA_REGISTRYINDEX);
    return ipfsrt_fail(err, IPFSRT_ECANCELED, -1, "the slab function failed");
}

/* n:read_slabs(selection | nil, {end, ...}, threads, fn[, dtype, {missing...},
 * scale, offset]): fn(start, count, slab) for each slab in order, as it is
 * read (0-based starts; ends as ipfsrt_zarr_read_slabs takes them) */
static int node_read_slabs(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TFUNCTION);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 4, 6, &opts, &sc); /* before the ends go on the stack */
    lua_Integer n_slabs = luaL_len(L, 3);
    if (n_slabs < 1 || (lua_Unsigned)n_slabs > SIZE_MAX / sizeof(size_t))
        return ipfsrt_lua_raise_arg(L, "read_slabs takes at least one slab end");
    size_t *ends = lua_newuserdatauv(L, (size_t)n_slabs * sizeof *ends, 0); /* freed by the collector */
    for (lua_Integer i = 0; i < n_slabs; i++) {
        lua_rawgeti(L, 3, i + 1);
        lua_Integer e = luaL_checkinteger(L, -1);
        if (e < 0) return ipfsrt_lua_raise_arg(L, "slab end %d is negative", (int)i + 1);
        ends[i] = (size_t)e;
        lua_pop(L, 1);
    }
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    slab_call c = {L, 5, LUA_NOREF};
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_read_slabs(n, sel, parts, ends, (size_t)n_slabs, &opts, give_slab, &c, &err);
    if (c.error_ref != LUA_NOREF) {
        ipfsrt_lua_zstore_leave(L, zs, IPFSRT_OK, NULL);
        lua_rawgeti(L, LUA_REGISTRYINDEX, c.error_ref);
        luaL_unref(L, LUA_REGISTRYINDEX, c.error_ref);
        return lua_error(L);
    }
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return 0;
}

/* zarr.read_nodes({node, ...}) -> {array, ...}: whole arrays of one store,
 * their chunks asked for together */
#define READ_MANY_MAX 64

static int zarr_read_many(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (n < 1 || n > READ_MANY_MAX) return ipfsrt_lua_raise_arg(L, "read_many takes 1 to %d arrays", READ_MANY_MAX);
    const ipfsrt_zarr_node *nodes[READ_MANY_MAX];
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        nodes[i - 1] = check_node(L, -1);
        if (i == 1) lua_insert(L, 2); /* the first node stays: its store is entered */
        else lua_pop(L, 1);
        if (ipfsrt_zarr_node_store(nodes[i - 1]) != ipfsrt_zarr_node_store(nodes[0]))
            return ipfsrt_lua_raise_arg(L, "read_many: the arrays are of different stores");
    }
    ipfsrt_lua_zstore *zs = store_of(L, 2);
    ipfsrt_ndarray outs[READ_MANY_MAX];
    for (lua_Integer i = 0; i < n; i++) ipfsrt_ndarray_init(&outs[i]);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_status st = ipfsrt_zarr_read_many(nodes, (size_t)n, outs, &err);
    if (st != IPFSRT_OK)
        for (lua_Integer i = 0; i < n; i++) ipfsrt_ndarray_free(&outs[i]);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    return push_arrays(L, outs, n);
}

/* n:summarize(selection | nil, threads, {skip...}, extremes[, dtype, {missing...}, scale, offset])
 * -> {count =, sum =, min =, max =}: folded chunk by chunk on the decoding threads */
#define SKIP_MAX 16

/* The values a fold leaves out, from the list at idx (nil: none). */
static size_t check_skip(lua_State *L, int idx, double *skip) {
    size_t n = 0;
    if (lua_isnoneornil(L, idx)) return 0;
    luaL_checktype(L, idx, LUA_TTABLE);
    if (luaL_len(L, idx) > SKIP_MAX) ipfsrt_lua_raise_arg(L, "at most %d values to leave out", SKIP_MAX);
    for (lua_Integer i = 1; i <= luaL_len(L, idx); i++, n++) {
        lua_rawgeti(L, idx, i);
        skip[n] = luaL_checknumber(L, -1);
        lua_pop(L, 1);
    }
    return n;
}

static int node_summarize(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    double skip[SKIP_MAX];
    size_t n_skip = check_skip(L, 4, skip);
    bool extremes = lua_toboolean(L, 5);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 6, &opts, &sc);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_zarr_summary sum;
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_zarr_fold_options fold = {.size = sizeof fold, .read = &opts, .skip = skip, .n_skip = n_skip,
                                     .what = extremes ? IPFSRT_ZARR_FOLD_EXTREMES : 0};
    ipfsrt_status st = ipfsrt_zarr_summarize(n, sel, parts, &fold, &sum, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)sum.count);
    lua_setfield(L, -2, "count");
    if (sum.integer) lua_pushinteger(L, (lua_Integer)sum.isum);
    else lua_pushnumber(L, sum.sum);
    lua_setfield(L, -2, "sum");
    lua_pushnumber(L, sum.min);
    lua_setfield(L, -2, "min");
    lua_pushnumber(L, sum.max);
    lua_setfield(L, -2, "max");
    return 1;
}

/* n:locate_extremes(selection | nil, threads, {skip...} | nil[, dtype, {missing...}, scale, offset])
 * -> {count, min, max, min_at, max_at}: places from 0, flat in C order */
static int node_locate_extremes(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    double skip[SKIP_MAX];
    size_t n_skip = check_skip(L, 4, skip);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 5, &opts, &sc);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_zarr_extremes ex;
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_zarr_fold_options fold = {.size = sizeof fold, .read = &opts, .skip = skip, .n_skip = n_skip};
    ipfsrt_status st = ipfsrt_zarr_locate_extremes(n, sel, parts, &fold, &ex, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)ex.count);
    lua_setfield(L, -2, "count");
    lua_pushnumber(L, ex.min);
    lua_setfield(L, -2, "min");
    lua_pushnumber(L, ex.max);
    lua_setfield(L, -2, "max");
    lua_pushinteger(L, (lua_Integer)ex.min_at);
    lua_setfield(L, -2, "min_at");
    lua_pushinteger(L, (lua_Integer)ex.max_at);
    lua_setfield(L, -2, "max_at");
    return 1;
}

/* A fold's values left out (the list at idx, into skip) and what it gathers
 * besides counts (sums at idx + 1, extremes at idx + 2). */
static unsigned check_fold(lua_State *L, int idx, double *skip, size_t *n_skip) {
    *n_skip = check_skip(L, idx, skip);
    return (lua_toboolean(L, idx + 1) ? IPFSRT_ZARR_FOLD_SUMS : 0) |
           (lua_toboolean(L, idx + 2) ? IPFSRT_ZARR_FOLD_EXTREMES : 0);
}

/* After a fold: its error raised, or its summaries as a table of n-d arrays. */
static int push_summaries(lua_State *L, ipfsrt_lua_zstore *zs, ipfsrt_status st, const ipfsrt_error *err,
                          ipfsrt_zarr_summaries *out) {
    if (st != IPFSRT_OK) ipfsrt_zarr_summaries_free(out);
    ipfsrt_lua_zstore_leave(L, zs, st, err);
    lua_createtable(L, 0, 4);
    ipfsrt_ndarray *parts_out[4] = {&out->count, &out->sum, &out->min, &out->max};
    static const char *const names[4] = {"count", "sum", "min", "max"};
    for (int i = 0; i < 4; i++) {
        if (!parts_out[i]->data) continue;
        ipfsrt_lua_push_ndarray(L, parts_out[i]);
        lua_setfield(L, -2, names[i]);
    }
    return 1;
}

/* n:summarize_along(selection | nil, threads, {dim, ...}, {skip...} | nil, sums, extremes[, dtype,
 * {missing...}, scale, offset]) -> {count =, sum =, min =, max =}: n-d arrays over the
 * dimensions not folded (dims: the array's, from 0) */
static int node_summarize_along(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(n);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    luaL_checktype(L, 4, LUA_TTABLE);
    bool along[IPFSRT_NDARRAY_MAX_DIMS] = {false};
    for (lua_Integer i = 1; i <= luaL_len(L, 4); i++) {
        lua_rawgeti(L, 4, i);
        lua_Integer d = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (!m || d < 0 || d >= ipfsrt_zarr_meta_ndim(m)) return ipfsrt_lua_raise_arg(L, "dimension %d is not one of the array's", (int)d);
        along[d] = true;
    }
    double skip[SKIP_MAX];
    size_t n_skip;
    unsigned what = check_fold(L, 5, skip, &n_skip);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 8, &opts, &sc);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_zarr_summaries out;
    ipfsrt_zarr_summaries_init(&out);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_zarr_fold_options fold = {.size = sizeof fold, .read = &opts, .skip = skip, .n_skip = n_skip, .what = what};
    ipfsrt_status st = ipfsrt_zarr_summarize_along(n, sel, parts, along, &fold, &out, &err);
    return push_summaries(L, zs, st, &err, &out);
}

/* n:summarize_groups(selection | nil, threads, dim, {group, ...}, n_groups, {skip...} | nil, sums,
 * extremes[, dtype, {missing...}, scale, offset]) -> {count =, sum =, min =, max =}: groups
 * from 0 per selected position of dim (the array's, from 0), -1 for none */
static int node_summarize_groups(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    int dim = (int)luaL_checkinteger(L, 4);
    luaL_checktype(L, 5, LUA_TTABLE);
    lua_Integer n_groups = luaL_checkinteger(L, 6);
    double skip[SKIP_MAX];
    size_t n_skip;
    unsigned what = check_fold(L, 7, skip, &n_skip);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 10, &opts, &sc);
    lua_Integer count = luaL_len(L, 5);
    if (n_groups < 0 || count < 0 || (lua_Unsigned)count > SIZE_MAX / sizeof(size_t))
        return ipfsrt_lua_raise_arg(L, "summarize_groups: bad group counts");
    size_t *group_of = lua_newuserdatauv(L, (size_t)(count ? count : 1) * sizeof *group_of, 0); /* the collector's */
    for (lua_Integer i = 0; i < count; i++) {
        lua_rawgeti(L, 5, i + 1);
        lua_Integer g = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        group_of[i] = g < 0 ? SIZE_MAX : (size_t)g;
    }
    const ipfsrt_zarr_meta *m = ipfsrt_zarr_array_meta(n);
    if (m && dim >= 0 && dim < ipfsrt_zarr_meta_ndim(m)) { /* one group per selected position: counted as the read will */
        int64_t start, len;
        ipfsrt_ndslice whole = {.step = 1};
        ipfsrt_error e;
        if (ipfsrt_ndslice_resolve(dim < parts ? &sel[dim] : &whole, ipfsrt_zarr_meta_shape(m)[dim], dim, &start, &len, &e) == IPFSRT_OK &&
            len != count)
            return ipfsrt_lua_raise_arg(L, "summarize_groups: %d groups for %d positions", (int)count, (int)len);
    }
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_zarr_summaries out;
    ipfsrt_zarr_summaries_init(&out);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_zarr_fold_options fold = {.size = sizeof fold, .read = &opts, .skip = skip, .n_skip = n_skip, .what = what};
    ipfsrt_zarr_groups groups = {dim, group_of, (size_t)n_groups};
    ipfsrt_status st = ipfsrt_zarr_summarize_groups(n, sel, parts, &groups, &fold, &out, &err);
    return push_summaries(L, zs, st, &err, &out);
}

/* n:weighted_sums(selection | nil, threads, kept, weights, {skip...} | nil[, dtype, {missing...},
 * scale, offset]) -> num, den: float64 n-d arrays over the kept leading dimensions (weights:
 * float64, shaped as the selection's other dimensions) */
static int node_weighted_sums(lua_State *L) {
    ipfsrt_zarr_node *n = check_node(L, 1);
    ipfsrt_ndslice sel[IPFSRT_NDARRAY_MAX_DIMS];
    int parts = check_selection(L, 2, sel);
    int kept = (int)luaL_checkinteger(L, 4);
    const ipfsrt_ndarray *weights = ipfsrt_lua_check_ndarray(L, 5);
    double skip[SKIP_MAX];
    size_t n_skip = check_skip(L, 6, skip);
    ipfsrt_zarr_read_options opts;
    ipfsrt_ndarray_scaling sc;
    check_read_options(L, 3, 7, &opts, &sc);
    ipfsrt_lua_zstore *zs = store_of(L, 1);
    ipfsrt_ndarray num, den;
    ipfsrt_ndarray_init(&num);
    ipfsrt_ndarray_init(&den);
    ipfsrt_error err;
    ipfsrt_lua_zstore_enter(L, zs);
    ipfsrt_zarr_fold_options fold = {.size = sizeof fold, .read = &opts, .skip = skip, .n_skip = n_skip};
    ipfsrt_status st = ipfsrt_zarr_weighted_sums(n, sel, parts, kept, weights, &fold, &num, &den, &err);
    ipfsrt_lua_zstore_leave(L, zs, st, &err);
    ipfsrt_lua_push_ndarray(L, &num);
    ipfsrt_lua_push_ndarray(L, &den);
    return 2;
}

static int node_is_array(lua_State *L) {
    lua_pushboolean(L, ipfsrt_zarr_is_array(check_node(L, 1)));
    return 1;
}

void ipfsrt_lua_zarr_node_functions(lua_State *L) {
    static const luaL_Reg methods[] = {{"info", node_info},   {"members", node_members}, {"attrs", node_attrs},
                                       {"metadata", node_metadata},
                                       {"child", node_child}, {"read", node_read}, {"read_boxes", node_read_boxes}, {"locate_extremes", node_locate_extremes},
                                       {"read_slabs", node_read_slabs},
                                       {"summarize", node_summarize}, {"summarize_along", node_summarize_along},
                                       {"summarize_groups", node_summarize_groups},
                                       {"weighted_sums", node_weighted_sums},
                                       {"write", node_write}, {"append", node_append},
                                       {"set_attributes", node_set_attributes},
                                       {"is_array", node_is_array}, {"chunk_key", node_chunk_key},
                                       {NULL, NULL}};
    static const luaL_Reg fns[] = {{"open_node", zarr_open},           {"create_array", zarr_create_array},
                                   {"create_group", zarr_create_group}, {"create_like", zarr_create_like},
                                   {"consolidate_store", zarr_consolidate}, {"read_nodes", zarr_read_many},
                                   {NULL, NULL}};
    ipfsrt_lua_class(L, ZARR_NODE, methods, node_gc, NULL);
    luaL_setfuncs(L, fns, 0);
}
