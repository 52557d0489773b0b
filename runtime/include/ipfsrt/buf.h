/** @file
 * ipfsrt — a growable byte buffer. */
#ifndef IPFSRT_BUF_H
#define IPFSRT_BUF_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A growable output buffer for the encoder. */
typedef struct ipfsrt_buf {
    uint8_t *data; /**< the bytes written (malloc'd; NULL while empty) */
    size_t len;    /**< how many */
    size_t cap;    /**< the room data has */
    bool failed; /**< an allocation failed; later writes are ignored */
} ipfsrt_buf;

/** Makes b an empty buffer; it never fails (memory comes with the first write).
 * @param b the caller's struct
 * @owner b is the caller's; what it holds, after writes, is released by ipfsrt_buf_free */
IPFSRT_API void ipfsrt_buf_init(ipfsrt_buf *b);
/** Releases what b holds and leaves it empty (initialized) again.
 * @param b an initialized buffer
 * @owner data is freed: pointers into it are no longer valid */
IPFSRT_API void ipfsrt_buf_free(ipfsrt_buf *b);
/** Appends n bytes. A failed allocation sets b->failed and is sticky: later
 * writes are ignored, so a writer checks failed once at its end.
 * @param b an initialized buffer
 * @param data n bytes (copied)
 * @param n how many; 0 does nothing */
IPFSRT_API void ipfsrt_buf_append(ipfsrt_buf *b, const void *data, size_t n);
/** Room for n more bytes at data + len, len unchanged: the caller writes, then
 * adds what it wrote to len.
 * @param b an initialized buffer
 * @param n bytes wanted
 * @return where to write (never NULL for n = 0 unless failed), or NULL (and failed set) when the buffer cannot grow
 * @owner the pointer is valid until the next write or ipfsrt_buf_free */
IPFSRT_API uint8_t *ipfsrt_buf_reserve(ipfsrt_buf *b, size_t n);

#ifdef __cplusplus
}
#endif

#endif
