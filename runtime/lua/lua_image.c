/* ipfsrt.image: write_map(path, array[, {min =, max =, flip =, scale =, colorbar =}]) and
 * write_figure(path, array, {vmin =, vmax =, flip =, scale =, cmap =, colorbar =, title =, units =,
 * xticks = {{at, label}, ...}, yticks = ...}) */
#include <math.h>
#include <stdlib.h>

#include "bindings.h"
#include "ipfsrt/image.h"

/* The options both calls take: the colour scale's ends (named by low and
 * high), flip, scale and colorbar, from the table at idx (absent: defaults). */
static ipfsrt_image_map_options check_map_options(lua_State *L, int idx, const char *low, const char *high) {
    ipfsrt_image_map_options o;
    ipfsrt_image_map_options_init(&o);
    if (!lua_istable(L, idx)) return o;
    o.vmin = ipfsrt_lua_opt_number(L, idx, low, 0);
    o.vmax = ipfsrt_lua_opt_number(L, idx, high, 0);
    o.flip = ipfsrt_lua_opt_bool(L, idx, "flip", false);
    lua_Integer s = ipfsrt_lua_opt_int(L, idx, "scale", 1);
    if (s < 1 || s > 64) ipfsrt_lua_raise_arg(L, "scale is 1 to 64 pixels a cell");
    o.scale = (unsigned)s;
    o.colorbar = ipfsrt_lua_opt_bool(L, idx, "colorbar", true);
    return o;
}

static int image_write_map(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 2);
    ipfsrt_image_map_options o = check_map_options(L, 3, "min", "max");
    ipfsrt_error err;
    if (ipfsrt_image_write_map(path, a, &o, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* The ticks in field opts[key] ({{at, label}, ...}) into a userdata block
 * left on the stack (freed by Lua with the strings it points into, which the
 * options table keeps). */
static size_t check_ticks(lua_State *L, int opts, const char *key, ipfsrt_image_tick **out) {
    *out = NULL;
    if (lua_getfield(L, opts, key) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return 0;
    }
    int list = lua_gettop(L);
    luaL_checktype(L, list, LUA_TTABLE);
    lua_Integer n = luaL_len(L, list);
    if (n > 1000) ipfsrt_lua_raise_arg(L, "%s: at most 1000 ticks", key);
    ipfsrt_image_tick *t = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *t, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        if (!lua_istable(L, -1)) ipfsrt_lua_raise_arg(L, "%s[%d]: {at, label}", key, (int)i);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        t[i - 1].at = luaL_checknumber(L, -2);
        t[i - 1].label = luaL_checkstring(L, -1);
        lua_pop(L, 3);
    }
    lua_remove(L, list);
    *out = t;
    return (size_t)n;
}

static int image_write_figure(lua_State *L) {
    static const char *const cmaps[] = {"ocean", "viridis", "RdBu_r", "RdBu", NULL};
    const char *path = luaL_checkstring(L, 1);
    const ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    ipfsrt_image_map_options o = check_map_options(L, 3, "vmin", "vmax");
    ipfsrt_image_figure f = {.size = sizeof f, .vmin = o.vmin, .vmax = o.vmax, .flip = o.flip, .scale = o.scale, .colorbar = o.colorbar};
    lua_getfield(L, 3, "cmap");
    f.cmap = (ipfsrt_image_cmap)luaL_checkoption(L, -1, "viridis", cmaps);
    lua_pop(L, 1);
    f.title = ipfsrt_lua_opt_string(L, 3, "title", NULL);
    f.units = ipfsrt_lua_opt_string(L, 3, "units", NULL);
    ipfsrt_image_tick *xt, *yt;
    f.n_xticks = check_ticks(L, 3, "xticks", &xt);
    f.n_yticks = check_ticks(L, 3, "yticks", &yt);
    f.xticks = xt, f.yticks = yt;
    ipfsrt_error err;
    if (ipfsrt_image_write_figure(path, a, &f, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

/* The numbers of list t[key] into a userdata block left on the stack. */
static double *check_numbers(lua_State *L, int t, const char *key, size_t *n) {
    lua_getfield(L, t, key);
    int list = lua_gettop(L);
    if (!lua_istable(L, list)) ipfsrt_lua_raise_arg(L, "series: %s is a list of numbers", key);
    *n = (size_t)luaL_len(L, list);
    double *v = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *v, 0);
    for (size_t i = 0; i < *n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        v[i] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : NAN;
        lua_pop(L, 1);
    }
    lua_remove(L, list);
    return v;
}

/* The series of opts.series ({{x =, y =, label =}, ...}) into a block left on the stack. */
static size_t check_series(lua_State *L, int opts, ipfsrt_image_series **out) {
    lua_getfield(L, opts, "series");
    int list = lua_gettop(L);
    luaL_checktype(L, list, LUA_TTABLE);
    lua_Integer n = luaL_len(L, list);
    if (n < 1 || n > 100) ipfsrt_lua_raise_arg(L, "a line plot has 1 to 100 series");
    ipfsrt_image_series *s = lua_newuserdatauv(L, (size_t)n * sizeof *s, 0);
    luaL_checkstack(L, 3 * (int)n + 8, "a line plot's series");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        int one = lua_gettop(L);
        luaL_checktype(L, one, LUA_TTABLE);
        size_t nx, ny;
        s[i - 1].x = check_numbers(L, one, "x", &nx);
        s[i - 1].y = check_numbers(L, one, "y", &ny);
        if (nx != ny) ipfsrt_lua_raise_arg(L, "series %d: %zu x values and %zu y values", (int)i, nx, ny);
        s[i - 1].n = nx;
        s[i - 1].label = ipfsrt_lua_opt_string(L, one, "label", NULL); /* the series table keeps it */
    } /* each series' table and blocks stay on the stack until the plot is written */
    *out = s;
    return (size_t)n;
}

static int image_write_lines(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    ipfsrt_image_lines f;
    ipfsrt_image_lines_init(&f);
    f.width = (unsigned)ipfsrt_lua_opt_int(L, 2, "width", 800);
    f.height = (unsigned)ipfsrt_lua_opt_int(L, 2, "height", 380);
    f.xlo = ipfsrt_lua_opt_number(L, 2, "xlo", 0), f.xhi = ipfsrt_lua_opt_number(L, 2, "xhi", 1);
    f.ylo = ipfsrt_lua_opt_number(L, 2, "ylo", 0), f.yhi = ipfsrt_lua_opt_number(L, 2, "yhi", 1);
    f.title = ipfsrt_lua_opt_string(L, 2, "title", NULL);
    f.xlabel = ipfsrt_lua_opt_string(L, 2, "xlabel", NULL);
    f.ylabel = ipfsrt_lua_opt_string(L, 2, "ylabel", NULL);
    ipfsrt_image_tick *xt, *yt;
    f.n_xticks = check_ticks(L, 2, "xticks", &xt);
    f.n_yticks = check_ticks(L, 2, "yticks", &yt);
    f.xticks = xt, f.yticks = yt;
    ipfsrt_image_series *series;
    f.n_series = check_series(L, 2, &series);
    f.series = series;
    ipfsrt_error err;
    if (ipfsrt_image_write_lines(path, &f, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 0;
}

void ipfsrt_lua_open_image(lua_State *L) {
    static const luaL_Reg fns[] = {{"write_map", image_write_map}, {"write_figure", image_write_figure},
                                   {"write_lines", image_write_lines}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "image");
}
