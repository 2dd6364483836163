/*
 * bench — timing an accepted submission at realistic sizes (bench.h).
 *
 * Per size: one warm-up call, then timed calls until the coefficient of
 * variation of the submission's times drops below the target (with at
 * least min_calls) or the size's budget is spent. Warm-up and timed calls
 * are the same call (bench_call): fresh process, inputs of its own,
 * outputs checked; only this file knows which one is the warm-up.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/bench.h"
#include "judge/bench_session.h"
#include "judge/cache.h"
#include "judge/compile.h"
#include "judge/cores.h"
#include "judge/decide.h"
#include "judge/errbuf.h"
#include "judge/explain.h"
#include "judge/testdata.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/str.h"

#define ERR_LEN 512
#define MIN_MS 1e-3 /* the finest time a call is measured to */
#define WARMUP_MAX_MS 1000

void bench_options_default(struct bench_options *o)
{
    o->budget_ms = 6000;
    o->min_calls = 5;
    o->max_calls = 30;
    o->cv_target = 0.02;
    o->should_stop = NULL;
    o->stop_arg = NULL;
}

static const char *const status_names[] = {"done", "time_limit", "unresolved", "failed", "not_run"};

const char *bench_size_status_name(enum bench_size_status s)
{
    return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "?";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (v is sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_paired_stats(const double *raw, const double *base, int n, double floor_ms, double *med,
                        double *min, double *cv)
{
    double t[BENCH_MAX_CALLS], dev[BENCH_MAX_CALLS];
    for (int i = 0; i < n; i++)
        t[i] = raw[i] - base[i] > floor_ms ? raw[i] - base[i] : floor_ms;
    *med = median(t, n); /* sorts t */
    *min = t[0];
    for (int i = 0; i < n; i++)
        dev[i] = fabs(t[i] - *med);
    *cv = n > 1 ? 1.4826 * median(dev, n) / *med : 0;
}

double bench_time_floor_ms(int64_t flops, const struct machine_peak *peak)
{
    double compute_ms = peak->fma_gflops > 0 ? (double)flops / (peak->fma_gflops * 1e6) : 0;
    return compute_ms > MIN_MS ? compute_ms : MIN_MS;
}

/* The three programs of a benchmark, as read-only memfds (-1: none). */
struct bench_programs {
    int exe;          /* the submission */
    int ref;          /* the package's reference (cached build) */
    int empty;        /* the problem's signature with an empty body (cached build) */
    char cache[4096]; /* the reference's cache directory: expected outputs */
};

#define BENCH_CACHE_MAX (32LL << 20)

static void bench_programs_close(struct bench_programs *pp)
{
    int *fds[] = {&pp->exe, &pp->ref, &pp->empty};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

/* Compiles source (as judge_submission does) and opens the reference and
 * the empty program. Returns V_ACCEPTED with pp filled (close with
 * bench_programs_close); V_COMPILE_ERROR with the compiler's log in
 * err; V_INTERNAL_ERROR with the judge's failure in err. */
static enum judge_verdict bench_programs_open(struct judge_ctx *ctx, const struct problem *p,
                                              const char *source, size_t len, const char *filename,
                                              struct bench_programs *pp, char *err, size_t errlen)
{
    char name[64], cache[4096], proto[4096], *log = NULL;
    double cpu, wall;
    struct build b;

    pp->exe = pp->ref = pp->empty = -1;
    pp->cache[0] = '\0';
    safe_filename(filename, name, sizeof name);
    if (build_make(&b, ctx, p, source, len, name, err, errlen) < 0)
        return V_INTERNAL_ERROR;
    enum compile_outcome c = compile_program(p, &b, &pp->exe, &log, &cpu, &wall, NULL, err, errlen);
    build_free(&b);
    if (c == COMPILE_FAILED)
        errbuf_set(err, errlen, "%s", log ? log : "");
    free(log);
    if (c != COMPILED)
        return c == COMPILE_FAILED ? V_COMPILE_ERROR : V_INTERNAL_ERROR;
    if (reference_program(ctx, p, pp->cache, sizeof pp->cache, &pp->ref, err, errlen) < 0)
        goto fail;
    /* the function that does nothing: what remains of its time is the
     * measurement's own (process start, reading the inputs, writing the
     * poisoned outputs back) */
    int n = harness_prototype(p, proto, sizeof proto - 8);
    if (n < 0) {
        errbuf_set(err, errlen, "cannot write the prototype of %s", p->function);
        goto fail;
    }
    memcpy(proto + n, " {}\n", 5);
    if (program_from_text(ctx, p, proto, strlen(proto), "empty.c", cache, sizeof cache, &pp->empty,
                          err, errlen) < 0)
        goto fail;
    return V_ACCEPTED;
fail:
    bench_programs_close(pp);
    return V_INTERNAL_ERROR;
}

/* One size's measurement: what the hooks of its three sessions (the
 * reference's, the empty function's, the submission's) share. */
struct size_run {
    const struct judge_ctx *ctx;
    const struct problem *p;
    const struct test_case *size;
    const struct bench_programs *pp;
    const struct bench_options *opt;
    enum { RUN_REFERENCE, RUN_EMPTY, RUN_SUBMISSION } who;
    double started;             /* ms, monotonic: when the size began (its budget) */
    int cap;                    /* timed calls at most */
    double floor_ms;            /* bench_time_floor_ms of the size */
    double overhead_ms;         /* the empty function's median (the submission's session) */
    double ms[BENCH_MAX_CALLS]; /* the session's timed calls */
    int n;
    unsigned char *expected;    /* the submission's call under way: the reference's outputs */
    enum judge_verdict verdict; /* the submission's first failing call, else V_ACCEPTED */
    char *message;
    bool interrupted;
};

/* Benchmark call k (0, 1, ...) of a size: its inputs come from a seed
 * derived from the deployment secret, the size and k, as hidden tests'
 * do, so that every call has inputs of its own that no submission can
 * know, and the reference's outputs for them can be cached (under the
 * size's name and k, while they take no more than BENCH_CACHE_MAX bytes
 * per size). ':' never appears in a test's name: no seed is a hidden
 * test's. */
static uint64_t call_seed(const struct size_run *sr, int k, char *name, size_t len)
{
    snprintf(name, len, "bench:%s:%d", sr->size->name, k);
    return secret_hidden_seed(&sr->ctx->secret, sr->p->slug, name);
}

static bool call_cacheable(const struct test_data *d, int k)
{
    return (long long)d->out_bytes * (k + 1) <= BENCH_CACHE_MAX;
}

/* bench_session_hooks.inputs; for the submission also the reference's
 * outputs on them (from the cache, or by running the reference). */
static int run_inputs(void *arg, int k, struct test_data *d, char *err, size_t errlen)
{
    struct size_run *sr = arg;
    const struct test_case *size = sr->size;
    char name[NAMES_MAX_LEN + 32];
    uint64_t seed = call_seed(sr, k, name, sizeof name);

    if (test_data_make(sr->p, size->dims, size->scalars, seed, size->gen, size->is_null, d, err,
                       errlen) < 0)
        return -1;
    if (sr->who != RUN_SUBMISSION)
        return 0;
    free(sr->expected);
    sr->expected =
        expected_outputs(sr->p, sr->pp->cache, sr->pp->ref, call_cacheable(d, k) ? name : NULL,
                         seed, &size->limits, d, NULL, err, errlen);
    if (!sr->expected) {
        test_data_free(sr->p, d);
        return -1;
    }
    return 0;
}

/* Whether a session has enough timed calls: at least min_calls, or three
 * when the budget runs out first (a slow size), the fewest a median and
 * a CV mean anything with; the submission's until its CV is below the
 * target too. */
static bool run_enough(const struct size_run *sr)
{
    bool spent = clock_mono_ms() - sr->started > sr->opt->budget_ms;
    if (sr->n >= sr->cap)
        return true;
    if (sr->n < 3 || (sr->n < sr->opt->min_calls && !spent))
        return false;
    if (sr->who == RUN_EMPTY)
        return true;
    if (sr->who == RUN_REFERENCE)
        /* its time (for the speedup) is measured in this run, but a slow
         * reference must not use up the budget the submission needs */
        return true;
    double base[BENCH_MAX_CALLS], med, min, cv;
    for (int i = 0; i < sr->n; i++)
        base[i] = sr->overhead_ms;
    bench_paired_stats(sr->ms, base, sr->n, sr->floor_ms, &med, &min, &cv);
    /* A median at the floor has a CV of 0 that says nothing: the function
     * is lost in the measurement's noise, and only more calls can find
     * it. */
    return (cv < sr->opt->cv_target && med > sr->floor_ms) || spent;
}

/* bench_session_hooks.returned: the reference's outputs cached, the
 * submission's checked as a hidden test's are; the call counted unless it
 * is the warm-up (call 0: checked, not counted; one of over a second
 * warms nothing that matters and counts). */
static int run_returned(void *arg, int k, const struct test_data *d, double ms,
                        const struct harness_result *hr, char *err, size_t errlen)
{
    struct size_run *sr = arg;
    const struct test_case *size = sr->size;

    if (sr->who == RUN_REFERENCE && call_cacheable(d, k)) {
        char name[NAMES_MAX_LEN + 32], path[4400];
        uint64_t seed = call_seed(sr, k, name, sizeof name);
        unsigned char *out = outputs_pack(sr->p, d, hr);
        if (!out) {
            errbuf_set(err, errlen, "out of memory");
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".out", sr->pp->cache, name, seed);
        if (fs_write_atomic(path, out, d->out_bytes, 0600) < 0) {
            /* a cache that cannot be written only costs time */
        }
        free(out);
    }
    if (sr->who == RUN_SUBMISSION) {
        if (ms > (double)size->limits.cpu_ms) {
            sr->verdict = V_TIME_LIMIT;
            return 0;
        }
        struct judge_test_report tr;
        memset(&tr, 0, sizeof tr);
        enum judge_verdict v = compare_outputs(sr->p, size, size->dims, d, sr->expected, hr, &tr);
        if (v == V_INTERNAL_ERROR) {
            errbuf_set(err, errlen, "size %s: %s", size->name,
                       tr.message ? tr.message : "out of memory");
            judge_test_report_clear(&tr);
            return -1;
        }
        if (v != V_ACCEPTED) {
            sr->verdict = v;
            sr->message = tr.message;
            tr.message = NULL;
            judge_test_report_clear(&tr);
            if (!sr->message) {
                errbuf_set(err, errlen, "out of memory");
                return -1;
            }
            return 0;
        }
        judge_test_report_clear(&tr);
    }
    if (k > 0 || ms >= WARMUP_MAX_MS)
        sr->ms[sr->n++] = ms;
    if (sr->opt->should_stop && sr->opt->should_stop(sr->opt->stop_arg)) {
        sr->interrupted = true;
        return 0;
    }
    return run_enough(sr) ? 0 : 1;
}

/* Runs one session of program exe at the size for sr->who into sr->ms.
 * Returns 0 with *end (free end->res), or -1 with err when the judge
 * failed. */
static int run_session(struct size_run *sr, int exe, struct bench_session_end *end, char *err,
                       size_t errlen)
{
    const struct bench_session_hooks hooks = {sr, run_inputs, run_returned};
    struct sbx_limits lim;

    run_limits(&sr->size->limits, sr->who != RUN_SUBMISSION, &lim);
    /* the CPU limit is per call (run_returned), the process's covers them
     * all; the wall clock bounds each call */
    lim.cpu_ms *= sr->cap + 2;
    sr->n = 0;
    return bench_session_run(sr->p, sr->size->dims, sr->size->scalars, exe, &lim, &hooks, end, err,
                             errlen);
}

/* A reference or empty session that did not end as asked: the package's
 * or the judge's failure, never the submission's. */
static int helper_failed(const struct size_run *sr, const struct bench_session_end *end, char *err,
                         size_t errlen)
{
    struct sbx_limits lim;
    char why[256];
    run_limits(&sr->size->limits, true, &lim);
    if (end->broke_protocol)
        snprintf(why, sizeof why, "broke the harness's protocol");
    else
        reference_failure(&end->res, &lim, &end->hr, why, sizeof why);
    errbuf_set(err, errlen, "problem %s: the %s %s at benchmark size '%s'", sr->p->slug,
               sr->who == RUN_REFERENCE ? "reference" : "empty program", why, sr->size->name);
    return -1;
}

/* Measures one size into out. Returns 0 (out->status says how it went; a
 * failed call's verdict and message go to r), or -1 with err. */
static int bench_size(const struct judge_ctx *ctx, const struct problem *p,
                      const struct test_case *size, const struct bench_programs *pp,
                      const struct bench_options *opt, struct bench_size_report *out,
                      struct bench_report *r, char *err, size_t errlen)
{
    struct size_run sr;
    struct bench_session_end end;
    double ref_ms[BENCH_MAX_CALLS], base[BENCH_MAX_CALLS], lo, ref_cv;
    int n_ref, rc = -1;

    memset(&sr, 0, sizeof sr);
    sr.ctx = ctx;
    sr.p = p;
    sr.size = size;
    sr.pp = pp;
    sr.opt = opt;
    sr.started = clock_mono_ms();
    sr.floor_ms = bench_time_floor_ms(out->flops, &r->peak);
    sr.verdict = V_ACCEPTED;

    /* the reference first: its outputs for the first calls are then in
     * the cache, and its time is the speedup's */
    sr.who = RUN_REFERENCE;
    sr.cap = 3;
    if (run_session(&sr, pp->ref, &end, err, errlen) < 0)
        goto out;
    if (!end.finished && !sr.interrupted) {
        helper_failed(&sr, &end, err, errlen);
        sbx_result_free(&end.res);
        goto out;
    }
    sbx_result_free(&end.res);
    n_ref = sr.n;
    memcpy(ref_ms, sr.ms, sizeof(double) * (size_t)n_ref);

    /* the function that does nothing: what remains of its time is the
     * measurement's own, the same in every call of any program */
    sr.who = RUN_EMPTY;
    sr.cap = 5;
    if (!sr.interrupted && run_session(&sr, pp->empty, &end, err, errlen) < 0)
        goto out;
    if (!sr.interrupted) {
        bool ok = end.finished;
        if (!ok)
            helper_failed(&sr, &end, err, errlen);
        sbx_result_free(&end.res);
        if (!ok)
            goto out;
        memcpy(base, sr.ms, sizeof(double) * (size_t)sr.n);
        sr.overhead_ms = median(base, sr.n);
    }

    sr.who = RUN_SUBMISSION;
    sr.cap = opt->max_calls < 1                 ? 1
             : opt->max_calls > BENCH_MAX_CALLS ? BENCH_MAX_CALLS
                                                : opt->max_calls;
    if (!sr.interrupted && run_session(&sr, pp->exe, &end, err, errlen) < 0)
        goto out;
    if (sr.interrupted) {
        r->interrupted = true;
        snprintf(err, errlen, "interrupted");
        goto out;
    }
    if (!end.finished) {
        /* the process ended before its last call: how, as a hidden test's
         * run would be classified */
        char *msg = NULL;
        if (end.broke_protocol) {
            sr.verdict = V_RUNTIME_ERROR;
            msg = str_printf("the program broke the harness's protocol at benchmark call %d "
                             "(it wrote on the harness's result channel, or unmapped its "
                             "tensors)",
                             end.calls);
        } else {
            sr.verdict = classify_run(&end.res, &end.hr, &size->limits, &msg);
        }
        sbx_result_free(&end.res);
        if (sr.verdict == V_INTERNAL_ERROR || !msg) {
            errbuf_set(err, errlen, "size %s: %s", size->name, msg ? msg : "out of memory");
            free(msg);
            goto out;
        }
        free(sr.message);
        sr.message = msg;
    } else {
        sbx_result_free(&end.res);
    }
    if (sr.verdict != V_ACCEPTED) {
        out->status = sr.verdict == V_TIME_LIMIT ? BENCH_TIME_LIMIT : BENCH_FAILED;
        if (out->status == BENCH_FAILED) {
            r->verdict = sr.verdict;
            r->message = sr.message;
            r->failed_size = strdup(size->name);
            sr.message = NULL;
        }
        rc = 0;
        goto out;
    }

    out->overhead_ms = sr.overhead_ms;
    out->calls = sr.n;
    out->ref_calls = n_ref;
    for (int i = 0; i < BENCH_MAX_CALLS; i++)
        base[i] = sr.overhead_ms;
    bench_paired_stats(sr.ms, base, sr.n, sr.floor_ms, &out->median_ms, &out->min_ms, &out->cv);
    rc = 0;
    if (out->median_ms <= sr.floor_ms) {
        /* half the calls or more came out at the floor, no longer than
         * the empty function: any figure would be the noise's */
        out->status = BENCH_UNRESOLVED;
        goto out;
    }
    bench_paired_stats(ref_ms, base, n_ref, sr.floor_ms, &out->ref_median_ms, &lo, &ref_cv);
    if (out->ref_median_ms <= sr.floor_ms)
        out->ref_median_ms = NAN; /* the same, for the reference: no speedup */
    out->gflops = (double)out->flops / (out->median_ms * 1e6);
    out->gbs = (double)out->bytes / (out->median_ms * 1e6);
    out->intensity = (double)out->flops / (double)out->bytes;
    out->speedup = out->ref_median_ms / out->median_ms;
    out->status = BENCH_DONE;
out:
    free(sr.expected);
    free(sr.message);
    return rc;
}

struct bench_report *judge_benchmark(struct judge_ctx *ctx, const struct problem *p,
                                     const char *source, size_t len, const char *filename,
                                     const struct bench_options *opt,
                                     const struct machine_peak *peak)
{
    struct bench_report *r = calloc(1, sizeof *r);
    struct bench_programs pp = {.exe = -1, .ref = -1, .empty = -1};
    char err[ERR_LEN] = "";
    bool stopped = false, all_done = true, holding = false;
    double log_sum = 0;

    if (!r)
        return NULL;
    r->verdict = V_ACCEPTED;
    if (peak)
        r->peak = *peak;
    if (p->bench.n_sizes == 0)
        return r;
    r->sizes = calloc(p->bench.n_sizes, sizeof *r->sizes);
    if (!r->sizes)
        goto oom;
    for (size_t i = 0; i < p->bench.n_sizes; i++) {
        struct bench_size_report *sr = &r->sizes[r->n_sizes++];
        const struct test_case *size = &p->bench.sizes[i];
        sr->status = BENCH_NOT_RUN;
        sr->name = strdup(size->name);
        sr->dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
        if (!sr->name || !sr->dims)
            goto oom;
        memcpy(sr->dims, size->dims, sizeof(int64_t) * (size_t)p->n_dims);
        if (dims_bench_counts(p, size->dims, &sr->flops, &sr->bytes, err, sizeof err) < 0)
            goto internal;
    }

    /* this core is the benchmark's: no judgement's tests borrow it */
    cores_hold(1);
    holding = true;
    enum judge_verdict v = bench_programs_open(ctx, p, source, len, filename, &pp, err, sizeof err);
    if (v != V_ACCEPTED) {
        /* it compiled for the verdict a moment ago: anything else now is
         * the judge's failure, not the submission's */
        goto internal;
    }
    for (int i = 0; i < r->n_sizes && !stopped; i++) {
        struct bench_size_report *sr = &r->sizes[i];
        if (bench_size(ctx, p, &p->bench.sizes[i], &pp, opt, sr, r, err, sizeof err) < 0)
            goto internal;
        if (sr->status == BENCH_FAILED)
            stopped = true;
        if (sr->status != BENCH_DONE)
            all_done = false;
        else {
            log_sum += log(sr->median_ms);
            if (r->peak.fma_gflops > 0)
                sr->peak_fraction = sr->gflops / r->peak.fma_gflops;
            if (r->peak.bandwidth_gbs > 0)
                sr->bandwidth_fraction = sr->gbs / r->peak.bandwidth_gbs;
        }
    }
    if (all_done && !stopped)
        r->geomean_ms = exp(log_sum / r->n_sizes);
    bench_programs_close(&pp);
    cores_hold(-1);
    return r;
internal:
    if (holding)
        cores_hold(-1);
    bench_programs_close(&pp);
    r->verdict = V_INTERNAL_ERROR;
    free(r->internal_message);
    r->internal_message = strdup(err);
    r->geomean_ms = 0;
    return r;
oom:
    snprintf(err, sizeof err, "out of memory");
    goto internal;
}

void bench_report_free(struct bench_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_sizes; i++) {
        free(r->sizes[i].name);
        free(r->sizes[i].dims);
    }
    free(r->sizes);
    free(r->message);
    free(r->failed_size);
    free(r->internal_message);
    free(r);
}

/* A measurement, or null where the size was not measured. */
static json_t *figure(const struct bench_size_report *sr, double v)
{
    return sr->status == BENCH_DONE && isfinite(v) ? json_real(v) : json_null();
}

json_t *bench_report_json(const struct bench_report *r, const struct problem *p)
{
    json_t *sizes = json_array(), *root = NULL;
    json_t *machine = r->peak.fma_gflops > 0 ? machine_peak_json(&r->peak) : json_null();

    if (!sizes || !machine)
        goto fail;
    for (int i = 0; i < r->n_sizes; i++) {
        const struct bench_size_report *sr = &r->sizes[i];
        json_t *dims = json_object();
        for (int k = 0, d = 0; dims && k < p->n_params; k++)
            if (p->params[k].kind == PARAM_INT)
                json_object_set_new(dims, p->params[k].name, json_integer(sr->dims[d++]));
        json_t *o = json_pack(
            "{s:s, s:o*, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:f, "
            "s:o}",
            "name", sr->name, "dims", dims, "status", bench_size_status_name(sr->status), "calls",
            sr->calls, "median_ms", figure(sr, sr->median_ms), "min_ms", figure(sr, sr->min_ms),
            "cv", figure(sr, sr->cv), "reference_ms", figure(sr, sr->ref_median_ms), "overhead_ms",
            figure(sr, sr->overhead_ms), "flops", (json_int_t)sr->flops, "bytes",
            (json_int_t)sr->bytes, "gflops", figure(sr, sr->gflops), "peak_fraction",
            figure(sr, sr->peak_fraction > 0 ? sr->peak_fraction : NAN), "gbs", figure(sr, sr->gbs),
            "bandwidth_fraction",
            figure(sr, sr->bandwidth_fraction > 0 ? sr->bandwidth_fraction : NAN), "intensity",
            (double)sr->flops / (double)sr->bytes, "speedup", figure(sr, sr->speedup));
        if (o && json_object_set_new(o, "reference_calls", json_integer(sr->ref_calls)) < 0) {
            json_decref(o);
            o = NULL;
        }
        if (!o || json_array_append_new(sizes, o) < 0)
            goto fail;
    }
    root = json_pack("{s:s, s:s?, s:s?, s:o, s:o, s:o}", "verdict", judge_verdict_name(r->verdict),
                     "message", r->message, "failed_size", r->failed_size, "geomean_ms",
                     r->geomean_ms > 0 ? json_real(r->geomean_ms) : json_null(), "machine", machine,
                     "sizes", sizes);
    if (root && r->internal_message)
        json_object_set_new(root, "internal_message", json_string(r->internal_message));
    return root;
fail:
    json_decref(sizes);
    json_decref(machine);
    return NULL;
}

bool bench_report_json_resolved(const json_t *report)
{
    size_t i;
    json_t *size;
    json_array_foreach(json_object_get(report, "sizes"), i, size)
    {
        const char *status = json_string_value(json_object_get(size, "status"));
        if (status && strcmp(status, bench_size_status_name(BENCH_UNRESOLVED)) == 0)
            return false;
    }
    return true;
}

int bench_reference_at(struct judge_ctx *ctx, const struct problem *p, const struct test_case *size,
                       double *cpu_ms, char *err, size_t errlen)
{
    char cache[4096];
    int ref = -1, rc = -1;
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim;
    struct harness_result hr;

    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, errlen) < 0)
        return -1;
    if (test_data_make(p, size->dims, size->scalars, test_data_seed(ctx, p, size), size->gen,
                       size->is_null, &d, err, errlen) < 0) {
        close(ref);
        return -1;
    }
    /* the students' limits, not the reference's extra room: the size must
     * leave a solution as fast as the reference room to spare */
    run_limits(&size->limits, false, &lim);
    if (run_program(ref, &d, &lim, &res, err, errlen) == 0) {
        harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
        *cpu_ms = res.cpu_ms;
        if (res.status == SBX_EXITED && res.exit_code == 0 && hr.done && !hr.malformed) {
            rc = 0;
        } else {
            char why[256];
            reference_failure(&res, &lim, &hr, why, sizeof why);
            errbuf_set(err, errlen, "the reference %s", why);
            rc = 1;
        }
        sbx_result_free(&res);
    }
    test_data_free(p, &d);
    close(ref);
    return rc;
}
