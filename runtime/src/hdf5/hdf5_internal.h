/* The references maker's parts (refs_make.c walks the file and writes the
 * keys; refs_attrs.c reads attributes, dimension names and fill values). Not
 * public. */
#ifndef IPFSRT_HDF5_INTERNAL_H
#define IPFSRT_HDF5_INTERNAL_H

#include <cJSON.h>
#include <hdf5.h>

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

#endif
