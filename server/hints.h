/*
 * hints — a problem's progressive hints and its walkthrough, as the API
 * serves them (docs/api.md, "Hints and walkthroughs"): which hint a caller
 * may open next, when a walkthrough unlocks, what instructors see.
 *
 * The texts come from the current version's package (the catalog), the
 * records from the store (who opened which hint, the instructors' dates).
 * routes.c authorizes each route (signed in, instructors) and hands the
 * caller over; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_HINTS_H
#define ATTNJUDGE_SERVER_HINTS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "server/app.h"

/* Completes a GET /api/problems/{slug} object (the catalog's, whose
 * "version", "hints": {"count"} and "walkthrough": {"available"} it reads)
 * with the caller's view: hints.opened, the hints the caller opened, in
 * order, each {"n", "md", "html", "opened_at"} (an instructor: every hint,
 * opened_at null); walkthrough {"available", "unlocked", "opens_at",
 * "opens_at_source"}. s is borrowed. Returns 0, or -1 (a database error,
 * store_error(s), or out of memory). */
int hints_add_view(struct app *a, struct store *s, json_t *detail, const struct caller *who,
                   int64_t now) MUST_CHECK;

/* POST /api/problems/{slug}/hints/{n}, param "slug/n": opens hint n for a
 * signed-in caller, in order (200 with its text; 400 invalid_hint, 404,
 * 409 hint_locked). An instructor's opening is not recorded. */
handler_fn hints_open;

/* GET /api/problems/{slug}/hint-log (the route admits instructors only):
 * every student's openings. */
handler_fn hints_log;

/* GET /api/problems/{slug}/walkthrough: the text once unlocked for the
 * caller, else 403 locked naming what unlocks it. */
handler_fn hints_walkthrough;

/* PUT /api/problems/{slug}/walkthrough {"opens_at": ISO 8601 | null}
 * (instructors): the date from which every signed-in user sees the
 * walkthrough; null removes it. */
handler_fn hints_set_date;

#endif
