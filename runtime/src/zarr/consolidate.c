/* Consolidated metadata: every metadata document of a hierarchy, found by
 * walking the store (never an older consolidation), gathered where one read
 * finds them all: v2 .zmetadata, or v3 inline in the group's zarr.json as
 * zarr-python 3 writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

#define DEPTH_MAX 32
#define NODES_MAX 100000

enum { ZGROUP, ZARRAY, ZATTRS, ZARRJSON, DOCS };
static const char *const doc_names[DOCS] = {".zgroup", ".zarray", ".zattrs", "zarr.json"};

typedef struct walk {
    ipfsrt_zarr_store *store;
    size_t base_len;  /* of the consolidated group's prefix */
    int format;
    cJSON *map;       /* key (relative to the base) -> document */
    size_t nodes;
} walk;

typedef struct found {
    cJSON *doc[DOCS];
    const char *prefix;
} found;

static ipfsrt_status keep(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    found *f = user;
    if (res->status == IPFSRT_ENOT_FOUND) return IPFSRT_OK;
    if (res->status != IPFSRT_OK) {
        if (err) *err = res->error;
        return res->status;
    }
    if (res->len > IPFSRT_ZARR_DOC_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s%s is larger than %llu bytes", f->prefix,
                           doc_names[res->index], (unsigned long long)IPFSRT_ZARR_DOC_MAX);
    f->doc[res->index] = ipfsrt_json_parse((const char *)res->data, res->len, NULL);
    if (!cJSON_IsObject(f->doc[res->index]))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s%s is not a JSON object (one naming no key twice)", f->prefix, doc_names[res->index]);
    return IPFSRT_OK;
}

static ipfsrt_status read_docs(walk *w, const char *prefix, found *f, ipfsrt_error *err) {
    char keys[DOCS][IPFSRT_ZARR_KEY_MAX + 16];
    ipfsrt_range_request req[DOCS];
    for (int i = 0; i < DOCS; i++) {
        snprintf(keys[i], sizeof keys[i], "%s%s", prefix, doc_names[i]);
        req[i] = (ipfsrt_range_request){keys[i], 0, IPFSRT_ZARR_DOC_MAX + 1, false};
    }
    f->prefix = prefix;
    return ipfsrt_zarr_store_get_many(w->store, req, DOCS, keep, f, err);
}

static bool is_group(const found *f) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(f->doc[ZARRJSON], "node_type");
    return f->doc[ZGROUP] || (cJSON_IsString(t) && strcmp(t->valuestring, "group") == 0);
}

/* The node's documents into the map under its path relative to the base. */
static ipfsrt_status add_docs(walk *w, const char *prefix, found *f, ipfsrt_error *err) {
    const char *rel = prefix + w->base_len;
    for (int i = 0; i < DOCS; i++) {
        if (!f->doc[i] || (i == ZARRJSON) != (w->format == 3)) continue;
        if (w->format == 3 && !*rel) continue; /* the group itself holds the map */
        char key[IPFSRT_ZARR_KEY_MAX + 16];
        if (w->format == 3) snprintf(key, sizeof key, "%.*s", (int)strlen(rel) - 1, rel); /* "a/b", no slash */
        else snprintf(key, sizeof key, "%s%s", rel, doc_names[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(f->doc[i], "consolidated_metadata");
        if (!cJSON_AddItemToObject(w->map, key, f->doc[i])) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        f->doc[i] = NULL; /* the map's now */
    }
    return IPFSRT_OK;
}

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static ipfsrt_status keep_name(void *user, const ipfsrt_zarr_store_entry *e, ipfsrt_error *err) {
    names *l = user;
    if (e->name[0] == '.' || strcmp(e->name, "zarr.json") == 0 || ipfsrt_zarr_key_check(e->name, NULL) != IPFSRT_OK)
        return IPFSRT_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        l->v = v, l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(e->name))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    l->n++;
    return IPFSRT_OK;
}

static ipfsrt_status visit(walk *w, const char *prefix, int depth, ipfsrt_error *err);

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A group's members: each name under it that holds metadata, in name order,
 * so that the map's bytes are the same whatever order a store lists in (a
 * folder's, a HAMT's): the same metadata, the same CID. */
static ipfsrt_status visit_members(walk *w, const char *prefix, int depth, ipfsrt_error *err) {
    names l = {0};
    ipfsrt_status st = ipfsrt_zarr_store_list_dir(w->store, prefix, keep_name, &l, err);
    if (l.n > 1) qsort(l.v, l.n, sizeof *l.v, name_cmp);
    for (size_t i = 0; i < l.n && st == IPFSRT_OK; i++) {
        char child[IPFSRT_ZARR_KEY_MAX + 2];
        if ((size_t)snprintf(child, sizeof child, "%s%s/", prefix, l.v[i]) < sizeof child)
            st = visit(w, child, depth + 1, err);
    }
    for (size_t i = 0; i < l.n; i++) free(l.v[i]);
    free(l.v);
    return st;
}

static ipfsrt_status visit(walk *w, const char *prefix, int depth, ipfsrt_error *err) {
    if (depth > DEPTH_MAX || ++w->nodes > NODES_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "a hierarchy deeper than %d or of more than %d nodes",
                           DEPTH_MAX, NODES_MAX);
    found f = {{NULL}, NULL};
    ipfsrt_status st = read_docs(w, prefix, &f, err);
    bool node = f.doc[ZGROUP] || f.doc[ZARRAY] || f.doc[ZARRJSON];
    bool group = node && is_group(&f);
    if (st == IPFSRT_OK && node) st = add_docs(w, prefix, &f, err);
    for (int i = 0; i < DOCS; i++) cJSON_Delete(f.doc[i]);
    if (st == IPFSRT_OK && group) st = visit_members(w, prefix, depth, err);
    return st;
}

/* v3: the group's own zarr.json with the map inline. */
static ipfsrt_status write_inline(walk *w, const char *base, ipfsrt_error *err) {
    char key[IPFSRT_ZARR_KEY_MAX + 16];
    snprintf(key, sizeof key, "%szarr.json", base);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_status st = ipfsrt_zarr_store_get(w->store, key, &b, err);
    cJSON *doc = st == IPFSRT_OK ? ipfsrt_json_parse((const char *)b.data, b.len, NULL) : NULL;
    ipfsrt_buf_free(&b);
    cJSON *cm = cJSON_CreateObject();
    if (st == IPFSRT_OK && (!doc || !cm)) st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is not a JSON object (one naming no key twice)", key);
    if (st == IPFSRT_OK) {
        cJSON_AddStringToObject(cm, "kind", "inline");
        cJSON_AddBoolToObject(cm, "must_understand", false);
        cJSON_AddItemToObject(cm, "metadata", w->map);
        w->map = NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "consolidated_metadata");
        cJSON_AddItemToObject(doc, "consolidated_metadata", cm);
        cm = NULL;
        char *text = ipfsrt_zarr_print_json(doc);
        st = text ? ipfsrt_zarr_store_put(w->store, key, text, strlen(text), err)
                  : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(text);
    }
    cJSON_Delete(cm);
    cJSON_Delete(doc);
    return st;
}

static ipfsrt_status write_zmetadata(walk *w, const char *base, ipfsrt_error *err) {
    char key[IPFSRT_ZARR_KEY_MAX + 16];
    snprintf(key, sizeof key, "%s.zmetadata", base);
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    cJSON_AddItemToObject(doc, "metadata", w->map);
    w->map = NULL;
    cJSON_AddNumberToObject(doc, "zarr_consolidated_format", 1);
    char *text = ipfsrt_zarr_print_json(doc);
    ipfsrt_status st = text ? ipfsrt_zarr_store_put(w->store, key, text, strlen(text), err)
                            : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    free(text);
    cJSON_Delete(doc);
    return st;
}

ipfsrt_status ipfsrt_zarr_consolidate(ipfsrt_zarr_store *store, const char *path, ipfsrt_error *err) {
    IPFSRT_NEED(store, err);
    IPFSRT_NEED(path, err);
    char norm[IPFSRT_ZARR_KEY_MAX + 1], base[IPFSRT_ZARR_KEY_MAX + 2];
    ipfsrt_status st = ipfsrt_zarr_normalize_path(path ? path : "", norm, sizeof norm, err);
    if (st != IPFSRT_OK) return st;
    snprintf(base, sizeof base, "%s%s", norm, *norm ? "/" : "");
    walk w = {store, strlen(base), 2, cJSON_CreateObject(), 0};
    found top = {{NULL}, NULL};
    st = w.map ? read_docs(&w, base, &top, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK && !is_group(&top))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no group to consolidate", *norm ? norm : "/");
    w.format = top.doc[ZARRJSON] ? 3 : 2;
    for (int i = 0; i < DOCS; i++) cJSON_Delete(top.doc[i]);
    if (st == IPFSRT_OK) st = visit(&w, base, 0, err);
    if (st == IPFSRT_OK) st = w.format == 3 ? write_inline(&w, base, err) : write_zmetadata(&w, base, err);
    cJSON_Delete(w.map);
    return st;
}
