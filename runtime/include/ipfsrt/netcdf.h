/** @file
 * ipfsrt — NetCDF-4 files written through Debian's libnetcdf: dimensions, variables of n-d arrays and their attributes, as xarray's to_netcdf writes them (and reads them back). */
#ifndef IPFSRT_NETCDF_H
#define IPFSRT_NETCDF_H

#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A NetCDF-4 file being written (ipfsrt_netcdf_writer_new): opaque. */
typedef struct ipfsrt_netcdf_writer ipfsrt_netcdf_writer;

/** A writer of a new NetCDF-4 file at path: written beside it and renamed into
 * place by finish, so the file appears complete or not at all.
 * @param w the new writer, on success
 * @param path the file
 * @param replace an existing file at path is replaced (else an error)
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO (libnetcdf's failure, an existing file); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_netcdf_writer_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_new(ipfsrt_netcdf_writer **w, const char *path, bool replace,
                                                           ipfsrt_error *err);
/** A dimension of len positions; each name once.
 * @param w the writer
 * @param name the name
 * @param len positions
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a name used twice); IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_dim(ipfsrt_netcdf_writer *w, const char *name, size_t len,
                                                           ipfsrt_error *err);
/** A variable over dimensions defined before (none: a scalar) holding values,
 * whose shape must be theirs. Every real and integer dtype; bool is written as int8.
 * @param w the writer
 * @param name the name
 * @param dims ndim dimension names
 * @param ndim how many
 * @param values the values (written now)
 * @param attributes a JSON object's text of strings, numbers and lists of
 * numbers (a whole number that fits is an int, others doubles; _FillValue
 * takes the variable's type), or NULL
 * @param err filled on failure, naming the variable
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (an unknown dimension, another shape, attributes
 * that are not an object); IPFSRT_EUNSUPPORTED (complex, bytes); IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_var(ipfsrt_netcdf_writer *w, const char *name, const char *const *dims,
                                                           int ndim, const ipfsrt_ndarray *values, const char *attributes,
                                                           ipfsrt_error *err);
/** A variable of n strings along one dimension (of n), as NetCDF-4 strings:
 * names, such as seasons.
 * @param w the writer
 * @param name the name
 * @param dim the dimension
 * @param strings n NUL-terminated strings
 * @param n how many
 * @param attributes a JSON object's text, or NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_netcdf_writer_var */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_strings(ipfsrt_netcdf_writer *w, const char *name, const char *dim,
                                                               const char *const *strings, size_t n, const char *attributes,
                                                               ipfsrt_error *err);
/** The file's own attributes.
 * @param w the writer
 * @param attributes a JSON object's text
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT; IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_attributes(ipfsrt_netcdf_writer *w, const char *attributes,
                                                                  ipfsrt_error *err);
/** Closes the file and moves it into place.
 * @param w the writer
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_netcdf_writer_finish(ipfsrt_netcdf_writer *w, ipfsrt_error *err);
/** Frees the writer; one not finished leaves nothing at its path.
 * @param w the writer, or NULL
 * @owner w is freed */
IPFSRT_EXPERIMENTAL void ipfsrt_netcdf_writer_free(ipfsrt_netcdf_writer *w);

#ifdef __cplusplus
}
#endif

#endif
