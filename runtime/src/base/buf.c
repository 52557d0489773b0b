#include <stdlib.h>
#include <string.h>

#include "ipfsrt/buf.h"

void ipfsrt_buf_init(ipfsrt_buf *b) { memset(b, 0, sizeof *b); }

void ipfsrt_buf_free(ipfsrt_buf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

void ipfsrt_buf_append(ipfsrt_buf *b, const void *data, size_t n) {
    if (b->failed || n == 0) return;
    if (n > SIZE_MAX - b->len) {
        b->failed = true;
        return;
    }
    if (b->len + n > b->cap) {
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
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
}
