/** @file
 * ipfsrt — where Zarr keys live: one small interface over local folders, CAR files and IPFS (verified), plain HTTP (unverified), or a store of the caller's own. Keys are relative paths with "/" between parts ("temp/.zarray", "temp/c/0/1"); a key that climbs out of the store ("..", a leading "/") is refused before any store sees it. A store is used from one thread at a time. */
#ifndef IPFSRT_ZARR_STORE_H
#define IPFSRT_ZARR_STORE_H

#include "buf.h"
#include "pack.h"
#include "ranges.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest key a store takes, in bytes. */
#define IPFSRT_ZARR_KEY_MAX 1024

/** A Zarr key store (ipfsrt_zarr_store_open and the constructors): opaque. */
typedef struct ipfsrt_zarr_store ipfsrt_zarr_store;

/** One name directly under a prefix, file or folder. */
typedef struct ipfsrt_zarr_store_entry {
    const char *name; /**< the name alone, valid during the callback */
    uint64_t size;  /**< the bytes under it (a folder's whole content, over IPFS the DAG's
                       cumulative size); UINT64_MAX when the listing does not say */
    bool is_folder; /**< known to be a folder (stores that cannot tell say false) */
    const ipfsrt_cid *cid; /**< content-addressed stores: the name's CID (verified with the listing); else NULL */
} ipfsrt_zarr_store_entry;

/** Sees each entry directly under a prefix (in no particular order). */
typedef ipfsrt_status (*ipfsrt_zarr_store_name_fn)(void *user, const ipfsrt_zarr_store_entry *entry,
                                                   ipfsrt_error *err);

/** What a store implements. Keys reach it checked. get_many reports every
 * request exactly once; a key's failure is its result's, the call itself fails
 * only for what stops everything. list_dir, put and erase may be NULL (not
 * listable, read-only). Size first (.size = sizeof (ipfsrt_zarr_store_ops)):
 * a table built against an older, shorter struct lacks the later members,
 * which then count as NULL. */
typedef struct ipfsrt_zarr_store_ops {
    size_t size;      /**< sizeof (ipfsrt_zarr_store_ops) */
    const char *kind; /**< "folder", "car", "ipfs", "http", or the caller's own */
    bool verified;    /**< every byte it hands out was checked against a CID */
    /** Reads ranges of keys, each reported to fn exactly once (IPFSRT_ENOT_FOUND: absent). */
    ipfsrt_status (*get_many)(void *ctx, const ipfsrt_range_request *requests, size_t n,
                              ipfsrt_range_fn fn, void *user, ipfsrt_error *err);
    /** Each name directly under prefix ("" or ending in "/"); NULL: not listable. */
    ipfsrt_status (*list_dir)(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                              ipfsrt_error *err);
    /** Writes a key's bytes whole; NULL: read-only. */
    ipfsrt_status (*put)(void *ctx, const char *key, const void *data, size_t len, ipfsrt_error *err);
    /** Removes a key (absent is no error); NULL: read-only. */
    ipfsrt_status (*erase)(void *ctx, const char *key, ipfsrt_error *err);
    void (*free)(void *ctx); /**< releases ctx, once, with the store (may be NULL) */
    /** content-addressed stores: later reads of key ask for cid itself (may be NULL) */
    ipfsrt_status (*know)(void *ctx, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err);
} ipfsrt_zarr_store_ops;

/** The clients stores read through: ipfsrt/client.h and ipfsrt/s3.h, which a
 * caller that sets them includes (this header needs neither). */
struct ipfsrt_client;
struct ipfsrt_client_options;
struct ipfsrt_s3_options;

/** How ipfsrt_zarr_store_open opens a store (size first: ipfsrt_zarr_store_options_init). */
typedef struct ipfsrt_zarr_store_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_zarr_store_options_init (or .size = sizeof) */
    struct ipfsrt_client *client; /**< ipfs:// reads through it (borrowed; it must outlive the store);
                                     NULL: the store makes one from client_options */
    const struct ipfsrt_client_options *client_options; /**< for a client the store makes; NULL = defaults */
    bool writable;                /**< folders: allow put and erase, creating the folder */
    const struct ipfsrt_s3_options *s3_options; /**< s3:// stores; NULL = the environment's */
    /** References read verified (from IPFS, a CAR) whose targets lie outside
     * content-addressed places (local files, web servers, S3) are refused,
     * naming the key: a published file must not make a reader read the
     * reader's own files or network as if they were part of it. True: read
     * them anyway, and the store counts as unverified. */
    bool allow_unverified;
} ipfsrt_zarr_store_options;
/** The defaults (a client of the store's own, read-only, references outside
 * IPFS refused), size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_zarr_store_options_init(ipfsrt_zarr_store_options *opts);

/** Opens a store by URL: "ipfs://CID[/path]" or "/ipfs/CID[/path]" (verified,
 * through the client), "http(s)://..." (plain GETs, unverified, many in
 * flight), a kerchunk references file "....json" or "refs+URL" (read from
 * wherever URL is), "s3://bucket[/prefix]" (S3, unverified, writable), a CAR
 * file "FILE.car[/path]" (verified; the path starts at the CAR's root), else a
 * local folder (a path or "file://path").
 * @param store the new store, on success
 * @param url the URL
 * @param opts NULL = the defaults
 * @param err filled on failure, naming the URL
 * @return IPFSRT_OK
 * @errors each kind's (see its constructor); IPFSRT_EUNVERIFIED (references read
 * verified that point outside IPFS, unless allow_unverified)
 * @owner the caller's: ipfsrt_zarr_store_free; a borrowed opts->client must outlive the store */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_open(ipfsrt_zarr_store **store, const char *url,
                                                const ipfsrt_zarr_store_options *opts, ipfsrt_error *err);
/** A local folder.
 * @param store the new store, on success
 * @param path the folder
 * @param writable put and erase allowed, the folder made
 * @param err filled on failure, naming the folder
 * @return IPFSRT_OK
 * @errors IPFSRT_EIO; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_new_folder(ipfsrt_zarr_store **store, const char *path, bool writable,
                                                      ipfsrt_error *err);
/** A CAR file, every block verified.
 * @param store the new store, on success
 * @param car_path the CAR file
 * @param path keys are under this path from the CAR's root ("" or NULL: the root)
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors as ipfsrt_car_file_new; the path's (IPFSRT_ENOT_FOUND, IPFSRT_ENOT_DIRECTORY)
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_new_car(ipfsrt_zarr_store **store, const char *car_path, const char *path,
                                                   ipfsrt_error *err);
/** CAR files read as one, every block verified: the first one's root (and
 * path under it), its blocks taken from it, else from the next file that has
 * them: a new version's delta CAR over the old version's.
 * @param store the new store, on success
 * @param car_paths the CAR files, the one whose root is read first
 * @param n_cars how many (at least one)
 * @param path keys are under this path from the first CAR's root ("" or NULL: the root)
 * @param err filled on failure, naming the file
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_store_new_car; IPFSRT_EBAD_ARGUMENT (no CAR)
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_new_cars(ipfsrt_zarr_store **store, const char *const *car_paths,
                                                             size_t n_cars, const char *path, ipfsrt_error *err);
/** "ipfs://CID[/path]" or "/ipfs/CID[/path]" through a client, every block
 * verified.
 * @param store the new store, on success
 * @param client a verifying client
 * @param url the URL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CID; IPFSRT_EBAD_ARGUMENT (an unverified client, a path too long);
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_store_free; the client is borrowed: it must outlive the store */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_new_ipfs(ipfsrt_zarr_store **store, struct ipfsrt_client *client,
                                                    const char *url, ipfsrt_error *err);
/** A web server's files, "http(s)://..." (plain GETs, unverified), or a CAR
 * there, ".../x.car[/path]" (read by ranges, verified).
 * @param store the new store, on success
 * @param url the URL (its origin parsed by libcurl)
 * @param s3_options for a CAR there (its ranged reads); NULL = the environment's
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not a URL, a host too long); a CAR's as
 * ipfsrt_car_ranged_new; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_new_http(ipfsrt_zarr_store **store, const char *url,
                                                    const struct ipfsrt_s3_options *s3_options, ipfsrt_error *err);
/** The kinds of URL ipfsrt_zarr_store_open knows whose stores a module
 * reads: libipfsrt-s3 (ipfsrt_s3_stores_enable) the first two,
 * libipfsrt-netcdf (ipfsrt_refs_stores_enable) the third. Until a module
 * sets its opener, such a URL fails with IPFSRT_EUNSUPPORTED naming it. */
typedef enum ipfsrt_zarr_scheme {
    IPFSRT_ZARR_SCHEME_S3,         /**< "s3://bucket[/prefix]" */
    IPFSRT_ZARR_SCHEME_REMOTE_CAR, /**< "s3://bucket/x.car[/path]", "http(s)://host/x.car[/path]" */
    IPFSRT_ZARR_SCHEME_REFS,       /**< kerchunk references, "refs+URL" or "....json" */
    IPFSRT_ZARR_SCHEMES            /**< how many */
} ipfsrt_zarr_scheme;
/** Opens a store of a module's kind: its ops and their ctx (handed to
 * ipfsrt_zarr_store_new); car_len, for a remote CAR, how many of url's bytes
 * name the CAR file (the rest is a path from its root), else 0. */
typedef ipfsrt_status (*ipfsrt_zarr_store_opener)(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                                  size_t car_len, const ipfsrt_zarr_store_options *opts,
                                                  ipfsrt_error *err);
/** Lets ipfsrt_zarr_store_open read a kind of URL: what a module's _enable
 * call does. Safe from any thread; the last call for a kind wins.
 * @param scheme the kind of URL (others are ignored)
 * @param opener its opener; NULL: the kind unread again */
IPFSRT_EXPERIMENTAL void ipfsrt_zarr_store_set_opener(ipfsrt_zarr_scheme scheme, ipfsrt_zarr_store_opener opener);
/** A store over the caller's ops and ctx.
 * @param store the new store, on success
 * @param ops copied at its size
 * @param ctx the ops' state
 * @param url for messages
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (ops without its size); IPFSRT_EUNSUPPORTED (a longer
 * ops setting members this library does not know); IPFSRT_EOUT_OF_MEMORY
 * @owner the store takes ctx over: ops->free(ctx), if any, is called by
 * ipfsrt_zarr_store_free, or here when this fails */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_new(ipfsrt_zarr_store **store, const ipfsrt_zarr_store_ops *ops, void *ctx,
                                               const char *url, ipfsrt_error *err);
/** A new version of a content-addressed store: a writable store over old
 * (a CAR's root, or an ipfs:// root: not a path inside it) in which every key
 * not put or erased reads as in old. Nothing is imported until
 * ipfsrt_zarr_store_commit, which makes the new version's blocks: only the
 * values changed, the directories (and HAMT shards) holding them and those
 * above, with the settings old was packed with, so that the new root is the
 * one ipfsrt_pack gives for the changed folder. Memory holds the changed
 * values until then.
 * @param store the new store, on success
 * @param old the old version (borrowed: it must outlive the new store)
 * @param pack the settings old was packed with (NULL = ipfsrt pack's defaults)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (a store that is not content-addressed);
 * IPFSRT_EBAD_ARGUMENT (a store opened at a path inside its root; settings
 * that do not fit); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_store_free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_new_version(ipfsrt_zarr_store **store, ipfsrt_zarr_store *old,
                                                                const ipfsrt_pack_options *pack, ipfsrt_error *err);
/** Makes the new version's blocks from the changes, sending each block the
 * old version lacks to sink (children before parents), and names its root.
 * After it succeeds the store takes no more changes (it still reads).
 * @param store a store from ipfsrt_zarr_store_new_version
 * @param sink receives the blocks
 * @param user handed to sink
 * @param root set to the new root, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not a new version, or committed already); as
 * ipfsrt_patch_finish (the old version's blocks, names that are not paths);
 * the sink's own error
 * @owner each block is valid during sink's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_commit(ipfsrt_zarr_store *store, ipfsrt_pack_sink_fn sink,
                                                           void *user, ipfsrt_cid *root, ipfsrt_error *err);
/** ipfsrt_zarr_store_commit into a CARv1 whose root is the new root: the
 * delta a reader who has the old version needs. It is written beside
 * car_path ("car_path.partial") and renamed to it once whole.
 * @param store a store from ipfsrt_zarr_store_new_version
 * @param car_path the CAR file
 * @param root set to the new root, on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_store_commit and ipfsrt_car_writer_new; IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_commit_car(ipfsrt_zarr_store *store, const char *car_path,
                                                               ipfsrt_cid *root, ipfsrt_error *err);
/** What changed between two versions held in content-addressed stores (CARs,
 * ipfs:// roots: not paths inside them): ipfsrt_unixfs_diff of their roots,
 * each store's blocks read (verified) from where it reads them.
 * @param old_store the old version's store
 * @param new_store the new version's store
 * @param fn called per file that differs (a key: "sst/3.0.0.0")
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (a store that is not content-addressed);
 * IPFSRT_EBAD_ARGUMENT (a store opened at a path inside its root); as
 * ipfsrt_unixfs_diff
 * @owner each change is valid during fn's call only */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_diff(ipfsrt_zarr_store *old_store, ipfsrt_zarr_store *new_store,
                                                         ipfsrt_unixfs_change_fn fn, void *user, ipfsrt_error *err);
/** Releases a store (and its ctx, through its free).
 * @param store the store, or NULL
 * @owner everything it lent is no longer valid */
IPFSRT_API void ipfsrt_zarr_store_free(ipfsrt_zarr_store *store);

/** The URL the store was opened with, for messages.
 * @param store the store
 * @return the URL
 * @owner the store's */
IPFSRT_API const char *ipfsrt_zarr_store_url(const ipfsrt_zarr_store *store);
/** The store's kind: "folder", "car", "ipfs", "http", "s3", "refs", ... or a
 * caller's own.
 * @param store the store
 * @return the kind
 * @owner the store's (or the ops' string) */
IPFSRT_API const char *ipfsrt_zarr_store_kind(const ipfsrt_zarr_store *store);
/** Whether every byte the store hands out was checked against a CID.
 * @param store the store
 * @return true for verified stores */
IPFSRT_API bool ipfsrt_zarr_store_verified(const ipfsrt_zarr_store *store);
/** Whether put and erase work.
 * @param store the store
 * @return true when writable */
IPFSRT_API bool ipfsrt_zarr_store_writable(const ipfsrt_zarr_store *store);
/** Begins a change made in place (an append, a region written again): in a
 * folder, takes the folder's lock (other processes' changes wait for it; the
 * lock is flock(2) on the folder itself, nothing is added to the store),
 * completes or undoes what a crashed change left, and from then on keeps the
 * metadata documents written aside until ipfsrt_zarr_store_end, which puts
 * them in place together (the consolidated ones last): a crash leaves the old
 * version or the new one for readers with or without consolidated metadata.
 * Chunks are written in place as they come (past an array's old end they are
 * invisible to the old version). Other stores: nothing (S3 has no locks).
 * @param store a store opened to be written
 * @param wait_s how long to wait for another process's change to end
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ETIMED_OUT (the lock was held all along); IPFSRT_EBAD_ARGUMENT
 * (a change under way already, a stage that is not the folder's own);
 * IPFSRT_EIO */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_begin(ipfsrt_zarr_store *store, double wait_s, ipfsrt_error *err);
/** Ends a change begun with ipfsrt_zarr_store_begin: its metadata put in place
 * (commit) or dropped, and the lock released. Freeing the store ends one
 * without committing.
 * @param store the store
 * @param commit whether the change's metadata takes effect
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (no change under way); IPFSRT_EIO (a rename
 * failed: the next change completes it) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_store_end(ipfsrt_zarr_store *store, bool commit, ipfsrt_error *err);
/** Whether list_dir works.
 * @param store the store
 * @return true when listable */
IPFSRT_API bool ipfsrt_zarr_store_listable(const ipfsrt_zarr_store *store);

/** Whether a key may be used: not empty, not absolute, no "." or ".." parts, no
 * empty parts, no control characters, not too long. Every store call checks
 * its keys this way.
 * @param key the key
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT */
IPFSRT_API ipfsrt_status ipfsrt_zarr_key_check(const char *key, ipfsrt_error *err);

/** Many values (or ranges of them) at once: fn sees each as it completes,
 * exactly once; a key's failure is its result's, the call itself fails only
 * for what stops everything.
 * @param store the store
 * @param requests n requests
 * @param n how many
 * @param fn called per result
 * @param user handed to fn
 * @param err filled when the whole call fails
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a key refused); IPFSRT_EOUT_OF_MEMORY; fn's own error
 * @owner each result's bytes are valid during fn's call only (or held through its lent) */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_get_many(ipfsrt_zarr_store *store, const ipfsrt_range_request *requests,
                                                    size_t n, ipfsrt_range_fn fn, void *user,
                                                    ipfsrt_error *err);
/** A whole value, appended to out.
 * @param store the store
 * @param key the key
 * @param out appended to
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (the key is absent: proven so for verified stores), the
 * store's own (a client's IPFSRT_EFETCH_FAILED and IPFSRT_EUNAVAILABLE,
 * IPFSRT_EHASH_MISMATCH, IPFSRT_EIO, IPFSRT_EDENIED), IPFSRT_EBAD_ARGUMENT (a key
 * ipfsrt_zarr_key_check refuses), IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_get(ipfsrt_zarr_store *store, const char *key, ipfsrt_buf *out,
                                               ipfsrt_error *err);
/** Bytes [offset, offset + length) of a value, appended to out.
 * @param store the store
 * @param key the key
 * @param offset the first byte
 * @param length bytes
 * @param out appended to
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (the key is absent: proven so for verified stores), the
 * store's own (a client's IPFSRT_EFETCH_FAILED and IPFSRT_EUNAVAILABLE,
 * IPFSRT_EHASH_MISMATCH, IPFSRT_EIO, IPFSRT_EDENIED), IPFSRT_EBAD_ARGUMENT (a key
 * ipfsrt_zarr_key_check refuses), IPFSRT_EOUT_OF_MEMORY; IPFSRT_EBAD_RANGE */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_get_range(ipfsrt_zarr_store *store, const char *key, uint64_t offset,
                                                     uint64_t length, ipfsrt_buf *out, ipfsrt_error *err);
/** A value's last length bytes (all of it when it is shorter), appended to out.
 * @param store the store
 * @param key the key
 * @param length bytes from the end
 * @param out appended to
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (the key is absent: proven so for verified stores), the
 * store's own (a client's IPFSRT_EFETCH_FAILED and IPFSRT_EUNAVAILABLE,
 * IPFSRT_EHASH_MISMATCH, IPFSRT_EIO, IPFSRT_EDENIED), IPFSRT_EBAD_ARGUMENT (a key
 * ipfsrt_zarr_key_check refuses), IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_get_suffix(ipfsrt_zarr_store *store, const char *key, uint64_t length,
                                                      ipfsrt_buf *out, ipfsrt_error *err);
/** The names directly under prefix; nothing when there is no such folder.
 * @param store a listable store
 * @param prefix "" = the top; else a key prefix ending in "/"
 * @param fn called per entry
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (not listable); the store's own; fn's own error
 * @owner each entry is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_list_dir(ipfsrt_zarr_store *store, const char *prefix, ipfsrt_zarr_store_name_fn fn,
                                                    void *user, ipfsrt_error *err);
/** Writes a value.
 * @param store a writable store
 * @param key the key
 * @param data len bytes (copied or written through)
 * @param len how many
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors IPFSRT_EUNSUPPORTED (read-only); IPFSRT_EBAD_ARGUMENT (a key refused);
 * IPFSRT_EIO, IPFSRT_EDENIED */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_put(ipfsrt_zarr_store *store, const char *key, const void *data, size_t len,
                                               ipfsrt_error *err);
/** Removes a value; removing an absent key is not an error.
 * @param store a writable store
 * @param key the key
 * @param err filled on failure, naming the key
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_store_put */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_erase(ipfsrt_zarr_store *store, const char *key, ipfsrt_error *err);
/** Tells a content-addressed store a key's CID, as a listing verified it
 * (another process's, say: ipfsrt.mpi's plan): reads of the key then ask for
 * that CID straight away, every byte still checked against it, instead of
 * walking the directories to it again. Other stores ignore it.
 * @param store the store
 * @param key the key
 * @param cid its CID (copied)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a key refused); IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_store_know(ipfsrt_zarr_store *store, const char *key, const ipfsrt_cid *cid,
                                                ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
