/* The UnixFS Data protobuf carried in PBNode.Data. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"
#include "ipld/protobuf.h"

static const char *const type_names[] = {"raw", "directory", "file", "metadata", "symlink",
                                         "hamt-shard"};

const char *ipfsrt_unixfs_type_name(ipfsrt_unixfs_type type) {
    return (unsigned)type < sizeof type_names / sizeof type_names[0] ? type_names[type]
                                                                       : "unknown";
}

static ipfsrt_status bad(ipfsrt_error *err, size_t at, const char *what) {
    return ipfsrt_fail(err, IPFSRT_EUNIXFS, (int64_t)at, "UnixFS data: %s at byte offset %zu",
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
    if (d->blocksize_count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        uint64_t *p = realloc(d->blocksizes, ncap * sizeof *p);
        if (!p) return ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory");
        d->blocksizes = p;
        *cap = ncap;
    }
    d->blocksizes[d->blocksize_count++] = v;
    return IPFSRT_OK;
}

static ipfsrt_status decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *d,
                            ipfsrt_error *err) {
    size_t pos = 0, cap = 0;
    bool has_type = false, has_data = false;
    while (pos < len) {
        size_t at = pos;
        uint64_t key, v;
        if (!pb_varint(buf, len, &pos, &key)) return bad(err, at, "truncated field key");
        unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
        const uint8_t *p;
        size_t n;
        switch (field) {
        case 2:
        case 8:
            if (wire != PB_LEN) return bad(err, at, "wrong wire type");
            if (!pb_bytes(buf, len, &pos, &p, &n)) return bad(err, at, "field runs past the end");
            if (field == 2) {
                if (has_data) return bad(err, at, "duplicate Data");
                has_data = true;
                d->data = p;
                d->data_len = n;
            } else {
                if (d->has_mtime) return bad(err, at, "duplicate mtime");
                ipfsrt_status st = decode_mtime(p, n, (size_t)(p - buf), d, err);
                if (st != IPFSRT_OK) return st;
            }
            break;
        case 4:
            if (wire == PB_LEN) { /* packed blocksizes */
                if (!pb_bytes(buf, len, &pos, &p, &n)) return bad(err, at, "field runs past the end");
                for (size_t q = 0; q < n;) {
                    if (!pb_varint(p, n, &q, &v)) return bad(err, at, "truncated packed blocksizes");
                    ipfsrt_status st = add_blocksize(d, v, &cap, err);
                    if (st != IPFSRT_OK) return st;
                }
                break;
            }
            /* fallthrough */
        case 1: case 3: case 5: case 6: case 7: {
            if (wire != PB_VARINT) return bad(err, at, "wrong wire type");
            if (!pb_varint(buf, len, &pos, &v)) return bad(err, at, "truncated value");
            bool dup = false;
            switch (field) {
            case 1:
                dup = has_type;
                has_type = true;
                if (v > IPFSRT_UNIXFS_HAMT_SHARD) return bad(err, at, "unknown node type");
                d->type = (ipfsrt_unixfs_type)v;
                break;
            case 3: dup = d->has_filesize; d->has_filesize = true; d->filesize = v; break;
            case 4: {
                ipfsrt_status st = add_blocksize(d, v, &cap, err);
                if (st != IPFSRT_OK) return st;
                break;
            }
            case 5: dup = d->has_hash_type; d->has_hash_type = true; d->hash_type = v; break;
            case 6: dup = d->has_fanout; d->has_fanout = true; d->fanout = v; break;
            default:
                dup = d->has_mode;
                d->has_mode = true;
                d->mode = (uint32_t)(v & 07777); /* higher bits are reserved */
                break;
            }
            if (dup) return bad(err, at, "duplicate field");
            break;
        }
        default: return bad(err, at, "unknown field");
        }
    }
    if (!has_type) return bad(err, 0, "missing Type");
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_unixfs_data_decode(const uint8_t *buf, size_t len, ipfsrt_unixfs_data *d,
                                        ipfsrt_error *err) {
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
    return out->failed ? ipfsrt_fail(err, IPFSRT_ENOMEM, -1, "out of memory") : IPFSRT_OK;
}
