/* The TAR answer of a UnixFS path (format=tar, Accept: application/x-tar):
 * the file or the tree under it, named from its CID down, written by
 * libarchive as the walk goes (the CAR stream's thread and queue, bare), so
 * that a tree costs the same memory whatever its size. Like a path gateway's
 * file bytes, a TAR is not verifiable by the client: the gateway has checked
 * every block it reads. A name that would climb out of the root ("../x") fails
 * the answer, as do DAG-CBOR and DAG-JSON documents, which have no file form. */
#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "server/server_internal.h"

#define TAR_PATH_MAX 4096 /* bytes of one entry's path */

typedef struct tar_walk {
    ipfsrt_server *gw;
    ipfsrt_cid root;
    char root_name[IPFSRT_CID_STR_MAX];
    ipfsrt_server_car_stream *stream;
    struct archive *a;
    struct archive_entry *entry;
    ipfsrt_status out_status; /* the stream's refusal, met inside libarchive */
    ipfsrt_error out_err;
} tar_walk;

static la_ssize_t tar_out(struct archive *a, void *user, const void *buf, size_t len) {
    tar_walk *tw = user;
    tw->out_status = ipfsrt_server_car_stream_write(tw->stream, buf, len, &tw->out_err);
    if (tw->out_status == IPFSRT_OK) return (la_ssize_t)len;
    archive_set_error(a, -1, "%s", tw->out_err.message);
    return -1;
}

/* A libarchive failure as the walk's error: the stream's, when it refused. */
static ipfsrt_status archive_failed(tar_walk *tw, ipfsrt_error *err) {
    if (tw->out_status != IPFSRT_OK) {
        if (err) *err = tw->out_err;
        return tw->out_status;
    }
    return ipfsrt_fail(err, IPFSRT_EIO, -1, "TAR: %s", archive_error_string(tw->a));
}

/* parent/name with "." and ".." taken as a path would take them; false when
 * that climbs above the root (the first component) or is too long. */
static bool join_clean(const char *parent, const char *name, char *out, size_t size) {
    char joined[2 * TAR_PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", parent, name) >= sizeof joined) return false;
    size_t used = 0, depth = 0;
    out[0] = '\0';
    for (char *save = NULL, *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0) continue;
        if (strcmp(part, "..") == 0) {
            if (depth <= 1) return false;
            while (used > 0 && out[used - 1] != '/') used--;
            used -= used > 0; /* the slash before it */
            out[used] = '\0';
            depth--;
            continue;
        }
        size_t n = strlen(part);
        if (used + n + 2 > size) return false;
        if (used) out[used++] = '/';
        memcpy(out + used, part, n + 1);
        used += n;
        depth++;
    }
    return depth >= 1;
}

static ipfsrt_status put_header(tar_walk *tw, const char *path, const ipfsrt_unixfs_node_info *info,
                                unsigned filetype, const char *symlink, ipfsrt_error *err) {
    struct archive_entry *e = archive_entry_clear(tw->entry);
    archive_entry_set_pathname(e, path); /* UnixFS names are UTF-8 already: written as they are */
    archive_entry_set_filetype(e, filetype);
    archive_entry_set_perm(e, info->has_mode ? info->mode & 07777 : filetype == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_size(e, filetype == AE_IFREG ? (la_int64_t)info->size : 0);
    if (info->has_mtime) archive_entry_set_mtime(e, info->mtime_seconds, (long)info->mtime_nanos);
    if (symlink) archive_entry_set_symlink(e, symlink);
    return archive_write_header(tw->a, e) == ARCHIVE_OK ? IPFSRT_OK : archive_failed(tw, err);
}

static ipfsrt_status write_data(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    tar_walk *tw = user;
    return archive_write_data(tw->a, data, len) == (la_ssize_t)len ? IPFSRT_OK : archive_failed(tw, err);
}

typedef struct child {
    char *name;
    ipfsrt_cid cid;
} child;

typedef struct children {
    child *items;
    size_t count, cap;
} children;

static void children_free(children *ch) {
    for (size_t i = 0; i < ch->count; i++) free(ch->items[i].name);
    free(ch->items);
}

static ipfsrt_status add_child(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    children *ch = user;
    if (ipfsrt_array_reserve(&ch->items, &ch->cap, ch->count + 1, sizeof *ch->items) ||
        !(ch->items[ch->count].name = strdup(e->name)))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ch->items[ch->count++].cid = e->cid;
    return IPFSRT_OK;
}

static ipfsrt_status add_node(tar_walk *tw, const ipfsrt_cid *cid, const char *path, int depth, ipfsrt_error *err);

static ipfsrt_status add_directory(tar_walk *tw, const ipfsrt_unixfs_node_info *info, const char *path, int depth,
                                   ipfsrt_error *err) {
    children ch = {0};
    ipfsrt_status st = put_header(tw, path, info, AE_IFDIR, NULL, err);
    if (st == IPFSRT_OK) st = ipfsrt_unixfs_ls(&tw->gw->src, &info->cid, false, add_child, &ch, err);
    char child_path[TAR_PATH_MAX];
    for (size_t i = 0; st == IPFSRT_OK && i < ch.count; i++) {
        if (!join_clean(path, ch.items[i].name, child_path, sizeof child_path))
            st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &info->cid, -1,
                                 "TAR: the name '%.200s' in %s leads outside the root, or is too long",
                                 ch.items[i].name, path);
        else
            st = add_node(tw, &ch.items[i].cid, child_path, depth + 1, err);
    }
    children_free(&ch);
    return st;
}

static ipfsrt_status add_node(tar_walk *tw, const ipfsrt_cid *cid, const char *path, int depth, ipfsrt_error *err) {
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_unixfs_node_info info;
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "TAR: directories nested too deep");
    ipfsrt_status st = ipfsrt_unixfs_resolve(&tw->gw->src, ipfsrt_cid_to_string(cid, s), NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    switch (info.type) {
    case IPFSRT_UNIXFS_FILE:
        st = put_header(tw, path, &info, AE_IFREG, NULL, err);
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(&tw->gw->src, cid, 0, UINT64_MAX, write_data, tw, err);
        return st;
    case IPFSRT_UNIXFS_DIRECTORY:
    case IPFSRT_UNIXFS_HAMT_SHARD: return add_directory(tw, &info, path, depth, err);
    case IPFSRT_UNIXFS_SYMLINK: {
        char *target;
        if ((st = ipfsrt_unixfs_readlink(&tw->gw->src, cid, &target, err)) != IPFSRT_OK) return st;
        st = put_header(tw, path, &info, AE_IFLNK, target, err);
        free(target);
        return st;
    }
    default:
        return ipfsrt_fail_cid(err, IPFSRT_EUNSUPPORTED, cid, -1, "TAR: %s is a %s, which has no file form", path,
                               ipfsrt_unixfs_type_name(info.type));
    }
}

static ipfsrt_status walk_tar(void *user, ipfsrt_server_car_stream *stream, ipfsrt_error *err) {
    tar_walk *tw = user;
    tw->stream = stream;
    tw->a = archive_write_new();
    tw->entry = archive_entry_new();
    ipfsrt_status st = IPFSRT_OK;
    if (!tw->a || !tw->entry) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    /* GNU's format: names of any length, written as bytes (pax would convert
     * them from the process's locale, often C in a server, refusing non-ASCII) */
    else if (archive_write_set_format_gnutar(tw->a) != ARCHIVE_OK ||
             archive_write_open(tw->a, tw, NULL, tar_out, NULL) != ARCHIVE_OK)
        st = archive_failed(tw, err);
    if (st == IPFSRT_OK) st = add_node(tw, &tw->root, tw->root_name, 0, err);
    if (st == IPFSRT_OK && archive_write_close(tw->a) != ARCHIVE_OK) st = archive_failed(tw, err);
    return st;
}

static void tar_walk_free(void *user) {
    tar_walk *tw = user;
    /* closes it, if the walk did not: the stream is over by then and takes no
     * more bytes (archive_write_fail would skip the close, and leak its buffer) */
    if (tw->a) archive_write_free(tw->a);
    if (tw->entry) archive_entry_free(tw->entry);
    free(tw);
}

enum MHD_Result ipfsrt_server_serve_tar(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *cid_str,
                                        const char *path) {
    char full[IPFSRT_CID_STR_MAX + 4096], etag[IPFSRT_CID_STR_MAX + 16], name[IPFSRT_CID_STR_MAX + 8];
    ipfsrt_unixfs_node_info info;
    ipfsrt_error err;
    if ((size_t)snprintf(full, sizeof full, "%s%s", cid_str, path) >= sizeof full)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_URI_TOO_LONG, "a path of %zu bytes is too long", strlen(path));
    if (ipfsrt_server_resolve(rq, full, NULL, NULL, &info, &err) != IPFSRT_OK)
        return ipfsrt_server_send_error(rq, c, &err);
    char root_name[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&info.cid, root_name);
    snprintf(etag, sizeof etag, "W/\"%s.x-tar\"", root_name);
    snprintf(name, sizeof name, "%s.tar", root_name);
    tar_walk *tw = calloc(1, sizeof *tw);
    if (!tw) return MHD_NO;
    *tw = (tar_walk){.gw = rq->gw, .root = info.cid};
    memcpy(tw->root_name, root_name, sizeof root_name);
    if (ipfsrt_server_not_modified(c, etag)) {
        tar_walk_free(tw);
        return ipfsrt_server_send_not_modified(rq, c, etag);
    }
    struct MHD_Response *r;
    if (ipfsrt_server_car_stream_start(rq, c, NULL, walk_tar, tw, tar_walk_free, &r, &err) != IPFSRT_OK)
        return ipfsrt_server_send_error(rq, c, &err);
    MHD_add_response_header(r, "Content-Type", "application/x-tar");
    ipfsrt_server_disposition(c, r, name, true);
    MHD_add_response_header(r, "Etag", etag);
    MHD_add_response_header(r, "X-Ipfs-Roots", root_name);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_OK, r, 0); /* body bytes are counted as they are sent */
}
