/* ipfsrt — UnixFS: the Data message, path resolution, reads, listings, export. */
#ifndef IPFSRT_UNIXFS_H
#define IPFSRT_UNIXFS_H

#include "blocksource.h"
#include "dagpb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ipfsrt_unixfs_type {
    IPFSRT_UNIXFS_RAW = 0,
    IPFSRT_UNIXFS_DIRECTORY = 1,
    IPFSRT_UNIXFS_FILE = 2,
    IPFSRT_UNIXFS_METADATA = 3,
    IPFSRT_UNIXFS_SYMLINK = 4,
    IPFSRT_UNIXFS_HAMT_SHARD = 5,
} ipfsrt_unixfs_type;

/* The UnixFS Data message carried in PBNode.Data. */
typedef struct ipfsrt_unixfs_data {
    ipfsrt_unixfs_type type;
    const uint8_t *data; /* borrowed; NULL when absent */
    size_t data_len;
    bool has_filesize;
    uint64_t filesize;
    uint64_t *blocksizes; /* owned: release with ipfsrt_unixfs_data_free */
    size_t blocksize_count;
    bool has_hash_type;
    uint64_t hash_type;
    bool has_fanout;
    uint64_t fanout;
    bool has_mode;
    uint32_t mode;
    bool has_mtime;
    int64_t mtime_seconds;
    bool has_mtime_nanos;
    uint32_t mtime_nanos;
} ipfsrt_unixfs_data;

IPFSRT_API const char *ipfsrt_unixfs_type_name(ipfsrt_unixfs_type type);
IPFSRT_API ipfsrt_status ipfsrt_unixfs_data_decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *data,
                                                   ipfsrt_error *err);
IPFSRT_API void ipfsrt_unixfs_data_free(ipfsrt_unixfs_data *data);
/* Fields in field-number order; blocksizes unpacked, as Go and JS write them. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_data_encode(const ipfsrt_unixfs_data *data, ipfsrt_buf *out,
                                                   ipfsrt_error *err);

#define IPFSRT_UNIXFS_MAX_DEPTH 128  /* file DAG levels */
#define IPFSRT_UNIXFS_MAX_SYMLINKS 32

#define IPFSRT_UNIXFS_MAX_DUP_BLOCKS 1000000 /* blocks a listing with dups may repeat */
#define IPFSRT_UNIXFS_MAX_ENTRIES ((uint64_t)1 << 24) /* entries one directory listing may hold */

typedef struct ipfsrt_unixfs_options {
    size_t size; /* sizeof the struct: set by ipfsrt_unixfs_options_init (or .size = sizeof) */
    bool follow_symlinks; /* resolve through symlinks inside the DAG */
    bool dups;            /* block lists: a block each time the walk meets it, not once */
} ipfsrt_unixfs_options;
/* The defaults, size set: what a caller then fills in. */
IPFSRT_API void ipfsrt_unixfs_options_init(ipfsrt_unixfs_options *opts);

/* What a path names. type is FILE for raw-codec blocks too. */
typedef struct ipfsrt_unixfs_node_info {
    ipfsrt_cid cid;
    ipfsrt_unixfs_type type;
    uint64_t size;      /* file bytes; symlink target length; directories: 0 */
    bool has_mode;
    uint32_t mode;
    bool has_mtime;
    int64_t mtime_seconds;
    uint32_t mtime_nanos;
} ipfsrt_unixfs_node_info;

/* Accepts CID[/path], /ipfs/CID[/path] and ipfs://CID[/path]. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_resolve(const ipfsrt_blocksource *src, const char *path,
                                               const ipfsrt_unixfs_options *opts,
                                               ipfsrt_unixfs_node_info *info, ipfsrt_error *err);

/* File bytes [offset, offset + length) in order; length UINT64_MAX = to the end.
 * Fetches only the blocks the range needs and checks that sizes add up. */
typedef ipfsrt_status (*ipfsrt_unixfs_write_fn)(void *user, const uint8_t *data, size_t len,
                                         ipfsrt_error *err);
IPFSRT_API ipfsrt_status ipfsrt_unixfs_read(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                            uint64_t offset, uint64_t length, ipfsrt_unixfs_write_fn write,
                                            void *user, ipfsrt_error *err);

/* Receives CIDs one at a time. */
typedef ipfsrt_status (*ipfsrt_unixfs_cid_fn)(void *user, const ipfsrt_cid *cid, ipfsrt_error *err);

/* The blocks a read of [offset, offset + length) of the file needs that src
 * lacks (its get answers IPFSRT_ENOT_FOUND), reported to fn without stopping at
 * the first, so that a prefetcher can ask for a whole level at once. What lies
 * under a missing block is not known yet and not reported. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_missing(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                               uint64_t offset, uint64_t length, ipfsrt_unixfs_cid_fn fn,
                                               void *user, ipfsrt_error *err);

typedef struct ipfsrt_unixfs_entry {
    const char *name;   /* NUL-terminated copy, valid during the callback */
    size_t name_len;
    ipfsrt_cid cid;
    uint64_t tsize;     /* the link's cumulative size hint */
    bool has_type;      /* known for raw CIDs, or when types were asked for */
    ipfsrt_unixfs_type type;
    uint64_t size;      /* with has_type: as in ipfsrt_unixfs_node_info */
    /* when types were asked for: IPFSRT_OK, or why this entry's own block could
     * not be read (missing, malformed); the listing goes on past it */
    ipfsrt_status problem;
} ipfsrt_unixfs_entry;

typedef ipfsrt_status (*ipfsrt_unixfs_entry_fn)(void *user, const ipfsrt_unixfs_entry *entry,
                                         ipfsrt_error *err);
/* Lists a directory, plain or HAMT-sharded, in link order. With fetch_types each
 * child block is fetched to report its type and size. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_ls(const ipfsrt_blocksource *src, const ipfsrt_cid *dir,
                                          bool fetch_types, ipfsrt_unixfs_entry_fn fn, void *user,
                                          ipfsrt_error *err);

/* Every block a trustless client needs to resolve path and read [offset,
 * offset+length) of the file there (or list the directory there), each once, in
 * the order they are first needed. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_blocks_for(const ipfsrt_blocksource *src, const char *path,
                                                  const ipfsrt_unixfs_options *opts, uint64_t offset,
                                                  uint64_t length, ipfsrt_unixfs_cid_fn fn, void *user,
                                                  ipfsrt_error *err);

/* A symlink's target as a NUL-terminated string (free() it). */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_readlink(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                char **target, ipfsrt_error *err);

typedef enum ipfsrt_unixfs_scope {
    IPFSRT_SCOPE_BLOCK,  /* the blocks of the path, ending with the terminal block */
    IPFSRT_SCOPE_ENTITY, /* ... and the whole file (or the byte range), or the directory's shards */
    IPFSRT_SCOPE_ALL,    /* ... and the whole DAG under the terminal */
} ipfsrt_unixfs_scope;

/* ipfsrt_unixfs_blocks_for with the trustless gateway's dag-scope; the range
 * only applies to ENTITY on a file. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_blocks_for_scope(const ipfsrt_blocksource *src, const char *path,
                                                        const ipfsrt_unixfs_options *opts,
                                                        ipfsrt_unixfs_scope scope, uint64_t offset,
                                                        uint64_t length, ipfsrt_unixfs_cid_fn fn, void *user,
                                                        ipfsrt_error *err);

/* Counts the distinct blocks of the DAG under cid (raw leaves are counted from
 * their links, without being fetched). */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_count_blocks(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                                    uint64_t *blocks, ipfsrt_error *err);

/* Whether dest can be exported to: it must not exist, and the folder it goes in
 * must. Export checks this too; callers that fetch first check before. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_export_check(const char *dest, ipfsrt_error *err);
/* Gives a written file the mode and mtime its node records (no set-id bits). */
IPFSRT_API void ipfsrt_unixfs_apply_metadata(const ipfsrt_unixfs_node_info *info, const char *path);
/* Writes the file, directory tree or symlink at cid to dest, which must not exist.
 * Everything goes to a temporary sibling first and is renamed into place only when
 * complete and verified; on failure nothing is left behind. */
IPFSRT_API ipfsrt_status ipfsrt_unixfs_export(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                              const char *dest, ipfsrt_error *err);

/* MurmurHash3 x64_128 (seed 0), first 64-bit word: the HAMT's hash function. */
IPFSRT_API uint64_t ipfsrt_murmur3_x64_64(const uint8_t *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
