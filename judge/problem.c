/*
 * problem — the loaded problem: freeing it and the queries on it (see
 * problem.h). Loading is judge/problem_load.c's (problem.json, then
 * judge/problem_files.c for the other files).
 *
 * The struct is immutable after loading and may be shared between threads.
 */
#include "judge/problem.h"

#include <stdlib.h>
#include <string.h>

void problem_errors_free(struct problem_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        free(errs->e[i].field);
        free(errs->e[i].text);
    }
    memset(errs, 0, sizeof *errs);
}

void problem_free(struct problem *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->slug);
    free(p->title);
    free(p->difficulty);
    for (size_t i = 0; i < p->n_tags; i++)
        free(p->tags[i]);
    free(p->tags);
    for (size_t i = 0; i < p->n_prereqs; i++)
        free(p->prereqs[i]);
    free(p->prereqs);
    free(p->function);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(p->params[i].name);
        for (int k = 0; k < TENSOR_MAX_RANK; k++) {
            expr_free(p->params[i].shape[k]);
            free(p->params[i].shape_text[k]);
        }
    }
    for (size_t i = 0; i < p->n_constraints; i++) {
        expr_free(p->constraints[i]);
        free(p->constraint_text[i]);
    }
    free(p->constraints);
    free(p->constraint_text);
    for (size_t i = 0; i < p->n_tests; i++) {
        free(p->tests[i].name);
        free(p->tests[i].dims);
    }
    free(p->tests);
    for (size_t i = 0; i < p->bench.n_sizes; i++) {
        free(p->bench.sizes[i].name);
        free(p->bench.sizes[i].dims);
    }
    free(p->bench.sizes);
    expr_free(p->bench.flops);
    expr_free(p->bench.bytes);
    free(p->bench.flops_text);
    free(p->bench.bytes_text);
    free(p->domain.dim_lo);
    free(p->domain.dim_hi);
    free(p->statement_md);
    free(p->starter_c);
    free(p->reference_path);
    free(p->json_text);
    for (size_t i = 0; i < p->n_mistakes; i++) {
        free(p->mistakes[i].id);
        free(p->mistakes[i].title);
        free(p->mistakes[i].hint);
        free(p->mistakes[i].path);
    }
    free(p->mistakes);
    for (size_t i = 0; i < p->n_hints; i++)
        free(p->hints[i]);
    free(p->walkthrough_md);
    free(p);
}

/* ---- queries ---------------------------------------------------------- */

static const char *const test_kind_names[] = {
    [TEST_SAMPLE] = "sample",
    [TEST_HIDDEN] = "hidden",
};

const char *problem_test_kind_name(enum test_kind k)
{
    return k == TEST_SAMPLE ? test_kind_names[TEST_SAMPLE] : test_kind_names[TEST_HIDDEN];
}

int problem_test_kind_from_name(const char *name)
{
    for (int k = TEST_SAMPLE; k <= TEST_HIDDEN; k++)
        if (strcmp(test_kind_names[k], name) == 0)
            return k;
    return -1;
}

const struct test_case *problem_find_test(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_tests; i++)
        if (strcmp(p->tests[i].name, name) == 0)
            return &p->tests[i];
    return NULL;
}

const char *problem_role_name(enum param_role r)
{
    return r == ROLE_IN ? "in" : r == ROLE_OUT ? "out" : "inout";
}

const char *problem_scalar_ctype(const struct param *q)
{
    return q->is_double ? "double" : "float";
}

void problem_default_scalars(const struct problem *p, double values[PROBLEM_MAX_PARAMS])
{
    for (int i = 0; i < p->n_params; i++)
        values[i] = p->params[i].kind == PARAM_FLOAT ? p->params[i].value : 0;
}

int problem_find_param(const struct problem *p, const char *name)
{
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].name && strcmp(p->params[i].name, name) == 0)
            return i;
    return -1;
}
