/* NetCDF-3 headers: magic, record count, dimensions, the file's attributes,
 * variables (their dimensions, attributes, type, size and offset), each list
 * a tag and a count, big-endian, padded to 4 bytes. Counts are checked
 * against the bytes left before anything is allocated for them; sizes are
 * multiplied and added with overflow checks; every variable's data is
 * checked to lie inside the file. */
#include <stdlib.h>
#include <string.h>

#include "netcdf/nc3.h"

#define TAG_DIMENSION 10
#define TAG_VARIABLE 11
#define TAG_ATTRIBUTE 12

typedef struct cursor {
    const uint8_t *base;
    size_t at, len;
    int version;
    ipfsrt_error *err;
    ipfsrt_status st;
} cursor;

static bool ok(const cursor *c) { return c->st == IPFSRT_OK; }

static void bad(cursor *c, const char *what) {
    if (ok(c)) c->st = ipfsrt_fail(c->err, IPFSRT_EBAD_ARGUMENT, (int64_t)c->at, "NetCDF-3 header: %s at byte offset %zu", what, c->at);
}

static bool need(cursor *c, uint64_t n) {
    if (!ok(c)) return false;
    if (n <= c->len - c->at) return true;
    c->st = ipfsrt_fail(c->err, IPFSRT_ETRUNCATED, (int64_t)c->at, "NetCDF-3 header: ends inside an item at byte offset %zu",
                        c->at);
    return false;
}

/* A big-endian number of n bytes (4 or 8); 0 once failed. */
static uint64_t take(cursor *c, int n) {
    if (!need(c, (uint64_t)n)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | c->base[c->at + (size_t)i];
    c->at += (size_t)n;
    return v;
}

/* A count (nelems, a rank, a dimension id): 8 bytes in CDF-5, else 4. */
static uint64_t count(cursor *c) { return take(c, c->version == 5 ? 8 : 4); }

static uint64_t padded(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

size_t ipfsrt_nc3_type_size(int type) {
    static const size_t size[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return type > 0 && type <= IPFSRT_NC3_UINT64 ? size[type] : 0;
}

static char *name(cursor *c) {
    uint64_t n = count(c);
    if (ok(c) && (n == 0 || n > IPFSRT_NC3_MAX_NAME)) bad(c, "a name of no or too many bytes");
    if (!need(c, padded(n))) return NULL;
    const char *s = (const char *)c->base + c->at;
    if (memchr(s, '\0', n)) bad(c, "a name with a NUL byte");
    char *out = ok(c) ? strndup(s, n) : NULL;
    if (ok(c) && !out) c->st = ipfsrt_fail(c->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    c->at += padded(n);
    return out;
}

/* A list's tag and count: 0 for an absent list; at most left / min_item
 * items (each takes at least that many bytes). */
static size_t list(cursor *c, uint64_t tag, size_t min_item) {
    uint64_t t = take(c, 4), n = count(c);
    if (!ok(c) || (t == 0 && n == 0)) return 0;
    if (t != tag) bad(c, "an unknown list tag");
    else if (n > (c->len - c->at) / min_item) need(c, c->len - c->at + 1); /* more items than bytes: cut off, or lying */
    return ok(c) ? (size_t)n : 0;
}

static void attribute(cursor *c, ipfsrt_nc3_attr *a) {
    a->name = name(c);
    a->type = (int)take(c, 4);
    a->count = count(c);
    size_t size = ipfsrt_nc3_type_size(a->type);
    if (ok(c) && !size) bad(c, "an attribute of an unknown type");
    if (ok(c) && a->count > (c->len - c->at) / size) need(c, c->len - c->at + 1);
    if (!need(c, padded(a->count * size))) return;
    a->values = c->base + c->at;
    c->at += padded(a->count * size);
}

static ipfsrt_nc3_attr *attributes(cursor *c, size_t *n) {
    *n = list(c, TAG_ATTRIBUTE, 12);
    ipfsrt_nc3_attr *attrs = *n ? calloc(*n, sizeof *attrs) : NULL;
    if (*n && !attrs) c->st = ipfsrt_fail(c->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; attrs && i < *n && ok(c); i++) attribute(c, &attrs[i]);
    return attrs;
}

static void variable(cursor *c, const ipfsrt_nc3 *nc, ipfsrt_nc3_var *v) {
    v->name = name(c);
    uint64_t rank = count(c);
    if (ok(c) && rank > IPFSRT_NC3_MAX_RANK) bad(c, "a variable of more than 32 dimensions");
    for (size_t d = 0; ok(c) && d < rank; d++) {
        uint64_t id = count(c);
        if (ok(c) && id >= nc->ndims) bad(c, "a dimension id out of range");
        v->dims[d] = (size_t)id;
        v->rank = d + 1;
    }
    v->attrs = attributes(c, &v->nattrs);
    v->type = (int)take(c, 4);
    if (ok(c) && !ipfsrt_nc3_type_size(v->type)) bad(c, "a variable of an unknown type");
    take(c, c->version == 5 ? 8 : 4); /* vsize: computed below, as readers do (it overflows for big variables) */
    v->begin = take(c, c->version == 1 ? 4 : 8);
}

/* A variable's bytes (of a record, for a record variable), or false on overflow. */
static bool data_bytes(const ipfsrt_nc3 *nc, ipfsrt_nc3_var *v) {
    uint64_t n = ipfsrt_nc3_type_size(v->type);
    for (size_t d = v->record ? 1 : 0; d < v->rank; d++)
        if (__builtin_mul_overflow(n, nc->dims[v->dims[d]].length, &n)) return false;
    v->bytes = n;
    return true;
}

/* Where a variable's last byte ends, against the file's size. */
static bool inside(const ipfsrt_nc3 *nc, const ipfsrt_nc3_var *v, uint64_t file_size) {
    uint64_t end, skip = 0;
    if (v->record && nc->numrecs == 0) return true;
    if (v->record && __builtin_mul_overflow(nc->numrecs - 1, nc->recsize, &skip)) return false;
    return !__builtin_add_overflow(v->begin, skip, &end) && !__builtin_add_overflow(end, v->bytes, &end) &&
           end <= file_size;
}

/* Sizes, the record size, a streaming file's record count, and every
 * variable's data inside the file. */
static void sizes(cursor *c, ipfsrt_nc3 *nc, bool streaming, uint64_t file_size) {
    size_t records = 0;
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; ok(c) && i < nc->nvars; i++) {
        ipfsrt_nc3_var *v = &nc->vars[i];
        v->record = v->rank > 0 && nc->dims[v->dims[0]].length == 0;
        for (size_t d = 1; d < v->rank; d++)
            if (nc->dims[v->dims[d]].length == 0) bad(c, "the record dimension other than first");
        if (ok(c) && !data_bytes(nc, v)) bad(c, "a variable too large");
        if (!v->record) continue;
        records++;
        if (v->begin < first) first = v->begin;
        if (__builtin_add_overflow(nc->recsize, padded(v->bytes), &nc->recsize)) bad(c, "records too large");
    }
    for (size_t i = 0; records == 1 && i < nc->nvars; i++)
        if (nc->vars[i].record) nc->recsize = nc->vars[i].bytes; /* one record variable: records unpadded */
    if (streaming) nc->numrecs = nc->recsize && file_size > first ? (file_size - first) / nc->recsize : 0;
    for (size_t i = 0; ok(c) && i < nc->nvars; i++)
        if (!inside(nc, &nc->vars[i], file_size))
            c->st = ipfsrt_fail(c->err, IPFSRT_EBAD_RANGE, -1,
                                "NetCDF-3: the data of %s (%llu bytes at byte offset %llu) runs past the file's end "
                                "(%llu bytes)", nc->vars[i].name, (unsigned long long)nc->vars[i].bytes,
                                (unsigned long long)nc->vars[i].begin, (unsigned long long)file_size);
}

int ipfsrt_nc3_is(const uint8_t *data, size_t len) {
    return len >= 4 && memcmp(data, "CDF", 3) == 0 && (data[3] == 1 || data[3] == 2 || data[3] == 5);
}

ipfsrt_status ipfsrt_nc3_parse(ipfsrt_nc3 *nc, const uint8_t *data, size_t len, uint64_t file_size,
                               ipfsrt_error *err) {
    memset(nc, 0, sizeof *nc);
    if (!ipfsrt_nc3_is(data, len)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, 0, "not a NetCDF-3 file");
    cursor c = {.base = data, .at = 4, .len = len, .version = data[3], .err = err};
    nc->version = c.version;
    nc->numrecs = count(&c);
    bool streaming = nc->numrecs == (c.version == 5 ? UINT64_MAX : 0xFFFFFFFFu);
    nc->ndims = list(&c, TAG_DIMENSION, 12);
    if (nc->ndims && !(nc->dims = calloc(nc->ndims, sizeof *nc->dims)))
        c.st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; nc->dims && i < nc->ndims && ok(&c); i++) {
        nc->dims[i].name = name(&c);
        nc->dims[i].length = count(&c);
    }
    nc->attrs = attributes(&c, &nc->nattrs);
    nc->nvars = list(&c, TAG_VARIABLE, 28);
    if (nc->nvars && !(nc->vars = calloc(nc->nvars, sizeof *nc->vars)))
        c.st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; nc->vars && i < nc->nvars && ok(&c); i++) variable(&c, nc, &nc->vars[i]);
    if (ok(&c)) sizes(&c, nc, streaming, file_size);
    if (!ok(&c)) ipfsrt_nc3_free(nc);
    return c.st;
}

static void free_attrs(ipfsrt_nc3_attr *attrs, size_t n) {
    for (size_t i = 0; attrs && i < n; i++) free(attrs[i].name);
    free(attrs);
}

void ipfsrt_nc3_free(ipfsrt_nc3 *nc) {
    for (size_t i = 0; nc->dims && i < nc->ndims; i++) free(nc->dims[i].name);
    for (size_t i = 0; nc->vars && i < nc->nvars; i++) {
        free(nc->vars[i].name);
        free_attrs(nc->vars[i].attrs, nc->vars[i].nattrs);
    }
    free(nc->dims);
    free(nc->vars);
    free_attrs(nc->attrs, nc->nattrs);
    memset(nc, 0, sizeof *nc);
}
