/*
 * path — the order in which a course offers its problems: each problem after
 * its prerequisites, easier problems first among those a student could take
 * next. The CLI's `attnjudge problems` and the server's GET /api/problems
 * both list problems in this order.
 */
#ifndef ATTNJUDGE_PATH_H
#define ATTNJUDGE_PATH_H

#include <stddef.h>

#include "judge/problem.h"
#include "util/compiler.h"

/* Fills order[0..n) with a permutation of 0..n-1 listing ps[] along the
 * path: a topological order of the prerequisites (a prerequisite that is
 * not among ps is ignored), where, of the problems whose prerequisites are
 * all listed, the next is the least by difficulty (easy < medium < hard,
 * anything else after), then title, then slug (byte order, so the result
 * never depends on the locale). A cycle cannot stop the listing: when no
 * problem is free, the least remaining one is taken. ps[i] may not be NULL.
 * Returns 0, or -1 when out of memory (order untouched). */
int path_order(const struct problem *const *ps, size_t n, size_t *order) MUST_CHECK;

#endif
