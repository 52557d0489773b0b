#include <stdio.h>

#include "unixfs/hamt.h"

bool ipfsrt_hamt_shape_init(ipfsrt_hamt_shape *h, uint64_t fanout) {
    if (fanout < 2 || fanout > IPFSRT_HAMT_MAX_FANOUT || (fanout & (fanout - 1))) return false;
    h->fanout = fanout;
    h->bits = 0;
    while ((1ull << h->bits) < fanout) h->bits++;
    h->width = (h->bits + 3) / 4;
    return true;
}

void ipfsrt_hamt_prefix(const ipfsrt_hamt_shape *h, uint64_t bucket,
                        char out[IPFSRT_HAMT_PREFIX_MAX + 1]) {
    snprintf(out, IPFSRT_HAMT_PREFIX_MAX + 1, "%0*llX", (int)h->width, (unsigned long long)bucket);
}
