/* ipfsrt — a growable byte buffer. */
#ifndef IPFSRT_BUF_H
#define IPFSRT_BUF_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable output buffer for the encoder. */
typedef struct ipfsrt_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed; /* an allocation failed; later writes are ignored */
} ipfsrt_buf;

IPFSRT_API void ipfsrt_buf_init(ipfsrt_buf *b);
IPFSRT_API void ipfsrt_buf_free(ipfsrt_buf *b);
IPFSRT_API void ipfsrt_buf_append(ipfsrt_buf *b, const void *data, size_t n);
/* Room for n more bytes at data + len (len unchanged: the caller writes, then
 * adds what it wrote); NULL (and failed set) when it cannot grow. */
IPFSRT_API uint8_t *ipfsrt_buf_reserve(ipfsrt_buf *b, size_t n);

#ifdef __cplusplus
}
#endif

#endif
