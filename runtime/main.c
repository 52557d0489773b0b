/* The ipfsrt executable: a Lua 5.4 interpreter with the ipfsrt module preloaded.
 * Scripts, -e and the prompt run here; subcommands, --help and --version are
 * Lua (lua/ipfsrt/cli/), so adding one needs no recompiling. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt.h"
#include "ipfsrt/lua.h"

#ifndef IPFSRT_LUADIR
#define IPFSRT_LUADIR "/usr/local/share/lua/5.4"
#endif

/* Finds lua/ next to the executable: ../lua in the source tree (build/ipfsrt),
 * ../share/lua/5.4 once installed, else the configured install location. */
static void find_luadir(char *out, size_t size) {
    static const char *const candidates[] = {"/../lua", "/../share/lua/5.4"};
    if (!ipfsrt_lua_find_beside(candidates, 2, "/ipfsrt/cli", out, size)) snprintf(out, size, "%s", IPFSRT_LUADIR);
}

/* Optional C modules built apart (ipfsrt/mpi_core.so): beside the executable
 * in the build tree (lua/ipfsrt/), lib/lua/5.4 once installed; before package.cpath. */
static void setup_cpath(lua_State *L) {
    static const char *const candidates[] = {"/lua", "/../lib/lua/5.4"};
    char dir[PATH_MAX + 64];
    if (!ipfsrt_lua_find_beside(candidates, 2, "/ipfsrt", dir, sizeof dir)) return;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "cpath");
    lua_pushfstring(L, "%s/?.so;%s", dir, lua_tostring(L, -1));
    lua_setfield(L, -3, "cpath");
    lua_pop(L, 2);
}

static void setup_paths(lua_State *L) {
    setup_cpath(L);
    char dir[PATH_MAX + 64];
    const char *env = getenv("IPFSRT_LUA_DIR");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        find_luadir(dir, sizeof dir);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", dir, dir, lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
}

/* A chunk of ipfsrt's own Lua (its modules and subcommands under lua/ipfsrt/,
 * built in or not, installed policies), not the user's; "=" chunks (standard
 * input, -e) count as ipfsrt's too. */
static bool ours(const char *source) {
    return *source == '=' || strstr(source, "lua/ipfsrt/") || strstr(source, "share/ipfsrt/") ||
           strstr(source, "scripts/policies/");
}

/* Where the user's code called into what failed: the first Lua frame, from
 * the error up, that is not ipfsrt's own ("script.lua:12: "); "" when none. */
static const char *user_position(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0 || ours(ar.source)) continue;
        return lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
    }
    return lua_pushliteral(L, "");
}

/* ipfsrt -v: errors of ipfsrt's own come with a traceback too. */
static bool verbose;

/* ipfsrt error objects print as "code: message", after the place in the
 * user's script that called what failed (with -v, a traceback after); other
 * errors get a traceback. */
static int message_handler(lua_State *L) {
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "code");
        lua_getfield(L, 1, "message");
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
            const char *where = user_position(L);
            const char *msg = lua_pushfstring(L, "%s%s: %s", where, lua_tostring(L, -3), lua_tostring(L, -2));
            if (verbose) luaL_traceback(L, L, msg, 1);
            return 1;
        }
        lua_pop(L, 2);
    }
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    const char *msg = lua_tostring(L, 1);
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int report(lua_State *L, int status) {
    if (status != LUA_OK) {
        fprintf(stderr, "ipfsrt: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return status;
}

static int call(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return status;
}

static void set_arg(lua_State *L, char **argv, int argc, int script_index) {
    lua_createtable(L, argc, 2);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script_index);
    }
    lua_setglobal(L, "arg");
}

static void print_results(lua_State *L, int base) {
    int n = lua_gettop(L) - base;
    if (n <= 0) return;
    lua_getglobal(L, "print");
    lua_insert(L, base + 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK) report(L, LUA_ERRRUN);
}

static bool incomplete(lua_State *L, int status) {
    if (status != LUA_ERRSYNTAX) return false;
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    return len >= 5 && strcmp(msg + len - 5, "<eof>") == 0;
}

static void repl(lua_State *L) {
    char line[4096];
    luaL_Buffer chunk;
    printf("ipfsrt %s (%s) — the module is the global 'ipfsrt'\n", IPFSRT_VERSION_STRING,
           LUA_RELEASE);
    for (;;) {
        fputs("> ", stdout);
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) break;
        luaL_buffinit(L, &chunk);
        luaL_addstring(&chunk, line);
        luaL_pushresult(&chunk);
        int base = lua_gettop(L) - 1;
        for (;;) {
            const char *code = lua_tostring(L, -1);
            const char *ret = lua_pushfstring(L, "return %s", code);
            int status = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
            lua_remove(L, -2);
            if (status != LUA_OK) {
                lua_pop(L, 1);
                status = luaL_loadbuffer(L, code, strlen(code), "=stdin");
            }
            if (incomplete(L, status)) {
                lua_pop(L, 1);
                fputs(">> ", stdout);
                fflush(stdout);
                if (!fgets(line, sizeof line, stdin)) break;
                lua_pushstring(L, line);
                lua_concat(L, 2);
                continue;
            }
            lua_remove(L, -2); /* the source text */
            if (status == LUA_OK) status = call(L, 0, LUA_MULTRET);
            if (status == LUA_OK)
                print_results(L, base);
            else
                report(L, status);
            break;
        }
        lua_settop(L, base);
    }
    fputs("\n", stdout);
}

static int run_chunk(lua_State *L, int status, char **argv, int argc, int script_index) {
    if (status == LUA_OK) {
        set_arg(L, argv, argc, script_index);
        int nargs = 0;
        for (int i = script_index + 1; i < argc; i++, nargs++) lua_pushstring(L, argv[i]);
        status = call(L, nargs, 0);
    }
    return report(L, status) == LUA_OK ? 0 : 1;
}

/* Hands argv to the Lua CLI dispatcher, which returns an exit code. */
static int run_cli(lua_State *L, char **argv, int argc) {
    lua_getglobal(L, "require");
    lua_pushstring(L, "ipfsrt.cli");
    if (report(L, call(L, 1, 1)) != LUA_OK) return 2;
    lua_getfield(L, -1, "main");
    lua_createtable(L, argc, 0);
    for (int i = 1; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i);
    }
    if (report(L, call(L, 1, 1)) != LUA_OK) return 1;
    return (int)luaL_optinteger(L, -1, 0);
}

/* The library modules compiled into the executable come before the files
 * beside it: they are the same, built together, and load ten times faster
 * than parsing (3 ms of a dataset's opening). IPFSRT_LUA_DIR, when set, puts
 * its files first, for working on them. ipfsrt_lua_open appends its searcher
 * to package.searchers: it moves up to second, after the preloaded ones. */
static void prefer_built_in(lua_State *L) {
    const char *env = getenv("IPFSRT_LUA_DIR");
    if (env && *env) return;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 2) {
        lua_rawgeti(L, -1, n);
        for (lua_Integer i = n; i > 2; i--) {
            lua_rawgeti(L, -2, i - 1);
            lua_rawseti(L, -3, i);
        }
        lua_rawseti(L, -2, 2);
    }
    lua_pop(L, 2);
}

static int pmain(lua_State *L) {
    int argc = (int)lua_tointeger(L, 1);
    char **argv = lua_touserdata(L, 2);
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, ipfsrt_lua_open);
    lua_setfield(L, -2, "ipfsrt");
    lua_pop(L, 1);
    setup_paths(L);
    lua_getglobal(L, "require");
    lua_pushstring(L, "ipfsrt");
    lua_call(L, 1, 1);
    lua_setglobal(L, "ipfsrt");
    prefer_built_in(L);

    int rc;
    if (argc >= 2 && strcmp(argv[1], "-v") == 0) { /* ipfsrt -v script.lua ...: as without, and tracebacks */
        verbose = true;
        argv++, argc--;
    }
    if (argc < 2) {
        if (isatty(STDIN_FILENO)) {
            repl(L);
            rc = 0;
        } else {
            rc = run_chunk(L, luaL_loadfile(L, NULL), argv, argc, 0);
        }
    } else if (strcmp(argv[1], "-e") == 0) {
        if (argc < 3) {
            fprintf(stderr, "ipfsrt: -e needs a chunk of Lua code\n");
            rc = 2;
        } else {
            rc = run_chunk(L, luaL_loadbuffer(L, argv[2], strlen(argv[2]), "=(command line)"),
                           argv, argc, 2);
        }
    } else if (strcmp(argv[1], "-") == 0) {
        rc = run_chunk(L, luaL_loadfile(L, NULL), argv, argc, 1);
    } else {
        rc = run_cli(L, argv, argc);
    }
    lua_pushinteger(L, rc);
    return 1;
}

/* What a module asked to be told of a failed script (IPFSRT_LUA_ON_FAILURE). */
static void report_failure(lua_State *L, int rc) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, IPFSRT_LUA_ON_FAILURE) == LUA_TFUNCTION) {
        lua_pushinteger(L, rc);
        lua_pcall(L, 1, 0, 0);
    }
    lua_settop(L, 0);
}

/* glibc's malloc backs its memory with transparent huge pages when its
 * tunable says so (glibc.malloc.hugetlb=1), which it reads only as a process
 * starts: so the command sets it and starts itself again, once, then takes
 * the variable away so that the processes it runs see the environment as it
 * was. Every block fetched lands in fresh memory; at 4 KiB a page fault, that
 * was a fifth of a cold read's time on a paravirtualised VM. A user's own
 * GLIBC_TUNABLES is left as it is. */
#define TUNED_MARK "IPFSRT_HUGETLB_SET"
static void use_huge_pages(char **argv) {
#ifdef __GLIBC__
    if (getenv(TUNED_MARK)) {
        unsetenv(TUNED_MARK);
        unsetenv("GLIBC_TUNABLES");
        return;
    }
    if (getenv("GLIBC_TUNABLES") || setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0) return;
    if (setenv(TUNED_MARK, "1", 1) == 0) execv("/proc/self/exe", argv);
    unsetenv(TUNED_MARK); /* no new start: on as before */
    unsetenv("GLIBC_TUNABLES");
#else
    (void)argv;
#endif
}

int main(int argc, char **argv) {
    use_huge_pages(argv);
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "ipfsrt: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    int status = lua_pcall(L, 2, 1, 0);
    int rc = status == LUA_OK ? (int)lua_tointeger(L, -1) : 1;
    if (status != LUA_OK) fprintf(stderr, "ipfsrt: %s\n", lua_tostring(L, -1));
    if (rc != 0) report_failure(L, rc);
    lua_close(L);
    return rc;
}
