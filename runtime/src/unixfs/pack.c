/* UnixFS importer: fixed-size chunks, balanced file DAGs, plain and HAMT-sharded
 * directories, symlinks; presets that reproduce ipfs-car's and Kubo's CIDs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/car.h"
#include "ipfsrt/pack.h"
#include "base/base_internal.h"
#include "unixfs/hamt.h"

ipfsrt_status ipfsrt_pack_parse_hamt_rule(const char *s, ipfsrt_pack_options *o, ipfsrt_error *err) {
    static const struct {
        const char *name;
        ipfsrt_pack_hamt_rule rule;
    } rules[] = {{"entries:", IPFSRT_HAMT_ENTRIES},
                 {"link-bytes:", IPFSRT_HAMT_LINK_BYTES},
                 {"block-bytes:", IPFSRT_HAMT_BLOCK_BYTES}};
    if (strcmp(s, "never") == 0) {
        o->hamt_rule = IPFSRT_HAMT_NEVER;
        return IPFSRT_OK;
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t n = strlen(rules[i].name);
        const char *digits = s + n;
        if (strncmp(s, rules[i].name, n) != 0 || *digits < '0' || *digits > '9') continue;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(digits, &end, 10);
        if (*end || errno == ERANGE) continue;
        o->hamt_rule = rules[i].rule;
        o->hamt_threshold = v;
        return IPFSRT_OK;
    }
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                       "HAMT rule '%s': expected never, entries:N, link-bytes:N or block-bytes:N", s);
}

ipfsrt_status ipfsrt_pack_preset(const char *name, ipfsrt_pack_options *o, ipfsrt_error *err) {
    if (strcmp(name, "ipfs-car") == 0) { /* ipfs-car 3.x over @ipld/unixfs */
        *o = (ipfsrt_pack_options){sizeof *o, 1, 1 << 20, 1024, true, IPFSRT_HAMT_ENTRIES, 1000, 256,
                                   true, false, true};
    } else if (strcmp(name, "kubo") == 0) { /* `ipfs add`, profile unixfs-v0-2015 */
        *o = (ipfsrt_pack_options){sizeof *o, 0, 256 << 10, 174, false, IPFSRT_HAMT_LINK_BYTES, 256 << 10,
                                   256, false, false, false};
    } else if (strcmp(name, "kubo-v1-2025") == 0) { /* profile unixfs-v1-2025 */
        *o = (ipfsrt_pack_options){sizeof *o, 1, 1 << 20, 1024, true, IPFSRT_HAMT_BLOCK_BYTES, 256 << 10,
                                   256, false, false, false};
    } else {
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                           "unknown preset '%s' (ipfs-car, kubo, kubo-v1-2025)", name);
    }
    return IPFSRT_OK;
}

/* A made block as its parent links to it. */
typedef struct made {
    ipfsrt_cid cid;
    uint64_t tsize;    /* block bytes of the whole sub-DAG */
    uint64_t size;     /* file bytes (files only) */
    bool is_dir;
} made;

typedef struct packer {
    const ipfsrt_pack_options *o;
    ipfsrt_pack_sink_fn sink;
    void *user;
    uint8_t *chunk;
    ipfsrt_buf node, data; /* scratch for encoding */
    char *path;            /* the file or directory being read */
    size_t path_len, path_cap;
    ipfsrt_hash_ctx *hash; /* raw leaves are hashed as they are read, while in cache */
    ipfsrt_hamt_shape hamt;
} packer;

static ipfsrt_status emit(packer *p, uint64_t codec, const uint8_t *bytes, size_t len, made *out,
                          ipfsrt_error *err) {
    int version = codec == IPFSRT_CODEC_RAW ? 1 : p->o->cid_version;
    ipfsrt_status st = ipfsrt_cid_sum(&out->cid, version, codec, IPFSRT_MH_SHA2_256, bytes, len, err);
    if (st != IPFSRT_OK) return st;
    out->tsize = len;
    return p->sink(p->user, &out->cid, bytes, len, err);
}

/* Encodes {links, unixfs} as dag-pb and emits it. */
static ipfsrt_status emit_node(packer *p, const ipfsrt_dagpb_link *links, size_t n,
                               const ipfsrt_unixfs_data *fs, made *out, ipfsrt_error *err) {
    p->data.len = p->node.len = 0;
    ipfsrt_status st = ipfsrt_unixfs_data_encode(fs, &p->data, err);
    ipfsrt_dagpb_node pb = {p->data.data, p->data.len, (ipfsrt_dagpb_link *)links, n};
    if (st == IPFSRT_OK) st = ipfsrt_dagpb_encode(&pb, &p->node, err);
    if (st == IPFSRT_OK) st = emit(p, IPFSRT_CODEC_DAG_PB, p->node.data, p->node.len, out, err);
    uint64_t tsize = p->node.len;
    for (size_t i = 0; st == IPFSRT_OK && i < n; i++) tsize += links[i].tsize;
    out->tsize = tsize;
    return st;
}

/* ------------------------------------------------------------------ files */

/* One row of the balanced layout: nodes waiting for a parent. */
typedef struct row {
    made *items;
    size_t count;
} row;

/* Makes a File node over items and emits it. */
static ipfsrt_status make_parent(packer *p, const made *items, size_t n, made *out,
                                 ipfsrt_error *err) {
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
    if (st == IPFSRT_OK) st = emit_node(p, links, n, &fs, out, err);
    out->size = total;
    out->is_dir = false;
    free(links);
    free(sizes);
    return st;
}

/* Adds a node to row r, first turning a full row into a parent one row up:
 * leaves fill left to right and all end at the same depth. */
static ipfsrt_status row_push(packer *p, row *rows, size_t *nrows, size_t r, const made *m,
                              ipfsrt_error *err) {
    if (r >= IPFSRT_UNIXFS_MAX_DEPTH) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "file too large");
    if (r == *nrows) {
        rows[r].items = malloc(p->o->max_links * sizeof *rows[r].items);
        if (!rows[r].items) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        rows[r].count = 0;
        (*nrows)++;
    }
    if (rows[r].count == p->o->max_links) {
        made parent;
        ipfsrt_status st = make_parent(p, rows[r].items, rows[r].count, &parent, err);
        if (st == IPFSRT_OK) st = row_push(p, rows, nrows, r + 1, &parent, err);
        if (st != IPFSRT_OK) return st;
        rows[r].count = 0;
    }
    rows[r].items[rows[r].count++] = *m;
    return IPFSRT_OK;
}

static ipfsrt_status emit_leaf(packer *p, const uint8_t *bytes, size_t len, made *out,
                               ipfsrt_error *err) {
    out->size = len;
    out->is_dir = false;
    if (p->o->raw_leaves) return emit(p, IPFSRT_CODEC_RAW, bytes, len, out, err);
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_FILE, .data = len ? bytes : NULL,
                             .data_len = len, .has_filesize = true, .filesize = len};
    return emit_node(p, NULL, 0, &fs, out, err);
}

#define READ_PIECE (128u << 10)

static ipfsrt_status read_full(int fd, uint8_t *buf, size_t want, size_t *got, const char *path,
                               ipfsrt_hash_ctx *hash, ipfsrt_error *err) {
    *got = 0;
    while (*got < want) {
        size_t ask = want - *got < READ_PIECE ? want - *got : READ_PIECE;
        ssize_t n = read(fd, buf + *got, ask);
        if (n > 0 && hash) ipfsrt_hash_ctx_update(hash, buf + *got, (size_t)n, NULL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "read error in %s: %s", path, strerror(errno));
        if (n == 0) break;
        *got += (size_t)n;
    }
    return IPFSRT_OK;
}

static ipfsrt_status pack_file(packer *p, made *out, ipfsrt_error *err) {
    int fd = open(p->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open %s: %s", p->path, strerror(errno));
    row rows[IPFSRT_UNIXFS_MAX_DEPTH];
    size_t nrows = 0, leaves = 0;
    ipfsrt_status st = IPFSRT_OK;
    made first = {0};
    for (;;) {
        size_t got;
        ipfsrt_hash_ctx *hash = p->o->raw_leaves ? p->hash : NULL;
        if (hash) st = ipfsrt_hash_ctx_start(hash, IPFSRT_SHA2_256, err);
        if (st == IPFSRT_OK) st = read_full(fd, p->chunk, p->o->chunk_size, &got, p->path, hash, err);
        if (st != IPFSRT_OK || (got == 0 && leaves > 0)) break;
        made leaf;
        if (hash) {
            uint8_t digest[32];
            leaf.size = got;
            leaf.is_dir = false;
            leaf.tsize = got;
            st = ipfsrt_hash_ctx_finish(hash, digest, err);
            if (st == IPFSRT_OK)
                st = ipfsrt_cid_create(&leaf.cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, digest,
                                       sizeof digest, err);
            if (st == IPFSRT_OK) st = p->sink(p->user, &leaf.cid, p->chunk, got, err);
        } else {
            st = emit_leaf(p, p->chunk, got, &leaf, err);
        }
        if (st != IPFSRT_OK) break;
        if (leaves++ == 0) {
            first = leaf; /* a one-chunk file is its own root */
        } else {
            if (leaves == 2) st = row_push(p, rows, &nrows, 0, &first, err);
            if (st == IPFSRT_OK) st = row_push(p, rows, &nrows, 0, &leaf, err);
            if (st != IPFSRT_OK) break;
        }
        if (got < p->o->chunk_size) break;
    }
    close(fd);
    if (st == IPFSRT_OK && leaves == 1) *out = first;
    /* Close the rows bottom up; the top row's single node, or a node over it, is the root. */
    for (size_t r = 0; st == IPFSRT_OK && r < nrows; r++) {
        if (r + 1 == nrows && rows[r].count == 1) {
            *out = rows[r].items[0];
            break;
        }
        made parent;
        st = make_parent(p, rows[r].items, rows[r].count, &parent, err);
        if (st != IPFSRT_OK) break;
        if (r + 1 == nrows) {
            *out = parent;
            break;
        }
        st = row_push(p, rows, &nrows, r + 1, &parent, err);
    }
    for (size_t r = 0; r < nrows; r++) free(rows[r].items);
    return st;
}

/* ------------------------------------------------------------ directories */

typedef struct entry {
    char *name;
    size_t name_len;
    made m;
    uint64_t hash;
} entry;

typedef struct entries {
    entry *items;
    size_t count, cap;
} entries;

static void entries_free(entries *es) {
    for (size_t i = 0; i < es->count; i++) free(es->items[i].name);
    free(es->items);
    memset(es, 0, sizeof *es);
}

static int name_cmp(const void *a, const void *b) {
    const entry *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

static ipfsrt_status emit_plain_dir(packer *p, const entries *es, made *out, ipfsrt_error *err) {
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
    ipfsrt_status st = emit_node(p, links, es->count, &fs, out, err);
    free(links);
    out->is_dir = true;
    return st;
}

static uint64_t bucket_of(const entry *e, const ipfsrt_hamt_shape *h, unsigned depth) {
    return ipfsrt_hamt_bucket(h, e->hash, depth);
}

/* Sorting by the whole hash sorts by bucket at every depth at once: a bucket
 * at depth d is the hash's bits below the d buckets above it. */
static int hash_cmp(const void *a, const void *b) {
    const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return name_cmp(x, y);
}

/* A shard's links and the names they point into, built together. */
typedef struct shard_links {
    ipfsrt_dagpb_link *links;
    char *prefixes;     /* one bucket name per link */
    char **full_names;  /* prefix + entry name, for entries alone in their bucket */
    size_t count;
} shard_links;

static void shard_links_free(shard_links *sl) {
    for (size_t i = 0; sl->full_names && i < sl->count; i++) free(sl->full_names[i]);
    free(sl->full_names);
    free(sl->links);
    free(sl->prefixes);
}

static ipfsrt_status emit_shard(packer *p, entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                unsigned depth, made *out, ipfsrt_error *err);

/* The link for bucket b, which holds es[0..n): the entry itself when it is
 * alone, else a sub-shard of them. */
static ipfsrt_status bucket_link(packer *p, entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                 unsigned depth, uint64_t b, shard_links *sl, ipfsrt_error *err) {
    ipfsrt_dagpb_link *l = &sl->links[sl->count];
    char *prefix = sl->prefixes + (IPFSRT_HAMT_PREFIX_MAX + 1) * sl->count;
    ipfsrt_hamt_prefix(h, b, prefix);
    if (n > 1) {
        made sub;
        ipfsrt_status st = emit_shard(p, es, n, h, depth + 1, &sub, err);
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

/* One shard over entries (sorted by hash_cmp) that agree on their first depth
 * buckets. Entries alone in a bucket stay inline; colliding ones go into a
 * sub-shard. */
static ipfsrt_status emit_shard(packer *p, entry **es, size_t n, const ipfsrt_hamt_shape *h,
                                unsigned depth, made *out, ipfsrt_error *err) {
    if (!ipfsrt_hamt_depth_ok(h, depth))
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                           "names collide beyond the 64 hash bits of a HAMT (in %s)", p->path);
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
        st = bucket_link(p, es + i, j - i, h, depth, b, &sl, err);
    }
    if (st == IPFSRT_OK) {
        size_t skip = 0; /* the bitfield is written without leading zero bytes */
        while (skip < bitfield_len && bitfield[skip] == 0) skip++;
        ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_HAMT_SHARD,
                                 .data = bitfield_len > skip ? bitfield + skip : NULL,
                                 .data_len = bitfield_len - skip,
                                 .has_hash_type = true, .hash_type = IPFSRT_HAMT_HASH_MURMUR3,
                                 .has_fanout = true, .fanout = h->fanout};
        st = emit_node(p, sl.links, sl.count, &fs, out, err);
        out->is_dir = true;
    }
    shard_links_free(&sl);
    free(bitfield);
    return st;
}

static ipfsrt_status should_shard(packer *p, const entries *es, bool *shard, ipfsrt_error *err) {
    *shard = false;
    uint64_t measure = 0;
    switch (p->o->hamt_rule) {
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
        p->data.len = p->node.len = 0;
        ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_DIRECTORY};
        ipfsrt_status st = ipfsrt_unixfs_data_encode(&fs, &p->data, err);
        ipfsrt_dagpb_node pb = {p->data.data, p->data.len, links, es->count};
        if (st == IPFSRT_OK) st = ipfsrt_dagpb_encode(&pb, &p->node, err);
        free(links);
        if (st != IPFSRT_OK) return st;
        measure = p->node.len;
        break;
    }
    }
    *shard = measure > p->o->hamt_threshold;
    return IPFSRT_OK;
}

static ipfsrt_status emit_dir(packer *p, entries *es, made *out, ipfsrt_error *err) {
    if (es->count > 1) qsort(es->items, es->count, sizeof *es->items, name_cmp);
    bool shard;
    ipfsrt_status st = should_shard(p, es, &shard, err);
    if (st != IPFSRT_OK || !shard) return st != IPFSRT_OK ? st : emit_plain_dir(p, es, out, err);
    entry **order = malloc(es->count * sizeof *order);
    if (!order) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < es->count; i++) {
        es->items[i].hash = ipfsrt_murmur3_x64_64((const uint8_t *)es->items[i].name,
                                                  es->items[i].name_len);
        order[i] = &es->items[i];
    }
    qsort(order, es->count, sizeof *order, hash_cmp);
    st = emit_shard(p, order, es->count, &p->hamt, 0, out, err);
    free(order);
    return st;
}

/* ------------------------------------------------------------------ trees */

static ipfsrt_status path_push(packer *p, const char *name, size_t *saved, ipfsrt_error *err) {
    size_t n = strlen(name);
    if (ipfsrt_array_reserve(&p->path, &p->path_cap, p->path_len + n + 2, 1))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    *saved = p->path_len;
    p->path[p->path_len++] = '/';
    memcpy(p->path + p->path_len, name, n + 1);
    p->path_len += n;
    return IPFSRT_OK;
}

static void path_pop(packer *p, size_t saved) {
    p->path_len = saved;
    p->path[saved] = '\0';
}

/* Dot-files are left out unless asked for (as ipfs-car and Kubo do), but a
 * Zarr v2 folder's metadata are data, not hidden files: without them the
 * packed root opens as no group or array at all. */
static bool left_out(const ipfsrt_pack_options *o, const char *name) {
    static const char *const zarr_metadata[] = {".zgroup", ".zarray", ".zattrs", ".zmetadata"};
    if (!strcmp(name, ".") || !strcmp(name, "..")) return true;
    if (name[0] != '.' || o->hidden) return false;
    for (size_t i = 0; i < sizeof zarr_metadata / sizeof *zarr_metadata; i++)
        if (!strcmp(name, zarr_metadata[i])) return false;
    return true;
}

static ipfsrt_status pack_any(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err);

static ipfsrt_status pack_dir(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err) {
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "directories nested too deep at %s", p->path);
    DIR *d = opendir(p->path);
    if (!d) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot list %s: %s", p->path, strerror(errno));
    entries es = {0};
    ipfsrt_status st = IPFSRT_OK;
    struct dirent *de;
    /* names first: the directory is read before anything under it is packed */
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        if (left_out(p->o, name)) continue;
        if (ipfsrt_array_reserve(&es.items, &es.cap, es.count + 1, sizeof *es.items)) {
            st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            break;
        }
        entry *e = &es.items[es.count];
        memset(e, 0, sizeof *e);
        e->name_len = strlen(name);
        e->name = strdup(name);
        if (!e->name) {
            st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            break;
        }
        es.count++;
    }
    closedir(d);
    if (es.count > 1) qsort(es.items, es.count, sizeof *es.items, name_cmp);
    /* Pack each name; what survives (ipfs-car drops some) moves to the front. */
    size_t kept = 0, i = 0;
    for (; st == IPFSRT_OK && i < es.count; i++) {
        size_t saved;
        bool skip = false;
        entry e = es.items[i];
        st = path_push(p, e.name, &saved, err);
        if (st == IPFSRT_OK) {
            st = pack_any(p, &skip, &e.m, depth + 1, err);
            path_pop(p, saved);
        }
        if (st != IPFSRT_OK || skip) {
            free(e.name);
        } else {
            es.items[kept++] = e;
        }
    }
    for (; i < es.count; i++) free(es.items[i].name); /* not reached after a failure */
    es.count = kept;
    if (st == IPFSRT_OK && es.count == 0 && p->o->follow_layout_of_ipfs_car)
        *skipped = true; /* ipfs-car only sees files, so file-less directories vanish */
    else if (st == IPFSRT_OK)
        st = emit_dir(p, &es, out, err);
    entries_free(&es);
    return st;
}

static ipfsrt_status pack_symlink(packer *p, made *out, ipfsrt_error *err) {
    char target[4096];
    ssize_t n = readlink(p->path, target, sizeof target);
    if (n < 0 || (size_t)n >= sizeof target)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot read symlink %s", p->path);
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_SYMLINK, .data = (const uint8_t *)target,
                             .data_len = (size_t)n};
    out->size = 0;
    out->is_dir = false;
    return emit_node(p, NULL, 0, &fs, out, err);
}

static ipfsrt_status pack_any(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err) {
    struct stat sb;
    *skipped = false;
    if (lstat(p->path, &sb) != 0)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot stat %s: %s", p->path, strerror(errno));
    if (S_ISLNK(sb.st_mode)) {
        if (p->o->follow_layout_of_ipfs_car) { /* it lists regular files and directories only */
            *skipped = true;
            return IPFSRT_OK;
        }
        return pack_symlink(p, out, err);
    }
    if (S_ISDIR(sb.st_mode)) return pack_dir(p, skipped, out, depth, err);
    if (S_ISREG(sb.st_mode)) return pack_file(p, out, err);
    if (p->o->follow_layout_of_ipfs_car) {
        *skipped = true;
        return IPFSRT_OK;
    }
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                       "%s is neither a file, a directory nor a symlink", p->path);
}

/* Whether a directory holds a regular file somewhere below (as ipfs-car sees it). */
static bool has_files(const ipfsrt_pack_options *o, const char *dir, int depth) {
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH) return false;
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (left_out(o, de->d_name)) continue;
        char *child = malloc(strlen(dir) + strlen(de->d_name) + 2);
        if (!child) break;
        sprintf(child, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(child, &sb) == 0)
            found = S_ISREG(sb.st_mode) || (S_ISDIR(sb.st_mode) && has_files(o, child, depth + 1));
        free(child);
    }
    closedir(d);
    return found;
}

/* ipfs-car roots its DAG at the deepest directory that holds every file: while a
 * directory's only file-bearing entry is a directory, descend into it. */
static ipfsrt_status ipfs_car_root(packer *p, ipfsrt_error *err) {
    for (int depth = 0; depth < IPFSRT_UNIXFS_MAX_DEPTH; depth++) {
        DIR *d = opendir(p->path);
        if (!d) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot list %s: %s", p->path, strerror(errno));
        char *only = NULL;
        int bearing = 0;
        bool only_is_dir = false;
        struct dirent *de;
        while (bearing < 2 && (de = readdir(d))) {
            if (left_out(p->o, de->d_name)) continue;
            size_t saved;
            ipfsrt_status st = path_push(p, de->d_name, &saved, err);
            if (st != IPFSRT_OK) {
                closedir(d);
                free(only);
                return st;
            }
            struct stat sb;
            bool is_dir = lstat(p->path, &sb) == 0 && S_ISDIR(sb.st_mode);
            bool bears = (lstat(p->path, &sb) == 0 && S_ISREG(sb.st_mode)) ||
                         (is_dir && has_files(p->o, p->path, 0));
            path_pop(p, saved);
            if (bears) {
                bearing++;
                free(only);
                only = strdup(de->d_name);
                only_is_dir = is_dir;
            }
        }
        closedir(d);
        if (bearing != 1 || !only_is_dir) {
            free(only);
            return IPFSRT_OK;
        }
        size_t saved;
        ipfsrt_status st = only ? path_push(p, only, &saved, err)
                                : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(only);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static const char *base_name(const char *path, size_t *len) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/') start--;
    *len = n - start;
    return path + start;
}

static ipfsrt_status check_options(const ipfsrt_pack_options *o, ipfsrt_error *err) {
    if (o->cid_version != 0 && o->cid_version != 1)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "CID version must be 0 or 1");
    if (o->cid_version == 0 && o->raw_leaves)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "raw leaves need CIDv1 (a CIDv0 is always dag-pb)");
    if (o->chunk_size == 0 || o->chunk_size > IPFSRT_CAR_DEFAULT_MAX_BLOCK)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "chunk size must be 1 byte to 2 MiB");
    if (o->max_links < 2 || o->max_links > 65536)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "max links must be 2 to 65536");
    return IPFSRT_OK;
}

/* What the walk made of path, wrapped in a directory where the layout asks. */
static ipfsrt_status pack_top(packer *p, const char *path, bool is_dir, made *top,
                              ipfsrt_error *err) {
    const ipfsrt_pack_options *o = p->o;
    bool skipped = false;
    ipfsrt_status st = IPFSRT_OK;
    if (is_dir && o->follow_layout_of_ipfs_car) st = ipfs_car_root(p, err);
    if (st == IPFSRT_OK) st = pack_any(p, &skipped, top, 0, err);
    if (st == IPFSRT_OK && skipped) {
        entries none = {0};
        st = is_dir ? emit_plain_dir(p, &none, top, err)
                    : ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s has nothing ipfs-car would pack", path);
    }
    /* ipfs-car wraps a lone file in a directory; Kubo does so when asked (-w). */
    if (st == IPFSRT_OK && o->wrap && (!is_dir || !o->follow_layout_of_ipfs_car)) {
        size_t name_len;
        const char *name = base_name(path, &name_len);
        entry e = {.name = strndup(name, name_len), .name_len = name_len, .m = *top};
        entries one = {.items = &e, .count = 1};
        st = e.name ? emit_plain_dir(p, &one, top, err)
                    : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(e.name);
    }
    return st;
}

void ipfsrt_pack_options_init(ipfsrt_pack_options *opts) { (void)ipfsrt_pack_preset("ipfs-car", opts, NULL); }

ipfsrt_status ipfsrt_pack(const char *path, const ipfsrt_pack_options *opts, ipfsrt_pack_sink_fn sink,
                          void *user, ipfsrt_cid *root, ipfsrt_error *err) {
    ipfsrt_pack_options mine;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_pack_options_init, err);
    const ipfsrt_pack_options *o = &mine;
    if (st == IPFSRT_OK) st = check_options(o, err);
    if (st != IPFSRT_OK) return st;
    packer p = {.o = o, .sink = sink, .user = user};
    if (!ipfsrt_hamt_shape_init(&p.hamt, o->hamt_fanout))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "HAMT fanout must be a power of two up to %u",
                           IPFSRT_HAMT_MAX_FANOUT);
    ipfsrt_buf_init(&p.node);
    ipfsrt_buf_init(&p.data);
    p.path_len = strlen(path);
    while (p.path_len > 1 && path[p.path_len - 1] == '/') p.path_len--;
    p.path_cap = p.path_len + 256;
    p.path = malloc(p.path_cap);
    p.chunk = malloc(o->chunk_size);
    if (!p.path || !p.chunk) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) st = ipfsrt_hash_ctx_new(&p.hash, err);
    struct stat sb;
    if (st == IPFSRT_OK) {
        memcpy(p.path, path, p.path_len);
        p.path[p.path_len] = '\0';
        if (lstat(p.path, &sb) != 0)
            st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot stat %s: %s", path, strerror(errno));
    }
    made top = {0};
    if (st == IPFSRT_OK) st = pack_top(&p, path, S_ISDIR(sb.st_mode), &top, err);
    if (st == IPFSRT_OK) *root = top.cid;
    free(p.path);
    free(p.chunk);
    ipfsrt_hash_ctx_free(p.hash);
    ipfsrt_buf_free(&p.node);
    ipfsrt_buf_free(&p.data);
    return st;
}

static ipfsrt_status car_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                              ipfsrt_error *err) {
    return ipfsrt_car_writer_put_made(user, cid, data, len, err);
}

ipfsrt_status ipfsrt_pack_to_car(const char *path, const ipfsrt_pack_options *opts,
                                 const char *car_path, int car_version, ipfsrt_cid *root,
                                 ipfsrt_error *err) {
    ipfsrt_pack_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_pack_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    const ipfsrt_pack_options *o = &mine;
    /* The root is known only at the end: write a placeholder of the same length
     * (every root a pack makes is a sha2-256 CID of o->cid_version, or a raw
     * CIDv1, which is as long as a dag-pb CIDv1) and rewrite the header. */
    static const uint8_t zero[32];
    ipfsrt_cid placeholder;
    ipfsrt_status st = ipfsrt_cid_create(&placeholder, o->cid_version, IPFSRT_CODEC_DAG_PB,
                                         IPFSRT_MH_SHA2_256, zero, sizeof zero, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_car_writer *w;
    ipfsrt_car_writer_options wo = {.size = sizeof wo, .version = car_version ? car_version : 1,
                                    .roots = &placeholder, .root_count = 1};
    st = ipfsrt_car_writer_new(&w, car_path, &wo, err);
    if (st != IPFSRT_OK) return st;
    st = ipfsrt_pack(path, o, car_sink, w, root, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_set_roots(w, root, 1, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_finish(w, err);
    ipfsrt_car_writer_free(w);
    return st;
}
