#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void ipfsrt_mhmap_init(ipfsrt_mhmap *m) { memset(m, 0, sizeof *m); }

void ipfsrt_mhmap_free(ipfsrt_mhmap *m) {
    for (size_t i = 0; i < m->cap; i++) free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static ipfsrt_mhmap_entry *find_slot(ipfsrt_mhmap_entry *slots, size_t cap, const uint8_t *key,
                                     size_t key_len, uint64_t h) {
    size_t i = (size_t)h & (cap - 1);
    for (;;) {
        ipfsrt_mhmap_entry *e = &slots[i];
        if (!e->key) return e;
        if (e->hash == h && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) return e;
        i = (i + 1) & (cap - 1);
    }
}

static ipfsrt_status grow(ipfsrt_mhmap *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    ipfsrt_mhmap_entry *slots = calloc(cap, sizeof *slots);
    if (!slots) return IPFSRT_EOUT_OF_MEMORY;
    for (size_t i = 0; i < m->cap; i++) {
        ipfsrt_mhmap_entry *e = &m->slots[i];
        if (e->key) *find_slot(slots, cap, e->key, e->key_len, e->hash) = *e;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_mhmap_slot(ipfsrt_mhmap *m, const uint8_t *key, size_t key_len,
                                ipfsrt_mhmap_entry **out, bool *inserted) {
    if ((m->count + 1) * 10 > m->cap * 7) {
        ipfsrt_status st = grow(m);
        if (st != IPFSRT_OK) return st;
    }
    uint64_t h = fnv1a(key, key_len);
    ipfsrt_mhmap_entry *e = find_slot(m->slots, m->cap, key, key_len, h);
    *out = e;
    if (inserted) *inserted = !e->key;
    if (e->key) return IPFSRT_OK;
    e->key = malloc(key_len ? key_len : 1);
    if (!e->key) return IPFSRT_EOUT_OF_MEMORY;
    memcpy(e->key, key, key_len);
    e->key_len = (uint32_t)key_len;
    e->hash = h;
    e->offset = 0;
    e->len = 0;
    m->count++;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_mhmap_put(ipfsrt_mhmap *m, const uint8_t *key, size_t key_len,
                               uint64_t offset, uint32_t len, bool *inserted) {
    ipfsrt_mhmap_entry *e;
    bool added;
    ipfsrt_status st = ipfsrt_mhmap_slot(m, key, key_len, &e, &added);
    if (st == IPFSRT_OK && added) {
        e->offset = offset;
        e->len = len;
    }
    if (inserted) *inserted = st == IPFSRT_OK && added;
    return st;
}

const ipfsrt_mhmap_entry *ipfsrt_mhmap_get(const ipfsrt_mhmap *m, const uint8_t *key,
                                           size_t key_len) {
    if (!m->cap) return NULL;
    const ipfsrt_mhmap_entry *e =
        find_slot(m->slots, m->cap, key, key_len, fnv1a(key, key_len));
    return e->key ? e : NULL;
}
