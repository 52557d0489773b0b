/* CAR file reader: mapped file, random access by multihash, verified reads. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/varint.h"
#include "car/car_internal.h"
#include "base/base_internal.h"

struct ipfsrt_car_file {
    char *path;
    const uint8_t *map;
    size_t size;
    ipfsrt_car_options opts;
    ipfsrt_car_header header;
    uint64_t data_start;  /* first byte of the CARv1 payload */
    uint64_t first_section;
    uint64_t data_end;
    atomic_bool use_v2_index; /* cleared (for good) when the index proves wrong */
    pthread_mutex_t fallback_lock;
    ipfsrt_car_index index;
    ipfsrt_mhmap scanned;
    _Atomic uint64_t mapped_in; /* bytes read through the mapping since it was last trimmed;
                                   atomic because a gateway reads one file from many threads */
};

/* Pages of a read-only file mapping stay resident once touched, so reading a
 * large CAR would count all of it against the process. Dropping them now and
 * then keeps the resident set bounded; pointers already handed out stay valid
 * (the pages fault back in from the page cache). */
#define TRIM_EVERY (16u << 20)

static void note_read(ipfsrt_car_file *f, size_t bytes) {
    if (atomic_fetch_add(&f->mapped_in, bytes) + bytes >= TRIM_EVERY) {
        atomic_store(&f->mapped_in, 0);
        madvise((void *)f->map, f->size, MADV_DONTNEED);
    }
}

/* Reads the section whose length varint is at off: body bounds checked against data_end. */
static ipfsrt_status read_section(const ipfsrt_car_file *f, uint64_t off, bool verify,
                                  ipfsrt_car_block *block, uint64_t *next, ipfsrt_error *err) {
    uint64_t len;
    size_t vlen;
    ipfsrt_status st =
        ipfsrt_varint_decode(f->map + off, (size_t)(f->data_end - off), &len, &vlen, err);
    if (st != IPFSRT_OK) {
        if (err) err->offset = (int64_t)off;
        ipfsrt_error_prefix(err, "%s: section length at byte offset %llu: ", f->path,
                            (unsigned long long)off);
        return st;
    }
    if (len == 0)
        return ipfsrt_fail(err, IPFSRT_ETRAILING_DATA, (int64_t)off,
                           "%s: zero-length section at byte offset %llu: padding or garbage after "
                           "the last block",
                           f->path, (unsigned long long)off);
    if (len > ipfsrt_car_max_section(f->opts.max_block_size))
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, (int64_t)off,
                           "%s: section at byte offset %llu declares %llu bytes, over the "
                           "%zu-byte block limit",
                           f->path, (unsigned long long)off, (unsigned long long)len,
                           f->opts.max_block_size);
    if (len > f->data_end - off - vlen)
        return ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)off,
                           "%s: section at byte offset %llu declares %llu bytes, only %llu remain",
                           f->path, (unsigned long long)off, (unsigned long long)len,
                           (unsigned long long)(f->data_end - off - vlen));
    st = ipfsrt_car_section_decode(f->map + off + vlen, (size_t)len, off, f->opts.max_block_size,
                                   verify, NULL, f->opts.hash_backend, block, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "%s: ", f->path);
        return st;
    }
    if (next) *next = off + vlen + len;
    return IPFSRT_OK;
}

static ipfsrt_status scan(ipfsrt_car_file *f, ipfsrt_error *err) {
    uint64_t off = f->first_section;
    while (off < f->data_end) {
        ipfsrt_car_block block;
        uint64_t next;
        ipfsrt_status st = read_section(f, off, false, &block, &next, err);
        if (st != IPFSRT_OK) return st;
        note_read(f, (size_t)(next - off)); /* faults map whole page-cache folios */
        size_t mh_len;
        const uint8_t *mh = ipfsrt_cid_multihash(&block.cid, &mh_len);
        /* The first copy of a duplicated block wins; all copies hash alike. */
        st = ipfsrt_mhmap_put(&f->scanned, mh, mh_len, off, 0, NULL);
        if (st != IPFSRT_OK) return ipfsrt_fail(err, st, -1, "out of memory indexing %s", f->path);
        off = next;
    }
    return IPFSRT_OK;
}

/* The index is only a hint (what it points at is verified on read); a malformed
 * one is ignored and the payload scanned instead. */
static bool load_v2_index(ipfsrt_car_file *f) {
    return ipfsrt_car_index_parse(&f->index, f->map + f->header.index_offset, f->size - f->header.index_offset,
                                  f->header.data_size);
}

static ipfsrt_status parse_layout(ipfsrt_car_file *f, ipfsrt_error *err) {
    f->data_start = 0;
    f->data_end = f->size;
    if (f->size >= IPFSRT_CARV2_HEADER_SIZE &&
        memcmp(f->map, ipfsrt_carv2_pragma, sizeof ipfsrt_carv2_pragma) == 0) {
        ipfsrt_status st = ipfsrt_carv2_header_decode(f->map + sizeof ipfsrt_carv2_pragma,
                                                      &f->header, f->size, err);
        if (st != IPFSRT_OK) {
            ipfsrt_error_prefix(err, "%s: ", f->path);
            return st;
        }
        f->data_start = f->header.data_offset;
        f->data_end = f->header.data_offset + f->header.data_size;
    }
    const uint8_t *p = f->map + f->data_start;
    size_t avail = (size_t)(f->data_end - f->data_start);
    uint64_t hlen;
    size_t vlen;
    ipfsrt_status st = ipfsrt_varint_decode(p, avail, &hlen, &vlen, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(err, (int64_t)f->data_start);
        ipfsrt_error_prefix(err, "%s: CAR header length: ", f->path);
        return st;
    }
    if (hlen == 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_HEADER, (int64_t)f->data_start, "%s: empty CAR header",
                           f->path);
    if (hlen > f->opts.max_header_size)
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, (int64_t)f->data_start,
                           "%s: CAR header of %llu bytes exceeds the %zu-byte limit", f->path,
                           (unsigned long long)hlen, f->opts.max_header_size);
    if (hlen > avail - vlen)
        return ipfsrt_fail(err, IPFSRT_ETRUNCATED, (int64_t)f->data_start,
                           "%s: file ends inside the CAR header", f->path);
    ipfsrt_car_header inner;
    memset(&inner, 0, sizeof inner);
    st = ipfsrt_car_header_decode(p + vlen, (size_t)hlen, &inner, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(err, (int64_t)(f->data_start + vlen));
        ipfsrt_error_prefix(err, "%s: ", f->path);
        return st;
    }
    if (inner.version != 1) /* a pragma here: CARv2 layout broken, or nested */
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_VERSION, (int64_t)f->data_start,
                           "%s: %s", f->path,
                           f->header.version == 2 ? "CARv2 payload is not a CARv1"
                                                  : "CARv2 pragma without a valid CARv2 header");
    f->header.root_count = inner.root_count;
    f->header.roots = inner.roots;
    if (f->header.version != 2) f->header.version = 1;
    f->first_section = f->data_start + vlen + hlen;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_file_new(ipfsrt_car_file **out, const char *path,
                                   const ipfsrt_car_options *opts, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    ipfsrt_car_options o;
    ipfsrt_status taken = ipfsrt_car_options_take(&o, opts, err);
    if (taken != IPFSRT_OK) return taken;
    ipfsrt_car_file *f = calloc(1, sizeof *f);
    if (!f) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    f->opts = o;
    ipfsrt_mhmap_init(&f->scanned);
    ipfsrt_car_index_init(&f->index);
    f->path = strdup(path);
    pthread_mutex_init(&f->fallback_lock, NULL);
    ipfsrt_status st = IPFSRT_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (!f->path) {
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    } else if (fd < 0 || fstat(fd, &sb) != 0) {
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open %s", path);
    } else if (!S_ISREG(sb.st_mode)) {
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "%s is not a regular file", path);
    } else if (sb.st_size == 0) {
        st = ipfsrt_fail(err, IPFSRT_ETRUNCATED, 0, "%s is empty, not a CAR", path);
    } else {
        f->size = (size_t)sb.st_size;
        void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
            st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot map %s", path);
        else
            f->map = m;
    }
    if (fd >= 0) close(fd);
    if (st == IPFSRT_OK) st = parse_layout(f, err);
    if (st == IPFSRT_OK && f->header.index_offset) {
        atomic_store(&f->use_v2_index, load_v2_index(f));
        if (!atomic_load(&f->use_v2_index)) ipfsrt_car_index_free(&f->index);
    }
    if (st == IPFSRT_OK && !atomic_load(&f->use_v2_index)) st = scan(f, err);
    if (st != IPFSRT_OK) {
        ipfsrt_car_file_free(f);
        return st;
    }
    *out = f;
    return IPFSRT_OK;
}

void ipfsrt_car_file_free(ipfsrt_car_file *f) {
    if (!f) return;
    if (f->map) munmap((void *)f->map, f->size);
    ipfsrt_car_index_free(&f->index);
    ipfsrt_mhmap_free(&f->scanned);
    ipfsrt_car_header_release(&f->header);
    pthread_mutex_destroy(&f->fallback_lock);
    free(f->path);
    free(f);
}

const ipfsrt_car_header *ipfsrt_car_file_header(const ipfsrt_car_file *f) {
    IPFSRT_NEED_OR(f, NULL);
    return &f->header;
}

const char *ipfsrt_car_file_index_source(const ipfsrt_car_file *f) {
    IPFSRT_NEED_OR(f, NULL);
    return atomic_load(&f->use_v2_index) ? "carv2-index" : "scan";
}

static bool locate(const ipfsrt_car_file *f, const ipfsrt_cid *cid, uint64_t *off) {
    if (atomic_load(&f->use_v2_index)) {
        if (!ipfsrt_car_index_find(&f->index, cid, off)) return false;
        *off += f->data_start;
        return true;
    }
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    const ipfsrt_mhmap_entry *e = ipfsrt_mhmap_get(&f->scanned, mh, mh_len);
    if (e) *off = e->offset;
    return e != NULL;
}

/* The block of the section at off, an offset from an index (unhashed); false
 * when no well-formed section starts there. */
static bool section_at(const ipfsrt_car_file *f, uint64_t off, ipfsrt_car_block *block) {
    return off >= f->first_section && off < f->data_end &&
           read_section(f, off, false, block, NULL, NULL) == IPFSRT_OK;
}

/* Whether the section at off holds the block cid names (its bytes unhashed). */
static bool section_holds(const ipfsrt_car_file *f, uint64_t off, const ipfsrt_cid *cid) {
    ipfsrt_car_block block;
    if (!section_at(f, off, &block)) return false;
    size_t want_len, got_len;
    const uint8_t *want = ipfsrt_cid_multihash(cid, &want_len), *got = ipfsrt_cid_multihash(&block.cid, &got_len);
    return want_len == got_len && memcmp(want, got, want_len) == 0;
}

static bool fall_back_to_scan(ipfsrt_car_file *f);

/* An index hit counts once the section it points at holds the block: a lying
 * index would otherwise claim blocks the payload lacks (and a delta made
 * against it would leave them out). A miss is taken as it is: it costs a
 * delta a block it need not carry, never one it needs. */
bool ipfsrt_car_file_has(ipfsrt_car_file *f, const ipfsrt_cid *cid) {
    IPFSRT_NEED_OR(f, false);
    IPFSRT_NEED_OR(cid, false);
    bool indexed = atomic_load(&f->use_v2_index);
    uint64_t off;
    if (!locate(f, cid, &off)) return false;
    if (!indexed || section_holds(f, off, cid)) return true;
    return fall_back_to_scan(f) && locate(f, cid, &off);
}

/* The CARv2 index is a hint: when it misses or points wrong, the payload is
 * scanned once and the scan answers from then on. Readers on other threads may
 * be inside the index meanwhile, so it is kept until the file is closed. */
static bool fall_back_to_scan(ipfsrt_car_file *f) {
    pthread_mutex_lock(&f->fallback_lock);
    bool ok = true;
    if (atomic_load(&f->use_v2_index)) {
        ok = scan(f, NULL) == IPFSRT_OK;
        if (ok) atomic_store(&f->use_v2_index, false);
    }
    pthread_mutex_unlock(&f->fallback_lock);
    return ok;
}

static ipfsrt_status lookup_once(ipfsrt_car_file *f, const ipfsrt_cid *cid, bool verify,
                                 const uint8_t **data, size_t *len, ipfsrt_error *err);

static ipfsrt_status lookup(ipfsrt_car_file *f, const ipfsrt_cid *cid, bool verify,
                            const uint8_t **data, size_t *len, ipfsrt_error *err) {
    bool indexed = atomic_load(&f->use_v2_index);
    ipfsrt_status st = lookup_once(f, cid, verify, data, len, err);
    if (st == IPFSRT_OK || !indexed) return st; /* any failure through the index: ask the payload */
    if (!fall_back_to_scan(f)) return st;
    return lookup_once(f, cid, verify, data, len, err);
}

static ipfsrt_status lookup_once(ipfsrt_car_file *f, const ipfsrt_cid *cid, bool verify,
                                 const uint8_t **data, size_t *len, ipfsrt_error *err) {
    uint64_t off;
    if (!locate(f, cid, &off)) {
        if (cid->hash_code == IPFSRT_MH_IDENTITY) { /* the CID carries its own bytes */
            *data = cid->bytes + cid->digest_offset;
            *len = cid->digest_len;
            return IPFSRT_OK;
        }
        return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not in %s", f->path);
    }
    ipfsrt_car_block block;
    ipfsrt_status st = read_section(f, off, verify, &block, NULL, err);
    if (st != IPFSRT_OK) return st;
    size_t want_len, got_len;
    const uint8_t *want = ipfsrt_cid_multihash(cid, &want_len);
    const uint8_t *got = ipfsrt_cid_multihash(&block.cid, &got_len);
    if (want_len != got_len || memcmp(want, got, want_len) != 0)
        return ipfsrt_fail_cid(err, IPFSRT_EBAD_CAR_INDEX, cid, (int64_t)off,
                               "the index of %s points at byte offset %llu, which holds another "
                               "block",
                               f->path, (unsigned long long)off);
    note_read(f, block.len);
    *data = block.data;
    *len = block.len;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_file_get(ipfsrt_car_file *f, const ipfsrt_cid *cid,
                                  const uint8_t **data, size_t *len, ipfsrt_error *err) {
    IPFSRT_NEED(f, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(data, err);
    IPFSRT_NEED(len, err);
    return lookup(f, cid, true, data, len, err);
}

ipfsrt_status ipfsrt_car_file_get_unverified(ipfsrt_car_file *f, const ipfsrt_cid *cid,
                                     const uint8_t **data, size_t *len, ipfsrt_error *err) {
    IPFSRT_NEED(f, err);
    IPFSRT_NEED(cid, err);
    IPFSRT_NEED(data, err);
    IPFSRT_NEED(len, err);
    return lookup(f, cid, false, data, len, err);
}

typedef struct index_check {
    ipfsrt_car_file *f;
    uint64_t entries;
} index_check;

static ipfsrt_status check_entry(void *user, uint64_t code, const uint8_t *digest, size_t digest_len,
                                 uint64_t offset, ipfsrt_error *err) {
    index_check *c = user;
    const ipfsrt_car_file *f = c->f;
    uint64_t off = f->data_start + offset;
    ipfsrt_car_block block;
    bool held = section_at(f, off, &block) && block.cid.digest_len == digest_len &&
                memcmp(block.cid.bytes + block.cid.digest_offset, digest, digest_len) == 0 &&
                (code == UINT64_MAX || code == block.cid.hash_code);
    c->entries++;
    if (held) return IPFSRT_OK;
    return ipfsrt_fail(err, IPFSRT_EBAD_CAR_INDEX, (int64_t)off,
                       "%s: index entry %llu points at byte offset %llu, which does not hold its block", f->path,
                       (unsigned long long)c->entries, (unsigned long long)off);
}

/* Every block of the payload (bar identity CIDs, which indexes may leave out)
 * is found through the index. */
static ipfsrt_status check_coverage(ipfsrt_car_file *f, ipfsrt_error *err) {
    for (uint64_t off = f->first_section, next; off < f->data_end; off = next) {
        ipfsrt_car_block block;
        ipfsrt_status st = read_section(f, off, false, &block, &next, err);
        if (st != IPFSRT_OK) return st;
        note_read(f, (size_t)(next - off));
        uint64_t found;
        if (block.cid.hash_code != IPFSRT_MH_IDENTITY && !ipfsrt_car_index_find(&f->index, &block.cid, &found)) {
            char cs[IPFSRT_CID_STR_MAX];
            ipfsrt_cid_to_string(&block.cid, cs);
            return ipfsrt_fail_cid(err, IPFSRT_EBAD_CAR_INDEX, &block.cid, (int64_t)off,
                                   "%s: block %s at byte offset %llu is not in the CARv2 index", f->path, cs,
                                   (unsigned long long)off);
        }
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_file_check_index(ipfsrt_car_file *f, ipfsrt_error *err) {
    IPFSRT_NEED(f, err);
    if (!f->header.index_offset) return IPFSRT_OK;
    if (!f->index.group_count && !atomic_load(&f->use_v2_index))
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_INDEX, (int64_t)f->header.index_offset,
                           "%s: the CARv2 index at byte offset %llu cannot be read", f->path,
                           (unsigned long long)f->header.index_offset);
    index_check c = {f, 0};
    ipfsrt_status st = ipfsrt_car_index_each(&f->index, check_entry, &c, err);
    return st == IPFSRT_OK ? check_coverage(f, err) : st;
}

ipfsrt_status ipfsrt_car_file_next(ipfsrt_car_file *f, uint64_t *cursor, ipfsrt_car_block *block,
                                   bool *done, ipfsrt_error *err) {
    IPFSRT_NEED(f, err);
    IPFSRT_NEED(cursor, err);
    IPFSRT_NEED(block, err);
    IPFSRT_NEED(done, err);
    uint64_t off = *cursor ? *cursor : f->first_section;
    *done = false;
    if (off < f->first_section || off > f->data_end)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "invalid cursor %llu", (unsigned long long)off);
    if (off == f->data_end) {
        *done = true;
        *cursor = off;
        return IPFSRT_OK;
    }
    uint64_t next;
    ipfsrt_status st = read_section(f, off, true, block, &next, err);
    if (st == IPFSRT_OK) {
        note_read(f, block->len);
        *cursor = next;
    }
    return st;
}
