/*
 * lti_claims — what a verified id_token must claim to be a launch of this
 * tool (LTI 1.3 Core §5, LTI Security 1.0 §5.1.3; docs/lti.md), read into
 * a struct: the checks that need nothing but the claims, the platform's
 * registration and the time. The nonce's single use, the deployment's
 * registration and the course's owner need the store and are the
 * caller's (server/lti.c).
 *
 * Pure and thread-safe; exported for the unit tests.
 */
#ifndef ATTNJUDGE_SERVER_LTI_CLAIMS_H
#define ATTNJUDGE_SERVER_LTI_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/compiler.h"

#define LTI_SKEW_MS (60 * 1000)         /* clock difference allowed between platform and tool */
#define LTI_MAX_AGE_MS (10 * 60 * 1000) /* an id_token issued longer ago is stale */

enum lti_message { LTI_RESOURCE_LINK, LTI_DEEP_LINKING };

/* A launch's claims; every string is borrowed from the claims object and
 * valid while it lives; NULL when the claim is absent (and optional). */
struct lti_claims {
    enum lti_message message;
    const char *sub, *nonce, *deployment_id;
    const char *name, *email;               /* display name and student id */
    bool instructor;                        /* Instructor, TeachingAssistant, ContentDeveloper */
    const char *context_id, *context_title; /* the course */
    const char *resource_link_id;           /* resource link launches */
    const char *target_link_uri;
    const char *custom_problem, *custom_assignment; /* custom problem= / assignment= */
    const char *ags_lineitems, *ags_lineitem, *nrps_url;
    char ags_scopes[1024];               /* space-separated */
    const char *dl_return_url, *dl_data; /* deep linking settings */
};

/* Checks claims against the platform (issuer, client_id) at now (ms) and
 * fills *out. Returns 0, or -1 with the refused claim's reason in err. */
int lti_claims_read(json_t *claims, const char *issuer, const char *client_id, int64_t now,
                    struct lti_claims *out, char *err, size_t errlen) MUST_CHECK;

/* Whether a roles claim (an array of role URIs) makes an instructor here:
 * a context role Instructor (or its sub-role TeachingAssistant),
 * TeachingAssistant or ContentDeveloper, as a full URI or a simple name.
 * Institution and system roles never do. */
bool lti_claims_instructor(json_t *roles);

#endif
