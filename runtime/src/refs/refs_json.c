/* A references file's JSON read as a stream of events (yajl), never as a
 * tree: each key goes into the table as it is met, so what parsing takes is
 * what the table keeps (as a cJSON tree, 64 MB of references took 2.7 GB).
 * Only the small parts are kept whole: "templates", "gen" and metadata
 * written as JSON objects. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "base/base_internal.h"
#include "refs/refs.h"

#define TREE_DEPTH 64 /* nesting of the parts kept whole */

typedef enum tree_kind { TREE_NONE, TREE_TEMPLATES, TREE_GEN, TREE_METADATA } tree_kind;

typedef struct reader {
    ipfsrt_refs_builder *b;
    ipfsrt_status st;
    int depth;             /* of the document's maps, outside the parts kept whole */
    bool in_refs;          /* depth 2 is "refs"' map */
    char *top_key;         /* the name at depth 1 */
    char *entry;           /* the key whose value comes next (version 0's at depth 1, refs' at 2) */
    bool entry_top;
    /* a part kept whole */
    tree_kind tree;
    cJSON *stack[TREE_DEPTH];
    int tree_depth;
    char *tree_key;
    /* a [url, offset, length] value */
    bool in_range;
    int items;
    char *url;
    uint64_t numbers[2];
    /* what the caller gets */
    int version;
    bool has_version, v1_parts;
    cJSON *templates, *gen;
} reader;

static int fail(reader *r, ipfsrt_status code, const char *fmt, const char *what) {
    if (r->st == IPFSRT_OK) r->st = ipfsrt_fail(r->b->err, code, -1, fmt, what ? what : "");
    return 0;
}

static int oom(reader *r) { return fail(r, IPFSRT_EOUT_OF_MEMORY, "out of memory%s", NULL); }

static char *text_of(reader *r, const unsigned char *s, size_t len) {
    if (memchr(s, '\0', len)) { /* readers disagree on where such a name ends */
        fail(r, IPFSRT_EBAD_ARGUMENT, "references: a name or text holds \\u0000%s", NULL);
        return NULL;
    }
    char *t = malloc(len + 1);
    if (!t) {
        oom(r);
        return NULL;
    }
    memcpy(t, s, len);
    t[len] = '\0';
    return t;
}

static bool special(const char *key) {
    return !strcmp(key, "version") || !strcmp(key, "templates") || !strcmp(key, "gen") || !strcmp(key, "refs");
}

/* Where a value now goes: into a part kept whole, a range, or the table. */
static bool at_entry(const reader *r) { return r->entry != NULL; }

/* ------------------------------------------------------ parts kept whole */

static void start_tree(reader *r, tree_kind kind, cJSON *root) {
    r->tree = kind;
    r->stack[0] = root;
    r->tree_depth = 1;
}

/* The finished part goes where it belongs. */
static int end_tree(reader *r) {
    cJSON *root = r->stack[0];
    tree_kind kind = r->tree;
    r->tree = TREE_NONE;
    r->tree_depth = 0;
    if (kind == TREE_TEMPLATES) r->templates = root;
    else if (kind == TREE_GEN) r->gen = root;
    else {
        char *text = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        if (!text) return oom(r);
        char *key = r->entry;
        r->entry = NULL;
        ipfsrt_status st = ipfsrt_refs_add_inline(r->b, key, text, strlen(text), r->entry_top);
        free(text);
        if (st != IPFSRT_OK) r->st = st;
    }
    return r->st == IPFSRT_OK;
}

/* An item into the part: its parent's next element, or its member named by
 * the key just read (a name given twice refused). */
static int tree_add(reader *r, cJSON *item, size_t bytes) {
    if (!item) return oom(r);
    ipfsrt_status st = ipfsrt_refs_spend(r->b, sizeof *item + bytes);
    cJSON *parent = r->stack[r->tree_depth - 1];
    if (st == IPFSRT_OK && cJSON_IsObject(parent)) {
        if (!r->tree_key || cJSON_GetObjectItemCaseSensitive(parent, r->tree_key)) {
            cJSON_Delete(item);
            return fail(r, IPFSRT_EBAD_ARGUMENT, "references: the name %s is given twice", r->tree_key);
        }
        cJSON_AddItemToObject(parent, r->tree_key, item);
        free(r->tree_key);
        r->tree_key = NULL;
    } else if (st == IPFSRT_OK) {
        cJSON_AddItemToArray(parent, item);
    } else {
        cJSON_Delete(item);
        r->st = st;
        return 0;
    }
    return 1;
}

static int tree_push(reader *r, cJSON *container) {
    if (r->tree_depth == TREE_DEPTH) {
        cJSON_Delete(container);
        return fail(r, IPFSRT_ETOO_LARGE, "references: nested over 64 deep%s", NULL);
    }
    if (!tree_add(r, container, 0)) return 0;
    r->stack[r->tree_depth++] = container;
    return 1;
}

static int tree_pop(reader *r) {
    if (--r->tree_depth == 0) return end_tree(r);
    return 1;
}

/* ---------------------------------------------------------------- values */

static int add_range(reader *r) {
    r->in_range = false;
    if (!(r->items == 1 || r->items == 3) || !r->url)
        return fail(r, IPFSRT_EBAD_ARGUMENT, "references: key %s: a reference is [url] or [url, offset, length]", r->entry);
    ipfsrt_zarr_ref ref = {.key = r->entry, .offset = r->items == 3 ? r->numbers[0] : 0,
                           .length = r->items == 3 ? r->numbers[1] : IPFSRT_REFS_WHOLE};
    char *url = r->url;
    r->entry = r->url = NULL;
    ipfsrt_status st = ipfsrt_refs_add(r->b, &ref, url, r->entry_top);
    if (st != IPFSRT_OK) r->st = st;
    return st == IPFSRT_OK;
}

static int not_an_object(reader *r) { return fail(r, IPFSRT_EBAD_ARGUMENT, "references: not a JSON object%s", NULL); }

static int not_a_value(reader *r) {
    return fail(r, IPFSRT_EBAD_ARGUMENT, "references: key %s: a value is text, an object or a list", r->entry);
}

static int on_null(void *ctx) {
    reader *r = ctx;
    if (r->depth == 0) return not_an_object(r);
    if (r->tree) return tree_add(r, cJSON_CreateNull(), 0);
    return at_entry(r) && !r->in_range ? not_a_value(r) : fail(r, IPFSRT_EBAD_ARGUMENT, "references: an unexpected null%s", NULL);
}

static int on_boolean(void *ctx, int value) {
    reader *r = ctx;
    if (r->depth == 0) return not_an_object(r);
    if (r->tree) return tree_add(r, cJSON_CreateBool(value), 0);
    return at_entry(r) && !r->in_range ? not_a_value(r) : fail(r, IPFSRT_EBAD_ARGUMENT, "references: an unexpected true or false%s", NULL);
}

/* A whole number of bytes below 2^53, from the number's text. */
static bool exact_count(const char *text, size_t len, uint64_t *out) {
    char buf[64], *end;
    if (len >= sizeof buf) return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    double v = strtod(buf, &end);
    if (*end || !(v >= 0) || v >= IPFSRT_REFS_MAX_EXACT || v != floor(v)) return false;
    *out = (uint64_t)v;
    return true;
}

static int on_number(void *ctx, const char *text, size_t len) {
    reader *r = ctx;
    if (r->depth == 0) return not_an_object(r);
    char buf[400];
    if (r->tree) {
        if (len >= sizeof buf) return fail(r, IPFSRT_EBAD_ARGUMENT, "references: a number of over 400 digits%s", NULL);
        memcpy(buf, text, len);
        buf[len] = '\0';
        return tree_add(r, cJSON_CreateNumber(strtod(buf, NULL)), 0);
    }
    if (r->in_range) {
        if (r->items == 0 || r->items > 2)
            return fail(r, IPFSRT_EBAD_ARGUMENT, "references: key %s: a reference is [url] or [url, offset, length]", r->entry);
        if (!exact_count(text, len, &r->numbers[r->items - 1])) {
            if (r->st == IPFSRT_OK)
                r->st = ipfsrt_fail(r->b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: key %s: the %s is not a whole number "
                                    "of bytes below 2^53", r->entry, r->items == 1 ? "offset" : "length");
            return 0;
        }
        r->items++;
        return 1;
    }
    if (at_entry(r)) return not_a_value(r);
    if (r->depth == 1 && r->top_key && !strcmp(r->top_key, "version")) {
        uint64_t v;
        if (!exact_count(text, len, &v) || v != 1)
            return fail(r, IPFSRT_EUNSUPPORTED, "references: version %s is not 0 or 1", "other");
        r->version = 1;
        return 1;
    }
    return fail(r, IPFSRT_EBAD_ARGUMENT, "references: %s is not a number", r->top_key);
}

static int on_string(void *ctx, const unsigned char *s, size_t len) {
    reader *r = ctx;
    if (r->depth == 0) return not_an_object(r);
    if (r->tree) {
        char *t = text_of(r, s, len);
        if (!t) return 0;
        int ok = tree_add(r, cJSON_CreateString(t), len + 1);
        free(t);
        return ok;
    }
    if (r->in_range) {
        if (r->items != 0) return fail(r, IPFSRT_EBAD_ARGUMENT, "references: key %s: the url comes first, once", r->entry);
        r->items = 1;
        return (r->url = text_of(r, s, len)) != NULL;
    }
    if (!at_entry(r)) return fail(r, IPFSRT_EBAD_ARGUMENT, "references: %s is not text", r->top_key);
    char *key = r->entry;
    r->entry = NULL;
    ipfsrt_status st = ipfsrt_refs_add_inline(r->b, key, (const char *)s, len, r->entry_top);
    if (st != IPFSRT_OK) r->st = st;
    return st == IPFSRT_OK;
}

/* ------------------------------------------------------------ structure */

static int on_start_map(void *ctx) {
    reader *r = ctx;
    if (r->tree) return tree_push(r, cJSON_CreateObject());
    if (r->in_range) return fail(r, IPFSRT_EBAD_ARGUMENT, "references: key %s: a reference is [url, offset, length]", r->entry);
    if (r->depth == 0) {
        r->depth = 1;
        return 1;
    }
    if (at_entry(r)) { /* metadata written as JSON rather than as its text */
        cJSON *root = cJSON_CreateObject();
        if (!root) return oom(r);
        start_tree(r, TREE_METADATA, root);
        return 1;
    }
    if (r->depth == 1 && !strcmp(r->top_key, "templates") && !r->templates) {
        cJSON *root = cJSON_CreateObject();
        if (!root) return oom(r);
        start_tree(r, TREE_TEMPLATES, root);
        return 1;
    }
    if (r->depth == 1 && !strcmp(r->top_key, "refs") && !r->in_refs) {
        r->depth = 2;
        r->in_refs = true;
        return 1;
    }
    return fail(r, IPFSRT_EBAD_ARGUMENT, "references: templates and refs are objects given once, gen a list, not %s",
                r->top_key);
}

static int on_end_map(void *ctx) {
    reader *r = ctx;
    if (r->tree) return tree_pop(r);
    r->depth--;
    return 1;
}

static int on_start_array(void *ctx) {
    reader *r = ctx;
    if (r->tree) return tree_push(r, cJSON_CreateArray());
    if (at_entry(r) && !r->in_range) {
        r->in_range = true;
        r->items = 0;
        return 1;
    }
    if (r->depth == 1 && r->top_key && !strcmp(r->top_key, "gen") && !r->gen) {
        cJSON *root = cJSON_CreateArray();
        if (!root) return oom(r);
        start_tree(r, TREE_GEN, root);
        return 1;
    }
    if (r->depth == 0) return not_an_object(r);
    return fail(r, IPFSRT_EBAD_ARGUMENT, "references: %s: not a list here", r->top_key);
}

static int on_end_array(void *ctx) {
    reader *r = ctx;
    if (r->tree) return tree_pop(r);
    return add_range(r);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len) {
    reader *r = ctx;
    char *key = text_of(r, s, len);
    if (!key) return 0;
    if (r->tree) {
        free(r->tree_key);
        r->tree_key = key;
        return 1;
    }
    if (r->depth == 2) { /* a key of refs */
        r->entry_top = false;
        ipfsrt_status st = ipfsrt_refs_key(r->b, key, &r->entry);
        free(key);
        if (st != IPFSRT_OK) r->st = st;
        return st == IPFSRT_OK;
    }
    free(r->top_key);
    r->top_key = key;
    if (special(key)) {
        if (!strcmp(key, "version") && r->has_version)
            return fail(r, IPFSRT_EBAD_ARGUMENT, "references: the name %s is given twice", key);
        r->has_version |= !strcmp(key, "version");
        r->v1_parts |= strcmp(key, "version") != 0;
        return 1;
    }
    r->entry_top = true; /* a key of version 0 (one of version 1 is not kept) */
    ipfsrt_status st = ipfsrt_refs_key(r->b, key, &r->entry);
    if (st != IPFSRT_OK) r->st = st;
    return st == IPFSRT_OK;
}

static const yajl_callbacks events = {on_null,    on_boolean, NULL,       NULL,           on_number,
                                      on_string,  on_start_map, on_map_key, on_end_map,   on_start_array,
                                      on_end_array};

static void reader_free(reader *r) {
    free(r->top_key);
    free(r->entry);
    free(r->tree_key);
    free(r->url);
    if (r->tree) cJSON_Delete(r->stack[0]);
}

/* yajl's own account of a syntax error, with where it stopped. */
static ipfsrt_status syntax_error(yajl_handle h, const char *json, size_t len, ipfsrt_error *err) {
    unsigned char *said = yajl_get_error(h, 0, (const unsigned char *)json, len);
    size_t at = yajl_get_bytes_consumed(h);
    ipfsrt_status st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, (int64_t)at, "references: not valid JSON at byte %zu: %s", at,
                                   said ? (const char *)said : "?");
    yajl_free_error(h, said);
    return st;
}

ipfsrt_status ipfsrt_refs_read_json(ipfsrt_refs_builder *b, const char *json, size_t len, int *version,
                                    cJSON **templates, cJSON **gen, bool *v1_parts) {
    reader r = {.b = b};
    yajl_handle h = yajl_alloc(&events, NULL, &r);
    if (!h) return ipfsrt_fail(b->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    yajl_status ys = yajl_parse(h, (const unsigned char *)json, len);
    if (ys == yajl_status_ok) ys = yajl_complete_parse(h);
    ipfsrt_status st = r.st;
    if (st == IPFSRT_OK && ys != yajl_status_ok) st = syntax_error(h, json, len, b->err);
    if (st == IPFSRT_OK && r.depth != 0) st = ipfsrt_fail(b->err, IPFSRT_EBAD_ARGUMENT, -1, "references: not a JSON object");
    yajl_free(h);
    reader_free(&r);
    *version = r.version;
    *v1_parts = r.v1_parts;
    *templates = r.templates;
    *gen = r.gen;
    return st;
}
