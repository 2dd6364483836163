/*
 * cores — a judgement's tests on the idle cores of this process: the
 * judging thread runs them in report order and borrows helper threads
 * while fewer threads than cores are judging; the report is then decided
 * in report order, as if the tests had run one after another.
 */
#ifndef ATTNJUDGE_CORES_H
#define ATTNJUDGE_CORES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "judge/context.h"
#include "judge/crashsite.h"
#include "judge/problem.h"
#include "judge/report.h"

#define TEST_ERR_LEN 512 /* bytes of a test's error message */

/* Runs test tc (exe against the reference ref_exe, whose outputs are
 * cached in cache) into tr. When got is not NULL and the test's outputs
 * were compared, *got receives them (outputs_pack's layout). A failure of
 * the judge is V_INTERNAL_ERROR with err, *ref_failed set when the
 * reference failed. Called from any of the judgement's threads. */
typedef void (*test_fn)(struct judge_ctx *ctx, const struct problem *p, const char *cache,
                        int ref_exe, int exe, const struct crashsite_source *src,
                        const struct test_case *tc, struct judge_test_report *tr, bool *ref_failed,
                        unsigned char **got, char *err, size_t errlen);

/* One judgement's tests, run by the judging thread and the helpers it
 * could get. The judging thread claims them in report order, the helpers
 * costliest first (judge/schedule.h); each runs exactly as it would alone
 * (test_fn). What the report says is decided afterwards, in report
 * order (tests_run), so that it is the sequential report: a test that
 * started beside an earlier fatal one is not_run. */
struct test_run {
    test_fn run_test; /* runs one test end to end */
    struct judge_ctx *ctx;
    const struct problem *p;
    const struct judge_options *opt;
    const char *cache;
    int ref, exe;
    const struct crashsite_source *src; /* exe's source (test_fn) */
    struct judge_test_report *tests;    /* [n], report order */
    int n;
    unsigned char **got;         /* indexed like p->tests, or NULL */
    const struct test_case **tc; /* [n] */
    size_t *pi;                  /* [n]: index in p->tests */
    char (*err)[TEST_ERR_LEN];   /* [n] */
    bool *ref_failed;            /* [n] */
    bool *ran;                   /* [n] */
    int *by_cost;                /* [n]: the helpers' claim order */
    bool *claimed;               /* [n] */
    pthread_mutex_t mu;
    int stop_at; /* the first test after which no test needs to run (n: none) */
    /* the judging thread's progress: tests before it were announced */
    int announced;
};

/* Runs t's tests (r->tests[0..t->n) named and weighted; the caller fills
 * run_test, ctx, p, opt, cache, ref, exe, src, tests, n and got) and sets
 * the verdict: the first failing test's; after a fatal test (unless
 * run_all_tests) the rest are not_run; an internal error ends the report
 * at its test, as if the tests had run one after another. Returns 0, or -1
 * after decide_internal(). */
int tests_run(struct test_run *t, struct judge_report *r);

/* Counts the calling thread in (delta 1) or out (-1) of the cores the
 * judgements of this process hold: each judgement holds one while it
 * runs, and a benchmark holds one so that no judgement's tests borrow its
 * core meanwhile. */
void cores_hold(int delta);

#endif
