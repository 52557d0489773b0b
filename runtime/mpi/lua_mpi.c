/* ipfsrt.mpi_core: MPI for Lua scripts (lua/ipfsrt/mpi.lua is the module users
 * require; it builds on these). Loading it starts MPI at thread level FUNNELED
 * unless the host did: Lua, the curl engine and every MPI call stay on the
 * main thread, hashing and decoding workers never call MPI. MPI is finalised
 * when the Lua state closes, unless the job failed: the executable calls what
 * the module left under IPFSRT_LUA_ON_FAILURE and mpi.run calls abort, which
 * ends every rank (a rank that failed and then finalised would leave the
 * others waiting for ever). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_internal.h"

const ipfsrt_lua_api *ipfsrt_mpi_api;

static MPI_Comm node_comm = MPI_COMM_NULL;
static int world_rank, world_size, node_rank, node_size;
static bool started_here; /* MPI_Init was ours: so is MPI_Finalize */

int ipfsrt_mpi_size(void) { return world_size; }

int ipfsrt_mpi_wait(MPI_Request *req) {
    long pause_ns = 10000;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        struct timespec ts = {0, pause_ns};
        nanosleep(&ts, NULL);
        if (pause_ns < 1000000) pause_ns *= 2;
    }
}

int ipfsrt_mpi_fail(lua_State *L, ipfsrt_status code, const char *fmt, ...) {
    ipfsrt_error err = {.code = code, .offset = -1};
    int n = snprintf(err.message, sizeof err.message, "mpi (rank %d): ", world_rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message + n, sizeof err.message - (size_t)n, fmt, ap);
    va_end(ap);
    return ipfsrt_mpi_api->raise(L, &err);
}

int ipfsrt_mpi_raise(lua_State *L, int rc, const char *what) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", rc);
    return ipfsrt_mpi_fail(L, IPFSRT_EIO, "%s failed: %s", what, text);
}

static int l_rank(lua_State *L) {
    lua_pushinteger(L, world_rank);
    return 1;
}

static int l_size(lua_State *L) {
    lua_pushinteger(L, world_size);
    return 1;
}

static int l_node_rank(lua_State *L) {
    lua_pushinteger(L, node_rank);
    return 1;
}

static int l_node_size(lua_State *L) {
    lua_pushinteger(L, node_size);
    return 1;
}

static int l_wtime(lua_State *L) {
    lua_pushnumber(L, MPI_Wtime());
    return 1;
}

static int l_barrier(lua_State *L) {
    MPI_Request req;
    int rc = MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    return rc == MPI_SUCCESS ? 0 : ipfsrt_mpi_raise(L, rc, "barrier");
}

/* abort(code): ends every rank of the job now. */
static int l_abort(lua_State *L) {
    int code = (int)luaL_optinteger(L, 1, 1);
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
    _exit(code ? code : 1); /* not reached with a working MPI */
}

/* ------------------------------------------------------------ bytes */

/* bcast_bytes(s | nil, root) -> s: root's string on every rank */
static int l_bcast_bytes(lua_State *L) {
    int root = (int)luaL_checkinteger(L, 2);
    if (root < 0 || root >= world_size) return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "bcast: no rank %d", root);
    size_t len = 0;
    const char *s = world_rank == root ? luaL_checklstring(L, 1, &len) : NULL;
    int64_t n = (int64_t)len;
    MPI_Request req;
    int rc = MPI_Ibcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "bcast");
    if (n > INT32_MAX) return ipfsrt_mpi_fail(L, IPFSRT_ETOO_LARGE, "bcast: %lld bytes is over 2 GiB", (long long)n);
    char *buf = world_rank == root ? (char *)s : lua_newuserdatauv(L, (size_t)n ? (size_t)n : 1, 0);
    rc = MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "bcast");
    lua_pushlstring(L, buf, (size_t)n);
    return 1;
}

/* Every rank's byte count, and where each begins in the whole; false when
 * the whole is over what MPI counts in an int. */
static bool displacements(const int64_t *lens, int *counts, int *displs, int64_t *total) {
    *total = 0;
    for (int i = 0; i < world_size; i++) {
        if (lens[i] < 0 || lens[i] > INT32_MAX - *total) return false;
        counts[i] = (int)lens[i];
        displs[i] = (int)*total;
        *total += lens[i];
    }
    return true;
}

/* gather_bytes(s, root | -1) -> {s0, s1, ...} at root (every rank for -1), nil elsewhere */
static int l_gather_bytes(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int root = (int)luaL_checkinteger(L, 2);
    bool all = root < 0;
    if (root >= world_size) return ipfsrt_mpi_fail(L, IPFSRT_EBAD_ARGUMENT, "gather: no rank %d", root);
    bool mine = all || world_rank == root;
    int64_t n = (int64_t)len, *lens = lua_newuserdatauv(L, sizeof *lens * (size_t)world_size, 0);
    int *counts = lua_newuserdatauv(L, sizeof *counts * (size_t)world_size, 0);
    int *displs = lua_newuserdatauv(L, sizeof *displs * (size_t)world_size, 0);
    MPI_Request req;
    int rc = all ? MPI_Iallgather(&n, 1, MPI_INT64_T, lens, 1, MPI_INT64_T, MPI_COMM_WORLD, &req)
                 : MPI_Igather(&n, 1, MPI_INT64_T, lens, 1, MPI_INT64_T, root, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "gather");
    int64_t total = 0;
    /* every rank that receives checks; the others learn of a failure when the job ends */
    if (mine && !displacements(lens, counts, displs, &total))
        return ipfsrt_mpi_fail(L, IPFSRT_ETOO_LARGE, "gather: the ranks' values together are over 2 GiB");
    char *buf = mine ? lua_newuserdatauv(L, total ? (size_t)total : 1, 0) : NULL;
    rc = all ? MPI_Iallgatherv(s, (int)len, MPI_BYTE, buf, counts, displs, MPI_BYTE, MPI_COMM_WORLD, &req)
             : MPI_Igatherv(s, (int)len, MPI_BYTE, buf, counts, displs, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = ipfsrt_mpi_wait(&req);
    if (rc != MPI_SUCCESS) return ipfsrt_mpi_raise(L, rc, "gather");
    if (!mine) return 0;
    lua_createtable(L, world_size, 0);
    for (int i = 0; i < world_size; i++) {
        lua_pushlstring(L, buf + displs[i], (size_t)counts[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ------------------------------------------------------------ lifetime */

/* The state's end: MPI finalised, if it was started here and not aborted. */
static int finalize_gc(lua_State *L) {
    (void)L;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (started_here && !finalized) MPI_Finalize();
    return 0;
}

static void find_core(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, IPFSRT_LUA_API);
    const ipfsrt_lua_api *api = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!api) luaL_error(L, "ipfsrt.mpi: require \"ipfsrt\" first (no ipfsrt core in this Lua state)");
    /* fields are only ever added: a newer core serves an older module, as long
     * as it holds every field this one was built with */
    if (api->version < IPFSRT_LUA_API_VERSION || api->size < sizeof *api)
        luaL_error(L, "ipfsrt.mpi: built for a newer ipfsrt (C API version %u, this core has %u)",
                   IPFSRT_LUA_API_VERSION, api->version);
    ipfsrt_mpi_api = api;
}

/* MPI started (once per process), the ranks of this node found, and the
 * worker threads set to the node's CPUs shared among its ranks. */
static void start(lua_State *L) {
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) {
        int provided;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            luaL_error(L, "ipfsrt.mpi: MPI_Init_thread failed");
        started_here = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (node_comm == MPI_COMM_NULL &&
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm) != MPI_SUCCESS)
        luaL_error(L, "ipfsrt.mpi: cannot find the ranks of this node");
    MPI_Comm_rank(node_comm, &node_rank);
    MPI_Comm_size(node_comm, &node_size);
    long cores = sysconf(_SC_NPROCESSORS_ONLN); /* the node's, not this rank's binding */
    unsigned per_rank = cores > node_size ? (unsigned)(cores / node_size) : 1;
    ipfsrt_mpi_api->threads_set(per_rank);
}

IPFSRT_API int luaopen_ipfsrt_mpi_core(lua_State *L);
int luaopen_ipfsrt_mpi_core(lua_State *L) {
    find_core(L);
    start(L);
    static const luaL_Reg fns[] = {{"rank", l_rank},     {"size", l_size},           {"node_rank", l_node_rank},
                                   {"node_size", l_node_size}, {"wtime", l_wtime},   {"barrier", l_barrier},
                                   {"abort", l_abort},   {"bcast_bytes", l_bcast_bytes},
                                   {"gather_bytes", l_gather_bytes}, {NULL, NULL}};
    if (world_size > 1) { /* a failed script ends the job (the executable calls this) */
        lua_pushcfunction(L, l_abort);
        lua_setfield(L, LUA_REGISTRYINDEX, IPFSRT_LUA_ON_FAILURE);
    }
    luaL_newlib(L, fns);
    ipfsrt_mpi_open_reduce(L);
    /* finalising rides on the module table's life: the registry holds it until lua_close */
    lua_newtable(L);
    lua_pushcfunction(L, finalize_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    return 1;
}
