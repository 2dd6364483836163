/*
 * diagnose — which known mistake of the package (docs/problem-format.md,
 * "Known mistakes") a wrong submission's outputs match. Each mistake is
 * compiled and its outputs cached like the reference's (cache.h,
 * testdata.h). A diagnosis is advice: a mistake that cannot be built or
 * fails on a test is no match, and it never changes a verdict or fails a
 * judgement.
 */
#ifndef ATTNJUDGE_DIAGNOSE_H
#define ATTNJUDGE_DIAGNOSE_H

#include <stdbool.h>

#include "judge/context.h"
#include "judge/problem.h"
#include "judge/report.h"

/* Sets r->diagnosis to the first listed mistake whose outputs match the
 * submission's (got[], indexed like p->tests, NULL where a test did not
 * reach its comparison; on[], same index, is scratch). Sample evidence
 * first: wrong on at least one sample test, outputs on all of them, the
 * mistake matched on all of them. Else hidden evidence: the mistake matches
 * on every hidden test that is wrong_answer (at least one, each with
 * outputs). Only the mistake's id, title and hint come out of it, never a
 * hidden test's data. Returns 0, or -1 when out of memory. */
int diagnose(const struct judge_ctx *ctx, const struct problem *p, struct judge_report *r,
             unsigned char *const *got, bool *on);

/* Sets cx's diagnosis into *out (from_search) when the submission's
 * outputs on the counterexample (cx->actual) match the first listed
 * mistake's on the same input, within the tolerance. Runs each mistake in
 * the sandbox like the reference; one that fails there is no match.
 * Returns 0 (nothing set when none matches), or -1 when out of memory. */
struct judge_counterexample;
int diagnose_counterexample(const struct judge_ctx *ctx, const struct problem *p,
                            const struct judge_counterexample *cx, struct judge_diagnosis *out);

#endif
