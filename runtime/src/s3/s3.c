/* The S3 client: where a bucket is and how to sign for it (taken as AWS tools
 * take it), and operations run as a set of requests on one HTTP engine. Each
 * request is judged when its transfer ends: used, the key absent, moved to the
 * bucket's region (asked again there, once), worth another try after a pause
 * (429, 5xx, broken transfers), or an error naming the key, the bucket and
 * what S3 said. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "http/fetch.h"
#include "s3/s3_internal.h"
#include "ipfsrt/hash.h"

#define ERROR_BODY_MAX (64u << 10)
#define OBJECT_MAX ((uint64_t)2 << 30) /* one value read into memory */
#define PRESIZE_MAX ((uint64_t)64 << 20)
#define MAX_BACKOFF_S 20.0
#define LIST_PAGES_MAX 100000
#define LIST_PAGE_MAX ((size_t)16 << 20) /* S3 pages hold 1000 keys: well under this */

struct ipfsrt_s3 {
    char *bucket, *endpoint; /* endpoint NULL: AWS, virtual-hosted */
    bool plain;              /* not S3: keys are paths under endpoint, nothing signed */
    char region[64];
    char *access_key, *secret_key, *session_token, *userpwd;
    bool anonymous, forbidden_is_absent;
    unsigned retries;
    double backoff_s;
    uint64_t part_size;
    ipfsrt_fetch *engine;
    char describe[300];
    ipfsrt_s3_stats stats;
};

/* ------------------------------------------------------------ where, how */

static const char *pick(const char *given, const char *env1, const char *env2) {
    if (given && *given) return given;
    const char *v = env1 ? getenv(env1) : NULL;
    if (v && *v) return v;
    v = env2 ? getenv(env2) : NULL;
    return v && *v ? v : NULL;
}

static void wipe_free(char *s) {
    if (s) explicit_bzero(s, strlen(s));
    free(s);
}

static bool dup_opt(char **out, const char *v) {
    *out = v ? strdup(v) : NULL;
    return !v || *out;
}

static ipfsrt_status take_credentials(ipfsrt_s3 *s, const ipfsrt_s3_options *o, ipfsrt_error *err) {
    const char *no_sign = getenv("AWS_NO_SIGN_REQUEST");
    s->anonymous = o->anonymous > 0 || (o->anonymous == 0 && no_sign && !strcasecmp(no_sign, "yes"));
    if (s->anonymous) return IPFSRT_OK;
    const char *key = pick(o->access_key, "AWS_ACCESS_KEY_ID", NULL);
    const char *secret = pick(o->secret_key, "AWS_SECRET_ACCESS_KEY", NULL);
    if (!key || !secret)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: no credentials (set AWS_ACCESS_KEY_ID and "
                           "AWS_SECRET_ACCESS_KEY, or ask for anonymous requests: AWS_NO_SIGN_REQUEST=YES)",
                           s->describe);
    if (strchr(key, ':')) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: an access key id has no ':'", s->describe);
    size_t n = strlen(key) + strlen(secret) + 2;
    if (!dup_opt(&s->access_key, key) || !dup_opt(&s->secret_key, secret) ||
        !dup_opt(&s->session_token, pick(o->session_token, "AWS_SESSION_TOKEN", NULL)) || !(s->userpwd = malloc(n)))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(s->userpwd, n, "%s:%s", key, secret);
    return IPFSRT_OK;
}

/* Bucket names as S3 allows them (and so safe in a host name and a path). */
static bool bucket_name_ok(const char *b) {
    size_t n = strlen(b);
    if (n < 3 || n > 63) return false;
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= '0' && b[i] <= '9') || b[i] == '-' || b[i] == '.'))
            return false;
    return true;
}

static void describe(ipfsrt_s3 *s) {
    if (s->plain) snprintf(s->describe, sizeof s->describe, "%s", s->endpoint);
    else if (s->endpoint) snprintf(s->describe, sizeof s->describe, "s3://%s at %s", s->bucket, s->endpoint);
    else snprintf(s->describe, sizeof s->describe, "s3://%s in %s", s->bucket, s->region);
}

static ipfsrt_status configure(ipfsrt_s3 *s, const char *bucket, const ipfsrt_s3_options *o, ipfsrt_error *err) {
    if (!bucket_name_ok(bucket))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "'%.80s' is not an S3 bucket name", bucket);
    const char *endpoint = pick(o->endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    if (endpoint && strncmp(endpoint, "http://", 7) != 0 && strncmp(endpoint, "https://", 8) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "S3 endpoint %.200s is not an http(s):// URL", endpoint);
    if (!dup_opt(&s->bucket, bucket) || !dup_opt(&s->endpoint, endpoint))
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (s->endpoint) {
        size_t n = strlen(s->endpoint);
        while (n && s->endpoint[n - 1] == '/') s->endpoint[--n] = 0;
    }
    const char *region = pick(o->region, "AWS_REGION", "AWS_DEFAULT_REGION");
    snprintf(s->region, sizeof s->region, "%s", region ? region : "us-east-1");
    describe(s);
    return take_credentials(s, o, err);
}

/* A plain web server: only the base URL. */
static ipfsrt_status configure_plain(ipfsrt_s3 *s, const char *base_url, ipfsrt_error *err) {
    if (strncmp(base_url, "http://", 7) != 0 && strncmp(base_url, "https://", 8) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s is not an http(s):// URL", base_url);
    for (const char *p = base_url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: a URL has no spaces or control characters", base_url);
    if (!dup_opt(&s->endpoint, base_url)) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    size_t n = strlen(s->endpoint);
    while (n > 8 && s->endpoint[n - 1] == '/') s->endpoint[--n] = 0;
    s->plain = s->anonymous = true;
    describe(s);
    return IPFSRT_OK;
}

void ipfsrt_s3_options_init(ipfsrt_s3_options *opts) {
    IPFSRT_NEED_OR(opts, );
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

static ipfsrt_status s3_new(ipfsrt_s3 **out, const char *bucket, const char *base_url, const ipfsrt_s3_options *opts,
                            ipfsrt_error *err) {
    *out = NULL;
    ipfsrt_s3_options mine;
    ipfsrt_status taken = IPFSRT_TAKE_OPTIONS(mine, opts, ipfsrt_s3_options_init, err);
    if (taken != IPFSRT_OK) return taken;
    const ipfsrt_s3_options *o = &mine;
    ipfsrt_s3 *s = calloc(1, sizeof *s);
    if (!s) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    s->forbidden_is_absent = o->forbidden_is_absent;
    s->retries = o->retries ? o->retries : 3;
    s->backoff_s = o->backoff_s > 0 ? o->backoff_s : 0.2;
    s->part_size = o->part_size ? o->part_size : (uint64_t)64 << 20;
    ipfsrt_status st = bucket ? configure(s, bucket, o, err) : configure_plain(s, base_url, err);
    if (st == IPFSRT_OK && s->part_size < ((uint64_t)5 << 20))
        st = ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: parts are at least 5 MiB (S3's smallest)", s->describe);
    ipfsrt_fetch_config cfg = {.slots = 1, .per_slot = o->concurrency ? o->concurrency : 16,
                               .stall_timeout_ms = o->timeout_ms, .first_byte_timeout_ms = o->timeout_ms,
                               .ca_file = o->ca_file};
    if (st == IPFSRT_OK) st = ipfsrt_fetch_new(&s->engine, &cfg, err);
    if (st != IPFSRT_OK) {
        ipfsrt_s3_free(s);
        return st;
    }
    *out = s;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_new(ipfsrt_s3 **out, const char *bucket, const ipfsrt_s3_options *opts, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(bucket, err);
    return s3_new(out, bucket, NULL, opts, err);
}

ipfsrt_status ipfsrt_s3_new_http(ipfsrt_s3 **out, const char *base_url, const ipfsrt_s3_options *opts,
                                 ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(base_url, err);
    return s3_new(out, NULL, base_url, opts, err);
}

void ipfsrt_s3_free(ipfsrt_s3 *s) {
    if (!s) return;
    ipfsrt_fetch_free(s->engine);
    free(s->bucket);
    free(s->endpoint);
    free(s->access_key);
    wipe_free(s->secret_key);
    wipe_free(s->session_token);
    wipe_free(s->userpwd);
    free(s);
}

ipfsrt_status ipfsrt_s3_url_split(const char *url, size_t len, char *bucket, size_t cap, const char **rest,
                                  size_t *rest_len, ipfsrt_error *err) {
    IPFSRT_NEED(bucket, err);
    IPFSRT_NEED(rest, err);
    IPFSRT_NEED(rest_len, err);
    if (len < 5 || strncmp(url, "s3://", 5) != 0)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: not s3://bucket/key", url);
    const char *b = url + 5, *end = url + len, *slash = memchr(b, '/', (size_t)(end - b));
    size_t n = slash ? (size_t)(slash - b) : (size_t)(end - b);
    if (!n || n >= cap) return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%.200s: no bucket name", url);
    memcpy(bucket, b, n);
    bucket[n] = 0;
    const char *p = slash ? slash + 1 : end;
    while (p < end && *p == '/') p++;
    size_t pn = (size_t)(end - p);
    while (pn && p[pn - 1] == '/') pn--;
    *rest = p;
    *rest_len = pn;
    return IPFSRT_OK;
}


const char *ipfsrt_s3_describe(const ipfsrt_s3 *s) {
    IPFSRT_NEED_OR(s, NULL);
    return s->describe;
}

uint64_t ipfsrt_s3_part_size(const ipfsrt_s3 *s) { return s->part_size; }

void ipfsrt_s3_get_stats(const ipfsrt_s3 *s, ipfsrt_s3_stats *stats) {
    IPFSRT_NEED_OR(s, );
    IPFSRT_NEED_OR(stats, );
    ipfsrt_stats_hand_over(stats, &s->stats, sizeof s->stats);
}

/* -------------------------------------------------------------- encoding */

bool ipfsrt_s3_uri_encode(const char *in, bool keep_slash, char *out, size_t cap) {
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    bool ok = ipfsrt_url_escape(&b, in, keep_slash) && b.len < cap;
    if (ok && b.len) memcpy(out, b.data, b.len); /* an empty name leaves the buffer without data */
    if (ok) out[b.len] = '\0';
    ipfsrt_buf_free(&b);
    return ok;
}

/* The URL of key (and a canonical query: sorted, encoded), path-style at a
 * custom endpoint, virtual-hosted at AWS. */
static bool object_url(const ipfsrt_s3 *s, const char *key, const char *query, char *out, size_t cap) {
    char enc[3 * 1024 + 8];
    if (!ipfsrt_s3_uri_encode(key, true, enc, sizeof enc)) return false;
    if (s->plain) {
        int n = snprintf(out, cap, "%s%s%s", s->endpoint, *enc ? "/" : "", enc);
        return n > 0 && (size_t)n < cap;
    }
    int n = s->endpoint ? snprintf(out, cap, "%s/%s%s%s%s%s", s->endpoint, s->bucket, *enc ? "/" : "", enc,
                                   query ? "?" : "", query ? query : "")
                        : snprintf(out, cap, "https://%s.s3.%s.amazonaws.com/%s%s%s", s->bucket, s->region, enc,
                                   query ? "?" : "", query ? query : "");
    return n > 0 && (size_t)n < cap;
}

/* ------------------------------------------------------------- requests */


static const char *method_of(op_kind k) {
    return k == OP_PUT ? "PUT" : k == OP_POST ? "POST" : k == OP_DELETE ? "DELETE" : "GET";
}

static void range_header(const s3_op *o, char *out, size_t cap) {
    if (o->kind != OP_GET || (!o->suffix_asked && o->from == 0 && o->to == UINT64_MAX)) out[0] = 0;
    else if (o->suffix_asked) snprintf(out, cap, "-%llu", (unsigned long long)o->length);
    else if (o->to == UINT64_MAX) snprintf(out, cap, "%llu-", (unsigned long long)o->from);
    else snprintf(out, cap, "%llu-%llu", (unsigned long long)o->from, (unsigned long long)o->to);
}

/* A suffix answered with other bytes (some servers send the object from its
 * start): the range it stands for is known from Content-Range now. */
static bool suffix_missed(s3_op *o) {
    uint64_t a, b, total;
    if (!ipfsrt_fetch_content_range_parse(o->content_range, &a, &b, &total) || total == UINT64_MAX) return false;
    uint64_t want_a = total > o->length ? total - o->length : 0;
    if (a == want_a && b == total - 1) return false;
    o->suffix_asked = false;
    o->from = want_a, o->to = total - 1;
    o->range_fixed = true;
    return true;
}

static int op_head(void *user, const ipfsrt_fetch_head *head) {
    s3_op *o = user;
    o->head = *head;
    snprintf(o->content_range, sizeof o->content_range, "%s", head->content_range);
    snprintf(o->region, sizeof o->region, "%s", head->bucket_region);
    snprintf(o->etag, sizeof o->etag, "%s", head->etag);
    bool data = head->status == 200 || head->status == 206 || (head->status == 204 && o->kind == OP_DELETE);
    if (!data) {
        o->xml_on = ipfsrt_s3_xml_init(&o->xml, NULL, NULL, NULL) == IPFSRT_OK;
        return 0;
    }
    if (o->kind == OP_GET && head->status == 206 && o->suffix_asked && !o->range_fixed && suffix_missed(o)) {
        o->reask = true; /* asked again at once as the range now known (judge), its body never read */
        return 1;
    }
    /* a part holds at most the bytes asked (a suffix: its length); a whole object up to OBJECT_MAX */
    uint64_t asked = o->suffix_asked ? o->length : o->to != UINT64_MAX ? o->to - o->from + 1 : OBJECT_MAX;
    o->body_cap = o->kind == OP_LIST ? LIST_PAGE_MAX : o->kind == OP_GET && head->status == 206 ? asked : OBJECT_MAX;
    if (head->content_length > 0 && (uint64_t)head->content_length > o->body_cap) return 1;
    /* the body's room at once, rather than growing it piece by piece (up to a
     * size no false Content-Length can make costly) */
    if (head->content_length > 0 && (uint64_t)head->content_length <= PRESIZE_MAX)
        (void)ipfsrt_buf_reserve(&o->body, (size_t)head->content_length);
    return 0;
}

static int op_body(void *user, const uint8_t *data, size_t len) {
    s3_op *o = user;
    o->s3->stats.bytes += len;
    if (o->xml_on) {
        if (o->body.len + len > ERROR_BODY_MAX) return 1;
        o->body.len += len; /* counted, not kept */
        return ipfsrt_s3_xml_feed(&o->xml, data, len, NULL) != IPFSRT_OK;
    }
    if (o->sink) {
        o->sunk += len;
        if (o->sink(o->sink_user, data, len, &o->sink_error) == IPFSRT_OK) return 0;
        o->sink_failed = true;
        return 1;
    }
    if (o->body.len + len > o->body_cap) return 1; /* refused as soon as it is longer than asked */
    ipfsrt_buf_append(&o->body, data, len);
    return o->body.failed;
}

static void op_finished(void *user, const ipfsrt_fetch_result *res);

static const char *security_token_header(const ipfsrt_s3 *s, char *out, size_t cap) {
    if (!s->session_token) return NULL;
    snprintf(out, cap, "x-amz-security-token: %s", s->session_token);
    return out;
}

/* The next bytes of the op's piece of its file: positioned reads, so that
 * the parts of one file go out side by side. */
static size_t read_put_file(void *user, uint8_t *buf, size_t cap) {
    s3_op *o = user;
    uint64_t left = o->put_size - o->put_sent;
    if (cap > left) cap = (size_t)left;
    if (!cap) return 0;
    ssize_t n = pread(o->put_fd, buf, cap, (off_t)(o->put_offset + o->put_sent));
    if (n <= 0) return SIZE_MAX; /* the file shrank or failed: the transfer stops */
    o->put_sent += (uint64_t)n;
    return (size_t)n;
}

static const char *content_type(op_kind kind) {
    return kind == OP_PUT ? "Content-Type: application/octet-stream"
           : kind == OP_POST ? "Content-Type: application/xml" : NULL;
}

/* Sends the op's request now (a body from a file: from its start again). */
static ipfsrt_status op_send(s3_op *o, ipfsrt_error *err) {
    ipfsrt_s3 *s = o->s3;
    o->put_sent = 0;
    char url[8192], range[64], sha[100], token[4200], sigv4[128];
    if (!object_url(s, o->key, o->query, url, sizeof url))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "%s: key %.200s makes too long a URL", s->describe, o->key);
    range_header(o, range, sizeof range);
    bool has_body = o->kind == OP_PUT || o->kind == OP_POST;
    snprintf(sha, sizeof sha, "x-amz-content-sha256: %s", has_body ? o->put_sha : "UNSIGNED-PAYLOAD");
    snprintf(sigv4, sizeof sigv4, "aws:amz:%s:s3", s->region);
    snprintf(o->sent_region, sizeof o->sent_region, "%s", s->region);
    const char *tok = security_token_header(s, token, sizeof token);
    const char *type = content_type(o->kind);
    const char *headers[] = {sha, type ? type : tok, type ? tok : NULL, NULL};
    ipfsrt_fetch_spec spec = {.url = url, .range = range[0] ? range : NULL, .method = method_of(o->kind),
                              .body = o->put_data, .body_len = o->put_len,
                              .body_read = o->put_fd >= 0 ? read_put_file : NULL, .body_size = o->put_size,
                              .headers = s->anonymous ? NULL : headers,
                              .aws_sigv4 = s->anonymous ? NULL : sigv4, .userpwd = s->anonymous ? NULL : s->userpwd,
                              .on_head = op_head, .on_body = op_body, .on_done = op_finished, .user = o};
    ipfsrt_buf_free(&o->body);
    ipfsrt_buf_init(&o->body);
    if (o->xml_on) ipfsrt_s3_xml_free(&o->xml);
    o->xml_on = false;
    memset(&o->head, 0, sizeof o->head);
    o->content_range[0] = o->region[0] = 0;
    s->stats.requests++;
    o->state = OP_RUNNING;
    return ipfsrt_fetch_start(s->engine, &spec, &o->req, err);
}

/* --------------------------------------------------------------- judging */

static void op_fail(s3_op *o, ipfsrt_status st, const char *fmt, const char *detail) {
    o->status = st;
    ipfsrt_fail(&o->error, st, -1, "%s: %s%s%s", o->s3->describe, o->key, fmt, detail ? detail : "");
    o->state = OP_DONE;
}

static bool retryable(const s3_op *o, const ipfsrt_fetch_result *res) {
    if (res->end == IPFSRT_FETCH_CONNECT || res->end == IPFSRT_FETCH_TIMEOUT || res->end == IPFSRT_FETCH_BROKEN)
        return true;
    long st = o->head.status ? o->head.status : res->status;
    return res->end == IPFSRT_FETCH_DONE && (st == 429 || st == 500 || st == 502 || st == 503 || st == 504);
}

/* Tries again after a pause (Retry-After when longer); false when the rounds are spent. */
static bool retry_later(s3_op *o, const ipfsrt_fetch_result *res) {
    if (o->round >= o->s3->retries) return false;
    double pause = o->s3->backoff_s * pow(2.0, o->round);
    if (res->retry_after_s > pause) pause = res->retry_after_s;
    if (pause > MAX_BACKOFF_S) pause = MAX_BACKOFF_S;
    o->round++;
    o->s3->stats.retries++;
    o->wake_at = ipfsrt_clock() + pause;
    o->state = OP_WAITING;
    return true;
}

/* S3's own words for an error answer: "AccessDenied: Access Denied". */
static void s3_words(s3_op *o, char *out, size_t cap) {
    if (o->xml_on) (void)ipfsrt_s3_xml_finish(&o->xml, NULL);
    const char *code = o->xml_on ? o->xml.code : "", *message = o->xml_on ? o->xml.message : "";
    snprintf(out, cap, " (HTTP %ld%s%s%s%s)", o->head.status, *code ? ", " : "", code, *message ? ": " : "", message);
}

/* A 301/307/400 that names the bucket's region: asked again there, once. */
static bool moved(s3_op *o) {
    if (o->s3->plain) return false;
    const char *region = o->region[0] ? o->region : o->xml_on ? o->xml.region : "";
    long st = o->head.status;
    if (o->moved || !*region || (st != 301 && st != 307 && st != 400) || strlen(region) >= sizeof o->s3->region ||
        strcmp(region, o->sent_region) == 0)
        return false;
    if (strcmp(region, o->s3->region) != 0) { /* the first to hear it moves the bucket for all */
        snprintf(o->s3->region, sizeof o->s3->region, "%s", region);
        describe(o->s3);
    }
    o->moved = true;
    o->state = OP_READY;
    return true;
}

/* An answer that is not the bytes: absent, denied, moved, or an error. */
static void judge_refusal(s3_op *o) {
    char words[700];
    s3_words(o, words, sizeof words);
    const char *code = o->xml_on ? o->xml.code : "";
    long st = o->head.status;
    if (moved(o)) return;
    if (o->kind == OP_DELETE && st == 404 && strcmp(code, "NoSuchBucket") != 0) {
        o->status = IPFSRT_OK;
        o->state = OP_DONE;
    } else if (st == 404 && strcmp(code, "NoSuchBucket") == 0) {
        op_fail(o, IPFSRT_EDENIED, ": no such bucket", words);
    } else if (st == 404 && o->kind == OP_GET) {
        op_fail(o, IPFSRT_ENOT_FOUND, ": no such key", words);
    } else if (st == 403 && o->kind == OP_GET && o->s3->forbidden_is_absent) {
        op_fail(o, IPFSRT_ENOT_FOUND, ": forbidden, taken as absent", words);
    } else if (st == 401 || st == 403) {
        op_fail(o, IPFSRT_EDENIED, ": refused", words);
    } else {
        op_fail(o, IPFSRT_EFETCH_FAILED, ": failed", words);
    }
}

/* A 200 is the whole object: the part asked is cut from it. */
static void take_whole(s3_op *o) {
    uint64_t size = o->body.len, from, len;
    if (o->from_end) {
        len = o->length < size ? o->length : size;
        from = size - len;
    } else {
        from = o->offset < size ? o->offset : size;
        len = o->length < size - from ? o->length : size - from;
    }
    o->object_size = size;
    o->data_at = (size_t)from;
    o->data_len = (size_t)len;
    o->status = IPFSRT_OK;
    o->state = OP_DONE;
}

/* A 206 counts only when its Content-Range is what was asked (a suffix
 * answered from the start was asked again as soon as its head came: op_head). */
static void take_part(s3_op *o) {
    uint64_t a, b, total;
    char got[160];
    snprintf(got, sizeof got, " (Content-Range '%s')", o->content_range);
    if (!ipfsrt_fetch_content_range_parse(o->content_range, &a, &b, &total) || total == UINT64_MAX) {
        op_fail(o, IPFSRT_EFETCH_FAILED, ": a partial answer without a usable Content-Range", got);
        return;
    }
    uint64_t want_a = o->suffix_asked ? (total > o->length ? total - o->length : 0) : o->from;
    uint64_t want_b = o->suffix_asked || o->to == UINT64_MAX || o->to >= total ? total - 1 : o->to;
    if (a != want_a || b != want_b || o->body.len != b - a + 1) {
        op_fail(o, IPFSRT_EFETCH_FAILED, ": the answer holds other bytes than asked", got);
        return;
    }
    o->object_size = total;
    o->data_at = 0;
    o->data_len = o->body.len;
    o->status = IPFSRT_OK;
    o->state = OP_DONE;
}

/* Bytes past the end of the object (416): none. */
static void take_nothing(s3_op *o) {
    uint64_t a, b, total;
    o->object_size = ipfsrt_fetch_content_range_parse(o->content_range, &a, &b, &total) ? total : UINT64_MAX;
    if (o->content_range[0] == 'b' && !strncmp(o->content_range, "bytes */", 8))
        o->object_size = strtoull(o->content_range + 8, NULL, 10);
    o->data_at = o->data_len = 0;
    o->status = IPFSRT_OK;
    o->state = OP_DONE;
}

static void judge(s3_op *o, const ipfsrt_fetch_result *res) {
    long st = o->head.status ? o->head.status : res->status;
    if (res->end == IPFSRT_FETCH_DONE && !o->head.status) o->head.status = st;
    if (o->sink_failed) {
        o->status = o->sink_error.code ? o->sink_error.code : IPFSRT_ECANCELED;
        o->error = o->sink_error;
        o->state = OP_DONE;
    } else if (retryable(o, res) && !o->sunk) {
        if (retry_later(o, res)) return;
        char why[400];
        snprintf(why, sizeof why, " after %u tries: %s", o->round + 1,
                 res->end == IPFSRT_FETCH_DONE ? "HTTP error" : res->detail);
        op_fail(o, IPFSRT_EFETCH_FAILED, ": failed", why);
    } else if (res->end == IPFSRT_FETCH_ABORTED && o->reask) {
        o->reask = false;
        o->state = OP_READY; /* a suffix answered from the start: asked again as a range (op_head) */
    } else if (res->end == IPFSRT_FETCH_TOO_LARGE || res->end == IPFSRT_FETCH_ABORTED) {
        op_fail(o, IPFSRT_ETOO_LARGE, ": the answer is larger than asked or allowed", NULL);
    } else if (res->end != IPFSRT_FETCH_DONE) {
        op_fail(o, IPFSRT_EFETCH_FAILED, ": ", res->detail);
    } else if (o->kind == OP_GET && st == 200) {
        take_whole(o);
    } else if (o->kind == OP_GET && st == 206) {
        take_part(o);
    } else if (o->kind == OP_GET && st == 416) {
        take_nothing(o);
    } else if (st == 200 || (st == 204 && o->kind == OP_DELETE)) {
        o->status = IPFSRT_OK;
        o->state = OP_DONE;
    } else {
        judge_refusal(o);
    }
}

static void op_finished(void *user, const ipfsrt_fetch_result *res) {
    s3_op *o = user;
    o->req = NULL;
    judge(o, res);
}

static void op_free(s3_op *o) {
    if (o->req) ipfsrt_fetch_cancel(o->s3->engine, o->req);
    o->req = NULL;
    ipfsrt_buf_free(&o->body);
    if (o->xml_on) ipfsrt_s3_xml_free(&o->xml);
    o->xml_on = false;
}

/* ------------------------------------------------------------- the loop */

static ipfsrt_status start_ready(s3_op *ops, size_t n, double *soonest, ipfsrt_error *err) {
    double now = ipfsrt_clock();
    *soonest = 1e9;
    for (size_t i = 0; i < n; i++) {
        s3_op *o = &ops[i];
        if (o->state == OP_WAITING && now >= o->wake_at) o->state = OP_READY;
        if (o->state == OP_WAITING && o->wake_at - now < *soonest) *soonest = o->wake_at - now;
        if (o->state != OP_READY) continue;
        ipfsrt_status st = op_send(o, err);
        if (st != IPFSRT_OK) return st;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_run_ops(ipfsrt_s3 *s, s3_op *ops, size_t n, ipfsrt_s3_op_report_fn report, void *user,
                               ipfsrt_error *err) {
    size_t reported = 0;
    ipfsrt_status st = IPFSRT_OK;
    while (st == IPFSRT_OK && reported < n) {
        double soonest;
        st = start_ready(ops, n, &soonest, err);
        if (st != IPFSRT_OK) break;
        int wait = soonest < 0.05 ? (int)(soonest * 1000) + 1 : 50;
        ipfsrt_fetch_pump(s->engine, wait);
        for (size_t i = 0; i < n && st == IPFSRT_OK; i++) {
            if (ops[i].state != OP_DONE || ops[i].reported) continue;
            st = report(user, &ops[i], err);
            op_free(&ops[i]);
            ops[i].reported = true;
            reported++;
        }
    }
    for (size_t i = 0; i < n; i++) op_free(&ops[i]);
    return st;
}

/* ------------------------------------------------------------------ API */

typedef struct get_call {
    ipfsrt_range_fn fn;
    void *user;
} get_call;

static ipfsrt_status report_get(void *user, s3_op *o, ipfsrt_error *err) {
    get_call *c = user;
    ipfsrt_range_result r = {.index = o->index, .key = o->key, .status = o->status, .object_size = o->object_size,
                             .etag = o->etag};
    if (o->status == IPFSRT_OK) {
        r.data = o->body.data ? o->body.data + o->data_at : (const uint8_t *)"";
        r.len = o->data_len;
        ipfsrt_error_clear(&r.error);
    } else {
        r.error = o->error;
        r.data = (const uint8_t *)"";
    }
    return c->fn(c->user, &r, err);
}

void ipfsrt_s3_op_init(s3_op *o, ipfsrt_s3 *s, op_kind kind, const char *key) {
    memset(o, 0, sizeof *o);
    o->s3 = s;
    o->kind = kind;
    o->key = key;
    o->to = UINT64_MAX;
    o->body_cap = OBJECT_MAX;
    o->object_size = UINT64_MAX;
    o->put_fd = -1;
    ipfsrt_buf_init(&o->body);
    ipfsrt_error_clear(&o->error);
}

static void plan_get(s3_op *o, const ipfsrt_range_request *r) {
    o->offset = r->offset;
    o->length = r->length;
    o->from_end = r->from_end;
    if (r->from_end) {
        o->suffix_asked = true;
    } else {
        o->from = r->offset;
        o->to = r->length == UINT64_MAX || r->length > UINT64_MAX - r->offset ? UINT64_MAX : r->offset + r->length - 1;
    }
}

ipfsrt_status ipfsrt_s3_get_many(ipfsrt_s3 *s, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                                 void *user, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(fn, err);
    if (!n) return IPFSRT_OK;
    s3_op *ops = calloc(n, sizeof *ops);
    if (!ops) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ipfsrt_s3_op_init(&ops[i], s, OP_GET, requests[i].key);
        ops[i].index = i;
        plan_get(&ops[i], &requests[i]);
        /* nothing to ask for: done without a request */
        if (requests[i].length == 0) ops[i].state = OP_DONE, ops[i].status = IPFSRT_OK;
    }
    get_call c = {fn, user};
    ipfsrt_status st = ipfsrt_s3_run_ops(s, ops, n, report_get, &c, err);
    free(ops);
    return st;
}

static ipfsrt_status reader_get_many(void *ctx, const ipfsrt_range_request *requests, size_t n, ipfsrt_range_fn fn,
                                     void *user, ipfsrt_error *err) {
    return ipfsrt_s3_get_many(ctx, requests, n, fn, user, err);
}

static ipfsrt_status reader_get_stream(void *ctx, const char *key, ipfsrt_range_sink_fn sink, void *user,
                                       ipfsrt_error *err) {
    return ipfsrt_s3_get_stream(ctx, key, sink, user, NULL, NULL, err);
}

void ipfsrt_s3_range_reader(ipfsrt_s3 *s, ipfsrt_range_reader *reader) {
    IPFSRT_NEED_OR(s, );
    IPFSRT_NEED_OR(reader, );
    *reader = (ipfsrt_range_reader){
        .size = sizeof *reader, .ctx = s, .get_many = reader_get_many, .get_stream = reader_get_stream, .what = s->describe};
}

ipfsrt_status ipfsrt_s3_report_one(void *user, s3_op *o, ipfsrt_error *err) {
    (void)user;
    if (o->status != IPFSRT_OK && err) *err = o->error;
    return o->status;
}

ipfsrt_status ipfsrt_s3_put(ipfsrt_s3 *s, const char *key, const void *data, size_t len, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    s3_op o;
    ipfsrt_s3_op_init(&o, s, OP_PUT, key);
    o.put_data = data;
    o.put_len = len;
    uint8_t digest[32];
    ipfsrt_status st = ipfsrt_hash_digest(IPFSRT_SHA2_256, len ? data : (const void *)"", len, digest, err);
    if (st != IPFSRT_OK) return st;
    for (int i = 0; i < 32; i++) snprintf(o.put_sha + 2 * i, 3, "%02x", digest[i]);
    return ipfsrt_s3_run_ops(s, &o, 1, ipfsrt_s3_report_one, NULL, err);
}

ipfsrt_status ipfsrt_s3_get_stream(ipfsrt_s3 *s, const char *key, ipfsrt_range_sink_fn sink, void *user,
                                   uint64_t *size, char *etag, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    IPFSRT_NEED(sink, err);
    s3_op o;
    ipfsrt_s3_op_init(&o, s, OP_GET, key);
    o.length = UINT64_MAX;
    o.sink = sink;
    o.sink_user = user;
    ipfsrt_error_clear(&o.sink_error);
    ipfsrt_status st = ipfsrt_s3_run_ops(s, &o, 1, ipfsrt_s3_report_one, NULL, err);
    if (size) *size = o.sunk;
    if (etag) snprintf(etag, 128, "%s", o.etag);
    return st;
}

ipfsrt_status ipfsrt_s3_delete(ipfsrt_s3 *s, const char *key, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(key, err);
    s3_op o;
    ipfsrt_s3_op_init(&o, s, OP_DELETE, key);
    return ipfsrt_s3_run_ops(s, &o, 1, ipfsrt_s3_report_one, NULL, err);
}

/* ----------------------------------------------------------------- lists */

typedef struct list_call {
    ipfsrt_s3_entry_fn fn;
    void *user;
    char token[1024];
    bool more;
    ipfsrt_mhmap seen; /* every continuation token so far */
} list_call;

/* A page is a listing (an error document answered with 200 is S3's error,
 * not an empty bucket), and a truncated one leads somewhere new: a token seen
 * before would go round for ever. */
static ipfsrt_status page_checked(const ipfsrt_s3_xml *x, list_call *c, ipfsrt_error *err) {
    if (strcmp(x->root, "Error") == 0)
        return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "S3 answered with an error document: %s%s%s",
                           x->code[0] ? x->code : "no code", x->message[0] ? ": " : "", x->message);
    if (strcmp(x->root, "ListBucketResult") != 0)
        return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "the answer is not a listing (its document is <%s>)",
                           x->root[0] ? x->root : "empty");
    if (!x->truncated) return IPFSRT_OK;
    if (!x->token[0]) return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "a truncated listing without a continuation token");
    bool inserted;
    if (ipfsrt_mhmap_put(&c->seen, (const uint8_t *)x->token, strlen(x->token), 0, 0, &inserted) != IPFSRT_OK)
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (!inserted)
        return ipfsrt_fail(err, IPFSRT_EFETCH_FAILED, -1, "continuation token '%.64s' came back: the listing goes round",
                           x->token);
    return IPFSRT_OK;
}

/* A page in: its entries handed out, and where the next one starts. */
static ipfsrt_status report_page(void *user, s3_op *o, ipfsrt_error *err) {
    list_call *c = user;
    if (o->status != IPFSRT_OK) {
        if (err) *err = o->error;
        return o->status;
    }
    ipfsrt_s3_xml x;
    ipfsrt_status st = ipfsrt_s3_xml_init(&x, c->fn, c->user, err);
    if (st == IPFSRT_OK && o->body.len) st = ipfsrt_s3_xml_feed(&x, o->body.data, o->body.len, err);
    if (st == IPFSRT_OK) st = ipfsrt_s3_xml_finish(&x, err);
    if (st == IPFSRT_OK) st = page_checked(&x, c, err);
    c->more = st == IPFSRT_OK && x.truncated;
    snprintf(c->token, sizeof c->token, "%s", x.token);
    ipfsrt_s3_xml_free(&x);
    if (st != IPFSRT_OK) ipfsrt_error_prefix(err, "%s: listing %s: ", o->s3->describe, o->key);
    return st;
}

/* ListObjectsV2's query, its parameters in the canonical (sorted) order:
 * continuation-token, delimiter, list-type, prefix. */
static ipfsrt_status list_query(const char *prefix, const char *delimiter, const char *token, char *out, size_t cap,
                                ipfsrt_error *err) {
    char p[3 * 1024 + 4], d[64], t[3 * 1024 + 4];
    if (!ipfsrt_s3_uri_encode(prefix, false, p, sizeof p) ||
        !ipfsrt_s3_uri_encode(delimiter ? delimiter : "", false, d, sizeof d) ||
        !ipfsrt_s3_uri_encode(token, false, t, sizeof t))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a listing's prefix or token is too long");
    size_t at = 0;
    if (*token) at += (size_t)snprintf(out + at, cap - at, "continuation-token=%s&", t);
    if (delimiter && at < cap) at += (size_t)snprintf(out + at, cap - at, "delimiter=%s&", d);
    if (at < cap) snprintf(out + at, cap - at, "list-type=2&prefix=%s", p);
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_list(ipfsrt_s3 *s, const char *prefix, const char *delimiter, ipfsrt_s3_entry_fn fn,
                             void *user, ipfsrt_error *err) {
    IPFSRT_NEED(s, err);
    IPFSRT_NEED(prefix, err);
    IPFSRT_NEED(fn, err);
    if (s->plain) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "%s: a web server has no listing", s->describe);
    list_call c = {fn, user, "", true, {0}};
    ipfsrt_mhmap_init(&c.seen);
    ipfsrt_status st = IPFSRT_OK;
    for (unsigned page = 0; st == IPFSRT_OK && c.more; page++) {
        if (page == LIST_PAGES_MAX) {
            st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%s: more than %d pages under '%s'", s->describe,
                             LIST_PAGES_MAX, prefix);
            break;
        }
        char query[8192];
        st = list_query(prefix, delimiter, c.token, query, sizeof query, err);
        s3_op o;
        ipfsrt_s3_op_init(&o, s, OP_LIST, "");
        o.query = query;
        if (st == IPFSRT_OK) st = ipfsrt_s3_run_ops(s, &o, 1, report_page, &c, err);
    }
    ipfsrt_mhmap_free(&c.seen);
    return st;
}
