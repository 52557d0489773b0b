/* The loops under the n-d array math: the fast sums of contiguous arrays agree
 * with the general walk over strided views of the same values; walks over
 * reversed and broadcast views read the right elements; reused big buffers
 * come back zeroed when zeros are asked for. */
#include <math.h>

#include "testutil.h"

#define ND 3
static const size_t SHAPE[ND] = {5, 7, 300};

/* Deterministic values of dtype in shape, NaN sprinkled in for floats. */
static ipfsrt_ndarray values(ipfsrt_dtype dtype) {
    ipfsrt_ndarray a;
    ipfsrt_ndarray_init(&a);
    assert_int_equal(ipfsrt_ndarray_zeros(&a, dtype, 0, ND, SHAPE, NULL), IPFSRT_OK);
    int64_t i = 0;
    for (int64_t x = 0; x < (int64_t)SHAPE[0]; x++)
        for (int64_t y = 0; y < (int64_t)SHAPE[1]; y++)
            for (int64_t z = 0; z < (int64_t)SHAPE[2]; z++, i++) {
                int64_t idx[ND] = {x, y, z};
                int64_t v = (i * 7919) % 251 - (dtype == IPFSRT_DTYPE_UINT8 ? 0 : 120);
                bool is_float = dtype == IPFSRT_DTYPE_FLOAT32 || dtype == IPFSRT_DTYPE_FLOAT64;
                double d = is_float && i % 37 == 0 ? NAN : is_float ? (double)v / 8 : (double)v;
                assert_int_equal(ipfsrt_ndarray_set(&a, idx, ND, d, v, !is_float, NULL), IPFSRT_OK);
            }
    return a;
}

/* The same values as a, in every other element of a bigger buffer: no fast path. */
static ipfsrt_ndarray strided_twin(const ipfsrt_ndarray *a) {
    size_t wide[ND] = {SHAPE[0], SHAPE[1], SHAPE[2] * 2};
    ipfsrt_ndarray big, view;
    ipfsrt_ndarray_init(&big);
    ipfsrt_ndarray_init(&view);
    assert_int_equal(ipfsrt_ndarray_zeros(&big, a->dtype, 0, ND, wide, NULL), IPFSRT_OK);
    ipfsrt_ndslice s[ND] = {{.step = 1}, {.step = 1}, {.step = 2}};
    assert_int_equal(ipfsrt_ndarray_slice(&view, &big, s, ND, NULL), IPFSRT_OK);
    assert_false(ipfsrt_ndarray_is_contiguous(&view));
    assert_int_equal(ipfsrt_ndarray_assign(&view, a, NULL), IPFSRT_OK);
    ipfsrt_ndarray_free(&big);
    return view;
}

static void assert_same_results(const ipfsrt_ndarray *x, const ipfsrt_ndarray *y, bool exact) {
    assert_int_equal(x->dtype, y->dtype);
    assert_int_equal(ipfsrt_ndarray_size(x), ipfsrt_ndarray_size(y));
    ipfsrt_ndarray fx, fy;
    ipfsrt_ndarray_init(&fx);
    ipfsrt_ndarray_init(&fy);
    assert_int_equal(ipfsrt_ndarray_astype(&fx, x, IPFSRT_DTYPE_FLOAT64, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_astype(&fy, y, IPFSRT_DTYPE_FLOAT64, NULL), IPFSRT_OK);
    const double *px = (const double *)(const void *)fx.data, *py = (const double *)(const void *)fy.data;
    for (size_t i = 0; i < ipfsrt_ndarray_size(x); i++) {
        if (isnan(px[i]) || isnan(py[i])) {
            assert_true(isnan(px[i]) && isnan(py[i]));
        } else if (exact) {
            assert_true(px[i] == py[i]);
        } else {
            assert_true(fabs(px[i] - py[i]) <= 1e-5 * fmax(1, fabs(px[i])));
        }
    }
    ipfsrt_ndarray_free(&fx);
    ipfsrt_ndarray_free(&fy);
}

static void test_fast_sums_agree_with_the_walk(void **state) {
    (void)state;
    static const ipfsrt_dtype dtypes[] = {IPFSRT_DTYPE_INT16, IPFSRT_DTYPE_INT32, IPFSRT_DTYPE_UINT8,
                                          IPFSRT_DTYPE_INT64, IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        ipfsrt_ndarray a = values(dtypes[d]), s = strided_twin(&a);
        bool is_float = dtypes[d] == IPFSRT_DTYPE_FLOAT32 || dtypes[d] == IPFSRT_DTYPE_FLOAT64;
        for (int how = IPFSRT_NDREDUCE_SUM; how <= IPFSRT_NDREDUCE_MEAN; how++)
            for (int axis = -1; axis < ND; axis++)
                for (int skipna = 0; skipna <= 1; skipna++) {
                    ipfsrt_ndarray fast, walked;
                    ipfsrt_ndarray_init(&fast);
                    ipfsrt_ndarray_init(&walked);
                    assert_int_equal(ipfsrt_ndarray_reduce(&fast, how, &a, axis < 0 ? NULL : &axis, 1, skipna, NULL, NULL), IPFSRT_OK);
                    assert_int_equal(ipfsrt_ndarray_reduce(&walked, how, &s, axis < 0 ? NULL : &axis, 1, skipna, NULL, NULL),
                                     IPFSRT_OK);
                    /* integer sums are exact both ways; float ones differ in order */
                    assert_same_results(&fast, &walked, !is_float);
                    ipfsrt_ndarray_free(&fast);
                    ipfsrt_ndarray_free(&walked);
                }
        ipfsrt_ndarray_free(&a);
        ipfsrt_ndarray_free(&s);
    }
}

/* where= masks: the masked sums over everything (typed loops) agree with the
 * walk over a strided twin, and with a 2-D mask broadcast over the first axis. */
static void test_masked_sums(void **state) {
    (void)state;
    ipfsrt_ndarray flat, plane;
    ipfsrt_ndarray_init(&flat);
    ipfsrt_ndarray_init(&plane);
    size_t plane_shape[2] = {SHAPE[1], SHAPE[2]};
    assert_int_equal(ipfsrt_ndarray_zeros(&flat, IPFSRT_DTYPE_BOOL, 0, ND, SHAPE, NULL), IPFSRT_OK);
    assert_int_equal(ipfsrt_ndarray_zeros(&plane, IPFSRT_DTYPE_BOOL, 0, 2, plane_shape, NULL), IPFSRT_OK);
    for (size_t i = 0; i < ipfsrt_ndarray_size(&flat); i++) flat.data[i] = i % 3 != 0;
    for (size_t i = 0; i < ipfsrt_ndarray_size(&plane); i++) plane.data[i] = i % 5 != 0;
    static const ipfsrt_dtype dtypes[] = {IPFSRT_DTYPE_INT16, IPFSRT_DTYPE_UINT8, IPFSRT_DTYPE_INT64,
                                          IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64};
    static const ipfsrt_ndreduce hows[] = {IPFSRT_NDREDUCE_SUM, IPFSRT_NDREDUCE_MEAN, IPFSRT_NDREDUCE_COUNT};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        ipfsrt_ndarray a = values(dtypes[d]), s = strided_twin(&a);
        for (int m = 0; m < 2; m++)
            for (size_t h = 0; h < 3; h++) {
                ipfsrt_ndarray fast, walked;
                ipfsrt_ndarray_init(&fast);
                ipfsrt_ndarray_init(&walked);
                const ipfsrt_ndarray *mask = m ? &plane : &flat;
                assert_int_equal(ipfsrt_ndarray_reduce(&fast, hows[h], &a, NULL, 0, true, mask, NULL), IPFSRT_OK);
                /* the walk, through the axes form over all three axes of the strided twin */
                int axes[ND] = {0, 1, 2};
                assert_int_equal(ipfsrt_ndarray_reduce(&walked, hows[h], &s, axes, ND, true, mask, NULL), IPFSRT_OK);
                assert_same_results(&fast, &walked, dtypes[d] != IPFSRT_DTYPE_FLOAT32 && dtypes[d] != IPFSRT_DTYPE_FLOAT64);
                ipfsrt_ndarray_free(&fast);
                ipfsrt_ndarray_free(&walked);
            }
        ipfsrt_ndarray_free(&a);
        ipfsrt_ndarray_free(&s);
    }
    /* what a mask cannot be */
    ipfsrt_ndarray a = values(IPFSRT_DTYPE_INT16), out, wrong;
    ipfsrt_ndarray_init(&out);
    ipfsrt_ndarray_init(&wrong);
    ipfsrt_error err;
    assert_int_equal(ipfsrt_ndarray_reduce(&out, IPFSRT_NDREDUCE_SUM, &a, NULL, 0, true, &a, &err), IPFSRT_EBAD_ARGUMENT);
    assert_non_null(strstr(err.message, "bool"));
    assert_int_equal(ipfsrt_ndarray_reduce(&out, IPFSRT_NDREDUCE_ARGMIN, &a, NULL, 0, true, &flat, &err),
                     IPFSRT_EUNSUPPORTED);
    size_t short_shape[1] = {7};
    assert_int_equal(ipfsrt_ndarray_zeros(&wrong, IPFSRT_DTYPE_BOOL, 0, 1, short_shape, NULL), IPFSRT_OK);
    assert_int_not_equal(ipfsrt_ndarray_reduce(&out, IPFSRT_NDREDUCE_SUM, &a, NULL, 0, true, &wrong, &err),
                         IPFSRT_OK);
    ipfsrt_ndarray_free(&wrong);
    ipfsrt_ndarray_free(&a);
    ipfsrt_ndarray_free(&out);
    ipfsrt_ndarray_free(&flat);
    ipfsrt_ndarray_free(&plane);
}

static double element(const ipfsrt_ndarray *a, int64_t i, int64_t j) {
    int64_t idx[2] = {i, j};
    ipfsrt_ndvalue v;
    assert_int_equal(ipfsrt_ndarray_get(a, idx, 2, &v, NULL), IPFSRT_OK);
    return v.kind == IPFSRT_NDVALUE_FLOAT ? v.f : (double)v.i;
}

/* A reversed, transposed view minus a broadcast row, in each dtype path. */
static void test_walks_over_views(void **state) {
    (void)state;
    static const ipfsrt_dtype dtypes[] = {IPFSRT_DTYPE_FLOAT32, IPFSRT_DTYPE_FLOAT64, IPFSRT_DTYPE_INT16};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        ipfsrt_ndarray base, rev, tr, row, out;
        ipfsrt_ndarray *all[] = {&base, &rev, &tr, &row, &out};
        for (size_t k = 0; k < 5; k++) ipfsrt_ndarray_init(all[k]);
        assert_int_equal(ipfsrt_ndarray_arange(&base, dtypes[d], 0, 1200, 1, NULL), IPFSRT_OK);
        int64_t shape[2] = {40, 30};
        assert_int_equal(ipfsrt_ndarray_reshape(&base, &base, 2, shape, NULL), IPFSRT_OK);
        ipfsrt_ndslice back[2] = {{.step = -1}, {.step = 1}};
        assert_int_equal(ipfsrt_ndarray_slice(&rev, &base, back, 2, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_transpose(&tr, &rev, NULL, NULL), IPFSRT_OK); /* (30, 40) */
        assert_int_equal(ipfsrt_ndarray_arange(&row, dtypes[d], 0, 40, 1, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_binary(&out, IPFSRT_NDOP_SUB, &tr, &row, NULL), IPFSRT_OK);
        for (int64_t i = 0; i < 30; i++)
            for (int64_t j = 0; j < 40; j++) /* tr[i][j] = base[39 - j][i] = (39 - j) * 30 + i */
                assert_true(element(&out, i, j) == (double)((39 - j) * 30 + i - j));
        for (size_t k = 0; k < 5; k++) ipfsrt_ndarray_free(all[k]);
    }
}

/* Big buffers are kept for reuse: a zeros array must not see the old bytes,
 * and a result must be entirely its own values. */
static void test_reused_buffers(void **state) {
    (void)state;
    size_t shape[1] = {(size_t)2 << 20}; /* 16 MB of float64: a mapped buffer */
    for (int round = 0; round < 3; round++) {
        ipfsrt_ndarray a, sum;
        ipfsrt_ndarray_init(&a);
        ipfsrt_ndarray_init(&sum);
        uint64_t before = ipfsrt_ndarray_allocated_bytes();
        assert_int_equal(ipfsrt_ndarray_zeros(&a, IPFSRT_DTYPE_FLOAT64, 0, 1, shape, NULL), IPFSRT_OK);
        assert_true(ipfsrt_ndarray_allocated_bytes() - before >= shape[0] * 8);
        assert_int_equal(ipfsrt_ndarray_reduce(&sum, IPFSRT_NDREDUCE_SUM, &a, NULL, 0, false, NULL, NULL), IPFSRT_OK);
        assert_true(*(const double *)(const void *)sum.data == 0);
        ipfsrt_ndarray one;
        ipfsrt_ndarray_init(&one);
        assert_int_equal(ipfsrt_ndarray_full(&one, IPFSRT_DTYPE_FLOAT64, 0, 0, NULL, 1, NULL), IPFSRT_OK);
        assert_int_equal(ipfsrt_ndarray_fill(&a, &one, NULL), IPFSRT_OK); /* dirty it before it is freed */
        ipfsrt_ndarray_free(&one);
        ipfsrt_ndarray_free(&sum);
        ipfsrt_ndarray_free(&a);
    }
    ipfsrt_ndarray_trim_cache();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_sums_agree_with_the_walk),
        cmocka_unit_test(test_masked_sums),
        cmocka_unit_test(test_walks_over_views),
        cmocka_unit_test(test_reused_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
