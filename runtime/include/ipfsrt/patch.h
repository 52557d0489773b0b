/** @file
 * ipfsrt — a new version of a UnixFS directory DAG made from the old one and
 * a set of changes, without rebuilding what did not change. */
#ifndef IPFSRT_PATCH_H
#define IPFSRT_PATCH_H

#include "pack.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Files put and removed under an old root, then the new root made: each file
 * put is imported at once (its blocks go to the sink then, and only its CID
 * is kept), and at the end each directory that changed is made again from
 * its old listing and its changes, with the importer's own encoders. The new
 * root is therefore the one ipfsrt_pack gives for the changed folder with the
 * same options, while only the changed files, the changed directories (and
 * HAMT shards) and the directories above them are made. */
typedef struct ipfsrt_patch ipfsrt_patch;

/** Starts a patch of the directory root, whose blocks src lends (verified).
 * @param patch the new patch, on success
 * @param src where the old version's blocks come from (borrowed: it must
 * outlive the patch)
 * @param root the old version's root directory
 * @param opts the settings the old version was packed with (NULL = the
 * defaults): the new blocks are made with them
 * @param sink receives each new block (children before parents); a directory
 * block (or HAMT shard) the old version already holds is not sent again (a
 * file's block may be: the patch does not ask the source for every block)
 * @param user handed to sink
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (options that do not fit, or a root whose CID
 * version is not the options'); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_patch_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_patch_new(ipfsrt_patch **patch, const ipfsrt_blocksource *src,
                                                   const ipfsrt_cid *root, const ipfsrt_pack_options *opts,
                                                   ipfsrt_pack_sink_fn sink, void *user, ipfsrt_error *err);

/** Puts a file at path ("a/b/c", from the root), replacing whatever was
 * there; missing directories on the way are made. Its blocks go to the sink
 * now: a path put twice leaves the first file's blocks sent but unused (a
 * writer that may change a file again keeps it until it is final).
 * @param patch the patch
 * @param path the file's path: names joined by '/', none empty, "." or ".."
 * @param data its bytes
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a path that is not one); IPFSRT_EOUT_OF_MEMORY;
 * the sink's own error */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_patch_put(ipfsrt_patch *patch, const char *path, const uint8_t *data,
                                                   size_t len, ipfsrt_error *err);

/** Removes what is at path (a file, or a directory with everything under it);
 * nothing there is no error. A directory that was not in the old version and
 * is left empty is not made.
 * @param patch the patch
 * @param path as ipfsrt_patch_put's
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a path that is not one); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_patch_remove(ipfsrt_patch *patch, const char *path, ipfsrt_error *err);

/** Makes the changed directories, deepest first, and names the new root; the
 * patch takes no more changes after it (whatever the outcome). Every block of
 * the new version that the old one lacks has reached the sink when it returns.
 * @param patch the patch
 * @param root set to the new root, on success
 * @param err filled on failure, naming the path at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_DIRECTORY (a path put or removed goes through a file of
 * the old version); the old blocks' (IPFSRT_ENOT_FOUND, IPFSRT_EHASH_MISMATCH,
 * IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS, IPFSRT_ETOO_LARGE, a source's fetch
 * errors); IPFSRT_EUNSUPPORTED (names that collide past a HAMT's hash bits);
 * IPFSRT_EOUT_OF_MEMORY; the sink's own error */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_patch_finish(ipfsrt_patch *patch, ipfsrt_cid *root, ipfsrt_error *err);

/** Releases a patch (finished or not: the blocks already sent stay sent).
 * @param patch the patch, or NULL
 * @owner nothing it lent stays valid */
IPFSRT_EXPERIMENTAL void ipfsrt_patch_free(ipfsrt_patch *patch);

#ifdef __cplusplus
}
#endif

#endif
