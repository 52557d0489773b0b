/* The local gateway's lifecycle: CARs verified and indexed, the daemon started
 * and stopped. */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "server/http_parse.h"
#include "server/server_internal.h"

/* Which of the CARs holds cid, or NULL. */
static const ipfsrt_mhmap_entry *car_holding(const ipfsrt_server *gw, const ipfsrt_cid *cid) {
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(cid, &mh_len);
    return ipfsrt_mhmap_get(&gw->index, mh, mh_len);
}

/* The CARs were verified whole when opened, so lookups skip the hash; what
 * they lack comes from upstream, which verifies it. */
static ipfsrt_status multi_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                               ipfsrt_error *err) {
    ipfsrt_server *gw = ctx;
    const ipfsrt_mhmap_entry *e = car_holding(gw, cid);
    if (e) return ipfsrt_car_file_get_unverified(gw->cars[e->offset], cid, &ref->data, &ref->len, err);
    if (gw->has_upstream) return ipfsrt_blocksource_get(&gw->upstream, cid, ref, err);
    return ipfsrt_fail_cid(err, IPFSRT_ENOT_FOUND, cid, -1, "not in any of the gateway's CARs");
}

/* What the CARs and the relay hold now: nothing is asked upstream. */
static ipfsrt_status held_get(void *ctx, const ipfsrt_cid *cid, ipfsrt_blocksource_ref *ref,
                              ipfsrt_error *err) {
    ipfsrt_server *gw = ctx;
    const ipfsrt_mhmap_entry *e = car_holding(gw, cid);
    if (e) return ipfsrt_car_file_get_unverified(gw->cars[e->offset], cid, &ref->data, &ref->len, err);
    return ipfsrt_blocksource_get(&gw->at_hand, cid, ref, err);
}

/* Only upstream's blocks carry a token: the CARs' stay mapped. */
static void multi_release(void *ctx, ipfsrt_blocksource_ref *ref) {
    ipfsrt_server *gw = ctx;
    ipfsrt_blocksource_release(&gw->upstream, ref);
}

typedef struct indexing {
    ipfsrt_server *gw;
    size_t car;
} indexing;

/* Called for each verified block while a CAR is checked at start. */
static ipfsrt_status index_block(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    indexing *ix = user;
    size_t mh_len;
    const uint8_t *mh = ipfsrt_cid_multihash(&b->cid, &mh_len);
    if (ipfsrt_mhmap_put(&ix->gw->index, mh, mh_len, ix->car, 0, NULL) != IPFSRT_OK) /* first CAR wins */
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory indexing blocks");
    return IPFSRT_OK;
}

/* Verifies each CAR whole and merges its blocks into one index. */
static ipfsrt_status open_cars(ipfsrt_server *gw, const char *const *paths, size_t n,
                               ipfsrt_error *err) {
    gw->cars = calloc(n, sizeof *gw->cars);
    if (!gw->cars) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ipfsrt_car_options verify_opts = {.size = sizeof verify_opts, .verify_only = true, .slice_size = 1 << 20};
        indexing ix = {gw, i};
        ipfsrt_status st = ipfsrt_car_verify_file(paths[i], &verify_opts, index_block, &ix, NULL, err);
        if (st == IPFSRT_OK) st = ipfsrt_car_file_new(&gw->cars[i], paths[i], NULL, err);
        if (st != IPFSRT_OK) return st;
        gw->ncars++;
    }
    return IPFSRT_OK;
}

static const char decoy_bytes[] = "ipfsrt serve: the valid block of another DAG that wrong-dag sends";

/* Two valid blocks to hand out in place of others, for wrong-block. */
static void pick_spares(ipfsrt_server *gw) {
    uint64_t cursor = 0;
    for (int k = 0; k < 2;) {
        ipfsrt_car_block b;
        bool done;
        if (ipfsrt_car_file_next(gw->cars[0], &cursor, &b, &done, NULL) != IPFSRT_OK || done) break;
        if (b.cid.hash_code == IPFSRT_MH_IDENTITY) continue;
        gw->spares[k++] = (ipfsrt_server_spare){b.cid, b.data, b.len};
    }
    gw->decoy.data = (const uint8_t *)decoy_bytes;
    gw->decoy.len = sizeof decoy_bytes - 1;
    (void)ipfsrt_cid_sum(&gw->decoy.cid, 1, IPFSRT_CODEC_RAW, IPFSRT_MH_SHA2_256, gw->decoy.data,
                         gw->decoy.len, NULL);
}

/* libmicrohttpd says only that it failed: binding the address once more
 * ourselves tells why (in use, not ours to use, ...). */
static const char *why_not_listening(const struct sockaddr_storage *ss) {
    int fd = socket(ss->ss_family, SOCK_STREAM, 0);
    if (fd < 0) return strerror(errno);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    const char *why = bind(fd, (const struct sockaddr *)ss, len) != 0 ? strerror(errno)
                                                                      : "the HTTP server did not start";
    close(fd);
    return why;
}

/* A PEM file's text (for libmicrohttpd, which takes keys and certificates in memory). */
static ipfsrt_status read_pem(const char *path, char **out, ipfsrt_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot read %s: %s", path, strerror(errno));
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    char chunk[4096];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1 << 20);) ipfsrt_buf_append(&b, chunk, n);
    fclose(f);
    ipfsrt_buf_append(&b, "", 1);
    if (b.failed || b.len > (1 << 20)) {
        ipfsrt_buf_free(&b);
        return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: not a PEM file of a sane size", path);
    }
    *out = (char *)b.data;
    return IPFSRT_OK;
}

static ipfsrt_status start_daemon(ipfsrt_server *gw, const char *listen, unsigned threads,
                                  ipfsrt_error *err) {
    struct sockaddr_storage ss;
    ipfsrt_status st = ipfsrt_http_listen_parse(listen, &ss, err);
    if (st != IPFSRT_OK) return st;
    /* Library threads take no signals: they stay with the host's own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* A pool of event threads: work that waits on upstream blocks runs on
     * workers with its connection suspended (suspend.c), so that a waiting
     * or slow client holds no thread. */
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (gw->tls_cert ? MHD_USE_TLS : 0);
    /* a client past the limit would have its connection closed unanswered:
     * the limit is high (a browser or zarrita asks for hundreds of chunks at
     * once) */
    struct MHD_OptionItem threading[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, threads, NULL},
        {gw->has_upstream ? MHD_OPTION_CONNECTION_LIMIT : MHD_OPTION_END, gw->max_connections, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem limits[] = {
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, gw->per_address, NULL},
        {gw->watch ? MHD_OPTION_NOTIFY_CONNECTION : MHD_OPTION_END, (intptr_t)ipfsrt_server_watch_notify, gw->watch},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem tls[] = {
        {gw->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, gw->tls_cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, gw->tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    gw->daemon = MHD_start_daemon(flags, 0, NULL, NULL, ipfsrt_server_handle, gw,
                                  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                  MHD_OPTION_ARRAY, threading,
                                  MHD_OPTION_ARRAY, limits,
                                  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                                  MHD_OPTION_NOTIFY_COMPLETED, ipfsrt_server_completed, gw,
                                  MHD_OPTION_URI_LOG_CALLBACK, ipfsrt_server_uri_seen, gw,
                                  MHD_OPTION_ARRAY, tls,
                                  MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!gw->daemon)
        return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot listen on %s: %s", listen, why_not_listening(&ss));
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(gw->daemon, MHD_DAEMON_INFO_BIND_PORT);
    char host[64];
    if (ss.ss_family == AF_INET6) {
        char a[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof a);
        snprintf(host, sizeof host, "[%s]", a);
    } else {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    }
    snprintf(gw->url, sizeof gw->url, "%s://%s:%u", gw->tls_cert ? "https" : "http", host,
             info ? (unsigned)info->port : 0);
    return IPFSRT_OK;
}

void ipfsrt_server_options_init(ipfsrt_server_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_server_new(ipfsrt_server **out, const ipfsrt_server_options *opts, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    *out = NULL;
    ipfsrt_server_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_server_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    opts = &mine;
    const char *const *paths = opts->cars;
    size_t n = paths ? opts->n_cars : 0;
    if (n == 0 && !opts->upstream)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a gateway needs a CAR file or an upstream");
    ipfsrt_server_faults none = {0};
    if (opts->upstream && memcmp(&opts->faults, &none, sizeof none) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "faults are injected into local CARs' answers only, "
                                                 "not in front of an upstream");
    ipfsrt_server *gw = calloc(1, sizeof *gw);
    if (!gw) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_mhmap_init(&gw->index);
    pthread_mutex_init(&gw->log_lock, NULL);
    pthread_mutex_init(&gw->dirs_lock, NULL);
    pthread_mutex_init(&gw->names_lock, NULL);
    pthread_mutex_init(&gw->wait_lock, NULL);
    pthread_cond_init(&gw->jobs_over, NULL);
    ipfsrt_mhmap_init(&gw->missed_dirs);
    gw->faults = opts->faults;
    gw->src = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), gw, multi_get, multi_release};
    if (opts->upstream) {
        gw->relay = opts->upstream;
        ipfsrt_client_relay_blocksource(gw->relay, &gw->upstream);
        ipfsrt_client_relay_blocksource_at_hand(gw->relay, &gw->at_hand);
        gw->held = (ipfsrt_blocksource){sizeof(ipfsrt_blocksource), gw, held_get, multi_release};
        gw->has_upstream = true;
        gw->max_connections = opts->max_connections ? opts->max_connections : 1024;
    }
    ipfsrt_status st = n ? open_cars(gw, paths, n, err) : IPFSRT_OK;
    if (st == IPFSRT_OK && n) pick_spares(gw);
    if (st == IPFSRT_OK && (gw->faults.delay_ms || gw->faults.delay_jitter_ms))
        st = ipfsrt_server_waker_new(&gw->waker, err);
    gw->per_address = opts->per_address ? opts->per_address : 512;
    if (st == IPFSRT_OK) st = ipfsrt_server_watch_new(&gw->watch, opts->head_seconds ? opts->head_seconds : 10, err);
    if (st == IPFSRT_OK && opts->ipns_records) st = ipfsrt_server_names_new(&gw->names, opts->ipns_records, err);
    gw->ipns_client = opts->ipns_client;
    if (st == IPFSRT_OK && opts->log_path && !(gw->log = fopen(opts->log_path, "a")))
        st = ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot open log %s", opts->log_path);
    if (st == IPFSRT_OK && !opts->tls_cert != !opts->tls_key)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "HTTPS needs both a certificate and its key");
    if (st == IPFSRT_OK && opts->tls_cert) st = read_pem(opts->tls_cert, &gw->tls_cert, err);
    if (st == IPFSRT_OK && opts->tls_key) st = read_pem(opts->tls_key, &gw->tls_key, err);
    if (st == IPFSRT_OK)
        st = start_daemon(gw, opts->listen ? opts->listen : "127.0.0.1:0", opts->threads ? opts->threads : 4, err);
    if (st != IPFSRT_OK) {
        ipfsrt_server_free(gw);
        return st;
    }
    *out = gw;
    return IPFSRT_OK;
}

const char *ipfsrt_server_url(const ipfsrt_server *gw) {
    IPFSRT_NEED_OR(gw, NULL);
    return gw->url;
}

void ipfsrt_server_get_stats(const ipfsrt_server *gw, ipfsrt_server_stats *st) {
    IPFSRT_NEED_OR(st, );
    ipfsrt_server_stats all = {
        .requests = atomic_load(&gw->requests),
        .bytes = atomic_load(&gw->bytes),
        .status_2xx = atomic_load(&gw->s2xx),
        .status_4xx = atomic_load(&gw->s4xx),
        .status_5xx = atomic_load(&gw->s5xx),
        .faults = atomic_load(&gw->faulted),
        .peak_in_flight = atomic_load(&gw->peak_in_flight),
    };
    ipfsrt_stats_hand_over(st, &all, sizeof all);
}

void ipfsrt_server_free(ipfsrt_server *gw) {
    if (!gw) return;
    ipfsrt_server_waker_free(gw->waker); /* suspended connections go on, then the daemon stops */
    ipfsrt_server_resume_all(gw); /* libmicrohttpd stops no daemon with connections suspended */
    if (gw->daemon) MHD_stop_daemon(gw->daemon);
    ipfsrt_server_watch_free(gw->watch); /* after the daemon: its connections have left the list */
    if (gw->log) fclose(gw->log);
    pthread_mutex_destroy(&gw->log_lock);
    pthread_mutex_destroy(&gw->dirs_lock);
    pthread_mutex_destroy(&gw->names_lock);
    pthread_cond_destroy(&gw->jobs_over);
    pthread_mutex_destroy(&gw->wait_lock);
    ipfsrt_mhmap_free(&gw->missed_dirs);
    for (size_t i = 0; i < gw->ncars; i++) ipfsrt_car_file_free(gw->cars[i]);
    ipfsrt_mhmap_free(&gw->index);
    free(gw->cars);
    ipfsrt_server_names_free(gw->names);
    free(gw->tls_cert);
    free(gw->tls_key);
    free(gw);
}
