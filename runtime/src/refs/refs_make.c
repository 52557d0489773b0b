/* Kerchunk references of an HDF5 file: every group a Zarr v2 group, every
 * dataset of numbers an array whose chunks are [target, address, size] where
 * HDF5 says they are (H5Dget_chunk_info; a contiguous dataset one chunk at
 * H5Dget_offset; a compact one inline). What Zarr cannot express here is left
 * out with a reason, never written wrong. HDF5's own error printing is off
 * while it works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "base/json_internal.h"
#include "refs/make_internal.h"
#include "ipfsrt/zarr_store.h"

#define MAX_RANK 32

typedef struct maker {
    hid_t file;
    FILE *raw; /* the file, for chunks written inline */
    const char *target;
    uint64_t inline_threshold;
    bool netcdf; /* a NetCDF-4 file (_NCProperties): its conventions apply */
    cJSON *refs;
    cJSON *chunks; /* the dataset's being written: kept only when all of it can be */
    ipfsrt_refs_skip_fn skipped;
    void *user;
    ipfsrt_error *err;
    ipfsrt_status st;
} maker;

static void skip(maker *m, const char *name, const char *why) {
    if (m->skipped) m->skipped(m->user, name, why);
}

static void put_json(maker *m, const char *key, cJSON *doc) {
    if (!ipfsrt_refs_put_meta(m->refs, key, doc)) m->st = ipfsrt_fail(m->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

/* Zarr v2's dtype of an HDF5 number type ("<f4", "|u1", ">i2"), or false. */
static bool zarr_dtype(hid_t type, char out[8]) {
    H5T_class_t cls = H5Tget_class(type);
    size_t size = H5Tget_size(type);
    if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || !(size == 1 || size == 2 || size == 4 || size == 8) ||
        (cls == H5T_FLOAT && size < 4))
        return false;
    char kind = cls == H5T_FLOAT ? 'f' : H5Tget_sign(type) == H5T_SGN_NONE ? 'u' : 'i';
    char order = size == 1 ? '|' : H5Tget_order(type) == H5T_ORDER_BE ? '>' : '<';
    snprintf(out, 8, "%c%c%zu", order, kind, size);
    return true;
}

/* The filter pipeline as Zarr codecs: nothing, deflate, shuffle, or shuffle
 * then deflate (NetCDF-4's order); else why not. */
static const char *codecs_of(hid_t dcpl, size_t itemsize, cJSON **filters, cJSON **compressor) {
    int n = H5Pget_nfilters(dcpl);
    bool shuffled = false;
    *filters = cJSON_CreateNull();
    *compressor = cJSON_CreateNull();
    for (int i = 0; i < n; i++) {
        unsigned flags, cd[8], config;
        size_t ncd = 8;
        char name[64];
        H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, &config);
        if (f == H5Z_FILTER_SHUFFLE && i == 0) {
            shuffled = true;
            cJSON_Delete(*filters);
            *filters = cJSON_CreateArray();
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "id", "shuffle");
            cJSON_AddNumberToObject(s, "elementsize", (double)itemsize);
            cJSON_AddItemToArray(*filters, s);
        } else if (f == H5Z_FILTER_DEFLATE && i == n - 1 && i <= (shuffled ? 1 : 0)) {
            cJSON_Delete(*compressor);
            *compressor = cJSON_CreateObject();
            cJSON_AddStringToObject(*compressor, "id", "zlib");
            cJSON_AddNumberToObject(*compressor, "level", ncd ? cd[0] : 6);
        } else {
            return f == H5Z_FILTER_FLETCHER32 ? "fletcher32 checksums (no Zarr codec checks them here)"
                   : f == H5Z_FILTER_SZIP     ? "szip compression (no Zarr codec here)"
                                              : "a filter pipeline with no Zarr codecs here";
        }
    }
    return NULL;
}

/* "path/i.j.k" of the chunk at element offsets. */
static void chunk_key(char *key, size_t size, const char *path, int rank, const hsize_t *offset,
                      const hsize_t *chunk) {
    uint64_t index[MAX_RANK];
    for (int d = 0; d < rank; d++) index[d] = offset[d] / chunk[d];
    ipfsrt_refs_chunk_key(key, size, path, (size_t)rank, index);
}

/* The key of an array held in one chunk. */
static void single_chunk_key(char *key, size_t size, const char *path, int rank) {
    static const uint64_t zero[MAX_RANK];
    ipfsrt_refs_chunk_key(key, size, path, (size_t)rank, zero);
}

/* key's value (an item made by refs_items.c) among the dataset's chunks. */
static void put_item(maker *m, const char *key, cJSON *item) {
    if (m->st != IPFSRT_OK || !item || !cJSON_AddItemToObject(m->chunks, key, item)) {
        if (m->st == IPFSRT_OK) m->st = ipfsrt_fail(m->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        cJSON_Delete(item);
    }
}

/* A chunk: a range of the target, or its bytes inline when small. */
static void put_chunk(maker *m, const char *key, haddr_t addr, hsize_t size) {
    ipfsrt_error e;
    cJSON *item = ipfsrt_refs_chunk_item(m->raw, m->target, addr, size, m->inline_threshold, &e);
    if (!item) m->st = ipfsrt_fail(m->err, e.code, e.offset, "%s", e.message);
    put_item(m, key, item);
}

/* Every stored chunk, or why not (one stored with a filter skipped). */
static const char *chunked(maker *m, hid_t ds, const char *path, int rank, const hsize_t *chunk) {
    hsize_t n = 0, offset[MAX_RANK], size;
    unsigned mask;
    haddr_t addr;
    hid_t space = H5Dget_space(ds);
    const char *why = H5Dget_num_chunks(ds, space, &n) < 0 ? "its chunks could not be listed" : NULL;
    for (hsize_t i = 0; !why && i < n; i++)
        if (H5Dget_chunk_info(ds, space, i, offset, &mask, &addr, &size) < 0 || mask)
            why = "a chunk stored with a filter skipped";
    for (hsize_t i = 0; !why && i < n && m->st == IPFSRT_OK; i++) {
        H5Dget_chunk_info(ds, space, i, offset, &mask, &addr, &size);
        char key[1024];
        chunk_key(key, sizeof key, path, rank, offset, chunk);
        put_chunk(m, key, addr, size);
    }
    H5Sclose(space);
    return why;
}

/* A compact dataset's bytes, in the file's byte order, inline. */
static const char *compact(maker *m, hid_t ds, hid_t type, const char *path, int rank) {
    hid_t space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    size_t size = H5Tget_size(type);
    uint8_t *buf = n >= 0 && (size_t)n <= SIZE_MAX / (size ? size : 1) ? malloc((size_t)n * size + 1) : NULL;
    const char *why = buf && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 ? NULL
                                                                                        : "its compact data unreadable";
    char key[1024];
    single_chunk_key(key, sizeof key, path, rank);
    if (!why) put_item(m, key, ipfsrt_refs_inline_item(buf, (size_t)n * size));
    free(buf);
    return why;
}

/* The layout's chunks (or why none can be given); *chunk_shape filled. */
static const char *stored(maker *m, hid_t ds, hid_t dcpl, hid_t type, const char *path, int rank,
                          const hsize_t *shape, hsize_t *chunk) {
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CHUNKED) {
        if (H5Pget_chunk(dcpl, rank, chunk) != rank) return "its chunk shape unreadable";
        for (int d = 0; d < rank; d++)
            if (!chunk[d]) return "a chunk shape with a zero in it";
        return chunked(m, ds, path, rank, chunk);
    }
    for (int d = 0; d < rank; d++) chunk[d] = shape[d] ? shape[d] : 1;
    if (layout == H5D_COMPACT) return compact(m, ds, type, path, rank);
    if (layout != H5D_CONTIGUOUS) return "a layout with no Zarr form (virtual)";
    haddr_t addr = H5Dget_offset(ds);
    if (addr == HADDR_UNDEF) return NULL; /* never written: all fill */
    char key[1024];
    single_chunk_key(key, sizeof key, path, rank);
    put_chunk(m, key, addr, H5Dget_storage_size(ds));
    return NULL;
}

static cJSON *sizes(const hsize_t *v, int rank) {
    cJSON *list = cJSON_CreateArray();
    for (int d = 0; list && d < rank; d++) cJSON_AddItemToArray(list, cJSON_CreateNumber((double)v[d]));
    return list;
}

/* One dataset: .zarray, .zattrs and its chunks, or left out with why. */
static void dataset(maker *m, hid_t ds, const char *path) {
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds), dcpl = H5Dget_create_plist(ds);
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t shape[MAX_RANK], chunk[MAX_RANK];
    char dtype[8], key[1040];
    cJSON *filters = NULL, *compressor = NULL;
    const char *why = rank < 0 || rank > MAX_RANK ? "more dimensions than kept"
                      : !zarr_dtype(type, dtype) ? "not a number type (strings, compounds: no Zarr form here)"
                                                 : codecs_of(dcpl, H5Tget_size(type), &filters, &compressor);
    m->chunks = cJSON_CreateObject();
    if (!why) {
        H5Sget_simple_extent_dims(space, shape, NULL);
        why = stored(m, ds, dcpl, type, path, rank, shape, chunk);
    }
    for (cJSON *c = why ? NULL : m->chunks->child, *next; c; c = next) { /* a dataset left out leaves nothing */
        next = c->next;
        cJSON_AddItemToArray(m->refs, cJSON_DetachItemViaPointer(m->chunks, c)); /* keeps its key */
    }
    cJSON_Delete(m->chunks);
    m->chunks = NULL;
    if (why) {
        skip(m, path, why);
        cJSON_Delete(filters);
        cJSON_Delete(compressor);
    } else {
        cJSON *meta = cJSON_CreateObject();
        cJSON_AddNumberToObject(meta, "zarr_format", 2);
        cJSON_AddItemToObject(meta, "shape", sizes(shape, rank));
        cJSON_AddItemToObject(meta, "chunks", sizes(chunk, rank));
        cJSON_AddStringToObject(meta, "dtype", dtype);
        cJSON_AddItemToObject(meta, "compressor", compressor);
        cJSON_AddItemToObject(meta, "filters", filters);
        cJSON_AddItemToObject(meta, "fill_value", ipfsrt_hdf5_fill(ds, m->netcdf));
        cJSON_AddStringToObject(meta, "order", "C");
        snprintf(key, sizeof key, "%s/.zarray", path);
        put_json(m, key, meta);
        cJSON *attrs = ipfsrt_hdf5_attrs(ds, path, m->skipped, m->user);
        cJSON_AddItemToObject(attrs, "_ARRAY_DIMENSIONS", ipfsrt_hdf5_dims(ds, path, rank));
        snprintf(key, sizeof key, "%s/.zattrs", path);
        put_json(m, key, attrs);
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
}

typedef struct walk {
    maker *m;
    const char *prefix; /* the group's path ("" at the root) */
} walk;

static void group(maker *m, hid_t g, const char *path);

static herr_t member(hid_t g, const char *name, const H5L_info_t *info, void *data) {
    walk *w = data;
    maker *m = w->m;
    if (info->type != H5L_TYPE_HARD) return 0; /* soft and external links: the object is elsewhere */
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%s%s%s", w->prefix, *w->prefix ? "/" : "", name) >= sizeof path) {
        skip(m, name, "a path too long");
        return 0;
    }
    ipfsrt_error e;
    if (ipfsrt_zarr_key_check(name, &e) != IPFSRT_OK) {
        skip(m, path, e.message);
        return 0;
    }
    hid_t obj = H5Oopen(g, name, H5P_DEFAULT);
    H5I_type_t kind = obj >= 0 ? H5Iget_type(obj) : H5I_BADID;
    if (kind == H5I_DATASET && !ipfsrt_hdf5_phony(obj)) dataset(m, obj, path);
    else if (kind == H5I_GROUP) group(m, obj, path);
    if (obj >= 0) H5Oclose(obj);
    return m->st == IPFSRT_OK ? 0 : -1;
}

static void group(maker *m, hid_t g, const char *path) {
    char key[1040];
    snprintf(key, sizeof key, "%s%s.zgroup", path, *path ? "/" : "");
    cJSON *zgroup = cJSON_CreateObject();
    cJSON_AddNumberToObject(zgroup, "zarr_format", 2);
    put_json(m, key, zgroup);
    snprintf(key, sizeof key, "%s%s.zattrs", path, *path ? "/" : "");
    put_json(m, key, ipfsrt_hdf5_attrs(g, *path ? path : "/", m->skipped, m->user));
    walk w = {m, path};
    if (m->st == IPFSRT_OK) H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, member, &w);
}

void ipfsrt_refs_options_init(ipfsrt_refs_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

/* The walk itself, in the child: libhdf5 opens the file. */
static ipfsrt_status walk_hdf5(const char *path, const char *target, uint64_t inline_threshold,
                               ipfsrt_refs_skip_fn skipped, void *user, cJSON **refs, ipfsrt_error *err) {
    maker m = {.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), .raw = fopen(path, "rb"),
               .target = target ? target : path, .inline_threshold = inline_threshold,
               .refs = cJSON_CreateObject(), .skipped = skipped, .user = user, .err = err};
    if (m.file < 0 || !m.raw)
        m.st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: neither an HDF5 (NetCDF-4) nor a NetCDF-3 file", path);
    else if (!m.refs)
        m.st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    else {
        m.netcdf = H5Aexists(m.file, "_NCProperties") > 0;
        group(&m, m.file, "");
    }
    if (m.raw) fclose(m.raw);
    if (m.file >= 0) H5Fclose(m.file);
    if (m.st != IPFSRT_OK) cJSON_Delete(m.refs);
    *refs = m.st == IPFSRT_OK ? m.refs : NULL;
    return m.st;
}

typedef struct walk_job {
    const char *path, *target;
    uint64_t inline_threshold;
} walk_job;

static void skip_in_child(void *child, const char *name, const char *why) { ipfsrt_hdf5_child_skip(child, name, why); }

static ipfsrt_status walk_in_child(void *ctx, ipfsrt_hdf5_child *child, ipfsrt_error *err) {
    const walk_job *job = ctx;
    cJSON *refs = NULL;
    ipfsrt_status st = walk_hdf5(job->path, job->target, job->inline_threshold, skip_in_child, child, &refs, err);
    char *json = st == IPFSRT_OK ? cJSON_PrintUnformatted(refs) : NULL;
    cJSON_Delete(refs);
    if (st == IPFSRT_OK && !json) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (json) ipfsrt_hdf5_child_result(child, json, strlen(json));
    free(json);
    return st;
}

/* What came back from the child, checked as any untrusted references: an
 * object of store keys, each a text (metadata, inline bytes) or a
 * [target, offset, length] range of whole numbers. */
static bool refs_shaped(const cJSON *refs) {
    if (!cJSON_IsObject(refs)) return false;
    for (const cJSON *k = refs->child; k; k = k->next) {
        if (ipfsrt_zarr_key_check(k->string, NULL) != IPFSRT_OK) return false;
        if (cJSON_IsString(k)) continue;
        const cJSON *url = cJSON_GetArrayItem(k, 0), *offset = cJSON_GetArrayItem(k, 1),
                    *length = cJSON_GetArrayItem(k, 2);
        if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != 3 || !cJSON_IsString(url) || !cJSON_IsNumber(offset) ||
            !cJSON_IsNumber(length) || offset->valuedouble < 0 || length->valuedouble < 0)
            return false;
    }
    return true;
}

ipfsrt_status ipfsrt_hdf5_refs_of(const char *path, const char *target, uint64_t inline_threshold,
                                 const ipfsrt_hdf5_limits *limits, ipfsrt_refs_skip_fn skipped, void *user,
                                 cJSON **refs, ipfsrt_error *err) {
    *refs = NULL;
    if (ipfsrt_nc3_file(path)) return ipfsrt_nc3_refs_of(path, target, inline_threshold, skipped, user, refs, err);
    walk_job job = {path, target, inline_threshold};
    ipfsrt_buf json;
    ipfsrt_buf_init(&json);
    ipfsrt_status st = ipfsrt_hdf5_isolated(path, limits, walk_in_child, &job, skipped, user, &json, err);
    const char *end = NULL;
    cJSON *got = st == IPFSRT_OK ? ipfsrt_json_parse((const char *)json.data, json.len, &end) : NULL;
    if (st == IPFSRT_OK && (!got || end != (const char *)json.data + json.len || !refs_shaped(got)))
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: the references libhdf5's child made are not well formed", path);
    ipfsrt_buf_free(&json);
    if (st != IPFSRT_OK) cJSON_Delete(got);
    else *refs = got;
    return st;
}

ipfsrt_status ipfsrt_hdf5_refs_json(cJSON *refs, char **json, ipfsrt_error *err) {
    cJSON *doc = cJSON_CreateObject();
    if (doc) {
        cJSON_AddNumberToObject(doc, "version", 1);
        cJSON_AddItemToObject(doc, "refs", refs);
        refs = NULL;
    }
    *json = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    cJSON_Delete(refs);
    return *json ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

ipfsrt_status ipfsrt_refs_make(const char *path, const ipfsrt_refs_options *opts, ipfsrt_refs_skip_fn skipped,
                               void *user, char **json, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(json, err);
    *json = NULL;
    ipfsrt_refs_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_refs_options_init, err);
    if (st != IPFSRT_OK) return st;
    cJSON *refs = NULL;
    ipfsrt_hdf5_limits limits;
    ipfsrt_hdf5_limits_of(&o, &limits);
    st = ipfsrt_hdf5_refs_of(path, o.target, o.inline_threshold, &limits, skipped, user, &refs, err);
    return st == IPFSRT_OK ? ipfsrt_hdf5_refs_json(refs, json, err) : st;
}
