/*
 * diagnose — matching a wrong submission's outputs with the package's
 * known mistakes (diagnose.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/cache.h"
#include "judge/diagnose.h"
#include "judge/dims.h"
#include "judge/testdata.h"
#include "util/str.h"

#define ERR_LEN 512

/* True if every output in got (a submission's, outputs_pack's layout) is
 * within the problem's tolerance of the same output in ref (a mistake's),
 * which plays the expected side, as the reference's does in a test. Unlike
 * a test, NaN matches NaN here: a mistake such as a row with no key to
 * attend to produces NaN, and the same NaN is the evidence of the same
 * mistake (got is modified: such elements are zeroed on both sides). */
static bool outputs_match(const struct problem *p, const int64_t *dims, const struct test_data *d,
                          unsigned char *ref, unsigned char *got)
{
    size_t at = 0;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        struct compare_result cmp;
        int64_t shape[TENSOR_MAX_RANK];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        for (int64_t e = 0; q->dtype == DT_F32 && e < d->t.n_elems[i]; e++) {
            float a, b;
            memcpy(&a, ref + at + (size_t)e * 4, 4);
            memcpy(&b, got + at + (size_t)e * 4, 4);
            if (isnan(a) && isnan(b)) {
                memset(ref + at + (size_t)e * 4, 0, 4);
                memset(got + at + (size_t)e * 4, 0, 4);
            }
        }
        int rank = dims_tensor_shape(p, i, dims, shape);
        compare_tensor(ref + at, got + at, q->dtype, shape, rank, &p->tol, &cmp);
        if (!cmp.pass)
            return false;
        at += (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
    }
    return true;
}

/* True if mistake m's outputs match got[] on every test i with on[i] (both
 * indexed like p->tests). The mistake is compiled and its outputs cached
 * like the reference's (package_program, expected_outputs); a mistake that
 * cannot be built or fails on a test is no match: a diagnosis is advice,
 * and never changes a verdict or fails a judgement. */
static bool mistake_matches(const struct judge_ctx *ctx, const struct problem *p,
                            const struct problem_mistake *m, unsigned char *const *got,
                            const bool *on)
{
    char cache[4096], err[ERR_LEN], filename[80];
    int exe = -1;
    bool match = false;

    snprintf(filename, sizeof filename, "%s.c", m->id);
    if (package_program(ctx, p, m->path, filename, cache, sizeof cache, &exe, err, sizeof err) < 0)
        return false;
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct test_case *tc = &p->tests[i];
        struct test_data d;
        unsigned char *out = NULL;
        if (!on[i])
            continue;
        uint64_t seed = test_data_seed(ctx, p, tc);
        if (test_data_make(p, tc->dims, tc->scalars, seed, tc->gen, tc->is_null, &d, err,
                           sizeof err) == 0)
            out = expected_outputs(p, cache, exe, tc->name, seed, &tc->limits, &d, NULL, err,
                                   sizeof err);
        unsigned char *mine = out ? malloc(d.out_bytes ? d.out_bytes : 1) : NULL;
        if (mine)
            memcpy(mine, got[i], d.out_bytes);
        match = mine && outputs_match(p, tc->dims, &d, out, mine);
        free(mine);
        free(out);
        test_data_free(p, &d);
        if (!match)
            break;
    }
    close(exe);
    return match;
}

/* The verdict of test name in r, or V_NOT_RUN when r has no such test. */
static enum judge_verdict report_verdict(const struct judge_report *r, const char *name)
{
    for (int t = 0; t < r->n_tests; t++)
        if (strcmp(r->tests[t].name, name) == 0)
            return r->tests[t].verdict;
    return V_NOT_RUN;
}

/* Sets r->diagnosis to the first listed mistake that matches got[] on
 * every test marked in on[]. Returns 0, or -1 when out of memory. */
static int diagnose_first(const struct judge_ctx *ctx, const struct problem *p,
                          struct judge_report *r, unsigned char *const *got, const bool *on,
                          bool from_hidden)
{
    for (size_t k = 0; k < p->n_mistakes; k++) {
        const struct problem_mistake *m = &p->mistakes[k];
        if (!mistake_matches(ctx, p, m, got, on))
            continue;
        r->diagnosis.mistake = str_dup(m->id);
        r->diagnosis.title = str_dup(m->title);
        r->diagnosis.hint = str_dup(m->hint);
        r->diagnosis.from_hidden = from_hidden;
        return r->diagnosis.mistake && r->diagnosis.title && r->diagnosis.hint ? 0 : -1;
    }
    return 0;
}

int diagnose(const struct judge_ctx *ctx, const struct problem *p, struct judge_report *r,
             unsigned char *const *got, bool *on)
{
    bool wrong_sample = false, all_samples = true, wrong_hidden = false;

    if (r->verdict != V_WRONG_ANSWER || !p->n_mistakes)
        return 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        bool sample = p->tests[i].kind == TEST_SAMPLE;
        bool wrong = report_verdict(r, p->tests[i].name) == V_WRONG_ANSWER;
        all_samples &= !sample || got[i];
        wrong_sample |= sample && wrong;
        on[i] = sample;
    }
    if (wrong_sample && all_samples && diagnose_first(ctx, p, r, got, on, false) < 0)
        return -1;
    if (r->diagnosis.mistake)
        return 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        on[i] = p->tests[i].kind != TEST_SAMPLE &&
                report_verdict(r, p->tests[i].name) == V_WRONG_ANSWER;
        if (on[i] && !got[i])
            return 0; /* a wrong hidden test without outputs: no evidence */
        wrong_hidden |= on[i];
    }
    return wrong_hidden ? diagnose_first(ctx, p, r, got, on, true) : 0;
}

int diagnose_counterexample(const struct judge_ctx *ctx, const struct problem *p,
                            const struct judge_counterexample *cx, struct judge_diagnosis *out)
{
    const struct test_case *tc = &cx->tc;
    char err[ERR_LEN];
    struct test_data d;
    int rc = 0;

    if (!p->n_mistakes)
        return 0;
    if (test_data_make(p, tc->dims, tc->scalars, tc->seed, tc->gen, tc->is_null, &d, err,
                       sizeof err) < 0)
        return 0;
    unsigned char *got = malloc(d.out_bytes ? d.out_bytes : 1);
    if (!got) {
        test_data_free(p, &d);
        return -1;
    }
    for (size_t k = 0; k < p->n_mistakes && !out->mistake; k++) {
        const struct problem_mistake *m = &p->mistakes[k];
        char cache[4096], filename[80];
        int exe = -1;
        size_t at = 0;
        bool complete = true;

        for (int i = 0; i < p->n_params; i++) {
            const struct param *q = &p->params[i];
            if (!param_is_output(q) || d.t.is_null[i])
                continue;
            size_t n = (size_t)d.t.n_elems[i] * tensor_dtype_size(q->dtype);
            if (!cx->actual[i])
                complete = false;
            else
                memcpy(got + at, cx->actual[i], n);
            at += n;
        }
        if (!complete)
            break; /* an output never written: no evidence */
        snprintf(filename, sizeof filename, "%s.c", m->id);
        if (package_program(ctx, p, m->path, filename, cache, sizeof cache, &exe, err, sizeof err) <
            0)
            continue;
        unsigned char *theirs =
            expected_outputs(p, cache, exe, NULL, tc->seed, &tc->limits, &d, NULL, err, sizeof err);
        close(exe);
        if (theirs && outputs_match(p, tc->dims, &d, theirs, got)) {
            out->mistake = str_dup(m->id);
            out->title = str_dup(m->title);
            out->hint = str_dup(m->hint);
            out->from_search = true;
            if (!out->mistake || !out->title || !out->hint)
                rc = -1;
        }
        free(theirs);
    }
    free(got);
    test_data_free(p, &d);
    return rc;
}
