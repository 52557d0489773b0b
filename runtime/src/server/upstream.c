/* File bytes for a gateway in front of an upstream: read piece by piece as
 * the answer goes out, so the first byte leaves with the first verified leaf
 * and a large file is never held whole. The status line has gone out by then:
 * a failure mid-body ends the connection short of its Content-Length, which
 * every HTTP client reports as an error, never as a complete file. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "server/server_internal.h"

#define PIECE (256 * 1024)

typedef struct stream_body {
    ipfsrt_server_request *rq;
    ipfsrt_cid file;
    uint64_t start, length;
} stream_body;

typedef struct piece {
    uint8_t *out;
    size_t len;
} piece;

static ipfsrt_status fill_piece(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    piece *p = user;
    (void)err;
    memcpy(p->out + p->len, data, len); /* the read was asked for no more than fits */
    p->len += len;
    return IPFSRT_OK;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    stream_body *s = cls;
    if (pos >= s->length) return MHD_CONTENT_READER_END_OF_STREAM;
    uint64_t want = s->length - pos < max ? s->length - pos : max;
    piece p = {(uint8_t *)buf, 0};
    ipfsrt_error err;
    /* each piece walks down from the file's root: its nodes stay cached upstream's side */
    if (ipfsrt_unixfs_read(&s->rq->gw->src, &s->file, s->start + pos, want, fill_piece, &p, &err) != IPFSRT_OK ||
        p.len != want) {
        snprintf(s->rq->cut, sizeof s->rq->cut, "cut at byte %llu: %.200s", (unsigned long long)pos,
                 p.len != want ? "the file is shorter than its root says" : err.message);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    ipfsrt_server_count_sent(s->rq, p.len);
    return (ssize_t)p.len;
}

enum MHD_Result ipfsrt_server_stream_file(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const ipfsrt_cid *file, uint64_t start, uint64_t len,
                                          struct MHD_Response **r) {
    (void)c;
    stream_body *s = malloc(sizeof *s);
    if (!s) return MHD_NO;
    *s = (stream_body){rq, *file, start, len};
    *r = MHD_create_response_from_callback(len, PIECE, stream_read, s, free);
    if (!*r) {
        free(s);
        return MHD_NO;
    }
    return MHD_YES;
}
