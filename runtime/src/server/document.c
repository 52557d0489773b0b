/* A path gateway's answer for a DAG-CBOR, DAG-JSON, JSON or CBOR block: its
 * bytes as they are, under its own type or the plain one (application/json,
 * application/cbor), never converted to another codec (IPIP-524: 406); or,
 * for a browser that asks for HTML and no format, a page showing it. */
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

/* The forms a document is served in. */
typedef struct form {
    const char *name; /* format= */
    const char *type; /* Content-Type */
    uint64_t codec;   /* the codec whose blocks it is */
    uint64_t also;    /* the other codec it is a plain form of (0: none) */
    bool attachment;  /* binary: downloaded, not shown */
    const char *ext;
} form;

static const form forms[] = {
    {"dag-cbor", "application/vnd.ipld.dag-cbor", IPFSRT_CODEC_DAG_CBOR, 0, true, "cbor"},
    {"dag-json", "application/vnd.ipld.dag-json", IPFSRT_CODEC_DAG_JSON, 0, false, "json"},
    {"cbor", "application/cbor", IPFSRT_CODEC_CBOR, IPFSRT_CODEC_DAG_CBOR, true, "cbor"},
    {"json", "application/json", IPFSRT_CODEC_JSON, IPFSRT_CODEC_DAG_JSON, false, "json"},
};

static const form *form_named(const char *name) {
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(forms[i].name, name) == 0) return &forms[i];
    return NULL;
}

static const form *own_form(uint64_t codec) {
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (forms[i].codec == codec) return &forms[i];
    return NULL;
}

static bool wants_html(struct MHD_Connection *c) {
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return accept && strstr(accept, "text/html");
}

/* The page a browser gets: a week's caching, as listings (the page may
 * change with the gateway; the block never does). */
static enum MHD_Result html_answer(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                   const ipfsrt_unixfs_node_info *info, const char *roots) {
    char s[IPFSRT_CID_STR_MAX], etag[IPFSRT_CID_STR_MAX + 24];
    snprintf(etag, sizeof etag, "\"DagIndex-1_%s\"", ipfsrt_cid_to_string(&info->cid, s));
    if (ipfsrt_server_not_modified(c, etag)) return ipfsrt_server_send_not_modified(rq, c, etag);
    ipfsrt_blocksource_ref ref;
    ipfsrt_error err;
    if (ipfsrt_blocksource_get(&rq->gw->src, &info->cid, &ref, &err) != IPFSRT_OK)
        return ipfsrt_server_send_error(rq, c, &err);
    size_t len;
    char *page = ipfsrt_server_document_html(rq->path ? rq->path : s, &info->cid, ref.data, ref.len, &len);
    ipfsrt_blocksource_release(&rq->gw->src, &ref);
    struct MHD_Response *r = page ? MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!r) {
        free(page);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "public, max-age=604800, stale-while-revalidate=2678400");
    MHD_add_response_header(r, "Etag", etag);
    MHD_add_response_header(r, "X-Ipfs-Roots", roots);
    ipfsrt_server_path_headers(rq, r);
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_OK, r, len);
}

enum MHD_Result ipfsrt_server_document_answer(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                              const ipfsrt_unixfs_node_info *info, const char *roots) {
    char s[IPFSRT_CID_STR_MAX], etag[IPFSRT_CID_STR_MAX + 16], name[IPFSRT_CID_STR_MAX + 8];
    uint64_t codec = info->cid.codec;
    if (!rq->document[0] && wants_html(c)) return html_answer(rq, c, info, roots);
    const form *f = rq->document[0] ? form_named(rq->document) : own_form(codec);
    ipfsrt_cid_to_string(&info->cid, s);
    if (!f || (f->codec != codec && f->also != codec)) {
        const form *own = own_form(codec);
        return ipfsrt_server_send_text(rq, c, MHD_HTTP_NOT_ACCEPTABLE,
                                       "%s is a %s block, served as it is (as %s, raw or car): codecs are "
                                       "not converted, and %s was asked",
                                       s, ipfsrt_codec_name(codec), own ? own->name : "raw", rq->document);
    }
    if (rq->document[0] && !rq->document_by_format) /* Accept chose: the same answer by URL */
        snprintf(rq->negotiated, sizeof rq->negotiated, "%s", f->name);
    snprintf(etag, sizeof etag, "\"%s.%s\"", s, f->name);
    if (ipfsrt_server_not_modified(c, etag)) return ipfsrt_server_send_not_modified(rq, c, etag);
    snprintf(name, sizeof name, "%s.%s", s, f->ext);
    ipfsrt_server_block_answer a = {&info->cid, f->type, name, f->attachment, etag, roots};
    return ipfsrt_server_send_block(rq, c, &a);
}
