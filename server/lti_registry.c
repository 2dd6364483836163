/*
 * lti_registry — a platform registration checked (lti_registry.h). The
 * URLs end up in redirects, in fetches and in a CSP header: nothing that
 * could end a header value or a CSP directive gets through.
 */
#include "server/lti_registry.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* An http(s) URL without spaces, quotes or separators. */
static bool url_ok(const char *u)
{
    return (!strncmp(u, "https://", 8) || !strncmp(u, "http://", 7)) && strlen(u) > 8 &&
           !strpbrk(u, " \t\r\n\"'<>;,\\");
}

/* Appends the origin (scheme://host[:port]) of url to list unless there. */
static void add_origin(char *list, size_t len, const char *url)
{
    const char *host = strstr(url, "://") + 3;
    size_t n = (size_t)(host - url) + strcspn(host, "/?#");
    char origin[LTI_URL_LEN], hay[LTI_URL_LEN + 2], needle[LTI_URL_LEN + 2];
    snprintf(origin, sizeof origin, "%.*s", (int)n, url);
    snprintf(hay, sizeof hay, " %s ", list);
    snprintf(needle, sizeof needle, " %s ", origin);
    size_t used = strlen(list);
    if (strstr(hay, needle) || used + strlen(origin) + 2 > len)
        return;
    snprintf(list + used, len - used, "%s%s", used ? " " : "", origin);
}

int lti_registry_check(struct lti_platform *p, const char *const *deployments, size_t n,
                       const char *const *origins, size_t n_origins, char *err, size_t errlen)
{
    const struct {
        const char *what, *v;
    } urls[] = {{"issuer", p->issuer},
                {"auth URL", p->auth_url},
                {"token URL", p->token_url},
                {"JWKS URL", p->jwks_url}};
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++)
        if (!url_ok(urls[i].v)) {
            snprintf(err, errlen, "the %s must be an http:// or https:// URL", urls[i].what);
            return -1;
        }
    if (!p->client_id[0] || strpbrk(p->client_id, "\r\n")) {
        snprintf(err, errlen, "a client id is required");
        return -1;
    }
    if (n < 1 || n > LTI_REGISTRY_MAX_DEPLOYMENTS) {
        snprintf(err, errlen, "1 to %d deployment ids are required", LTI_REGISTRY_MAX_DEPLOYMENTS);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!deployments[i][0] || strpbrk(deployments[i], " \t\r\n") ||
            strlen(deployments[i]) >= LTI_ID_LEN) {
            snprintf(err, errlen, "a deployment id is empty, too long or has spaces");
            return -1;
        }
    if (n_origins > LTI_REGISTRY_MAX_ORIGINS) {
        snprintf(err, errlen, "at most %d frame origins", LTI_REGISTRY_MAX_ORIGINS);
        return -1;
    }
    p->frame_origins[0] = '\0';
    for (size_t i = 0; i < n_origins; i++) {
        if (!url_ok(origins[i]) || strpbrk(strstr(origins[i], "://") + 3, "/?#")) {
            snprintf(err, errlen, "frame origin '%.100s' is not scheme://host[:port]", origins[i]);
            return -1;
        }
        add_origin(p->frame_origins, sizeof p->frame_origins, origins[i]);
    }
    if (!n_origins) {
        add_origin(p->frame_origins, sizeof p->frame_origins, p->issuer);
        add_origin(p->frame_origins, sizeof p->frame_origins, p->auth_url);
    }
    return 0;
}
