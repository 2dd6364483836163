/*
 * check — everything `attnjudge problem check` and an upload verify about a
 * package beyond its schema (which problem_load already checked). One
 * function, so the CLI and the server can never disagree.
 */
#ifndef ATTNJUDGE_CHECK_H
#define ATTNJUDGE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/judge.h"
#include "util/compiler.h"

/* Receives one finding: ok, or the failure (first of them is the one to
 * show an uploader), as one line, e.g. "reference.c: wrong_answer on test
 * 'one-head': ...". */
typedef void (*judge_check_report_fn)(void *arg, bool ok, const char *line);

/* Checks that the statement, the hints and the walkthrough render, that
 * the reference, judged as a submission with the students' flags and
 * limits, is accepted on every test (so it compiles, finishes in time, and
 * is deterministic; a reference that crashes or runs out of time is
 * reported naming the test), that the starter compiles (a starter that
 * passes is reported, but allowed), and that the package's example
 * solutions behave: every accepted/ file is accepted with a tolerance
 * margin of at least 10x on every test, every wrong/ file is not accepted
 * (and compiles); the margin of each test, the smallest over the accepted
 * examples, is reported; and that every known mistake compiles, is not
 * accepted, is wrong on a sample test and is diagnosed as itself there.
 * Returns 0 if the package is valid, 1 if it is not, -1 if the judge
 * itself failed (err set: an internal error, not the package's fault). */
int judge_check_problem(struct judge_ctx *ctx, const struct problem *p,
                        judge_check_report_fn report, void *arg, char *err,
                        size_t errlen) MUST_CHECK;

/* judge_check_problem, with the counterexample search (judge/search.h)
 * after the tests of every known mistake and example solution, with
 * search_ms each (0: none, as judge_check_problem): an accepted example
 * the search rejects fails the check; a wrong example or mistake that
 * only the search catches is reported with the input it found ("escapes
 * every test; the search found it in 0.3 s at rows=1 cols=2: add a
 * test"), one that nothing catches fails the check. */
int judge_check_problem_search(struct judge_ctx *ctx, const struct problem *p, int64_t search_ms,
                               judge_check_report_fn report, void *arg, char *err,
                               size_t errlen) MUST_CHECK;

/* Checks the math of statement.md, of every hint and of the walkthrough
 * with KaTeX, the renderer students' browsers use: runs `node script
 * DIR/FILE` for each (script is web/mathcheck.mjs, which needs
 * web/node_modules/katex) and reports each math span KaTeX cannot render
 * with its file and line. When node or the script is missing, reports
 * that the check was skipped (ok). Returns 1 if some math does not render,
 * 0 if all of it was checked and renders, -1 if some file could not be
 * checked (and none failed); never fails the judge. */
int judge_check_math(const struct problem *p, const char *script, judge_check_report_fn report,
                     void *arg);

#endif
