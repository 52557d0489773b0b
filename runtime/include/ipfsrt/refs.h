/* ipfsrt — kerchunk chunk references made from NetCDF-4/HDF5 files (with
 * libhdf5): each variable's chunks where the file holds them, so a Zarr reader
 * (ipfsrt_zarr_store_new_refs, fsspec's ReferenceFileSystem) reads the file's
 * compressed chunks as they are. */
#ifndef IPFSRT_REFS_H
#define IPFSRT_REFS_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ipfsrt_refs_options {
    size_t size;             /* sizeof the struct: set by ipfsrt_refs_options_init (or .size = sizeof) */
    const char *target;      /* the file as the references name it (a URL, or a path relative to
                                where the references will be); NULL: its path */
    uint64_t inline_threshold; /* chunks of at most this many stored bytes are written inline (base64) */
} ipfsrt_refs_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_API void ipfsrt_refs_options_init(ipfsrt_refs_options *opts);

/* A variable (or attribute) left out, and why: variable-length strings,
 * compound types, szip and other filters with no codec here, fletcher32
 * checksums, chunks stored with a filter skipped. */
typedef void (*ipfsrt_refs_skip_fn)(void *user, const char *name, const char *why);

/* The references of the HDF5 file at path, as version 1 JSON (*json
 * malloc'd): a Zarr v2 group per HDF5 group, an array per dataset of numbers
 * (chunked, contiguous as one chunk, compact inline), deflate and shuffle as
 * the zlib and shuffle codecs, _FillValue as the fill value, the other
 * attributes in .zattrs with _ARRAY_DIMENSIONS (NetCDF-4's dimension scales).
 * skipped (may be NULL) sees what could not be expressed. libhdf5 (Debian's
 * serial build) is not thread-safe: one call at a time in a process. A
 * crafted file can give ranges past its end; readers of the references refuse
 * those (ipfsrt's fail naming the key), never reading other bytes. */
IPFSRT_API ipfsrt_status ipfsrt_refs_make(const char *path, const ipfsrt_refs_options *opts,
                                          ipfsrt_refs_skip_fn skipped, void *user, char **json,
                                          ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
