/* CARv2 indexes (IndexSorted, MultihashIndexSorted) read in place: buckets of
 * sorted digests with their sections' offsets, searched by binary search. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/multihash.h"
#include "ipfsrt/varint.h"
#include "car/car_internal.h"

#define INDEX_SORTED 0x0400
#define INDEX_MULTIHASH_SORTED 0x0401

typedef struct bucket {
    uint32_t width; /* digest length + 8 */
    const uint8_t *entries;
    uint64_t count;
} bucket;

struct ipfsrt_car_index_group {
    uint64_t code; /* multihash code; UINT64_MAX for IndexSorted, which has none */
    bucket *buckets;
    size_t bucket_count;
};

void ipfsrt_car_index_init(ipfsrt_car_index *ix) { memset(ix, 0, sizeof *ix); }

void ipfsrt_car_index_free(ipfsrt_car_index *ix) {
    for (size_t i = 0; i < ix->group_count; i++) free(ix->groups[i].buckets);
    free(ix->groups);
    ipfsrt_car_index_init(ix);
}

/* An IndexSorted body at *pp (bounded by end); entries must be sorted so that
 * lookups can binary-search them, and point inside the payload. */
static bool parse_sorted(const uint8_t **pp, const uint8_t *end, struct ipfsrt_car_index_group *g,
                         uint64_t data_size) {
    const uint8_t *p = *pp;
    if (end - p < 4) return false;
    uint32_t n = ipfsrt_le32(p);
    p += 4;
    if (n > (uint32_t)((end - p) / 12)) return false;
    g->buckets = n ? calloc(n, sizeof *g->buckets) : NULL;
    if (n && !g->buckets) return false;
    g->bucket_count = n;
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 12) return false;
        bucket *b = &g->buckets[i];
        b->width = ipfsrt_le32(p);
        uint64_t bytes = ipfsrt_le64(p + 4);
        p += 12;
        if (b->width <= 8 || b->width > 8 + IPFSRT_MH_MAX_DIGEST || bytes % b->width || bytes > (uint64_t)(end - p))
            return false;
        b->entries = p;
        b->count = bytes / b->width;
        size_t dlen = b->width - 8;
        for (uint64_t k = 0; k < b->count; k++) {
            const uint8_t *e = p + k * b->width;
            if (ipfsrt_le64(e + dlen) >= data_size) return false;
            if (k > 0 && memcmp(e - b->width, e, dlen) > 0) return false;
        }
        p += bytes;
    }
    *pp = p;
    return true;
}

static bool parse(ipfsrt_car_index *ix, const uint8_t *p, const uint8_t *end, uint64_t data_size) {
    uint64_t codec;
    size_t used;
    if (ipfsrt_varint_decode(p, (size_t)(end - p), &codec, &used, NULL) != IPFSRT_OK) return false;
    p += used;
    if (codec == INDEX_SORTED) {
        if (!(ix->groups = calloc(1, sizeof *ix->groups))) return false;
        ix->group_count = 1;
        ix->groups[0].code = UINT64_MAX;
        return parse_sorted(&p, end, &ix->groups[0], data_size);
    }
    if (codec != INDEX_MULTIHASH_SORTED || end - p < 4) return false;
    uint32_t n = ipfsrt_le32(p);
    p += 4;
    if (n > (uint32_t)((end - p) / 12)) return false;
    ix->groups = n ? calloc(n, sizeof *ix->groups) : NULL;
    if (n && !ix->groups) return false;
    ix->group_count = n;
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 8) return false;
        ix->groups[i].code = ipfsrt_le64(p);
        p += 8;
        if (!parse_sorted(&p, end, &ix->groups[i], data_size)) return false;
    }
    return true;
}

bool ipfsrt_car_index_parse(ipfsrt_car_index *ix, const uint8_t *bytes, size_t len, uint64_t data_size) {
    ipfsrt_car_index_free(ix);
    if (parse(ix, bytes, bytes + len, data_size)) return true;
    ipfsrt_car_index_free(ix);
    return false;
}

bool ipfsrt_car_index_find(const ipfsrt_car_index *ix, const ipfsrt_cid *cid, uint64_t *offset) {
    const uint8_t *digest = cid->bytes + cid->digest_offset;
    size_t dlen = cid->digest_len;
    for (size_t g = 0; g < ix->group_count; g++) {
        const struct ipfsrt_car_index_group *gr = &ix->groups[g];
        if (gr->code != UINT64_MAX && gr->code != cid->hash_code) continue;
        for (size_t b = 0; b < gr->bucket_count; b++) {
            const bucket *bk = &gr->buckets[b];
            if (bk->width != dlen + 8) continue;
            uint64_t lo = 0, hi = bk->count;
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                const uint8_t *e = bk->entries + mid * bk->width;
                int c = memcmp(e, digest, dlen);
                if (c == 0) {
                    *offset = ipfsrt_le64(e + dlen);
                    return true;
                }
                if (c < 0) lo = mid + 1;
                else hi = mid;
            }
        }
    }
    return false;
}

ipfsrt_status ipfsrt_car_index_each(const ipfsrt_car_index *ix, ipfsrt_car_index_entry_fn fn, void *user,
                                    ipfsrt_error *err) {
    for (size_t g = 0; g < ix->group_count; g++)
        for (size_t b = 0; b < ix->groups[g].bucket_count; b++) {
            const bucket *bk = &ix->groups[g].buckets[b];
            size_t dlen = bk->width - 8;
            for (uint64_t k = 0; k < bk->count; k++) {
                const uint8_t *e = bk->entries + k * bk->width;
                ipfsrt_status st = fn(user, ix->groups[g].code, e, dlen, ipfsrt_le64(e + dlen), err);
                if (st != IPFSRT_OK) return st;
            }
        }
    return IPFSRT_OK;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

ipfsrt_status ipfsrt_car_index_offsets(const ipfsrt_car_index *ix, uint64_t **out, size_t *n, ipfsrt_error *err) {
    size_t total = 0, at = 0;
    for (size_t g = 0; g < ix->group_count; g++)
        for (size_t b = 0; b < ix->groups[g].bucket_count; b++) total += (size_t)ix->groups[g].buckets[b].count;
    uint64_t *v = malloc((total ? total : 1) * sizeof *v);
    if (!v) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu index entries", total);
    for (size_t g = 0; g < ix->group_count; g++)
        for (size_t b = 0; b < ix->groups[g].bucket_count; b++) {
            const bucket *bk = &ix->groups[g].buckets[b];
            for (uint64_t k = 0; k < bk->count; k++) v[at++] = ipfsrt_le64(bk->entries + k * bk->width + bk->width - 8);
        }
    qsort(v, total, sizeof *v, by_value);
    *out = v;
    *n = total;
    return IPFSRT_OK;
}

/* ---------------------------------------------------------------- writing */

typedef struct index_entry {
    uint64_t code;
    const uint8_t *digest;
    size_t digest_len;
    uint64_t offset;
} index_entry;

static int entry_cmp(const void *a, const void *b) {
    const index_entry *x = a, *y = b;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    if (x->digest_len != y->digest_len) return x->digest_len < y->digest_len ? -1 : 1;
    return memcmp(x->digest, y->digest, x->digest_len);
}

/* MultihashIndexSorted as go-car writes it: groups by hash code, buckets by width,
 * entries (digest | LE offset) sorted bytewise within a bucket. */
ipfsrt_status ipfsrt_car_index_build(const ipfsrt_mhmap *offsets, ipfsrt_buf *out, ipfsrt_error *err) {
    size_t n = offsets->count;
    index_entry *entries = n ? calloc(n, sizeof *entries) : NULL;
    if (n && !entries) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < offsets->cap; i++) {
        const ipfsrt_mhmap_entry *e = &offsets->slots[i];
        if (!e->key) continue;
        ipfsrt_multihash mh;
        ipfsrt_multihash_parse(e->key, e->key_len, &mh, NULL, NULL);
        entries[k++] = (index_entry){mh.code, mh.digest, mh.digest_len, e->offset};
    }
    if (n > 1) qsort(entries, n, sizeof *entries, entry_cmp);
    uint8_t tmp[12];
    uint8_t v[IPFSRT_VARINT_MAX_BYTES];
    ipfsrt_buf_append(out, v, ipfsrt_varint_encode(INDEX_MULTIHASH_SORTED, v));
    uint32_t groups = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || entries[i].code != entries[i - 1].code) groups++;
    ipfsrt_put_le32(tmp, groups);
    ipfsrt_buf_append(out, tmp, 4);
    for (size_t g = 0; g < n;) {
        size_t g_end = g;
        while (g_end < n && entries[g_end].code == entries[g].code) g_end++;
        ipfsrt_put_le64(tmp, entries[g].code);
        ipfsrt_buf_append(out, tmp, 8);
        uint32_t buckets = 0;
        for (size_t i = g; i < g_end; i++)
            if (i == g || entries[i].digest_len != entries[i - 1].digest_len) buckets++;
        ipfsrt_put_le32(tmp, buckets);
        ipfsrt_buf_append(out, tmp, 4);
        for (size_t b = g; b < g_end;) {
            size_t b_end = b;
            while (b_end < g_end && entries[b_end].digest_len == entries[b].digest_len) b_end++;
            uint32_t width = (uint32_t)entries[b].digest_len + 8;
            ipfsrt_put_le32(tmp, width);
            ipfsrt_put_le64(tmp + 4, (uint64_t)width * (b_end - b));
            ipfsrt_buf_append(out, tmp, 12);
            for (size_t i = b; i < b_end; i++) {
                ipfsrt_buf_append(out, entries[i].digest, entries[i].digest_len);
                ipfsrt_put_le64(tmp, entries[i].offset);
                ipfsrt_buf_append(out, tmp, 8);
            }
            b = b_end;
        }
        g = g_end;
    }
    free(entries);
    return out->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

