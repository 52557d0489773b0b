/* File bytes for a gateway in front of an upstream: read piece by piece as
 * the answer goes out, so the first byte leaves with the first verified leaf
 * and a large file is never held whole. The status line has gone out by then:
 * a failure mid-body ends the connection short of its Content-Length, which
 * every HTTP client reports as an error, never as a complete file. */
#include <stdlib.h>
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "server/http_parse.h"
#include "server/server_internal.h"

#define PIECE (256 * 1024)
/* Bytes of a file asked for in one CAR request: the whole of a Zarr chunk, a
 * window of a large file ahead of the answer going out. */
#define SPAN ((uint64_t)4 << 20)

static ipfsrt_status held_block(void *user, const ipfsrt_cid *cid, ipfsrt_error *err) {
    (void)user, (void)cid, (void)err;
    return IPFSRT_OK;
}

static bool in_own_cars(ipfsrt_server *gw, const char *path, ipfsrt_unixfs_scope scope, uint64_t offset,
                        uint64_t length) {
    ipfsrt_unixfs_options walk = {.size = sizeof walk, .scope = scope, .offset = offset, .length = length};
    return gw->ncars && ipfsrt_unixfs_blocks_for(&gw->held, path, &walk, held_block, NULL, NULL) == IPFSRT_OK;
}

/* Upstream is asked only when what the CARs and the relay hold comes short: a
 * second read of a chunk, or a file in the gateway's own CARs, costs no request
 * (without CARs, the relay's own check of what it holds is the whole check). */
void ipfsrt_server_prefetch(ipfsrt_server_request *rq, const char *path, ipfsrt_unixfs_scope scope,
                            uint64_t offset, uint64_t length) {
    ipfsrt_server *gw = rq->gw;
    if (gw->relay && !in_own_cars(gw, path, scope, offset, length))
        (void)ipfsrt_client_relay_prefetch(gw->relay, path, scope, offset, length, NULL);
}

/* The blocks held, remembering the last one lacking. */
typedef struct noting {
    ipfsrt_blocksource at_hand;
    ipfsrt_cid lacked;
    bool lacking;
} noting;

static ipfsrt_status noting_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref, ipfsrt_error *err) {
    noting *n = ctx;
    ipfsrt_status st = ipfsrt_blocksource_get(&n->at_hand, cid, ref, err);
    if (st == IPFSRT_ENOT_FOUND) {
        n->lacked = *cid;
        n->lacking = true;
    }
    return st;
}

static void noting_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    noting *n = ctx;
    ipfsrt_blocksource_release(&n->at_hand, ref);
}

/* A path whose directories the relay holds needs no CAR for them: a file
 * of one raw block is then fetched by CID (the cheapest request a gateway
 * answers: a walk meets a raw block only at the path's end), a larger one's
 * range in one CAR request for the file alone. */
static bool prefetch_known_file(ipfsrt_server_request *rq, const char *path, uint64_t start, uint64_t length) {
    noting n = {.at_hand = rq->gw->held, .lacking = false};
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &n, noting_get, noting_release};
    ipfsrt_unixfs_node_info info;
    ipfsrt_status st = ipfsrt_unixfs_resolve(&src, path, NULL, &info, NULL);
    if (st != IPFSRT_OK) return st == IPFSRT_ENOT_FOUND && n.lacking && n.lacked.codec == IPFSRT_CODEC_RAW;
    if (info.cid.codec == IPFSRT_CODEC_RAW || info.type != IPFSRT_UNIXFS_FILE) return true;
    char file[IPFSRT_CID_STR_MAX];
    ipfsrt_server_prefetch(rq, ipfsrt_cid_to_string(&info.cid, file), IPFSRT_SCOPE_ENTITY, start, length);
    return true;
}

#define MISSED_DIRS_MAX 4096 /* forgotten all at once past this: a client cannot grow it */

/* True from the second time a path missed in dir: a directory that several
 * paths go through (a Zarr array's chunks under a HAMT) is then worth asking
 * for whole. */
static bool missed_again(ipfsrt_server *gw, const char *dir, size_t len) {
    pthread_mutex_lock(&gw->dirs_lock);
    if (gw->missed_dirs.count >= MISSED_DIRS_MAX) {
        ipfsrt_mhmap_free(&gw->missed_dirs);
        ipfsrt_mhmap_init(&gw->missed_dirs);
    }
    ipfsrt_mhmap_entry *e;
    bool inserted, again = false;
    if (ipfsrt_mhmap_slot(&gw->missed_dirs, (const uint8_t *)dir, len, &e, &inserted) == IPFSRT_OK)
        again = ++e->offset >= 2;
    pthread_mutex_unlock(&gw->dirs_lock);
    return again;
}

/* Nearer than this, a walk missing its directory waits for the directory and
 * then asks for the file alone: a CAR of its own path (the directory's shards
 * on the way again, checked again) would cost the upstream and this gateway
 * more than the wait. Farther, its own path's CAR saves a round trip. */
#define NEAR_S 0.002

/* From the second time a path missed in its directory, the directory is asked
 * for whole, every shard, in one request, so that the paths after resolve
 * with one request for the file alone. True when that was waited for (the
 * upstream is near): the path may be at hand now. */
static bool prefetch_parent(ipfsrt_server_request *rq, const char *path) {
    ipfsrt_server *gw = rq->gw;
    const char *slash = strrchr(path, '/');
    if (!gw->relay || !slash || slash == path || !missed_again(gw, path, (size_t)(slash - path))) return false;
    double round_trip = ipfsrt_client_relay_round_trip(gw->relay);
    bool near = round_trip > 0 && round_trip < NEAR_S;
    char *dir = strndup(path, (size_t)(slash - path));
    if (!dir) return false;
    if (near) ipfsrt_server_prefetch(rq, dir, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX);
    else if (!in_own_cars(gw, dir, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX))
        (void)ipfsrt_client_relay_prefetch_nowait(gw->relay, dir, IPFSRT_SCOPE_ENTITY, 0, UINT64_MAX, NULL);
    free(dir);
    return near;
}

/* How a path that lacks a block held is asked for: by its Range header. */
static void prefetch_range(ipfsrt_server_request *rq, const char *path, const char *range) {
    uint64_t start = 0, length = SPAN;
    /* the file's size is not known yet: a suffix range cannot be placed */
    if (range && strstr(range, "=-")) {
        ipfsrt_server_prefetch(rq, path, IPFSRT_SCOPE_BLOCK, 0, 0);
        return;
    }
    if (range && ipfsrt_http_range_parse(range, UINT64_MAX, &start, &length) != IPFSRT_HTTP_RANGE_OK) {
        start = 0;
        length = SPAN;
    }
    if (length > SPAN) length = SPAN;
    if (prefetch_known_file(rq, path, start, length)) return;
    if (prefetch_parent(rq, path) && prefetch_known_file(rq, path, start, length)) return;
    ipfsrt_server_prefetch(rq, path, IPFSRT_SCOPE_ENTITY, start, length);
}

/* The walk of a plain answer's path: the blocks held are taken at once; the
 * first non-raw block lacking (a directory, a file's root) has the path asked
 * for in one request by prefetch_range, and a raw one (a file of one block: a
 * walk meets raw blocks only at the path's end) is fetched by CID, the
 * cheapest request a gateway answers. So a path whose directories are held
 * costs one walk and one upstream request. */
typedef struct deciding {
    ipfsrt_server_request *rq;
    const char *path, *range;
    bool decided;
} deciding;

static ipfsrt_status deciding_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                                  ipfsrt_error *err) {
    deciding *d = ctx;
    ipfsrt_server *gw = d->rq->gw;
    if (!d->decided) {
        if (ipfsrt_blocksource_get(&gw->held, cid, ref, NULL) == IPFSRT_OK) return IPFSRT_OK;
        if (cid->codec != IPFSRT_CODEC_RAW) {
            d->decided = true; /* one request's worth of asking: the rest of the walk takes what came */
            prefetch_range(d->rq, d->path, d->range);
        }
    }
    return ipfsrt_blocksource_get(&gw->src, cid, ref, err);
}

static void deciding_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    deciding *d = ctx;
    ipfsrt_blocksource_release(&d->rq->gw->src, ref);
}

ipfsrt_status ipfsrt_server_resolve(ipfsrt_server_request *rq, const char *path, const char *range,
                                    const ipfsrt_unixfs_options *opts, ipfsrt_unixfs_node_info *info,
                                    ipfsrt_error *err) {
    if (!rq->gw->relay) return ipfsrt_unixfs_resolve(&rq->gw->src, path, opts, info, err);
    deciding d = {rq, path, range, false};
    ipfsrt_blocksource src = {sizeof(ipfsrt_blocksource), &d, deciding_get, deciding_release};
    return ipfsrt_unixfs_resolve(&src, path, opts, info, err);
}

/* Pieces after the first are read on a worker while the connection is
 * parked (libmicrohttpd's event threads never wait for upstream); the
 * worker wakes it with the piece. */
typedef struct stream_body {
    ipfsrt_server_request *rq; /* gone before the body is freed: the free must not touch it */
    ipfsrt_server *gw;
    ipfsrt_cid file;
    uint64_t start, length;
    uint64_t asked_to; /* the file's bytes before this were prefetched */
    uint8_t *first;    /* the first piece, read before the status went out */
    size_t first_len;
    pthread_mutex_t lock;
    uint8_t *piece;    /* the last piece read, PIECE bytes of room */
    uint64_t piece_pos, reading_pos;
    size_t piece_len;
    bool reading, parked, failed;
    char why[200];
    ipfsrt_server_waiter waiter;
} stream_body;

static void stream_body_free(void *cls) {
    stream_body *s = cls;
    ipfsrt_server_waiter_remove(s->gw, &s->waiter);
    pthread_mutex_destroy(&s->lock);
    free(s->piece);
    free(s->first);
    free(s);
}

/* A window ahead of pos, asked for in one request when the answer reaches it. */
static void prefetch_ahead(stream_body *s, uint64_t pos) {
    if (s->start + pos < s->asked_to) return;
    char path[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&s->file, path);
    uint64_t left = s->length - pos;
    ipfsrt_server_prefetch(s->rq, path, IPFSRT_SCOPE_ENTITY, s->start + pos, left < SPAN ? left : SPAN);
    s->asked_to = s->start + pos + SPAN;
}

typedef struct piece {
    uint8_t *out;
    size_t len;
} piece;

static ipfsrt_status fill_piece(void *user, const uint8_t *data, size_t len, ipfsrt_error *err) {
    piece *p = user;
    (void)err;
    memcpy(p->out + p->len, data, len); /* the read was asked for no more than fits */
    p->len += len;
    return IPFSRT_OK;
}

/* Bytes [pos, pos + want) of the answer into out; each piece walks down from
 * the file's root, whose nodes the relay keeps. */
static ipfsrt_status read_piece(stream_body *s, uint64_t pos, uint8_t *out, size_t want, ipfsrt_error *err) {
    piece p = {out, 0};
    prefetch_ahead(s, pos);
    ipfsrt_status st = ipfsrt_unixfs_read(&s->rq->gw->src, &s->file, s->start + pos, want, fill_piece, &p, err);
    if (st == IPFSRT_OK && p.len != want)
        st = ipfsrt_fail_cid(err, IPFSRT_EBAD_UNIXFS, &s->file, -1, "the file is shorter than its root says");
    return st;
}

/* On a worker: the piece at reading_pos, then the parked connection woken. */
static void read_ahead(void *arg) {
    stream_body *s = arg;
    size_t want = s->length - s->reading_pos < PIECE ? (size_t)(s->length - s->reading_pos) : PIECE;
    ipfsrt_error err;
    ipfsrt_status st = read_piece(s, s->reading_pos, s->piece, want, &err);
    pthread_mutex_lock(&s->lock);
    if (st == IPFSRT_OK) {
        s->piece_pos = s->reading_pos;
        s->piece_len = want;
    } else {
        s->failed = true;
        snprintf(s->why, sizeof s->why, "%.190s", err.message);
    }
    s->reading = false;
    bool wake = s->parked;
    s->parked = false;
    pthread_mutex_unlock(&s->lock);
    if (wake) ipfsrt_server_waiter_wake(s->gw, &s->waiter);
}

/* Bytes at pos from the piece read ahead: how many (0: none yet; the piece
 * is asked for, and the connection parked until it comes; -1: failed). */
static ssize_t from_piece(stream_body *s, uint64_t pos, uint8_t *buf, size_t want) {
    ssize_t got = 0;
    pthread_mutex_lock(&s->lock);
    if (s->piece_len && pos >= s->piece_pos && pos < s->piece_pos + s->piece_len) {
        size_t n = s->piece_pos + s->piece_len - pos < want ? (size_t)(s->piece_pos + s->piece_len - pos) : want;
        memcpy(buf, s->piece + (pos - s->piece_pos), n);
        got = (ssize_t)n;
    } else if (s->failed) {
        got = -1;
    } else {
        if (!s->reading) {
            s->reading = true;
            s->reading_pos = pos;
            if (!ipfsrt_server_spawn(s->gw, read_ahead, s)) {
                s->reading = false;
                s->failed = true;
                snprintf(s->why, sizeof s->why, "no worker thread to read with, or the gateway is stopping");
            }
        }
        if (s->failed) got = -1;
        else if (!(s->parked = ipfsrt_server_waiter_park(s->gw, &s->waiter))) {
            got = -1; /* stopping: the worker, if any, finishes before the daemon stops */
            snprintf(s->why, sizeof s->why, "the gateway is stopping");
        }
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    stream_body *s = cls;
    if (pos >= s->length) return MHD_CONTENT_READER_END_OF_STREAM;
    size_t want = s->length - pos < max ? (size_t)(s->length - pos) : max;
    if (pos < s->first_len) {
        if (want > s->first_len - pos) want = s->first_len - (size_t)pos;
        memcpy(buf, s->first + pos, want);
    } else {
        ssize_t got = from_piece(s, pos, (uint8_t *)buf, want);
        if (got == 0) return 0; /* called again once the piece has come */
        if (got < 0) {
            snprintf(s->rq->cut, sizeof s->rq->cut, "cut at byte %llu: %.200s", (unsigned long long)pos, s->why);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        want = (size_t)got;
    }
    ipfsrt_server_count_sent(s->rq, want);
    return (ssize_t)want;
}

/* A block lent to an answer until it has gone out. */
typedef struct lent_body {
    ipfsrt_server *gw;
    ipfsrt_blocksource_ref ref;
} lent_body;

static void lent_body_free(void *cls) {
    lent_body *l = cls;
    ipfsrt_blocksource_release(&l->gw->src, &l->ref);
    free(l);
}

/* A file of one raw block (a Zarr chunk, mostly) is answered from the block
 * itself, held until sent: no copy, no buffer of the answer's own. */
static enum MHD_Result lent_file(ipfsrt_server_request *rq, struct MHD_Connection *c, const ipfsrt_cid *file,
                                 uint64_t start, uint64_t len, struct MHD_Response **r) {
    lent_body *l = malloc(sizeof *l);
    if (!l) return MHD_NO;
    l->gw = rq->gw;
    ipfsrt_error err;
    if (ipfsrt_blocksource_get(&rq->gw->src, file, &l->ref, &err) != IPFSRT_OK) {
        free(l);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    if (start > l->ref.len || len > l->ref.len - start) { /* the walk measured this block: never */
        lent_body_free(l);
        return MHD_NO;
    }
    rq->json_body = start == 0 && len == l->ref.len && ipfsrt_http_is_json(l->ref.data, len);
    *r = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)(l->ref.data + start), lent_body_free, l);
    if (!*r) {
        lent_body_free(l);
        return MHD_NO;
    }
    if (strcmp(rq->method, "HEAD") != 0) ipfsrt_server_count_sent(rq, len);
    return MHD_YES;
}

/* The first piece is read before the answer starts, so that an upstream that
 * gives nothing of the file is a 502 (or 504), not a 200 cut at once. */
enum MHD_Result ipfsrt_server_stream_file(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                          const ipfsrt_cid *file, uint64_t start, uint64_t len,
                                          struct MHD_Response **r) {
    if (file->codec == IPFSRT_CODEC_RAW) return lent_file(rq, c, file, start, len, r);
    stream_body *s = calloc(1, sizeof *s);
    if (!s) return MHD_NO;
    /* the first window: asked for unless held */
    *s = (stream_body){.rq = rq, .gw = rq->gw, .file = *file, .start = start, .length = len, .asked_to = start};
    pthread_mutex_init(&s->lock, NULL);
    ipfsrt_server_waiter_add(rq->gw, &s->waiter, c); /* not parked yet: listed, so freed alike */
    s->first_len = len < PIECE ? (size_t)len : PIECE;
    ipfsrt_error err;
    ipfsrt_status st = (s->first = malloc(s->first_len ? s->first_len : 1))
                           ? read_piece(s, 0, s->first, s->first_len, &err)
                           : ipfsrt_fail(&err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st != IPFSRT_OK) {
        stream_body_free(s);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    if (s->first_len == len) { /* all of it read (a Zarr chunk): handed over, no second buffer */
        *r = MHD_create_response_from_buffer_with_free_callback(len, s->first, free);
        if (*r && strcmp(rq->method, "HEAD") != 0) ipfsrt_server_count_sent(rq, len);
        s->first = *r ? NULL : s->first;
    } else if ((s->piece = malloc(PIECE)) &&
               (*r = MHD_create_response_from_callback(len, PIECE, stream_read, s, stream_body_free))) {
        s = NULL;
    }
    if (s) stream_body_free(s);
    return *r ? MHD_YES : MHD_NO;
}
