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

#include <stdbool.h>
#include <stdint.h>

#include "server/routes.h"

/* GET /api/drafts/{slug}. */
struct http_response *drafts_get(struct app *a, const char *slug, int64_t user_id, bool instructor);
/* PUT /api/drafts/{slug} {"source", "revision"?}. */
struct http_response *drafts_put(struct app *a, const struct http_request *req, const char *slug,
                                 int64_t user_id, bool instructor);
/* DELETE /api/drafts/{slug}. */
struct http_response *drafts_delete(struct app *a, const char *slug, int64_t user_id,
                                    bool instructor);

#endif
