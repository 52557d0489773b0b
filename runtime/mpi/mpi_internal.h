/* Shared by the files of the ipfsrt.mpi module (runtime/mpi/): its own shared
 * object, linked to MPI and to nothing of ipfsrt; the core is reached through
 * the host's ipfsrt_lua_api (ipfsrt/lua.h). */
#ifndef IPFSRT_MPI_INTERNAL_H
#define IPFSRT_MPI_INTERNAL_H

#include <lauxlib.h>
#include <lua.h>
#include <mpi.h>

#include "ipfsrt/lua.h"

extern const ipfsrt_lua_api *ipfsrt_mpi_api;

/* Waits for a non-blocking operation, testing it between sleeps that grow to
 * a millisecond, so that a waiting rank leaves its core to the hashing and
 * decoding threads of the ranks beside it (a blocking MPI call polls and
 * burns the core for as long as it waits). */
int ipfsrt_mpi_wait(MPI_Request *req);
/* Raises an MPI failure as an ipfsrt error naming what was under way. */
int ipfsrt_mpi_raise(lua_State *L, int rc, const char *what);
/* Raises an ipfsrt error of code with a formatted message (naming the rank). */
int ipfsrt_mpi_fail(lua_State *L, ipfsrt_status code, const char *fmt, ...) IPFSRT_PRINTF(3, 4);
/* The rank count of MPI_COMM_WORLD. */
int ipfsrt_mpi_size(void);

/* Registers allreduce, reduce and bcast_array (lua_mpi_reduce.c) on the table at -1. */
void ipfsrt_mpi_open_reduce(lua_State *L);

#endif
