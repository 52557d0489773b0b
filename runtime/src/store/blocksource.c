/* Block sources: the one way UnixFS code gets verified blocks. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/blocksource.h"
#include "base/base_internal.h"

ipfsrt_status ipfsrt_blocksource_get(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                     ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(ref, err);
    memset(ref, 0, sizeof *ref);
    if (cid->hash_code == IPFSRT_MH_IDENTITY) { /* the CID carries its block */
        ref->data = cid->bytes + cid->digest_offset;
        ref->len = cid->digest_len;
        return IPFSRT_OK;
    }
    if (!IPFSRT_HAS_MEMBER(src, ipfsrt_blocksource, get))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                           "a block source without its size: set .size = sizeof (ipfsrt_blocksource)");
    return src->get(src->ctx, cid, ref, err);
}

void ipfsrt_blocksource_release(const ipfsrt_blocksource *src, ipfsrt_blocksource_ref *ref) {
    IPFSRT_NEED_OR(src, );
    IPFSRT_NEED_OR(ref, );
    /* a source made against an older, shorter struct has no release */
    if (ref->token && IPFSRT_HAS_MEMBER(src, ipfsrt_blocksource, release) && src->release) src->release(src->ctx, ref);
    memset(ref, 0, sizeof *ref);
}

typedef struct stored_block {
    uint8_t *data;
    size_t len;
} stored_block;

struct ipfsrt_memstore {
    ipfsrt_mhmap index; /* multihash -> position in blocks */
    stored_block *blocks;
    size_t count, cap;
};

ipfsrt_status ipfsrt_memstore_new(ipfsrt_memstore **out, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    *out = calloc(1, sizeof **out);
    if (!*out) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_mhmap_init(&(*out)->index);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_memstore_put(ipfsrt_memstore *m, const ipfsrt_cid *cid, const uint8_t *data,
                                  size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(m, err);
    IPFSRT_NEED(cid, err);
    ipfsrt_status st = ipfsrt_cid_verify(cid, data, len, err);
    if (st != IPFSRT_OK) return st;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    if (ipfsrt_mhmap_get(&m->index, mh, mh_len)) return IPFSRT_OK;
    if (ipfsrt_array_reserve(&m->blocks, &m->cap, m->count + 1, sizeof *m->blocks))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(copy, data, len);
    st = ipfsrt_mhmap_put(&m->index, mh, mh_len, m->count, 0, NULL);
    if (st != IPFSRT_OK) {
        free(copy);
        return ipfsrt_fail(err, st, -1, "out of memory");
    }
    m->blocks[m->count++] = (stored_block){copy, len};
    return IPFSRT_OK;
}

size_t ipfsrt_memstore_count(const ipfsrt_memstore *m) {
    IPFSRT_NEED_OR(m, 0);
    return m->count;
}

static ipfsrt_status mem_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                             ipfsrt_error *err) {
    ipfsrt_memstore *m = ctx;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    const ipfsrt_mhmap_entry *e = ipfsrt_mhmap_get(&m->index, mh, mh_len);
    if (!e) return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not in the block store");
    ref->data = m->blocks[e->offset].data;
    ref->len = m->blocks[e->offset].len;
    return IPFSRT_OK;
}

void ipfsrt_blocksource_memstore(ipfsrt_blocksource *src, ipfsrt_memstore *m) {
    IPFSRT_NEED_OR(src, );
    src->size = sizeof *src;
    src->ctx = m;
    src->get = mem_get;
    src->release = NULL; /* blocks live as long as the store */
}

void ipfsrt_memstore_free(ipfsrt_memstore *m) {
    if (!m) return;
    for (size_t i = 0; i < m->count; i++) free(m->blocks[i].data);
    free(m->blocks);
    ipfsrt_mhmap_free(&m->index);
    free(m);
}
