/* The gateway's HTTP side: requests set up and logged, routed by method, path
 * and format, and the answers every part sends. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipfsrt/ipld.h"
#include "multiformats/multiformats_internal.h"
#include "server/server_internal.h"

void ipfsrt_server_common_headers(struct MHD_Response *r) {
    if (!MHD_get_response_header(r, "Cache-Control")) /* content-addressed: for ever, unless said otherwise */
        MHD_add_response_header(r, "Cache-Control", "public, max-age=29030400, immutable");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
}

void ipfsrt_server_count_sent(ipfsrt_server_request *rq, size_t n) {
    atomic_fetch_add(&rq->bytes, n);
    atomic_fetch_add(&rq->gw->bytes, n);
}

enum MHD_Result ipfsrt_server_queue(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                    unsigned status, struct MHD_Response *r, uint64_t body) {
    if (rq->in_job && !rq->job_done) { /* on a worker: queued by the handler once the connection resumes */
        if (rq->answer) MHD_destroy_response(rq->answer);
        rq->answer = r;
        rq->answer_status = status;
        rq->answer_body = body;
        return MHD_YES;
    }
    ipfsrt_server_cors_headers(r);
    if (rq->mutable_answer) { /* through an IPNS name: as long as its record says, not for ever */
        char cc[64];
        snprintf(cc, sizeof cc, "public, max-age=%llu", (unsigned long long)rq->ttl_s);
        MHD_del_response_header(r, "Cache-Control", "public, max-age=29030400, immutable");
        if (!MHD_get_response_header(r, "Cache-Control")) MHD_add_response_header(r, "Cache-Control", cc);
    }
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    ipfsrt_server *gw = rq->gw;
    rq->status = status;
    ipfsrt_server_count_sent(rq, body);
    if (status < 300) atomic_fetch_add(&gw->s2xx, 1);
    else if (status < 500) atomic_fetch_add(&gw->s4xx, 1);
    else atomic_fetch_add(&gw->s5xx, 1);
    return ok;
}

enum MHD_Result ipfsrt_server_send_text(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        unsigned status, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n > sizeof msg - 2) n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, msg, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (status == MHD_HTTP_TOO_MANY_REQUESTS || status == MHD_HTTP_SERVICE_UNAVAILABLE ||
        status == MHD_HTTP_BAD_GATEWAY)
        MHD_add_response_header(r, "Retry-After", "1");
    return ipfsrt_server_queue(rq, c, status, r, (uint64_t)n);
}

enum MHD_Result ipfsrt_server_send_error(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_error *err) {
    unsigned status;
    switch (err->code) {
    case IPFSRT_ENOT_FOUND:
    case IPFSRT_ENOT_DIRECTORY:
    case IPFSRT_ESYMLINK: status = MHD_HTTP_NOT_FOUND; break;
    case IPFSRT_EBAD_CID:
    case IPFSRT_EBAD_MULTIBASE:
    case IPFSRT_EBAD_MULTIHASH:
    case IPFSRT_EBAD_VARINT:
    case IPFSRT_ETRAILING_DATA:
    case IPFSRT_EBAD_ARGUMENT:
    case IPFSRT_EUNSUPPORTED: status = MHD_HTTP_BAD_REQUEST; break;
    case IPFSRT_ETOO_LARGE: status = MHD_HTTP_CONTENT_TOO_LARGE; break;
    /* a path ending at a value inside a block: gateways follow only links */
    case IPFSRT_EINSIDE_BLOCK: status = MHD_HTTP_NOT_IMPLEMENTED; break;
    /* upstream's failures: what it would not or could not give, and why, per gateway */
    case IPFSRT_EFETCH_FAILED:
    case IPFSRT_EUNAVAILABLE: status = MHD_HTTP_BAD_GATEWAY; break;
    case IPFSRT_ETIMED_OUT: status = MHD_HTTP_GATEWAY_TIMEOUT; break;
    case IPFSRT_ECANCELED: status = MHD_HTTP_SERVICE_UNAVAILABLE; break;
    default: status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    return ipfsrt_server_send_text(rq, c, status, "%s: %s", ipfsrt_status_name(err->code),
                                   err->message);
}

/* The document forms Accept may name, by their media type. */
static const char *const accepted_documents[][2] = {
    {"application/vnd.ipld.dag-json", "dag-json"},
    {"application/vnd.ipld.dag-cbor", "dag-cbor"},
    {"application/json", "json"},
    {"application/cbor", "cbor"},
};

static bool is_document_format(const char *format) {
    for (size_t i = 0; i < sizeof accepted_documents / sizeof accepted_documents[0]; i++)
        if (strcmp(format, accepted_documents[i][1]) == 0) return true;
    return false;
}

/* Which document form Accept names first in our order, or NULL. */
static const char *accepted_document(const char *accept) {
    for (size_t i = 0; accept && i < sizeof accepted_documents / sizeof accepted_documents[0]; i++)
        if (strstr(accept, accepted_documents[i][0])) return accepted_documents[i][1];
    return NULL;
}

/* format= wins over Accept; neither asking for blocks gets the plain answer
 * (whose form, for a document, the path's end decides). */
static enum MHD_Result route_format(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                    const ipfsrt_cid *cid, const char *cid_str, const char *path) {
    const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    if (format) {
        if (strcmp(format, "raw") == 0) return ipfsrt_server_serve_raw(rq, c, cid, path);
        if (strcmp(format, "car") == 0)
            return ipfsrt_server_serve_car(rq, c, cid, cid_str, path, accept);
        if (strcmp(format, "tar") == 0) return ipfsrt_server_serve_tar(rq, c, cid_str, path);
        if (!is_document_format(format))
            return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                                           "format=%s is not served (raw, car, tar, dag-json, dag-cbor, json and cbor are)",
                                           format);
        snprintf(rq->document, sizeof rq->document, "%s", format);
        rq->document_by_format = true;
        rq->want_json = strcmp(format, "json") == 0; /* a file's bytes as JSON, when they are (IPIP-523) */
        return ipfsrt_server_serve_plain(rq, c, cid_str, path);
    }
    if (accept && strstr(accept, IPFSRT_RAW_TYPE)) {
        snprintf(rq->negotiated, sizeof rq->negotiated, "raw");
        return ipfsrt_server_serve_raw(rq, c, cid, path);
    }
    if (accept && strstr(accept, IPFSRT_CAR_TYPE)) {
        snprintf(rq->negotiated, sizeof rq->negotiated, "car");
        return ipfsrt_server_serve_car(rq, c, cid, cid_str, path, accept);
    }
    if (accept && strstr(accept, "application/x-tar")) {
        snprintf(rq->negotiated, sizeof rq->negotiated, "tar");
        return ipfsrt_server_serve_tar(rq, c, cid_str, path);
    }
    const char *document = accepted_document(accept);
    if (document) snprintf(rq->document, sizeof rq->document, "%s", document);
    else if (accept && strstr(accept, "application/vnd.") && !strstr(accept, "*/*"))
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                                       "%s is not served (" IPFSRT_RAW_TYPE ", " IPFSRT_CAR_TYPE
                                       ", the dag-json and dag-cbor types, or plain bytes are)", accept);
    if (cid->codec != IPFSRT_CODEC_DAG_PB && cid->codec != IPFSRT_CODEC_RAW && !ipfsrt_ipld_is_document(cid->codec))
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_REQUEST,
                                       "%s is %s, neither UnixFS nor a document: ask for format=raw or format=car",
                                       cid_str, ipfsrt_codec_name(cid->codec));
    return ipfsrt_server_serve_plain(rq, c, cid_str, path);
}

/* Cache-Control: only-if-cached asks for what the gateway holds, nothing
 * fetched: whether the path's blocks are all held (the CARs', and what the
 * relay has at hand in front of an upstream). */
static bool held_whole(ipfsrt_server_request *rq, const ipfsrt_cid *cid, const char *cid_str, const char *path) {
    ipfsrt_server *gw = rq->gw;
    const ipfsrt_blocksource *held = gw->has_upstream ? &gw->held : &gw->src;
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    if (ipfsrt_blocksource_get(held, cid, &ref, &err) != IPFSRT_OK) return false;
    ipfsrt_blocksource_release(held, &ref);
    if (!path[0] || strcmp(path, "/") == 0 || cid->codec == IPFSRT_CODEC_RAW) return true;
    char full[4096];
    if ((size_t)snprintf(full, sizeof full, "%s%s", cid_str, path) >= sizeof full) return false;
    ipfsrt_unixfs_node_info info;
    return ipfsrt_unixfs_resolve(held, full, NULL, &info, &err) == IPFSRT_OK;
}

static bool only_if_cached(struct MHD_Connection *c) {
    const char *cc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Cache-Control");
    return cc && strstr(cc, "only-if-cached");
}

/* CID[/path] (what follows /ipfs/), answered as format and Accept ask. */
static enum MHD_Result route_cid_path(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *cid_start) {
    size_t cid_len = strcspn(cid_start, "/");
    ipfsrt_cid cid;
    ipfsrt_error err;
    if (ipfsrt_cid_parse(&cid, cid_start, cid_len, NULL, &err) != IPFSRT_OK)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_REQUEST, "bad CID: %s", err.message);
    char cid_str[IPFSRT_CID_STR_MAX];
    snprintf(cid_str, sizeof cid_str, "%.*s", (int)cid_len, cid_start);
    bool answered;
    enum MHD_Result faulted = ipfsrt_server_plan_faults(rq, c, &answered);
    if (rq->faults[0] && !rq->counted) {
        rq->counted = true;
        atomic_fetch_add(&rq->gw->faulted, 1);
    }
    if (answered) return faulted;
    if (only_if_cached(c) && !held_whole(rq, &cid, cid_str, cid_start + cid_len))
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_PRECONDITION_FAILED,
                                       "%s: not held here, and only-if-cached asks for nothing to be fetched", rq->path);
    return route_format(rq, c, &cid, cid_str, cid_start + cid_len);
}

enum MHD_Result ipfsrt_server_route_ipfs(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *value,
                                         const char *rest) {
    if (strncmp(value, "/ipfs/", 6) != 0)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_IMPLEMENTED,
                                       "the record points at %.200s: only /ipfs/ values are followed here", value);
    size_t n = strlen(value) + strlen(rest) + 1;
    char *full = malloc(n);
    if (!full) return MHD_NO;
    snprintf(full, n, "%s%s", value + 6, rest);
    enum MHD_Result res = ipfsrt_path_has_dot_segment(full)
                              ? ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_GATEWAY, "the record's value has dot segments")
                              : route_cid_path(rq, c, full);
    free(full);
    return res;
}

static enum MHD_Result route(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *url,
                             const char *method) {
    if (strcmp(method, "OPTIONS") == 0) return ipfsrt_server_preflight(rq, c);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_METHOD_NOT_ALLOWED,
                                       "only GET, HEAD and OPTIONS are served");
    if (strncmp(url, "/routing/v1/", 12) == 0) return ipfsrt_server_serve_routing(rq, c, url);
    bool ipns = strncmp(url, "/ipns/", 6) == 0;
    if (strncmp(url, "/ipfs/", 6) != 0 && !ipns)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_FOUND, "only /ipfs/{cid} and /ipns/{name} paths are served");
    if (rq->nul_in_uri) /* decoded, the path or a parameter would stop short of what was asked */
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_REQUEST, "%%00 has no place in a path or query");
    /* an upstream (or anything that normalises the URL) would read these
     * outside /ipfs/CID; no UnixFS name is one */
    if (rq->encoded_slash || ipfsrt_path_has_dot_segment(url))
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_REQUEST,
                                       "'.', '..' and encoded slashes have no place in an /ipfs/ path");
    return ipns ? ipfsrt_server_serve_name(rq, c, url) : route_cid_path(rq, c, url + 6);
}

static enum MHD_Result route_job(ipfsrt_server_request *rq, struct MHD_Connection *c) {
    return route(rq, c, rq->path, rq->method);
}

/* The handler, called again once a worker's answer is ready: sends it. */
static enum MHD_Result send_deferred(ipfsrt_server_request *rq, struct MHD_Connection *c) {
    if (!rq->job_done) return MHD_YES; /* not resumed by the job: nothing to do yet */
    rq->in_job = false;
    struct MHD_Response *r = rq->answer;
    rq->answer = NULL;
    if (!r) return rq->job_result;
    enum MHD_Result ok = ipfsrt_server_queue(rq, c, rq->answer_status, r, rq->answer_body);
    return rq->job_result == MHD_NO ? MHD_NO : ok;
}

static ipfsrt_server_request *request_new(ipfsrt_server *gw) {
    ipfsrt_server_request *rq = calloc(1, sizeof *rq);
    if (!rq) return NULL;
    rq->gw = gw;
    rq->number = atomic_fetch_add(&gw->requests, 1);
    uint64_t now = atomic_fetch_add(&gw->in_flight, 1) + 1, peak = atomic_load(&gw->peak_in_flight);
    while (now > peak && !atomic_compare_exchange_weak(&gw->peak_in_flight, &peak, now)) {
    }
    rq->rng = gw->faults.seed ^ (rq->number * 0x9e3779b97f4a7c15ull);
    return rq;
}

void *ipfsrt_server_uri_seen(void *cls, const char *uri, struct MHD_Connection *c) {
    (void)c;
    ipfsrt_server_request *rq = request_new(cls);
    if (rq) {
        rq->nul_in_uri = strstr(uri, "%00") != NULL;
        size_t path_len = strcspn(uri, "?");
        for (const char *p = uri; (p = strchr(p, '%')) && (size_t)(p - uri) < path_len; p++)
            if (p[1] == '2' && (p[2] == 'f' || p[2] == 'F')) rq->encoded_slash = true;
    }
    return rq;
}

enum MHD_Result ipfsrt_server_handle(void *cls, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_size, void **req_cls) {
    (void)version, (void)upload_data;
    if (!*req_cls && !(*req_cls = request_new(cls))) return MHD_NO;
    ipfsrt_server_request *rq = *req_cls;
    /* The first call only sets the request up: answering before libmicrohttpd
     * has seen the whole request makes it close the connection. */
    if (!rq->set_up) {
        rq->set_up = true;
        snprintf(rq->method, sizeof rq->method, "%s", method);
        rq->path = strdup(url);
        return rq->path ? MHD_YES : MHD_NO;
    }
    if (*upload_size) { /* GET and HEAD carry no body worth reading */
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->in_job) return send_deferred(rq, c);
    if (rq->status) return MHD_YES; /* already answered */
    ipfsrt_server_watch_mark(rq->gw->watch, c, true); /* the whole request is in: its head's clock stops */
    /* in front of an upstream, answering waits for blocks: on a worker, the connection suspended */
    if (rq->gw->has_upstream && ipfsrt_server_defer(rq, c, route_job)) return MHD_YES;
    return route(rq, c, url, method);
}

#define QUERY_MAX 512

static enum MHD_Result append_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value) {
    (void)kind;
    char *q = cls;
    size_t n = strlen(q);
    snprintf(q + n, QUERY_MAX - n, "%s%s%s%s", n ? "&" : "", key, value ? "=" : "", value ? value : "");
    return MHD_YES;
}

static void log_request(ipfsrt_server *gw, struct MHD_Connection *c, const ipfsrt_server_request *rq,
                        enum MHD_RequestTerminationCode why) {
    char query[QUERY_MAX] = "";
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, append_arg, query);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&gw->log_lock);
    fprintf(gw->log, "%lld.%03ld %s %s %s %u %llu %s%s%s\n", (long long)ts.tv_sec,
            ts.tv_nsec / 1000000, rq->method[0] ? rq->method : "-", rq->path ? rq->path : "-",
            query[0] ? query : "-", rq->status,
            (unsigned long long)atomic_load(&rq->bytes), rq->faults[0] ? rq->faults : "-",
            why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection ended early)",
            rq->cut[0] ? rq->cut : "");
    fflush(gw->log);
    pthread_mutex_unlock(&gw->log_lock);
}

void ipfsrt_server_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                             enum MHD_RequestTerminationCode why) {
    ipfsrt_server *gw = cls;
    ipfsrt_server_request *rq = *req_cls;
    if (!rq) return;
    atomic_fetch_sub(&gw->in_flight, 1);
    if (gw->log) log_request(gw, c, rq, why);
    ipfsrt_server_watch_mark(gw->watch, c, false);
    if (rq->answer) MHD_destroy_response(rq->answer);
    free(rq->path);
    free(rq);
    *req_cls = NULL;
}
