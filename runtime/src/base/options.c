/* Option structs that can grow: each starts with its size, set by its _init
 * (or a designated initializer's .size = sizeof), so that a host built
 * against an older header passes a shorter struct and a newer one a longer
 * one, and the library reads neither past its end nor fields it does not
 * know of. */
#include <string.h>

#include "base/base_internal.h"

ipfsrt_status ipfsrt_options_take(void *mine, size_t my_size, const void *theirs, const char *init_name,
                                  ipfsrt_error *err) {
    size_t their_size;
    memcpy(&their_size, theirs, sizeof their_size);
    if (their_size < sizeof their_size)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "options without their size: fill them with %s first", init_name);
    if (their_size > my_size) { /* a newer header's: its fields past ours must be unset */
        const unsigned char *extra = (const unsigned char *)theirs + my_size;
        for (size_t i = 0; i < their_size - my_size; i++)
            if (extra[i])
                return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                                   "options set a field this ipfsrt does not know (%zu bytes given, %zu known)",
                                   their_size, my_size);
    }
    size_t n = their_size < my_size ? their_size : my_size;
    memcpy((unsigned char *)mine + sizeof my_size, (const unsigned char *)theirs + sizeof my_size,
           n - sizeof my_size);
    return IPFSRT_OK;
}
