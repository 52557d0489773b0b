/* Array metadata: v2 .zarray and v3 zarr.json, parsed into one shape and
 * checked before anything is sized from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_internal.h"
#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

#define MAX_DIM_SIZE ((size_t)1 << 53)     /* JSON integers: exact up to 2^53 */
#define MAX_CHUNK_BYTES ((size_t)1 << 31)  /* one decoded chunk: 2 GiB at most */

static const cJSON *field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* A list of sizes (shape: any >= 0; chunks: >= 1) of m->ndim entries (or
 * setting m->ndim when it is -1). */
ipfsrt_status ipfsrt_zarr_sizes(ipfsrt_zarr_meta *m, const cJSON *list, const char *what, bool chunks, size_t *out,
                           ipfsrt_error *err) {
    if (!cJSON_IsArray(list)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s must be a list", m->name, what);
    int n = cJSON_GetArraySize(list);
    if (n > IPFSRT_NDARRAY_MAX_DIMS)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %d dimensions (at most %d)", m->name, n, IPFSRT_NDARRAY_MAX_DIMS);
    if (m->ndim >= 0 && n != m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s has %d entries for %d dimensions", m->name, what, n, m->ndim);
    m->ndim = n;
    int i = 0;
    for (const cJSON *v = list->child; v; v = v->next, i++) {
        double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (d < (chunks ? 1 : 0) || d > (double)MAX_DIM_SIZE || d != (double)(size_t)d) /* range first: then cast */
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s[%d] is not a %s integer", m->name, what, i,
                               chunks ? "positive" : "non-negative");
        out[i] = (size_t)d;
    }
    return IPFSRT_OK;
}

/* The grid, and the decoded chunk size checked before anything multiplies it. */
ipfsrt_status ipfsrt_zarr_check_sizes(ipfsrt_zarr_meta *m, ipfsrt_error *err) {
    size_t bytes = m->stored_itemsize > m->itemsize ? m->stored_itemsize : m->itemsize;
    for (int d = 0; d < m->ndim; d++) {
        m->grid[d] = m->shape[d] / m->chunks[d] + (m->shape[d] % m->chunks[d] != 0);
        if (bytes > MAX_CHUNK_BYTES / m->chunks[d])
            return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: chunks of over %zu bytes are not supported", m->name,
                               MAX_CHUNK_BYTES);
        bytes *= m->chunks[d];
    }
    return IPFSRT_OK;
}

static ipfsrt_status add_codec(ipfsrt_zarr_meta *m, const char *name, const cJSON *config, ipfsrt_error *err) {
    if (m->n_codecs == IPFSRT_ZARR_MAX_CODECS)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: more than %d codecs", m->name, IPFSRT_ZARR_MAX_CODECS);
    ipfsrt_status st = ipfsrt_codec_new_config(&m->codecs[m->n_codecs], name, config, m->stored_itemsize, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", m->name);
    else m->n_codecs++;
    return st;
}

/* numcodecs' form: an object with "id" and its parameters beside it. */
static ipfsrt_status v2_codec(ipfsrt_zarr_meta *m, const cJSON *c, const char *what, ipfsrt_error *err) {
    const cJSON *id = field(c, "id");
    if (!cJSON_IsObject(c) || !cJSON_IsString(id))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: %s must be an object with an \"id\"", m->name, what);
    return add_codec(m, id->valuestring, c, err);
}

static ipfsrt_status parse_v2(ipfsrt_zarr_meta *m, const cJSON *j, ipfsrt_error *err) {
    const cJSON *dtype = field(j, "dtype"), *order = field(j, "order"), *sep = field(j, "dimension_separator");
    const cJSON *filters = field(j, "filters"), *compressor = field(j, "compressor");
    ipfsrt_status st = ipfsrt_zarr_sizes(m, field(j, "shape"), "shape", false, m->shape, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_sizes(m, field(j, "chunks"), "chunks", true, m->chunks, err);
    if (st != IPFSRT_OK) return st;
    if (!cJSON_IsString(dtype))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: dtype must be a typestr (structured types are not "
                           "supported)", m->name);
    if ((st = ipfsrt_zarr_dtype_v2(m, dtype->valuestring, err)) != IPFSRT_OK) return st;
    if (!cJSON_IsString(order) || (strcmp(order->valuestring, "C") && strcmp(order->valuestring, "F")))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: order must be \"C\" or \"F\"", m->name);
    m->fortran_order = order->valuestring[0] == 'F';
    m->separator = '.';
    if (sep && !cJSON_IsNull(sep)) {
        if (!cJSON_IsString(sep) || (strcmp(sep->valuestring, ".") && strcmp(sep->valuestring, "/")))
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: dimension_separator must be \".\" or \"/\"", m->name);
        m->separator = sep->valuestring[0];
    }
    if (filters && !cJSON_IsNull(filters) && !cJSON_IsArray(filters))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: filters must be a list or null", m->name);
    for (const cJSON *f = cJSON_IsArray(filters) ? filters->child : NULL; f && st == IPFSRT_OK; f = f->next)
        st = v2_codec(m, f, "a filter", err);
    if (st == IPFSRT_OK && compressor && !cJSON_IsNull(compressor)) st = v2_codec(m, compressor, "compressor", err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_check_sizes(m, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_fill(m, field(j, "fill_value"), err);
    return st;
}

/* v3 extension points: {"name", "configuration"} or a bare name. */
const char *ipfsrt_zarr_ext_name(const cJSON *e, const cJSON **config) {
    *config = NULL;
    if (cJSON_IsString(e)) return e->valuestring;
    const cJSON *name = field(e, "name");
    if (!cJSON_IsObject(e) || !cJSON_IsString(name)) return NULL;
    *config = field(e, "configuration");
    return name->valuestring;
}

static ipfsrt_status v3_grid(ipfsrt_zarr_meta *m, const cJSON *grid, const cJSON *keys, ipfsrt_error *err) {
    const cJSON *config, *kconfig;
    const char *g = ipfsrt_zarr_ext_name(grid, &config), *k = ipfsrt_zarr_ext_name(keys, &kconfig);
    if (!g || strcmp(g, "regular") != 0)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: chunk_grid %s is not supported (only regular)", m->name,
                           g ? g : "(missing)");
    ipfsrt_status st = ipfsrt_zarr_sizes(m, field(config, "chunk_shape"), "chunk_shape", true, m->chunks, err);
    if (st != IPFSRT_OK) return st;
    if (!k || (strcmp(k, "default") && strcmp(k, "v2")))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: chunk_key_encoding %s is not supported", m->name,
                           k ? k : "(missing)");
    m->v3_default_keys = strcmp(k, "default") == 0;
    m->separator = m->v3_default_keys ? '/' : '.';
    const cJSON *sep = field(kconfig, "separator");
    if (sep && (!cJSON_IsString(sep) || (strcmp(sep->valuestring, ".") && strcmp(sep->valuestring, "/"))))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the key separator must be \".\" or \"/\"", m->name);
    if (sep) m->separator = sep->valuestring[0];
    return IPFSRT_OK;
}

static ipfsrt_status v3_transpose(ipfsrt_zarr_meta *m, const cJSON *config, ipfsrt_error *err) {
    const cJSON *order = field(config, "order");
    bool seen[IPFSRT_NDARRAY_MAX_DIMS] = {false};
    if (!cJSON_IsArray(order) || cJSON_GetArraySize(order) != m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: transpose order must list the %d axes", m->name, m->ndim);
    int i = 0;
    for (const cJSON *v = order->child; v; v = v->next, i++) {
        int a = cJSON_IsNumber(v) ? v->valueint : -1;
        if (a < 0 || a >= m->ndim || seen[a] || v->valuedouble != (double)a)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: transpose order is not a permutation", m->name);
        seen[a] = true;
        m->order[i] = a;
    }
    m->transposed = true;
    return IPFSRT_OK;
}

static ipfsrt_status v3_bytes(ipfsrt_zarr_meta *m, const cJSON *config, ipfsrt_error *err) {
    const cJSON *endian = field(config, "endian");
    if (!endian && m->stored_itemsize > 1 && m->dtype != IPFSRT_DTYPE_BYTES)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the bytes codec needs an endian", m->name);
    if (endian && (!cJSON_IsString(endian) || (strcmp(endian->valuestring, "little") &&
                                               strcmp(endian->valuestring, "big"))))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: endian must be \"little\" or \"big\"", m->name);
    m->big_endian = endian && strcmp(endian->valuestring, "big") == 0;
    return IPFSRT_OK;
}

/* array to array codecs, exactly one array to bytes, then bytes to bytes. */
static ipfsrt_status v3_codec(ipfsrt_zarr_meta *m, const char *name, const cJSON *config, bool *serialized,
                              ipfsrt_error *err) {
    bool transpose = strcmp(name, "transpose") == 0, bytes = strcmp(name, "bytes") == 0;
    bool sharding = strcmp(name, "sharding_indexed") == 0;
    if (*serialized && (transpose || bytes || sharding))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: codec %s after the array-to-bytes codec", m->name, name);
    if (*serialized && m->inner) /* whole shards compressed again: no inner chunk could be read alone */
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: codec %s after sharding_indexed is not supported", m->name,
                           name);
    if (*serialized) return add_codec(m, name, config, err);
    if (transpose) return v3_transpose(m, config, err);
    if (sharding) {
        *serialized = true;
        return ipfsrt_zarr_shard_parse(m, config, err);
    }
    if (!bytes)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: codec %s before the array-to-bytes codec (bytes)", m->name, name);
    *serialized = true;
    return v3_bytes(m, config, err);
}

ipfsrt_status ipfsrt_zarr_v3_codecs(ipfsrt_zarr_meta *m, const cJSON *codecs, ipfsrt_error *err) {
    if (!cJSON_IsArray(codecs)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: codecs must be a list", m->name);
    bool serialized = false;
    for (const cJSON *c = codecs->child; c; c = c->next) {
        const cJSON *config;
        const char *name = ipfsrt_zarr_ext_name(c, &config);
        if (!name) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a codec without a name", m->name);
        ipfsrt_status st = v3_codec(m, name, config, &serialized, err);
        if (st != IPFSRT_OK) return st;
    }
    if (!serialized) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no array-to-bytes codec (bytes)", m->name);
    return IPFSRT_OK;
}

/* Fields this reader knows; any other must say must_understand: false. */
static ipfsrt_status v3_unknown_fields(ipfsrt_zarr_meta *m, const cJSON *j, ipfsrt_error *err) {
    static const char *const known[] = {"zarr_format", "node_type", "shape", "data_type", "chunk_grid",
                                        "chunk_key_encoding", "fill_value", "codecs", "attributes",
                                        "storage_transformers", "dimension_names", NULL};
    for (const cJSON *f = j->child; f; f = f->next) {
        bool ok = false;
        for (int i = 0; known[i] && !ok; i++) ok = strcmp(f->string, known[i]) == 0;
        const cJSON *mu = cJSON_IsObject(f) ? field(f, "must_understand") : NULL;
        if (!ok && !cJSON_IsFalse(mu))
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: extension \"%s\" must be understood and is not",
                               m->name, f->string);
    }
    const cJSON *st = field(j, "storage_transformers");
    if (st && !(cJSON_IsArray(st) && cJSON_GetArraySize(st) == 0))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: storage transformers are not supported", m->name);
    return IPFSRT_OK;
}

static ipfsrt_status dimension_names(ipfsrt_zarr_meta *m, const cJSON *names, ipfsrt_error *err) {
    if (!names || cJSON_IsNull(names)) return IPFSRT_OK;
    if (!cJSON_IsArray(names) || cJSON_GetArraySize(names) != m->ndim)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: dimension names must list %d names", m->name, m->ndim);
    int i = 0;
    for (const cJSON *v = names->child; v; v = v->next, i++) {
        free(m->dimension_names[i]);
        m->dimension_names[i] = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
    }
    return IPFSRT_OK;
}

static ipfsrt_status parse_v3(ipfsrt_zarr_meta *m, const cJSON *j, ipfsrt_error *err) {
    const cJSON *type = field(j, "node_type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "array") != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: not an array (node_type)", m->name);
    ipfsrt_status st = v3_unknown_fields(m, j, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_sizes(m, field(j, "shape"), "shape", false, m->shape, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_dtype_v3(m, field(j, "data_type"), err);
    if (st == IPFSRT_OK) st = v3_grid(m, field(j, "chunk_grid"), field(j, "chunk_key_encoding"), err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_v3_codecs(m, field(j, "codecs"), err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_check_sizes(m, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_fill(m, field(j, "fill_value"), err);
    if (st == IPFSRT_OK && m->inner) st = ipfsrt_zarr_shard_fill(m, err);
    if (st == IPFSRT_OK) st = dimension_names(m, field(j, "dimension_names"), err);
    const cJSON *attrs = field(j, "attributes");
    if (st == IPFSRT_OK && attrs) *ipfsrt_zarr_meta_attrs(m) = cJSON_Duplicate(attrs, true);
    return st;
}

ipfsrt_status ipfsrt_zarr_meta_from_json(ipfsrt_zarr_meta **out, const cJSON *j, int format, const char *name,
                                         ipfsrt_error *err) {
    *out = NULL;
    ipfsrt_zarr_meta *m = ipfsrt_zarr_meta_alloc();
    if (!m) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(m->name, sizeof m->name, "%s", name && *name ? name : "the array");
    m->ndim = -1;
    m->zarr_format = format;
    const cJSON *version = field(j, "zarr_format");
    ipfsrt_status st = IPFSRT_OK;
    if (!cJSON_IsObject(j)) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the metadata is not a JSON object (one naming no key twice)", m->name);
    else if (!cJSON_IsNumber(version) || version->valuedouble != format)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: zarr_format is not %d", m->name, format);
    else st = format == 2 ? parse_v2(m, j, err) : parse_v3(m, j, err);
    if (st != IPFSRT_OK) {
        ipfsrt_zarr_meta_free(m);
        return st;
    }
    *out = m;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_meta_parse(ipfsrt_zarr_meta **out, const char *json, size_t len, int format,
                                     const char *name, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(name, err);
    cJSON *j = ipfsrt_json_parse(json, len, NULL);
    ipfsrt_status st = ipfsrt_zarr_meta_from_json(out, j, format, name, err);
    cJSON_Delete(j);
    return st;
}

ipfsrt_status ipfsrt_zarr_meta_take_attributes(ipfsrt_zarr_meta *m, cJSON *attrs, ipfsrt_error *err) {
    if (!cJSON_IsObject(attrs)) {
        cJSON_Delete(attrs);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the attributes are not a JSON object (one naming no key twice)",
                           m->name);
    }
    ipfsrt_status st = IPFSRT_OK;
    if (m->zarr_format == 2) { /* v3 names dimensions in zarr.json itself */
        st = dimension_names(m, field(attrs, "_ARRAY_DIMENSIONS"), err);
        cJSON_DeleteItemFromObjectCaseSensitive(attrs, "_ARRAY_DIMENSIONS"); /* xarray's, not the user's */
    }
    cJSON **slot = ipfsrt_zarr_meta_attrs(m);
    cJSON_Delete(*slot);
    *slot = attrs;
    return st;
}

ipfsrt_status ipfsrt_zarr_meta_set_attributes_json(ipfsrt_zarr_meta *m, const cJSON *attrs, ipfsrt_error *err) {
    cJSON *copy = cJSON_IsObject(attrs) ? cJSON_Duplicate(attrs, true) : NULL;
    if (cJSON_IsObject(attrs) && !copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    return ipfsrt_zarr_meta_take_attributes(m, copy, err);
}

ipfsrt_status ipfsrt_zarr_meta_set_attributes(ipfsrt_zarr_meta *m, const char *json, size_t len,
                                              ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    cJSON *attrs = ipfsrt_json_parse(json, len, NULL);
    ipfsrt_status st = ipfsrt_zarr_meta_set_attributes_json(m, attrs, err);
    cJSON_Delete(attrs);
    return st;
}

void ipfsrt_zarr_meta_free(ipfsrt_zarr_meta *m) {
    if (!m) return;
    for (int i = 0; i < m->n_codecs; i++) ipfsrt_codec_free(m->codecs[i]);
    ipfsrt_zarr_meta_free(m->inner);
    for (int i = 0; i < IPFSRT_NDARRAY_MAX_DIMS; i++) free(m->dimension_names[i]);
    ipfsrt_ndarray_free(&m->fill);
    cJSON_Delete(*ipfsrt_zarr_meta_attrs(m));
    free(m);
}

ipfsrt_zarr_meta *ipfsrt_zarr_meta_alloc(void) {
    ipfsrt_zarr_meta_held *held = calloc(1, sizeof *held);
    return held ? &held->meta : NULL;
}

ipfsrt_status ipfsrt_zarr_json_append(const cJSON *doc, ipfsrt_buf *json, ipfsrt_error *err) {
    char *text = doc ? ipfsrt_json_print(doc, false) : NULL;
    if (doc && !text) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_buf_append(json, text ? text : "{}", text ? strlen(text) : 2);
    cJSON_free(text);
    return json->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_meta_attributes(const ipfsrt_zarr_meta *m, ipfsrt_buf *json, ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    IPFSRT_NEED(json, err);
    return ipfsrt_zarr_json_append(ipfsrt_zarr_meta_attrs_of(m), json, err);
}
