/* Writes a UnixFS DAG out as files, directories and symlinks: into a temporary
 * sibling first, renamed into place only when everything was written. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"

typedef struct exporter {
    const ipfsrt_blocksource *src;
    char *path; /* grows and shrinks as the walk descends */
    size_t len, cap;
    int depth;
    ipfsrt_async_writer *out; /* one writer thread for every file, started with the first */
    int last_fd;              /* the file it writes now, closed by the exporter at the end */
} exporter;

static ipfsrt_status io_fail(ipfsrt_error *err, const char *what, const char *path) {
    return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot %s %s: %s", what, path, strerror(errno));
}

static ipfsrt_status write_out(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    exporter *ex = user;
    return ipfsrt_async_writer_write(ex->out, data, len, err);
}

void ipfsrt_unixfs_apply_metadata(const ipfsrt_unixfs_node_info *info, const char *path) {
    IPFSRT_NEED_OR(info, );
    IPFSRT_NEED_OR(path, );
    if (info->has_mode && info->type != IPFSRT_UNIXFS_SYMLINK)
        chmod(path, info->mode & 0777); /* no set-id bits from a DAG */
    if (info->has_mtime) {
        struct timespec t[2];
        t[0].tv_sec = t[1].tv_sec = (time_t)info->mtime_seconds;
        t[0].tv_nsec = t[1].tv_nsec = (long)info->mtime_nanos;
        utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
    }
}

static ipfsrt_status export_node(exporter *ex, const ipfsrt_cid *cid, ipfsrt_error *err);

/* Names become path components: nothing that could climb out or nest. */
static bool safe_name(const char *name, size_t len) {
    if (len == 0 || len > 255 || memchr(name, '/', len) || memchr(name, '\0', len)) return false;
    return !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

static ipfsrt_status export_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    exporter *ex = user;
    if (!safe_name(e->name, e->name_len))
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &e->cid, -1,
                               "directory entry name '%s' is not a safe file name", e->name);
    size_t need = ex->len + 1 + e->name_len + 1;
    if (ipfsrt_array_reserve(&ex->path, &ex->cap, need, 1))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t saved = ex->len;
    ex->path[ex->len++] = '/';
    memcpy(ex->path + ex->len, e->name, e->name_len + 1);
    ex->len += e->name_len;
    ipfsrt_status st = export_node(ex, &e->cid, err);
    ex->len = saved;
    ex->path[saved] = '\0';
    return st;
}

static ipfsrt_status export_node(exporter *ex, const ipfsrt_cid *cid, ipfsrt_error *err) {
    ipfsrt_unixfs_node_info info;
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_status st = ipfsrt_unixfs_resolve(ex->src, ipfsrt_cid_to_string(cid, s), NULL, &info, err);
    if (st != IPFSRT_OK) return st;
    switch (info.type) {
    case IPFSRT_UNIXFS_FILE: {
        /* Files are not waited for one by one: the writer closes each when its
         * bytes are out, while the next one is already being verified. */
        int fd = open(ex->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) return io_fail(err, "create", ex->path);
        st = ex->out ? ipfsrt_async_writer_next_file(ex->out, fd, ex->path, err)
                     : ipfsrt_async_writer_new(&ex->out, fd, ex->path, err);
        if (st != IPFSRT_OK && !ex->out) close(fd);
        if (ex->out) ex->last_fd = fd;
        if (st == IPFSRT_OK) st = ipfsrt_unixfs_read(ex->src, cid, 0, UINT64_MAX, write_out, ex, err);
        /* a later write would move the modification time set below */
        if (st == IPFSRT_OK && info.has_mtime) st = ipfsrt_async_writer_flush(ex->out, err);
        break;
    }
    case IPFSRT_UNIXFS_DIRECTORY:
    case IPFSRT_UNIXFS_HAMT_SHARD:
        if (ex->depth >= IPFSRT_UNIXFS_MAX_DEPTH)
            return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "directories nested too deep");
        if (mkdir(ex->path, 0755) != 0) return io_fail(err, "create directory", ex->path);
        ex->depth++;
        st = ipfsrt_unixfs_ls(ex->src, cid, false, export_entry, ex, err);
        ex->depth--;
        break;
    case IPFSRT_UNIXFS_SYMLINK: {
        char *target;
        st = ipfsrt_unixfs_readlink(ex->src, cid, &target, err);
        if (st == IPFSRT_OK && symlink(target, ex->path) != 0)
            st = io_fail(err, "create symlink", ex->path);
        free(target);
        break;
    }
    default:
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, cid, -1, "cannot export a node of type %s",
                               ipfsrt_unixfs_type_name(info.type));
    }
    if (st == IPFSRT_OK) ipfsrt_unixfs_apply_metadata(&info, ex->path);
    return st;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

ipfsrt_status ipfsrt_unixfs_export_check(const char *dest, ipfsrt_error *err) {
    IPFSRT_NEED(dest, err);
    struct stat sb;
    if (!*dest) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no destination given");
    if (lstat(dest, &sb) == 0)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s already exists; not overwriting it", dest);
    const char *slash = strrchr(dest, '/');
    if (!slash) return IPFSRT_OK; /* the current directory */
    char *dir = strndup(dest, slash == dest ? 1 : (size_t)(slash - dest));
    if (!dir) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write %s: the folder %s does not exist", dest, dir);
    else if (access(dir, W_OK) != 0)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write %s: %s is not writable", dest, dir);
    free(dir);
    return st;
}

ipfsrt_status ipfsrt_unixfs_export(const ipfsrt_blocksource *src, const ipfsrt_cid *cid,
                                   const char *dest, ipfsrt_error *err) {
    IPFSRT_NEED(src, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(dest, err);
    ipfsrt_status check = ipfsrt_unixfs_export_check(dest, err);
    if (check != IPFSRT_OK) return check;
    exporter ex = {.src = src, .last_fd = -1};
    ex.cap = strlen(dest) + 64;
    ex.path = malloc(ex.cap);
    if (!ex.path) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ex.len = (size_t)snprintf(ex.path, ex.cap, "%s.ipfsrt-partial-%ld", dest, (long)getpid());
    char *partial = strdup(ex.path);
    ipfsrt_status st = partial ? export_node(&ex, cid, err)
                               : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (ex.out) {
        if (st == IPFSRT_OK) st = ipfsrt_async_writer_flush(ex.out, err);
        ipfsrt_async_writer_free(ex.out);
        if (close(ex.last_fd) != 0 && st == IPFSRT_OK) st = io_fail(err, "close", dest);
    }
    if (st == IPFSRT_OK && rename(partial, dest) != 0) st = io_fail(err, "rename into", dest);
    if (st != IPFSRT_OK && partial) nftw(partial, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    free(partial);
    free(ex.path);
    return st;
}
