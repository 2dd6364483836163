/*
 * report_search — the counterexample search's part of a report (judge/
 * report.h's struct judge_search_report) as JSON, and its release.
 *
 * The counterexample was generated, not taken from the hidden tests, so
 * the student's view keeps all of it: its dims, its generators in words,
 * every input, the expected and the submission's outputs, and where they
 * differ (docs/api.md, "search").
 */
#ifndef ATTNJUDGE_REPORT_SEARCH_H
#define ATTNJUDGE_REPORT_SEARCH_H

#include <jansson.h>

#include "judge/problem.h"
#include "judge/report.h"
#include "util/compiler.h"

/* The most elements of one tensor whose values the report lists; a larger
 * one has "values": null (the downloadable case still has it all). */
#define REPORT_CX_VALUES_MAX 4096

/* {"budget_ms", "inputs", "skipped", "ms", "worst_ratio", "found",
 * "found_ms", "counterexample"}: new reference, NULL when out of memory. */
json_t *judge_search_json(const struct judge_search_report *s, const struct problem *p) MUST_CHECK;

/* Frees cx and everything it holds; NULL is fine. */
void judge_counterexample_free(struct judge_counterexample *cx);

#endif
