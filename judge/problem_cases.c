/*
 * problem_cases — problem.json's "tests" and "benchmark" (see problem_cases.h).
 *
 * Theory of operation. A test and a benchmark size are the same thing to
 * the loader, a case: a name, a value for every dimension, the tensors
 * passed as NULL, scalar values, generator overrides merged onto the
 * problem's and limits merged onto the default; its dims must satisfy the
 * constraints and give positive shapes (judge/dims.c). A test adds its
 * kind, seed and weight; a size has neither, and is timed under ten times
 * the problem's time limits unless it sets its own. Each test is checked on
 * its own, so one test's error does not hide another's. The params, the
 * constraints and the problem's generators are loaded before any case.
 */
#include "judge/problem_cases.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/dims.h"
#include "judge/jsonget.h"
#include "judge/names.h"
#include "judge/problem_loader.h"

#define PROBLEM_MAX_TESTS 1000
#define PROBLEM_MAX_WEIGHT 1000

static int load_test_dims(struct problem_loader *ld, json_t *jt, const char *path,
                          struct test_case *t)
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *key;
    json_t *dims, *v;

    jsonget_path_key(fp, path, "dims");
    dims = json_object_get(jt, "dims");
    if (!dims)
        return jsonget_missing(path, "dims", ld->err, ld->errlen);
    if (!json_is_object(dims))
        return problem_loader_bad(ld, "%s: must be an object", fp);
    json_object_foreach(dims, key, v)
    {
        int i = problem_find_param(p, key);

        if (i < 0 || p->params[i].kind != PARAM_INT)
            return problem_loader_bad(ld, "%s: unknown dimension '%s'", fp, key);
    }
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        int64_t value;

        if (pa->kind != PARAM_INT)
            continue;
        if (!json_object_get(dims, pa->name))
            return problem_loader_bad(ld, "%s: missing '%s'", fp, pa->name);
        if (jsonget_int(dims, fp, pa->name, INT_MIN, INT_MAX, &value, ld->err, ld->errlen) != 0)
            return -1;
        t->dims[pa->dim_index] = value;
    }
    return 0;
}

/* A test's "scalars": values for some float parameters; the others keep
 * the value their parameter declares. */
static int load_test_scalars(struct problem_loader *ld, json_t *jt, const char *path,
                             struct test_case *t)
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *key;
    json_t *obj = json_object_get(jt, "scalars"), *v;

    for (int i = 0; i < p->n_params; i++)
        t->scalars[i] = p->params[i].value;
    if (!obj)
        return 0;
    jsonget_path_key(fp, path, "scalars");
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "%s: must be an object", fp);
    json_object_foreach(obj, key, v)
    {
        int i = problem_find_param(p, key);

        if (i < 0 || p->params[i].kind != PARAM_FLOAT)
            return problem_loader_bad(ld, "%s: '%s' is not a float or double parameter", fp, key);
        if (problem_loader_scalar(ld, obj, fp, key, &p->params[i], &t->scalars[i]) != 0)
            return -1;
    }
    return 0;
}

static int load_test_null(struct problem_loader *ld, json_t *jt, const char *path,
                          struct test_case *t)
{
    const struct problem *p = ld->p;
    json_t *arr = json_object_get(jt, "null"), *v;
    char fp[JSONGET_PATH_LEN];
    size_t k;

    if (!arr)
        return 0;
    jsonget_path_key(fp, path, "null");
    if (!json_is_array(arr))
        return problem_loader_bad(ld, "%s: must be an array of tensor names", fp);
    json_array_foreach(arr, k, v)
    {
        int i;

        if (!json_is_string(v))
            return problem_loader_bad(ld, "%s[%zu]: must be a string", fp, k);
        i = problem_find_param(p, json_string_value(v));
        if (i < 0 || p->params[i].kind != PARAM_TENSOR)
            return problem_loader_bad(ld, "%s[%zu]: '%s' is not a tensor parameter", fp, k,
                                      json_string_value(v));
        if (!p->params[i].nullable)
            return problem_loader_bad(ld, "%s[%zu]: '%s' is not nullable", fp, k,
                                      p->params[i].name);
        if (t->is_null[i])
            return problem_loader_bad(ld, "%s[%zu]: '%s' listed twice", fp, k, p->params[i].name);
        t->is_null[i] = true;
    }
    return 0;
}

/* What a test and a benchmark size share: name (unique among cases[0..idx)),
 * dims, null tensors, scalars, generator overrides and limits (defaulting
 * to *limits). */
static int load_case(struct problem_loader *ld, json_t *jt, const char *path,
                     struct test_case *cases, size_t idx, const char *array, const char *what,
                     const struct problem_limits *limits)
{
    struct problem *p = ld->p;
    struct test_case *t = &cases[idx];
    char msg[PROBLEM_ERR_LEN];
    const char *name;
    json_t *v;

    if (jsonget_string(jt, path, "name", true, &name, ld->err, ld->errlen) != 0)
        return -1;
    if (!names_test_valid(name))
        return problem_loader_bad(
            ld, "%s.name: '%s' must match [a-z0-9][a-z0-9_-]* (at most %d characters)", path, name,
            NAMES_MAX_LEN);
    for (size_t k = 0; k < idx; k++)
        if (cases[k].name && strcmp(cases[k].name, name) == 0)
            return problem_loader_bad(ld, "%s.name: duplicate %s name '%s' (also %s[%zu])", path,
                                      what, name, array, k);
    t->name = problem_loader_strdup(ld, name);
    if (!t->name)
        return -1;

    t->dims = calloc((size_t)p->n_dims + 1, sizeof *t->dims);
    if (!t->dims)
        return problem_loader_bad(ld, "out of memory");
    if (load_test_dims(ld, jt, path, t) != 0 || load_test_null(ld, jt, path, t) != 0 ||
        load_test_scalars(ld, jt, path, t) != 0)
        return -1;

    for (int i = 0; i < p->n_params; i++)
        t->gen[i] = p->params[i].gen;
    if ((v = json_object_get(jt, "generators")) != NULL) {
        char fp[JSONGET_PATH_LEN];

        jsonget_path_key(fp, path, "generators");
        if (problem_loader_generators(ld, v, fp, t->gen) != 0)
            return -1;
    }

    t->limits = *limits;
    if ((v = json_object_get(jt, "limits")) != NULL) {
        char fp[JSONGET_PATH_LEN];

        jsonget_path_key(fp, path, "limits");
        if (problem_loader_limits(ld, v, fp, &t->limits) != 0)
            return -1;
    }

    if (dims_check(p, t->dims, msg, sizeof msg) != 0)
        return problem_loader_bad(ld, "%s: %s", path, msg);
    return 0;
}

static int load_test(struct problem_loader *ld, json_t *jt, size_t idx)
{
    static const char *const keys[] = {"name",       "kind", "seed",   "dims",    "weight",
                                       "generators", "null", "limits", "scalars", NULL};
    struct problem *p = ld->p;
    struct test_case *t = &p->tests[idx];
    char path[JSONGET_PATH_LEN];
    const char *kind;
    json_t *v;
    int64_t n;

    jsonget_path_index(path, "tests", idx);
    if (!json_is_object(jt))
        return problem_loader_bad(ld, "%s: must be an object", path);
    if (jsonget_keys(jt, path, keys, ld->err, ld->errlen) != 0)
        return -1;
    if (load_case(ld, jt, path, p->tests, idx, "tests", "test", &p->limits) != 0)
        return -1;

    if (jsonget_string(jt, path, "kind", true, &kind, ld->err, ld->errlen) != 0)
        return -1;
    int k = problem_test_kind_from_name(kind);
    if (k < 0)
        return problem_loader_bad(ld, "%s.kind: '%s' is not '%s' or '%s'", path, kind,
                                  problem_test_kind_name(TEST_SAMPLE),
                                  problem_test_kind_name(TEST_HIDDEN));
    t->kind = (enum test_kind)k;

    /* A hidden seed written in the package would be public to anyone who
     * can read the package; hidden seeds come from the deployment secret. */
    v = json_object_get(jt, "seed");
    if (t->kind == TEST_HIDDEN && v)
        return problem_loader_bad(ld, "%s: hidden tests must not carry a seed", path);
    if (t->kind == TEST_SAMPLE) {
        if (!v)
            return problem_loader_bad(ld, "%s: sample tests need a 'seed'", path);
        if (jsonget_int(jt, path, "seed", 0, INT64_MAX, &n, ld->err, ld->errlen) != 0)
            return -1;
        t->has_seed = true;
        t->seed = (uint64_t)n;
    }

    t->weight = 1;
    if (json_object_get(jt, "weight")) {
        if (jsonget_int(jt, path, "weight", 1, PROBLEM_MAX_WEIGHT, &n, ld->err, ld->errlen) != 0)
            return -1;
        t->weight = (int)n;
    }
    return 0;
}

/* Each test is checked on its own: one test's error does not hide
 * another's. */
int problem_load_tests(struct problem_loader *ld, json_t *arr)
{
    struct problem *p = ld->p;
    size_t i;
    json_t *jt;
    int rc = 0;

    if (!arr)
        return jsonget_missing("", "tests", ld->err, ld->errlen);
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return problem_loader_bad(ld, "tests: must be a non-empty array");
    if (json_array_size(arr) > PROBLEM_MAX_TESTS)
        return problem_loader_bad(ld, "tests: more than %d tests", PROBLEM_MAX_TESTS);
    p->tests = calloc(json_array_size(arr), sizeof *p->tests);
    if (!p->tests)
        return problem_loader_bad(ld, "out of memory");
    p->n_tests = json_array_size(arr);
    json_array_foreach(arr, i, jt)
    {
        if (load_test(ld, jt, i) != 0) {
            problem_loader_note(ld);
            rc = -1;
        }
    }
    return rc;
}

/* ---- benchmark sizes ----------------------------------------------------- */

/* An integer expression over the dimensions, for the FLOP and byte counts:
 * every name must be a dimension, and the value at every size positive. */
static int load_count_expr(struct problem_loader *ld, json_t *obj, const char *key, struct expr **e,
                           char **text)
{
    char path[JSONGET_PATH_LEN];
    const char *s;

    jsonget_path_key(path, "benchmark", key);
    if (jsonget_string(obj, "benchmark", key, true, &s, ld->err, ld->errlen) != 0)
        return -1;
    if (problem_loader_dim_expr(ld, s, path, e) != 0)
        return -1;
    return (*text = problem_loader_strdup(ld, s)) ? 0 : -1;
}

/* The limits a size gets unless it sets its own: benchmark sizes are
 * realistic, many times a test's, so ten times the problem's time (the
 * memory limit stays: in some problems it is the point). */
static struct problem_limits bench_default_limits(const struct problem_limits *l)
{
    struct problem_limits b = *l;
    b.cpu_ms = l->cpu_ms * 10 < LIMIT_MAX_CPU_MS ? l->cpu_ms * 10 : LIMIT_MAX_CPU_MS;
    b.wall_ms = l->wall_ms * 10 < LIMIT_MAX_WALL_MS ? l->wall_ms * 10 : LIMIT_MAX_WALL_MS;
    return b;
}

int problem_load_benchmark(struct problem_loader *ld, json_t *obj)
{
    static const char *const keys[] = {"flops", "bytes", "sizes", NULL};
    static const char *const size_keys[] = {"name",   "dims",    "generators", "null",
                                            "limits", "scalars", NULL};
    struct problem *p = ld->p;
    struct problem_benchmark *b = &p->bench;
    struct problem_limits lim = bench_default_limits(&p->limits);
    json_t *arr, *js;
    size_t i;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "benchmark: must be an object");
    if (jsonget_keys(obj, "benchmark", keys, ld->err, ld->errlen) != 0)
        return -1;
    if (load_count_expr(ld, obj, "flops", &b->flops, &b->flops_text) != 0 ||
        load_count_expr(ld, obj, "bytes", &b->bytes, &b->bytes_text) != 0)
        return -1;
    arr = json_object_get(obj, "sizes");
    if (!arr)
        return jsonget_missing("benchmark", "sizes", ld->err, ld->errlen);
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > PROBLEM_MAX_BENCH_SIZES)
        return problem_loader_bad(ld, "benchmark.sizes: must be an array of 1 to %d sizes",
                                  PROBLEM_MAX_BENCH_SIZES);
    b->sizes = calloc(json_array_size(arr), sizeof *b->sizes);
    if (!b->sizes)
        return problem_loader_bad(ld, "out of memory");
    b->n_sizes = json_array_size(arr);
    json_array_foreach(arr, i, js)
    {
        char path[JSONGET_PATH_LEN], msg[PROBLEM_ERR_LEN];
        int64_t flops, bytes;

        jsonget_path_index(path, "benchmark.sizes", i);
        if (!json_is_object(js))
            return problem_loader_bad(ld, "%s: must be an object", path);
        if (jsonget_keys(js, path, size_keys, ld->err, ld->errlen) != 0 ||
            load_case(ld, js, path, b->sizes, i, "benchmark.sizes", "size", &lim) != 0)
            return -1;
        b->sizes[i].kind = TEST_HIDDEN; /* never shown as a test: a kind for the generators */
        b->sizes[i].weight = 0;
        if (dims_bench_counts(p, b->sizes[i].dims, &flops, &bytes, msg, sizeof msg) != 0)
            return problem_loader_bad(ld, "%s: %s", path, msg);
    }
    return 0;
}
