/*
 * search — the counterexample search: after a submission has passed every
 * test, it is judged again on inputs the judge generates inside the
 * problem's declared input domain (problem.json's "domain",
 * docs/problem-format.md), looking for one where it is wrong
 * (docs/tolerances.md, "The counterexample search").
 *
 * Every input runs the reference and the submission in fresh SBX_RUN
 * sandboxes under the problem's limits, exactly as a test does
 * (judge/testdata.c). The inputs come, in a fixed order, from the
 * adversarial families at edge and odd sizes, then from random draws and
 * from mutations of the input with the largest error/tolerance ratio so
 * far. The search is deterministic for its seed: the budget is turned into
 * a number of inputs (SEARCH_MS_PER_INPUT), not a clock, so a rejudge on
 * another machine tries the same inputs.
 */
#ifndef ATTNJUDGE_SEARCH_H
#define ATTNJUDGE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "judge/context.h"
#include "judge/problem.h"
#include "judge/report.h"
#include "util/compiler.h"

/* The budget of a judgement when nobody chose one, ms: an accepted verdict
 * comes at most about this much later (docs/tolerances.md has the
 * measurement). */
#define SEARCH_BUDGET_DEFAULT_MS 1000
/* `attnjudge problem check`'s budget per file, ms. */
#define SEARCH_BUDGET_CHECK_MS 10000
/* What one input costs on the reference machine (two sandboxed runs and
 * the comparison), ms: budget_ms / SEARCH_MS_PER_INPUT inputs are tried. */
#define SEARCH_MS_PER_INPUT 50

/* The budget of a judgement of p, ms: server_ms (the server's or the
 * CLI's setting) unless the problem sets its own; 0 when server_ms is 0
 * (the operator turned the search off) or the problem has no domain. */
int64_t search_budget(const struct problem *p, int64_t server_ms);

/* The search's seed: from the deployment secret, the normalised source
 * (judge/poolkey.h, so a comment or a renamed local changes nothing) and
 * the problem's version (its problem.json). 0, or -1 when out of memory. */
int search_seed(const struct judge_ctx *ctx, const struct problem *p, const char *source,
                size_t len, uint64_t *seed) MUST_CHECK;

/* Runs the search for budget_ms with seed: ref and exe are the
 * reference's and the submission's programs (read-only memfds), cache the
 * reference's cache directory. Fills *out (ran, inputs, time, worst ratio,
 * and cx when a counterexample was found, with its diagnosis left to the
 * caller). Returns 0, or -1 with err when the judge itself failed. */
int search_run(const struct judge_ctx *ctx, const struct problem *p, const char *cache, int ref,
               int exe, int64_t budget_ms, uint64_t seed, struct judge_search_report *out,
               char *err, size_t errlen) MUST_CHECK;

#endif
