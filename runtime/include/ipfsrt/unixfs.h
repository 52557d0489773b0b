/** @file
 * ipfsrt — UnixFS: the Data message, path resolution, reads, listings, export. */
#ifndef IPFSRT_UNIXFS_H
#define IPFSRT_UNIXFS_H

#include "blocksource.h"
#include "dagpb.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The UnixFS node types (the Data message's Type field). */
typedef enum ipfsrt_unixfs_type {
    IPFSRT_UNIXFS_RAW = 0,        /**< raw bytes in a dag-pb node */
    IPFSRT_UNIXFS_DIRECTORY = 1,  /**< a plain directory */
    IPFSRT_UNIXFS_FILE = 2,       /**< a file (raw-codec blocks count as files too) */
    IPFSRT_UNIXFS_METADATA = 3,   /**< metadata (unused by IPFS today) */
    IPFSRT_UNIXFS_SYMLINK = 4,    /**< a symbolic link: Data holds its target */
    IPFSRT_UNIXFS_HAMT_SHARD = 5, /**< a HAMT-sharded directory's node */
    IPFSRT_UNIXFS_IPLD = 6,       /**< not UnixFS: a whole DAG-CBOR, DAG-JSON, JSON or CBOR block (what
                                       ipfsrt_unixfs_resolve names; never in a Data message) */
} ipfsrt_unixfs_type;

/** The UnixFS Data message carried in PBNode.Data. */
typedef struct ipfsrt_unixfs_data {
    ipfsrt_unixfs_type type; /**< Type */
    const uint8_t *data; /**< borrowed; NULL when absent */
    size_t data_len;     /**< its bytes */
    bool has_filesize;   /**< whether filesize is there */
    uint64_t filesize;   /**< a file's bytes */
    uint64_t *blocksizes; /**< owned: release with ipfsrt_unixfs_data_free */
    size_t blocksize_count; /**< how many: one per child link */
    bool has_hash_type;  /**< whether hashType is there */
    uint64_t hash_type;  /**< a HAMT's hash function (murmur3-x64-64: 0x22) */
    bool has_fanout;     /**< whether fanout is there */
    uint64_t fanout;     /**< a HAMT's fanout */
    bool has_mode;       /**< whether mode is there */
    uint32_t mode;       /**< POSIX permission bits */
    bool has_mtime;      /**< whether mtime is there */
    int64_t mtime_seconds; /**< modification time, seconds since the epoch */
    bool has_mtime_nanos;  /**< whether its nanoseconds are there */
    uint32_t mtime_nanos;  /**< its nanoseconds */
} ipfsrt_unixfs_data;

/** The name of a UnixFS type ("file", "directory", "hamt-shard").
 * @param type any value; "unknown" outside the enum
 * @return a static string
 * @owner the library's */
IPFSRT_API const char *ipfsrt_unixfs_type_name(ipfsrt_unixfs_type type);
/** Decodes a UnixFS Data message (the PBNode's Data), strictly.
 * @param buf the bytes (untrusted: only len are read)
 * @param len how many
 * @param data filled on success; empty (nothing to free) on failure
 * @param err filled on failure, with the offset at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_UNIXFS; IPFSRT_EOUT_OF_MEMORY
 * @owner data->blocksizes is the caller's (ipfsrt_unixfs_data_free); data->data borrows buf */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_data_decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *data,
                                                   ipfsrt_error *err);
/** Releases a decoded message's block sizes and empties it.
 * @param data the message, or NULL
 * @owner blocksizes is freed */
IPFSRT_API void ipfsrt_unixfs_data_free(ipfsrt_unixfs_data *data);
/** Encodes a Data message: fields in field-number order, blocksizes unpacked,
 * as Go and JS write them.
 * @param data the message (read only)
 * @param out appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_data_encode(const ipfsrt_unixfs_data *data, ipfsrt_buf *out,
                                                   ipfsrt_error *err);

#define IPFSRT_UNIXFS_MAX_DEPTH 128  /**< file DAG levels */
#define IPFSRT_UNIXFS_MAX_SYMLINKS 32 /**< symlinks one resolution may follow */

#define IPFSRT_UNIXFS_MAX_DUP_BLOCKS 1000000 /**< blocks a listing with dups may repeat */
#define IPFSRT_UNIXFS_MAX_ENTRIES ((uint64_t)1 << 24) /**< entries one directory listing may hold */

/** What ipfsrt_unixfs_blocks_for lists beside the path: the trustless
 * gateway's dag-scope (ENTITY first: the default of zeroed options). */
typedef enum ipfsrt_unixfs_scope {
    IPFSRT_SCOPE_ENTITY, /**< the path's blocks, the whole file (or the byte range), or the directory's shards */
    IPFSRT_SCOPE_BLOCK,  /**< the blocks of the path, ending with the terminal block */
    IPFSRT_SCOPE_ALL,    /**< ... and the whole DAG under the terminal */
} ipfsrt_unixfs_scope;

/** How paths are walked (size first: ipfsrt_unixfs_options_init). */
typedef struct ipfsrt_unixfs_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_unixfs_options_init (or .size = sizeof) */
    bool follow_symlinks; /**< resolve through symlinks inside the DAG */
    bool dups;            /**< block lists: a block each time the walk meets it, not once */
    /** ipfsrt_unixfs_blocks_for only: */
    ipfsrt_unixfs_scope scope; /**< what beside the path; default ENTITY */
    uint64_t offset;           /**< ENTITY on a file: the first byte; default 0 */
    uint64_t length;           /**< ENTITY on a file: bytes from offset; 0 (the default) = to the end */
    /** ipfsrt_unixfs_resolve only: called with the CID of each node the walk
     * passes through, the root first and the terminal last (HAMT shards
     * inside a directory are not nodes of the path); anything but IPFSRT_OK
     * stops the walk. NULL (the default): none. */
    ipfsrt_status (*step)(void *user, const ipfsrt_cid *cid, ipfsrt_error *err);
    void *step_user; /**< handed to step */
} ipfsrt_unixfs_options;
/** The defaults (no symlinks followed, blocks listed once, a block list of
 * the whole entity), size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_unixfs_options_init(ipfsrt_unixfs_options *opts);

/** What a path names. type is FILE for raw-codec blocks too. */
typedef struct ipfsrt_unixfs_node_info {
    ipfsrt_cid cid;          /**< its CID */
    ipfsrt_unixfs_type type; /**< what it is */
    uint64_t size;      /**< file bytes; symlink target length; directories: 0 */
    bool has_mode;      /**< whether mode is set */
    uint32_t mode;      /**< POSIX permission bits */
    bool has_mtime;     /**< whether the mtime is set */
    int64_t mtime_seconds; /**< modification time, seconds since the epoch */
    uint32_t mtime_nanos;  /**< its nanoseconds */
} ipfsrt_unixfs_node_info;

/** What a path names, each block on the way taken from src (verified there).
 * @param src the block source
 * @param path CID[/path], /ipfs/CID[/path] or ipfs://CID[/path]
 * @param opts NULL = the defaults
 * @param info set on success (type FILE for raw-codec blocks too)
 * @param err filled on failure, naming the path and CID at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID (the root); IPFSRT_ENOT_FOUND (a verified directory
 * without the name); IPFSRT_ENOT_DIRECTORY; IPFSRT_ESYMLINK (a symlink, not
 * followed); the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks) */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_resolve(const ipfsrt_blocksource *src, const char *path,
                                               const ipfsrt_unixfs_options *opts,
                                               ipfsrt_unixfs_node_info *info, ipfsrt_error *err);

/** File bytes [offset, offset + length) in order; length UINT64_MAX = to the end.
 * Fetches only the blocks the range needs and checks that sizes add up. */
typedef ipfsrt_status (*ipfsrt_unixfs_write_fn)(void *user, const uint8_t *data, size_t len,
                                         ipfsrt_error *err);
/** File bytes [offset, offset + length) in order, fetching only the blocks the
 * range needs and checking that sizes add up.
 * @param src the block source
 * @param file the file's CID (dag-pb or raw)
 * @param offset the first byte
 * @param length bytes; UINT64_MAX = to the end
 * @param write called with the bytes in order
 * @param user handed to write
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FILE; IPFSRT_EBAD_RANGE (offset past the end); the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks); write's own error
 * @owner the bytes lent to write are valid during its call only */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_read(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                            uint64_t offset, uint64_t length, ipfsrt_unixfs_write_fn write,
                                            void *user, ipfsrt_error *err);

/** Receives CIDs one at a time. */
typedef ipfsrt_status (*ipfsrt_unixfs_cid_fn)(void *user, const ipfsrt_cid *cid, ipfsrt_error *err);

/** The blocks a read of [offset, offset + length) of the file needs that src
 * lacks (its get answers IPFSRT_ENOT_FOUND), reported to fn without stopping at
 * the first, so that a prefetcher can ask for a whole level at once. What lies
 * under a missing block is not known yet and not reported.
 * @param src the block source
 * @param file the file's CID
 * @param offset the first byte
 * @param length bytes; UINT64_MAX = to the end
 * @param fn called per missing CID
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_unixfs_read but IPFSRT_ENOT_FOUND; fn's own error
 * @owner each CID is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_missing(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                               uint64_t offset, uint64_t length, ipfsrt_unixfs_cid_fn fn,
                                               void *user, ipfsrt_error *err);

/** A directory entry, as ipfsrt_unixfs_ls reports it. */
typedef struct ipfsrt_unixfs_entry {
    const char *name;   /**< NUL-terminated copy, valid during the callback */
    size_t name_len;    /**< its bytes */
    ipfsrt_cid cid;     /**< the entry's CID */
    uint64_t tsize;     /**< the link's cumulative size hint */
    bool has_type;      /**< known for raw CIDs, or when types were asked for */
    ipfsrt_unixfs_type type; /**< with has_type: what it is */
    uint64_t size;      /**< with has_type: as in ipfsrt_unixfs_node_info */
    /** when types were asked for: IPFSRT_OK, or why this entry's own block could
     * not be read (missing, malformed); the listing goes on past it */
    ipfsrt_status problem;
} ipfsrt_unixfs_entry;

/** Sees each entry of a listing; anything but IPFSRT_OK stops it. */
typedef ipfsrt_status (*ipfsrt_unixfs_entry_fn)(void *user, const ipfsrt_unixfs_entry *entry,
                                         ipfsrt_error *err);
/** Lists a directory, plain or HAMT-sharded, in link order.
 * @param src the block source
 * @param dir the directory's CID
 * @param fetch_types fetch each child block to report its type and size (an
 * entry whose block fails says why in its problem; the listing goes on)
 * @param fn called per entry
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_DIRECTORY; the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks); fn's own error
 * @owner each entry is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_ls(const ipfsrt_blocksource *src, const ipfsrt_cid *dir,
                                          bool fetch_types, ipfsrt_unixfs_entry_fn fn, void *user,
                                          ipfsrt_error *err);

/** How a file differs between two versions. */
typedef enum ipfsrt_unixfs_change_kind {
    IPFSRT_UNIXFS_ADDED,   /**< in the new version only */
    IPFSRT_UNIXFS_REMOVED, /**< in the old version only */
    IPFSRT_UNIXFS_CHANGED  /**< in both, with other bytes */
} ipfsrt_unixfs_change_kind;

/** One file (or symlink) that differs between two versions. */
typedef struct ipfsrt_unixfs_change {
    const char *path;              /**< from the roots: "a/b/c" */
    ipfsrt_unixfs_change_kind kind; /**< added, removed or changed */
    const ipfsrt_cid *old_cid;     /**< NULL when added */
    const ipfsrt_cid *new_cid;     /**< NULL when removed */
    uint64_t old_tsize;            /**< the old link's cumulative size (0 where absent) */
    uint64_t new_tsize;            /**< the new link's */
} ipfsrt_unixfs_change;

/** Sees each change; anything but IPFSRT_OK stops the diff. */
typedef ipfsrt_status (*ipfsrt_unixfs_change_fn)(void *user, const ipfsrt_unixfs_change *change, ipfsrt_error *err);

/** What changed between two versions of a directory: each file (or symlink)
 * added, removed or changed, from verified blocks. A subtree with the same CID
 * on both sides is the same and is not read; directories whose CIDs differ
 * are listed side by side, and what only one side holds is walked to name
 * each file in it (a name that is a file on one side and a directory on the
 * other is its files removed and added). In name order, depth first.
 * @param old_src where the old version's blocks come from
 * @param old_root the old version's root directory
 * @param new_src where the new version's blocks come from (may be old_src)
 * @param new_root the new version's root directory
 * @param fn called per file that differs
 * @param user handed to fn
 * @param err filled on failure, naming the path at fault
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_DIRECTORY (a root that is not a directory); the blocks'
 * (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH, a source's fetch
 * errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS; IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries); IPFSRT_EOUT_OF_MEMORY; fn's own error
 * @owner each change is valid during fn's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_unixfs_diff(const ipfsrt_blocksource *old_src, const ipfsrt_cid *old_root,
                                                     const ipfsrt_blocksource *new_src, const ipfsrt_cid *new_root,
                                                     ipfsrt_unixfs_change_fn fn, void *user, ipfsrt_error *err);

/** Every block a trustless client needs for path, each once (unless
 * opts->dups), in the order they are first needed: those resolving it, then
 * as opts->scope says (the trustless gateway's dag-scope): for ENTITY the
 * file's (opts->offset and opts->length: a byte range of it) or the
 * directory's, for ALL the whole DAG under it.
 * @param src the block source
 * @param path the path
 * @param opts NULL = the defaults (ENTITY, the whole file)
 * @param fn called per CID
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_unixfs_resolve and ipfsrt_unixfs_read; fn's own error
 * @owner each CID is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_blocks_for(const ipfsrt_blocksource *src, const char *path,
                                                  const ipfsrt_unixfs_options *opts, ipfsrt_unixfs_cid_fn fn,
                                                  void *user, ipfsrt_error *err);

/** A symlink's target.
 * @param src the block source
 * @param cid the symlink's CID
 * @param target set to a NUL-terminated copy, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_UNIXFS (not a symlink, an empty target or one with a NUL); the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks); IPFSRT_EOUT_OF_MEMORY
 * @owner *target is the caller's: free() it */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_readlink(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                char **target, ipfsrt_error *err);

/** Counts the distinct blocks of the DAG under cid (raw leaves are counted from
 * their links, without being fetched).
 * @param src the block source
 * @param cid the DAG's root
 * @param blocks set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks) */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_count_blocks(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                    uint64_t *blocks, ipfsrt_error *err);

/** Whether dest can be exported to: it must not exist, and the folder it goes
 * in must. Export checks this too; callers that fetch first check before.
 * @param dest a file system path
 * @param err filled on failure, naming dest
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_export_check(const char *dest, ipfsrt_error *err);
/** Gives a written file the mode and mtime its node records (no set-id bits);
 * failures are ignored (metadata is advisory).
 * @param info the node's
 * @param path the written file */
IPFSRT_API void ipfsrt_unixfs_apply_metadata(const ipfsrt_unixfs_node_info *info, const char *path);
/** Writes the file, directory tree or symlink at cid to dest, which must not
 * exist. Everything goes to a temporary sibling first and is renamed into
 * place only when complete and verified; on failure nothing is left behind.
 * @param src the block source
 * @param cid the root
 * @param dest a file system path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO (naming the path); the blocks' (IPFSRT_ENOT_FOUND from the source, IPFSRT_EHASH_MISMATCH,
 * a source's fetch errors); IPFSRT_EBAD_DAGPB, IPFSRT_EBAD_UNIXFS (a DAG that
 * contradicts itself, sizes that do not add up), IPFSRT_ETOO_LARGE (past the
 * walk's bounds: depth, entries, symlinks) */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_export(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                              const char *dest, ipfsrt_error *err);

/** MurmurHash3 x64_128 (seed 0), its first 64-bit word: the HAMT's hash function.
 * @param data len bytes
 * @param len how many
 * @return the hash */
IPFSRT_API uint64_t ipfsrt_murmur3_x64_64(const uint8_t *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
