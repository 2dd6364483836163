/*
 * bench — the benchmark phase: an accepted submission timed at the
 * package's benchmark sizes (docs/performance.md).
 *
 * Every call is a fresh sandboxed process on inputs of its own (seeded from
 * the deployment secret and the call's number) with fresh poisoned outputs,
 * its time the process's CPU clock read by the judge around the function
 * alone (judge/bench_session.h), and its outputs checked against the
 * reference's on the same inputs. So nothing the submission does inside
 * its address space (interposing clock_gettime, caching a result, spotting
 * the warm-up, forging the harness's records) can change what is measured,
 * and a wrong answer at a benchmark size is a wrong answer. The empty
 * function's time (the measurement's own overhead, a few microseconds) is
 * measured per size and subtracted, and some calls run the reference timed
 * (for the speedup).
 */
#ifndef ATTNJUDGE_BENCH_H
#define ATTNJUDGE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/judge.h"
#include "judge/machine.h"
#include "util/compiler.h"

struct bench_options {
    double budget_ms; /* wall time per size after which no call starts
                         (the reference's timed runs not counted) */
    int min_calls;    /* timed calls per size at least (after one warm-up) */
    int max_calls;    /* ... and at most */
    double cv_target; /* stop once the coefficient of variation is below */
    /* Asked before every call, may be NULL: true ends the benchmark at
     * once, interrupted (a server shutting down). */
    bool (*should_stop)(void *arg);
    void *stop_arg;
};

/* 6 s per size, 5 to 30 calls, CV 2 %. */
void bench_options_default(struct bench_options *o);

enum bench_size_status {
    BENCH_DONE,       /* measured */
    BENCH_TIME_LIMIT, /* a call ran out of the size's time: not measured */
    /* the function's time could not be told from the empty function's
     * (median at the floor: docs/performance.md): not measured */
    BENCH_UNRESOLVED,
    BENCH_FAILED,  /* a call failed (see the report's verdict) */
    BENCH_NOT_RUN, /* an earlier size failed */
};

struct bench_size_report {
    char *name;
    int64_t *dims; /* [problem->n_dims] */
    enum bench_size_status status;
    int calls;                 /* timed calls */
    double median_ms;          /* the submission's CPU time per call, less the empty one's */
    double min_ms, cv;         /* cv: standard deviation / mean of those times */
    double ref_median_ms;      /* the reference's, the same way, over ref_calls calls */
    int ref_calls;             /* calls on which the reference was timed too */
    bool ref_kept;             /* ...in an earlier benchmark of the size (kept) */
    double overhead_ms;        /* the empty function's median, subtracted from each call */
    uint32_t heap_mib;         /* the heap made ready for the last timed call (MiB) */
    int64_t flops, bytes;      /* one call's, from the package's formulas */
    double gflops;             /* flops / median */
    double peak_fraction;      /* gflops / the FMA peak */
    double gbs;                /* bytes / median, GB/s: the memory side */
    double bandwidth_fraction; /* gbs / the measured bandwidth */
    double intensity;          /* flops / bytes: the roofline's x */
    double speedup;            /* ref_median / median */
};

struct bench_report {
    /* V_ACCEPTED: every checked call matched (a size may still be over its
     * time); otherwise the first failing call's verdict and message. */
    enum judge_verdict verdict;
    char *message;
    char *failed_size; /* the size of that call */
    char *internal_message;
    bool interrupted; /* should_stop said so: nothing was measured to the end */
    struct bench_size_report *sizes;
    int n_sizes;
    /* geometric mean of median_ms over the sizes, the leaderboard's key;
     * 0 unless every size was measured */
    double geomean_ms;
    struct machine_peak peak;
};

/* Benchmarks source (already accepted by judge_submission) at every
 * benchmark size of p. Always returns a report (bench_report_free), NULL
 * only when out of memory; a problem without sizes gives an accepted
 * report with none. */
struct bench_report *judge_benchmark(struct judge_ctx *ctx, const struct problem *p,
                                     const char *source, size_t len, const char *filename,
                                     const struct bench_options *opt,
                                     const struct machine_peak *peak) MUST_CHECK;

void bench_report_free(struct bench_report *r);

/* Timed calls per size at most, whatever the options say. */
#define BENCH_MAX_CALLS 100

/* The least time a call can take (ms): no code does flops FLOPs faster
 * than the machine's FMA peak (unknown: fma_gflops 0), and no time is
 * finer than a microsecond. A call measured under it measured the
 * overhead's noise, not the function. */
double bench_time_floor_ms(int64_t flops, const struct machine_peak *peak);

/* Median, minimum and CV of raw[i] - base[i] over n (1..BENCH_MAX_CALLS)
 * calls: each call's time less base[i], the measurement's own time for
 * that call (judge_benchmark passes the empty function's median for every
 * call; one base per call would also cancel what drifts between calls,
 * were the overhead large enough to drift). A difference under floor_ms
 * counts as floor_ms: a median equal to it is unresolved. The CV is
 * estimated robustly, 1.4826 x the median absolute deviation over the
 * median (the standard deviation over the mean for normally distributed
 * times): one call slowed by a neighbour on the machine must not decide
 * whether a measurement is stable (docs/performance.md). */
void bench_paired_stats(const double *raw, const double *base, int n, double floor_ms, double *med,
                        double *min, double *cv);

/* "done", "time_limit", "unresolved", "failed", "not_run". */
const char *bench_size_status_name(enum bench_size_status s);

/* The report as JSON (docs/api.md, "Benchmark"): {"verdict", "message",
 * "failed_size", "geomean_ms", "machine": {...}, "sizes": [{"name",
 * "dims", "status", "calls", "median_ms", "min_ms", "cv", "reference_ms",
 * "reference_calls", "reference_kept", "overhead_ms", "flops", "bytes",
 * "gflops", "peak_fraction", "gbs", "bandwidth_fraction", "intensity",
 * "speedup", "heap_mib"}]}. Returns a new reference, NULL when out of
 * memory. */
json_t *bench_report_json(const struct bench_report *r, const struct problem *p) MUST_CHECK;

/* Whether a report as bench_report_json gives it has every size resolved:
 * false when a size is unresolved, which another measurement may resolve,
 * so an identical source is measured again rather than given these
 * figures (docs/performance.md, "What counts"). */
bool bench_report_json_resolved(const json_t *report);

/* For `problem check`: runs the reference once at benchmark size `size`
 * under the limits a student's program gets there. Returns 0 with its CPU
 * time in *cpu_ms; 1 when the reference fails there (err says how: "the
 * reference ran over its CPU time limit of 5000 ms"); -1 with err when the
 * judge failed. */
int bench_reference_at(struct judge_ctx *ctx, const struct problem *p, const struct test_case *size,
                       double *cpu_ms, char *err, size_t errlen) MUST_CHECK;

#endif
