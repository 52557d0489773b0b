/* Kerchunk references parsed into a sorted table: version 0 (an object of
 * keys) and version 1 ("refs", "templates", "gen"). A value is inline text,
 * "base64:" bytes, [url] (a whole file) or [url, offset, length]; urls are
 * made absolute against the references file's own URL. Every key is checked
 * as a store key, every range for overflow, and gen's expansion is bounded. */
#include <cJSON.h>
#include <math.h>
#include <mbedtls/base64.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "zarr/refs.h"

#define MAX_EXACT ((double)((uint64_t)1 << 53)) /* JSON numbers beyond this are not exact */

typedef struct builder {
    ipfsrt_zarr_refs *refs;
    size_t cap, targets_cap;
    const char *base; /* the references file's URL, for relative targets */
    const cJSON *templates;
    uint64_t bytes; /* of keys, targets and the table: gen's output is bounded by it */
    ipfsrt_error *err;
} builder;

static ipfsrt_status oom(ipfsrt_error *err) { return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory"); }

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
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: relative target %.200s and no "
                           "references URL to take it from", key, url);
    for (const char *p = url; *p; p += strcspn(p, "/"), p += *p == '/')
        if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
            return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: target %.200s climbs out of the "
                               "references' folder", key, url);
    const char *after = has_scheme(b->base) ? strstr(b->base, "://") + 3 : b->base;
    const char *slash = strrchr(after, '/');
    if (!slash && after != b->base)
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: relative target %.200s, and the "
                           "references at %.200s are in no folder", key, url, b->base);
    size_t dir = slash ? (size_t)(slash - b->base) + 1 : 0;
    *out = malloc(dir + n + 1);
    if (!*out) return oom(b->err);
    memcpy(*out, b->base, dir);
    memcpy(*out + dir, url, n + 1);
    return IPFSRT_OK;
}

/* Counts bytes the table keeps against its budget. */
static ipfsrt_status spend(builder *b, size_t n) {
    b->bytes += n;
    if (b->bytes > IPFSRT_REFS_MAX_TABLE)
        return ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: keys and targets over %llu bytes",
                           (unsigned long long)IPFSRT_REFS_MAX_TABLE);
    return IPFSRT_OK;
}

/* The target's index: the same URL is one target however many keys name it. */
static ipfsrt_status target_of(builder *b, const char *key, const char *url, size_t *index) {
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
    if ((st = spend(b, strlen(abs) + 1 + sizeof *r->targets)) != IPFSRT_OK) {
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

static ipfsrt_status add_ref(builder *b, const ipfsrt_zarr_ref *ref) {
    ipfsrt_zarr_refs *r = b->refs;
    if (r->count >= IPFSRT_REFS_MAX_KEYS)
        return ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: more than %zu keys", IPFSRT_REFS_MAX_KEYS);
    ipfsrt_status st = spend(b, sizeof *ref + strlen(ref->key) + 1);
    if (st != IPFSRT_OK) return st;
    if (ipfsrt_array_reserve(&r->refs, &b->cap, r->count + 1, sizeof *r->refs) != IPFSRT_OK) return oom(b->err);
    r->refs[r->count++] = *ref;
    return IPFSRT_OK;
}

static ipfsrt_status number_of(builder *b, const char *key, const cJSON *v, const char *what, uint64_t *out) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= MAX_EXACT ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: %s is not a whole number of bytes "
                           "below 2^53", key, what);
    *out = (uint64_t)v->valuedouble;
    return IPFSRT_OK;
}

/* Inline text, or "base64:" bytes. */
static ipfsrt_status inline_value(builder *b, const char *key, const char *text, ipfsrt_zarr_ref *ref) {
    size_t n = strlen(text);
    if (strncmp(text, "base64:", 7) != 0) {
        ref->data = malloc(n ? n : 1);
        if (!ref->data) return oom(b->err);
        memcpy(ref->data, text, n);
        ref->len = n;
        return IPFSRT_OK;
    }
    size_t out_len = 0;
    ref->data = malloc(n / 4 * 3 + 3);
    if (!ref->data) return oom(b->err);
    if (mbedtls_base64_decode(ref->data, n / 4 * 3 + 3, &out_len, (const unsigned char *)text + 7, n - 7) != 0)
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: bad base64", key);
    ref->len = out_len;
    return IPFSRT_OK;
}

/* [url] or [url, offset, length], the url rendered from the templates. */
static ipfsrt_status range_value(builder *b, const char *key, const cJSON *list, ipfsrt_zarr_ref *ref) {
    int n = cJSON_GetArraySize(list);
    const cJSON *url = cJSON_GetArrayItem(list, 0);
    if ((n != 1 && n != 3) || !cJSON_IsString(url))
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: a reference is [url] or "
                           "[url, offset, length]", key);
    ref->length = IPFSRT_REFS_WHOLE;
    ipfsrt_status st = n == 3 ? number_of(b, key, cJSON_GetArrayItem(list, 1), "the offset", &ref->offset) : IPFSRT_OK;
    if (st == IPFSRT_OK && n == 3) st = number_of(b, key, cJSON_GetArrayItem(list, 2), "the length", &ref->length);
    char *rendered = NULL;
    if (st == IPFSRT_OK) st = ipfsrt_refs_render(url->valuestring, b->templates, NULL, 0, &rendered, b->err);
    if (st == IPFSRT_OK) st = target_of(b, key, rendered, &ref->target);
    free(rendered);
    return st;
}

static ipfsrt_status key_checked(builder *b, const char *key, char **out) {
    ipfsrt_error e;
    if (ipfsrt_zarr_key_check(key, &e) != IPFSRT_OK)
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key '%.200s': %s", key, e.message);
    return (*out = strdup(key)) ? IPFSRT_OK : oom(b->err);
}

/* One key of refs (or of a version 0 object). */
static ipfsrt_status add_value(builder *b, const char *key, const cJSON *v) {
    ipfsrt_zarr_ref ref = {0};
    ipfsrt_status st = key_checked(b, key, &ref.key);
    if (st != IPFSRT_OK) return st;
    if (cJSON_IsString(v)) {
        st = inline_value(b, key, v->valuestring, &ref);
    } else if (cJSON_IsArray(v)) {
        st = range_value(b, key, v, &ref);
    } else if (cJSON_IsObject(v)) { /* metadata written as JSON rather than as its text */
        char *text = cJSON_PrintUnformatted(v);
        st = text ? inline_value(b, key, text, &ref) : oom(b->err);
        free(text);
    } else {
        st = ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s: a value is text, an object or a list", key);
    }
    if (st == IPFSRT_OK) st = add_ref(b, &ref);
    if (st != IPFSRT_OK) {
        free(ref.key);
        free(ref.data);
    }
    return st;
}

/* ---------------------------------------------------------------- gen */

#define MAX_DIMS 8

typedef struct dimension {
    const char *name;
    int64_t *values; /* a list's (malloc'd), or NULL for a range */
    int64_t start, stop, step;
    uint64_t count;
} dimension;

/* A JSON number that is a whole number of magnitude below 2^53 (absent: fallback). */
static bool exact_int(const cJSON *v, int64_t fallback, int64_t *out) {
    if (!v) {
        *out = fallback;
        return true;
    }
    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) < MAX_EXACT) || v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (int64_t)v->valuedouble;
    return true;
}

static ipfsrt_status dimension_of(builder *b, const cJSON *spec, dimension *d) {
    d->name = spec->string;
    if (cJSON_IsArray(spec)) {
        size_t n = (size_t)cJSON_GetArraySize(spec);
        if (!(d->values = malloc((n ? n : 1) * sizeof *d->values))) return oom(b->err);
        for (const cJSON *v = spec->child; v; v = v->next)
            if (!exact_int(v, 0, &d->values[d->count++]))
                return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: gen dimension %s: values are integers",
                                   d->name);
        return IPFSRT_OK;
    }
    bool ok = cJSON_IsObject(spec) && cJSON_GetObjectItemCaseSensitive(spec, "stop") &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "start"), 0, &d->start) &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "stop"), 0, &d->stop) &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "step"), 1, &d->step) && d->step > 0;
    if (!ok)
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: gen dimension %s: {start, stop, step} are "
                           "integers, stop given, step positive", d->name ? d->name : "?");
    d->count = d->stop > d->start ? (uint64_t)((d->stop - d->start + d->step - 1) / d->step) : 0;
    return IPFSRT_OK;
}

static int64_t dimension_value(const dimension *d, uint64_t i) {
    return d->values ? d->values[i] : d->start + (int64_t)i * d->step;
}

static ipfsrt_status rendered_number(builder *b, const char *key, const cJSON *field, const ipfsrt_refs_var *vars,
                                     size_t n, const char *what, uint64_t *out) {
    if (cJSON_IsNumber(field)) return number_of(b, key, field, what, out);
    char *text = NULL;
    ipfsrt_status st = cJSON_IsString(field) ? ipfsrt_refs_render(field->valuestring, b->templates, vars, n, &text,
                                                                  b->err)
                                             : ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: gen key %s: "
                                                           "no %s", key, what);
    char *stop = NULL;
    unsigned long long v = st == IPFSRT_OK ? strtoull(text, &stop, 10) : 0;
    if (st == IPFSRT_OK && (!*text || *stop || text[0] == '-' || v >= (1ULL << 53)))
        st = ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: gen key %s: %s '%.40s' is not a byte count", key,
                         what, text);
    free(text);
    *out = v;
    return st;
}

/* One key of a generator, for one combination of its dimensions. */
static ipfsrt_status gen_one(builder *b, const cJSON *g, const ipfsrt_refs_var *vars, size_t n) {
    const cJSON *key_t = cJSON_GetObjectItemCaseSensitive(g, "key");
    const cJSON *url_t = cJSON_GetObjectItemCaseSensitive(g, "url");
    if (!cJSON_IsString(key_t) || !cJSON_IsString(url_t))
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: a gen entry needs key and url templates");
    ipfsrt_zarr_ref ref = {0};
    char *key = NULL, *url = NULL;
    ipfsrt_status st = ipfsrt_refs_render(key_t->valuestring, b->templates, vars, n, &key, b->err);
    if (st == IPFSRT_OK) st = key_checked(b, key, &ref.key);
    if (st == IPFSRT_OK) st = ipfsrt_refs_render(url_t->valuestring, b->templates, vars, n, &url, b->err);
    if (st == IPFSRT_OK)
        st = rendered_number(b, key, cJSON_GetObjectItemCaseSensitive(g, "offset"), vars, n, "offset", &ref.offset);
    if (st == IPFSRT_OK)
        st = rendered_number(b, key, cJSON_GetObjectItemCaseSensitive(g, "length"), vars, n, "length", &ref.length);
    if (st == IPFSRT_OK) st = target_of(b, key, url, &ref.target);
    if (st == IPFSRT_OK) st = add_ref(b, &ref);
    if (st != IPFSRT_OK) free(ref.key);
    free(key);
    free(url);
    return st;
}

/* Every combination of the dimensions (the last varying fastest). */
static ipfsrt_status gen_entry(builder *b, const cJSON *g) {
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(g, "dimensions");
    dimension d[MAX_DIMS];
    size_t nd = 0;
    uint64_t total = 1;
    ipfsrt_status st = IPFSRT_OK;
    for (const cJSON *s = cJSON_IsObject(dims) ? dims->child : NULL; s && st == IPFSRT_OK; s = s->next) {
        if (nd == MAX_DIMS) {
            st = ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: a gen entry has over %d dimensions", MAX_DIMS);
            break;
        }
        memset(&d[nd], 0, sizeof d[nd]);
        st = dimension_of(b, s, &d[nd++]);
        if (st == IPFSRT_OK && d[nd - 1].count && total > IPFSRT_REFS_MAX_KEYS / d[nd - 1].count)
            st = ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: gen makes more than %zu keys",
                             IPFSRT_REFS_MAX_KEYS);
        total *= d[nd - 1].count;
    }
    ipfsrt_refs_var vars[MAX_DIMS];
    for (uint64_t i = 0; st == IPFSRT_OK && i < total; i++) {
        uint64_t rest = i;
        for (size_t k = nd; k-- > 0;) {
            vars[k] = (ipfsrt_refs_var){d[k].name, NULL, dimension_value(&d[k], rest % d[k].count)};
            rest /= d[k].count;
        }
        st = gen_one(b, g, vars, nd);
    }
    for (size_t k = 0; k < nd; k++) free(d[k].values);
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
            return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: key %s is given twice", r->refs[i].key);
    return IPFSRT_OK;
}

static ipfsrt_status parse_doc(builder *b, const cJSON *doc) {
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
    if (!version) { /* version 0: the object is the keys */
        for (const cJSON *v = doc->child; v; v = v->next) {
            ipfsrt_status st = add_value(b, v->string, v);
            if (st != IPFSRT_OK) return st;
        }
        return IPFSRT_OK;
    }
    if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        return ipfsrt_fail(b->err, IPFSRT_EUNSUPPORTED, -1, "references: version %s is not 0 or 1",
                           cJSON_IsNumber(version) ? "other" : "not a number");
    const cJSON *templates = cJSON_GetObjectItemCaseSensitive(doc, "templates");
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(doc, "gen");
    const cJSON *refs = cJSON_GetObjectItemCaseSensitive(doc, "refs");
    if ((templates && !cJSON_IsObject(templates)) || (gen && !cJSON_IsArray(gen)) || (refs && !cJSON_IsObject(refs)))
        return ipfsrt_fail(b->err, IPFSRT_EARG, -1, "references: templates and refs are objects, gen a list");
    b->templates = templates;
    ipfsrt_status st = IPFSRT_OK;
    for (const cJSON *g = gen ? gen->child : NULL; g && st == IPFSRT_OK; g = g->next) st = gen_entry(b, g);
    for (const cJSON *v = refs ? refs->child : NULL; v && st == IPFSRT_OK; v = v->next)
        st = add_value(b, v->string, v);
    return st;
}

ipfsrt_status ipfsrt_zarr_refs_parse(ipfsrt_zarr_refs *refs, const char *json, size_t len, const char *base,
                                     ipfsrt_error *err) {
    memset(refs, 0, sizeof *refs);
    if (len > IPFSRT_REFS_MAX_JSON)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "references: over %zu bytes", IPFSRT_REFS_MAX_JSON);
    cJSON *doc = cJSON_ParseWithLength(json, len);
    if (!doc || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "references: not a JSON object");
    }
    builder b = {refs, 0, 0, base, NULL, 0, err};
    ipfsrt_status st = parse_doc(&b, doc);
    if (st == IPFSRT_OK) st = finish(&b);
    cJSON_Delete(doc);
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
