/*
 * lti_deeplink — Deep Linking 2.0 (docs/lti.md, "Deep linking"): an
 * instructor's LtiDeepLinkingRequest ends on a picker of this server's
 * assignments and problems; the pick becomes a signed
 * LtiDeepLinkingResponse posted back to the platform.
 *
 *   GET /lti/deep-link?ctx=...        the picker
 *   POST /lti/deep-link (ctx, kind, slug)  the response, posted onward
 *
 * ctx carries the request's settings (platform, deployment, return URL,
 * data, the instructor, an expiry) with a MAC under a key derived from
 * the deployment secret, so that the server keeps no state between the
 * hops and nobody else can mint a response in the instructor's name.
 */
#ifndef ATTNJUDGE_SERVER_LTI_DEEPLINK_H
#define ATTNJUDGE_SERVER_LTI_DEEPLINK_H

#include <stdint.h>

#include "server/app.h"
#include "server/lti_ctx.h"
#include "server/lti_claims.h"

#define LTI_PICKER_TTL_MS (60 * 60 * 1000) /* a picker page stays usable this long */

/* The picker's ctx for user_id's deep-linking request c from platform_id:
 * malloc'd URL-safe text, NULL when out of memory. */
char *lti_picker_context(const struct lti *l, int64_t user_id, int64_t platform_id,
                         const struct lti_claims *c);

handler_fn lti_picker;
handler_fn lti_pick;

#endif
