/* The UnixFS importer's encoders: fixed-size chunks into balanced file DAGs,
 * plain and HAMT-sharded directories. What feeds them (a folder walk, a patch
 * of a published DAG) lives elsewhere. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/car.h"
#include "base/base_internal.h"
#include "unixfs/importer.h"

ipfsrt_status ipfsrt_importer_init(ipfsrt_importer *im, const ipfsrt_pack_options *o,
                                   ipfsrt_pack_sink_fn sink, void *user, ipfsrt_error *err) {
    memset(im, 0, sizeof *im);
    if (o->cid_version != 0 && o->cid_version != 1)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "CID version must be 0 or 1");
    if (o->cid_version == 0 && o->raw_leaves)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "raw leaves need CIDv1 (a CIDv0 is always dag-pb)");
    if (o->chunk_size == 0 || o->chunk_size > IPFSRT_CAR_DEFAULT_MAX_BLOCK)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "chunk size must be 1 byte to 2 MiB");
    if (o->max_links < 2 || o->max_links > 65536)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "max links must be 2 to 65536");
    if (!ipfsrt_hamt_shape_init(&im->hamt, o->hamt_fanout))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "HAMT fanout must be a power of two up to %u",
                           IPFSRT_HAMT_MAX_FANOUT);
    im->o = o;
    im->sink = sink;
    im->user = user;
    im->where = "";
    ipfsrt_buf_init(&im->node);
    ipfsrt_buf_init(&im->data);
    im->chunk = malloc(o->chunk_size);
    if (!im->chunk) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = ipfsrt_hash_ctx_new(&im->hash, err);
    if (st != IPFSRT_OK) ipfsrt_importer_free(im);
    return st;
}

void ipfsrt_importer_free(ipfsrt_importer *im) {
    free(im->chunk);
    ipfsrt_hash_ctx_free(im->hash);
    ipfsrt_buf_free(&im->node);
    ipfsrt_buf_free(&im->data);
    memset(im, 0, sizeof *im);
}

static ipfsrt_status emit(ipfsrt_importer *im, uint64_t codec, const uint8_t *bytes, size_t len,
                          ipfsrt_importer_made *out, ipfsrt_error *err) {
    int version = codec == IPFSRT_CODEC_RAW ? 1 : im->o->cid_version;
    ipfsrt_status st = ipfsrt_cid_sum(&out->cid, version, codec, IPFSRT_MH_SHA2_256, bytes, len, err);
    if (st != IPFSRT_OK) return st;
    out->tsize = len;
    return im->sink(im->user, &out->cid, bytes, len, err);
}

ipfsrt_status ipfsrt_importer_node(ipfsrt_importer *im, const ipfsrt_dagpb_link *links, size_t n,
                                   const ipfsrt_unixfs_data *fs, ipfsrt_importer_made *out, ipfsrt_error *err) {
    im->data.len = im->node.len = 0;
    ipfsrt_status st = ipfsrt_unixfs_data_encode(fs, &im->data, err);
    ipfsrt_dagpb_node pb = {im->data.data, im->data.len, (ipfsrt_dagpb_link *)links, n};
    if (st == IPFSRT_OK) st = ipfsrt_dagpb_encode(&pb, &im->node, err);
    if (st == IPFSRT_OK) st = emit(im, IPFSRT_CODEC_DAG_PB, im->node.data, im->node.len, out, err);
    uint64_t tsize = im->node.len;
    for (size_t i = 0; st == IPFSRT_OK && i < n; i++) tsize += links[i].tsize;
    out->tsize = tsize;
    return st;
}

/* ------------------------------------------------------------------ files */

/* Makes a File node over items and emits it. */
static ipfsrt_status make_parent(ipfsrt_importer *im, const ipfsrt_importer_made *items, size_t n,
                                 ipfsrt_importer_made *out, ipfsrt_error *err) {
    ipfsrt_dagpb_link *links = calloc(n, sizeof *links);
    uint64_t *sizes = calloc(n, sizeof *sizes);
    ipfsrt_status st = IPFSRT_OK;
    if (!links || !sizes) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    uint64_t total = 0;
    for (size_t i = 0; st == IPFSRT_OK && i < n; i++) {
        links[i].cid = items[i].cid;
        links[i].name = (const uint8_t *)""; /* Kubo and JS both write an empty Name */
        links[i].has_tsize = true;
        links[i].tsize = items[i].tsize;
        sizes[i] = items[i].size;
        total += items[i].size;
    }
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_FILE, .has_filesize = true, .filesize = total,
                             .blocksizes = sizes, .blocksize_count = n};
    if (st == IPFSRT_OK) st = ipfsrt_importer_node(im, links, n, &fs, out, err);
    out->size = total;
    out->is_dir = false;
    free(links);
    free(sizes);
    return st;
}

/* Adds a node to row r, first turning a full row into a parent one row up:
 * leaves fill left to right and all end at the same depth. */
static ipfsrt_status row_push(ipfsrt_importer_file *f, size_t r, const ipfsrt_importer_made *m,
                              ipfsrt_error *err) {
    ipfsrt_importer *im = f->im;
    if (r >= IPFSRT_UNIXFS_MAX_DEPTH) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "file too large");
    if (r == f->nrows) {
        f->rows[r].items = malloc(im->o->max_links * sizeof *f->rows[r].items);
        if (!f->rows[r].items) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        f->rows[r].count = 0;
        f->nrows++;
    }
    if (f->rows[r].count == im->o->max_links) {
        ipfsrt_importer_made parent;
        ipfsrt_status st = make_parent(im, f->rows[r].items, f->rows[r].count, &parent, err);
        if (st == IPFSRT_OK) st = row_push(f, r + 1, &parent, err);
        if (st != IPFSRT_OK) return st;
        f->rows[r].count = 0;
    }
    f->rows[r].items[f->rows[r].count++] = *m;
    return IPFSRT_OK;
}

void ipfsrt_importer_file_init(ipfsrt_importer_file *f, ipfsrt_importer *im) {
    memset(f, 0, sizeof *f);
    f->im = im;
}

uint8_t *ipfsrt_importer_file_space(ipfsrt_importer_file *f, size_t *room) {
    *room = f->im->o->chunk_size - f->fill;
    return f->im->chunk + f->fill;
}

/* The leaf buffer as a leaf: raw (hashed already) or a File node. */
static ipfsrt_status emit_leaf(ipfsrt_importer_file *f, ipfsrt_importer_made *leaf, ipfsrt_error *err) {
    ipfsrt_importer *im = f->im;
    size_t len = f->fill;
    leaf->size = len;
    leaf->is_dir = false;
    if (im->o->raw_leaves) {
        uint8_t digest[32];
        leaf->tsize = len;
        ipfsrt_status st = f->hashing ? IPFSRT_OK : ipfsrt_hash_ctx_start(im->hash, IPFSRT_SHA2_256, err);
        f->hashing = false;
        if (st == IPFSRT_OK) st = ipfsrt_hash_ctx_finish(im->hash, digest, err);
        if (st == IPFSRT_OK)
            st = ipfsrt_cid_create(&leaf->cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, digest, sizeof digest, err);
        return st == IPFSRT_OK ? im->sink(im->user, &leaf->cid, im->chunk, len, err) : st;
    }
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_FILE, .data = len ? im->chunk : NULL,
                             .data_len = len, .has_filesize = true, .filesize = len};
    return ipfsrt_importer_node(im, NULL, 0, &fs, leaf, err);
}

/* The leaf buffer made a leaf and placed in the layout. */
static ipfsrt_status close_leaf(ipfsrt_importer_file *f, ipfsrt_error *err) {
    ipfsrt_importer_made leaf;
    ipfsrt_status st = emit_leaf(f, &leaf, err);
    f->fill = 0;
    if (st != IPFSRT_OK) return st;
    if (f->leaves++ == 0) {
        f->first = leaf; /* a one-chunk file is its own root */
        return IPFSRT_OK;
    }
    if (f->leaves == 2) st = row_push(f, 0, &f->first, err);
    return st == IPFSRT_OK ? row_push(f, 0, &leaf, err) : st;
}

ipfsrt_status ipfsrt_importer_file_commit(ipfsrt_importer_file *f, size_t n, ipfsrt_error *err) {
    ipfsrt_importer *im = f->im;
    if (n == 0) return IPFSRT_OK;
    if (im->o->raw_leaves) {
        if (!f->hashing) {
            ipfsrt_status st = ipfsrt_hash_ctx_start(im->hash, IPFSRT_SHA2_256, err);
            if (st != IPFSRT_OK) return st;
            f->hashing = true;
        }
        ipfsrt_hash_ctx_update(im->hash, im->chunk + f->fill, n, NULL);
    }
    f->fill += n;
    return f->fill == im->o->chunk_size ? close_leaf(f, err) : IPFSRT_OK;
}

ipfsrt_status ipfsrt_importer_file_write(ipfsrt_importer_file *f, const uint8_t *data, size_t len,
                                         ipfsrt_error *err) {
    while (len > 0) {
        size_t room;
        uint8_t *space = ipfsrt_importer_file_space(f, &room);
        size_t n = len < room ? len : room;
        memcpy(space, data, n);
        ipfsrt_status st = ipfsrt_importer_file_commit(f, n, err);
        if (st != IPFSRT_OK) return st;
        data += n;
        len -= n;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_importer_file_finish(ipfsrt_importer_file *f, ipfsrt_importer_made *out, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    /* an empty file is one empty leaf; a file that ended on a leaf's edge adds none */
    if (f->fill > 0 || f->leaves == 0) st = close_leaf(f, err);
    if (st == IPFSRT_OK && f->leaves == 1) *out = f->first;
    /* Close the rows bottom up; the top row's single node, or a node over it, is the root. */
    for (size_t r = 0; st == IPFSRT_OK && r < f->nrows; r++) {
        if (r + 1 == f->nrows && f->rows[r].count == 1) {
            *out = f->rows[r].items[0];
            break;
        }
        ipfsrt_importer_made parent;
        st = make_parent(f->im, f->rows[r].items, f->rows[r].count, &parent, err);
        if (st != IPFSRT_OK) break;
        if (r + 1 == f->nrows) {
            *out = parent;
            break;
        }
        st = row_push(f, r + 1, &parent, err);
    }
    return st;
}

void ipfsrt_importer_file_free(ipfsrt_importer_file *f) {
    for (size_t r = 0; r < f->nrows; r++) free(f->rows[r].items);
    f->nrows = 0;
}

/* ------------------------------------------------------------ directories */

ipfsrt_importer_entry *ipfsrt_importer_entries_add(ipfsrt_importer_entries *es, const char *name, size_t name_len) {
    if (ipfsrt_array_reserve(&es->items, &es->cap, es->count + 1, sizeof *es->items)) return NULL;
    ipfsrt_importer_entry *e = &es->items[es->count];
    memset(e, 0, sizeof *e);
    e->name = strndup(name, name_len);
    if (!e->name) return NULL;
    e->name_len = name_len;
    es->count++;
    return e;
}

ipfsrt_status ipfsrt_importer_keep_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    ipfsrt_importer_entry *x = ipfsrt_importer_entries_add(user, e->name, e->name_len);
    if (!x) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    x->m.cid = e->cid;
    x->m.tsize = e->tsize;
    return IPFSRT_OK;
}

void ipfsrt_importer_entries_free(ipfsrt_importer_entries *es) {
    for (size_t i = 0; i < es->count; i++) free(es->items[i].name);
    free(es->items);
    memset(es, 0, sizeof *es);
}

int ipfsrt_importer_name_cmp(const char *a, size_t a_len, const char *b, size_t b_len) {
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    return c ? c : (a_len > b_len) - (a_len < b_len);
}

static int name_cmp(const void *a, const void *b) {
    const ipfsrt_importer_entry *x = a, *y = b;
    return ipfsrt_importer_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

void ipfsrt_importer_entries_sort(ipfsrt_importer_entries *es) {
    if (es->count > 1) qsort(es->items, es->count, sizeof *es->items, name_cmp);
}

ipfsrt_status ipfsrt_importer_plain_dir(ipfsrt_importer *im, const ipfsrt_importer_entries *es,
                                        ipfsrt_importer_made *out, ipfsrt_error *err) {
    ipfsrt_dagpb_link *links = es->count ? calloc(es->count, sizeof *links) : NULL;
    if (es->count && !links) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < es->count; i++) {
        links[i].cid = es->items[i].m.cid;
        links[i].name = (const uint8_t *)es->items[i].name;
        links[i].name_len = es->items[i].name_len;
        links[i].has_tsize = true;
        links[i].tsize = es->items[i].m.tsize;
    }
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_DIRECTORY};
    ipfsrt_status st = ipfsrt_importer_node(im, links, es->count, &fs, out, err);
    free(links);
    out->is_dir = true;
    return st;
}

static uint64_t bucket_of(const ipfsrt_importer_entry *e, const ipfsrt_hamt_shape *h, unsigned depth) {
    return ipfsrt_hamt_bucket(h, e->hash, depth);
}

/* Sorting by the whole hash sorts by bucket at every depth at once: a bucket
 * at depth d is the hash's bits below the d buckets above it. */
static int hash_cmp(const void *a, const void *b) {
    const ipfsrt_importer_entry *x = *(ipfsrt_importer_entry *const *)a, *y = *(ipfsrt_importer_entry *const *)b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return name_cmp(x, y);
}

/* A shard's links and the names they point into, built together. */
typedef struct shard_links {
    ipfsrt_dagpb_link *links;
    char *prefixes;     /* one bucket name per link */
    char **full_names;  /* prefix + ipfsrt_importer_entry name, for ipfsrt_importer_entries alone in their bucket */
    size_t count;
} shard_links;

static void shard_links_free(shard_links *sl) {
    for (size_t i = 0; sl->full_names && i < sl->count; i++) free(sl->full_names[i]);
    free(sl->full_names);
    free(sl->links);
    free(sl->prefixes);
}

static ipfsrt_status emit_shard(ipfsrt_importer *im, ipfsrt_importer_entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                unsigned depth, ipfsrt_importer_made *out, ipfsrt_error *err);

/* The link for bucket b, which holds es[0..n): the ipfsrt_importer_entry itself when it is
 * alone, else a sub-shard of them. */
static ipfsrt_status bucket_link(ipfsrt_importer *im, ipfsrt_importer_entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                 unsigned depth, uint64_t b, shard_links *sl, ipfsrt_error *err) {
    ipfsrt_dagpb_link *l = &sl->links[sl->count];
    char *prefix = sl->prefixes + (IPFSRT_HAMT_PREFIX_MAX + 1) * sl->count;
    ipfsrt_hamt_prefix(h, b, prefix);
    if (n > 1) {
        ipfsrt_importer_made sub;
        ipfsrt_status st = emit_shard(im, es, n, h, depth + 1, &sub, err);
        *l = (ipfsrt_dagpb_link){.name = (const uint8_t *)prefix, .name_len = h->width,
                                 .cid = sub.cid, .has_tsize = true, .tsize = sub.tsize};
        sl->count++;
        return st;
    }
    size_t len = (size_t)h->width + es[0]->name_len;
    char *full = malloc(len + 1);
    if (!full) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(full, prefix, h->width);
    memcpy(full + h->width, es[0]->name, es[0]->name_len);
    sl->full_names[sl->count] = full;
    *l = (ipfsrt_dagpb_link){.name = (const uint8_t *)full, .name_len = len, .cid = es[0]->m.cid,
                             .has_tsize = true, .tsize = es[0]->m.tsize};
    sl->count++;
    return IPFSRT_OK;
}

/* One shard over ipfsrt_importer_entries (sorted by hash_cmp) that agree on their first depth
 * buckets. Entries alone in a bucket stay inline; colliding ones go into a
 * sub-shard. */
static ipfsrt_status emit_shard(ipfsrt_importer *im, ipfsrt_importer_entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                unsigned depth, ipfsrt_importer_made *out, ipfsrt_error *err) {
    if (!ipfsrt_hamt_depth_ok(h, depth))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                           "names collide beyond the 64 hash bits of a HAMT (in %s)", im->where);
    size_t slots = n ? n : 1;
    shard_links sl = {calloc(slots, sizeof *sl.links), calloc(slots, IPFSRT_HAMT_PREFIX_MAX + 1),
                      calloc(slots, sizeof *sl.full_names), 0};
    size_t bitfield_len = (size_t)(h->fanout + 7) / 8;
    uint8_t *bitfield = calloc(bitfield_len, 1);
    ipfsrt_status st = sl.links && sl.prefixes && sl.full_names && bitfield
                           ? IPFSRT_OK
                           : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0, j; st == IPFSRT_OK && i < n; i = j) {
        uint64_t b = bucket_of(es[i], h, depth);
        for (j = i; j < n && bucket_of(es[j], h, depth) == b;) j++;
        bitfield[bitfield_len - 1 - b / 8] |= (uint8_t)(1u << (b % 8));
        st = bucket_link(im, es + i, j - i, h, depth, b, &sl, err);
    }
    if (st == IPFSRT_OK) {
        size_t skip = 0; /* the bitfield is written without leading zero bytes */
        while (skip < bitfield_len && bitfield[skip] == 0) skip++;
        ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_HAMT_SHARD,
                                 .data = bitfield_len > skip ? bitfield + skip : NULL,
                                 .data_len = bitfield_len - skip,
                                 .has_hash_type = true, .hash_type = IPFSRT_HAMT_HASH_MURMUR3,
                                 .has_fanout = true, .fanout = h->fanout};
        st = ipfsrt_importer_node(im, sl.links, sl.count, &fs, out, err);
        out->is_dir = true;
    }
    shard_links_free(&sl);
    free(bitfield);
    return st;
}

static ipfsrt_status should_shard(ipfsrt_importer *im, const ipfsrt_importer_entries *es, bool *shard, ipfsrt_error *err) {
    *shard = false;
    uint64_t measure = 0;
    switch (im->o->hamt_rule) {
    case IPFSRT_HAMT_NEVER: return IPFSRT_OK;
    case IPFSRT_HAMT_ENTRIES: measure = es->count; break;
    case IPFSRT_HAMT_LINK_BYTES:
        for (size_t i = 0; i < es->count; i++) measure += es->items[i].name_len + es->items[i].m.cid.len;
        break;
    case IPFSRT_HAMT_BLOCK_BYTES: {
        /* encode the plain node to measure it; nothing is emitted */
        ipfsrt_dagpb_link *links = es->count ? calloc(es->count, sizeof *links) : NULL;
        if (es->count && !links) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        for (size_t i = 0; i < es->count; i++)
            links[i] = (ipfsrt_dagpb_link){es->items[i].m.cid, (const uint8_t *)es->items[i].name,
                                        es->items[i].name_len, true, es->items[i].m.tsize};
        im->data.len = im->node.len = 0;
        ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_DIRECTORY};
        ipfsrt_status st = ipfsrt_unixfs_data_encode(&fs, &im->data, err);
        ipfsrt_dagpb_node pb = {im->data.data, im->data.len, links, es->count};
        if (st == IPFSRT_OK) st = ipfsrt_dagpb_encode(&pb, &im->node, err);
        free(links);
        if (st != IPFSRT_OK) return st;
        measure = im->node.len;
        break;
    }
    }
    *shard = measure > im->o->hamt_threshold;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_importer_dir(ipfsrt_importer *im, ipfsrt_importer_entries *es, ipfsrt_importer_made *out,
                                  ipfsrt_error *err) {
    ipfsrt_importer_entries_sort(es);
    bool shard;
    ipfsrt_status st = should_shard(im, es, &shard, err);
    if (st != IPFSRT_OK || !shard) return st != IPFSRT_OK ? st : ipfsrt_importer_plain_dir(im, es, out, err);
    ipfsrt_importer_entry **order = malloc(es->count * sizeof *order);
    if (!order) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < es->count; i++) {
        es->items[i].hash = ipfsrt_murmur3_x64_64((const uint8_t *)es->items[i].name, es->items[i].name_len);
        order[i] = &es->items[i];
    }
    qsort(order, es->count, sizeof *order, hash_cmp);
    st = emit_shard(im, order, es->count, &im->hamt, 0, out, err);
    free(order);
    return st;
}
