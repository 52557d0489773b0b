/* ipfsrt — Zarr v2 and v3 arrays: metadata and the decoding of chunks into
 * n-d arrays. (Stores and selections build on this.) */
#ifndef IPFSRT_ZARR_H
#define IPFSRT_ZARR_H

#include "codec.h"
#include "ndarray.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPFSRT_ZARR_MAX_CODECS 16

/* An array's metadata, parsed and checked (sizes cannot overflow, codecs are
 * known and configured). Read its fields; make it with ipfsrt_zarr_meta_parse,
 * release it with ipfsrt_zarr_meta_free. */
typedef struct ipfsrt_zarr_meta {
    int zarr_format; /* 2 or 3 */
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    size_t chunks[IPFSRT_NDARRAY_MAX_DIMS];
    size_t grid[IPFSRT_NDARRAY_MAX_DIMS]; /* chunks per dimension: ceil(shape / chunks) */
    ipfsrt_dtype dtype;                   /* in memory: float16 is widened to float32 */
    size_t itemsize;                      /* in memory */
    size_t stored_itemsize;               /* in chunks */
    bool float16;                         /* stored as float16 */
    bool big_endian;                      /* elements in chunks are big-endian */
    bool fortran_order;                   /* v2 order "F": chunks are column-major */
    char datetime_unit[16];               /* v2 datetime64/timedelta64: int64 in this unit ("" otherwise) */
    char separator;                       /* between chunk indices in keys */
    bool v3_default_keys;                 /* v3 "default" keys: "c" + separator + indices */
    bool has_fill;                        /* v2 fill_value null: missing chunks hold zeros */
    ipfsrt_ndarray fill;                  /* 0-d, in dtype */
    int n_codecs;                         /* bytes to bytes, in encoding order (v2: filters, compressor) */
    ipfsrt_codec *codecs[IPFSRT_ZARR_MAX_CODECS];
    bool transposed;                      /* v3 transpose: chunks stored in axes order[] */
    int order[IPFSRT_NDARRAY_MAX_DIMS];
    struct cJSON *attributes;             /* user attributes (owned; v2 .zattrs via set_attributes) */
    char *dimension_names[IPFSRT_NDARRAY_MAX_DIMS]; /* v3 dimension_names, v2 _ARRAY_DIMENSIONS; NULL: unnamed */
    char name[256];                       /* for messages: the array's path or key */
} ipfsrt_zarr_meta;

/* Parses an array's metadata: a v2 .zarray or a v3 zarr.json (format 2 or 3).
 * name (the array's path) is only for messages, which name it and the field at
 * fault. Unknown codecs, data types and must_understand extensions are
 * refused by name. */
ipfsrt_status ipfsrt_zarr_meta_parse(ipfsrt_zarr_meta **out, const char *json, size_t len, int format,
                                     const char *name, ipfsrt_error *err);
/* v2: the array's .zattrs (its _ARRAY_DIMENSIONS become dimension names). */
ipfsrt_status ipfsrt_zarr_meta_set_attributes(ipfsrt_zarr_meta *m, const char *json, size_t len,
                                              ipfsrt_error *err);
void ipfsrt_zarr_meta_free(ipfsrt_zarr_meta *m);

/* The store key of a chunk (indices one per dimension) into buf, relative to
 * the array's own path. */
ipfsrt_status ipfsrt_zarr_chunk_key(const ipfsrt_zarr_meta *m, const size_t *index, char *buf, size_t cap,
                                    ipfsrt_error *err);
/* Decodes a stored chunk into a new array of the chunk shape (full size, edge
 * chunks included), native byte order, C order. Bytes that decode to another
 * size than the chunk's are an error naming the chunk's key. */
ipfsrt_status ipfsrt_zarr_decode_chunk(const ipfsrt_zarr_meta *m, const size_t *index, const void *src,
                                       size_t len, ipfsrt_ndarray *out, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
