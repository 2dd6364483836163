/*
 * bench — timing an accepted submission at realistic sizes (bench.h).
 *
 * Per size: one warm-up call, then timed calls until the coefficient of
 * variation of the submission's times drops below the target (with at
 * least min_calls) or the size's budget is spent. Warm-up and timed calls
 * are the same call (run_call): fresh process, inputs of its own, outputs
 * checked. The warm-up also says how much heap the timed calls find ready
 * before their clock starts (next_heap_mib).
 */
#include <fcntl.h>
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

/* One call of a size, as the hooks of its sessions (bench_session.h)
 * see it: the reference's, the empty function's or the submission's run
 * of call call_no. Each session serves this one call: a process that
 * ever makes one call only cannot keep anything from one call for the
 * next (what a warm-up could tell from the heap it is given gains it
 * nothing: docs/performance.md). */
struct size_call {
    const struct judge_ctx *ctx;
    const struct problem *p;
    const struct test_case *size;
    const struct bench_programs *pp;
    enum { RUN_REFERENCE, RUN_EMPTY, RUN_SUBMISSION } who;
    int call_no;
    uint32_t heap_mib;          /* the heap the harness makes ready for the call */
    uint64_t heap_grew;         /* how far the call grew the heap beyond that */
    double ms;                  /* the call's time: CPU from go to return */
    double ref_ms;              /* the same, of the reference's run of the call */
    unsigned char *expected;    /* the reference's outputs on call_no's inputs */
    enum judge_verdict verdict; /* the submission's call: V_ACCEPTED or why not */
    char *message;
};

/* Benchmark call k (0, 1, ...) of a size: its inputs come from a seed
 * derived from the deployment secret, the size and k, as hidden tests'
 * do, so that every call has inputs of its own that no submission can
 * know, and the reference's outputs for them can be cached (under the
 * size's name and k, while they take no more than BENCH_CACHE_MAX bytes
 * per size). ':' never appears in a test's name: no seed is a hidden
 * test's. */
static uint64_t call_seed(const struct size_call *c, char *name, size_t len)
{
    snprintf(name, len, "bench:%s:%d", c->size->name, c->call_no);
    return secret_hidden_seed(&c->ctx->secret, c->p->slug, name);
}

static bool call_cacheable(const struct size_call *c, const struct test_data *d)
{
    return (long long)d->out_bytes * (c->call_no + 1) <= BENCH_CACHE_MAX;
}

/* bench_session_hooks.inputs; for the submission also the reference's
 * outputs on them, unless its timed run just gave them (from the cache,
 * or by running the reference). */
static int call_inputs(void *arg, int k, struct test_data *d, char *err, size_t errlen)
{
    struct size_call *c = arg;
    const struct test_case *size = c->size;
    char name[NAMES_MAX_LEN + 32];
    uint64_t seed = call_seed(c, name, sizeof name);

    (void)k;
    if (test_data_make(c->p, size->dims, size->scalars, seed, size->gen, size->is_null, d, err,
                       errlen) < 0)
        return -1;
    if (c->who != RUN_SUBMISSION || c->expected)
        return 0;
    c->expected =
        expected_outputs(c->p, c->pp->cache, c->pp->ref, call_cacheable(c, d) ? name : NULL, seed,
                         &size->limits, d, NULL, err, errlen);
    if (!c->expected) {
        test_data_free(c->p, d);
        return -1;
    }
    return 0;
}

/* bench_session_hooks.returned: the reference's outputs kept (and
 * cached), the submission's checked as a hidden test's are. One call per
 * session: always 0. */
static int call_returned(void *arg, int k, const struct test_data *d, double ms,
                         const struct harness_result *hr, char *err, size_t errlen)
{
    struct size_call *c = arg;
    const struct test_case *size = c->size;

    (void)k;
    if (c->who == RUN_REFERENCE)
        c->ref_ms = ms;
    else
        c->ms = ms;
    if (c->who == RUN_REFERENCE) {
        char name[NAMES_MAX_LEN + 32], path[4400];
        uint64_t seed = call_seed(c, name, sizeof name);
        free(c->expected);
        c->expected = outputs_pack(c->p, d, hr);
        if (!c->expected) {
            errbuf_set(err, errlen, "out of memory");
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".out", c->pp->cache, name, seed);
        if (call_cacheable(c, d) && fs_write_atomic(path, c->expected, d->out_bytes, 0600) < 0) {
            /* a cache that cannot be written only costs time */
        }
    }
    if (c->who != RUN_SUBMISSION)
        return 0;
    if (ms > (double)size->limits.cpu_ms) {
        c->verdict = V_TIME_LIMIT;
        return 0;
    }
    struct judge_test_report tr;
    memset(&tr, 0, sizeof tr);
    c->verdict = compare_outputs(c->p, size, size->dims, d, c->expected, hr, &tr);
    c->message = tr.message;
    tr.message = NULL;
    judge_test_report_clear(&tr);
    if (c->verdict == V_INTERNAL_ERROR || (c->verdict != V_ACCEPTED && !c->message)) {
        errbuf_set(err, errlen, "size %s: %s", size->name,
                   c->message ? c->message : "out of memory");
        return -1;
    }
    return 0;
}

/* Runs call c->call_no of program exe (c->who says whose) in a session of
 * its own. Returns 0 with c->ms (and for the submission c->verdict and
 * c->message), or -1 with err: the judge failed, or the reference or the
 * empty program did (the package's fault, never the submission's). */
static int run_call(struct size_call *c, int exe, char *err, size_t errlen)
{
    const struct bench_session_hooks hooks = {c, call_inputs, call_returned};
    struct bench_session_end end;
    struct sbx_limits lim;
    char why[256];

    run_limits(&c->size->limits, c->who != RUN_SUBMISSION, &lim);
    c->verdict = V_ACCEPTED;
    if (bench_session_run(c->p, c->size->dims, c->size->scalars, exe, &lim, c->heap_mib, &hooks,
                          &end, err, errlen) < 0)
        return -1;
    c->heap_grew = end.heap_grew;
    if (end.finished) {
        sbx_result_free(&end.res);
        return 0;
    }
    /* the process ended before its call returned: how, as a hidden
     * test's run would be classified */
    if (c->who == RUN_SUBMISSION) {
        free(c->message);
        c->message = NULL;
        if (end.broke_protocol) {
            c->verdict = V_RUNTIME_ERROR;
            c->message = str_dup("the program broke the harness's protocol in a benchmark "
                                 "call (it wrote on the harness's result channel, or "
                                 "unmapped its tensors)");
        } else {
            c->verdict = classify_run(&end.res, &end.hr, &c->size->limits, &c->message);
        }
        sbx_result_free(&end.res);
        if (c->verdict != V_INTERNAL_ERROR && c->message)
            return 0;
        errbuf_set(err, errlen, "size %s: %s", c->size->name,
                   c->message ? c->message : "out of memory");
        return -1;
    }
    if (end.broke_protocol)
        snprintf(why, sizeof why, "broke the harness's protocol");
    else
        reference_failure(&end.res, &lim, &end.hr, why, sizeof why);
    sbx_result_free(&end.res);
    errbuf_set(err, errlen, "problem %s: the %s %s at benchmark size '%s'", c->p->slug,
               c->who == RUN_REFERENCE ? "reference" : "empty program", why, c->size->name);
    return -1;
}

/* The empty function's calls per size: what remains of their time is the
 * measurement's own (a few microseconds: returning from the wait for the
 * go, sending the return), the same in every call of any program. */
#define EMPTY_CALLS 3

/* The most heap made ready for a call (prepare_heap in
 * judge/harness_rt.c), in MiB, and at most this share of the memory
 * limit: the touching is the program's untimed CPU time, about 6 ms per
 * MiB on the CI machines, paid once per call. */
#define HEAP_MAX_MIB 64
#define HEAP_MAX_SHARE 4

/* The heap the next call of the same program gets: the heap the last
 * one had, and as much again as that call grew it beyond (grew bytes,
 * rounded up to a MiB, plus one for the allocator's own rounding). The
 * first call of a size (the warm-up, for the submission) gets none: it is
 * the one that says how much. A call that stayed inside its heap leaves
 * the size as it was. */
static uint32_t next_heap_mib(uint32_t had, uint64_t grew, const struct sbx_limits *lim)
{
    uint64_t cap = HEAP_MAX_MIB;
    uint64_t share = (uint64_t)lim->memory_bytes / HEAP_MAX_SHARE >> 20;
    if (share < cap)
        cap = share;
    const uint64_t one = 1u << 20;
    uint64_t mib = grew ? had + (grew + one - 1) / one + 1 : had;
    return (uint32_t)(mib < cap ? mib : cap);
}

/* The reference's time at a size does not depend on the submission: it
 * is measured in the first benchmark of the size (on its first three
 * timed calls, and on later ones while under a quarter of the budget) and
 * kept beside the reference's outputs, for this CPU. Later benchmarks
 * take it from there and never run the reference to time it: every
 * speedup at the size is then over the same figure, and the budget goes
 * to the submission's calls. */
#define REF_TIME_MAX 4096 /* bytes: a kept reference time is a short object */

static void ref_time_path(const struct bench_programs *pp, const struct test_case *size, char *path,
                          size_t len)
{
    snprintf(path, len, "%s/bench:%s.reference.json", pp->cache, size->name);
}

/* The kept time: its number of calls (>= 1) with *ms (NAN: it could not
 * be told from the empty function's), or 0 when none is kept for cpu. */
static int ref_time_kept(const struct bench_programs *pp, const struct test_case *size,
                         const char *cpu, double *ms)
{
    char path[4400], *text = NULL;
    size_t len = 0;
    const char *kept_cpu = NULL;
    json_t *v = NULL;
    json_int_t calls = 0;
    int n = 0;

    ref_time_path(pp, size, path, sizeof path);
    /* read as machine.json is (judge/machine.c): not through a link, and
     * only as much as such a file can hold */
    if (fs_read_file(path, O_NOFOLLOW, REF_TIME_MAX, &text, &len) < 0)
        return 0;
    json_t *o = json_loadb(text, len, 0, NULL);
    free(text);
    if (o &&
        json_unpack(o, "{s:s, s:o, s:I}", "cpu", &kept_cpu, "reference_ms", &v, "calls", &calls) ==
            0 &&
        strcmp(kept_cpu, cpu) == 0 && calls >= 1 && calls <= BENCH_MAX_CALLS &&
        (json_is_null(v) || (json_is_real(v) && json_real_value(v) > 0))) {
        *ms = json_is_null(v) ? NAN : json_real_value(v);
        n = (int)calls;
    }
    json_decref(o);
    return n;
}

static void ref_time_keep(const struct bench_programs *pp, const struct test_case *size,
                          const char *cpu, double ms, int calls)
{
    char path[4400];
    ref_time_path(pp, size, path, sizeof path);
    json_t *o = json_pack("{s:s, s:o, s:i}", "cpu", cpu, "reference_ms",
                          isnan(ms) ? json_null() : json_real(ms), "calls", calls);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (text && fs_write_atomic(path, text, strlen(text), 0600) < 0) {
        /* a cache that cannot be written only costs the next benchmark
         * the reference's timed runs */
    }
    free(text);
    json_decref(o);
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
    double ms[BENCH_MAX_CALLS], ref_ms[BENCH_MAX_CALLS], base[BENCH_MAX_CALLS];
    double floor_ms = bench_time_floor_ms(sr->flops, &r->peak);
    double started = clock_mono_ms(), ref_spent = 0, ref_wall = 0, lo, ref_cv;
    struct size_call c = {.ctx = ctx, .p = p, .size = size, .pp = pp};
    struct sbx_limits sub_lim, ref_lim;
    uint32_t sub_heap = 0, ref_heap = 0;
    int n = 0, n_ref = 0, rc = -1;
    double kept_ref_ms = NAN;
    int kept_ref_calls = ref_time_kept(pp, size, r->peak.cpu, &kept_ref_ms);

    run_limits(&size->limits, false, &sub_lim);
    run_limits(&size->limits, true, &ref_lim);
    c.who = RUN_EMPTY;
    for (int i = 0; i < EMPTY_CALLS; i++) {
        if (run_call(&c, pp->empty, err, errlen) < 0)
            return -1;
        base[i] = c.ms;
    }
    sr->overhead_ms = median(base, EMPTY_CALLS);
    for (int i = 0; i < BENCH_MAX_CALLS; i++)
        base[i] = sr->overhead_ms;

    for (int call_no = 0; n < cap; call_no++) {
        if (opt->should_stop && opt->should_stop(opt->stop_arg)) {
            r->interrupted = true;
            snprintf(err, errlen, "interrupted");
            goto out;
        }
        c.call_no = call_no;
        free(c.expected);
        c.expected = NULL;
        /* Unless its time is kept (ref_time_kept), the reference is
         * timed on the first three timed calls (the fewest a median means
         * anything with), and on later ones while it has taken under a
         * quarter of the budget. The budget is the submission's: a slow
         * reference's timed runs (seconds each at a large size) are not
         * charged to it, so they cannot use up the calls the
         * submission's median needs. On the other calls its outputs come
         * from the cache. */
        bool time_ref =
            !kept_ref_calls && call_no > 0 && (n_ref < 3 || ref_spent < opt->budget_ms / 4);
        if (time_ref) {
            double ref_started = clock_mono_ms();
            c.who = RUN_REFERENCE;
            c.heap_mib = ref_heap;
            if (run_call(&c, pp->ref, err, errlen) < 0)
                goto out;
            ref_heap = next_heap_mib(ref_heap, c.heap_grew, &ref_lim);
            ref_wall += clock_mono_ms() - ref_started;
        }
        c.who = RUN_SUBMISSION;
        c.heap_mib = sub_heap;
        if (run_call(&c, pp->exe, err, errlen) < 0)
            goto out;
        sub_heap = next_heap_mib(sub_heap, c.heap_grew, &sub_lim);
        sr->heap_mib = c.heap_mib;
        if (c.verdict != V_ACCEPTED) {
            sr->status = c.verdict == V_TIME_LIMIT ? BENCH_TIME_LIMIT : BENCH_FAILED;
            if (sr->status == BENCH_FAILED) {
                r->verdict = c.verdict;
                r->message = c.message;
                r->failed_size = strdup(size->name);
                c.message = NULL;
            }
            rc = 0;
            goto out;
        }
        free(c.message);
        c.message = NULL;
        /* the warm-up (call 0): checked, not counted; one of over a
         * second warms nothing that matters and counts */
        if (call_no == 0 && c.ms < WARMUP_MAX_MS)
            continue;
        if (time_ref) {
            ref_ms[n_ref++] = c.ref_ms;
            ref_spent += c.ref_ms;
        }
        ms[n++] = c.ms;
        double spent = clock_mono_ms() - started - ref_wall; /* of the budget */
        /* at least min_calls, or three when the budget runs out first (a
         * slow size): the fewest a median and a CV mean anything with */
        if (n < 3 || (n < opt->min_calls && spent <= opt->budget_ms))
            continue;
        double med, min, cv;
        bench_paired_stats(ms, base, n, floor_ms, &med, &min, &cv);
        /* A median at the floor has a CV of 0 that says nothing: the
         * function is lost in the measurement's noise, and only more
         * calls can find it. */
        if ((cv < opt->cv_target && med > floor_ms) || spent > opt->budget_ms)
            break;
    }
    sr->calls = n;
    sr->ref_calls = kept_ref_calls ? kept_ref_calls : n_ref;
    sr->ref_kept = kept_ref_calls > 0;
    sr->ref_median_ms = kept_ref_ms;
    if (!kept_ref_calls && n_ref > 0) {
        bench_paired_stats(ref_ms, base, n_ref, floor_ms, &sr->ref_median_ms, &lo, &ref_cv);
        if (sr->ref_median_ms <= floor_ms)
            sr->ref_median_ms = NAN; /* as for the submission below: no speedup */
        if (n_ref >= 3)
            ref_time_keep(pp, size, r->peak.cpu, sr->ref_median_ms, n_ref);
    }
    bench_paired_stats(ms, base, n, floor_ms, &sr->median_ms, &sr->min_ms, &sr->cv);
    rc = 0;
    if (sr->median_ms <= floor_ms) {
        /* half the calls or more came out at the floor, no longer than
         * the empty function: any figure would be the noise's */
        sr->status = BENCH_UNRESOLVED;
        goto out;
    }
    sr->gflops = (double)sr->flops / (sr->median_ms * 1e6);
    sr->gbs = (double)sr->bytes / (sr->median_ms * 1e6);
    sr->intensity = (double)sr->flops / (double)sr->bytes;
    sr->speedup = sr->ref_median_ms / sr->median_ms;
    sr->status = BENCH_DONE;
out:
    free(c.expected);
    free(c.message);
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
        if (o && (json_object_set_new(o, "reference_calls", json_integer(sr->ref_calls)) < 0 ||
                  json_object_set_new(o, "reference_kept", json_boolean(sr->ref_kept)) < 0 ||
                  json_object_set_new(o, "heap_mib", json_integer(sr->heap_mib)) < 0)) {
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
