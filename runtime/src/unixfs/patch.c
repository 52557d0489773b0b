/* A new version of a UnixFS directory DAG from the old one and a set of
 * changes (ipfsrt/patch.h). The changes are a tree of edits mirroring the
 * paths touched; finishing walks it, listing each touched directory of the
 * old version, merging its edits in, and making it again with the importer
 * that ipfsrt_pack uses, so that the bytes, and the root, are pack's. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/patch.h"
#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "unixfs/importer.h"

typedef enum edit_kind { EDIT_DIR, EDIT_FILE, EDIT_REMOVED } edit_kind;

typedef struct edit {
    char *name;
    size_t name_len;
    edit_kind kind;
    bool fresh;                /* a directory whose old namesake is gone (removed, or was a file) */
    ipfsrt_importer_made made; /* a file put */
    struct edit **children;    /* a directory's, sorted by name */
    size_t count, cap;
} edit;

struct ipfsrt_patch {
    ipfsrt_pack_options opts;
    ipfsrt_importer im;
    const ipfsrt_blocksource *old;
    ipfsrt_blocksource recording; /* old, each block it lends remembered in seen */
    ipfsrt_mhmap seen;            /* old directory blocks listed: never sent as new */
    ipfsrt_cid old_root;
    ipfsrt_pack_sink_fn sink;
    void *user;
    edit root;
    bool finished;
    char *where; /* the directory being made, for messages */
    size_t where_len, where_cap;
};

static ipfsrt_status recorded_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                  ipfsrt_error *err) {
    ipfsrt_patch *p = ctx;
    ipfsrt_status st = ipfsrt_blocksource_get(p->old, cid, ref, err);
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    bool inserted;
    if (st == IPFSRT_OK && ipfsrt_mhmap_put(&p->seen, mh, mh_len, 0, 0, &inserted) != IPFSRT_OK) {
        ipfsrt_blocksource_release(p->old, ref);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    return st;
}

static void recorded_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    ipfsrt_patch *p = ctx;
    ipfsrt_blocksource_release(p->old, ref);
}

/* What the importer makes goes on to the caller's sink, but for the blocks
 * the old version already had: shards of a HAMT that came out the same. */
static ipfsrt_status new_block(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                               ipfsrt_error *err) {
    ipfsrt_patch *p = user;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    if (ipfsrt_mhmap_get(&p->seen, mh, mh_len)) return IPFSRT_OK;
    return p->sink(p->user, cid, data, len, err);
}

ipfsrt_status ipfsrt_patch_new(ipfsrt_patch **patch, const ipfsrt_blocksource *src, const ipfsrt_cid *root,
                               const ipfsrt_pack_options *opts, ipfsrt_pack_sink_fn sink, void *user,
                               ipfsrt_error *err) {
    IPFSRT_NEED(patch, err);
    IPFSRT_NEED(root, err);
    IPFSRT_NEED(sink, err);
    *patch = NULL;
    if (!src || !root || !sink) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "patch: a source, a root and a sink");
    ipfsrt_patch *p = calloc(1, sizeof *p);
    if (!p) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(p->opts, opts, ipfsrt_pack_options_init, err);
    if (st == IPFSRT_OK) st = ipfsrt_importer_init(&p->im, &p->opts, new_block, p, err);
    if (st != IPFSRT_OK) {
        free(p);
        return st;
    }
    p->old = src;
    p->recording = (ipfsrt_blocksource){sizeof p->recording, p, recorded_get, recorded_release};
    ipfsrt_mhmap_init(&p->seen);
    p->old_root = *root;
    p->sink = sink;
    p->user = user;
    if (root->version != p->opts.cid_version) {
        char s[IPFSRT_CID_STR_MAX];
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                         "%s is a CIDv%d, but the settings make CIDv%d directories: was it packed "
                         "with other settings (a preset)?",
                         ipfsrt_cid_to_string(root, s), root->version, p->opts.cid_version);
        ipfsrt_patch_free(p);
        return st;
    }
    *patch = p;
    return IPFSRT_OK;
}

/* ---------------------------------------------------------------- edits */

static void edit_clear(edit *e) {
    for (size_t i = 0; i < e->count; i++) {
        edit_clear(e->children[i]);
        free(e->children[i]->name);
        free(e->children[i]);
    }
    free(e->children);
    e->children = NULL;
    e->count = e->cap = 0;
}

/* The child named so, or NULL with *at where it would go. */
static edit *find_child(const edit *dir, const char *name, size_t len, size_t *at) {
    size_t lo = 0, hi = dir->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const edit *c = dir->children[mid];
        int cmp = ipfsrt_importer_name_cmp(name, len, c->name, c->name_len);
        if (cmp == 0) return dir->children[mid];
        if (cmp < 0) hi = mid;
        else lo = mid + 1;
    }
    *at = lo;
    return NULL;
}

static edit *add_child(edit *dir, size_t at, const char *name, size_t len, edit_kind kind) {
    if (ipfsrt_array_reserve(&dir->children, &dir->cap, dir->count + 1, sizeof *dir->children)) return NULL;
    edit *c = calloc(1, sizeof *c);
    if (!c || !(c->name = strndup(name, len))) {
        free(c);
        return NULL;
    }
    c->name_len = len;
    c->kind = kind;
    memmove(dir->children + at + 1, dir->children + at, (dir->count - at) * sizeof *dir->children);
    dir->children[at] = c;
    dir->count++;
    return c;
}

/* The edit of one name in dir, made (as kind) when missing. */
static edit *child_edit(edit *dir, const char *name, size_t len, edit_kind kind) {
    size_t at = 0;
    edit *c = find_child(dir, name, len, &at);
    return c ? c : add_child(dir, at, name, len, kind);
}

static ipfsrt_status check_path(const char *path, ipfsrt_error *err) {
    int names = 0;
    for (const char *s = path;; names++) {
        const char *slash = strchr(s, '/');
        size_t len = slash ? (size_t)(slash - s) : strlen(s);
        if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                               "patch: '%s' is no path (names joined by '/', none empty, '.' or '..')", path);
        if (names >= IPFSRT_UNIXFS_MAX_DEPTH)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "patch: '%s' nests deeper than %d", path,
                               IPFSRT_UNIXFS_MAX_DEPTH);
        if (!slash) return IPFSRT_OK;
        s = slash + 1;
    }
}

/* Whether the patch takes a change at path. */
static ipfsrt_status check_change(const ipfsrt_patch *p, const char *path, ipfsrt_error *err) {
    return p->finished ? ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "patch: already finished") : check_path(path, err);
}

/* The edit of path's last name (checked), emptied of what it held; the
 * directories on the way are edits too (a file or a removal on the way
 * becomes a fresh one). */
static ipfsrt_status edit_at(ipfsrt_patch *p, const char *path, edit **out, ipfsrt_error *err) {
    edit *dir = &p->root;
    for (const char *s = path;;) {
        const char *slash = strchr(s, '/');
        size_t len = slash ? (size_t)(slash - s) : strlen(s);
        edit *c = child_edit(dir, s, len, slash ? EDIT_DIR : EDIT_REMOVED);
        if (!c) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        if (!slash) {
            edit_clear(c);
            *out = c;
            return IPFSRT_OK;
        }
        if (c->kind != EDIT_DIR) {
            c->fresh = true;
            c->kind = EDIT_DIR;
        }
        dir = c;
        s = slash + 1;
    }
}

ipfsrt_status ipfsrt_patch_put(ipfsrt_patch *patch, const char *path, const uint8_t *data, size_t len,
                               ipfsrt_error *err) {
    IPFSRT_NEED(patch, err);
    IPFSRT_NEED(path, err);
    ipfsrt_status st = check_change(patch, path, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_importer_file f;
    ipfsrt_importer_made m;
    ipfsrt_importer_file_init(&f, &patch->im);
    patch->im.where = path;
    st = ipfsrt_importer_file_write(&f, data, len, err);
    if (st == IPFSRT_OK) st = ipfsrt_importer_file_finish(&f, &m, err);
    ipfsrt_importer_file_free(&f);
    edit *e;
    if (st == IPFSRT_OK) st = edit_at(patch, path, &e, err);
    if (st == IPFSRT_OK) {
        e->kind = EDIT_FILE;
        e->fresh = false;
        e->made = m;
    }
    return st;
}

ipfsrt_status ipfsrt_patch_remove(ipfsrt_patch *patch, const char *path, ipfsrt_error *err) {
    IPFSRT_NEED(patch, err);
    IPFSRT_NEED(path, err);
    edit *e;
    ipfsrt_status st = check_change(patch, path, err);
    if (st == IPFSRT_OK) st = edit_at(patch, path, &e, err);
    if (st == IPFSRT_OK) {
        e->kind = EDIT_REMOVED;
        e->fresh = false;
    }
    return st;
}

/* ------------------------------------------------------------ finishing */

/* The old directory's entries, sorted as pack sorts them; a name twice is a
 * DAG no importer makes, and would be written twice. */
static ipfsrt_status list_old(ipfsrt_patch *p, const ipfsrt_cid *dir, ipfsrt_importer_entries *es,
                              ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_unixfs_ls(&p->recording, dir, false, ipfsrt_importer_keep_entry, es, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_importer_entries_sort(es);
    for (size_t i = 1; i < es->count; i++) {
        const ipfsrt_importer_entry *a = &es->items[i - 1], *b = &es->items[i];
        if (ipfsrt_importer_name_cmp(a->name, a->name_len, b->name, b->name_len) == 0) {
            char s[IPFSRT_CID_STR_MAX];
            return ipfsrt_fail(err, IPFSRT_EBAD_UNIXFS, -1, "directory %s lists '%s' twice",
                               ipfsrt_cid_to_string(dir, s), b->name);
        }
    }
    return IPFSRT_OK;
}

static ipfsrt_status where_push(ipfsrt_patch *p, const char *name, size_t len, size_t *saved, ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&p->where, &p->where_cap, p->where_len + len + 2, 1))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    *saved = p->where_len;
    if (p->where_len) p->where[p->where_len++] = '/';
    memcpy(p->where + p->where_len, name, len);
    p->where_len += len;
    p->where[p->where_len] = '\0';
    p->im.where = p->where;
    return IPFSRT_OK;
}

static void where_pop(ipfsrt_patch *p, size_t saved) {
    p->where_len = saved;
    p->where[saved] = '\0';
}

static ipfsrt_status make_dir(ipfsrt_patch *p, const edit *d, const ipfsrt_cid *old, int depth,
                              ipfsrt_importer_made *out, bool *made, ipfsrt_error *err);

static ipfsrt_status add_made(ipfsrt_importer_entries *es, const char *name, size_t len,
                              const ipfsrt_importer_made *m, ipfsrt_error *err) {
    ipfsrt_importer_entry *x = ipfsrt_importer_entries_add(es, name, len);
    if (!x) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    x->m = *m;
    return IPFSRT_OK;
}

/* One edit applied to the new listing: old is its namesake's entry, or NULL. */
static ipfsrt_status apply(ipfsrt_patch *p, const edit *c, const ipfsrt_importer_entry *old, int depth,
                           ipfsrt_importer_entries *out, ipfsrt_error *err) {
    if (c->kind == EDIT_REMOVED) return IPFSRT_OK;
    if (c->kind == EDIT_FILE) return add_made(out, c->name, c->name_len, &c->made, err);
    size_t saved = 0;
    ipfsrt_status st = where_push(p, c->name, c->name_len, &saved, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_importer_made m;
    bool made = false;
    st = make_dir(p, c, old && !c->fresh ? &old->m.cid : NULL, depth + 1, &m, &made, err);
    where_pop(p, saved);
    return st == IPFSRT_OK && made ? add_made(out, c->name, c->name_len, &m, err) : st;
}

/* The old entries and the edits, both sorted, merged into the new listing. */
static ipfsrt_status merge(ipfsrt_patch *p, const edit *d, const ipfsrt_importer_entries *old, int depth,
                           ipfsrt_importer_entries *out, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    size_t i = 0, j = 0;
    while (st == IPFSRT_OK && (i < old->count || j < d->count)) {
        const ipfsrt_importer_entry *o = i < old->count ? &old->items[i] : NULL;
        const edit *c = j < d->count ? d->children[j] : NULL;
        int cmp = !o ? 1 : !c ? -1 : ipfsrt_importer_name_cmp(o->name, o->name_len, c->name, c->name_len);
        if (cmp < 0) {
            st = add_made(out, o->name, o->name_len, &o->m, err);
            i++;
            continue;
        }
        st = apply(p, c, cmp == 0 ? o : NULL, depth, out, err);
        i += cmp == 0;
        j++;
    }
    return st;
}

/* The directory d edits, made again over its old version (NULL: none); a
 * directory new in this version and left empty is not made (*made false),
 * nor, as ipfs-car packs, any empty one but the root. */
static ipfsrt_status make_dir(ipfsrt_patch *p, const edit *d, const ipfsrt_cid *old, int depth,
                              ipfsrt_importer_made *out, bool *made, ipfsrt_error *err) {
    ipfsrt_importer_entries before = {0}, after = {0};
    ipfsrt_status st = old ? list_old(p, old, &before, err) : IPFSRT_OK;
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", depth ? p->where : "the old root");
    if (st == IPFSRT_OK) st = merge(p, d, &before, depth, &after, err);
    ipfsrt_importer_entries_free(&before);
    *made = false;
    bool dropped = after.count == 0 && depth > 0 && (!old || p->opts.follow_layout_of_ipfs_car);
    if (st == IPFSRT_OK && !dropped) {
        p->im.where = depth ? p->where : "the root";
        st = ipfsrt_importer_dir(&p->im, &after, out, err);
        *made = st == IPFSRT_OK;
    }
    ipfsrt_importer_entries_free(&after);
    return st;
}

ipfsrt_status ipfsrt_patch_finish(ipfsrt_patch *patch, ipfsrt_cid *root, ipfsrt_error *err) {
    IPFSRT_NEED(root, err);
    if (patch->finished) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "patch: already finished");
    patch->finished = true;
    ipfsrt_importer_made m;
    bool made;
    patch->where_len = 0;
    ipfsrt_status st = make_dir(patch, &patch->root, &patch->old_root, 0, &m, &made, err);
    if (st == IPFSRT_OK) *root = m.cid;
    return st;
}

void ipfsrt_patch_free(ipfsrt_patch *patch) {
    if (!patch) return;
    edit_clear(&patch->root);
    ipfsrt_importer_free(&patch->im);
    ipfsrt_mhmap_free(&patch->seen);
    free(patch->where);
    free(patch);
}
