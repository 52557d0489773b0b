/* Creating groups and arrays in a writable store, and replacing attributes:
 * metadata documents checked as a reader checks them, then written whole
 * (each key replaced at once), groups made where a path's parents lack one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

/* Appends "\uXXXX" for a UTF-16 unit. */
static void put_escape(ipfsrt_buf *b, unsigned unit) {
    char esc[8];
    snprintf(esc, sizeof esc, "\\u%04x", unit & 0xFFFF);
    ipfsrt_buf_append(b, esc, 6);
}

char *ipfsrt_zarr_print_json(const cJSON *doc) {
    char *text = ipfsrt_json_print(doc, true);
    if (!text) return NULL;
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        if (*p < 0x80) {
            ipfsrt_buf_append(&b, p++, 1);
            continue;
        }
        /* cJSON wrote the UTF-8 it was given; non-ASCII only occurs inside strings */
        size_t len = *p >> 5 == 6 ? 2 : *p >> 4 == 14 ? 3 : *p >> 3 == 30 ? 4 : 1, i = 1;
        uint32_t cp = *p & (0x7Fu >> len);
        for (; i < len && (p[i] & 0xC0) == 0x80; i++) cp = cp << 6 | (p[i] & 0x3F);
        if (len == 1 || i < len) cp = 0xFFFD; /* not UTF-8: never past the terminator */
        p += i;
        if (cp >= 0x10000) {
            put_escape(&b, 0xD800 + ((cp - 0x10000) >> 10));
            put_escape(&b, 0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            put_escape(&b, cp);
        }
    }
    ipfsrt_buf_append(&b, "", 1);
    free(text);
    if (b.failed) {
        ipfsrt_buf_free(&b);
        return NULL;
    }
    return (char *)b.data; /* the buffer's bytes, freed with free() */
}

ipfsrt_status ipfsrt_zarr_put_json(ipfsrt_zarr_store *s, const char *path, const char *name, const cJSON *doc,
                              ipfsrt_error *err) {
    char key[IPFSRT_ZARR_KEY_MAX + 32];
    snprintf(key, sizeof key, "%s%s%s", path, *path ? "/" : "", name);
    char *text = ipfsrt_zarr_print_json(doc);
    if (!text) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = ipfsrt_zarr_store_put(s, key, text, strlen(text), err);
    free(text);
    return st;
}

static cJSON *group_doc(int format, const cJSON *attributes) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "zarr_format", format);
    if (format == 3) {
        cJSON_AddStringToObject(doc, "node_type", "group");
        cJSON_AddItemToObject(doc, "attributes", attributes ? cJSON_Duplicate(attributes, true) : cJSON_CreateObject());
    }
    return doc;
}

typedef struct probe {
    bool *has_group, *has_array;
} probe;

static ipfsrt_status probed(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    probe *p = user;
    if (res->status == IPFSRT_ENOT_FOUND) return IPFSRT_OK;
    if (res->status != IPFSRT_OK) {
        if (err) *err = res->error;
        return res->status;
    }
    size_t level = res->index / 3, which = res->index % 3;
    cJSON *doc = which == 2 ? ipfsrt_json_parse((const char *)res->data, res->len, NULL) : NULL;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(doc, "node_type");
    bool array = which == 1 || (cJSON_IsString(type) && strcmp(type->valuestring, "array") == 0);
    if (array) p->has_array[level] = true;
    else p->has_group[level] = true;
    cJSON_Delete(doc);
    return IPFSRT_OK;
}

#define DEPTH_MAX 64

typedef struct parents {
    char path[DEPTH_MAX][IPFSRT_ZARR_KEY_MAX + 1]; /* "", "a", "a/b" for "a/b/c" */
    char keys[DEPTH_MAX * 3][IPFSRT_ZARR_KEY_MAX + 16];
    ipfsrt_range_request req[DEPTH_MAX * 3];
    bool has_group[DEPTH_MAX], has_array[DEPTH_MAX];
    size_t n;
} parents;

/* Whether each parent of path holds a group or an array, asked all at once. */
static ipfsrt_status probe_parents(ipfsrt_zarr_store *s, const char *path, parents *ps, ipfsrt_error *err) {
    static const char *const docs[3] = {".zgroup", ".zarray", "zarr.json"};
    ps->n = 0;
    if (!*path) return IPFSRT_OK; /* the top has no parent */
    ps->path[ps->n++][0] = '\0';
    for (const char *p = path; (p = strchr(p, '/')) && ps->n < DEPTH_MAX; p++) {
        memcpy(ps->path[ps->n], path, (size_t)(p - path));
        ps->path[ps->n++][p - path] = '\0';
    }
    for (size_t i = 0; i < 3 * ps->n; i++) {
        const char *dir = ps->path[i / 3];
        snprintf(ps->keys[i], sizeof ps->keys[i], "%s%s%s", dir, *dir ? "/" : "", docs[i % 3]);
        ps->req[i] = (ipfsrt_range_request){ps->keys[i], 0, IPFSRT_ZARR_DOC_MAX + 1, false};
    }
    probe p = {ps->has_group, ps->has_array};
    return ipfsrt_zarr_store_get_many(s, ps->req, 3 * ps->n, probed, &p, err);
}

/* Groups for every parent of path that has none (an array there is an error). */
static ipfsrt_status make_parents(ipfsrt_zarr_store *s, const char *path, int format, ipfsrt_error *err) {
    parents *ps = calloc(1, sizeof *ps);
    if (!ps) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = probe_parents(s, path, ps, err);
    for (size_t i = 0; i < ps->n && st == IPFSRT_OK; i++) {
        if (ps->has_array[i]) {
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: its parent %s is an array", path,
                             *ps->path[i] ? ps->path[i] : "/");
            break;
        }
        if (ps->has_group[i]) continue;
        cJSON *doc = group_doc(format, NULL);
        st = doc ? ipfsrt_zarr_put_json(s, ps->path[i], format == 2 ? ".zgroup" : "zarr.json", doc, err)
                 : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        cJSON_Delete(doc);
    }
    free(ps);
    return st;
}

ipfsrt_status ipfsrt_zarr_create_array(ipfsrt_zarr_node **out, ipfsrt_zarr_store *s, const char *path,
                                       const char *metadata, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    char norm[IPFSRT_ZARR_KEY_MAX + 1];
    ipfsrt_status st = ipfsrt_zarr_normalize_path(path ? path : "", norm, sizeof norm, err);
    if (st != IPFSRT_OK) return st;
    cJSON *doc = ipfsrt_json_parse(metadata, len, NULL);
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "zarr_format");
    int format = cJSON_IsNumber(version) ? version->valueint : 0;
    if (format != 2 && format != 3) {
        cJSON_Delete(doc);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the metadata needs a zarr_format of 2 or 3", *norm ? norm : "/");
    }
    cJSON *attrs = format == 2 ? cJSON_DetachItemFromObjectCaseSensitive(doc, "attributes") : NULL;
    ipfsrt_zarr_meta *m = NULL;
    st = ipfsrt_zarr_meta_from_json(&m, doc, format, *norm ? norm : "/", err);
    if (st == IPFSRT_OK && attrs && !cJSON_IsObject(attrs))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: attributes must be an object", norm);
    ipfsrt_zarr_meta_free(m);
    if (st == IPFSRT_OK) st = make_parents(s, norm, format, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_put_json(s, norm, format == 2 ? ".zarray" : "zarr.json", doc, err);
    if (st == IPFSRT_OK && attrs) st = ipfsrt_zarr_put_json(s, norm, ".zattrs", attrs, err);
    cJSON_Delete(doc);
    cJSON_Delete(attrs);
    return st == IPFSRT_OK ? ipfsrt_zarr_open(out, s, norm, err) : st;
}

/* Attributes given as text: a JSON object (NULL: none), parsed into *doc. */
static ipfsrt_status parse_attributes(const char *text, const char *path, cJSON **doc, ipfsrt_error *err) {
    *doc = NULL;
    if (!text) return IPFSRT_OK;
    *doc = ipfsrt_json_parse(text, strlen(text), NULL);
    if (cJSON_IsObject(*doc)) return IPFSRT_OK;
    cJSON_Delete(*doc);
    *doc = NULL;
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: attributes must be a JSON object (one naming no key twice)",
                       path && *path ? path : "/");
}

static ipfsrt_status create_group(ipfsrt_zarr_node **out, ipfsrt_zarr_store *s, const char *path, int format,
                                  const cJSON *attributes, ipfsrt_error *err) {
    char norm[IPFSRT_ZARR_KEY_MAX + 1];
    ipfsrt_status st = ipfsrt_zarr_normalize_path(path ? path : "", norm, sizeof norm, err);
    if (st == IPFSRT_OK && format != 2 && format != 3)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "zarr_format %d (2 or 3)", format);
    if (st == IPFSRT_OK && attributes && !cJSON_IsObject(attributes))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: attributes must be an object", *norm ? norm : "/");
    if (st != IPFSRT_OK) return st;
    cJSON *doc = group_doc(format, attributes);
    st = doc ? make_parents(s, norm, format, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) st = ipfsrt_zarr_put_json(s, norm, format == 2 ? ".zgroup" : "zarr.json", doc, err);
    if (st == IPFSRT_OK && format == 2 && attributes) st = ipfsrt_zarr_put_json(s, norm, ".zattrs", attributes, err);
    cJSON_Delete(doc);
    return st == IPFSRT_OK ? ipfsrt_zarr_open(out, s, norm, err) : st;
}

ipfsrt_status ipfsrt_zarr_create_group(ipfsrt_zarr_node **out, ipfsrt_zarr_store *s, const char *path, int format,
                                       const char *attributes, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    cJSON *attrs;
    ipfsrt_status st = parse_attributes(attributes, path, &attrs, err);
    if (st == IPFSRT_OK) st = create_group(out, s, path, format, attrs, err);
    cJSON_Delete(attrs);
    return st;
}

/* An array's document with its attributes under "attributes" (where v3
 * keeps them, and where create_array takes a v2 array's), as text. */
/* A v2 array's dimension names as its .zattrs hold them (parsing took them
 * out of its attributes), so that a copy keeps them. */
static void put_back_dimensions(const ipfsrt_zarr_node *src, cJSON *attrs) {
    const ipfsrt_zarr_meta *m = src->meta;
    bool named = false;
    for (int d = 0; m && src->format == 2 && d < m->ndim; d++) named = named || m->dimension_names[d];
    if (!named || cJSON_GetObjectItemCaseSensitive(attrs, "_ARRAY_DIMENSIONS")) return;
    cJSON *names = cJSON_AddArrayToObject(attrs, "_ARRAY_DIMENSIONS");
    for (int d = 0; names && d < m->ndim; d++)
        cJSON_AddItemToArray(names, m->dimension_names[d] ? cJSON_CreateString(m->dimension_names[d]) : cJSON_CreateNull());
}

static char *array_doc_text(const ipfsrt_zarr_node *src) {
    cJSON *doc = cJSON_Duplicate(src->doc, true);
    cJSON *attrs = cJSON_Duplicate(ipfsrt_zarr_node_attributes(src), true);
    char *text = NULL;
    if (attrs) put_back_dimensions(src, attrs);
    if (doc && attrs) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "attributes");
        cJSON_AddItemToObject(doc, "attributes", attrs);
        attrs = NULL;
        text = ipfsrt_zarr_print_json(doc);
    }
    cJSON_Delete(attrs);
    cJSON_Delete(doc);
    return text;
}

ipfsrt_status ipfsrt_zarr_create_like(ipfsrt_zarr_node **out, ipfsrt_zarr_store *s, const char *path,
                                      const ipfsrt_zarr_node *src, int zarr_format, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(src, err);
    *out = NULL;
    if (!ipfsrt_zarr_is_array(src))
        return create_group(out, s, path, zarr_format ? zarr_format : src->format, ipfsrt_zarr_node_attributes(src),
                            err);
    if (zarr_format && zarr_format != src->format)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a copy of its metadata stays zarr_format %d", src->path,
                           src->format);
    char *text = array_doc_text(src);
    if (!text) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = ipfsrt_zarr_create_array(out, s, path, text, strlen(text), err);
    free(text);
    return st;
}

/* v3: the node's zarr.json again, its attributes replaced. */
static ipfsrt_status rewrite_v3(ipfsrt_zarr_node *n, const cJSON *attributes, ipfsrt_error *err) {
    char key[IPFSRT_ZARR_KEY_MAX + 16];
    snprintf(key, sizeof key, "%s%szarr.json", n->path, *n->path ? "/" : "");
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_status st = ipfsrt_zarr_store_get(n->h->store, key, &b, err);
    cJSON *doc = st == IPFSRT_OK ? ipfsrt_json_parse((const char *)b.data, b.len, NULL) : NULL;
    ipfsrt_buf_free(&b);
    if (st == IPFSRT_OK && !cJSON_IsObject(doc)) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is not a JSON object (one naming no key twice)", key);
    cJSON *copy = st == IPFSRT_OK ? cJSON_Duplicate(attributes, true) : NULL;
    if (copy && !cJSON_ReplaceItemInObjectCaseSensitive(doc, "attributes", copy) &&
        !cJSON_AddItemToObject(doc, "attributes", copy))
        cJSON_Delete(copy);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_put_json(n->h->store, n->path, "zarr.json", doc, err);
    cJSON_Delete(doc);
    return st;
}

static ipfsrt_status set_attributes(ipfsrt_zarr_node *n, const cJSON *attributes, ipfsrt_error *err) {
    ipfsrt_status st = n->format == 2 ? ipfsrt_zarr_put_json(n->h->store, n->path, ".zattrs", attributes, err)
                                      : rewrite_v3(n, attributes, err);
    if (st != IPFSRT_OK) return st;
    if (n->meta && n->format == 2) /* its _ARRAY_DIMENSIONS become dimension names again */
        return ipfsrt_zarr_meta_set_attributes_json(n->meta, attributes, err);
    cJSON *copy = cJSON_Duplicate(attributes, true);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    cJSON **slot = n->meta ? ipfsrt_zarr_meta_attrs(n->meta) : &n->attributes;
    cJSON_Delete(*slot);
    *slot = copy;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_set_attributes(ipfsrt_zarr_node *n, const char *attributes, ipfsrt_error *err) {
    IPFSRT_NEED(n, err);
    IPFSRT_NEED(attributes, err);
    cJSON *attrs = NULL;
    ipfsrt_status st = attributes ? parse_attributes(attributes, n->path, &attrs, err)
                                  : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no attributes given", *n->path ? n->path : "/");
    if (st == IPFSRT_OK) st = set_attributes(n, attrs, err);
    cJSON_Delete(attrs);
    return st;
}
