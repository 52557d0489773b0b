/* Several reads together: every chunk of every read asked for in one batch
 * of the store, so that a dataset's coordinates (a chunk or two each), or the
 * boxes a list of labels selects, cost one round trip between them, not one
 * each. */
#include <stdlib.h>

#include "zarr/reader.h"
#include "base/base_internal.h"

/* Reads over this many chunks in all go one by one: each is a batch anyway. */
#define MANY_UNITS_MAX 4096

typedef struct many {
    reader **readers;
    size_t *first; /* the index of each read's first request in the batch */
    size_t count;
} many;

/* Hands an answer to the read whose request it is, under that read's index. */
static ipfsrt_status dispatch(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    const many *m = user;
    size_t i = m->count - 1;
    while (i > 0 && m->first[i] > res->index) i--;
    ipfsrt_range_result mine = *res;
    mine.index = res->index - m->first[i];
    return ipfsrt_zarr_reader_arrived(m->readers[i], &mine, err);
}

/* Whether the reads can share one batch: one store, no shards, few chunks. */
static bool batchable(const ipfsrt_zarr_node *const *arrays, reader *const *readers, size_t n, size_t *units) {
    *units = 0;
    for (size_t i = 0; i < n; i++) {
        if (readers[i]->m->inner || ipfsrt_zarr_node_store(arrays[i]) != ipfsrt_zarr_node_store(arrays[0])) return false;
        *units += readers[i]->total;
    }
    return *units <= MANY_UNITS_MAX;
}

static ipfsrt_status read_batched(const ipfsrt_zarr_node *const *arrays, many *m, size_t units, ipfsrt_error *err) {
    ipfsrt_range_request *req = malloc((units ? units : 1) * sizeof *req);
    if (!req) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0, at = 0; i < m->count && st == IPFSRT_OK; at += m->readers[i]->total, i++) {
        m->first[i] = at;
        st = ipfsrt_zarr_reader_keys(m->readers[i], req + at, err);
    }
    if (st == IPFSRT_OK && units) st = ipfsrt_zarr_store_get_many(ipfsrt_zarr_node_store(arrays[0]), req, units, dispatch, m, err);
    free(req);
    return st;
}

/* Reads of arrays[i] (selections sels[i] of ns[i] parts, or whole when sels
 * is NULL) into outs, together when they can be. */
static ipfsrt_status read_together(const ipfsrt_zarr_node *const *arrays, const ipfsrt_ndslice *const *sels,
                                   const int *ns, size_t n, ipfsrt_ndarray *outs, const ipfsrt_zarr_read_options *opts,
                                   ipfsrt_error *err) {
    if (n == 0) return IPFSRT_OK;
    many m = {calloc(n, sizeof *m.readers), calloc(n, sizeof *m.first), n};
    ipfsrt_status st = m.readers && m.first ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++)
        st = ipfsrt_zarr_reader_new(&m.readers[i], arrays[i], sels ? sels[i] : NULL, sels ? ns[i] : 0, opts, NULL,
                                    NULL, err);
    size_t units = 0;
    bool together = st == IPFSRT_OK && batchable(arrays, m.readers, n, &units);
    if (together) st = read_batched(arrays, &m, units, err);
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++)
        st = together ? ipfsrt_zarr_reader_finish(m.readers[i], &outs[i], err)
                      : ipfsrt_zarr_read(arrays[i], sels ? sels[i] : NULL, sels ? ns[i] : 0, &outs[i], opts, err);
    for (size_t i = 0; m.readers && i < n; i++) ipfsrt_zarr_reader_free(m.readers[i]);
    free(m.readers);
    free(m.first);
    return st;
}

ipfsrt_status ipfsrt_zarr_read_many(const ipfsrt_zarr_node *const *arrays, size_t n, ipfsrt_ndarray *outs,
                                    ipfsrt_error *err) {
    IPFSRT_NEED_N(arrays, n, err);
    IPFSRT_NEED_N(outs, n, err);
    return read_together(arrays, NULL, NULL, n, outs, NULL, err);
}

ipfsrt_status ipfsrt_zarr_read_boxes(const ipfsrt_zarr_node *array, const ipfsrt_ndslice *const *sels, const int *ns,
                                     size_t n, ipfsrt_ndarray *outs, const ipfsrt_zarr_read_options *opts,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(array, err);
    IPFSRT_NEED_N(sels, n, err);
    IPFSRT_NEED_N(ns, n, err);
    IPFSRT_NEED_N(outs, n, err);
    const ipfsrt_zarr_node **arrays = calloc(n ? n : 1, sizeof *arrays);
    if (!arrays) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n; i++) arrays[i] = array;
    ipfsrt_status st = read_together(arrays, sels, ns, n, outs, opts, err);
    for (size_t i = 0; st != IPFSRT_OK && i < n; i++) ipfsrt_ndarray_free(&outs[i]); /* none half given */
    free(arrays);
    return st;
}
