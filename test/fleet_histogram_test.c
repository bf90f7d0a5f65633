/*
 * fleet_histogram_test.c: the fleet's log-bucketed histogram: bucket
 * layout (contiguous, increasing, width <= 1/128 of the value), quantiles
 * within 1% of the exact ones on random data, edges and merging.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/histogram.h"

static void test_bucket_layout(void **state)
{
    uint64_t prev_hi = 0, lo, hi;

    for (unsigned b = 0; b < HISTOGRAM_BUCKETS; b++) {
        histogram_bucket_range(b, &lo, &hi);
        if (b > 0)
            assert_true(lo == prev_hi + 1);
        assert_true(hi >= lo);
        assert_true((hi - lo) * 128 <= lo || lo < HISTOGRAM_SUB_COUNT);
        assert_int_equal(histogram_bucket(lo), b);
        assert_int_equal(histogram_bucket(hi), b);
        prev_hi = hi;
    }
    assert_true(prev_hi == UINT64_MAX);
    assert_int_equal(histogram_bucket(0), 0);
    assert_int_equal(histogram_bucket(127), 127);
    assert_int_equal(histogram_bucket(128), 128);
    assert_int_equal(histogram_bucket(UINT64_MAX), HISTOGRAM_BUCKETS - 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_quantiles_within_one_percent(void **state)
{
    enum { N = 100000 };
    static const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999};
    uint64_t *v = xmalloc(N * sizeof(*v));
    struct histogram *h = xmalloc(sizeof(*h));
    double sum = 0;

    histogram_init(h);
    for (int i = 0; i < N; i++) {
        /* log-uniform from 1 us to 10 s in ns */
        unsigned shift = 10 + (unsigned)(rnd64() % 24);

        v[i] = (rnd64() % (1ull << shift)) + 1000;
        histogram_record(h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, N, sizeof(*v), cmp_u64);
    assert_int_equal(h->count, N);
    assert_true(h->min == v[0] && h->max == v[N - 1]);
    for (size_t i = 0; i < RW_ARRAY_LEN(qs); i++) {
        uint64_t exact = v[(size_t)(qs[i] * N + 0.999999) - 1];
        uint64_t got = histogram_quantile(h, qs[i]);
        double err = ((double)got - (double)exact) / (double)exact;

        assert_true(err < 0.01 && err > -0.01);
    }
    assert_true(histogram_quantile(h, 0) == v[0]);
    assert_true(histogram_quantile(h, 1) == v[N - 1]);
    assert_true(histogram_mean(h) > sum / N * 0.999999 &&
                histogram_mean(h) < sum / N * 1.000001);
    free(v);
    free(h);
}

static void test_edges_and_merge(void **state)
{
    struct histogram *a = xmalloc(sizeof(*a)), *b = xmalloc(sizeof(*b));

    histogram_init(a);
    histogram_init(b);
    assert_int_equal(histogram_quantile(a, 0.5), 0);
    assert_true(histogram_mean(a) == 0);
    histogram_record(a, 0);
    histogram_record(a, 5);
    histogram_record(b, UINT64_MAX);
    histogram_record(b, 1000000);
    histogram_merge(a, b);
    assert_int_equal(a->count, 4);
    assert_true(a->min == 0 && a->max == UINT64_MAX);
    assert_int_equal(histogram_quantile(a, 0.25), 0);
    assert_int_equal(histogram_quantile(a, 0.5), 5);
    assert_true(histogram_quantile(a, 0.75) >= 1000000 * 0.996 &&
                histogram_quantile(a, 0.75) <= 1000000 * 1.004);
    assert_true(histogram_quantile(a, 0.99) == UINT64_MAX ||
                histogram_quantile(a, 0.99) > UINT64_MAX / 2);
    /* One value: every quantile is it. */
    histogram_init(b);
    histogram_record(b, 123456789);
    assert_int_equal(histogram_quantile(b, 0.5), 123456789);
    assert_int_equal(histogram_quantile(b, 0.999), 123456789);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_layout),
        cmocka_unit_test(test_quantiles_within_one_percent),
        cmocka_unit_test(test_edges_and_merge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
