/* ipfsrt — what every module needs: the version, the standard types, the clock. */
#ifndef IPFSRT_BASE_H
#define IPFSRT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks printf-like functions so that compilers check their arguments. */
#if defined(__GNUC__)
#define IPFSRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define IPFSRT_PRINTF(f, a)
#endif

#define IPFSRT_VERSION_STRING "0.1.0"

/* Monotonic wall-clock seconds. */
double ipfsrt_clock(void);

#ifdef __cplusplus
}
#endif

#endif
