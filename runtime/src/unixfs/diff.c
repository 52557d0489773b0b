/* What changed between two versions of a UnixFS directory, from their blocks:
 * a subtree whose CID is the same on both sides is the same (the hash says
 * so), so only directories whose CIDs differ are listed, side by side, and
 * what one side alone holds is walked to name each file in it. Every block the
 * diff reports on is read, verified: one a source lacks is an error naming it.
 * What a CID is (a directory, its listing) is read once, whichever side and
 * however many paths reach it; the paths walked are bounded. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "unixfs/importer.h"

/* Listings kept for CIDs reached again: past this many entries in all, no more
 * are kept (they are read again when reached again). */
#define MEMO_MAX_ENTRIES ((size_t)1 << 22)

enum { KNOWN_FILE = 1, KNOWN_DIR = 2, READ_FROM_OLD = 4, READ_FROM_NEW = 8 };

typedef struct differ {
    const ipfsrt_blocksource *old_src, *new_src;
    ipfsrt_unixfs_change_fn fn;
    void *user;
    ipfsrt_mhmap known; /* CID bytes -> len: what is known of it (the enum's bits), offset: 1 + its
                           listing's slot (0: none kept) */
    ipfsrt_importer_entries **listings; /* each on its own: a walk holds one while more are kept */
    size_t listing_count, listing_cap, kept_entries;
    uint64_t visited; /* entries the walk has met, along every path */
} differ;

static ipfsrt_mhmap_entry *memo_of(differ *d, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_mhmap_entry *e;
    bool inserted;
    if (ipfsrt_mhmap_slot(&d->known, cid->bytes, cid->len, &e, &inserted) != IPFSRT_OK) {
        ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        return NULL;
    }
    return e;
}

/* Keeps es for its directory's next visit (memo entry e), while the memo has
 * room: its entries are taken over (es is left empty). The listing to walk:
 * the kept one, or es. */
static const ipfsrt_importer_entries *keep_listing(differ *d, ipfsrt_mhmap_entry *e, ipfsrt_importer_entries *es) {
    if (d->kept_entries + es->count > MEMO_MAX_ENTRIES ||
        ipfsrt_array_reserve(&d->listings, &d->listing_cap, d->listing_count + 1, sizeof *d->listings))
        return es;
    ipfsrt_importer_entries *kept = malloc(sizeof *kept);
    if (!kept) return es;
    *kept = *es;
    *es = (ipfsrt_importer_entries){0};
    d->listings[d->listing_count++] = kept;
    d->kept_entries += kept->count;
    e->offset = d->listing_count;
    return kept;
}

/* dir's entries in name order, from the memo or its blocks. */
static ipfsrt_status listing(differ *d, const ipfsrt_blocksource *src, const ipfsrt_cid *dir, const char *path,
                             const ipfsrt_importer_entries **out, ipfsrt_importer_entries *own, ipfsrt_error *err) {
    ipfsrt_mhmap_entry *e = memo_of(d, dir, err);
    if (!e) return IPFSRT_EOUT_OF_MEMORY;
    if (e->offset) {
        *out = d->listings[e->offset - 1];
        return IPFSRT_OK;
    }
    ipfsrt_status st = ipfsrt_unixfs_ls(src, dir, false, ipfsrt_importer_keep_entry, own, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s: ", *path ? path : "the root");
        return st;
    }
    ipfsrt_importer_entries_sort(own);
    *out = keep_listing(d, e, own); /* e is still its slot: listing touched no memo */
    return IPFSRT_OK;
}

/* Whether cid is a directory: a raw block never is; a dag-pb one says so. */
static ipfsrt_status is_dir(differ *d, const ipfsrt_blocksource *src, const ipfsrt_cid *cid, bool *dir,
                            ipfsrt_error *err) {
    *dir = false;
    if (cid->codec == IPFSRT_CODEC_RAW) return IPFSRT_OK;
    ipfsrt_mhmap_entry *e = memo_of(d, cid, err);
    if (!e) return IPFSRT_EOUT_OF_MEMORY;
    if (e->len & (KNOWN_FILE | KNOWN_DIR)) {
        *dir = e->len & KNOWN_DIR;
        return IPFSRT_OK;
    }
    char path[IPFSRT_CID_STR_MAX];
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(src, ipfsrt_cid_to_string(cid, path), NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    *dir = info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD;
    e->len |= *dir ? KNOWN_DIR : KNOWN_FILE;
    return IPFSRT_OK;
}

/* One more entry met; the walk follows paths, which a DAG linking the same
 * directories from many names multiplies, so their number is bounded. */
static ipfsrt_status visit(differ *d, const char *path, ipfsrt_error *err) {
    if (++d->visited <= IPFSRT_UNIXFS_MAX_ENTRIES) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1,
                       "%s: the diff met over %llu entries along its paths (a DAG that links the same directories "
                       "under many names?)",
                       path, (unsigned long long)IPFSRT_UNIXFS_MAX_ENTRIES);
}

static char *child_path(const char *dir, const char *name, size_t len) {
    size_t n = strlen(dir);
    char *p = malloc(n + len + 2);
    if (!p) return NULL;
    memcpy(p, dir, n);
    if (n) p[n++] = '/';
    memcpy(p + n, name, len);
    p[n + len] = '\0';
    return p;
}

/* Reads a raw block the diff is about to report on, once per side (a dag-pb
 * one was read to learn that it is no directory), so that a source lacking it
 * fails the diff. */
static ipfsrt_status read_block(differ *d, bool old, const ipfsrt_cid *cid, const char *path, ipfsrt_error *err) {
    if (cid->codec != IPFSRT_CODEC_RAW) return IPFSRT_OK;
    ipfsrt_mhmap_entry *e = memo_of(d, cid, err);
    uint32_t side = old ? READ_FROM_OLD : READ_FROM_NEW;
    if (!e) return IPFSRT_EOUT_OF_MEMORY;
    if (e->len & side) return IPFSRT_OK;
    const ipfsrt_blocksource *src = old ? d->old_src : d->new_src;
    ipfsrt_blocksource_ref ref;
    ipfsrt_status st = ipfsrt_blocksource_get(src, cid, &ref, err);
    if (st != IPFSRT_OK) {
        if (err && !err->cid[0]) ipfsrt_cid_to_string(cid, err->cid);
        ipfsrt_error_prefix(err, "%s: ", path);
        return st;
    }
    ipfsrt_blocksource_release(src, &ref);
    e->len |= side; /* the get touched no memo */
    return IPFSRT_OK;
}

static ipfsrt_status report(differ *d, const char *path, ipfsrt_unixfs_change_kind kind, const ipfsrt_importer_entry *o,
                            const ipfsrt_importer_entry *n, ipfsrt_error *err) {
    ipfsrt_status st = o ? read_block(d, true, &o->m.cid, path, err) : IPFSRT_OK;
    if (st == IPFSRT_OK && n) st = read_block(d, false, &n->m.cid, path, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_unixfs_change c = {path, kind, o ? &o->m.cid : NULL, n ? &n->m.cid : NULL, o ? o->m.tsize : 0,
                              n ? n->m.tsize : 0};
    return d->fn(d->user, &c, err);
}

/* Every file under e (e itself when it is one), as one side alone holds it. */
static ipfsrt_status one_side(differ *d, const ipfsrt_importer_entry *e, const char *path, bool old, int depth,
                              ipfsrt_error *err) {
    const ipfsrt_blocksource *src = old ? d->old_src : d->new_src;
    bool dir;
    ipfsrt_status st = visit(d, path, err);
    if (st == IPFSRT_OK) st = is_dir(d, src, &e->m.cid, &dir, err);
    if (st != IPFSRT_OK || !dir)
        return st == IPFSRT_OK ? report(d, path, old ? IPFSRT_UNIXFS_REMOVED : IPFSRT_UNIXFS_ADDED, old ? e : NULL,
                                        old ? NULL : e, err)
                               : st;
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: directories nested deeper than %d", path,
                           IPFSRT_UNIXFS_MAX_DEPTH);
    ipfsrt_importer_entries own = {0};
    const ipfsrt_importer_entries *es = NULL;
    st = listing(d, src, &e->m.cid, path, &es, &own, err);
    for (size_t i = 0; st == IPFSRT_OK && i < es->count; i++) {
        char *p = child_path(path, es->items[i].name, es->items[i].name_len);
        st = p ? one_side(d, &es->items[i], p, old, depth + 1, err)
               : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(p);
    }
    ipfsrt_importer_entries_free(&own);
    return st;
}

static ipfsrt_status both_sides(differ *d, const ipfsrt_cid *old, const ipfsrt_cid *new, const char *path,
                                int depth, ipfsrt_error *err);

/* A name both sides hold with different CIDs: directories on both sides are
 * compared further; anything else changed, or changed its kind. */
static ipfsrt_status changed(differ *d, const ipfsrt_importer_entry *o, const ipfsrt_importer_entry *n,
                             const char *path, int depth, ipfsrt_error *err) {
    bool old_dir, new_dir;
    ipfsrt_status st = is_dir(d, d->old_src, &o->m.cid, &old_dir, err);
    if (st == IPFSRT_OK) st = is_dir(d, d->new_src, &n->m.cid, &new_dir, err);
    if (st != IPFSRT_OK) return st;
    if (old_dir && new_dir) return both_sides(d, &o->m.cid, &n->m.cid, path, depth + 1, err);
    if (!old_dir && !new_dir) return report(d, path, IPFSRT_UNIXFS_CHANGED, o, n, err);
    st = one_side(d, o, path, true, depth + 1, err);
    return st == IPFSRT_OK ? one_side(d, n, path, false, depth + 1, err) : st;
}

static ipfsrt_status merge(differ *d, const ipfsrt_importer_entries *os, const ipfsrt_importer_entries *ns,
                           const char *path, int depth, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0, j = 0; st == IPFSRT_OK && (i < os->count || j < ns->count);) {
        const ipfsrt_importer_entry *o = i < os->count ? &os->items[i] : NULL, *n = j < ns->count ? &ns->items[j] : NULL;
        int cmp = !o ? 1 : !n ? -1 : ipfsrt_importer_name_cmp(o->name, o->name_len, n->name, n->name_len);
        const ipfsrt_importer_entry *named = cmp <= 0 ? o : n;
        char *p = child_path(path, named->name, named->name_len);
        if (!p) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        if (cmp < 0) st = one_side(d, o, p, true, depth + 1, err);
        else if (cmp > 0) st = one_side(d, n, p, false, depth + 1, err);
        else st = visit(d, p, err);
        if (st == IPFSRT_OK && cmp == 0 && !ipfsrt_cid_equal(&o->m.cid, &n->m.cid)) st = changed(d, o, n, p, depth, err);
        free(p);
        i += cmp <= 0;
        j += cmp >= 0;
    }
    return st;
}

static ipfsrt_status both_sides(differ *d, const ipfsrt_cid *old, const ipfsrt_cid *new, const char *path,
                                int depth, ipfsrt_error *err) {
    if (ipfsrt_cid_equal(old, new)) return IPFSRT_OK;
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: directories nested deeper than %d", path,
                           IPFSRT_UNIXFS_MAX_DEPTH);
    ipfsrt_importer_entries own_old = {0}, own_new = {0};
    const ipfsrt_importer_entries *os = NULL, *ns = NULL;
    ipfsrt_status st = listing(d, d->old_src, old, path, &os, &own_old, err);
    if (st == IPFSRT_OK) st = listing(d, d->new_src, new, path, &ns, &own_new, err);
    if (st == IPFSRT_OK) st = merge(d, os, ns, path, depth, err);
    ipfsrt_importer_entries_free(&own_old);
    ipfsrt_importer_entries_free(&own_new);
    return st;
}

ipfsrt_status ipfsrt_unixfs_diff(const ipfsrt_blocksource *old_src, const ipfsrt_cid *old_root,
                                 const ipfsrt_blocksource *new_src, const ipfsrt_cid *new_root,
                                 ipfsrt_unixfs_change_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(old_src, err);
    IPFSRT_NEED(old_root, err);
    IPFSRT_NEED(new_src, err);
    IPFSRT_NEED(new_root, err);
    IPFSRT_NEED(fn, err);
    differ d = {.old_src = old_src, .new_src = new_src, .fn = fn, .user = user};
    ipfsrt_mhmap_init(&d.known);
    ipfsrt_status st = both_sides(&d, old_root, new_root, "", 0, err);
    for (size_t i = 0; i < d.listing_count; i++) {
        ipfsrt_importer_entries_free(d.listings[i]);
        free(d.listings[i]);
    }
    free(d.listings);
    ipfsrt_mhmap_free(&d.known);
    return st;
}
