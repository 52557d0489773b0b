/* The store interface: keys checked once here for every kind of store, single
 * gets made from get_many, and ipfsrt_zarr_store_open choosing the kind from
 * the URL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stdatomic.h>

#include "base/base_internal.h"
#include "zarr/store_internal.h"

/* The openers modules add (ipfsrt_zarr_store_set_opener): set from any
 * thread, read as stores open. */
static _Atomic(ipfsrt_zarr_store_opener) openers[IPFSRT_ZARR_SCHEMES];
static const char *const opener_modules[IPFSRT_ZARR_SCHEMES] = {
    [IPFSRT_ZARR_SCHEME_S3] = "S3 (libipfsrt-s3: ipfsrt_s3_stores_enable)",
    [IPFSRT_ZARR_SCHEME_REMOTE_CAR] = "a CAR read by ranges (libipfsrt-s3: ipfsrt_s3_stores_enable)",
    [IPFSRT_ZARR_SCHEME_REFS] = "kerchunk references (libipfsrt-netcdf: ipfsrt_refs_stores_enable)",
};

void ipfsrt_zarr_store_set_opener(ipfsrt_zarr_scheme kind, ipfsrt_zarr_store_opener opener) {
    if ((unsigned)kind < IPFSRT_ZARR_SCHEMES) atomic_store(&openers[kind], opener);
}

/* A kind of store a module reads: its opener, or an error naming the module. */
static ipfsrt_status open_kind(ipfsrt_zarr_scheme kind, const ipfsrt_zarr_store_ops **ops, void **ctx,
                               const char *url, size_t car_len, const ipfsrt_zarr_store_options *opts,
                               ipfsrt_error *err) {
    ipfsrt_zarr_store_opener open = atomic_load(&openers[kind]);
    if (!open)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%.200s: this program does not read %s", url,
                           opener_modules[kind]);
    return open(ops, ctx, url, car_len, opts, err);
}

struct ipfsrt_zarr_store {
    ipfsrt_zarr_store_ops ops; /* the caller's, taken at its size: what an older struct lacks is NULL */
    void *ctx;
    char *url;
};

ipfsrt_status ipfsrt_zarr_store_new(ipfsrt_zarr_store **out, const ipfsrt_zarr_store_ops *ops, void *ctx,
                                    const char *url, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(ops, err);
    IPFSRT_NEED(url, err);
    *out = NULL;
    ipfsrt_zarr_store_ops taken;
    ipfsrt_status st = IPFSRT_TAKE_CALLBACKS(taken, ops, "ipfsrt_zarr_store_ops", err);
    if (st != IPFSRT_OK) {
        if (IPFSRT_HAS_MEMBER(ops, ipfsrt_zarr_store_ops, free) && ops->free) ops->free(ctx);
        return st;
    }
    ipfsrt_zarr_store *s = calloc(1, sizeof *s);
    char *copy = strdup(url ? url : "(a store)");
    if (!s || !copy) {
        free(s);
        free(copy);
        if (taken.free) taken.free(ctx);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    s->ops = taken;
    s->ctx = ctx;
    s->url = copy;
    *out = s;
    return IPFSRT_OK;
}

void ipfsrt_zarr_store_free(ipfsrt_zarr_store *s) {
    if (!s) return;
    if (s->ops.free) s->ops.free(s->ctx);
    free(s->url);
    free(s);
}

const ipfsrt_zarr_store_ops *ipfsrt_zarr_store_ops_of(const ipfsrt_zarr_store *s, void **ctx) {
    *ctx = s->ctx;
    return &s->ops;
}

const char *ipfsrt_zarr_store_url(const ipfsrt_zarr_store *s) {
    IPFSRT_NEED_OR(s, NULL);
    return s->url;
}
const char *ipfsrt_zarr_store_kind(const ipfsrt_zarr_store *s) {
    IPFSRT_NEED_OR(s, NULL);
    return s->ops.kind;
}
bool ipfsrt_zarr_store_verified(const ipfsrt_zarr_store *s) {
    IPFSRT_NEED_OR(s, false);
    return s->ops.verified;
}
bool ipfsrt_zarr_store_writable(const ipfsrt_zarr_store *s) {
    IPFSRT_NEED_OR(s, false);
    return s->ops.put != NULL;
}
bool ipfsrt_zarr_store_listable(const ipfsrt_zarr_store *s) {
    IPFSRT_NEED_OR(s, false);
    return s->ops.list_dir != NULL;
}

ipfsrt_status ipfsrt_zarr_store_begin(ipfsrt_zarr_store *s, double wait_s, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    return ipfsrt_zarr_folder_is(&s->ops) && s->ops.put ? ipfsrt_zarr_folder_begin(s->ctx, wait_s, err) : IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_store_end(ipfsrt_zarr_store *s, bool commit, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    return ipfsrt_zarr_folder_is(&s->ops) && s->ops.put ? ipfsrt_zarr_folder_end(s->ctx, commit, err) : IPFSRT_OK;
}

/* Keys come from metadata that may be hostile (consolidated names, array
 * paths): none may reach outside the store, whatever the store is. */
ipfsrt_status ipfsrt_zarr_key_check(const char *key, ipfsrt_error *err) {
    IPFSRT_NEED(key, err);
    size_t len = strlen(key);
    if (len == 0 || len > IPFSRT_ZARR_KEY_MAX)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key \"%.80s\" is empty or longer than %d bytes", key,
                           IPFSRT_ZARR_KEY_MAX);
    for (const char *part = key; part;) {
        const char *slash = strchr(part, '/');
        size_t n = slash ? (size_t)(slash - part) : strlen(part);
        if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key \"%.200s\" has an empty, \".\" or \"..\" part", key);
        part = slash ? slash + 1 : NULL;
    }
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '\\')
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "key \"%.200s\" holds a control character or a backslash", key);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_zarr_store_get_many(ipfsrt_zarr_store *s, const ipfsrt_range_request *requests, size_t n,
                                         ipfsrt_range_fn fn, void *user, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(fn, err);
    for (size_t i = 0; i < n; i++) {
        ipfsrt_status st = ipfsrt_zarr_key_check(requests[i].key, err);
        if (st == IPFSRT_OK && !requests[i].from_end && requests[i].length != UINT64_MAX &&
            requests[i].offset > UINT64_MAX - requests[i].length)
            st = ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%.200s: byte range overflows", requests[i].key);
        if (st != IPFSRT_OK) {
            ipfsrt_error_prefix(err, "%s: ", s->url);
            return st;
        }
    }
    return n ? s->ops.get_many(s->ctx, requests, n, fn, user, err) : IPFSRT_OK;
}

typedef struct one_value {
    ipfsrt_buf *out;
    ipfsrt_status status;
    ipfsrt_error error;
} one_value;

static ipfsrt_status keep_value(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    one_value *v = user;
    v->status = r->status;
    v->error = r->error;
    if (r->status == IPFSRT_OK) ipfsrt_buf_append(v->out, r->data, r->len);
    if (v->out->failed)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for %zu bytes", r->len);
    return IPFSRT_OK;
}

static ipfsrt_status get_one(ipfsrt_zarr_store *s, const ipfsrt_range_request *req, ipfsrt_buf *out,
                             ipfsrt_error *err) {
    one_value v = {out, IPFSRT_OK, {0}};
    ipfsrt_status st = ipfsrt_zarr_store_get_many(s, req, 1, keep_value, &v, err);
    if (st != IPFSRT_OK) return st;
    if (v.status != IPFSRT_OK && err) *err = v.error;
    return v.status;
}

ipfsrt_status ipfsrt_zarr_store_get_range(ipfsrt_zarr_store *s, const char *key, uint64_t offset, uint64_t length,
                                          ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    IPFSRT_NEED(out, err);
    ipfsrt_range_request req = {key, offset, length, false};
    return get_one(s, &req, out, err);
}

ipfsrt_status ipfsrt_zarr_store_get_suffix(ipfsrt_zarr_store *s, const char *key, uint64_t length, ipfsrt_buf *out,
                                           ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    ipfsrt_range_request req = {key, 0, length, true};
    return get_one(s, &req, out, err);
}

ipfsrt_status ipfsrt_zarr_store_get(ipfsrt_zarr_store *s, const char *key, ipfsrt_buf *out, ipfsrt_error *err) {
    IPFSRT_NEED(key, err);
    IPFSRT_NEED(out, err);
    return ipfsrt_zarr_store_get_range(s, key, 0, UINT64_MAX, out, err);
}

ipfsrt_status ipfsrt_zarr_store_list_dir(ipfsrt_zarr_store *s, const char *prefix, ipfsrt_zarr_store_name_fn fn,
                                         void *user, ipfsrt_error *err) {
    IPFSRT_NEED(prefix, err);
    IPFSRT_NEED(fn, err);
    if (!s->ops.list_dir)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: this store (%s) cannot list its keys", s->url,
                           s->ops.kind);
    size_t len = strlen(prefix);
    if (len) {
        char key[IPFSRT_ZARR_KEY_MAX + 1];
        if (prefix[len - 1] != '/' || len > IPFSRT_ZARR_KEY_MAX)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: prefix \"%.200s\" does not end in \"/\"", s->url, prefix);
        memcpy(key, prefix, len - 1);
        key[len - 1] = '\0';
        ipfsrt_status st = ipfsrt_zarr_key_check(key, err);
        if (st != IPFSRT_OK) return st;
    }
    return s->ops.list_dir(s->ctx, prefix, fn, user, err);
}

static ipfsrt_status check_writable(ipfsrt_zarr_store *s, const char *key, ipfsrt_error *err) {
    if (!s->ops.put || !s->ops.erase)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: this store (%s) is read-only", s->url, s->ops.kind);
    return ipfsrt_zarr_key_check(key, err);
}

ipfsrt_status ipfsrt_zarr_store_put(ipfsrt_zarr_store *s, const char *key, const void *data, size_t len,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    ipfsrt_status st = check_writable(s, key, err);
    return st == IPFSRT_OK ? s->ops.put(s->ctx, key, data, len, err) : st;
}

ipfsrt_status ipfsrt_zarr_store_erase(ipfsrt_zarr_store *s, const char *key, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    ipfsrt_status st = check_writable(s, key, err);
    return st == IPFSRT_OK ? s->ops.erase(s->ctx, key, err) : st;
}

ipfsrt_status ipfsrt_zarr_store_know(ipfsrt_zarr_store *s, const char *key, const ipfsrt_cid *cid,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    IPFSRT_NEED(cid, err);
    ipfsrt_status st = ipfsrt_zarr_key_check(key, err);
    if (st != IPFSRT_OK || !s->ops.know) return st;
    return s->ops.know(s->ctx, key, cid, err);
}

ipfsrt_status ipfsrt_zarr_unixfs_entry(void *lister, const ipfsrt_unixfs_entry *e, ipfsrt_error *err) {
    ipfsrt_zarr_unixfs_lister *l = lister;
    ipfsrt_zarr_store_entry entry = {e->name, e->tsize, false, &e->cid}; /* the link's cumulative size */
    return l->fn(l->user, &entry, err);
}

static bool has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static bool is_web(const char *url) { return has_prefix(url, "http://") || has_prefix(url, "https://"); }

/* Through IPFS gateways: a CID's path, or a name's (resolved when opened). */
static bool is_ipfs(const char *url) {
    return has_prefix(url, "ipfs://") || has_prefix(url, "/ipfs/") || has_prefix(url, "ipns://") ||
           has_prefix(url, "/ipns/");
}

/* A gateway's "/ipfs/…" or "/ipns/…" before end: a path in IPFS, not a CAR file. */
static bool gateway_path(const char *url, const char *end) {
    const char *p = strstr(url, "/ipfs/"), *q = strstr(url, "/ipns/");
    return (p && p < end) || (q && q < end);
}

/* Where the part of url that names a file starts: after s3://BUCKET/ or the
 * web server's host (a bucket or host may be called team.car), else 0. */
static size_t path_start(const char *url) {
    const char *scheme = strstr(url, "://");
    if (!scheme || (!has_prefix(url, "s3://") && !is_web(url))) return 0;
    const char *slash = strchr(scheme + 3, '/');
    return slash ? (size_t)(slash - url) + 1 : strlen(url);
}

/* A local path's part ends in ".car" and names a file (a folder called x.car is a folder). */
static bool local_car(const char *url, const char *end) {
    if (has_prefix(url, "s3://") || is_web(url)) return true;
    char file[4096];
    struct stat sb;
    if ((size_t)(end - url) >= sizeof file) return true;
    memcpy(file, url, (size_t)(end - url));
    file[end - url] = '\0';
    return stat(file, &sb) != 0 || !S_ISDIR(sb.st_mode);
}

/* "x.car" or "x.car/path" in url's path: where the file name ends, or NULL. */
static const char *car_file_end(const char *url) {
    for (const char *p = strstr(url + path_start(url), ".car"); p; p = strstr(p + 1, ".car"))
        if ((p[4] == '\0' || p[4] == '/') && local_car(url, p + 4)) return p + 4;
    return NULL;
}

void ipfsrt_zarr_store_options_init(ipfsrt_zarr_store_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

ipfsrt_status ipfsrt_zarr_store_new_folder(ipfsrt_zarr_store **out, const char *path, bool writable, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(path, err);
    *out = NULL;
    const ipfsrt_zarr_store_ops *ops = NULL;
    void *ctx = NULL;
    ipfsrt_status st = ipfsrt_zarr_folder_store_open(&ops, &ctx, path, writable, err);
    return st == IPFSRT_OK ? ipfsrt_zarr_store_new(out, ops, ctx, path, err) : st;
}

ipfsrt_status ipfsrt_zarr_store_new_cars(ipfsrt_zarr_store **out, const char *const *car_paths, size_t n_cars,
                                         const char *path, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    *out = NULL;
    if (n_cars == 0) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "no CAR to read");
    size_t file_len = strlen(car_paths[0]), n = file_len + (path ? strlen(path) : 0) + 2;
    char *url = malloc(n);
    if (!url) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(url, n, "%s%s%s", car_paths[0], path && *path ? "/" : "", path ? path : "");
    const ipfsrt_zarr_store_ops *ops = NULL;
    void *ctx = NULL;
    ipfsrt_status st = ipfsrt_zarr_car_store_open(&ops, &ctx, url, file_len, car_paths + 1, n_cars - 1, err);
    if (st == IPFSRT_OK) st = ipfsrt_zarr_store_new(out, ops, ctx, url, err);
    free(url);
    return st;
}

ipfsrt_status ipfsrt_zarr_store_new_car(ipfsrt_zarr_store **out, const char *car_path, const char *path,
                                        ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(car_path, err);
    return ipfsrt_zarr_store_new_cars(out, &car_path, 1, path, err);
}

/* A kerchunk references file: "refs+URL", or a URL whose last part ends in
 * ".json" (but zarr.json, a Zarr v3 node's metadata). */
static bool refs_url(const char *url) {
    if (has_prefix(url, "refs+")) return true;
    size_t n = strcspn(url, "?#");
    const char *name = url + n;
    while (name > url && name[-1] != '/') name--;
    size_t len = n - (size_t)(name - url);
    return len > 5 && memcmp(name + len - 5, ".json", 5) == 0 && !(len == 9 && memcmp(name, "zarr.json", 9) == 0);
}

/* The constructors of stores read through a client: the URL's form checked,
 * then as ipfsrt_zarr_store_open makes them. */
static ipfsrt_status open_as(ipfsrt_zarr_store **out, const char *url, bool form_ok, const char *form,
                             const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    *out = NULL;
    if (!form_ok) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: not %s", url, form);
    return ipfsrt_zarr_store_open(out, url, opts, err);
}

ipfsrt_status ipfsrt_zarr_store_new_ipfs(ipfsrt_zarr_store **out, struct ipfsrt_client *client, const char *url,
                                         ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(url, err);
    ipfsrt_zarr_store_options opts = {.size = sizeof opts, .client = client};
    if (!client) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "an IPFS store needs a client");
    return open_as(out, url, is_ipfs(url), "ipfs://CID[/path] or ipns://NAME[/path]", &opts, err);
}

ipfsrt_status ipfsrt_zarr_store_new_http(ipfsrt_zarr_store **out, const char *url,
                                         const struct ipfsrt_s3_options *s3_options, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(url, err);
    ipfsrt_zarr_store_options opts = {.size = sizeof opts, .s3_options = s3_options};
    return open_as(out, url, is_web(url), "http(s)://...", &opts, err);
}

ipfsrt_status ipfsrt_zarr_store_open(ipfsrt_zarr_store **out, const char *url, const ipfsrt_zarr_store_options *opts,
                                     ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(url, err);
    *out = NULL;
    ipfsrt_zarr_store_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_zarr_store_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    opts = &mine;
    const ipfsrt_zarr_store_ops *ops = NULL;
    void *ctx = NULL;
    ipfsrt_status st;
    const char *car_end = car_file_end(url);
    if (refs_url(url))
        st = open_kind(IPFSRT_ZARR_SCHEME_REFS, &ops, &ctx, url, 0, opts, err);
    else if (is_ipfs(url))
        st = ipfsrt_zarr_gateway_store_open(&ops, &ctx, url, opts, err);
    else if (has_prefix(url, "s3://") && car_end)
        st = open_kind(IPFSRT_ZARR_SCHEME_REMOTE_CAR, &ops, &ctx, url, (size_t)(car_end - url), opts, err);
    else if (has_prefix(url, "s3://"))
        st = open_kind(IPFSRT_ZARR_SCHEME_S3, &ops, &ctx, url, 0, opts, err);
    else if (car_end && is_web(url) && !gateway_path(url, car_end))
        st = open_kind(IPFSRT_ZARR_SCHEME_REMOTE_CAR, &ops, &ctx, url, (size_t)(car_end - url), opts, err);
    else if (is_web(url))
        st = ipfsrt_zarr_http_store_open(&ops, &ctx, url, opts, err);
    else if (car_end && !has_prefix(url, "file://"))
        st = ipfsrt_zarr_car_store_open(&ops, &ctx, url, (size_t)(car_end - url), NULL, 0, err);
    else
        st = ipfsrt_zarr_folder_store_open(&ops, &ctx, has_prefix(url, "file://") ? url + 7 : url, opts->writable,
                                           err);
    if (st != IPFSRT_OK) return st;
    return ipfsrt_zarr_store_new(out, ops, ctx, url, err);
}
