/*
 * lti_verify — a platform's id_token (a compact JWS) checked against the
 * platform's public keys (docs/lti.md, "What a launch must prove").
 *
 * Only RS256 is accepted (LTI Security 1.0 §6.1): "none", HS256 and every
 * other alg are refused before any key is looked at, so that neither an
 * unsigned token nor one "signed" with a public key as an HMAC secret can
 * pass. The key is the JWKS entry whose kid the token's header names. JWKS
 * documents are fetched with libcurl (http and https only, no redirects,
 * bounded in size and time) and cached per URL; a kid the cached copy does
 * not hold makes one refetch (the platform rotated its key), at most one
 * per LTI_JWKS_REFETCH_MS per URL, so that tokens with made-up kids cannot
 * turn the server into a flood of requests to the platform.
 *
 * The cache is shared by the HTTP threads (a mutex; a fetch runs outside
 * it). Nothing here logs a token or a key.
 */
#ifndef ATTNJUDGE_SERVER_LTI_VERIFY_H
#define ATTNJUDGE_SERVER_LTI_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/compiler.h"

#define LTI_JWKS_TTL_MS (3600 * 1000)   /* a cached JWKS is refetched after this */
#define LTI_JWKS_REFETCH_MS 1000        /* the least time between two fetches of a URL */
#define LTI_JWKS_MAX_BYTES (256 * 1024) /* a JWKS larger than this is refused */
#define LTI_JWKS_TIMEOUT_MS 5000        /* a fetch's whole time */

struct lti_jwks_cache;

/* A new, empty cache (and libcurl initialised: call it before starting
 * threads). NULL when out of memory. Caller frees with
 * lti_jwks_cache_free. */
struct lti_jwks_cache *lti_jwks_cache_new(void) MUST_CHECK;

void lti_jwks_cache_free(struct lti_jwks_cache *c);

/* The claims of a compact JWS without any check: only to learn which
 * platform (iss, aud) is to verify it. A new reference, or NULL when
 * compact is not a JWS with a JSON object as its payload. */
json_t *lti_jwt_peek(const char *compact) MUST_CHECK;

/* Verifies compact (RS256, a kid in its header) against the JWKS at
 * jwks_url. Returns its claims (a new reference), or NULL with a one-line
 * reason in err that names no key material. */
json_t *lti_jwt_verify(struct lti_jwks_cache *c, const char *jwks_url, const char *compact,
                       char *err, size_t errlen) MUST_CHECK;

#endif
