/* A group's members: the names its consolidated metadata lists, else the
 * names the store lists under it that hold Zarr metadata (all looked at in
 * one round of reads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/zarr_internal.h"

#define MEMBERS_MAX 100000 /* names of one group looked at */
#define PROBES 3           /* .zarray, .zgroup, zarr.json */

typedef struct member {
    char *name;
    bool is_array;
} member;

typedef struct member_list {
    member *items;
    size_t count, cap;
} member_list;

/* Names may come twice (a .zarray and a .zgroup, a listing's two probes):
 * sorting removes the second later (unique), never a scan per name. */
static ipfsrt_status add(member_list *l, const char *name, size_t len, bool is_array, ipfsrt_error *err) {
    if (l->count >= PROBES * MEMBERS_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "a group of more than %d members", MEMBERS_MAX);
    char *copy = strndup(name, len);
    if (!copy || ipfsrt_array_reserve(&l->items, &l->cap, l->count + 1, sizeof *l->items)) {
        free(copy);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    l->items[l->count++] = (member){copy, is_array};
    return IPFSRT_OK;
}

static bool is_v3_array(const cJSON *doc) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "node_type");
    return cJSON_IsString(t) && strcmp(t->valuestring, "array") == 0;
}

/* Keys "<rel>name/.zarray", ".zgroup" or "zarr.json" of the consolidated map. */
static ipfsrt_status from_consolidated(const ipfsrt_zarr_hierarchy *h, const char *rel, member_list *l,
                                       ipfsrt_error *err) {
    char prefix[IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(prefix, sizeof prefix, "%s%s", rel, *rel ? "/" : "");
    size_t plen = strlen(prefix);
    ipfsrt_status st = IPFSRT_OK;
    for (const cJSON *e = h->consolidated->child; e && st == IPFSRT_OK; e = e->next) {
        if (strncmp(e->string, prefix, plen) != 0) continue;
        const char *name = e->string + plen, *slash = strchr(name, '/');
        if (!slash || slash == name || strchr(slash + 1, '/')) continue;
        const char *doc = slash + 1;
        bool array = strcmp(doc, ".zarray") == 0 || (strcmp(doc, "zarr.json") == 0 && is_v3_array(e));
        if (array || strcmp(doc, ".zgroup") == 0 || strcmp(doc, "zarr.json") == 0)
            st = add(l, name, (size_t)(slash - name), array, err);
    }
    return st;
}

typedef struct listed {
    char **names;
    size_t count, cap;
} listed;

static ipfsrt_status keep_name(void *user, const ipfsrt_zarr_store_entry *entry, ipfsrt_error *err) {
    listed *l = user;
    const char *name = entry->name;
    if (name[0] == '.' || strcmp(name, "zarr.json") == 0 || ipfsrt_zarr_key_check(name, NULL) != IPFSRT_OK)
        return IPFSRT_OK; /* metadata, or nothing a member could be called */
    if (l->count >= MEMBERS_MAX) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "a group of more than %d entries", MEMBERS_MAX);
    char *copy = strdup(name);
    if (!copy || ipfsrt_array_reserve(&l->names, &l->cap, l->count + 1, sizeof *l->names)) {
        free(copy);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    l->names[l->count++] = copy;
    return IPFSRT_OK;
}

typedef struct probing {
    listed *names;
    member_list *members;
} probing;

static ipfsrt_status probed(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    probing *p = user;
    if (r->status == IPFSRT_ENOT_FOUND) return IPFSRT_OK;
    if (r->status != IPFSRT_OK) {
        if (err) *err = r->error;
        return r->status;
    }
    const char *name = p->names->names[r->index / PROBES];
    if (r->len > IPFSRT_ZARR_DOC_MAX)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "the metadata of member %s is larger than %llu bytes", name,
                           (unsigned long long)IPFSRT_ZARR_DOC_MAX);
    bool array = r->index % PROBES == 0;
    if (r->index % PROBES == 2) {
        cJSON *doc = ipfsrt_json_parse((const char *)r->data, r->len, NULL);
        array = is_v3_array(doc);
        cJSON_Delete(doc);
    }
    return add(p->members, name, strlen(name), array, err);
}

static ipfsrt_status from_listing(const ipfsrt_zarr_node *g, member_list *l, ipfsrt_error *err) {
    char prefix[IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(prefix, sizeof prefix, "%s%s", g->path, *g->path ? "/" : "");
    listed names = {0};
    ipfsrt_status st = ipfsrt_zarr_store_list_dir(g->h->store, prefix, keep_name, &names, err);
    ipfsrt_buf keys; /* NUL-separated, each its own length: not a longest key's room per probe */
    ipfsrt_buf_init(&keys);
    ipfsrt_range_request *req = NULL;
    if (st == IPFSRT_OK && names.count && !(req = calloc(names.count * PROBES, sizeof *req)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    static const char *const probes[PROBES] = {".zarray", ".zgroup", "zarr.json"};
    for (size_t i = 0; st == IPFSRT_OK && i < names.count * PROBES; i++) {
        req[i].offset = keys.len; /* where the key starts, until the buffer stops moving */
        req[i].length = IPFSRT_ZARR_DOC_MAX + 1;
        char key[IPFSRT_ZARR_KEY_MAX + 16];
        int n = snprintf(key, sizeof key, "%s%s/%s", prefix, names.names[i / PROBES], probes[i % PROBES]);
        ipfsrt_buf_append(&keys, key, (size_t)n + 1);
    }
    if (keys.failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; st == IPFSRT_OK && i < names.count * PROBES; i++) {
        req[i].key = (const char *)keys.data + req[i].offset;
        req[i].offset = 0;
    }
    probing p = {&names, l};
    if (st == IPFSRT_OK) st = ipfsrt_zarr_store_get_many(g->h->store, req, names.count * PROBES, probed, &p, err);
    for (size_t i = 0; i < names.count; i++) free(names.names[i]);
    free(names.names);
    ipfsrt_buf_free(&keys);
    free(req);
    return st;
}

/* By name, an array before a group of the same name (as zarr-python looks
 * for .zarray first). */
static int by_name(const void *a, const void *b) {
    const member *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (int)y->is_array - (int)x->is_array;
}

/* Sorted, each name once. */
static ipfsrt_status unique(member_list *l, ipfsrt_error *err) {
    if (l->count) qsort(l->items, l->count, sizeof *l->items, by_name);
    size_t kept = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (kept && strcmp(l->items[kept - 1].name, l->items[i].name) == 0) {
            free(l->items[i].name);
            continue;
        }
        l->items[kept++] = l->items[i];
    }
    l->count = kept;
    if (kept > MEMBERS_MAX) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "a group of more than %d members", MEMBERS_MAX);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_members(const ipfsrt_zarr_node *g, ipfsrt_zarr_member_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(g, err);
    IPFSRT_NEED(fn, err);
    if (g->meta) return ipfsrt_fail(err, IPFSRT_ENOT_DIRECTORY, -1, "%s is an array, not a group", g->path);
    member_list l = {0};
    const char *rel = ipfsrt_zarr_consolidated_rel(g->h, g->path);
    ipfsrt_status st = rel ? from_consolidated(g->h, rel, &l, err) : from_listing(g, &l, err);
    if (st == IPFSRT_OK) st = unique(&l, err);
    for (size_t i = 0; i < l.count && st == IPFSRT_OK; i++) st = fn(user, l.items[i].name, l.items[i].is_array, err);
    for (size_t i = 0; i < l.count; i++) free(l.items[i].name);
    free(l.items);
    return st;
}
