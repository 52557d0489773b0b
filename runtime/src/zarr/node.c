/* Groups and arrays in a store: their metadata documents read in one round
 * (or taken from consolidated metadata), the node built from them, and a
 * group's members found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/zarr_internal.h"


enum { DOC_ZMETADATA, DOC_ZARRAY, DOC_ZGROUP, DOC_ZATTRS, DOC_ZARRJSON, DOC_COUNT };
static const char *const doc_names[DOC_COUNT] = {".zmetadata", ".zarray", ".zgroup", ".zattrs", "zarr.json"};

typedef struct docs {
    cJSON *doc[DOC_COUNT];
    bool owned[DOC_COUNT];
} docs;

static void docs_free(docs *d) {
    for (int i = 0; i < DOC_COUNT; i++)
        if (d->owned[i]) cJSON_Delete(d->doc[i]);
}

static void key_of(char *out, size_t cap, const char *path, const char *name) {
    snprintf(out, cap, "%s%s%s", path, *path ? "/" : "", name);
}

const char *ipfsrt_zarr_consolidated_rel(const ipfsrt_zarr_hierarchy *h, const char *path) {
    size_t n = strlen(h->base);
    if (!h->consolidated) return NULL;
    if (n == 0) return path;
    return strncmp(path, h->base, n) == 0 ? path + n : NULL;
}

static void docs_from_consolidated(const ipfsrt_zarr_hierarchy *h, const char *rel, docs *d) {
    for (int i = DOC_ZARRAY; i < DOC_COUNT; i++) {
        char key[IPFSRT_ZARR_KEY_MAX + 16];
        key_of(key, sizeof key, rel, doc_names[i]);
        d->doc[i] = (cJSON *)(uintptr_t)ipfsrt_zarr_consolidated_get(h, key); /* borrowed: not owned */
    }
}

typedef struct fetching {
    docs *d;
    char (*keys)[IPFSRT_ZARR_KEY_MAX + 16];
} fetching;

static ipfsrt_status keep_doc(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    fetching *f = user;
    if (r->status == IPFSRT_ENOT_FOUND) return IPFSRT_OK;
    if (r->status != IPFSRT_OK) {
        if (err) *err = r->error;
        return r->status;
    }
    if (r->len > IPFSRT_ZARR_DOC_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s is larger than %llu bytes", f->keys[r->index],
                           (unsigned long long)IPFSRT_ZARR_DOC_MAX);
    cJSON *j = ipfsrt_json_parse((const char *)r->data, r->len, NULL);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is not a JSON object (one naming no key twice)", f->keys[r->index]);
    }
    f->d->doc[r->index] = j;
    f->d->owned[r->index] = true;
    return IPFSRT_OK;
}

/* Every metadata document path might hold, asked for at once. */
static ipfsrt_status fetch_docs(ipfsrt_zarr_hierarchy *h, const char *path, docs *d, ipfsrt_error *err) {
    char keys[DOC_COUNT][IPFSRT_ZARR_KEY_MAX + 16];
    ipfsrt_range_request req[DOC_COUNT];
    for (int i = 0; i < DOC_COUNT; i++) {
        key_of(keys[i], sizeof keys[i], path, doc_names[i]);
        req[i] = (ipfsrt_range_request){keys[i], 0, IPFSRT_ZARR_DOC_MAX + 1, false}; /* longer: refused, never held */
    }
    fetching f = {d, keys};
    ipfsrt_status st = ipfsrt_zarr_store_get_many(h->store, req, DOC_COUNT, keep_doc, &f, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", ipfsrt_zarr_store_url(h->store));
    return st;
}

static ipfsrt_status empty_attributes(cJSON **attrs, ipfsrt_error *err) {
    if (*attrs) return IPFSRT_OK;
    *attrs = cJSON_CreateObject();
    return *attrs ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
}

static int by_key_then_place(const void *a, const void *b) {
    const ipfsrt_zarr_placed *x = a, *y = b;
    int c = strcmp(x->doc->string, y->doc->string);
    return c ? c : (x->place > y->place) - (x->place < y->place);
}

/* The map's members sorted by key, of equal keys the first first. */
static bool sort_consolidated(ipfsrt_zarr_hierarchy *h, const cJSON *map) {
    size_t n = 0;
    for (const cJSON *e = map->child; e; e = e->next) n++;
    h->sorted = malloc((n ? n : 1) * sizeof *h->sorted);
    if (!h->sorted) return false;
    n = 0;
    for (const cJSON *e = map->child; e; e = e->next, n++) h->sorted[n] = (ipfsrt_zarr_placed){e, n};
    qsort(h->sorted, n, sizeof *h->sorted, by_key_then_place);
    h->sorted_count = n;
    return true;
}

const cJSON *ipfsrt_zarr_consolidated_get(const ipfsrt_zarr_hierarchy *h, const char *key) {
    size_t lo = 0, hi = h->sorted_count;
    while (lo < hi) { /* the first whose key is not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(h->sorted[mid].doc->string, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < h->sorted_count && strcmp(h->sorted[lo].doc->string, key) == 0 ? h->sorted[lo].doc : NULL;
}

/* d's document i, the caller's from now on: taken where d owns it (never a
 * copy of a large document), copied where the consolidated map lends it. */
static cJSON *take_doc(docs *d, int i) {
    if (!d->doc[i] || !d->owned[i]) return d->doc[i] ? cJSON_Duplicate(d->doc[i], true) : NULL;
    d->owned[i] = false;
    return d->doc[i];
}

/* v2 .zmetadata {"metadata": {key: document}} or v3 inline
 * {"consolidated_metadata": {"metadata": {path: zarr.json}}} (container, the
 * caller's to free), moved into one map. */
static ipfsrt_status take_consolidated(ipfsrt_zarr_hierarchy *h, ipfsrt_zarr_node *n, cJSON *container, bool v2,
                                       ipfsrt_error *err) {
    cJSON *from = cJSON_DetachItemFromObjectCaseSensitive(container, "metadata");
    if (!cJSON_IsObject(from)) {
        cJSON_Delete(from);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the consolidated metadata has no \"metadata\" object",
                           *n->path ? n->path : "/");
    }
    cJSON *map = v2 ? from : cJSON_CreateObject();
    while (!v2 && map && from->child) { /* each document moved under "<path>/zarr.json" */
        cJSON *e = cJSON_DetachItemViaPointer(from, from->child);
        char key[IPFSRT_ZARR_KEY_MAX + 16];
        snprintf(key, sizeof key, "%s/zarr.json", e->string);
        if (!cJSON_AddItemToObject(map, key, e)) {
            cJSON_Delete(e);
            cJSON_Delete(map);
            map = NULL;
        }
    }
    if (!v2) cJSON_Delete(from);
    if (!map || !sort_consolidated(h, map)) {
        cJSON_Delete(map);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    h->consolidated = map;
    snprintf(h->base, sizeof h->base, "%s%s", n->path, *n->path ? "/" : "");
    return IPFSRT_OK;
}

/* Attributes moved out of a document into the node (or its array's metadata):
 * held once. A non-object is an error naming where it came from. */
static ipfsrt_status keep_attributes(ipfsrt_zarr_node *n, cJSON *attrs, const char *from, ipfsrt_error *err) {
    if (!attrs) return IPFSRT_OK;
    if (!cJSON_IsObject(attrs)) {
        cJSON_Delete(attrs);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s/%s is not an object", n->path, from);
    }
    if (n->meta) return ipfsrt_zarr_meta_take_attributes(n->meta, attrs, err);
    n->attributes = attrs;
    return IPFSRT_OK;
}

/* n->doc is zarr.json: its attributes and consolidated metadata move out of it. */
static ipfsrt_status build_v3(ipfsrt_zarr_hierarchy *h, ipfsrt_zarr_node *n, ipfsrt_error *err) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(n->doc, "node_type");
    n->format = 3;
    cJSON *attrs = cJSON_DetachItemFromObjectCaseSensitive(n->doc, "attributes");
    cJSON *cm = cJSON_DetachItemFromObjectCaseSensitive(n->doc, "consolidated_metadata");
    bool array = cJSON_IsString(type) && strcmp(type->valuestring, "array") == 0;
    ipfsrt_status st = IPFSRT_OK;
    if (array) st = ipfsrt_zarr_meta_from_json(&n->meta, n->doc, 3, *n->path ? n->path : "/", err);
    else if (!cJSON_IsString(type) || strcmp(type->valuestring, "group") != 0)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s/zarr.json: node_type is neither array nor group", n->path);
    if (st == IPFSRT_OK) st = keep_attributes(n, attrs, "zarr.json attributes", err);
    else cJSON_Delete(attrs);
    if (st == IPFSRT_OK && !array && cJSON_IsObject(cm) && !h->consolidated) st = take_consolidated(h, n, cm, false, err);
    cJSON_Delete(cm);
    return st;
}

/* n->doc is .zarray or .zgroup; .zattrs and .zmetadata come from d. */
static ipfsrt_status build_v2(ipfsrt_zarr_hierarchy *h, ipfsrt_zarr_node *n, docs *d, ipfsrt_error *err) {
    n->format = 2;
    ipfsrt_status st = IPFSRT_OK;
    if (d->doc[DOC_ZARRAY]) st = ipfsrt_zarr_meta_from_json(&n->meta, n->doc, 2, *n->path ? n->path : "/", err);
    if (st == IPFSRT_OK) st = keep_attributes(n, take_doc(d, DOC_ZATTRS), ".zattrs", err);
    if (st == IPFSRT_OK && !n->meta && d->doc[DOC_ZMETADATA] && !h->consolidated) {
        cJSON *zmetadata = take_doc(d, DOC_ZMETADATA);
        st = zmetadata ? take_consolidated(h, n, zmetadata, true, err) : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "oom");
        cJSON_Delete(zmetadata);
    }
    return st;
}

static ipfsrt_status build(ipfsrt_zarr_hierarchy *h, ipfsrt_zarr_node *n, docs *d, ipfsrt_error *err) {
    int which = d->doc[DOC_ZARRJSON] ? DOC_ZARRJSON : d->doc[DOC_ZARRAY] ? DOC_ZARRAY : DOC_ZGROUP;
    if (!d->doc[which])
        return ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "%s: no Zarr group or array at \"%s\"",
                           ipfsrt_zarr_store_url(h->store), *n->path ? n->path : "/");
    if (!(n->doc = take_doc(d, which))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = which == DOC_ZARRJSON ? build_v3(h, n, err) : build_v2(h, n, d, err);
    if (st == IPFSRT_OK) st = empty_attributes(n->meta ? ipfsrt_zarr_meta_attrs(n->meta) : &n->attributes, err);
    return st;
}

ipfsrt_status ipfsrt_zarr_normalize_path(const char *path, char *out, size_t cap, ipfsrt_error *err) {
    size_t at = 0;
    for (const char *p = path; *p; p++) {
        if (*p == '/' && (at == 0 || out[at - 1] == '/')) continue;
        if (at + 1 >= cap) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "path \"%.100s...\" is too long", path);
        out[at++] = *p;
    }
    while (at && out[at - 1] == '/') at--;
    out[at] = '\0';
    return at ? ipfsrt_zarr_key_check(out, err) : IPFSRT_OK;
}

static void hierarchy_release(ipfsrt_zarr_hierarchy *h) {
    if (--h->refs) return;
    cJSON_Delete(h->consolidated);
    free(h->sorted);
    free(h);
}

static ipfsrt_status open_at(ipfsrt_zarr_node **out, ipfsrt_zarr_hierarchy *h, const char *path, ipfsrt_error *err) {
    *out = NULL;
    ipfsrt_zarr_node *n = calloc(1, sizeof *n);
    if (!n) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    n->h = h;
    h->refs++;
    ipfsrt_status st = ipfsrt_zarr_normalize_path(path, n->path, sizeof n->path, err);
    docs d = {{0}, {false}};
    const char *rel = st == IPFSRT_OK ? ipfsrt_zarr_consolidated_rel(h, n->path) : NULL;
    if (rel && *rel) docs_from_consolidated(h, rel, &d);
    else if (st == IPFSRT_OK) st = fetch_docs(h, n->path, &d, err);
    if (st == IPFSRT_OK) st = build(h, n, &d, err);
    docs_free(&d);
    if (st != IPFSRT_OK) {
        ipfsrt_zarr_node_free(n);
        return st;
    }
    *out = n;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_open(ipfsrt_zarr_node **out, ipfsrt_zarr_store *store, const char *path, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(store, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    ipfsrt_zarr_hierarchy *h = calloc(1, sizeof *h);
    if (!h) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    h->store = store;
    h->refs = 1; /* ours until the node holds its own */
    /* the decoding threads of the reads to come, started while the metadata is fetched */
    unsigned threads = ipfsrt_threads();
    ipfsrt_workers_warm(threads < THREADS_MAX ? threads : THREADS_MAX);
    ipfsrt_status st = open_at(out, h, path ? path : "", err);
    hierarchy_release(h);
    return st;
}

ipfsrt_status ipfsrt_zarr_open_child(ipfsrt_zarr_node **out, const ipfsrt_zarr_node *group, const char *name,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(group, err);
    IPFSRT_NEED(name, err);
    *out = NULL;
    if (group->meta) return ipfsrt_fail(err, IPFSRT_ENOT_DIRECTORY, -1, "%s is an array, not a group", group->path);
    char path[2 * IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", group->path, name);
    return open_at(out, group->h, path, err);
}

void ipfsrt_zarr_node_free(ipfsrt_zarr_node *n) {
    if (!n) return;
    ipfsrt_zarr_meta_free(n->meta);
    cJSON_Delete(n->attributes);
    cJSON_Delete(n->doc);
    hierarchy_release(n->h);
    free(n);
}

bool ipfsrt_zarr_is_array(const ipfsrt_zarr_node *n) {
    IPFSRT_NEED_OR(n, false);
    return n->meta != NULL;
}
const char *ipfsrt_zarr_path(const ipfsrt_zarr_node *n) {
    IPFSRT_NEED_OR(n, NULL);
    return n->path;
}
int ipfsrt_zarr_format(const ipfsrt_zarr_node *n) {
    IPFSRT_NEED_OR(n, 0);
    return n->format;
}
const ipfsrt_zarr_meta *ipfsrt_zarr_array_meta(const ipfsrt_zarr_node *n) {
    IPFSRT_NEED_OR(n, NULL);
    return n->meta;
}
ipfsrt_zarr_store *ipfsrt_zarr_node_store(const ipfsrt_zarr_node *n) {
    IPFSRT_NEED_OR(n, NULL);
    return n->h->store;
}

const cJSON *ipfsrt_zarr_node_attributes(const ipfsrt_zarr_node *n) {
    return n->meta ? ipfsrt_zarr_meta_attrs_of(n->meta) : n->attributes;
}

ipfsrt_status ipfsrt_zarr_attributes(const ipfsrt_zarr_node *n, ipfsrt_buf *json, ipfsrt_error *err) {
    IPFSRT_NEED(n, err);
    IPFSRT_NEED(json, err);
    return ipfsrt_zarr_json_append(ipfsrt_zarr_node_attributes(n), json, err);
}

ipfsrt_status ipfsrt_zarr_metadata(const ipfsrt_zarr_node *n, ipfsrt_buf *json, ipfsrt_error *err) {
    IPFSRT_NEED(n, err);
    IPFSRT_NEED(json, err);
    return ipfsrt_zarr_json_append(n->doc, json, err);
}
