/* Stores over HTTP, on the gateway client's engine: ipfs://CID[/path] with
 * every block verified (many keys in one batch: level by level, a shared
 * chunk directory asked for once), and plain http(s):// URLs, unverified, with
 * the same concurrency. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/client.h"
#include "ipfsrt/path.h"
#include "zarr/store_internal.h"

typedef struct gateway_store {
    ipfsrt_client *client;
    bool own_client;
    bool plain;     /* an http(s) store: a 404 means the key is absent */
    char *base;     /* "ipfs://CID[/path]" or the URL, without a trailing slash */
    ipfsrt_buf paths; /* the batch's paths, NUL-separated */
    ipfsrt_zarr_known known; /* keys asked for by CID */
    ipfsrt_blocksource src;  /* the client's, for a version made of the store */
} gateway_store;

/* base + "/" + key, percent-encoded for plain URLs (the client encodes IPFS
 * paths); "ipfs://CID" for a key whose CID the caller told. */
static void append_path(gateway_store *s, const char *key) {
    const ipfsrt_cid *cid = s->plain ? NULL : ipfsrt_zarr_known_find(&s->known, key);
    if (cid) {
        char text[IPFSRT_CID_STR_MAX];
        ipfsrt_buf_append(&s->paths, "ipfs://", 7);
        ipfsrt_cid_to_string(cid, text);
        ipfsrt_buf_append(&s->paths, text, strlen(text) + 1);
        return;
    }
    ipfsrt_buf_append(&s->paths, s->base, strlen(s->base));
    ipfsrt_buf_append(&s->paths, "/", 1);
    if (s->plain) ipfsrt_url_escape(&s->paths, key, true); /* a failure marks paths failed */
    else ipfsrt_buf_append(&s->paths, key, strlen(key));
    ipfsrt_buf_append(&s->paths, "", 1);
}

/* The requests with the store's keys made the client's paths (in s->paths). */
static ipfsrt_status to_paths(gateway_store *s, const ipfsrt_range_request *requests, size_t n,
                              ipfsrt_range_request *out, ipfsrt_error *err) {
    s->paths.len = 0;
    size_t *starts = malloc(n * sizeof *starts);
    if (!starts) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n; i++) {
        starts[i] = s->paths.len;
        append_path(s, requests[i].key);
    }
    ipfsrt_status st = s->paths.failed ? ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory") : IPFSRT_OK;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        out[i] = requests[i];
        out[i].key = (const char *)s->paths.data + starts[i];
    }
    free(starts);
    return st;
}

typedef struct hand_over_to {
    gateway_store *s;
    const ipfsrt_range_request *requests; /* the store's, for the keys */
    ipfsrt_range_fn fn;
    void *user;
} hand_over_to;

static ipfsrt_status hand_over(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    hand_over_to *h = user;
    ipfsrt_range_result out = *r;
    out.key = h->requests[r->index].key;
    /* a plain server's 404 is all there is to know; a gateway's proves nothing */
    if (h->s->plain && r->status == IPFSRT_EUNAVAILABLE) out.status = IPFSRT_ENOT_FOUND;
    if (out.status != IPFSRT_OK) {
        out.len = 0;
        out.lent = (ipfsrt_lent){0};
    }
    return h->fn(h->user, &out, err);
}

static ipfsrt_status gateway_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n,
                                      ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    gateway_store *s = ctx;
    if (n > SIZE_MAX / sizeof(ipfsrt_range_request)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_range_request *paths = malloc((n ? n : 1) * sizeof *paths);
    if (!paths) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_status st = to_paths(s, requests, n, paths, err);
    hand_over_to h = {s, requests, fn, user};
    if (st == IPFSRT_OK) st = ipfsrt_client_get_many(s->client, paths, n, hand_over, &h, err);
    free(paths);
    return st;
}

static ipfsrt_status gateway_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                      ipfsrt_error *err) {
    gateway_store *s = ctx;
    ipfsrt_zarr_unixfs_lister l = {fn, user};
    char path[IPFSRT_CID_STR_MAX + 2048 + IPFSRT_ZARR_KEY_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", s->base, prefix);
    ipfsrt_status st = ipfsrt_client_ls(s->client, path, false, ipfsrt_zarr_unixfs_entry, &l, err);
    return st == IPFSRT_ENOT_FOUND || st == IPFSRT_ENOT_DIRECTORY ? IPFSRT_OK : st;
}

static ipfsrt_status gateway_know(void *ctx, const char *key, const ipfsrt_cid *cid, ipfsrt_error *err) {
    gateway_store *s = ctx;
    return ipfsrt_zarr_known_add(&s->known, key, cid, err);
}

static void gateway_store_free(void *ctx) {
    gateway_store *s = ctx;
    ipfsrt_zarr_known_free(&s->known);
    if (s->own_client) ipfsrt_client_free(s->client);
    ipfsrt_buf_free(&s->paths);
    free(s->base);
    free(s);
}

static const ipfsrt_zarr_store_ops ipfs_ops = {sizeof(ipfsrt_zarr_store_ops), "ipfs", true, gateway_get_many, gateway_list_dir, NULL, NULL,
                                               gateway_store_free, gateway_know};
static const ipfsrt_zarr_store_ops http_ops = {sizeof(ipfsrt_zarr_store_ops), "http", false, gateway_get_many, NULL, NULL, NULL,
                                               gateway_store_free, NULL};

static ipfsrt_status store_new(gateway_store **out, const char *base, size_t len, ipfsrt_error *err) {
    while (len && base[len - 1] == '/') len--;
    gateway_store *s = calloc(1, sizeof *s);
    if (!s || !(s->base = strndup(base, len))) {
        free(s);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    ipfsrt_buf_init(&s->paths);
    ipfsrt_zarr_known_init(&s->known);
    *out = s;
    return IPFSRT_OK;
}

/* The base keys are read under (no trailing slash). */
static ipfsrt_status store_set_base(gateway_store *s, const char *base, size_t len, ipfsrt_error *err) {
    while (len && base[len - 1] == '/') len--;
    char *copy = strndup(base, len);
    if (!copy) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    free(s->base);
    s->base = copy;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_gateway_store_dag(const ipfsrt_zarr_store_ops *ops, void *ctx,
                                            const ipfsrt_blocksource **src, ipfsrt_cid *root, ipfsrt_error *err) {
    gateway_store *s = ctx;
    if (ops->get_many != gateway_get_many || !ops->verified)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "not an IPFS store");
    const char *cid = s->base + strlen("ipfs://");
    if (strchr(cid, '/'))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: a version is of a root, not of a path inside it", s->base);
    ipfsrt_client_blocksource(s->client, &s->src);
    *src = &s->src;
    return ipfsrt_cid_parse(root, cid, strlen(cid), NULL, err);
}

/* The client the store reads through: the caller's, or one of its own. */
static ipfsrt_status store_client(gateway_store *s, const char *url, const ipfsrt_zarr_store_options *opts,
                                  ipfsrt_error *err) {
    ipfsrt_status st = IPFSRT_OK;
    s->client = opts->client;
    if (!s->client) {
        st = ipfsrt_client_new(&s->client, opts->client_options, err);
        s->own_client = st == IPFSRT_OK;
    }
    if (st == IPFSRT_OK && !ipfsrt_client_verifies(s->client))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: an ipfs:// store needs a verifying client", url);
    return st;
}

/* ipfs://CID[/path], the store's base: an ipns:// URL is resolved once, so
 * that the store reads one version throughout. */
static ipfsrt_status store_base(gateway_store *s, const char *url, ipfsrt_error *err) {
    char *resolved = NULL;
    ipfsrt_status st = IPFSRT_OK;
    if (strncmp(url, "ipns://", 7) == 0 || strncmp(url, "/ipns/", 6) == 0)
        st = ipfsrt_client_resolve_name(s->client, url, &resolved, err);
    ipfsrt_cid root;
    const char *rest;
    if (st == IPFSRT_OK) st = ipfsrt_path_split(resolved ? resolved : url, &root, &rest, err);
    char cid[IPFSRT_CID_STR_MAX], base[IPFSRT_CID_STR_MAX + 2048];
    if (st == IPFSRT_OK) {
        ipfsrt_cid_to_string(&root, cid);
        while (*rest == '/') rest++;
        if ((size_t)snprintf(base, sizeof base, "ipfs://%s%s%s", cid, *rest ? "/" : "", rest) >= sizeof base)
            st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: path too long", url);
    }
    if (st == IPFSRT_OK) st = store_set_base(s, base, strlen(base), err);
    free(resolved);
    return st;
}

ipfsrt_status ipfsrt_zarr_gateway_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                             const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    gateway_store *s = NULL;
    ipfsrt_status st = store_new(&s, "", 0, err);
    if (st != IPFSRT_OK) return st;
    st = store_client(s, url, opts, err);
    if (st == IPFSRT_OK) st = store_base(s, url, err);
    if (st != IPFSRT_OK) {
        gateway_store_free(s);
        return st;
    }
    *ops = &ipfs_ops;
    *ctx = s;
    return IPFSRT_OK;
}

/* scheme://host[:port] of url, as libcurl's URL parser reads it (user and
 * password, path, query and fragment dropped). */
static ipfsrt_status url_origin(const char *url, char *origin, size_t size, ipfsrt_error *err) {
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    CURLUcode rc = u ? curl_url_set(u, CURLUPART_URL, url, 0) : CURLUE_OUT_OF_MEMORY;
    if (rc == CURLUE_OK) rc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    if (rc == CURLUE_OK) rc = curl_url_get(u, CURLUPART_HOST, &host, 0);
    if (rc == CURLUE_OK && curl_url_get(u, CURLUPART_PORT, &port, 0) != CURLUE_OK) port = NULL; /* none given */
    ipfsrt_status st = IPFSRT_OK;
    if (rc != CURLUE_OK)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: not a URL (%s)", url, curl_url_strerror(rc));
    else if ((size_t)snprintf(origin, size, "%s://%s%s%s", scheme, host, port ? ":" : "", port ? port : "") >= size)
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: host too long", url);
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return st;
}

/* The unverified client of an http store: its one gateway is the URL's origin. */
static ipfsrt_status plain_client(gateway_store *s, const char *url, const ipfsrt_zarr_store_options *opts,
                                  ipfsrt_error *err) {
    char origin[1024];
    ipfsrt_status st = url_origin(url, origin, sizeof origin, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_gateway_list list;
    ipfsrt_gateway_list_init(&list);
    st = ipfsrt_gateway_list_add(&list, origin, err);
    ipfsrt_client_options o;
    if (st == IPFSRT_OK) st = IPFSRT_TAKE_OPTIONS(o, opts->client_options, ipfsrt_client_options_init, err);
    o.gateways = &list;
    o.no_verify = true;
    o.cache_bytes = UINT64_MAX;
    o.cache_dir = NULL;
    if (st == IPFSRT_OK) st = ipfsrt_client_new(&s->client, &o, err);
    s->own_client = st == IPFSRT_OK;
    ipfsrt_gateway_list_free(&list);
    return st;
}

ipfsrt_status ipfsrt_zarr_http_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                          const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    gateway_store *s = NULL;
    ipfsrt_status st = store_new(&s, url, strcspn(url, "?#"), err);
    if (st != IPFSRT_OK) return st;
    s->plain = true;
    st = plain_client(s, url, opts, err);
    if (st != IPFSRT_OK) {
        gateway_store_free(s);
        return st;
    }
    *ops = &http_ops;
    *ctx = s;
    return IPFSRT_OK;
}
