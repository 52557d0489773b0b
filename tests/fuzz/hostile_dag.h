/* Hostile DAGs for the fuzz targets that walk them (fuzz_unixfs, fuzz_patch):
 * the input is blocks separated by "\n--\n"; a link to CID c leads to block
 * (first digest byte of c) mod n, so any shape can be built without hashes. */
#ifndef IPFSRT_FUZZ_HOSTILE_DAG_H
#define IPFSRT_FUZZ_HOSTILE_DAG_H

#include <string.h>

#include "ipfsrt.h"

#define MAX_BLOCKS 64

typedef struct blocks {
    const uint8_t *data[MAX_BLOCKS];
    size_t len[MAX_BLOCKS];
    size_t n;
} blocks;

/* Not a verifying source: the walker's own checks are what is under test. */
static inline ipfsrt_status hostile_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                        ipfsrt_error *err) {
    blocks *b = ctx;
    if (cid->codec == IPFSRT_CODEC_RAW && cid->digest_len && cid->bytes[cid->digest_offset] == 0xff)
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "absent");
    size_t k = cid->digest_len ? cid->bytes[cid->digest_offset] % b->n : 0;
    ref->data = b->data[k];
    ref->len = b->len[k];
    ref->token = NULL;
    return IPFSRT_OK;
}

static inline void hostile_split(const uint8_t *data, size_t size, blocks *b) {
    b->n = 0;
    const uint8_t *p = data, *end = data + size;
    while (b->n < MAX_BLOCKS) {
        const uint8_t *sep = size >= 4 ? memmem(p, (size_t)(end - p), "\n--\n", 4) : NULL;
        b->data[b->n] = p;
        b->len[b->n++] = sep ? (size_t)(sep - p) : (size_t)(end - p);
        if (!sep) break;
        p = sep + 4;
    }
}

#endif
