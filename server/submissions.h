/*
 * submissions — the handlers of the graded submissions' routes
 * (docs/api.md, "Submissions"). routes.c decides who may call each.
 */
#ifndef ATTNJUDGE_SERVER_SUBMISSIONS_H
#define ATTNJUDGE_SERVER_SUBMISSIONS_H

#include "server/app.h"

/* POST /api/submissions {"problem", "source"}: 202 queued, with Location;
 * 409 problem_archived, 429 rate_limited or too_many_pending, 503
 * queue_full. */
handler_fn submissions_create;
/* GET /api/submissions[?mine&problem&user&verdict&status&limit&before]:
 * newest first, {"submissions", "next_before"}. */
handler_fn submissions_list;
/* GET /api/submissions/{id}: the report (an instructor's with the
 * rejudge history). */
handler_fn submissions_get;
/* POST /api/submissions/{id}/cancel: withdraws a queued submission (its
 * author or an instructor); 409 not_queued once a worker has claimed it. */
handler_fn submissions_cancel;
/* GET /api/submissions/{id}/counterexample: the counterexample the search
 * found for it, as a sample kit of one case (a zip); its author or an
 * instructor. 404 when there is none. */
handler_fn submissions_counterexample;
/* GET /api/leaderboard/{slug}[?limit]: the best submissions, named as
 * leaderboard_names says. */
handler_fn submissions_leaderboard;

#endif
