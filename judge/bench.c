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
#include "judge/cache.h"
#include "judge/compile.h"
#include "judge/cores.h"
#include "judge/decide.h"
#include "judge/errbuf.h"
#include "judge/explain.h"
#include "judge/testdata.h"
#include "util/clock.h"
#include "util/fs.h"

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

/* One benchmark call's measurements: the CPU time (user and system) of
 * each program on the same fresh inputs, from the kernel's accounting of
 * the sandboxed process (wait4), never from anything inside it. The
 * system part counts: the pages a function faults in are its own cost
 * (docs/performance.md). */
struct bench_call {
    double ref_ms, empty_ms, ms;
    /* the submission's run, judged as a hidden test is: V_ACCEPTED when its
     * outputs match the reference's; otherwise the verdict and message */
    enum judge_verdict verdict;
    char *message; /* owned; NULL when accepted */
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

/* Benchmark call k (0, 1, ...) at size: its inputs come from a seed
 * derived from the deployment secret, the size and k, as hidden tests'
 * do, so that every call of a benchmark has inputs of its own that no
 * submission can know, and the reference's outputs for them can be cached
 * (under the size's name and k, while they take no more than
 * BENCH_CACHE_MAX bytes per size). Runs the reference when
 * time_reference is set or its outputs are not cached (timed in the
 * first case only: ref_ms NAN otherwise), then the empty program and the
 * submission, each in a fresh sandbox, and compares the submission's
 * outputs with the reference's. Returns 0 with *call filled (free
 * call->message), or -1 with err when the judge failed (the sandbox, the
 * reference). */
static int bench_call(const struct judge_ctx *ctx, const struct problem *p,
                      const struct test_case *size, int k, bool time_reference,
                      const struct bench_programs *pp, struct bench_call *call, char *err,
                      size_t errlen)
{
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim, ref_lim;
    struct harness_result hr;
    unsigned char *expected = NULL;
    char name[NAMES_MAX_LEN + 32];
    int rc = -1;

    memset(call, 0, sizeof *call);
    call->verdict = V_INTERNAL_ERROR;
    call->ref_ms = NAN;
    /* ':' never appears in a test's name: no seed is a hidden test's */
    snprintf(name, sizeof name, "bench:%s:%d", size->name, k);
    uint64_t seed = secret_hidden_seed(&ctx->secret, p->slug, name);
    if (test_data_make(p, size->dims, size->scalars, seed, size->gen, size->is_null, &d, err,
                       errlen) < 0)
        return -1;
    run_limits(&size->limits, false, &lim);
    run_limits(&size->limits, true, &ref_lim);

    /* the reference's outputs for these inputs: cached while the size's
     * cache stays small, else computed again */
    bool cacheable = (long long)d.out_bytes * (k + 1) <= BENCH_CACHE_MAX;
    if (!time_reference) {
        expected = expected_outputs(p, pp->cache, pp->ref, cacheable ? name : NULL, seed,
                                    &size->limits, &d, NULL, err, errlen);
        if (!expected)
            goto out;
    } else {
        if (run_program(pp->ref, &d, &ref_lim, &res, err, errlen) < 0)
            goto out;
        harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
        if (res.status != SBX_EXITED || res.exit_code != 0 || !hr.done || hr.malformed) {
            char why[256];
            reference_failure(&res, &ref_lim, &hr, why, sizeof why);
            errbuf_set(err, errlen, "problem %s: the reference %s at benchmark size '%s'", p->slug,
                       why, size->name);
            sbx_result_free(&res);
            goto out;
        }
        call->ref_ms = res.cpu_ms;
        expected = outputs_pack(p, &d, &hr);
        sbx_result_free(&res);
        if (!expected) {
            errbuf_set(err, errlen, "out of memory");
            goto out;
        }
        char path[4300];
        snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".out", pp->cache, name, seed);
        if (cacheable && fs_write_atomic(path, expected, d.out_bytes, 0600) < 0) {
            /* a cache that cannot be written only costs time */
        }
    }

    /* the empty function: the overhead every run of this size carries */
    if (run_program(pp->empty, &d, &ref_lim, &res, err, errlen) < 0)
        goto out;
    call->empty_ms = res.cpu_ms;
    bool empty_ok = res.status == SBX_EXITED && res.exit_code == 0;
    sbx_result_free(&res);
    if (!empty_ok) {
        errbuf_set(err, errlen, "problem %s: the empty program failed at size '%s'", p->slug,
                   size->name);
        goto out;
    }

    /* the submission, on the same inputs, checked like a hidden test */
    if (run_program(pp->exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    call->ms = res.cpu_ms;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    call->verdict = classify_run(&res, &hr, &size->limits, &call->message);
    if (call->verdict == V_ACCEPTED) {
        struct judge_test_report tr;
        memset(&tr, 0, sizeof tr);
        bool all = true;
        for (int i = 0; i < p->n_params; i++)
            if (param_is_output(&p->params[i]) && !d.t.is_null[i] && !hr.outputs[i])
                all = false;
        if (!all) {
            call->verdict = V_WRONG_ANSWER;
            call->message = explain_end(EXPLAIN_NO_OUTPUTS, 0, 0);
        } else {
            call->verdict = compare_outputs(p, size, size->dims, &d, expected, &hr, &tr);
            call->message = tr.message;
            tr.message = NULL;
            judge_test_report_clear(&tr);
        }
    }
    sbx_result_free(&res);
    if (call->verdict == V_INTERNAL_ERROR) {
        errbuf_set(err, errlen, "size %s: %s", size->name,
                   call->message ? call->message : "out of memory");
        goto out;
    }
    if (call->verdict != V_ACCEPTED && !call->message) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) {
        free(call->message);
        call->message = NULL;
        call->verdict = V_INTERNAL_ERROR;
    }
    free(expected);
    test_data_free(p, &d);
    return rc;
}

/* Measures one size into sr. Returns 0 (sr->status says how it went; a
 * failed call's verdict and message go to r), or -1 with err. */
static int bench_size(const struct judge_ctx *ctx, const struct problem *p,
                      const struct test_case *size, const struct bench_programs *pp,
                      const struct bench_options *opt, struct bench_size_report *sr,
                      struct bench_report *r, char *err, size_t errlen)
{
    int cap = opt->max_calls < 1                 ? 1
              : opt->max_calls > BENCH_MAX_CALLS ? BENCH_MAX_CALLS
                                                 : opt->max_calls;
    /* per timed call: the submission's time, the empty function's; and on
     * the calls that timed it, the reference's with that call's empty one */
    double ms[BENCH_MAX_CALLS], empty_ms[BENCH_MAX_CALLS], ref_ms[BENCH_MAX_CALLS],
        ref_empty_ms[BENCH_MAX_CALLS];
    double tmp[BENCH_MAX_CALLS], floor_ms = bench_time_floor_ms(sr->flops, &r->peak);
    double started = clock_mono_ms(), ref_spent = 0;
    int n = 0, n_ref = 0;

    for (int call_no = -1; n < cap; call_no++) {
        struct bench_call call;
        if (opt->should_stop && opt->should_stop(opt->stop_arg)) {
            r->interrupted = true;
            snprintf(err, errlen, "interrupted");
            return -1;
        }
        /* The reference is timed on the first three timed calls (the
         * fewest a median means anything with: one call's figure is one
         * draw of the empty function's noise), and on later ones while it
         * has taken under a quarter of the budget: its time (for the
         * speedup) is measured in this run, but a slow reference must not
         * use up the calls the submission's median needs. On the other
         * calls its outputs come from the cache. */
        bool time_ref = call_no >= 0 && (n_ref < 3 || ref_spent < opt->budget_ms / 4);
        if (bench_call(ctx, p, size, call_no + 1, time_ref, pp, &call, err, errlen) < 0)
            return -1;
        if (call.verdict != V_ACCEPTED) {
            sr->status = call.verdict == V_TIME_LIMIT ? BENCH_TIME_LIMIT : BENCH_FAILED;
            if (sr->status == BENCH_FAILED) {
                r->verdict = call.verdict;
                r->message = call.message;
                r->failed_size = strdup(size->name);
                call.message = NULL;
            }
            free(call.message);
            return 0;
        }
        /* the warm-up: checked, not counted; a call of over a second
         * warms nothing that matters and counts */
        if (call_no < 0 && call.ms < WARMUP_MAX_MS)
            continue;
        ms[n] = call.ms;
        empty_ms[n] = call.empty_ms;
        if (time_ref) {
            ref_ms[n_ref] = call.ref_ms;
            ref_empty_ms[n_ref++] = call.empty_ms;
            ref_spent += call.ref_ms;
        }
        n++;
        /* at least min_calls, or three when the budget runs out first (a
         * slow size): the fewest a median and a CV mean anything with */
        if (n < 3 || (n < opt->min_calls && clock_mono_ms() - started <= opt->budget_ms))
            continue;
        double med, min, cv;
        bench_paired_stats(ms, empty_ms, n, floor_ms, &med, &min, &cv);
        /* A median at the floor has a CV of 0 that says nothing: the
         * function is lost in the overhead's noise, and only more calls
         * can find it. */
        if ((cv < opt->cv_target && med > floor_ms) || clock_mono_ms() - started > opt->budget_ms)
            break;
    }
    double lo, ref_cv;
    memcpy(tmp, empty_ms, sizeof(double) * (size_t)n);
    sr->overhead_ms = median(tmp, n);
    sr->calls = n;
    sr->ref_calls = n_ref;
    bench_paired_stats(ms, empty_ms, n, floor_ms, &sr->median_ms, &sr->min_ms, &sr->cv);
    if (sr->median_ms <= floor_ms) {
        /* half the calls or more came out at the floor, no longer than
         * the empty function: any figure would be the noise's */
        sr->status = BENCH_UNRESOLVED;
        return 0;
    }
    bench_paired_stats(ref_ms, ref_empty_ms, n_ref, floor_ms, &sr->ref_median_ms, &lo, &ref_cv);
    if (sr->ref_median_ms <= floor_ms)
        sr->ref_median_ms = NAN; /* the same, for the reference: no speedup */
    sr->gflops = (double)sr->flops / (sr->median_ms * 1e6);
    sr->gbs = (double)sr->bytes / (sr->median_ms * 1e6);
    sr->intensity = (double)sr->flops / (double)sr->bytes;
    sr->speedup = sr->ref_median_ms / sr->median_ms;
    sr->status = BENCH_DONE;
    return 0;
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
