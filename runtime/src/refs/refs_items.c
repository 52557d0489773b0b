/* What the makers and the joiner write alike: chunk keys, metadata as JSON
 * text, numbers as Zarr v2 writes them, and a reference's values: bytes
 * inline as "base64:...", a [target, offset, length]
 * range, or a chunk as either (small ones read from the file and inline). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/multibase.h"
#include "refs/make_internal.h"

cJSON *ipfsrt_refs_inline_item(const uint8_t *data, size_t len) {
    if (len > SIZE_MAX / 2) return NULL;
    size_t room = (len + 2) / 3 * 4 + 1;
    char *text = malloc(room + 7);
    if (!text) return NULL;
    memcpy(text, "base64:", 7);
    ipfsrt_error e;
    if (ipfsrt_base_encode(IPFSRT_BASE64PAD, data, len, text + 7, room, NULL, &e) != IPFSRT_OK) {
        free(text);
        return NULL;
    }
    cJSON *item = cJSON_CreateString(text);
    free(text);
    return item;
}

cJSON *ipfsrt_refs_range_item(const char *target, uint64_t offset, uint64_t length) {
    cJSON *item = cJSON_CreateArray();
    if (item && (!cJSON_AddItemToArray(item, cJSON_CreateString(target)) ||
                 !cJSON_AddItemToArray(item, cJSON_CreateNumber((double)offset)) ||
                 !cJSON_AddItemToArray(item, cJSON_CreateNumber((double)length)))) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

cJSON *ipfsrt_refs_chunk_item(FILE *raw, const char *target, uint64_t offset, uint64_t length, uint64_t threshold,
                              ipfsrt_error *err) {
    if (!raw || length > threshold) {
        cJSON *item = ipfsrt_refs_range_item(target, offset, length);
        if (!item) ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        return item;
    }
    uint8_t *buf = malloc(length + 1);
    cJSON *item = NULL;
    if (!buf) ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    else if (fseeko(raw, (off_t)offset, SEEK_SET) != 0 || fread(buf, 1, length, raw) != length)
        ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: cannot read %llu bytes at %llu", target, (unsigned long long)length,
                    (unsigned long long)offset);
    else if (!(item = ipfsrt_refs_inline_item(buf, length)))
        ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    free(buf);
    return item;
}

bool ipfsrt_refs_chunk_key(char *key, size_t size, const char *path, size_t rank, const uint64_t *index) {
    int n = snprintf(key, size, "%s%s%s", path, *path ? "/" : "", rank ? "" : "0");
    for (size_t d = 0; d < rank && n > 0 && (size_t)n < size; d++)
        n += snprintf(key + n, size - (size_t)n, "%s%llu", d ? "." : "", (unsigned long long)index[d]);
    return n > 0 && (size_t)n < size;
}

bool ipfsrt_refs_put_meta(cJSON *refs, const char *key, cJSON *doc) {
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON *item = text ? cJSON_CreateString(text) : NULL;
    bool put = item && cJSON_AddItemToObject(refs, key, item);
    if (!put) cJSON_Delete(item);
    free(text);
    cJSON_Delete(doc);
    return put;
}

cJSON *ipfsrt_refs_number(double v) {
    if (isnan(v)) return cJSON_CreateString("NaN");
    if (isinf(v)) return cJSON_CreateString(v > 0 ? "Infinity" : "-Infinity");
    return cJSON_CreateNumber(v);
}
