/* What the ndarray files share; not public. */
#ifndef IPFSRT_NDARRAY_INTERNAL_H
#define IPFSRT_NDARRAY_INTERNAL_H

#include "ipfsrt/ndarray.h"

struct ipfsrt_ndbuffer {
    size_t refs;
    size_t size;
    _Alignas(16) unsigned char data[];
};

/* A new buffer of size bytes, zeroed, with one reference. */
ipfsrt_ndbuffer *ipfsrt_ndbuffer_new(size_t size);
void ipfsrt_ndbuffer_unref(ipfsrt_ndbuffer *b);

/* Stores v (already checked to fit) into the element at p. */
void ipfsrt_ndstore_double(ipfsrt_dtype dtype, unsigned char *p, double v);
/* Whether v fits dtype exactly enough to store: integers in range (floats
 * truncate toward zero), no NaN or infinity into integers. */
ipfsrt_status ipfsrt_ndcheck_double(ipfsrt_dtype dtype, double v, ipfsrt_error *err);

/* Calls fn for each element of a in C order (offsets from a->data). */
void ipfsrt_ndarray_each(const ipfsrt_ndarray *a, void (*fn)(void *user, unsigned char *p),
                         void *user);

#endif
