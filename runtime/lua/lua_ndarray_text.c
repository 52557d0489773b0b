/* ipfsrt.ndarray as text: printing (numpy's layout, long arrays abridged)
 * and exact text for the CLI (a:tojson(), a:strings()). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "lua_ndarray.h"

/* --------------------------------------------------------------- printing */

#define PRINT_THRESHOLD 1000
#define EDGE_ITEMS 3

/* The shortest text that reads back as the same float (Lua's tostring keeps
 * only 14 digits); float32 elements as float32 reads them. */
static void float_text(double f, bool single, char *s, size_t cap) {
    for (int digits = single ? 6 : 15; digits <= (single ? 9 : 17); digits++) {
        snprintf(s, cap, "%.*g", digits, f);
        double back = strtod(s, NULL);
        if (single ? (float)back == (float)f : back == f) return;
    }
}

/* One array being printed as numpy prints it: elements right-aligned to the
 * widest one shown (floats aligned on their points), rows of a 3-d array in
 * blocks a blank line apart, and the middle of long dimensions left out
 * ("...") at the edges' indentation. */
typedef struct printing {
    luaL_Buffer *b;
    const ipfsrt_ndarray *a;
    bool abbreviate;
    size_t width;       /* of the widest element shown */
    size_t before_point; /* floats: the most characters before a point */
    size_t from_point;   /* ... and from it on */
} printing;

static size_t value_text(const ipfsrt_ndarray *a, const ipfsrt_ndvalue *v, char *s, size_t cap) {
    switch (v->kind) {
    case IPFSRT_NDVALUE_BOOL: snprintf(s, cap, "%s", v->b ? "True" : "False"); break;
    case IPFSRT_NDVALUE_INT: snprintf(s, cap, "%lld", (long long)v->i); break;
    case IPFSRT_NDVALUE_UINT: snprintf(s, cap, "%llu", (unsigned long long)v->u); break;
    case IPFSRT_NDVALUE_COMPLEX: snprintf(s, cap, "%.8g%+.8gj", v->f, v->imag); break;
    case IPFSRT_NDVALUE_BYTES: snprintf(s, cap, "b'%.*s'", (int)(v->len < 200 ? v->len : 200), (const char *)v->bytes); break;
    case IPFSRT_NDVALUE_FLOAT:
        if (isnan(v->f)) snprintf(s, cap, "nan");
        else if (isinf(v->f)) snprintf(s, cap, v->f > 0 ? "inf" : "-inf");
        else if (v->f == floor(v->f) && fabs(v->f) < 1e16) snprintf(s, cap, "%.0f.", v->f); /* 1. */
        else float_text(v->f, a->dtype == IPFSRT_DTYPE_FLOAT32, s, cap);
        break;
    }
    return strlen(s);
}

/* The text of the element at index, into s (256 bytes); its length. */
static size_t element_text(const ipfsrt_ndarray *a, const int64_t *index, char *s) {
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL);
    return value_text(a, &v, s, 256);
}

/* Each element shown, in order: fn(p, text, length). */
static void each_shown(printing *p, int dim, int64_t *index, void (*fn)(printing *p, const char *s, size_t n)) {
    const ipfsrt_ndarray *a = p->a;
    if (dim == a->ndim) {
        char s[256];
        fn(p, s, element_text(a, index, s));
        return;
    }
    size_t n = a->shape[dim];
    for (size_t i = 0; i < n; i++) {
        if (p->abbreviate && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) i = n - EDGE_ITEMS;
        index[dim] = (int64_t)i;
        each_shown(p, dim + 1, index, fn);
    }
}

static void widest(printing *p, const char *s, size_t n) {
    if (n > p->width) p->width = n;
    const char *point = memchr(s, '.', n);
    if (!point) return;
    size_t before = (size_t)(point - s), from = n - before;
    if (before > p->before_point) p->before_point = before;
    if (from > p->from_point) p->from_point = from;
}

/* s as it stands in its column: right-aligned, or (floats) on the point. */
static void add_aligned(printing *p, const char *s, size_t n) {
    const char *point = memchr(s, '.', n);
    size_t column = p->before_point + p->from_point > p->width ? p->before_point + p->from_point : p->width;
    size_t left = point ? p->before_point - (size_t)(point - s) : column > n ? column - n : 0;
    size_t right = point ? p->from_point - (n - (size_t)(point - s)) : 0;
    for (size_t k = 0; k < left; k++) luaL_addchar(p->b, ' ');
    luaL_addlstring(p->b, s, n);
    for (size_t k = 0; k < right; k++) luaL_addchar(p->b, ' ');
}

/* Between the items of dimension dim: ", " in a row; else a new line, a blank
 * line per dimension below the next one, and the indentation under the "[". */
static void separator(printing *p, int dim) {
    luaL_Buffer *b = p->b;
    luaL_addchar(b, ',');
    if (dim == p->a->ndim - 1) {
        luaL_addchar(b, ' ');
        return;
    }
    luaL_addchar(b, '\n');
    for (int k = dim; k < p->a->ndim - 2; k++) luaL_addchar(b, '\n');
    for (int k = 0; k <= dim + 6; k++) luaL_addchar(b, ' '); /* under "array([" */
}

static void add_level(printing *p, int dim, int64_t *index) {
    const ipfsrt_ndarray *a = p->a;
    if (dim == a->ndim) {
        char s[256];
        add_aligned(p, s, element_text(a, index, s));
        return;
    }
    luaL_addchar(p->b, '[');
    size_t n = a->shape[dim];
    for (size_t i = 0; i < n; i++) {
        if (p->abbreviate && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
            luaL_addstring(p->b, "...");
            separator(p, dim);
            i = n - EDGE_ITEMS;
        }
        index[dim] = (int64_t)i;
        add_level(p, dim + 1, index);
        if (i + 1 < n) separator(p, dim);
    }
    luaL_addchar(p->b, ']');
}

/* ------------------------------------------------- exact text (CLI output) */


/* One element's text, every digit kept; NULL for non-finite floats in JSON. */
static const char *exact_text(const ipfsrt_ndarray *a, const ipfsrt_ndvalue *v, bool json, char *s, size_t cap) {
    bool single = a->dtype == IPFSRT_DTYPE_FLOAT32 || a->dtype == IPFSRT_DTYPE_COMPLEX64;
    switch (v->kind) {
    case IPFSRT_NDVALUE_BOOL: snprintf(s, cap, v->b ? "true" : "false"); break;
    case IPFSRT_NDVALUE_INT: snprintf(s, cap, "%lld", (long long)v->i); break;
    case IPFSRT_NDVALUE_UINT: snprintf(s, cap, "%llu", (unsigned long long)v->u); break;
    case IPFSRT_NDVALUE_FLOAT:
    case IPFSRT_NDVALUE_COMPLEX:
        if (isfinite(v->f)) float_text(v->f, single, s, cap);
        else if (json) return NULL;
        else snprintf(s, cap, isnan(v->f) ? "nan" : v->f > 0 ? "inf" : "-inf");
        break;
    case IPFSRT_NDVALUE_BYTES: return NULL;
    }
    return s;
}

static cJSON *value_json(const ipfsrt_ndarray *a, const ipfsrt_ndvalue *v) {
    char s[64];
    if (v->kind == IPFSRT_NDVALUE_BYTES) {
        char *copy = malloc(v->len + 1);
        if (!copy) return NULL;
        memcpy(copy, v->bytes, v->len);
        copy[v->len] = '\0';
        cJSON *str = cJSON_CreateString(copy);
        free(copy);
        return str;
    }
    const char *t = exact_text(a, v, true, s, sizeof s);
    cJSON *item = t ? cJSON_CreateRaw(t) : cJSON_CreateNull();
    if (v->kind != IPFSRT_NDVALUE_COMPLEX || !item) return item;
    ipfsrt_ndvalue im = *v;
    im.f = v->imag;
    t = exact_text(a, &im, true, s, sizeof s);
    cJSON *pair = cJSON_CreateArray();
    if (pair) cJSON_AddItemToArray(pair, item);
    if (pair) cJSON_AddItemToArray(pair, t ? cJSON_CreateRaw(t) : cJSON_CreateNull());
    else cJSON_Delete(item);
    return pair;
}

static cJSON *level_json(const ipfsrt_ndarray *a, int dim, int64_t *index) {
    if (dim == a->ndim) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL); /* in range by construction */
        return value_json(a, &v);
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < a->shape[dim]; i++) {
        index[dim] = (int64_t)i;
        cJSON *item = level_json(a, dim + 1, index);
        if (!item) {
            cJSON_Delete(list);
            return NULL;
        }
        cJSON_AddItemToArray(list, item);
    }
    return list;
}

/* a:tojson(): nested lists as JSON text, integers and floats to the last digit */
static int array_tojson(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    cJSON *doc = level_json(a, 0, index);
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) return luaL_error(L, "out of memory");
    lua_pushstring(L, text);
    cJSON_free(text);
    return 1;
}

/* a:strings(): every element's exact text (nan, inf; bytes as they are; complex
 * as re+imj), in C order, as one flat list */
static int array_strings(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    size_t n = ipfsrt_ndarray_size(a);
    luaL_argcheck(L, n < INT32_MAX, 1, "too many elements for a list");
    lua_createtable(L, (int)n, 0);
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    for (size_t k = 0; k < n; k++) {
        ipfsrt_ndvalue v;
        ipfsrt_ndarray_get(a, index, a->ndim, &v, NULL);
        char s[64], im[64];
        if (v.kind == IPFSRT_NDVALUE_BYTES) {
            lua_pushlstring(L, (const char *)v.bytes, v.len);
        } else if (v.kind == IPFSRT_NDVALUE_COMPLEX) {
            ipfsrt_ndvalue i = v;
            i.f = v.imag;
            exact_text(a, &v, false, s, sizeof s);
            exact_text(a, &i, false, im, sizeof im);
            lua_pushfstring(L, "%s%s%sj", s, im[0] == '-' ? "" : "+", im);
        } else {
            lua_pushstring(L, exact_text(a, &v, false, s, sizeof s));
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
        for (int d = a->ndim - 1; d >= 0; d--) { /* the next index in C order */
            if (++index[d] < (int64_t)a->shape[d]) break;
            index[d] = 0;
        }
    }
    return 1;
}

/* tostring(a): numpy's repr, abbreviated past 1000 elements, with dtype and shape */
static int array_tostring(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "array(");
    int64_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    printing p = {&b, a, ipfsrt_ndarray_size(a) > PRINT_THRESHOLD, 0, 0, 0};
    each_shown(&p, 0, index, widest);
    add_level(&p, 0, index);
    luaL_addstring(&b, ", dtype=");
    if (a->dtype == IPFSRT_DTYPE_BYTES) {
        char s[24];
        snprintf(s, sizeof s, "S%zu", a->itemsize);
        luaL_addstring(&b, s);
    } else {
        luaL_addstring(&b, ipfsrt_dtype_name(a->dtype));
    }
    luaL_addstring(&b, ", shape=(");
    for (int i = 0; i < a->ndim; i++) {
        char s[32];
        snprintf(s, sizeof s, "%s%zu", i ? ", " : "", a->shape[i]);
        luaL_addstring(&b, s);
    }
    luaL_addstring(&b, a->ndim == 1 ? ",))" : "))");
    luaL_pushresult(&b);
    return 1;
}

const luaL_Reg ipfsrt_lua_nd_text_methods[] = {{"tojson", array_tojson}, {"strings", array_strings}, {NULL, NULL}};
const luaL_Reg ipfsrt_lua_nd_text_meta[] = {{"__tostring", array_tostring}, {NULL, NULL}};
