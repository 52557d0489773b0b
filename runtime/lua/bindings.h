/* Shared by the Lua binding files: each file registers one submodule. */
#ifndef IPFSRT_LUA_BINDINGS_H
#define IPFSRT_LUA_BINDINGS_H

#include <lauxlib.h>
#include <lua.h>

#include "ipfsrt.h"
#include "ipfsrt/lua.h"
#include "ipfsrt/netcdf.h"
#include "ipfsrt/refs.h"
#include "ipfsrt/s3.h"
#include "ipfsrt/server.h"

#define IPFSRT_LUA_CID "ipfsrt.cid"
#define IPFSRT_LUA_CAR_FILE "ipfsrt.car.file"
#define IPFSRT_LUA_ERROR "ipfsrt.error"
#define IPFSRT_LUA_BLOCKSTORE "ipfsrt.blockstore"

/* The one value that stands for JSON/DAG-CBOR null (ipfsrt.null). */
void ipfsrt_lua_push_null(lua_State *L);
int ipfsrt_lua_is_null(lua_State *L, int idx);

/* Pushes an error object {code, message, cid, offset}. */
void ipfsrt_lua_push_error(lua_State *L, const ipfsrt_error *err);
/* Raises an error object {code, message, cid, offset}; never returns. */
int ipfsrt_lua_raise(lua_State *L, const ipfsrt_error *err);
/* Raises a bad_argument error object with a formatted message. */
int ipfsrt_lua_raise_arg(lua_State *L, const char *fmt, ...);
void ipfsrt_lua_push_cid(lua_State *L, const ipfsrt_cid *cid);
/* A string argument that names something (a key, a path, a URL): one with a
 * NUL inside is refused, never cut short at it. */
const char *ipfsrt_lua_check_name(lua_State *L, int idx);
const char *ipfsrt_lua_opt_name(lua_State *L, int idx, const char *dflt);
/* The value at idx as text into buf, its __tostring and __name run protected:
 * one that raises (or gives no string) yields a fixed text. For error values
 * met inside C loops, where a raise would unwind over C frames. Pushes nothing. */
const char *ipfsrt_lua_describe(lua_State *L, int idx, char *buf, size_t cap);
/* A cid object, or a CID string (parsed; errors raised). */
const ipfsrt_cid *ipfsrt_lua_check_cid(lua_State *L, int idx, ipfsrt_cid *tmp);

/* Registers a class metatable: methods as __index, gc as __gc, close (or gc when
 * NULL) as __close. Does nothing when the metatable exists already. */
void ipfsrt_lua_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
                      lua_CFunction close);

/* A class whose __index (in meta) answers fields itself and finds methods in
 * the metatable's "methods" table. Does nothing when the metatable exists. */
void ipfsrt_lua_class_indexed(lua_State *L, const char *name, const luaL_Reg *meta,
                              const luaL_Reg *methods);

/* Fields of an option table at t (checked by a Lua module already): the value,
 * or dflt when the field is nil; a field of another type raises. */
lua_Integer ipfsrt_lua_opt_int(lua_State *L, int t, const char *key, lua_Integer dflt);
lua_Number ipfsrt_lua_opt_number(lua_State *L, int t, const char *key, lua_Number dflt);
bool ipfsrt_lua_opt_bool(lua_State *L, int t, const char *key, bool dflt);
const char *ipfsrt_lua_opt_string(lua_State *L, int t, const char *key, const char *dflt);

/* Pushes a function that calls require(module)[field]: entries of the module
 * written in Lua, loaded on first use. */
void ipfsrt_lua_push_lua_function(lua_State *L, const char *module, const char *field);

/* Lets require find the library modules compiled into ipfsrt (ipfsrt.client,
 * ipfsrt.policy, ...) after the files on package.path; once per state. */
void ipfsrt_lua_add_searcher(lua_State *L);

/* A block source from a Lua value: an open CAR file or a block store. */
void ipfsrt_lua_check_source(lua_State *L, int idx, ipfsrt_blocksource *src);
/* A unixfs diff callback: the change, as a table {path, kind, old_cid?, ...},
 * appended to the list at the top of the stack of the lua_State user. */
ipfsrt_status ipfsrt_lua_add_change(void *user, const ipfsrt_unixfs_change *c, ipfsrt_error *err);
/* Pushes a new, empty block store. */
ipfsrt_memstore **ipfsrt_lua_new_blockstore(lua_State *L);

/* {cid, type, size, mode?, mtime?} */
void ipfsrt_lua_push_node_info(lua_State *L, const ipfsrt_unixfs_node_info *info);
/* A Lua array being filled at the top of L's stack. */
typedef struct ipfsrt_lua_list {
    lua_State *L;
    lua_Integer n;
} ipfsrt_lua_list;
/* An ipfsrt_unixfs_entry_fn: appends {name, cid, tsize, type?, size?} to the list. */
ipfsrt_status ipfsrt_lua_list_entry(void *list, const ipfsrt_unixfs_entry *e, ipfsrt_error *err);

/* Every binding opens one way: it sets its names (a submodule's table, a
 * function) on the table at -1, the module, and leaves the stack as it found
 * it. What the Lua modules need but users should not call goes in the
 * private table ipfsrt_lua_push_core pushes (require "ipfsrt.core"). */
void ipfsrt_lua_push_core(lua_State *L);
/* SIGINT, SIGTERM and SIGHUP set the stop request (ipfsrt_request_stop)
 * instead of ending the process. */
void ipfsrt_lua_catch_signals(void);
void ipfsrt_lua_open_error(lua_State *L);
void ipfsrt_lua_open_cid(lua_State *L);
void ipfsrt_lua_open_multiformats(lua_State *L); /* multibase, multihash, varint */
void ipfsrt_lua_open_dagcbor(lua_State *L);
void ipfsrt_lua_open_dagpb(lua_State *L);
void ipfsrt_lua_open_ipns(lua_State *L);
void ipfsrt_lua_open_car(lua_State *L);
void ipfsrt_lua_open_json(lua_State *L);
void ipfsrt_lua_open_unixfs(lua_State *L);
void ipfsrt_lua_open_blockstore(lua_State *L);
void ipfsrt_lua_open_pack(lua_State *L);
/* The pack settings in the table at t: its preset, then the options that
 * change it (ipfsrt.pack's: preset, cid_version, chunk_size, ...). */
void ipfsrt_lua_pack_options(lua_State *L, int t, ipfsrt_pack_options *o);
/* A pack sink into an ipfsrt_memstore (user). */
ipfsrt_status ipfsrt_lua_blockstore_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                         ipfsrt_error *err);
void ipfsrt_lua_open_ndarray(lua_State *L);
void ipfsrt_lua_open_codec(lua_State *L);
void ipfsrt_lua_open_zarr(lua_State *L);   /* core: zarr.store_open, open_node, create_*, ... */
void ipfsrt_lua_open_image(lua_State *L);
void ipfsrt_lua_open_netcdf(lua_State *L); /* core: netcdf_writer */
void ipfsrt_lua_open_serve(lua_State *L);
void ipfsrt_lua_open_client(lua_State *L); /* client, gateways; core: client_new, client_methods */
void ipfsrt_lua_open_s3(lua_State *L);     /* s3; core: s3_put_file */
void ipfsrt_lua_open_refs(lua_State *L);   /* refs: make */
void ipfsrt_lua_open_budget(lua_State *L); /* core: budget_call */

/* What one call of a policy's Lua code may take (0: no bound). */
typedef struct ipfsrt_lua_budget {
    uint64_t max_instructions; /* Lua VM instructions */
    uint64_t max_memory;       /* bytes allocated, net of what the call freed */
} ipfsrt_lua_budget;
/* A policy's per-call defaults: far past what choosing a gateway takes (a few
 * thousand instructions, a few KiB), short of a hang. */
#define IPFSRT_LUA_POLICY_MAX_INSTRUCTIONS 20000000u
#define IPFSRT_LUA_POLICY_MAX_MEMORY ((uint64_t)64 << 20)
/* The limits asked for, 0 standing for the policies' default. */
void ipfsrt_lua_budget_init(ipfsrt_lua_budget *limits, uint64_t max_instructions, uint64_t max_memory);
/* lua_pcall (no message handler) under limits, a stop signal
 * (ipfsrt_stop_requested) ending it too: what runs over fails with an error
 * message that says which bound it passed. */
int ipfsrt_lua_budget_pcall(lua_State *L, int nargs, int nresults, const ipfsrt_lua_budget *limits);
/* One dimension of a selection: an index, {start, stop[, step]} (nil bounds:
 * open), or nil (the whole dimension). */
void ipfsrt_lua_check_ndslice(lua_State *L, int idx, int dim, ipfsrt_ndslice *s);
/* CF decoding's arguments from idx on: dtype, {missing values...} | nil,
 * scale | nil, offset | nil. */
void ipfsrt_lua_check_scaling(lua_State *L, int idx, ipfsrt_dtype *dtype, ipfsrt_ndarray_scaling *sc);
/* Pushes the Lua value at idx as JSON text and returns it, or pushes nothing
 * and returns NULL when it cannot be JSON (functions, mixed tables, nesting
 * past 100 levels). */
const char *ipfsrt_lua_push_json_text(lua_State *L, int idx);
/* Pushes JSON text as Lua values (null as ipfsrt.null); raises on bad JSON. */
void ipfsrt_lua_push_json(lua_State *L, const char *text, size_t len);
/* A buffer for a C call to fill, in a userdata the collector frees, pushed:
 * nothing leaks when a raise follows. */
ipfsrt_buf *ipfsrt_lua_push_buf(lua_State *L);
/* Replaces that buffer (at -1) with the JSON text it holds, as Lua values. */
void ipfsrt_lua_push_json_buf(lua_State *L, ipfsrt_buf *b);
/* S3 options from the (checked) table at idx; the strings stay the table's. */
void ipfsrt_lua_s3_options(lua_State *L, int idx, ipfsrt_s3_options *o);

#endif
