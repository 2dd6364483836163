/*
 * lti — attnjudge as an LTI 1.3 tool (docs/lti.md): the fixed paths an LMS
 * administrator pastes (the shared context: lti_ctx.h).
 *
 *   GET|POST /lti/login   OIDC third-party-initiated login: a state cookie
 *                         bound to this browser, a nonce stored, and the
 *                         redirect to the platform's authorization URL
 *   POST /lti/launch      the id_token checked completely; the user linked
 *                         by (issuer, sub), signed in as the web UI signs
 *                         in, and sent to the page the link names, or to
 *                         the deep-linking picker
 *   GET /lti/jwks         the tool's public keys
 *   GET|POST /lti/deep-link  the picker and its signed
 *                         LtiDeepLinkingResponse (lti_deeplink.c)
 *
 * /lti/login and /lti/launch come from another site by design: routes.c
 * exempts them from the same-origin rule of cookie writes, and state and
 * nonce protect them instead.
 */
#ifndef ATTNJUDGE_SERVER_LTI_H
#define ATTNJUDGE_SERVER_LTI_H

#include "server/app.h"

#define LTI_LOGIN_TTL_MS (10 * 60 * 1000) /* a login must come back within this */
#define LTI_STATE_COOKIE "attnjudge_lti_" /* + the state's first 16 hex digits */
/* The query of the page a launch opens: it tells the web UI that a session
 * was just set by the cookie (web/src/lib/session.js) */
#define LTI_LAUNCHED "launched=1"

/* The handlers (routes.c). */
handler_fn lti_login;
handler_fn lti_launch;
handler_fn lti_jwks;

#endif
