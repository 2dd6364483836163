/*
 * Unit tests of judge/schedule: the helpers' costliest-first order, the
 * two ends a judgement's threads claim from, and the cost estimate of a
 * seed problem's tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/dims.h"
#include "judge/schedule.h"

static void test_by_cost_descending_and_stable(void **state)
{
    (void)state;
    const int64_t cost[] = {5, 9, 5, 1, 9};
    const int want[] = {1, 4, 0, 2, 3};
    int got[5];

    schedule_by_cost(cost, 5, got);
    assert_memory_equal(got, want, sizeof want);
}

/* The seed problems' shape: small tests and a costly last one. The helper
 * starts the costly one first; the judging thread goes in report order;
 * every test is claimed exactly once. */
static void test_two_ends(void **state)
{
    (void)state;
    const int64_t cost[] = {1, 2, 1, 1, 100};
    int by_cost[5];
    bool claimed[5] = {false};

    schedule_by_cost(cost, 5, by_cost);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, false), 4);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, true), 0);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, false), 1);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, true), 2);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, true), 3);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, false), -1);
    assert_int_equal(schedule_claim(claimed, by_cost, 5, true), -1);
}

/* Alone (no helper), the judging thread runs the tests in report order,
 * whatever they cost: a fatal first test stops the rest before they run. */
static void test_alone_in_report_order(void **state)
{
    (void)state;
    const int64_t cost[] = {1, 50, 7, 100};
    int by_cost[4];
    bool claimed[4] = {false};

    schedule_by_cost(cost, 4, by_cost);
    for (int k = 0; k < 4; k++)
        assert_int_equal(schedule_claim(claimed, by_cost, 4, true), k);
    assert_int_equal(schedule_claim(claimed, by_cost, 4, true), -1);
}

static int64_t tensor_elems(const struct problem *p, const struct test_case *t)
{
    int64_t n = 0;
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_TENSOR && !t->is_null[i])
            n += dims_tensor_elems(p, i, t->dims);
    return n;
}

/* gpt2-attention: the cost is the benchmark formulas' FLOPs plus bytes at
 * each test's dimensions, so the test with the most work costs most;
 * without the formulas it is the tensors' elements. */
static void test_cost_of_seed_tests(void **state)
{
    (void)state;
    char err[PROBLEM_ERR_LEN];
    struct problem *p = problem_load("problems/gpt2-attention", "reference", err, sizeof err);
    assert_non_null(p);
    assert_true(p->n_tests >= 2);

    size_t costliest = 0, most_flops = 0;
    int64_t best_cost = -1, best_flops = -1;
    for (size_t i = 0; i < p->n_tests; i++) {
        int64_t flops, bytes;
        assert_int_equal(dims_bench_counts(p, p->tests[i].dims, &flops, &bytes, err, sizeof err),
                         0);
        int64_t cost = schedule_test_cost(p, &p->tests[i]);
        assert_true(cost == flops + bytes);
        if (cost > best_cost) {
            best_cost = cost;
            costliest = i;
        }
        if (flops > best_flops) {
            best_flops = flops;
            most_flops = i;
        }
    }
    assert_int_equal(costliest, most_flops);

    struct expr *flops = p->bench.flops;
    p->bench.flops = NULL; /* a package without benchmark formulas */
    for (size_t i = 0; i < p->n_tests; i++) {
        int64_t cost = schedule_test_cost(p, &p->tests[i]);
        assert_true(cost > 0);
        assert_true(cost == tensor_elems(p, &p->tests[i]));
    }
    p->bench.flops = flops;
    problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_cost_descending_and_stable),
        cmocka_unit_test(test_two_ends),
        cmocka_unit_test(test_alone_in_report_order),
        cmocka_unit_test(test_cost_of_seed_tests),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
