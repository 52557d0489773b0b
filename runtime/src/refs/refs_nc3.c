/* Kerchunk references of NetCDF-3 files: every variable of numbers an array
 * in big-endian order, uncompressed; a fixed-size variable one chunk where its
 * data begins, a record variable one chunk per record (records of all record
 * variables interleaved, recsize apart), as the format lays them out. Text
 * (char) variables are left out with a reason. The header is read from the
 * file's start, more of it as the parser asks, up to MAX_HEADER. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "refs/make_internal.h"
#include "netcdf/nc3.h"
#include "ipfsrt/zarr_store.h"

#define MAX_HEADER ((size_t)256 << 20)
#define MAX_KEYS ((uint64_t)1 << 24) /* as the references reader takes */

/* One value of an nc_type at p (big-endian) as a double. */
static double value_at(const uint8_t *p, int type) {
    uint64_t v = 0;
    size_t n = ipfsrt_nc3_type_size(type);
    for (size_t i = 0; i < n; i++) v = v << 8 | p[i];
    switch (type) {
    case IPFSRT_NC3_BYTE: return (int8_t)v;
    case IPFSRT_NC3_SHORT: return (int16_t)v;
    case IPFSRT_NC3_INT: return (int32_t)v;
    case IPFSRT_NC3_INT64: return (double)(int64_t)v;
    case IPFSRT_NC3_FLOAT: {
        uint32_t bits = (uint32_t)v;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    case IPFSRT_NC3_DOUBLE: {
        double d;
        memcpy(&d, &v, sizeof d);
        return d;
    }
    default: return (double)v; /* the unsigned types, char */
    }
}

/* An attribute's value: text, a number, or a list of numbers. */
static cJSON *attr_value(const ipfsrt_nc3_attr *a) {
    if (a->type == IPFSRT_NC3_CHAR) {
        size_t n = a->count;
        while (n && a->values[n - 1] == '\0') n--;
        char *s = strndup((const char *)a->values, n);
        cJSON *out = s ? cJSON_CreateString(s) : NULL;
        free(s);
        return out;
    }
    size_t size = ipfsrt_nc3_type_size(a->type);
    if (a->count == 1) return ipfsrt_refs_number(value_at(a->values, a->type));
    cJSON *list = cJSON_CreateArray();
    for (uint64_t i = 0; list && i < a->count; i++) cJSON_AddItemToArray(list, ipfsrt_refs_number(value_at(a->values + i * size, a->type)));
    return list;
}

static cJSON *attrs_json(const ipfsrt_nc3_attr *attrs, size_t n) {
    cJSON *obj = cJSON_CreateObject();
    for (size_t i = 0; obj && i < n; i++)
        if (strcmp(attrs[i].name, "_FillValue") != 0) cJSON_AddItemToObject(obj, attrs[i].name, attr_value(&attrs[i]));
    return obj;
}

typedef struct nc3_maker {
    const ipfsrt_nc3 *nc;
    const char *target;
    FILE *raw; /* for chunks inline; NULL: none inline */
    uint64_t inline_threshold;
    cJSON *refs;
    ipfsrt_error *err;
    ipfsrt_status st;
} nc3_maker;

static void put_text(nc3_maker *m, const char *key, cJSON *doc) {
    if (!ipfsrt_refs_put_meta(m->refs, key, doc)) m->st = ipfsrt_fail(m->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

/* A chunk: the range, or its bytes inline when small. */
static void put_chunk(nc3_maker *m, const char *key, uint64_t offset, uint64_t bytes) {
    ipfsrt_error e;
    cJSON *item = ipfsrt_refs_chunk_item(m->raw, m->target, offset, bytes, m->inline_threshold, &e);
    if (!item) m->st = ipfsrt_fail(m->err, e.code, e.offset, "%s", e.message);
    else if (!cJSON_AddItemToObject(m->refs, key, item)) {
        cJSON_Delete(item);
        m->st = ipfsrt_fail(m->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
}

static const char *const DTYPES[] = {NULL, "|i1", NULL, ">i2", ">i4", ">f4", ">f8", "|u1", ">u2", ">u4", ">i8", ">u8"};

/* .zarray of a variable: shape (the record count for the record dimension),
 * chunks (a record, or all of it), its _FillValue. */
static cJSON *zarray(const ipfsrt_nc3 *nc, const ipfsrt_nc3_var *v) {
    cJSON *meta = cJSON_CreateObject(), *shape = cJSON_CreateArray(), *chunks = cJSON_CreateArray(), *fill = NULL;
    for (size_t d = 0; d < v->rank; d++) {
        uint64_t n = v->record && d == 0 ? nc->numrecs : nc->dims[v->dims[d]].length;
        cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)n));
        cJSON_AddItemToArray(chunks, cJSON_CreateNumber((double)(v->record && d == 0 ? 1 : n ? n : 1)));
    }
    for (size_t i = 0; i < v->nattrs && !fill; i++)
        if (strcmp(v->attrs[i].name, "_FillValue") == 0 && v->attrs[i].count == 1 && v->attrs[i].type == v->type)
            fill = ipfsrt_refs_number(value_at(v->attrs[i].values, v->type));
    cJSON_AddNumberToObject(meta, "zarr_format", 2);
    cJSON_AddItemToObject(meta, "shape", shape);
    cJSON_AddItemToObject(meta, "chunks", chunks);
    cJSON_AddStringToObject(meta, "dtype", DTYPES[v->type]);
    cJSON_AddNullToObject(meta, "compressor");
    cJSON_AddNullToObject(meta, "filters");
    cJSON_AddItemToObject(meta, "fill_value", fill ? fill : cJSON_CreateNull());
    cJSON_AddStringToObject(meta, "order", "C");
    return meta;
}

static cJSON *dim_names(const ipfsrt_nc3 *nc, const ipfsrt_nc3_var *v) {
    cJSON *list = cJSON_CreateArray();
    for (size_t d = 0; list && d < v->rank; d++) cJSON_AddItemToArray(list, cJSON_CreateString(nc->dims[v->dims[d]].name));
    return list;
}

static void variable(nc3_maker *m, const ipfsrt_nc3_var *v, ipfsrt_refs_skip_fn skipped, void *user) {
    ipfsrt_error e;
    if (v->type == IPFSRT_NC3_CHAR) {
        if (skipped) skipped(user, v->name, "characters (text): no Zarr number type here");
        return;
    }
    if (ipfsrt_zarr_key_check(v->name, &e) != IPFSRT_OK) {
        if (skipped) skipped(user, v->name, e.message);
        return;
    }
    char key[IPFSRT_NC3_MAX_NAME + 64];
    snprintf(key, sizeof key, "%s/.zarray", v->name);
    put_text(m, key, zarray(m->nc, v));
    cJSON *attrs = attrs_json(v->attrs, v->nattrs);
    cJSON_AddItemToObject(attrs, "_ARRAY_DIMENSIONS", dim_names(m->nc, v));
    snprintf(key, sizeof key, "%s/.zattrs", v->name);
    put_text(m, key, attrs);
    uint64_t records = v->record ? m->nc->numrecs : 1, index[IPFSRT_NC3_MAX_RANK] = {0};
    for (uint64_t i = 0; v->bytes && i < records && m->st == IPFSRT_OK; i++) {
        index[0] = i; /* "name/i.0.0": record i, "name/0.0": all of it, "name/0": a scalar */
        ipfsrt_refs_chunk_key(key, sizeof key, v->name, v->rank, index);
        put_chunk(m, key, v->begin + i * m->nc->recsize, v->bytes); /* inside the file: checked by the parser */
    }
}

ipfsrt_status ipfsrt_nc3_refs(const ipfsrt_nc3 *nc, const char *target, FILE *raw, uint64_t inline_threshold,
                              ipfsrt_refs_skip_fn skipped, void *user, cJSON *refs, ipfsrt_error *err) {
    nc3_maker m = {.nc = nc, .target = target, .raw = raw, .inline_threshold = inline_threshold, .refs = refs,
                   .err = err};
    uint64_t keys = 0;
    bool overflow = false;
    for (size_t i = 0; i < nc->nvars; i++)
        overflow = overflow || __builtin_add_overflow(keys, nc->vars[i].record ? nc->numrecs : 1, &keys);
    if (overflow || keys > MAX_KEYS)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: %llu chunks, more than references hold (2^24)", target,
                           (unsigned long long)keys);
    cJSON *zgroup = cJSON_CreateObject();
    cJSON_AddNumberToObject(zgroup, "zarr_format", 2);
    put_text(&m, ".zgroup", zgroup);
    put_text(&m, ".zattrs", attrs_json(nc->attrs, nc->nattrs));
    for (size_t i = 0; i < nc->nvars && m.st == IPFSRT_OK; i++) variable(&m, &nc->vars[i], skipped, user);
    return m.st;
}

/* The header of the file at f (of size bytes), read as far as the parser asks. */
static ipfsrt_status read_header(FILE *f, uint64_t size, ipfsrt_nc3 *nc, uint8_t **header, const char *path,
                                 ipfsrt_error *err) {
    size_t want = 1 << 16;
    for (;;) {
        size_t len = size < want ? (size_t)size : want;
        uint8_t *buf = realloc(*header, len ? len : 1);
        if (!buf) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        *header = buf;
        if (fseeko(f, 0, SEEK_SET) != 0 || fread(buf, 1, len, f) != len)
            return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot read its header", path);
        ipfsrt_status st = ipfsrt_nc3_parse(nc, buf, len, size, err);
        if (st != IPFSRT_ETRUNCATED || len == size || want >= MAX_HEADER) return st;
        want *= 4;
    }
}

ipfsrt_status ipfsrt_nc3_open(const char *path, ipfsrt_nc3 *nc, uint8_t **header, FILE **raw, ipfsrt_error *err) {
    *header = NULL;
    memset(nc, 0, sizeof *nc);
    struct stat sb;
    if (!(*raw = fopen(path, "rb")) || fstat(fileno(*raw), &sb) != 0)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot open it", path);
    ipfsrt_status st = read_header(*raw, (uint64_t)sb.st_size, nc, header, path, err);
    if (st != IPFSRT_OK) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        ipfsrt_fail(err, st, err->offset, "%s: %s", path, why);
    }
    return st;
}

bool ipfsrt_nc3_file(const char *path) {
    uint8_t magic[4];
    FILE *f = fopen(path, "rb");
    bool yes = f && fread(magic, 1, 4, f) == 4 && ipfsrt_nc3_is(magic, 4);
    if (f) fclose(f);
    return yes;
}

ipfsrt_status ipfsrt_nc3_refs_of(const char *path, const char *target, uint64_t inline_threshold,
                                 ipfsrt_refs_skip_fn skipped, void *user, cJSON **refs, ipfsrt_error *err) {
    ipfsrt_nc3 nc;
    uint8_t *header = NULL;
    FILE *raw = NULL;
    *refs = NULL;
    ipfsrt_status st = ipfsrt_nc3_open(path, &nc, &header, &raw, err);
    cJSON *out = st == IPFSRT_OK ? cJSON_CreateObject() : NULL;
    if (st == IPFSRT_OK && !out) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) st = ipfsrt_nc3_refs(&nc, target ? target : path, raw, inline_threshold, skipped, user, out, err);
    if (st == IPFSRT_OK) *refs = out;
    else cJSON_Delete(out);
    ipfsrt_nc3_free(&nc);
    free(header);
    if (raw) fclose(raw);
    return st;
}

void *ipfsrt_nc3_values(const char *path, const char *name, bool as_double, size_t max_bytes, size_t *bytes,
                        ipfsrt_error *err) {
    ipfsrt_nc3 nc;
    uint8_t *header = NULL, *stored = NULL;
    FILE *raw = NULL;
    void *out = NULL;
    *bytes = 0;
    if (ipfsrt_nc3_open(path, &nc, &header, &raw, err) == IPFSRT_OK) {
        const ipfsrt_nc3_var *v = NULL;
        for (size_t i = 0; i < nc.nvars && !v; i++)
            if (strcmp(nc.vars[i].name, name) == 0) v = &nc.vars[i];
        uint64_t records = v && v->record ? nc.numrecs : 1, size = v ? ipfsrt_nc3_type_size(v->type) : 1, total = 0;
        if (!v || v->type == IPFSRT_NC3_CHAR)
            ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no variable of numbers %s", path, name);
        else if (__builtin_mul_overflow(records, v->bytes, &total) || total > max_bytes ||
                 total / size > max_bytes / sizeof(double))
            ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: %s has more values than are written inline (%zu MiB)", path,
                        name, max_bytes >> 20);
        else if (!(stored = malloc(total + 1)))
            ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        else {
            bool read = true;
            for (uint64_t i = 0; read && i < records; i++)
                read = fseeko(raw, (off_t)(v->begin + i * nc.recsize), SEEK_SET) == 0 &&
                       fread(stored + i * v->bytes, 1, v->bytes, raw) == v->bytes;
            if (!read) ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot read the values of %s", path, name);
            else if (!as_double) {
                out = stored;
                stored = NULL;
                *bytes = total;
            } else if ((out = malloc(total / size * sizeof(double) + 1))) {
                for (uint64_t k = 0; k < total / size; k++) ((double *)out)[k] = value_at(stored + k * size, v->type);
                *bytes = total / size * sizeof(double);
            } else ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        }
    }
    free(stored);
    ipfsrt_nc3_free(&nc);
    free(header);
    if (raw) fclose(raw);
    return out;
}
