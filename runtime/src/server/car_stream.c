/* A CAR answer in front of an upstream, never held whole: the walk that
 * chose its blocks kept only their CIDs and sizes, so the body's length is
 * known, and each block is asked for again (the relay keeps what it fetched,
 * as much as its budget holds) as its section goes out. A block that comes
 * back another size than the walk saw cannot be: it was checked against its
 * CID both times; were it so, the connection ends short, never a wrong CAR. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/varint.h"
#include "server/server_internal.h"

typedef struct car_stream {
    ipfsrt_server_request *rq; /* gone once the answer is over: car_stream_free must not touch it */
    ipfsrt_blocksource *src;
    ipfsrt_buf header;
    ipfsrt_server_spare *items; /* cid and len; data unused */
    size_t count, next;
    uint8_t prefix[IPFSRT_VARINT_MAX_BYTES + IPFSRT_CID_MAX_BYTES]; /* the section's length and CID */
    size_t prefix_len;
    ipfsrt_blocksource_ref block; /* the section's block, held while it goes out */
    bool holding;
    uint64_t section_pos, header_pos;
} car_stream;

static void car_stream_free(void *cls) {
    car_stream *s = cls;
    if (s->holding) ipfsrt_blocksource_release(s->src, &s->block);
    ipfsrt_buf_free(&s->header);
    free(s->items);
    free(s);
}

static uint64_t section_size(const ipfsrt_server_spare *b) {
    uint64_t n = (uint64_t)b->cid.len + b->len;
    return ipfsrt_varint_size(n) + n;
}

/* The next section's block and prefix; false (with why in the log) when the
 * block cannot be had again. */
static bool start_section(car_stream *s) {
    const ipfsrt_server_spare *b = &s->items[s->next];
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_blocksource_get(s->src, &b->cid, &s->block, &err);
    if (st != IPFSRT_OK || s->block.len != b->len) {
        snprintf(s->rq->cut, sizeof s->rq->cut, "cut at block %zu: %.200s", s->next,
                 st != IPFSRT_OK ? err.message : "another size than before");
        if (st == IPFSRT_OK) ipfsrt_blocksource_release(s->src, &s->block);
        return false;
    }
    s->holding = true;
    s->prefix_len = ipfsrt_varint_encode((uint64_t)b->cid.len + b->len, s->prefix);
    memcpy(s->prefix + s->prefix_len, b->cid.bytes, b->cid.len);
    s->prefix_len += b->cid.len;
    s->section_pos = 0;
    return true;
}

/* Copies what is left of the current section into buf; true when it is over. */
static bool copy_section(car_stream *s, uint8_t *buf, size_t max, size_t *out) {
    while (*out < max && s->section_pos < s->prefix_len + s->block.len) {
        bool in_prefix = s->section_pos < s->prefix_len;
        const uint8_t *from = in_prefix ? s->prefix + s->section_pos : s->block.data + (s->section_pos - s->prefix_len);
        size_t left = in_prefix ? s->prefix_len - s->section_pos : s->prefix_len + s->block.len - s->section_pos;
        size_t n = left < max - *out ? left : max - *out;
        memcpy(buf + *out, from, n);
        *out += n;
        s->section_pos += n;
    }
    return s->section_pos == s->prefix_len + s->block.len;
}

static ssize_t car_stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    car_stream *s = cls;
    size_t out = 0;
    if (s->header_pos < s->header.len) {
        out = s->header.len - s->header_pos < max ? s->header.len - s->header_pos : max;
        memcpy(buf, s->header.data + s->header_pos, out);
        s->header_pos += out;
    }
    while (out < max && s->next < s->count) {
        if (!s->holding && !start_section(s)) return MHD_CONTENT_READER_END_WITH_ERROR;
        if (!copy_section(s, (uint8_t *)buf, max, &out)) break;
        ipfsrt_blocksource_release(s->src, &s->block);
        s->holding = false;
        s->next++;
    }
    if (out == 0) return MHD_CONTENT_READER_END_OF_STREAM;
    ipfsrt_server_count_sent(s->rq, out);
    return (ssize_t)out;
}

struct MHD_Response *ipfsrt_server_car_stream(ipfsrt_server_request *rq, const ipfsrt_cid *root,
                                              ipfsrt_server_spare *items, size_t count) {
    car_stream *s = calloc(1, sizeof *s);
    if (!s) {
        free(items);
        return NULL;
    }
    s->rq = rq;
    s->src = &rq->gw->src;
    s->items = items;
    s->count = count;
    ipfsrt_buf_init(&s->header);
    uint64_t size = 0;
    if (ipfsrt_car_header_encode(root, 1, &s->header, NULL) != IPFSRT_OK || s->header.failed) {
        car_stream_free(s);
        return NULL;
    }
    size = s->header.len;
    for (size_t i = 0; i < count; i++) size += section_size(&items[i]);
    struct MHD_Response *r = MHD_create_response_from_callback(size, 256 * 1024, car_stream_read, s,
                                                               car_stream_free);
    if (!r) car_stream_free(s);
    return r;
}
