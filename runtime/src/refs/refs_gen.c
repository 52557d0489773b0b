/* Kerchunk's gen: keys made from templates over the combinations of
 * integer dimensions ({{i}} in key, url, offset and length). Bounded before
 * it expands: the keys it would make must fit the table's budget. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "refs/refs.h"

typedef ipfsrt_refs_builder builder;

static ipfsrt_status oom(ipfsrt_error *err) { return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory"); }

static ipfsrt_status number_of(builder *b, const char *key, const cJSON *v, const char *what, uint64_t *out) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= IPFSRT_REFS_MAX_EXACT ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: %s is not a whole number of bytes "
                           "below 2^53", key, what);
    *out = (uint64_t)v->valuedouble;
    return IPFSRT_OK;
}

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
    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) < IPFSRT_REFS_MAX_EXACT) || v->valuedouble != floor(v->valuedouble))
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
                return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: gen dimension %s: values are integers",
                                   d->name);
        return IPFSRT_OK;
    }
    bool ok = cJSON_IsObject(spec) && cJSON_GetObjectItemCaseSensitive(spec, "stop") &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "start"), 0, &d->start) &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "stop"), 0, &d->stop) &&
              exact_int(cJSON_GetObjectItemCaseSensitive(spec, "step"), 1, &d->step) && d->step > 0;
    if (!ok)
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: gen dimension %s: {start, stop, step} are "
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
                                             : ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: gen key %s: "
                                                           "no %s", key, what);
    char *stop = NULL;
    unsigned long long v = st == IPFSRT_OK ? strtoull(text, &stop, 10) : 0;
    if (st == IPFSRT_OK && (!*text || *stop || text[0] == '-' || v >= (1ULL << 53)))
        st = ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: gen key %s: %s '%.40s' is not a byte count", key,
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
        return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: a gen entry needs key and url templates");
    ipfsrt_zarr_ref ref = {0};
    char *key = NULL, *url = NULL;
    ipfsrt_status st = ipfsrt_refs_render(key_t->valuestring, b->templates, vars, n, &key, b->err);
    if (st == IPFSRT_OK) st = ipfsrt_refs_key(b, key, &ref.key);
    if (st == IPFSRT_OK) st = ipfsrt_refs_render(url_t->valuestring, b->templates, vars, n, &url, b->err);
    if (st == IPFSRT_OK)
        st = rendered_number(b, key, cJSON_GetObjectItemCaseSensitive(g, "offset"), vars, n, "offset", &ref.offset);
    if (st == IPFSRT_OK)
        st = rendered_number(b, key, cJSON_GetObjectItemCaseSensitive(g, "length"), vars, n, "length", &ref.length);
    if (st == IPFSRT_OK) st = ipfsrt_refs_target(b, key, url, &ref.target);
    if (st == IPFSRT_OK) st = ipfsrt_refs_add(b, &ref, NULL, false); /* takes ref.key */
    else free(ref.key);
    free(key);
    free(url);
    return st;
}

/* What the keys gen would make cost the table, at the least (each as long as
 * its first), against what is left of its budget: a few hundred bytes of gen
 * can ask for 16 million keys, which are refused before the first is made. */
static ipfsrt_status check_room(builder *b, const cJSON *g, const dimension *d, size_t nd, uint64_t total) {
    ipfsrt_refs_var vars[MAX_DIMS];
    for (size_t k = 0; k < nd; k++) vars[k] = (ipfsrt_refs_var){d[k].name, NULL, dimension_value(&d[k], 0)};
    const cJSON *key_t = cJSON_GetObjectItemCaseSensitive(g, "key");
    char *key = NULL;
    ipfsrt_status st = cJSON_IsString(key_t)
                           ? ipfsrt_refs_render(key_t->valuestring, b->templates, vars, nd, &key, b->err)
                           : ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: a gen entry needs key and url templates");
    uint64_t each = sizeof(ipfsrt_zarr_ref) + sizeof(char *) + 1 + (key ? strlen(key) + 1 : 0);
    free(key);
    if (st == IPFSRT_OK && (total > (IPFSRT_REFS_MAX_TABLE - b->bytes) / each))
        st = ipfsrt_fail(b->err, IPFSRT_ETOO_LARGE, -1, "references: gen makes %llu keys, over the %llu bytes "
                         "references may take", (unsigned long long)total, (unsigned long long)IPFSRT_REFS_MAX_TABLE);
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
            st = ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: a gen entry has over %d dimensions", MAX_DIMS);
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
    if (st == IPFSRT_OK && total) st = check_room(b, g, d, nd, total);
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

ipfsrt_status ipfsrt_refs_gen(builder *b, const cJSON *gen) {
    if (!cJSON_IsArray(gen)) return ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: gen is a list");
    ipfsrt_status st = IPFSRT_OK;
    for (const cJSON *g = gen->child; g && st == IPFSRT_OK; g = g->next) st = gen_entry(b, g);
    return st;
}
