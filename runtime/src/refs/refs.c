/* Kerchunk references parsed into a sorted table: version 0 (an object of
 * keys) and version 1 ("refs", "templates", "gen"). A value is inline text,
 * "base64:" bytes, [url] (a whole file) or [url, offset, length]; urls are
 * made absolute against the references file's own URL. Every key is checked
 * as a store key, every range for overflow, and what the table keeps is
 * bounded: the JSON is read as a stream of events (refs_json.c), never as a
 * tree (a tree of 64 MB of references took 2.7 GB), and gen's expansion is
 * bounded before it starts (refs_gen.c). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/multibase.h"
#include "refs/refs.h"

typedef ipfsrt_refs_builder builder;

static ipfsrt_status oom(ipfsrt_error *err) { return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory"); }

static bool has_scheme(const char *url) {
    const char *colon = strstr(url, "://");
    if (!colon || colon == url) return false;
    for (const char *p = url; p < colon; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+'))
            return false;
    return true;
}

/* url made absolute: ipfs:// for /ipfs/ paths, and a relative one in the
 * references file's folder (no ".." out of it); local paths stay paths. */
static ipfsrt_status absolute_url(builder *b, const char *key, const char *url, char **out) {
    *out = NULL;
    size_t n = strlen(url);
    if (strncmp(url, "/ipfs/", 6) == 0) {
        *out = malloc(n + 2);
        if (*out) snprintf(*out, n + 2, "ipfs://%s", url + 6);
        return *out ? IPFSRT_OK : oom(b->err);
    }
    if (has_scheme(url) || url[0] == '/') return (*out = strdup(url)) ? IPFSRT_OK : oom(b->err);
    if (!b->base)
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: relative target %.200s and no "
                           "references URL to take it from", key, url);
    for (const char *p = url; *p; p += strcspn(p, "/"), p += *p == '/')
        if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
            return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: target %.200s climbs out of the "
                               "references' folder", key, url);
    const char *after = has_scheme(b->base) ? strstr(b->base, "://") + 3 : b->base;
    const char *slash = strrchr(after, '/');
    if (!slash && after != b->base)
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: relative target %.200s, and the "
                           "references at %.200s are in no folder", key, url, b->base);
    size_t dir = slash ? (size_t)(slash - b->base) + 1 : 0;
    *out = malloc(dir + n + 1);
    if (!*out) return oom(b->err);
    memcpy(*out, b->base, dir);
    memcpy(*out + dir, url, n + 1);
    return IPFSRT_OK;
}

/* Counts bytes the table keeps against its budget. */
ipfsrt_status ipfsrt_refs_spend(builder *b, size_t n) {
    b->bytes += n;
    if (b->bytes > IPFSRT_REFS_MAX_TABLE)
        return ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: keys and targets over %llu bytes",
                           (unsigned long long)IPFSRT_REFS_MAX_TABLE);
    return IPFSRT_OK;
}

/* The target's index: the same URL is one target however many keys name it. */
ipfsrt_status ipfsrt_refs_target(builder *b, const char *key, const char *url, size_t *index) {
    char *abs;
    ipfsrt_status st = absolute_url(b, key, url, &abs);
    if (st != IPFSRT_OK) return st;
    ipfsrt_zarr_refs *r = b->refs;
    /* keys of one file come together: the last target first */
    for (size_t i = r->ntargets; i-- > 0 && i + 8 >= r->ntargets;)
        if (strcmp(r->targets[i], abs) == 0) {
            free(abs);
            *index = i;
            return IPFSRT_OK;
        }
    if ((st = ipfsrt_refs_spend(b, strlen(abs) + 1 + sizeof *r->targets)) != IPFSRT_OK) {
        free(abs);
        return st;
    }
    if (ipfsrt_array_reserve(&r->targets, &b->targets_cap, r->ntargets + 1, sizeof *r->targets) != IPFSRT_OK) {
        free(abs);
        return oom(b->err);
    }
    r->targets[r->ntargets] = abs;
    *index = r->ntargets++;
    return IPFSRT_OK;
}

/* url's place among the targets as written: the keys of one file come
 * together, so the last few are looked at (url taken). */
static ipfsrt_status raw_target(builder *b, char *url, size_t *index) {
    for (size_t i = b->nraw; i-- > 0 && i + 8 >= b->nraw;)
        if (strcmp(b->raw[i], url) == 0) {
            free(url);
            *index = i;
            return IPFSRT_OK;
        }
    ipfsrt_status st = ipfsrt_refs_spend(b, strlen(url) + 1 + sizeof *b->raw);
    if (st == IPFSRT_OK && ipfsrt_array_reserve(&b->raw, &b->raw_cap, b->nraw + 1, sizeof *b->raw) != IPFSRT_OK)
        st = oom(b->err);
    if (st != IPFSRT_OK) {
        free(url);
        return st;
    }
    b->raw[b->nraw] = url;
    *index = b->nraw++;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_refs_add(builder *b, ipfsrt_zarr_ref *ref, char *url, bool top) {
    ipfsrt_zarr_refs *r = b->refs;
    ipfsrt_status st = IPFSRT_OK;
    if (r->count >= IPFSRT_REFS_MAX_KEYS)
        st = ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: more than %zu keys", IPFSRT_REFS_MAX_KEYS);
    if (st == IPFSRT_OK) st = ipfsrt_refs_spend(b, sizeof *ref + 1 + strlen(ref->key) + 1);
    if (st == IPFSRT_OK && url) {
        st = raw_target(b, url, &ref->target);
        url = NULL;
    }
    size_t cap = b->cap;
    if (st == IPFSRT_OK && ipfsrt_array_reserve(&r->refs, &b->cap, r->count + 1, sizeof *r->refs) != IPFSRT_OK)
        st = oom(b->err);
    if (st == IPFSRT_OK && b->cap != cap) { /* top grows with the table */
        bool *top_list = realloc(b->top, b->cap * sizeof *b->top);
        if (!top_list) st = oom(b->err);
        else b->top = top_list;
    }
    if (st != IPFSRT_OK) {
        free(ref->key);
        free(ref->data);
        free(url);
        return st;
    }
    b->top[r->count] = top;
    r->refs[r->count++] = *ref;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_refs_key(builder *b, const char *key, char **out) {
    ipfsrt_error e;
    *out = NULL;
    if (ipfsrt_zarr_key_check(key, &e) != IPFSRT_OK)
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key '%.200s': %s", key, e.message);
    return (*out = strdup(key)) ? IPFSRT_OK : oom(b->err);
}

ipfsrt_status ipfsrt_refs_add_inline(builder *b, char *key, const char *text, size_t n, bool top) {
    ipfsrt_zarr_ref ref = {.key = key};
    bool b64 = n >= 7 && memcmp(text, "base64:", 7) == 0;
    size_t room = b64 ? n - 7 : n; /* what ipfsrt_base_decode asks: the text's length */
    ipfsrt_status st = ipfsrt_refs_spend(b, room);
    if (st == IPFSRT_OK && !(ref.data = malloc(room ? room : 1))) st = oom(b->err);
    if (st == IPFSRT_OK && !b64) {
        memcpy(ref.data, text, n);
        ref.len = n;
    } else if (st == IPFSRT_OK) {
        ipfsrt_error e;
        if (ipfsrt_base_decode(IPFSRT_BASE64PAD, text + 7, n - 7, ref.data, room, &ref.len, &e) != IPFSRT_OK)
            st = ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: bad base64 (%s)", key, e.message);
    }
    if (st == IPFSRT_OK) return ipfsrt_refs_add(b, &ref, NULL, top);
    free(ref.data);
    free(key);
    return st;
}

/* ------------------------------------------------------------ the table */

static int by_key(const void *x, const void *y) {
    return strcmp(((const ipfsrt_zarr_ref *)x)->key, ((const ipfsrt_zarr_ref *)y)->key);
}

/* Sorted, and a key given twice refused (which one counts would be a guess). */
static ipfsrt_status finish(builder *b) {
    ipfsrt_zarr_refs *r = b->refs;
    if (r->count) qsort(r->refs, r->count, sizeof *r->refs, by_key);
    for (size_t i = 1; i < r->count; i++)
        if (strcmp(r->refs[i - 1].key, r->refs[i].key) == 0)
            return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s is given twice", r->refs[i].key);
    return IPFSRT_OK;
}

/* A version 1 document keeps "refs" only: its other top-level names are not
 * keys (kerchunk ignores them); version 0's are all keys. */
static void keep_version(builder *b, int version) {
    ipfsrt_zarr_refs *r = b->refs;
    size_t kept = 0;
    for (size_t i = 0; i < r->count; i++) {
        if (version == 1 && b->top[i]) {
            free(r->refs[i].key);
            free(r->refs[i].data);
            continue;
        }
        r->refs[kept++] = r->refs[i];
    }
    r->count = kept;
}

/* The targets as written, each filled from the templates and made absolute
 * once, and the references pointed at what they became. */
static ipfsrt_status render_targets(builder *b) {
    ipfsrt_zarr_refs *r = b->refs;
    size_t *final = malloc((b->nraw ? b->nraw : 1) * sizeof *final);
    size_t *named_by = malloc((b->nraw ? b->nraw : 1) * sizeof *named_by); /* a key naming it, for messages */
    if (!final || !named_by) {
        free(final);
        free(named_by);
        return oom(b->err);
    }
    for (size_t i = 0; i < b->nraw; i++) named_by[i] = SIZE_MAX;
    for (size_t k = r->count; k-- > 0;)
        if (!r->refs[k].data) named_by[r->refs[k].target] = k;
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < b->nraw && st == IPFSRT_OK; i++) {
        if (named_by[i] == SIZE_MAX) continue; /* named only by keys version 1 does not keep */
        const char *key = r->refs[named_by[i]].key;
        char *rendered = NULL;
        st = ipfsrt_refs_render(b->raw[i], b->templates, NULL, 0, &rendered, b->err);
        if (st == IPFSRT_OK) st = ipfsrt_refs_target(b, key, rendered, &final[i]);
        free(rendered);
    }
    for (size_t k = 0; k < r->count && st == IPFSRT_OK; k++)
        if (!r->refs[k].data) r->refs[k].target = final[r->refs[k].target];
    free(final);
    free(named_by);
    return st;
}

static void builder_free(builder *b) {
    for (size_t i = 0; i < b->nraw; i++) free(b->raw[i]);
    free(b->raw);
    free(b->top);
}

ipfsrt_status ipfsrt_zarr_refs_parse(ipfsrt_zarr_refs *refs, const char *json, size_t len, const char *base,
                                     ipfsrt_error *err) {
    memset(refs, 0, sizeof *refs);
    if (len > IPFSRT_REFS_MAX_JSON)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "references: over %zu bytes", IPFSRT_REFS_MAX_JSON);
    builder b = {.refs = refs, .base = base, .err = err};
    cJSON *templates = NULL, *gen = NULL;
    int version = 0;
    bool v1_parts = false;
    ipfsrt_status st = ipfsrt_refs_read_json(&b, json, len, &version, &templates, &gen, &v1_parts);
    if (st == IPFSRT_OK && version == 0 && v1_parts)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "references: templates, gen and refs need \"version\": 1");
    if (st == IPFSRT_OK) {
        keep_version(&b, version);
        b.templates = templates;
        st = render_targets(&b);
    }
    if (st == IPFSRT_OK && gen) st = ipfsrt_refs_gen(&b, gen);
    if (st == IPFSRT_OK) st = finish(&b);
    builder_free(&b);
    cJSON_Delete(templates);
    cJSON_Delete(gen);
    if (st != IPFSRT_OK) ipfsrt_zarr_refs_free(refs);
    return st;
}

const ipfsrt_zarr_ref *ipfsrt_zarr_refs_find(const ipfsrt_zarr_refs *refs, const char *key) {
    size_t lo = 0, hi = refs->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(refs->refs[mid].key, key);
        if (c == 0) return &refs->refs[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void ipfsrt_zarr_refs_free(ipfsrt_zarr_refs *refs) {
    for (size_t i = 0; i < refs->count; i++) {
        free(refs->refs[i].key);
        free(refs->refs[i].data);
    }
    for (size_t i = 0; i < refs->ntargets; i++) free(refs->targets[i]);
    free(refs->refs);
    free(refs->targets);
    memset(refs, 0, sizeof *refs);
}
