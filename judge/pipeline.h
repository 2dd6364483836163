/*
 * pipeline — the steps of judge.c that the benchmark (judge/bench.c)
 * reuses, so that a benchmark call is built, run and checked exactly as a
 * test is. Internal to judge/: everything else goes through judge.h and
 * bench.h.
 */
#ifndef ATTNJUDGE_PIPELINE_H
#define ATTNJUDGE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/judge.h"
#include "util/compiler.h"

/* The three programs of a benchmark, as read-only memfds (-1: none). */
struct pipeline_programs {
    int exe;          /* the submission */
    int ref;          /* the package's reference (cached build) */
    int empty;        /* the problem's signature with an empty body (cached build) */
    char cache[4096]; /* the reference's cache directory: expected outputs */
};

/* Compiles source (as judge_submission does) and opens the reference and
 * the empty program. Returns V_ACCEPTED with pp filled (close with
 * pipeline_programs_close); V_COMPILE_ERROR with the compiler's log in
 * err; V_INTERNAL_ERROR with the judge's failure in err. */
enum judge_verdict pipeline_programs(struct judge_ctx *ctx, const struct problem *p,
                                     const char *source, size_t len, const char *filename,
                                     struct pipeline_programs *pp, char *err,
                                     size_t errlen) MUST_CHECK;
void pipeline_programs_close(struct pipeline_programs *pp);

/* One benchmark call's measurements: the CPU time (user and system) of
 * each program on the same fresh inputs, from the kernel's accounting of
 * the sandboxed process (wait4), never from anything inside it. The
 * system part counts: the pages a function faults in are its own cost
 * (docs/performance.md). */
struct pipeline_call {
    double ref_ms, empty_ms, ms;
    /* the submission's run, judged as a hidden test is: V_ACCEPTED when its
     * outputs match the reference's; otherwise the verdict and message */
    enum judge_verdict verdict;
    char *message; /* owned; NULL when accepted */
};

/* Benchmark call k (0, 1, ...) at size: its inputs come from a seed
 * derived from the deployment secret, the size and k, as hidden tests'
 * do, so that every call of a benchmark has inputs of its own that no
 * submission can know, and the reference's outputs for them can be cached
 * (under the size's name and k, while they take no more than
 * PIPELINE_BENCH_CACHE bytes per size). Runs the reference when
 * time_reference is set or its outputs are not cached (timed in the
 * first case only: ref_ms NAN otherwise), then the empty program and the
 * submission, each in a fresh sandbox, and compares the submission's
 * outputs with the reference's. Returns 0 with *call filled (free
 * call->message), or -1 with err when the judge failed (the sandbox, the
 * reference). */
#define PIPELINE_BENCH_CACHE (32LL << 20)
int pipeline_call(const struct judge_ctx *ctx, const struct problem *p,
                  const struct test_case *size, int k, bool time_reference,
                  const struct pipeline_programs *pp, struct pipeline_call *call, char *err,
                  size_t errlen) MUST_CHECK;

/* Counts the calling thread in (delta 1) or out (-1) of the cores the
 * judgements of this process hold: a benchmark holds one while it runs, so
 * that no judgement's tests borrow its core for parallel tests meanwhile. */
void pipeline_core_hold(int delta);

/* For `problem check`: runs the reference once at benchmark size `size`
 * under the limits a student's program gets there. Returns 0 with its CPU
 * time in *cpu_ms; 1 when the reference fails there (err says how: "the
 * reference ran over its CPU time limit of 5000 ms"); -1 with err when the
 * judge failed. */
int pipeline_reference_at(struct judge_ctx *ctx, const struct problem *p,
                          const struct test_case *size, double *cpu_ms, char *err,
                          size_t errlen) MUST_CHECK;

#endif
