/* The references maker's parts (refs_make.c walks the file and writes the
 * keys; refs_attrs.c reads attributes, dimension names and fill values). Not
 * public. */
#ifndef IPFSRT_REFS_MAKE_INTERNAL_H
#define IPFSRT_REFS_MAKE_INTERNAL_H

#include <cJSON.h>
#include <hdf5.h>
#include <stdio.h>

#include "ipfsrt/buf.h"
#include "ipfsrt/refs.h"

/* An HDF5 object's attributes as a JSON object (numbers, strings and lists of
 * them; what is neither goes to skipped as name "path@attr"), without HDF5's
 * and NetCDF-4's own bookkeeping (DIMENSION_LIST, _Netcdf4Dimid, ...) and
 * _FillValue. NULL when out of memory. */
cJSON *ipfsrt_hdf5_attrs(hid_t obj, const char *path, ipfsrt_refs_skip_fn skipped, void *user);
/* The dataset's _FillValue (else, outside NetCDF-4 files, the fill value it
 * was made with: NetCDF's readers ignore that one) as Zarr v2 writes one (a
 * number, "NaN", "Infinity", "-Infinity"), or JSON null. */
cJSON *ipfsrt_hdf5_fill(hid_t dataset, bool netcdf);
/* _ARRAY_DIMENSIONS: each dimension's scale name (a NetCDF-4 dimension),
 * the dataset's own name for a scale, else "dim_N"; NULL when out of memory. */
cJSON *ipfsrt_hdf5_dims(hid_t dataset, const char *name, int ndims);
/* A NetCDF-4 dimension without a variable: a scale HDF5 holds, no variable. */
bool ipfsrt_hdf5_phony(hid_t dataset);

/* refs_items.c: "path/i.j.k" of the chunk at index (rank 0: "path/0"; path
 * "": no slash), false when it does not fit; key's value in refs as doc's
 * JSON text (metadata, as kerchunk writes it; doc taken), false when out of
 * memory; a number as Zarr v2 writes one ("NaN", "Infinity", "-Infinity"
 * as strings); a reference's value: bytes inline ("base64:..."), a range
 * [target, offset, length], or a chunk as a range or, when raw is given and
 * it is at most threshold bytes, read from raw and inline (NULL on failure,
 * err set: out of memory, a read that failed). */
bool ipfsrt_refs_chunk_key(char *key, size_t size, const char *path, size_t rank, const uint64_t *index);
bool ipfsrt_refs_put_meta(cJSON *refs, const char *key, cJSON *doc);
cJSON *ipfsrt_refs_number(double v);
cJSON *ipfsrt_refs_inline_item(const uint8_t *data, size_t len);
cJSON *ipfsrt_refs_range_item(const char *target, uint64_t offset, uint64_t length);
cJSON *ipfsrt_refs_chunk_item(FILE *raw, const char *target, uint64_t offset, uint64_t length, uint64_t threshold,
                              ipfsrt_error *err);

/* refs_child.c: libhdf5 runs on files in a child process only (it is not
 * hardened against hostile ones): work runs there under limits on time and on
 * the memory it adds, says what it skipped and its result through the child
 * handle, and the parent gets them back (the result's bytes in result, to be
 * checked as untrusted input). A child that crashes, or overruns a limit, is
 * an error naming path. */
typedef struct ipfsrt_hdf5_limits {
    double seconds;
    uint64_t memory;
} ipfsrt_hdf5_limits;
/* The limits the options give (their defaults for 0). */
void ipfsrt_hdf5_limits_of(const ipfsrt_refs_options *opts, ipfsrt_hdf5_limits *limits);
typedef struct ipfsrt_hdf5_child ipfsrt_hdf5_child;
typedef ipfsrt_status (*ipfsrt_hdf5_work_fn)(void *ctx, ipfsrt_hdf5_child *child, ipfsrt_error *err);
void ipfsrt_hdf5_child_skip(ipfsrt_hdf5_child *child, const char *name, const char *why);
void ipfsrt_hdf5_child_result(ipfsrt_hdf5_child *child, const void *data, size_t len);
ipfsrt_status ipfsrt_hdf5_isolated(const char *path, const ipfsrt_hdf5_limits *limits, ipfsrt_hdf5_work_fn work,
                                   void *ctx, ipfsrt_refs_skip_fn skipped, void *user, ipfsrt_buf *result,
                                   ipfsrt_error *err);

/* refs_make.c: one file's references (the "refs" object, *refs owned by the
 * caller; an HDF5 file's walked in a child), and the version 1 document of
 * them (refs taken, freed). */
ipfsrt_status ipfsrt_hdf5_refs_of(const char *path, const char *target, uint64_t inline_threshold,
                                 const ipfsrt_hdf5_limits *limits, ipfsrt_refs_skip_fn skipped, void *user,
                                 cJSON **refs, ipfsrt_error *err);
ipfsrt_status ipfsrt_hdf5_refs_json(cJSON *refs, char **json, ipfsrt_error *err);

/* refs_nc3.c: NetCDF-3 files (nc3.h parses their headers). Whether path is
 * one; its references (as ipfsrt_hdf5_refs_of); the references of a parsed
 * header (raw: the file, for chunks inline; NULL: none inline); a
 * variable's values as stored (big-endian) or as doubles, at most max_bytes
 * stored (malloc'd, NULL on failure with err set). */
struct ipfsrt_nc3;
bool ipfsrt_nc3_file(const char *path);
ipfsrt_status ipfsrt_nc3_refs_of(const char *path, const char *target, uint64_t inline_threshold,
                                 ipfsrt_refs_skip_fn skipped, void *user, cJSON **refs, ipfsrt_error *err);
ipfsrt_status ipfsrt_nc3_refs(const struct ipfsrt_nc3 *nc, const char *target, FILE *raw, uint64_t inline_threshold,
                              ipfsrt_refs_skip_fn skipped, void *user, cJSON *refs, ipfsrt_error *err);
ipfsrt_status ipfsrt_nc3_open(const char *path, struct ipfsrt_nc3 *nc, uint8_t **header, FILE **raw,
                              ipfsrt_error *err);
void *ipfsrt_nc3_values(const char *path, const char *name, bool as_double, size_t max_bytes, size_t *bytes,
                        ipfsrt_error *err);

#endif
