#include <stdlib.h>
#include <string.h>

#include "ipfsrt/buf.h"
#include "base/base_internal.h"

void ipfsrt_buf_init(ipfsrt_buf *b) {
    IPFSRT_NEED_OR(b, );
    memset(b, 0, sizeof *b);
}

void ipfsrt_buf_free(ipfsrt_buf *b) {
    IPFSRT_NEED_OR(b, );
    free(b->data);
    memset(b, 0, sizeof *b);
}

uint8_t *ipfsrt_buf_reserve(ipfsrt_buf *b, size_t n) {
    IPFSRT_NEED_OR(b, NULL);
    if (b->failed) return NULL;
    if (n > SIZE_MAX - b->len) {
        b->failed = true;
        return NULL;
    }
    if (b->len + n > b->cap || !b->data) { /* never NULL back, even for 0 bytes */
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) {
            if (cap > SIZE_MAX / 2) {
                cap = b->len + n;
                break;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(b->data, cap);
        if (!p) {
            b->failed = true;
            return NULL;
        }
        b->data = p;
        b->cap = cap;
    }
    return b->data + b->len;
}

void ipfsrt_buf_append(ipfsrt_buf *b, const void *data, size_t n) {
    IPFSRT_NEED_OR(b, );
    if (b->failed || n == 0) return;
    uint8_t *at = ipfsrt_buf_reserve(b, n);
    if (!at) return;
    memcpy(at, data, n);
    b->len += n;
}
