/* Streaming push reader for CARv1 and CARv2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipfsrt/varint.h"
#include "car/car_internal.h"
#include "base/base_internal.h"

typedef enum {
    S_HEADER_LEN,   /* length varint of the (outer or inner) CARv1 header */
    S_HEADER,       /* header bytes */
    S_V2_HEADER,    /* the 40 bytes after the CARv2 pragma */
    S_V2_SKIP,      /* padding up to the CARv2 data offset */
    S_SECTION_LEN,  /* length varint of a section */
    S_SECTION,      /* section bytes */
    S_V2_TAIL,      /* after the CARv2 data: index and padding, ignored */
    S_FAILED,
} state;

struct ipfsrt_car_reader {
    ipfsrt_car_options opts;
    ipfsrt_car_block_fn on_block;
    void *user;
    state st;
    uint64_t offset;        /* bytes consumed so far */
    uint64_t item_start;    /* offset of the varint of the current header/section */
    uint8_t varint[IPFSRT_VARINT_MAX_BYTES];
    size_t varint_len;
    uint8_t *buf;           /* partial header/section */
    size_t buf_cap;
    size_t need;            /* bytes of the current item */
    size_t have;
    bool inner_header;      /* the header being read is the CARv2 payload's */
    bool v2;
    uint64_t data_end;      /* CARv2: offset where the payload ends */
    bool header_ready;
    ipfsrt_car_header header;
    /* A section spread over several slices is hashed as its bytes arrive, from
     * the caller's slice, so the hash reads them while they are in cache and
     * the block needs no second pass at the end. */
    ipfsrt_hash_ctx *hash;
    bool cid_tried;  /* looked for the section's CID in the buffered prefix */
    bool hashing;    /* the section's block bytes are being hashed as they arrive */
    bool discarding; /* verify_only: hashed bytes are not kept */
    bool deferred;   /* the caller hashes the blocks itself (ipfsrt_car_reader_defer_hashing) */
    ipfsrt_cid section_cid;
    size_t section_cid_len;
    ipfsrt_error failure;
};

static void copy_error(ipfsrt_error *dst, const ipfsrt_error *src) {
    if (dst) *dst = *src;
}

static ipfsrt_status fail(ipfsrt_car_reader *r, ipfsrt_error *err) {
    r->st = S_FAILED;
    copy_error(err, &r->failure);
    return r->failure.code;
}

void ipfsrt_car_options_init(ipfsrt_car_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_car_options_take(ipfsrt_car_options *mine, const ipfsrt_car_options *theirs, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(*mine, theirs, ipfsrt_car_options_init, err);
    if (!mine->max_block_size) mine->max_block_size = IPFSRT_CAR_DEFAULT_MAX_BLOCK;
    if (!mine->max_header_size) mine->max_header_size = IPFSRT_CAR_DEFAULT_MAX_HEADER;
    return st;
}

ipfsrt_status ipfsrt_car_reader_new(ipfsrt_car_reader **out, const ipfsrt_car_options *opts,
                                     ipfsrt_car_block_fn on_block, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(on_block, err);
    *out = NULL;
    ipfsrt_car_options o;
    ipfsrt_status taken = ipfsrt_car_options_take(&o, opts, err);
    if (taken != IPFSRT_OK) return taken;
    ipfsrt_car_reader *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    r->opts = o;
    r->on_block = on_block;
    r->user = user;
    r->st = S_HEADER_LEN;
    ipfsrt_error_clear(&r->failure);
    ipfsrt_status st = ipfsrt_hash_ctx_new_with(&r->hash, r->opts.hash_backend, err);
    if (st != IPFSRT_OK) {
        free(r);
        return st;
    }
    *out = r;
    return IPFSRT_OK;
}

void ipfsrt_car_reader_free(ipfsrt_car_reader *r) {
    if (!r) return;
    ipfsrt_car_header_release(&r->header);
    ipfsrt_hash_ctx_free(r->hash);
    free(r->buf);
    free(r);
}

void ipfsrt_car_reader_defer_hashing(ipfsrt_car_reader *r) { r->deferred = true; }

const ipfsrt_car_header *ipfsrt_car_reader_header(const ipfsrt_car_reader *r) {
    IPFSRT_NEED_OR(r, NULL);
    return r->header_ready ? &r->header : NULL;
}

uint64_t ipfsrt_car_reader_offset(const ipfsrt_car_reader *r) {
    IPFSRT_NEED_OR(r, 0);
    return r->offset;
}

static ipfsrt_status reserve(ipfsrt_car_reader *r, size_t n) {
    if (ipfsrt_array_reserve(&r->buf, &r->buf_cap, n, 1))
        return ipfsrt_fail(&r->failure, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory buffering %zu bytes", n);
    return IPFSRT_OK;
}

/* Feeds varint bytes one at a time; *done is set once the varint is complete. */
static ipfsrt_status take_varint(ipfsrt_car_reader *r, const uint8_t **p, const uint8_t *end,
                                 uint64_t *value, bool *done) {
    *done = false;
    while (*p < end) {
        if (r->varint_len == 0) r->item_start = r->offset;
        uint8_t b = *(*p)++;
        r->offset++;
        r->varint[r->varint_len++] = b;
        if (!(b & 0x80)) {
            ipfsrt_status st = ipfsrt_varint_decode(r->varint, r->varint_len, value, NULL, &r->failure);
            r->varint_len = 0;
            if (st != IPFSRT_OK) {
                r->failure.offset = (int64_t)r->item_start;
                ipfsrt_error_prefix(&r->failure, "CAR length at byte offset %llu: ",
                                    (unsigned long long)r->item_start);
                return st;
            }
            *done = true;
            return IPFSRT_OK;
        }
        if (r->varint_len == IPFSRT_VARINT_MAX_BYTES)
            return ipfsrt_fail(&r->failure, IPFSRT_EBAD_VARINT, (int64_t)r->item_start,
                               "CAR length at byte offset %llu: varint longer than %d bytes",
                               (unsigned long long)r->item_start, IPFSRT_VARINT_MAX_BYTES);
    }
    return IPFSRT_OK;
}

static ipfsrt_status handle_header(ipfsrt_car_reader *r, const uint8_t *body, size_t len) {
    ipfsrt_car_header hdr;
    memset(&hdr, 0, sizeof hdr);
    ipfsrt_status st = ipfsrt_car_header_decode(body, len, &hdr, &r->failure);
    uint64_t body_start = r->item_start + ipfsrt_varint_size(len);
    if (st != IPFSRT_OK) {
        ipfsrt_error_shift(&r->failure, (int64_t)body_start);
        return st;
    }
    if (hdr.version == 2) {
        if (r->inner_header)
            return ipfsrt_fail(&r->failure, IPFSRT_EBAD_CAR_VERSION, (int64_t)r->item_start,
                               "CARv2 payload at byte offset %llu declares version 2, not 1",
                               (unsigned long long)r->item_start);
        /* The pragma must match byte for byte: it starts the file at offset 0. */
        if (r->item_start != 0 || len != sizeof ipfsrt_carv2_pragma - 1 ||
            memcmp(body, ipfsrt_carv2_pragma + 1, len) != 0)
            return ipfsrt_fail(&r->failure, IPFSRT_EBAD_CAR_HEADER, 0, "malformed CARv2 pragma");
        r->v2 = true;
        r->st = S_V2_HEADER;
        r->need = IPFSRT_CARV2_HEADER_SIZE - sizeof ipfsrt_carv2_pragma;
        r->have = 0;
        return reserve(r, r->need);
    }
    uint8_t characteristics[16];
    memcpy(characteristics, r->header.characteristics, 16);
    uint64_t data_offset = r->header.data_offset, data_size = r->header.data_size,
             index_offset = r->header.index_offset;
    ipfsrt_car_header_release(&r->header);
    r->header = hdr;
    if (r->v2) {
        r->header.version = 2;
        memcpy(r->header.characteristics, characteristics, 16);
        r->header.data_offset = data_offset;
        r->header.data_size = data_size;
        r->header.index_offset = index_offset;
    }
    r->header_ready = true;
    r->st = S_SECTION_LEN;
    return IPFSRT_OK;
}

static ipfsrt_status handle_section(ipfsrt_car_reader *r, const uint8_t *body, size_t len) {
    ipfsrt_car_block block;
    uint8_t digest[64];
    const uint8_t *streamed = NULL;
    ipfsrt_status st;
    if (r->hashing) {
        st = ipfsrt_hash_ctx_finish(r->hash, digest, &r->failure);
        if (st != IPFSRT_OK) return st;
        r->hashing = false;
        streamed = digest;
    }
    if (r->discarding)
        st = ipfsrt_car_section_check_streamed(&r->section_cid, len - r->section_cid_len,
                                               r->item_start, digest, &block, &r->failure);
    else
        st = ipfsrt_car_section_decode(body, len, r->item_start, r->opts.max_block_size,
                                       !r->deferred, streamed, r->opts.hash_backend, &block, &r->failure);
    if (st != IPFSRT_OK) return st;
    r->st = S_SECTION_LEN;
    if (!r->on_block) return IPFSRT_OK;
    ipfsrt_error_clear(&r->failure);
    st = r->on_block(r->user, &block, &r->failure);
    if (st != IPFSRT_OK && !r->failure.message[0])
        ipfsrt_fail_cid(&r->failure, st, &block.cid, (int64_t)r->item_start,
                        "reading stopped by the block callback");
    return st;
}

/* Called when a section length is known: checks it before anything is buffered. */
static ipfsrt_status start_section(ipfsrt_car_reader *r, uint64_t len) {
    if (len == 0)
        return ipfsrt_fail(&r->failure, IPFSRT_ETRAILING_DATA, (int64_t)r->item_start,
                           "zero-length section at byte offset %llu: padding or garbage after "
                           "the last block",
                           (unsigned long long)r->item_start);
    if (len > ipfsrt_car_max_section(r->opts.max_block_size))
        return ipfsrt_fail(&r->failure, IPFSRT_ETOO_LARGE, (int64_t)r->item_start,
                           "section at byte offset %llu declares %llu bytes, over the %zu-byte "
                           "block limit",
                           (unsigned long long)r->item_start, (unsigned long long)len,
                           r->opts.max_block_size);
    if (r->v2 && r->offset + len > r->data_end)
        return ipfsrt_fail(&r->failure, IPFSRT_ETRUNCATED, (int64_t)r->item_start,
                           "section at byte offset %llu runs past the end of the CARv2 data",
                           (unsigned long long)r->item_start);
    r->need = (size_t)len;
    r->have = 0;
    r->st = S_SECTION;
    r->cid_tried = false;
    r->hashing = false;
    r->discarding = false;
    return IPFSRT_OK;
}

/* Once the buffered prefix holds the section's CID, starts hashing the block
 * bytes that follow it. CIDs it cannot stream (identity, unsupported, malformed)
 * are left to the one-shot check when the section is complete, which also
 * reports their errors. */
static ipfsrt_status maybe_start_hashing(ipfsrt_car_reader *r) {
    size_t enough = r->need < IPFSRT_CID_MAX_BYTES ? r->need : IPFSRT_CID_MAX_BYTES;
    if (r->cid_tried || r->have < enough) return IPFSRT_OK;
    /* from here on the buffer is filled up to need, or not at all */
    r->cid_tried = true;
    if (r->deferred) return IPFSRT_OK;
    if (r->have == r->need) return IPFSRT_OK; /* complete already: one-shot is cheaper */
    ipfsrt_cid *cid = &r->section_cid;
    size_t cid_len;
    ipfsrt_hash_alg alg;
    if (ipfsrt_cid_from_bytes(cid, r->buf, r->have, &cid_len, NULL) != IPFSRT_OK ||
        !ipfsrt_cid_streamable(cid, &alg) || r->need - cid_len > r->opts.max_block_size)
        return IPFSRT_OK;
    r->section_cid_len = cid_len;
    ipfsrt_status st = ipfsrt_hash_ctx_start(r->hash, alg, &r->failure);
    if (st == IPFSRT_OK)
        st = ipfsrt_hash_ctx_update(r->hash, r->buf + cid_len, r->have - cid_len, &r->failure);
    r->hashing = st == IPFSRT_OK;
    r->discarding = r->hashing && r->opts.verify_only;
    return st;
}

static bool at_data_end(const ipfsrt_car_reader *r) { return r->v2 && r->offset == r->data_end; }

/* Each step consumes input from *p for the state the reader is in. */

static ipfsrt_status step_header_len(ipfsrt_car_reader *r, const uint8_t **p, const uint8_t *end) {
    uint64_t hlen;
    bool done;
    ipfsrt_status st = take_varint(r, p, end, &hlen, &done);
    if (st != IPFSRT_OK || !done) return st;
    if (hlen == 0)
        return ipfsrt_fail(&r->failure, IPFSRT_EBAD_CAR_HEADER, (int64_t)r->item_start,
                           "empty CAR header at byte offset %llu", (unsigned long long)r->item_start);
    if (hlen > r->opts.max_header_size)
        return ipfsrt_fail(&r->failure, IPFSRT_ETOO_LARGE, (int64_t)r->item_start,
                           "CAR header of %llu bytes exceeds the %zu-byte limit",
                           (unsigned long long)hlen, r->opts.max_header_size);
    if (r->v2 && r->offset + hlen > r->data_end)
        return ipfsrt_fail(&r->failure, IPFSRT_ETRUNCATED, (int64_t)r->item_start,
                           "CARv2 payload header runs past the end of the data");
    r->need = (size_t)hlen;
    r->have = 0;
    r->st = S_HEADER;
    return reserve(r, r->need);
}

static ipfsrt_status step_section_len(ipfsrt_car_reader *r, const uint8_t **p, const uint8_t *end) {
    if (at_data_end(r)) {
        r->st = S_V2_TAIL;
        return IPFSRT_OK;
    }
    uint64_t slen;
    bool done;
    ipfsrt_status st = take_varint(r, p, end, &slen, &done);
    if (st == IPFSRT_OK && done) st = start_section(r, slen);
    return st;
}

/* A buffered item is complete: the header, the CARv2 header or a section. */
static ipfsrt_status handle_item(ipfsrt_car_reader *r) {
    if (r->st == S_HEADER) return handle_header(r, r->buf, r->need);
    if (r->st == S_SECTION) return handle_section(r, r->buf, r->need);
    ipfsrt_status st = ipfsrt_carv2_header_decode(r->buf, &r->header, UINT64_MAX, &r->failure);
    if (st != IPFSRT_OK) return st;
    r->data_end = r->header.data_offset + r->header.data_size;
    r->inner_header = true;
    r->st = r->offset < r->header.data_offset ? S_V2_SKIP : S_HEADER_LEN;
    return IPFSRT_OK;
}

/* Gathers an item's bytes; a section's block bytes are hashed as they pass and,
 * when only verification is wanted, not kept. */
static ipfsrt_status step_buffered(ipfsrt_car_reader *r, const uint8_t **p, const uint8_t *end) {
    /* A whole section in the caller's slice is verified in place, without a copy. */
    if (r->st == S_SECTION && r->have == 0 && (size_t)(end - *p) >= r->need) {
        const uint8_t *body = *p;
        *p += r->need;
        r->offset += r->need;
        return handle_section(r, body, r->need);
    }
    size_t want = r->need;
    /* Up to the CID, so that hashing can start right after it. */
    if (r->st == S_SECTION && !r->cid_tried && want > IPFSRT_CID_MAX_BYTES) want = IPFSRT_CID_MAX_BYTES;
    ipfsrt_status st = r->discarding ? IPFSRT_OK : reserve(r, want);
    if (st != IPFSRT_OK) return st;
    size_t take = want - r->have;
    if ((size_t)(end - *p) < take) take = (size_t)(end - *p);
    if (r->hashing && (st = ipfsrt_hash_ctx_update(r->hash, *p, take, &r->failure)) != IPFSRT_OK)
        return st;
    if (!r->discarding) memcpy(r->buf + r->have, *p, take);
    r->have += take;
    r->offset += take;
    *p += take;
    if (r->st == S_SECTION && (st = maybe_start_hashing(r)) != IPFSRT_OK) return st;
    return r->have < r->need ? IPFSRT_OK : handle_item(r);
}

static void step_skip(ipfsrt_car_reader *r, const uint8_t **p, const uint8_t *end) {
    uint64_t left = r->st == S_V2_SKIP ? r->header.data_offset - r->offset : UINT64_MAX;
    size_t take = (uint64_t)(end - *p) < left ? (size_t)(end - *p) : (size_t)left;
    *p += take;
    r->offset += take;
    if (r->st == S_V2_SKIP && r->offset == r->header.data_offset) r->st = S_HEADER_LEN;
}

ipfsrt_status ipfsrt_car_reader_feed(ipfsrt_car_reader *r, const uint8_t *data, size_t len,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(r, err);
    if (r->st == S_FAILED) return fail(r, err);
    const uint8_t *p = data, *end = data + len;
    ipfsrt_status st = IPFSRT_OK;
    while (p < end && st == IPFSRT_OK) {
        switch (r->st) {
        case S_HEADER_LEN: st = step_header_len(r, &p, end); break;
        case S_SECTION_LEN: st = step_section_len(r, &p, end); break;
        case S_HEADER:
        case S_V2_HEADER:
        case S_SECTION: st = step_buffered(r, &p, end); break;
        case S_V2_SKIP:
        case S_V2_TAIL: step_skip(r, &p, end); break; /* padding, then the index: unread */
        case S_FAILED: break;
        }
    }
    if (st != IPFSRT_OK) return fail(r, err);
    if (r->st == S_SECTION_LEN && at_data_end(r)) r->st = S_V2_TAIL;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_reader_finish(ipfsrt_car_reader *r, ipfsrt_error *err) {
    IPFSRT_NEED(r, err);
    if (r->st == S_FAILED) return fail(r, err);
    if (r->st == S_V2_TAIL || (r->st == S_SECTION_LEN && r->varint_len == 0 && !r->v2))
        return IPFSRT_OK;
    const char *where;
    switch (r->st) {
    case S_HEADER_LEN: where = r->offset == 0 ? "before any CAR header" : "inside the CAR header length"; break;
    case S_HEADER: where = "inside the CAR header"; break;
    case S_V2_HEADER: case S_V2_SKIP: where = "inside the CARv2 header"; break;
    case S_SECTION_LEN: where = r->varint_len ? "inside a section length" : "before the end of the CARv2 data"; break;
    default: where = "inside a section"; break;
    }
    ipfsrt_fail(&r->failure, IPFSRT_ETRUNCATED, (int64_t)r->offset,
                "CAR input ended %s (at byte offset %llu, item from offset %llu)", where,
                (unsigned long long)r->offset, (unsigned long long)r->item_start);
    return fail(r, err);
}

struct counter {
    ipfsrt_car_block_fn fn;
    void *user;
    uint64_t blocks, bytes;
};

static ipfsrt_status count_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    struct counter *c = user;
    c->blocks++;
    c->bytes += b->len;
    return c->fn ? c->fn(c->user, b, err) : IPFSRT_OK;
}

/* Feeds len bytes in slices of slice_size, as a stream would deliver them. */
static ipfsrt_status feed_slices(ipfsrt_car_reader *r, const uint8_t *data, size_t len,
                                 size_t slice_size, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    for (size_t off = 0; off < len && st == IPFSRT_OK; off += slice_size)
        st = ipfsrt_car_reader_feed(r, data + off, len - off < slice_size ? len - off : slice_size,
                                    err);
    return st;
}

/* Feeds a file through the reader. A regular file is mapped and fed straight
 * from the page cache: with read() the kernel's copy into a user buffer costs
 * about an eighth of the time SHA-256 takes (measured with perf). Pipes and
 * other streams are read. */
static ipfsrt_status feed_fd(ipfsrt_car_reader *r, int fd, const char *path, size_t slice_size,
                             ipfsrt_error *err) {
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        size_t size = (size_t)sb.st_size;
        void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            madvise(map, size, MADV_SEQUENTIAL);
            ipfsrt_status st = feed_slices(r, map, size, slice_size, err);
            munmap(map, size);
            return st;
        }
    }
    uint8_t *slice = malloc(slice_size);
    if (!slice) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = IPFSRT_OK;
    for (;;) {
        ssize_t n = read(fd, slice, slice_size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            st = ipfsrt_fail(err, IPFSRT_EIO, (int64_t)ipfsrt_car_reader_offset(r),
                             "read error in %s: %s", path, strerror(errno));
            break;
        }
        if (n == 0) break;
        st = ipfsrt_car_reader_feed(r, slice, (size_t)n, err);
        if (st != IPFSRT_OK) break;
    }
    free(slice);
    return st;
}

/* What the verifications counted, handed over at the caller's size. */
static void hand_counts(ipfsrt_car_counts *counts, const struct counter *c) {
    if (!counts) return;
    ipfsrt_car_counts mine = {.size = sizeof mine, .blocks = c->blocks, .bytes = c->bytes};
    ipfsrt_stats_hand_over(counts, &mine, sizeof mine);
}

ipfsrt_status ipfsrt_car_verify_buffer(const uint8_t *data, size_t len, const ipfsrt_car_options *opts,
                                       ipfsrt_car_block_fn on_block, void *user, ipfsrt_car_counts *counts,
                                       ipfsrt_error *err) {
    struct counter c = {on_block, user, 0, 0};
    ipfsrt_car_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_car_options_init, err);
    if (st == IPFSRT_OK && !data && len)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_car_verify_buffer: data is NULL");
    ipfsrt_car_reader *r = NULL;
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_new(&r, &o, count_block, &c, err);
    if (st == IPFSRT_OK) st = feed_slices(r, data, len, o.slice_size ? o.slice_size : 64 * 1024, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_finish(r, err);
    ipfsrt_car_reader_free(r);
    hand_counts(counts, &c);
    return st;
}

/* A verified CARv2's index, checked against the payload it indexes: readers
 * trust its hits (after checking the section), so a lying one is a bad file. */
static ipfsrt_status check_index(const char *path, const ipfsrt_car_options *opts, ipfsrt_error *err) {
    ipfsrt_car_file *f;
    ipfsrt_status st = ipfsrt_car_file_new(&f, path, opts, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_file_check_index(f, err);
    ipfsrt_car_file_free(f);
    return st;
}

ipfsrt_status ipfsrt_car_verify_file(const char *path, const ipfsrt_car_options *opts, ipfsrt_car_block_fn on_block,
                                     void *user, ipfsrt_car_counts *counts, ipfsrt_error *err) {
    struct counter c = {on_block, user, 0, 0};
    hand_counts(counts, &c);
    ipfsrt_car_options o;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_car_options_init, err);
    if (st != IPFSRT_OK) return st;
    if (!path) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_car_verify_file: path is NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open %s: %s", path, strerror(errno));
    ipfsrt_car_reader *r = NULL;
    st = ipfsrt_car_reader_new(&r, &o, count_block, &c, err);
    if (st == IPFSRT_OK) st = feed_fd(r, fd, path, o.slice_size ? o.slice_size : 64 * 1024, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_finish(r, err);
    if (st != IPFSRT_OK && st != IPFSRT_EIO && st != IPFSRT_EOUT_OF_MEMORY)
        ipfsrt_error_prefix(err, "%s: ", path);
    if (st == IPFSRT_OK && ipfsrt_car_reader_header(r)->index_offset) st = check_index(path, &o, err);
    ipfsrt_car_reader_free(r);
    close(fd);
    hand_counts(counts, &c);
    return st;
}
