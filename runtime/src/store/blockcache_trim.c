/* The block cache's directory kept under a size: what it holds is measured by
 * walking it (it is shared by processes, so no one process's count is right
 * for long), and the blocks used longest ago (each read touches its file's
 * time) are deleted until it fits. Another process reading a deleted block
 * keeps its open file; one that looks for it later fetches it again. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/blockcache.h"

typedef struct cached_file {
    char sub[3];  /* the two-character folder */
    char *name;   /* the block's CID */
    uint64_t size;
    struct timespec used;
} cached_file;

typedef struct file_list {
    cached_file *items;
    size_t count, cap;
    uint64_t bytes;
} file_list;

static void add_file(file_list *l, const char *sub, const char *name, const struct stat *st) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        cached_file *items = realloc(l->items, cap * sizeof *items);
        if (!items) return; /* a smaller picture: trimming still makes room */
        l->items = items;
        l->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return;
    cached_file *f = &l->items[l->count++];
    *f = (cached_file){.name = copy, .size = (uint64_t)st->st_size, .used = st->st_mtim};
    memcpy(f->sub, sub, 3);
    l->bytes += (uint64_t)st->st_size;
}

/* Only what the cache itself writes is ever counted or deleted: a CIDv1 in
 * base32 exactly as the cache prints it, in the folder of its last two
 * characters. Anything else in the directory (a user's file, a link) is not
 * the cache's to delete. */
static bool named_as_block(const char *sub, const char *name) {
    size_t n = strlen(name);
    if (n < 3 || n >= IPFSRT_CID_STR_MAX || strcmp(name + n - 2, sub) != 0) return false;
    ipfsrt_cid cid, v1;
    if (ipfsrt_cid_parse(&cid, name, n, NULL, NULL) != IPFSRT_OK) return false;
    ipfsrt_cid_to_v1(&cid, &v1);
    char again[IPFSRT_CID_STR_MAX];
    return strcmp(ipfsrt_cid_to_string(&v1, again), name) == 0;
}

/* A two-character folder of the cache, opened only if it is a folder and not
 * a link to one (a link would take trimming outside the cache). */
static int open_sub(int top, const char *sub) {
    return openat(top, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static void list_sub(int top, const char *sub, file_list *l) {
    int fd = open_sub(top, sub);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *f; (f = readdir(d));) {
        struct stat st;
        if (named_as_block(sub, f->d_name) && fstatat(fd, f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            add_file(l, sub, f->d_name, &st);
    }
    closedir(d);
}

static void list_files(int top, file_list *l) {
    int fd = dup(top);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && strlen(e->d_name) == 2) list_sub(top, e->d_name, l);
    closedir(d);
}

/* Deleted through the folder opened again: one swapped for a link since the
 * listing is not followed. Only regular files go (unlink would take a link). */
static bool delete_file(int top, const cached_file *f) {
    int fd = open_sub(top, f->sub);
    if (fd < 0) return false;
    struct stat st;
    bool gone = fstatat(fd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                unlinkat(fd, f->name, 0) == 0;
    close(fd);
    return gone;
}

static int oldest_first(const void *x, const void *y) {
    const cached_file *a = x, *b = y;
    if (a->used.tv_sec != b->used.tv_sec) return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    return (a->used.tv_nsec > b->used.tv_nsec) - (a->used.tv_nsec < b->used.tv_nsec);
}

uint64_t ipfsrt_blockcache_dir_trim(const char *dir, uint64_t keep) {
    file_list l = {0};
    int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0) return 0;
    list_files(top, &l);
    if (l.bytes > keep) {
        qsort(l.items, l.count, sizeof *l.items, oldest_first);
        for (size_t i = 0; i < l.count && l.bytes > keep; i++)
            if (delete_file(top, &l.items[i])) l.bytes -= l.items[i].size;
    }
    close(top);
    for (size_t i = 0; i < l.count; i++) free(l.items[i].name);
    free(l.items);
    return l.bytes;
}
