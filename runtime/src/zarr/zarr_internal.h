/* What the Zarr files share; not public. */
#ifndef IPFSRT_ZARR_INTERNAL_H
#define IPFSRT_ZARR_INTERNAL_H

#include <cjson/cJSON.h>

#include "base/json_internal.h"

#include "ipfsrt/zarr.h"

/* An array's metadata (ipfsrt/zarr.h: opaque to hosts, read through its
 * accessors). */
struct ipfsrt_zarr_meta {
    int zarr_format; /* 2 or 3 */
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    size_t chunks[IPFSRT_NDARRAY_MAX_DIMS];
    size_t grid[IPFSRT_NDARRAY_MAX_DIMS]; /* chunks per dimension: ceil(shape / chunks) */
    ipfsrt_dtype dtype;                   /* in memory: float16 is widened to float32 */
    size_t itemsize;                      /* in memory */
    size_t stored_itemsize;               /* in chunks */
    bool float16;                         /* stored as float16 */
    bool utf32;                           /* v2 "<U<n>": stored as UTF-32, held as UTF-8 bytes (NUL-padded) */
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
    /* v3 sharding_indexed: each stored chunk is a shard of inner chunks that
     * inner describes (its shape: the shard's; chunks: the inner chunks'; grid:
     * inner chunks per shard; its codecs), with an index of (offset, nbytes)
     * per inner chunk at its start or end. NULL: not sharded. */
    struct ipfsrt_zarr_meta *inner;
    bool index_at_start, index_big_endian, index_checksum;
    char *dimension_names[IPFSRT_NDARRAY_MAX_DIMS]; /* v3 dimension_names, v2 _ARRAY_DIMENSIONS; NULL: unnamed */
    char name[256];                       /* for messages: the array's path or key */
};

#define THREADS_MAX 8 /* decoding (and encoding) threads of one read at most */

/* One metadata document (consolidated ones can be large): a store is asked
 * for one byte more, and a longer answer refused, never held. */
#define IPFSRT_ZARR_DOC_MAX ((uint64_t)256 << 20)

/* The data type of a v2 typestr ("<i2", "|b1", ">f8", "<M8[ns]", "|S12") or a
 * v3 data_type name into m's dtype fields. */
ipfsrt_status ipfsrt_zarr_dtype_v2(ipfsrt_zarr_meta *m, const char *typestr, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_dtype_v3(ipfsrt_zarr_meta *m, const cJSON *data_type, ipfsrt_error *err);
/* The fill value (v2 or v3 encodings) into m->fill. */
ipfsrt_status ipfsrt_zarr_fill(ipfsrt_zarr_meta *m, const cJSON *fill, ipfsrt_error *err);
/* Parts of metadata parsing the sharding codec shares: a list of sizes (shape:
 * >= 0, chunks: >= 1) of m->ndim entries (setting ndim when it is -1); the grid
 * and the chunk size checked; a v3 extension's name and configuration; a v3
 * codec chain. */
ipfsrt_status ipfsrt_zarr_sizes(ipfsrt_zarr_meta *m, const cJSON *list, const char *what, bool chunks, size_t *out,
                                ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_check_sizes(ipfsrt_zarr_meta *m, ipfsrt_error *err);
const char *ipfsrt_zarr_ext_name(const cJSON *e, const cJSON **config);
ipfsrt_status ipfsrt_zarr_v3_codecs(ipfsrt_zarr_meta *m, const cJSON *codecs, ipfsrt_error *err);
/* sharding_indexed's configuration into m->inner and the index fields; the
 * fill value handed on to the inner chunks once it is known. */
ipfsrt_status ipfsrt_zarr_shard_parse(ipfsrt_zarr_meta *m, const cJSON *config, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_shard_fill(ipfsrt_zarr_meta *m, ipfsrt_error *err);

/* ipfsrt_zarr_meta_parse and ipfsrt_zarr_meta_set_attributes on parsed JSON. */
ipfsrt_status ipfsrt_zarr_meta_from_json(ipfsrt_zarr_meta **out, const cJSON *json, int format, const char *name,
                                         ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_meta_set_attributes_json(ipfsrt_zarr_meta *m, const cJSON *attrs, ipfsrt_error *err);
/* The same, attrs taken over (freed on failure too): no copy. */
ipfsrt_status ipfsrt_zarr_meta_take_attributes(ipfsrt_zarr_meta *m, cJSON *attrs, ipfsrt_error *err);
/* A consolidated document and its place in the map (which of equal keys came first). */
typedef struct ipfsrt_zarr_placed {
    const cJSON *doc;
    size_t place;
} ipfsrt_zarr_placed;

/* What the nodes opened from one another share. */
typedef struct ipfsrt_zarr_hierarchy {
    unsigned refs;
    ipfsrt_zarr_store *store;
    cJSON *consolidated;                 /* key relative to base -> document; NULL: none */
    struct ipfsrt_zarr_placed *sorted;   /* its documents by key (the first of equal keys first) */
    size_t sorted_count;
    char base[IPFSRT_ZARR_KEY_MAX + 2];  /* "" or "a/b/": the node that held it */
} ipfsrt_zarr_hierarchy;

/* The consolidated document under key, found by binary search (opening each
 * of n arrays costs log n, not n), or NULL. */
const cJSON *ipfsrt_zarr_consolidated_get(const ipfsrt_zarr_hierarchy *h, const char *key);

struct ipfsrt_zarr_node {
    ipfsrt_zarr_hierarchy *h;
    char path[IPFSRT_ZARR_KEY_MAX + 1];
    int format;
    ipfsrt_zarr_meta *meta; /* arrays */
    cJSON *attributes;      /* groups */
    cJSON *doc;             /* the metadata document as stored (.zarray, .zgroup, zarr.json), its
                               attributes and consolidated metadata moved out */
};

/* An array's metadata as the library allocates it: the public fields, then
 * the user attributes (a JSON object or NULL; owned). */
typedef struct ipfsrt_zarr_meta_held {
    ipfsrt_zarr_meta meta;
    cJSON *attributes;
} ipfsrt_zarr_meta_held;
ipfsrt_zarr_meta *ipfsrt_zarr_meta_alloc(void);
static inline cJSON **ipfsrt_zarr_meta_attrs(ipfsrt_zarr_meta *m) { return &((ipfsrt_zarr_meta_held *)m)->attributes; }
static inline const cJSON *ipfsrt_zarr_meta_attrs_of(const ipfsrt_zarr_meta *m) {
    return ((const ipfsrt_zarr_meta_held *)m)->attributes;
}
/* A node's user attributes (an object, never NULL). */
const cJSON *ipfsrt_zarr_node_attributes(const ipfsrt_zarr_node *n);
/* Appends doc's text (exact numbers) to json; a NULL doc as "{}". */
ipfsrt_status ipfsrt_zarr_json_append(const cJSON *doc, ipfsrt_buf *json, ipfsrt_error *err);

/* doc as JSON text in ASCII only (other characters as \u escapes, as Python
 * writes them: zarr-python reads nothing else); free() it. */
char *ipfsrt_zarr_print_json(const cJSON *doc);
/* doc written as the key name under path (create.c). */
ipfsrt_status ipfsrt_zarr_put_json(ipfsrt_zarr_store *s, const char *path, const char *name, const cJSON *doc,
                                   ipfsrt_error *err);

/* "/a//b/" -> "a/b" into out, checked as a key ("" for the top). */
ipfsrt_status ipfsrt_zarr_normalize_path(const char *path, char *out, size_t cap, ipfsrt_error *err);

/* The path of a node relative to the node whose consolidated metadata serves
 * it ("" for that node itself), or NULL when none does. */
const char *ipfsrt_zarr_consolidated_rel(const ipfsrt_zarr_hierarchy *h, const char *path);

/* Buffers a decoding thread reuses from chunk to chunk, and how its chunks
 * meet their places in the output. */
typedef struct ipfsrt_zarr_scratch {
    ipfsrt_buf raw, wide, chain[2];
    /* CF decoding on the way (the output is then float32 or float64); NULL:
     * the values as stored */
    const ipfsrt_ndarray_scaling *unscale;
} ipfsrt_zarr_scratch;
void ipfsrt_zarr_scratch_free(ipfsrt_zarr_scratch *s);
/* A chunk the store does not have into its region: the fill value (with no
 * fill value, zeros), unscaled as s says. */
ipfsrt_status ipfsrt_zarr_fill_region(const ipfsrt_zarr_meta *m, ipfsrt_ndarray *region,
                                      const ipfsrt_zarr_scratch *s, ipfsrt_error *err);

/* Decodes a stored chunk into dst, a view (of no buffer, or one whose counts
 * no other thread touches) of the chunk's elements from lstart with steps
 * lstep in each dimension: straight into dst when it is the whole chunk in one
 * run and stored as the output is laid out, else through s. */
ipfsrt_status ipfsrt_zarr_decode_into(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len,
                                      const ipfsrt_ndarray *dst, const size_t *lstart, const size_t *lstep,
                                      ipfsrt_zarr_scratch *s, ipfsrt_error *err);
/* A whole shard into dst (the shard's shape), empty inner chunks the fill value. */
ipfsrt_status ipfsrt_zarr_decode_shard(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len, ipfsrt_ndarray *dst,
                                       ipfsrt_zarr_scratch *s, ipfsrt_error *err);
/* A chunk (its full shape, any layout) encoded as stored into out; a shard's
 * inner chunks and index (inner chunks of only the fill value left out). */
ipfsrt_status ipfsrt_zarr_encode_chunk(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk,
                                       ipfsrt_zarr_scratch *s, ipfsrt_buf *out, ipfsrt_error *err);
ipfsrt_status ipfsrt_zarr_encode_shard(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *shard,
                                       ipfsrt_zarr_scratch *s, ipfsrt_buf *out, ipfsrt_error *err);
/* Every element of chunk (a C-order array) is the fill value (NaN equal to NaN). */
bool ipfsrt_zarr_all_fill(const ipfsrt_zarr_meta *m, const ipfsrt_ndarray *chunk);
/* Prefixes err with the array's name and the chunk's key. */
void ipfsrt_zarr_name_chunk(const ipfsrt_zarr_meta *m, const size_t *index, ipfsrt_error *err);

/* v2 "U" strings: an element's UTF-32 code units to NUL-padded UTF-8 in
 * place, and back (into out, of the same size). */
void ipfsrt_zarr_utf32_to_utf8(uint8_t *elem, size_t size, bool big);
void ipfsrt_zarr_utf8_to_utf32(const uint8_t *elem, size_t size, uint8_t *out, bool big);

/* float16 bits to float, every case (subnormals, infinities, NaN). */
float ipfsrt_zarr_half_to_float(uint16_t h);

#endif
