/* ipfsrt.json over cJSON. Object keys are written sorted, so output is stable;
 * a table whose keys are exactly 1..n (or an empty table) is an array, unless
 * it carries the object mark: json.object() makes one, and decoding gives
 * every empty object one, so that {} survives a round trip. Integers stay
 * integers both ways; those past Lua's (uint64's top half) decode as tables
 * {digits = "..."} of metatable "ipfsrt.json.number" that encode as those
 * digits again, rather than as rounded floats. */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/json_internal.h"
#include "bindings.h"

static int cmp_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static cJSON *to_json(lua_State *L, int idx, int depth);

static bool is_array(lua_State *L, int idx, lua_Integer *len) {
    lua_Integer n = 0, count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1) {
            lua_pop(L, 1);
            return false;
        }
        lua_Integer k = lua_tointeger(L, -1);
        if (k > n) n = k;
        count++;
    }
    *len = n;
    return n == count;
}

#define OBJECT_MARK "ipfsrt.json.object"

/* The value at idx carries the metatable registered as mark. */
static bool has_mark(lua_State *L, int idx, const char *mark) {
    if (!lua_getmetatable(L, idx)) return false;
    luaL_getmetatable(L, mark);
    bool marked = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return marked;
}

static void mark_object(lua_State *L) {
    luaL_newmetatable(L, OBJECT_MARK);
    lua_setmetatable(L, -2);
}

#define NUMBER_MARK "ipfsrt.json.number"

/* A JSON integer past Lua's integers, kept as its digits (json.number). */
static void push_big_integer(lua_State *L, const char *digits) {
    lua_createtable(L, 0, 1);
    lua_pushstring(L, digits);
    lua_setfield(L, -2, "digits");
    luaL_setmetatable(L, NUMBER_MARK);
}

static int big_integer_tostring(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "digits");
    return 1;
}

/* A json.number's digits, written as they are: an integer literal only (the
 * text goes into the output unescaped). */
static cJSON *big_integer_to_json(lua_State *L, int idx) {
    lua_getfield(L, idx, "digits");
    const char *d = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    const char *p = d + (*d == '-');
    bool integer = *p != '\0';
    for (; *p && integer; p++) integer = *p >= '0' && *p <= '9';
    cJSON *raw = integer ? cJSON_CreateRaw(d) : NULL;
    lua_pop(L, 1);
    return raw;
}

static cJSON *list_to_json(lua_State *L, int idx, lua_Integer n, int depth) {
    cJSON *arr = cJSON_CreateArray();
    for (lua_Integer i = 1; arr && i <= n; i++) {
        lua_rawgeti(L, idx, i);
        cJSON *item = to_json(L, lua_gettop(L), depth + 1);
        lua_pop(L, 1);
        if (!item) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, item);
    }
    return arr;
}

static cJSON *table_to_json(lua_State *L, int idx, int depth) {
    lua_Integer n;
    if (has_mark(L, idx, NUMBER_MARK)) return big_integer_to_json(L, idx);
    if (!has_mark(L, idx, OBJECT_MARK) && is_array(L, idx, &n)) return list_to_json(L, idx, n, depth);
    /* Keys are collected into a Lua table first so the C side holds nothing a
     * Lua error could leak. */
    lua_newtable(L);
    int keys = lua_gettop(L);
    lua_Integer nkeys = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 2);
            return NULL;
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys, ++nkeys);
    }
    const char **names = malloc(sizeof *names * (size_t)(nkeys ? nkeys : 1));
    cJSON *obj = names ? cJSON_CreateObject() : NULL;
    for (lua_Integer i = 0; obj && i < nkeys; i++) {
        lua_rawgeti(L, keys, i + 1);
        names[i] = lua_tostring(L, -1); /* anchored in the keys table */
        lua_pop(L, 1);
    }
    if (obj && nkeys > 1) qsort(names, (size_t)nkeys, sizeof *names, cmp_strings);
    for (lua_Integer i = 0; obj && i < nkeys; i++) {
        lua_getfield(L, idx, names[i]);
        cJSON *item = to_json(L, lua_gettop(L), depth + 1);
        lua_pop(L, 1);
        if (!item) {
            cJSON_Delete(obj);
            obj = NULL;
            break;
        }
        cJSON_AddItemToObject(obj, names[i], item);
    }
    free(names);
    lua_pop(L, 1);
    return obj;
}

static cJSON *to_json(lua_State *L, int idx, int depth) {
    if (depth > 100) return NULL;
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return cJSON_CreateNull();
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return ipfsrt_json_int64_item((int64_t)lua_tointeger(L, idx));
        return cJSON_CreateNumber(lua_tonumber(L, idx));
    case LUA_TSTRING: return cJSON_CreateString(lua_tostring(L, idx));
    case LUA_TLIGHTUSERDATA:
        return ipfsrt_lua_is_null(L, idx) ? cJSON_CreateNull() : NULL;
    case LUA_TTABLE: luaL_checkstack(L, 8, "JSON nesting"); return table_to_json(L, idx, depth);
    case LUA_TUSERDATA:
        if (luaL_testudata(L, idx, IPFSRT_LUA_CID)) {
            char s[IPFSRT_CID_STR_MAX];
            return cJSON_CreateString(ipfsrt_cid_to_string(lua_touserdata(L, idx), s));
        }
        return NULL;
    default: return NULL;
    }
}

static int text_gc(lua_State *L) {
    char **s = lua_touserdata(L, 1);
    cJSON_free(*s);
    *s = NULL;
    return 0;
}

/* Pushes the value at idx as JSON text, printed into a box the collector
 * frees (a raise while pushing leaks nothing); NULL, pushing nothing, when it
 * cannot be JSON. */
static const char *push_printed(lua_State *L, int idx, bool pretty) {
    idx = lua_absindex(L, idx);
    char **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, "ipfsrt.jsontext")) {
        lua_pushcfunction(L, text_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    cJSON *j = to_json(L, idx, 0);
    if (!j) {
        lua_pop(L, 1);
        return NULL;
    }
    *box = ipfsrt_json_print(j, pretty);
    cJSON_Delete(j);
    if (!*box) luaL_error(L, "out of memory");
    lua_pushstring(L, *box);
    cJSON_free(*box);
    *box = NULL;
    lua_remove(L, -2);
    return lua_tostring(L, -1);
}

/* json.encode(value[, {pretty = bool}]) */
static int json_encode(lua_State *L) {
    luaL_checkany(L, 1);
    bool pretty = false;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "pretty");
        pretty = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (!push_printed(L, 1, pretty))
        return ipfsrt_lua_raise_arg(L, "value cannot be encoded as JSON (functions, non-string "
                                       "keys, mixed tables or nesting over 100 levels)");
    return 1;
}

static void push_json(lua_State *L, const cJSON *j) {
    luaL_checkstack(L, 4, "JSON nesting");
    if (cJSON_IsNull(j)) ipfsrt_lua_push_null(L);
    else if (cJSON_IsBool(j)) lua_pushboolean(L, cJSON_IsTrue(j));
    else if (cJSON_IsNumber(j)) {
        int64_t i;
        bool negative;
        uint64_t magnitude;
        if (ipfsrt_json_int64(j, &i)) lua_pushinteger(L, (lua_Integer)i);
        else if (j->valuestring && ipfsrt_json_integer(j, &negative, &magnitude)) push_big_integer(L, j->valuestring);
        else lua_pushnumber(L, j->valuedouble);
    } else if (cJSON_IsString(j)) lua_pushstring(L, j->valuestring);
    else if (cJSON_IsArray(j)) {
        lua_newtable(L);
        lua_Integer i = 0;
        for (const cJSON *c = j->child; c; c = c->next) {
            push_json(L, c);
            lua_rawseti(L, -2, ++i);
        }
    } else {
        lua_newtable(L);
        for (const cJSON *c = j->child; c; c = c->next) {
            push_json(L, c);
            lua_setfield(L, -2, c->string);
        }
        if (!j->child) mark_object(L);
    }
}

/* json.is_number(v): is v an integer past Lua's, kept as its digits? */
static int json_is_number(lua_State *L) {
    lua_pushboolean(L, lua_istable(L, 1) && has_mark(L, 1, NUMBER_MARK));
    return 1;
}

/* json.object([t]): t (or a new empty table) marked to encode as an object */
static int json_object(lua_State *L) {
    if (lua_isnoneornil(L, 1)) lua_newtable(L);
    else luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    mark_object(L);
    return 1;
}

static int doc_gc(lua_State *L) {
    cJSON **j = lua_touserdata(L, 1);
    cJSON_Delete(*j);
    *j = NULL;
    return 0;
}

void ipfsrt_lua_push_json(lua_State *L, const char *s, size_t n) {
    cJSON **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, "ipfsrt.jsondoc")) {
        lua_pushcfunction(L, doc_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    const char *end = NULL;
    *box = ipfsrt_json_parse(s, n, &end);
    if (!*box) {
        ipfsrt_error err;
        ipfsrt_error_clear(&err);
        err.code = IPFSRT_EBAD_ARGUMENT;
        err.offset = end ? (int64_t)(end - s) : -1;
        snprintf(err.message, sizeof err.message,
                 "invalid JSON near byte offset %lld (or an object naming a key twice)", (long long)err.offset);
        ipfsrt_lua_raise(L, &err);
    }
    push_json(L, *box);
    cJSON_Delete(*box);
    *box = NULL;
    lua_remove(L, -2);
}

static int buf_gc(lua_State *L) {
    ipfsrt_buf_free(lua_touserdata(L, 1));
    return 0;
}

ipfsrt_buf *ipfsrt_lua_push_buf(lua_State *L) {
    ipfsrt_buf *b = lua_newuserdatauv(L, sizeof *b, 0);
    ipfsrt_buf_init(b);
    if (luaL_newmetatable(L, "ipfsrt.buf")) {
        lua_pushcfunction(L, buf_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

void ipfsrt_lua_push_json_buf(lua_State *L, ipfsrt_buf *b) {
    if (b->failed) luaL_error(L, "out of memory");
    ipfsrt_lua_push_json(L, (const char *)b->data, b->len);
    ipfsrt_buf_free(b); /* now, not when the collector gets to it */
    lua_remove(L, -2);
}

const char *ipfsrt_lua_push_json_text(lua_State *L, int idx) {
    return push_printed(L, idx, false);
}

static int json_decode(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    ipfsrt_lua_push_json(L, s, n);
    return 1;
}

void ipfsrt_lua_open_json(lua_State *L) {
    static const luaL_Reg fns[] = {{"encode", json_encode}, {"decode", json_decode}, {"object", json_object},
                                   {"is_number", json_is_number},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    ipfsrt_lua_push_null(L);
    lua_setfield(L, -2, "null");
    luaL_newmetatable(L, NUMBER_MARK);
    lua_pushcfunction(L, big_integer_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    lua_setfield(L, -2, "json");
}
