/* libFuzzer target: DAG-CBOR, dag-pb and UnixFS data from hostile bytes, and
 * paths and links in DAG-CBOR and DAG-JSON documents. What
 * dag-pb decodes must encode to a node that decodes to the same links and data
 * (the decoder also takes Data before the links, which encoding puts last). */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt.h"

static void dagpb(const uint8_t *data, size_t size) {
    ipfsrt_dagpb_node node;
    if (ipfsrt_dagpb_decode(data, size, &node, NULL) != IPFSRT_OK) return;
    ipfsrt_buf out;
    ipfsrt_buf_init(&out);
    ipfsrt_dagpb_node again;
    if (ipfsrt_dagpb_encode(&node, &out, NULL) != IPFSRT_OK ||
        ipfsrt_dagpb_decode(out.data, out.len, &again, NULL) != IPFSRT_OK)
        abort();
    if (again.link_count != node.link_count || again.data_len != node.data_len ||
        (!again.data) != (!node.data) ||
        (node.data_len && memcmp(again.data, node.data, node.data_len) != 0))
        abort();
    for (size_t i = 0; i < node.link_count; i++) {
        const ipfsrt_dagpb_link *a = &node.links[i], *b = &again.links[i];
        if (!ipfsrt_cid_equal(&a->cid, &b->cid) || a->name_len != b->name_len ||
            (!a->name) != (!b->name) || a->has_tsize != b->has_tsize || a->tsize != b->tsize ||
            (a->name_len && memcmp(a->name, b->name, a->name_len) != 0))
            abort();
    }
    ipfsrt_dagpb_node_free(&again);
    ipfsrt_buf_free(&out);
    ipfsrt_unixfs_data fs;
    if (node.data && ipfsrt_unixfs_data_decode(node.data, node.data_len, &fs, NULL) == IPFSRT_OK)
        ipfsrt_unixfs_data_free(&fs);
    ipfsrt_dagpb_node_free(&node);
}

/* Paths walked in whatever parses: a walk never claims more of the path than it has. */
static void document(uint64_t codec, const uint8_t *data, size_t size) {
    ipfsrt_cid cid = {.version = 1, .codec = codec}, link;
    ipfsrt_cid *links;
    size_t count, consumed;
    if (ipfsrt_ipld_links(&cid, data, size, &links, &count, NULL) != IPFSRT_OK) return;
    for (const char *const *p = (const char *const[]){"a", "0/1", "foo/link/bar", "/", NULL}; *p; p++)
        if (ipfsrt_ipld_follow(&cid, data, size, *p, &consumed, &link, NULL) == IPFSRT_OK && consumed > strlen(*p))
            abort();
    free(links);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ipfsrt_dagcbor_doc doc;
    if (ipfsrt_dagcbor_decode(data, size, &doc, NULL) == IPFSRT_OK) ipfsrt_dagcbor_doc_free(&doc);
    dagpb(data, size);
    document(IPFSRT_CODEC_DAG_CBOR, data, size);
    document(IPFSRT_CODEC_DAG_JSON, data, size);
    ipfsrt_unixfs_data fs;
    if (ipfsrt_unixfs_data_decode(data, size, &fs, NULL) == IPFSRT_OK) ipfsrt_unixfs_data_free(&fs);
    return 0;
}
