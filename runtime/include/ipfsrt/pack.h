/** @file
 * ipfsrt — the UnixFS importer. */
#ifndef IPFSRT_PACK_H
#define IPFSRT_PACK_H

#include "unixfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** When a directory becomes a HAMT shard. */
typedef enum ipfsrt_pack_hamt_rule {
    IPFSRT_HAMT_NEVER,       /**< never */
    IPFSRT_HAMT_ENTRIES,     /**< shard when a directory has more entries than the threshold */
    IPFSRT_HAMT_LINK_BYTES,  /**< ... when the sum of name and CID bytes exceeds it (Kubo) */
    IPFSRT_HAMT_BLOCK_BYTES, /**< ... when the plain directory block would exceed it */
} ipfsrt_pack_hamt_rule;

/** How files become a UnixFS DAG (size first: ipfsrt_pack_options_init, or a preset). */
typedef struct ipfsrt_pack_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_pack_options_init (or .size = sizeof) */
    int cid_version;        /**< 0 or 1 (raw leaves are always CIDv1) */
    size_t chunk_size;      /**< fixed-size chunker */
    size_t max_links;       /**< per node of the balanced file DAG */
    bool raw_leaves;        /**< file chunks as raw blocks, not dag-pb nodes */
    ipfsrt_pack_hamt_rule hamt_rule; /**< when a directory is sharded */
    uint64_t hamt_threshold; /**< the rule's threshold: entries or bytes */
    unsigned hamt_fanout;   /**< power of two, 2..1024 */
    bool wrap;              /**< put the input in a directory under its own name */
    bool hidden;            /**< include names starting with '.' (a Zarr v2 folder's .zgroup, .zarray,
                               .zattrs and .zmetadata are included either way) */
    bool follow_layout_of_ipfs_car; /**< root at the deepest directory holding every
                                       file; skip symlinks and file-less directories */
} ipfsrt_pack_options;
/** The defaults (ipfs-car's: CIDv1, raw leaves, 1 MiB chunks), size set:
 * what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_pack_options_init(ipfsrt_pack_options *opts);

/** Sets opts to a tool's settings: "ipfs-car" (3.x), "kubo" (ipfs add
 * defaults) or "kubo-v1-2025".
 * @param name the preset
 * @param opts set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT: an unknown preset (the message lists them) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_pack_preset(const char *name, ipfsrt_pack_options *opts, ipfsrt_error *err);
/** Sets the sharding rule from "never", "entries:N", "link-bytes:N" or
 * "block-bytes:N" (what a command line takes).
 * @param rule the text
 * @param opts set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_pack_parse_hamt_rule(const char *rule, ipfsrt_pack_options *opts,
                                                              ipfsrt_error *err);

/** Receives each block as it is made (children before parents). */
typedef ipfsrt_status (*ipfsrt_pack_sink_fn)(void *user, const ipfsrt_cid *cid, const uint8_t *data,
                                           size_t len, ipfsrt_error *err);

/** Imports a file, directory tree or symlink as UnixFS. Memory stays bounded by
 * the widest directory and the DAG's depth, not by the size of the input.
 * @param path what to import
 * @param opts NULL = the defaults
 * @param sink receives each block as it is made (children before parents)
 * @param user handed to sink
 * @param root set to the DAG's root, on success
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EBAD_ARGUMENT (options that do not fit);
 * IPFSRT_EUNSUPPORTED (a special file); IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY;
 * sink's own error
 * @owner each block is valid during sink's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_pack(const char *path, const ipfsrt_pack_options *opts,
                                              ipfsrt_pack_sink_fn sink, void *user, ipfsrt_cid *root,
                                              ipfsrt_error *err);

/** ipfsrt_pack into a new CAR file (version 1 or 2) whose root is the DAG's
 * root. On failure the file is removed.
 * @param path what to import
 * @param opts NULL = the defaults
 * @param car_path the CAR file
 * @param car_version 1 or 2
 * @param root set to the DAG's root, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_pack and ipfsrt_car_writer_new */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_pack_to_car(const char *path, const ipfsrt_pack_options *opts,
                                                     const char *car_path, int car_version, ipfsrt_cid *root,
                                                     ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
