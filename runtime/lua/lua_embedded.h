/* The pure-Lua library modules, compiled in (embed.lua writes the table). */
#ifndef IPFSRT_LUA_EMBEDDED_H
#define IPFSRT_LUA_EMBEDDED_H

#include <stddef.h>

typedef struct ipfsrt_lua_source {
    const char *module; /* "ipfsrt.client" */
    const char *path;   /* where it came from, for messages */
    const char *code;
    size_t len;
} ipfsrt_lua_source;

extern const ipfsrt_lua_source ipfsrt_lua_sources[]; /* ends with a NULL module */

#endif
