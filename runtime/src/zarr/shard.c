/* The sharding_indexed codec: its configuration (inner chunk shape and
 * codecs, the index's codecs and place) and the decoding of a shard's index,
 * checked before any inner chunk is read through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/zarr_internal.h"
#include "base/base_internal.h"

#define INDEX_ENTRIES_MAX ((size_t)1 << 24) /* inner chunks per shard: an index of 256 MiB at most */

static const cJSON *field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* The inner chunks: the shard's shape, cut by chunk_shape (which must divide it). */
static ipfsrt_status inner_shape(ipfsrt_zarr_meta *m, ipfsrt_zarr_meta *in, const cJSON *config, ipfsrt_error *err) {
    snprintf(in->name, sizeof in->name, "%.200s (inner chunks)", m->name);
    in->zarr_format = 3;
    in->ndim = m->ndim;
    in->dtype = m->dtype;
    in->itemsize = m->itemsize;
    in->stored_itemsize = m->stored_itemsize;
    in->float16 = m->float16;
    memcpy(in->shape, m->chunks, sizeof in->shape);
    ipfsrt_status st = ipfsrt_zarr_sizes(in, field(config, "chunk_shape"), "sharding chunk_shape", true, in->chunks, err);
    for (int d = 0; d < m->ndim && st == IPFSRT_OK; d++)
        if (m->chunks[d] % in->chunks[d] != 0)
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: the inner chunk shape does not divide the shard's in dimension %d",
                             m->name, d);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_check_sizes(in, err);
    size_t n = 1;
    for (int d = 0; d < in->ndim && st == IPFSRT_OK; d++) {
        n *= in->grid[d]; /* at most the shard's elements: no overflow */
        if (n > INDEX_ENTRIES_MAX)
            st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: more than %zu inner chunks per shard", m->name,
                             INDEX_ENTRIES_MAX);
    }
    return st;
}

/* The index must be fixed-size: bytes (either endian), then crc32c or nothing. */
static ipfsrt_status index_codecs(ipfsrt_zarr_meta *m, const cJSON *list, ipfsrt_error *err) {
    if (!cJSON_IsArray(list)) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: index_codecs must be a list", m->name);
    int i = 0;
    for (const cJSON *c = list->child; c; c = c->next, i++) {
        const cJSON *config;
        const char *name = ipfsrt_zarr_ext_name(c, &config);
        const cJSON *endian = field(config, "endian");
        if (i == 0 && name && strcmp(name, "bytes") == 0) {
            m->index_big_endian = cJSON_IsString(endian) && strcmp(endian->valuestring, "big") == 0;
        } else if (i == 1 && name && strcmp(name, "crc32c") == 0) {
            m->index_checksum = true;
        } else {
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: index codec %s is not supported (bytes, then "
                               "crc32c or nothing)", m->name, name ? name : "(unnamed)");
        }
    }
    if (i == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: index_codecs is empty", m->name);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_shard_parse(ipfsrt_zarr_meta *m, const cJSON *config, ipfsrt_error *err) {
    if (m->transposed || m->inner)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: a codec before sharding_indexed is not supported", m->name);
    ipfsrt_zarr_meta *in = ipfsrt_zarr_meta_alloc();
    if (!in) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    m->inner = in;
    ipfsrt_status st = inner_shape(m, in, config, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_v3_codecs(in, field(config, "codecs"), err);
    if (st == IPFSRT_OK && in->inner)
        st = ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: shards within shards are not supported", m->name);
    if (st == IPFSRT_OK) st = index_codecs(m, field(config, "index_codecs"), err);
    const cJSON *where = field(config, "index_location");
    if (st == IPFSRT_OK && where &&
        (!cJSON_IsString(where) || (strcmp(where->valuestring, "start") && strcmp(where->valuestring, "end"))))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: index_location must be \"start\" or \"end\"", m->name);
    m->index_at_start = st == IPFSRT_OK && where && strcmp(where->valuestring, "start") == 0;
    return st;
}

ipfsrt_status ipfsrt_zarr_shard_fill(ipfsrt_zarr_meta *m, ipfsrt_error *err) {
    m->inner->has_fill = m->has_fill;
    return ipfsrt_ndarray_copy(&m->inner->fill, &m->fill, err);
}

static size_t entries(const ipfsrt_zarr_meta *m) {
    size_t n = 1;
    for (int d = 0; d < m->ndim; d++) n *= m->inner->grid[d];
    return n;
}

size_t ipfsrt_zarr_shard_index_size(const ipfsrt_zarr_meta *m) {
    IPFSRT_NEED_OR(m, 0);
    return 16 * entries(m) + (m->index_checksum ? 4 : 0);
}

static uint64_t load_u64(const uint8_t *p, bool big) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[big ? i : 7 - i];
    return v;
}

/* The most bytes an inner chunk's encoding may take: its decoded size and
 * room for what the codecs add (headers, checksums, incompressible data). */
static uint64_t inner_cap(const ipfsrt_zarr_meta *m) {
    uint64_t due = m->inner->stored_itemsize;
    for (int d = 0; d < m->ndim; d++) due *= m->inner->chunks[d];
    return due + due / 2 + 65536;
}

ipfsrt_status ipfsrt_zarr_shard_index_decode(const ipfsrt_zarr_meta *m, const void *src, size_t len, uint64_t *pairs,
                                             ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    IPFSRT_NEED(pairs, err);
    size_t n = entries(m), size = ipfsrt_zarr_shard_index_size(m);
    const uint8_t *p = src;
    if (len != size)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "a shard index of %zu bytes where %zu are due", len, size);
    if (m->index_checksum) {
        uint32_t stored = (uint32_t)p[16 * n] | (uint32_t)p[16 * n + 1] << 8 | (uint32_t)p[16 * n + 2] << 16 |
                          (uint32_t)p[16 * n + 3] << 24;
        if (ipfsrt_crc32c(0, p, 16 * n) != stored)
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)(16 * n), "the shard index fails its CRC-32C");
    }
    uint64_t cap = inner_cap(m);
    for (size_t i = 0; i < n; i++) {
        uint64_t off = load_u64(p + 16 * i, m->index_big_endian), nbytes = load_u64(p + 16 * i + 8, m->index_big_endian);
        pairs[2 * i] = off;
        pairs[2 * i + 1] = nbytes;
        if (off == UINT64_MAX && nbytes == UINT64_MAX) continue; /* empty: the fill value */
        if (nbytes > cap || off > UINT64_MAX - nbytes)
            return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, (int64_t)(16 * i),
                               "shard index entry %zu claims %llu bytes at %llu (an inner chunk holds at most %llu)", i,
                               (unsigned long long)nbytes, (unsigned long long)off, (unsigned long long)cap);
    }
    return IPFSRT_OK;
}

/* Inner chunk e (its place in the index) of the shard in dst. */
static ipfsrt_status decode_inner(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len, const uint64_t *pairs,
                                  size_t e, ipfsrt_ndarray *dst, ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    const ipfsrt_zarr_meta *in = m->inner;
    size_t rest = e, zeros[IPFSRT_NDARRAY_MAX_DIMS] = {0}, ones[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_ndarray region = *dst;
    region.buffer = NULL;
    for (int d = in->ndim; d-- > 0;) {
        size_t i = rest % in->grid[d];
        rest /= in->grid[d];
        region.data += (ptrdiff_t)(i * in->chunks[d]) * dst->strides[d];
        region.shape[d] = in->chunks[d];
        ones[d] = 1;
    }
    uint64_t off = pairs[2 * e], n = pairs[2 * e + 1];
    if (off == UINT64_MAX) return ipfsrt_zarr_fill_region(in, &region, s, err);
    if (off > len || n > len - off)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "inner chunk %zu lies past the shard's %zu bytes", e, len);
    ipfsrt_status st = ipfsrt_zarr_decode_into(in, src + off, (size_t)n, &region, zeros, ones, s, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "inner chunk %zu: ", e);
    return st;
}

ipfsrt_status ipfsrt_zarr_decode_shard(const ipfsrt_zarr_meta *m, const uint8_t *src, size_t len, ipfsrt_ndarray *dst,
                                       ipfsrt_zarr_scratch *s, ipfsrt_error *err) {
    size_t size = ipfsrt_zarr_shard_index_size(m), n = entries(m);
    if (len < size) return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "a shard of %zu bytes, shorter than its index", len);
    uint64_t *pairs = malloc(16 * n);
    if (!pairs) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = ipfsrt_zarr_shard_index_decode(m, m->index_at_start ? src : src + len - size, size, pairs, err);
    for (size_t e = 0; e < n && st == IPFSRT_OK; e++) st = decode_inner(m, src, len, pairs, e, dst, s, err);
    free(pairs);
    return st;
}
