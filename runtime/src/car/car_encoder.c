/* A CARv1 laid out in memory from borrowed blocks and read out in pieces: the
 * gateway's response bodies. Sizes are known before the first byte goes out. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/varint.h"
#include "base/base_internal.h"
#include "car/car_internal.h"

typedef struct encoded_block {
    ipfsrt_cid cid;
    const uint8_t *data;
    size_t len;
} encoded_block;

struct ipfsrt_car_encoder {
    ipfsrt_buf header;
    encoded_block *blocks;
    size_t count, cap;
    uint64_t size;
    /* where read() is: in the header, then in block index's prefix or bytes */
    size_t header_sent;
    size_t index;
    size_t offset;
    bool in_data;
    uint8_t prefix[IPFSRT_CAR_SECTION_PREFIX_MAX];
    size_t prefix_len;
};

size_t ipfsrt_car_section_prefix(const ipfsrt_cid *cid, uint64_t block_len, uint8_t *out) {
    size_t n = ipfsrt_varint_encode((uint64_t)cid->len + block_len, out);
    memcpy(out + n, cid->bytes, cid->len);
    return n + cid->len;
}

ipfsrt_status ipfsrt_car_encoder_new(ipfsrt_car_encoder **out, const ipfsrt_cid *roots,
                                     size_t root_count, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED_N(roots, root_count, err);
    *out = NULL;
    ipfsrt_car_encoder *e = calloc(1, sizeof *e);
    if (!e) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_buf_init(&e->header);
    ipfsrt_status st = ipfsrt_car_header_encode(roots, root_count, &e->header, err);
    if (st != IPFSRT_OK) {
        ipfsrt_car_encoder_free(e);
        return st;
    }
    e->size = e->header.len;
    *out = e;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_encoder_add(ipfsrt_car_encoder *e, const ipfsrt_cid *cid,
                                     const uint8_t *data, size_t len, uint64_t *data_offset,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(e, err);
    IPFSRT_NEED(cid, err);
    if (e->header_sent)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "blocks added to a CAR already being read");
    uint64_t section = (uint64_t)cid->len + len;
    uint64_t prefix = ipfsrt_varint_size(section) + cid->len;
    if (len > UINT64_MAX / 2 || e->size > UINT64_MAX - section - IPFSRT_VARINT_MAX_BYTES)
        return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, cid, -1, "CAR would pass 2^64 bytes");
    if (ipfsrt_array_reserve(&e->blocks, &e->cap, e->count + 1, sizeof *e->blocks))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    e->blocks[e->count++] = (encoded_block){*cid, data, len};
    if (data_offset) *data_offset = e->size + prefix;
    e->size += ipfsrt_varint_size(section) + section;
    return IPFSRT_OK;
}

uint64_t ipfsrt_car_encoder_size(const ipfsrt_car_encoder *e) {
    IPFSRT_NEED_OR(e, 0);
    return e->size;
}

static size_t copy_piece(uint8_t *dst, size_t room, const uint8_t *src, size_t len, size_t *offset) {
    size_t n = len - *offset < room ? len - *offset : room;
    memcpy(dst, src + *offset, n);
    *offset += n;
    return n;
}

static void next_section(ipfsrt_car_encoder *e) {
    e->offset = 0;
    e->in_data = false;
    if (e->index < e->count)
        e->prefix_len = ipfsrt_car_section_prefix(&e->blocks[e->index].cid, e->blocks[e->index].len,
                                                  e->prefix);
}

size_t ipfsrt_car_encoder_read(ipfsrt_car_encoder *e, uint8_t *buf, size_t max) {
    IPFSRT_NEED_OR(buf, 0);
    size_t out = 0;
    if (e->header_sent < e->header.len) {
        out = copy_piece(buf, max, e->header.data, e->header.len, &e->header_sent);
        if (e->header_sent == e->header.len) next_section(e);
    }
    while (out < max && e->index < e->count) {
        const encoded_block *b = &e->blocks[e->index];
        if (!e->in_data) {
            out += copy_piece(buf + out, max - out, e->prefix, e->prefix_len, &e->offset);
            if (e->offset < e->prefix_len) break;
            e->in_data = true;
            e->offset = 0;
        }
        out += copy_piece(buf + out, max - out, b->data, b->len, &e->offset);
        if (e->offset < b->len) break;
        e->index++;
        next_section(e);
    }
    return out;
}

void ipfsrt_car_encoder_free(ipfsrt_car_encoder *e) {
    if (!e) return;
    ipfsrt_buf_free(&e->header);
    free(e->blocks);
    free(e);
}
