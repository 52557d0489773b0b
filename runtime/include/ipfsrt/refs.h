/** @file
 * ipfsrt — kerchunk chunk references (libipfsrt-netcdf): made from NetCDF-4/HDF5 files (with libhdf5) and NetCDF-3 files, each variable's chunks where the file holds them, and read as Zarr stores (ipfsrt_refs_store_new; fsspec's ReferenceFileSystem reads them too). */
#ifndef IPFSRT_REFS_H
#define IPFSRT_REFS_H

#include "error.h"
#include "zarr_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How references are made (ipfsrt_refs_make, ipfsrt_refs_concat). */
typedef struct ipfsrt_refs_options {
    size_t size;             /**< sizeof the struct: set by ipfsrt_refs_options_init (or .size = sizeof) */
    const char *target;      /**< the file as the references name it (a URL, or a path relative to
                                where the references will be); NULL: its path */
    uint64_t inline_threshold; /**< chunks of at most this many stored bytes are written inline (base64) */
    /** libhdf5 reads each HDF5 file in a child process (it is not hardened
     * against damaged or hostile files): the seconds it may take (0: 300);
     * past them, or if it crashes, the file is an error naming it. */
    double hdf5_seconds;
    uint64_t hdf5_memory; /**< the bytes of memory that child may add (0: 4 GiB) */
} ipfsrt_refs_options;
/** The defaults, size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_refs_options_init(ipfsrt_refs_options *opts);

/** A variable (or attribute) left out, and why: variable-length strings,
 * compound types, szip and other filters with no codec here, fletcher32
 * checksums, chunks stored with a filter skipped. */
typedef void (*ipfsrt_refs_skip_fn)(void *user, const char *name, const char *why);

/** The references of the HDF5 file at path, as version 1 JSON (*json
 * malloc'd): a Zarr v2 group per HDF5 group, an array per dataset of numbers
 * (chunked, contiguous as one chunk, compact inline), deflate and shuffle as
 * the zlib and shuffle codecs, _FillValue as the fill value, the other
 * attributes in .zattrs with _ARRAY_DIMENSIONS (NetCDF-4's dimension scales).
 * skipped (may be NULL) sees what could not be expressed. libhdf5 (Debian's
 * serial build) is not thread-safe: one call at a time in a process. A
 * crafted file can give ranges past its end; readers of the references refuse
 * those (ipfsrt's fail naming the key), never reading other bytes. */
/** The kerchunk references (version 1 JSON) of an HDF5 / NetCDF-4 file: a Zarr
 * v2 group per HDF5 group, an array per dataset of numbers (chunked,
 * contiguous as one chunk, compact inline), deflate and shuffle as the zlib
 * and shuffle codecs, _FillValue as the fill value, the other attributes in
 * .zattrs with _ARRAY_DIMENSIONS. A NetCDF-3 file gives an array per variable
 * of numbers in big-endian order, uncompressed. libhdf5 is not thread-safe:
 * one call at a time in a process. A crafted file can give ranges past its
 * end; readers of the references refuse those, naming the key.
 * @param path the file
 * @param opts NULL = the defaults
 * @param skipped sees each variable or attribute that could not be expressed,
 * and why; may be NULL
 * @param user handed to skipped
 * @param json set to the references, on success
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO (unreadable, not HDF5 or NetCDF, a crash of the parsing
 * child); IPFSRT_ETIMED_OUT, IPFSRT_ETOO_LARGE (past opts' bounds on time and
 * memory); IPFSRT_EUNSUPPORTED; IPFSRT_EOUT_OF_MEMORY
 * @owner *json is the caller's: free() it */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_refs_make(const char *path, const ipfsrt_refs_options *opts,
                                                   ipfsrt_refs_skip_fn skipped, void *user, char **json,
                                                   ipfsrt_error *err);

/** The references of n files joined along the dimension dim into one set, as
 * kerchunk's MultiZarrToZarr does (daily files into one time axis): the files
 * ordered by dim's coordinate variable, each array along dim given every
 * file's chunks with their indices moved on; the rest taken from the first
 * file once every file agrees on it, else an error naming the file and the
 * variable.
 * @param paths n files
 * @param targets how the references name the files (NULL: the paths)
 * @param n how many
 * @param dim the dimension
 * @param opts NULL = the defaults (its target is not used)
 * @param skipped as ipfsrt_refs_make's, may be NULL
 * @param user handed to skipped
 * @param json set to the references, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_refs_make; IPFSRT_EBAD_ARGUMENT (files that disagree,
 * overlap, or lack dim); IPFSRT_ETOO_LARGE (inline values past 64 MiB an array)
 * @owner *json is the caller's: free() it */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_refs_concat(const char *const *paths, const char *const *targets, size_t n,
                                                     const char *dim, const ipfsrt_refs_options *opts,
                                                     ipfsrt_refs_skip_fn skipped, void *user, char **json, ipfsrt_error *err);

/** Lets ipfsrt_zarr_store_open read kerchunk references ("refs+URL", a URL
 * ending in ".json"): a host that links libipfsrt-netcdf calls it once (the
 * Lua library does). Safe from any thread. */
IPFSRT_EXPERIMENTAL void ipfsrt_refs_stores_enable(void);
/** Kerchunk references (version 0 or 1: inline values, "base64:" values,
 * [url] and [url, offset, length], templates, gen): each key's bytes inline or
 * a byte range of a file, read through the store of the file's folder
 * (ipfs://CID/path ranges through the client, only the blocks they cover;
 * http(s)://, s3://, local paths), ranges of one file close together read as
 * one. A key whose file is absent or too short is an error naming both, never
 * a missing key. Verified when every target is ipfs://. Read-only, listable.
 * @param store the new store, on success
 * @param json len bytes of references (copied as parsed)
 * @param len how many
 * @param url where relative targets are (NULL when every target is absolute)
 * @param opts NULL = the defaults
 * @param err filled on failure, naming the key at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (malformed references); IPFSRT_ETOO_LARGE (past the
 * bounds on keys, templates and gen); IPFSRT_EUNVERIFIED; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_refs_store_new(ipfsrt_zarr_store **store, const char *json, size_t len,
                                                        const char *url, const ipfsrt_zarr_store_options *opts,
                                                        ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
