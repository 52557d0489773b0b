/* UnixFS reading over a block source: path resolution (plain and HAMT-sharded
 * directories, symlinks on request), ranged file reads, listings, block lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/ipld.h"
#include "ipfsrt/path.h"
#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "unixfs/hamt.h"


/* A loaded, decoded block. */
typedef struct node {
    ipfsrt_cid cid;
    ipfsrt_blocksource_ref ref;
    bool raw;  /* raw codec: the block is file bytes */
    bool ipld; /* DAG-CBOR, DAG-JSON, JSON or CBOR: not UnixFS */
    ipfsrt_dagpb_node pb;
    ipfsrt_unixfs_data fs;
} node;

static void node_release(const ipfsrt_blocksource *src, node *n) {
    ipfsrt_dagpb_node_free(&n->pb);
    ipfsrt_unixfs_data_free(&n->fs);
    ipfsrt_blocksource_release(src, &n->ref);
}

/* Loads any block a path may cross: UnixFS, raw, or an IPLD document (only
 * fetched: documents are read when a path goes into them). */
static ipfsrt_status node_load_any(const ipfsrt_blocksource *src, const ipfsrt_cid *cid, node *n,
                                   ipfsrt_error *err) {
    memset(n, 0, sizeof *n);
    n->cid = *cid;
    ipfsrt_status st = ipfsrt_blocksource_get(src, cid, &n->ref, err);
    if (st != IPFSRT_OK) return st;
    n->raw = cid->codec == IPFSRT_CODEC_RAW;
    n->ipld = ipfsrt_ipld_is_document(cid->codec);
    if (n->raw || n->ipld) return IPFSRT_OK;
    if (cid->codec != IPFSRT_CODEC_DAG_PB) {
        const char *name = ipfsrt_codec_name(cid->codec);
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "codec %s is not UnixFS",
                             name ? name : "unknown");
    } else if ((st = ipfsrt_dagpb_decode(n->ref.data, n->ref.len, &n->pb, err)) != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "block %s: ", ipfsrt_cid_to_string(cid, (char[IPFSRT_CID_STR_MAX]){0}));
    } else if (!n->pb.data) {
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "dag-pb node without UnixFS data");
    } else if ((st = ipfsrt_unixfs_data_decode(n->pb.data, n->pb.data_len, &n->fs, err)) !=
               IPFSRT_OK) {
        ipfsrt_error_prefix(err, "block %s: ", ipfsrt_cid_to_string(cid, (char[IPFSRT_CID_STR_MAX]){0}));
    }
    if (st != IPFSRT_OK) node_release(src, n);
    return st;
}

/* Loads a UnixFS or raw block: what listings and file reads accept. */
static ipfsrt_status node_load(const ipfsrt_blocksource *src, const ipfsrt_cid *cid, node *n,
                               ipfsrt_error *err) {
    ipfsrt_status st = node_load_any(src, cid, n, err);
    if (st != IPFSRT_OK || !n->ipld) return st;
    node_release(src, n);
    return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1,
                           "codec %s is not UnixFS: a document, read as one block (a gateway's ?format=raw)",
                           ipfsrt_codec_name(cid->codec));
}

static bool is_file(const node *n) {
    return n->raw || (!n->ipld && (n->fs.type == IPFSRT_UNIXFS_FILE || n->fs.type == IPFSRT_UNIXFS_RAW));
}

static bool is_dir(const node *n) {
    return !n->raw && !n->ipld &&
           (n->fs.type == IPFSRT_UNIXFS_DIRECTORY || n->fs.type == IPFSRT_UNIXFS_HAMT_SHARD);
}

/* data_len + sum of blocksizes, which filesize (when present) must equal. */
static ipfsrt_status file_size(const node *n, uint64_t *size, ipfsrt_error *err) {
    if (n->raw) {
        *size = n->ref.len;
        return IPFSRT_OK;
    }
    if (n->fs.blocksize_count != n->pb.link_count)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1,
                               "file node has %zu links but %zu blocksizes", n->pb.link_count,
                               n->fs.blocksize_count);
    uint64_t total = n->fs.data_len;
    for (size_t i = 0; i < n->fs.blocksize_count; i++) {
        if (n->fs.blocksizes[i] > UINT64_MAX - total)
            return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1, "blocksizes overflow");
        total += n->fs.blocksizes[i];
    }
    if (total > (uint64_t)INT64_MAX) /* no file is that big; sizes past it break signed arithmetic */
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1, "file size past 2^63 bytes");
    if (n->fs.has_filesize && n->fs.filesize != total)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1,
                               "filesize %llu does not match its data and blocksizes (%llu)",
                               (unsigned long long)n->fs.filesize, (unsigned long long)total);
    *size = total;
    return IPFSRT_OK;
}

static ipfsrt_status node_info(const node *n, ipfsrt_unixfs_node_info *info, ipfsrt_error *err) {
    memset(info, 0, sizeof *info);
    info->cid = n->cid;
    if (n->ipld) {
        info->type = IPFSRT_UNIXFS_IPLD;
        info->size = n->ref.len;
        return IPFSRT_OK;
    }
    if (is_file(n)) {
        info->type = IPFSRT_UNIXFS_FILE;
        ipfsrt_status st = file_size(n, &info->size, err);
        if (st != IPFSRT_OK) return st;
    } else {
        info->type = n->fs.type;
        if (n->fs.type == IPFSRT_UNIXFS_SYMLINK) info->size = n->fs.data_len;
    }
    if (!n->raw) {
        info->has_mode = n->fs.has_mode;
        info->mode = n->fs.mode;
        info->has_mtime = n->fs.has_mtime;
        info->mtime_seconds = n->fs.mtime_seconds;
        info->mtime_nanos = n->fs.mtime_nanos;
    }
    return IPFSRT_OK;
}

/* ------------------------------------------------------------------ HAMT */

static ipfsrt_status hamt_check(const node *n, ipfsrt_hamt_shape *h, ipfsrt_error *err) {
    if (!n->fs.has_hash_type || n->fs.hash_type != IPFSRT_HAMT_HASH_MURMUR3)
        return ipfsrt_fail_cid(err, IPFSRT_EUNSUPPORTED, &n->cid, -1,
                               "HAMT hash function 0x%llx is not murmur3-x64-64",
                               (unsigned long long)n->fs.hash_type);
    uint64_t f = n->fs.has_fanout ? n->fs.fanout : 0;
    if (!ipfsrt_hamt_shape_init(h, f))
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1,
                               "HAMT fanout %llu is not a power of two up to %u",
                               (unsigned long long)f, IPFSRT_HAMT_MAX_FANOUT);
    return IPFSRT_OK;
}

static bool hamt_same(const ipfsrt_hamt_shape *a, const ipfsrt_hamt_shape *b) { return a->fanout == b->fanout; }

/* Loads the sub-shard a bucket link points at, which must share its parent's shape. */
static ipfsrt_status load_subshard(const ipfsrt_blocksource *src, const ipfsrt_dagpb_link *link,
                                   const ipfsrt_hamt_shape *parent, node *out, ipfsrt_error *err) {
    ipfsrt_status st = node_load(src, &link->cid, out, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_hamt_shape h;
    if (out->raw || out->fs.type != IPFSRT_UNIXFS_HAMT_SHARD)
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &link->cid, -1, "HAMT bucket %.*s is not a shard",
                             (int)link->name_len, (const char *)link->name);
    else if ((st = hamt_check(out, &h, err)) == IPFSRT_OK && !hamt_same(&h, parent))
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &link->cid, -1,
                             "HAMT shard fanout differs from its parent's");
    if (st != IPFSRT_OK) node_release(src, out);
    return st;
}

static const ipfsrt_dagpb_link *find_bucket(const node *shard, const char *prefix, size_t width) {
    for (size_t i = 0; i < shard->pb.link_count; i++) {
        const ipfsrt_dagpb_link *l = &shard->pb.links[i];
        if (l->name && l->name_len >= width && memcmp(l->name, prefix, width) == 0) return l;
    }
    return NULL;
}

/* Finds name in the shard rooted at root (which the caller owns); the entry's
 * link CID goes to out, *found says whether there is one. A sub-shard the
 * source lacks is the source's error, never an absent name. */
static ipfsrt_status hamt_lookup(const ipfsrt_blocksource *src, const node *root, const char *name,
                                 size_t name_len, ipfsrt_cid *out, bool *found, ipfsrt_error *err) {
    ipfsrt_hamt_shape h;
    ipfsrt_status st = hamt_check(root, &h, err);
    if (st != IPFSRT_OK) return st;
    uint64_t hash = ipfsrt_murmur3_x64_64((const uint8_t *)name, name_len);
    const node *cur = root;
    node child;
    bool own_child = false;
    for (unsigned depth = 0;; depth++) {
        if (!ipfsrt_hamt_depth_ok(&h, depth)) {
            st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &cur->cid, -1,
                                 "HAMT deeper than its hash allows, looking up '%.*s'",
                                 (int)name_len, name);
            break;
        }
        char prefix[IPFSRT_HAMT_PREFIX_MAX + 1];
        ipfsrt_hamt_prefix(&h, ipfsrt_hamt_bucket(&h, hash, depth), prefix);
        const ipfsrt_dagpb_link *hit = find_bucket(cur, prefix, h.width);
        if (hit && hit->name_len == h.width) { /* a sub-shard: one level down */
            node next;
            if ((st = load_subshard(src, hit, &h, &next, err)) != IPFSRT_OK) break;
            if (own_child) node_release(src, &child);
            child = next;
            own_child = true;
            cur = &child;
            continue;
        }
        *found = hit && hit->name_len - h.width == name_len && memcmp(hit->name + h.width, name, name_len) == 0;
        if (*found) *out = hit->cid;
        break;
    }
    if (own_child) node_release(src, &child);
    return st;
}

/* -------------------------------------------------------------- listings */

typedef struct lister {
    const ipfsrt_blocksource *src;
    bool fetch_types;
    ipfsrt_unixfs_entry_fn fn;
    void *user;
    uint64_t entries; /* listed so far: bounded */
    uint64_t buckets[64]; /* the bucket of each HAMT level down to the shard being listed */
} lister;

static ipfsrt_status emit_entry(lister *ls, const ipfsrt_dagpb_link *l, const uint8_t *name,
                                size_t name_len, ipfsrt_error *err) {
    if (++ls->entries > IPFSRT_UNIXFS_MAX_ENTRIES)
        return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, &l->cid, -1,
                               "directory listing past %llu entries",
                               (unsigned long long)IPFSRT_UNIXFS_MAX_ENTRIES);
    ipfsrt_unixfs_entry e;
    memset(&e, 0, sizeof e);
    char *copy = malloc(name_len + 1);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    e.name = copy;
    e.name_len = name_len;
    e.cid = l->cid;
    e.tsize = l->tsize;
    ipfsrt_status st = IPFSRT_OK;
    if (l->cid.codec == IPFSRT_CODEC_RAW && !ls->fetch_types) {
        e.has_type = true;
        e.type = IPFSRT_UNIXFS_FILE;
        e.size = l->tsize;
    } else if (ls->fetch_types) { /* one bad entry is flagged; the rest still list */
        node child;
        ipfsrt_unixfs_node_info info;
        ipfsrt_error child_err;
        e.problem = node_load_any(ls->src, &l->cid, &child, &child_err);
        if (e.problem == IPFSRT_OK) {
            e.problem = node_info(&child, &info, &child_err);
            node_release(ls->src, &child);
        }
        if (e.problem == IPFSRT_EOUT_OF_MEMORY) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        if (e.problem == IPFSRT_OK) {
            e.has_type = true;
            e.type = info.type;
            e.size = info.size;
        }
    }
    if (st == IPFSRT_OK) st = ls->fn(ls->user, &e, err);
    free(copy);
    return st;
}

/* A link name's bucket prefix: width upper-case hex digits below the fanout. */
static bool bucket_of_link(const ipfsrt_dagpb_link *l, const ipfsrt_hamt_shape *h, uint64_t *bucket) {
    *bucket = 0;
    for (unsigned k = 0; k < h->width; k++) {
        uint8_t c = l->name[k];
        unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (v == 16) return false;
        *bucket = *bucket * 16 + v;
    }
    return *bucket < h->fanout;
}

/* An entry belongs where its name hashes to, at every level: anything else (a
 * shard reached through two buckets, say) is a malformed HAMT, not more entries. */
static bool in_its_bucket(const lister *ls, const ipfsrt_hamt_shape *h, unsigned depth,
                          const uint8_t *name, size_t name_len) {
    uint64_t hash = ipfsrt_murmur3_x64_64(name, name_len);
    for (unsigned d = 0; d <= depth; d++)
        if (ipfsrt_hamt_bucket(h, hash, d) != ls->buckets[d]) return false;
    return true;
}

static ipfsrt_status ls_shard(lister *ls, const node *n, const ipfsrt_hamt_shape *h, unsigned depth,
                              ipfsrt_error *err) {
    if (!ipfsrt_hamt_depth_ok(h, depth))
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1, "HAMT deeper than its hash allows");
    for (size_t i = 0; i < n->pb.link_count; i++) {
        const ipfsrt_dagpb_link *l = &n->pb.links[i];
        if (!l->name || l->name_len < h->width || !bucket_of_link(l, h, &ls->buckets[depth]))
            return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1,
                                   "HAMT link %zu has no valid bucket prefix", i);
        ipfsrt_status st;
        const uint8_t *name = l->name + h->width;
        size_t name_len = l->name_len - h->width;
        if (name_len == 0) {
            node child;
            st = load_subshard(ls->src, l, h, &child, err);
            if (st != IPFSRT_OK) return st;
            st = ls_shard(ls, &child, h, depth + 1, err);
            node_release(ls->src, &child);
        } else if (!in_its_bucket(ls, h, depth, name, name_len)) {
            st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &n->cid, -1,
                                 "HAMT entry '%.*s' sits in a bucket its name does not hash to",
                                 (int)(name_len > 200 ? 200 : name_len), (const char *)name);
        } else {
            st = emit_entry(ls, l, name, name_len, err);
        }
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static ipfsrt_status ls_node(lister *ls, const node *n, ipfsrt_error *err) {
    if (!is_dir(n))
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_DIRECTORY, &n->cid, -1, "is a %s, not a directory",
                               n->raw ? "file" : ipfsrt_unixfs_type_name(n->fs.type));
    if (n->fs.type == IPFSRT_UNIXFS_HAMT_SHARD) {
        ipfsrt_hamt_shape h;
        ipfsrt_status st = hamt_check(n, &h, err);
        return st != IPFSRT_OK ? st : ls_shard(ls, n, &h, 0, err);
    }
    for (size_t i = 0; i < n->pb.link_count; i++) {
        const ipfsrt_dagpb_link *l = &n->pb.links[i];
        ipfsrt_status st = emit_entry(ls, l, l->name ? l->name : (const uint8_t *)"",
                                      l->name ? l->name_len : 0, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_unixfs_ls(const ipfsrt_blocksource *src, const ipfsrt_cid *dir,
                               bool fetch_types, ipfsrt_unixfs_entry_fn fn, void *user,
                               ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(dir, err);
    IPFSRT_NEED(fn, err);
    node n;
    ipfsrt_status st = node_load(src, dir, &n, err);
    if (st != IPFSRT_OK) return st;
    lister ls = {.src = src, .fetch_types = fetch_types, .fn = fn, .user = user};
    st = ls_node(&ls, &n, err);
    node_release(src, &n);
    return st;
}

/* ------------------------------------------------------------- resolving */

/* Looks up one name in a directory node: *found says whether it is there. */
static ipfsrt_status dir_lookup(const ipfsrt_blocksource *src, const node *dir, const char *name,
                                size_t name_len, ipfsrt_cid *out, bool *found, ipfsrt_error *err) {
    *found = false;
    if (dir->fs.type == IPFSRT_UNIXFS_HAMT_SHARD)
        return hamt_lookup(src, dir, name, name_len, out, found, err);
    for (size_t i = 0; i < dir->pb.link_count && !*found; i++) {
        const ipfsrt_dagpb_link *l = &dir->pb.links[i];
        *found = l->name && l->name_len == name_len && memcmp(l->name, name, name_len) == 0;
        if (*found) *out = l->cid;
    }
    return IPFSRT_OK;
}

typedef struct dir_stack {
    ipfsrt_cid *cids;
    size_t count, cap;
} dir_stack;

static ipfsrt_status stack_push(dir_stack *s, const ipfsrt_cid *cid, ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&s->cids, &s->cap, s->count + 1, sizeof *s->cids))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    s->cids[s->count++] = *cid;
    return IPFSRT_OK;
}

/* Replaces the path still to walk with target + "/" + rest (a symlink's). */
static ipfsrt_status splice(char **remaining, const uint8_t *target, size_t target_len,
                            const char *rest, ipfsrt_error *err) {
    size_t rest_len = strlen(rest);
    if (target_len > SIZE_MAX - rest_len - 2) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "path too long");
    char *p = malloc(target_len + rest_len + 2);
    if (!p) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    memcpy(p, target, target_len);
    p[target_len] = '/';
    memcpy(p + target_len + 1, rest, rest_len + 1);
    free(*remaining);
    *remaining = p;
    return IPFSRT_OK;
}

/* A path walk under way: the directories above it, for '..' and symlinks. */
typedef struct resolver {
    const ipfsrt_blocksource *src;
    const char *path; /* as asked, for messages */
    bool follow;
    ipfsrt_cid cur;
    char *remaining;  /* the path still to walk, from pos */
    size_t pos;
    dir_stack parents;
    int hops;
} resolver;

/* Goes on from the directory holding the symlink, with its target spliced in
 * front of the rest of the path. */
static ipfsrt_status follow_symlink(resolver *rv, const node *n, const char *rest, ipfsrt_error *err) {
    char s[IPFSRT_CID_STR_MAX];
    if (!rv->follow)
        return ipfsrt_fail_cid(err, IPFSRT_ESYMLINK, &rv->cur, -1,
                               "'%.*s' is a symlink to '%.*s' (following symlinks is off)",
                               (int)rv->pos, rv->remaining, (int)n->fs.data_len,
                               (const char *)n->fs.data);
    if (++rv->hops > IPFSRT_UNIXFS_MAX_SYMLINKS || rv->parents.count == 0 || !n->fs.data_len ||
        n->fs.data[0] == '/')
        return ipfsrt_fail(err, IPFSRT_ESYMLINK, -1,
                           "symlink %s -> '%.*s' leads outside the DAG or loops",
                           ipfsrt_cid_to_string(&rv->cur, s), (int)n->fs.data_len,
                           (const char *)n->fs.data);
    ipfsrt_status st = splice(&rv->remaining, n->fs.data, n->fs.data_len, rest, err);
    if (st != IPFSRT_OK) return st;
    rv->pos = 0;
    rv->cur = rv->parents.cids[--rv->parents.count];
    return IPFSRT_OK;
}

/* Moves from directory n to its entry seg ('.' and '..' included). */
static ipfsrt_status step_into(resolver *rv, const node *n, const char *seg, size_t seg_len,
                               ipfsrt_error *err) {
    rv->pos += seg_len;
    if (seg_len == 1 && seg[0] == '.') return IPFSRT_OK;
    if (seg_len == 2 && seg[0] == '.' && seg[1] == '.') {
        if (rv->parents.count == 0)
            return ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "'..' climbs above the root of %s",
                               rv->path);
        rv->cur = rv->parents.cids[--rv->parents.count];
        return IPFSRT_OK;
    }
    if (!is_dir(n))
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_DIRECTORY, &rv->cur, -1,
                               "cannot look up '%.*s': a %s is not a directory", (int)seg_len, seg,
                               n->raw ? "file" : ipfsrt_unixfs_type_name(n->fs.type));
    ipfsrt_cid next;
    bool found;
    ipfsrt_status st = dir_lookup(rv->src, n, seg, seg_len, &next, &found, err);
    if (st == IPFSRT_OK && !found)
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, &rv->cur, -1, "no entry '%.*s' (in %s)",
                               (int)seg_len, seg, rv->path);
    if (st == IPFSRT_OK) st = stack_push(&rv->parents, &rv->cur, err);
    if (st == IPFSRT_OK) rv->cur = next;
    return st;
}

/* Moves from document n along the path to the first link in it. */
static ipfsrt_status step_through_document(resolver *rv, const node *n, ipfsrt_error *err) {
    size_t consumed;
    ipfsrt_cid link;
    ipfsrt_status st = ipfsrt_ipld_follow(&n->cid, n->ref.data, n->ref.len, rv->remaining + rv->pos, &consumed,
                                          &link, err);
    if (st == IPFSRT_OK) st = stack_push(&rv->parents, &rv->cur, err);
    if (st != IPFSRT_OK) return st;
    rv->pos += consumed;
    rv->cur = link;
    return IPFSRT_OK;
}

void ipfsrt_unixfs_options_init(ipfsrt_unixfs_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_unixfs_resolve(const ipfsrt_blocksource *src, const char *path,
                                    const ipfsrt_unixfs_options *opts,
                                    ipfsrt_unixfs_node_info *info, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(info, err);
    ipfsrt_unixfs_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_unixfs_options_init, err);
    if (st != IPFSRT_OK) return st;
    resolver rv = {.src = src, .path = path, .follow = o.follow_symlinks};
    const char *rest;
    st = ipfsrt_path_split(path, &rv.cur, &rest, err);
    if (st != IPFSRT_OK) return st;
    rv.remaining = strdup(rest);
    if (!rv.remaining) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (bool done = false; !done && st == IPFSRT_OK;) {
        node n;
        st = node_load_any(src, &rv.cur, &n, err);
        if (st != IPFSRT_OK) break;
        if (o.step && (st = o.step(o.step_user, &rv.cur, err)) != IPFSRT_OK) {
            node_release(src, &n);
            break;
        }
        while (rv.remaining[rv.pos] == '/') rv.pos++;
        const char *seg = rv.remaining + rv.pos;
        size_t seg_len = strcspn(seg, "/");
        bool last = seg_len == 0;
        if (!n.raw && !n.ipld && n.fs.type == IPFSRT_UNIXFS_SYMLINK && (rv.follow || !last)) {
            st = follow_symlink(&rv, &n, seg, err);
        } else if (n.ipld && !last) {
            st = step_through_document(&rv, &n, err);
        } else if (last) {
            st = node_info(&n, info, err);
            done = true;
        } else {
            st = step_into(&rv, &n, seg, seg_len, err);
        }
        node_release(src, &n);
    }
    free(rv.parents.cids);
    free(rv.remaining);
    return st;
}

/* ---------------------------------------------------------------- files */

typedef struct file_reader {
    const ipfsrt_blocksource *src;
    ipfsrt_unixfs_write_fn write;
    void *user;
    ipfsrt_unixfs_cid_fn leaf_fn; /* list raw leaves instead of fetching them */
    void *leaf_user;
    ipfsrt_unixfs_cid_fn missing_fn; /* report blocks the source lacks and go on */
    void *missing_user;
} file_reader;

/* node_load for file walks: a block the source lacks is reported (and skipped
 * with *skip set) when the walk only looks for what is missing. */
static ipfsrt_status file_node_load(file_reader *r, const ipfsrt_cid *cid, node *n, bool *skip,
                                    ipfsrt_error *err) {
    *skip = false;
    ipfsrt_status st = node_load(r->src, cid, n, err);
    if (st != IPFSRT_ENOT_FOUND || !r->missing_fn) return st;
    *skip = true;
    if (err) ipfsrt_error_clear(err);
    return r->missing_fn(r->missing_user, cid, err);
}

/* Emits bytes [from, to) of the file DAG at cid, whose parent says it holds
 * expected bytes (UINT64_MAX at the root). */
static ipfsrt_status read_node(file_reader *r, const ipfsrt_cid *cid, uint64_t expected,
                               uint64_t from, uint64_t to, int depth, ipfsrt_error *err) {
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "file DAG deeper than %d levels",
                               IPFSRT_UNIXFS_MAX_DEPTH);
    if (r->leaf_fn && cid->codec == IPFSRT_CODEC_RAW && cid->hash_code != IPFSRT_MH_IDENTITY &&
        depth > 0)
        return r->leaf_fn(r->leaf_user, cid, err);
    node n;
    bool skip;
    ipfsrt_status st = file_node_load(r, cid, &n, &skip, err);
    if (st != IPFSRT_OK || skip) return st;
    uint64_t size = 0;
    if (!is_file(&n))
        st = ipfsrt_fail_cid(err, depth ? IPFSRT_EBAD_UNIXFS : IPFSRT_ENOT_FILE, cid, -1,
                             "is a %s, not file data", ipfsrt_unixfs_type_name(n.fs.type));
    else
        st = file_size(&n, &size, err);
    if (st == IPFSRT_OK && expected != UINT64_MAX && size != expected)
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1,
                             "holds %llu bytes but its parent says %llu",
                             (unsigned long long)size, (unsigned long long)expected);
    if (st != IPFSRT_OK || from >= to) {
        node_release(r->src, &n);
        return st;
    }
    if (n.raw) {
        st = r->write(r->user, n.ref.data + from, (size_t)(to - from), err);
        node_release(r->src, &n);
        return st;
    }
    uint64_t off = n.fs.data_len;
    if (from < off)
        st = r->write(r->user, n.fs.data + from, (size_t)((to < off ? to : off) - from), err);
    for (size_t i = 0; st == IPFSRT_OK && i < n.pb.link_count && off < to; i++) {
        const ipfsrt_dagpb_link *l = &n.pb.links[i];
        uint64_t bs = n.fs.blocksizes[i];
        if (l->name && l->name_len)
            st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "file link %zu has a name", i);
        else if (off + bs > from)
            st = read_node(r, &l->cid, bs, from > off ? from - off : 0,
                           (to < off + bs ? to : off + bs) - off, depth + 1, err);
        off += bs;
    }
    node_release(r->src, &n);
    return st;
}

static ipfsrt_status read_range(file_reader *r, const ipfsrt_cid *file, uint64_t offset,
                                uint64_t length, ipfsrt_error *err) {
    node n;
    bool skip;
    ipfsrt_status st = file_node_load(r, file, &n, &skip, err);
    if (st != IPFSRT_OK || skip) return st;
    uint64_t size = 0;
    if (!is_file(&n))
        st = ipfsrt_fail_cid(err, IPFSRT_ENOT_FILE, file, -1, "is a %s, not a file",
                             ipfsrt_unixfs_type_name(n.fs.type));
    else
        st = file_size(&n, &size, err);
    node_release(r->src, &n);
    if (st != IPFSRT_OK) return st;
    if (offset > size)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_RANGE, file, -1, "offset %llu is past the end (%llu bytes)",
                               (unsigned long long)offset, (unsigned long long)size);
    uint64_t end = length > size - offset ? size : offset + length;
    return read_node(r, file, UINT64_MAX, offset, end, 0, err);
}

ipfsrt_status ipfsrt_unixfs_read(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                 uint64_t offset, uint64_t length, ipfsrt_unixfs_write_fn write,
                                 void *user, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(file, err);
    IPFSRT_NEED(write, err);
    file_reader r = {src, write, user, NULL, NULL, NULL, NULL};
    return read_range(&r, file, offset, length, err);
}

static ipfsrt_status ignore_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err);

ipfsrt_status ipfsrt_unixfs_missing(const ipfsrt_blocksource *src, const ipfsrt_cid *file,
                                    uint64_t offset, uint64_t length, ipfsrt_unixfs_cid_fn fn,
                                    void *user, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(file, err);
    IPFSRT_NEED(fn, err);
    file_reader r = {src, ignore_bytes, NULL, NULL, NULL, fn, user};
    return read_range(&r, file, offset, length, err);
}

ipfsrt_status ipfsrt_unixfs_readlink(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                     char **target, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(target, err);
    *target = NULL;
    node n;
    ipfsrt_status st = node_load(src, cid, &n, err);
    if (st != IPFSRT_OK) return st;
    if (n.raw || n.fs.type != IPFSRT_UNIXFS_SYMLINK)
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "is not a symlink");
    else if (n.fs.data_len == 0 || memchr(n.fs.data, '\0', n.fs.data_len))
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "symlink target is empty or has a NUL");
    else if (!(*target = malloc(n.fs.data_len + 1)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK) {
        memcpy(*target, n.fs.data, n.fs.data_len);
        (*target)[n.fs.data_len] = '\0';
    }
    node_release(src, &n);
    return st;
}

/* ----------------------------------------------------------- block lists */

typedef struct recorder {
    const ipfsrt_blocksource *inner;
    ipfsrt_mhmap seen;
    ipfsrt_unixfs_cid_fn fn;
    void *user;
    bool dups;
    uint64_t emitted;
    /* With dups, blocks are listed each time the traversal meets them, not each
     * time the code reads them: the walk under the path's terminal block reads
     * that block again (a file's root twice: to size the range, then to read
     * it), which resolution has listed already; a DAG cannot hold its own root. */
    bool skip_terminal;
    ipfsrt_cid terminal;
} recorder;

static ipfsrt_status record(recorder *rec, const ipfsrt_cid *cid, ipfsrt_error *err) {
    if (rec->skip_terminal && ipfsrt_cid_equal(cid, &rec->terminal)) return IPFSRT_OK;
    if (rec->dups) { /* a DAG that shares much could repeat without end */
        if (++rec->emitted > IPFSRT_UNIXFS_MAX_DUP_BLOCKS)
            return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, cid, -1,
                                   "more than %d blocks with duplicates", IPFSRT_UNIXFS_MAX_DUP_BLOCKS);
        return rec->fn(rec->user, cid, err);
    }
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    bool inserted;
    ipfsrt_status st = ipfsrt_mhmap_put(&rec->seen, mh, mh_len, 0, 0, &inserted);
    if (st != IPFSRT_OK) return ipfsrt_fail(err, st, -1, "out of memory");
    return inserted ? rec->fn(rec->user, cid, err) : IPFSRT_OK;
}

static ipfsrt_status recording_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                   ipfsrt_error *err) {
    recorder *rec = ctx;
    ipfsrt_status st = rec->inner->get(rec->inner->ctx, cid, ref, err);
    if (st != IPFSRT_OK) return st;
    st = record(rec, cid, err);
    if (st != IPFSRT_OK) ipfsrt_blocksource_release(rec->inner, ref);
    return st;
}

static void recording_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    recorder *rec = ctx;
    if (rec->inner->release) rec->inner->release(rec->inner->ctx, ref);
}

static ipfsrt_status record_leaf(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    return record(user, cid, err);
}

static ipfsrt_status ignore_bytes(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    (void)user, (void)data, (void)len, (void)err;
    return IPFSRT_OK;
}

static ipfsrt_status ignore_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    (void)user, (void)e, (void)err;
    return IPFSRT_OK;
}

/* What a node links to: a dag-pb node's links, or the links in a document. */
typedef struct children {
    const node *n;
    ipfsrt_cid *links; /* a document's, owned; NULL for dag-pb */
    size_t count;
} children;

static ipfsrt_status node_children(const node *n, children *ch, ipfsrt_error *err) {
    *ch = (children){.n = n, .count = n->pb.link_count};
    if (!n->ipld) return IPFSRT_OK;
    return ipfsrt_ipld_links(&n->cid, n->ref.data, n->ref.len, &ch->links, &ch->count, err);
}

static const ipfsrt_cid *child_at(const children *ch, size_t i) {
    return ch->n->ipld ? &ch->links[i] : &ch->n->pb.links[i].cid;
}

/* Pre-order, each block once: the whole DAG under cid as the recorder sees it.
 * Raw leaves are listed from their links without being fetched. expanded holds
 * the nodes whose children were walked (resolution has recorded, not walked,
 * the terminal node already). */
static ipfsrt_status walk_all(const ipfsrt_blocksource *src, recorder *rec, ipfsrt_mhmap *expanded,
                              const ipfsrt_cid *cid, int depth, ipfsrt_error *err) {
    if (cid->hash_code == IPFSRT_MH_IDENTITY) return IPFSRT_OK;
    if (cid->codec == IPFSRT_CODEC_RAW) return record(rec, cid, err);
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "DAG deeper than %d levels",
                               IPFSRT_UNIXFS_MAX_DEPTH);
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    bool first;
    ipfsrt_status st = ipfsrt_mhmap_put(expanded, mh, mh_len, 0, 0, &first);
    if (st != IPFSRT_OK) return ipfsrt_fail(err, st, -1, "out of memory");
    if (!first && !rec->dups) return IPFSRT_OK;
    node n;
    st = node_load_any(src, cid, &n, err); /* records it, if new */
    if (st != IPFSRT_OK) return st;
    children ch;
    st = node_children(&n, &ch, err);
    for (size_t i = 0; st == IPFSRT_OK && i < ch.count; i++)
        st = walk_all(src, rec, expanded, child_at(&ch, i), depth + 1, err);
    free(ch.links);
    node_release(src, &n);
    return st;
}

/* How many blocks a walk with duplicates meets under cid, up to the limit and
 * one more: each node counted once (memo), so a DAG that shares much (a
 * diamond of 30 nodes meets 2^31 blocks) costs as many reads as it has nodes
 * and is refused before any of it is sent, never after a million blocks. */
static ipfsrt_status count_with_dups(const ipfsrt_blocksource *src, ipfsrt_mhmap *memo, const ipfsrt_cid *cid,
                                     int depth, uint64_t *out, ipfsrt_error *err) {
    *out = cid->hash_code == IPFSRT_MH_IDENTITY ? 0 : 1;
    if (cid->hash_code == IPFSRT_MH_IDENTITY || cid->codec == IPFSRT_CODEC_RAW) return IPFSRT_OK;
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "DAG deeper than %d levels", IPFSRT_UNIXFS_MAX_DEPTH);
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    const ipfsrt_mhmap_entry *known = ipfsrt_mhmap_get(memo, mh, mh_len);
    if (known) {
        *out = known->offset;
        return IPFSRT_OK;
    }
    node n;
    ipfsrt_status st = node_load_any(src, cid, &n, err);
    if (st != IPFSRT_OK) return st;
    children ch;
    st = node_children(&n, &ch, err);
    for (size_t i = 0; st == IPFSRT_OK && i < ch.count; i++) {
        uint64_t below;
        st = count_with_dups(src, memo, child_at(&ch, i), depth + 1, &below, err);
        *out = *out + below > IPFSRT_UNIXFS_MAX_DUP_BLOCKS ? IPFSRT_UNIXFS_MAX_DUP_BLOCKS + 1 : *out + below;
    }
    free(ch.links);
    node_release(src, &n);
    bool inserted;
    if (st == IPFSRT_OK && ipfsrt_mhmap_put(memo, mh, mh_len, *out, 0, &inserted) != IPFSRT_OK)
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    return st;
}

static ipfsrt_status check_dups_bound(const ipfsrt_blocksource *src, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_mhmap memo;
    ipfsrt_mhmap_init(&memo);
    uint64_t blocks;
    ipfsrt_status st = count_with_dups(src, &memo, cid, 0, &blocks, err);
    ipfsrt_mhmap_free(&memo);
    if (st == IPFSRT_OK && blocks > IPFSRT_UNIXFS_MAX_DUP_BLOCKS)
        st = ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, cid, -1, "more than %d blocks with duplicates under it",
                             IPFSRT_UNIXFS_MAX_DUP_BLOCKS);
    return st;
}

ipfsrt_status ipfsrt_unixfs_blocks_for(const ipfsrt_blocksource *src, const char *path,
                                       const ipfsrt_unixfs_options *opts, ipfsrt_unixfs_cid_fn fn, void *user,
                                       ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(fn, err);
    ipfsrt_unixfs_options o;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_unixfs_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    opts = &o;
    ipfsrt_unixfs_scope scope = o.scope;
    uint64_t offset = o.offset, length = o.length ? o.length : UINT64_MAX;
    recorder rec = {.inner = src, .fn = fn, .user = user, .dups = o.dups};
    ipfsrt_mhmap_init(&rec.seen);
    ipfsrt_blocksource recording = {sizeof(ipfsrt_blocksource), &rec, recording_get, recording_release};
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&recording, path, opts, &info, err);
    rec.skip_terminal = rec.dups;
    rec.terminal = info.cid;
    if (st == IPFSRT_OK && rec.dups && scope != IPFSRT_SCOPE_BLOCK) st = check_dups_bound(src, &info.cid, err);
    if (st != IPFSRT_OK || scope == IPFSRT_SCOPE_BLOCK) {
        /* the path and its terminal block are all there is */
    } else if (scope == IPFSRT_SCOPE_ALL) {
        ipfsrt_mhmap expanded;
        ipfsrt_mhmap_init(&expanded);
        st = walk_all(&recording, &rec, &expanded, &info.cid, 0, err);
        ipfsrt_mhmap_free(&expanded);
    } else if (info.type == IPFSRT_UNIXFS_FILE) {
        file_reader r = {&recording, ignore_bytes, NULL, record_leaf, &rec, NULL, NULL};
        st = read_range(&r, &info.cid, offset, length, err);
    } else if (info.type == IPFSRT_UNIXFS_DIRECTORY || info.type == IPFSRT_UNIXFS_HAMT_SHARD) {
        st = ipfsrt_unixfs_ls(&recording, &info.cid, false, ignore_entry, NULL, err);
    }
    ipfsrt_mhmap_free(&rec.seen);
    return st;
}

/* -------------------------------------------------------------- counting */

static ipfsrt_status count_one(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)cid, (void)err;
    (*(uint64_t *)user)++;
    return IPFSRT_OK;
}

/* The same walk as dag-scope=all, counting what it records. */
ipfsrt_status ipfsrt_unixfs_count_blocks(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                         uint64_t *blocks, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(blocks, err);
    *blocks = 0;
    recorder rec = {.inner = src, .fn = count_one, .user = blocks};
    ipfsrt_mhmap_init(&rec.seen);
    ipfsrt_blocksource recording = {sizeof(ipfsrt_blocksource), &rec, recording_get, recording_release};
    ipfsrt_mhmap expanded;
    ipfsrt_mhmap_init(&expanded);
    ipfsrt_status st = walk_all(&recording, &rec, &expanded, cid, 0, err);
    ipfsrt_mhmap_free(&expanded);
    ipfsrt_mhmap_free(&rec.seen);
    return st;
}
