/*
 * lti_api — LTI platforms through the API (lti_api.h): registrations
 * checked by lti_registry.h exactly as the command line's, stored by
 * lti_store.h.
 */
#include "server/lti_api.h"

#include <stdio.h>
#include <string.h>

#include "server/lti_registry.h"
#include "server/lti_store.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

/* A space-separated list as a JSON array of strings. */
static json_t *words(const char *list)
{
    json_t *a = json_array();
    char copy[LTI_URL_LEN * 2], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list);
    for (char *w = strtok_r(copy, " ", &save); a && w; w = strtok_r(NULL, " ", &save))
        json_array_append_new(a, json_string(w));
    return a;
}

static json_t *platform_json(const struct lti_platform *p, const char *deployments)
{
    return json_pack("{s:I, s:s, s:s, s:o, s:s, s:s, s:s, s:o, s:o}", "id", (json_int_t)p->id,
                     "issuer", p->issuer, "client_id", p->client_id, "deployment_ids",
                     words(deployments), "auth_url", p->auth_url, "token_url", p->token_url,
                     "jwks_url", p->jwks_url, "frame_origins", words(p->frame_origins),
                     "created_at", views_time(p->created_at));
}

static int list_row(void *arg, const struct lti_platform *p, const char *deployments)
{
    json_t *o = platform_json(p, deployments);
    return !o || json_array_append_new(arg, o) < 0 ? -1 : 0;
}

struct http_response *lti_api_list(struct app *a, struct http_request *req, const struct caller *me)
{
    (void)req;
    (void)me;
    const char *u = a->cfg->public_url;
    json_t *list = json_array(), *tool = json_null();
    if (u[0]) {
        char login[320], launch[320], jwks[320];
        snprintf(login, sizeof login, "%s/lti/login", u);
        snprintf(launch, sizeof launch, "%s/lti/launch", u);
        snprintf(jwks, sizeof jwks, "%s/lti/jwks", u);
        tool = json_pack("{s:s, s:s, s:s, s:s}", "target_link_uri", u, "login_url", login,
                         "redirect_uri", launch, "jwks_url", jwks);
    }
    struct store *s = store_pool_get(a->pool);
    int rc = list ? lti_store_platforms(s, list_row, list) : -1;
    struct http_response *r =
        rc < 0 ? request_internal("lti platforms", s)
               : http_json(200, json_pack("{s:o, s:o}", "tool", tool, "platforms", list));
    if (rc < 0) {
        json_decref(list);
        json_decref(tool);
    }
    store_pool_put(a->pool, s);
    return r;
}

/* An array of at most max strings into out (borrowed from the array); the
 * count, or -1 when it is not such an array. */
static int strings(json_t *arr, const char **out, size_t max)
{
    size_t i;
    json_t *v;
    if (!arr)
        return 0;
    if (!json_is_array(arr) || json_array_size(arr) > max)
        return -1;
    json_array_foreach(arr, i, v)
    {
        if (!(out[i] = json_string_value(v)))
            return -1;
    }
    return (int)json_array_size(arr);
}

/* Copies v into buf (len) if it fits; else false. */
static bool put(char *buf, size_t len, const char *v)
{
    if (strlen(v) >= len)
        return false;
    snprintf(buf, len, "%s", v);
    return true;
}

struct http_response *lti_api_add(struct app *a, struct http_request *req, const struct caller *me)
{
    const char *iss, *client, *auth, *token, *jwks;
    const char *deps[LTI_REGISTRY_MAX_DEPLOYMENTS], *origins[LTI_REGISTRY_MAX_ORIGINS];
    json_t *o = NULL, *jdeps = NULL, *jorigins = NULL;
    struct lti_platform p;
    char err[256];
    (void)me;
    struct http_response *r = request_body(
        req, &o,
        "{\"issuer\", \"client_id\", \"auth_url\", \"token_url\", \"jwks_url\": strings; "
        "\"deployment_ids\": strings; \"frame_origins\": optional strings}",
        "{s:s, s:s, s:s, s:s, s:s, s:o, s?o}", "issuer", &iss, "client_id", &client, "auth_url",
        &auth, "token_url", &token, "jwks_url", &jwks, "deployment_ids", &jdeps, "frame_origins",
        &jorigins);
    if (r)
        return r;
    memset(&p, 0, sizeof p);
    int nd = strings(jdeps, deps, LTI_REGISTRY_MAX_DEPLOYMENTS);
    int no = strings(jorigins, origins, LTI_REGISTRY_MAX_ORIGINS);
    if (nd < 0 || no < 0 || !put(p.issuer, sizeof p.issuer, iss) ||
        !put(p.client_id, sizeof p.client_id, client) ||
        !put(p.auth_url, sizeof p.auth_url, auth) || !put(p.token_url, sizeof p.token_url, token) ||
        !put(p.jwks_url, sizeof p.jwks_url, jwks)) {
        r = http_error(400, "invalid_request", "a field is too long, or a list is not of strings");
        goto out;
    }
    if (lti_registry_check(&p, deps, (size_t)nd, origins, (size_t)no, err, sizeof err) < 0) {
        r = http_error(400, "invalid_request", "%s", err);
        goto out;
    }
    struct store *s = store_pool_get(a->pool);
    int64_t now = clock_wall_ms();
    int rc = lti_store_platform_add(s, &p, deps, (size_t)nd, now, &p.id);
    if (rc < 0)
        r = request_internal("lti platform add", s);
    else if (rc == STORE_EXISTS)
        r = http_error(409, "platform_exists",
                       "a platform with this issuer and client id is registered already");
    else if (rc != 0)
        r = http_error(400, "invalid_request", "a deployment id is too long");
    else {
        char list[LTI_REGISTRY_MAX_DEPLOYMENTS * LTI_ID_LEN] = "";
        for (int i = 0; i < nd; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "",
                     deps[i]);
        p.created_at = now;
        r = http_json(201, platform_json(&p, list));
    }
    store_pool_put(a->pool, s);
out:
    json_decref(o);
    return r;
}

struct http_response *lti_api_remove(struct app *a, struct http_request *req,
                                     const struct caller *me)
{
    int64_t id;
    (void)me;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "not a platform id");
    struct store *s = store_pool_get(a->pool);
    int rc = lti_store_platform_remove(s, id);
    struct http_response *r = rc < 0 ? request_internal("lti platform remove", s)
                              : rc == STORE_NOT_FOUND
                                  ? http_error(404, "not_found", "no platform %lld", (long long)id)
                                  : http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    return r;
}
