/*
 * lti_registry — what a platform's registration must hold before it is
 * stored, checked once for `attnjudge lti add-platform` and for the
 * instructors' API (docs/lti.md, "Registering a platform here").
 */
#ifndef ATTNJUDGE_SERVER_LTI_REGISTRY_H
#define ATTNJUDGE_SERVER_LTI_REGISTRY_H

#include <stddef.h>

#include "server/lti_store.h"
#include "util/compiler.h"

#define LTI_REGISTRY_MAX_DEPLOYMENTS 32
#define LTI_REGISTRY_MAX_ORIGINS 8

/* Checks p's issuer, auth, token and JWKS URLs (http:// or https://, no
 * spaces, quotes or separators), its client id, the n deployment ids (1 to
 * LTI_REGISTRY_MAX_DEPLOYMENTS, no spaces) and the n_origins frame origins
 * (scheme://host[:port] each), and writes the origins into
 * p->frame_origins, space-separated: those given, or by default the
 * origins of the issuer and of the auth URL. 0, or -1 with the first
 * problem in err. */
int lti_registry_check(struct lti_platform *p, const char *const *deployments, size_t n,
                       const char *const *origins, size_t n_origins, char *err,
                       size_t errlen) MUST_CHECK;

#endif
