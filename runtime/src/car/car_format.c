/* CAR layout pieces shared by the push reader, the file reader and the writer. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagcbor.h"
#include "ipfsrt/varint.h"
#include "car/car_internal.h"
#include "base/base_internal.h"

const uint8_t ipfsrt_carv2_pragma[11] = {0x0a, 0xa1, 0x67, 0x76, 0x65, 0x72, 0x73,
                                         0x69, 0x6f, 0x6e, 0x02};

void ipfsrt_car_header_release(ipfsrt_car_header *hdr) {
    free(hdr->roots);
    hdr->roots = NULL;
    hdr->root_count = 0;
}

ipfsrt_status ipfsrt_car_header_decode(const uint8_t *buf, size_t len, ipfsrt_car_header *hdr,
                                       ipfsrt_error *err) {
    ipfsrt_dagcbor_doc doc;
    ipfsrt_status st = ipfsrt_dagcbor_decode(buf, len, &doc, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "CAR header: ");
        if (err) err->code = IPFSRT_EBAD_CAR_HEADER;
        return IPFSRT_EBAD_CAR_HEADER;
    }
    const ipfsrt_dagcbor_item *root = doc.root;
    const ipfsrt_dagcbor_item *version = ipfsrt_dagcbor_map_get(root, "version");
    const ipfsrt_dagcbor_item *roots = ipfsrt_dagcbor_map_get(root, "roots");
    size_t expected_keys = roots ? 2 : 1;
    if (root->type != IPFSRT_DAGCBOR_MAP || !version || root->v.list.count != expected_keys) {
        ipfsrt_dagcbor_doc_free(&doc);
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, 0,
                           "CAR header must be a map of exactly 'roots' and 'version'");
    }
    if (version->type != IPFSRT_DAGCBOR_UINT || (version->v.u != 1 && version->v.u != 2)) {
        ipfsrt_dagcbor_doc_free(&doc);
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_VERSION, 0,
                           "unsupported CAR version (only 1 and 2 exist)");
    }
    hdr->version = (int)version->v.u;
    if (hdr->version == 2) {
        ipfsrt_dagcbor_doc_free(&doc);
        if (roots) return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, 0, "CARv2 pragma with roots");
        return IPFSRT_OK;
    }
    if (!roots || roots->type != IPFSRT_DAGCBOR_ARRAY) {
        ipfsrt_dagcbor_doc_free(&doc);
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, 0, "CARv1 header 'roots' must be an array");
    }
    size_t n = roots->v.list.count;
    hdr->roots = n ? calloc(n, sizeof *hdr->roots) : NULL;
    if (n && !hdr->roots) {
        ipfsrt_dagcbor_doc_free(&doc);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const ipfsrt_dagcbor_item *it = &roots->v.list.items[i];
        if (it->type != IPFSRT_DAGCBOR_CID) {
            ipfsrt_car_header_release(hdr);
            ipfsrt_dagcbor_doc_free(&doc);
            return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, 0, "CAR header root %zu is not a CID", i);
        }
        hdr->roots[i] = *it->v.cid;
    }
    hdr->root_count = n;
    ipfsrt_dagcbor_doc_free(&doc);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_header_encode(const ipfsrt_cid *roots, size_t root_count, ipfsrt_buf *out,
                                       ipfsrt_error *err) {
    IPFSRT_NEED_N(roots, root_count, err);
    IPFSRT_NEED(out, err);
    ipfsrt_buf body;
    ipfsrt_buf_init(&body);
    ipfsrt_dagcbor_put_map(&body, 2);
    ipfsrt_dagcbor_put_text(&body, "roots", 5);
    ipfsrt_dagcbor_put_array(&body, root_count);
    for (size_t i = 0; i < root_count; i++) ipfsrt_dagcbor_put_cid(&body, &roots[i]);
    ipfsrt_dagcbor_put_text(&body, "version", 7);
    ipfsrt_dagcbor_put_uint(&body, 1);
    uint8_t v[IPFSRT_VARINT_MAX_BYTES];
    size_t vn = ipfsrt_varint_encode(body.len, v);
    ipfsrt_buf_append(out, v, vn);
    ipfsrt_buf_append(out, body.data, body.len);
    bool failed = body.failed || out->failed;
    ipfsrt_buf_free(&body);
    return failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}

ipfsrt_status ipfsrt_carv2_header_decode(const uint8_t *buf, ipfsrt_car_header *hdr,
                                         uint64_t file_size, ipfsrt_error *err) {
    const int64_t base = sizeof ipfsrt_carv2_pragma;
    memcpy(hdr->characteristics, buf, 16);
    hdr->data_offset = ipfsrt_le64(buf + 16);
    hdr->data_size = ipfsrt_le64(buf + 24);
    hdr->index_offset = ipfsrt_le64(buf + 32);
    hdr->version = 2;
    /* Only "fully indexed" (bit 7 of the first byte) is defined. */
    if ((hdr->characteristics[0] & 0x7f) != 0 ||
        memcmp(hdr->characteristics + 1, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, base,
                           "CARv2 header sets unknown characteristics bits");
    if (hdr->data_offset < IPFSRT_CARV2_HEADER_SIZE)
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, base + 16,
                           "CARv2 data offset %llu lies inside the header",
                           (unsigned long long)hdr->data_offset);
    if (hdr->data_size > UINT64_MAX - hdr->data_offset ||
        hdr->data_offset + hdr->data_size > file_size)
        return ipfsrt_fail(err, IPFSRT_ETRUNCATED, base + 24,
                           "CARv2 data (offset %llu, size %llu) runs past the end of the file",
                           (unsigned long long)hdr->data_offset,
                           (unsigned long long)hdr->data_size);
    if (hdr->index_offset != 0 &&
        (hdr->index_offset < hdr->data_offset + hdr->data_size || hdr->index_offset >= file_size))
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, base + 32,
                           "CARv2 index offset %llu is outside the file after the data",
                           (unsigned long long)hdr->index_offset);
    return IPFSRT_OK;
}

/* Verification errors name the CID already; this adds where the section is. */
static ipfsrt_status section_located(ipfsrt_status st, uint64_t offset, ipfsrt_error *err) {
    if (st != IPFSRT_OK) {
        if (err) err->offset = (int64_t)offset;
        ipfsrt_error_prefix(err, "CAR section at byte offset %llu: ", (unsigned long long)offset);
    }
    return st;
}

ipfsrt_status ipfsrt_car_section_decode(const uint8_t *body, size_t len, uint64_t offset,
                                        size_t max_block, bool verify, const uint8_t *streamed_digest,
                                        const ipfsrt_hash_backend *backend, ipfsrt_car_block *block,
                                        ipfsrt_error *err) {
    size_t cid_len;
    ipfsrt_status st = ipfsrt_cid_from_bytes(&block->cid, body, len, &cid_len, err);
    if (st != IPFSRT_OK) {
        if (err) {
            err->code = IPFSRT_EBAD_CID;
            err->offset = (int64_t)offset;
        }
        ipfsrt_error_prefix(err, "CAR section at byte offset %llu: malformed CID: ",
                            (unsigned long long)offset);
        return IPFSRT_EBAD_CID;
    }
    size_t block_len = len - cid_len;
    if (block_len > max_block)
        return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, &block->cid, (int64_t)offset,
                               "at byte offset %llu is %zu bytes, over the %zu-byte block limit",
                               (unsigned long long)offset, block_len, max_block);
    block->data = body + cid_len;
    block->len = block_len;
    block->offset = offset;
    if (!verify) return IPFSRT_OK;
    st = streamed_digest ? ipfsrt_cid_check_digest(&block->cid, streamed_digest, block_len, err)
                         : ipfsrt_cid_verify_with(&block->cid, block->data, block_len, backend, err);
    return section_located(st, offset, err);
}

ipfsrt_status ipfsrt_car_section_check_streamed(const ipfsrt_cid *cid, size_t block_len,
                                                uint64_t offset, const uint8_t *digest,
                                                ipfsrt_car_block *block, ipfsrt_error *err) {
    block->cid = *cid;
    block->data = NULL;
    block->len = block_len;
    block->offset = offset;
    return section_located(ipfsrt_cid_check_digest(cid, digest, block_len, err), offset, err);
}
