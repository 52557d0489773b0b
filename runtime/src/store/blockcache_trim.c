/* The block cache's directory kept under a size: what it holds is measured by
 * walking it (it is shared by processes, so no one process's count is right
 * for long), and the blocks used longest ago (each read touches its file's
 * time) are deleted until it fits. Another process reading a deleted block
 * keeps its open file; one that looks for it later fetches it again. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/blockcache.h"

typedef struct cached_file {
    char *path;
    uint64_t size;
    struct timespec used;
} cached_file;

typedef struct file_list {
    cached_file *items;
    size_t count, cap;
    uint64_t bytes;
} file_list;

static void add_file(file_list *l, const char *path, const struct stat *st) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        cached_file *items = realloc(l->items, cap * sizeof *items);
        if (!items) return; /* a smaller picture: trimming still makes room */
        l->items = items;
        l->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) return;
    l->items[l->count++] = (cached_file){copy, (uint64_t)st->st_size, st->st_mtim};
    l->bytes += (uint64_t)st->st_size;
}

/* dir/<two characters>/<CID>, written files only (not the .tmp- ones being written). */
static void list_files(const char *dir, file_list *l) {
    DIR *top = opendir(dir);
    if (!top) return;
    char path[4096];
    for (struct dirent *d; (d = readdir(top));) {
        if (d->d_name[0] == '.' || strlen(d->d_name) != 2) continue;
        snprintf(path, sizeof path, "%s/%s", dir, d->d_name);
        DIR *sub = opendir(path);
        if (!sub) continue;
        size_t base = strlen(path);
        for (struct dirent *f; (f = readdir(sub));) {
            struct stat st;
            if (f->d_name[0] == '.') continue;
            snprintf(path + base, sizeof path - base, "/%s", f->d_name);
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) add_file(l, path, &st);
        }
        closedir(sub);
    }
    closedir(top);
}

static int oldest_first(const void *x, const void *y) {
    const cached_file *a = x, *b = y;
    if (a->used.tv_sec != b->used.tv_sec) return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    return (a->used.tv_nsec > b->used.tv_nsec) - (a->used.tv_nsec < b->used.tv_nsec);
}

uint64_t ipfsrt_blockcache_dir_trim(const char *dir, uint64_t keep) {
    file_list l = {0};
    list_files(dir, &l);
    if (l.bytes > keep) {
        qsort(l.items, l.count, sizeof *l.items, oldest_first);
        for (size_t i = 0; i < l.count && l.bytes > keep; i++)
            if (unlink(l.items[i].path) == 0) l.bytes -= l.items[i].size;
    }
    for (size_t i = 0; i < l.count; i++) free(l.items[i].path);
    free(l.items);
    return l.bytes;
}
