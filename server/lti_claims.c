/*
 * lti_claims — the id_token's claims checked and read (lti_claims.h).
 *
 * The claim names are the IMS ones, spelled once below. Times in JWT
 * claims are seconds (NumericDate, RFC 7519 §2); the tool's are ms.
 */
#include "server/lti_claims.h"

#include <stdio.h>
#include <string.h>

#define LTI "https://purl.imsglobal.org/spec/lti/claim/"
#define CLAIM_MESSAGE LTI "message_type"
#define CLAIM_VERSION LTI "version"
#define CLAIM_DEPLOYMENT LTI "deployment_id"
#define CLAIM_TARGET LTI "target_link_uri"
#define CLAIM_ROLES LTI "roles"
#define CLAIM_CONTEXT LTI "context"
#define CLAIM_LINK LTI "resource_link"
#define CLAIM_CUSTOM LTI "custom"
#define CLAIM_AGS "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
#define CLAIM_NRPS "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
#define CLAIM_DL "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"

#define MEMBERSHIP "http://purl.imsglobal.org/vocab/lis/v2/membership"

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s && s[0] ? s : NULL;
}

bool lti_claims_instructor(json_t *roles)
{
    static const char *const granted[] = {
        MEMBERSHIP "#Instructor",
        MEMBERSHIP "/Instructor#TeachingAssistant",
        MEMBERSHIP "#TeachingAssistant",
        MEMBERSHIP "#ContentDeveloper",
        /* simple names, which LTI 1.3 deprecates but platforms still send
         * for context roles (Core §A.2.2) */
        "Instructor",
        "TeachingAssistant",
        "ContentDeveloper",
    };
    size_t i;
    json_t *r;
    json_array_foreach(roles, i, r)
    {
        const char *s = json_string_value(r);
        for (size_t k = 0; s && k < sizeof granted / sizeof granted[0]; k++)
            if (!strcmp(s, granted[k]))
                return true;
    }
    return false;
}

/* aud is client_id or an array holding it; with several audiences, azp
 * must name client_id (OIDC Core §3.1.3.7 items 3 to 5), and an azp
 * present must name it anyway. */
static int check_audience(json_t *claims, const char *client_id, char *err, size_t errlen)
{
    json_t *aud = json_object_get(claims, "aud");
    const char *azp = str(claims, "azp");
    bool found = false;
    size_t n = 1;
    if (json_is_string(aud)) {
        found = !strcmp(json_string_value(aud), client_id);
    } else if (json_is_array(aud)) {
        size_t i;
        json_t *a;
        n = json_array_size(aud);
        json_array_foreach(aud, i, a) found |=
            json_is_string(a) && !strcmp(json_string_value(a), client_id);
    }
    if (!found) {
        snprintf(err, errlen, "aud does not name this tool's client_id");
        return -1;
    }
    if ((n > 1 && !azp) || (azp && strcmp(azp, client_id))) {
        snprintf(err, errlen, "azp must name this tool's client_id");
        return -1;
    }
    return 0;
}

static int check_times(json_t *claims, int64_t now, char *err, size_t errlen)
{
    json_t *exp = json_object_get(claims, "exp"), *iat = json_object_get(claims, "iat");
    if (!json_is_number(exp) || !json_is_number(iat)) {
        snprintf(err, errlen, "exp and iat are required numbers");
        return -1;
    }
    double exp_ms = json_number_value(exp) * 1000.0, iat_ms = json_number_value(iat) * 1000.0;
    if (exp_ms + LTI_SKEW_MS <= (double)now) {
        snprintf(err, errlen, "the id_token has expired");
        return -1;
    }
    if (iat_ms - LTI_SKEW_MS > (double)now || iat_ms + LTI_MAX_AGE_MS < (double)now) {
        snprintf(err, errlen, "the id_token's iat is in the future or too old");
        return -1;
    }
    return 0;
}

/* Space-separated scope URIs of the AGS claim into out. */
static void scopes(json_t *ags, char *out, size_t len)
{
    size_t i, used = 0;
    json_t *s;
    out[0] = '\0';
    json_array_foreach(json_object_get(ags, "scope"), i, s)
    {
        const char *v = json_string_value(s);
        if (!v || strchr(v, ' ') || used + strlen(v) + 2 > len)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", v);
    }
}

int lti_claims_read(json_t *claims, const char *issuer, const char *client_id, int64_t now,
                    struct lti_claims *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *iss = str(claims, "iss"), *type = str(claims, CLAIM_MESSAGE);
    if (!iss || strcmp(iss, issuer)) {
        snprintf(err, errlen, "iss is not the platform's issuer");
        return -1;
    }
    if (check_audience(claims, client_id, err, errlen) < 0 ||
        check_times(claims, now, err, errlen) < 0)
        return -1;
    if (!(out->nonce = str(claims, "nonce"))) {
        snprintf(err, errlen, "the id_token carries no nonce");
        return -1;
    }
    const char *version = str(claims, CLAIM_VERSION);
    if (!version || strcmp(version, "1.3.0")) {
        snprintf(err, errlen, "the LTI version must be 1.3.0");
        return -1;
    }
    if (type && !strcmp(type, "LtiResourceLinkRequest")) {
        out->message = LTI_RESOURCE_LINK;
    } else if (type && !strcmp(type, "LtiDeepLinkingRequest")) {
        out->message = LTI_DEEP_LINKING;
    } else {
        snprintf(err, errlen,
                 "the message type must be LtiResourceLinkRequest or "
                 "LtiDeepLinkingRequest");
        return -1;
    }
    if (!(out->deployment_id = str(claims, CLAIM_DEPLOYMENT))) {
        snprintf(err, errlen, "the id_token names no deployment_id");
        return -1;
    }
    /* an anonymous launch (no sub) cannot be anyone's session here */
    if (!(out->sub = str(claims, "sub"))) {
        snprintf(err, errlen, "the id_token names no user (sub)");
        return -1;
    }
    json_t *roles = json_object_get(claims, CLAIM_ROLES);
    if (!json_is_array(roles)) {
        snprintf(err, errlen, "the roles claim must be an array");
        return -1;
    }
    out->instructor = lti_claims_instructor(roles);
    json_t *context = json_object_get(claims, CLAIM_CONTEXT);
    out->context_id = str(context, "id");
    out->context_title = str(context, "title");
    if (!out->context_title)
        out->context_title = str(context, "label");
    out->target_link_uri = str(claims, CLAIM_TARGET);
    out->name = str(claims, "name");
    out->email = str(claims, "email");
    json_t *custom = json_object_get(claims, CLAIM_CUSTOM);
    out->custom_problem = str(custom, "problem");
    out->custom_assignment = str(custom, "assignment");
    if (out->message == LTI_RESOURCE_LINK) {
        if (!(out->resource_link_id = str(json_object_get(claims, CLAIM_LINK), "id"))) {
            snprintf(err, errlen, "a resource link launch needs resource_link.id");
            return -1;
        }
        if (!out->target_link_uri) {
            snprintf(err, errlen, "a resource link launch needs target_link_uri");
            return -1;
        }
        json_t *ags = json_object_get(claims, CLAIM_AGS);
        out->ags_lineitems = str(ags, "lineitems");
        out->ags_lineitem = str(ags, "lineitem");
        scopes(ags, out->ags_scopes, sizeof out->ags_scopes);
        out->nrps_url = str(json_object_get(claims, CLAIM_NRPS), "context_memberships_url");
    } else {
        json_t *dl = json_object_get(claims, CLAIM_DL);
        if (!(out->dl_return_url = str(dl, "deep_link_return_url"))) {
            snprintf(err, errlen, "a deep linking request needs deep_link_return_url");
            return -1;
        }
        /* the tool's page posts to it: a web address, never a script */
        if (strncmp(out->dl_return_url, "https://", 8) &&
            strncmp(out->dl_return_url, "http://", 7)) {
            snprintf(err, errlen, "deep_link_return_url must be an http(s) URL");
            return -1;
        }
        out->dl_data = str(dl, "data");
        bool link = false;
        size_t i;
        json_t *t;
        json_array_foreach(json_object_get(dl, "accept_types"), i, t) link |=
            json_is_string(t) && !strcmp(json_string_value(t), "ltiResourceLink");
        if (!link) {
            snprintf(err, errlen, "the platform does not accept ltiResourceLink items");
            return -1;
        }
    }
    return 0;
}
