/* The shape of a UnixFS HAMT directory shard, shared by the reader (unixfs.c)
 * and the importer (pack.c) so that both agree on every bucket name. */
#ifndef IPFSRT_HAMT_H
#define IPFSRT_HAMT_H

#include <stdbool.h>
#include <stdint.h>

#define IPFSRT_HAMT_HASH_MURMUR3 0x22 /* the only hash function UnixFS shards use */
#define IPFSRT_HAMT_MAX_FANOUT 1024
#define IPFSRT_HAMT_PREFIX_MAX 3 /* hex digits of a bucket at the largest fanout */

typedef struct ipfsrt_hamt_shape {
    uint64_t fanout;
    unsigned bits;       /* hash bits used per level */
    unsigned width;      /* hex digits naming a bucket: those of fanout - 1 */
} ipfsrt_hamt_shape;

/* False unless fanout is a power of two from 2 to IPFSRT_HAMT_MAX_FANOUT. */
bool ipfsrt_hamt_shape_init(ipfsrt_hamt_shape *h, uint64_t fanout);

/* Whether a shard at depth (0 = the root) still has hash bits to use. */
static inline bool ipfsrt_hamt_depth_ok(const ipfsrt_hamt_shape *h, unsigned depth) {
    return (uint64_t)(depth + 1) * h->bits <= 64;
}

/* The bucket a name's hash falls in at depth; needs ipfsrt_hamt_depth_ok. */
static inline uint64_t ipfsrt_hamt_bucket(const ipfsrt_hamt_shape *h, uint64_t hash, unsigned depth) {
    return (hash >> (64 - (depth + 1) * h->bits)) & (h->fanout - 1);
}

/* The bucket's name: width upper-case hex digits. */
void ipfsrt_hamt_prefix(const ipfsrt_hamt_shape *h, uint64_t bucket,
                        char out[IPFSRT_HAMT_PREFIX_MAX + 1]);

#endif
