/*
 * check_search — what `attnjudge problem check` says about the
 * counterexample search (judge/check.c calls it): where a counterexample
 * lies, in an author's words, and whether the search can run for the
 * problem at all.
 */
#ifndef ATTNJUDGE_CHECK_SEARCH_H
#define ATTNJUDGE_CHECK_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include "judge/problem.h"
#include "judge/report.h"

/* "rows=1 cols=2 (x: dominant(at=last, ...))": the dims and generators of
 * r's counterexample, into buf. */
void check_search_where(const struct problem *p, const struct judge_report *r, char *buf,
                        size_t len);

/* Reports whether the search ran for p with search_ms: not at all without
 * a "domain" (said so), or with which budget. Never a failure. */
void check_search_domain(const struct problem *p, int64_t search_ms,
                         void (*report)(void *arg, bool ok, const char *line), void *arg);

#endif
