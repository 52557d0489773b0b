/* The ipfsrt Lua module: luaopen_ipfsrt for stock interpreters, ipfsrt_lua_open
 * for hosts that embed Lua. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <cJSON.h>
#include <microhttpd.h>
#include <curl/curl.h>
#include <mbedtls/version.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <lualib.h>

#include "bindings.h"

#ifndef IPFSRT_POLICYDIR
#define IPFSRT_POLICYDIR "/usr/local/share/ipfsrt/policies"
#endif

/* Where the named policies are: beside the installed module or library that
 * holds this code (so that an install moved to another prefix still finds its
 * own), else where it was configured to be installed. */
static void push_policy_dir(lua_State *L) {
    static const char *const beside[] = {"/../../../share/ipfsrt/policies", /* lib/lua/5.4/ipfsrt.so */
                                         "/../share/ipfsrt/policies"};      /* lib/libipfsrt.so */
    Dl_info info;
    if (dladdr((void *)push_policy_dir, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        *strrchr(dir, '/') = '\0';
        for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
            char probe[PATH_MAX + 64];
            struct stat sb;
            snprintf(probe, sizeof probe, "%s%s", dir, beside[i]);
            if (stat(probe, &sb) == 0 && S_ISDIR(sb.st_mode)) {
                lua_pushstring(L, probe);
                return;
            }
        }
    }
    lua_pushstring(L, IPFSRT_POLICYDIR);
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

/* ipfsrt.catch_signals(): SIGINT, SIGTERM and SIGHUP stop the fetch under way
 * (which fails, leaving no partial file behind) instead of killing the process. */
static int catch_signals(lua_State *L) {
    (void)L;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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

/* ipfsrt.versions() -> {ipfsrt, lua, curl, mbedtls, cjson, hash} */
static int versions(lua_State *L) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, IPFSRT_VERSION_STRING);
    lua_setfield(L, -2, "ipfsrt");
    lua_pushstring(L, LUA_RELEASE);
    lua_setfield(L, -2, "lua");
    lua_pushstring(L, curl_version_info(CURLVERSION_NOW)->version);
    lua_setfield(L, -2, "curl");
    char mbed[18];
    mbedtls_version_get_string(mbed);
    lua_pushstring(L, mbed);
    lua_setfield(L, -2, "mbedtls");
    lua_pushstring(L, cJSON_Version());
    lua_setfield(L, -2, "cjson");
    lua_pushstring(L, MHD_get_version());
    lua_setfield(L, -2, "microhttpd");
    lua_pushstring(L, ipfsrt_hash_backend_current()->name);
    lua_setfield(L, -2, "hash");
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
    luaL_newlib(L, fns);
    push_policy_dir(L);
    lua_setfield(L, -2, "policy_dir");
    lua_pushstring(L, IPFSRT_VERSION_STRING);
    lua_setfield(L, -2, "version");
    ipfsrt_lua_push_null(L);
    lua_setfield(L, -2, "null");
    static const luaL_Reg submodules[] = { /* each pushes what goes under its name */
        {"error", ipfsrt_lua_open_error},   {"cid", ipfsrt_lua_open_cid},
        {"dagcbor", ipfsrt_lua_open_dagcbor}, {"car", ipfsrt_lua_open_car},
        {"json", ipfsrt_lua_open_json},     {"unixfs", ipfsrt_lua_open_unixfs},
        {"blockstore", ipfsrt_lua_open_blockstore}, {"pack", ipfsrt_lua_open_pack},
        {"ndarray", ipfsrt_lua_open_ndarray}, {"codec", ipfsrt_lua_open_codec},
        {"zarr", ipfsrt_lua_open_zarr},     {"image", ipfsrt_lua_open_image}, {NULL, NULL}};
    for (const luaL_Reg *m = submodules; m->name; m++) {
        m->func(L);
        lua_setfield(L, -2, m->name);
    }
    static const char *const dataset[] = {"open", "where", NULL}, *const plot[] = {"map", "line", NULL};
    set_lua_functions(L, "dataset", "ipfsrt.dataset", dataset); /* lua/ipfsrt/dataset.lua */
    set_lua_functions(L, "plot", "ipfsrt.plot", plot);          /* lua/ipfsrt/plot.lua */
    ipfsrt_lua_open_multiformats(L);
    ipfsrt_lua_open_serve(L);
    ipfsrt_lua_open_client(L);
    ipfsrt_lua_open_s3(L);
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

int luaopen_ipfsrt(lua_State *L) { return ipfsrt_lua_open(L); }
