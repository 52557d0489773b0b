/* /ipns/NAME[/path]: the record itself (format=ipns-record, or Accept:
 * application/vnd.ipfs.ipns-record), or what its value points at, answered
 * as the /ipfs/ path would be but cached only for the record's TTL. A name
 * pasted as a legacy peer ID is redirected (302) to its canonical base36
 * form, as gateways do. And the delegated routing API's record lookup
 * (GET /routing/v1/ipns/NAME), which Helia's clients use for names. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipfsrt/client.h"
#include "ipfsrt/ipns.h"
#include "server/server_internal.h"

#define RECORD_TYPE "application/vnd.ipfs.ipns-record"

static bool wants_record(struct MHD_Connection *c) {
    const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return format ? strcmp(format, "ipns-record") == 0 : accept && strstr(accept, RECORD_TYPE);
}

/* The same URL with the name in its canonical form. */
static enum MHD_Result redirect_canonical(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *canonical,
                                          const char *rest) {
    char location[4400], encoded[4096];
    ipfsrt_server_encode_path(rest, encoded, sizeof encoded);
    snprintf(location, sizeof location, "/ipns/%s%s", canonical, encoded);
    struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Location", location);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_FOUND, r, 0);
}

/* How long an answer through a record may be cached: its TTL, and never past its EOL. */
static uint64_t cache_seconds(const ipfsrt_ipns_record *info) {
    uint64_t ttl = info->ttl_ns / 1000000000ull;
    int64_t left = info->eol_seconds - (int64_t)time(NULL);
    return left <= 0 ? 0 : (uint64_t)left < ttl ? (uint64_t)left : ttl;
}

static enum MHD_Result record_answer(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *name,
                                     uint8_t *record, size_t len, const ipfsrt_ipns_record *info) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, record, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(record);
        return MHD_NO;
    }
    char file[IPFSRT_IPNS_NAME_MAX + 16], cc[64];
    snprintf(file, sizeof file, "%s.ipns-record", name);
    snprintf(cc, sizeof cc, "public, max-age=%llu", (unsigned long long)cache_seconds(info));
    MHD_add_response_header(r, "Content-Type", RECORD_TYPE);
    ipfsrt_server_disposition(c, r, file, true);
    MHD_add_response_header(r, "Cache-Control", cc);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_OK, r, len);
}

/* A record that fails, or none: 404 when the folder has no record for the
 * name, else 502 (504: upstream did not answer in time), naming why: what
 * does not verify is never served. */
static enum MHD_Result name_failed(ipfsrt_server_request *rq, struct MHD_Connection *c, const ipfsrt_error *err) {
    if (err->code == IPFSRT_ENOT_FOUND) return ipfsrt_server_send_error(rq, c, err);
    unsigned status = err->code == IPFSRT_ETIMED_OUT ? MHD_HTTP_GATEWAY_TIMEOUT : MHD_HTTP_BAD_GATEWAY;
    return ipfsrt_server_send_text(rq, c, status, "%s: %s", ipfsrt_status_name(err->code), err->message);
}

/* The name's record: the folder's, else the upstream gateways' (verified by the client). */
static ipfsrt_status find_record(ipfsrt_server *gw, const ipfsrt_cid *name, uint8_t **record, size_t *len,
                                 ipfsrt_ipns_record *info, ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_ENOT_FOUND;
    if (gw->names) st = ipfsrt_server_names_get(gw->names, name, record, len, info, err);
    if (st != IPFSRT_ENOT_FOUND || !gw->ipns_client) {
        if (!gw->names && !gw->ipns_client)
            return ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "this gateway serves no IPNS records (--ipns-records)");
        return st;
    }
    ipfsrt_buf buf;
    ipfsrt_buf_init(&buf);
    pthread_mutex_lock(&gw->names_lock);
    st = ipfsrt_client_name_record(gw->ipns_client, name, &buf, info, err);
    pthread_mutex_unlock(&gw->names_lock);
    if (st == IPFSRT_OK) {
        *record = buf.data; /* handed over whole */
        *len = buf.len;
    } else {
        ipfsrt_buf_free(&buf);
    }
    return st;
}

enum MHD_Result ipfsrt_server_serve_name(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *url) {
    const char *part = url + strlen("/ipns/");
    size_t name_len = strcspn(part, "/");
    ipfsrt_cid name;
    ipfsrt_error err;
    char canonical[IPFSRT_IPNS_NAME_MAX];
    if (ipfsrt_ipns_name_parse(part, name_len, &name, &err) != IPFSRT_OK)
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_BAD_REQUEST, "bad IPNS name: %s (DNSLink names are not served)",
                                       err.message);
    ipfsrt_ipns_name_format(&name, canonical);
    if (strlen(canonical) != name_len || strncmp(canonical, part, name_len) != 0)
        return redirect_canonical(rq, c, canonical, part + name_len);
    uint8_t *record = NULL;
    size_t len = 0;
    ipfsrt_ipns_record info;
    ipfsrt_ipns_record_init(&info);
    if (find_record(rq->gw, &name, &record, &len, &info, &err) != IPFSRT_OK) return name_failed(rq, c, &err);
    enum MHD_Result res;
    if (wants_record(c)) {
        res = record_answer(rq, c, canonical, record, len, &info);
    } else {
        free(record);
        rq->ttl_s = cache_seconds(&info);
        rq->mutable_answer = true;
        res = ipfsrt_server_route_ipfs(rq, c, info.value, part + name_len);
    }
    ipfsrt_ipns_record_free(&info);
    return res;
}

enum MHD_Result ipfsrt_server_serve_routing(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *url) {
    const char *part = strncmp(url, "/routing/v1/ipns/", 17) == 0 ? url + 17 : NULL;
    if (!part) return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_FOUND, "of the routing API, only IPNS records are served");
    ipfsrt_cid name;
    ipfsrt_error err;
    char canonical[IPFSRT_IPNS_NAME_MAX];
    if (strchr(part, '/') || ipfsrt_ipns_name_parse(part, strlen(part), &name, &err) != IPFSRT_OK)
        return ipfsrt_server_send_text(rq, c, 422, "not an IPNS name: %.200s", part); /* the API's status for it */
    ipfsrt_ipns_name_format(&name, canonical);
    uint8_t *record = NULL;
    size_t len = 0;
    ipfsrt_ipns_record info;
    ipfsrt_ipns_record_init(&info);
    enum MHD_Result res = find_record(rq->gw, &name, &record, &len, &info, &err) == IPFSRT_OK
                              ? record_answer(rq, c, canonical, record, len, &info)
                              : name_failed(rq, c, &err);
    ipfsrt_ipns_record_free(&info);
    return res;
}
