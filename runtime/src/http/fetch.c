/* HTTP transfers on libcurl's multi interface. One thread drives every transfer
 * through ipfsrt_fetch_pump; connections stay open between requests (HTTP/1.1
 * keep-alive, HTTP/2 multiplexing when a TLS gateway offers it). Concurrency is
 * limited per group here rather than by curl, so that time spent waiting for a
 * free slot never counts against a transfer's timeouts. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "base/base_internal.h"
#include "http/fetch.h"

enum { QUEUED, RUNNING };

struct ipfsrt_fetch_req {
    ipfsrt_fetch *engine;
    ipfsrt_fetch_req *prev, *next; /* in the queue or the running list */
    int state;
    bool canceled;
    bool head_sent;
    bool response_started;
    ipfsrt_fetch_spec spec;
    char *url;
    char *accept_header;
    char *range;
    char *method, *aws_sigv4, *userpwd;
    struct curl_slist *headers;
    char content_range[96], bucket_region[64], etag[128]; /* from the response's header lines */
    CURL *easy;
    double started, last_data;
    double rate_mark;        /* start of the window the minimum rate is measured over */
    uint64_t rate_mark_bytes; /* body bytes at that start */
    ipfsrt_fetch_result result;
    char curl_error[CURL_ERROR_SIZE];
};

typedef struct req_list {
    ipfsrt_fetch_req *head, *tail;
    size_t count;
} req_list;

struct ipfsrt_fetch {
    CURLM *multi;
    ipfsrt_fetch_config cfg;
    char *ca_file; /* the caller's CA bundle, or NULL */
    unsigned *running_in_slot, *limit_in_slot;
    size_t *queued_in_slot;
    size_t total_limit; /* the limits' sum: with that many running, nothing can start */
    size_t pool_size;   /* idle connections curl keeps: the largest total_limit so far */
    req_list queued, running;
    bool in_callbacks; /* cancellation must wait until curl is out of its callbacks */
    CURL **spare;      /* easy handles kept for reuse */
    size_t spare_count, spare_cap;
};

static void list_push(req_list *l, ipfsrt_fetch_req *r) {
    r->prev = l->tail;
    r->next = NULL;
    if (l->tail) l->tail->next = r;
    else l->head = r;
    l->tail = r;
    l->count++;
}

static void list_remove(req_list *l, ipfsrt_fetch_req *r) {
    if (r->prev) r->prev->next = r->next;
    else l->head = r->next;
    if (r->next) r->next->prev = r->prev;
    else l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
}

/* Keeps twice as many connections as the engine has ever let run at once,
 * never fewer (a limit that dips and recovers finds its connections warm).
 * curl's default pool is four per easy handle attached, and ours are attached
 * only while they run: over HTTP/1.1 it closed the oldest connection, the one
 * whose window the metadata had grown, as soon as the others came back, and
 * the next chunk went out on a cold one (a 68 KB chunk 80 ms away took three
 * round trips, not two); a pool smaller than the requests in flight closed
 * each connection as its answer ended, and each of 366 chunks opened its own.
 * Set where transfers start, outside curl's callbacks: inside them
 * curl_multi_setopt is refused, and a limit is raised from one. */
static void keep_connections(ipfsrt_fetch *f) {
    if (f->total_limit <= f->pool_size) return;
    f->pool_size = f->total_limit;
    curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, f->pool_size > LONG_MAX / 2 ? LONG_MAX : 2 * (long)f->pool_size);
}

ipfsrt_status ipfsrt_fetch_new(ipfsrt_fetch **out, const ipfsrt_fetch_config *cfg,
                                ipfsrt_error *err) {
    static bool global_done;
    if (!global_done) { /* the first use happens before any thread of ours exists */
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "libcurl failed to initialise");
        global_done = true;
    }
    ipfsrt_fetch *f = calloc(1, sizeof *f);
    if (!f) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    f->cfg = *cfg;
    f->cfg.ca_file = NULL;
    const char *ca_file = cfg->ca_file;
    /* what curl's own tool honours, for servers behind an institution's CA */
    if (!ca_file || !*ca_file) ca_file = getenv("CURL_CA_BUNDLE");
    if (!ca_file || !*ca_file) ca_file = getenv("SSL_CERT_FILE");
    if (ca_file && *ca_file && !(f->ca_file = strdup(ca_file))) {
        free(f);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    if (!f->cfg.slots) f->cfg.slots = 1;
    if (!f->cfg.per_slot) f->cfg.per_slot = 8;
    if (!f->cfg.connect_timeout_ms) f->cfg.connect_timeout_ms = 10000;
    if (!f->cfg.first_byte_timeout_ms) f->cfg.first_byte_timeout_ms = 30000;
    if (!f->cfg.stall_timeout_ms) f->cfg.stall_timeout_ms = 20000;
    if (!f->cfg.rate_window_ms) f->cfg.min_bytes_per_s = 0;
    f->running_in_slot = calloc(f->cfg.slots, sizeof *f->running_in_slot);
    f->limit_in_slot = calloc(f->cfg.slots, sizeof *f->limit_in_slot);
    f->queued_in_slot = calloc(f->cfg.slots, sizeof *f->queued_in_slot);
    for (unsigned i = 0; f->limit_in_slot && i < f->cfg.slots; i++) f->limit_in_slot[i] = f->cfg.per_slot;
    f->total_limit = (size_t)f->cfg.slots * f->cfg.per_slot;
    f->multi = curl_multi_init();
    if (!f->running_in_slot || !f->limit_in_slot || !f->queued_in_slot || !f->multi) {
        ipfsrt_fetch_free(f);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    curl_multi_setopt(f->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    /* HTTP/2: as many streams on one connection as the server allows. curl's own
     * cap (100) opened a connection more for each request past it, each through
     * TCP's and TLS's handshakes and slow start: 28 of them for a 366-day time
     * series 80 ms away, 4.7x slower than on one (bench README). */
    curl_multi_setopt(f->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
    *out = f;
    return IPFSRT_OK;
}

static void finish_head(ipfsrt_fetch_req *r) {
    r->head_sent = true;
    long status = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    r->result.status = status;
}

/* Keeps the value of header line data (n bytes) in out when it is name's. */
static void header_value(const char *data, size_t n, const char *name, char *out, size_t cap) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp(data, name, k) != 0 || data[k] != ':') return;
    data += k + 1, n -= k + 1;
    while (n && (*data == ' ' || *data == '\t')) data++, n--;
    while (n && (data[n - 1] == '\r' || data[n - 1] == '\n' || data[n - 1] == ' ')) n--;
    if (n >= cap) n = cap - 1;
    memcpy(out, data, n);
    out[n] = 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *user) {
    ipfsrt_fetch_req *r = user;
    size_t len = size * n;
    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) /* a new response */
        r->content_range[0] = r->bucket_region[0] = r->etag[0] = 0;
    header_value(data, len, "ETag", r->etag, sizeof r->etag);
    header_value(data, len, "Content-Range", r->content_range, sizeof r->content_range);
    header_value(data, len, "x-amz-bucket-region", r->bucket_region, sizeof r->bucket_region);
    if (!r->response_started) {
        r->response_started = true;
        r->result.first_byte_s = ipfsrt_clock() - r->started;
        r->rate_mark = ipfsrt_clock();
    }
    r->last_data = ipfsrt_clock();
    return size * n;
}

/* Hands the head to the caller; false when it (or the size cap) stops the transfer. */
static bool deliver_head(ipfsrt_fetch_req *r) {
    finish_head(r);
    char *ctype = NULL;
    curl_off_t clen = -1;
    curl_easy_getinfo(r->easy, CURLINFO_CONTENT_TYPE, &ctype);
    curl_easy_getinfo(r->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
    if (r->spec.max_body && clen > 0 && (uint64_t)clen > r->spec.max_body) {
        r->result.end = IPFSRT_FETCH_TOO_LARGE;
        snprintf(r->result.detail, sizeof r->result.detail,
                 "Content-Length %lld is over the limit of %llu bytes", (long long)clen,
                 (unsigned long long)r->spec.max_body);
        return false;
    }
    curl_off_t setup_us = 0;
    long version = 0, connects = 0;
    curl_easy_getinfo(r->easy, CURLINFO_PRETRANSFER_TIME_T, &setup_us);
    curl_easy_getinfo(r->easy, CURLINFO_HTTP_VERSION, &version);
    curl_easy_getinfo(r->easy, CURLINFO_NUM_CONNECTS, &connects);
    ipfsrt_fetch_head head = {r->result.status, ctype ? ctype : "", clen >= 0 ? clen : -1, r->content_range,
                              r->bucket_region, r->etag, (double)setup_us / 1e6,
                              version != 0 && version < CURL_HTTP_VERSION_2_0, connects > 0};
    if (r->spec.on_head && r->spec.on_head(r->spec.user, &head) != 0) {
        r->result.end = IPFSRT_FETCH_ABORTED;
        return false;
    }
    return true;
}

static size_t on_write(char *data, size_t size, size_t n, void *user) {
    ipfsrt_fetch_req *r = user;
    size_t len = size * n;
    if (r->canceled) return 0;
    r->last_data = ipfsrt_clock();
    if (!r->head_sent && !deliver_head(r)) return 0;
    if (r->spec.max_body && r->result.body_bytes + len > r->spec.max_body) {
        r->result.end = IPFSRT_FETCH_TOO_LARGE;
        snprintf(r->result.detail, sizeof r->result.detail, "body over the limit of %llu bytes",
                 (unsigned long long)r->spec.max_body);
        return 0;
    }
    r->result.body_bytes += len;
    if (r->spec.on_body && r->spec.on_body(r->spec.user, (const uint8_t *)data, len) != 0) {
        r->result.end = IPFSRT_FETCH_ABORTED;
        return 0;
    }
    return len;
}

static void req_free(ipfsrt_fetch *f, ipfsrt_fetch_req *r) {
    if (r->easy) {
        /* up to 64 idle handles are kept, with their connections, for the next requests */
        if (f->spare_count < 64 && ipfsrt_array_reserve(&f->spare, &f->spare_cap, f->spare_count + 1,
                                                        sizeof *f->spare) == IPFSRT_OK) {
            curl_easy_reset(r->easy);
            f->spare[f->spare_count++] = r->easy;
        } else {
            curl_easy_cleanup(r->easy);
        }
    }
    curl_slist_free_all(r->headers);
    free(r->url);
    free(r->accept_header);
    free(r->range);
    free(r->method);
    free(r->aws_sigv4);
    if (r->userpwd) explicit_bzero(r->userpwd, strlen(r->userpwd)); /* a secret */
    free(r->userpwd);
    free(r);
}

/* Copies what the spec borrows; false when out of memory. */
static bool copy_spec(ipfsrt_fetch_req *r, const ipfsrt_fetch_spec *spec) {
    r->url = strdup(spec->url);
    if (spec->accept) {
        size_t n = strlen(spec->accept) + sizeof "Accept: ";
        r->accept_header = malloc(n);
        if (!r->accept_header) return false;
        snprintf(r->accept_header, n, "Accept: %s", spec->accept);
    }
    if (spec->range && !(r->range = strdup(spec->range))) return false;
    if (spec->method && !(r->method = strdup(spec->method))) return false;
    if (spec->aws_sigv4 && !(r->aws_sigv4 = strdup(spec->aws_sigv4))) return false;
    if (spec->userpwd && !(r->userpwd = strdup(spec->userpwd))) return false;
    if (r->accept_header && !(r->headers = curl_slist_append(NULL, r->accept_header))) return false;
    for (const char *const *h = spec->headers; h && *h; h++) {
        struct curl_slist *l = curl_slist_append(r->headers, *h);
        if (!l) return false;
        r->headers = l;
    }
    return r->url != NULL;
}

ipfsrt_status ipfsrt_fetch_start(ipfsrt_fetch *f, const ipfsrt_fetch_spec *spec,
                                 ipfsrt_fetch_req **out, ipfsrt_error *err) {
    if (spec->slot >= f->cfg.slots) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no such gateway slot");
    ipfsrt_fetch_req *r = calloc(1, sizeof *r);
    if (!r) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    r->engine = f;
    r->spec = *spec;
    if (!copy_spec(r, spec)) {
        req_free(f, r);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    r->spec.url = r->url;
    r->spec.accept = r->spec.range = r->spec.method = r->spec.aws_sigv4 = r->spec.userpwd = NULL;
    r->spec.headers = NULL;
    r->result.retry_after_s = -1;
    r->result.first_byte_s = -1;
    r->state = QUEUED;
    list_push(&f->queued, r);
    f->queued_in_slot[r->spec.slot]++;
    if (out) *out = r;
    return IPFSRT_OK;
}

static void settle(ipfsrt_fetch *f, ipfsrt_fetch_req *r);

static size_t on_read(char *buf, size_t size, size_t nitems, void *user) {
    ipfsrt_fetch_req *r = user;
    size_t n = r->spec.body_read(r->spec.user, (uint8_t *)buf, size * nitems);
    return n == SIZE_MAX ? CURL_READFUNC_ABORT : n;
}

/* The method, body and signing of the request (GET, unsigned, when none). */
static void set_method(ipfsrt_fetch_req *r) {
    CURL *e = r->easy;
    if (r->method && strcmp(r->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (r->method && strcmp(r->method, "PUT") == 0 && r->spec.body_read) {
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, r);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->spec.body_size);
    } else if (r->method && (strcmp(r->method, "PUT") == 0 || strcmp(r->method, "POST") == 0)) {
        curl_easy_setopt(e, CURLOPT_POST, 1L); /* a body from memory, sent as PUT */
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->spec.body ? (const char *)r->spec.body : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->spec.body_len);
        if (strcmp(r->method, "PUT") == 0) curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (r->method && strcmp(r->method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    }
    if (r->aws_sigv4) {
        curl_easy_setopt(e, CURLOPT_AWS_SIGV4, r->aws_sigv4);
        curl_easy_setopt(e, CURLOPT_USERPWD, r->userpwd);
    }
}

static bool launch(ipfsrt_fetch *f, ipfsrt_fetch_req *r) {
    CURL *e = f->spare_count ? f->spare[--f->spare_count] : curl_easy_init();
    if (!e) return false;
    r->easy = e;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    /* What the caller checked is what is sent: libcurl would squash "/../"
     * (a path outside /ipfs/, or outside an upstream's prefix). */
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    if (r->range) curl_easy_setopt(e, CURLOPT_RANGE, r->range);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_error);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    /* Over TLS, wait for the handshake to tell whether the connection multiplexes
     * (HTTP/2) before opening more. Cleartext is HTTP/1.1, and curl would learn
     * that only from the first answer: every first request to a gateway would
     * cost a round trip of its own. */
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, strncasecmp(r->url, "https:", 6) == 0 ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, r->aws_sigv4 ? 0L : 1L); /* a signature is for one host */
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 3L);
    set_method(r);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_USERAGENT, "ipfsrt/" IPFSRT_VERSION_STRING);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)f->cfg.connect_timeout_ms);
    if (f->cfg.total_timeout_ms) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)f->cfg.total_timeout_ms);
    /* Each handle's own receive buffer: what the kernel copies into is fresh memory
     * for every handle in flight (up to max_concurrency), a page fault per page, which
     * on virtual machines costs more than the copy. 64 KB holds a chunk block's reply
     * in one read and keeps 1 GB transfers at full speed (measured beside 256 KB). */
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 64L * 1024);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    if (f->ca_file) curl_easy_setopt(e, CURLOPT_CAINFO, f->ca_file);
    r->started = r->last_data = ipfsrt_clock();
    if (curl_multi_add_handle(f->multi, e) != CURLM_OK) return false;
    if (r->spec.on_start) r->spec.on_start(r->spec.user);
    return true;
}

static void start_queued(ipfsrt_fetch *f) {
    keep_connections(f);
    ipfsrt_fetch_req *r = f->queued.head;
    /* with every group full there is nothing to start: skip the walk of the queue */
    while (r && f->running.count < f->total_limit) {
        ipfsrt_fetch_req *next = r->next;
        if (f->running_in_slot[r->spec.slot] < f->limit_in_slot[r->spec.slot]) {
            list_remove(&f->queued, r);
            f->queued_in_slot[r->spec.slot]--;
            r->state = RUNNING;
            list_push(&f->running, r);
            f->running_in_slot[r->spec.slot]++;
            if (!launch(f, r)) {
                r->result.end = IPFSRT_FETCH_BROKEN;
                snprintf(r->result.detail, sizeof r->result.detail, "could not set up the transfer");
                settle(f, r);
            }
        }
        r = next;
    }
}

/* Takes a transfer out of the engine, reports it (unless canceled) and frees it. */
static void settle(ipfsrt_fetch *f, ipfsrt_fetch_req *r) {
    if (r->state == RUNNING) {
        list_remove(&f->running, r);
        f->running_in_slot[r->spec.slot]--;
        if (r->easy) curl_multi_remove_handle(f->multi, r->easy);
    } else {
        list_remove(&f->queued, r);
        f->queued_in_slot[r->spec.slot]--;
    }
    r->result.backlog = f->queued_in_slot[r->spec.slot];
    if (!r->canceled && r->spec.on_done) {
        r->result.total_s = ipfsrt_clock() - r->started;
        r->spec.on_done(r->spec.user, &r->result);
    }
    req_free(f, r);
}

void ipfsrt_fetch_cancel(ipfsrt_fetch *f, ipfsrt_fetch_req *r) {
    if (!r) return;
    r->canceled = true;
    /* a queued transfer is not curl's yet: it goes now, even from inside curl's
     * callbacks (a hedged race won cancels losers that may still wait) */
    if (!f->in_callbacks || r->state != RUNNING) settle(f, r);
}

static void complete(ipfsrt_fetch *f, ipfsrt_fetch_req *r, CURLcode code) {
    ipfsrt_fetch_result *res = &r->result;
    if (code == CURLE_OK) {
        if (!r->head_sent && !r->canceled && !deliver_head(r)) {
            if (res->end == IPFSRT_FETCH_DONE) res->end = IPFSRT_FETCH_ABORTED;
        } else {
            res->end = IPFSRT_FETCH_DONE;
        }
    } else if (res->end == IPFSRT_FETCH_DONE) { /* not already explained by a callback */
        switch (code) {
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_CONNECT:
            res->end = IPFSRT_FETCH_CONNECT;
            break;
        case CURLE_OPERATION_TIMEDOUT:
            res->end = IPFSRT_FETCH_TIMEOUT;
            break;
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
            res->end = IPFSRT_FETCH_TLS;
            break;
        default:
            res->end = IPFSRT_FETCH_BROKEN;
        }
        snprintf(res->detail, sizeof res->detail, "%s",
                 r->curl_error[0] ? r->curl_error : curl_easy_strerror(code));
    }
    if (!r->head_sent) finish_head(r);
    curl_off_t retry_after = 0;
    if (curl_easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
        retry_after > 0)
        res->retry_after_s = (double)retry_after;
    settle(f, r);
}

/* Why r has taken too long, or NULL: no answer in time, a stall, a body that
 * drips below the minimum rate (a stall timer alone never fires on one byte a
 * second), or the overall deadline. */
static const char *overdue(const ipfsrt_fetch *f, ipfsrt_fetch_req *r, double now, char *why,
                           size_t size) {
    const ipfsrt_fetch_config *cfg = &f->cfg;
    if (!r->response_started && now - r->started > cfg->first_byte_timeout_ms / 1000.0)
        snprintf(why, size, "no response within %u ms", cfg->first_byte_timeout_ms);
    else if (r->response_started && now - r->last_data > cfg->stall_timeout_ms / 1000.0)
        snprintf(why, size, "no data for %u ms", cfg->stall_timeout_ms);
    else if (cfg->deadline_ms && now - r->started > cfg->deadline_ms / 1000.0)
        snprintf(why, size, "not done within the %u ms deadline", cfg->deadline_ms);
    else if (r->response_started && cfg->min_bytes_per_s && now - r->rate_mark >= cfg->rate_window_ms / 1000.0) {
        double rate = (double)(r->result.body_bytes - r->rate_mark_bytes) / (now - r->rate_mark);
        if (rate < cfg->min_bytes_per_s)
            snprintf(why, size, "slower than %u bytes/s over %u ms (%.0f bytes/s)", cfg->min_bytes_per_s,
                     cfg->rate_window_ms, rate);
        r->rate_mark = now;
        r->rate_mark_bytes = r->result.body_bytes;
    }
    return why[0] ? why : NULL;
}

static void check_deadlines(ipfsrt_fetch *f) {
    double now = ipfsrt_clock();
    ipfsrt_fetch_req *r = f->running.head;
    while (r) {
        ipfsrt_fetch_req *next = r->next;
        char why[120] = "";
        if (overdue(f, r, now, why, sizeof why)) {
            r->result.end = IPFSRT_FETCH_TIMEOUT;
            snprintf(r->result.detail, sizeof r->result.detail, "%s", why);
            if (!r->head_sent) finish_head(r);
            settle(f, r);
        }
        r = next;
    }
}

size_t ipfsrt_fetch_pump(ipfsrt_fetch *f, int max_wait_ms) {
    start_queued(f);
    if (f->running.count) {
        int still = 0;
        f->in_callbacks = true;
        curl_multi_perform(f->multi, &still);
        f->in_callbacks = false;
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(f->multi, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            ipfsrt_fetch_req *r = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
            if (r) complete(f, r, msg->data.result);
        }
        /* transfers canceled from inside curl's callbacks */
        for (ipfsrt_fetch_req *r = f->running.head, *next; r; r = next) {
            next = r->next;
            if (r->canceled) settle(f, r);
        }
        check_deadlines(f);
        start_queued(f);
        if (f->running.count && max_wait_ms > 0) {
            int wait = max_wait_ms > 100 ? 100 : max_wait_ms; /* deadlines are ours to check */
            curl_multi_poll(f->multi, NULL, 0, wait, NULL);
        }
    }
    return f->queued.count + f->running.count;
}

size_t ipfsrt_fetch_pending(const ipfsrt_fetch *f) { return f->queued.count + f->running.count; }

void ipfsrt_fetch_wait(ipfsrt_fetch *f, int max_wait_ms) {
    if (max_wait_ms > 0) curl_multi_poll(f->multi, NULL, 0, max_wait_ms, NULL);
}

void ipfsrt_fetch_wakeup(ipfsrt_fetch *f) { curl_multi_wakeup(f->multi); }

void ipfsrt_fetch_free(ipfsrt_fetch *f) {
    if (!f) return;
    while (f->running.head) {
        f->running.head->canceled = true;
        settle(f, f->running.head);
    }
    while (f->queued.head) {
        f->queued.head->canceled = true;
        settle(f, f->queued.head);
    }
    for (size_t i = 0; i < f->spare_count; i++) curl_easy_cleanup(f->spare[i]);
    free(f->spare);
    if (f->multi) curl_multi_cleanup(f->multi);
    free(f->running_in_slot);
    free(f->limit_in_slot);
    free(f->queued_in_slot);
    free(f->ca_file);
    free(f);
}

static ipfsrt_status transport_start(void *ctx, const ipfsrt_fetch_spec *spec, void **req,
                                     ipfsrt_error *err) {
    ipfsrt_fetch_req *r;
    ipfsrt_status st = ipfsrt_fetch_start(ctx, spec, &r, err);
    *req = st == IPFSRT_OK ? r : NULL;
    return st;
}

static void transport_cancel(void *ctx, void *req) { ipfsrt_fetch_cancel(ctx, req); }
static size_t transport_pump(void *ctx, int ms) { return ipfsrt_fetch_pump(ctx, ms); }
static size_t transport_pending(const void *ctx) { return ipfsrt_fetch_pending(ctx); }
static void transport_wait(void *ctx, int ms) { ipfsrt_fetch_wait(ctx, ms); }
static void transport_wakeup(void *ctx) { ipfsrt_fetch_wakeup(ctx); }
static void transport_free(void *ctx) { ipfsrt_fetch_free(ctx); }

void ipfsrt_fetch_set_limit(ipfsrt_fetch *f, unsigned slot, unsigned limit) {
    if (slot >= f->cfg.slots) return;
    if (limit < 1) limit = 1;
    f->total_limit = f->total_limit - f->limit_in_slot[slot] + limit;
    f->limit_in_slot[slot] = limit; /* room made is used at the next pump */
}

static void transport_set_limit(void *ctx, unsigned slot, unsigned limit) { ipfsrt_fetch_set_limit(ctx, slot, limit); }

void ipfsrt_fetch_transport(ipfsrt_fetch *f, ipfsrt_transport *t) {
    *t = (ipfsrt_transport){f,
                            transport_start,
                            transport_cancel,
                            transport_pump,
                            transport_pending,
                            transport_wait,
                            transport_wakeup,
                            transport_free,
                            transport_set_limit};
}

bool ipfsrt_fetch_content_range_parse(const char *s, uint64_t *from, uint64_t *to, uint64_t *total) {
    if (strncmp(s, "bytes ", 6) != 0) return false;
    s += 6;
    uint64_t v[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (k == 2 && *s == '*') {
            v[2] = UINT64_MAX;
            s++;
            break;
        }
        if (*s < '0' || *s > '9') return false;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (v[k] > (UINT64_MAX - 9) / 10) return false;
            v[k] = v[k] * 10 + (uint64_t)(*s - '0');
        }
        if (k < 2 && *s++ != (k == 0 ? '-' : '/')) return false;
    }
    if (*s || v[1] < v[0] || (v[2] != UINT64_MAX && v[1] >= v[2])) return false;
    *from = v[0], *to = v[1], *total = v[2];
    return true;
}
