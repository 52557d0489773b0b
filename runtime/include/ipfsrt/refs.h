/* ipfsrt — kerchunk chunk references made from NetCDF-4/HDF5 files (with
 * libhdf5) and NetCDF-3 files: each variable's chunks where the file holds
 * them, so a Zarr reader (ipfsrt_zarr_store_new_refs, fsspec's
 * ReferenceFileSystem) reads the file's chunks as they are. */
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
    /* libhdf5 reads each HDF5 file in a child process (it is not hardened
     * against damaged or hostile files): the seconds it may take (0: 300) and
     * the memory it may add (0: 4 GiB); past them, or if it crashes, the file
     * is an error naming it. */
    double hdf5_seconds;
    uint64_t hdf5_memory;
} ipfsrt_refs_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_EXPERIMENTAL void ipfsrt_refs_options_init(ipfsrt_refs_options *opts);

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
/* A NetCDF-3 file (classic, 64-bit offset or 64-bit data; its header parsed
 * here) gives an array per variable of numbers in big-endian order,
 * uncompressed: a fixed-size variable one chunk, a record variable one chunk
 * per record (where the format interleaves them); text (char) variables are
 * left out. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_refs_make(const char *path, const ipfsrt_refs_options *opts,
                                                   ipfsrt_refs_skip_fn skipped, void *user, char **json,
                                                   ipfsrt_error *err);

/* The references of n files joined along the dimension dim into one set, as
 * kerchunk's MultiZarrToZarr does (daily files into one time axis): the files
 * ordered by dim's coordinate variable (its values increasing, no two files
 * overlapping), each array along dim given every file's chunks with their
 * indices moved on; the rest (groups, attributes, arrays without dim) taken
 * from the first file once every file agrees on it: the same variables, the
 * same metadata but for the length along dim, the same values of the other
 * coordinate variables; else an error naming the file and the variable.
 * dim's coordinate, and an array whose chunks cannot follow one another
 * (files holding part chunks along dim), are written inline (their values, up
 * to 64 MiB an array). targets (may be NULL: paths) name the files as the
 * references will; opts->target is not used. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_refs_concat(const char *const *paths, const char *const *targets, size_t n,
                                                     const char *dim, const ipfsrt_refs_options *opts,
                                                     ipfsrt_refs_skip_fn skipped, void *user, char **json, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
