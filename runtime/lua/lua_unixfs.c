/* ipfsrt.unixfs, ipfsrt.blockstore and ipfsrt.pack */
#include <stdlib.h>
#include <string.h>

#include "bindings.h"

#define BLOCKSTORE "ipfsrt.blockstore"

/* ------------------------------------------------------------ block stores */

static ipfsrt_memstore **check_store(lua_State *L, int idx) {
    ipfsrt_memstore **m = luaL_checkudata(L, idx, BLOCKSTORE);
    if (!*m) ipfsrt_lua_raise_arg(L, "block store is closed");
    return m;
}

static ipfsrt_memstore **new_store(lua_State *L) {
    ipfsrt_memstore **m = lua_newuserdatauv(L, sizeof *m, 0);
    *m = NULL;
    luaL_setmetatable(L, BLOCKSTORE);
    ipfsrt_error err;
    if (ipfsrt_memstore_new(m, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    return m;
}

static int blockstore_new(lua_State *L) {
    new_store(L);
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
    ipfsrt_memstore **m = luaL_checkudata(L, 1, BLOCKSTORE);
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
    ipfsrt_memstore **m = luaL_testudata(L, idx, BLOCKSTORE);
    if (m && *m) {
        ipfsrt_blocksource_memstore(src, *m);
        return;
    }
    ipfsrt_lua_raise_arg(L, "argument #%d: expected an open CAR file or a block store, got %s",
                         idx, luaL_typename(L, idx));
}

/* --------------------------------------------------------------- helpers */

static void options(lua_State *L, int idx, ipfsrt_unixfs_options *o) {
    memset(o, 0, sizeof *o);
    if (lua_istable(L, idx)) {
        lua_getfield(L, idx, "follow_symlinks");
        o->follow_symlinks = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
}

/* "CID/path", or a cid object for the root itself */
static const char *check_path(lua_State *L, int idx) {
    if (luaL_testudata(L, idx, IPFSRT_LUA_CID)) {
        luaL_tolstring(L, idx, NULL);
        lua_replace(L, idx);
    }
    return luaL_checkstring(L, idx);
}

void ipfsrt_lua_push_node_info(lua_State *L, const ipfsrt_unixfs_node_info *info) {
    lua_createtable(L, 0, 6);
    ipfsrt_lua_push_cid(L, &info->cid);
    lua_setfield(L, -2, "cid");
    lua_pushstring(L, ipfsrt_unixfs_type_name(info->type));
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)info->size);
    lua_setfield(L, -2, "size");
    if (info->has_mode) {
        lua_pushinteger(L, info->mode);
        lua_setfield(L, -2, "mode");
    }
    if (info->has_mtime) {
        lua_pushnumber(L, (lua_Number)info->mtime_seconds + info->mtime_nanos * 1e-9);
        lua_setfield(L, -2, "mtime");
    }
}

/* The common arguments: (source, path, ..., opts at opts_idx). */
typedef struct call {
    ipfsrt_blocksource src;
    const char *path;
    ipfsrt_unixfs_options opts;
} call;

static void begin(lua_State *L, int opts_idx, call *c) {
    ipfsrt_lua_check_source(L, 1, &c->src);
    c->path = check_path(L, 2);
    options(L, opts_idx, &c->opts);
}

static void resolve_or_raise(lua_State *L, const call *c, ipfsrt_unixfs_node_info *info) {
    ipfsrt_error err;
    if (ipfsrt_unixfs_resolve(&c->src, c->path, &c->opts, info, &err) != IPFSRT_OK)
        ipfsrt_lua_raise(L, &err);
}

/* Optional offset and length arguments. */
static void range(lua_State *L, int idx, uint64_t *offset, uint64_t *length) {
    lua_Integer off = luaL_optinteger(L, idx, 0), len = luaL_optinteger(L, idx + 1, -1);
    if (off < 0) ipfsrt_lua_raise_arg(L, "offset must not be negative");
    *offset = (uint64_t)off;
    *length = len < 0 ? UINT64_MAX : (uint64_t)len;
}

/* ---------------------------------------------------------------- unixfs */

/* unixfs.resolve(source, path[, {follow_symlinks}]) -> {cid, type, size, mode?, mtime?} */
static int unixfs_resolve(lua_State *L) {
    call c;
    begin(L, 3, &c);
    ipfsrt_unixfs_node_info info;
    resolve_or_raise(L, &c, &info);
    ipfsrt_lua_push_node_info(L, &info);
    return 1;
}

/* unixfs.stat(source, path[, opts]): resolve, plus blocks = blocks the DAG spans */
static int unixfs_stat(lua_State *L) {
    call c;
    begin(L, 3, &c);
    ipfsrt_unixfs_node_info info;
    resolve_or_raise(L, &c, &info);
    uint64_t blocks;
    ipfsrt_error err;
    if (ipfsrt_unixfs_count_blocks(&c.src, &info.cid, &blocks, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_node_info(L, &info);
    lua_pushinteger(L, (lua_Integer)blocks);
    lua_setfield(L, -2, "blocks");
    return 1;
}

/* {name, cid, tsize, type?, size?} */
static void push_entry(lua_State *L, const ipfsrt_unixfs_entry *e) {
    lua_createtable(L, 0, 5);
    lua_pushlstring(L, e->name, e->name_len);
    lua_setfield(L, -2, "name");
    ipfsrt_lua_push_cid(L, &e->cid);
    lua_setfield(L, -2, "cid");
    lua_pushinteger(L, (lua_Integer)e->tsize);
    lua_setfield(L, -2, "tsize");
    if (e->has_type) {
        lua_pushstring(L, ipfsrt_unixfs_type_name(e->type));
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, (lua_Integer)e->size);
        lua_setfield(L, -2, "size");
    }
}

ipfsrt_status ipfsrt_lua_list_entry(void *list, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)err;
    ipfsrt_lua_list *l = list;
    push_entry(l->L, e);
    lua_rawseti(l->L, -2, ++l->n);
    return IPFSRT_OK;
}

/* unixfs.ls(source, path[, {types = true, follow_symlinks}]) -> {{name, cid, tsize, type?, size?}, ...} */
static int unixfs_ls(lua_State *L) {
    call c;
    begin(L, 3, &c);
    bool types = true;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "types");
        if (!lua_isnil(L, -1)) types = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    ipfsrt_unixfs_node_info info;
    resolve_or_raise(L, &c, &info);
    lua_newtable(L);
    ipfsrt_lua_list col = {L, 0};
    ipfsrt_error err;
    if (ipfsrt_unixfs_ls(&c.src, &info.cid, types, ipfsrt_lua_list_entry, &col, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

static ipfsrt_status add_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)err;
    luaL_addlstring(user, (const char *)data, len);
    return IPFSRT_OK;
}

/* unixfs.read(source, path[, offset[, length]]) -> verified file bytes */
static int unixfs_read(lua_State *L) {
    call c;
    begin(L, 5, &c);
    uint64_t offset, length;
    range(L, 3, &offset, &length);
    ipfsrt_unixfs_node_info info;
    resolve_or_raise(L, &c, &info);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    ipfsrt_error err;
    if (ipfsrt_unixfs_read(&c.src, &info.cid, offset, length, add_bytes, &b, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    luaL_pushresult(&b);
    return 1;
}

static ipfsrt_status push_cid_item(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)err;
    ipfsrt_lua_list *c = user;
    ipfsrt_lua_push_cid(c->L, cid);
    lua_rawseti(c->L, -2, ++c->n);
    return IPFSRT_OK;
}

/* unixfs.blocks_for(source, path[, offset[, length[, opts]]]) -> {cid, ...} */
static int unixfs_blocks_for(lua_State *L) {
    call c;
    begin(L, 5, &c);
    uint64_t offset, length;
    range(L, 3, &offset, &length);
    lua_newtable(L);
    ipfsrt_lua_list col = {L, 0};
    ipfsrt_error err;
    if (ipfsrt_unixfs_blocks_for(&c.src, c.path, &c.opts, offset, length, push_cid_item, &col,
                                 &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* unixfs.export(source, path, dest): file, tree or symlink written to dest */
static int unixfs_export(lua_State *L) {
    call c;
    begin(L, 4, &c);
    const char *dest = luaL_checkstring(L, 3);
    ipfsrt_unixfs_node_info info;
    resolve_or_raise(L, &c, &info);
    ipfsrt_error err;
    if (ipfsrt_unixfs_export(&c.src, &info.cid, dest, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_node_info(L, &info);
    return 1;
}

/* ------------------------------------------------------------------ pack */

static lua_Integer opt_int(lua_State *L, int idx, const char *key, lua_Integer dflt) {
    lua_getfield(L, idx, key);
    lua_Integer v = lua_isnil(L, -1) ? dflt : luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return v;
}

static bool opt_bool(lua_State *L, int idx, const char *key, bool dflt) {
    lua_getfield(L, idx, key);
    bool v = lua_isnil(L, -1) ? dflt : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* "entries:1000", "link-bytes:262144", "block-bytes:262144" or "never" */
static void parse_hamt_rule(lua_State *L, const char *s, ipfsrt_pack_options *o) {
    static const struct {
        const char *name;
        ipfsrt_pack_hamt_rule rule;
    } rules[] = {{"entries:", IPFSRT_HAMT_ENTRIES},
                 {"link-bytes:", IPFSRT_HAMT_LINK_BYTES},
                 {"block-bytes:", IPFSRT_HAMT_BLOCK_BYTES}};
    if (strcmp(s, "never") == 0) {
        o->hamt_rule = IPFSRT_HAMT_NEVER;
        return;
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t n = strlen(rules[i].name);
        if (strncmp(s, rules[i].name, n) == 0) {
            char *end;
            unsigned long long v = strtoull(s + n, &end, 10);
            if (end != s + n && *end == '\0') {
                o->hamt_rule = rules[i].rule;
                o->hamt_threshold = v;
                return;
            }
        }
    }
    ipfsrt_lua_raise_arg(L, "hamt rule '%s': expected never, entries:N, link-bytes:N or block-bytes:N", s);
}

static ipfsrt_status store_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                ipfsrt_error *err) {
    return ipfsrt_memstore_put(user, cid, data, len, err);
}

/* ipfsrt.pack(path[, opts]) -> root cid[, blockstore]
 * opts: preset ("ipfs-car", "kubo", "kubo-v1-2025"; default ipfs-car), output (CAR
 * path; without it the blocks are returned in a block store), car_version,
 * cid_version, chunk_size, max_links, raw_leaves, hamt, fanout, wrap, hidden */
static int l_pack(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    int t = lua_istable(L, 2) ? 2 : 0;
    const char *preset = "ipfs-car";
    if (t) {
        lua_getfield(L, t, "preset");
        if (!lua_isnil(L, -1)) preset = luaL_checkstring(L, -1);
        lua_pop(L, 1);
    }
    ipfsrt_pack_options o;
    ipfsrt_error err;
    if (ipfsrt_pack_preset(preset, &o, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    const char *output = NULL;
    int car_version = 1;
    if (t) {
        o.cid_version = (int)opt_int(L, t, "cid_version", o.cid_version);
        o.chunk_size = (size_t)opt_int(L, t, "chunk_size", (lua_Integer)o.chunk_size);
        o.max_links = (size_t)opt_int(L, t, "max_links", (lua_Integer)o.max_links);
        o.raw_leaves = opt_bool(L, t, "raw_leaves", o.raw_leaves);
        o.hamt_fanout = (unsigned)opt_int(L, t, "fanout", o.hamt_fanout);
        o.wrap = opt_bool(L, t, "wrap", o.wrap);
        o.hidden = opt_bool(L, t, "hidden", o.hidden);
        car_version = (int)opt_int(L, t, "car_version", 1);
        lua_getfield(L, t, "hamt");
        if (!lua_isnil(L, -1)) parse_hamt_rule(L, luaL_checkstring(L, -1), &o);
        lua_pop(L, 1);
        lua_getfield(L, t, "output");
        output = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
        lua_pop(L, 1); /* the string stays referenced by the options table */
    }
    ipfsrt_cid root;
    if (output) {
        if (ipfsrt_pack_to_car(path, &o, output, car_version, &root, &err) != IPFSRT_OK)
            return ipfsrt_lua_raise(L, &err);
        ipfsrt_lua_push_cid(L, &root);
        return 1;
    }
    ipfsrt_memstore **m = new_store(L);
    ipfsrt_status st = ipfsrt_pack(path, &o, store_sink, *m, &root, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    ipfsrt_lua_push_cid(L, &root);
    lua_insert(L, -2);
    return 2;
}

int ipfsrt_lua_open_unixfs(lua_State *L) {
    static const luaL_Reg unixfs[] = {
        {"resolve", unixfs_resolve}, {"stat", unixfs_stat},
        {"ls", unixfs_ls},           {"read", unixfs_read},
        {"blocks_for", unixfs_blocks_for}, {"export", unixfs_export},
        {NULL, NULL}};
    static const luaL_Reg store_methods[] = {
        {"put", store_put}, {"get", store_get}, {"count", store_count}, {NULL, NULL}};
    ipfsrt_lua_class(L, BLOCKSTORE, store_methods, store_gc, NULL);
    luaL_newlib(L, unixfs);
    lua_setfield(L, -2, "unixfs");
    lua_pushcfunction(L, blockstore_new);
    lua_setfield(L, -2, "blockstore");
    lua_pushcfunction(L, l_pack);
    lua_setfield(L, -2, "pack");
    return 0;
}
