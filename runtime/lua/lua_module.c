/* The ipfsrt Lua module: luaopen_ipfsrt for stock interpreters, ipfsrt_lua_open
 * for hosts that embed Lua. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <cJSON.h>
#include <curl/curl.h>
#ifdef IPFSRT_WITH_SERVER
#include <microhttpd.h>
#endif
#ifdef IPFSRT_HAVE_OPENSSL
#include <openssl/crypto.h>
#else
#include <mbedtls/version.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <lualib.h>

#include "bindings.h"

#ifndef IPFSRT_POLICYDIR
#define IPFSRT_POLICYDIR "/usr/local/share/ipfsrt/policies"
#endif

/* The folder of the file holding this code, absolute. A shared object is
 * named by the dynamic linker as it was loaded; the executable it names by
 * argv[0], which whoever starts us may set to anything (exec -a), so the
 * executable's own file is read from /proc/self/exe. */
static bool code_folder(char *out, size_t size) {
    Dl_info info;
    struct link_map *object = NULL;
    if (dladdr1((void *)code_folder, &info, (void **)&object, RTLD_DL_LINKMAP) && object &&
        object->l_name && object->l_name[0]) {
        snprintf(out, size, "%s", object->l_name);
    } else {
        ssize_t len = readlink("/proc/self/exe", out, size - 1);
        if (len <= 0) return false;
        out[len] = '\0';
    }
    char *slash = strrchr(out, '/');
    if (!slash) return false;
    *slash = '\0';
    if (*out == '/') return true;
    char absolute[PATH_MAX]; /* loaded by a relative name: stays right after a chdir */
    if (!realpath(out, absolute)) return false;
    snprintf(out, size, "%s", absolute);
    return true;
}

bool ipfsrt_lua_find_beside(const char *const *candidates, size_t n, const char *probe, char *out, size_t size) {
    char dir[PATH_MAX];
    if (!code_folder(dir, sizeof dir)) return false;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        struct stat sb;
        snprintf(path, sizeof path, "%s%s%s", dir, candidates[i], probe);
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            snprintf(out, size, "%s%s", dir, candidates[i]);
            return true;
        }
    }
    return false;
}

/* Where the named policies are: beside the code (a build tree: build/ipfsrt,
 * build/ipfsrt.so; an install: bin/ipfsrt, lib/libipfsrt-lua.so,
 * lib/lua/5.4/ipfsrt.so), else where they were configured to be installed. */
static void push_policy_dir(lua_State *L) {
    static const char *const beside[] = {"/../scripts/policies", "/../share/ipfsrt/policies",
                                         "/../../../share/ipfsrt/policies"};
    char dir[PATH_MAX + 64];
    lua_pushstring(L, ipfsrt_lua_find_beside(beside, 3, "", dir, sizeof dir) ? dir : IPFSRT_POLICYDIR);
}

/* The core's functions for C modules built apart (ipfsrt/lua.h). */
static void publish_c_api(lua_State *L) {
    static const ipfsrt_lua_api api = {
        IPFSRT_LUA_API_VERSION,  sizeof api,         ipfsrt_lua_test_ndarray,   ipfsrt_lua_push_ndarray,
        ipfsrt_lua_raise,        ipfsrt_ndarray_init, ipfsrt_ndarray_free,      ipfsrt_ndarray_zeros,
        ipfsrt_ndarray_copy,     ipfsrt_ndarray_size, ipfsrt_ndarray_is_contiguous, ipfsrt_dtype_name,
        ipfsrt_threads_set,      ipfsrt_cpus_usable};
    lua_pushlightuserdata(L, (void *)&api);
    lua_setfield(L, LUA_REGISTRYINDEX, IPFSRT_LUA_API);
}

/* ipfsrt.threads() -> worker threads used when no option says (ipfsrt_threads), and the CPUs usable */
static int l_threads(lua_State *L) {
    lua_pushinteger(L, ipfsrt_threads());
    lua_pushinteger(L, ipfsrt_cpus_usable());
    return 2;
}

static int l_clock(lua_State *L) {
    lua_pushnumber(L, ipfsrt_clock());
    return 1;
}

/* ipfsrt.isatty(file or fd) -> whether it is a terminal (progress bars) */
static int l_isatty(lua_State *L) {
    int fd;
    luaL_Stream *stream = luaL_testudata(L, 1, LUA_FILEHANDLE);
    if (stream) fd = stream->closef && stream->f ? fileno(stream->f) : -1;
    else fd = (int)luaL_checkinteger(L, 1);
    lua_pushboolean(L, fd >= 0 && isatty(fd));
    return 1;
}

static void on_stop_signal(int sig) { ipfsrt_request_stop(sig); }

void ipfsrt_lua_catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* ipfsrt.catch_signals(): SIGINT, SIGTERM and SIGHUP stop the fetch under way
 * (which fails, leaving no partial file behind) instead of killing the process. */
static int catch_signals(lua_State *L) {
    (void)L;
    ipfsrt_lua_catch_signals();
    return 0;
}

/* ipfsrt.stop_requested() -> the signal that asked fetches to stop, or nil */
static int stop_requested(lua_State *L) {
    int sig = ipfsrt_stop_requested();
    if (!sig) return 0;
    lua_pushinteger(L, sig);
    return 1;
}

/* ipfsrt.hash.backend([name]) -> name in use (after selecting name, if given) */
static int hash_backend(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) {
        ipfsrt_error err;
        if (ipfsrt_hash_backend_select(luaL_checkstring(L, 1), &err) != IPFSRT_OK)
            return ipfsrt_lua_raise(L, &err);
    }
    lua_pushstring(L, ipfsrt_hash_backend_current()->name);
    return 1;
}

static int hash_backends(lua_State *L) {
    lua_newtable(L);
    const ipfsrt_hash_backend *const *b = ipfsrt_hash_backends();
    for (lua_Integer i = 0; b[i]; i++) {
        lua_pushstring(L, b[i]->name);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ipfsrt.listdir(path) -> sorted array of entry names (no "." or ".."); Lua's
 * standard library has no way to list a directory. */
static int listdir(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    DIR *d = opendir(path);
    if (!d) {
        ipfsrt_error err;
        ipfsrt_error_clear(&err);
        err.code = IPFSRT_EIO;
        snprintf(err.message, sizeof err.message, "cannot list %s: %s", path, strerror(errno));
        return ipfsrt_lua_raise(L, &err);
    }
    lua_newtable(L);
    lua_Integer n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        lua_pushstring(L, e->d_name);
        lua_rawseti(L, -2, ++n);
    }
    closedir(d);
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_pushvalue(L, -3);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    return 1;
}

/* The crypto library behind the built-in hash backend, with its version. */
static void push_crypto_version(lua_State *L) {
#ifdef IPFSRT_HAVE_OPENSSL
    lua_pushstring(L, OpenSSL_version(OPENSSL_VERSION));
#else
    char mbed[18];
    mbedtls_version_get_string(mbed);
    lua_pushfstring(L, "mbedTLS %s", mbed);
#endif
}

/* ipfsrt.versions() -> {ipfsrt, lua, curl, cjson, microhttpd (with the server), hash, crypto} */
static int versions(lua_State *L) {
    lua_createtable(L, 0, 7);
    lua_pushstring(L, IPFSRT_VERSION_STRING);
    lua_setfield(L, -2, "ipfsrt");
    lua_pushstring(L, LUA_RELEASE);
    lua_setfield(L, -2, "lua");
    lua_pushstring(L, curl_version_info(CURLVERSION_NOW)->version);
    lua_setfield(L, -2, "curl");
    lua_pushstring(L, cJSON_Version());
    lua_setfield(L, -2, "cjson");
#ifdef IPFSRT_WITH_SERVER
    lua_pushstring(L, MHD_get_version());
    lua_setfield(L, -2, "microhttpd");
#endif
    lua_pushstring(L, ipfsrt_hash_backend_current()->name);
    lua_setfield(L, -2, "hash");
    push_crypto_version(L);
    lua_setfield(L, -2, "crypto");
    return 1;
}

/* Field name of the table at the top: a table of the functions names of the
 * Lua module, each loading it on first use. */
static void set_lua_functions(lua_State *L, const char *name, const char *module, const char *const *names) {
    lua_newtable(L);
    for (const char *const *n = names; *n; n++) {
        ipfsrt_lua_push_lua_function(L, module, *n);
        lua_setfield(L, -2, *n);
    }
    lua_setfield(L, -2, name);
}

#define CORE "ipfsrt.core"

void ipfsrt_lua_push_core(lua_State *L) { luaL_getsubtable(L, LUA_REGISTRYINDEX, CORE); }

/* The private table is also what require "ipfsrt.core" gives the Lua modules. */
static void publish_core(lua_State *L) {
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    ipfsrt_lua_push_core(L);
    lua_setfield(L, -2, CORE);
    lua_pop(L, 1);
}

int ipfsrt_lua_open(lua_State *L) {
    static const luaL_Reg fns[] = {{"clock", l_clock}, {"threads", l_threads}, {"versions", versions},
                                   {"listdir", listdir}, {"isatty", l_isatty},
                                   {"catch_signals", catch_signals},
                                   {"stop_requested", stop_requested},
                                   {NULL, NULL}};
    static const luaL_Reg hash[] = {{"backend", hash_backend}, {"backends", hash_backends},
                                    {NULL, NULL}};
    ipfsrt_lua_add_searcher(L);
    publish_c_api(L);
    publish_core(L);
    luaL_newlib(L, fns);
    push_policy_dir(L);
    lua_setfield(L, -2, "policy_dir");
    lua_pushstring(L, IPFSRT_VERSION_STRING);
    lua_setfield(L, -2, "version");
    ipfsrt_lua_push_null(L);
    lua_setfield(L, -2, "null");
    /* The modules' bindings with the modules this build has (MODULES=...). */
    static void (*const bindings[])(lua_State *L) = {
        ipfsrt_lua_open_error,  ipfsrt_lua_open_cid,        ipfsrt_lua_open_multiformats, ipfsrt_lua_open_dagcbor,
        ipfsrt_lua_open_dagpb,  ipfsrt_lua_open_ipns,
        ipfsrt_lua_open_car,    ipfsrt_lua_open_json,       ipfsrt_lua_open_unixfs,       ipfsrt_lua_open_blockstore,
        ipfsrt_lua_open_pack,   ipfsrt_lua_open_ndarray,    ipfsrt_lua_open_codec,        ipfsrt_lua_open_zarr,
        ipfsrt_lua_open_image,  ipfsrt_lua_open_client,     ipfsrt_lua_open_budget,
#ifdef IPFSRT_WITH_SERVER
        ipfsrt_lua_open_serve,
#endif
#ifdef IPFSRT_WITH_S3
        ipfsrt_lua_open_s3,
#endif
#ifdef IPFSRT_WITH_NETCDF
        ipfsrt_lua_open_refs,   ipfsrt_lua_open_netcdf,
#endif
    };
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++) bindings[i](L);
    static const char *const dataset[] = {"open", "where", "append", "diff", NULL}, *const plot[] = {"map", "line", NULL};
    set_lua_functions(L, "dataset", "ipfsrt.dataset", dataset); /* lua/ipfsrt/dataset.lua */
    set_lua_functions(L, "plot", "ipfsrt.dataset.plot", plot); /* lua/ipfsrt/dataset/plot.lua */
    static const char *const name[] = {"keygen", "key", "list", "publish", "inspect", "keystore", "duration", NULL};
    set_lua_functions(L, "name", "ipfsrt.name", name); /* lua/ipfsrt/name.lua */
    static const char *const selections[] = {"list", "points"}; /* ipfsrt.list{...}: lua/ipfsrt/dataset/gather.lua */
    for (size_t i = 0; i < sizeof selections / sizeof selections[0]; i++) {
        ipfsrt_lua_push_lua_function(L, "ipfsrt.dataset.gather", selections[i]);
        lua_setfield(L, -2, selections[i]);
    }
    luaL_newlib(L, hash);
    lua_setfield(L, -2, "hash");
    /* the library's Lua modules require "ipfsrt": a host that called this
     * function directly gets the same table there */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "ipfsrt");
    if (lua_isnil(L, -1)) {
        lua_pushvalue(L, -3);
        lua_setfield(L, -3, "ipfsrt");
    }
    lua_pop(L, 2);
    return 1;
}

/* require "ipfsrt" from a stock lua5.4 also sets the global ipfsrt (when unset),
 * as the executable does: scripts and the README's examples read the same
 * under both. A C host calling ipfsrt_lua_open decides for itself. */
int luaopen_ipfsrt(lua_State *L) {
    ipfsrt_lua_open(L);
    if (lua_getglobal(L, "ipfsrt") == LUA_TNIL) {
        lua_pushvalue(L, -2);
        lua_setglobal(L, "ipfsrt");
    }
    lua_pop(L, 1);
    return 1;
}
