/* A local folder as a store: keys are files under it. Writes land in a
 * temporary file renamed over the key, so a reader never sees half a value;
 * they never follow a symbolic link out of the folder. A change made in place
 * (an append, a region written again) is a transaction: it holds a lock on
 * the folder (flock on the folder itself: nothing is added to the store), and
 * its metadata documents are staged aside and renamed into place together at
 * its end, the consolidated ones last, so that a crash leaves the old version
 * or the new one; a crash while renaming is completed by the next transaction
 * (a mark says the renames were decided), one before that is rolled back.
 * Outside transactions, as zarr-python: no locks, the last rename wins. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "zarr/store_internal.h"

#define TEMP_MARK ".ipfsrt-" /* a write under way: not a key yet */
#define STAGE_DIR TEMP_MARK "staged" /* a transaction's metadata, key by key */
#define COMMIT_MARK TEMP_MARK "commit" /* the staged metadata is the new version's */

typedef struct folder {
    char *root;
    ipfsrt_buf value; /* the value being handed out, reused */
    int lock_fd;      /* the folder, locked, during a transaction; else -1 */
} folder;

/* Documents that say what the store holds: staged during a transaction. */
static bool is_metadata(const char *key) {
    const char *slash = strrchr(key, '/'), *name = slash ? slash + 1 : key;
    return !strcmp(name, ".zarray") || !strcmp(name, ".zattrs") || !strcmp(name, ".zgroup") ||
           !strcmp(name, ".zmetadata") || !strcmp(name, "zarr.json");
}

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

static bool staged_path(const folder *f, const char *key, char *out, size_t cap) {
    return (size_t)snprintf(out, cap, "%s/" STAGE_DIR "/%s", f->root, key) < cap;
}

static ipfsrt_status folder_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                     ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    folder *f = ctx;
    for (size_t i = 0; i < n; i++) {
        ipfsrt_range_result r = {.index = i, .key = requests[i].key, .object_size = UINT64_MAX};
        char path[4096];
        r.status = IPFSRT_ENOT_FOUND;
        if (f->lock_fd >= 0 && is_metadata(requests[i].key) && staged_path(f, requests[i].key, path, sizeof path))
            r.status = read_range(f, path, &requests[i], &r.error); /* this transaction's version first */
        if (r.status == IPFSRT_ENOT_FOUND) r.status = path_of(f, requests[i].key, path, sizeof path, &r.error);
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

static ipfsrt_status write_file(folder *f, const char *key, const void *data, size_t len, ipfsrt_error *err);

static ipfsrt_status folder_put(void *ctx, const char *key, const void *data, size_t len, ipfsrt_error *err) {
    folder *f = ctx;
    if (f->lock_fd < 0 || !is_metadata(key)) return write_file(f, key, data, len, err);
    char staged[IPFSRT_ZARR_KEY_MAX + sizeof STAGE_DIR + 2];
    snprintf(staged, sizeof staged, STAGE_DIR "/%s", key);
    return write_file(f, staged, data, len, err);
}

static ipfsrt_status write_file(folder *f, const char *key, const void *data, size_t len, ipfsrt_error *err) {
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
    char staged[4096]; /* a staged version would come back at the end */
    if (st == IPFSRT_OK && f->lock_fd >= 0 && staged_path(f, key, staged, sizeof staged)) unlink(staged);
    return st;
}

/* ---------------------------------------------------------- transactions */

typedef ipfsrt_status (*staged_fn)(folder *f, const char *key, ipfsrt_error *err);

/* The documents a reader of consolidated metadata reads first: renamed last. */
static bool is_consolidated(const char *key) { return !strcmp(key, ".zmetadata") || !strcmp(key, "zarr.json"); }

/* fn for every file staged under STAGE_DIR/prefix, its key relative to the
 * root; the consolidated documents only when last, the others only when not.
 * Symbolic links are not followed (the stage is the folder's own). */
static ipfsrt_status each_staged(folder *f, const char *prefix, bool last, staged_fn fn, int depth,
                                 ipfsrt_error *err) {
    char path[4096];
    if (depth > 64 || !staged_path(f, prefix, path, sizeof path))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s/" STAGE_DIR ": nested too deep", f->root);
    DIR *d = opendir(path);
    if (!d) return errno == ENOENT ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s", path, strerror(errno));
    ipfsrt_status st = IPFSRT_OK;
    for (struct dirent *e; st == IPFSRT_OK && (e = readdir(d));) {
        struct stat sb;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(sb.st_mode))
            continue;
        char key[4096];
        if ((size_t)snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name) >= sizeof key) continue;
        if (S_ISDIR(sb.st_mode)) st = each_staged(f, key, last, fn, depth + 1, err);
        else if (S_ISREG(sb.st_mode) && is_consolidated(key) == last) st = fn(f, key, err);
    }
    closedir(d);
    return st;
}

static ipfsrt_status publish_one(folder *f, const char *key, ipfsrt_error *err) {
    char from[4096];
    int dir;
    const char *leaf;
    if (!staged_path(f, key, from, sizeof from)) return IPFSRT_OK;
    ipfsrt_status st = open_parent(f, key, true, &dir, &leaf, err);
    if (st != IPFSRT_OK) return st;
    if (renameat(AT_FDCWD, from, dir, leaf) != 0)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot move %s into place: %s", from, strerror(errno));
    close(dir);
    return st;
}

static ipfsrt_status discard_one(folder *f, const char *key, ipfsrt_error *err) {
    (void)err;
    char path[4096];
    if (staged_path(f, key, path, sizeof path)) unlink(path);
    return IPFSRT_OK;
}

/* The stage's folders, emptied by the renames or removals before. */
static void remove_stage_dirs(const char *path, int depth) {
    DIR *d = depth <= 64 ? opendir(path) : NULL;
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat sb;
        char sub[4096];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
            (size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
            remove_stage_dirs(sub, depth + 1);
    }
    closedir(d);
    rmdir(path);
}

/* Every staged document into place (the mark first: from then on a crash is
 * completed, not undone), or every one dropped; publish < 0: as the mark a
 * crashed change left says. */
static ipfsrt_status settle_stage(folder *f, int publish, ipfsrt_error *err) {
    char mark[4096], stage[4096];
    snprintf(mark, sizeof mark, "%s/" COMMIT_MARK, f->root);
    snprintf(stage, sizeof stage, "%s/" STAGE_DIR, f->root);
    struct stat sb;
    if (publish < 0) publish = lstat(mark, &sb) == 0;
    if (lstat(stage, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: not a folder of ours (a link?): changes stay in the store",
                           stage);
    if (publish) {
        int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot write %s: %s", mark, strerror(errno));
        close(fd);
    }
    staged_fn fn = publish ? publish_one : discard_one;
    ipfsrt_status st = each_staged(f, "", false, fn, 0, err);
    if (st == IPFSRT_OK) st = each_staged(f, "", true, fn, 0, err);
    if (st != IPFSRT_OK) return st; /* the mark stays: the next transaction completes it */
    remove_stage_dirs(stage, 0);
    unlink(mark);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_folder_begin(void *ctx, double wait_s, ipfsrt_error *err) {
    folder *f = ctx;
    if (f->lock_fd >= 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a change is under way already", f->root);
    int fd = open(f->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "%s: %s", f->root, strerror(errno));
    double until = ipfsrt_clock() + wait_s;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || ipfsrt_clock() >= until) {
            close(fd);
            return ipfsrt_fail(err, IPFSRT_ETIMED_OUT, -1,
                               "%s: another process is changing this folder (waited %g s for its lock)", f->root, wait_s);
        }
        nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
    }
    ipfsrt_status st = settle_stage(f, -1, err); /* what a crashed change left: completed if decided, else undone */
    if (st != IPFSRT_OK) {
        close(fd); /* the lock goes with it */
        return st;
    }
    f->lock_fd = fd;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_folder_end(void *ctx, bool commit, ipfsrt_error *err) {
    folder *f = ctx;
    if (f->lock_fd < 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no change under way", f->root);
    ipfsrt_status st = settle_stage(f, commit, err);
    close(f->lock_fd);
    f->lock_fd = -1;
    return st;
}

bool ipfsrt_zarr_folder_is(const ipfsrt_zarr_store_ops *ops) { return ops->get_many == folder_get_many; }

static void folder_free(void *ctx) {
    folder *f = ctx;
    if (f->lock_fd >= 0) ipfsrt_zarr_folder_end(f, false, NULL);
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
    f->lock_fd = -1;
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
