/*
 * bench_session — one program serving a benchmark's calls at one size in
 * one sandboxed process (the session protocol of judge/harness_proto.h),
 * each call timed by the process's CPU clock read from outside the
 * sandbox, around the function alone (docs/performance.md).
 */
#ifndef ATTNJUDGE_BENCH_SESSION_H
#define ATTNJUDGE_BENCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/harness.h"
#include "judge/problem.h"
#include "judge/testdata.h"
#include "sandbox/sandbox.h"
#include "util/compiler.h"

/* What the caller decides, call by call. Both run on the session's thread
 * while the program waits (they may run other sandboxes). */
struct bench_session_hooks {
    void *arg;
    /* Call k's fresh inputs into d (test_data_make). 0, or -1 with err:
     * the judge failed. */
    int (*inputs)(void *arg, int k, struct test_data *d, char *err, size_t errlen);
    /* Call k returned. ms: the program's CPU time from the judge's go to
     * its return, read before (and after) the judge copied the inputs in
     * (and the outputs out); hr: its outputs as read from its memory
     * (borrowed, valid for this call). Returns 1 for another call, 0 to
     * end the session, -1 with err when the judge failed. */
    int (*returned)(void *arg, int k, const struct test_data *d, double ms,
                    const struct harness_result *hr, char *err, size_t errlen);
};

/* How a session ended. */
struct bench_session_end {
    int calls;             /* calls that returned */
    uint64_t heap_grew;    /* the most the heap grew in one call, in bytes, as
                              the harness said (the program can say otherwise) */
    bool finished;         /* ended because returned() said so */
    bool broke_protocol;   /* the program sent what the harness never sends
                              there (a record out of turn), or gave memory the
                              judge could not reach: its fault */
    struct sbx_result res; /* how the process ended (sbx_result_free) */
    /* the records after the last call (an allocation refused, a crash),
     * for classify_run; its outputs are never set */
    struct harness_result hr;
};

/* Runs exe under lim (lim->cpu_ms bounds the whole process, lim->wall_ms
 * each wait for it) as a session of calls 0, 1, ... at dims and scalars
 * (indexed by param; borrowed for the run) until hooks->returned says
 * stop or the program ends; the harness makes heap_mib MiB of heap ready
 * before the first call's clock starts (harness_proto.h). Returns 0 with
 * *end filled (free end->res with sbx_result_free), or -1 with err when
 * the judge failed (then nothing to free). */
int bench_session_run(const struct problem *p, const int64_t *dims, const double *scalars, int exe,
                      const struct sbx_limits *lim, uint32_t heap_mib,
                      const struct bench_session_hooks *hooks, struct bench_session_end *end,
                      char *err, size_t errlen) MUST_CHECK;

#endif
