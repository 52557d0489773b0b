/* The UnixFS Data protobuf carried in PBNode.Data. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "ipld/protobuf.h"

static const char *const type_names[] = {"raw", "directory", "file", "metadata", "symlink", "hamt-shard", "ipld"};

const char *ipfsrt_unixfs_type_name(ipfsrt_unixfs_type type) {
    return (unsigned)type < sizeof type_names / sizeof type_names[0] ? type_names[type]
                                                                       : "unknown";
}

static ipfsrt_status bad(ipfsrt_error *err, size_t at, const char *what) {
    return ipfsrt_fail(err, IPFSRT_EBAD_UNIXFS, (int64_t)at, "UnixFS data: %s at byte offset %zu",
                       what, at);
}

/* UnixTime { required int64 Seconds = 1; optional fixed32 FractionalNanoseconds = 2; } */
static ipfsrt_status decode_mtime(const uint8_t *p, size_t n, size_t base, ipfsrt_unixfs_data *d,
                                  ipfsrt_error *err) {
    size_t pos = 0;
    bool has_seconds = false;
    unsigned last = 0;
    while (pos < n) {
        size_t at = pos;
        uint64_t key, v;
        if (!pb_varint(p, n, &pos, &key)) return bad(err, base + at, "truncated mtime");
        unsigned field = (unsigned)(key >> 3);
        if (field <= last) return bad(err, base + at, "mtime fields out of order or repeated");
        last = field;
        if (key == (1 << 3 | PB_VARINT)) {
            if (!pb_varint(p, n, &pos, &v)) return bad(err, base + at, "truncated mtime seconds");
            d->mtime_seconds = (int64_t)v;
            has_seconds = true;
        } else if (key == (2 << 3 | PB_I32)) {
            if (n - pos < 4) return bad(err, base + at, "truncated mtime nanoseconds");
            d->mtime_nanos = ipfsrt_le32(p + pos);
            pos += 4;
            if (d->mtime_nanos == 0 || d->mtime_nanos > 999999999)
                return bad(err, base + at, "mtime nanoseconds out of range");
            d->has_mtime_nanos = true;
        } else {
            return bad(err, base + at, "unknown mtime field");
        }
    }
    if (!has_seconds) return bad(err, base, "mtime without seconds");
    d->has_mtime = true;
    return IPFSRT_OK;
}

static ipfsrt_status add_blocksize(ipfsrt_unixfs_data *d, uint64_t v, size_t *cap,
                                   ipfsrt_error *err) {
    if (ipfsrt_array_reserve(&d->blocksizes, cap, d->blocksize_count + 1, sizeof *d->blocksizes))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    d->blocksizes[d->blocksize_count++] = v;
    return IPFSRT_OK;
}

/* What decoding has seen so far, for the checks on duplicates. */
typedef struct decoding {
    const uint8_t *buf;
    size_t len, pos;
    size_t blocksize_cap;
    bool has_type, has_data;
} decoding;

/* Data (2) or mtime (8). */
static ipfsrt_status decode_bytes_field(decoding *dc, unsigned field, size_t at,
                                        ipfsrt_unixfs_data *d, ipfsrt_error *err) {
    const uint8_t *p;
    size_t n;
    if (!pb_bytes(dc->buf, dc->len, &dc->pos, &p, &n)) return bad(err, at, "field runs past the end");
    if (field == 8) {
        if (d->has_mtime) return bad(err, at, "duplicate mtime");
        return decode_mtime(p, n, (size_t)(p - dc->buf), d, err);
    }
    if (dc->has_data) return bad(err, at, "duplicate Data");
    dc->has_data = true;
    d->data = p;
    d->data_len = n;
    return IPFSRT_OK;
}

static ipfsrt_status decode_packed_blocksizes(decoding *dc, size_t at, ipfsrt_unixfs_data *d,
                                              ipfsrt_error *err) {
    const uint8_t *p;
    size_t n;
    if (!pb_bytes(dc->buf, dc->len, &dc->pos, &p, &n)) return bad(err, at, "field runs past the end");
    ipfsrt_status st = IPFSRT_OK;
    for (size_t q = 0; q < n && st == IPFSRT_OK;) {
        uint64_t v;
        if (!pb_varint(p, n, &q, &v)) return bad(err, at, "truncated packed blocksizes");
        st = add_blocksize(d, v, &dc->blocksize_cap, err);
    }
    return st;
}

/* Type (1), filesize (3), a blocksize (4), hashType (5), fanout (6), mode (7). */
static ipfsrt_status decode_varint_field(decoding *dc, unsigned field, size_t at,
                                         ipfsrt_unixfs_data *d, ipfsrt_error *err) {
    uint64_t v;
    if (!pb_varint(dc->buf, dc->len, &dc->pos, &v)) return bad(err, at, "truncated value");
    bool dup = false;
    switch (field) {
    case 1:
        dup = dc->has_type;
        dc->has_type = true;
        if (v > IPFSRT_UNIXFS_HAMT_SHARD) return bad(err, at, "unknown node type");
        d->type = (ipfsrt_unixfs_type)v;
        break;
    case 3:
        dup = d->has_filesize;
        d->has_filesize = true;
        d->filesize = v;
        if (v > (uint64_t)INT64_MAX) return bad(err, at, "filesize past 2^63 bytes");
        break;
    case 4: return add_blocksize(d, v, &dc->blocksize_cap, err);
    case 5: dup = d->has_hash_type; d->has_hash_type = true; d->hash_type = v; break;
    case 6: dup = d->has_fanout; d->has_fanout = true; d->fanout = v; break;
    default:
        dup = d->has_mode;
        d->has_mode = true;
        d->mode = (uint32_t)(v & 07777); /* higher bits are reserved */
        break;
    }
    return dup ? bad(err, at, "duplicate field") : IPFSRT_OK;
}

static ipfsrt_status decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *d,
                            ipfsrt_error *err) {
    decoding dc = {.buf = buf, .len = len};
    ipfsrt_status st = IPFSRT_OK;
    while (dc.pos < len && st == IPFSRT_OK) {
        size_t at = dc.pos;
        uint64_t key;
        if (!pb_varint(buf, len, &dc.pos, &key)) return bad(err, at, "truncated field key");
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        if (field == 0 || field > 8) return bad(err, at, "unknown field");
        bool bytes_field = field == 2 || field == 8;
        if (field == 4 && wire == PB_LEN) st = decode_packed_blocksizes(&dc, at, d, err);
        else if (wire != (bytes_field ? PB_LEN : PB_VARINT)) return bad(err, at, "wrong wire type");
        else if (bytes_field) st = decode_bytes_field(&dc, field, at, d, err);
        else st = decode_varint_field(&dc, field, at, d, err);
    }
    if (st == IPFSRT_OK && !dc.has_type) return bad(err, 0, "missing Type");
    return st;
}

ipfsrt_status ipfsrt_unixfs_data_decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *d,
                                        ipfsrt_error *err) {
    IPFSRT_NEED(d, err);
    memset(d, 0, sizeof *d);
    ipfsrt_status st = decode(buf, len, d, err);
    if (st != IPFSRT_OK) ipfsrt_unixfs_data_free(d);
    return st;
}

void ipfsrt_unixfs_data_free(ipfsrt_unixfs_data *d) {
    if (!d) return;
    free(d->blocksizes);
    d->blocksizes = NULL;
    d->blocksize_count = 0;
}

ipfsrt_status ipfsrt_unixfs_data_encode(const ipfsrt_unixfs_data *d, ipfsrt_buf *out,
                                        ipfsrt_error *err) {
    IPFSRT_NEED(d, err);
    IPFSRT_NEED(out, err);
    pb_put_key(out, 1, PB_VARINT);
    pb_put_varint(out, (uint64_t)d->type);
    if (d->data) pb_put_bytes(out, 2, d->data, d->data_len);
    if (d->has_filesize) {
        pb_put_key(out, 3, PB_VARINT);
        pb_put_varint(out, d->filesize);
    }
    for (size_t i = 0; i < d->blocksize_count; i++) {
        pb_put_key(out, 4, PB_VARINT);
        pb_put_varint(out, d->blocksizes[i]);
    }
    if (d->has_hash_type) {
        pb_put_key(out, 5, PB_VARINT);
        pb_put_varint(out, d->hash_type);
    }
    if (d->has_fanout) {
        pb_put_key(out, 6, PB_VARINT);
        pb_put_varint(out, d->fanout);
    }
    if (d->has_mode) {
        pb_put_key(out, 7, PB_VARINT);
        pb_put_varint(out, d->mode);
    }
    if (d->has_mtime) {
        ipfsrt_buf t;
        ipfsrt_buf_init(&t);
        pb_put_key(&t, 1, PB_VARINT);
        pb_put_varint(&t, (uint64_t)d->mtime_seconds);
        if (d->has_mtime_nanos) {
            uint8_t le[4];
            ipfsrt_put_le32(le, d->mtime_nanos);
            pb_put_key(&t, 2, PB_I32);
            ipfsrt_buf_append(&t, le, 4);
        }
        pb_put_bytes(out, 8, t.data, t.len);
        bool failed = t.failed;
        ipfsrt_buf_free(&t);
        if (failed) out->failed = true;
    }
    return out->failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
}
