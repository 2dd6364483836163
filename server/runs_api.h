/*
 * runs_api — the handlers of the ungraded runs' routes (docs/api.md,
 * "Submissions"); the runs themselves are runs.h's. routes.c admits
 * signed-in callers only.
 */
#ifndef ATTNJUDGE_SERVER_RUNS_API_H
#define ATTNJUDGE_SERVER_RUNS_API_H

#include "server/app.h"

/* POST /api/runs {"problem", "source"}: 202 queued, with Location; 429
 * rate_limited or run_pending, 503 busy. */
handler_fn runs_api_create;
/* GET /api/runs/{id}: the caller's own run while it is kept. */
handler_fn runs_api_get;

#endif
