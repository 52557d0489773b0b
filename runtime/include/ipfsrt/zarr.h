/** @file
 * ipfsrt — Zarr v2 and v3: groups and arrays in a store (zarr_store.h), their metadata, and selections read into n-d arrays, every chunk fetched at once and decoded on worker threads as it arrives. */
#ifndef IPFSRT_ZARR_H
#define IPFSRT_ZARR_H

#include "codec.h"
#include "ndarray.h"
#include "zarr_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most bytes-to-bytes codecs an array's chunks pass. */
#define IPFSRT_ZARR_MAX_CODECS 16

/** An array's metadata, parsed and checked (sizes cannot overflow, codecs are
 * known and configured): made by ipfsrt_zarr_meta_parse (or an array node
 * holds it: ipfsrt_zarr_array_meta), read through the accessors below,
 * released with ipfsrt_zarr_meta_free. Its layout is the library's own. */
typedef struct ipfsrt_zarr_meta ipfsrt_zarr_meta;

/** Parses an array's metadata: a v2 .zarray or a v3 zarr.json, checked (sizes
 * cannot overflow, codecs are known and configured). Unknown codecs, data types
 * and must_understand extensions are refused by name.
 * @param out the new metadata, on success
 * @param json len bytes of JSON (untrusted)
 * @param len how many
 * @param format 2 or 3
 * @param name the array's path, for messages (which name it and the field at fault)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (malformed, a field at fault); IPFSRT_EUNSUPPORTED (a
 * codec, data type or extension); IPFSRT_ETOO_LARGE (shapes past the bounds);
 * IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_meta_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_meta_parse(ipfsrt_zarr_meta **out, const char *json, size_t len, int format,
                                                const char *name, ipfsrt_error *err);
/** v2: the array's .zattrs (its _ARRAY_DIMENSIONS become dimension names).
 * @param m the metadata
 * @param json len bytes of a JSON object (untrusted)
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_meta_set_attributes(ipfsrt_zarr_meta *m, const char *json, size_t len,
                                                         ipfsrt_error *err);
/** Releases metadata (its codecs, fill value and names).
 * @param m the metadata, or NULL
 * @owner m is freed */
IPFSRT_API void ipfsrt_zarr_meta_free(ipfsrt_zarr_meta *m);
/** Appends the user attributes (v3 zarr.json's, v2 .zattrs once set) as a JSON
 * object's text ("{}" when there are none).
 * @param m the metadata
 * @param json appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_meta_attributes(const ipfsrt_zarr_meta *m, ipfsrt_buf *json, ipfsrt_error *err);

/** What metadata says. Pointers returned borrow m (valid until it is freed);
 * per-dimension lists have ipfsrt_zarr_meta_ndim entries. */
/** The Zarr format.
 * @param m the metadata
 * @return 2 or 3 */
IPFSRT_API int ipfsrt_zarr_meta_format(const ipfsrt_zarr_meta *m);
/** The number of dimensions.
 * @param m the metadata
 * @return 0 (a scalar) to IPFSRT_NDARRAY_MAX_DIMS */
IPFSRT_API int ipfsrt_zarr_meta_ndim(const ipfsrt_zarr_meta *m);
/** The array's shape.
 * @param m the metadata
 * @return its sizes, one per dimension
 * @owner m's */
IPFSRT_API const size_t *ipfsrt_zarr_meta_shape(const ipfsrt_zarr_meta *m);
/** The chunks' shape (a sharded array's: the shards').
 * @param m the metadata
 * @return its sizes, one per dimension
 * @owner m's */
IPFSRT_API const size_t *ipfsrt_zarr_meta_chunks(const ipfsrt_zarr_meta *m);
/** Chunks per dimension: ceil(shape / chunks).
 * @param m the metadata
 * @return the counts, one per dimension
 * @owner m's */
IPFSRT_API const size_t *ipfsrt_zarr_meta_grid(const ipfsrt_zarr_meta *m);
/** The data type values are read as (float16 widened to float32).
 * @param m the metadata
 * @return the dtype */
IPFSRT_API ipfsrt_dtype ipfsrt_zarr_meta_dtype(const ipfsrt_zarr_meta *m);
/** The bytes of one value as read (fixed strings: their width).
 * @param m the metadata
 * @return bytes */
IPFSRT_API size_t ipfsrt_zarr_meta_itemsize(const ipfsrt_zarr_meta *m);
/** The unit of a v2 datetime64/timedelta64 array ("ns", "D", ...).
 * @param m the metadata
 * @return the unit, "" for other types
 * @owner m's */
IPFSRT_API const char *ipfsrt_zarr_meta_datetime_unit(const ipfsrt_zarr_meta *m);
/** The fill value missing chunks read as.
 * @param m the metadata
 * @return a 0-d array in the dtype, or NULL (v2 fill_value null: zeros)
 * @owner m's */
IPFSRT_API const ipfsrt_ndarray *ipfsrt_zarr_meta_fill(const ipfsrt_zarr_meta *m);
/** Whether chunks are stored column-major (v2 order "F").
 * @param m the metadata
 * @return true for Fortran order */
IPFSRT_API bool ipfsrt_zarr_meta_fortran_order(const ipfsrt_zarr_meta *m);
/** How many bytes-to-bytes codecs the chunks pass (v2: filters, compressor).
 * @param m the metadata
 * @return the count */
IPFSRT_API int ipfsrt_zarr_meta_codec_count(const ipfsrt_zarr_meta *m);
/** A bytes-to-bytes codec, in encoding order.
 * @param m the metadata
 * @param i 0 to ipfsrt_zarr_meta_codec_count - 1
 * @return the codec, or NULL for i out of range
 * @owner m's */
IPFSRT_API const ipfsrt_codec *ipfsrt_zarr_meta_codec(const ipfsrt_zarr_meta *m, int i);
/** A sharded array's inner chunks: their metadata (shape: the shard's;
 * chunks: the inner chunks'; grid: inner chunks per shard; their codecs).
 * @param m the metadata
 * @return the inner metadata, or NULL when the array is not sharded
 * @owner m's */
IPFSRT_API const ipfsrt_zarr_meta *ipfsrt_zarr_meta_inner(const ipfsrt_zarr_meta *m);
/** A dimension's name (v3 dimension_names, v2 _ARRAY_DIMENSIONS).
 * @param m the metadata
 * @param i 0 to ndim - 1
 * @return the name, or NULL when unnamed (or i out of range)
 * @owner m's */
IPFSRT_API const char *ipfsrt_zarr_meta_dimension_name(const ipfsrt_zarr_meta *m, int i);
/** The array's path or key, as messages name it.
 * @param m the metadata
 * @return the name
 * @owner m's */
IPFSRT_API const char *ipfsrt_zarr_meta_name(const ipfsrt_zarr_meta *m);

/** A shard's index size in bytes.
 * @param m a sharded array's metadata
 * @return bytes (0 when not sharded) */
IPFSRT_API size_t ipfsrt_zarr_shard_index_size(const ipfsrt_zarr_meta *m);
/** A shard's index, its (offset, nbytes) pairs decoded from the stored bytes
 * (checksum checked). Entries that overflow or claim more than an inner chunk
 * can hold are errors.
 * @param m a sharded array's metadata
 * @param src len stored bytes (untrusted)
 * @param len ipfsrt_zarr_shard_index_size(m)
 * @param pairs 2 per inner chunk, C order of the inner grid; both UINT64_MAX for
 * an empty inner chunk
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA (a length other than the index's, a failed
 * checksum, entries that overflow or claim too much) */
IPFSRT_API ipfsrt_status ipfsrt_zarr_shard_index_decode(const ipfsrt_zarr_meta *m, const void *src, size_t len,
                                                        uint64_t *pairs, ipfsrt_error *err);

/** The store key of a chunk, relative to the array's own path.
 * @param m the metadata
 * @param index one chunk index per dimension
 * @param buf the key
 * @param cap buf's room
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (an index past the grid, buf too small) */
IPFSRT_API ipfsrt_status ipfsrt_zarr_chunk_key(const ipfsrt_zarr_meta *m, const size_t *index, char *buf, size_t cap,
                                               ipfsrt_error *err);
/** Decodes a stored chunk into a new array of the chunk shape (full size, edge
 * chunks included), native byte order, C order. A shard is decoded whole, its
 * empty inner chunks the fill value.
 * @param m the metadata
 * @param index the chunk's index, for messages
 * @param src len stored bytes (untrusted)
 * @param len how many
 * @param out an initialized array, filled on success
 * @param err filled on failure, naming the chunk's key
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_CHUNK_DATA (corrupt, or another size than the chunk's); a
 * codec's; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_zarr_decode_chunk(const ipfsrt_zarr_meta *m, const size_t *index, const void *src,
                                                  size_t len, ipfsrt_ndarray *out, ipfsrt_error *err);

/* ------------------------------------------------------ groups and arrays */

/** A group or an array of a hierarchy in a store (the store must outlive it).
 * Consolidated metadata (v2 .zmetadata, zarr-python 3's inline v3 form) is
 * read once at the node opened first and serves its descendants: opening them
 * reads nothing more. */
typedef struct ipfsrt_zarr_node ipfsrt_zarr_node;

/** The group or array at path. Opening costs one round of reads (every metadata
 * file the path might hold, at once); consolidated metadata (v2 .zmetadata,
 * zarr-python 3's inline v3 form) is read once at the node opened first and
 * serves its descendants.
 * @param node the new node, on success
 * @param store the store
 * @param path "" or "/" = the store's top
 * @param err filled on failure, naming the path
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (no group or array there); as ipfsrt_zarr_meta_parse;
 * the store's (IPFSRT_EFETCH_FAILED, IPFSRT_EUNAVAILABLE, IPFSRT_EHASH_MISMATCH,
 * IPFSRT_EIO, IPFSRT_EDENIED...); IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_node_free; the store must outlive it */
IPFSRT_API ipfsrt_status ipfsrt_zarr_open(ipfsrt_zarr_node **node, ipfsrt_zarr_store *store, const char *path,
                                          ipfsrt_error *err);
/** A member of a group by name (or a relative path: "a/b").
 * @param node the new node, on success
 * @param group the group
 * @param name the member's name or relative path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_open; IPFSRT_ENOT_DIRECTORY (an array, not a group)
 * @owner the caller's: ipfsrt_zarr_node_free; it shares group's store and
 * consolidated metadata, and may outlive group */
IPFSRT_API ipfsrt_status ipfsrt_zarr_open_child(ipfsrt_zarr_node **node, const ipfsrt_zarr_node *group, const char *name,
                                                ipfsrt_error *err);
/** Releases a node.
 * @param node the node, or NULL
 * @owner its metadata and path are no longer valid */
IPFSRT_API void ipfsrt_zarr_node_free(ipfsrt_zarr_node *node);

/** Whether a node is an array (else a group).
 * @param node the node
 * @return true for an array */
IPFSRT_API bool ipfsrt_zarr_is_array(const ipfsrt_zarr_node *node);
/** The node's path in its store.
 * @param node the node
 * @return "" for the top, else "a/b"
 * @owner the node's */
IPFSRT_API const char *ipfsrt_zarr_path(const ipfsrt_zarr_node *node);
/** The node's Zarr format.
 * @param node the node
 * @return 2 or 3 */
IPFSRT_API int ipfsrt_zarr_format(const ipfsrt_zarr_node *node);
/** An array's metadata.
 * @param node the node
 * @return the metadata, NULL for a group
 * @owner the node's */
IPFSRT_API const ipfsrt_zarr_meta *ipfsrt_zarr_array_meta(const ipfsrt_zarr_node *node);
/** Appends the node's user attributes as a JSON object's text (numbers as
 * stored, to the last digit).
 * @param node the node
 * @param json appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_attributes(const ipfsrt_zarr_node *node, ipfsrt_buf *json, ipfsrt_error *err);
/** The store the node reads from.
 * @param node the node
 * @return the store
 * @owner the caller's, who opened the node on it */
IPFSRT_API ipfsrt_zarr_store *ipfsrt_zarr_node_store(const ipfsrt_zarr_node *node);
/** Appends the node's metadata document as stored (v2 .zarray or .zgroup, v3
 * zarr.json) as text, without its attributes or consolidated metadata: each is
 * held once, however large.
 * @param node the node
 * @param json appended to
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_metadata(const ipfsrt_zarr_node *node, ipfsrt_buf *json, ipfsrt_error *err);

/** A group's members, sorted by name: from the consolidated metadata, else by
 * listing the store (one listing, then one round of metadata reads). */
typedef ipfsrt_status (*ipfsrt_zarr_member_fn)(void *user, const char *name, bool is_array, ipfsrt_error *err);
/** A group's members, sorted by name: from the consolidated metadata, else by
 * listing the store (one listing, then one round of metadata reads).
 * @param group the group
 * @param fn called per member
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_DIRECTORY (an array); IPFSRT_EUNSUPPORTED (a store that
 * cannot list, without consolidated metadata); IPFSRT_ETOO_LARGE (past the
 * bounds on members and their metadata); the store's (IPFSRT_EFETCH_FAILED, IPFSRT_EUNAVAILABLE, IPFSRT_EHASH_MISMATCH,
 * IPFSRT_EIO, IPFSRT_EDENIED...); fn's own error
 * @owner each name is valid during fn's call only */
IPFSRT_API ipfsrt_status ipfsrt_zarr_members(const ipfsrt_zarr_node *group, ipfsrt_zarr_member_fn fn, void *user,
                                             ipfsrt_error *err);

/* ------------------------------------------------------------- reading */

/** Chunks decoded so far of those the read needs; anything but IPFSRT_OK stops it. */
typedef ipfsrt_status (*ipfsrt_zarr_progress_fn)(void *user, size_t done, size_t total, ipfsrt_error *err);

/** How a selection is read (size first: ipfsrt_zarr_read_options_init). */
typedef struct ipfsrt_zarr_read_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_zarr_read_options_init (or .size = sizeof) */
    unsigned threads;                 /**< decoding threads; 0 = ipfsrt_threads(), at most 8 */
    ipfsrt_zarr_progress_fn progress; /**< may be NULL */
    void *progress_user;              /**< handed to progress */
    /** CF decoding as the chunks are decoded, on the decoding threads (what
     * ipfsrt_ndarray_unscale does to the values read, without the stored
     * values' array): out is then of unscale_dtype (float32 or float64).
     * NULL: the values as stored. */
    const ipfsrt_ndarray_scaling *unscale;
    ipfsrt_dtype unscale_dtype; /**< with unscale: float32 or float64 */
    /** Reads in slabs: the bytes of slabs decoded ahead of the one handed over
     * (at least two slabs); 0 = 64 MiB. */
    size_t slabs_ahead_bytes;
} ipfsrt_zarr_read_options;
/** The defaults, size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_zarr_read_options_init(ipfsrt_zarr_read_options *opts);

/** Reads a selection of an array into out (a new C-order array of the array's
 * dtype, or of the options' unscale_dtype). Only the chunks the selection
 * touches are asked for, all at once; each is decoded on a worker thread as it
 * arrives, straight into out where it lies wholly inside the selection. Chunks
 * the store proves absent read as the fill value.
 * @param array an array node
 * @param selection per dimension an index (the dimension goes) or a range with
 * a step (ipfsrt_ndslice); NULL when n is 0
 * @param n parts given; dimensions past n are whole
 * @param out an initialized array, filled on success
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a group, a selection that does not fit: naming the
 * dimension); IPFSRT_EBAD_RANGE (an index out of bounds); IPFSRT_EBAD_CHUNK_DATA
 * (a chunk that decodes to another size, naming its key); IPFSRT_ETOO_LARGE (a
 * result past what memory may hold); the store's (IPFSRT_EFETCH_FAILED, IPFSRT_EUNAVAILABLE, IPFSRT_EHASH_MISMATCH,
 * IPFSRT_EIO, IPFSRT_EDENIED...); a progress function's
 * error; IPFSRT_EOUT_OF_MEMORY
 * @owner out's buffer is the caller's (ipfsrt_ndarray_free) */
IPFSRT_API ipfsrt_status ipfsrt_zarr_read(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                          ipfsrt_ndarray *out, const ipfsrt_zarr_read_options *opts, ipfsrt_error *err);
/** A slab of a read in slabs: the selection's positions [start, start +
 * count) along the slab dimension, as a read of them would give them (C
 * order, indexed dimensions dropped). The slab is fn's, to keep or to free. */
typedef ipfsrt_status (*ipfsrt_zarr_slab_fn)(void *user, size_t start, size_t count, ipfsrt_ndarray *slab,
                                             ipfsrt_error *err);

/** Reads a selection in slabs along its first dimension not indexed: slab i
 * ends before position ends[i] of the selection. One read: every chunk asked
 * for at once, each decoded as it arrives, each slab handed to fn on the
 * calling thread in order as soon as it is whole, while the chunks of the next
 * are fetched and decoded; memory holds the slab fn has, the next ones
 * (opts->slabs_ahead_bytes of them), and chunks of later slabs still encoded.
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param ends ascending, the last the dimension's length, each at a boundary between chunks
 * @param n_slabs how many
 * @param opts NULL = the defaults
 * @param fn called per slab, in order; it must not use the array's store
 * @param user handed to fn
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read; IPFSRT_EUNSUPPORTED (a boundary inside a chunk, or
 * a reversed dimension: read slabs one by one instead); fn's own error
 * @owner each slab is fn's, to keep or to free */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_read_slabs(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                                         const size_t *ends, size_t n_slabs, const ipfsrt_zarr_read_options *opts,
                                                         ipfsrt_zarr_slab_fn fn, void *user, ipfsrt_error *err);

/** What a fold of an array's values gathers, over its elements other than NaN
 * and the values left out: their count, sum (integers exactly, in 64 bits,
 * wrapping as numpy's sums), least and greatest (NaN when there are none). */
typedef struct ipfsrt_zarr_summary {
    uint64_t count; /**< values folded */
    bool integer; /**< the values are integers: the sum is isum */
    int64_t isum; /**< integers' sum, exact (wrapping as numpy's) */
    double sum;   /**< floats' sum */
    double min;   /**< the least (NaN when none) */
    double max;   /**< the greatest (NaN when none) */
} ipfsrt_zarr_summary;

/** A fold gathers sums (ipfsrt_zarr_fold_options.what). */
#define IPFSRT_ZARR_FOLD_SUMS 1u
/** A fold gathers least and greatest values. */
#define IPFSRT_ZARR_FOLD_EXTREMES 2u

/** How a fold (summarize, locate_extremes, summarize_along, _groups) reads
 * and what it gathers. Caller-filled: size first
 * (ipfsrt_zarr_fold_options_init); NULL options are the defaults. */
typedef struct ipfsrt_zarr_fold_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_zarr_fold_options_init (or .size = sizeof) */
    const ipfsrt_zarr_read_options *read; /**< how chunks are read and unscaled; NULL = defaults */
    const double *skip;                   /**< n_skip values left out (CF missing values) */
    size_t n_skip;                        /**< how many */
    unsigned what; /**< IPFSRT_ZARR_FOLD_* gathered besides counts: summarize takes sums
                      always, min and max with EXTREMES (else NaN); the per-position
                      folds take each as asked; locate_extremes ignores it */
} ipfsrt_zarr_fold_options;
/** The defaults (default reads, nothing skipped, counts and sums), size set:
 * what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_EXPERIMENTAL void ipfsrt_zarr_fold_options_init(ipfsrt_zarr_fold_options *opts);

/** Folds a selection of an array into *out without building it: each chunk is
 * summarized on a decoding thread as it is decoded (after the read's
 * unscale), and the chunks' summaries are combined in chunk order, so that
 * the result is the same on any number of threads, whatever order the chunks
 * arrive in.
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param opts NULL = the defaults; what: EXTREMES for min and max too (else NaN)
 * @param out set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read; IPFSRT_EUNSUPPORTED (values that are neither numbers
 * nor booleans) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_summarize(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                                        const ipfsrt_zarr_fold_options *opts, ipfsrt_zarr_summary *out,
                                                        ipfsrt_error *err);

/** Where a selection's least and greatest values are: the count of its values
 * other than NaN and the values left out, the least and greatest (NaN when
 * none) and their places, flat in C order over the selection as a read gives
 * it (indexed dimensions dropped); ties go to the first place, as numpy's
 * argmin and argmax. */
typedef struct ipfsrt_zarr_extremes {
    uint64_t count;  /**< values looked at */
    double min;      /**< the least (NaN when none) */
    double max;      /**< the greatest (NaN when none) */
    uint64_t min_at; /**< where the least is, flat in C order */
    uint64_t max_at; /**< where the greatest is */
} ipfsrt_zarr_extremes;

/** Locates the extremes of a selection without building it: each chunk
 * scanned once, in its own type, on the decoding thread that decoded it (after
 * the read's unscale), the chunks' answers combined in chunk order (the same
 * answer on any thread count).
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param opts NULL = the defaults (what is ignored)
 * @param out set on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read; IPFSRT_EUNSUPPORTED (negative steps, 64-bit integers) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_locate_extremes(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection,
                                                              int n, const ipfsrt_zarr_fold_options *opts,
                                                              ipfsrt_zarr_extremes *out, ipfsrt_error *err);

/** Summaries along some dimensions of a selection: for each position of the
 * others, the count of its values other than NaN and the values left out,
 * their sum and least and greatest (float64, NaN where nothing counts). The
 * arrays have the selection's shape without the dimensions folded along (and
 * without indexed ones, as a read drops them); they are built as the chunks
 * are decoded, on the decoding threads: the selection itself never is. Counts,
 * extremes and integer sums (int64, exact, wrapping as numpy's) come out the
 * same in any order of arrival; a float sum only where one chunk holds all the
 * values of a position (its rounding would follow the order chunks arrive in:
 * IPFSRT_EUNSUPPORTED otherwise). Caller-owned: _init, then _free. */
typedef struct ipfsrt_zarr_summaries {
    ipfsrt_ndarray count; /**< int64 */
    ipfsrt_ndarray sum;   /**< int64 for integer values (after opts->unscale), float64 else; with SUMS */
    ipfsrt_ndarray min;   /**< with EXTREMES: the least per position */
    ipfsrt_ndarray max;   /**< with EXTREMES: the greatest per position */
} ipfsrt_zarr_summaries;

/** Empty summaries.
 * @param s the caller's struct
 * @owner the caller's; its arrays are released by ipfsrt_zarr_summaries_free */
IPFSRT_EXPERIMENTAL void ipfsrt_zarr_summaries_init(ipfsrt_zarr_summaries *s);
/** Releases the summaries' arrays and empties them.
 * @param s the summaries
 * @owner its arrays are freed */
IPFSRT_EXPERIMENTAL void ipfsrt_zarr_summaries_free(ipfsrt_zarr_summaries *s);
/** Summaries along some dimensions of a selection: for each position of the
 * others, the count of its values other than NaN and the values left out,
 * their sum and least and greatest, built as the chunks are decoded (the
 * selection itself never is). A float sum only where one chunk holds all the
 * values of a position (its rounding would follow the order chunks arrive in).
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param along one flag per array dimension: folded along it
 * @param opts NULL = the defaults; what: SUMS, EXTREMES
 * @param out initialized; replaced on success (left as it was on failure)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read; IPFSRT_EUNSUPPORTED (values that are neither numbers
 * nor booleans); IPFSRT_EUNSUPPORTED (float sums across chunks)
 * @owner out's arrays are the caller's (ipfsrt_zarr_summaries_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_summarize_along(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                                              const bool *along, const ipfsrt_zarr_fold_options *opts,
                                                              ipfsrt_zarr_summaries *out, ipfsrt_error *err);

/** Weighted sums over the last dimensions of a selection: for each position
 * of its first kept dimensions (the selection's, indexed ones dropped as a read
 * drops them), the sum of value x weight and the sum of the weights, over the
 * values other than NaN and opts->skip, built as the chunks are decoded (the
 * selection never is): a weighted daily mean over latitude and longitude at
 * the cost of reading the days. Products and sums are float64; each chunk's
 * part is kept apart and the parts are added in chunk order at the end, so the
 * sums are the same on any thread count and in any order of arrival.
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param kept the selection's leading dimensions kept (the others are summed over)
 * @param weights float64, contiguous, shaped as the selection's dimensions after the kept ones
 * @param opts NULL = the defaults (what is ignored)
 * @param num initialized; replaced on success: float64, the kept dimensions' shape
 * @param den initialized; replaced on success: as num, the weights summed
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read; IPFSRT_EBAD_ARGUMENT (weights not float64 or not
 * of the folded dimensions' shape); IPFSRT_EUNSUPPORTED (values that are not
 * numbers); IPFSRT_ETOO_LARGE (more than 256 MiB of partial sums: positions kept
 * x chunks across the folded dimensions)
 * @owner num's and den's arrays are the caller's */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_weighted_sums(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                                            int kept, const ipfsrt_ndarray *weights,
                                                            const ipfsrt_zarr_fold_options *opts, ipfsrt_ndarray *num,
                                                            ipfsrt_ndarray *den, ipfsrt_error *err);

/** Groups along dimension dim (the array's; kept, not the last): selected
 * position j of dim goes into group group_of[j] (< n_groups, or SIZE_MAX:
 * left out; one entry per selected position). */
typedef struct ipfsrt_zarr_groups {
    int dim;                /**< the dimension grouped along */
    const size_t *group_of; /**< each selected position's group (SIZE_MAX: left out) */
    size_t n_groups;        /**< how many groups */
} ipfsrt_zarr_groups;

/** Summaries per group: as folding along groups->dim, but into the groups, so
 * the summaries have n_groups positions along it: monthly means of daily data
 * from one read.
 * @param array an array node
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param groups the dimension (kept, not the last) and each selected position's group
 * @param opts NULL = the defaults; what: SUMS, EXTREMES
 * @param out initialized; replaced on success
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_summarize_along; IPFSRT_EBAD_ARGUMENT (a group past
 * n_groups, the last dimension, a group_of of another length)
 * @owner out's arrays are the caller's (ipfsrt_zarr_summaries_free) */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_summarize_groups(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                                               const ipfsrt_zarr_groups *groups,
                                                               const ipfsrt_zarr_fold_options *opts, ipfsrt_zarr_summaries *out,
                                                               ipfsrt_error *err);

/** Reads n arrays whole, their chunks asked for in one batch when they share a
 * store and are few (one round trip between them over a gateway), else one
 * read after another.
 * @param arrays n array nodes
 * @param n how many
 * @param outs n initialized arrays, filled on success
 * @param err filled on failure, naming the array
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read
 * @owner the outs' buffers are the caller's */
IPFSRT_API ipfsrt_status ipfsrt_zarr_read_many(const ipfsrt_zarr_node *const *arrays, size_t n, ipfsrt_ndarray *outs,
                                               ipfsrt_error *err);

/** Reads n selections of one array, every chunk of all of them asked for in one
 * batch when they are few and the array is not sharded (else one read after
 * another): the pieces a list of labels or a set of points selects, in one
 * round trip.
 * @param array an array node
 * @param sels n selections, sels[i] of ns[i] parts, as ipfsrt_zarr_read takes them
 * @param ns their parts
 * @param n how many
 * @param outs n initialized arrays, filled on success; all left empty on failure
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_read
 * @owner the outs' buffers are the caller's */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_read_boxes(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *const *sels,
                                                         const int *ns, size_t n, ipfsrt_ndarray *outs,
                                                         const ipfsrt_zarr_read_options *opts, ipfsrt_error *err);

/* ------------------------------------------------------------- writing */

/** Writes an array's metadata at path in a writable store and opens it. Groups
 * are made where path's parents have none.
 * @param node the new node, on success
 * @param store a writable store
 * @param path the array's path
 * @param metadata len bytes: a v2 .zarray or a v3 zarr.json document (checked
 * as a reader would check it first; a v2 document may carry "attributes",
 * written as its .zattrs)
 * @param len how many
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_meta_parse; as ipfsrt_zarr_store_put; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_node_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_create_array(ipfsrt_zarr_node **node, ipfsrt_zarr_store *store, const char *path,
                                                  const char *metadata, size_t len, ipfsrt_error *err);
/** Writes a group at path in a writable store and opens it.
 * @param node the new node, on success
 * @param store a writable store
 * @param path the group's path
 * @param zarr_format 2 or 3
 * @param attributes a JSON object's text, or NULL
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a format, attributes that are not an object); as
 * ipfsrt_zarr_store_put; IPFSRT_EOUT_OF_MEMORY
 * @owner the caller's: ipfsrt_zarr_node_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_create_group(ipfsrt_zarr_node **node, ipfsrt_zarr_store *store, const char *path,
                                                  int zarr_format, const char *attributes, ipfsrt_error *err);
/** A node like src at path: an array with src's metadata document and
 * attributes to the last digit, or a group with src's attributes.
 * @param node the new node, on success
 * @param store a writable store
 * @param path where
 * @param src the node copied
 * @param zarr_format 0: src's (an array's cannot change)
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors as ipfsrt_zarr_create_array and ipfsrt_zarr_create_group
 * @owner the caller's: ipfsrt_zarr_node_free */
IPFSRT_API ipfsrt_status ipfsrt_zarr_create_like(ipfsrt_zarr_node **node, ipfsrt_zarr_store *store, const char *path,
                                                 const ipfsrt_zarr_node *src, int zarr_format, ipfsrt_error *err);
/** Replaces a node's user attributes (v2 .zattrs, v3 zarr.json).
 * @param node a node in a writable store
 * @param attributes a JSON object's text
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (not an object); as ipfsrt_zarr_store_put */
IPFSRT_API ipfsrt_status ipfsrt_zarr_set_attributes(ipfsrt_zarr_node *node, const char *attributes, ipfsrt_error *err);
/** Gathers the metadata of the hierarchy under path into consolidated metadata
 * (v2 .zmetadata; v3: inline in the group's zarr.json, as zarr-python 3).
 * @param store a writable, listable store
 * @param path the group's path
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_ENOT_FOUND (no group there); IPFSRT_EUNSUPPORTED (a store that
 * cannot list); as ipfsrt_zarr_store_put; IPFSRT_ETOO_LARGE; IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_consolidate(ipfsrt_zarr_store *store, const char *path, ipfsrt_error *err);

/** How arrays are written (size first: ipfsrt_zarr_write_options_init). */
typedef struct ipfsrt_zarr_write_options {
    size_t size; /**< sizeof the struct: set by ipfsrt_zarr_write_options_init (or .size = sizeof) */
    unsigned threads;        /**< encoding threads; 0 = ipfsrt_threads(), at most 8 */
    bool write_empty_chunks; /**< store chunks that hold only the fill value (else they are removed) */
} ipfsrt_zarr_write_options;
/** The defaults, size set: what a caller then fills in.
 * @param opts the caller's struct
 * @owner the caller's struct, holding nothing to release */
IPFSRT_API void ipfsrt_zarr_write_options_init(ipfsrt_zarr_write_options *opts);

/** Writes values (broadcast to the selection's shape, converted as astype
 * does) into a selection of an array in a writable store. Chunks the selection
 * covers are encoded anew; the others are read, changed and written back (a
 * shard whole). Each key is replaced at once (no reader sees half a chunk).
 * Not safe against other writers of the same chunks.
 * @param array an array node in a writable store
 * @param selection as ipfsrt_zarr_read's
 * @param n parts given
 * @param values read only
 * @param opts NULL = the defaults
 * @param err filled on failure
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (shapes that do not broadcast, values the dtype
 * cannot hold); IPFSRT_EUNSUPPORTED (a read-only store); a codec's; as
 * ipfsrt_zarr_store_put and ipfsrt_zarr_read (chunks read back);
 * IPFSRT_EOUT_OF_MEMORY */
IPFSRT_API ipfsrt_status ipfsrt_zarr_write(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *selection, int n,
                                           const ipfsrt_ndarray *values, const ipfsrt_zarr_write_options *opts,
                                           ipfsrt_error *err);

/** Appends values along axis: they are written past the array's end (into a
 * last chunk it fills only in part, too), then the metadata document is
 * written again with the longer shape, every other field as stored, so that
 * in a folder no shape names chunks not yet there.
 * @param array an array node in a writable store (its shape changes)
 * @param axis the axis appended along (from 0)
 * @param values as long as the array on every other axis, of its dtype
 * @param opts NULL = the defaults
 * @param err filled on failure, naming the array and the mismatch
 * @return IPFSRT_OK
 * @errors IPFSRT_EBAD_ARGUMENT (a group; an axis it lacks; values of another
 * dtype, dimensions or length on another axis; a stored document without that
 * shape); IPFSRT_ETOO_LARGE; as ipfsrt_zarr_write */
IPFSRT_EXPERIMENTAL ipfsrt_status ipfsrt_zarr_append(ipfsrt_zarr_node *array, int axis, const ipfsrt_ndarray *values,
                                                     const ipfsrt_zarr_write_options *opts, ipfsrt_error *err);

#ifdef __cplusplus
}
#endif

#endif
