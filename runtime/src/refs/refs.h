/* Chunk references in the kerchunk format (refs.c): Zarr keys mapped to bytes
 * given inline or to byte ranges of other files (a NetCDF-4 file's chunks, as
 * a Zarr reader reads them). Version 0 (a plain object of keys) and version 1
 * ("refs", "templates", "gen"). Not public: the store over them is
 * (ipfsrt_refs_store_new). */
#ifndef IPFSRT_REFS_REFS_H
#define IPFSRT_REFS_REFS_H

#include "ipfsrt/zarr_store.h"

#define IPFSRT_REFS_MAX_JSON ((size_t)1 << 30)     /* bytes of a references file */
#define IPFSRT_REFS_MAX_KEYS ((size_t)1 << 24)     /* keys, after gen expanded */
#define IPFSRT_REFS_MAX_TABLE ((uint64_t)1 << 30)  /* bytes of keys and targets kept */
#define IPFSRT_REFS_MAX_TEMPLATE_DEPTH 8           /* templates within templates */
#define IPFSRT_REFS_WHOLE UINT64_MAX               /* length of a [url] reference */
#define IPFSRT_REFS_MAX_EXACT ((double)((uint64_t)1 << 53)) /* JSON numbers from here on are not exact */

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

/* Building the table (refs.c), for the JSON events (refs_json.c) and gen
 * (refs_gen.c): keys checked and copied, bytes counted against
 * IPFSRT_REFS_MAX_TABLE, targets rendered from the templates once the whole
 * document is read (they may come after the keys that use them). */
struct cJSON;
typedef struct ipfsrt_refs_builder {
    ipfsrt_zarr_refs *refs;
    size_t cap, targets_cap, raw_cap, nraw;
    char **raw;      /* targets as written, until rendered (each once): a reference's target indexes it */
    bool *top;       /* per reference: a top-level key (version 0), not one of "refs" */
    const char *base; /* the references file's URL, for relative targets */
    const struct cJSON *templates;
    uint64_t bytes;  /* of keys, targets and the table: gen's output is bounded by it */
    ipfsrt_error *err;
} ipfsrt_refs_builder;
ipfsrt_status ipfsrt_refs_spend(ipfsrt_refs_builder *b, size_t n);
/* key checked as a store key and copied (*out malloc'd). */
ipfsrt_status ipfsrt_refs_key(ipfsrt_refs_builder *b, const char *key, char **out);
/* ref added (its key and data taken, freed on failure too); url (may be
 * NULL: inline, or ref->target final already; taken) is its target as
 * written, rendered once the document is read. */
ipfsrt_status ipfsrt_refs_add(ipfsrt_refs_builder *b, ipfsrt_zarr_ref *ref, char *url, bool top);
/* Inline bytes: text, or "base64:" bytes decoded. key taken. */
ipfsrt_status ipfsrt_refs_add_inline(ipfsrt_refs_builder *b, char *key, const char *text, size_t len, bool top);
/* The target's index, url made absolute against base (the same URL is one target). */
ipfsrt_status ipfsrt_refs_target(ipfsrt_refs_builder *b, const char *key, const char *url, size_t *index);
/* refs_gen.c: a version 1 gen list's keys (bounded before expanding). */
ipfsrt_status ipfsrt_refs_gen(ipfsrt_refs_builder *b, const struct cJSON *gen);
/* refs_json.c: json's events into b (streamed: no tree of the document is
 * built); *version 0 or 1; *templates and *gen the small parts kept whole
 * (cJSON, the caller's), *v1_parts whether templates, gen or refs were seen. */
ipfsrt_status ipfsrt_refs_read_json(ipfsrt_refs_builder *b, const char *json, size_t len, int *version,
                                    struct cJSON **templates, struct cJSON **gen, bool *v1_parts);

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

/* store_refs.c: where a references file came from, which decides what its
 * targets may be. */
typedef enum ipfsrt_refs_origin {
    IPFSRT_REFS_CALLERS,    /* the caller's own JSON: trusted as the caller's word, targets anywhere */
    IPFSRT_REFS_UNVERIFIED, /* read unchecked: the store is unverified whatever its targets */
    IPFSRT_REFS_VERIFIED    /* checked against a CID: targets only ipfs:// or beside the file, unless
                               opts->allow_unverified (then the store is unverified if any is not) */
} ipfsrt_refs_origin;
/* Kerchunk references (json, read from url: relative targets are in its
 * folder); own_client: opts->client is the store's to free (whatever the
 * outcome). _url reads the references file at url ("refs+URL", or a URL
 * ending in .json) first (car_len: 0, as the opener gets it). */
ipfsrt_status ipfsrt_refs_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *json, size_t len,
                                     const char *url, ipfsrt_refs_origin origin,
                                     const ipfsrt_zarr_store_options *opts, bool own_client, ipfsrt_error *err);
ipfsrt_status ipfsrt_refs_store_open_url(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                         size_t car_len, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);

#endif
