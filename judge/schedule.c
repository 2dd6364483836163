/*
 * schedule — which test each thread of a judgement claims next
 * (schedule.h).
 */
#include "judge/schedule.h"

#include "judge/dims.h"

int64_t schedule_test_cost(const struct problem *p, const struct test_case *t)
{
    int64_t flops, bytes;
    char err[PROBLEM_ERR_LEN];

    if (p->bench.flops && dims_bench_counts(p, t->dims, &flops, &bytes, err, sizeof err) == 0 &&
        flops <= INT64_MAX - bytes)
        return flops + bytes;
    int64_t elems = 0;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_TENSOR || t->is_null[i])
            continue;
        int64_t n = dims_tensor_elems(p, i, t->dims);
        if (n > 0 && elems <= INT64_MAX - n)
            elems += n;
    }
    return elems;
}

void schedule_by_cost(const int64_t *cost, int n, int *by_cost)
{
    /* insertion sort, stable: a judgement has tens of tests */
    for (int k = 0; k < n; k++) {
        int j = k;
        for (; j > 0 && cost[by_cost[j - 1]] < cost[k]; j--)
            by_cost[j] = by_cost[j - 1];
        by_cost[j] = k;
    }
}

int schedule_claim(bool *claimed, const int *by_cost, int n, bool judging_thread)
{
    for (int j = 0; j < n; j++) {
        int k = judging_thread ? j : by_cost[j];
        if (!claimed[k]) {
            claimed[k] = true;
            return k;
        }
    }
    return -1;
}
