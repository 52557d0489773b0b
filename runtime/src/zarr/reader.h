/* A read of a selection under way, shared by the file that plans it and
 * decodes its chunks (read.c) and the one that fetches shards (read_shards.c).
 * Not public. The plan's units are the chunks decoded one by one: the chunks,
 * or the inner chunks of a sharded array. */
#ifndef IPFSRT_ZARR_READER_H
#define IPFSRT_ZARR_READER_H

#include <pthread.h>

#include "zarr/zarr_internal.h"

/* The units of one dimension the selection touches (ascending), and which
 * selected positions [j0, j1) each holds. */
typedef struct dim_plan {
    size_t first, step, count; /* positions first + j * step, j < count */
    bool dropped, reversed;
    size_t n;
    size_t *chunk, *j0, *j1;
} dim_plan;

typedef struct job {
    struct job *next;
    size_t unit; /* position in the plan's odometer */
    bool missing;
    const uint8_t *bytes; /* data, or the store's own bytes, held (lent) */
    ipfsrt_lent lent;
    size_t len, cap;
    uint8_t data[];
} job;

/* A fold's request: values left out, and whether least and greatest are wanted. */
typedef struct fold_spec {
    const double *skip;
    size_t n_skip;
    unsigned what;                /* IPFSRT_ZARR_FOLD_*: sums are always taken over everything */
    const bool *along;            /* folding along these dimensions (fold_along.c), else over everything */
    int group_dim;                /* with group_of: a dimension folded into groups (-1: none) */
    const size_t *group_of;       /* per selected position of group_dim, its group (SIZE_MAX: none) */
    size_t n_groups;
    struct fold_pool *pool;       /* along: summaries a unit is added into, one per decoder at work */
    bool locate;                  /* where the extremes are (extremes.c), not sums */
    struct weighted_plan *weighted; /* weighted sums over the last dimensions (fold_weighted.c) */
    void *extremes;               /* locate: each unit's answer, combined in unit order */
} fold_spec;

/* The caller's fold options (NULL: defaults) as this fold's spec: skip and
 * what into *fold, the read options (NULL: defaults) into *read. */
ipfsrt_status ipfsrt_zarr_fold_take(const ipfsrt_zarr_fold_options *theirs, fold_spec *fold,
                                    const ipfsrt_zarr_read_options **read, ipfsrt_error *err);

/* A read in slabs (read_slabs.c). */
typedef struct slab_plan slab_plan;
/* Decoded ahead of the last slab handed over, unless the read says: slabs of
 * this many bytes in all (at least two slabs), enough for the decoders to
 * keep busy while the caller works on a slab, and a bound on memory whatever
 * the slabs' size. */
#define SLABS_AHEAD_BYTES ((size_t)64 << 20)

typedef struct reader {
    const ipfsrt_zarr_meta *m;
    const fold_spec *fold;           /* summarize the units, build no output */
    slab_plan *slabs;                /* build the output a slab at a time, handed over in order */
    ipfsrt_zarr_summary *partials;   /* each unit's summary, combined in unit order */
    const ipfsrt_zarr_meta *unit; /* m, or m->inner for a sharded array */
    const ipfsrt_zarr_read_options *opts; /* &opts_held */
    ipfsrt_zarr_read_options opts_held;   /* the caller's over the defaults */
    char prefix[IPFSRT_ZARR_KEY_MAX + 2];
    dim_plan dims[IPFSRT_NDARRAY_MAX_DIMS];
    size_t total;        /* units */
    ipfsrt_ndarray full; /* every dimension kept, positive steps */
    char *keys;          /* the keys of the batch of units being fetched (unsharded) */
    size_t key_size, batch_first;
    uint64_t stored_max; /* bytes: a chunk stored in more is refused */
    unsigned nthreads, running; /* decoders started, and not yet ended */
    pthread_mutex_t mu;
    pthread_cond_t work, room, ended;
    job *head, *tail, *spare;
    size_t queued_bytes, copied_bytes, done;
    unsigned decoding; /* decoders at work on a unit */
    bool closing, failed;
    ipfsrt_error error; /* the first failure */
} reader;

/* A read of array's selection, planned (not fetched): into one output, or
 * folded (fold), or in slabs (slabs). */
ipfsrt_status ipfsrt_zarr_reader_new(reader **r, const ipfsrt_zarr_node *array, const ipfsrt_ndslice *sel, int n,
                                     const ipfsrt_zarr_read_options *opts, const fold_spec *fold, slab_plan *slabs,
                                     ipfsrt_error *err);
/* Fetches and decodes every unit of the plan (on decoding threads when several). */
ipfsrt_status ipfsrt_zarr_reader_run(reader *r, ipfsrt_zarr_store *store, ipfsrt_error *err);
/* The requests for every unit of an unsharded plan (req: r->total of them). */
ipfsrt_status ipfsrt_zarr_reader_keys(reader *r, ipfsrt_range_request *req, ipfsrt_error *err);
/* The store's answer for request res->index of r's keys: decoded where it
 * arrives (no decoding threads run), or queued for them. */
ipfsrt_status ipfsrt_zarr_reader_arrived(void *user, const ipfsrt_range_result *res, ipfsrt_error *err);
/* Every unit in: the output as asked (or the first decoding error). */
ipfsrt_status ipfsrt_zarr_reader_finish(reader *r, ipfsrt_ndarray *out, ipfsrt_error *err);
void ipfsrt_zarr_reader_free(reader *r);

/* Unit k's summary of its decoded values (region), into r->partials[k]. */
ipfsrt_status ipfsrt_zarr_fold_unit(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err);
/* Unit k's least and greatest values and their places (extremes.c). */
ipfsrt_status ipfsrt_zarr_extremes_unit(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err);
/* Adds unit k's decoded values (region) into its weighted sums' parts. */
ipfsrt_status ipfsrt_zarr_fold_weighted(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err);
/* Adds unit k's decoded values (region) into the summaries along dimensions. */
ipfsrt_status ipfsrt_zarr_fold_along(reader *r, size_t k, const ipfsrt_ndarray *region, ipfsrt_error *err);
/* The fold's shape for unit k: the region's dimensions (a view of nothing). */
void ipfsrt_zarr_reader_geometry(const reader *r, size_t k, size_t *shape, size_t *index, size_t *lstart,
                                 size_t *lstep, size_t *j0);

/* A fold adding float sums in order (fold_along.c): whether unit k may be
 * decoded now: 2 its turn, 1 room to park it until then, 0 neither. Locked. */
bool ipfsrt_zarr_fold_in_order(const reader *r);
int ipfsrt_zarr_fold_may_take(const reader *r, size_t k);

/* Reads in slabs (read_slabs.c). Unit k's region of its slab's array (made
 * with the slab's first unit). */
ipfsrt_status ipfsrt_zarr_slab_region(reader *r, size_t k, ipfsrt_ndarray *region, size_t *index, size_t *lstart,
                                      size_t *lstep, ipfsrt_error *err);
/* Unit k decoded, and whether its slab is one decoders may work on now. Locked. */
void ipfsrt_zarr_slab_unit_done(reader *r, size_t k);
bool ipfsrt_zarr_slab_in_window(const reader *r, size_t k);
/* The next slab to hand over is whole. Locked. */
bool ipfsrt_zarr_slab_ready(const reader *r);
/* Hands the whole slabs over in order, and with all waits for every one
 * (the decoders' first failure, or fn's, stops it). Unlocked. */
ipfsrt_status ipfsrt_zarr_slabs_hand_over(reader *r, bool all, ipfsrt_error *err);

/* Resolves the selection into the plan (r->m, r->unit set): per dimension the
 * positions and the units that hold them; r->full sized (zeros) and r->total. */
ipfsrt_status ipfsrt_zarr_reader_plan(reader *r, const ipfsrt_ndslice *sel, int n, ipfsrt_error *err);
/* Unit k's region of r->full (a view of no buffer: its count is not for
 * threads to touch), its index in the unit grid, and where in the unit the
 * region's elements lie (from lstart, every lstep). */
void ipfsrt_zarr_reader_region(const reader *r, size_t k, ipfsrt_ndarray *region, size_t *index, size_t *lstart,
                               size_t *lstep);
/* The slice of r->full that gives the shape asked for (indexed dimensions
 * dropped, reversed ones flipped); true when that is r->full as it is. */
bool ipfsrt_zarr_reader_as_asked(const reader *r, ipfsrt_ndslice *per_dim);
/* Frees what the plan holds (not r itself). */
void ipfsrt_zarr_reader_release(reader *r);
/* The first dimension not indexed (the last when all are). */
int ipfsrt_zarr_reader_first_kept(const reader *r);
/* Unit k of the plan (row-major over the dimensions' lists): per dimension
 * its place in the list. */
void ipfsrt_zarr_reader_odometer(const reader *r, size_t k, size_t *pos);
/* Hands unit k's stored bytes (copied) to the decoders, or says it is
 * missing (the fill value); holds back while they are behind, and reports
 * progress. Fails once a decoder has failed. */
ipfsrt_status ipfsrt_zarr_reader_push(reader *r, size_t k, const uint8_t *data, size_t len, bool missing,
                                      ipfsrt_error *err);
/* The same for bytes the store lends (lent->owner set): held, not copied,
 * until a decoder is done with them. */
ipfsrt_status ipfsrt_zarr_reader_push_lent(reader *r, size_t k, const uint8_t *data, size_t len,
                                           const ipfsrt_lent *lent, ipfsrt_error *err);
/* Room for one key of r's array (its prefix and every chunk index). */
size_t ipfsrt_zarr_reader_key_size(const reader *r);
/* The key of shard (or chunk) index into buf: the array's prefix and the chunk key. */
ipfsrt_status ipfsrt_zarr_reader_key(const reader *r, const size_t *index, char *buf, size_t cap, ipfsrt_error *err);
/* The most bytes a chunk (a whole shard) of m may be stored in: longer
 * answers are refused as they arrive. */
uint64_t ipfsrt_zarr_stored_max(const ipfsrt_zarr_meta *m);
/* Fetches a sharded array's units: shard indexes first (or whole shards where
 * every inner chunk is wanted), then the inner chunks, every request in
 * flight at once. */
ipfsrt_status ipfsrt_zarr_read_shards(reader *r, ipfsrt_zarr_store *store, ipfsrt_error *err);

#endif
