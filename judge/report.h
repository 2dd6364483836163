/*
 * report — what a judgement says: the verdicts, the report of every test,
 * and the report as JSON (the one shape shared by `attnjudge judge --json`,
 * the HTTP API and the database), with the student's view of it and the
 * judge's vocabulary.
 */
#ifndef ATTNJUDGE_REPORT_H
#define ATTNJUDGE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/compare.h"
#include "judge/problem.h"
#include "util/compiler.h"

/* Verdicts (docs/contract.md §2). V_NOT_RUN is a test's state, never a
 * submission's verdict: the test did not run because an earlier one was
 * fatal (judge_verdict_is_fatal). */
enum judge_verdict {
    V_ACCEPTED,
    V_WRONG_ANSWER,
    V_COMPILE_ERROR,
    V_RUNTIME_ERROR,
    V_TIME_LIMIT,
    V_MEMORY_LIMIT,
    V_SECURITY_VIOLATION,
    V_INTERNAL_ERROR,
    V_NOT_RUN,
};

/* "accepted", "wrong_answer", ..., "not_run". */
const char *judge_verdict_name(enum judge_verdict v);
/* The inverse for a submission's verdicts; returns -1 for an unknown name
 * and for "not_run". */
int judge_verdict_from_name(const char *name);
/* True for the verdicts after which, by default, a submission's remaining
 * tests do not run: time_limit, runtime_error, memory_limit,
 * security_violation (docs/problem-format.md, run_all_tests). */
bool judge_verdict_is_fatal(enum judge_verdict v);

/* One tensor's comparison, for feedback. */
struct judge_tensor_report {
    char *name;
    struct compare_result cmp;
    int rank;
    int64_t shape[TENSOR_MAX_RANK];
    /* Sample tests only: |got - expected| per element, for the heatmap;
     * +inf where got is a NaN or infinity the code computed, NaN where the
     * element was never written (CMP_NAN_UNWRITTEN). NULL on hidden tests
     * and when the tensor is larger than 1 Mi elements. */
    float *abs_err;
    /* Failed tensors: what is wrong, in words (judge/explain.c, with
     * coordinates on sample tests only); NULL when the tensor passed. */
    char *message;
};

struct judge_test_report {
    char *name;
    enum test_kind kind;
    enum judge_verdict verdict; /* V_NOT_RUN: the fields below are zero */
    int weight;
    int64_t *dims;        /* [problem->n_dims] */
    int64_t cpu_limit_ms; /* the test's CPU limit, for the time class */
    double time_ms;       /* CPU time of the solution (kernel accounting) */
    double wall_ms;       /* the sandboxed run, set-up included */
    double compare_ms;    /* comparing the outputs in the judge */
    double setup_ms;      /* the run sandbox's set-up (judge_timing) */
    /* The outputs were compared: false when the run ended without them
     * (a time limit, a crash, ...), so the statistics below mean nothing. */
    bool compared;
    int64_t n_finite;                /* elements compared with both values finite */
    double max_abs_err, max_rel_err; /* over those elements */
    int64_t n_mismatch;
    /* Student-facing, in plain words (judge/explain.c): "SIGSEGV: the
     * function read or wrote outside an array (...)", "tried to open a file
     * (openat): ...", every failed output's message joined by "; ". */
    char *message;
    char *output; /* sample tests: captured stdout+stderr (capped) */
    struct judge_tensor_report *tensors;
    int n_tensors;
};

/* Which known mistake of the problem (docs/problem-format.md, "Known
 * mistakes") a wrong submission's outputs match; all NULL: none. */
struct judge_diagnosis {
    char *mistake; /* the mistake's id */
    char *title;   /* completes "Your output matches ..." */
    char *hint;
    /* matched on the failing hidden tests, for want of a match on the
     * sample tests */
    bool from_hidden;
    /* matched on the search's counterexample (no test failed) */
    bool from_search;
};

/* An input the counterexample search found a submission wrong on
 * (judge/search.h). It was generated, not taken from the hidden tests, so
 * a student sees all of it. */
struct judge_counterexample {
    /* name "counterexample", kind sample: dims, seed, generators, NULL
     * tensors and scalars, enough to generate it again (judge_export_case) */
    struct test_case tc;
    char *how; /* the generators in words, e.g. "x: dominant(at=last, ...)" */
    /* the run: verdict, message, every output's comparison with its
     * coordinates, as a sample test's */
    struct judge_test_report test;
    /* every tensor's values by parameter index, NULL where absent: the
     * inputs (an inout tensor's before the call), the reference's and the
     * submission's outputs */
    void *input[PROBLEM_MAX_PARAMS];
    void *expected[PROBLEM_MAX_PARAMS];
    void *actual[PROBLEM_MAX_PARAMS];
    int64_t n_elems[PROBLEM_MAX_PARAMS];
};

/* What the counterexample search did (docs/tolerances.md). */
struct judge_search_report {
    bool ran;
    int64_t budget_ms;               /* the budget it was given */
    int inputs;                      /* inputs the submission ran on */
    int skipped;                     /* inputs left out: the reference failed on them, gave
                           non-finite outputs, or the submission ran out of
                           time or memory */
    double ms;                       /* wall time spent */
    double worst_ratio;              /* largest error / tolerance over the inputs that
                           passed (< 1) */
    double found_ms;                 /* when the counterexample was found */
    struct judge_counterexample *cx; /* NULL: none found */
};

/* Where a judgement's wall time went, ms (the full report's "timing",
 * never in a student's view; tests/bench.sh prints it). */
struct judge_timing {
    double compile_setup_ms; /* the compile sandbox, until its first step */
    double compile_step_ms;  /* step 1: the student's file */
    double link_ms;          /* step 2: the link */
    double reference_ms;     /* opening the reference (and the harness object) */
    double tests_ms;         /* every test, from the first start to the last end */
    double run_setup_ms;     /* the run sandboxes' set-up, summed over tests */
    double judge_ms;         /* judge_submission, all of it */
};

/* The verdict is the first failing test's. After a fatal test
 * (judge_verdict_is_fatal) the remaining tests are V_NOT_RUN unless the problem
 * sets run_all_tests; the score counts them as failed. */
struct judge_report {
    enum judge_verdict verdict;
    double score;      /* 0..100, weighted share of passed tests */
    char *compile_log; /* paths rewritten to the student's file name */
    double compile_ms; /* CPU time of the compiler */
    double compile_wall_ms;
    struct judge_timing timing;
    struct judge_test_report *tests;
    int n_tests;
    char *internal_message; /* operator-facing detail of an internal_error */
    /* The internal_error came from a resource of the judge's machine running
     * out (descriptors, memory, processes): judging again later may work. */
    bool transient;
    /* The internal_error is the package's: its reference failed (crashed,
     * ran out of time) on the last test of tests[], a test the author must
     * fix; `problem check` and uploads report it, never as a 500. */
    bool reference_failed;
    /* Set only for a wrong_answer whose outputs match a known mistake: on
     * every sample test when one of them is wrong, else on every wrong
     * hidden test. It names a mistake, never data, so a student may see
     * it. */
    struct judge_diagnosis diagnosis;
    /* The counterexample search, run after every test passed (ran false:
     * it did not run). A counterexample makes the verdict wrong_answer (or
     * runtime_error) and counts in the score as one more failed test of
     * weight 1. */
    struct judge_search_report search;
};

/* Frees what a test's run filled in (tensors, message, output) and zeroes
 * its measurements, as a not_run test's are; name, dims and the test's
 * identity stay. */
void judge_test_report_clear(struct judge_test_report *tr);

void judge_report_free(struct judge_report *r);

/* What clients must not keep their own copy of (GET /api/vocabulary,
 * `attnjudge vocabulary`, docs/api.md): {"verdicts": [a submission's
 * verdicts, in enum order], "test_states": ["not_run"], "fatal_verdicts",
 * "test_kinds": ["sample", "hidden"], "compile": {"cflags", "ldflags",
 * "command"}, "progress_stages", "max_source_kib": the default}. Returns a
 * new reference, NULL when out of memory. */
json_t *judge_vocabulary_json(void) MUST_CHECK;

/* jansson flag for every JSON text attnjudge writes (API responses, stored
 * reports, `attnjudge judge --json`, export's case.json): reals with 12
 * significant digits, more than the 9 a float needs, so that a value reads
 * the same from the CLI, the API and the database. */
#define JUDGE_JSON_REALS JSON_REAL_PRECISION(12)

/* The full report as JSON (docs/api.md's submission object minus the
 * server's fields): verdict, score, compile_log, tests[] with every
 * measurement. For the database and instructors; what anyone else sees is
 * judge_report_redact's. Returns a new reference. */
json_t *judge_report_json(const struct judge_report *r, const struct problem *p) MUST_CHECK;

/* One output's comparison as the report shows it (with coordinates, the
 * first mismatches and the error map when sample). New reference, NULL
 * when out of memory. */
json_t *judge_tensor_json(const struct judge_tensor_report *t, bool sample) MUST_CHECK;

/* The most elements of one tensor whose values a counterexample's report
 * lists; a larger one has "values": null (the downloadable case needs the
 * values, so it is refused as too large). */
#define REPORT_CX_VALUES_MAX 4096

/* The search's part of a report (judge_search_report), shown in full to
 * the student too: {"budget_ms", "inputs", "skipped", "ms", "worst_ratio",
 * "found", "found_ms", "counterexample": {"dims", "seed", "generators",
 * "null", "verdict", "message", "time_ms", "tensors", "inputs",
 * "expected", "actual"}} (docs/api.md). New reference, NULL when out of
 * memory. */
json_t *judge_search_json(const struct judge_search_report *s, const struct problem *p) MUST_CHECK;

/* Frees cx and everything it holds; NULL is fine. */
void judge_counterexample_free(struct judge_counterexample *cx);

/* The view of a report (or of a submission object or summary holding one)
 * for a student, the submission's author included: a new deep copy in
 * which a hidden test keeps only name, kind, verdict, weight, dims and
 * time_class; a top-level time_ms (the server's sum over all tests) is
 * kept only when the verdict is accepted. Every other field is kept.
 * Reports stored before this view existed are handled the same way (a
 * whitelist). Returns a new reference, or NULL when out of memory. */
json_t *judge_report_redact(const json_t *full);

#endif
