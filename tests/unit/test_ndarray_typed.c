/* Every typed loop against the general walk: the same operation runs once
 * with the typed loops allowed and once with them refused
 * (ipfsrt_ndfast_allow), on every dtype, on contiguous arrays and on strided,
 * reversed, transposed and broadcast views of them, at sizes around the loops'
 * blocks and tiles (0, 1, odd lengths, several blocks, more columns than a
 * tile), with NaN and infinities placed in floats (a whole NaN row, a NaN
 * first). Results must agree to the bit (var and std to rounding), errors
 * alike; and the typed loops must have been taken, or the test proves
 * nothing. */
#include <math.h>

#include "testutil.h"

#include "ndarray/ndarray_internal.h"

static const ipfsrt_dtype DTYPES[] = {IPFSRT_DTYPE_BOOL,   IPFSRT_DTYPE_INT8,   IPFSRT_DTYPE_INT16,
                                      IPFSRT_DTYPE_INT32,  IPFSRT_DTYPE_INT64,  IPFSRT_DTYPE_UINT8,
                                      IPFSRT_DTYPE_UINT16, IPFSRT_DTYPE_UINT32, IPFSRT_DTYPE_UINT64,
                                      IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64};
#define N_DTYPES (sizeof DTYPES / sizeof DTYPES[0])

typedef struct case_shape {
    int ndim;
    size_t dims[3];
} case_shape;

/* Around the blocks (1,024 to 4,096 elements) and tiles (4,096 to 32,768
 * columns) of the typed loops. */
static const case_shape SHAPES[] = {{1, {0}}, {1, {1}}, {1, {7}}, {1, {4099}}, {2, {3, 0}}, {3, {3, 5, 33}},
                               {2, {3, 4099}}, {2, {2, 33000}}};
/* Elementwise loops have no tiles: the biggest shape is for reductions only. */
#define ELEMENTWISE_MAX 20000
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

static bool is_float(ipfsrt_dtype d) { return d == IPFSRT_DTYPE_FLOAT32 || d == IPFSRT_DTYPE_FLOAT64; }

/* Deterministic values: integers around zero (wrapping into unsigned types),
 * floats with NaN every 37th, infinities every 101st, the first row's second
 * element NaN and, in 2-D and up, the second row all NaN. */
static double value_at(ipfsrt_dtype d, size_t i, size_t row_len) {
    int64_t v = (int64_t)((i * 7919) % 251) - 120;
    if (d == IPFSRT_DTYPE_BOOL) return (double)(v > 0);
    if (!is_float(d)) return (double)v;
    if (i % 37 == 5 || i == 1 || (row_len && i / row_len == 1)) return NAN;
    if (i % 101 == 7) return i % 2 ? INFINITY : -INFINITY;
    return (double)v / 8;
}

static ipfsrt_ndarray values(ipfsrt_dtype d, const case_shape *s) {
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    assert_int_equal(ipfsrt_ndarray_zeros(&a, d, 0, s->ndim, s->dims, NULL), IPFSRT_OK);
    size_t n = ipfsrt_ndarray_size(&a), row_len = s->ndim > 1 ? s->dims[s->ndim - 1] : 0;
    for (size_t i = 0; i < n; i++) {
        double v = value_at(d, i, row_len);
        if (is_float(d)) ipfsrt_ndstore_float(d, a.data + i * a.itemsize, v);
        else ipfsrt_ndstore_bits(d, a.data + i * a.itemsize, (uint64_t)(int64_t)v);
    }
    return a;
}

/* The views the walk sees differently: a as it is, every other element of a
 * wider twin, reversed along its last axis, transposed, broadcast over a new
 * first axis of 2. */
enum { AS_IS, STRIDED, REVERSED, TRANSPOSED, BROADCAST, N_VIEWS };

static ipfsrt_ndarray view_of(const ipfsrt_ndarray *a, int how) {
    ipfsrt_ndarray v;
    ipfsrt_ndarray_init(&v);
    ipfsrt_ndslice s[3] = {{.step = 1}, {.step = 1}, {.step = 1}};
    if (how == AS_IS || (how == TRANSPOSED && a->ndim < 2)) {
        assert_int_equal(ipfsrt_ndarray_slice(&v, a, s, 0, NULL), IPFSRT_OK);
    } else if (how == STRIDED) {
        size_t wide[3];
        memcpy(wide, a->shape, sizeof wide);
        wide[a->ndim - 1] *= 2;
        ipfsrt_ndarray big;
        ipfsrt_ndarray_init(&big);
        assert_int_equal(ipfsrt_ndarray_zeros(&big, a->dtype, 0, a->ndim, wide, NULL), IPFSRT_OK);
        s[a->ndim - 1].step = 2;
        assert_int_equal(ipfsrt_ndarray_slice(&v, &big, s, a->ndim, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_assign(&v, a, NULL), IPFSRT_OK);
        ipfsrt_ndarray_free(&big);
    } else if (how == REVERSED) {
        s[a->ndim - 1].step = -1;
        assert_int_equal(ipfsrt_ndarray_slice(&v, a, s, a->ndim, NULL), IPFSRT_OK);
    } else if (how == TRANSPOSED) {
        assert_int_equal(ipfsrt_ndarray_transpose(&v, a, NULL, NULL), IPFSRT_OK);
    } else {
        size_t shape[3] = {2, a->shape[0], a->shape[1]};
        assert_int_equal(ipfsrt_ndarray_broadcast_to(&v, a, a->ndim + 1 <= 3 ? a->ndim + 1 : 3, shape, NULL),
                         IPFSRT_OK);
    }
    return v;
}

/* One operation on x (and y): what it makes of them, as a function. */
typedef struct job {
    enum { REDUCE, UNARY, CAST, BINARY, WHERE, CLIP, COPY, CUMSUM } kind;
    int how, axis; /* axis -1: all */
    bool skipna;
    ipfsrt_dtype to;
    const ipfsrt_ndarray *y, *z;
} job;

static ipfsrt_status run(const job *j, const ipfsrt_ndarray *x, ipfsrt_ndarray *out, ipfsrt_error *err) {
    switch (j->kind) {
    case REDUCE: return ipfsrt_ndarray_reduce(out, (ipfsrt_ndreduce)j->how, x, j->axis < 0 ? NULL : &j->axis, 1, j->skipna, NULL, err);
    case UNARY: return ipfsrt_ndarray_unary(out, (ipfsrt_ndfn)j->how, x, err);
    case CAST: return ipfsrt_ndarray_astype(out, x, j->to, err);
    case BINARY:
        return j->how < 0 ? ipfsrt_ndarray_binary(out, (ipfsrt_ndop)(-j->how - 1), j->y, x, err)
                          : ipfsrt_ndarray_binary(out, (ipfsrt_ndop)j->how, x, j->y, err);
    case WHERE: return ipfsrt_ndarray_where(out, j->y, x, j->z, err);
    case CLIP: return ipfsrt_ndarray_clip(out, x, j->y, j->how ? j->y : NULL, err);
    case COPY: return ipfsrt_ndarray_copy(out, x, err);
    default: return ipfsrt_ndarray_cumsum(out, x, j->axis, j->skipna, err);
    }
}

static bool close_enough(double a, double b, bool rounded) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (!rounded) return a == b;
    return a == b || fabs(a - b) <= 1e-6 * fmax(1, fabs(b));
}

/* The job typed and walked agree on x; returns whether the typed loops ran. */
static bool agree(const job *j, const ipfsrt_ndarray *x, const char *what) {
    ipfsrt_ndarray typed, walked;
    ipfsrt_ndarray_init(&typed);
    ipfsrt_ndarray_init(&walked);
    ipfsrt_error e1 = {0}, e2 = {0};
    size_t hits = ipfsrt_ndfast_hits();
    ipfsrt_status s1 = run(j, x, &typed, &e1);
    bool took = ipfsrt_ndfast_hits() > hits;
    ipfsrt_ndfast_allow(false);
    ipfsrt_status s2 = run(j, x, &walked, &e2);
    ipfsrt_ndfast_allow(true);
    if (s1 != s2 || (s1 != IPFSRT_OK && strcmp(e1.message, e2.message) != 0))
        fail_msg("%s: typed %d (%s), walked %d (%s)", what, s1, e1.message, s2, e2.message);
    if (s1 == IPFSRT_OK) {
        assert_int_equal(typed.dtype, walked.dtype);
        assert_int_equal(typed.ndim, walked.ndim);
        size_t n = ipfsrt_ndarray_size(&typed);
        assert_int_equal(n, ipfsrt_ndarray_size(&walked));
        ipfsrt_ndarray ct, cw; /* C order, whatever the layout */
        ipfsrt_ndarray_init(&ct);
        ipfsrt_ndarray_init(&cw);
        assert_int_equal(ipfsrt_ndarray_copy(&ct, &typed, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_copy(&cw, &walked, NULL), IPFSRT_OK);
        bool rounded = j->kind == REDUCE && (j->how == IPFSRT_NDREDUCE_VAR || j->how == IPFSRT_NDREDUCE_STD);
        for (size_t i = 0; i < n; i++) {
            const unsigned char *pt = ct.data + i * ct.itemsize, *pw = cw.data + i * cw.itemsize;
            bool same = is_float(ct.dtype)
                            ? close_enough(ipfsrt_ndload_double(ct.dtype, pt), ipfsrt_ndload_double(cw.dtype, pw), rounded)
                            : ipfsrt_ndload_bits(ct.dtype, pt) == ipfsrt_ndload_bits(cw.dtype, pw);
            if (!same)
                fail_msg("%s: element %zu: typed %.17g, walked %.17g", what, i, ipfsrt_ndload_double(ct.dtype, pt),
                         ipfsrt_ndload_double(cw.dtype, pw));
        }
        ipfsrt_ndarray_free(&ct);
        ipfsrt_ndarray_free(&cw);
    }
    ipfsrt_ndarray_free(&typed);
    ipfsrt_ndarray_free(&walked);
    return took;
}

/* Calls fn on each dtype, shape and view, counting the cases the typed loops took. */
static size_t each_case(void (*fn)(const ipfsrt_ndarray *x, const char *what, size_t *took), size_t max) {
    size_t took = 0;
    for (size_t d = 0; d < N_DTYPES; d++)
        for (size_t s = 0; s < N_SHAPES; s++) {
            ipfsrt_ndarray a = values(DTYPES[d], &SHAPES[s]);
            if (ipfsrt_ndarray_size(&a) > max) {
                ipfsrt_ndarray_free(&a);
                continue;
            }
            for (int v = 0; v < N_VIEWS; v++) {
                if (v == BROADCAST && a.ndim > 2) continue;
                ipfsrt_ndarray x = view_of(&a, v);
                char what[128];
                snprintf(what, sizeof what, "%s shape#%zu view#%d", ipfsrt_dtype_name(DTYPES[d]), s, v);
                fn(&x, what, &took);
                ipfsrt_ndarray_free(&x);
            }
            ipfsrt_ndarray_free(&a);
        }
    return took;
}

static void reductions(const ipfsrt_ndarray *x, const char *what, size_t *took) {
    static const ipfsrt_ndreduce hows[] = {IPFSRT_NDREDUCE_MIN,    IPFSRT_NDREDUCE_MAX, IPFSRT_NDREDUCE_ARGMIN,
                                           IPFSRT_NDREDUCE_ARGMAX, IPFSRT_NDREDUCE_ANY, IPFSRT_NDREDUCE_ALL,
                                           IPFSRT_NDREDUCE_COUNT,  IPFSRT_NDREDUCE_VAR, IPFSRT_NDREDUCE_STD};
    for (size_t h = 0; h < sizeof hows / sizeof hows[0]; h++)
        for (int axis = -1; axis < x->ndim; axis++)
            for (int skipna = 0; skipna <= 1; skipna++) {
                job j = {.kind = REDUCE, .how = (int)hows[h], .axis = axis, .skipna = skipna};
                char w[200];
                snprintf(w, sizeof w, "%s reduce %d axis %d skipna %d", what, (int)hows[h], axis, skipna);
                *took += agree(&j, x, w);
            }
}

static void elementwise(const ipfsrt_ndarray *x, const char *what, size_t *took) {
    char w[200];
    for (int fn = IPFSRT_NDFN_NEG; fn <= IPFSRT_NDFN_NOT; fn++) {
        job j = {.kind = UNARY, .how = fn};
        snprintf(w, sizeof w, "%s unary %d", what, fn);
        *took += agree(&j, x, w);
    }
    for (size_t d = 0; d < N_DTYPES; d++) {
        job j = {.kind = CAST, .to = DTYPES[d]};
        snprintf(w, sizeof w, "%s astype %s", what, ipfsrt_dtype_name(DTYPES[d]));
        *took += agree(&j, x, w);
    }
    job copy = {.kind = COPY};
    snprintf(w, sizeof w, "%s copy", what);
    *took += agree(&copy, x, w);
    for (int axis = 0; axis < x->ndim; axis++)
        for (int skipna = 0; skipna <= 1; skipna++) {
            job j = {.kind = CUMSUM, .axis = axis, .skipna = skipna};
            snprintf(w, sizeof w, "%s cumsum axis %d skipna %d", what, axis, skipna);
            *took += agree(&j, x, w);
        }
}

/* Against itself reversed (every element paired with another), a single value
 * of its dtype on either side, and its first row broadcast. */
static void binaries(const ipfsrt_ndarray *x, const char *what, size_t *took) {
    ipfsrt_ndarray other[3], one;
    ipfsrt_ndarray_init(&one);
    ipfsrt_ndslice back[3] = {{.step = -1}, {.step = -1}, {.step = -1}}, first[3] = {{.step = 1}};
    size_t rows = x->ndim ? x->shape[0] : 0;
    for (int k = 0; k < 3; k++) ipfsrt_ndarray_init(&other[k]);
    assert_int_equal(ipfsrt_ndarray_slice(&other[0], x, back, x->ndim, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_zeros(&one, x->dtype, 0, 0, NULL, NULL), IPFSRT_OK);
    ipfsrt_ndstore_bits(x->dtype, one.data, 3);
    if (is_float(x->dtype)) ipfsrt_ndstore_float(x->dtype, one.data, 2.5);
    assert_int_equal(ipfsrt_ndarray_slice(&other[1], &one, first, 0, NULL), IPFSRT_OK);
    first[0] = (ipfsrt_ndslice){.has_start = true, .start = 0, .has_stop = true, .stop = rows ? 1 : 0, .step = 1};
    assert_int_equal(ipfsrt_ndarray_slice(&other[2], x, first, x->ndim ? 1 : 0, NULL), IPFSRT_OK);
    char w[200];
    for (int k = 0; k < 3; k++)
        for (int op = IPFSRT_NDOP_ADD; op <= IPFSRT_NDOP_XOR; op++)
            for (int side = 0; side < 2; side++) {
                job j = {.kind = BINARY, .how = side ? -op - 1 : op, .y = &other[k]};
                snprintf(w, sizeof w, "%s op %d with other#%d side %d", what, op, k, side);
                *took += agree(&j, x, w);
            }
    ipfsrt_ndarray mask;
    ipfsrt_ndarray_init(&mask);
    assert_int_equal(ipfsrt_ndarray_binary(&mask, IPFSRT_NDOP_GT, x, &other[0], NULL), IPFSRT_OK);
    job where = {.kind = WHERE, .y = &mask, .z = &other[0]};
    snprintf(w, sizeof w, "%s where", what);
    *took += agree(&where, x, w);
    for (int both = 0; both < 2; both++) {
        job clip = {.kind = CLIP, .how = both, .y = &one};
        snprintf(w, sizeof w, "%s clip %d", what, both);
        *took += agree(&clip, x, w);
    }
    ipfsrt_ndarray_free(&mask);
    ipfsrt_ndarray_free(&one);
    for (int k = 0; k < 3; k++) ipfsrt_ndarray_free(&other[k]);
}

static void test_typed_reductions(void **state) {
    (void)state;
    assert_true(each_case(reductions, SIZE_MAX) > 1000);
}

static void test_typed_elementwise(void **state) {
    (void)state;
    assert_true(each_case(elementwise, ELEMENTWISE_MAX) > 1000);
}

static void test_typed_binaries(void **state) {
    (void)state;
    assert_true(each_case(binaries, ELEMENTWISE_MAX) > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_reductions),
        cmocka_unit_test(test_typed_elementwise),
        cmocka_unit_test(test_typed_binaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
