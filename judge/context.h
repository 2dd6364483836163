/*
 * context — what every stage of a judgement is given: the judge's shared,
 * read-only state (judge_open makes it) and the caller's options, with the
 * progress stages they report. Below every stage file and judge.c, so that
 * the stages need nothing of judge.c's own face.
 */
#ifndef ATTNJUDGE_CONTEXT_H
#define ATTNJUDGE_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "judge/secret.h"

/* Shared, read-only state of a judge: where things are, the secret.
 * One per process; safe to use from several threads at once. */
struct judge_ctx {
    char *data_dir; /* secret.key and the reference cache live here */
    struct secret secret;
    /* "gcc VERSION MACHINE\nld ...\nlibc ...\n": the toolchain the compile
     * sandbox sees, found at judge_open; part of the reference cache key */
    char toolchain[320];
};

/* The stages of a judgement, as judge_options.progress names them; "waiting"
 * (claimed, not compiling yet) is the server's, before the judge starts. */
#define JUDGE_STAGE_WAITING "waiting"
#define JUDGE_STAGE_COMPILING "compiling"
#define JUDGE_STAGE_RUNNING "running"
#define JUDGE_STAGE_DONE "done"

struct judge_options {
    bool samples_only; /* run only the sample tests */
    /* Called after each stage, may be NULL: stage is JUDGE_STAGE_COMPILING,
     * JUDGE_STAGE_RUNNING (test_index 0-based of n_tests) or JUDGE_STAGE_DONE. Called on the judging thread.
     * Hidden tests are announced once, as a block: test_index stays at the
     * first hidden test of a run of hidden tests, so that watching the
     * progress cannot time one hidden test (docs/sandbox.md). */
    void (*progress)(void *arg, const char *stage, int test_index, int n_tests);
    void *progress_arg;
    /* How many tests may run at once: 0, as many as this process has idle
     * cores for (each judgement holds one core, its tests borrow the cores
     * no judgement holds); 1, one after another. The report is the same
     * either way: a test that ran beside an earlier fatal one is not_run. */
    int test_threads;
    /* The counterexample search's budget after every test passed, ms
     * (judge/search.h): the server's or the CLI's setting, which a
     * problem's own "search.budget_ms" replaces; 0: no search. */
    int64_t search_budget_ms;
};

/* Calls opt's progress callback, if there is one (judge_options). */
static inline void judge_progress(const struct judge_options *opt, const char *stage, int i, int n)
{
    if (opt && opt->progress)
        opt->progress(opt->progress_arg, stage, i, n);
}

/* The largest student source accepted by default, bytes: `attnjudge judge`
 * refuses a larger file and it is the server's `max_source_kib` default, so
 * that the CLI accepts exactly what a default server accepts. */
#define JUDGE_SOURCE_MAX_DEFAULT (64 * 1024)

#endif
