/* CAR writer: CARv1, or CARv2 with a MultihashIndexSorted index. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipfsrt/varint.h"
#include "car/car_internal.h"
#include "base/base_internal.h"


struct ipfsrt_car_writer {
    char *path;
    int fd;
    ipfsrt_async_writer *out;
    int version;
    uint64_t data_start;
    uint64_t header_end; /* where the first section starts */
    uint64_t pos;        /* bytes written */
    ipfsrt_mhmap written;
    bool finished;
};

static ipfsrt_status write_all(ipfsrt_car_writer *w, const void *p, size_t n, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_async_writer_write(w->out, p, n, err);
    if (st == IPFSRT_OK) w->pos += n;
    return st;
}

/* Overwrites bytes already written (headers), after everything queued is out. */
static ipfsrt_status rewrite_at(ipfsrt_car_writer *w, uint64_t offset, const void *p, size_t n,
                                ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_async_writer_flush(w->out, err);
    if (st == IPFSRT_OK && pwrite(w->fd, p, n, (off_t)offset) != (ssize_t)n)
        st = ipfsrt_fail(err, IPFSRT_EIO, (int64_t)offset, "cannot rewrite the header of %s: %s",
                         w->path, strerror(errno));
    return st;
}

void ipfsrt_car_writer_options_init(ipfsrt_car_writer_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_car_writer_new(ipfsrt_car_writer **out, const char *path, const ipfsrt_car_writer_options *opts,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    ipfsrt_car_writer_options o;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(o, opts, ipfsrt_car_writer_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    int version = o.version ? o.version : 1;
    const ipfsrt_cid *roots = o.roots;
    size_t root_count = o.roots ? o.root_count : 0;
    if (version != 1 && version != 2)
        return ipfsrt_fail(err, IPFSRT_EBAD_CAR_VERSION, -1, "cannot write CAR version %d", version);
    ipfsrt_car_writer *w = calloc(1, sizeof *w);
    if (!w) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    w->version = version;
    ipfsrt_mhmap_init(&w->written);
    w->path = strdup(path);
    if (!w->path) {
        free(w);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        ipfsrt_status st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot create %s: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return st;
    }
    ipfsrt_status ast = ipfsrt_async_writer_new(&w->out, w->fd, path, err);
    if (ast != IPFSRT_OK) {
        close(w->fd);
        w->fd = -1;
        ipfsrt_car_writer_free(w);
        return ast;
    }
    ipfsrt_buf hdr;
    ipfsrt_buf_init(&hdr);
    if (version == 2) {
        /* Placeholder; the real header is written once the sizes are known. */
        uint8_t zero[IPFSRT_CARV2_HEADER_SIZE] = {0};
        ipfsrt_buf_append(&hdr, zero, sizeof zero);
    }
    w->data_start = hdr.len;
    ipfsrt_status st = ipfsrt_car_header_encode(roots, root_count, &hdr, err);
    if (st == IPFSRT_OK) st = write_all(w, hdr.data, hdr.len, err);
    w->header_end = w->pos;
    ipfsrt_buf_free(&hdr);
    if (st != IPFSRT_OK) {
        ipfsrt_car_writer_free(w);
        return st;
    }
    *out = w;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_car_writer_put(ipfsrt_car_writer *w, const ipfsrt_cid *cid,
                                    const uint8_t *data, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    IPFSRT_NEED(cid, err);
    ipfsrt_status st = ipfsrt_cid_verify(cid, data, len, err);
    if (st != IPFSRT_OK) {
        ipfsrt_error_prefix(err, "refusing to write to %s: ", w->path);
        return st;
    }
    return ipfsrt_car_writer_put_made(w, cid, data, len, err);
}

ipfsrt_status ipfsrt_car_writer_put_made(ipfsrt_car_writer *w, const ipfsrt_cid *cid,
                                         const uint8_t *data, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    IPFSRT_NEED(cid, err);
    if (w->finished) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is already finished", w->path);
    ipfsrt_status st;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    if (ipfsrt_mhmap_get(&w->written, mh, mh_len)) return IPFSRT_OK;
    if (len > UINT64_MAX - cid->len - IPFSRT_VARINT_MAX_BYTES)
        return ipfsrt_fail_cid(err, IPFSRT_ETOO_LARGE, cid, -1, "block too large");
    uint8_t prefix[IPFSRT_CAR_SECTION_PREFIX_MAX];
    size_t prefix_len = ipfsrt_car_section_prefix(cid, len, prefix);
    uint64_t section_offset = w->pos - w->data_start;
    st = ipfsrt_mhmap_put(&w->written, mh, mh_len, section_offset, 0, NULL);
    if (st != IPFSRT_OK) return ipfsrt_fail(err, st, -1, "out of memory");
    st = write_all(w, prefix, prefix_len, err);
    if (st == IPFSRT_OK) st = write_all(w, data, len, err);
    return st;
}

ipfsrt_status ipfsrt_car_writer_set_roots(ipfsrt_car_writer *w, const ipfsrt_cid *roots,
                                          size_t root_count, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    IPFSRT_NEED_N(roots, root_count, err);
    if (w->finished) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s is already finished", w->path);
    ipfsrt_buf hdr;
    ipfsrt_buf_init(&hdr);
    ipfsrt_status st = ipfsrt_car_header_encode(roots, root_count, &hdr, err);
    if (st == IPFSRT_OK && w->data_start + hdr.len != w->header_end)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1,
                         "new roots of %s do not encode to the placeholder's length", w->path);
    if (st == IPFSRT_OK) st = rewrite_at(w, w->data_start, hdr.data, hdr.len, err);
    ipfsrt_buf_free(&hdr);
    return st;
}

ipfsrt_status ipfsrt_car_writer_finish(ipfsrt_car_writer *w, ipfsrt_error *err) {
    IPFSRT_NEED(w, err);
    if (w->finished) return IPFSRT_OK;
    ipfsrt_status st = IPFSRT_OK;
    if (w->version == 2) {
        uint64_t data_size = w->pos - w->data_start;
        uint64_t index_offset = w->pos;
        ipfsrt_buf index;
        ipfsrt_buf_init(&index);
        st = ipfsrt_car_index_build(&w->written, &index, err);
        if (st == IPFSRT_OK) st = write_all(w, index.data, index.len, err);
        ipfsrt_buf_free(&index);
        uint8_t hdr[IPFSRT_CARV2_HEADER_SIZE] = {0};
        memcpy(hdr, ipfsrt_carv2_pragma, sizeof ipfsrt_carv2_pragma);
        hdr[11] = 0x80; /* fully indexed: identity blocks are in the index too */
        ipfsrt_put_le64(hdr + 27, w->data_start);
        ipfsrt_put_le64(hdr + 35, data_size);
        ipfsrt_put_le64(hdr + 43, index_offset);
        if (st == IPFSRT_OK) st = rewrite_at(w, 0, hdr, sizeof hdr, err);
    }
    if (st == IPFSRT_OK) st = ipfsrt_async_writer_flush(w->out, err);
    ipfsrt_async_writer_free(w->out);
    w->out = NULL;
    if (close(w->fd) != 0 && st == IPFSRT_OK)
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "write error closing %s", w->path);
    w->fd = -1;
    if (st == IPFSRT_OK) w->finished = true;
    return st;
}

void ipfsrt_car_writer_free(ipfsrt_car_writer *w) {
    if (!w) return;
    ipfsrt_async_writer_free(w->out);
    if (w->fd >= 0) close(w->fd);
    if (!w->finished) remove(w->path);
    ipfsrt_mhmap_free(&w->written);
    free(w->path);
    free(w);
}
