/*
 * lti_outbox_api — the outbox of scores as instructors see it
 * (docs/api.md, "LTI grades"): what is waiting, delivered and failed with
 * the reason, and a failed delivery tried again.
 *
 * routes.c admits instructors only; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_LTI_OUTBOX_API_H
#define ATTNJUDGE_SERVER_LTI_OUTBOX_API_H

#include "server/app.h"

/* GET /api/lti/outbox[?state=S][&limit=N]: {"counts": {state: n},
 * "deliveries": [...]}, newest first (limit 1..1000, default 200). */
handler_fn lti_outbox_list;

/* POST /api/lti/outbox/{id}/retry: a failed delivery due again now → 200
 * {"id", "state": "pending"}; 409 not_retryable when it is not failed or
 * a newer grade of the same student and link exists. */
handler_fn lti_outbox_retry;

#endif
