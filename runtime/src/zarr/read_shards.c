/* Fetching a sharded array's inner chunks. The shards a selection touches
 * are, per dimension, runs of its inner chunks, so they form a grid of their
 * own. A shard whose every inner chunk is wanted is read whole in one request;
 * of the others only the index is read first (at the shard's start or end),
 * then just the inner chunks wanted, by byte range. All requests of a round
 * are in flight at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr/reader.h"

/* The shards along one dimension: shard[i] holds the plan's units [u0[i], u1[i]). */
typedef struct shard_dim {
    size_t n;
    size_t *shard, *u0, *u1;
} shard_dim;

typedef struct shards {
    reader *r;
    shard_dim dims[IPFSRT_NDARRAY_MAX_DIMS];
    size_t count;   /* shards touched */
    char *keys;     /* theirs */
    bool *whole;
    size_t index_size;
    uint64_t *pairs;     /* one shard's decoded index */
    uint64_t *range;     /* per unit: offset and length within its shard (second round) */
    size_t *unit_shard;  /* per unit: its shard */
    size_t *units;       /* second round: the unit of each request */
} shards;

static ipfsrt_status group_dim(shards *s, int d, ipfsrt_error *err) {
    const dim_plan *p = &s->r->dims[d];
    size_t per = s->r->unit->grid[d];
    shard_dim *sd = &s->dims[d];
    sd->shard = malloc(p->n * sizeof *sd->shard);
    sd->u0 = malloc(p->n * sizeof *sd->u0);
    sd->u1 = malloc(p->n * sizeof *sd->u1);
    if (!sd->shard || !sd->u0 || !sd->u1) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < p->n; i++) {
        size_t shard = p->chunk[i] / per;
        if (sd->n && sd->shard[sd->n - 1] == shard) {
            sd->u1[sd->n - 1] = i + 1;
            continue;
        }
        sd->shard[sd->n] = shard;
        sd->u0[sd->n] = i;
        sd->u1[sd->n++] = i + 1;
    }
    return IPFSRT_OK;
}

/* Shard q's place per dimension (row-major over the dimensions' shard lists). */
static void shard_pos(const shards *s, size_t q, size_t *pos) {
    for (int d = s->r->m->ndim; d-- > 0;) {
        pos[d] = q % s->dims[d].n;
        q /= s->dims[d].n;
    }
}

/* Every inner chunk of the shard that lies in the array is wanted. */
static bool wanted_whole(const shards *s, const size_t *pos) {
    const reader *r = s->r;
    for (int d = 0; d < r->m->ndim; d++) {
        size_t per = r->unit->grid[d], shard = s->dims[d].shard[pos[d]];
        size_t in_array = (r->m->shape[d] + r->unit->chunks[d] - 1) / r->unit->chunks[d] - shard * per;
        if (s->dims[d].u1[pos[d]] - s->dims[d].u0[pos[d]] < (in_array < per ? in_array : per)) return false;
    }
    return true;
}

/* Calls fn for each unit of shard q, with the unit's place in the shard's index. */
typedef ipfsrt_status (*unit_fn)(shards *s, size_t q, size_t unit, size_t entry, void *user, ipfsrt_error *err);

static ipfsrt_status each_unit(shards *s, size_t q, unit_fn fn, void *user, ipfsrt_error *err) {
    const reader *r = s->r;
    int nd = r->m->ndim;
    size_t spos[IPFSRT_NDARRAY_MAX_DIMS], upos[IPFSRT_NDARRAY_MAX_DIMS];
    shard_pos(s, q, spos);
    for (int d = 0; d < nd; d++) upos[d] = s->dims[d].u0[spos[d]];
    for (;;) {
        size_t unit = 0, entry = 0;
        for (int d = 0; d < nd; d++) {
            unit = unit * r->dims[d].n + upos[d];
            entry = entry * r->unit->grid[d] + r->dims[d].chunk[upos[d]] % r->unit->grid[d];
        }
        ipfsrt_status st = fn(s, q, unit, entry, user, err);
        if (st != IPFSRT_OK) return st;
        int d = nd - 1;
        for (; d >= 0; d--) {
            if (++upos[d] < s->dims[d].u1[spos[d]]) break;
            upos[d] = s->dims[d].u0[spos[d]];
        }
        if (d < 0) return IPFSRT_OK;
    }
}

static const char *key_of(const shards *s, size_t q) { return s->keys + q * s->r->key_size; }

static ipfsrt_status fill_unit(shards *s, size_t q, size_t unit, size_t entry, void *user, ipfsrt_error *err) {
    (void)q, (void)entry, (void)user;
    return ipfsrt_zarr_reader_push(s->r, unit, NULL, 0, true, err);
}

/* A whole shard at hand: each wanted inner chunk straight from it. */
static ipfsrt_status from_whole(shards *s, size_t q, size_t unit, size_t entry, void *user, ipfsrt_error *err) {
    const ipfsrt_range_result *res = user;
    uint64_t off = s->pairs[2 * entry], n = s->pairs[2 * entry + 1];
    if (off == UINT64_MAX) return ipfsrt_zarr_reader_push(s->r, unit, NULL, 0, true, err);
    if (off > res->len || n > res->len - off)
        return ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "%s, chunk %s: inner chunk %zu lies past the shard's %zu bytes",
                           s->r->m->name, key_of(s, q) + strlen(s->r->prefix), entry, res->len);
    return ipfsrt_zarr_reader_push_lent(s->r, unit, res->data + off, (size_t)n, &res->lent, err);
}

/* Only the index at hand: the wanted inner chunks' ranges kept for the second round. */
static ipfsrt_status note_range(shards *s, size_t q, size_t unit, size_t entry, void *user, ipfsrt_error *err) {
    (void)user;
    s->unit_shard[unit] = q;
    s->range[2 * unit] = s->pairs[2 * entry];
    s->range[2 * unit + 1] = s->pairs[2 * entry + 1];
    return s->pairs[2 * entry] == UINT64_MAX ? ipfsrt_zarr_reader_push(s->r, unit, NULL, 0, true, err) : IPFSRT_OK;
}

static ipfsrt_status index_arrived(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    shards *s = user;
    const reader *r = s->r;
    const char *key = key_of(s, res->index) + strlen(r->prefix);
    if (res->status == IPFSRT_ENOT_FOUND) return each_unit(s, res->index, fill_unit, NULL, err);
    ipfsrt_status st = res->status;
    if (st != IPFSRT_OK && err) *err = res->error;
    bool whole = s->whole[res->index];
    if (st == IPFSRT_OK && whole && res->len < s->index_size)
        st = ipfsrt_fail(err, IPFSRT_EBAD_CHUNK_DATA, -1, "a shard of %zu bytes, shorter than its index", res->len);
    if (st == IPFSRT_OK) {
        const uint8_t *index = !whole || r->m->index_at_start ? res->data : res->data + res->len - s->index_size;
        st = ipfsrt_zarr_shard_index_decode(r->m, index, whole ? s->index_size : res->len, s->pairs, err);
    }
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s, chunk %s: ", r->m->name, key);
        return st;
    }
    return each_unit(s, res->index, whole ? from_whole : note_range, (void *)res, err);
}

static ipfsrt_status inner_arrived(void *user, const ipfsrt_range_result *res, ipfsrt_error *err) {
    shards *s = user;
    size_t unit = s->units[res->index];
    if (res->status != IPFSRT_OK) {
        if (err) *err = res->error;
        ipfsrt_error_prefix(err, "%s, chunk %s (an inner chunk at byte %llu): ", s->r->m->name,
                            key_of(s, s->unit_shard[unit]) + strlen(s->r->prefix),
                            (unsigned long long)s->range[2 * unit]);
        return res->status == IPFSRT_ENOT_FOUND ? IPFSRT_EBAD_CHUNK_DATA : res->status; /* the index promised it */
    }
    return ipfsrt_zarr_reader_push_lent(s->r, unit, res->data, res->len, &res->lent, err);
}

/* First round: each shard's index, or the whole shard. */
static ipfsrt_status first_round(shards *s, ipfsrt_zarr_store *store, ipfsrt_error *err) {
    reader *r = s->r;
    ipfsrt_range_request *req = calloc(s->count, sizeof *req);
    s->keys = malloc(s->count * r->key_size);
    s->whole = calloc(s->count, sizeof *s->whole);
    if (!req || !s->keys || !s->whole) {
        free(req);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu shards", s->count);
    }
    ipfsrt_status st = IPFSRT_OK;
    for (size_t q = 0; q < s->count && st == IPFSRT_OK; q++) {
        size_t pos[IPFSRT_NDARRAY_MAX_DIMS], index[IPFSRT_NDARRAY_MAX_DIMS];
        shard_pos(s, q, pos);
        for (int d = 0; d < r->m->ndim; d++) index[d] = s->dims[d].shard[pos[d]];
        char *key = s->keys + q * r->key_size;
        st = ipfsrt_zarr_reader_key(r, index, key, r->key_size, err);
        s->whole[q] = wanted_whole(s, pos);
        req[q] = (ipfsrt_range_request){key, 0, s->whole[q] ? UINT64_MAX : s->index_size,
                                             !s->whole[q] && !r->m->index_at_start};
    }
    if (st == IPFSRT_OK) st = ipfsrt_zarr_store_get_many(store, req, s->count, index_arrived, s, err);
    free(req);
    return st;
}

/* Second round: the inner chunks of the shards read by their index. */
static ipfsrt_status second_round(shards *s, ipfsrt_zarr_store *store, ipfsrt_error *err) {
    size_t n = 0;
    for (size_t k = 0; k < s->r->total; k++) n += s->range[2 * k] != UINT64_MAX;
    if (!n) return IPFSRT_OK;
    ipfsrt_range_request *req = malloc(n * sizeof *req);
    s->units = malloc(n * sizeof *s->units);
    ipfsrt_status st = req && s->units ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t k = 0, i = 0; k < s->r->total && st == IPFSRT_OK; k++) {
        if (s->range[2 * k] == UINT64_MAX) continue;
        s->units[i] = k;
        req[i++] = (ipfsrt_range_request){key_of(s, s->unit_shard[k]), s->range[2 * k], s->range[2 * k + 1], false};
    }
    if (st == IPFSRT_OK) st = ipfsrt_zarr_store_get_many(store, req, n, inner_arrived, s, err);
    free(req);
    return st;
}

static void shards_free(shards *s) {
    for (int d = 0; d < IPFSRT_NDARRAY_MAX_DIMS; d++) {
        free(s->dims[d].shard);
        free(s->dims[d].u0);
        free(s->dims[d].u1);
    }
    free(s->keys);
    free(s->whole);
    free(s->pairs);
    free(s->range);
    free(s->unit_shard);
    free(s->units);
}

ipfsrt_status ipfsrt_zarr_read_shards(reader *r, ipfsrt_zarr_store *store, ipfsrt_error *err) {
    shards s = {.r = r, .count = 1, .index_size = ipfsrt_zarr_shard_index_size(r->m)};
    r->key_size = ipfsrt_zarr_reader_key_size(r);
    ipfsrt_status st = IPFSRT_OK;
    for (int d = 0; d < r->m->ndim && st == IPFSRT_OK; d++) {
        st = group_dim(&s, d, err);
        s.count *= s.dims[d].n; /* at most the units */
    }
    s.pairs = malloc(s.index_size + 16);
    s.range = malloc(2 * r->total * sizeof *s.range);
    s.unit_shard = malloc(r->total * sizeof *s.unit_shard);
    if (st == IPFSRT_OK && (!s.pairs || !s.range || !s.unit_shard))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu inner chunks", r->total);
    if (st == IPFSRT_OK) memset(s.range, 0xff, 2 * r->total * sizeof *s.range); /* none yet */
    if (st == IPFSRT_OK) st = first_round(&s, store, err);
    if (st == IPFSRT_OK) st = second_round(&s, store, err);
    shards_free(&s);
    return st;
}
