/*
 * lti_http — one HTTP request of the tool to an LMS (libcurl): the one
 * place that says how the tool talks to a platform, for the JWKS it
 * verifies launches with (lti_verify.c) and the services it calls
 * (lti_ags.c). No redirect is followed (a token must not travel to a host
 * the platform did not name), only http and https are spoken, the whole
 * request has a deadline, and an answer larger than its limit fails the
 * request instead of growing without bound.
 *
 * Synchronous and safe from any thread: one easy handle per request, no
 * signal for timeouts. libcurl's global set-up is done once, before the
 * server's threads start, by lti_jwks_cache_new (lti_verify.c).
 */
#ifndef ATTNJUDGE_SERVER_LTI_HTTP_H
#define ATTNJUDGE_SERVER_LTI_HTTP_H

#include <stddef.h>

#include "util/compiler.h"

/* What is asked. */
struct lti_request {
    const char *method; /* "GET" or "POST"; any other is sent as given */
    const char *url;
    const char *bearer; /* an access token to carry, or NULL */
    const char *accept; /* the Accept header; NULL: any type (libcurl's default) */
    const char *ctype;  /* the body's Content-Type (with a body) */
    const char *body;   /* a POST's body, or NULL */
    size_t max_bytes;   /* the largest answer taken */
    long timeout_ms;    /* the whole request's deadline */
};

/* What a platform answered. */
struct lti_reply {
    long status;        /* HTTP status; 0: no answer (err says why) */
    long retry_after_s; /* the answer's Retry-After in seconds, 0 when none */
    char *body;         /* malloc'd, NUL-terminated (lti_reply_free) */
    size_t len;
    char next[1024]; /* a Link rel="next" (NRPS pages), "" when none */
    char err[256];
};

/* Sends q, answer into r (which it clears first): 0 when the platform
 * answered (r->status, r->body, never NULL), -1 when it did not (r->err:
 * libcurl's reason, or "the answer is larger than N bytes"). Free r with
 * lti_reply_free either way. The bearer token never reaches r->err. */
int lti_http(const struct lti_request *q, struct lti_reply *r) MUST_CHECK;

void lti_reply_free(struct lti_reply *r);

#endif
