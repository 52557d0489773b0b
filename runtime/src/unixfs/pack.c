/* UnixFS importer: fixed-size chunks, balanced file DAGs, plain and HAMT-sharded
 * directories, symlinks; presets that reproduce ipfs-car's and Kubo's CIDs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/car.h"
#include "ipfsrt/pack.h"
#include "base/base_internal.h"
#include "unixfs/importer.h"

ipfsrt_status ipfsrt_pack_parse_hamt_rule(const char *s, ipfsrt_pack_options *o, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(o, err);
    static const struct {
        const char *name;
        ipfsrt_pack_hamt_rule rule;
    } rules[] = {{"entries:", IPFSRT_HAMT_ENTRIES},
                 {"link-bytes:", IPFSRT_HAMT_LINK_BYTES},
                 {"block-bytes:", IPFSRT_HAMT_BLOCK_BYTES}};
    if (strcmp(s, "never") == 0) {
        o->hamt_rule = IPFSRT_HAMT_NEVER;
        return IPFSRT_OK;
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t n = strlen(rules[i].name);
        const char *digits = s + n;
        if (strncmp(s, rules[i].name, n) != 0 || *digits < '0' || *digits > '9') continue;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(digits, &end, 10);
        if (*end || errno == ERANGE) continue;
        o->hamt_rule = rules[i].rule;
        o->hamt_threshold = v;
        return IPFSRT_OK;
    }
    return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                       "HAMT rule '%s': expected never, entries:N, link-bytes:N or block-bytes:N", s);
}

ipfsrt_status ipfsrt_pack_preset(const char *name, ipfsrt_pack_options *o, ipfsrt_error *err) {
    IPFSRT_NEED(name, err);
    IPFSRT_NEED(o, err);
    if (strcmp(name, "ipfs-car") == 0) { /* ipfs-car 3.x over @ipld/unixfs */
        *o = (ipfsrt_pack_options){sizeof *o, 1, 1 << 20, 1024, true, IPFSRT_HAMT_ENTRIES, 1000, 256,
                                   true, false, true};
    } else if (strcmp(name, "kubo") == 0) { /* `ipfs add`, profile unixfs-v0-2015 */
        *o = (ipfsrt_pack_options){sizeof *o, 0, 256 << 10, 174, false, IPFSRT_HAMT_LINK_BYTES, 256 << 10,
                                   256, false, false, false};
    } else if (strcmp(name, "kubo-v1-2025") == 0) { /* profile unixfs-v1-2025 */
        *o = (ipfsrt_pack_options){sizeof *o, 1, 1 << 20, 1024, true, IPFSRT_HAMT_BLOCK_BYTES, 256 << 10,
                                   256, false, false, false};
    } else {
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                           "unknown preset '%s' (ipfs-car, kubo, kubo-v1-2025)", name);
    }
    return IPFSRT_OK;
}

typedef ipfsrt_importer_made made;
typedef ipfsrt_importer_entry entry;
typedef ipfsrt_importer_entries entries;

typedef struct packer {
    ipfsrt_importer im;
    const ipfsrt_pack_options *o;
    char *path; /* the file or directory being read */
    size_t path_len, path_cap;
} packer;

#define READ_PIECE (128u << 10)

/* Read straight into the importer's leaf, a piece at a time, so that raw
 * leaves are hashed while the bytes are still in cache. */
static ipfsrt_status pack_file(packer *p, made *out, ipfsrt_error *err) {
    int fd = open(p->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open %s: %s", p->path, strerror(errno));
    ipfsrt_importer_file f;
    ipfsrt_importer_file_init(&f, &p->im);
    ipfsrt_status st = IPFSRT_OK;
    while (st == IPFSRT_OK) {
        size_t room;
        uint8_t *space = ipfsrt_importer_file_space(&f, &room);
        ssize_t n = read(fd, space, room < READ_PIECE ? room : READ_PIECE);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "read error in %s: %s", p->path, strerror(errno));
        if (n <= 0) break;
        st = ipfsrt_importer_file_commit(&f, (size_t)n, err);
    }
    close(fd);
    if (st == IPFSRT_OK) st = ipfsrt_importer_file_finish(&f, out, err);
    ipfsrt_importer_file_free(&f);
    return st;
}

/* ------------------------------------------------------------------ trees */

static ipfsrt_status path_push(packer *p, const char *name, size_t *saved, ipfsrt_error *err) {
    size_t n = strlen(name);
    if (ipfsrt_array_reserve(&p->path, &p->path_cap, p->path_len + n + 2, 1))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    p->im.where = p->path; /* moved, maybe */
    *saved = p->path_len;
    p->path[p->path_len++] = '/';
    memcpy(p->path + p->path_len, name, n + 1);
    p->path_len += n;
    return IPFSRT_OK;
}

static void path_pop(packer *p, size_t saved) {
    p->path_len = saved;
    p->path[saved] = '\0';
}

/* Dot-files are left out unless asked for (as ipfs-car and Kubo do), but a
 * Zarr v2 folder's metadata are data, not hidden files: without them the
 * packed root opens as no group or array at all. */
static bool left_out(const ipfsrt_pack_options *o, const char *name) {
    static const char *const zarr_metadata[] = {".zgroup", ".zarray", ".zattrs", ".zmetadata"};
    if (!strcmp(name, ".") || !strcmp(name, "..")) return true;
    if (name[0] != '.' || o->hidden) return false;
    for (size_t i = 0; i < sizeof zarr_metadata / sizeof *zarr_metadata; i++)
        if (!strcmp(name, zarr_metadata[i])) return false;
    return true;
}

static ipfsrt_status pack_any(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err);

static ipfsrt_status pack_dir(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err) {
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "directories nested too deep at %s", p->path);
    DIR *d = opendir(p->path);
    if (!d) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot list %s: %s", p->path, strerror(errno));
    entries es = {0};
    ipfsrt_status st = IPFSRT_OK;
    struct dirent *de;
    /* names first: the directory is read before anything under it is packed */
    while ((de = readdir(d))) {
        if (left_out(p->o, de->d_name)) continue;
        if (!ipfsrt_importer_entries_add(&es, de->d_name, strlen(de->d_name))) {
            st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            break;
        }
    }
    closedir(d);
    ipfsrt_importer_entries_sort(&es);
    /* Pack each name; what survives (ipfs-car drops some) moves to the front. */
    size_t kept = 0, i = 0;
    for (; st == IPFSRT_OK && i < es.count; i++) {
        size_t saved;
        bool skip = false;
        entry e = es.items[i];
        st = path_push(p, e.name, &saved, err);
        if (st == IPFSRT_OK) {
            st = pack_any(p, &skip, &e.m, depth + 1, err);
            path_pop(p, saved);
        }
        if (st != IPFSRT_OK || skip) {
            free(e.name);
        } else {
            es.items[kept++] = e;
        }
    }
    for (; i < es.count; i++) free(es.items[i].name); /* not reached after a failure */
    es.count = kept;
    if (st == IPFSRT_OK && es.count == 0 && p->o->follow_layout_of_ipfs_car)
        *skipped = true; /* ipfs-car only sees files, so file-less directories vanish */
    else if (st == IPFSRT_OK)
        st = ipfsrt_importer_dir(&p->im, &es, out, err);
    ipfsrt_importer_entries_free(&es);
    return st;
}

static ipfsrt_status pack_symlink(packer *p, made *out, ipfsrt_error *err) {
    char target[4096];
    ssize_t n = readlink(p->path, target, sizeof target);
    if (n < 0 || (size_t)n >= sizeof target)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot read symlink %s", p->path);
    ipfsrt_unixfs_data fs = {.type = IPFSRT_UNIXFS_SYMLINK, .data = (const uint8_t *)target,
                             .data_len = (size_t)n};
    out->size = 0;
    out->is_dir = false;
    return ipfsrt_importer_node(&p->im, NULL, 0, &fs, out, err);
}

static ipfsrt_status pack_any(packer *p, bool *skipped, made *out, int depth, ipfsrt_error *err) {
    struct stat sb;
    *skipped = false;
    if (lstat(p->path, &sb) != 0)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot stat %s: %s", p->path, strerror(errno));
    if (S_ISLNK(sb.st_mode)) {
        if (p->o->follow_layout_of_ipfs_car) { /* it lists regular files and directories only */
            *skipped = true;
            return IPFSRT_OK;
        }
        return pack_symlink(p, out, err);
    }
    if (S_ISDIR(sb.st_mode)) return pack_dir(p, skipped, out, depth, err);
    if (S_ISREG(sb.st_mode)) return pack_file(p, out, err);
    if (p->o->follow_layout_of_ipfs_car) {
        *skipped = true;
        return IPFSRT_OK;
    }
    return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1,
                       "%s is neither a file, a directory nor a symlink", p->path);
}

/* Whether a directory holds a regular file somewhere below (as ipfs-car sees it). */
static bool has_files(const ipfsrt_pack_options *o, const char *dir, int depth) {
    if (depth > IPFSRT_UNIXFS_MAX_DEPTH) return false;
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (left_out(o, de->d_name)) continue;
        char *child = malloc(strlen(dir) + strlen(de->d_name) + 2);
        if (!child) break;
        sprintf(child, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(child, &sb) == 0)
            found = S_ISREG(sb.st_mode) || (S_ISDIR(sb.st_mode) && has_files(o, child, depth + 1));
        free(child);
    }
    closedir(d);
    return found;
}

/* ipfs-car roots its DAG at the deepest directory that holds every file: while a
 * directory's only file-bearing entry is a directory, descend into it. */
static ipfsrt_status ipfs_car_root(packer *p, ipfsrt_error *err) {
    for (int depth = 0; depth < IPFSRT_UNIXFS_MAX_DEPTH; depth++) {
        DIR *d = opendir(p->path);
        if (!d) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot list %s: %s", p->path, strerror(errno));
        char *only = NULL;
        int bearing = 0;
        bool only_is_dir = false;
        struct dirent *de;
        while (bearing < 2 && (de = readdir(d))) {
            if (left_out(p->o, de->d_name)) continue;
            size_t saved;
            ipfsrt_status st = path_push(p, de->d_name, &saved, err);
            if (st != IPFSRT_OK) {
                closedir(d);
                free(only);
                return st;
            }
            struct stat sb;
            bool is_dir = lstat(p->path, &sb) == 0 && S_ISDIR(sb.st_mode);
            bool bears = (lstat(p->path, &sb) == 0 && S_ISREG(sb.st_mode)) ||
                         (is_dir && has_files(p->o, p->path, 0));
            path_pop(p, saved);
            if (bears) {
                bearing++;
                free(only);
                only = strdup(de->d_name);
                only_is_dir = is_dir;
            }
        }
        closedir(d);
        if (bearing != 1 || !only_is_dir) {
            free(only);
            return IPFSRT_OK;
        }
        size_t saved;
        ipfsrt_status st = only ? path_push(p, only, &saved, err)
                                : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(only);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

static const char *base_name(const char *path, size_t *len) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/') start--;
    *len = n - start;
    return path + start;
}

/* What the walk made of path, wrapped in a directory where the layout asks. */
static ipfsrt_status pack_top(packer *p, const char *path, bool is_dir, made *top,
                              ipfsrt_error *err) {
    const ipfsrt_pack_options *o = p->o;
    bool skipped = false;
    ipfsrt_status st = IPFSRT_OK;
    if (is_dir && o->follow_layout_of_ipfs_car) st = ipfs_car_root(p, err);
    if (st == IPFSRT_OK) st = pack_any(p, &skipped, top, 0, err);
    if (st == IPFSRT_OK && skipped) {
        entries none = {0};
        st = is_dir ? ipfsrt_importer_plain_dir(&p->im, &none, top, err)
                    : ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s has nothing ipfs-car would pack", path);
    }
    /* ipfs-car wraps a lone file in a directory; Kubo does so when asked (-w). */
    if (st == IPFSRT_OK && o->wrap && (!is_dir || !o->follow_layout_of_ipfs_car)) {
        size_t name_len;
        const char *name = base_name(path, &name_len);
        entry e = {.name = strndup(name, name_len), .name_len = name_len, .m = *top};
        entries one = {.items = &e, .count = 1};
        st = e.name ? ipfsrt_importer_plain_dir(&p->im, &one, top, err)
                    : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        free(e.name);
    }
    return st;
}

void ipfsrt_pack_options_init(ipfsrt_pack_options *opts) {
    IPFSRT_NEED_OR(opts, );
    (void)ipfsrt_pack_preset("ipfs-car", opts, NULL);
}

ipfsrt_status ipfsrt_pack(const char *path, const ipfsrt_pack_options *opts, ipfsrt_pack_sink_fn sink,
                          void *user, ipfsrt_cid *root, ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(sink, err);
    IPFSRT_NEED(root, err);
    ipfsrt_pack_options mine;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_pack_options_init, err);
    const ipfsrt_pack_options *o = &mine;
    packer p = {.o = o};
    if (st == IPFSRT_OK) st = ipfsrt_importer_init(&p.im, o, sink, user, err);
    if (st != IPFSRT_OK) return st;
    p.path_len = strlen(path);
    while (p.path_len > 1 && path[p.path_len - 1] == '/') p.path_len--;
    p.path_cap = p.path_len + 256;
    p.path = malloc(p.path_cap);
    if (!p.path) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    p.im.where = p.path;
    struct stat sb;
    if (st == IPFSRT_OK) {
        memcpy(p.path, path, p.path_len);
        p.path[p.path_len] = '\0';
        if (lstat(p.path, &sb) != 0)
            st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot stat %s: %s", path, strerror(errno));
    }
    made top = {0};
    if (st == IPFSRT_OK) st = pack_top(&p, path, S_ISDIR(sb.st_mode), &top, err);
    if (st == IPFSRT_OK) *root = top.cid;
    free(p.path);
    ipfsrt_importer_free(&p.im);
    return st;
}

static ipfsrt_status car_sink(void *user, const ipfsrt_cid *cid, const uint8_t *data, size_t len,
                              ipfsrt_error *err) {
    return ipfsrt_car_writer_put_made(user, cid, data, len, err);
}

ipfsrt_status ipfsrt_pack_to_car(const char *path, const ipfsrt_pack_options *opts,
                                 const char *car_path, int car_version, ipfsrt_cid *root,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(path, err);
    IPFSRT_NEED(car_path, err);
    IPFSRT_NEED(root, err);
    ipfsrt_pack_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_pack_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    const ipfsrt_pack_options *o = &mine;
    /* The root is known only at the end: write a placeholder of the same length
     * (every root a pack makes is a sha2-256 CID of o->cid_version, or a raw
     * CIDv1, which is as long as a dag-pb CIDv1) and rewrite the header. */
    static const uint8_t zero[32];
    ipfsrt_cid placeholder;
    ipfsrt_status st = ipfsrt_cid_create(&placeholder, o->cid_version, IPFSRT_CODEC_DAG_PB,
                                         IPFSRT_MH_SHA2_256, zero, sizeof zero, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_car_writer *w;
    ipfsrt_car_writer_options wo = {.size = sizeof wo, .version = car_version ? car_version : 1,
                                    .roots = &placeholder, .root_count = 1};
    st = ipfsrt_car_writer_new(&w, car_path, &wo, err);
    if (st != IPFSRT_OK) return st;
    st = ipfsrt_pack(path, o, car_sink, w, root, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_set_roots(w, root, 1, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_finish(w, err);
    ipfsrt_car_writer_free(w);
    return st;
}
