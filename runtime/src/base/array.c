/* Growable arrays of structs: one place that doubles, and checks the sizes
 * before they are multiplied. */
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"

ipfsrt_status ipfsrt_array_reserve(void *items_ptr, size_t *cap, size_t need, size_t elem_size) {
    if (need <= *cap) return IPFSRT_OK;
    size_t grown = *cap ? *cap : 16;
    while (grown < need) grown = grown > SIZE_MAX / 2 ? need : grown * 2;
    if (elem_size && grown > SIZE_MAX / elem_size) return IPFSRT_EOUT_OF_MEMORY;
    void *items;
    memcpy(&items, items_ptr, sizeof items); /* items_ptr is a T **: any object pointer */
    void *p = realloc(items, grown * elem_size);
    if (!p) return IPFSRT_EOUT_OF_MEMORY;
    memcpy(items_ptr, &p, sizeof p);
    *cap = grown;
    return IPFSRT_OK;
}
