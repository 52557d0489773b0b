/* ipfsrt — NetCDF-4 files written through Debian's libnetcdf: dimensions,
 * variables of n-d arrays and their attributes, as xarray's to_netcdf writes
 * them (and reads them back). */
#ifndef IPFSRT_NETCDF_H
#define IPFSRT_NETCDF_H

#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ipfsrt_netcdf_writer ipfsrt_netcdf_writer;

/* A writer of a new NetCDF-4 file at path: written beside it and renamed into
 * place by finish, so the file appears complete or not at all. An existing
 * file at path is an error unless replace. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_new(ipfsrt_netcdf_writer **w, const char *path, bool replace,
                                                           ipfsrt_error *err);
/* A dimension of len positions; each name once. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_dim(ipfsrt_netcdf_writer *w, const char *name, size_t len,
                                                           ipfsrt_error *err);
/* A variable over ndim dimensions (defined before; none: a scalar) holding
 * values, whose shape must be theirs; attributes: a JSON object's text (NULL:
 * none) of strings, numbers and lists of numbers (a whole number that fits is
 * an int, others doubles; _FillValue takes the variable's type). Every real
 * and integer dtype; bool is written as int8. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_var(ipfsrt_netcdf_writer *w, const char *name, const char *const *dims,
                                                           int ndim, const ipfsrt_ndarray *values, const char *attributes,
                                                           ipfsrt_error *err);
/* A variable of n strings along one dimension (of n), as NetCDF-4 strings:
 * names, such as seasons. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_strings(ipfsrt_netcdf_writer *w, const char *name, const char *dim,
                                                               const char *const *strings, size_t n, const char *attributes,
                                                               ipfsrt_error *err);
/* The file's own attributes (a JSON object's text). */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_attributes(ipfsrt_netcdf_writer *w, const char *attributes,
                                                                  ipfsrt_error *err);
/* Closes the file and moves it into place. */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_finish(ipfsrt_netcdf_writer *w, ipfsrt_error *err);
/* Frees the writer; one not finished leaves nothing at its path. */
IPFSRT_EXPERIMENTAL void ipfsrt_netcdf_writer_free(ipfsrt_netcdf_writer *w);

#ifdef __cplusplus
}
#endif

#endif
