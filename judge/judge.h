/*
 * judge — the one pipeline from a student's C file to a verdict.
 *
 * compile (sandboxed) → for each test: generate inputs, run (sandboxed),
 * compare with the reference's outputs → verdict, score and feedback.
 * `attnjudge judge` and the server's workers both call judge_submission(),
 * so they can never judge differently.
 */
#ifndef ATTNJUDGE_JUDGE_H
#define ATTNJUDGE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/compare.h"
#include "judge/problem.h"
#include "judge/secret.h"

/* Verdicts, as SPEC §2. */
enum verdict {
    V_ACCEPTED,
    V_WRONG_ANSWER,
    V_COMPILE_ERROR,
    V_RUNTIME_ERROR,
    V_TIME_LIMIT,
    V_MEMORY_LIMIT,
    V_SECURITY_VIOLATION,
    V_INTERNAL_ERROR,
};

/* "accepted", "wrong_answer", ... */
const char *verdict_name(enum verdict v);
/* The inverse; returns -1 for an unknown name. */
int verdict_from_name(const char *name);

/* Shared, read-only state of a judge: where things are, the secret.
 * One per process; safe to use from several threads at once. */
struct judge_ctx {
    char *data_dir; /* secret.key and the reference cache live here */
    struct secret secret;
};

/* Opens the judge: loads or creates the secret under data_dir and checks
 * that the sandbox works (namespaces, seccomp). Returns a new context
 * (judge_close) or NULL with a message for the operator in err. */
struct judge_ctx *judge_open(const char *data_dir, char *err, size_t errlen);
void judge_close(struct judge_ctx *ctx);

struct judge_options {
    bool samples_only; /* run only the sample tests */
    /* Called after each stage, may be NULL: stage is "compiling", "running"
     * (test_index 0-based of n_tests) or "done". Called on the judging thread. */
    void (*progress)(void *arg, const char *stage, int test_index, int n_tests);
    void *progress_arg;
};

/* One tensor's comparison, for feedback. */
struct judge_tensor_report {
    char *name;
    struct compare_result cmp;
    int rank;
    int64_t shape[PROBLEM_MAX_RANK];
    /* Sample tests only: |got - expected| per element, for the heatmap.
     * NULL on hidden tests and when the tensor is larger than 1 Mi elements. */
    float *abs_err;
};

struct judge_test_report {
    char *name;
    enum test_kind kind;
    enum verdict verdict;
    int weight;
    int64_t *dims;     /* [problem->n_dims] */
    double time_ms;    /* CPU time of the solution (kernel accounting) */
    double wall_ms;    /* the sandboxed run, set-up included */
    double compare_ms; /* comparing the outputs in the judge */
    double max_abs_err, max_rel_err;
    int64_t n_mismatch;
    char *message; /* short, student-facing: "SIGSEGV", "openat", ... */
    char *output;  /* sample tests: captured stdout+stderr (capped) */
    struct judge_tensor_report *tensors;
    int n_tensors;
};

/* Every test runs (the score counts them all); the verdict is the first
 * failing test's. */
struct judge_report {
    enum verdict verdict;
    double score;      /* 0..100, weighted share of passed tests */
    char *compile_log; /* paths rewritten to the student's file name */
    double compile_ms; /* CPU time of the compiler */
    double compile_wall_ms;
    struct judge_test_report *tests;
    int n_tests;
    char *internal_message; /* operator-facing detail of an internal_error */
    /* The internal_error came from a resource of the judge's machine running
     * out (descriptors, memory, processes): judging again later may work. */
    bool transient;
};

/* Judges source (len bytes, named filename for diagnostics, e.g. "sol.c")
 * against problem p. Always returns a report (free with judge_report_free);
 * NULL only when out of memory. A failure of the judge itself is
 * V_INTERNAL_ERROR with internal_message set; never a student's verdict. */
struct judge_report *judge_submission(struct judge_ctx *ctx, const struct problem *p,
                                      const char *source, size_t len, const char *filename,
                                      const struct judge_options *opt);

void judge_report_free(struct judge_report *r);

/* The report as JSON (SPEC §5's submission object minus the server's
 * fields): verdict, score, compile_log, tests[]. Hidden tests carry only
 * name, dims and error statistics. Returns a new reference. */
json_t *judge_report_json(const struct judge_report *r, const struct problem *p);

/* Receives one tensor of an exported case: an input (generated) or an
 * output (the reference's). Returns 0, or -1 with errno to stop. */
typedef int (*judge_emit_fn)(void *arg, const struct param *q, const int64_t *shape, int rank,
                             const void *data);

/* Generates the case (dims, seed; tc gives generator overrides, NULL
 * tensors and limits, or NULL for the problem's defaults), runs the
 * reference, and emits every non-NULL tensor in signature order. Returns 0
 * or -1 with err. */
int judge_export_case(struct judge_ctx *ctx, const struct problem *p, const int64_t *dims,
                      uint64_t seed, const struct test_case *tc, judge_emit_fn emit, void *arg,
                      char *err, size_t errlen);

/* The seed of test tc: its public seed, or the hidden one from the secret. */
uint64_t judge_test_seed(const struct judge_ctx *ctx, const struct problem *p,
                         const struct test_case *tc);

#endif
