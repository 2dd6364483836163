/*
 * dims — shapes and constraints evaluated for one set of dimension
 * arguments (see dims.h). The expressions were parsed and checked to name
 * only int parameters when the problem was loaded.
 */
#include "judge/dims.h"

#include <inttypes.h>
#include <stdio.h>
#include <limits.h>

#include "judge/errbuf.h"
#include "judge/expr.h"

/* Tensors are indexed with int in student code. */
#define DIMS_MAX_ELEMS INT32_MAX

struct dims_ctx {
    const struct problem *p;
    const int64_t *dims;
};

/* expr_eval's lookup: the value of the int parameter called name. */
static int lookup_dim(void *ctx, const char *name, int64_t *value)
{
    const struct dims_ctx *dc = ctx;
    int i = problem_find_param(dc->p, name);

    if (i < 0 || dc->p->params[i].kind != PARAM_INT)
        return -1;
    *value = dc->dims[dc->p->params[i].dim_index];
    return 0;
}

int dims_tensor_shape(const struct problem *p, int i, const int64_t *dims,
                      int64_t shape[TENSOR_MAX_RANK])
{
    struct dims_ctx dc = {.p = p, .dims = dims};
    const struct param *pa;

    if (i < 0 || i >= p->n_params || p->params[i].kind != PARAM_TENSOR)
        return -1;
    pa = &p->params[i];
    for (int k = 0; k < pa->rank; k++)
        if (expr_eval(pa->shape[k], lookup_dim, &dc, &shape[k], NULL, 0) != 0 || shape[k] < 1)
            return -1;
    return pa->rank;
}

int64_t dims_tensor_elems(const struct problem *p, int i, const int64_t *dims)
{
    int64_t shape[TENSOR_MAX_RANK], n = 1;
    int rank = dims_tensor_shape(p, i, dims, shape);

    if (rank < 0)
        return -1;
    for (int k = 0; k < rank; k++)
        if (__builtin_mul_overflow(n, shape[k], &n))
            return -1;
    return n;
}

int dims_check(const struct problem *p, const int64_t *dims, char *err, size_t errlen)
{
    struct dims_ctx dc = {.p = p, .dims = dims};
    char msg[PROBLEM_ERR_LEN];
    int64_t v;

    /* Dimensions are passed to the student's function as C ints. */
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];

        if (pa->kind == PARAM_INT &&
            (dims[pa->dim_index] < INT_MIN || dims[pa->dim_index] > INT_MAX)) {
            errbuf_set(err, errlen, "%s = %" PRId64 " does not fit a C int", pa->name,
                       dims[pa->dim_index]);
            return -1;
        }
    }
    for (size_t c = 0; c < p->n_constraints; c++) {
        if (expr_eval(p->constraints[c], lookup_dim, &dc, &v, msg, sizeof msg) != 0) {
            errbuf_set(err, errlen, "constraint '%s' does not hold (%s)", p->constraint_text[c],
                       msg);
            return -1;
        }
        if (!v) {
            errbuf_set(err, errlen, "constraint '%s' does not hold", p->constraint_text[c]);
            return -1;
        }
    }
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        int64_t n = 1;

        if (pa->kind != PARAM_TENSOR)
            continue;
        for (int k = 0; k < pa->rank; k++) {
            if (expr_eval(pa->shape[k], lookup_dim, &dc, &v, msg, sizeof msg) != 0) {
                errbuf_set(err, errlen, "%s: shape[%d] '%s': %s", pa->name, k, pa->shape_text[k],
                           msg);
                return -1;
            }
            if (v < 1) {
                errbuf_set(err, errlen, "%s: shape[%d] '%s' is %" PRId64 ", must be positive",
                           pa->name, k, pa->shape_text[k], v);
                return -1;
            }
            if (__builtin_mul_overflow(n, v, &n) || n > DIMS_MAX_ELEMS) {
                errbuf_set(err, errlen, "%s: more than %d elements", pa->name, DIMS_MAX_ELEMS);
                return -1;
            }
        }
    }
    return 0;
}

int dims_bench_counts(const struct problem *p, const int64_t *dims, int64_t *flops, int64_t *bytes,
                      char *err, size_t errlen)
{
    struct dims_ctx dc = {.p = p, .dims = dims};
    char why[PROBLEM_ERR_LEN];

    if (expr_eval(p->bench.flops, lookup_dim, &dc, flops, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.flops: %s", why);
        return -1;
    }
    if (expr_eval(p->bench.bytes, lookup_dim, &dc, bytes, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.bytes: %s", why);
        return -1;
    }
    /* a problem that only moves data does no arithmetic: flops 0 */
    if (*flops < 0 || *bytes <= 0) {
        snprintf(err, errlen,
                 "benchmark: flops must be 0 or more and bytes positive (%" PRId64 ", %" PRId64 ")",
                 *flops, *bytes);
        return -1;
    }
    return 0;
}
