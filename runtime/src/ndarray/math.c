/* Elementwise math and reductions: numpy's promotion, broadcasting and integer
 * semantics (wrapping, floor division), computed in the widest type of the
 * result's kind (double, int64, uint64) and stored back. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"
#include "base/base_internal.h"

static int int_bits(ipfsrt_dtype d) { return (int)ipfsrt_dtype_size(d) * 8; }

static ipfsrt_dtype signed_of_bits(int bits) {
    return bits <= 8 ? IPFSRT_DTYPE_INT8 : bits <= 16 ? IPFSRT_DTYPE_INT16
         : bits <= 32 ? IPFSRT_DTYPE_INT32 : IPFSRT_DTYPE_INT64;
}

ipfsrt_status ipfsrt_dtype_promote(ipfsrt_dtype a, ipfsrt_dtype b, ipfsrt_dtype *out, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    ipfsrt_ndkind ka = ipfsrt_ndkind_of(a), kb = ipfsrt_ndkind_of(b);
    if (ka == IPFSRT_NDKIND_OTHER || kb == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no arithmetic on %s with %s", ipfsrt_dtype_name(a),
                           ipfsrt_dtype_name(b));
    if (ka == IPFSRT_NDKIND_BOOL) return *out = b, IPFSRT_OK;
    if (kb == IPFSRT_NDKIND_BOOL) return *out = a, IPFSRT_OK;
    if (ka == kb) return *out = ipfsrt_dtype_size(a) >= ipfsrt_dtype_size(b) ? a : b, IPFSRT_OK;
    if (ka == IPFSRT_NDKIND_FLOAT || kb == IPFSRT_NDKIND_FLOAT) { /* int with float: float32 holds ints up to 16 bits */
        ipfsrt_dtype f = ka == IPFSRT_NDKIND_FLOAT ? a : b, i = ka == IPFSRT_NDKIND_FLOAT ? b : a;
        *out = f == IPFSRT_DTYPE_FLOAT32 && int_bits(i) <= 16 ? IPFSRT_DTYPE_FLOAT32 : IPFSRT_DTYPE_FLOAT64;
        return IPFSRT_OK;
    }
    ipfsrt_dtype s = ka == IPFSRT_NDKIND_INT ? a : b, u = ka == IPFSRT_NDKIND_INT ? b : a; /* signed with unsigned */
    int need = int_bits(u) + 1 > int_bits(s) ? int_bits(u) * 2 : int_bits(s);
    *out = need > 64 ? IPFSRT_DTYPE_FLOAT64 : signed_of_bits(need);
    return IPFSRT_OK;
}


/* ------------------------------------------------------------ binary ops */

typedef struct binary {
    ipfsrt_ndop op;
    ipfsrt_dtype in_a, in_b, compute, result;
    ipfsrt_ndkind k;
    bool negative_power, typed;
} binary;

/* npy_divmod: Python's float floor division and modulo. */
static void float_divmod(double a, double b, double *q, double *r) {
    if (b == 0) {
        *q = a / b;
        *r = fmod(a, b);
        return;
    }
    double m = fmod(a, b), d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) {
        m += b;
        d -= 1;
    }
    if (m == 0) m = copysign(0, b);
    double fq = floor(d);
    if (d - fq > 0.5) fq += 1;
    if (d == 0) fq = copysign(0, a / b);
    *q = fq;
    *r = m;
}

static double float_op(ipfsrt_ndop op, double a, double b) {
    double q, r;
    switch (op) {
    case IPFSRT_NDOP_ADD: return a + b;
    case IPFSRT_NDOP_SUB: return a - b;
    case IPFSRT_NDOP_MUL: return a * b;
    case IPFSRT_NDOP_DIV: return a / b;
    case IPFSRT_NDOP_POW: return pow(a, b);
    case IPFSRT_NDOP_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case IPFSRT_NDOP_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case IPFSRT_NDOP_FLOORDIV: float_divmod(a, b, &q, &r); return q;
    default: float_divmod(a, b, &q, &r); return r; /* MOD */
    }
}

/* int64 with wrapping (through uint64) and numpy's division by zero (0). */
static uint64_t int_op(ipfsrt_ndop op, uint64_t ua, uint64_t ub, bool is_signed) {
    bool a_less = is_signed ? (int64_t)ua < (int64_t)ub : ua < ub;
    switch (op) {
    case IPFSRT_NDOP_MAXIMUM: return a_less ? ub : ua;
    case IPFSRT_NDOP_MINIMUM: return a_less ? ua : ub;
    case IPFSRT_NDOP_ADD: return ua + ub;
    case IPFSRT_NDOP_SUB: return ua - ub;
    case IPFSRT_NDOP_MUL: return ua * ub;
    case IPFSRT_NDOP_POW: {
        uint64_t r = 1, base = ua, e = ub;
        for (; e; e >>= 1, base *= base)
            if (e & 1) r *= base;
        return r;
    }
    default: break;
    }
    if (ub == 0) return 0;
    if (!is_signed) return op == IPFSRT_NDOP_FLOORDIV ? ua / ub : ua % ub;
    int64_t a = (int64_t)ua, b = (int64_t)ub;
    if (a == INT64_MIN && b == -1) return op == IPFSRT_NDOP_FLOORDIV ? ua : 0; /* wraps, as numpy */
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
    }
    return (uint64_t)(op == IPFSRT_NDOP_FLOORDIV ? q : r);
}

/* The operators in blocks of IPFSRT_NDROW_BLOCK: plain loops for the common
 * ones, which the compiler vectorizes; C's comparisons are numpy's, NaN
 * included (only != holds for it). */
#define BLOCK_LOOP(expr) for (size_t i = 0; i < n; i++) z[i] = (expr)

IPFSRT_NDVECTOR static void float_block(ipfsrt_ndop op, const double *x, const double *y, double *z, size_t n) {
    switch (op) {
    case IPFSRT_NDOP_ADD: BLOCK_LOOP(x[i] + y[i]); break;
    case IPFSRT_NDOP_SUB: BLOCK_LOOP(x[i] - y[i]); break;
    case IPFSRT_NDOP_MUL: BLOCK_LOOP(x[i] * y[i]); break;
    case IPFSRT_NDOP_DIV: BLOCK_LOOP(x[i] / y[i]); break;
    default: BLOCK_LOOP(float_op(op, x[i], y[i])); break;
    }
}

IPFSRT_NDVECTOR static void float_compare_block(ipfsrt_ndop op, const double *x, const double *y, uint64_t *z, size_t n) {
    switch (op) {
    case IPFSRT_NDOP_LT: BLOCK_LOOP(x[i] < y[i]); break;
    case IPFSRT_NDOP_LE: BLOCK_LOOP(x[i] <= y[i]); break;
    case IPFSRT_NDOP_GT: BLOCK_LOOP(x[i] > y[i]); break;
    case IPFSRT_NDOP_GE: BLOCK_LOOP(x[i] >= y[i]); break;
    case IPFSRT_NDOP_EQ: BLOCK_LOOP(x[i] == y[i]); break;
    default: BLOCK_LOOP(x[i] != y[i]); break;
    }
}

IPFSRT_NDVECTOR static void int_compare_block(ipfsrt_ndop op, const uint64_t *x, const uint64_t *y, uint64_t *z, size_t n,
                              bool is_signed) {
    /* signed values compare as unsigned ones once their sign bits are flipped */
    uint64_t flip = is_signed ? (uint64_t)1 << 63 : 0;
    switch (op) {
    case IPFSRT_NDOP_LT: BLOCK_LOOP((x[i] ^ flip) < (y[i] ^ flip)); break;
    case IPFSRT_NDOP_LE: BLOCK_LOOP((x[i] ^ flip) <= (y[i] ^ flip)); break;
    case IPFSRT_NDOP_GT: BLOCK_LOOP((x[i] ^ flip) > (y[i] ^ flip)); break;
    case IPFSRT_NDOP_GE: BLOCK_LOOP((x[i] ^ flip) >= (y[i] ^ flip)); break;
    case IPFSRT_NDOP_EQ: BLOCK_LOOP(x[i] == y[i]); break;
    default: BLOCK_LOOP(x[i] != y[i]); break;
    }
}

/* False when a signed integer was raised to a negative power. */
IPFSRT_NDVECTOR static bool int_block(ipfsrt_ndop op, const uint64_t *x, const uint64_t *y, uint64_t *z, size_t n,
                      bool is_signed) {
    switch (op) {
    case IPFSRT_NDOP_ADD: BLOCK_LOOP(x[i] + y[i]); return true;
    case IPFSRT_NDOP_SUB: BLOCK_LOOP(x[i] - y[i]); return true;
    case IPFSRT_NDOP_MUL: BLOCK_LOOP(x[i] * y[i]); return true;
    case IPFSRT_NDOP_AND: BLOCK_LOOP((x[i] != 0) & (y[i] != 0)); return true;
    case IPFSRT_NDOP_OR: BLOCK_LOOP((x[i] != 0) | (y[i] != 0)); return true;
    case IPFSRT_NDOP_XOR: BLOCK_LOOP((x[i] != 0) != (y[i] != 0)); return true;
    default: break;
    }
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        if (op == IPFSRT_NDOP_POW && is_signed && (int64_t)y[i] < 0) ok = false;
        z[i] = int_op(op, x[i], y[i], is_signed);
    }
    return ok;
}

static bool is_comparison(ipfsrt_ndop op) { return op >= IPFSRT_NDOP_LT && op <= IPFSRT_NDOP_NE; }

static void binary_block(binary *b, unsigned char **p, const ptrdiff_t *s, size_t n) {
    if (b->k == IPFSRT_NDKIND_FLOAT) {
        double x[IPFSRT_NDROW_BLOCK], y[IPFSRT_NDROW_BLOCK], z[IPFSRT_NDROW_BLOCK];
        ipfsrt_ndrow_load_double(b->in_a, p[1], s[1], n, x);
        ipfsrt_ndrow_load_double(b->in_b, p[2], s[2], n, y);
        if (is_comparison(b->op)) {
            uint64_t c[IPFSRT_NDROW_BLOCK];
            float_compare_block(b->op, x, y, c, n);
            ipfsrt_ndrow_store_bits(IPFSRT_DTYPE_BOOL, p[0], s[0], n, c);
        } else {
            float_block(b->op, x, y, z, n);
            ipfsrt_ndrow_store_float(b->result, p[0], s[0], n, z);
        }
        return;
    }
    uint64_t x[IPFSRT_NDROW_BLOCK], y[IPFSRT_NDROW_BLOCK], z[IPFSRT_NDROW_BLOCK];
    ipfsrt_ndrow_load_bits(b->in_a, p[1], s[1], n, x);
    ipfsrt_ndrow_load_bits(b->in_b, p[2], s[2], n, y);
    bool is_signed = b->k != IPFSRT_NDKIND_UINT;
    if (is_comparison(b->op)) int_compare_block(b->op, x, y, z, n, is_signed);
    else if (!int_block(b->op, x, y, z, n, is_signed)) b->negative_power = true;
    ipfsrt_ndrow_store_bits(b->result, p[0], s[0], n, z);
}

/* A contiguous array against one number, compared in the array's own type
 * (masks such as `a ~= fill` over a whole grid): no 64-bit buffers. */
#define SCALAR_CMP_LOOP(T, Y, OP)                                                                  \
    for (size_t i = 0; i < n; i++) {                                                               \
        T x_;                                                                                      \
        memcpy(&x_, xp + i * sizeof(T), sizeof x_);                                                \
        out[i] = x_ OP (Y);                                                                        \
    }

#define SCALAR_CMP(T, Y)                                                                           \
    do {                                                                                           \
        switch (op) {                                                                              \
        case IPFSRT_NDOP_LT: SCALAR_CMP_LOOP(T, Y, <) break;                                       \
        case IPFSRT_NDOP_LE: SCALAR_CMP_LOOP(T, Y, <=) break;                                      \
        case IPFSRT_NDOP_GT: SCALAR_CMP_LOOP(T, Y, >) break;                                       \
        case IPFSRT_NDOP_GE: SCALAR_CMP_LOOP(T, Y, >=) break;                                      \
        case IPFSRT_NDOP_EQ: SCALAR_CMP_LOOP(T, Y, ==) break;                                      \
        default: SCALAR_CMP_LOOP(T, Y, !=) break;                                                  \
        }                                                                                          \
    } while (0)

/* y, the scalar, as a value of the integer type d; false when it is none. */
static bool int_scalar_fits(ipfsrt_dtype d, uint64_t y, bool y_signed, int64_t *as_signed) {
    int64_t lo, hi;
    switch (d) {
    case IPFSRT_DTYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case IPFSRT_DTYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case IPFSRT_DTYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case IPFSRT_DTYPE_UINT8: lo = 0, hi = UINT8_MAX; break;
    case IPFSRT_DTYPE_UINT16: lo = 0, hi = UINT16_MAX; break;
    case IPFSRT_DTYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
    default: return false; /* 64-bit ones take the general path */
    }
    if (!y_signed && y > (uint64_t)INT64_MAX) return false;
    int64_t v = (int64_t)y;
    *as_signed = v;
    return v >= lo && v <= hi;
}

IPFSRT_NDVECTOR static bool scalar_compare_row(const binary *b, unsigned char **p, const ptrdiff_t *s, size_t n) {
    ipfsrt_ndop op = b->op;
    if (!is_comparison(op) || s[0] != 1 || s[2] != 0 || s[1] != (ptrdiff_t)ipfsrt_dtype_size(b->in_a)) return false;
    uint8_t *out = p[0];
    const unsigned char *xp = p[1];
    if (b->k == IPFSRT_NDKIND_FLOAT && (b->in_a == IPFSRT_DTYPE_FLOAT32 || b->in_a == IPFSRT_DTYPE_FLOAT64)) {
        double y = ipfsrt_ndload_double(b->in_b, p[2]); /* float32 widened compares exactly */
        if (b->in_a == IPFSRT_DTYPE_FLOAT32) SCALAR_CMP(float, (double)y);
        else SCALAR_CMP(double, y);
        return true;
    }
    int64_t y;
    if (b->k == IPFSRT_NDKIND_FLOAT ||
        !int_scalar_fits(b->in_a, ipfsrt_ndload_bits(b->in_b, p[2]), ipfsrt_ndkind_of(b->in_b) != IPFSRT_NDKIND_UINT, &y))
        return false;
    switch (b->in_a) {
    case IPFSRT_DTYPE_INT8: SCALAR_CMP(int8_t, (int8_t)y); break;
    case IPFSRT_DTYPE_INT16: SCALAR_CMP(int16_t, (int16_t)y); break;
    case IPFSRT_DTYPE_INT32: SCALAR_CMP(int32_t, (int32_t)y); break;
    case IPFSRT_DTYPE_UINT8: SCALAR_CMP(uint8_t, (uint8_t)y); break;
    case IPFSRT_DTYPE_UINT16: SCALAR_CMP(uint16_t, (uint16_t)y); break;
    default: SCALAR_CMP(uint32_t, (uint32_t)y); break;
    }
    return true;
}

static void binary_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    binary *b = ctx;
    if (ipfsrt_ndfast_allowed() && b->in_a == b->compute && b->in_b == b->compute &&
        ipfsrt_ndfast_binary(b->op, b->compute, b->result, p, s, n)) {
        b->typed = true;
        return;
    }
    if (ipfsrt_ndfast_allowed() && scalar_compare_row(b, p, s, n)) {
        b->typed = true;
        return;
    }
    for (size_t done = 0; done < n; done += IPFSRT_NDROW_BLOCK) {
        unsigned char *q[3];
        for (int k = 0; k < 3; k++) q[k] = p[k] + (ptrdiff_t)done * s[k];
        binary_block(ctx, q, s, n - done < IPFSRT_NDROW_BLOCK ? n - done : IPFSRT_NDROW_BLOCK);
    }
}

/* The dtype computed in and the dtype of the result. */
static ipfsrt_status binary_types(binary *b, ipfsrt_error *err) {
    ipfsrt_status st = ipfsrt_dtype_promote(b->in_a, b->in_b, &b->compute, err);
    if (st != IPFSRT_OK) return st;
    b->result = b->compute;
    if (b->op >= IPFSRT_NDOP_AND) {
        if (b->in_a != IPFSRT_DTYPE_BOOL || b->in_b != IPFSRT_DTYPE_BOOL)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "&, | and ~ take bool arrays (got %s and %s)",
                               ipfsrt_dtype_name(b->in_a), ipfsrt_dtype_name(b->in_b));
        b->result = IPFSRT_DTYPE_BOOL;
    } else if (b->op >= IPFSRT_NDOP_LT) {
        b->result = IPFSRT_DTYPE_BOOL;
    } else if (b->op == IPFSRT_NDOP_DIV && ipfsrt_ndkind_of(b->compute) != IPFSRT_NDKIND_FLOAT) {
        b->compute = b->result = IPFSRT_DTYPE_FLOAT64; /* int / int is float64 */
    } else if (b->compute == IPFSRT_DTYPE_BOOL) { /* numpy: + is or, * is and, - is refused, */
        if (b->op == IPFSRT_NDOP_ADD || b->op == IPFSRT_NDOP_MAXIMUM) b->op = IPFSRT_NDOP_OR;
        else if (b->op == IPFSRT_NDOP_MUL || b->op == IPFSRT_NDOP_MINIMUM) b->op = IPFSRT_NDOP_AND;
        else if (b->op == IPFSRT_NDOP_SUB)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no - of bool arrays (use ~ or ~=)");
        else b->compute = b->result = IPFSRT_DTYPE_INT8; /* //, % and ^ go through int8 */
    }
    b->k = ipfsrt_ndkind_of(b->compute);
    return IPFSRT_OK;
}

/* A new result of the broadcast shape, swapped into out once computed. */
static ipfsrt_status result_for(ipfsrt_ndarray *res, ipfsrt_dtype dtype, const ipfsrt_ndarray *a,
                                const ipfsrt_ndarray *b, ipfsrt_error *err) {
    int ndim = a->ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_status st = b ? ipfsrt_ndarray_broadcast_shape(a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, err)
                         : (memcpy(shape, a->shape, sizeof shape), IPFSRT_OK);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ndarray_init(res);
    return ipfsrt_ndarray_new_buffer(res, dtype, 0, ndim, shape, false, err);
}

ipfsrt_status ipfsrt_ndarray_binary(ipfsrt_ndarray *out, ipfsrt_ndop op, const ipfsrt_ndarray *a,
                                    const ipfsrt_ndarray *b, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    IPFSRT_NEED(b, err);
    binary k = {.op = op, .in_a = a->dtype, .in_b = b->dtype};
    ipfsrt_status st = binary_types(&k, err);
    ipfsrt_ndarray res;
    if (st == IPFSRT_OK) st = result_for(&res, k.result, a, b, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, res.ndim, res.shape);
    ipfsrt_ndwalk_add(&w, &res);
    ipfsrt_ndwalk_add(&w, a);
    ipfsrt_ndwalk_add(&w, b);
    w.row = binary_row;
    w.ctx = &k;
    ipfsrt_ndwalk_run(&w);
    if (k.typed) ipfsrt_ndfast_hit();
    if (k.negative_power) {
        ipfsrt_ndarray_free(&res);
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "integers to negative integer powers are not allowed");
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* ------------------------------------------------------------- unary ops */

/* out (all of its elements) and a broadcast to it, walked together. */
static void walk_pair(ipfsrt_ndarray *out, const ipfsrt_ndarray *a,
                      void (*row)(void *, unsigned char **, const ptrdiff_t *, size_t),
                      void (*elem)(void *, unsigned char **), void *ctx) {
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, out->ndim, out->shape);
    ipfsrt_ndwalk_add(&w, out);
    ipfsrt_ndwalk_add(&w, a);
    w.row = row;
    w.elem = elem;
    w.ctx = ctx;
    ipfsrt_ndwalk_run(&w);
}

typedef struct unary {
    ipfsrt_ndfn fn;
    ipfsrt_dtype in, result;
    bool typed;
} unary;

static void unary_one(void *ctx, unsigned char **p);

/* sin, cos, tan in double (rounded once when stored); the angle conversions
 * in the result's type, as the typed loops of unary.c. */
static double angle_fn(ipfsrt_ndfn fn, ipfsrt_dtype result, double x) {
    bool single = result == IPFSRT_DTYPE_FLOAT32;
    switch (fn) {
    case IPFSRT_NDFN_SIN: return sin(x);
    case IPFSRT_NDFN_COS: return cos(x);
    case IPFSRT_NDFN_TAN: return tan(x);
    case IPFSRT_NDFN_DEG2RAD: return single ? (double)((float)x * (float)(M_PI / 180.0)) : x * (M_PI / 180.0);
    default: return single ? (double)((float)x * (180.0f / (float)M_PI)) : x * (180.0 / M_PI);
    }
}

static void unary_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    unary *u = ctx;
    if (ipfsrt_ndfast_allowed() && ipfsrt_ndfast_unary(u->fn, u->in, u->result, p[0], s[0], p[1], s[1], n)) {
        u->typed = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char *q[2] = {p[0] + (ptrdiff_t)i * s[0], p[1] + (ptrdiff_t)i * s[1]};
        unary_one(u, q);
    }
}

static void unary_one(void *ctx, unsigned char **p) {
    const unary *u = ctx;
    ipfsrt_ndkind k = ipfsrt_ndkind_of(u->in);
    if (u->fn == IPFSRT_NDFN_ISNAN || u->fn == IPFSRT_NDFN_ISFINITE) {
        double x = k == IPFSRT_NDKIND_FLOAT ? ipfsrt_ndload_double(u->in, p[1]) : 0;
        *p[0] = u->fn == IPFSRT_NDFN_ISNAN ? isnan(x) : isfinite(x);
    } else if (u->fn == IPFSRT_NDFN_NOT) {
        *p[0] = !*p[1];
    } else if (ipfsrt_ndkind_of(u->result) == IPFSRT_NDKIND_FLOAT) {
        double x = ipfsrt_ndload_double(u->in, p[1]), y;
        switch (u->fn) {
        case IPFSRT_NDFN_NEG: y = -x; break;
        case IPFSRT_NDFN_ABS: y = fabs(x); break;
        case IPFSRT_NDFN_SQRT: y = sqrt(x); break;
        case IPFSRT_NDFN_EXP: y = exp(x); break;
        case IPFSRT_NDFN_LOG: y = log(x); break;
        case IPFSRT_NDFN_FLOOR: y = floor(x); break;
        case IPFSRT_NDFN_CEIL: y = ceil(x); break;
        default: y = angle_fn(u->fn, u->result, x); break;
        }
        ipfsrt_ndstore_float(u->result, p[0], y);
    } else { /* integers: neg and abs wrap, floor and ceil keep them */
        uint64_t x = ipfsrt_ndload_bits(u->in, p[1]);
        bool negative = k == IPFSRT_NDKIND_INT && (int64_t)x < 0;
        uint64_t y = u->fn == IPFSRT_NDFN_NEG ? (uint64_t)0 - x
                   : u->fn == IPFSRT_NDFN_ABS && negative ? (uint64_t)0 - x : x;
        ipfsrt_ndstore_bits(u->result, p[0], y);
    }
}

ipfsrt_status ipfsrt_ndarray_unary(ipfsrt_ndarray *out, ipfsrt_ndfn fn, const ipfsrt_ndarray *a,
                                   ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    ipfsrt_ndkind k = ipfsrt_ndkind_of(a->dtype);
    unary u = {fn, a->dtype, a->dtype, false};
    if (k == IPFSRT_NDKIND_OTHER) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no math on %s", ipfsrt_dtype_name(a->dtype));
    if (fn == IPFSRT_NDFN_ISNAN || fn == IPFSRT_NDFN_ISFINITE || fn == IPFSRT_NDFN_NOT) u.result = IPFSRT_DTYPE_BOOL;
    if (fn == IPFSRT_NDFN_NOT && k != IPFSRT_NDKIND_BOOL) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "~ takes bool arrays");
    if ((fn == IPFSRT_NDFN_NEG || fn == IPFSRT_NDFN_ABS) && k == IPFSRT_NDKIND_BOOL)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no - or abs of a bool array (use ~)");
    if ((fn == IPFSRT_NDFN_SQRT || fn == IPFSRT_NDFN_EXP || fn == IPFSRT_NDFN_LOG || fn >= IPFSRT_NDFN_SIN) &&
        k != IPFSRT_NDKIND_FLOAT)
        u.result = ipfsrt_dtype_size(a->dtype) <= 2 ? IPFSRT_DTYPE_FLOAT32 : IPFSRT_DTYPE_FLOAT64;
    if ((fn == IPFSRT_NDFN_FLOOR || fn == IPFSRT_NDFN_CEIL) && k == IPFSRT_NDKIND_BOOL) u.result = IPFSRT_DTYPE_INT8;
    ipfsrt_ndarray res;
    ipfsrt_status st = result_for(&res, u.result, a, NULL, err);
    if (st != IPFSRT_OK) return st;
    walk_pair(&res, a, unary_row, NULL, &u);
    if (u.typed) ipfsrt_ndfast_hit();
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

typedef struct casting {
    ipfsrt_dtype in, result;
    bool bad, typed;
    double bad_value;
} casting;

static void cast_one(void *ctx, unsigned char **p) {
    casting *c = ctx;
    ipfsrt_ndkind from = ipfsrt_ndkind_of(c->in), to = ipfsrt_ndkind_of(c->result);
    if (to == IPFSRT_NDKIND_BOOL) {
        *p[0] = from == IPFSRT_NDKIND_FLOAT ? ipfsrt_ndload_double(c->in, p[1]) != 0 : ipfsrt_ndload_bits(c->in, p[1]) != 0;
    } else if (to == IPFSRT_NDKIND_FLOAT) {
        ipfsrt_ndstore_float(c->result, p[0], ipfsrt_ndload_double(c->in, p[1]));
    } else if (from == IPFSRT_NDKIND_FLOAT) { /* truncates; what does not fit is an error, not garbage */
        double x = ipfsrt_ndload_double(c->in, p[1]);
        if (ipfsrt_ndcheck_double(c->result, x, NULL) != IPFSRT_OK) {
            if (!c->bad) c->bad_value = x;
            c->bad = true;
            return;
        }
        ipfsrt_ndstore_double(c->result, p[0], x);
    } else {
        ipfsrt_ndstore_bits(c->result, p[0], ipfsrt_ndload_bits(c->in, p[1])); /* int to int wraps, as numpy */
    }
}

/* Conversions that cannot fail go through the row buffers; to bool and from
 * float to integer (checked) element by element. */
static void cast_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    casting *c = ctx;
    ipfsrt_ndkind from = ipfsrt_ndkind_of(c->in), to = ipfsrt_ndkind_of(c->result);
    ptrdiff_t itemsize = (ptrdiff_t)ipfsrt_dtype_size(c->in);
    if (c->in == c->result && s[0] == itemsize && s[1] == itemsize) { /* assign may overlap itself */
        memmove(p[0], p[1], n * (size_t)itemsize);
        return;
    }
    if (c->bad) return;
    if (ipfsrt_ndfast_allowed()) {
        int got = ipfsrt_ndfast_cast(c->in, c->result, p[0], s[0], p[1], s[1], n, &c->bad_value);
        c->bad = got == IPFSRT_NDFAST_MISFIT;
        c->typed = got != IPFSRT_NDFAST_NO;
        if (c->typed) return;
    }
    for (size_t done = 0; done < n; done += IPFSRT_NDROW_BLOCK) {
        size_t m = n - done < IPFSRT_NDROW_BLOCK ? n - done : IPFSRT_NDROW_BLOCK;
        unsigned char *out = p[0] + (ptrdiff_t)done * s[0], *in = p[1] + (ptrdiff_t)done * s[1];
        if (to == IPFSRT_NDKIND_FLOAT) {
            double v[IPFSRT_NDROW_BLOCK];
            ipfsrt_ndrow_load_double(c->in, in, s[1], m, v);
            ipfsrt_ndrow_store_float(c->result, out, s[0], m, v);
        } else if (to != IPFSRT_NDKIND_BOOL && from != IPFSRT_NDKIND_FLOAT) { /* int to int wraps, as numpy */
            uint64_t v[IPFSRT_NDROW_BLOCK];
            ipfsrt_ndrow_load_bits(c->in, in, s[1], m, v);
            ipfsrt_ndrow_store_bits(c->result, out, s[0], m, v);
        } else {
            for (size_t i = 0; i < m; i++) {
                unsigned char *q[2] = {out + (ptrdiff_t)i * s[0], in + (ptrdiff_t)i * s[1]};
                cast_one(c, q);
            }
        }
    }
}

ipfsrt_status ipfsrt_ndarray_astype(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, ipfsrt_dtype dtype,
                                    ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    if (ipfsrt_ndkind_of(a->dtype) == IPFSRT_NDKIND_OTHER || ipfsrt_ndkind_of(dtype) == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no conversion from %s to %s",
                           ipfsrt_dtype_name(a->dtype), ipfsrt_dtype_name(dtype));
    casting c = {a->dtype, dtype, false, false, 0};
    ipfsrt_ndarray res;
    ipfsrt_status st = result_for(&res, dtype, a, NULL, err);
    if (st != IPFSRT_OK) return st;
    walk_pair(&res, a, cast_row, NULL, &c);
    if (c.typed) ipfsrt_ndfast_hit();
    if (c.bad) {
        ipfsrt_ndarray_free(&res);
        if (isnan(c.bad_value))
            return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "NaN does not fit %s", ipfsrt_dtype_name(dtype));
        return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%g does not fit %s", c.bad_value, ipfsrt_dtype_name(dtype));
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* ------------------------------------------------------ where, clip, fill */

typedef struct choosing {
    ipfsrt_dtype cond, x, y, result;
    ipfsrt_ndkind k;
    bool typed;
} choosing;

static void where_one(void *ctx, unsigned char **p) {
    const choosing *c = ctx;
    bool take_x = ipfsrt_ndtruthy(c->cond, p[1]);
    ipfsrt_dtype from = take_x ? c->x : c->y;
    const unsigned char *src = take_x ? p[2] : p[3];
    if (c->k == IPFSRT_NDKIND_FLOAT) ipfsrt_ndstore_float(c->result, p[0], ipfsrt_ndload_double(from, src));
    else ipfsrt_ndstore_bits(c->result, p[0], ipfsrt_ndload_bits(from, src));
}

/* A bool condition chooses in the row buffers; any other, element by element. */
IPFSRT_NDVECTOR static void where_block(const choosing *c, unsigned char **p, const ptrdiff_t *s, size_t n) {
    uint64_t t[IPFSRT_NDROW_BLOCK];
    ipfsrt_ndrow_load_bits(IPFSRT_DTYPE_BOOL, p[1], s[1], n, t);
    if (c->k == IPFSRT_NDKIND_FLOAT) {
        double x[IPFSRT_NDROW_BLOCK], y[IPFSRT_NDROW_BLOCK];
        ipfsrt_ndrow_load_double(c->x, p[2], s[2], n, x);
        ipfsrt_ndrow_load_double(c->y, p[3], s[3], n, y);
        for (size_t i = 0; i < n; i++) x[i] = t[i] ? x[i] : y[i];
        ipfsrt_ndrow_store_float(c->result, p[0], s[0], n, x);
    } else {
        uint64_t x[IPFSRT_NDROW_BLOCK], y[IPFSRT_NDROW_BLOCK];
        ipfsrt_ndrow_load_bits(c->x, p[2], s[2], n, x);
        ipfsrt_ndrow_load_bits(c->y, p[3], s[3], n, y);
        for (size_t i = 0; i < n; i++) x[i] = t[i] ? x[i] : y[i];
        ipfsrt_ndrow_store_bits(c->result, p[0], s[0], n, x);
    }
}

static void where_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    choosing *c = ctx;
    if (ipfsrt_ndfast_allowed() && c->cond == IPFSRT_DTYPE_BOOL && c->x == c->result && c->y == c->result &&
        ipfsrt_ndfast_choose(ipfsrt_dtype_size(c->result), p, s, n)) {
        c->typed = true;
        return;
    }
    for (size_t done = 0; done < n; done += IPFSRT_NDROW_BLOCK) {
        size_t m = n - done < IPFSRT_NDROW_BLOCK ? n - done : IPFSRT_NDROW_BLOCK;
        unsigned char *q[4];
        for (int k = 0; k < 4; k++) q[k] = p[k] + (ptrdiff_t)done * s[k];
        if (c->cond == IPFSRT_DTYPE_BOOL) {
            where_block(c, q, s, m);
            continue;
        }
        for (size_t i = 0; i < m; i++) {
            unsigned char *e[4];
            for (int k = 0; k < 4; k++) e[k] = q[k] + (ptrdiff_t)i * s[k];
            where_one(ctx, e);
        }
    }
}

ipfsrt_status ipfsrt_ndarray_where(ipfsrt_ndarray *out, const ipfsrt_ndarray *cond, const ipfsrt_ndarray *x,
                                   const ipfsrt_ndarray *y, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(cond, err);
    IPFSRT_NEED(x, err);
    IPFSRT_NEED(y, err);
    choosing c = {cond->dtype, x->dtype, y->dtype, IPFSRT_DTYPE_BOOL, IPFSRT_NDKIND_BOOL, false};
    if (ipfsrt_ndkind_of(cond->dtype) == IPFSRT_NDKIND_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "a %s condition", ipfsrt_dtype_name(cond->dtype));
    ipfsrt_status st = ipfsrt_dtype_promote(x->dtype, y->dtype, &c.result, err);
    if (st != IPFSRT_OK) return st;
    c.k = ipfsrt_ndkind_of(c.result);
    int ndim;
    size_t xy[IPFSRT_NDARRAY_MAX_DIMS], shape[IPFSRT_NDARRAY_MAX_DIMS];
    st = ipfsrt_ndarray_broadcast_shape(x->ndim, x->shape, y->ndim, y->shape, &ndim, xy, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_broadcast_shape(cond->ndim, cond->shape, ndim, xy, &ndim, shape, err);
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_new_buffer(&res, c.result, 0, ndim, shape, false, err);
    if (st != IPFSRT_OK) return st;
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, ndim, res.shape);
    ipfsrt_ndwalk_add(&w, &res);
    ipfsrt_ndwalk_add(&w, cond);
    ipfsrt_ndwalk_add(&w, x);
    ipfsrt_ndwalk_add(&w, y);
    w.row = where_row;
    w.ctx = &c;
    ipfsrt_ndwalk_run(&w);
    if (c.typed) ipfsrt_ndfast_hit();
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

typedef struct clipping {
    ipfsrt_dtype d;
    const void *lo, *hi;
    bool all_typed;
} clipping;

static void clip_row(void *ctx, unsigned char **p, const ptrdiff_t *s, size_t n) {
    clipping *c = ctx;
    c->all_typed = ipfsrt_ndfast_clip(c->d, p[0], s[0], p[1], s[1], n, c->lo, c->hi) && c->all_typed;
}

/* Bounds of one value each, of a's dtype: one pass of the typed loops, unless
 * a row of a is not a contiguous run (false: the caller composes). */
static bool clip_typed(ipfsrt_ndarray *res, const ipfsrt_ndarray *a, const ipfsrt_ndarray *lo,
                       const ipfsrt_ndarray *hi) {
    for (int k = 0; k < 2; k++) {
        const ipfsrt_ndarray *b = k ? hi : lo;
        if (b && (b->dtype != a->dtype || b->ndim > a->ndim || ipfsrt_ndarray_size(b) != 1)) return false;
        if (b && ipfsrt_ndkind_of(b->dtype) == IPFSRT_NDKIND_FLOAT && isnan(ipfsrt_ndload_double(b->dtype, b->data)))
            return false; /* a NaN bound makes every result NaN: maximum's way */
    }
    if (!ipfsrt_ndfast_allowed() || !ipfsrt_ndarray_is_contiguous(a) || (uintptr_t)a->data % a->itemsize) return false;
    clipping c = {a->dtype, lo ? lo->data : NULL, hi ? hi->data : NULL, true};
    walk_pair(res, a, clip_row, NULL, &c);
    if (c.all_typed) ipfsrt_ndfast_hit();
    return c.all_typed;
}

ipfsrt_status ipfsrt_ndarray_clip(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, const ipfsrt_ndarray *lo,
                                  const ipfsrt_ndarray *hi, ipfsrt_error *err) {
    IPFSRT_NEED(out, err);
    IPFSRT_NEED(a, err);
    ipfsrt_ndarray res;
    ipfsrt_status st = IPFSRT_OK;
    if ((lo || hi) && ipfsrt_ndkind_of(a->dtype) != IPFSRT_NDKIND_OTHER && result_for(&res, a->dtype, a, NULL, err) == IPFSRT_OK) {
        if (clip_typed(&res, a, lo, hi)) {
            ipfsrt_ndarray_free(out);
            *out = res;
            return IPFSRT_OK;
        }
        ipfsrt_ndarray_free(&res);
    }
    ipfsrt_ndarray_init(&res);
    st = lo ? ipfsrt_ndarray_binary(&res, IPFSRT_NDOP_MAXIMUM, a, lo, err) : ipfsrt_ndarray_copy(&res, a, err);
    if (st == IPFSRT_OK && hi) st = ipfsrt_ndarray_binary(&res, IPFSRT_NDOP_MINIMUM, &res, hi, err);
    if (st != IPFSRT_OK) {
        ipfsrt_ndarray_free(&res);
        return st;
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

typedef struct filling_value {
    ipfsrt_dtype d;
    ipfsrt_ndkind k;
    double f;
    uint64_t bits;
} filling_value;

static void fill_value_one(void *ctx, unsigned char **p) {
    const filling_value *v = ctx;
    if (v->k == IPFSRT_NDKIND_FLOAT) ipfsrt_ndstore_float(v->d, p[0], v->f);
    else ipfsrt_ndstore_bits(v->d, p[0], v->bits);
}

ipfsrt_status ipfsrt_ndarray_fill(ipfsrt_ndarray *a, const ipfsrt_ndarray *value, ipfsrt_error *err) {
    IPFSRT_NEED(a, err);
    IPFSRT_NEED(value, err);
    if (ipfsrt_ndarray_size(value) != 1)
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "fill takes one value, not %zu", ipfsrt_ndarray_size(value));
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = ipfsrt_ndarray_astype(&v, value, a->dtype, err); /* checked like a set */
    if (st != IPFSRT_OK) return st;
    filling_value fv = {a->dtype, ipfsrt_ndkind_of(a->dtype), 0, 0};
    if (fv.k == IPFSRT_NDKIND_FLOAT) fv.f = ipfsrt_ndload_double(a->dtype, v.data);
    else fv.bits = ipfsrt_ndload_bits(a->dtype, v.data);
    ipfsrt_ndarray_free(&v);
    ipfsrt_ndwalk w;
    ipfsrt_ndwalk_init(&w, a->ndim, a->shape);
    ipfsrt_ndwalk_add(&w, a);
    w.elem = fill_value_one;
    w.ctx = &fv;
    ipfsrt_ndwalk_run(&w);
    return IPFSRT_OK;
}

typedef struct copy_bytes {
    size_t itemsize;
} copy_bytes;

static void copy_bytes_one(void *ctx, unsigned char **p) {
    const copy_bytes *c = ctx;
    memcpy(p[0], p[1], c->itemsize);
}

ipfsrt_status ipfsrt_ndarray_assign(ipfsrt_ndarray *dst, const ipfsrt_ndarray *src, ipfsrt_error *err) {
    IPFSRT_NEED(dst, err);
    IPFSRT_NEED(src, err);
    if (ipfsrt_ndkind_of(dst->dtype) == IPFSRT_NDKIND_OTHER || ipfsrt_ndkind_of(src->dtype) == IPFSRT_NDKIND_OTHER) {
        if (dst->dtype != src->dtype || dst->itemsize != src->itemsize)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no conversion from %s to %s",
                               ipfsrt_dtype_name(src->dtype), ipfsrt_dtype_name(dst->dtype));
    }
    int ndim;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_status st = ipfsrt_ndarray_broadcast_shape(src->ndim, src->shape, dst->ndim, dst->shape, &ndim,
                                                      shape, err);
    if (st != IPFSRT_OK) return st;
    if (ndim != dst->ndim || (ndim && memcmp(shape, dst->shape, (size_t)ndim * sizeof *shape) != 0))
        return ipfsrt_fail(err, IPFSRT_EBAD_ARGUMENT, -1, "a value of %d dimensions does not broadcast to the target",
                           src->ndim);
    casting c = {src->dtype, dst->dtype, false, false, 0};
    copy_bytes cb = {dst->itemsize};
    if (ipfsrt_ndkind_of(dst->dtype) == IPFSRT_NDKIND_OTHER) /* same bytes type: a plain copy per element */
        walk_pair(dst, src, NULL, copy_bytes_one, &cb);
    else
        walk_pair(dst, src, cast_row, NULL, &c);
    if (c.bad) return ipfsrt_fail(err, IPFSRT_EBAD_RANGE, -1, "%g does not fit %s", c.bad_value, ipfsrt_dtype_name(dst->dtype));
    return IPFSRT_OK;
}
