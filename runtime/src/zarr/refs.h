/* Chunk references in the kerchunk format (refs.c): Zarr keys mapped to bytes
 * given inline or to byte ranges of other files (a NetCDF-4 file's chunks, as
 * a Zarr reader reads them). Version 0 (a plain object of keys) and version 1
 * ("refs", "templates", "gen"). Not public: the store over them is
 * (ipfsrt_zarr_store_new_refs). */
#ifndef IPFSRT_ZARR_REFS_H
#define IPFSRT_ZARR_REFS_H

#include "ipfsrt/zarr_store.h"

#define IPFSRT_REFS_MAX_JSON ((size_t)1 << 30)     /* bytes of a references file */
#define IPFSRT_REFS_MAX_KEYS ((size_t)1 << 24)     /* keys, after gen expanded */
#define IPFSRT_REFS_MAX_TABLE ((uint64_t)1 << 30)  /* bytes of keys and targets kept */
#define IPFSRT_REFS_MAX_TEMPLATE_DEPTH 8           /* templates within templates */
#define IPFSRT_REFS_WHOLE UINT64_MAX               /* length of a [url] reference */

typedef struct ipfsrt_zarr_ref {
    char *key;
    uint8_t *data;  /* inline bytes (NULL for a target's range) */
    size_t len;     /* of data */
    size_t target;  /* index into the targets */
    uint64_t offset, length; /* the target's bytes; length IPFSRT_REFS_WHOLE: all of it */
} ipfsrt_zarr_ref;

typedef struct ipfsrt_zarr_refs {
    ipfsrt_zarr_ref *refs; /* sorted by key, keys unique */
    size_t count;
    char **targets; /* absolute URLs: ipfs://CID/path, http(s)://, s3://, file:// */
    size_t ntargets;
} ipfsrt_zarr_refs;

/* Parses json; relative target URLs are taken from base, the references
 * file's own URL (its folder: "ipfs://CID/refs.json" makes "x.nc"
 * "ipfs://CID/x.nc"); base may be NULL when every target is absolute. */
ipfsrt_status ipfsrt_zarr_refs_parse(ipfsrt_zarr_refs *refs, const char *json, size_t len, const char *base,
                                     ipfsrt_error *err);
/* The reference of key, or NULL. */
const ipfsrt_zarr_ref *ipfsrt_zarr_refs_find(const ipfsrt_zarr_refs *refs, const char *key);
void ipfsrt_zarr_refs_free(ipfsrt_zarr_refs *refs);

/* refs_template.c: text with {{name}}, {{name(arg='v', ...)}} and, with vars,
 * integer expressions ({{(i + 1) * 1000}}) filled in from templates (a cJSON
 * object, may be NULL) and vars (names and values, for gen's dimensions).
 * *out is malloc'd. */
struct cJSON;
typedef struct ipfsrt_refs_var {
    const char *name;
    const char *text; /* a template call's argument */
    int64_t value;    /* a gen dimension's */
} ipfsrt_refs_var;
ipfsrt_status ipfsrt_refs_render(const char *text, const struct cJSON *templates, const ipfsrt_refs_var *vars,
                                 size_t nvars, char **out, ipfsrt_error *err);

#endif
