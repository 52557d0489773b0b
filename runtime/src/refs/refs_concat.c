/* Kerchunk references of many files joined along one dimension (daily files
 * into one time axis), as kerchunk's MultiZarrToZarr does: each file's
 * references made (refs_make.c), the files ordered by the dimension's
 * coordinate, every array along the dimension given the chunks of all files
 * with their indices moved on, and the rest taken from the first file once
 * every file is seen to agree on it (metadata, and the values of the other
 * coordinates). Values that cannot be joined as chunks (the dimension's
 * coordinate, whose files hold it in chunks longer than their one day; any
 * array along it whose chunks would not follow one another) are read with
 * libhdf5 and written inline, bounded in size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "refs/make_internal.h"

#define MAX_FILES ((size_t)1 << 20)
#define MAX_INLINE_BYTES ((size_t)64 << 20) /* values of one array written inline */
#define MAX_RANK 32

typedef struct part {
    const char *path, *target;
    cJSON *refs;
    double first, last; /* the dimension's coordinate: the files' order */
    size_t given;       /* place on the command line: the order of ties */
    bool nc3;           /* a NetCDF-3 file (else HDF5) */
} part;

typedef struct joined {
    char *path;        /* the array's ("group/name") */
    int axis;          /* of the dimension, or -1 */
    bool coordinate;   /* one dimension, named as the array */
    bool inlined;      /* its values written inline, not its chunks */
    cJSON *meta;       /* the joined .zarray */
    uint64_t *before;  /* per part: its first chunk index along axis */
    uint64_t *length;  /* per part: its length along axis */
} joined;

typedef struct joiner {
    part *parts;
    size_t n;
    const char *dim;
    joined *arrays;
    size_t narrays;
    cJSON *out;
    ipfsrt_hdf5_limits limits;
    ipfsrt_error *err;
    ipfsrt_status st;
} joiner;

static bool failed(joiner *j) { return j->st != IPFSRT_OK; }

static void oom(joiner *j) {
    if (!failed(j)) j->st = ipfsrt_fail(j->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

/* The JSON held as text at "path/leaf" in refs (metadata), parsed; or NULL. */
static cJSON *meta_at(const cJSON *refs, const char *path, const char *leaf) {
    char key[1100];
    snprintf(key, sizeof key, "%s%s%s", path, *path ? "/" : "", leaf);
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(refs, key);
    return cJSON_IsString(text) ? cJSON_Parse(text->valuestring) : NULL;
}

static uint64_t size_at(const cJSON *list, int d) {
    const cJSON *v = cJSON_GetArrayItem(list, d);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint64_t)v->valuedouble : 0;
}

static const char *basename_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

typedef struct values_job {
    const char *path, *array;
    hid_t mem;
} values_job;

/* In libhdf5's child: the dataset's values read into job->mem (-1: the
 * file's own type, the bytes as stored), at most MAX_INLINE_BYTES. */
static ipfsrt_status read_in_child(void *ctx, ipfsrt_hdf5_child *child, ipfsrt_error *err) {
    const values_job *job = ctx;
    hid_t file = H5Fopen(job->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = file >= 0 ? H5Dopen2(file, job->array, H5P_DEFAULT) : -1;
    hid_t type = ds >= 0 ? (job->mem >= 0 ? H5Tcopy(job->mem) : H5Dget_type(ds)) : -1;
    hid_t space = ds >= 0 ? H5Dget_space(ds) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    size_t size = type >= 0 ? H5Tget_size(type) : 0;
    void *values = NULL;
    ipfsrt_status st = IPFSRT_OK;
    if (n < 0 || !size)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot read %s", job->path, job->array);
    else if ((size_t)n > MAX_INLINE_BYTES / size)
        st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: %s has more values than are written inline (%zu MiB)",
                         job->path, job->array, MAX_INLINE_BYTES >> 20);
    else if (!(values = malloc((size_t)n * size + 1)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    else if (H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot read the values of %s", job->path, job->array);
    if (st == IPFSRT_OK) ipfsrt_hdf5_child_result(child, values, (size_t)n * size);
    free(values);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (ds >= 0) H5Dclose(ds);
    if (file >= 0) H5Fclose(file);
    return st;
}

/* A dataset's values as libhdf5 reads them into mem (-1: the file's own type,
 * the bytes as stored), at most MAX_INLINE_BYTES; NULL on failure (j->st
 * set). A whole number of mem's values, or the child is not believed. */
static void *read_values(joiner *j, const part *p, const char *array, hid_t mem, size_t *bytes) {
    *bytes = 0;
    if (p->nc3) {
        ipfsrt_error e;
        void *values = ipfsrt_nc3_values(p->path, array, mem >= 0, MAX_INLINE_BYTES, bytes, &e);
        if (!values) j->st = ipfsrt_fail(j->err, e.code, e.offset, "%s", e.message);
        return values;
    }
    values_job job = {p->path, array, mem};
    ipfsrt_buf got;
    ipfsrt_buf_init(&got);
    j->st = ipfsrt_hdf5_isolated(p->path, &j->limits, read_in_child, &job, NULL, NULL, &got, j->err);
    size_t unit = mem >= 0 ? H5Tget_size(mem) : 1;
    if (!failed(j) && (got.len > MAX_INLINE_BYTES || !unit || got.len % unit))
        j->st = ipfsrt_fail(j->err, IPFSRT_EIO, -1, "%s: libhdf5's child read %s wrong", p->path, array);
    if (failed(j)) {
        ipfsrt_buf_free(&got);
        return NULL;
    }
    *bytes = got.len;
    if (!got.data) return calloc(1, 1); /* no values: something to free all the same */
    return got.data; /* the buffer's bytes are the caller's now */
}

static int by_coordinate(const void *a, const void *b) {
    const part *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->given < y->given ? -1 : x->given > y->given;
}

/* A file's coordinate values: increasing, its first and last kept. */
static void coordinate_span(joiner *j, part *p, const char *array) {
    size_t bytes;
    double *v = read_values(j, p, array, H5T_NATIVE_DOUBLE, &bytes);
    size_t count = bytes / sizeof *v;
    p->first = count ? v[0] : INFINITY;
    p->last = count ? v[count - 1] : -INFINITY;
    for (size_t k = 1; k < count && !failed(j); k++)
        if (!(v[k] > v[k - 1]))
            j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s: its %s values do not increase (%g after %g)", p->path,
                                j->dim, v[k], v[k - 1]);
    free(v);
}

/* The files in the order of the dimension's coordinate, refusing overlaps. */
static void order_parts(joiner *j, const joined *coord) {
    for (size_t i = 0; i < j->n && !failed(j); i++) coordinate_span(j, &j->parts[i], coord->path);
    if (failed(j)) return;
    qsort(j->parts, j->n, sizeof *j->parts, by_coordinate);
    for (size_t i = 1; i < j->n && !failed(j); i++)
        if (isfinite(j->parts[i].first) && !(j->parts[i].first > j->parts[i - 1].last))
            j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s and %s overlap along %s (%g, %g)", j->parts[i - 1].path,
                                j->parts[i].path, j->dim, j->parts[i - 1].last, j->parts[i].first);
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const joined *)a)->path, ((const joined *)b)->path);
}

/* One array of the first file, with the place of the dimension. */
static void add_array(joiner *j, const cJSON *refs, const char *key) {
    size_t len = strlen(key);
    joined *a = &j->arrays[j->narrays++];
    a->axis = -1;
    if (!(a->path = strndup(key, len > 8 ? len - 8 : 0))) return oom(j);
    cJSON *attrs = meta_at(refs, a->path, ".zattrs");
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(attrs, "_ARRAY_DIMENSIONS");
    for (int d = 0; d < cJSON_GetArraySize(dims); d++) {
        const cJSON *name = cJSON_GetArrayItem(dims, d);
        if (cJSON_IsString(name) && strcmp(name->valuestring, j->dim) == 0) a->axis = d;
    }
    a->coordinate = cJSON_GetArraySize(dims) == 1 && cJSON_IsString(dims->child) &&
                    strcmp(dims->child->valuestring, basename_of(a->path)) == 0;
    cJSON_Delete(attrs);
    a->meta = meta_at(refs, a->path, ".zarray");
    a->before = calloc(j->n, sizeof *a->before);
    a->length = calloc(j->n, sizeof *a->length);
    if (!a->meta || !a->before || !a->length) oom(j);
}

static size_t count_arrays(const cJSON *refs) {
    size_t n = 0;
    for (const cJSON *k = refs->child; k; k = k->next) n += strcmp(basename_of(k->string), ".zarray") == 0;
    return n;
}

static void find_arrays(joiner *j) {
    const cJSON *refs = j->parts[0].refs;
    j->arrays = calloc(count_arrays(refs) + 1, sizeof *j->arrays);
    if (!j->arrays) return oom(j);
    for (const cJSON *k = refs->child; k && !failed(j); k = k->next)
        if (strcmp(basename_of(k->string), ".zarray") == 0) add_array(j, refs, k->string);
    qsort(j->arrays, j->narrays, sizeof *j->arrays, by_path);
    for (size_t i = 1; i < j->n && !failed(j); i++) /* the other way round: agreeing_length */
        for (const cJSON *k = j->parts[i].refs->child; k && !failed(j); k = k->next)
            if (strcmp(basename_of(k->string), ".zarray") == 0 && !cJSON_GetObjectItemCaseSensitive(refs, k->string))
                j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s has %.*s, %s has not", j->parts[i].path,
                                    (int)(strlen(k->string) - 8), k->string, j->parts[0].path);
}

/* Part i's .zarray against the first's, the length along the axis aside;
 * the length returned (j->st set when they disagree). */
static uint64_t agreeing_length(joiner *j, joined *a, size_t i) {
    cJSON *mine = meta_at(j->parts[i].refs, a->path, ".zarray"), *theirs = meta_at(j->parts[0].refs, a->path, ".zarray");
    uint64_t length = a->axis >= 0 ? size_at(cJSON_GetObjectItemCaseSensitive(mine, "shape"), a->axis) : 0;
    if (a->axis >= 0 && mine && theirs) {
        cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(mine, "shape"), a->axis, cJSON_CreateNumber(0));
        cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(theirs, "shape"), a->axis, cJSON_CreateNumber(0));
    }
    if (!mine)
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s has no %s (%s has)", j->parts[i].path, a->path,
                            j->parts[0].path);
    else if (!cJSON_Compare(mine, theirs, true))
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1,
                            "%s: %s differs from %s's (its type, chunks, codecs, fill value or other dimensions)",
                            j->parts[i].path, a->path, j->parts[0].path);
    cJSON_Delete(mine);
    cJSON_Delete(theirs);
    return length;
}

/* The dimension's coordinate's attributes (units, calendar: what its values
 * mean) in part i as in the first file. */
static void same_attrs(joiner *j, const joined *a, size_t i) {
    cJSON *mine = meta_at(j->parts[i].refs, a->path, ".zattrs"), *theirs = meta_at(j->parts[0].refs, a->path, ".zattrs");
    if (!cJSON_Compare(mine, theirs, true))
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the attributes of %s (units, calendar) differ from %s's",
                            j->parts[i].path, a->path, j->parts[0].path);
    cJSON_Delete(mine);
    cJSON_Delete(theirs);
}

/* An array along the dimension: its joined length, each part's first chunk,
 * and whether its chunks can follow one another (else its values go inline). */
static void place_chunks(joiner *j, joined *a) {
    uint64_t chunk = size_at(cJSON_GetObjectItemCaseSensitive(a->meta, "chunks"), a->axis), total = 0, chunks = 0;
    if (!chunk) chunk = 1;
    a->inlined = a->coordinate && strcmp(basename_of(a->path), j->dim) == 0;
    for (size_t i = 0; i < j->n && !failed(j); i++) {
        a->length[i] = agreeing_length(j, a, i);
        if (a->inlined && a->coordinate && !failed(j)) same_attrs(j, a, i);
        if (i + 1 < j->n && a->length[i] % chunk) a->inlined = true; /* a part chunk inside the axis */
        a->before[i] = chunks;
        chunks += a->length[i] / chunk + (a->length[i] % chunk != 0);
        total += a->length[i];
    }
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(a->meta, "shape"), a->axis,
                             cJSON_CreateNumber((double)total));
}

/* An array without the dimension: every file's metadata (and, for a
 * coordinate, its values) the first file's. */
static void check_same(joiner *j, joined *a) {
    size_t first_bytes = 0;
    void *first = a->coordinate ? read_values(j, &j->parts[0], a->path, -1, &first_bytes) : NULL;
    for (size_t i = 1; i < j->n && !failed(j); i++) {
        agreeing_length(j, a, i);
        if (!a->coordinate || failed(j)) continue;
        size_t bytes;
        void *mine = read_values(j, &j->parts[i], a->path, -1, &bytes);
        if (mine && (bytes != first_bytes || memcmp(mine, first, bytes) != 0))
            j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the values of %s differ from %s's", j->parts[i].path,
                                a->path, j->parts[0].path);
        free(mine);
    }
    free(first);
}

/* "dir/i.j.k" with index axis moved on by by; false if leaf is not such a key. */
static bool moved_key(char *out, size_t size, const char *dir, const char *leaf, int axis, uint64_t by) {
    uint64_t index[MAX_RANK];
    int rank = 0;
    for (const char *p = leaf; rank < MAX_RANK;) {
        char *end;
        if (*p < '0' || *p > '9') return false;
        index[rank++] = strtoull(p, &end, 10);
        if (*end == '\0') break;
        if (*end != '.') return false;
        p = end + 1;
    }
    if (axis >= rank) return false;
    index[axis] += by;
    return ipfsrt_refs_chunk_key(out, size, dir, (size_t)rank, index);
}

static joined *array_of(joiner *j, const char *dir) {
    joined key = {.path = (char *)dir};
    return bsearch(&key, j->arrays, j->narrays, sizeof *j->arrays, by_path);
}

/* One of part i's keys into the joined references (or dropped). */
static void move_key(joiner *j, size_t i, cJSON *item) {
    const char *leaf = basename_of(item->string);
    char dir[1100], key[1200];
    snprintf(dir, sizeof dir, "%.*s", leaf > item->string ? (int)(leaf - item->string - 1) : 0, item->string);
    joined *a = leaf[0] == '.' ? NULL : array_of(j, dir);
    bool keep = leaf[0] == '.' ? i == 0 && strcmp(leaf, ".zarray") != 0 /* the first file's groups and attributes */
                : !a || a->inlined        ? false
                : a->axis < 0             ? i == 0
                                          : true;
    if (!keep) return;
    cJSON_DetachItemViaPointer(j->parts[i].refs, item);
    if (!a || a->axis < 0) {
        cJSON_AddItemToArray(j->out, item); /* keeps its key */
    } else if (moved_key(key, sizeof key, dir, leaf, a->axis, a->before[i])) {
        cJSON_AddItemToObject(j->out, key, item);
    } else {
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s is not a chunk key", j->parts[i].path, item->string);
        cJSON_Delete(item);
    }
}

static void move_keys(joiner *j) {
    for (size_t i = 0; i < j->n && !failed(j); i++)
        for (cJSON *k = j->parts[i].refs->child, *next; k && !failed(j); k = next) {
            next = k->next;
            move_key(j, i, k);
        }
}

static bool product(uint64_t *acc, uint64_t by) { return !__builtin_mul_overflow(*acc, by, acc); }

/* The array's values (each file's, read with libhdf5) side by side along the
 * axis as one uncompressed chunk inline. */
static void write_inline(joiner *j, joined *a) {
    cJSON *shape = cJSON_GetObjectItemCaseSensitive(a->meta, "shape");
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(a->meta, "dtype");
    int rank = cJSON_GetArraySize(shape);
    if (rank > MAX_RANK) {
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "%s: more than %d dimensions", a->path, MAX_RANK);
        return;
    }
    uint64_t outer = 1, inner = cJSON_IsString(dtype) ? strtoull(dtype->valuestring + 2, NULL, 10) : 0, total = inner;
    bool fits = true;
    for (int d = 0; d < rank; d++) {
        fits = fits && product(d < a->axis ? &outer : &inner, d == a->axis ? 1 : size_at(shape, d));
        fits = fits && product(&total, size_at(shape, d));
    }
    if (!fits || total > MAX_INLINE_BYTES) {
        j->st = ipfsrt_fail(j->err, IPFSRT_ETOO_LARGE, -1,
                            "%s: its chunks along %s do not follow one another from file to file, and its values are "
                            "more than are written inline (%zu MiB)", a->path, j->dim, MAX_INLINE_BYTES >> 20);
        return;
    }
    uint8_t *all = malloc(total + 1);
    uint64_t done = 0; /* along the axis */
    for (size_t i = 0; all && i < j->n && !failed(j); i++) {
        size_t bytes;
        uint8_t *mine = read_values(j, &j->parts[i], a->path, -1, &bytes);
        uint64_t run = a->length[i] * inner, whole = total / (outer ? outer : 1) / (inner ? inner : 1);
        if (mine && bytes != outer * run)
            j->st = ipfsrt_fail(j->err, IPFSRT_EIO, -1, "%s: %s holds %zu bytes, not its shape's", j->parts[i].path,
                                a->path, bytes);
        for (uint64_t o = 0; mine && !failed(j) && o < outer; o++)
            memcpy(all + (o * whole + done) * inner, mine + o * run, run);
        done += a->length[i];
        free(mine);
    }
    char key[1200];
    static const uint64_t zero[MAX_RANK];
    ipfsrt_refs_chunk_key(key, sizeof key, a->path, (size_t)rank, zero);
    cJSON *item = all && !failed(j) ? ipfsrt_refs_inline_item(all, total) : NULL;
    if (!failed(j) && (!item || !cJSON_AddItemToObject(j->out, key, item))) {
        cJSON_Delete(item);
        oom(j);
    }
    free(all);
    cJSON *chunks = cJSON_CreateArray();
    for (int d = 0; chunks && d < rank; d++) {
        uint64_t s = size_at(shape, d);
        cJSON_AddItemToArray(chunks, cJSON_CreateNumber((double)(s ? s : 1)));
    }
    cJSON_ReplaceItemInObjectCaseSensitive(a->meta, "chunks", chunks);
    cJSON_ReplaceItemInObjectCaseSensitive(a->meta, "compressor", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(a->meta, "filters", cJSON_CreateNull());
}

static void put_meta(joiner *j, joined *a) {
    char key[1100];
    snprintf(key, sizeof key, "%s%s.zarray", a->path, *a->path ? "/" : "");
    if (!ipfsrt_refs_put_meta(j->out, key, a->meta)) oom(j);
    a->meta = NULL; /* taken */
}

static void join(joiner *j) {
    find_arrays(j);
    const joined *coord = NULL;
    bool along = false;
    for (size_t k = 0; k < j->narrays; k++) {
        joined *a = &j->arrays[k];
        along = along || a->axis >= 0;
        if (a->coordinate && a->axis == 0 && strcmp(basename_of(a->path), j->dim) == 0 && !coord) coord = a;
    }
    if (!failed(j) && !along)
        j->st = ipfsrt_fail(j->err, IPFSRT_EBAD_ARGUMENT, -1, "no variable of %s has the dimension %s", j->parts[0].path, j->dim);
    if (coord && !failed(j)) order_parts(j, coord);
    for (size_t k = 0; k < j->narrays && !failed(j); k++)
        j->arrays[k].axis >= 0 ? place_chunks(j, &j->arrays[k]) : check_same(j, &j->arrays[k]);
    if (!failed(j) && !(j->out = cJSON_CreateObject())) oom(j);
    if (!failed(j)) move_keys(j);
    for (size_t k = 0; k < j->narrays && !failed(j); k++) {
        if (j->arrays[k].inlined) write_inline(j, &j->arrays[k]);
        put_meta(j, &j->arrays[k]);
    }
}

static void joiner_free(joiner *j) {
    for (size_t i = 0; j->parts && i < j->n; i++) cJSON_Delete(j->parts[i].refs);
    for (size_t k = 0; k < j->narrays; k++) {
        free(j->arrays[k].path);
        cJSON_Delete(j->arrays[k].meta);
        free(j->arrays[k].before);
        free(j->arrays[k].length);
    }
    free(j->arrays);
    free(j->parts);
    cJSON_Delete(j->out);
}

ipfsrt_status ipfsrt_refs_concat(const char *const *paths, const char *const *targets, size_t n, const char *dim,
                                 const ipfsrt_refs_options *opts, ipfsrt_refs_skip_fn skipped, void *user, char **json,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(paths, err);
    IPFSRT_NEED(dim, err);
    IPFSRT_NEED(json, err);
    *json = NULL;
    ipfsrt_refs_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_refs_options_init, err);
    if (st != IPFSRT_OK) return st;
    if (!n || n > MAX_FILES || !dim || !*dim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "references are joined from 1 to %zu files along a dimension named",
                           MAX_FILES);
    joiner j = {.parts = calloc(n, sizeof(part)), .n = n, .dim = dim, .err = err};
    if (!j.parts) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_hdf5_limits_of(&o, &j.limits);
    for (size_t i = 0; i < n && !failed(&j); i++) {
        j.parts[i] = (part){.path = paths[i], .target = targets ? targets[i] : NULL, .given = i,
                            .nc3 = ipfsrt_nc3_file(paths[i])};
        j.st = ipfsrt_hdf5_refs_of(paths[i], j.parts[i].target, o.inline_threshold, &j.limits, skipped, user,
                                   &j.parts[i].refs, err);
    }
    if (!failed(&j)) join(&j);
    cJSON *out = j.out;
    j.out = NULL;
    st = j.st;
    joiner_free(&j);
    if (st != IPFSRT_OK) {
        cJSON_Delete(out);
        return st;
    }
    return ipfsrt_hdf5_refs_json(out, json, err);
}
