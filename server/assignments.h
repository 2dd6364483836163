/*
 * assignments — problems grouped with a window and a late policy, and the
 * grades an LMS imports (docs/api.md, "Assignments" and "Grades").
 *
 * A submission counts for an assignment when it was made inside its window
 * [opens_at, due_at], or late up to the cut-off with the penalty; each
 * cell of the grades is the best counted score of a student on a problem,
 * 0 when nothing counts. routes.c authorizes each route and hands the
 * caller over; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_ASSIGNMENTS_H
#define ATTNJUDGE_SERVER_ASSIGNMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "server/app.h"

/* The score a submission of score made at created_at counts for a: score
 * up to due_at, score × max(0, 1 − penalty_per_day × started days late)
 * up to cutoff_at, NAN after it or before opens_at. */
double assignments_counted(const struct store_assignment *a, double score, int64_t created_at);

/* Each student's total on assignment slug, for those with a counted
 * submission: fn(arg, user_id, the sum of their best counted scores);
 * *maximum the highest total (100 per problem). Computed as the grades
 * routes compute it. 0, STORE_NOT_FOUND or -1 (also when fn returns -1). */
int assignments_totals(struct store *s, const char *slug, double *maximum,
                       int (*fn)(void *arg, int64_t user_id, double total), void *arg) MUST_CHECK;

/* POST /api/assignments: 201. */
handler_fn assignments_create;
/* PUT /api/assignments/{slug}: 200. */
handler_fn assignments_put;
/* DELETE /api/assignments/{slug}. */
handler_fn assignments_delete;
/* GET /api/assignments: instructors every one, others the open ones. */
handler_fn assignments_list;
/* GET /api/assignments/{slug}, with the caller's own status per problem
 * when signed in. */
handler_fn assignments_get;
/* GET /api/assignments/{slug}/grades and .../grades.csv (instructors):
 * every student × the assignment's problems, as JSON or CSV. */
handler_fn assignments_grades;
handler_fn assignments_grades_csv;

#endif
