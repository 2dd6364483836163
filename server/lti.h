/*
 * lti — attnjudge as an LTI 1.3 tool (docs/lti.md): the fixed paths an LMS
 * administrator pastes, and what the rest of the server asks of LTI.
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

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "server/app.h"

#define LTI_LOGIN_TTL_MS (10 * 60 * 1000) /* a login must come back within this */
#define LTI_STATE_COOKIE "attnjudge_lti_" /* + the state's first 16 hex digits */

struct lti_keys;
struct lti_jwks_cache;

/* The LTI parts of struct app: the tool's keys, the platforms' cached
 * keys, the key that signs the picker's context, and the origins allowed
 * to frame the pages (read from the store at most every 10 s). */
struct lti {
    struct lti_keys *keys;
    struct lti_jwks_cache *jwks;
    unsigned char picker_key[32];
    pthread_mutex_t lock;
    char *frame_origins; /* under lock; space-separated, "" = none */
    int64_t origins_at;  /* ms (monotonic) of the last read */
};

/* Opens the tool's keys under data_dir (created at first start) and
 * derives the picker's key from the deployment secret (n bytes). NULL
 * with a message in err. Caller frees with lti_free. */
struct lti *lti_new(const char *data_dir, const unsigned char *secret, size_t n, char *err,
                    size_t errlen);

void lti_free(struct lti *l);

/* The Content-Security-Policy for a page of the web UI: framing allowed
 * to the registered platforms' origins (none registered: no framing).
 * Malloc'd for http_response.csp; NULL when nothing differs from the
 * default or when out of memory. */
char *lti_page_csp(struct app *a, const char *script_hashes);

/* The handlers (routes.c). */
handler_fn lti_login;
handler_fn lti_launch;
handler_fn lti_jwks;

#endif
