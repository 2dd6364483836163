/*
 * lti_api — the instructors' API for LTI platforms (docs/api.md, "LTI
 * 1.3"), what `attnjudge lti add-platform | list | remove` does on the
 * command line, for the instructor page.
 */
#ifndef ATTNJUDGE_SERVER_LTI_API_H
#define ATTNJUDGE_SERVER_LTI_API_H

#include "server/app.h"

/* GET /api/lti/platforms: {"tool": the URLs to paste into an LMS (null
 * without public_url), "platforms": [...]}. 200. */
handler_fn lti_api_list;
/* POST /api/lti/platforms {"issuer", "client_id", "deployment_ids":
 * [...], "auth_url", "token_url", "jwks_url", "frame_origins"?: [...]}:
 * 201 the platform; 400 invalid_request; 409 platform_exists. */
handler_fn lti_api_add;
/* DELETE /api/lti/platforms/{id}: 204; 404. */
handler_fn lti_api_remove;

#endif
