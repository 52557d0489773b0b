/* IPNS names for the client: ipns://NAME[/path] and /ipns/NAME[/path] become
 * /ipfs/ paths through the records the gateways hold (the trustless gateway's
 * ?format=ipns-record). Every gateway is asked at once (one round trip), each
 * answer verified for the name; the highest valid sequence wins, and is kept
 * for its TTL, so a name read again costs no request. A record never
 * replaces one of a higher sequence seen before, even an expired one. With a
 * cache_dir, records are kept there too (ipns/NAME.ipns-record, verified
 * again when read back, the file's time its fetch time), so that a new
 * process starts from what earlier ones saw. A domain (ipns://example.org) is
 * a DNSLink name instead (dnslink.c): not signed, looked up each time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "ipfsrt/ipns.h"

#define MAX_HOPS 8 /* a record whose value is another name, and so on */
#define ASK_TIMEOUT_S 30.0

struct ipfsrt_name_entry {
    ipfsrt_cid name;
    char *value;
    uint64_t sequence;
    double expires; /* wall-clock seconds: the TTL runs out */
    ipfsrt_buf record; /* the record itself, as a gateway sent it */
    ipfsrt_ipns_record info; /* what it says (its value is ->value's) */
};

typedef struct answer {
    ipfsrt_buf body;
    bool done;
    ipfsrt_fetch_result result;
} answer;

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int on_body(void *user, const uint8_t *data, size_t len) {
    answer *a = user;
    ipfsrt_buf_append(&a->body, data, len);
    return a->body.failed;
}

static void on_done(void *user, const ipfsrt_fetch_result *result) {
    answer *a = user;
    a->result = *result;
    a->done = true;
}

/* Every gateway asked for the record at once; answers waited for. */
static ipfsrt_status ask_all(ipfsrt_client *c, const char *name_text, answer *answers, ipfsrt_error *err) {
    size_t n = c->gateways.count, started = 0;
    void *reqs[IPFSRT_MAX_GATEWAYS];
    ipfsrt_status st = IPFSRT_OK;
    for (size_t i = 0; i < n && st == IPFSRT_OK; i++, started++) {
        char url[4400];
        snprintf(url, sizeof url, "%s/ipns/%s?format=ipns-record", c->gateways.urls[i], name_text);
        ipfsrt_fetch_spec spec = {.url = url, .accept = "application/vnd.ipfs.ipns-record", .slot = (unsigned)i,
                                  .max_body = IPFSRT_IPNS_MAX_RECORD, .on_body = on_body, .on_done = on_done,
                                  .user = &answers[i]};
        st = c->engine.start(c->engine.ctx, &spec, &reqs[i], err);
    }
    double deadline = wall_now() + ASK_TIMEOUT_S;
    for (bool waiting = true; waiting && wall_now() < deadline;) {
        c->engine.pump(c->engine.ctx, 50);
        waiting = false;
        for (size_t i = 0; i < started; i++) waiting |= !answers[i].done;
    }
    for (size_t i = 0; i < started; i++)
        if (!answers[i].done) c->engine.cancel(c->engine.ctx, reqs[i]);
    return st;
}

/* What one gateway's answer says, verified: OK and rec filled, or why not (in why). */
static ipfsrt_status judge(const ipfsrt_cid *name, const answer *a, ipfsrt_ipns_record *rec, char *why, size_t size) {
    ipfsrt_error e;
    if (!a->done) return snprintf(why, size, "no answer in %.0f s", ASK_TIMEOUT_S), IPFSRT_ETIMED_OUT;
    if (a->result.end != IPFSRT_FETCH_DONE) return snprintf(why, size, "%s", a->result.detail), IPFSRT_EFETCH_FAILED;
    if (a->result.status != 200) return snprintf(why, size, "HTTP %ld", a->result.status), IPFSRT_EUNAVAILABLE;
    if (a->body.failed) return snprintf(why, size, "out of memory"), IPFSRT_EOUT_OF_MEMORY;
    ipfsrt_status st = ipfsrt_ipns_record_verify(name, a->body.data, a->body.len, (int64_t)wall_now(), rec, &e);
    if (st != IPFSRT_OK) snprintf(why, size, "%s: %.500s", ipfsrt_status_name(st), e.message);
    return st;
}

/* A gateway that answered something false, not just nothing. */
static bool is_lie(ipfsrt_status st) {
    return st == IPFSRT_EBAD_RECORD || st == IPFSRT_EBAD_SIGNATURE || st == IPFSRT_EEXPIRED ||
           st == IPFSRT_EBAD_DAGCBOR || st == IPFSRT_ETOO_LARGE;
}

/* The best record among the answers; a failure names each gateway and what it did. */
static ipfsrt_status best_record(ipfsrt_client *c, const ipfsrt_cid *name, answer *answers, ipfsrt_ipns_record *best,
                                 size_t *best_at, ipfsrt_error *err) {
    char whys[2048] = "", s[IPFSRT_IPNS_NAME_MAX];
    size_t used = 0;
    ipfsrt_status worst = IPFSRT_EUNAVAILABLE;
    bool found = false;
    for (size_t i = 0; i < c->gateways.count; i++) {
        ipfsrt_ipns_record rec;
        ipfsrt_ipns_record_init(&rec);
        char why[600];
        ipfsrt_status st = judge(name, &answers[i], &rec, why, sizeof why);
        if (st == IPFSRT_OK && (!found || rec.sequence > best->sequence)) {
            ipfsrt_ipns_record_free(best);
            *best = rec;
            *best_at = i;
            found = true;
            continue;
        }
        ipfsrt_ipns_record_free(&rec);
        if (st == IPFSRT_OK) continue;
        if (is_lie(st)) worst = st; /* a lie outranks an absence */
        used += (size_t)snprintf(whys + used, used < sizeof whys ? sizeof whys - used : 0, "%s%s: %s",
                                 used ? "; " : "", c->shown.urls[i], why);
        if (used >= sizeof whys) used = sizeof whys - 1;
    }
    if (found) return IPFSRT_OK;
    return ipfsrt_fail(err, worst, -1, "IPNS name %s: no gateway gave a valid record (%s)",
                       ipfsrt_ipns_name_format(name, s), c->gateways.count ? whys : "no gateways");
}

static ipfsrt_name_entry *cached(ipfsrt_client *c, const ipfsrt_cid *name) {
    for (size_t i = 0; i < c->name_count; i++)
        if (ipfsrt_cid_equal(&c->names[i].name, name)) return &c->names[i];
    return NULL;
}

/* Keeps rec (its bytes in body) for name, unless a higher sequence is known:
 * then that stays. */
static ipfsrt_status remember(ipfsrt_client *c, const ipfsrt_cid *name, ipfsrt_ipns_record *rec, ipfsrt_buf *body,
                              ipfsrt_name_entry **out, ipfsrt_error *err) {
    ipfsrt_name_entry *e = cached(c, name);
    if (e && e->sequence > rec->sequence) {
        *out = e; /* a gateway behind the times: what was seen stands */
        return IPFSRT_OK;
    }
    if (!e) {
        if (ipfsrt_array_reserve(&c->names, &c->names_cap, c->name_count + 1, sizeof *c->names))
            return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        e = &c->names[c->name_count++];
        *e = (ipfsrt_name_entry){.name = *name};
    }
    free(e->value);
    ipfsrt_buf_free(&e->record);
    e->record = *body;
    ipfsrt_buf_init(body);
    e->info = *rec;
    e->info.value = NULL;
    e->value = rec->value;
    rec->value = NULL;
    e->sequence = rec->sequence;
    double ttl = (double)rec->ttl_ns / 1e9, until_eol = (double)rec->eol_seconds - wall_now();
    e->expires = wall_now() + (ttl < until_eol ? ttl : until_eol);
    *out = e;
    return IPFSRT_OK;
}

/* ----------------------------------------------------------- on disk */

ipfsrt_status ipfsrt_client_names_dir(ipfsrt_client *c, const char *cache_dir, ipfsrt_error *err) {
    size_t n = strlen(cache_dir) + sizeof "/ipns";
    if (!(c->names_dir = malloc(n))) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    snprintf(c->names_dir, n, "%s/ipns", cache_dir);
    return IPFSRT_OK;
}

static void record_path(const ipfsrt_client *c, const ipfsrt_cid *name, char *path, size_t size) {
    char text[IPFSRT_IPNS_NAME_MAX];
    snprintf(path, size, "%s/%s.ipns-record", c->names_dir, ipfsrt_ipns_name_format(name, text));
}

/* A record kept by an earlier run, verified again: an entry whose TTL runs
 * from when it was fetched (the file's time); nothing when absent or bad. */
static void load_kept(ipfsrt_client *c, const ipfsrt_cid *name) {
    char path[4200];
    record_path(c, name, path, sizeof path);
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return;
    ipfsrt_buf body;
    ipfsrt_buf_init(&body);
    uint8_t *room = ipfsrt_buf_reserve(&body, IPFSRT_IPNS_MAX_RECORD + 1);
    if (room) body.len = fread(room, 1, IPFSRT_IPNS_MAX_RECORD + 1, f);
    bool dated = fstat(fileno(f), &st) == 0;
    fclose(f);
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_name_entry *e;
    if (room && dated && ipfsrt_ipns_record_verify(name, body.data, body.len, (int64_t)wall_now(), &rec, NULL) == IPFSRT_OK &&
        remember(c, name, &rec, &body, &e, NULL) == IPFSRT_OK) {
        double fetched = (double)st.st_mtim.tv_sec, ttl = (double)e->info.ttl_ns / 1e9;
        if (fetched + ttl < e->expires) e->expires = fetched + ttl;
    }
    ipfsrt_ipns_record_free(&rec);
    ipfsrt_buf_free(&body);
}

/* The entry's record written whole for later runs (a failure only loses that). */
static void keep(const ipfsrt_client *c, const ipfsrt_name_entry *e) {
    char path[4200], tmp[4300];
    if (mkdir(c->names_dir, 0755) != 0 && errno != EEXIST) return;
    record_path(c, &e->name, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(e->record.data, 1, e->record.len, f) == e->record.len;
    if (f && fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

/* The name's entry now: from the cache within its TTL, else asked. */
static ipfsrt_status name_entry(ipfsrt_client *c, const ipfsrt_cid *name, ipfsrt_name_entry **out, ipfsrt_error *err) {
    ipfsrt_name_entry *e = cached(c, name);
    if (!e && c->names_dir) {
        load_kept(c, name);
        e = cached(c, name);
    }
    if (e && e->expires > wall_now()) {
        *out = e;
        return IPFSRT_OK;
    }
    char text[IPFSRT_IPNS_NAME_MAX];
    ipfsrt_ipns_name_format(name, text);
    answer *answers = calloc(c->gateways.count ? c->gateways.count : 1, sizeof *answers);
    if (!answers) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    ipfsrt_ipns_record best;
    ipfsrt_ipns_record_init(&best);
    size_t best_at = 0;
    ipfsrt_status st = ask_all(c, text, answers, err);
    if (st == IPFSRT_OK) st = best_record(c, name, answers, &best, &best_at, err);
    uint64_t before = e ? e->sequence : 0;
    bool known = e != NULL;
    if (st == IPFSRT_OK) st = remember(c, name, &best, &answers[best_at].body, &e, err);
    if (st == IPFSRT_OK && c->names_dir && (!known || best.sequence >= before)) keep(c, e);
    if (st == IPFSRT_OK) *out = e;
    /* past its TTL and no gateway to say more: a record still valid stands */
    if (st != IPFSRT_OK && known && (double)e->info.eol_seconds > wall_now()) {
        *out = e;
        if (err) ipfsrt_error_clear(err);
        st = IPFSRT_OK;
    }
    for (size_t i = 0; i < c->gateways.count; i++) ipfsrt_buf_free(&answers[i].body);
    free(answers);
    ipfsrt_ipns_record_free(&best);
    return st;
}

/* A DNS name (example.org), not a key's: DNSLink's. */
static bool is_domain(const char *s, size_t len) {
    if (!memchr(s, '.', len)) return false;
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", s[i])) return false;
    return true;
}

/* "NAME/rest" of an ipns path, or NULL when path is not one. */
static const char *ipns_part(const char *path) {
    if (strncmp(path, "ipns://", 7) == 0) return path + 7;
    if (strncmp(path, "/ipns/", 6) == 0) return path + 6;
    return NULL;
}

ipfsrt_status ipfsrt_client_resolve_name(ipfsrt_client *c, const char *path, char **resolved, ipfsrt_error *err) {
    IPFSRT_NEED(c && path && resolved, err);
    *resolved = NULL;
    char *current = strdup(path);
    ipfsrt_status st = current ? IPFSRT_OK : ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    for (int hop = 0; st == IPFSRT_OK && ipns_part(current); hop++) {
        const char *part = ipns_part(current), *value = NULL;
        size_t name_len = strcspn(part, "/");
        ipfsrt_cid name;
        if (hop == MAX_HOPS)
            st = ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "%.200s: names point at names more than %d deep", path, MAX_HOPS);
        char *linked = NULL;
        if (st == IPFSRT_OK && is_domain(part, name_len)) {
            st = ipfsrt_dnslink_lookup(part, name_len, &linked, err);
            value = linked;
        } else if (st == IPFSRT_OK) {
            ipfsrt_name_entry *e = NULL;
            if ((st = ipfsrt_ipns_name_parse(part, name_len, &name, err)) == IPFSRT_OK)
                st = name_entry(c, &name, &e, err);
            if (st == IPFSRT_OK) value = e->value;
        }
        if (st != IPFSRT_OK) break;
        size_t n = strlen(value) + strlen(part + name_len) + 1;
        char *next = malloc(n);
        if (!next) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
        else snprintf(next, n, "%s%s", value, part + name_len);
        free(linked);
        free(current);
        current = next;
    }
    if (st == IPFSRT_OK) *resolved = current;
    else free(current);
    return st;
}

ipfsrt_status ipfsrt_client_name_target(ipfsrt_client *c, const char *path, const char **target, char **owned,
                                        ipfsrt_error *err) {
    *owned = NULL;
    *target = path;
    if (!path || !ipns_part(path)) return IPFSRT_OK;
    ipfsrt_status st = ipfsrt_client_resolve_name(c, path, owned, err);
    if (st == IPFSRT_OK) *target = *owned;
    return st;
}

ipfsrt_status ipfsrt_client_name_record(ipfsrt_client *c, const ipfsrt_cid *name, ipfsrt_buf *record,
                                        ipfsrt_ipns_record *info, ipfsrt_error *err) {
    IPFSRT_NEED(c && name && record && info, err);
    ipfsrt_name_entry *e;
    ipfsrt_status st = name_entry(c, name, &e, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ipns_record_free(info);
    *info = e->info;
    info->value = strdup(e->value);
    ipfsrt_buf_append(record, e->record.data, e->record.len);
    if (!info->value || record->failed) {
        ipfsrt_ipns_record_free(info);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    return IPFSRT_OK;
}

void ipfsrt_client_names_free(ipfsrt_client *c) {
    free(c->names_dir);
    for (size_t i = 0; i < c->name_count; i++) {
        free(c->names[i].value);
        ipfsrt_buf_free(&c->names[i].record);
    }
    free(c->names);
}
