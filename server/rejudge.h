/*
 * rejudge — rejudges that keep what they replace (docs/api.md,
 * "Rejudges"): of a whole problem or of one submission, each recorded with
 * the verdict, score and version every submission had before, and a report
 * of what changed (old → new) once the new verdicts are in.
 *
 * routes.c admits instructors only and hands the caller over; these
 * functions answer.
 */
#ifndef ATTNJUDGE_SERVER_REJUDGE_H
#define ATTNJUDGE_SERVER_REJUDGE_H

#include <stdint.h>

#include <jansson.h>

#include "server/app.h"

/* POST /api/problems/{slug}/rejudge: every submission of the problem
 * (cancelled ones stay cancelled) → 202 {"problem", "queued", "rejudge"}. */
handler_fn rejudge_problem;

/* POST /api/submissions/{id}/rejudge (param, an id) → 202 {"submission",
 * "queued": 1, "rejudge"}; 409 not_judged when it is queued, being judged
 * or cancelled. */
handler_fn rejudge_submission;

/* GET /api/rejudges/{id}: the change report. */
handler_fn rejudge_report;

/* GET /api/rejudges: the newest 50. */
handler_fn rejudge_list;

/* Adds "history": the judgements rejudges replaced, oldest first, to an
 * instructor's view of submission id. 0 or -1 (store_error(s)). */
int rejudge_add_history(struct store *s, int64_t id, json_t *o) MUST_CHECK;

#endif
