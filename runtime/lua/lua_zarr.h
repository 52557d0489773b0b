/* The Zarr store userdata, shared by its binding (lua_zarr_store.c) and the
 * node binding (lua_zarr_node.c), which reads through it. */
#ifndef IPFSRT_LUA_ZARR_H
#define IPFSRT_LUA_ZARR_H

#include "lua_client.h"

#define IPFSRT_LUA_ZARR_STORE "ipfsrt.zarr.store"

typedef struct ipfsrt_lua_store_ctx ipfsrt_lua_store_ctx;

typedef struct ipfsrt_lua_zstore {
    ipfsrt_zarr_store *s;
    ipfsrt_lua_client *lc;     /* the client an ipfs:// store reads through (its userdata is the store's
                                  user value), or NULL */
    ipfsrt_lua_store_ctx *lua; /* a store written in Lua, or NULL */
} ipfsrt_lua_zstore;

ipfsrt_lua_zstore *ipfsrt_lua_check_zstore(lua_State *L, int idx);
/* Around every call that reads: callbacks (policies, a Lua store) run on L;
 * leave raises the call's error, or the first a callback raised. */
void ipfsrt_lua_zstore_enter(lua_State *L, ipfsrt_lua_zstore *zs);
void ipfsrt_lua_zstore_leave(lua_State *L, ipfsrt_lua_zstore *zs, ipfsrt_status st, const ipfsrt_error *err);

/* Sets an array's metadata fields (shape, chunks, dtype, fill_value, attrs, ...)
 * on the table at -1. */
void ipfsrt_lua_zarr_meta_fields(lua_State *L, const ipfsrt_zarr_meta *m);
/* A chunk's index from the integers at first, first + 1, ... (one per dimension). */
void ipfsrt_lua_zarr_check_index(lua_State *L, const ipfsrt_zarr_meta *m, int first, size_t *index);

void ipfsrt_lua_zarr_store_functions(lua_State *L); /* sets store_open, store_lua on the table at -1 */
void ipfsrt_lua_zarr_node_functions(lua_State *L);  /* sets open_node, create_*, ... on the table at -1 */

#endif
