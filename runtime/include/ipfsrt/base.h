/** @file
 * ipfsrt — what every module needs: the version, the standard types, the clock. */
#ifndef IPFSRT_BASE_H
#define IPFSRT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks printf-like functions so that compilers check their arguments. */
#if defined(__GNUC__)
#define IPFSRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define IPFSRT_PRINTF(f, a)
#endif

/** Marks what the library exports: it is built with hidden visibility, so only
 * what a public header declares with this mark is its ABI. */
#if defined(__GNUC__)
#define IPFSRT_API __attribute__((visibility("default")))
#else
#define IPFSRT_API
#endif
/** What a declaration promises. IPFSRT_API: the stable core, kept compatible
 * for as long as the soname stays (version node IPFSRT_2): functions are only
 * added, and structs a caller fills grow at their end behind their size.
 * IPFSRT_EXPERIMENTAL: may change or go in any release (version node
 * IPFSRT_EXPERIMENTAL_2), so a host opts in: it defines IPFSRT_EXPERIMENTAL_API
 * before including any ipfsrt header, and builds against the exact version it
 * runs with; without the define, a call to one fails to compile. The n-d
 * array's arithmetic, the Zarr analysis folds, the packer and the modules
 * (libipfsrt-server, -s3, -netcdf) are experimental; reading verified data
 * (CIDs, CARs, UnixFS, the client, Zarr stores and arrays) is the core.
 * Plotting (ipfsrt/image.h) is libipfsrt-lua's, experimental too. */
#if defined(IPFSRT_EXPERIMENTAL_API) || !defined(__GNUC__)
#define IPFSRT_EXPERIMENTAL IPFSRT_API
#else
#define IPFSRT_EXPERIMENTAL                                                                                         \
    IPFSRT_API __attribute__((error("experimental: #define IPFSRT_EXPERIMENTAL_API before including ipfsrt "       \
                                    "headers to use it")))
#endif

/** The library's version, as the headers were released with it. */
#define IPFSRT_VERSION_STRING "0.2.0"

/** Monotonic wall-clock seconds (CLOCK_MONOTONIC): for durations, not dates.
 * @return seconds since an unspecified start */
IPFSRT_API double ipfsrt_clock(void);

/** Asks every fetch under way to stop: they fail with IPFSRT_ECANCELED, and a
 * download removes what it had written. Safe from a signal handler: a host
 * calls it for SIGINT and the like.
 * @param sig why (a signal number, or any positive value); 0 clears the request */
IPFSRT_API void ipfsrt_request_stop(int sig);
/** What ipfsrt_request_stop was last given.
 * @return 0 when no stop is asked for, else its sig */
IPFSRT_API int ipfsrt_stop_requested(void);

/** Worker threads (hashing, decoding, encoding) when an option does not say:
 * IPFSRT_THREADS when set (1-1024), else what the host chose with
 * ipfsrt_threads_set (the MPI module: the node's CPUs over its ranks), else
 * the CPUs this process may run on (its affinity mask, not the machine's).
 * @return 1 or more */
IPFSRT_API unsigned ipfsrt_threads(void);
/** The host's choice of worker threads, which IPFSRT_THREADS still overrides;
 * safe from any thread, read as threads start.
 * @param n threads; 0 forgets the host's choice */
IPFSRT_API void ipfsrt_threads_set(unsigned n);
/** The CPUs this process may run on: its affinity mask, else the ones online.
 * @return 1 or more */
IPFSRT_API unsigned ipfsrt_cpus_usable(void);

/** Bytes a result lends past the call that handed them over: hold(owner)
 * keeps them valid until release(owner), which any thread may call, once per
 * hold. A reader that queues bytes for other threads holds them instead of
 * copying them. owner NULL: the bytes are valid during the call only. */
typedef struct ipfsrt_lent {
    void (*hold)(void *owner);    /**< keeps the bytes valid until a release */
    void (*release)(void *owner); /**< ends one hold; from any thread */
    void *owner;                  /**< what hold and release get; NULL: nothing to hold */
} ipfsrt_lent;

#ifdef __cplusplus
}
#endif

#endif
