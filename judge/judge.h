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

#include "judge/context.h"
#include "judge/dims.h"
#include "judge/problem.h"
#include "judge/report.h"
#include "util/compiler.h"

/* Opens the judge: loads or creates the secret under data_dir and checks
 * that the sandbox works (namespaces, seccomp). Returns a new context
 * (judge_close) or NULL with a message for the operator in err. */
struct judge_ctx *judge_open(const char *data_dir, char *err, size_t errlen) MUST_CHECK;
/* judge_open with the secret read from secret_file (which must exist)
 * instead of <data_dir>/secret.key; NULL or "": as judge_open. */
struct judge_ctx *judge_open_secret(const char *data_dir, const char *secret_file, char *err,
                                    size_t errlen) MUST_CHECK;
void judge_close(struct judge_ctx *ctx);

/* Judges source (len bytes, named filename for diagnostics, e.g. "sol.c")
 * against problem p. Always returns a report (free with judge_report_free);
 * NULL only when out of memory. A failure of the judge itself is
 * V_INTERNAL_ERROR with internal_message set; never a student's verdict. */
struct judge_report *judge_submission(struct judge_ctx *ctx, const struct problem *p,
                                      const char *source, size_t len, const char *filename,
                                      const struct judge_options *opt) MUST_CHECK;

/* Receives one tensor of an exported case: an input (generated; expected
 * false) or an expected output (the reference's; expected true). An inout
 * tensor comes twice, as both. Returns 0, or -1 with errno to stop. */
typedef int (*judge_emit_fn)(void *arg, const struct param *q, bool expected, const int64_t *shape,
                             int rank, const void *data);

/* Generates the case (dims, seed; tc gives generator overrides, NULL
 * tensors, scalars and limits, or NULL for the problem's defaults), runs the
 * reference, and emits every non-NULL tensor in signature order. Returns 0
 * or -1 with err. */
int judge_export_case(struct judge_ctx *ctx, const struct problem *p, const int64_t *dims,
                      uint64_t seed, const struct test_case *tc, judge_emit_fn emit, void *arg,
                      char *err, size_t errlen) MUST_CHECK;

/* The seed of test tc: its public seed, or the hidden one from the secret. */
uint64_t judge_test_seed(const struct judge_ctx *ctx, const struct problem *p,
                         const struct test_case *tc) MUST_CHECK;

#endif
