/* The gateway client's public API: which strategy serves stat, ls, read and
 * export (cache, one CAR stream, blocks by CID), and the client object. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "ipfsrt/dagpb.h"
#include "multiformats/multiformats_internal.h"
#include "base/base_internal.h"

/* ipfsrt_path_split for client requests, which carry no query or fragment of
 * their own: the client writes the query it sends. */
ipfsrt_status ipfsrt_client_split_target(const char *path, ipfsrt_cid *root, const char **rest,
                                  ipfsrt_error *err) {
    if (strpbrk(path, "?#"))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "'%.200s': queries and fragments are not paths", path);
    ipfsrt_status st = ipfsrt_path_split(path, root, rest, err);
    if (st == IPFSRT_OK) st = ipfsrt_path_refuse_dot_segments(*rest, err); /* before any URL is built */
    if (st != IPFSRT_OK && err) ipfsrt_error_prefix(err, "'%.200s': ", path);
    return st;
}

/* Resolves from the cache alone. *known says whether that was enough; an error
 * the cached blocks prove (no such name, not a directory) is final. */
ipfsrt_status ipfsrt_client_resolve_cached(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                    bool *known, ipfsrt_error *err) {
    probe p = {c, false};
    ipfsrt_blocksource src;
    ipfsrt_probe_source(&p, &src);
    ipfsrt_status st = ipfsrt_unixfs_resolve(&src, path, NULL, info, err);
    *known = st == IPFSRT_OK;
    if (st != IPFSRT_OK && p.missed) {
        if (err) ipfsrt_error_clear(err);
        return IPFSRT_OK;
    }
    return st;
}

/* Every gateway answered 404 for path. A 404 proves nothing, but the parent
 * directory, fetched and verified, shows whether the last name is in it: say so,
 * naming the directory's CID. Where the parent is missing too, its own
 * explanation stands instead (one level up per call). */
static ipfsrt_status explain_missing(ipfsrt_client *c, const char *path, ipfsrt_status st,
                                     ipfsrt_error *err) {
    const char *slash = strrchr(path, '/');
    ipfsrt_cid root;
    const char *rest;
    if (st != IPFSRT_EUNAVAILABLE || !slash || !slash[1] ||
        ipfsrt_client_split_target(path, &root, &rest, NULL) != IPFSRT_OK || !*rest)
        return st;
    char *parent = strndup(path, (size_t)(slash - path));
    if (!parent) return st;
    ipfsrt_unixfs_node_info dir;
    ipfsrt_error perr;
    ipfsrt_status pst = ipfsrt_client_stat(c, parent, &dir, &perr);
    if (pst == IPFSRT_ENOT_FOUND || pst == IPFSRT_EUNAVAILABLE) { /* the parent is the one missing */
        if (err) *err = perr;
        free(parent);
        return pst;
    }
    free(parent);
    if (pst != IPFSRT_OK) return st;
    char entry[IPFSRT_CID_STR_MAX + 260];
    char dir_s[IPFSRT_CID_STR_MAX];
    snprintf(entry, sizeof entry, "%s/%.255s", ipfsrt_cid_to_string(&dir.cid, dir_s), slash + 1);
    ipfsrt_blocksource src;
    ipfsrt_client_blocksource(c, &src); /* blocks by CID, verified */
    ipfsrt_unixfs_node_info info;
    ipfsrt_error e;
    ipfsrt_status vst = ipfsrt_unixfs_resolve(&src, entry, NULL, &info, &e);
    if (vst == IPFSRT_ENOT_FOUND) {
        ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "no entry '%.255s' in the directory %s (%.300s), as its "
                    "verified blocks show", slash + 1, dir_s, path);
        if (err) snprintf(err->cid, sizeof err->cid, "%s", dir_s);
        return IPFSRT_ENOT_FOUND;
    }
    if (vst == IPFSRT_ENOT_DIRECTORY) {
        if (err) *err = e;
        return vst;
    }
    return st; /* it is there: the gateways could not serve it */
}

static ipfsrt_status stat_fetch(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                ipfsrt_error *err);

static ipfsrt_status stat_at(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(info, err);
    ipfsrt_status st = stat_fetch(c, path, info, err);
    return explain_missing(c, path, st, err);
}

static ipfsrt_status stat_fetch(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                ipfsrt_error *err) {
    ipfsrt_client_call_start(c);
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = ipfsrt_client_split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    bool known;
    st = ipfsrt_client_resolve_cached(c, path, info, &known, err);
    if (st != IPFSRT_OK || known) return st;
    session s;
    ipfsrt_session_init(&s, c, RESUME_ORIGINAL);
    st = ipfsrt_session_start_at(&s, &root, rest, "format=car&dag-scope=block", err);
    if (st == IPFSRT_OK) {
        ipfsrt_blocksource src;
        ipfsrt_session_source(&s, &src);
        st = ipfsrt_unixfs_resolve(&src, path, NULL, info, err);
    }
    st = ipfsrt_session_end(&s, st, err);
    return st;
}

typedef struct entry_list {
    ipfsrt_unixfs_entry *items;
    size_t count, cap;
} entry_list;

static ipfsrt_status collect_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    entry_list *l = user;
    if (ipfsrt_array_reserve(&l->items, &l->cap, l->count + 1, sizeof *l->items))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_unixfs_entry copy = *e;
    copy.name = strndup(e->name, e->name_len);
    if (!copy.name) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    l->items[l->count++] = copy;
    return IPFSRT_OK;
}

static void entry_list_free(entry_list *l) {
    for (size_t i = 0; i < l->count; i++) free((char *)l->items[i].name);
    free(l->items);
}

static ipfsrt_status ls_at(ipfsrt_client *c, const char *path, bool fetch_types, ipfsrt_unixfs_entry_fn fn,
                           void *user, ipfsrt_error *err) {
    IPFSRT_NEED(c, err);
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(fn, err);
    ipfsrt_client_call_start(c);
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = ipfsrt_client_split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    entry_list entries = {0};
    /* From the cache when every directory block is there. */
    probe p = {c, false};
    ipfsrt_blocksource src;
    ipfsrt_probe_source(&p, &src);
    ipfsrt_unixfs_node_info info;
    st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, collect_entry, &entries, err);
    if (st != IPFSRT_OK && p.missed) {
        entry_list_free(&entries);
        memset(&entries, 0, sizeof entries);
        session s;
        ipfsrt_session_init(&s, c, RESUME_ORIGINAL);
        st = ipfsrt_session_start_at(&s, &root, rest, "format=car&dag-scope=entity", err);
        ipfsrt_session_source(&s, &src);
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&src, &info.cid, false, collect_entry, &entries, err);
        ipfsrt_session_finish(&s, st == IPFSRT_OK);
    }
    if (st == IPFSRT_OK && fetch_types) {
        /* Each entry's first block tells its type and size: fetch them all at once. */
        ipfsrt_cid *need = calloc(entries.count ? entries.count : 1, sizeof *need);
        size_t n = 0;
        if (!need) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        for (size_t i = 0; st == IPFSRT_OK && i < entries.count; i++)
            if (!entries.items[i].has_type) need[n++] = entries.items[i].cid;
        if (st == IPFSRT_OK && n) st = ipfsrt_client_blocks(c, need, n, NULL, NULL, err);
        free(need);
        if (st == IPFSRT_OK) {
            ipfsrt_client_blocksource(c, &src);
            st = ipfsrt_unixfs_ls(&src, &info.cid, true, fn, user, err);
        }
    } else {
        for (size_t i = 0; st == IPFSRT_OK && i < entries.count; i++) st = fn(user, &entries.items[i], err);
    }
    entry_list_free(&entries);
    return explain_missing(c, path, st, err);
}

/* ---------------------------------------------------------------- reads */

typedef struct counted_write {
    session *s;
    ipfsrt_unixfs_write_fn write;
    void *user;
} counted_write;

static ipfsrt_status count_written(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    counted_write *w = user;
    ipfsrt_status st = w->write(w->user, data, len, err);
    if (st == IPFSRT_OK) w->s->written += len;
    return st;
}

static bool wants_readahead(const ipfsrt_unixfs_node_info *info, bool whole) {
    return whole && info->type == IPFSRT_UNIXFS_FILE && info->size >= READAHEAD_MIN_FILE &&
           info->cid.codec == IPFSRT_CODEC_DAG_PB;
}

/* A read through one CAR stream that proves the path and carries the range;
 * info is filled in when the stream has resolved the path. */
static ipfsrt_status read_streamed(ipfsrt_client *c, const char *path, uint64_t offset,
                                   uint64_t length, bool known, ipfsrt_unixfs_node_info *info,
                                   ipfsrt_unixfs_write_fn write, void *user, ipfsrt_error *err) {
    ipfsrt_cid root;
    const char *rest;
    ipfsrt_status st = ipfsrt_client_split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    uint64_t end = length == UINT64_MAX ? UINT64_MAX : offset + length;
    session s;
    ipfsrt_session_init(&s, c, RESUME_RANGE);
    s.range_from = offset;
    s.range_end = end;
    char query[256];
    ipfsrt_session_range_query(query, sizeof query, offset, end);
    s.target_known = known;
    s.target = info->cid;
    st = known ? ipfsrt_session_start_at(&s, &info->cid, "", query, err)
               : ipfsrt_session_start_at(&s, &root, rest, query, err);
    ipfsrt_blocksource src;
    ipfsrt_session_source(&s, &src);
    if (st == IPFSRT_OK && !known && (st = ipfsrt_unixfs_resolve(&src, path, NULL, info, err)) == IPFSRT_OK) {
        s.target_known = true;
        s.target = info->cid;
    }
    if (st == IPFSRT_OK && wants_readahead(info, offset == 0 && length == UINT64_MAX)) {
        /* A large file: drop the stream (it has proven the path) and fetch the
         * blocks many at once instead, hashed on every core. */
        ipfsrt_session_finish(&s, true);
        c->progress_expected = info->size;
        return ipfsrt_readahead_read(c, &info->cid, write, user, err);
    }
    if (st == IPFSRT_OK) {
        if (info->type == IPFSRT_UNIXFS_FILE || info->type == IPFSRT_UNIXFS_RAW)
            c->progress_expected = offset >= info->size ? 0 : (end < info->size ? end : info->size) - offset;
        counted_write cw = {&s, write, user};
        st = ipfsrt_unixfs_read(&src, &info->cid, offset, length, count_written, &cw, err);
    }
    st = ipfsrt_session_end(&s, st, err);
    return st;
}

static ipfsrt_status read_at(ipfsrt_client *c, const char *path, uint64_t offset, uint64_t length,
                             ipfsrt_unixfs_write_fn write, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(write, err);
    ipfsrt_client_call_start(c);
    if (!c->verify) return ipfsrt_plain_get(c, path, offset, length, write, user, err);
    if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                           "%.200s: a plain URL cannot be verified (use the unverified mode)", path);
    if (length != UINT64_MAX && offset > UINT64_MAX - length)
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "byte range overflows");
    ipfsrt_unixfs_node_info info = {0};
    bool known;
    ipfsrt_status st = ipfsrt_client_resolve_cached(c, path, &info, &known, err);
    if (st != IPFSRT_OK) return st;
    if (known && (info.cid.codec == IPFSRT_CODEC_RAW || info.cid.hash_code == IPFSRT_MH_IDENTITY)) {
        ipfsrt_blocksource src; /* a single block: by CID */
        ipfsrt_client_blocksource(c, &src);
        return ipfsrt_unixfs_read(&src, &info.cid, offset, length, write, user, err);
    }
    if (known && info.type == IPFSRT_UNIXFS_FILE && info.size >= READAHEAD_MIN_FILE &&
        offset == 0 && length == UINT64_MAX) {
        c->progress_expected = info.size;
        return ipfsrt_readahead_read(c, &info.cid, write, user, err);
    }
    st = read_streamed(c, path, offset, length, known, &info, write, user, err);
    return explain_missing(c, path, st, err);
}

static ipfsrt_status write_fd(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    const int *fd = user;
    while (len) {
        ssize_t n = write(*fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "writing the file failed: %s", strerror(errno));
        data += n;
        len -= (size_t)n;
    }
    return IPFSRT_OK;
}

/* A large file, as a read writes it (blocks by CID, many at once, hashed on every
 * core), into a partial file renamed into place once complete. */
static ipfsrt_status export_large_file(ipfsrt_client *c, const ipfsrt_unixfs_node_info *info,
                                       const char *dest, ipfsrt_error *err) {
    char *partial = malloc(strlen(dest) + 40);
    if (!partial) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    sprintf(partial, "%s.ipfsrt-partial-%ld", dest, (long)getpid());
    int fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ipfsrt_status st = fd >= 0 ? IPFSRT_OK
                               : ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s: %s", partial,
                                             strerror(errno));
    if (st == IPFSRT_OK) {
        c->progress_expected = info->size;
        st = ipfsrt_readahead_read(c, &info->cid, write_fd, &fd, err);
        if (close(fd) != 0 && st == IPFSRT_OK)
            st = ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s failed: %s", dest, strerror(errno));
        if (st == IPFSRT_OK && rename(partial, dest) != 0)
            st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot rename into %s: %s", dest, strerror(errno));
        if (st != IPFSRT_OK) unlink(partial);
    }
    if (st == IPFSRT_OK) ipfsrt_unixfs_apply_metadata(info, dest);
    free(partial);
    return st;
}

/* What a whole DAG's blocks add up to, from the cumulative sizes its root's
 * links carry: the packer's word, not verified, so only a hint for progress
 * (a total and the time left), never a limit; 0 when a link has none. */
static uint64_t dag_bytes_hint(const ipfsrt_blocksource *src, const ipfsrt_cid *root) {
    if (root->codec != IPFSRT_CODEC_DAG_PB) return 0;
    ipfsrt_blocksource_ref ref;
    ipfsrt_error e;
    if (ipfsrt_blocksource_get(src, root, &ref, &e) != IPFSRT_OK) return 0;
    ipfsrt_dagpb_node node;
    uint64_t total = ref.len;
    if (ipfsrt_dagpb_decode(ref.data, ref.len, &node, &e) != IPFSRT_OK) total = 0;
    for (size_t i = 0; total && i < node.link_count; i++) {
        const ipfsrt_dagpb_link *l = &node.links[i];
        total = l->has_tsize && l->tsize <= UINT64_MAX - total ? total + l->tsize : 0;
    }
    ipfsrt_dagpb_node_free(&node);
    ipfsrt_blocksource_release(src, &ref);
    return total;
}

static ipfsrt_status export_at(ipfsrt_client *c, const char *path, const char *dest, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(dest, err);
    ipfsrt_client_call_start(c);
    ipfsrt_status st = ipfsrt_unixfs_export_check(dest, err); /* before anything is fetched */
    if (st != IPFSRT_OK) return st;
    if (!c->verify) return ipfsrt_plain_export(c, path, dest, err);
    ipfsrt_cid root;
    const char *rest;
    st = ipfsrt_client_split_target(path, &root, &rest, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_unixfs_node_info info;
    bool known;
    st = ipfsrt_client_resolve_cached(c, path, &info, &known, err);
    if (st != IPFSRT_OK) return st;
    session s;
    ipfsrt_session_init(&s, c, RESUME_SUBDAG);
    st = known ? ipfsrt_session_start_at(&s, &info.cid, "", "format=car&dag-scope=all", err)
               : ipfsrt_session_start_at(&s, &root, rest, "format=car&dag-scope=all", err);
    ipfsrt_blocksource src;
    ipfsrt_session_source(&s, &src);
    if (st == IPFSRT_OK && !known) st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, err);
    s.target_known = st == IPFSRT_OK;
    s.target = info.cid;
    if (st == IPFSRT_OK && wants_readahead(&info, true)) {
        /* the stream has proven the path: the file itself comes faster by CID */
        ipfsrt_session_finish(&s, true);
        return export_large_file(c, &info, dest, err);
    }
    if (st == IPFSRT_OK)
        c->progress_expected = info.type == IPFSRT_UNIXFS_FILE ? info.size : dag_bytes_hint(&src, &info.cid);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_export(&src, &info.cid, dest, err);
    st = ipfsrt_session_end(&s, st, err);
    return explain_missing(c, path, st, err);
}

typedef struct car_export {
    ipfsrt_car_writer *w;
    const ipfsrt_blocksource *src;
} car_export;

static ipfsrt_status put_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    car_export *ce = user;
    ipfsrt_blocksource_ref ref;
    ipfsrt_status st = ipfsrt_blocksource_get(ce->src, cid, &ref, err);
    if (st != IPFSRT_OK) return st;
    st = ipfsrt_car_writer_put(ce->w, cid, ref.data, ref.len, err);
    ipfsrt_blocksource_release(ce->src, &ref);
    return st;
}

static ipfsrt_status export_car_at(ipfsrt_client *c, const char *path, const char *dest, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(dest, err);
    ipfsrt_client_call_start(c);
    if (!c->verify)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a CAR holds verified blocks: not with an unverified client");
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_export_check(dest, err);
    if (st == IPFSRT_OK) st = ipfsrt_client_stat(c, path, &info, err);
    if (st != IPFSRT_OK) return st;
    char target[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&info.cid, target);
    session s;
    ipfsrt_session_init(&s, c, RESUME_SUBDAG);
    st = ipfsrt_session_start_at(&s, &info.cid, "", "format=car&dag-scope=all", err);
    s.target_known = true;
    s.target = info.cid;
    ipfsrt_blocksource src;
    ipfsrt_session_source(&s, &src);
    car_export ce = {NULL, &src};
    ipfsrt_car_writer_options wo = {.size = sizeof wo, .version = 1, .roots = &info.cid, .root_count = 1};
    if (st == IPFSRT_OK) c->progress_expected = dag_bytes_hint(&src, &info.cid);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_new(&ce.w, dest, &wo, err);
    ipfsrt_unixfs_options all = {.size = sizeof all, .scope = IPFSRT_SCOPE_ALL};
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_blocks_for(&src, target, &all, put_block, &ce, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_finish(ce.w, err);
    ipfsrt_car_writer_free(ce.w); /* an unfinished file goes with it */
    st = ipfsrt_session_end(&s, st, err);
    return st;
}

/* ------------------------------------------------------------- the client */

/* ---------------------------------------------------- the public calls */
/* Each takes ipns:// paths too: resolved to the /ipfs/ path they stand for first. */

ipfsrt_status ipfsrt_client_stat(ipfsrt_client *c, const char *path, ipfsrt_unixfs_node_info *info,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(c && path, err);
    const char *target;
    char *owned;
    ipfsrt_status st = ipfsrt_client_name_target(c, path, &target, &owned, err);
    if (st == IPFSRT_OK) st = stat_at(c, target, info, err);
    free(owned);
    return st;
}

ipfsrt_status ipfsrt_client_ls(ipfsrt_client *c, const char *path, bool fetch_types,
                               ipfsrt_unixfs_entry_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(c && path, err);
    const char *target;
    char *owned;
    ipfsrt_status st = ipfsrt_client_name_target(c, path, &target, &owned, err);
    if (st == IPFSRT_OK) st = ls_at(c, target, fetch_types, fn, user, err);
    free(owned);
    return st;
}

ipfsrt_status ipfsrt_client_read(ipfsrt_client *c, const char *path, uint64_t offset,
                                 uint64_t length, ipfsrt_unixfs_write_fn write, void *user,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(c && path, err);
    const char *target;
    char *owned;
    ipfsrt_status st = ipfsrt_client_name_target(c, path, &target, &owned, err);
    if (st == IPFSRT_OK) st = read_at(c, target, offset, length, write, user, err);
    free(owned);
    return st;
}

ipfsrt_status ipfsrt_client_export(ipfsrt_client *c, const char *path, const char *dest,
                                   ipfsrt_error *err) {
    IPFSRT_NEED(c && path, err);
    const char *target;
    char *owned;
    ipfsrt_status st = ipfsrt_client_name_target(c, path, &target, &owned, err);
    if (st == IPFSRT_OK) st = export_at(c, target, dest, err);
    free(owned);
    return st;
}

ipfsrt_status ipfsrt_client_export_car(ipfsrt_client *c, const char *path, const char *dest,
                                       ipfsrt_error *err) {
    IPFSRT_NEED(c && path, err);
    const char *target;
    char *owned;
    ipfsrt_status st = ipfsrt_client_name_target(c, path, &target, &owned, err);
    if (st == IPFSRT_OK) st = export_car_at(c, target, dest, err);
    free(owned);
    return st;
}

static void wake_engine(void *client) {
    ipfsrt_client *c = client;
    c->engine.wakeup(c->engine.ctx);
}

/* The libcurl engine, with the client's timeouts and concurrency. */
static ipfsrt_status new_engine(ipfsrt_client *c, const ipfsrt_client_options *opts,
                                ipfsrt_error *err) {
    unsigned timeout_ms = opts->timeout_s > 0 ? (unsigned)(opts->timeout_s * 1000) : 30000;
    ipfsrt_fetch_config cfg = {
        .slots = (unsigned)(c->gateways.count ? c->gateways.count : 1),
        .per_slot = c->concurrency,
        .connect_timeout_ms = timeout_ms < 10000 ? timeout_ms : 10000,
        .first_byte_timeout_ms = timeout_ms,
        .stall_timeout_ms = timeout_ms,
        .ca_file = opts->ca_file,
        .deadline_ms = opts->deadline_s > 0 ? (unsigned)(opts->deadline_s * 1000) : 0,
        .min_bytes_per_s = opts->min_rate < 0 ? 0 : opts->min_rate > 0 ? (unsigned)opts->min_rate : 1024,
        .rate_window_ms = timeout_ms,
    };
    ipfsrt_fetch *f;
    ipfsrt_status st = ipfsrt_fetch_new(&f, &cfg, err);
    if (st == IPFSRT_OK) ipfsrt_fetch_transport(f, &c->engine);
    return st;
}

void ipfsrt_client_options_init(ipfsrt_client_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_client_new(ipfsrt_client **out, const ipfsrt_client_options *opts,
                                 ipfsrt_error *err) {
    return ipfsrt_client_new_on(out, opts, NULL, err);
}

/* The caller's gateways (else the default list), and the same URLs as
 * messages and policies show them. */
static ipfsrt_status take_gateways(ipfsrt_client *c, const ipfsrt_gateway_list *given, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    if (given && given->count) {
        snprintf(c->gateways.source, sizeof c->gateways.source, "%s", given->source[0] ? given->source : "the caller");
        for (size_t i = 0; i < given->count && st == IPFSRT_OK; i++)
            st = ipfsrt_gateway_list_add(&c->gateways, given->urls[i], err);
    } else {
        st = ipfsrt_gateway_list_default(&c->gateways, err);
    }
    for (size_t i = 0; i < c->gateways.count && st == IPFSRT_OK; i++) {
        char *shown = ipfsrt_url_redact(c->gateways.urls[i]);
        st = shown ? ipfsrt_gateway_list_add(&c->shown, shown, err)
                   : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(shown);
    }
    return st;
}

ipfsrt_status ipfsrt_client_new_on(ipfsrt_client **out, const ipfsrt_client_options *opts,
                                   const ipfsrt_transport *transport, ipfsrt_error *err) {
    ipfsrt_client_options mine;
    ipfsrt_status taken = out ? IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_client_options_init, err)
                              : ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_client_new: client (the out-pointer) is NULL");
    if (taken != IPFSRT_OK) {
        if (transport) transport->free(transport->ctx);
        return taken;
    }
    opts = &mine;
    ipfsrt_client *c = calloc(1, sizeof *c);
    if (!c) {
        if (transport) transport->free(transport->ctx);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (transport) c->engine = *transport;
    ipfsrt_status st = take_gateways(c, opts->gateways, err);
    c->verify = !opts->no_verify;
    c->retries = opts->retries ? opts->retries : 2;
    c->give_up_s = opts->give_up_s < 0 ? 0 : opts->give_up_s > 0 ? opts->give_up_s : 60;
    c->backoff_s = 0.2;
    c->pending_cap = PENDING_CAP;
    c->pending_blocks_cap = PENDING_BLOCKS_CAP;
    c->concurrency = opts->concurrency ? opts->concurrency : START_IN_FLIGHT;
    c->adaptive = opts->concurrency == 0;
    c->in_flight_max = !c->adaptive ? c->concurrency : opts->max_concurrency ? opts->max_concurrency : MAX_IN_FLIGHT;
    if (c->concurrency > c->in_flight_max) c->concurrency = c->in_flight_max; /* the cap bounds the start too */
    c->max_block = opts->max_block ? opts->max_block : IPFSRT_CAR_DEFAULT_MAX_BLOCK;
    c->hash_backend = opts->hash_backend;
    uint64_t cache = opts->cache_bytes == 0 ? (uint64_t)64 << 20
                     : opts->cache_bytes == UINT64_MAX ? 0 : opts->cache_bytes;
    c->memory_cache_bytes = cache;
    if (st == IPFSRT_OK && !(c->gw = calloc(c->gateways.count ? c->gateways.count : 1, sizeof *c->gw)))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; st == IPFSRT_OK && i < c->gateways.count; i++)
        ipfsrt_pacing_init(&c->gw[i].pace, c->concurrency, c->in_flight_max);
    if (st == IPFSRT_OK)
        st = ipfsrt_blockcache_new(&c->cache, cache, opts->cache_dir, opts->trust_cache_dir, err);
    if (st == IPFSRT_OK && opts->cache_dir) st = ipfsrt_client_names_dir(c, opts->cache_dir, err);
    if (st == IPFSRT_OK && opts->cache_dir_bytes != UINT64_MAX)
        ipfsrt_blockcache_set_dir_limit(c->cache, opts->cache_dir_bytes ? opts->cache_dir_bytes : (uint64_t)10 << 30);
    if (st == IPFSRT_OK && !transport) st = new_engine(c, opts, err);
    if (st == IPFSRT_OK && c->verify) {
        unsigned threads = opts->threads ? opts->threads : ipfsrt_threads();
        if (!opts->threads && threads > 4) threads = 4; /* hashing keeps up with a gateway on a few cores */
        if (threads > 64) threads = 64;
        st = ipfsrt_vpool_new(&c->pool, threads, c->hash_backend, wake_engine, c, err);
    }
    if (st != IPFSRT_OK) {
        ipfsrt_client_free(c);
        return st;
    }
    *out = c;
    return IPFSRT_OK;
}

void ipfsrt_client_free(ipfsrt_client *c) {
    if (!c) return;
    ipfsrt_vpool_free(c->pool); /* its threads wake the engine: stopped first */
    if (c->engine.free) c->engine.free(c->engine.ctx);
    if (c->policy.free) c->policy.free(c->policy.ctx);
    ipfsrt_blockcache_free(c->cache);
    ipfsrt_client_names_free(c);
    ipfsrt_gateway_list_free(&c->gateways);
    ipfsrt_gateway_list_free(&c->shown);
    free(c->gw);
    free(c);
}

void ipfsrt_policy_init(ipfsrt_policy *policy) {
    IPFSRT_NEED_OR(policy, );
    memset(policy, 0, sizeof *policy);
    policy->size = sizeof *policy;
}

static void drop_policy(ipfsrt_client *c) {
    if (c->policy.free) c->policy.free(c->policy.ctx);
    ipfsrt_policy_init(&c->policy);
    for (size_t i = 0; i < c->gateways.count; i++) ipfsrt_client_set_gateway_cap(c, i, 0);
}

/* The caps a policy asks for, each checked when it is taken, not mid-fetch:
 * into caps, so that a policy failing here leaves the client as it was. */
static ipfsrt_status caps_of(ipfsrt_client *c, const ipfsrt_policy *p, unsigned *caps, ipfsrt_error *err) {
    for (size_t i = 0; i < c->gateways.count; i++) {
        caps[i] = 0;
        ipfsrt_status st = p->max_in_flight ? p->max_in_flight(p->ctx, i, &caps[i], err) : IPFSRT_OK;
        if (st != IPFSRT_OK) {
            ipfsrt_error_prefix(err, "policy max_in_flight(%s): ", c->shown.urls[i]);
            return st;
        }
    }
    return IPFSRT_OK;
}

/* A policy the client could not take is still its to release (client.h's
 * rule: ownership passes on every return). free belongs to every version of
 * the struct, so even one without its size is released. */
static void release_untaken(const ipfsrt_policy *policy) {
    if (policy->free) policy->free(policy->ctx);
}

ipfsrt_status ipfsrt_client_set_policy(ipfsrt_client *c, const ipfsrt_policy *policy, ipfsrt_error *err) {
    if (!c) {
        if (policy) release_untaken(policy);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_client_set_policy: client is NULL");
    }
    if (!policy) {
        drop_policy(c);
        return IPFSRT_OK;
    }
    if (policy->ctx && policy->ctx == c->policy.ctx) return IPFSRT_OK; /* the one it holds: nothing to take */
    ipfsrt_policy taken;
    unsigned caps[IPFSRT_MAX_GATEWAYS];
    ipfsrt_status st = IPFSRT_TAKE_CALLBACKS(taken, policy, "ipfsrt_policy", err);
    if (st == IPFSRT_OK) st = caps_of(c, &taken, caps, err);
    if (st != IPFSRT_OK) { /* the policy before stays */
        release_untaken(policy);
        return st;
    }
    drop_policy(c);
    c->policy = taken;
    for (size_t i = 0; i < c->gateways.count; i++) ipfsrt_client_set_gateway_cap(c, i, caps[i]);
    return IPFSRT_OK;
}

void ipfsrt_client_set_gateway_cap(ipfsrt_client *c, size_t i, unsigned cap) {
    IPFSRT_NEED_OR(c, );
    if (i >= c->gateways.count) return;
    if (!cap || cap > c->in_flight_max) cap = c->in_flight_max;
    ipfsrt_pacing *p = &c->gw[i].pace;
    p->cap = cap;
    if (!c->adaptive) p->limit = c->concurrency < cap ? c->concurrency : cap;
    else if (p->limit > cap) p->limit = cap;
    if (c->engine.set_limit) c->engine.set_limit(c->engine.ctx, (unsigned)i, (unsigned)p->limit);
}

void ipfsrt_client_pace_from(ipfsrt_client *c, unsigned start) {
    if (!c->adaptive) return;
    for (size_t i = 0; i < c->gateways.count; i++) {
        ipfsrt_pacing *p = &c->gw[i].pace;
        if (p->limit >= start) continue;
        p->limit = start < p->cap ? start : p->cap;
        if (c->engine.set_limit) c->engine.set_limit(c->engine.ctx, (unsigned)i, (unsigned)p->limit);
    }
}

double ipfsrt_client_http1_round_trip(const ipfsrt_client *c) {
    double least = 0;
    for (size_t i = 0; i < c->gateways.count; i++) {
        const gw_state *g = &c->gw[i];
        if (g->one_per_connection && (least == 0 || g->pace.base < least)) least = g->pace.base;
        else if (!g->one_per_connection && g->stats.ok) return 0;
    }
    return least;
}

size_t ipfsrt_client_gateway_count(const ipfsrt_client *c) {
    IPFSRT_NEED_OR(c, 0);
    return c->gateways.count;
}

const char *ipfsrt_client_gateway_url(const ipfsrt_client *c, size_t i) {
    IPFSRT_NEED_OR(c, NULL);
    return i < c->shown.count ? c->shown.urls[i] : NULL;
}

const char *ipfsrt_client_gateway_source(const ipfsrt_client *c) {
    IPFSRT_NEED_OR(c, NULL);
    return c->gateways.source;
}

bool ipfsrt_client_verifies(const ipfsrt_client *c) {
    IPFSRT_NEED_OR(c, false);
    return c->verify;
}

void ipfsrt_client_set_progress(ipfsrt_client *c, ipfsrt_client_progress_fn fn, void *user) {
    IPFSRT_NEED_OR(c, );
    c->progress = fn;
    c->progress_user = user;
}
