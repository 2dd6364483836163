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

#include "server/routes.h"

/* Who is asking. */
struct assignments_caller {
    int64_t user_id; /* 0: anonymous */
    bool instructor;
};

/* The score a submission of score made at created_at counts for a: score
 * up to due_at, score × max(0, 1 − penalty_per_day × started days late)
 * up to cutoff_at, NAN after it or before opens_at. */
double assignments_counted(const struct store_assignment *a, double score, int64_t created_at);

/* POST /api/assignments (old_slug NULL) and PUT /api/assignments/{slug}. */
struct http_response *assignments_put(struct app *a, const struct http_request *req,
                                      const char *old_slug, const struct assignments_caller *who);
/* DELETE /api/assignments/{slug}. */
struct http_response *assignments_delete(struct app *a, const char *slug);
/* GET /api/assignments: instructors every one, others the open ones. */
struct http_response *assignments_list(struct app *a, const struct assignments_caller *who);
/* GET /api/assignments/{slug}, with the caller's own status per problem
 * when signed in. */
struct http_response *assignments_get(struct app *a, const char *slug,
                                      const struct assignments_caller *who);
/* GET /api/assignments/{slug}/grades (JSON, csv false) and .../grades.csv
 * (instructors): every student × the assignment's problems. */
struct http_response *assignments_grades(struct app *a, const char *slug, bool csv);

#endif
