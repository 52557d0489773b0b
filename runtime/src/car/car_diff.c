/* The blocks of one CAR that another lacks, as a CAR of their own: a new
 * version's delta. The old CAR is looked up through its index; the new one is
 * read as a stream, every block verified, so memory holds the old index and
 * the CIDs written, never a whole file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "ipfsrt/car.h"

#define DIFF_PIECE (256u << 10)

typedef struct differ {
    ipfsrt_car_file *old;
    ipfsrt_car_reader *reader;
    ipfsrt_car_writer *out;
    const char *partial;
    ipfsrt_car_diff_stats counts;
} differ;

/* The writer is made at the first block (or at the end), once the new CAR's
 * header, whose roots the delta keeps, has been read. */
static ipfsrt_status open_out(differ *d, ipfsrt_error *err) {
    if (d->out) return IPFSRT_OK;
    const ipfsrt_car_header *h = ipfsrt_car_reader_header(d->reader);
    ipfsrt_car_writer_options wo = {.size = sizeof wo, .version = 1, .roots = h->roots, .root_count = h->root_count};
    return ipfsrt_car_writer_new(&d->out, d->partial, &wo, err);
}

static ipfsrt_status on_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    differ *d = user;
    if (ipfsrt_car_file_has(d->old, &b->cid)) {
        d->counts.shared_blocks++;
        d->counts.shared_bytes += b->len;
        return IPFSRT_OK;
    }
    ipfsrt_status st = open_out(d, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_put_made(d->out, &b->cid, b->data, b->len, err); /* verified as read */
    if (st == IPFSRT_OK) {
        d->counts.new_blocks++;
        d->counts.new_bytes += b->len;
    }
    return st;
}

static ipfsrt_status feed_file(differ *d, const char *path, ipfsrt_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open %s: %s", path, strerror(errno));
    uint8_t *piece = malloc(DIFF_PIECE);
    ipfsrt_status st = piece ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    while (st == IPFSRT_OK) {
        ssize_t n = read(fd, piece, DIFF_PIECE);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) st = ipfsrt_fail(err, IPFSRT_EIO, -1, "read error in %s: %s", path, strerror(errno));
        if (n <= 0) break;
        st = ipfsrt_car_reader_feed(d->reader, piece, (size_t)n, err);
    }
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_finish(d->reader, err);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: ", path);
    free(piece);
    close(fd);
    return st;
}

ipfsrt_status ipfsrt_car_diff(const char *old_path, const char *new_path, const char *out_path,
                              ipfsrt_car_diff_stats *stats, ipfsrt_error *err) {
    IPFSRT_NEED(old_path, err);
    IPFSRT_NEED(new_path, err);
    IPFSRT_NEED(out_path, err);
    if (stats && stats->size == 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "car diff: stats without their size (IPFSRT_CAR_DIFF_STATS_INIT)");
    differ d = {.counts = {.size = sizeof d.counts}};
    size_t n = strlen(out_path) + sizeof ".partial";
    char *partial = malloc(n);
    if (!partial) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(partial, n, "%s.partial", out_path);
    d.partial = partial;
    ipfsrt_status st = ipfsrt_car_file_new(&d.old, old_path, NULL, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_reader_new(&d.reader, NULL, on_block, &d, err);
    if (st == IPFSRT_OK) st = feed_file(&d, new_path, err);
    if (st == IPFSRT_OK) st = open_out(&d, err);
    if (st == IPFSRT_OK) st = ipfsrt_car_writer_finish(d.out, err);
    ipfsrt_car_writer_free(d.out); /* an unfinished file is removed */
    if (st == IPFSRT_OK && rename(partial, out_path) != 0) {
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot name %s: %s", out_path, strerror(errno));
        remove(partial);
    }
    if (st == IPFSRT_OK && stats) ipfsrt_stats_hand_over(stats, &d.counts, sizeof d.counts);
    ipfsrt_car_reader_free(d.reader);
    ipfsrt_car_file_free(d.old);
    free(partial);
    return st;
}
