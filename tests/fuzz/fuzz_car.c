/* libFuzzer target: hostile bytes through the CAR push reader (whole and in
 * slices, with and without verify_only), the file reader, DAG-CBOR, dag-pb and
 * UnixFS data, and UnixFS path resolution and reads over the CAR's blocks.
 * Every block handed out must hash to its CID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipfsrt.h"

static ipfsrt_status check_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    (void)user;
    (void)err;
    if (b->data && ipfsrt_cid_verify(&b->cid, b->data, b->len, NULL) != IPFSRT_OK) abort();
    return IPFSRT_OK;
}

static void push(const uint8_t *data, size_t size, size_t slice, bool verify_only) {
    ipfsrt_car_options opts = {.size = sizeof opts, .max_block_size = 4096, .max_header_size = 4096,
                               .verify_only = verify_only};
    ipfsrt_car_reader *r;
    if (ipfsrt_car_reader_new(&r, &opts, check_block, NULL, NULL) != IPFSRT_OK) return;
    ipfsrt_status st = IPFSRT_OK;
    for (size_t off = 0; off < size && st == IPFSRT_OK; off += slice)
        st = ipfsrt_car_reader_feed(r, data + off, size - off < slice ? size - off : slice, NULL);
    if (st == IPFSRT_OK) ipfsrt_car_reader_finish(r, NULL);
    ipfsrt_car_reader_free(r);
}

static ipfsrt_status discard(void *user, const uint8_t *p, size_t n, ipfsrt_error *err) {
    (void)user, (void)p, (void)n, (void)err;
    return IPFSRT_OK;
}

static ipfsrt_status discard_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)e, (void)err;
    return IPFSRT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    push(data, size, size ? size : 1, false);
    push(data, size, 7, false);
    push(data, size, 300, true);

    ipfsrt_dagcbor_doc doc;
    if (ipfsrt_dagcbor_decode(data, size, &doc, NULL) == IPFSRT_OK) ipfsrt_dagcbor_doc_free(&doc);
    ipfsrt_dagpb_node pb;
    if (ipfsrt_dagpb_decode(data, size, &pb, NULL) == IPFSRT_OK) ipfsrt_dagpb_node_free(&pb);
    ipfsrt_unixfs_data fs;
    if (ipfsrt_unixfs_data_decode(data, size, &fs, NULL) == IPFSRT_OK) ipfsrt_unixfs_data_free(&fs);
    ipfsrt_cid cid;
    ipfsrt_cid_from_bytes(&cid, data, size, NULL, NULL);
    ipfsrt_cid_parse(&cid, (const char *)data, size, NULL, NULL);

    char path[64];
    snprintf(path, sizeof path, "/tmp/ipfsrt-fuzz-%d.car", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    ipfsrt_car_file *car;
    if (ipfsrt_car_file_new(&car, path, NULL, NULL) == IPFSRT_OK) {
        uint64_t cursor = 0;
        for (int i = 0; i < 1000; i++) {
            ipfsrt_car_block b;
            bool done;
            if (ipfsrt_car_file_next(car, &cursor, &b, &done, NULL) != IPFSRT_OK || done) break;
            if (ipfsrt_cid_verify(&b.cid, b.data, b.len, NULL) != IPFSRT_OK) abort();
            const uint8_t *got;
            size_t len;
            if (ipfsrt_car_file_get(car, &b.cid, &got, &len, NULL) == IPFSRT_OK &&
                ipfsrt_cid_verify(&b.cid, got, len, NULL) != IPFSRT_OK)
                abort();
        }
        const ipfsrt_car_header *h = ipfsrt_car_file_header(car);
        if (h->root_count > 0) { /* walk the DAG as UnixFS from the first root */
            ipfsrt_blocksource src;
            ipfsrt_blocksource_car(&src, car);
            char root[IPFSRT_CID_STR_MAX + 16];
            ipfsrt_cid_to_string(&h->roots[0], root);
            ipfsrt_unixfs_node_info info;
            ipfsrt_unixfs_options follow = {.size = sizeof follow, .follow_symlinks = true};
            if (ipfsrt_unixfs_resolve(&src, root, &follow, &info, NULL) == IPFSRT_OK) {
                uint64_t blocks;
                ipfsrt_unixfs_count_blocks(&src, &info.cid, &blocks, NULL);
                ipfsrt_unixfs_read(&src, &info.cid, 0, 1 << 16, discard, NULL, NULL);
                ipfsrt_unixfs_ls(&src, &info.cid, true, discard_entry, NULL, NULL);
            }
            strcat(root, "/a/b");
            ipfsrt_unixfs_resolve(&src, root, &follow, &info, NULL);
        }
        ipfsrt_car_file_free(car);
    }
    unlink(path);
    return 0;
}
