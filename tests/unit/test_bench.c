/*
 * Unit tests of judge/bench's statistics: each call paired with its own
 * empty-function run, the floor a difference cannot go under, the robust
 * CV (docs/performance.md, "What is subtracted", "The floor"), and which
 * reports an identical source may share.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "judge/bench.h"

/* The machine drifts: every run of the fifth call took 20 ms more than the
 * others' (a slow minute, a judge whose memory grew). Paired with its own
 * empty run, each call's difference is the function's 2 ms; subtracting
 * the empty runs' median instead would have made the fifth call 22 ms. */
static void test_pairs_cancel_drift(void **state)
{
    (void)state;
    const double raw[] = {10, 12, 11, 30, 13}, base[] = {8, 10, 9, 28, 11};
    double med, min, cv;

    bench_paired_stats(raw, base, 5, 1e-3, &med, &min, &cv);
    assert_true(med == 2 && min == 2 && cv == 0);
}

/* One call slowed by a neighbour moves neither the median nor the CV
 * much: 1.4826 x the median absolute deviation over the median. */
static void test_robust_cv(void **state)
{
    (void)state;
    const double raw[] = {1, 2, 3, 4, 100}, base[5] = {0};
    double med, min, cv;

    bench_paired_stats(raw, base, 5, 1e-3, &med, &min, &cv);
    assert_true(med == 3 && min == 1);
    assert_true(fabs(cv - 1.4826 / 3) < 1e-12); /* deviations 2 1 0 1 97: MAD 1 */
}

/* A call that took no longer than the empty function counts as the floor;
 * when most do, the median is the floor: the caller's "unresolved". */
static void test_floor(void **state)
{
    (void)state;
    const double raw[] = {5, 9, 4, 6, 5}, base[] = {6, 6, 6, 6, 6};
    double med, min, cv;

    bench_paired_stats(raw, base, 5, 0.5, &med, &min, &cv);
    assert_true(med == 0.5 && min == 0.5);
    assert_true(cv == 0); /* which is why a CV of 0 there stops nothing */

    /* two of five under it: the median is still a time */
    const double raw2[] = {5, 9, 8, 8.5, 5};
    bench_paired_stats(raw2, base, 5, 0.5, &med, &min, &cv);
    assert_true(med == 2 && min == 0.5);
}

/* The floor: the FMA peak's time for the FLOPs, at least 1 us. */
static void test_time_floor(void **state)
{
    (void)state;
    struct machine_peak peak;
    memset(&peak, 0, sizeof peak);
    peak.fma_gflops = 100;

    assert_true(fabs(bench_time_floor_ms(INT64_C(100000000000), &peak) - 1000) < 1e-9);
    assert_true(fabs(bench_time_floor_ms(INT64_C(300000000), &peak) - 3) < 1e-12);
    assert_true(bench_time_floor_ms(0, &peak) == 1e-3);    /* no FLOPs: data movement */
    assert_true(bench_time_floor_ms(1000, &peak) == 1e-3); /* 10 ns: under a microsecond */
    peak.fma_gflops = 0;                                   /* the peak unknown */
    assert_true(bench_time_floor_ms(INT64_C(100000000000), &peak) == 1e-3);
}

/* Pooling: figures with an unresolved size are not shared. */
static void test_report_resolved(void **state)
{
    (void)state;
    json_t *done =
        json_pack("{s:[{s:s}, {s:s}]}", "sizes", "status", "done", "status", "time_limit");
    json_t *lost =
        json_pack("{s:[{s:s}, {s:s}]}", "sizes", "status", "done", "status", "unresolved");
    json_t *none = json_pack("{s:[]}", "sizes");

    assert_true(done && lost && none);
    assert_true(bench_report_json_resolved(done));
    assert_false(bench_report_json_resolved(lost));
    assert_true(bench_report_json_resolved(none));
    json_decref(done);
    json_decref(lost);
    json_decref(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_cancel_drift),
        cmocka_unit_test(test_robust_cv),
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_time_floor),
        cmocka_unit_test(test_report_resolved),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
