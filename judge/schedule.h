/*
 * schedule — which test each thread of a judgement claims next.
 *
 * The judging thread claims its tests in report order: it announces
 * progress in that order, and on one thread (a busy server) a fatal early
 * test, a sample that loops, stops the rest before they cost anything.
 * The helpers it borrows from idle cores claim the costliest test left.
 * The tests of the seed problems are a dozen small ones and a last one
 * that costs as much as all the others together: claimed in report order
 * by every thread, it started last and ran alone while the other cores
 * idled; a helper now starts it first, beside the small ones (the
 * helpers' order is longest processing time first).
 * The report does not depend on the order: judge.c decides it afterwards,
 * as if the tests had run one after another.
 */
#ifndef ATTNJUDGE_SCHEDULE_H
#define ATTNJUDGE_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "judge/problem.h"

/* An estimate of the work of one call at test t's dimensions, comparable
 * between the tests of one problem only: the FLOPs plus the bytes of the
 * problem's benchmark formulas (docs/problem-format.md, "Benchmark sizes")
 * where it has them, else the elements of its tensors. Never negative. */
int64_t schedule_test_cost(const struct problem *p, const struct test_case *t);

/* Fills by_cost[0..n) with the indexes 0..n-1 by cost[] descending, ties
 * in index order: the helpers' claim order. */
void schedule_by_cost(const int64_t *cost, int n, int *by_cost);

/* The test a thread claims next: the first unclaimed one in report order
 * for the judging thread, in by_cost order for a helper; -1 when every
 * test is claimed. Marks it claimed. */
int schedule_claim(bool *claimed, const int *by_cost, int n, bool judging_thread);

#endif
