/* A local folder as a store: keys are files under it. Writes land in a
 * temporary file renamed over the key, so a reader never sees half a value;
 * they never follow a symbolic link out of the folder. Two processes writing
 * the same chunk at once: the last rename wins, and a partial chunk merged by
 * one may lose the other's values (no locks, as zarr-python). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zarr/store_internal.h"

#define TEMP_MARK ".ipfsrt-" /* a write under way: not a key yet */

typedef struct folder {
    char *root;
    ipfsrt_buf value; /* the value being handed out, reused */
} folder;

static ipfsrt_status path_of(const folder *f, const char *key, char *out, size_t cap, ipfsrt_error *err) {
    if ((size_t)snprintf(out, cap, "%s/%s", f->root, key) >= cap)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s/%.100s: path too long", f->root, key);
    return IPFSRT_OK;
}

static ipfsrt_status read_range(folder *f, const char *path, const ipfsrt_range_request *r, ipfsrt_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "%s: no such file", path);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s", path, strerror(errno));
    struct stat sb;
    ipfsrt_status st = IPFSRT_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = ipfsrt_fail(err, IPFSRT_ENOT_FILE, -1, "%s: not a file", path);
    uint64_t size = st == IPFSRT_OK ? (uint64_t)sb.st_size : 0;
    uint64_t offset = r->from_end ? (size > r->length ? size - r->length : 0) : r->offset;
    if (st == IPFSRT_OK && offset > size)
        st = ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%s: offset %llu is past its %llu bytes", path,
                         (unsigned long long)offset, (unsigned long long)size);
    uint64_t want = st == IPFSRT_OK ? size - offset : 0;
    if (r->length != UINT64_MAX && r->length < want) want = r->length;
    if (st == IPFSRT_OK && want > SIZE_MAX / 2) st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: too large", path);
    f->value.len = 0;
    uint8_t *dst = st == IPFSRT_OK ? ipfsrt_buf_reserve(&f->value, (size_t)want + 1) : NULL;
    if (st == IPFSRT_OK && !dst) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "%s: out of memory", path);
    for (size_t got = 0; st == IPFSRT_OK && got < want;) {
        ssize_t n = pread(fd, dst + got, (size_t)want - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: read failed", path);
        else got += (size_t)n;
    }
    if (st == IPFSRT_OK) f->value.len = (size_t)want;
    close(fd);
    return st;
}

static ipfsrt_status folder_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                     ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    folder *f = ctx;
    for (size_t i = 0; i < n; i++) {
        ipfsrt_range_result r = {.index = i, .key = requests[i].key, .object_size = UINT64_MAX};
        char path[4096];
        r.status = path_of(f, requests[i].key, path, sizeof path, &r.error);
        if (r.status == IPFSRT_OK) r.status = read_range(f, path, &requests[i], &r.error);
        r.data = f->value.data;
        r.len = r.status == IPFSRT_OK ? f->value.len : 0;
        ipfsrt_status st = fn(user, &r, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static ipfsrt_status folder_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                     ipfsrt_error *err) {
    folder *f = ctx;
    char path[4096];
    ipfsrt_status st = path_of(f, prefix, path, sizeof path, err);
    DIR *d = st == IPFSRT_OK ? opendir(path) : NULL;
    if (!d) return st != IPFSRT_OK || errno == ENOENT || errno == ENOTDIR ? st : ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s", path, strerror(errno));
    for (struct dirent *e; st == IPFSRT_OK && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || strstr(e->d_name, TEMP_MARK)) continue;
        struct stat sb;
        bool known = fstatat(dirfd(d), e->d_name, &sb, 0) == 0;
        ipfsrt_zarr_store_entry entry = {e->d_name, known && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : UINT64_MAX,
                                         known && S_ISDIR(sb.st_mode), NULL};
        st = fn(user, &entry, err);
    }
    closedir(d);
    return st;
}

static ipfsrt_status write_all(int fd, const uint8_t *data, size_t len) {
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return IPFSRT_EIO;
        data += n;
        len -= (size_t)n;
    }
    return IPFSRT_OK;
}

/* The folder that holds key's file, opened one component at a time from the
 * root without following symbolic links (made when create): writes stay in
 * the store, whatever links a folder in it holds. *leaf: the file's name. */
static ipfsrt_status open_parent(const folder *f, const char *key, bool create, int *out, const char **leaf,
                                 ipfsrt_error *err) {
    int fd = open(f->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s", f->root, strerror(errno));
    const char *at = key;
    for (const char *slash; (slash = strchr(at, '/')); at = slash + 1) {
        char name[1024];
        size_t n = (size_t)(slash - at);
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, at, n);
        name[n] = '\0';
        if (create && mkdirat(fd, name, 0777) != 0 && errno != EEXIST) break;
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        if (fd < 0) break;
    }
    if (fd < 0 || strchr(at, '/')) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ipfsrt_fail(err, e == ENOENT ? IPFSRT_ENOT_FOUND : IPFSRT_EIO, -1, "%s/%.200s: %s", f->root, key,
                           e == ELOOP || e == ENOTDIR ? "a folder on the way is a symbolic link or a file (writes "
                                                        "stay inside the store)" : strerror(e));
    }
    *out = fd;
    *leaf = at;
    return IPFSRT_OK;
}

/* A new file beside leaf in dir, its name marked as a write under way. */
static int temp_file(int dir, const char *leaf, char *name, size_t cap) {
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        snprintf(name, cap, "%.200s" TEMP_MARK "%d-%u", leaf, (int)getpid(), n);
        int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static ipfsrt_status folder_put(void *ctx, const char *key, const void *data, size_t len, ipfsrt_error *err) {
    folder *f = ctx;
    int dir;
    const char *leaf;
    ipfsrt_status st = open_parent(f, key, true, &dir, &leaf, err);
    if (st != IPFSRT_OK) return st;
    char tmp[300];
    int fd = temp_file(dir, leaf, tmp, sizeof tmp);
    if (fd < 0) {
        int e = errno;
        close(dir);
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create a file next to %s/%s: %s", f->root, key, strerror(e));
    }
    st = write_all(fd, data, len);
    if (st == IPFSRT_OK && fchmod(fd, 0644) != 0) st = IPFSRT_EIO;
    if (close(fd) != 0) st = IPFSRT_EIO;
    if (st == IPFSRT_OK && renameat(dir, tmp, dir, leaf) != 0) st = IPFSRT_EIO; /* a link named leaf is replaced */
    int e = errno;
    if (st != IPFSRT_OK) unlinkat(dir, tmp, 0);
    close(dir);
    if (st != IPFSRT_OK) return ipfsrt_fail(err, IPFSRT_EIO, -1, "writing %s/%s failed: %s", f->root, key, strerror(e));
    return IPFSRT_OK;
}

static ipfsrt_status folder_erase(void *ctx, const char *key, ipfsrt_error *err) {
    folder *f = ctx;
    int dir;
    const char *leaf;
    ipfsrt_status st = open_parent(f, key, false, &dir, &leaf, err);
    if (st == IPFSRT_ENOT_FOUND) return IPFSRT_OK; /* nothing there to remove */
    if (st != IPFSRT_OK) return st;
    if (unlinkat(dir, leaf, 0) != 0 && errno != ENOENT)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot remove %s/%s: %s", f->root, key, strerror(errno));
    close(dir);
    return st;
}

static void folder_free(void *ctx) {
    folder *f = ctx;
    free(f->root);
    ipfsrt_buf_free(&f->value);
    free(f);
}

static const ipfsrt_zarr_store_ops folder_reader = {sizeof(ipfsrt_zarr_store_ops), "folder", false, folder_get_many, folder_list_dir, NULL, NULL,
                                                    folder_free, NULL};
static const ipfsrt_zarr_store_ops folder_writer = {sizeof(ipfsrt_zarr_store_ops), "folder", false, folder_get_many, folder_list_dir, folder_put,
                                                    folder_erase, folder_free, NULL};

/* mkdir -p */
static ipfsrt_status make_folder(char *path, ipfsrt_error *err) {
    for (char *p = path + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0') continue;
        *p = '\0';
        int rc = mkdir(path, 0777), e = errno;
        *p = c;
        if (rc != 0 && e != EEXIST) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s: %s", path, strerror(e));
        if (!c) return IPFSRT_OK;
    }
}

ipfsrt_status ipfsrt_zarr_folder_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *path,
                                            bool writable, ipfsrt_error *err) {
    folder *f = calloc(1, sizeof *f);
    char *root = strdup(*path ? path : ".");
    if (!f || !root) {
        free(f);
        free(root);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    for (size_t n = strlen(root); n > 1 && root[n - 1] == '/'; n--) root[n - 1] = '\0';
    f->root = root;
    ipfsrt_buf_init(&f->value);
    struct stat sb;
    ipfsrt_status st = writable ? make_folder(root, err) : IPFSRT_OK;
    if (st == IPFSRT_OK && (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        st = ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "%s: no such folder", root);
    if (st != IPFSRT_OK) {
        folder_free(f);
        return st;
    }
    *ops = writable ? &folder_writer : &folder_reader;
    *ctx = f;
    return IPFSRT_OK;
}
