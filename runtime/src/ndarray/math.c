/* Elementwise math and reductions: numpy's promotion, broadcasting and integer
 * semantics (wrapping, floor division), computed in the widest type of the
 * result's kind (double, int64, uint64) and stored back. */
#include <math.h>
#include <string.h>

#include "ndarray/ndarray_internal.h"

typedef enum kind { K_BOOL, K_INT, K_UINT, K_FLOAT, K_OTHER } kind;

static kind kind_of(ipfsrt_dtype d) {
    if (d == IPFSRT_DTYPE_BOOL) return K_BOOL;
    if (d >= IPFSRT_DTYPE_INT8 && d <= IPFSRT_DTYPE_INT64) return K_INT;
    if (d >= IPFSRT_DTYPE_UINT8 && d <= IPFSRT_DTYPE_UINT64) return K_UINT;
    if (d == IPFSRT_DTYPE_FLOAT32 || d == IPFSRT_DTYPE_FLOAT64) return K_FLOAT;
    return K_OTHER;
}

static int int_bits(ipfsrt_dtype d) { return (int)ipfsrt_dtype_size(d) * 8; }

static ipfsrt_dtype signed_of_bits(int bits) {
    return bits <= 8 ? IPFSRT_DTYPE_INT8 : bits <= 16 ? IPFSRT_DTYPE_INT16
         : bits <= 32 ? IPFSRT_DTYPE_INT32 : IPFSRT_DTYPE_INT64;
}

ipfsrt_status ipfsrt_dtype_promote(ipfsrt_dtype a, ipfsrt_dtype b, ipfsrt_dtype *out, ipfsrt_error *err) {
    kind ka = kind_of(a), kb = kind_of(b);
    if (ka == K_OTHER || kb == K_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no arithmetic on %s with %s", ipfsrt_dtype_name(a),
                           ipfsrt_dtype_name(b));
    if (ka == K_BOOL) return *out = b, IPFSRT_OK;
    if (kb == K_BOOL) return *out = a, IPFSRT_OK;
    if (ka == kb) return *out = ipfsrt_dtype_size(a) >= ipfsrt_dtype_size(b) ? a : b, IPFSRT_OK;
    if (ka == K_FLOAT || kb == K_FLOAT) { /* int with float: float32 holds ints up to 16 bits */
        ipfsrt_dtype f = ka == K_FLOAT ? a : b, i = ka == K_FLOAT ? b : a;
        *out = f == IPFSRT_DTYPE_FLOAT32 && int_bits(i) <= 16 ? IPFSRT_DTYPE_FLOAT32 : IPFSRT_DTYPE_FLOAT64;
        return IPFSRT_OK;
    }
    ipfsrt_dtype s = ka == K_INT ? a : b, u = ka == K_INT ? b : a; /* signed with unsigned */
    int need = int_bits(u) + 1 > int_bits(s) ? int_bits(u) * 2 : int_bits(s);
    *out = need > 64 ? IPFSRT_DTYPE_FLOAT64 : signed_of_bits(need);
    return IPFSRT_OK;
}

/* --------------------------------------------------------- loads, stores */

static double load_f(ipfsrt_dtype d, const unsigned char *p) {
    union { int8_t i1; int16_t i2; int32_t i4; int64_t i8; uint8_t u1; uint16_t u2; uint32_t u4;
            uint64_t u8; float f4; double f8; } x;
    memcpy(&x, p, ipfsrt_dtype_size(d));
    switch (d) {
    case IPFSRT_DTYPE_BOOL: return x.u1 != 0;
    case IPFSRT_DTYPE_INT8: return x.i1;
    case IPFSRT_DTYPE_INT16: return x.i2;
    case IPFSRT_DTYPE_INT32: return x.i4;
    case IPFSRT_DTYPE_INT64: return (double)x.i8;
    case IPFSRT_DTYPE_UINT8: return x.u1;
    case IPFSRT_DTYPE_UINT16: return x.u2;
    case IPFSRT_DTYPE_UINT32: return x.u4;
    case IPFSRT_DTYPE_UINT64: return (double)x.u8;
    case IPFSRT_DTYPE_FLOAT32: return x.f4;
    default: return x.f8;
    }
}

/* Integers (and bools) as the low 64 bits of their value: sign-extended. */
static uint64_t load_bits(ipfsrt_dtype d, const unsigned char *p) {
    union { int8_t i1; int16_t i2; int32_t i4; int64_t i8; uint8_t u1; uint16_t u2; uint32_t u4;
            uint64_t u8; } x;
    memcpy(&x, p, ipfsrt_dtype_size(d));
    switch (d) {
    case IPFSRT_DTYPE_BOOL: return x.u1 != 0;
    case IPFSRT_DTYPE_INT8: return (uint64_t)(int64_t)x.i1;
    case IPFSRT_DTYPE_INT16: return (uint64_t)(int64_t)x.i2;
    case IPFSRT_DTYPE_INT32: return (uint64_t)(int64_t)x.i4;
    case IPFSRT_DTYPE_INT64: return (uint64_t)x.i8;
    case IPFSRT_DTYPE_UINT8: return x.u1;
    case IPFSRT_DTYPE_UINT16: return x.u2;
    case IPFSRT_DTYPE_UINT32: return x.u4;
    default: return x.u8;
    }
}

/* Stores the low bits (integers wrap), a float, or a bool. */
static void store_bits(ipfsrt_dtype d, unsigned char *p, uint64_t v) {
    size_t n = ipfsrt_dtype_size(d);
    if (d == IPFSRT_DTYPE_BOOL) {
        *p = v != 0;
        return;
    }
    for (size_t i = 0; i < n; i++) { /* native order, without a pointer cast */
        uint16_t probe = 1;
        size_t at = *(unsigned char *)&probe ? i : n - 1 - i;
        p[at] = (unsigned char)(v >> (8 * i));
    }
}

static void store_f(ipfsrt_dtype d, unsigned char *p, double v) {
    if (d == IPFSRT_DTYPE_FLOAT32) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

static bool truthy(ipfsrt_dtype d, const unsigned char *p) { /* NaN is true, as numpy */
    return kind_of(d) == K_FLOAT ? load_f(d, p) != 0 || isnan(load_f(d, p)) : load_bits(d, p) != 0;
}

/* ---------------------------------------------------- broadcast iteration */

/* Up to four operands walked together over a shape: out and the inputs, each
 * with its strides (0 along broadcast dimensions). */
typedef struct walk {
    int ndim;
    const size_t *shape;
    unsigned char *p[4];
    ptrdiff_t strides[4][IPFSRT_NDARRAY_MAX_DIMS];
    int n;
    void (*fn)(void *ctx, unsigned char **p);
    void *ctx;
} walk;

static void walk_dim(walk *w, int dim, unsigned char **p) {
    if (dim == w->ndim) {
        w->fn(w->ctx, p);
        return;
    }
    unsigned char *q[4] = {p[0], p[1], p[2], p[3]};
    for (size_t i = 0; i < w->shape[dim]; i++) {
        walk_dim(w, dim + 1, q);
        for (int k = 0; k < w->n; k++) q[k] += w->strides[k][dim];
    }
}

/* Strides of a, broadcast to the walk's shape (right-aligned). */
static void broadcast_strides(const ipfsrt_ndarray *a, int ndim, const size_t *shape, ptrdiff_t *out) {
    for (int d = 0; d < ndim; d++) {
        int from = d - (ndim - a->ndim);
        out[d] = from < 0 || a->shape[from] != shape[d] ? 0 : a->strides[from];
    }
}

static void run(walk *w) {
    size_t size = 1;
    for (int d = 0; d < w->ndim; d++) size *= w->shape[d];
    if (size) walk_dim(w, 0, w->p);
}

/* ------------------------------------------------------------ binary ops */

typedef struct binary {
    ipfsrt_ndop op;
    ipfsrt_dtype in_a, in_b, compute, result;
    kind k;
    bool negative_power;
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

static bool compare(ipfsrt_ndop op, int c) { /* c: -1, 0, 1; 2 for unordered (NaN) */
    switch (op) {
    case IPFSRT_NDOP_LT: return c == -1;
    case IPFSRT_NDOP_LE: return c == -1 || c == 0;
    case IPFSRT_NDOP_GT: return c == 1;
    case IPFSRT_NDOP_GE: return c == 1 || c == 0;
    case IPFSRT_NDOP_EQ: return c == 0;
    default: return c != 0; /* NE: NaN differs from everything */
    }
}

static void binary_one(void *ctx, unsigned char **p) {
    binary *b = ctx;
    bool cmp = b->op >= IPFSRT_NDOP_LT && b->op <= IPFSRT_NDOP_NE;
    if (b->op >= IPFSRT_NDOP_AND) {
        bool x = load_bits(b->in_a, p[1]) != 0, y = load_bits(b->in_b, p[2]) != 0;
        *p[0] = b->op == IPFSRT_NDOP_AND ? (x && y) : b->op == IPFSRT_NDOP_OR ? (x || y) : (x != y);
    } else if (b->k == K_FLOAT) {
        double x = load_f(b->in_a, p[1]), y = load_f(b->in_b, p[2]);
        if (cmp) *p[0] = compare(b->op, isnan(x) || isnan(y) ? 2 : (x > y) - (x < y));
        else store_f(b->result, p[0], float_op(b->op, x, y));
    } else {
        uint64_t x = load_bits(b->in_a, p[1]), y = load_bits(b->in_b, p[2]);
        bool is_signed = b->k != K_UINT;
        if (cmp) {
            int c = is_signed ? ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y) : (x > y) - (x < y);
            *p[0] = compare(b->op, c);
        } else {
            if (b->op == IPFSRT_NDOP_POW && is_signed && (int64_t)y < 0) b->negative_power = true;
            store_bits(b->result, p[0], int_op(b->op, x, y, is_signed));
        }
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
    } else if (b->op == IPFSRT_NDOP_DIV && kind_of(b->compute) != K_FLOAT) {
        b->compute = b->result = IPFSRT_DTYPE_FLOAT64; /* int / int is float64 */
    } else if (b->compute == IPFSRT_DTYPE_BOOL) { /* numpy: + is or, * is and, - is refused, */
        if (b->op == IPFSRT_NDOP_ADD || b->op == IPFSRT_NDOP_MAXIMUM) b->op = IPFSRT_NDOP_OR;
        else if (b->op == IPFSRT_NDOP_MUL || b->op == IPFSRT_NDOP_MINIMUM) b->op = IPFSRT_NDOP_AND;
        else if (b->op == IPFSRT_NDOP_SUB)
            return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no - of bool arrays (use ~ or ~=)");
        else b->compute = b->result = IPFSRT_DTYPE_INT8; /* //, % and ^ go through int8 */
    }
    b->k = kind_of(b->compute);
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
    return ipfsrt_ndarray_new_zeros(res, dtype, 0, ndim, shape, err);
}

ipfsrt_status ipfsrt_ndarray_binary(ipfsrt_ndarray *out, ipfsrt_ndop op, const ipfsrt_ndarray *a,
                                    const ipfsrt_ndarray *b, ipfsrt_error *err) {
    binary k = {.op = op, .in_a = a->dtype, .in_b = b->dtype};
    ipfsrt_status st = binary_types(&k, err);
    ipfsrt_ndarray res;
    if (st == IPFSRT_OK) st = result_for(&res, k.result, a, b, err);
    if (st != IPFSRT_OK) return st;
    walk w = {.ndim = res.ndim, .shape = res.shape, .p = {res.data, a->data, b->data}, .n = 3,
              .fn = binary_one, .ctx = &k};
    memcpy(w.strides[0], res.strides, sizeof res.strides);
    broadcast_strides(a, res.ndim, res.shape, w.strides[1]);
    broadcast_strides(b, res.ndim, res.shape, w.strides[2]);
    run(&w);
    if (k.negative_power) {
        ipfsrt_ndarray_free(&res);
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "integers to negative integer powers are not allowed");
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* ------------------------------------------------------------- unary ops */

typedef struct unary {
    ipfsrt_ndfn fn;
    ipfsrt_dtype in, result;
} unary;

static void unary_one(void *ctx, unsigned char **p) {
    const unary *u = ctx;
    kind k = kind_of(u->in);
    if (u->fn == IPFSRT_NDFN_ISNAN || u->fn == IPFSRT_NDFN_ISFINITE) {
        double x = k == K_FLOAT ? load_f(u->in, p[1]) : 0;
        *p[0] = u->fn == IPFSRT_NDFN_ISNAN ? isnan(x) : isfinite(x);
    } else if (u->fn == IPFSRT_NDFN_NOT) {
        *p[0] = !*p[1];
    } else if (kind_of(u->result) == K_FLOAT) {
        double x = load_f(u->in, p[1]), y;
        switch (u->fn) {
        case IPFSRT_NDFN_NEG: y = -x; break;
        case IPFSRT_NDFN_ABS: y = fabs(x); break;
        case IPFSRT_NDFN_SQRT: y = sqrt(x); break;
        case IPFSRT_NDFN_EXP: y = exp(x); break;
        case IPFSRT_NDFN_LOG: y = log(x); break;
        case IPFSRT_NDFN_FLOOR: y = floor(x); break;
        default: y = ceil(x); break;
        }
        store_f(u->result, p[0], y);
    } else { /* integers: neg and abs wrap, floor and ceil keep them */
        uint64_t x = load_bits(u->in, p[1]);
        bool negative = k == K_INT && (int64_t)x < 0;
        uint64_t y = u->fn == IPFSRT_NDFN_NEG ? (uint64_t)0 - x
                   : u->fn == IPFSRT_NDFN_ABS && negative ? (uint64_t)0 - x : x;
        store_bits(u->result, p[0], y);
    }
}

ipfsrt_status ipfsrt_ndarray_unary(ipfsrt_ndarray *out, ipfsrt_ndfn fn, const ipfsrt_ndarray *a,
                                   ipfsrt_error *err) {
    kind k = kind_of(a->dtype);
    unary u = {fn, a->dtype, a->dtype};
    if (k == K_OTHER) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no math on %s", ipfsrt_dtype_name(a->dtype));
    if (fn == IPFSRT_NDFN_ISNAN || fn == IPFSRT_NDFN_ISFINITE || fn == IPFSRT_NDFN_NOT) u.result = IPFSRT_DTYPE_BOOL;
    if (fn == IPFSRT_NDFN_NOT && k != K_BOOL) return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "~ takes bool arrays");
    if ((fn == IPFSRT_NDFN_NEG || fn == IPFSRT_NDFN_ABS) && k == K_BOOL)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no - or abs of a bool array (use ~)");
    if ((fn == IPFSRT_NDFN_SQRT || fn == IPFSRT_NDFN_EXP || fn == IPFSRT_NDFN_LOG) && k != K_FLOAT)
        u.result = ipfsrt_dtype_size(a->dtype) <= 2 ? IPFSRT_DTYPE_FLOAT32 : IPFSRT_DTYPE_FLOAT64;
    if ((fn == IPFSRT_NDFN_FLOOR || fn == IPFSRT_NDFN_CEIL) && k == K_BOOL) u.result = IPFSRT_DTYPE_INT8;
    ipfsrt_ndarray res;
    ipfsrt_status st = result_for(&res, u.result, a, NULL, err);
    if (st != IPFSRT_OK) return st;
    walk w = {.ndim = res.ndim, .shape = res.shape, .p = {res.data, a->data, NULL}, .n = 2,
              .fn = unary_one, .ctx = &u};
    memcpy(w.strides[0], res.strides, sizeof res.strides);
    memcpy(w.strides[1], a->strides, sizeof a->strides);
    run(&w);
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

typedef struct casting {
    ipfsrt_dtype in, result;
    bool bad;
    double bad_value;
} casting;

static void cast_one(void *ctx, unsigned char **p) {
    casting *c = ctx;
    kind from = kind_of(c->in), to = kind_of(c->result);
    if (to == K_BOOL) {
        *p[0] = from == K_FLOAT ? load_f(c->in, p[1]) != 0 : load_bits(c->in, p[1]) != 0;
    } else if (to == K_FLOAT) {
        store_f(c->result, p[0], load_f(c->in, p[1]));
    } else if (from == K_FLOAT) { /* truncates; what does not fit is an error, not garbage */
        double x = load_f(c->in, p[1]);
        if (ipfsrt_ndcheck_double(c->result, x, NULL) != IPFSRT_OK) {
            if (!c->bad) c->bad_value = x;
            c->bad = true;
            return;
        }
        ipfsrt_ndstore_double(c->result, p[0], x);
    } else {
        store_bits(c->result, p[0], load_bits(c->in, p[1])); /* int to int wraps, as numpy */
    }
}

ipfsrt_status ipfsrt_ndarray_astype(ipfsrt_ndarray *out, const ipfsrt_ndarray *a, ipfsrt_dtype dtype,
                                    ipfsrt_error *err) {
    if (kind_of(a->dtype) == K_OTHER || kind_of(dtype) == K_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no conversion from %s to %s",
                           ipfsrt_dtype_name(a->dtype), ipfsrt_dtype_name(dtype));
    casting c = {a->dtype, dtype, false, 0};
    ipfsrt_ndarray res;
    ipfsrt_status st = result_for(&res, dtype, a, NULL, err);
    if (st != IPFSRT_OK) return st;
    walk w = {.ndim = res.ndim, .shape = res.shape, .p = {res.data, a->data, NULL}, .n = 2,
              .fn = cast_one, .ctx = &c};
    memcpy(w.strides[0], res.strides, sizeof res.strides);
    memcpy(w.strides[1], a->strides, sizeof a->strides);
    run(&w);
    if (c.bad) {
        ipfsrt_ndarray_free(&res);
        if (isnan(c.bad_value))
            return ipfsrt_fail(err, IPFSRT_ERANGE, -1, "NaN does not fit %s", ipfsrt_dtype_name(dtype));
        return ipfsrt_fail(err, IPFSRT_ERANGE, -1, "%g does not fit %s", c.bad_value, ipfsrt_dtype_name(dtype));
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* ------------------------------------------------------------ reductions */

typedef struct acc {
    double f;       /* float sums, mins and maxes */
    uint64_t bits;  /* integer sums (wrapping), mins and maxes */
    uint64_t n;     /* elements taken (not NaN, with skipna) */
    bool nan;       /* a NaN was met (without skipna: the result) */
    uint64_t seen;  /* elements visited, NaN or not: the next one's position */
    uint64_t at;    /* argmin/argmax: the position of the best so far */
    uint64_t nan_at; /* ... and of the first NaN */
    double mean, sq; /* var/std: the first pass's mean, the squared deviations */
    bool any, all;
} acc;

typedef struct reducing {
    ipfsrt_ndreduce how;
    ipfsrt_dtype in, result;
    bool skipna;
    /* along one axis: its length and stride in the input */
    size_t len;
    ptrdiff_t stride;
    bool empty_minmax;
    acc all; /* over everything */
} reducing;

static bool wants_min(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_MIN || h == IPFSRT_NDREDUCE_ARGMIN; }
static bool wants_max(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_MAX || h == IPFSRT_NDREDUCE_ARGMAX; }

static void take(const reducing *r, acc *a, const unsigned char *p) {
    kind k = kind_of(r->in);
    uint64_t pos = a->seen++;
    if (r->how == IPFSRT_NDREDUCE_ANY || r->how == IPFSRT_NDREDUCE_ALL) {
        bool t = truthy(r->in, p);
        a->any = a->any || t;
        a->all = (a->n == 0 || a->all) && t;
        a->n++;
        return;
    }
    if (k == K_FLOAT) {
        double x = load_f(r->in, p);
        if (isnan(x)) {
            if (!a->nan) a->nan_at = pos;
            a->nan = true;
            return;
        }
        bool better = a->n == 0 || (wants_min(r->how) ? x < a->f : x > a->f);
        if ((wants_min(r->how) || wants_max(r->how)) && better) {
            a->f = x;
            a->at = pos;
        } else if (!wants_min(r->how) && !wants_max(r->how)) {
            a->f += x;
        }
    } else {
        uint64_t x = load_bits(r->in, p);
        bool less = k == K_UINT ? x < a->bits : (int64_t)x < (int64_t)a->bits;
        bool more = k == K_UINT ? x > a->bits : (int64_t)x > (int64_t)a->bits;
        if (wants_min(r->how) || wants_max(r->how)) {
            if (a->n == 0 || (wants_min(r->how) ? less : more)) {
                a->bits = x;
                a->at = pos;
            }
        } else {
            a->bits += x;
            a->f += k == K_UINT ? (double)x : (double)(int64_t)x; /* for the mean */
        }
    }
    a->n++;
}

/* The second pass of var/std: squared deviations from the first pass's mean. */
static void take_deviation(const reducing *r, acc *a, const unsigned char *p) {
    double x = load_f(r->in, p);
    if (isnan(x)) return;
    a->sq += (x - a->mean) * (x - a->mean);
}

static void give(reducing *r, const acc *a, unsigned char *out) {
    bool is_float = kind_of(r->in) == K_FLOAT;
    bool nan_result = a->nan && !r->skipna;
    switch (r->how) {
    case IPFSRT_NDREDUCE_COUNT: store_bits(r->result, out, a->n); return;
    case IPFSRT_NDREDUCE_ANY: *out = a->any; return;
    case IPFSRT_NDREDUCE_ALL: *out = a->n == 0 || a->all; return;
    case IPFSRT_NDREDUCE_VAR:
    case IPFSRT_NDREDUCE_STD: {
        double v = nan_result || !a->n ? NAN : a->sq / (double)a->n;
        store_f(r->result, out, r->how == IPFSRT_NDREDUCE_STD ? sqrt(v) : v);
        return;
    }
    case IPFSRT_NDREDUCE_ARGMIN:
    case IPFSRT_NDREDUCE_ARGMAX:
        if (!a->n && !(a->nan && !r->skipna)) r->empty_minmax = true;
        store_bits(r->result, out, nan_result ? a->nan_at : a->at);
        return;
    case IPFSRT_NDREDUCE_MEAN: store_f(r->result, out, nan_result || !a->n ? NAN : a->f / (double)a->n); return;
    case IPFSRT_NDREDUCE_SUM:
        if (is_float) store_f(r->result, out, nan_result ? NAN : a->f);
        else store_bits(r->result, out, a->bits);
        return;
    default: /* min, max */
        if (!a->n && !a->nan) r->empty_minmax = true;
        if (is_float) store_f(r->result, out, nan_result || !a->n ? NAN : a->f);
        else store_bits(r->result, out, a->bits);
    }
}

static bool two_pass(ipfsrt_ndreduce h) { return h == IPFSRT_NDREDUCE_VAR || h == IPFSRT_NDREDUCE_STD; }

static void take_all(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    take(r, &r->all, p[1]);
}

static void deviation_all(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    take_deviation(r, &r->all, p[1]);
}

static void reduce_axis_one(void *ctx, unsigned char **p) {
    reducing *r = ctx;
    acc a = {0};
    const unsigned char *q = p[1];
    for (size_t i = 0; i < r->len; i++, q += r->stride) take(r, &a, q);
    if (two_pass(r->how) && a.n) {
        a.mean = a.f / (double)a.n;
        q = p[1];
        for (size_t i = 0; i < r->len; i++, q += r->stride) take_deviation(r, &a, q);
    }
    give(r, &a, p[0]);
}

static ipfsrt_dtype reduce_result(ipfsrt_ndreduce how, ipfsrt_dtype in) {
    kind k = kind_of(in);
    switch (how) {
    case IPFSRT_NDREDUCE_COUNT:
    case IPFSRT_NDREDUCE_ARGMIN:
    case IPFSRT_NDREDUCE_ARGMAX: return IPFSRT_DTYPE_INT64;
    case IPFSRT_NDREDUCE_ANY:
    case IPFSRT_NDREDUCE_ALL: return IPFSRT_DTYPE_BOOL;
    case IPFSRT_NDREDUCE_MEAN:
    case IPFSRT_NDREDUCE_VAR:
    case IPFSRT_NDREDUCE_STD: return in == IPFSRT_DTYPE_FLOAT32 ? in : IPFSRT_DTYPE_FLOAT64;
    case IPFSRT_NDREDUCE_SUM: return k == K_FLOAT ? in : k == K_UINT ? IPFSRT_DTYPE_UINT64 : IPFSRT_DTYPE_INT64;
    default: return in;
    }
}

ipfsrt_status ipfsrt_ndarray_reduce(ipfsrt_ndarray *out, ipfsrt_ndreduce how, const ipfsrt_ndarray *a,
                                    bool all_axes, int axis, bool skipna, ipfsrt_error *err) {
    if (kind_of(a->dtype) == K_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "no reductions of %s", ipfsrt_dtype_name(a->dtype));
    if (!all_axes && axis < 0) axis += a->ndim;
    if (!all_axes && (axis < 0 || axis >= a->ndim))
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "axis %d is out of bounds for an array of %d dimensions",
                           axis < 0 ? axis - a->ndim : axis, a->ndim);
    reducing r = {.how = how, .in = a->dtype, .result = reduce_result(how, a->dtype), .skipna = skipna};
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; !all_axes && d < a->ndim; d++)
        if (d != axis) shape[ndim++] = a->shape[d];
    ipfsrt_status st = ipfsrt_ndarray_new_zeros(&res, r.result, 0, ndim, shape, err);
    if (st != IPFSRT_OK) return st;
    if (all_axes) {
        walk w = {.ndim = a->ndim, .shape = a->shape, .p = {NULL, a->data, NULL}, .n = 2, .fn = take_all, .ctx = &r};
        memcpy(w.strides[1], a->strides, sizeof a->strides);
        run(&w);
        if (two_pass(how) && r.all.n) {
            r.all.mean = r.all.f / (double)r.all.n;
            w.fn = deviation_all;
            run(&w);
        }
        give(&r, &r.all, res.data);
    } else {
        r.len = a->shape[axis];
        r.stride = a->strides[axis];
        walk w = {.ndim = ndim, .shape = res.shape, .p = {res.data, a->data, NULL}, .n = 2,
                  .fn = reduce_axis_one, .ctx = &r};
        memcpy(w.strides[0], res.strides, sizeof res.strides);
        for (int d = 0, k = 0; d < a->ndim; d++)
            if (d != axis) w.strides[1][k++] = a->strides[d];
        run(&w);
    }
    if (r.empty_minmax) {
        ipfsrt_ndarray_free(&res);
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "%s of an empty (or all-NaN) array or slice: it has no value",
                           how == IPFSRT_NDREDUCE_MIN ? "min" : how == IPFSRT_NDREDUCE_MAX ? "max"
                           : how == IPFSRT_NDREDUCE_ARGMIN ? "argmin" : "argmax");
    }
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

/* ------------------------------------------------------ where, clip, fill */

typedef struct choosing {
    ipfsrt_dtype cond, x, y, result;
    kind k;
} choosing;

static void where_one(void *ctx, unsigned char **p) {
    const choosing *c = ctx;
    bool take_x = truthy(c->cond, p[1]);
    ipfsrt_dtype from = take_x ? c->x : c->y;
    const unsigned char *src = take_x ? p[2] : p[3];
    if (c->k == K_FLOAT) store_f(c->result, p[0], load_f(from, src));
    else store_bits(c->result, p[0], load_bits(from, src));
}

ipfsrt_status ipfsrt_ndarray_where(ipfsrt_ndarray *out, const ipfsrt_ndarray *cond, const ipfsrt_ndarray *x,
                                   const ipfsrt_ndarray *y, ipfsrt_error *err) {
    choosing c = {cond->dtype, x->dtype, y->dtype, IPFSRT_DTYPE_BOOL, K_BOOL};
    if (kind_of(cond->dtype) == K_OTHER)
        return ipfsrt_fail(err, IPFSRT_EUNSUPPORTED, -1, "a %s condition", ipfsrt_dtype_name(cond->dtype));
    ipfsrt_status st = ipfsrt_dtype_promote(x->dtype, y->dtype, &c.result, err);
    if (st != IPFSRT_OK) return st;
    c.k = kind_of(c.result);
    int ndim;
    size_t xy[IPFSRT_NDARRAY_MAX_DIMS], shape[IPFSRT_NDARRAY_MAX_DIMS];
    st = ipfsrt_ndarray_broadcast_shape(x->ndim, x->shape, y->ndim, y->shape, &ndim, xy, err);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_broadcast_shape(cond->ndim, cond->shape, ndim, xy, &ndim, shape, err);
    ipfsrt_ndarray res;
    ipfsrt_ndarray_init(&res);
    if (st == IPFSRT_OK) st = ipfsrt_ndarray_new_zeros(&res, c.result, 0, ndim, shape, err);
    if (st != IPFSRT_OK) return st;
    walk w = {.ndim = ndim, .shape = res.shape, .p = {res.data, cond->data, x->data, y->data}, .n = 4,
              .fn = where_one, .ctx = &c};
    memcpy(w.strides[0], res.strides, sizeof res.strides);
    broadcast_strides(cond, ndim, res.shape, w.strides[1]);
    broadcast_strides(x, ndim, res.shape, w.strides[2]);
    broadcast_strides(y, ndim, res.shape, w.strides[3]);
    run(&w);
    ipfsrt_ndarray_free(out);
    *out = res;
    return IPFSRT_OK;
}

typedef struct filling_value {
    ipfsrt_dtype d;
    kind k;
    double f;
    uint64_t bits;
} filling_value;

static void fill_value_one(void *ctx, unsigned char **p) {
    const filling_value *v = ctx;
    if (v->k == K_FLOAT) store_f(v->d, p[0], v->f);
    else store_bits(v->d, p[0], v->bits);
}

ipfsrt_status ipfsrt_ndarray_fill(ipfsrt_ndarray *a, const ipfsrt_ndarray *value, ipfsrt_error *err) {
    if (ipfsrt_ndarray_size(value) != 1)
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "fill takes one value, not %zu", ipfsrt_ndarray_size(value));
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_status st = ipfsrt_ndarray_astype(&v, value, a->dtype, err); /* checked like a set */
    if (st != IPFSRT_OK) return st;
    filling_value fv = {a->dtype, kind_of(a->dtype), 0, 0};
    if (fv.k == K_FLOAT) fv.f = load_f(a->dtype, v.data);
    else fv.bits = load_bits(a->dtype, v.data);
    ipfsrt_ndarray_free(&v);
    walk w = {.ndim = a->ndim, .shape = a->shape, .p = {a->data}, .n = 1, .fn = fill_value_one, .ctx = &fv};
    memcpy(w.strides[0], a->strides, sizeof a->strides);
    run(&w);
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
    if (kind_of(dst->dtype) == K_OTHER || kind_of(src->dtype) == K_OTHER) {
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
        return ipfsrt_fail(err, IPFSRT_EARG, -1, "a value of %d dimensions does not broadcast to the target",
                           src->ndim);
    casting c = {src->dtype, dst->dtype, false, 0};
    walk w = {.ndim = ndim, .shape = dst->shape, .p = {dst->data, src->data}, .n = 2, .fn = cast_one, .ctx = &c};
    memcpy(w.strides[0], dst->strides, sizeof dst->strides);
    broadcast_strides(src, ndim, dst->shape, w.strides[1]);
    if (kind_of(dst->dtype) == K_OTHER) { /* same bytes type: a plain copy per element */
        copy_bytes cb = {dst->itemsize};
        w.fn = copy_bytes_one;
        w.ctx = &cb;
    }
    run(&w);
    if (c.bad) return ipfsrt_fail(err, IPFSRT_ERANGE, -1, "%g does not fit %s", c.bad_value, ipfsrt_dtype_name(dst->dtype));
    return IPFSRT_OK;
}
