/** @file
 * ipfsrt — the Lua 5.4 module, for C hosts that run their own Lua state, and the core's functions for C modules built apart from it (ipfsrt.mpi). */
#ifndef IPFSRT_LUA_H
#define IPFSRT_LUA_H

#include "client.h"
#include "error.h"
#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;
/** Pushes the ipfsrt module table onto a host's own Lua 5.4 state, like
 * require "ipfsrt" would, and makes require "ipfsrt" and the library's Lua
 * modules (ipfsrt.client, ipfsrt.policy, ...) loadable there. It does not set
 * the global ipfsrt: the host decides (lua_setglobal(L, "ipfsrt")), where
 * luaopen_ipfsrt, for a stock interpreter's require, sets it when unset.
 * @param L the host's state
 * @return 1 (the table pushed); raises a Lua error on out of memory
 * @owner the table is the state's; every object made through it is the state's garbage */
IPFSRT_API int ipfsrt_lua_open(struct lua_State *L);
/** ipfsrt_lua_open under the name require "ipfsrt" looks for in a C module,
 * which also sets the global ipfsrt when it is unset.
 * @param L the state
 * @return 1 (the table pushed) */
IPFSRT_API int luaopen_ipfsrt(struct lua_State *L);

/** The n-d array of an ipfsrt.ndarray value, for a host's C. The array belongs
 * to the Lua value: its elements may be written in place (Lua sees them).
 * @param L the state
 * @param idx the value's stack index
 * @return the array; raises a Lua error when the value is something else (call
 * it where Lua may raise: a lua_CFunction, or under lua_pcall)
 * @owner the Lua value's: valid while that value is reachable (on the stack, in
 * a table, or luaL_ref'd into the registry past the current call), never freed
 * by the host */
IPFSRT_API ipfsrt_ndarray *ipfsrt_lua_check_ndarray(struct lua_State *L, int idx);
/** ipfsrt_lua_check_ndarray without raising.
 * @param L the state
 * @param idx the value's stack index
 * @return the array, or NULL when the value is something else
 * @owner as ipfsrt_lua_check_ndarray */
IPFSRT_API ipfsrt_ndarray *ipfsrt_lua_test_ndarray(struct lua_State *L, int idx);
/** Pushes a new ipfsrt.ndarray that takes over a's buffer and view.
 * @param L the state (raises on out of memory, as any push)
 * @param a an initialized array, left initialized and empty
 * @owner the buffer becomes the Lua value's: Lua's collector frees it */
IPFSRT_API void ipfsrt_lua_push_ndarray(struct lua_State *L, ipfsrt_ndarray *a);

/** Loading a gateway policy written in Lua (scripts/policies/README.md) into a
 * C client. Caller-filled: size first (ipfsrt_lua_policy_options_init). */
typedef struct ipfsrt_lua_policy_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_lua_policy_options_init (or .size = sizeof) */
    /** NULL: the policy runs on a Lua state of its own, closed with it. Else a
     * state the host lends (ipfsrt opened there if it is not yet): it must
     * outlive the policy, and no other thread may use it while the client
     * fetches, since the policy's methods run on it then. */
    struct lua_State *L;
    /** What the policy reports (ctx.log: quarantines and the like), one line
     * at a time; NULL = dropped. Called from the fetching thread. */
    void (*log)(void *user, const char *line);
    void *log_user; /**< handed to log */
    /** What one call of the policy's code (its file, constructor, each method)
     * may take: Lua instructions and bytes allocated; 0 = the defaults (20
     * million instructions, 64 MiB). Past either, the call fails with
     * IPFSRT_EBAD_POLICY naming the method. */
    uint64_t max_instructions;
    uint64_t max_memory; /**< bytes one call may allocate; 0 = 64 MiB */
    /** Nonzero: the policy runs with the state's whole global table (io, os,
     * any module). 0: in the sandbox scripts/policies/README.md lists. */
    int trusted;
} ipfsrt_lua_policy_options;
/** The defaults (a state of the policy's own, no log), size set: what a caller
 * then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_lua_policy_options_init(ipfsrt_lua_policy_options *opts);

/** Fills *policy with the Lua policy spec names, for client's gateways: a
 * named policy (found in IPFSRT_POLICY_PATH, then the installed ones), a
 * FILE.lua, or NULL for IPFSRT_POLICY's. The same contract and the same
 * counting as a C policy (scripts/policies/README.md).
 * @param policy filled on success (size set, every callback, its ctx)
 * @param spec a name, a file, or NULL
 * @param client the client whose gateways the policy sees (read now only)
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_POLICY: unknown name, unreadable file, a constructor that
 * fails, no order method, no policy given; IPFSRT_EOUT_OF_MEMORY
 * @owner ipfsrt_client_set_policy takes the policy over on every return (its
 * free then called by the client, or by that call when it fails); a host that
 * never hands it over calls policy->free(policy->ctx). A lent state (opts->L) must
 * outlive it, and no other thread may use that state while the client fetches */
IPFSRT_API ipfsrt_status ipfsrt_lua_policy_new(ipfsrt_policy *policy, const char *spec, const ipfsrt_client *client,
                                               const ipfsrt_lua_policy_options *opts, ipfsrt_error *err);

/** Finds ipfsrt's files beside its code: the first of candidates (paths
 * relative to the folder of whatever holds libipfsrt-lua's code: the ipfsrt
 * executable, libipfsrt-lua.so or the Lua module ipfsrt.so) under which probe
 * exists. The executable's Lua modules and the named policies are found this
 * way, so that a build tree or an installed prefix, moved anywhere, finds its own.
 * @param candidates n relative paths
 * @param n how many
 * @param probe a relative path, "" for the folder itself
 * @param out "FOLDER/CANDIDATE", on success
 * @param size out's room
 * @return true when one was found */
IPFSRT_API bool ipfsrt_lua_find_beside(const char *const *candidates, size_t n, const char *probe, char *out,
                                       size_t size);

/** A C module loaded into a state where ipfsrt is open reaches the core through
 * this table (a light userdata in the registry under IPFSRT_LUA_API), never
 * through a second copy of the core linked into it: the host's ipfsrt may be
 * the executable, ipfsrt.so under a stock lua5.4 or a C program's static
 * library, and its arrays, thread settings and errors must be the same ones.
 * (A host linked with libipfsrt-lua calls the functions above directly.) */
#define IPFSRT_LUA_API "ipfsrt.c_api"
/** The version of ipfsrt_lua_api this header describes. */
#define IPFSRT_LUA_API_VERSION 1

/** Where in the registry a module may put a function for a host to call, with
 * the exit code, when its script has failed, before it closes the state
 * (ipfsrt.mpi ends the whole job there: a rank that failed and then closed
 * normally would leave the others waiting for it). */
#define IPFSRT_LUA_ON_FAILURE "ipfsrt.on_failure"

/** What a host's ipfsrt hands the C modules it loads (ipfsrt.mpi): its own
 * functions, so that arrays and settings are the host's. */
typedef struct ipfsrt_lua_api {
    unsigned version; /**< IPFSRT_LUA_API_VERSION; fields are only ever added at the end */
    size_t size;      /**< sizeof the host's table */
    /** ipfsrt_lua_test_ndarray, with its lifetime */
    ipfsrt_ndarray *(*test_ndarray)(struct lua_State *L, int idx);
    /** pushes a new ipfsrt.ndarray that takes over a's view (a is left empty) */
    void (*push_ndarray)(struct lua_State *L, ipfsrt_ndarray *a);
    /** raises an ipfsrt error object; never returns */
    int (*raise)(struct lua_State *L, const ipfsrt_error *err);
    void (*ndarray_init)(ipfsrt_ndarray *a); /**< ipfsrt_ndarray_init */
    void (*ndarray_free)(ipfsrt_ndarray *a); /**< ipfsrt_ndarray_free */
    /** ipfsrt_ndarray_zeros */
    ipfsrt_status (*ndarray_zeros)(ipfsrt_ndarray *a, ipfsrt_dtype dtype, size_t itemsize, int ndim,
                                       const size_t *shape, ipfsrt_error *err);
    /** ipfsrt_ndarray_copy */
    ipfsrt_status (*ndarray_copy)(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err);
    size_t (*ndarray_size)(const ipfsrt_ndarray *a);          /**< ipfsrt_ndarray_size */
    bool (*ndarray_is_contiguous)(const ipfsrt_ndarray *a);   /**< ipfsrt_ndarray_is_contiguous */
    const char *(*dtype_name)(ipfsrt_dtype dtype);            /**< ipfsrt_dtype_name */
    void (*threads_set)(unsigned n);                          /**< ipfsrt_threads_set */
    unsigned (*cpus_usable)(void);                            /**< ipfsrt_cpus_usable */
} ipfsrt_lua_api;

#ifdef __cplusplus
}
#endif

#endif
