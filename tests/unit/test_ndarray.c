/* n-d arrays in C: creation, views (slices as Python's, transposes, reshapes,
 * broadcasting), single elements, and the errors that name what is at fault. */
#include <math.h>

#include "testutil.h"

static ipfsrt_ndarray arange_f64(size_t n) {
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    assert_int_equal(ipfsrt_ndarray_arange(&a, IPFSRT_DTYPE_FLOAT64, 0, (double)n, 1, NULL), IPFSRT_OK);
    return a;
}

static double at1(const ipfsrt_ndarray *a, int64_t i) {
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(a, &i, 1, &v, NULL), IPFSRT_OK);
    return v.f;
}

/* The slices of n = 10 from the numpy digest, as Python's slice.indices gives them. */
static void test_slices(void **state) {
    (void)state;
    ipfsrt_ndarray a = arange_f64(10), v;
    ipfsrt_ndarray_init(&v);
    static const struct {
        bool has_start, has_stop;
        int64_t start, stop, step;
        const char *want;
    } cases[] = {
        {true, false, -3, 0, 1, "7 8 9"},    {true, true, 8, 2, -2, "8 6 4"},
        {true, true, -1, -4, -1, "9 8 7"},   {false, false, 0, 0, -3, "9 6 3 0"},
        {true, true, 5, 100, 1, "5 6 7 8 9"}, {true, true, -100, 3, 1, "0 1 2"},
        {true, false, 100, 0, -1, "9 8 7 6 5 4 3 2 1 0"},
        {true, false, 100, 0, 1, ""},        {true, true, 5, 2, 1, ""},
        {true, true, 2, 8, -1, ""},          {true, false, -100, 0, -1, ""},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ipfsrt_ndslice s = {.has_start = cases[c].has_start, .has_stop = cases[c].has_stop,
                            .start = cases[c].start, .stop = cases[c].stop, .step = cases[c].step};
        assert_int_equal(ipfsrt_ndarray_slice(&v, &a, &s, 1, NULL), IPFSRT_OK);
        char got[64] = "";
        for (size_t i = 0; i < v.shape[0]; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%g", i ? " " : "", at1(&v, (int64_t)i));
        if (strcmp(got, cases[c].want) != 0) fail_msg("slice %zu: got '%s', want '%s'", c, got, cases[c].want);
    }
    ipfsrt_error err;
    ipfsrt_ndslice zero = {.step = 0};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &a, &zero, 1, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_ndslice ten = {.is_index = true, .index = 10};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &a, &ten, 1, &err), IPFSRT_EBAD_RANGE);
    assert_string_equal(err.message, "index 10 is out of bounds for axis 0 with size 10");
    ipfsrt_ndarray_free(&v);
    ipfsrt_ndarray_free(&a); /* the views held the buffer: ASan sees any early free */
}

/* Steps and sizes at int64's ends, as numpy takes them: a step past the
 * dimension takes the first element (forwards) or the last (backwards); a
 * zero dimension beside huge ones is refused as too big, as numpy refuses it
 * (never undefined behaviour: UBSan runs this in make asan). */
static void test_slices_at_limits(void **state) {
    (void)state;
    ipfsrt_ndarray a = arange_f64(40), v, e;
    ipfsrt_ndarray_init(&v);
    ipfsrt_ndarray_init(&e);
    static const int64_t steps[] = {INT64_MAX, INT64_MIN, INT64_MIN + 1, (int64_t)1 << 62};
    static const double first[] = {0, 39, 39, 0};
    for (size_t i = 0; i < 4; i++) {
        ipfsrt_ndslice s = {.has_start = false, .has_stop = i == 0, .stop = 40, .step = steps[i]};
        assert_int_equal(ipfsrt_ndarray_slice(&v, &a, &s, 1, NULL), IPFSRT_OK);
        assert_int_equal(v.shape[0], 1);
        assert_true(at1(&v, 0) == first[i]);
    }
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_zeros(&e, IPFSRT_DTYPE_INT8, 0, 3,
                                              (size_t[]){0, (size_t)1 << 53, (size_t)1 << 53}, &err),
                     IPFSRT_ETOO_LARGE);
    assert_int_equal(ipfsrt_ndarray_zeros(&e, IPFSRT_DTYPE_FLOAT64, 0, 2, (size_t[]){0, (size_t)1 << 62}, &err),
                     IPFSRT_ETOO_LARGE);
    assert_int_equal(ipfsrt_ndarray_zeros(&e, IPFSRT_DTYPE_INT8, 0, 2, (size_t[]){0, (size_t)1 << 40}, NULL),
                     IPFSRT_OK);
    ipfsrt_ndslice huge = {.has_start = true, .start = 3, .step = INT64_MAX};
    ipfsrt_ndslice two[2] = {{.step = 1}, huge};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &e, two, 2, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_size(&v), 0);
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &e, 3, (int64_t[]){0, (int64_t)1 << 62, (int64_t)1 << 62}, &err),
                     IPFSRT_ETOO_LARGE);
    assert_int_equal(ipfsrt_ndarray_reshape(&v, &e, 2, (int64_t[]){(int64_t)1 << 40, 0}, NULL), IPFSRT_OK);
    ipfsrt_ndarray_free(&e);
    ipfsrt_ndarray_free(&v);
    ipfsrt_ndarray_free(&a);
}

static void test_views_share(void **state) {
    (void)state;
    ipfsrt_ndarray a = arange_f64(6), m, t, col;
    ipfsrt_ndarray_init(&m);
    ipfsrt_ndarray_init(&t);
    ipfsrt_ndarray_init(&col);
    int64_t shape[] = {2, -1};
    assert_int_equal(ipfsrt_ndarray_reshape(&m, &a, 2, shape, NULL), IPFSRT_OK);
    assert_int_equal(m.shape[1], 3);
    assert_true(m.data == a.data); /* a view */
    assert_int_equal(ipfsrt_ndarray_transpose(&t, &m, NULL, NULL), IPFSRT_OK);
    assert_int_equal(t.shape[0], 3);
    assert_false(ipfsrt_ndarray_is_contiguous(&t));
    int64_t ij[] = {2, 1};
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(&t, ij, 2, &v, NULL), IPFSRT_OK);
    assert_true(v.f == 5.0);
    /* [:,1] of (2,3) is (2,); [0:1,1] is (1,); [:,5:] is (2,0) */
    ipfsrt_ndslice s[2] = {{.step = 1}, {.is_index = true, .index = 1}};
    assert_int_equal(ipfsrt_ndarray_slice(&col, &m, s, 2, NULL), IPFSRT_OK);
    assert_int_equal(col.ndim, 1);
    assert_true(at1(&col, 0) == 1.0 && at1(&col, 1) == 4.0);
    ipfsrt_ndslice empty[2] = {{.step = 1}, {.has_start = true, .start = 5, .step = 1}};
    assert_int_equal(ipfsrt_ndarray_slice(&col, &m, empty, 2, NULL), IPFSRT_OK);
    assert_int_equal(col.shape[0], 2);
    assert_int_equal(col.shape[1], 0);
    /* writing through a view changes the array */
    int64_t k = 1;
    assert_int_equal(ipfsrt_ndarray_slice(&col, &m, s, 2, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_set(&col, &k, 1, 42, 0, false, NULL), IPFSRT_OK);
    assert_true(at1(&a, 4) == 42.0);
    /* reshaping a transposed view copies */
    int64_t flat[] = {6};
    ipfsrt_ndarray r;
    ipfsrt_ndarray_init(&r);
    assert_int_equal(ipfsrt_ndarray_reshape(&r, &t, 1, flat, NULL), IPFSRT_OK);
    assert_true(r.data != a.data);
    assert_true(at1(&r, 1) == 3.0); /* t = [[0,3],[1,42],[2,5]] */
    int64_t bad[] = {4, -1};
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_reshape(&r, &a, 2, bad, &err), IPFSRT_EBAD_ARGUMENT);
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray_free(&m);
    ipfsrt_ndarray_free(&t);
    ipfsrt_ndarray_free(&col);
    ipfsrt_ndarray_free(&r);
}

static void broadcast_is(int na, const size_t *a, int nb, const size_t *b, int nw, const size_t *want) {
    int n;
    size_t shape[IPFSRT_NDARRAY_MAX_DIMS];
    ipfsrt_error err;
    ipfsrt_status st = ipfsrt_ndarray_broadcast_shape(na, a, nb, b, &n, shape, &err);
    if (nw < 0) {
        assert_int_equal(st, IPFSRT_EBAD_ARGUMENT);
        assert_non_null(strstr(err.message, "could not be broadcast together with shapes"));
        return;
    }
    assert_int_equal(st, IPFSRT_OK);
    assert_int_equal(n, nw);
    for (int i = 0; i < n; i++) assert_int_equal(shape[i], want[i]);
}

static void test_broadcasting(void **state) {
    (void)state;
    broadcast_is(2, (size_t[]){3, 4}, 1, (size_t[]){4}, 2, (size_t[]){3, 4});
    broadcast_is(2, (size_t[]){3, 1}, 2, (size_t[]){1, 4}, 2, (size_t[]){3, 4});
    broadcast_is(4, (size_t[]){8, 1, 6, 1}, 3, (size_t[]){7, 1, 5}, 4, (size_t[]){8, 7, 6, 5});
    broadcast_is(0, NULL, 2, (size_t[]){3, 4}, 2, (size_t[]){3, 4});
    broadcast_is(1, (size_t[]){0}, 1, (size_t[]){1}, 1, (size_t[]){0});
    broadcast_is(2, (size_t[]){2, 0}, 2, (size_t[]){2, 1}, 2, (size_t[]){2, 0});
    broadcast_is(2, (size_t[]){3, 4}, 1, (size_t[]){3}, -1, NULL);
    broadcast_is(2, (size_t[]){2, 1}, 3, (size_t[]){8, 4, 3}, -1, NULL);
    broadcast_is(1, (size_t[]){0}, 1, (size_t[]){5}, -1, NULL);
    /* a broadcast view reads the repeated dimension in place */
    ipfsrt_ndarray a = arange_f64(3), b;
    ipfsrt_ndarray_init(&b);
    assert_int_equal(ipfsrt_ndarray_broadcast_to(&b, &a, 2, (size_t[]){4, 3}, NULL), IPFSRT_OK);
    assert_int_equal(b.strides[0], 0);
    int64_t ij[] = {3, 2};
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(&b, ij, 2, &v, NULL), IPFSRT_OK);
    assert_true(v.f == 2.0);
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray_free(&b);
}

static void test_elements_and_limits(void **state) {
    (void)state;
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_full(&a, IPFSRT_DTYPE_UINT8, 0, 1, (size_t[]){4}, 7, NULL), IPFSRT_OK);
    int64_t i = -1;
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(&a, &i, 1, &v, NULL), IPFSRT_OK);
    assert_int_equal(v.u, 7);
    assert_int_equal(ipfsrt_ndarray_set(&a, &i, 1, 0, 300, true, &err), IPFSRT_EBAD_RANGE);
    assert_non_null(strstr(err.message, "300 does not fit uint8"));
    assert_int_equal(ipfsrt_ndarray_set(&a, &i, 1, -1, 0, false, &err), IPFSRT_EBAD_RANGE);
    i = 4;
    assert_int_equal(ipfsrt_ndarray_get(&a, &i, 1, &v, &err), IPFSRT_EBAD_RANGE);
    ipfsrt_ndarray_free(&a);
    /* int64 keeps every integer exactly */
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_INT64, 0, 0, NULL, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_size(&a), 1); /* 0-d */
    assert_int_equal(ipfsrt_ndarray_set(&a, NULL, 0, 0, INT64_MAX, true, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_get(&a, NULL, 0, &v, NULL), IPFSRT_OK);
    assert_int_equal(v.i, INT64_MAX);
    ipfsrt_ndarray_free(&a);
    /* too big fails before allocating; bad dtype names are named */
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT64, 0, 3,
                                              (size_t[]){1u << 30, 1u << 30, 1u << 30}, &err), IPFSRT_ETOO_LARGE);
    ipfsrt_dtype d;
    size_t size;
    assert_int_equal(ipfsrt_dtype_parse("float16x", &d, &size, &err), IPFSRT_EBAD_ARGUMENT);
    assert_int_equal(ipfsrt_dtype_parse("S12", &d, &size, NULL), IPFSRT_OK);
    assert_int_equal(size, 12);
    assert_int_equal(ipfsrt_ndarray_full(&a, IPFSRT_DTYPE_INT16, 0, 1, (size_t[]){2}, NAN, &err), IPFSRT_EBAD_RANGE);
}

/* The promotion tables of the numpy digest (array with array). */
static void test_promotion(void **state) {
    (void)state;
    enum { B = IPFSRT_DTYPE_BOOL, I1 = IPFSRT_DTYPE_INT8, I2 = IPFSRT_DTYPE_INT16, I4 = IPFSRT_DTYPE_INT32,
           I8 = IPFSRT_DTYPE_INT64, U1 = IPFSRT_DTYPE_UINT8, U2 = IPFSRT_DTYPE_UINT16,
           U4 = IPFSRT_DTYPE_UINT32, U8 = IPFSRT_DTYPE_UINT64, F4 = IPFSRT_DTYPE_FLOAT32,
           F8 = IPFSRT_DTYPE_FLOAT64 };
    static const int signed_unsigned[4][5] = {
        /* i \ u:  u1  u2  u4  u8 */
        {I1, I2, I4, I8, F8}, {I2, I2, I4, I8, F8}, {I4, I4, I4, I8, F8}, {I8, I8, I8, I8, F8}};
    static const int is[] = {I1, I2, I4, I8}, us[] = {U1, U2, U4, U8};
    for (int i = 0; i < 4; i++)
        for (int u = 0; u < 4; u++) {
            ipfsrt_dtype got;
            assert_int_equal(ipfsrt_dtype_promote((ipfsrt_dtype)is[i], (ipfsrt_dtype)us[u], &got, NULL), IPFSRT_OK);
            assert_int_equal(got, signed_unsigned[i][u + 1]);
        }
    static const struct { int a, b, want; } more[] = {
        {B, I2, I2}, {B, F4, F4}, {I1, F4, F4}, {U1, F4, F4}, {I2, F4, F4}, {U2, F4, F4},
        {I4, F4, F8}, {U4, F4, F8}, {I8, F4, F8}, {U8, F4, F8}, {I2, F8, F8}, {F4, F8, F8},
        {I1, I1, I1}, {U2, U4, U4}, {B, B, B}};
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) {
        ipfsrt_dtype got;
        assert_int_equal(ipfsrt_dtype_promote((ipfsrt_dtype)more[k].a, (ipfsrt_dtype)more[k].b, &got, NULL), IPFSRT_OK);
        if ((int)got != more[k].want)
            fail_msg("%s with %s: %s", ipfsrt_dtype_name((ipfsrt_dtype)more[k].a),
                     ipfsrt_dtype_name((ipfsrt_dtype)more[k].b), ipfsrt_dtype_name(got));
    }
    ipfsrt_error err;
    ipfsrt_dtype got;
    assert_int_equal(ipfsrt_dtype_promote(IPFSRT_DTYPE_BYTES, IPFSRT_DTYPE_INT8, &got, &err), IPFSRT_EUNSUPPORTED);
}

/* Bytes in either order land in a view (every other column of a bigger
 * array) as the values they encode, and come back out the same. */
static void test_bytes_in_both_orders(void **state) {
    (void)state;
    /* 1, 2, 3, 4 in big-endian int16, int32 and float32 */
    static const unsigned char be16[] = {0, 1, 0, 2, 0, 3, 0, 4};
    static const unsigned char be32[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
    static const unsigned char bef32[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0x40, 0x80, 0, 0};
    static const struct {
        ipfsrt_dtype dtype;
        const unsigned char *be;
        size_t len;
    } cases[] = {{IPFSRT_DTYPE_INT16, be16, 8}, {IPFSRT_DTYPE_INT32, be32, 16}, {IPFSRT_DTYPE_FLOAT32, bef32, 16}};
    for (size_t c = 0; c < 3; c++) {
        size_t shape[2] = {2, 4};
        ipfsrt_ndarray big, view;
        ipfsrt_ndarray_init(&big);
        ipfsrt_ndarray_init(&view);
        assert_int_equal(ipfsrt_ndarray_zeros(&big, cases[c].dtype, 0, 2, shape, NULL), IPFSRT_OK);
        ipfsrt_ndslice cols[2] = {{.step = 1}, {.step = 2}}; /* (2, 2): columns 0 and 2 */
        assert_int_equal(ipfsrt_ndarray_slice(&view, &big, cols, 2, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_load_bytes(&view, cases[c].be, cases[c].len, true, NULL), IPFSRT_OK);
        int64_t at[2];
        ipfsrt_ndvalue v;
        for (int64_t i = 0; i < 8; i++) {
            at[0] = i / 4, at[1] = i % 4;
            assert_int_equal(ipfsrt_ndarray_get(&big, at, 2, &v, NULL), IPFSRT_OK);
            double want = i % 2 ? 0 : (double)(i / 4 * 2 + i % 4 / 2 + 1);
            assert_true((v.kind == IPFSRT_NDVALUE_FLOAT ? v.f : (double)v.i) == want);
        }
        unsigned char out[16], little[16];
        assert_int_equal(ipfsrt_ndarray_store_bytes(&view, out, cases[c].len, true, NULL), IPFSRT_OK);
        assert_memory_equal(out, cases[c].be, cases[c].len);
        assert_int_equal(ipfsrt_ndarray_store_bytes(&view, little, cases[c].len, false, NULL), IPFSRT_OK);
        size_t item = cases[c].len / 4;
        for (size_t k = 0; k < cases[c].len; k++) /* each element's bytes reversed */
            assert_int_equal(little[k], cases[c].be[k / item * item + item - 1 - k % item]);
        ipfsrt_error err;
        assert_int_equal(ipfsrt_ndarray_load_bytes(&view, out, cases[c].len - 1, true, &err), IPFSRT_EBAD_ARGUMENT);
        assert_non_null(strstr(err.message, "wanted"));
        ipfsrt_ndarray_free(&view);
        ipfsrt_ndarray_free(&big);
    }
    /* bools from untrusted bytes: anything nonzero is true, stored as 1 */
    ipfsrt_ndarray b;
    ipfsrt_ndarray_init(&b);
    size_t n = 3;
    static const unsigned char raw[] = {0, 1, 0xff};
    assert_int_equal(ipfsrt_ndarray_zeros(&b, IPFSRT_DTYPE_BOOL, 0, 1, &n, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_load_bytes(&b, raw, 3, false, NULL), IPFSRT_OK);
    assert_int_equal(b.data[0], 0);
    assert_int_equal(b.data[1], 1);
    assert_int_equal(b.data[2], 1);
    ipfsrt_ndarray_free(&b);
}

/* Medians of lanes laid out to defeat a naive quickselect (sorted, reversed,
 * every value equal, organ pipes), of 200,001 values: the middle one each
 * time, found in bounded time; NaN left out, or met. */
static void test_median_of_crafted_lanes(void **state) {
    (void)state;
    enum { N = 200001 };
    size_t n = N;
    ipfsrt_ndarray a, m;
    ipfsrt_ndarray_init(&a);
    ipfsrt_ndarray_init(&m);
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT64, 0, 1, &n, NULL), IPFSRT_OK);
    double *v = (double *)(void *)a.data;
    for (int layout = 0; layout < 4; layout++) {
        for (size_t i = 0; i < N; i++) {
            double up = (double)i, pipe = (double)(i < N / 2 ? i : N - 1 - i);
            v[i] = layout == 0 ? up : layout == 1 ? (double)(N - 1) - up : layout == 2 ? 7.0 : pipe;
        }
        /* the 100,001st smallest: of 0..N-1, of 7s, of the pipe's 0, 0, 1, 1, ... */
        double want = layout == 2 ? 7.0 : layout == 3 ? (double)(N / 4) : (double)(N / 2);
        assert_int_equal(ipfsrt_ndarray_median(&m, &a, NULL, 0, true, NULL), IPFSRT_OK);
        assert_true(*(double *)(void *)m.data == want);
    }
    v[3] = NAN; /* skipped: 200,000 values left, the middle two averaged; or met: NaN */
    assert_int_equal(ipfsrt_ndarray_median(&m, &a, NULL, 0, true, NULL), IPFSRT_OK);
    assert_true(isfinite(*(double *)(void *)m.data));
    assert_int_equal(ipfsrt_ndarray_median(&m, &a, NULL, 0, false, NULL), IPFSRT_OK);
    assert_true(isnan(*(double *)(void *)m.data));
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray_free(&m);
}

/* Rows folded a part at a time give the reduction of all the rows at once,
 * bit for bit: float32 sums with NaN skipped (and counted), extremes, int16 sums. */
static void test_accumulate_in_parts(void **state) {
    (void)state;
    size_t shape[2] = {37, 1000}, row = 1000;
    ipfsrt_ndarray x, part, total, count, want, sum16, x16, want16;
    ipfsrt_ndarray *all[] = {&x, &part, &total, &count, &want, &sum16, &x16, &want16};
    for (size_t i = 0; i < 8; i++) ipfsrt_ndarray_init(all[i]);
    assert_int_equal(ipfsrt_ndarray_zeros(&x, IPFSRT_DTYPE_FLOAT32, 0, 2, shape, NULL), IPFSRT_OK);
    float *v = (float *)(void *)x.data;
    for (size_t i = 0; i < 37000; i++) v[i] = i % 97 == 0 ? NAN : (float)((double)(i * 7919 % 10007) / 3.7 - 1000);
    static const ipfsrt_ndaccumulate hows[] = {IPFSRT_NDACCUMULATE_SUM, IPFSRT_NDACCUMULATE_MAX};
    static const ipfsrt_ndreduce reductions[] = {IPFSRT_NDREDUCE_SUM, IPFSRT_NDREDUCE_MAX};
    for (int h = 0; h < 2; h++) {
        assert_int_equal(ipfsrt_ndarray_zeros(&total, IPFSRT_DTYPE_FLOAT32, 0, 1, &row, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_zeros(&count, IPFSRT_DTYPE_INT64, 0, 1, &row, NULL), IPFSRT_OK);
        for (int64_t at = 0; at < 37; at += 10) { /* parts of 10 rows, the last of 7 */
            ipfsrt_ndslice s = {.has_start = true, .start = at, .has_stop = true, .stop = at + 10, .step = 1};
            assert_int_equal(ipfsrt_ndarray_slice(&part, &x, &s, 1, NULL), IPFSRT_OK);
            assert_int_equal(ipfsrt_ndarray_accumulate(&total, &count, &part, hows[h], true, at == 0, NULL), IPFSRT_OK);
        }
        assert_int_equal(ipfsrt_ndarray_reduce(&want, reductions[h], &x, (int[]){0}, 1, true, NULL, NULL), IPFSRT_OK);
        assert_memory_equal(total.data, want.data, row * 4);
        assert_int_equal(((int64_t *)(void *)count.data)[0], 37 - 1); /* column 0: row 0 (i = 0) is NaN */
    }
    for (size_t i = 0; i < 37000; i++)
        if (v[i] != v[i]) v[i] = -7; /* int16 has no NaN */
    assert_int_equal(ipfsrt_ndarray_astype(&x16, &x, IPFSRT_DTYPE_INT16, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_zeros(&sum16, IPFSRT_DTYPE_INT64, 0, 1, &row, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_accumulate(&sum16, NULL, &x16, IPFSRT_NDACCUMULATE_SUM, true, true, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_reduce(&want16, IPFSRT_NDREDUCE_SUM, &x16, (int[]){0}, 1, true, NULL, NULL), IPFSRT_OK);
    assert_memory_equal(sum16.data, want16.data, row * 8);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_accumulate(&total, NULL, &x16, IPFSRT_NDACCUMULATE_SUM, true, false, &err),
                     IPFSRT_EBAD_ARGUMENT); /* a float32 total for int16 rows */
    for (size_t i = 0; i < 8; i++) ipfsrt_ndarray_free(all[i]);
}

/* The slice constructors make whole parts: numpy's a[1, :, 2:4], a[-1, ::-1]. */
static void test_slice_constructors(void **state) {
    (void)state;
    ipfsrt_ndarray a, v;
    ipfsrt_ndarray_init(&a), ipfsrt_ndarray_init(&v);
    assert_int_equal(ipfsrt_ndarray_arange(&a, IPFSRT_DTYPE_INT32, 0, 60, 1, NULL), IPFSRT_OK);
    int64_t s64[3] = {3, 4, 5};
    assert_int_equal(ipfsrt_ndarray_reshape(&a, &a, 3, s64, NULL), IPFSRT_OK);
    ipfsrt_ndslice parts[3] = {ipfsrt_ndslice_index(1), ipfsrt_ndslice_all(), ipfsrt_ndslice_range(2, 4)};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &a, parts, 3, NULL), IPFSRT_OK);
    assert_int_equal(v.ndim, 2);
    assert_true(v.shape[0] == 4 && v.shape[1] == 2);
    ipfsrt_ndvalue x;
    int64_t at[2] = {3, 1};
    assert_int_equal(ipfsrt_ndarray_get(&v, at, 2, &x, NULL), IPFSRT_OK);
    assert_int_equal(x.i, 20 + 15 + 3); /* a[1, 3, 3] */
    ipfsrt_ndslice back[2] = {ipfsrt_ndslice_index(-1), ipfsrt_ndslice_from(-1, -1)};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &a, back, 2, NULL), IPFSRT_OK);
    int64_t first[2] = {0, 0};
    assert_int_equal(ipfsrt_ndarray_get(&v, first, 2, &x, NULL), IPFSRT_OK);
    assert_int_equal(x.i, 40 + 15); /* a[-1, ::-1][0, 0] is a[2, 3, 0] */
    ipfsrt_ndslice stepped[1] = {ipfsrt_ndslice_steps(0, 3, 2)};
    assert_int_equal(ipfsrt_ndarray_slice(&v, &a, stepped, 1, NULL), IPFSRT_OK);
    assert_int_equal(v.shape[0], 2);
    ipfsrt_ndarray_free(&a), ipfsrt_ndarray_free(&v);
}

/* Lanes shared among threads give the bits one thread gives. */
static void test_lanes_on_threads(void **state) {
    (void)state;
    size_t shape[2] = {300, 1000};
    ipfsrt_ndarray a, one, many;
    ipfsrt_ndarray_init(&a), ipfsrt_ndarray_init(&one), ipfsrt_ndarray_init(&many);
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT32, 0, 2, shape, NULL), IPFSRT_OK);
    float *v = (float *)(void *)a.data;
    uint32_t r = 7;
    for (size_t i = 0; i < 300000; i++) {
        r = r * 1103515245u + 12345u;
        v[i] = (r >> 16) % 97 == 0 ? NAN : (float)(r >> 8) / 65536.0f;
    }
    double q[2] = {0.1, 0.9};
    int axis = 0;
    for (int kind = 0; kind < 2; kind++) {
        ipfsrt_threads_set(1);
        if (kind == 0) assert_int_equal(ipfsrt_ndarray_quantile(&one, &a, q, 2, &axis, 1, IPFSRT_QUANTILE_LINEAR, true, NULL), IPFSRT_OK);
        else assert_int_equal(ipfsrt_ndarray_median(&one, &a, &axis, 1, true, NULL), IPFSRT_OK);
        ipfsrt_threads_set(4);
        if (kind == 0) assert_int_equal(ipfsrt_ndarray_quantile(&many, &a, q, 2, &axis, 1, IPFSRT_QUANTILE_LINEAR, true, NULL), IPFSRT_OK);
        else assert_int_equal(ipfsrt_ndarray_median(&many, &a, &axis, 1, true, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_size(&one), ipfsrt_ndarray_size(&many));
        assert_memory_equal(one.data, many.data, ipfsrt_ndarray_size(&one) * one.itemsize);
    }
    ipfsrt_threads_set(0);
    ipfsrt_ndarray_free(&a), ipfsrt_ndarray_free(&one), ipfsrt_ndarray_free(&many);
}

/* Quantiles select rather than sort, so crafted orders must stay fast and
 * right; refusals name what is wrong and leave out alone. */
static void test_quantile_and_order(void **state) {
    (void)state;
    enum { N = 100001 };
    size_t n = N;
    ipfsrt_ndarray a, r;
    ipfsrt_ndarray_init(&a);
    ipfsrt_ndarray_init(&r);
    assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT64, 0, 1, &n, NULL), IPFSRT_OK);
    double *v = (double *)(void *)a.data;
    for (size_t i = 0; i < N; i++) v[i] = (double)(N - 1 - i); /* descending: 0..N-1 in reverse */
    double q[3] = {0.0, 0.25, 1.0};
    assert_int_equal(ipfsrt_ndarray_quantile(&r, &a, q, 3, NULL, 0, IPFSRT_QUANTILE_LINEAR, true, NULL), IPFSRT_OK);
    const double *got = (const double *)(const void *)r.data;
    assert_true(got[0] == 0.0 && got[1] == 25000.0 && got[2] == (double)(N - 1));
    double bad_q = 1.5;
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_quantile(&r, &a, &bad_q, 1, NULL, 0, IPFSRT_QUANTILE_LINEAR, true, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "1.5"));
    assert_int_equal(ipfsrt_ndarray_quantile(&r, &a, q, 1, NULL, 0, (ipfsrt_quantile_method)99, true, &err), IPFSRT_EBAD_ARGUMENT);
    int64_t picks[2] = {-1, (int64_t)N};
    assert_int_equal(ipfsrt_ndarray_take(&r, &a, picks, 2, 0, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "out of bounds"));
    assert_int_equal(ipfsrt_ndarray_take(&r, &a, picks, 1, 0, NULL), IPFSRT_OK);
    assert_true(*(double *)(void *)r.data == 0.0);
    assert_int_equal(ipfsrt_ndarray_sort(&r, &a, 0, true, NULL), IPFSRT_OK);
    assert_true(((int64_t *)(void *)r.data)[0] == N - 1);
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slices), cmocka_unit_test(test_slices_at_limits),
        cmocka_unit_test(test_views_share),
        cmocka_unit_test(test_broadcasting),
        cmocka_unit_test(test_elements_and_limits),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_bytes_in_both_orders),
        cmocka_unit_test(test_median_of_crafted_lanes),
        cmocka_unit_test(test_quantile_and_order),
        cmocka_unit_test(test_lanes_on_threads),
        cmocka_unit_test(test_slice_constructors),
        cmocka_unit_test(test_accumulate_in_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
