/* libFuzzer target: JSON documents (Zarr metadata, attributes) through
 * ipfsrt_json_parse and ipfsrt_json_print. Properties: a document printed and
 * parsed again is the same document, every number the same (integers to the
 * last digit, by ipfsrt_json_integer), and printing is a fixed point after one
 * round (the tree is left as it was). */
#include <stdlib.h>
#include <string.h>

#include "base/json_internal.h"

/* Two trees of one shape: the same types, keys and strings, each number the
 * same text (so the same exact integer, the same double, 1e400 and -0 too). */
static void same_tree(const cJSON *a, const cJSON *b) {
    for (; a && b; a = a->next, b = b->next) {
        if ((a->type & 0xFF) != (b->type & 0xFF)) abort();
        if ((a->string || b->string) && (!a->string || !b->string || strcmp(a->string, b->string))) abort();
        if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring)) abort();
        if (cJSON_IsNumber(a) && (!a->valuestring || !b->valuestring || strcmp(a->valuestring, b->valuestring)) &&
            a->valuedouble != b->valuedouble)
            abort();
        bool na, nb;
        uint64_t ma, mb;
        bool ia = ipfsrt_json_integer(a, &na, &ma), ib = ipfsrt_json_integer(b, &nb, &mb);
        if (ia != ib || (ia && ma != mb) || (ia && ma && na != nb)) abort();
        same_tree(a->child, b->child);
    }
    if (a || b) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *doc = ipfsrt_json_parse((const char *)data, size, NULL);
    if (!doc) return 0;
    for (int pretty = 0; pretty < 2; pretty++) {
        char *text = ipfsrt_json_print(doc, pretty);
        if (!text) break;
        cJSON *again = ipfsrt_json_parse(text, strlen(text), NULL);
        if (!again) abort();
        same_tree(doc, again);
        char *twice = ipfsrt_json_print(again, pretty); /* a fixed point after one round */
        if (!twice || strcmp(text, twice) != 0) abort();
        cJSON_free(twice);
        cJSON_Delete(again);
        cJSON_free(text);
    }
    cJSON_Delete(doc);
    return 0;
}
