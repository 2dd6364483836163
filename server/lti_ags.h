/*
 * lti_ags — the tool as a client of an LMS's LTI Advantage services
 * (docs/lti.md, "Grades back"): an access token by OAuth 2.0's
 * client-credentials grant with a JWT assertion signed by the tool's key
 * (RFC 7523; LTI Security Framework 1.0 §4.1), kept until it expires, and
 * service calls carrying it (AGS line items and scores, NRPS members).
 *
 * Calls are synchronous requests (lti_http.h), safe from any thread (the
 * token cache has its own lock). Tokens and assertions never
 * reach an error message or the log.
 */
#ifndef ATTNJUDGE_SERVER_LTI_AGS_H
#define ATTNJUDGE_SERVER_LTI_AGS_H

#include <stddef.h>
#include <stdint.h>

#include "server/lti_http.h"
#include "util/compiler.h"

struct lti_keys;
struct lti_ags;

#define LTI_SCOPE_LINEITEM "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
#define LTI_SCOPE_SCORE "https://purl.imsglobal.org/spec/lti-ags/scope/score"
#define LTI_SCOPE_NRPS "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

/* The tool's registration at one platform. */
struct lti_client {
    int64_t platform_id;
    const char *client_id;
    const char *token_url;
};

/* A client signing with keys (borrowed: it must outlive the client).
 * NULL when out of memory. */
struct lti_ags *lti_ags_new(const struct lti_keys *keys) MUST_CHECK;

void lti_ags_free(struct lti_ags *g);

/* method (GET or POST) url with Accept accept and, for a POST, body of
 * type ctype, carrying a token of c for scope: the cached one, else a new
 * one; a 401 drops it and asks once more with a new one. 0 when the
 * service answered (r->status, its body), -1 when it could not be asked
 * or no token could be had (r->err; r->status is the token endpoint's
 * answer when it gave one). Free r with lti_reply_free either way. */
int lti_ags_call(struct lti_ags *g, const struct lti_client *c, const char *scope,
                 const char *method, const char *url, const char *accept, const char *ctype,
                 const char *body, struct lti_reply *r) MUST_CHECK;

#endif
