/*
 * drafts — the editor's draft of a problem, kept per user on the server so
 * that it follows the student from a lab machine to a laptop (docs/api.md,
 * "Drafts"). Saves carry the revision they replace, so two open editors do
 * not silently overwrite each other.
 *
 * routes.c admits signed-in callers only; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_DRAFTS_H
#define ATTNJUDGE_SERVER_DRAFTS_H

#include "server/app.h"

/* GET /api/drafts/{slug}. */
handler_fn drafts_get;
/* PUT /api/drafts/{slug} {"source", "revision"?}. */
handler_fn drafts_put;
/* DELETE /api/drafts/{slug}. */
handler_fn drafts_delete;

#endif
