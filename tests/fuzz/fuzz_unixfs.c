/* libFuzzer target: UnixFS walks (resolution, listings with HAMT shards, reads,
 * block lists) over hostile DAGs. The input is a set of blocks separated by
 * "\n--\n"; a link to CID c leads to block (first digest byte of c) mod n, the
 * first block being the root, so any shape — diamonds, cycles, deep chains — can
 * be built without computing hashes. Every walk must end, within its bounds. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "hostile_dag.h"

static ipfsrt_status discard_bytes(void *user, const uint8_t *p, size_t n, ipfsrt_error *err) {
    (void)user, (void)p, (void)n, (void)err;
    return IPFSRT_OK;
}

static ipfsrt_status discard_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)err;
    if (e->name_len && !e->name) abort();
    return IPFSRT_OK;
}

static ipfsrt_status discard_cid(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)user, (void)cid, (void)err;
    return IPFSRT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    blocks b;
    hostile_split(data, size, &b);
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &b, hostile_get, NULL};
    ipfsrt_cid root;
    uint8_t digest[32] = {0};
    if (ipfsrt_cid_create(&root, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, digest, 32, NULL) != IPFSRT_OK)
        abort();
    char path[IPFSRT_CID_STR_MAX + 64];
    ipfsrt_cid_to_string(&root, path);
    size_t root_len = strlen(path);
    ipfsrt_unixfs_node_info info;
    ipfsrt_unixfs_options follow = {.size = sizeof follow, .follow_symlinks = true};
    ipfsrt_unixfs_ls(&src, &root, true, discard_entry, NULL, NULL);
    ipfsrt_unixfs_read(&src, &root, 0, 1 << 20, discard_bytes, NULL, NULL);
    ipfsrt_unixfs_read(&src, &root, 3, 100, discard_bytes, NULL, NULL);
    uint64_t count;
    ipfsrt_unixfs_count_blocks(&src, &root, &count, NULL);
    ipfsrt_unixfs_options dups = {.size = sizeof dups, .dups = true, .scope = IPFSRT_SCOPE_ALL};
    ipfsrt_unixfs_blocks_for(&src, path, &dups, discard_cid, NULL, NULL);
    ipfsrt_unixfs_options range = {.size = sizeof range, .offset = 1, .length = 10};
    static const char *const names[] = {"/a", "/a/b", "/0", "/x/../y", "/./a/./b/c/d/e"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        strcpy(path + root_len, names[i]);
        ipfsrt_unixfs_resolve(&src, path, &follow, &info, NULL);
        ipfsrt_unixfs_blocks_for(&src, path, &range, discard_cid, NULL, NULL);
    }
    return 0;
}
