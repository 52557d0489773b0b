/* libFuzzer target: Zarr metadata (v2 .zarray with .zattrs, v3 zarr.json) on
 * any bytes, then a chunk (or shard, and its index) decoded with whatever
 * metadata parsed. Input: a mode byte (bit 0: v2 or v3), the metadata, a NUL,
 * then the chunk's bytes. Chunks the metadata makes huge are not decoded (the
 * fuzzer's memory is small; the size checks themselves are exercised by the
 * parse). */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/zarr.h"

#define DECODE_MAX ((size_t)4 << 20)

static size_t chunk_bytes(const ipfsrt_zarr_meta *m) {
    size_t n = ipfsrt_zarr_meta_itemsize(m);
    for (int d = 0; d < ipfsrt_zarr_meta_ndim(m); d++) n *= ipfsrt_zarr_meta_chunks(m)[d]; /* checked at parse time */
    return n;
}

static void try_chunk(const ipfsrt_zarr_meta *m, const uint8_t *data, size_t size) {
    if (chunk_bytes(m) > DECODE_MAX) return;
    size_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    ipfsrt_ndarray out;
    ipfsrt_ndarray_init(&out);
    ipfsrt_error err;
    if (ipfsrt_zarr_decode_chunk(m, index, data, size, &out, &err) == IPFSRT_OK) {
        if (ipfsrt_ndarray_size(&out) * out.itemsize != chunk_bytes(m)) abort();
    } else if (err.message[0] == '\0') {
        abort(); /* every error says what went wrong */
    }
    ipfsrt_ndarray_free(&out);
    if (ipfsrt_zarr_meta_inner(m)) {
        size_t n = ipfsrt_zarr_shard_index_size(m);
        uint64_t *pairs = n <= size ? malloc(n) : NULL;
        if (pairs) ipfsrt_zarr_shard_index_decode(m, data + size - n, n, pairs, NULL);
        free(pairs);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int format = data[0] & 1 ? 3 : 2;
    const uint8_t *json = data + 1, *nul = memchr(json, 0, size - 1);
    size_t json_len = nul ? (size_t)(nul - json) : size - 1;
    ipfsrt_zarr_meta *m = NULL;
    ipfsrt_error err;
    if (ipfsrt_zarr_meta_parse(&m, (const char *)json, json_len, format, "fuzz", &err) != IPFSRT_OK) {
        if (m || err.message[0] == '\0') abort();
        return 0;
    }
    if (format == 2) ipfsrt_zarr_meta_set_attributes(m, (const char *)json, json_len, NULL);
    size_t index[IPFSRT_NDARRAY_MAX_DIMS] = {0};
    char key[512];
    ipfsrt_zarr_chunk_key(m, index, key, sizeof key, NULL);
    if (nul) try_chunk(m, nul + 1, size - json_len - 2);
    ipfsrt_zarr_meta_free(m);
    return 0;
}
