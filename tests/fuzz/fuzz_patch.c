/* libFuzzer target: new versions and diffs over hostile DAGs. The input is
 * fuzz_unixfs's: blocks separated by "\n--\n", a link to CID c leading to
 * block (first digest byte of c) mod n, the first block the old root and the
 * second another version's. Patching the old root (files put at new and at
 * existing paths, others removed, under every sharding rule) and diffing the
 * two versions must end within their bounds, whatever the blocks say. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "hostile_dag.h"

static ipfsrt_status discard_block(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                                   ipfsrt_error *err) {
    (void)user, (void)cid, (void)data, (void)len, (void)err;
    return IPFSRT_OK;
}

static ipfsrt_status check_change(void *user, const ipfsrt_unixfs_change *c, ipfsrt_error *err) {
    (void)user, (void)err;
    if (!c->path || (c->kind != IPFSRT_UNIXFS_ADDED && !c->old_cid) || (c->kind != IPFSRT_UNIXFS_REMOVED && !c->new_cid))
        abort();
    return IPFSRT_OK;
}

static void patch_with(const ipfsrt_blocksource *src, const ipfsrt_cid *root, const char *preset, const char *rule) {
    ipfsrt_pack_options o;
    ipfsrt_pack_preset(preset, &o, NULL);
    if (rule) ipfsrt_pack_parse_hamt_rule(rule, &o, NULL);
    o.hamt_fanout = 4;
    ipfsrt_patch *patch;
    if (ipfsrt_patch_new(&patch, src, root, &o, discard_block, NULL, NULL) != IPFSRT_OK) return;
    static const char *const put[] = {"a", "a/b", "0.0.0", "c/0/0", "zarr.json"};
    for (size_t i = 0; i < sizeof put / sizeof *put; i++)
        ipfsrt_patch_put(patch, put[i], (const uint8_t *)put[i], strlen(put[i]), NULL);
    ipfsrt_patch_remove(patch, "b", NULL);
    ipfsrt_patch_remove(patch, "c/1", NULL);
    ipfsrt_cid new_root;
    if (ipfsrt_patch_finish(patch, &new_root, NULL) == IPFSRT_OK)
        ipfsrt_unixfs_diff(src, root, src, &new_root, check_change, NULL, NULL);
    ipfsrt_patch_free(patch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    blocks b;
    hostile_split(data, size, &b);
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &b, hostile_get, NULL};
    uint8_t digest[32] = {0};
    ipfsrt_cid v1_root, v0_root, other;
    if (ipfsrt_cid_create(&v1_root, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, digest, 32, NULL) != IPFSRT_OK ||
        ipfsrt_cid_create(&v0_root, 0, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, digest, 32, NULL) != IPFSRT_OK)
        abort();
    digest[0] = 1;
    if (ipfsrt_cid_create(&other, 1, IPFSRT_CODEC_DAG_PB, IPFSRT_MH_SHA2_256, digest, 32, NULL) != IPFSRT_OK) abort();
    patch_with(&src, &v1_root, "ipfs-car", NULL);
    patch_with(&src, &v1_root, "kubo-v1-2025", "entries:2");
    patch_with(&src, &v0_root, "kubo", "link-bytes:40");
    ipfsrt_unixfs_diff(&src, &v1_root, &src, &other, check_change, NULL, NULL);
    return 0;
}
