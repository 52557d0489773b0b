/* What the files of the ipfsrt.ndarray binding share (lua_ndarray*.c): the
 * userdata's helpers, and each part's methods, metamethods and module
 * functions, which lua_ndarray.c's opener installs. */
#ifndef IPFSRT_LUA_NDARRAY_H
#define IPFSRT_LUA_NDARRAY_H

#include "bindings.h"

#define IPFSRT_LUA_NDARRAY "ipfsrt.ndarray"

/* A new, initialized array userdata at the top of the stack (dead arrays
 * collected first once enough bytes were made since the last time). */
ipfsrt_ndarray *ipfsrt_lua_nd_push_new(lua_State *L);
/* A dtype name at idx (dflt when none); *itemsize for BYTES. */
ipfsrt_dtype ipfsrt_lua_nd_check_dtype(lua_State *L, int idx, ipfsrt_dtype dflt, size_t *itemsize);
/* One element as a Lua value (numbers, booleans, strings). */
void ipfsrt_lua_nd_push_value(lua_State *L, const ipfsrt_ndvalue *v);
/* The axes at idx: an axis, or a list of them, into axes; how many, or -1
 * for none given (nil or an empty list: every axis). */
int ipfsrt_lua_nd_check_axes(lua_State *L, int idx, int *axes);

extern const luaL_Reg ipfsrt_lua_nd_tables_methods[], ipfsrt_lua_nd_tables_functions[];
extern const luaL_Reg ipfsrt_lua_nd_text_methods[], ipfsrt_lua_nd_text_meta[];
extern const luaL_Reg ipfsrt_lua_nd_order_methods[];
extern const luaL_Reg ipfsrt_lua_nd_math_methods[], ipfsrt_lua_nd_math_meta[], ipfsrt_lua_nd_math_functions[];

#endif
