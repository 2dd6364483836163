/*
 * judge — the pipeline: compile, run every test, compare, decide. This file
 * orders the stages, one file each (nsjail's nsjail.cc over its
 * subsystems):
 *
 * 1. Compile (compile.c, elf.c). The student's file, the generated
 *    prototype header and the harness object go into an SBX_COMPILE
 *    sandbox as memfds; the program comes back as a memfd, its ELF headers
 *    read before anything runs: a loader request is a compile_error.
 * 2. The reference (cache.c, toolchain.c). Built the same way from the
 *    package's reference.c and cached under <data>/cache/<key>/, where key
 *    hashes everything that could change its outputs.
 * 3. Each test (testdata.c, decide.c, here: judge_test): inputs from the
 *    seeded generator (hidden seeds from the deployment secret), the
 *    reference's outputs (cache or an SBX_RUN sandbox), the student's
 *    program in a fresh SBX_RUN sandbox with the same inputs, then the
 *    verdict. Expected outputs and seeds never enter a sandbox. Tests run on
 *    idle cores (cores.c); after a fatal test (judge_verdict_is_fatal) the
 *    rest are not run, unless the problem sets run_all_tests.
 * 4. A wrong answer is matched with the package's known mistakes
 *    (diagnose.c).
 *
 * Two kinds of failure never mix: anything the submission did is a verdict;
 * a failure of the judge (the sandbox could not start, the cache could not
 * be written, the reference crashed) is internal_error with a message for
 * the operator, never shown as the student's fault.
 */
#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/cache.h"
#include "judge/compile.h"
#include "judge/cores.h"
#include "judge/decide.h"
#include "judge/diagnose.h"
#include "judge/elf.h"
#include "judge/errbuf.h"
#include "judge/explain.h"
#include "judge/judge.h"
#include "judge/search.h"
#include "judge/testdata.h"
#include "judge/toolchain.h"
#include "sandbox/sandbox.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/str.h"

#define ERR_LEN 512
#define OUTPUT_SHOWN 8192 /* printed text kept per sample test, bytes */

struct probe_job {
    const char *data_dir;
    char *out;
    size_t len;
    char err[ERR_LEN];
    int rc;
};

static void *probe_thread(void *arg)
{
    struct probe_job *j = arg;
    j->rc = toolchain_identify(j->data_dir, j->out, j->len, j->err, sizeof j->err);
    return NULL;
}

struct judge_ctx *judge_open(const char *data_dir, char *err, size_t errlen)
{
    return judge_open_secret(data_dir, NULL, err, errlen);
}

struct judge_ctx *judge_open_secret(const char *data_dir, const char *secret_file, char *err,
                                    size_t errlen)
{
    struct judge_ctx *ctx = NULL;
    char path[4096];

    /* It picks the random source the secret and temporary names come
     * from; failing is no allocation failure and must not read as one. */
    if (sodium_init() < 0) {
        errbuf_set(err, errlen, "cannot initialise libsodium (no usable random source?)");
        return NULL;
    }
    if (!(ctx = calloc(1, sizeof *ctx))) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    ctx->data_dir = strdup(data_dir);
    /* secret_load creates the data directory; with a secret_file of its
     * own, a fresh host's directory is made here */
    if (secret_file && *secret_file && fs_mkdir_p(data_dir, 0700) < 0) {
        errbuf_set(err, errlen, "cannot create %s: %s", data_dir, strerror(errno));
        goto fail;
    }
    if (!ctx->data_dir ||
        (secret_file && *secret_file ? secret_load_file(secret_file, &ctx->secret, err, errlen)
                                     : secret_load(data_dir, &ctx->secret, err, errlen)) < 0)
        goto fail;
    snprintf(path, sizeof path, "%s/cache", data_dir);
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        errbuf_set(err, errlen, "cannot create %s: %s", path, strerror(errno));
        goto fail;
    }
    /* the toolchain probe (when its cached answer is stale) runs only the
     * trusted toolchain (gcc -dump*, ld --version), so it may run beside
     * the self-test, on another core; nothing of a submission runs before
     * the self-test has passed */
    struct probe_job job = {
        .data_dir = ctx->data_dir, .out = ctx->toolchain, .len = sizeof ctx->toolchain};
    pthread_t probe;
    bool threaded = pthread_create(&probe, NULL, probe_thread, &job) == 0;
    char why[400];
    int self = sbx_selftest(why, sizeof why);
    if (threaded)
        pthread_join(probe, NULL);
    else
        probe_thread(&job);
    if (self < 0) {
        errbuf_set(err, errlen, "refusing to judge: the sandbox does not work here: %s", why);
        goto fail;
    }
    if (job.rc < 0) {
        errbuf_set(err, errlen, "%s", job.err);
        goto fail;
    }
    return ctx;
fail:
    judge_close(ctx);
    return NULL;
}

void judge_close(struct judge_ctx *ctx)
{
    if (!ctx)
        return;
    sodium_memzero(&ctx->secret, sizeof ctx->secret);
    free(ctx->data_dir);
    free(ctx);
}

/* Runs one test into tr. When got is not NULL and the test's outputs were
 * compared, *got receives them (outputs_pack's layout), for the diagnosis.
 * src: the file exe was built from, to name the line of a crash on a
 * sample test (NULL: not named). */
static void judge_test(struct judge_ctx *ctx, const struct problem *p, const char *cache,
                       int ref_exe, int exe, const struct crashsite_source *src,
                       const struct test_case *tc, struct judge_test_report *tr, bool *ref_failed,
                       unsigned char **got, char *err, size_t errlen)
{
    struct test_data d;
    unsigned char *expected = NULL;
    struct sbx_result res;
    bool have_res = false;
    uint64_t seed = test_data_seed(ctx, p, tc);

    tr->verdict = V_INTERNAL_ERROR;
    memset(&d, 0, sizeof d);
    d.input_fd = -1;
    int cached = test_data_cached(p, cache, tc, seed, &d, err, errlen);
    if (cached < 0)
        goto out;
    if (cached > 0) {
        if (test_data_make(p, tc->dims, tc->scalars, seed, tc->gen, tc->is_null, &d, err, errlen) <
            0)
            goto out;
        test_data_cache(cache, tc, seed, &d);
    }
    expected = expected_outputs(p, cache, ref_exe, tc->name, seed, &tc->limits, &d, ref_failed, err,
                                errlen);
    if (!expected)
        goto out;

    struct sbx_limits lim;
    struct program_info pi;
    run_limits(&tc->limits, false, &lim);
    /* an image over the limit is killed by the kernel while it starts, or
     * stopped by glibc's TLS allocation: it would look like a crash */
    if (program_inspect(exe, &pi) == 0 && pi.image > lim.memory_bytes) {
        tr->verdict = V_MEMORY_LIMIT;
        tr->message = explain_end(EXPLAIN_IMAGE_TOO_BIG, pi.image >> 20, tc->limits.memory_mb);
        if (!tr->message)
            goto oom;
        goto out;
    }
    if (run_program(exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    have_res = true;
    tr->time_ms = res.cpu_ms;
    tr->wall_ms = res.wall_ms;
    tr->setup_ms = res.setup_ms;
    if (tc->kind == TEST_SAMPLE && res.output_len > 0) {
        size_t n = res.output_len < OUTPUT_SHOWN ? res.output_len : OUTPUT_SHOWN;
        tr->output =
            str_printf("%.*s%s", (int)n, res.output,
                       res.output_len > n || res.output_truncated ? "\n[output truncated]" : "");
        if (!tr->output)
            goto oom;
    }
    struct harness_result hr;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    tr->verdict = classify_run(&res, &hr, &tc->limits, &tr->message);
    if (tr->verdict != V_ACCEPTED && !tr->message)
        goto oom;
    /* only in sample tests: what a student sees of the test's data */
    if (tc->kind == TEST_SAMPLE && tr->verdict == V_RUNTIME_ERROR && res.status == SBX_SIGNALED) {
        char *m = sample_crash_message(p, tc, res.signal);
        if (!m)
            goto oom;
        free(tr->message);
        tr->message = m;
        if (src) {
            if (!(m = crash_site_message(exe, src, &hr)))
                goto oom;
            char *joined = str_printf("%s %s", tr->message, m);
            free(m);
            if (!joined)
                goto oom;
            free(tr->message);
            tr->message = joined;
        }
    }
    if (tr->verdict == V_INTERNAL_ERROR) {
        errbuf_set(err, errlen, "test %s: %s", tc->name, tr->message ? tr->message : "");
        goto out;
    }
    if (tr->verdict != V_ACCEPTED)
        goto out;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (param_is_output(q) && !d.t.is_null[i] && !hr.outputs[i]) {
            tr->verdict = V_WRONG_ANSWER;
            tr->message = explain_end(EXPLAIN_NO_OUTPUTS, 0, 0);
            if (!tr->message)
                goto oom;
            goto out;
        }
    }
    double t0 = clock_mono_ms();
    tr->verdict = compare_outputs(p, tc, tc->dims, &d, expected, &hr, tr);
    tr->compare_ms = clock_mono_ms() - t0;
    if (tr->verdict == V_INTERNAL_ERROR)
        goto oom;
    if (got && !(*got = outputs_pack(p, &d, &hr)))
        goto oom;
    goto out;
oom:
    /* the judge failed, not the submission: never a report with a hole */
    tr->verdict = V_INTERNAL_ERROR;
    errbuf_set(err, errlen, "test %s: out of memory", tc->name);
out:
    if (have_res)
        sbx_result_free(&res);
    free(expected);
    test_data_free(p, &d);
}

/* The counterexample search after every test passed (search.h): a
 * counterexample changes the verdict to its run's and is diagnosed like a
 * failed test. Returns 0, or -1 with err (the judge failed). */
static int judge_search(struct judge_ctx *ctx, const struct problem *p, const char *cache, int ref,
                        int exe, const char *source, size_t len, int64_t budget_ms, int weight_all,
                        struct judge_report *r, char *err, size_t errlen)
{
    uint64_t seed;

    if (search_seed(ctx, p, source, len, &seed) < 0) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    if (search_run(ctx, p, cache, ref, exe, budget_ms, seed, &r->search, err, errlen) < 0)
        return -1;
    if (!r->search.cx)
        return 0;
    r->verdict = r->search.cx->test.verdict;
    /* the counterexample counts as one more test, of weight 1, that failed */
    r->score = r->score * weight_all / (weight_all + 1);
    if (diagnose_counterexample(ctx, p, r->search.cx, &r->diagnosis) < 0) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

struct judge_report *judge_submission(struct judge_ctx *ctx, const struct problem *p,
                                      const char *source, size_t len, const char *filename,
                                      const struct judge_options *opt)
{
    struct judge_report *r = calloc(1, sizeof *r);
    char err[ERR_LEN] = "", name[64], cache[4096];
    int exe = -1, ref = -1;
    /* the submission's outputs per test, kept for the diagnosis */
    unsigned char **got = NULL;
    bool *on = NULL;

    if (!r)
        return NULL;
    double t_start = clock_mono_ms();
    cores_hold(1); /* this judgement's own thread */
    safe_filename(filename, name, sizeof name);
    judge_progress(opt, JUDGE_STAGE_COMPILING, 0, 0);
    struct build b;
    enum compile_outcome c = COMPILE_INTERNAL;
    double t_build = clock_mono_ms();
    int built = build_make(&b, ctx, p, source, len, name, err, sizeof err);
    r->timing.reference_ms = clock_mono_ms() - t_build;
    if (built == 0)
        c = compile_program(p, &b, &exe, &r->compile_log, &r->compile_ms, &r->compile_wall_ms,
                            &r->timing, err, sizeof err);
    build_free(&b);
    if (c == COMPILE_INTERNAL) {
        decide_internal(r, err);
        goto out;
    }
    if (c == COMPILE_FAILED) {
        r->verdict = V_COMPILE_ERROR;
        goto out;
    }
    double t_ref = clock_mono_ms();
    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, sizeof err) < 0) {
        decide_internal(r, err);
        goto out;
    }
    r->timing.reference_ms += clock_mono_ms() - t_ref;

    int n = 0;
    for (size_t i = 0; i < p->n_tests; i++)
        if (!opt || !opt->samples_only || p->tests[i].kind == TEST_SAMPLE)
            n++;
    r->tests = calloc((size_t)(n ? n : 1), sizeof *r->tests);
    if (p->n_mistakes &&
        (!(got = calloc(p->n_tests, sizeof *got)) || !(on = calloc(p->n_tests, sizeof *on)))) {
        decide_internal(r, "out of memory");
        goto out;
    }
    if (!r->tests) {
        decide_internal(r, "out of memory");
        goto out;
    }
    /* the line of a crash on a sample test is named in the file as the
     * student wrote it: the prototype header is force-included as a file
     * of its own, so the student's line numbers are the compiler's */
    const struct crashsite_source src = {name, source, len};
    struct test_run tr_run = {.run_test = judge_test,
                              .ctx = ctx,
                              .p = p,
                              .opt = opt,
                              .cache = cache,
                              .ref = ref,
                              .exe = exe,
                              .src = &src,
                              .tests = r->tests,
                              .n = n,
                              .got = got};
    int weight_all = 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct test_case *tc = &p->tests[i];
        if (opt && opt->samples_only && tc->kind != TEST_SAMPLE)
            continue;
        struct judge_test_report *tr = &r->tests[r->n_tests++];
        tr->name = str_dup(tc->name);
        tr->kind = tc->kind;
        tr->weight = tc->weight;
        tr->cpu_limit_ms = tc->limits.cpu_ms;
        tr->dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
        if (!tr->name || !tr->dims) {
            decide_internal(r, "out of memory");
            goto out;
        }
        memcpy(tr->dims, tc->dims, sizeof(int64_t) * (size_t)p->n_dims);
        weight_all += tc->weight;
    }
    double t_tests = clock_mono_ms();
    if (tests_run(&tr_run, r) < 0)
        goto out;
    r->timing.tests_ms = clock_mono_ms() - t_tests;
    int weight_ok = 0;
    for (int i = 0; i < r->n_tests; i++) {
        r->timing.run_setup_ms += r->tests[i].setup_ms;
        if (r->tests[i].verdict == V_ACCEPTED)
            weight_ok += r->tests[i].weight;
    }
    r->score = weight_all ? 100.0 * weight_ok / weight_all : 0;
    if (got && diagnose(ctx, p, r, got, on) < 0) {
        decide_internal(r, "out of memory");
        goto out;
    }
    int64_t budget = opt && !opt->samples_only ? search_budget(p, opt->search_budget_ms) : 0;
    if (r->verdict == V_ACCEPTED && budget > 0 &&
        judge_search(ctx, p, cache, ref, exe, source, len, budget, weight_all, r, err, sizeof err) <
            0)
        decide_internal(r, err);
out:
    if (got)
        for (size_t i = 0; i < p->n_tests; i++)
            free(got[i]);
    free(got);
    free(on);
    judge_progress(opt, JUDGE_STAGE_DONE, r->n_tests, r->n_tests);
    if (exe >= 0)
        close(exe);
    if (ref >= 0)
        close(ref);
    cores_hold(-1);
    r->timing.judge_ms = clock_mono_ms() - t_start;
    return r;
}

int judge_export_case(struct judge_ctx *ctx, const struct problem *p, const int64_t *dims,
                      uint64_t seed, const struct test_case *tc, judge_emit_fn emit, void *arg,
                      char *err, size_t errlen)
{
    struct test_data d;
    struct gen_spec gens[PROBLEM_MAX_PARAMS];
    bool is_null[PROBLEM_MAX_PARAMS];
    double scalars[PROBLEM_MAX_PARAMS];
    unsigned char *expected = NULL;
    char cache[4096];
    int ref = -1, rc = -1;

    memset(&d, 0, sizeof d);
    d.input_fd = -1;
    for (int i = 0; i < p->n_params; i++) {
        gens[i] = tc ? tc->gen[i] : p->params[i].gen;
        is_null[i] = tc ? tc->is_null[i] : false;
    }
    problem_default_scalars(p, scalars);
    if (dims_check(p, dims, err, errlen) < 0)
        goto out;
    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, errlen) < 0 ||
        test_data_make(p, dims, tc ? tc->scalars : scalars, seed, gens, is_null, &d, err, errlen) <
            0)
        goto out;
    expected = expected_outputs(p, cache, ref, tc ? tc->name : NULL, seed,
                                tc ? &tc->limits : &p->limits, &d, NULL, err, errlen);
    if (!expected)
        goto out;
    size_t at = 0;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        int64_t shape[TENSOR_MAX_RANK];
        if (q->kind != PARAM_TENSOR || d.t.is_null[i])
            continue;
        int rank = dims_tensor_shape(p, i, dims, shape);
        /* an inout tensor twice: its value before the call, then after */
        if ((param_is_input(q) && emit(arg, q, false, shape, rank, d.t.data[i]) < 0) ||
            (param_is_output(q) && emit(arg, q, true, shape, rank, expected + at) < 0)) {
            errbuf_set(err, errlen, "writing %s: %s", q->name, strerror(errno));
            goto out;
        }
        if (param_is_output(q))
            at += (size_t)d.t.n_elems[i] * tensor_dtype_size(q->dtype);
    }
    rc = 0;
out:
    free(expected);
    test_data_free(p, &d);
    if (ref >= 0)
        close(ref);
    return rc;
}

uint64_t judge_test_seed(const struct judge_ctx *ctx, const struct problem *p,
                         const struct test_case *tc)
{
    return test_data_seed(ctx, p, tc);
}
