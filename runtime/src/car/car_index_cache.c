/* Indexes for CARv1 files read remotely by ranges: such a CAR has no index of
 * its own, so it is read through once (every block hashed on the way) and a
 * MultihashIndexSorted of its sections made; that index is kept in the cache
 * folder under a name made of what identifies the CAR (where it is, its size,
 * its ETag, its first bytes), so the next open reads it instead. A stale or
 * altered cache file can cost a failed read, never wrong bytes: every block is
 * checked against its CID when it is fetched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "car/car_internal.h"
#include "ipfsrt/hash.h"

#define INDEX_FILE_MAX ((size_t)1 << 30)

/* mkdir -p. */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

/* IPFSRT_CACHE_DIR, else $XDG_CACHE_HOME/ipfsrt, else ~/.cache/ipfsrt; + /car-index, made. */
static bool cache_folder(char *out, size_t cap) {
    const char *dir = getenv("IPFSRT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (dir && *dir) n = snprintf(out, cap, "%s/car-index", dir);
    else if (xdg && *xdg) n = snprintf(out, cap, "%s/ipfsrt/car-index", xdg);
    else if (home && *home) n = snprintf(out, cap, "%s/.cache/ipfsrt/car-index", home);
    else return false;
    return n > 0 && (size_t)n < cap && make_dirs(out);
}

static bool cache_file(const uint8_t *identity, size_t len, char *out, size_t cap) {
    char dir[3100];
    uint8_t digest[32];
    if (!cache_folder(dir, sizeof dir) || ipfsrt_hash_digest(IPFSRT_SHA2_256, identity, len, digest, NULL) != IPFSRT_OK)
        return false;
    int n = snprintf(out, cap, "%s/", dir);
    for (int i = 0; i < 32 && n > 0 && (size_t)n + 3 < cap; i++) n += snprintf(out + n, cap - (size_t)n, "%02x", digest[i]);
    return n > 0 && (size_t)n + 5 < cap && snprintf(out + n, cap - (size_t)n, ".idx") == 4;
}

static bool read_file(const char *path, ipfsrt_buf *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint8_t piece[65536];
    size_t n;
    while ((n = fread(piece, 1, sizeof piece, f)) > 0 && out->len + n <= INDEX_FILE_MAX) ipfsrt_buf_append(out, piece, n);
    bool ok = !ferror(f) && !out->failed && out->len <= INDEX_FILE_MAX;
    fclose(f);
    return ok;
}

/* Written beside, then renamed: a reader never sees half a file. */
static void write_file(const char *path, const ipfsrt_buf *data) {
    char tmp[3400];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    bool ok = fwrite(data->data, 1, data->len, f) == data->len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}

typedef struct indexing {
    ipfsrt_car_reader *reader;
    ipfsrt_mhmap offsets; /* multihash -> its first section's offset */
} indexing;

static ipfsrt_status note_block(void *user, const ipfsrt_car_block *blk, ipfsrt_error *err) {
    indexing *x = user;
    size_t n;
    const uint8_t *mh = ipfsrt_cid_multihash(&blk->cid, &n);
    if (ipfsrt_mhmap_put(&x->offsets, mh, n, blk->offset, 0, NULL) != IPFSRT_OK)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory indexing the CAR");
    return IPFSRT_OK;
}

static ipfsrt_status feed(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    indexing *x = user;
    return ipfsrt_car_reader_feed(x->reader, data, len, err);
}

/* One pass over the CAR as stream() hands its bytes over. */
static ipfsrt_status build(ipfsrt_car_stream_fn stream, void *user, ipfsrt_buf *index, ipfsrt_error *err) {
    indexing x = {0};
    ipfsrt_mhmap_init(&x.offsets);
    ipfsrt_car_options opts = {.size = sizeof opts, .verify_only = true};
    ipfsrt_status st = ipfsrt_car_reader_new(&x.reader, &opts, note_block, &x, err);
    if (st == IPFSRT_OK) st = stream(user, feed, &x, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_finish(x.reader, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_index_build(&x.offsets, index, err);
    ipfsrt_car_reader_free(x.reader);
    ipfsrt_mhmap_free(&x.offsets);
    return st;
}

ipfsrt_status ipfsrt_car_index_cached(const uint8_t *identity, size_t identity_len, uint64_t data_size,
                                      ipfsrt_car_stream_fn stream, void *user, ipfsrt_buf *index, ipfsrt_error *err) {
    char path[3300];
    bool cacheable = cache_file(identity, identity_len, path, sizeof path);
    if (cacheable && read_file(path, index)) {
        ipfsrt_car_index probe;
        ipfsrt_car_index_init(&probe);
        bool ok = ipfsrt_car_index_parse(&probe, index->data, index->len, data_size);
        ipfsrt_car_index_free(&probe);
        if (ok) return IPFSRT_OK;
    }
    index->len = 0;
    ipfsrt_status st = build(stream, user, index, err);
    if (st == IPFSRT_OK && cacheable) write_file(path, index);
    return st;
}
