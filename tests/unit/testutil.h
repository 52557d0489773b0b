/* Helpers for the cmocka unit tests (header-only: each test is one program). */
#ifndef IPFSRT_TESTUTIL_H
#define IPFSRT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipfsrt.h"
#include "ipfsrt/netcdf.h"
#include "ipfsrt/refs.h"
#include "ipfsrt/s3.h"
#include "ipfsrt/server.h"

static inline size_t hex2bin(const char *hex, uint8_t *out, size_t cap) {
    size_t n = strlen(hex) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

static inline char *bin2hex(const uint8_t *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = '\0';
    return out;
}

static inline char *fixture_path(const char *name) {
    static char path[1024];
    const char *dir = getenv("IPFSRT_FIXTURES");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/fixtures", name);
    return path;
}

static inline uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static inline void write_file(const char *path, const uint8_t *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Deterministic pseudo-random bytes (xorshift), so failures reproduce. */
static inline void fill_random(uint8_t *p, size_t n, uint64_t seed) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

/* A temporary directory per test program: tmpdir_setup/teardown as the group's
 * fixtures, tmp_path() for a file in it (one static buffer: copy it to hold two). */
static char tmpdir[64] __attribute__((unused));

static inline int tmpdir_setup(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ipfsrt-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int tmpdir_teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd);
}

static inline const char *tmp_path(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

/* Collects the blocks a CAR reader emits. */
typedef struct collected_block {
    ipfsrt_cid cid;
    uint8_t *data;
    size_t len;
    uint64_t offset;
} collected_block;

typedef struct collector {
    collected_block *blocks;
    size_t count, cap;
} collector;

static inline ipfsrt_status collect(void *user, const ipfsrt_car_block *b, ipfsrt_error *err) {
    (void)err;
    collector *c = user;
    if (c->count == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->blocks = realloc(c->blocks, c->cap * sizeof *c->blocks);
        assert_non_null(c->blocks);
    }
    collected_block *cb = &c->blocks[c->count++];
    cb->cid = b->cid;
    cb->len = b->len;
    cb->offset = b->offset;
    cb->data = NULL; /* a verify_only reader hands over no bytes */
    if (b->data) {
        cb->data = malloc(b->len ? b->len : 1);
        assert_non_null(cb->data);
        memcpy(cb->data, b->data, b->len);
    }
    return IPFSRT_OK;
}

static inline void collector_free(collector *c) {
    for (size_t i = 0; i < c->count; i++) free(c->blocks[i].data);
    free(c->blocks);
    memset(c, 0, sizeof *c);
}

#endif
