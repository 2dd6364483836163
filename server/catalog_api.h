/*
 * catalog_api — the HTTP face of the problem catalog (docs/api.md,
 * "Problems"): handlers of the routes under /api/problems that read or
 * change a problem itself. routes.c decides who may call each.
 */
#ifndef ATTNJUDGE_SERVER_CATALOG_API_H
#define ATTNJUDGE_SERVER_CATALOG_API_H

#include "server/app.h"

/* GET /api/problems: the problems the caller is offered. */
handler_fn catalog_api_list;
/* GET /api/problems/{slug}: the detail, with the caller's hints and
 * walkthrough state (hints_add_view). */
handler_fn catalog_api_get;
/* POST /api/problems: a new problem's package. 201 with Location, 409
 * problem_exists, 422 invalid_problem. */
handler_fn catalog_api_create;
/* PUT /api/problems/{slug}: a new version (201 when it is the first). */
handler_fn catalog_api_put;
/* PATCH /api/problems/{slug} {"state", "publish_at"}: either or both. */
handler_fn catalog_api_patch;
/* DELETE /api/problems/{slug}: 204, or 409 has_submissions. */
handler_fn catalog_api_delete;
/* GET /api/problems/{slug}/samples: the sample archive (a zip). */
handler_fn catalog_api_samples;

#endif
