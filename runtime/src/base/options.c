/* Structs a caller fills that can grow (options, callback tables): each
 * starts with its size, set by its _init (or a designated initializer's
 * .size = sizeof), so that a host built against an older header passes a
 * shorter struct and a newer one a longer one, and the library reads neither
 * past its end nor fields it does not know of. */
#include <stdio.h>
#include <string.h>

#include "base/base_internal.h"

static ipfsrt_status take(void *mine, size_t my_size, const void *theirs, const char *what, const char *init_name,
                          ipfsrt_error *err) {
    size_t their_size;
    memcpy(&their_size, theirs, sizeof their_size);
    if (their_size < sizeof their_size)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s without its size: fill it with %s first", what,
                           init_name);
    if (their_size > my_size) { /* a newer header's: its fields past ours must be unset */
        const unsigned char *extra = (const unsigned char *)theirs + my_size;
        for (size_t i = 0; i < their_size - my_size; i++)
            if (extra[i])
                return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                                   "%s set a field this ipfsrt does not know (%zu bytes given, %zu known)", what,
                                   their_size, my_size);
    }
    size_t n = their_size < my_size ? their_size : my_size;
    memcpy((unsigned char *)mine + sizeof my_size, (const unsigned char *)theirs + sizeof my_size,
           n - sizeof my_size);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_options_take(void *mine, size_t my_size, const void *theirs, const char *init_name,
                                  ipfsrt_error *err) {
    return take(mine, my_size, theirs, "options", init_name, err);
}

void ipfsrt_stats_hand_over(void *theirs, const void *mine, size_t my_size) {
    size_t their_size;
    memcpy(&their_size, theirs, sizeof their_size);
    size_t n = their_size < my_size ? their_size : my_size;
    if (n > sizeof their_size)
        memcpy((unsigned char *)theirs + sizeof their_size, (const unsigned char *)mine + sizeof their_size,
               n - sizeof their_size);
}

ipfsrt_status ipfsrt_callbacks_take(void *mine, size_t my_size, const void *theirs, const char *type_name,
                                    ipfsrt_error *err) {
    memset(mine, 0, my_size);
    memcpy(mine, &my_size, sizeof my_size);
    char init[96];
    snprintf(init, sizeof init, ".size = sizeof (%s)", type_name);
    return take(mine, my_size, theirs, type_name, init, err);
}
