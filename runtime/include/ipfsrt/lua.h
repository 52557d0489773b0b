/* ipfsrt — the Lua 5.4 module, for C hosts that run their own Lua state, and
 * the core's functions for C modules built apart from it (ipfsrt.mpi). */
#ifndef IPFSRT_LUA_H
#define IPFSRT_LUA_H

#include "error.h"
#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;
/* Pushes the ipfsrt module table onto a host's own Lua 5.4 state (and returns 1),
 * like require "ipfsrt" would. */
IPFSRT_API int ipfsrt_lua_open(struct lua_State *L);
/* The same, under the name require "ipfsrt" looks for in a C module. */
IPFSRT_API int luaopen_ipfsrt(struct lua_State *L);

/* Finds ipfsrt's files beside its code: the first of candidates (paths
 * relative to the folder of whatever holds libipfsrt-lua's code: the ipfsrt
 * executable, libipfsrt-lua.so or the Lua module ipfsrt.so) under which probe
 * (a relative path, "" for the folder itself) exists, as "FOLDER/CANDIDATE"
 * into out; false when none does. The executable's Lua modules and the named
 * policies are found this way, so that a build tree or an installed prefix,
 * moved anywhere, finds its own. */
IPFSRT_API bool ipfsrt_lua_find_beside(const char *const *candidates, size_t n, const char *probe, char *out,
                                       size_t size);

/* A C module loaded into a state where ipfsrt is open reaches the core through
 * this table (a light userdata in the registry under IPFSRT_LUA_API), never
 * through a second copy of the core linked into it: the host's ipfsrt may be
 * the executable, ipfsrt.so under a stock lua5.4 or a C program's static
 * library, and its arrays, thread settings and errors must be the same ones. */
#define IPFSRT_LUA_API "ipfsrt.c_api"
#define IPFSRT_LUA_API_VERSION 1

/* Where in the registry a module may put a function for a host to call, with
 * the exit code, when its script has failed, before it closes the state
 * (ipfsrt.mpi ends the whole job there: a rank that failed and then closed
 * normally would leave the others waiting for it). */
#define IPFSRT_LUA_ON_FAILURE "ipfsrt.on_failure"

typedef struct ipfsrt_lua_api {
    unsigned version; /* IPFSRT_LUA_API_VERSION; fields are only ever added at the end */
    size_t size;      /* sizeof the host's table */
    /* the ipfsrt.ndarray at idx, or NULL when it is something else */
    ipfsrt_ndarray *(*test_ndarray)(struct lua_State *L, int idx);
    /* pushes a new ipfsrt.ndarray that takes over a's view (a is left empty) */
    void (*push_ndarray)(struct lua_State *L, ipfsrt_ndarray *a);
    /* raises an ipfsrt error object; never returns */
    int (*raise)(struct lua_State *L, const ipfsrt_error *err);
    void (*ndarray_init)(ipfsrt_ndarray *a);
    void (*ndarray_free)(ipfsrt_ndarray *a);
    ipfsrt_status (*ndarray_zeros)(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                       const size_t *shape, ipfsrt_error *err);
    ipfsrt_status (*ndarray_copy)(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);
    size_t (*ndarray_size)(const ipfsrt_ndarray *a);
    bool (*ndarray_is_contiguous)(const ipfsrt_ndarray *a);
    const char *(*dtype_name)(ipfsrt_dtype dtype);
    void (*threads_set)(unsigned n);
    unsigned (*cpus_usable)(void);
} ipfsrt_lua_api;

#ifdef __cplusplus
}
#endif

#endif
