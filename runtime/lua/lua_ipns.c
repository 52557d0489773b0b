/* ipfsrt.ipns: keys (key_generate, key_load; key:name(), :private_bytes(),
 * :public_bytes(), :type()), records (record, verify) and names (name). Times
 * are seconds since the epoch and TTLs seconds, as Lua numbers. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bindings.h"

#define KEY "ipfsrt.ipns.key"

static ipfsrt_key **check_key(lua_State *L, int idx) {
    ipfsrt_key **k = luaL_checkudata(L, idx, KEY);
    if (!*k) luaL_argerror(L, idx, "key already freed");
    return k;
}

static int key_gc(lua_State *L) {
    ipfsrt_key **k = luaL_checkudata(L, 1, KEY);
    ipfsrt_key_free(*k);
    *k = NULL;
    return 0;
}

static ipfsrt_key **new_key_box(lua_State *L) {
    ipfsrt_key **k = lua_newuserdatauv(L, sizeof *k, 0);
    *k = NULL;
    luaL_setmetatable(L, KEY);
    return k;
}

static int ipns_key_generate(lua_State *L) {
    const char *type = luaL_optstring(L, 1, "ed25519");
    if (strcmp(type, "ed25519") != 0 && strcmp(type, "rsa") != 0)
        return ipfsrt_lua_raise_arg(L, "key type '%s': ed25519 or rsa", type);
    ipfsrt_key **k = new_key_box(L);
    ipfsrt_error err;
    if (ipfsrt_key_new_random(type[0] == 'r' ? IPFSRT_KEY_RSA : IPFSRT_KEY_ED25519, k, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int ipns_key_load(lua_State *L) {
    size_t n;
    const char *bytes = luaL_checklstring(L, 1, &n);
    ipfsrt_key **k = new_key_box(L);
    ipfsrt_error err;
    if (ipfsrt_key_new_private((const uint8_t *)bytes, n, k, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int push_buf(lua_State *L, ipfsrt_buf *b, ipfsrt_status st, const ipfsrt_error *err) {
    if (st == IPFSRT_OK) lua_pushlstring(L, (const char *)b->data, b->len);
    ipfsrt_buf_free(b);
    return st == IPFSRT_OK ? 1 : ipfsrt_lua_raise(L, err);
}

static int key_private_bytes(lua_State *L) {
    ipfsrt_key **k = check_key(L, 1);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_error err;
    return push_buf(L, &b, ipfsrt_key_private_encode(*k, &b, &err), &err);
}

static int key_public_bytes(lua_State *L) {
    ipfsrt_key **k = check_key(L, 1);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_error err;
    return push_buf(L, &b, ipfsrt_key_public_encode(*k, &b, &err), &err);
}

static int key_name(lua_State *L) {
    ipfsrt_key **k = check_key(L, 1);
    ipfsrt_cid name;
    ipfsrt_error err;
    if (ipfsrt_key_name(*k, &name, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    char s[IPFSRT_IPNS_NAME_MAX];
    lua_pushstring(L, ipfsrt_ipns_name_format(&name, s));
    return 1;
}

static int key_type(lua_State *L) {
    lua_pushstring(L, ipfsrt_key_kind(*check_key(L, 1)) == IPFSRT_KEY_RSA ? "rsa" : "ed25519");
    return 1;
}

static const ipfsrt_cid *check_name(lua_State *L, int idx, ipfsrt_cid *name) {
    size_t n;
    const char *s = luaL_checklstring(L, idx, &n);
    ipfsrt_error err;
    if (ipfsrt_ipns_name_parse(s, n, name, &err) != IPFSRT_OK) ipfsrt_lua_raise(L, &err);
    return name;
}

static int ipns_name(lua_State *L) {
    ipfsrt_cid name;
    char s[IPFSRT_IPNS_NAME_MAX];
    lua_pushstring(L, ipfsrt_ipns_name_format(check_name(L, 1, &name), s));
    return 1;
}

/* record(key, {value, sequence, eol = seconds, ttl = seconds, v1}) -> bytes */
static int ipns_record(lua_State *L) {
    ipfsrt_key **k = check_key(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    ipfsrt_ipns_create_options o;
    ipfsrt_ipns_create_options_init(&o);
    o.value = ipfsrt_lua_opt_string(L, 2, "value", NULL);
    lua_Integer seq = ipfsrt_lua_opt_int(L, 2, "sequence", 0);
    lua_Number eol = ipfsrt_lua_opt_number(L, 2, "eol", NAN), ttl = ipfsrt_lua_opt_number(L, 2, "ttl", 300);
    o.v1 = ipfsrt_lua_opt_bool(L, 2, "v1", false);
    if (seq < 0 || !(eol > -6.2e10 && eol < 2.6e11) || !(ttl >= 0 && ttl < 1.8e10))
        return ipfsrt_lua_raise_arg(L, "record: sequence >= 0, an eol (seconds) in years 1-9999, ttl >= 0 seconds");
    o.sequence = (uint64_t)seq;
    o.eol_seconds = (int64_t)floor(eol);
    o.eol_nanos = (uint32_t)((eol - floor(eol)) * 1e9);
    o.ttl_ns = (uint64_t)(ttl * 1e9);
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_error err;
    return push_buf(L, &b, ipfsrt_ipns_record_create(*k, &o, &b, &err), &err);
}

static void push_record(lua_State *L, const ipfsrt_ipns_record *rec) {
    lua_createtable(L, 0, 8);
    lua_pushstring(L, rec->value);
    lua_setfield(L, -2, "value");
    lua_pushinteger(L, (lua_Integer)rec->sequence);
    lua_setfield(L, -2, "sequence");
    lua_pushnumber(L, (lua_Number)rec->ttl_ns / 1e9);
    lua_setfield(L, -2, "ttl");
    lua_pushnumber(L, (lua_Number)rec->eol_seconds + rec->eol_nanos / 1e9);
    lua_setfield(L, -2, "eol");
    lua_pushstring(L, rec->validity);
    lua_setfield(L, -2, "validity");
    lua_pushboolean(L, rec->has_v1);
    lua_setfield(L, -2, "v1");
    lua_pushstring(L, rec->key_type == IPFSRT_KEY_RSA ? "rsa" : "ed25519");
    lua_setfield(L, -2, "key_type");
}

/* verify(name, bytes[, now]) -> record table; now: seconds (default: the
 * clock), false to let an expired record verify. */
static int ipns_verify(lua_State *L) {
    ipfsrt_cid name;
    check_name(L, 1, &name);
    size_t n;
    const char *bytes = luaL_checklstring(L, 2, &n);
    int64_t now = lua_isnoneornil(L, 3) ? (int64_t)time(NULL)
                  : lua_isboolean(L, 3) && !lua_toboolean(L, 3) ? INT64_MIN
                                                                : (int64_t)floor(luaL_checknumber(L, 3));
    ipfsrt_ipns_record rec;
    ipfsrt_ipns_record_init(&rec);
    ipfsrt_error err;
    if (ipfsrt_ipns_record_verify(&name, (const uint8_t *)bytes, n, now, &rec, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    push_record(L, &rec);
    ipfsrt_ipns_record_free(&rec);
    return 1;
}

static bool write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w, n -= (size_t)w;
    }
    return true;
}

/* core.write_private(path, bytes, exclusive): a file only its owner reads
 * (mode 0600, whatever the umask), for keys and the records a keystore keeps;
 * exclusive: fails when path exists, else replaces it whole (a temporary file
 * renamed over it). */
static int write_private(lua_State *L) {
    const char *path = ipfsrt_lua_check_name(L, 1);
    size_t n;
    const char *bytes = luaL_checklstring(L, 2, &n);
    bool exclusive = lua_toboolean(L, 3);
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= sizeof tmp)
        return ipfsrt_lua_raise_arg(L, "path too long: %s", path);
    const char *target = exclusive ? path : tmp;
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && fchmod(fd, 0600) == 0 && write_all(fd, bytes, n) && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) ok = false, saved = errno;
    if (ok && !exclusive && rename(tmp, path) != 0) ok = false, saved = errno;
    if (!ok && fd >= 0) unlink(target);
    if (ok) return 0;
    ipfsrt_error err;
    ipfsrt_fail(&err, IPFSRT_EIO, -1, "cannot write %s: %s", path, strerror(saved));
    return ipfsrt_lua_raise(L, &err);
}

/* core.make_private_dir(path): path and its missing parents, the ones made
 * mode 0700 (a keystore). */
static int make_private_dir(lua_State *L) {
    const char *path = ipfsrt_lua_check_name(L, 1);
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir) return ipfsrt_lua_raise_arg(L, "path too long");
    for (char *p = dir + 1;; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end) continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            ipfsrt_error err;
            ipfsrt_fail(&err, IPFSRT_EIO, -1, "cannot make the folder %s: %s", dir, strerror(errno));
            return ipfsrt_lua_raise(L, &err);
        }
        if (end) break;
        *p = '/';
    }
    return 0;
}

void ipfsrt_lua_open_ipns(lua_State *L) {
    ipfsrt_lua_push_core(L);
    lua_pushcfunction(L, write_private);
    lua_setfield(L, -2, "write_private");
    lua_pushcfunction(L, make_private_dir);
    lua_setfield(L, -2, "make_private_dir");
    lua_pop(L, 1);
    static const luaL_Reg methods[] = {{"name", key_name},
                                       {"private_bytes", key_private_bytes},
                                       {"public_bytes", key_public_bytes},
                                       {"type", key_type},
                                       {NULL, NULL}};
    ipfsrt_lua_class(L, KEY, methods, key_gc, NULL);
    static const luaL_Reg fns[] = {{"key_generate", ipns_key_generate}, {"key_load", ipns_key_load},
                                   {"record", ipns_record},             {"verify", ipns_verify},
                                   {"name", ipns_name},                 {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "ipns");
}
