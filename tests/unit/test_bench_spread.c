/*
 * Unit tests of judge/bench_spread.c: the interval of a benchmark's
 * geometric mean, from its sizes' medians and robust CVs, and when two
 * intervals overlap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "judge/bench_spread.h"

static void test_interval(void **state)
{
    (void)state;
    double lo = -1, hi = -1;
    json_t *r = json_loads("{\"sizes\": [{\"median_ms\": 4, \"cv\": 0.03, \"calls\": 5},"
                           " {\"median_ms\": 9, \"cv\": 0.04, \"calls\": 30}]}",
                           0, NULL);
    assert_non_null(r);
    assert_true(bench_spread_interval(r, &lo, &hi));
    double u = sqrt((0.03 * 0.03 + 0.04 * 0.04) / 2); /* neither calls nor sizes narrow it */
    assert_float_equal(lo, 6 * exp(-1.96 * u), 1e-9);
    assert_float_equal(hi, 6 * exp(1.96 * u), 1e-9);
    json_decref(r);

    /* a size without figures (unresolved, over its limit): no interval */
    r = json_loads("{\"sizes\": [{\"median_ms\": 4, \"cv\": 0.03},"
                   " {\"median_ms\": null, \"cv\": null}]}",
                   0, NULL);
    lo = hi = -1;
    assert_false(bench_spread_interval(r, &lo, &hi));
    assert_true(lo == -1 && hi == -1);
    json_decref(r);
    assert_false(bench_spread_interval(NULL, &lo, &hi));
    r = json_loads("{\"sizes\": []}", 0, NULL);
    assert_false(bench_spread_interval(r, &lo, &hi));
    json_decref(r);
}

static void test_overlap(void **state)
{
    (void)state;
    assert_true(bench_spread_overlap(1, 3, 2, 4));
    assert_true(bench_spread_overlap(2, 4, 1, 3));
    assert_true(bench_spread_overlap(1, 3, 3, 5)); /* a shared end */
    assert_true(bench_spread_overlap(1, 5, 2, 3)); /* one inside the other */
    assert_false(bench_spread_overlap(1, 2, 2.001, 3));
    assert_false(bench_spread_overlap(5, 6, 1, 4.9));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
