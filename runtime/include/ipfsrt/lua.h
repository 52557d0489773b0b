/* ipfsrt — the Lua 5.4 module, for C hosts that run their own Lua state, and
 * the core's functions for C modules built apart from it (ipfsrt.mpi). */
#ifndef IPFSRT_LUA_H
#define IPFSRT_LUA_H

#include "client.h"
#include "error.h"
#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;
/* Pushes the ipfsrt module table onto a host's own Lua 5.4 state (and returns 1),
 * like require "ipfsrt" would, and makes require "ipfsrt" and the library's
 * Lua modules (ipfsrt.client, ipfsrt.policy, ...) loadable there. It does not
 * set the global ipfsrt: the host decides (lua_setglobal(L, "ipfsrt")), where
 * luaopen_ipfsrt, for a stock interpreter's require, sets it when unset. */
IPFSRT_API int ipfsrt_lua_open(struct lua_State *L);
/* The same, under the name require "ipfsrt" looks for in a C module. */
IPFSRT_API int luaopen_ipfsrt(struct lua_State *L);

/* N-d arrays between a host's C and its Lua (ipfsrt.ndarray values). The
 * array belongs to the Lua value: the pointer is valid while that value is
 * reachable (on the stack, in a table, or luaL_ref'd into the registry to keep
 * it past the current call), and is never freed by the host; its elements may
 * be written in place, and Lua sees them. check raises a Lua error when the
 * value at idx is something else (call it where Lua may raise: a
 * lua_CFunction, or under lua_pcall); test returns NULL instead. */
IPFSRT_API ipfsrt_ndarray *ipfsrt_lua_check_ndarray(struct lua_State *L, int idx);
IPFSRT_API ipfsrt_ndarray *ipfsrt_lua_test_ndarray(struct lua_State *L, int idx);
/* Pushes a new ipfsrt.ndarray that takes over a's buffer and view (a is left
 * initialized and empty; Lua's collector frees the buffer). Raises on out of
 * memory, as any push. */
IPFSRT_API void ipfsrt_lua_push_ndarray(struct lua_State *L, ipfsrt_ndarray *a);

/* Loading a gateway policy written in Lua (scripts/policies/README.md) into a
 * C client. Caller-filled: size first (ipfsrt_lua_policy_options_init). */
typedef struct ipfsrt_lua_policy_options {
    size_t size;
    /* NULL: the policy runs on a Lua state of its own, closed with it. Else a
     * state the host lends (ipfsrt opened there if it is not yet): it must
     * outlive the policy, and no other thread may use it while the client
     * fetches, since the policy's methods run on it then. */
    struct lua_State *L;
    /* What the policy reports (ctx.log: quarantines and the like), one line
     * at a time; NULL = dropped. Called from the fetching thread. */
    void (*log)(void *user, const char *line);
    void *log_user;
} ipfsrt_lua_policy_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_API void ipfsrt_lua_policy_options_init(ipfsrt_lua_policy_options *opts);

/* Fills *policy with the Lua policy spec names, for client's gateways: a
 * named policy (found in IPFSRT_POLICY_PATH, then the installed ones), a
 * FILE.lua, or NULL for IPFSRT_POLICY's. The same contract and the same
 * counting as a C policy: ipfsrt_client_set_policy(client, policy, err)
 * takes it over (its max_in_flight answered then), and the policy's free
 * releases what it holds, for a host that does not hand it over. opts may be
 * NULL. Errors: IPFSRT_EBAD_POLICY (unknown name, unreadable file, a
 * constructor that fails, no order method), IPFSRT_EOUT_OF_MEMORY. */
IPFSRT_API ipfsrt_status ipfsrt_lua_policy_new(ipfsrt_policy *policy, const char *spec, const ipfsrt_client *client,
                                               const ipfsrt_lua_policy_options *opts, ipfsrt_error *err);

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
 * library, and its arrays, thread settings and errors must be the same ones.
 * (A host linked with libipfsrt-lua calls the functions above directly.) */
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
    /* ipfsrt_lua_test_ndarray, with its lifetime */
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
