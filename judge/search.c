/*
 * search — the counterexample search (search.h): which inputs run in
 * which order, each run, and the shrinking of what fails. The inputs
 * themselves, candidates inside the domain, are search_inputs.c's.
 *
 * The order, all drawn from one stream seeded by the search's seed:
 *   1. the families: each family, for every listed tensor (dominant at the
 *      first, last, middle and a random position, constant rows, rows far
 *      below and far above zero, the stated extreme magnitude; a mask with
 *      one open key at each position, dense and sparse masks), at sizes
 *      cycling through all-minimum, small, odd and edge (each dim at its
 *      minimum, minimum + 1 or maximum);
 *      These come from a stream of their own, seeded by the secret and the
 *      problem's version alone: every submission meets the same family
 *      inputs, and the reference's outputs on them are cached like a
 *      test's;
 *   2. then, alternately, a random candidate and a mutation of the one with
 *      the largest error/tolerance ratio so far (a dim moved, a family or
 *      its position changed, a scale doubled or halved, a NULL toggled, a
 *      new data seed).
 * The first candidate the submission fails on (wrong_answer, or a crash)
 * is shrunk: each dim is lowered while the submission still fails with the
 * same generators (on the same data, else on up to three fresh draws), so
 * that the counterexample shown is small.
 *
 * A candidate is left out (skipped) when the reference fails on it or
 * gives a non-finite output (the package's problem, never the student's),
 * or when the submission runs out of time or memory on it (a size the
 * tests never asked for; the limits are the tests'). Nothing the search
 * does is a judge failure except the sandbox itself failing.
 */
#include "judge/search.h"

#include <inttypes.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/decide.h"
#include "judge/dims.h"
#include "judge/errbuf.h"
#include "judge/poolkey.h"
#include "judge/search_inputs.h"
#include "judge/testdata.h"
#include "util/clock.h"
#include "util/str.h"

#define SHRINK_MAX 24  /* extra inputs spent making a counterexample small */
#define SHRINK_SEEDS 4 /* data tried per smaller size */
#define WALL_FACTOR 3  /* hard stop at this many times the budget */

#define VERSION_HEX (2 * 16 + 1) /* problem_version's digits and NUL */

/* The problem's version as the search's seeds use it: a hash of its
 * problem.json, in hex. */
static void problem_version(const struct problem *p, char out[VERSION_HEX])
{
    unsigned char h[16];

    crypto_generichash(h, sizeof h, (const unsigned char *)p->json_text, strlen(p->json_text), NULL,
                       0);
    sodium_bin2hex(out, VERSION_HEX, h, sizeof h);
}

/* One input's outcome. */
struct outcome {
    bool skipped;
    bool failed; /* wrong_answer or runtime_error */
    double ratio;
};

struct search {
    const struct judge_ctx *ctx;
    const struct problem *p;
    const char *cache;
    int ref, exe;
    struct search_draws d; /* the stream the inputs after the families are drawn from */
    /* the families' stream: the same for every submission to the problem
     * version, so the reference's outputs on them are cached */
    struct search_draws fam;
    struct judge_search_report *out;
    /* the data and report of the last failing run: the counterexample's,
     * once shrinking is over (no second run, which a submission that is
     * not a function of its inputs could pass) */
    struct judge_counterexample *run;
    double t0, stop_at;
    int max_inputs;
};

/* ---- one input --------------------------------------------------------- */

static void clear_cx(const struct problem *p, struct judge_counterexample *cx)
{
    (void)p;
    judge_test_report_clear(&cx->test);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(cx->input[i]);
        free(cx->expected[i]);
        free(cx->actual[i]);
        cx->input[i] = cx->expected[i] = cx->actual[i] = NULL;
    }
}

/* Copies the run's data into cx (the values shown in full). */
static int keep_data(const struct problem *p, const struct test_data *d,
                     const unsigned char *expected, const struct harness_result *hr,
                     struct judge_counterexample *cx)
{
    size_t at = 0;

    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR || d->t.is_null[i])
            continue;
        size_t bytes = (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
        cx->n_elems[i] = d->t.n_elems[i];
        if (param_is_input(q) && d->t.data[i] && !(cx->input[i] = malloc(bytes ? bytes : 1)))
            return -1;
        if (cx->input[i])
            memcpy(cx->input[i], d->t.data[i], bytes);
        if (!param_is_output(q))
            continue;
        if (!(cx->expected[i] = malloc(bytes ? bytes : 1)))
            return -1;
        memcpy(cx->expected[i], expected + at, bytes);
        if (hr && hr->outputs[i]) {
            if (!(cx->actual[i] = malloc(bytes ? bytes : 1)))
                return -1;
            memcpy(cx->actual[i], hr->outputs[i], bytes);
        }
        at += bytes;
    }
    return 0;
}

/* True if every f32 output of the reference is finite. */
static bool expected_finite(const struct problem *p, const struct test_data *d,
                            const unsigned char *expected)
{
    size_t at = 0;

    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        size_t n = (size_t)d->t.n_elems[i];
        for (size_t e = 0; q->dtype == DT_F32 && e < n; e++) {
            float v;
            memcpy(&v, expected + at + e * 4, 4);
            if (!isfinite(v))
                return false;
        }
        at += n * tensor_dtype_size(q->dtype);
    }
    return true;
}

/* Runs candidate c. With cx, a failing run's data and report go there;
 * with name, the reference's outputs are cached under it (testdata.h).
 * Returns 0 with *o filled, or -1 with err (the judge failed). */
static int try_cand(struct search *s, const struct search_cand *c, struct outcome *o,
                    struct judge_counterexample *cx, const char *name, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim;
    struct harness_result hr;
    struct judge_test_report tr;
    struct test_case tc;
    double scalars[PROBLEM_MAX_PARAMS];
    unsigned char *expected = NULL;
    bool ref_failed = false;
    int rc = -1;

    memset(o, 0, sizeof *o);
    memset(&tr, 0, sizeof tr);
    memset(&tc, 0, sizeof tc);
    problem_default_scalars(p, scalars);
    tc.name = "counterexample";
    tc.kind = TEST_SAMPLE;
    tc.dims = (int64_t *)c->dims;
    tc.limits = p->limits;
    if (test_data_make(p, c->dims, scalars, c->seed, c->gen, c->is_null, &d, err, errlen) < 0)
        return -1;
    expected = expected_outputs(p, s->cache, s->ref, name, c->seed, &p->limits, &d, &ref_failed,
                                err, errlen);
    if (!expected) {
        if (!ref_failed)
            goto out;
        o->skipped = true; /* the package's problem, never the student's */
        rc = 0;
        goto out;
    }
    if (!expected_finite(p, &d, expected)) {
        o->skipped = true;
        rc = 0;
        goto out;
    }
    run_limits(&p->limits, false, &lim);
    if (run_program(s->exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    tr.verdict = classify_run(&res, &hr, &p->limits, &tr.message);
    tr.time_ms = res.cpu_ms;
    tr.wall_ms = res.wall_ms;
    if (tr.verdict == V_ACCEPTED) {
        bool all = true;
        for (int i = 0; i < p->n_params; i++)
            if (param_is_output(&p->params[i]) && !d.t.is_null[i] && !hr.outputs[i])
                all = false;
        if (all)
            tr.verdict = compare_outputs(p, &tc, c->dims, &d, expected, &hr, &tr);
        else
            tr.verdict = V_WRONG_ANSWER;
    }
    switch (tr.verdict) {
    case V_ACCEPTED:
        for (int k = 0; k < tr.n_tensors; k++)
            o->ratio = fmax(o->ratio, tr.tensors[k].cmp.worst_ratio);
        break;
    case V_WRONG_ANSWER:
    case V_RUNTIME_ERROR:
        o->failed = true;
        o->ratio = INFINITY;
        break;
    case V_INTERNAL_ERROR:
        errbuf_set(err, errlen, "the search: %s", tr.message ? tr.message : "out of memory");
        sbx_result_free(&res);
        goto out;
    default: o->skipped = true; break; /* out of time or memory at a size no test has */
    }
    if (o->failed && cx) {
        clear_cx(p, cx);
        cx->test = tr;
        memset(&tr, 0, sizeof tr);
        if (keep_data(p, &d, expected, &hr, cx) < 0) {
            errbuf_set(err, errlen, "out of memory");
            sbx_result_free(&res);
            goto out;
        }
    }
    sbx_result_free(&res);
    rc = 0;
out:
    judge_test_report_clear(&tr);
    free(expected);
    test_data_free(p, &d);
    return rc;
}

/* ---- the search -------------------------------------------------------- */

static bool out_of_budget(const struct search *s)
{
    return s->out->inputs + s->out->skipped >= s->max_inputs || clock_mono_ms() >= s->stop_at;
}

/* Runs c (name: as try_cand's), counting it. Returns 0, or -1 with err. */
static int step(struct search *s, const struct search_cand *c, struct outcome *o, const char *name,
                char *err, size_t errlen)
{
    if (try_cand(s, c, o, s->run, name, err, errlen) < 0)
        return -1;
    if (o->skipped)
        s->out->skipped++;
    else
        s->out->inputs++;
    if (!o->skipped && !o->failed && o->ratio > s->out->worst_ratio)
        s->out->worst_ratio = o->ratio;
    return 0;
}

/* Lowers each dim of the failing c while the submission still fails. */
static int shrink(struct search *s, struct search_cand *c, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    int spent = 0;

    for (int k = 0; k < p->n_dims; k++) {
        while (spent < SHRINK_MAX && c->dims[k] > p->domain.dim_lo[k]) {
            struct search_cand t = *c;
            struct outcome o;
            int64_t lo = p->domain.dim_lo[k], v = c->dims[k];
            /* straight to the minimum first, then halving, then one less */
            int64_t tries[3] = {lo, lo + (v - lo) / 2, v - 1};
            bool smaller = false;
            for (int j = 0; j < 3 && spent < SHRINK_MAX && !smaller; j++) {
                if (tries[j] >= v || (j && tries[j] == tries[j - 1]))
                    continue;
                t.dims[k] = tries[j];
                if (!search_dims_fit(p, t.dims))
                    continue;
                /* the same data first, then fresh data: a smaller size
                 * may drop the very row that failed */
                for (int d = 0; d < SHRINK_SEEDS && spent < SHRINK_MAX && !smaller; d++) {
                    t.seed = d ? gen_next(&s->d.rng) : c->seed;
                    spent++;
                    if (try_cand(s, &t, &o, s->run, NULL, err, errlen) < 0)
                        return -1;
                    if (o.failed) {
                        *c = t;
                        smaller = true;
                    }
                }
            }
            if (!smaller)
                break;
        }
    }
    return 0;
}

/* Makes the counterexample of the failing c, whose run s->run holds: its
 * case beside that run. */
static int make_cx(struct search *s, const struct search_cand *c, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    struct judge_counterexample *cx = s->run;

    s->out->cx = cx;
    s->run = NULL;
    cx->tc.name = str_dup("counterexample");
    cx->tc.kind = TEST_SAMPLE;
    cx->tc.has_seed = true;
    cx->tc.seed = c->seed;
    cx->tc.weight = 1;
    cx->tc.limits = p->limits;
    cx->tc.dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
    cx->how = search_describe(p, c);
    if (!cx->tc.name || !cx->tc.dims || !cx->how)
        goto oom;
    memcpy(cx->tc.dims, c->dims, sizeof(int64_t) * (size_t)p->n_dims);
    memcpy(cx->tc.gen, c->gen, sizeof c->gen);
    memcpy(cx->tc.is_null, c->is_null, sizeof c->is_null);
    problem_default_scalars(p, cx->tc.scalars);
    cx->test.name = str_dup("counterexample");
    cx->test.kind = TEST_SAMPLE;
    cx->test.weight = 0;
    cx->test.cpu_limit_ms = p->limits.cpu_ms;
    cx->test.dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
    if (!cx->test.name || !cx->test.dims)
        goto oom;
    memcpy(cx->test.dims, c->dims, sizeof(int64_t) * (size_t)p->n_dims);
    return 0;
oom:
    errbuf_set(err, errlen, "out of memory");
    return -1;
}

int search_run(const struct judge_ctx *ctx, const struct problem *p, const char *cache, int ref,
               int exe, int64_t budget_ms, uint64_t seed, struct judge_search_report *out,
               char *err, size_t errlen)
{
    struct search s = {.ctx = ctx,
                       .p = p,
                       .cache = cache,
                       .ref = ref,
                       .exe = exe,
                       .d = {.p = p},
                       .fam = {.p = p},
                       .out = out};
    char version[VERSION_HEX], name[64];
    struct search_cand best, c;
    struct outcome o;
    bool have_best = false, found = false;

    memset(out, 0, sizeof *out);
    out->ran = true;
    out->budget_ms = budget_ms;
    s.t0 = clock_mono_ms();
    s.stop_at = s.t0 + (double)budget_ms * WALL_FACTOR;
    if (!(s.run = calloc(1, sizeof *s.run))) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    s.max_inputs = (int)(budget_ms / SEARCH_MS_PER_INPUT);
    if (s.max_inputs < 1)
        s.max_inputs = 1;
    gen_rng_seed(&s.d.rng, seed, 0);
    problem_version(p, version);
    /* ':' never appears in a test's name: no seed is a hidden test's */
    snprintf(name, sizeof name, "search:families:%s", version);
    gen_rng_seed(&s.fam.rng, secret_hidden_seed(&ctx->secret, p->slug, name), 0);

    int n_fam = search_family_total(p), misses = 0;
    for (int k = 0; !found && !out_of_budget(&s) && misses <= s.max_inputs; k++) {
        bool family = k < n_fam;
        if (family) {
            /* no fitting size for this family: a random candidate instead */
            if (!search_family_cand(&s.fam, k, &c))
                search_random_cand(&s.fam, &c);
            snprintf(name, sizeof name, "search:family:%d", k);
        } else if (!have_best || (k - n_fam) % 2 == 0) {
            search_random_cand(&s.d, &c);
        } else {
            search_mutate(&s.d, &best, &c);
        }
        if (!search_dims_fit(p, c.dims)) {
            misses++; /* a domain whose constraints no draw meets */
            continue;
        }
        if (step(&s, &c, &o, family ? name : NULL, err, errlen) < 0)
            goto fail;
        if (o.failed) {
            found = true;
            out->found_ms = clock_mono_ms() - s.t0;
        } else if (!o.skipped && (!have_best || o.ratio >= out->worst_ratio)) {
            best = c;
            have_best = true;
        }
    }
    if (found && (shrink(&s, &c, err, errlen) < 0 || make_cx(&s, &c, err, errlen) < 0))
        goto fail;
    judge_counterexample_free(s.run);
    out->ms = clock_mono_ms() - s.t0;
    return 0;
fail:
    judge_counterexample_free(s.run);
    return -1;
}

int64_t search_budget(const struct problem *p, int64_t server_ms)
{
    if (server_ms <= 0 || !p->domain.present)
        return 0;
    return p->search.has_budget ? p->search.budget_ms : server_ms;
}

int search_seed(const struct judge_ctx *ctx, const struct problem *p, const char *source,
                size_t len, uint64_t *seed)
{
    char key[POOLKEY_LEN + 1], version[VERSION_HEX], name[POOLKEY_LEN + 64];

    if (poolkey_of(source, len, key) < 0)
        return -1;
    problem_version(p, version);
    /* ':' never appears in a test's name: no seed is a hidden test's */
    snprintf(name, sizeof name, "search:%s:%s", key, version);
    *seed = secret_hidden_seed(&ctx->secret, p->slug, name);
    return 0;
}
