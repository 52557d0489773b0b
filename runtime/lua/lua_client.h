/* The client userdata, shared by its binding (lua_client.c) and the bridge to
 * Lua policies (lua_policy.c). */
#ifndef IPFSRT_LUA_CLIENT_H
#define IPFSRT_LUA_CLIENT_H

#include "bindings.h"

#define IPFSRT_LUA_CLIENT "ipfsrt.client"

typedef struct ipfsrt_lua_client {
    ipfsrt_client *c;
    lua_State *L;     /* the state of the call under way: policies run on it */
    int progress_ref;
    char callback_error[600]; /* the first error a Lua callback raised during a call */
    bool busy; /* a fetch is under way: Lua callbacks may not start another or close */
} ipfsrt_lua_client;

ipfsrt_lua_client *ipfsrt_lua_check_client(lua_State *L);
/* For the methods that fetch: libcurl cannot be re-entered from its own loop. */
ipfsrt_lua_client *ipfsrt_lua_check_idle_client(lua_State *L);
/* Keeps the first error of a Lua callback (at -1), pops it, and returns it as
 * the callback's status for the C side (which stops the call). */
ipfsrt_status ipfsrt_lua_client_callback_failed(ipfsrt_lua_client *lc, const char *what,
                                                ipfsrt_error *err);
/* A call on the client from another binding (a Zarr store's reads): enter
 * checks it is idle and marks it busy; leave (after the caller has released
 * what it holds) raises the call's error, or the first a Lua callback raised. */
void ipfsrt_lua_client_enter(lua_State *L, ipfsrt_lua_client *lc);
void ipfsrt_lua_client_leave(lua_State *L, ipfsrt_lua_client *lc, ipfsrt_status st, const ipfsrt_error *err);
/* client:set_policy_object(policy | nil, gateways[, what]) (lua_policy.c) */
int ipfsrt_lua_client_set_policy_object(lua_State *L);

#endif
