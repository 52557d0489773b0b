/* ipfsrt.ndarray's arithmetic: operators with Lua numbers promoted as
 * numpy 2 does, element functions, conversions, reductions, joins. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "lua_ndarray.h"

/* ------------------------------------------------------------------- math */

/* A Lua scalar as a 0-d array, "weak" as numpy 2 makes it (NEP 50): it takes the
 * other operand's dtype when that holds it — an integer with an integer array
 * (an error when it does not fit), a float with a float array — and otherwise
 * int64 (an integer with bools) or float64 (a float with integers or bools). */
static const ipfsrt_ndarray *operand(lua_State *L, int idx, ipfsrt_dtype other, ipfsrt_ndarray *tmp) {
    ipfsrt_ndarray *a = luaL_testudata(L, idx, IPFSRT_LUA_NDARRAY);
    if (a) return a;
    ipfsrt_dtype d;
    bool is_int = lua_isinteger(L, idx);
    double v;
    if (lua_isboolean(L, idx)) {
        d = IPFSRT_DTYPE_BOOL;
        v = lua_toboolean(L, idx);
    } else {
        v = luaL_checknumber(L, idx);
        bool other_int = ipfsrt_dtype_is_int(other), other_float = ipfsrt_dtype_is_float(other);
        d = is_int ? (other_int || other_float ? other : IPFSRT_DTYPE_INT64)
                   : (other_float ? other : IPFSRT_DTYPE_FLOAT64);
    }
    ipfsrt_error err;
    ipfsrt_ndarray_init(tmp);
    if (ipfsrt_ndarray_zeros(tmp, d, 0, 0, NULL, &err) != IPFSRT_OK ||
        ipfsrt_ndarray_set(tmp, NULL, 0, v, is_int ? lua_tointeger(L, idx) : 0, is_int, &err) != IPFSRT_OK) {
        ipfsrt_ndarray_free(tmp);
        ipfsrt_lua_raise(L, &err);
    }
    return tmp;
}

static int binary(lua_State *L, ipfsrt_ndop op) {
    ipfsrt_ndarray *x = luaL_testudata(L, 1, IPFSRT_LUA_NDARRAY), *y = luaL_testudata(L, 2, IPFSRT_LUA_NDARRAY);
    if (!x && !y) return ipfsrt_lua_raise_arg(L, "an array operation without an array");
    ipfsrt_ndarray ta, tb;
    ipfsrt_ndarray_init(&ta);
    ipfsrt_ndarray_init(&tb);
    const ipfsrt_ndarray *a = operand(L, 1, y ? y->dtype : IPFSRT_DTYPE_FLOAT64, &ta);
    const ipfsrt_ndarray *b = operand(L, 2, a->dtype, &tb);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_binary(out, op, a, b, &err);
    ipfsrt_ndarray_free(&ta);
    ipfsrt_ndarray_free(&tb);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int op_add(lua_State *L) { return binary(L, IPFSRT_NDOP_ADD); }
static int op_sub(lua_State *L) { return binary(L, IPFSRT_NDOP_SUB); }
static int op_mul(lua_State *L) { return binary(L, IPFSRT_NDOP_MUL); }
static int op_div(lua_State *L) { return binary(L, IPFSRT_NDOP_DIV); }
static int op_idiv(lua_State *L) { return binary(L, IPFSRT_NDOP_FLOORDIV); }
static int op_mod(lua_State *L) { return binary(L, IPFSRT_NDOP_MOD); }
static int op_pow(lua_State *L) { return binary(L, IPFSRT_NDOP_POW); }
static int op_band(lua_State *L) { return binary(L, IPFSRT_NDOP_AND); }
static int op_bor(lua_State *L) { return binary(L, IPFSRT_NDOP_OR); }
static int op_bxor(lua_State *L) { return binary(L, IPFSRT_NDOP_XOR); }
static int op_lt(lua_State *L) { return binary(L, IPFSRT_NDOP_LT); }
static int op_le(lua_State *L) { return binary(L, IPFSRT_NDOP_LE); }
static int op_gt(lua_State *L) { return binary(L, IPFSRT_NDOP_GT); }
static int op_ge(lua_State *L) { return binary(L, IPFSRT_NDOP_GE); }
static int op_eq(lua_State *L) { return binary(L, IPFSRT_NDOP_EQ); }
static int op_ne(lua_State *L) { return binary(L, IPFSRT_NDOP_NE); }

static int unary(lua_State *L, ipfsrt_ndfn fn) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_unary(out, fn, a, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int fn_unm(lua_State *L) { return unary(L, IPFSRT_NDFN_NEG); }
static int fn_bnot(lua_State *L) { return unary(L, IPFSRT_NDFN_NOT); }
static int fn_abs(lua_State *L) { return unary(L, IPFSRT_NDFN_ABS); }
static int fn_sqrt(lua_State *L) { return unary(L, IPFSRT_NDFN_SQRT); }
static int fn_exp(lua_State *L) { return unary(L, IPFSRT_NDFN_EXP); }
static int fn_log(lua_State *L) { return unary(L, IPFSRT_NDFN_LOG); }
static int fn_floor(lua_State *L) { return unary(L, IPFSRT_NDFN_FLOOR); }
static int fn_ceil(lua_State *L) { return unary(L, IPFSRT_NDFN_CEIL); }
static int fn_isnan(lua_State *L) { return unary(L, IPFSRT_NDFN_ISNAN); }
static int fn_isfinite(lua_State *L) { return unary(L, IPFSRT_NDFN_ISFINITE); }
static int fn_sin(lua_State *L) { return unary(L, IPFSRT_NDFN_SIN); }
static int fn_cos(lua_State *L) { return unary(L, IPFSRT_NDFN_COS); }
static int fn_tan(lua_State *L) { return unary(L, IPFSRT_NDFN_TAN); }
static int fn_deg2rad(lua_State *L) { return unary(L, IPFSRT_NDFN_DEG2RAD); }
static int fn_rad2deg(lua_State *L) { return unary(L, IPFSRT_NDFN_RAD2DEG); }

static int array_astype(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    size_t itemsize;
    ipfsrt_dtype d = ipfsrt_lua_nd_check_dtype(L, 2, IPFSRT_DTYPE_FLOAT64, &itemsize);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_astype(out, a, d, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

void ipfsrt_lua_check_scaling(lua_State *L, int idx, ipfsrt_dtype *dtype, ipfsrt_ndarray_scaling *sc) {
    size_t itemsize;
    *dtype = ipfsrt_lua_nd_check_dtype(L, idx, IPFSRT_DTYPE_FLOAT64, &itemsize);
    *sc = (ipfsrt_ndarray_scaling){0, {0}, !lua_isnoneornil(L, idx + 2), !lua_isnoneornil(L, idx + 3), 0, 0};
    if (!lua_isnoneornil(L, idx + 1)) {
        luaL_checktype(L, idx + 1, LUA_TTABLE);
        for (lua_Integer i = 1; lua_rawgeti(L, idx + 1, i) != LUA_TNIL; i++) {
            if (sc->nfills == IPFSRT_NDARRAY_MAX_FILLS) ipfsrt_lua_raise_arg(L, "too many missing values");
            sc->fills[sc->nfills++] = luaL_checknumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (sc->has_scale) sc->scale = luaL_checknumber(L, idx + 2);
    if (sc->has_offset) sc->offset = luaL_checknumber(L, idx + 3);
}

/* a:unscale(dtype, {missing values...}, scale | nil, offset | nil): CF decoding in one pass */
static int array_unscale(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_dtype d;
    ipfsrt_ndarray_scaling sc;
    ipfsrt_lua_check_scaling(L, 2, &d, &sc);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_unscale(out, a, d, &sc, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* Options {skipna = true, where = mask} at idx (0: none). The mask stays
 * referenced by the options table, an argument of the call. */
typedef struct reduce_opts {
    bool skipna;
    const ipfsrt_ndarray *where;
} reduce_opts;

static reduce_opts opts_of(lua_State *L, int idx) {
    reduce_opts o = {true, NULL};
    if (!idx || !lua_istable(L, idx)) return o;
    if (lua_getfield(L, idx, "skipna") != LUA_TNIL) o.skipna = lua_toboolean(L, -1);
    if (lua_getfield(L, idx, "where") != LUA_TNIL) {
        o.where = luaL_testudata(L, -1, IPFSRT_LUA_NDARRAY);
        if (!o.where) ipfsrt_lua_raise_arg(L, "where= takes a bool array");
    }
    lua_pop(L, 2);
    return o;
}

static bool skipna_of(lua_State *L, int idx) { return opts_of(L, idx).skipna; }

/* a:sum(axes, opts) with a list of axes */
int ipfsrt_lua_nd_check_axes(lua_State *L, int idx, int *axes) {
    if (lua_isnoneornil(L, idx)) return -1;
    if (lua_isinteger(L, idx)) {
        axes[0] = (int)lua_tointeger(L, idx);
        return 1;
    }
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer n = luaL_len(L, idx);
    if (n > IPFSRT_NDARRAY_MAX_DIMS) return ipfsrt_lua_raise_arg(L, "too many axes");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        axes[i - 1] = (int)luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    return n == 0 ? -1 : (int)n;
}

static int reduce_axes(lua_State *L, ipfsrt_ndreduce how, ipfsrt_ndarray *a) {
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    int n = ipfsrt_lua_nd_check_axes(L, 2, axes); /* a list with items: reduce's caller checked */
    reduce_opts o = opts_of(L, 3);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reduce(out, how, a, axes, n, o.skipna, o.where, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:sum([axis | {axis, ...}][, {skipna = false, where = mask}]): over
 * everything a Lua number, along axes an array. A table second is a list of
 * axes when it has items, else the options. */
static int reduce(lua_State *L, ipfsrt_ndreduce how) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    bool listed = lua_istable(L, 2) && luaL_len(L, 2) > 0;
    if (listed) return reduce_axes(L, how, a);
    int opts = lua_istable(L, 2) ? 2 : lua_istable(L, 3) ? 3 : 0;
    bool all = lua_isnoneornil(L, 2) || opts == 2;
    int axis = all ? 0 : (int)luaL_checkinteger(L, 2);
    reduce_opts o = opts_of(L, opts);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_reduce(out, how, a, all ? NULL : &axis, 1, o.skipna, o.where, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    if (!all) return 1;
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(out, NULL, 0, &v, NULL);
    ipfsrt_lua_nd_push_value(L, &v);
    return 1;
}

/* total:accumulate(x[, {how = "sum" | "min" | "max", skipna = true, count = counts, first = false}]):
 * x's rows folded into total (and counts), in place; returns total */
static int array_accumulate(lua_State *L) {
    static const char *const hows[] = {"sum", "min", "max", NULL};
    ipfsrt_ndarray *total = ipfsrt_lua_check_ndarray(L, 1);
    const ipfsrt_ndarray *x = ipfsrt_lua_check_ndarray(L, 2);
    ipfsrt_ndaccumulate how = IPFSRT_NDACCUMULATE_SUM;
    bool skipna = true, first = false;
    ipfsrt_ndarray *count = NULL;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "how");
        how = (ipfsrt_ndaccumulate)luaL_checkoption(L, -1, "sum", hows);
        lua_pop(L, 1);
        skipna = ipfsrt_lua_opt_bool(L, 3, "skipna", true);
        first = ipfsrt_lua_opt_bool(L, 3, "first", false);
        if (lua_getfield(L, 3, "count") != LUA_TNIL) {
            count = luaL_testudata(L, -1, IPFSRT_LUA_NDARRAY);
            if (!count) return ipfsrt_lua_raise_arg(L, "count= takes an int64 array");
        }
        lua_pop(L, 1); /* the table at 3 keeps the counts alive */
    }
    ipfsrt_error err;
    if (ipfsrt_ndarray_accumulate(total, count, x, how, skipna, first, &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.weighted_sums(x, w, n) -> num, den: over x's last n axes */
static int nd_weighted_sums(lua_State *L) {
    const ipfsrt_ndarray *x = ipfsrt_lua_check_ndarray(L, 1), *w = ipfsrt_lua_check_ndarray(L, 2);
    int n = (int)luaL_checkinteger(L, 3);
    ipfsrt_ndarray *num = ipfsrt_lua_nd_push_new(L), *den = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_weighted_sums(num, den, x, w, n, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 2;
}

/* a:median([axis | {axis, ...}][, {skipna = false}]): as sum's arguments */
static int red_median(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int axes[IPFSRT_NDARRAY_MAX_DIMS];
    int n = ipfsrt_lua_nd_check_axes(L, 2, axes);
    bool all = n < 0;
    bool skipna = skipna_of(L, lua_istable(L, 2) && all ? 2 : 3);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_median(out, a, all ? NULL : axes, n, skipna, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    if (!all) return 1;
    ipfsrt_ndvalue v;
    ipfsrt_ndarray_get(out, NULL, 0, &v, NULL);
    ipfsrt_lua_nd_push_value(L, &v);
    return 1;
}

static int red_var(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_VAR); }
static int red_std(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_STD); }
static int red_argmin(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ARGMIN); }
static int red_argmax(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ARGMAX); }
static int red_any(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ANY); }
static int red_all(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_ALL); }
static int nd_maximum(lua_State *L) { return binary(L, IPFSRT_NDOP_MAXIMUM); }
static int nd_minimum(lua_State *L) { return binary(L, IPFSRT_NDOP_MINIMUM); }

/* ndarray.where(cond, x, y): x and y arrays or Lua numbers (weak, as in arithmetic) */
static int nd_where(lua_State *L) {
    ipfsrt_ndarray *cond = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray *x = luaL_testudata(L, 2, IPFSRT_LUA_NDARRAY), *y = luaL_testudata(L, 3, IPFSRT_LUA_NDARRAY);
    ipfsrt_ndarray tx, ty;
    ipfsrt_ndarray_init(&tx);
    ipfsrt_ndarray_init(&ty);
    ipfsrt_dtype hint = x ? x->dtype : y ? y->dtype : IPFSRT_DTYPE_FLOAT64;
    const ipfsrt_ndarray *a = operand(L, 2, hint, &tx);
    const ipfsrt_ndarray *b = operand(L, 3, a->dtype, &ty);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_where(out, cond, a, b, &err);
    ipfsrt_ndarray_free(&tx);
    ipfsrt_ndarray_free(&ty);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:clip(lo, hi): either bound may be nil; NaN stays NaN */
static int array_clip(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray tlo, thi;
    ipfsrt_ndarray_init(&tlo);
    ipfsrt_ndarray_init(&thi);
    const ipfsrt_ndarray *lo = lua_isnoneornil(L, 2) ? NULL : operand(L, 2, a->dtype, &tlo);
    const ipfsrt_ndarray *hi = lua_isnoneornil(L, 3) ? NULL : operand(L, 3, a->dtype, &thi);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_clip(out, a, lo, hi, &err);
    ipfsrt_ndarray_free(&tlo);
    ipfsrt_ndarray_free(&thi);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:fill(v): every element, views included; returns a */
static int array_fill(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray tv;
    ipfsrt_ndarray_init(&tv);
    const ipfsrt_ndarray *v = operand(L, 2, a->dtype, &tv);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_fill(a, v, &err);
    ipfsrt_ndarray_free(&tv);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.linspace(start, stop[, num = 50]) */
static int nd_linspace(lua_State *L) {
    lua_Integer num = luaL_optinteger(L, 3, 50);
    if (num < 0) return ipfsrt_lua_raise_arg(L, "linspace needs a count of 0 or more");
    ipfsrt_ndarray *a = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_linspace(a, luaL_checknumber(L, 1), luaL_checknumber(L, 2), (size_t)num, &err) !=
        IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:round([decimals]) */
static int array_round(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int decimals = (int)luaL_optinteger(L, 2, 0);
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_round(out, a, decimals, &err) != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:cumsum([axis = 0][, {skipna = ...}]) */
static int array_cumsum(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    int axis = lua_isinteger(L, 2) ? (int)lua_tointeger(L, 2) : 0;
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    if (ipfsrt_ndarray_cumsum(out, a, axis, skipna_of(L, lua_istable(L, 2) ? 2 : 3), &err) != IPFSRT_OK)
        return ipfsrt_lua_raise(L, &err);
    return 1;
}

/* a:assign(value): numpy's a[...] = value (value an array or a number, broadcast) */
static int array_assign(lua_State *L) {
    ipfsrt_ndarray *a = ipfsrt_lua_check_ndarray(L, 1);
    ipfsrt_ndarray tv;
    ipfsrt_ndarray_init(&tv);
    const ipfsrt_ndarray *v = operand(L, 2, a->dtype, &tv);
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_assign(a, v, &err);
    ipfsrt_ndarray_free(&tv);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* ndarray.concat({a, b, ...}[, axis = 0]) and ndarray.stack(...) */
static int join(lua_State *L, bool stack) {
    luaL_checktype(L, 1, LUA_TTABLE);
    int axis = (int)luaL_optinteger(L, 2, 0);
    const ipfsrt_ndarray *arrays[64];
    lua_Integer n = luaL_len(L, 1);
    if (n < 1 || n > 64) return ipfsrt_lua_raise_arg(L, "1 to 64 arrays to join");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        arrays[i - 1] = ipfsrt_lua_check_ndarray(L, -1);
        lua_pop(L, 1); /* still referenced by the list */
    }
    ipfsrt_ndarray *out = ipfsrt_lua_nd_push_new(L);
    ipfsrt_error err;
    ipfsrt_status st = stack ? ipfsrt_ndarray_stack(out, arrays, (int)n, axis, &err)
                             : ipfsrt_ndarray_concat(out, arrays, (int)n, axis, &err);
    if (st != IPFSRT_OK) return ipfsrt_lua_raise(L, &err);
    return 1;
}

static int nd_concat(lua_State *L) { return join(L, false); }
static int nd_stack(lua_State *L) { return join(L, true); }

static int red_sum(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_SUM); }
static int red_mean(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MEAN); }
static int red_min(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MIN); }
static int red_max(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_MAX); }
static int red_count(lua_State *L) { return reduce(L, IPFSRT_NDREDUCE_COUNT); }

const luaL_Reg ipfsrt_lua_nd_math_methods[] = {
    {"astype", array_astype}, {"unscale", array_unscale},
    {"lt", op_lt}, {"le", op_le}, {"gt", op_gt}, {"ge", op_ge}, {"eq", op_eq}, {"ne", op_ne},
    {"abs", fn_abs}, {"sqrt", fn_sqrt}, {"exp", fn_exp}, {"log", fn_log}, {"floor", fn_floor},
    {"ceil", fn_ceil}, {"isnan", fn_isnan}, {"isfinite", fn_isfinite}, {"sin", fn_sin}, {"cos", fn_cos},
    {"tan", fn_tan}, {"deg2rad", fn_deg2rad}, {"rad2deg", fn_rad2deg},
    {"sum", red_sum}, {"mean", red_mean}, {"min", red_min}, {"max", red_max}, {"count", red_count},
    {"var", red_var}, {"std", red_std}, {"median", red_median}, {"accumulate", array_accumulate},
    {"argmin", red_argmin}, {"argmax", red_argmax}, {"any", red_any}, {"all", red_all},
    {"clip", array_clip}, {"fill", array_fill}, {"round", array_round}, {"cumsum", array_cumsum},
    {"assign", array_assign}, {NULL, NULL}};
const luaL_Reg ipfsrt_lua_nd_math_meta[] = {
    {"__add", op_add}, {"__sub", op_sub}, {"__mul", op_mul}, {"__div", op_div}, {"__idiv", op_idiv},
    {"__mod", op_mod}, {"__pow", op_pow}, {"__unm", fn_unm}, {"__band", op_band}, {"__bor", op_bor},
    {"__bxor", op_bxor}, {"__bnot", fn_bnot}, {NULL, NULL}};
const luaL_Reg ipfsrt_lua_nd_math_functions[] = {
    {"where", nd_where}, {"maximum", nd_maximum}, {"minimum", nd_minimum}, {"weighted_sums", nd_weighted_sums},
    {"linspace", nd_linspace}, {"concat", nd_concat}, {"stack", nd_stack}, {NULL, NULL}};
