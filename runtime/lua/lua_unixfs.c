/* ipfsrt.unixfs: resolution, reads, listings and exports over a block source */
#include <stdlib.h>
#include <string.h>

#include "bindings.h"

/* --------------------------------------------------------------- helpers */

static void options(lua_State *L, int idx, ipfsrt_unixfs_options *o) {
    ipfsrt_unixfs_options_init(o);
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
    if (e->problem != IPFSRT_OK) { /* the entry's block could not be read */
        lua_pushstring(L, ipfsrt_status_name(e->problem));
        lua_setfield(L, -2, "error");
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
    range(L, 3, &c.opts.offset, &c.opts.length);
    lua_newtable(L);
    ipfsrt_lua_list col = {L, 0};
    ipfsrt_error err;
    if (ipfsrt_unixfs_blocks_for(&c.src, c.path, &c.opts, push_cid_item, &col, &err) != IPFSRT_OK)
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

ipfsrt_status ipfsrt_lua_add_change(void *user, const ipfsrt_unixfs_change *c, ipfsrt_error *err) {
    (void)err;
    lua_State *L = user;
    static const char *const kinds[] = {"added", "removed", "changed"};
    lua_createtable(L, 0, 6);
    lua_pushstring(L, c->path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, kinds[c->kind]);
    lua_setfield(L, -2, "kind");
    if (c->old_cid) {
        ipfsrt_lua_push_cid(L, c->old_cid);
        lua_setfield(L, -2, "old_cid");
        lua_pushinteger(L, (lua_Integer)c->old_tsize);
        lua_setfield(L, -2, "old_tsize");
    }
    if (c->new_cid) {
        ipfsrt_lua_push_cid(L, c->new_cid);
        lua_setfield(L, -2, "new_cid");
        lua_pushinteger(L, (lua_Integer)c->new_tsize);
        lua_setfield(L, -2, "new_tsize");
    }
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return IPFSRT_OK;
}

/* unixfs.diff(old source, old root, new source, new root) -> {{path, kind,
 * old_cid?, new_cid?, old_tsize?, new_tsize?}, ...}: the files that differ */
static int unixfs_diff(lua_State *L) {
    ipfsrt_blocksource old_src, new_src;
    ipfsrt_cid old_tmp, new_tmp;
    ipfsrt_lua_check_source(L, 1, &old_src);
    const ipfsrt_cid *old_root = ipfsrt_lua_check_cid(L, 2, &old_tmp);
    ipfsrt_lua_check_source(L, 3, &new_src);
    const ipfsrt_cid *new_root = ipfsrt_lua_check_cid(L, 4, &new_tmp);
    lua_settop(L, 4);
    lua_newtable(L);
    ipfsrt_error err;
    if (ipfsrt_unixfs_diff(&old_src, old_root, &new_src, new_root, ipfsrt_lua_add_change, L, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

void ipfsrt_lua_open_unixfs(lua_State *L) {
    static const luaL_Reg unixfs[] = {
        {"resolve", unixfs_resolve}, {"stat", unixfs_stat},
        {"ls", unixfs_ls},           {"read", unixfs_read},
        {"blocks_for", unixfs_blocks_for}, {"export", unixfs_export},
        {"diff", unixfs_diff},
        {NULL, NULL}};
    luaL_newlib(L, unixfs);
    lua_setfield(L, -2, "unixfs");
}
