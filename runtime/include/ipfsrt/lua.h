/* ipfsrt — the Lua 5.4 module, for C hosts that run their own Lua state. */
#ifndef IPFSRT_LUA_H
#define IPFSRT_LUA_H

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;
/* Pushes the ipfsrt module table onto a host's own Lua 5.4 state (and returns 1),
 * like require "ipfsrt" would. */
int ipfsrt_lua_open(struct lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
