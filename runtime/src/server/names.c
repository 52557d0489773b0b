/* IPNS records a gateway serves from a folder (--ipns-records DIR): each file
 * a record, named by its name (NAME, NAME.ipns-record or NAME_anything...).
 * Every record is verified when the folder is read, and the folder is read
 * again (at most once a second, when a request for a name comes) whenever
 * its files change; for each name the highest valid sequence wins. A name
 * whose every record fails is kept with its reason, answered 502: a gateway
 * never serves a record, or a path through it, that does not verify. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ipfsrt/ipns.h"
#include "server/server_internal.h"

#define RESCAN_S 1.0
#define MAX_FILES 65536

typedef struct served_name {
    ipfsrt_cid name;
    uint8_t *record; /* the best valid one; NULL when none is */
    size_t len;
    ipfsrt_ipns_record info;
    ipfsrt_error why; /* when none is valid: the last failure */
} served_name;

struct ipfsrt_server_names {
    char *dir;
    pthread_mutex_t lock;
    double scanned;      /* when the folder was last looked at (monotonic) */
    uint64_t signature;  /* its files' names, sizes and times, hashed */
    served_name *names;
    size_t count, cap;
};

static void table_free(served_name *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(names[i].record);
        ipfsrt_ipns_record_free(&names[i].info);
    }
    free(names);
}

static served_name *find(served_name *names, size_t count, const ipfsrt_cid *name) {
    for (size_t i = 0; i < count; i++)
        if (ipfsrt_cid_equal(&names[i].name, name)) return &names[i];
    return NULL;
}

static uint8_t *read_small(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = malloc(IPFSRT_IPNS_MAX_RECORD + 1);
    *len = buf ? fread(buf, 1, IPFSRT_IPNS_MAX_RECORD + 1, f) : 0;
    fclose(f);
    return buf;
}

/* One file into the table: its name from its file name, its record verified. */
static void take_file(ipfsrt_server_names *n, const char *file, served_name **names, size_t *count, size_t *cap) {
    ipfsrt_cid name;
    if (ipfsrt_ipns_name_parse(file, strcspn(file, "_."), &name, NULL) != IPFSRT_OK) return; /* not a record's file */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", n->dir, file);
    size_t len = 0;
    uint8_t *buf = read_small(path, &len);
    if (!buf) return;
    served_name *e = find(*names, *count, &name);
    if (!e && !ipfsrt_array_reserve(names, cap, *count + 1, sizeof **names)) {
        e = &(*names)[(*count)++];
        memset(e, 0, sizeof *e);
        e->name = name;
    }
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_error why;
    bool valid = e && ipfsrt_ipns_record_verify(&name, buf, len, (int64_t)time(NULL), &rec, &why) == IPFSRT_OK;
    if (valid && (!e->record || rec.sequence > e->info.sequence)) {
        free(e->record);
        ipfsrt_ipns_record_free(&e->info);
        *e = (served_name){.name = name, .record = buf, .len = len, .info = rec};
        return;
    }
    if (e && !valid && !e->record) e->why = why;
    ipfsrt_ipns_record_free(&rec);
    free(buf);
}

/* The folder's files' names, sizes and times, hashed: whether it changed. */
static uint64_t folder_signature(const char *dir) {
    DIR *d = opendir(dir);
    uint64_t sig = 0;
    if (!d) return 0;
    char path[4096];
    for (struct dirent *de; (de = readdir(d));) {
        struct stat stt;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || stat(path, &stt) != 0) continue;
        uint64_t h = ipfsrt_murmur3_x64_64((const uint8_t *)de->d_name, strlen(de->d_name));
        sig += h ^ ((uint64_t)stt.st_size * 0x9e3779b97f4a7c15ull) ^ (uint64_t)stt.st_mtim.tv_sec ^
               ((uint64_t)stt.st_mtim.tv_nsec << 20);
    }
    closedir(d);
    return sig;
}

static ipfsrt_status scan(ipfsrt_server_names *n, ipfsrt_error *err) {
    DIR *d = opendir(n->dir);
    if (!d) return ipfsrt_fail(err, IPFSRT_EIO, -1, "cannot read the IPNS records folder %s", n->dir);
    served_name *names = NULL;
    size_t count = 0, cap = 0, files = 0;
    for (struct dirent *de; (de = readdir(d)) && files < MAX_FILES; files++)
        if (de->d_name[0] != '.') take_file(n, de->d_name, &names, &count, &cap);
    closedir(d);
    table_free(n->names, n->count);
    n->names = names;
    n->count = count;
    n->cap = cap;
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_server_names_new(ipfsrt_server_names **out, const char *dir, ipfsrt_error *err) {
    ipfsrt_server_names *n = calloc(1, sizeof *n);
    if (!n || !(n->dir = strdup(dir))) {
        free(n);
        return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    }
    pthread_mutex_init(&n->lock, NULL);
    n->signature = folder_signature(dir);
    n->scanned = ipfsrt_clock();
    ipfsrt_status st = scan(n, err);
    if (st != IPFSRT_OK) {
        ipfsrt_server_names_free(n);
        return st;
    }
    *out = n;
    return IPFSRT_OK;
}

void ipfsrt_server_names_free(ipfsrt_server_names *n) {
    if (!n) return;
    table_free(n->names, n->count);
    pthread_mutex_destroy(&n->lock);
    free(n->dir);
    free(n);
}

ipfsrt_status ipfsrt_server_names_get(ipfsrt_server_names *n, const ipfsrt_cid *name, uint8_t **record, size_t *len,
                                      ipfsrt_ipns_record *info, ipfsrt_error *err) {
    pthread_mutex_lock(&n->lock);
    double now = ipfsrt_clock();
    ipfsrt_status st = IPFSRT_OK;
    if (now - n->scanned >= RESCAN_S) {
        n->scanned = now;
        uint64_t sig = folder_signature(n->dir);
        if (sig != n->signature) st = scan(n, err);
        n->signature = sig;
    }
    served_name *e = st == IPFSRT_OK ? find(n->names, n->count, name) : NULL;
    char s[IPFSRT_IPNS_NAME_MAX];
    if (st == IPFSRT_OK && !e)
        st = ipfsrt_fail(err, IPFSRT_ENOT_FOUND, -1, "no IPNS record for %s here", ipfsrt_ipns_name_format(name, s));
    else if (st == IPFSRT_OK && !e->record) {
        st = e->why.code;
        if (err) *err = e->why;
    } else if (st == IPFSRT_OK && (!(*record = malloc(e->len)) || !(info->value = strdup(e->info.value)))) {
        free(*record);
        st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    } else if (st == IPFSRT_OK) {
        memcpy(*record, e->record, e->len);
        *len = e->len;
        char *value = info->value;
        *info = e->info;
        info->value = value;
    }
    pthread_mutex_unlock(&n->lock);
    return st;
}
