/*
 * decide — from a run and its outputs to a test's verdict and message:
 * how the program ended (classify_run), its outputs against the expected
 * ones (compare_outputs), a sample test's crash in the student's words,
 * and the report's internal_error when the judge itself failed.
 *
 * Anything the submission did is a verdict; a failure of the judge is
 * internal_error with a message for the operator, never the student's
 * fault.
 */
#ifndef ATTNJUDGE_DECIDE_H
#define ATTNJUDGE_DECIDE_H

#include <stdint.h>

#include "judge/crashsite.h"
#include "judge/harness.h"
#include "judge/problem.h"
#include "judge/report.h"
#include "judge/testdata.h"
#include "sandbox/sandbox.h"

/* Compares every output of hr with expected (outputs_pack's layout);
 * fills the test report tr; returns the verdict, or V_INTERNAL_ERROR if an
 * allocation failed (a report missing a tensor, its name, its error map or
 * the message would mislead). */
enum judge_verdict compare_outputs(const struct problem *p, const struct test_case *tc,
                                   const int64_t *dims, const struct test_data *d,
                                   const unsigned char *expected, const struct harness_result *hr,
                                   struct judge_test_report *tr);

/* Maps how the program ended to a verdict (V_ACCEPTED: it returned
 * normally and its outputs are to be compared); *message is the new
 * student-facing message otherwise (NULL when out of memory). */
enum judge_verdict classify_run(const struct sbx_result *res, const struct harness_result *hr,
                                const struct problem_limits *lim, char **message);

/* The message of a crash (signal sig) on sample test tc: the signal in
 * words, the tensors this test passes as NULL, the mask hint. NULL when
 * out of memory. */
char *sample_crash_message(const struct problem *p, const struct test_case *tc, int sig);

/* The sentence after a sample test's crash message: its line in src, or
 * where to find it (crashsite.h). NULL when out of memory. */
char *crash_site_message(int exe, const struct crashsite_source *src,
                         const struct harness_result *hr);

/* Makes r an internal_error with msg for the operator; transient when msg
 * reports the machine running out of something (judging again later may
 * work). */
void decide_internal(struct judge_report *r, const char *msg);

#endif
