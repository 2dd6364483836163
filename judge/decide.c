/*
 * decide — a test's verdict and message from its run and outputs
 * (decide.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/decide.h"
#include "judge/dims.h"
#include "judge/explain.h"
#include "util/str.h"

#define ERR_LEN 512
#define HEATMAP_MAX (1 << 20) /* elements of a per-element error map */

enum judge_verdict compare_outputs(const struct problem *p, const struct test_case *tc,
                                   const int64_t *dims, const struct test_data *d,
                                   const unsigned char *expected, const struct harness_result *hr,
                                   struct judge_test_report *tr)
{
    size_t at = 0;
    int k;
    bool pass = true;
    int n_out = 0;

    for (int i = 0; i < p->n_params; i++)
        if (param_is_output(&p->params[i]) && !d->t.is_null[i])
            n_out++;
    tr->tensors = calloc((size_t)(n_out ? n_out : 1), sizeof *tr->tensors);
    if (!tr->tensors)
        return V_INTERNAL_ERROR;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        struct judge_tensor_report *t = &tr->tensors[tr->n_tensors++];
        size_t bytes = (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
        if (!(t->name = str_dup(q->name)))
            return V_INTERNAL_ERROR;
        t->rank = dims_tensor_shape(p, i, dims, t->shape);
        compare_tensor(expected + at, hr->outputs[i], q->dtype, t->shape, t->rank, &p->tol,
                       &t->cmp);
        if (tc->kind == TEST_SAMPLE && q->dtype == DT_F32 && d->t.n_elems[i] <= HEATMAP_MAX) {
            t->abs_err = malloc((size_t)d->t.n_elems[i] * sizeof(float));
            if (!t->abs_err)
                return V_INTERNAL_ERROR;
            for (int64_t e = 0; e < d->t.n_elems[i]; e++) {
                float ev, gv;
                memcpy(&ev, expected + at + (size_t)e * 4, 4);
                memcpy(&gv, hr->outputs[i] + (size_t)e * 4, 4);
                float diff = fabsf(gv - ev);
                /* judge.h: NaN marks an element never written */
                t->abs_err[e] = compare_classify_f32(gv) == CMP_NAN_UNWRITTEN ? NAN
                                : isfinite(diff)                              ? diff
                                                                              : INFINITY;
            }
        }
        if (!t->cmp.pass) {
            pass = false;
            t->message =
                explain_tensor(t->name, t->shape, t->rank, &t->cmp, tc->kind == TEST_SAMPLE);
            if (!t->message)
                return V_INTERNAL_ERROR;
        }
        if (t->cmp.max_abs_err > tr->max_abs_err)
            tr->max_abs_err = t->cmp.max_abs_err;
        if (t->cmp.max_rel_err > tr->max_rel_err)
            tr->max_rel_err = t->cmp.max_rel_err;
        tr->n_mismatch += t->cmp.n_mismatch;
        tr->n_finite += t->cmp.n_finite;
        at += bytes;
    }
    tr->compared = true;
    if (pass)
        return V_ACCEPTED;

    /* every failed output's own message, in signature order */
    for (k = 0; k < tr->n_tensors; k++) {
        const char *m = tr->tensors[k].message;
        if (!m)
            continue;
        char *joined = tr->message ? str_printf("%s; %s", tr->message, m) : str_dup(m);
        free(tr->message);
        tr->message = joined;
        if (!joined)
            return V_INTERNAL_ERROR;
    }
    return V_WRONG_ANSWER;
}

enum judge_verdict classify_run(const struct sbx_result *res, const struct harness_result *hr,
                                const struct problem_limits *lim, char **message)
{
    char text[512];
    switch (res->status) {
    case SBX_TIME_CPU:
        *message = explain_end(EXPLAIN_TIME_CPU, lim->cpu_ms, 0);
        return V_TIME_LIMIT;
    case SBX_TIME_WALL:
        *message = explain_end(EXPLAIN_TIME_WALL, lim->wall_ms, 0);
        return V_TIME_LIMIT;
    case SBX_VIOLATION:
        explain_syscall(res->syscall_name, text, sizeof text);
        *message = str_dup(text);
        return V_SECURITY_VIOLATION;
    case SBX_EXEC_FAILED:
        if (res->exec_errno == ENOMEM || res->exec_errno == E2BIG) {
            *message = explain_end(EXPLAIN_EXEC_NOMEM, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        *message = str_printf("the program could not start: %s", strerror(res->exec_errno));
        return V_INTERNAL_ERROR;
    case SBX_SIGNALED:
        if (hr->nomem) {
            *message = explain_end(EXPLAIN_NO_MEMORY, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        /* a sample test's crash gets more (judge_test); this is a hidden
         * test's, and the start of a sample test's */
        *message = explain_crash(res->signal, NULL, 0, NULL);
        return V_RUNTIME_ERROR;
    case SBX_EXITED:
        if (res->exit_code == 0 && hr->done)
            return V_ACCEPTED;
        if (hr->nomem) {
            *message = explain_end(EXPLAIN_NO_MEMORY, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        *message = explain_end(EXPLAIN_EXIT, res->exit_code, 0);
        return V_RUNTIME_ERROR;
    case SBX_OUTPUT_TOO_BIG:
    case SBX_OUTPUT_MISSING: break; /* compile outcomes, not a run's */
    }
    *message = str_dup("unexpected sandbox status");
    return V_INTERNAL_ERROR;
}

/* A hint for a crash in a sample test of a problem with a mask-like input
 * (the first u8 input tensor): its shape, whether it lacks the batch
 * dimension (the leading dimension of the first output), and whether it may
 * be NULL (when it is NULL in this test, explain_crash says so). Indexing a
 * shared (Tq, Tk) mask per batch, or reading a NULL one, is the usual crash
 * there. Derived from the parameters only; NULL when the problem has no
 * such input or on allocation failure. */
static char *mask_hint(const struct problem *p, const struct test_case *tc)
{
    const struct param *mask = NULL, *out = NULL;
    int mi = -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        if (!mask && q->role == ROLE_IN && q->dtype == DT_U8) {
            mask = q;
            mi = i;
        }
        if (!out && param_is_output(q))
            out = q;
    }
    if (!mask)
        return NULL;
    char shape[160] = "";
    size_t at = 0;
    bool has_batch = false;
    const char *batch = out && out->rank >= 2 ? out->shape_text[0] : NULL;
    for (int k = 0; k < mask->rank && at < sizeof shape; k++) {
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%s", k ? ", " : "",
                               mask->shape_text[k]);
        if (batch && strcmp(mask->shape_text[k], batch) == 0)
            has_batch = true;
    }
    return explain_mask_shape(mask->name, shape, batch && !has_batch ? batch : NULL,
                              mask->nullable && !tc->is_null[mi]);
}

char *sample_crash_message(const struct problem *p, const struct test_case *tc, int sig)
{
    const char *nulls[PROBLEM_MAX_PARAMS];
    int n_nulls = 0;
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_TENSOR && tc->is_null[i])
            nulls[n_nulls++] = p->params[i].name;
    char *hint = mask_hint(p, tc);
    char *m = explain_crash(sig, nulls, n_nulls, hint);
    free(hint);
    return m;
}

/* The sentence after a sample test's crash message: its line in src, or
 * where to find it (crashsite.h). NULL when out of memory. The line is
 * feedback, never the verdict: when the sandbox that reads the line table
 * cannot run, the student is pointed to the sample kit instead. */
char *crash_site_message(int exe, const struct crashsite_source *src,
                         const struct harness_result *hr)
{
    struct crashsite site;
    char why[ERR_LEN];
    int found = hr->crashed ? crashsite_find(exe, src, &hr->crash, &site, why, sizeof why) : 0;
    return crashsite_describe(src, found > 0 ? &site : NULL);
}

/* True if msg reports the machine running out of something (descriptors,
 * memory, processes) rather than a fault. The failures reach here as
 * messages built with strerror() by many layers (sandbox, compile, cache),
 * so they are recognised by the same strerror() texts. */
static bool resource_failure(const char *msg)
{
    static const int resource_errnos[] = {EMFILE, ENFILE, ENOMEM, EAGAIN, ENOBUFS};
    if (strstr(msg, "out of memory"))
        return true;
    for (size_t i = 0; i < sizeof resource_errnos / sizeof resource_errnos[0]; i++)
        if (strstr(msg, strerror(resource_errnos[i])))
            return true;
    return false;
}

void decide_internal(struct judge_report *r, const char *msg)
{
    r->verdict = V_INTERNAL_ERROR;
    r->score = 0;
    r->transient = resource_failure(msg);
    free(r->internal_message);
    r->internal_message = str_dup(msg);
}
