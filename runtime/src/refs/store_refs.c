/* A Zarr store over kerchunk references (refs.c): each key's bytes inline, or
 * a byte range of another file read through the store of its folder, or over
 * ipfs:// through the client (verified: only the blocks the range covers).
 * A batch's ranges go out together, those of one file close together (at
 * most GAP apart) as one request. A reference whose file is absent or shorter
 * than the range is an error naming the key and the file, never a missing
 * key (which Zarr would read as fill values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "ipfsrt/client.h"
#include "ipfsrt/refs.h"
#include "refs/refs.h"
#include "zarr/store_internal.h"

#define GAP ((uint64_t)64 << 10)     /* bytes between two ranges read as one */
#define MERGED_MAX ((uint64_t)16 << 20) /* a merged range's most bytes */

typedef struct folder_store {
    char *url;
    ipfsrt_zarr_store *store;
} folder_store;

typedef struct refs_store {
    ipfsrt_zarr_refs refs;
    ipfsrt_zarr_store_options opts; /* for the folders' stores */
    ipfsrt_client *client;          /* ipfs:// targets */
    bool own_client;
    folder_store *folders;
    size_t nfolders;
    size_t *folder_of; /* per target: its folder, SIZE_MAX over ipfs:// */
    const char **name_of; /* per target: its key in the folder's store (into targets) */
} refs_store;

/* One range of one target a request needs, and the merged request it goes in. */
typedef struct piece {
    size_t request;
    size_t target;
    uint64_t offset, length;
    bool from_end;
    bool whole; /* of a reference to a whole file: the request as asked, short at its end */
    size_t merged;
} piece;

typedef struct merged {
    size_t target;
    uint64_t offset, length;
    bool from_end, whole;
    size_t first, count; /* its pieces, in the sorted list */
} merged;

typedef struct batch {
    refs_store *s;
    const ipfsrt_range_request *requests;
    piece *pieces;
    size_t npieces;
    merged *merged;
    size_t nmerged;
    size_t *sent;  /* the merged requests of the current call, by the call's index */
    ipfsrt_range_fn fn;
    void *user;
} batch;

static ipfsrt_status emit(batch *b, const ipfsrt_range_result *r, ipfsrt_error *err) {
    return b->fn(b->user, r, err);
}

/* A request answered without reading anything: absent, or inline bytes. */
static ipfsrt_status answer_inline(batch *b, size_t i, const ipfsrt_zarr_ref *ref, ipfsrt_error *err) {
    const ipfsrt_range_request *q = &b->requests[i];
    ipfsrt_range_result r = {.index = i, .key = q->key, .object_size = UINT64_MAX};
    if (!ref) {
        r.status = ipfsrt_fail(&r.error, IPFSRT_ENOT_FOUND, -1, "%s: no reference", q->key);
        return emit(b, &r, err);
    }
    uint64_t off = q->from_end ? (q->length < ref->len ? ref->len - q->length : 0) : q->offset;
    if (off > ref->len) off = ref->len;
    uint64_t len = q->from_end ? ref->len - off : q->length;
    if (len > ref->len - off) len = ref->len - off;
    r.data = ref->data + off;
    r.len = (size_t)len;
    r.object_size = ref->len;
    return emit(b, &r, err);
}

/* The piece of the target a request for a reference's range needs. */
static piece piece_of(size_t i, const ipfsrt_range_request *q, const ipfsrt_zarr_ref *ref) {
    piece p = {.request = i, .target = ref->target};
    if (ref->length == IPFSRT_REFS_WHOLE) {
        p.offset = q->offset;
        p.length = q->length;
        p.from_end = q->from_end;
        p.whole = true;
        return p;
    }
    uint64_t off = q->from_end ? (q->length < ref->length ? ref->length - q->length : 0) : q->offset;
    if (off > ref->length) off = ref->length;
    uint64_t len = q->from_end ? ref->length - off : q->length;
    p.offset = ref->offset + off;
    p.length = len < ref->length - off ? len : ref->length - off;
    return p;
}

static int by_place(const void *x, const void *y) {
    const piece *a = x, *b = y;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    if (a->from_end != b->from_end) return a->from_end ? 1 : -1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Neighbouring pieces of one target become one request. */
static ipfsrt_status merge_pieces(batch *b, ipfsrt_error *err) {
    if (b->npieces) qsort(b->pieces, b->npieces, sizeof *b->pieces, by_place);
    b->merged = malloc((b->npieces ? b->npieces : 1) * sizeof *b->merged);
    if (!b->merged) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < b->npieces; i++) {
        piece *p = &b->pieces[i];
        merged *m = b->nmerged ? &b->merged[b->nmerged - 1] : NULL;
        bool fits = m && !p->whole && !m->whole && m->target == p->target &&
                    p->offset <= m->offset + m->length + GAP && p->offset + p->length - m->offset <= MERGED_MAX;
        if (fits) {
            uint64_t end = p->offset + p->length > m->offset + m->length ? p->offset + p->length : m->offset + m->length;
            m->length = end - m->offset;
            m->count++;
        } else {
            m = &b->merged[b->nmerged++];
            *m = (merged){p->target, p->offset, p->length, p->from_end, p->whole, i, 1};
        }
        p->merged = (size_t)(m - b->merged);
    }
    return IPFSRT_OK;
}

/* A merged request's answer, cut into its pieces' answers. */
static ipfsrt_status hand_out(void *user, const ipfsrt_range_result *r, ipfsrt_error *err) {
    batch *b = user;
    const merged *m = &b->merged[b->sent[r->index]];
    const char *target = b->s->refs.targets[m->target];
    ipfsrt_status st = IPFSRT_OK;
    for (size_t k = m->first; k < m->first + m->count && st == IPFSRT_OK; k++) {
        const piece *p = &b->pieces[k];
        const ipfsrt_range_request *q = &b->requests[p->request];
        ipfsrt_range_result out = {.index = p->request, .key = q->key, .object_size = UINT64_MAX,
                                   .status = r->status};
        if (r->status != IPFSRT_OK) {
            /* an absent file is not an absent key: Zarr would fill it in */
            out.status = ipfsrt_fail(&out.error, r->status == IPFSRT_ENOT_FOUND ? IPFSRT_EIO : r->status, -1,
                                     "%s: its file %.300s: %s", q->key, target, r->error.message);
            snprintf(out.error.cid, sizeof out.error.cid, "%s", r->error.cid);
        } else if (m->whole) {
            out.data = r->data;
            out.len = r->len;
            out.object_size = r->object_size;
        } else if (p->offset - m->offset + p->length > r->len) {
            out.status = ipfsrt_fail(&out.error, IPFSRT_EBAD_RANGE, -1, "%s: its file %.300s ends before byte %llu, "
                                     "where its reference ends", q->key, target,
                                     (unsigned long long)(p->offset + p->length));
        } else {
            out.data = r->data + (p->offset - m->offset);
            out.len = (size_t)p->length;
        }
        st = emit(b, &out, err);
    }
    return st;
}

/* The merged requests of one place (a folder's store, or the client: folder
 * SIZE_MAX), sent in one call. */
static ipfsrt_status send_place(batch *b, size_t folder, ipfsrt_range_request *calls, ipfsrt_error *err) {
    refs_store *s = b->s;
    size_t n = 0;
    for (size_t i = 0; i < b->nmerged; i++) {
        const merged *m = &b->merged[i];
        if (s->folder_of[m->target] != folder) continue;
        b->sent[n] = i;
        calls[n++] = (ipfsrt_range_request){folder == SIZE_MAX ? s->refs.targets[m->target] : s->name_of[m->target],
                                            m->offset, m->length, m->from_end};
    }
    if (!n) return IPFSRT_OK;
    if (folder == SIZE_MAX) return ipfsrt_client_get_many(s->client, calls, n, hand_out, b, err);
    return ipfsrt_zarr_store_get_many(s->folders[folder].store, calls, n, hand_out, b, err);
}

static ipfsrt_status refs_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                                   void *user, ipfsrt_error *err) {
    refs_store *s = ctx;
    batch b = {.s = s, .requests = requests, .fn = fn, .user = user};
    if (n > SIZE_MAX / sizeof(piece)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    b.pieces = malloc((n ? n : 1) * sizeof *b.pieces);
    ipfsrt_status st = b.pieces ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
        const ipfsrt_zarr_ref *ref = ipfsrt_zarr_refs_find(&s->refs, requests[i].key);
        if (!ref || ref->data) st = answer_inline(&b, i, ref, err);
        else b.pieces[b.npieces++] = piece_of(i, &requests[i], ref);
    }
    if (st == IPFSRT_OK) st = merge_pieces(&b, err);
    ipfsrt_range_request *calls = NULL;
    if (st == IPFSRT_OK && (!(b.sent = malloc((b.nmerged ? b.nmerged : 1) * sizeof *b.sent)) ||
                            !(calls = malloc((b.nmerged ? b.nmerged : 1) * sizeof *calls))))
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st == IPFSRT_OK && s->client) st = send_place(&b, SIZE_MAX, calls, err);
    for (size_t f = 0; f < s->nfolders && st == IPFSRT_OK; f++) st = send_place(&b, f, calls, err);
    free(calls);
    free(b.sent);
    free(b.merged);
    free(b.pieces);
    return st;
}

/* The names directly under prefix: each key's next part, once. */
static ipfsrt_status refs_list_dir(void *ctx, const char *prefix, ipfsrt_zarr_store_name_fn fn, void *user,
                                   ipfsrt_error *err) {
    refs_store *s = ctx;
    size_t plen = strlen(prefix);
    const char *last = NULL;
    size_t last_len = 0;
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < s->refs.count && st == IPFSRT_OK; i++) {
        const ipfsrt_zarr_ref *ref = &s->refs.refs[i];
        if (strncmp(ref->key, prefix, plen) != 0) continue;
        const char *name = ref->key + plen;
        size_t len = strcspn(name, "/");
        if (last && len == last_len && memcmp(name, last, len) == 0) continue; /* sorted: a folder's keys together */
        last = name;
        last_len = len;
        char entry[IPFSRT_ZARR_KEY_MAX + 1];
        snprintf(entry, sizeof entry, "%.*s", (int)len, name);
        bool folder = name[len] == '/';
        uint64_t size = folder ? UINT64_MAX : ref->data ? ref->len : ref->length == IPFSRT_REFS_WHOLE ? UINT64_MAX
                                                                                                 : ref->length;
        ipfsrt_zarr_store_entry e = {entry, size, folder, NULL};
        st = fn(user, &e, err);
    }
    return st;
}

static void refs_store_free(void *ctx) {
    refs_store *s = ctx;
    for (size_t i = 0; i < s->nfolders; i++) {
        ipfsrt_zarr_store_free(s->folders[i].store);
        free(s->folders[i].url);
    }
    free(s->folders);
    free(s->folder_of);
    free(s->name_of);
    if (s->own_client) ipfsrt_client_free(s->client);
    ipfsrt_zarr_refs_free(&s->refs);
    free(s);
}

static const ipfsrt_zarr_store_ops refs_ops = {sizeof(ipfsrt_zarr_store_ops), "refs", false, refs_get_many, refs_list_dir, NULL, NULL,
                                               refs_store_free, NULL};
static const ipfsrt_zarr_store_ops refs_verified_ops = {sizeof(ipfsrt_zarr_store_ops), "refs", true, refs_get_many, refs_list_dir, NULL, NULL,
                                                        refs_store_free, NULL};

static bool over_ipfs(const char *url) { return strncmp(url, "ipfs://", 7) == 0; }

/* Each target's folder (one store for the files of one folder) and its name in it. */
static ipfsrt_status place_targets(refs_store *s, ipfsrt_error *err) {
    size_t n = s->refs.ntargets, cap = 0;
    s->folder_of = malloc((n ? n : 1) * sizeof *s->folder_of);
    s->name_of = malloc((n ? n : 1) * sizeof *s->name_of);
    if (!s->folder_of || !s->name_of) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t t = 0; t < n; t++) {
        const char *url = s->refs.targets[t];
        s->folder_of[t] = SIZE_MAX;
        s->name_of[t] = url;
        if (over_ipfs(url)) continue;
        const char *slash = strrchr(url, '/');
        size_t dir_len = slash ? (size_t)(slash - url) : 0;
        s->name_of[t] = slash ? slash + 1 : url;
        size_t f = 0;
        while (f < s->nfolders && !(strlen(s->folders[f].url) == (dir_len ? dir_len : 1) &&
                                    strncmp(s->folders[f].url, dir_len ? url : ".", dir_len ? dir_len : 1) == 0))
            f++;
        if (f == s->nfolders) {
            if (ipfsrt_array_reserve(&s->folders, &cap, f + 1, sizeof *s->folders) != IPFSRT_OK)
                return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            s->folders[f] = (folder_store){dir_len ? strndup(url, dir_len) : strdup("."), NULL};
            if (!s->folders[f].url) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            s->nfolders++;
        }
        s->folder_of[t] = f;
    }
    return IPFSRT_OK;
}

/* The client ipfs:// targets are read through: the caller's, else one of
 * our own when a target needs it. */
static ipfsrt_status take_client(refs_store *s, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    bool any = false;
    for (size_t t = 0; t < s->refs.ntargets; t++) any |= over_ipfs(s->refs.targets[t]);
    if (!any) return IPFSRT_OK;
    if (!s->client) {
        ipfsrt_status st = ipfsrt_client_new(&s->client, opts->client_options, err);
        if (st != IPFSRT_OK) return st;
        s->own_client = true;
    }
    if (!ipfsrt_client_verifies(s->client) && !opts->allow_unverified)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "references: ipfs:// targets need a verifying client");
    return IPFSRT_OK;
}

static ipfsrt_status folder_store_of(refs_store *s, size_t folder, ipfsrt_zarr_store **out, ipfsrt_error *err) {
    folder_store *f = &s->folders[folder];
    ipfsrt_status st = ipfsrt_zarr_store_open(&f->store, f->url, &s->opts, err);
    *out = f->store;
    return st;
}

/* Beside the references file: a relative target made absolute, inside the
 * file's folder (a CAR's, an IPFS directory's) without climbing out of it. */
static bool beside(const char *target, const char *url) {
    const char *slash = url ? strrchr(url, '/') : NULL;
    size_t folder = slash ? (size_t)(slash - url) + 1 : 0;
    if (!folder || strncmp(target, url, folder) != 0) return false;
    for (const char *p = target + folder; *p; p += strcspn(p, "/"), p += *p == '/')
        if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0')) return false;
    return true;
}

/* References that came checked against a CID name only content-addressed
 * bytes: a local path, file://, http(s):// or s3:// target would hand the
 * reader's own files or network back as part of a verified dataset (and
 * its errors would tell what exists there). Checked before anything is opened. */
static ipfsrt_status confine_targets(const refs_store *s, const char *url, ipfsrt_error *err) {
    for (size_t t = 0; t < s->refs.ntargets; t++) {
        const char *target = s->refs.targets[t];
        if (over_ipfs(target) || beside(target, url)) continue;
        const char *key = "?";
        for (size_t i = 0; i < s->refs.count; i++)
            if (!s->refs.refs[i].data && s->refs.refs[i].target == t) {
                key = s->refs.refs[i].key;
                break;
            }
        return ipfsrt_fail(err, IPFSRT_EUNVERIFIED, -1, "references %.200s: key %.200s points outside IPFS, "
                           "at %.200s: references read verified may only name ipfs:// targets or files beside "
                           "them (read unverified to follow it: --no-verify, verify = false)", url, key, target);
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_refs_store_open(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *json,
                                          size_t len, const char *url, ipfsrt_refs_origin origin,
                                          const ipfsrt_zarr_store_options *opts, bool own_client,
                                          ipfsrt_error *err) {
    refs_store *s = calloc(1, sizeof *s);
    if (!s) {
        if (own_client) ipfsrt_client_free(opts->client);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    s->opts = *opts;
    s->opts.writable = false;
    s->client = opts->client;
    s->own_client = own_client && opts->client;
    ipfsrt_status st = ipfsrt_zarr_refs_parse(&s->refs, json, len, url, err);
    if (st == IPFSRT_OK && origin == IPFSRT_REFS_VERIFIED && !opts->allow_unverified)
        st = confine_targets(s, url, err);
    if (st == IPFSRT_OK) st = place_targets(s, err);
    if (st == IPFSRT_OK) st = take_client(s, opts, err);
    s->opts.client = s->client;
    bool verified = origin != IPFSRT_REFS_UNVERIFIED; /* and every folder's store: ipfs:// targets are */
    for (size_t f = 0; f < s->nfolders && st == IPFSRT_OK; f++) {
        ipfsrt_zarr_store *store;
        if ((st = folder_store_of(s, f, &store, err)) != IPFSRT_OK)
            ipfsrt_error_prefix(err, "references: the folder %s: ", s->folders[f].url);
        else verified = verified && ipfsrt_zarr_store_verified(store);
    }
    if (st != IPFSRT_OK) {
        refs_store_free(s);
        return st;
    }
    *ops = verified ? &refs_verified_ops : &refs_ops;
    *ctx = s;
    return IPFSRT_OK;
}

/* The references file's bytes, read through the store of its folder (at most
 * IPFSRT_REFS_MAX_JSON + 1 of them: more is refused by the parser). */
static ipfsrt_status read_refs_file(const char *url, const ipfsrt_zarr_store_options *opts, ipfsrt_buf *json,
                                    bool *verified, ipfsrt_error *err) {
    const char *scheme = strstr(url, "://");
    const char *slash = strrchr(url, '/');
    if (slash && scheme && slash < scheme + 3) slash = NULL;
    if (slash && !slash[1])
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.300s: references are a file, not a folder", url);
    if (!slash && scheme)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.300s: references are read from a folder "
                           "(ipfs://CID/refs.json, not a bare CID)", url);
    char *folder = slash ? strndup(url, (size_t)(slash - url)) : strdup(".");
    if (!folder) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_zarr_store *store = NULL;
    ipfsrt_status st = ipfsrt_zarr_store_open(&store, folder, opts, err);
    if (st == IPFSRT_OK)
        st = ipfsrt_zarr_store_get_range(store, slash ? slash + 1 : url, 0, IPFSRT_REFS_MAX_JSON + 1, json, err);
    if (st == IPFSRT_OK && json->failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    *verified = st == IPFSRT_OK && ipfsrt_zarr_store_verified(store);
    ipfsrt_zarr_store_free(store);
    free(folder);
    return st;
}

ipfsrt_status ipfsrt_refs_store_open_url(const ipfsrt_zarr_store_ops **ops, void **ctx, const char *url,
                                         size_t car_len, const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    (void)car_len; /* references are no CAR */
    if (strncmp(url, "refs+", 5) == 0) url += 5;
    ipfsrt_zarr_store_options o = *opts;
    bool ipfs = over_ipfs(url) || strncmp(url, "/ipfs/", 6) == 0;
    ipfsrt_status st = IPFSRT_OK;
    if (ipfs && !o.client) st = ipfsrt_client_new(&o.client, opts->client_options, err); /* the file's and the targets' */
    bool own = ipfs && !opts->client && st == IPFSRT_OK, verified = false;
    ipfsrt_buf json;
    ipfsrt_buf_init(&json);
    if (st == IPFSRT_OK) st = read_refs_file(url, &o, &json, &verified, err);
    if (st == IPFSRT_OK) {
        own = false; /* the store's from here, whatever becomes of it */
        st = ipfsrt_refs_store_open(ops, ctx, (const char *)json.data, json.len, url,
                                    verified ? IPFSRT_REFS_VERIFIED : IPFSRT_REFS_UNVERIFIED, &o,
                                    ipfs && !opts->client, err);
    }
    if (own) ipfsrt_client_free(o.client);
    ipfsrt_buf_free(&json);
    return st;
}

void ipfsrt_refs_stores_enable(void) { ipfsrt_zarr_store_set_opener(IPFSRT_ZARR_SCHEME_REFS, ipfsrt_refs_store_open_url); }

ipfsrt_status ipfsrt_refs_store_new(ipfsrt_zarr_store **out, const char *json, size_t len, const char *url,
                                    const ipfsrt_zarr_store_options *opts, ipfsrt_error *err) {
    if (!out) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_refs_store_new: store is NULL");
    *out = NULL;
    if (!json) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "ipfsrt_refs_store_new: json is NULL");
    ipfsrt_zarr_store_options mine;
    ipfsrt_status st = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_zarr_store_options_init, err);
    const ipfsrt_zarr_store_ops *ops = NULL;
    void *ctx = NULL;
    if (st == IPFSRT_OK) st = ipfsrt_refs_store_open(&ops, &ctx, json, len, url, IPFSRT_REFS_CALLERS, &mine, false, err);
    return st == IPFSRT_OK ? ipfsrt_zarr_store_new(out, ops, ctx, url ? url : "(references)", err) : st;
}
