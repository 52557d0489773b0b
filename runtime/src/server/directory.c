/* A directory's plain answer, as a path gateway gives it: a redirect to its
 * URL with a trailing slash (so that relative links resolve inside it), its
 * index.html when it has one, else its listing: an HTML page for browsers
 * and any client that does not ask otherwise, JSON when Accept names
 * application/json. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

static ipfsrt_status list_entry(void *user, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    cJSON *item = cJSON_CreateObject();
    char s[IPFSRT_CID_STR_MAX];
    if (!item || !cJSON_AddStringToObject(item, "name", e->name) ||
        !cJSON_AddStringToObject(item, "cid", ipfsrt_cid_to_string(&e->cid, s)) ||
        !cJSON_AddStringToObject(item, "type", e->has_type ? ipfsrt_unixfs_type_name(e->type) : "unknown") ||
        !cJSON_AddNumberToObject(item, "size", (double)(e->has_type ? e->size : e->tsize))) {
        cJSON_Delete(item);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    cJSON_AddItemToArray(user, item);
    return IPFSRT_OK;
}

/* A directory as a JSON array of {name, cid, type, size}, or as an HTML
 * page; *r is NULL when it was answered already. */
static enum MHD_Result listing_response(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                        const ipfsrt_cid *dir, bool html, struct MHD_Response **r,
                                        uint64_t *body) {
    *r = NULL;
    cJSON *list = cJSON_CreateArray();
    if (!list) return MHD_NO;
    ipfsrt_error err;
    if (ipfsrt_unixfs_ls(&rq->gw->src, dir, true, list_entry, list, &err) != IPFSRT_OK) {
        cJSON_Delete(list);
        return ipfsrt_server_send_error(rq, c, &err);
    }
    size_t len = 0;
    char *text = html ? ipfsrt_server_index_html(rq->path, list, &len) : cJSON_PrintUnformatted(list);
    cJSON_Delete(list);
    if (!text) return MHD_NO;
    *body = html ? len : strlen(text);
    *r = MHD_create_response_from_buffer(*body, text, MHD_RESPMEM_MUST_FREE);
    if (!*r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(*r, "Content-Type", html ? "text/html; charset=utf-8" : "application/json");
    /* the page's form may change with the gateway: cached a week, not for ever */
    if (html) MHD_add_response_header(*r, "Cache-Control", "public, max-age=604800, stale-while-revalidate=2678400");
    return MHD_YES;
}

enum MHD_Result ipfsrt_server_redirect_to_slash(ipfsrt_server_request *rq, struct MHD_Connection *c) {
    char location[2048];
    size_t n = ipfsrt_server_encode_path(rq->path ? rq->path : "", location, sizeof location - 2);
    location[n] = '/';
    location[n + 1] = '\0';
    static const char body[] = "a directory: its URL ends with a slash\n";
    struct MHD_Response *r = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Location", location);
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    ipfsrt_server_common_headers(r);
    return ipfsrt_server_queue(rq, c, MHD_HTTP_MOVED_PERMANENTLY, r, sizeof body - 1);
}

ipfsrt_status ipfsrt_server_dir_plan(ipfsrt_server_request *rq, struct MHD_Connection *c, const char *full,
                                     const ipfsrt_unixfs_node_info *dir, ipfsrt_server_dir *plan,
                                     ipfsrt_error *err) {
    *plan = (ipfsrt_server_dir){.cid = dir->cid};
    char s[IPFSRT_CID_STR_MAX];
    ipfsrt_cid_to_string(&dir->cid, s);
    size_t n = strlen(full) + sizeof "/index.html";
    char *index = malloc(n);
    if (!index) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(index, n, "%s%sindex.html", full, full[strlen(full) - 1] == '/' ? "" : "/");
    ipfsrt_status st = ipfsrt_server_resolve(rq, index, NULL, NULL, &plan->index, err);
    free(index);
    if (st != IPFSRT_OK && st != IPFSRT_ENOT_FOUND) return st;
    plan->has_index = st == IPFSRT_OK && plan->index.type == IPFSRT_UNIXFS_FILE;
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    plan->json = !plan->has_index && accept && strstr(accept, "application/json") && !strstr(accept, "text/html");
    if (plan->has_index || plan->json) snprintf(plan->etag, sizeof plan->etag, "\"%s\"", s);
    else snprintf(plan->etag, sizeof plan->etag, "\"DirIndex-ipfsrt1_CID-%s\"", s);
    return IPFSRT_OK;
}

enum MHD_Result ipfsrt_server_dir_answer(ipfsrt_server_request *rq, struct MHD_Connection *c,
                                         const ipfsrt_server_dir *plan, struct MHD_Response **r, unsigned *status,
                                         uint64_t *body) {
    if (plan->has_index) return ipfsrt_server_file_response(rq, c, &plan->index, "index.html", r, status);
    *status = MHD_HTTP_OK;
    return listing_response(rq, c, &plan->cid, !plan->json, r, body);
}
