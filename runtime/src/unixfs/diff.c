/* What changed between two versions of a UnixFS directory, from their blocks:
 * a subtree whose CID is the same on both sides is the same (the hash says
 * so), so only directories whose CIDs differ are listed, side by side, and
 * what one side alone holds is walked to name each file in it. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "unixfs/importer.h"

typedef struct differ {
    const ipfsrt_blocksource *old_src, *new_src;
    ipfsrt_unixfs_change_fn fn;
    void *user;
} differ;

static ipfsrt_status listing(const ipfsrt_blocksource *src, const ipfsrt_cid *dir, const char *path,
                             ipfsrt_importer_entries *es, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_unixfs_ls(src, dir, false, ipfsrt_importer_keep_entry, es, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", *path ? path : "the root");
    ipfsrt_importer_entries_sort(es);
    return st;
}

/* Whether cid is a directory: a raw block never is; a dag-pb one says so. */
static ipfsrt_status is_dir(const ipfsrt_blocksource *src, const ipfsrt_cid *cid, bool *dir, ipfsrt_error *err) {
    *dir = false;
    if (cid->codec == IPFSRT_CODEC_RAW) return IPFSRT_OK;
    char path[IPFSRT_CID_STR_MAX];
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(src, ipfsrt_cid_to_string(cid, path), NULL, &info, err);
    *dir = st == IPFSRT_OK && (info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD);
    return st;
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

static ipfsrt_status report(differ *d, const char *path, ipfsrt_unixfs_change_kind kind, const ipfsrt_importer_entry *o,
                            const ipfsrt_importer_entry *n, ipfsrt_error *err) {
    ipfsrt_unixfs_change c = {path, kind, o ? &o->m.cid : NULL, n ? &n->m.cid : NULL, o ? o->m.tsize : 0,
                              n ? n->m.tsize : 0};
    return d->fn(d->user, &c, err);
}

/* Every file under e (e itself when it is one), as one side alone holds it. */
static ipfsrt_status one_side(differ *d, const ipfsrt_importer_entry *e, const char *path, bool old, int depth,
                              ipfsrt_error *err) {
    const ipfsrt_blocksource *src = old ? d->old_src : d->new_src;
    bool dir;
    ipfsrt_status st = is_dir(src, &e->m.cid, &dir, err);
    if (st != IPFSRT_OK || !dir)
        return st == IPFSRT_OK ? report(d, path, old ? IPFSRT_UNIXFS_REMOVED : IPFSRT_UNIXFS_ADDED, old ? e : NULL,
                                        old ? NULL : e, err)
                               : st;
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: directories nested deeper than %d", path,
                           IPFSRT_UNIXFS_MAX_DEPTH);
    ipfsrt_importer_entries es = {0};
    st = listing(src, &e->m.cid, path, &es, err);
    for (size_t i = 0; i < es.count && st == IPFSRT_OK; i++) {
        char *p = child_path(path, es.items[i].name, es.items[i].name_len);
        st = p ? one_side(d, &es.items[i], p, old, depth + 1, err)
               : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(p);
    }
    ipfsrt_importer_entries_free(&es);
    return st;
}

static ipfsrt_status both_sides(differ *d, const ipfsrt_cid *old, const ipfsrt_cid *new, const char *path,
                                int depth, ipfsrt_error *err);

/* A name both sides hold with different CIDs: directories on both sides are
 * compared further; anything else changed, or changed its kind. */
static ipfsrt_status changed(differ *d, const ipfsrt_importer_entry *o, const ipfsrt_importer_entry *n,
                             const char *path, int depth, ipfsrt_error *err) {
    bool old_dir, new_dir;
    ipfsrt_status st = is_dir(d->old_src, &o->m.cid, &old_dir, err);
    if (st == IPFSRT_OK) st = is_dir(d->new_src, &n->m.cid, &new_dir, err);
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
        else if (!ipfsrt_cid_equal(&o->m.cid, &n->m.cid)) st = changed(d, o, n, p, depth, err);
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
    ipfsrt_importer_entries os = {0}, ns = {0};
    ipfsrt_status st = listing(d->old_src, old, path, &os, err);
    if (st == IPFSRT_OK) st = listing(d->new_src, new, path, &ns, err);
    if (st == IPFSRT_OK) st = merge(d, &os, &ns, path, depth, err);
    ipfsrt_importer_entries_free(&os);
    ipfsrt_importer_entries_free(&ns);
    return st;
}

ipfsrt_status ipfsrt_unixfs_diff(const ipfsrt_blocksource *old_src, const ipfsrt_cid *old_root,
                                 const ipfsrt_blocksource *new_src, const ipfsrt_cid *new_root,
                                 ipfsrt_unixfs_change_fn fn, void *user, ipfsrt_error *err) {
    differ d = {old_src, new_src, fn, user};
    return both_sides(&d, old_root, new_root, "", 0, err);
}
