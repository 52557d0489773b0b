/* dag-pb (codec 0x70): PBNode { repeated PBLink Links = 2; optional bytes Data = 1; } */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/dagpb.h"
#include "base/base_internal.h"
#include "ipld/protobuf.h"

static ipfsrt_status bad(ipfsrt_error *err, size_t at, const char *what) {
    return ipfsrt_fail(err, IPFSRT_EBAD_DAGPB, (int64_t)at, "dag-pb: %s at byte offset %zu", what, at);
}

/* PBLink { optional bytes Hash = 1; optional string Name = 2; optional uint64 Tsize = 3; }
 * Fields strictly in that order, each at most once; Hash required. */
static ipfsrt_status decode_link(const uint8_t *buf, size_t len, size_t base, ipfsrt_dagpb_link *link,
                                 ipfsrt_error *err) {
    /* the CID is zeroed as it is parsed: the rest only, for hundreds of links a shard */
    link->name = NULL;
    link->name_len = 0;
    link->has_tsize = false;
    link->tsize = 0;
    size_t pos = 0;
    unsigned last = 0;
    bool has_hash = false;
    while (pos < len) {
        size_t at = pos;
        uint64_t key;
        if (!pb_varint(buf, len, &pos, &key)) return bad(err, base + at, "truncated link field key");
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        if (key >> 3 > 3 || field == 0) return bad(err, base + at, "unknown PBLink field");
        if (field <= last) return bad(err, base + at, "PBLink fields out of order or repeated");
        last = field;
        if (field == 3) {
            if (wire != PB_VARINT) return bad(err, base + at, "wrong wire type for Tsize");
            if (!pb_varint(buf, len, &pos, &link->tsize)) return bad(err, base + at, "truncated Tsize");
            link->has_tsize = true;
            continue;
        }
        if (wire != PB_LEN) return bad(err, base + at, "wrong wire type in PBLink");
        const uint8_t *p;
        size_t n;
        if (!pb_bytes(buf, len, &pos, &p, &n)) return bad(err, base + at, "truncated PBLink field");
        if (field == 1) {
            ipfsrt_status st = ipfsrt_cid_from_bytes(&link->cid, p, n, NULL, err);
            if (st != IPFSRT_OK) {
                ipfsrt_error_prefix(err, "dag-pb link Hash at byte offset %zu: ", base + at);
                if (err) err->code = IPFSRT_EBAD_DAGPB;
                return IPFSRT_EBAD_DAGPB;
            }
            has_hash = true;
        } else {
            link->name = p;
            link->name_len = n;
        }
    }
    if (!has_hash) return bad(err, base, "link without Hash");
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_dagpb_decode(const uint8_t *buf, size_t len, ipfsrt_dagpb_node *node,
                                  ipfsrt_error *err) {
    IPFSRT_NEED(node, err);
    memset(node, 0, sizeof *node);
    /* First pass: validate the node's own fields and count links, so the link
     * array is sized exactly. Data may come after the links (canonical) or
     * before them (older IPFS data), never among them. */
    size_t pos = 0, links_before_data = 0, links_after_data = 0;
    bool has_data = false;
    while (pos < len) {
        size_t at = pos;
        uint64_t key;
        if (!pb_varint(buf, len, &pos, &key)) return bad(err, at, "truncated field key");
        if (key == (1 << 3 | PB_LEN)) {
            if (has_data) return bad(err, at, "duplicate Data");
            has_data = true;
        } else if (key == (2 << 3 | PB_LEN)) {
            if (has_data && links_before_data) return bad(err, at, "Data between Links");
            if (has_data)
                links_after_data++;
            else
                links_before_data++;
        } else {
            return bad(err, at, "unknown PBNode field or wire type");
        }
        const uint8_t *p;
        size_t n;
        if (!pb_bytes(buf, len, &pos, &p, &n)) return bad(err, at, "field runs past the end");
        if (key == (1 << 3 | PB_LEN)) {
            node->data = p;
            node->data_len = n;
        }
    }
    size_t links = links_before_data + links_after_data;
    if (links) {
        if (links > SIZE_MAX / sizeof *node->links) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        node->links = malloc(links * sizeof *node->links); /* each filled whole by decode_link */
        if (!node->links) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    pos = 0;
    while (pos < len) { /* second pass: the structure is known to be sound */
        uint64_t key = 0;
        const uint8_t *p = NULL;
        size_t n = 0;
        pb_varint(buf, len, &pos, &key);
        pb_bytes(buf, len, &pos, &p, &n);
        if (key != (2 << 3 | PB_LEN)) continue;
        ipfsrt_status st = decode_link(p, n, (size_t)(p - buf), &node->links[node->link_count], err);
        if (st != IPFSRT_OK) {
            ipfsrt_dagpb_node_free(node);
            return st;
        }
        node->link_count++;
    }
    return IPFSRT_OK;
}

void ipfsrt_dagpb_node_free(ipfsrt_dagpb_node *node) {
    if (!node) return;
    free(node->links);
    memset(node, 0, sizeof *node);
}

ipfsrt_status ipfsrt_dagpb_encode(const ipfsrt_dagpb_node *node, ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(node, err);
    IPFSRT_NEED(out, err);
    ipfsrt_buf link;
    ipfsrt_buf_init(&link);
    for (size_t i = 0; i < node->link_count; i++) {
        const ipfsrt_dagpb_link *l = &node->links[i];
        link.len = 0;
        pb_put_bytes(&link, 1, l->cid.bytes, l->cid.len);
        if (l->name) pb_put_bytes(&link, 2, l->name, l->name_len);
        if (l->has_tsize) {
            pb_put_key(&link, 3, PB_VARINT);
            pb_put_varint(&link, l->tsize);
        }
        pb_put_bytes(out, 2, link.data ? link.data : (const uint8_t *)"", link.len);
    }
    bool failed = link.failed;
    ipfsrt_buf_free(&link);
    if (node->data) pb_put_bytes(out, 1, node->data, node->data_len);
    if (failed || out->failed) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    return IPFSRT_OK;
}
