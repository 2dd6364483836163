/*
 * lti — the LTI 1.3 login and launch, the tool's JWKS, and the framing
 * policy of the web UI's pages (lti.h).
 *
 * A launch is two browser hops. /lti/login (the platform's initiation)
 * draws a state and a nonce, stores the nonce with the state's hash
 * (lti_store_login_begin), sets the state in a cookie named after the
 * state itself (several launches in several tabs do not overwrite each
 * other's) and redirects to the platform. /lti/launch receives the
 * platform's form post: the state must be the one this browser's cookie
 * holds; the id_token must verify (lti_verify.h) and claim what
 * lti_claims.h requires; its deployment must be registered; its nonce
 * must be the one stored for this state, unspent; its course must be
 * owned by the platform through this deployment (an instructor's first
 * launch binds an unowned course; a student's is refused). Only then is a
 * user found or created and a session opened.
 *
 * The refusals are JSON errors (docs/api.md's shape) with a reason that
 * names the failed check and never echoes a token. The session cookie of
 * an LTI sign-in is SameSite=None; Secure, so that it also works inside
 * the platform's iframe on another site (docs/lti.md says what that costs).
 */
#include "server/lti.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "judge/names.h"
#include "server/accounts.h"
#include "server/lti_claims.h"
#include "server/lti_ctx.h"
#include "server/lti_deeplink.h"
#include "server/lti_form.h"
#include "server/lti_keys.h"
#include "server/lti_store.h"
#include "server/lti_verify.h"
#include "server/ratelimit.h"
#include "server/request.h"
#include "util/clock.h"

/* an account an LTI launch made has no password: this never verifies */
#define NO_PASSWORD "!lti"

/* ---- request helpers ---- */

/* A parameter of the login initiation: the query's (GET) or the form
 * body's (POST). Malloc'd or NULL. */
static char *param(const struct http_request *req, const char *name)
{
    if (req->method == HTTP_POST)
        return lti_form_get(req->body, req->body_len, name);
    const char *v = http_query(req, name);
    return v ? strdup(v) : NULL;
}

static struct http_response *unconfigured(const struct app *a)
{
    if (a->cfg->public_url[0] && a->lti)
        return NULL;
    return http_error(503, "lti_unconfigured",
                      "LTI needs public_url in the server's configuration (docs/lti.md)");
}

/* A 302/303 to url (taken). */
static struct http_response *redirect(int status, char *url)
{
    struct http_response *r = http_response_new(status, NULL, NULL, 0);
    if (!r) {
        free(url);
        return NULL;
    }
    r->location = url;
    return r;
}

/* ---- GET|POST /lti/login ---- */

/* The cookie check page (lti_form_cookie_check) for a login inside a
 * frame: on to auth_url (taken), or the same initiation (its parameters
 * as a GET) in a new window. */
static struct http_response *cookie_check(struct app *a, char *auth_url, const char *iss,
                                          const char *hint, const char *target,
                                          const char *msg_hint, const char *client, const char *dep)
{
    char *login = NULL, hash[128];
    struct http_response *r = NULL;
    if (asprintf(&login, "%s/lti/login", a->cfg->public_url) < 0) {
        free(auth_url);
        return NULL;
    }
    if (lti_form_append(&login, "iss", iss) == 0 &&
        lti_form_append(&login, "login_hint", hint) == 0 &&
        lti_form_append(&login, "target_link_uri", target) == 0 &&
        (!msg_hint || lti_form_append(&login, "lti_message_hint", msg_hint) == 0) &&
        (!client || lti_form_append(&login, "client_id", client) == 0) &&
        (!dep || lti_form_append(&login, "lti_deployment_id", dep) == 0)) {
        char *page = lti_form_cookie_check(auth_url, login, hash, sizeof hash);
        if (page && (r = http_response_new(200, "text/html; charset=utf-8", page, strlen(page))))
            r->csp = lti_page_csp(a, hash);
    }
    free(login);
    free(auth_url);
    return r;
}

struct http_response *lti_login(struct app *a, struct http_request *req, const struct caller *me)
{
    struct http_response *r = unconfigured(a);
    char *iss = NULL, *hint = NULL, *target = NULL, *msg_hint = NULL, *client = NULL, *dep = NULL;
    char *url = NULL, state[AUTH_TOKEN_HEX], state_hash[AUTH_TOKEN_HEX];
    char nonce[AUTH_TOKEN_HEX], unused[AUTH_TOKEN_HEX], redirect_uri[320];
    struct lti_platform p;
    struct store *s = NULL;
    (void)me;
    if (r)
        return r;
    iss = param(req, "iss");
    hint = param(req, "login_hint");
    target = param(req, "target_link_uri");
    msg_hint = param(req, "lti_message_hint");
    client = param(req, "client_id");
    dep = param(req, "lti_deployment_id");
    if (!iss || !hint || !target) {
        r = http_error(400, "lti_bad_login",
                       "a login initiation needs iss, login_hint and "
                       "target_link_uri");
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = lti_store_platform_find(s, iss, client, &p);
    if (rc < 0) {
        r = request_internal("lti login", s);
        goto out;
    }
    if (rc == STORE_NOT_FOUND) {
        r = http_error(400, "lti_unknown_platform", "no platform is registered with this issuer%s",
                       client ? " and client_id" : "");
        goto out;
    }
    if (rc == STORE_EXISTS) {
        r = http_error(400, "lti_bad_login",
                       "several clients of this issuer are registered: client_id is required");
        goto out;
    }
    if (dep && (rc = lti_store_deployment_known(s, p.id, dep)) != 0) {
        r = rc < 0 ? request_internal("lti login", s)
                   : http_error(400, "lti_unknown_deployment",
                                "the deployment is not registered for this platform");
        goto out;
    }
    /* every login stores a row until it expires: an address's logins that
     * no launch completed count as its failed sign-ins do (a launch gives
     * its login back) */
    int wait = ratelimit_take(a->auth_rl, req->remote, clock_wall_ms());
    if (wait) {
        r = request_retry_after(http_error(429, "rate_limited",
                                           "too many LTI logins from this address; retry in %d s",
                                           wait),
                                wait);
        goto out;
    }
    /* the launch may only come back to this tool (no open redirect) */
    size_t pl = strlen(a->cfg->public_url);
    if (strncmp(target, a->cfg->public_url, pl) || (target[pl] && target[pl] != '/')) {
        r = http_error(400, "lti_bad_login", "target_link_uri is not a page of this tool");
        goto out;
    }
    int64_t now = clock_wall_ms();
    if (auth_new_token(state, state_hash) < 0 || auth_new_token(nonce, unused) < 0) {
        r = request_internal("lti login: random", NULL);
        goto out;
    }
    if (lti_store_login_begin(s, p.id, nonce, state_hash, now + LTI_LOGIN_TTL_MS, now) < 0) {
        r = request_internal("lti login", s);
        goto out;
    }
    snprintf(redirect_uri, sizeof redirect_uri, "%s/lti/launch", a->cfg->public_url);
    if (!(url = strdup(p.auth_url)) || lti_form_append(&url, "scope", "openid") < 0 ||
        lti_form_append(&url, "response_type", "id_token") < 0 ||
        lti_form_append(&url, "response_mode", "form_post") < 0 ||
        lti_form_append(&url, "prompt", "none") < 0 ||
        lti_form_append(&url, "client_id", p.client_id) < 0 ||
        lti_form_append(&url, "redirect_uri", redirect_uri) < 0 ||
        lti_form_append(&url, "login_hint", hint) < 0 ||
        lti_form_append(&url, "state", state) < 0 || lti_form_append(&url, "nonce", nonce) < 0 ||
        (msg_hint && lti_form_append(&url, "lti_message_hint", msg_hint) < 0)) {
        r = NULL;
        goto out;
    }
    /* inside the platform's frame, first check that the frame keeps this
     * tool's cookies: where the browser blocks them, the login goes on in
     * a window of its own (docs/lti.md, "Cookies and frames") */
    const char *dest = http_header(req, "Sec-Fetch-Dest");
    if (dest && !strcmp(dest, "iframe"))
        r = cookie_check(a, url, iss, hint, target, msg_hint, client, dep);
    else
        r = redirect(302, url);
    if (r && dest && !strcmp(dest, "iframe"))
        http_add_header(r, "Set-Cookie",
                        LTI_FORM_PROBE "; Path=/lti/; Max-Age=600; SameSite=None; Secure");
    url = NULL;
    if (r) {
        char cookie[256];
        /* SameSite=None: it must come back with the platform's cross-site
         * form post; it only ever goes to /lti/launch */
        snprintf(cookie, sizeof cookie,
                 LTI_STATE_COOKIE "%.16s=%s; Path=/lti/launch; Max-Age=%d; HttpOnly; "
                                  "SameSite=None; Secure",
                 state, state, LTI_LOGIN_TTL_MS / 1000);
        http_add_header(r, "Set-Cookie", cookie);
    }
out:
    store_pool_put(a->pool, s);
    sodium_memzero(state, sizeof state);
    free(url);
    free(iss);
    free(hint);
    free(target);
    free(msg_hint);
    free(client);
    free(dep);
    return r;
}

/* ---- POST /lti/launch ---- */

/* The client_id a token is for, to find its platform: aud when a string,
 * else azp, else an array's only member. NULL when none can be told. */
static const char *token_client(json_t *claims)
{
    json_t *aud = json_object_get(claims, "aud");
    const char *azp = json_string_value(json_object_get(claims, "azp"));
    if (json_is_string(aud))
        return json_string_value(aud);
    if (azp)
        return azp;
    if (json_is_array(aud) && json_array_size(aud) == 1)
        return json_string_value(json_array_get(aud, 0));
    return NULL;
}

/* Copies at most len - 1 bytes of s into out without cutting a UTF-8
 * sequence. */
static void copy_utf8(char *out, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The user (issuer, sub) stands for, created at the first launch, with
 * the launch's role, name and e-mail. 0 or -1 (error recorded in s). */
static int launch_user(struct store *s, const char *issuer, const struct lti_claims *c,
                       struct store_user *u)
{
    const char *role = c->instructor ? "instructor" : "student";
    char name[128] = "", email[64] = "";
    if (c->name)
        copy_utf8(name, sizeof name, c->name);
    if (c->email)
        copy_utf8(email, sizeof email, c->email);
    int rc = lti_store_user_find(s, issuer, c->sub, u);
    if (rc == STORE_NOT_FOUND) {
        /* a name of its own, from (issuer, sub): never one a person chose */
        unsigned char h[8];
        char hex[17], username[32];
        crypto_generichash_state st;
        crypto_generichash_init(&st, NULL, 0, sizeof h);
        crypto_generichash_update(&st, (const unsigned char *)issuer, strlen(issuer) + 1);
        crypto_generichash_update(&st, (const unsigned char *)c->sub, strlen(c->sub));
        crypto_generichash_final(&st, h, sizeof h);
        sodium_bin2hex(hex, sizeof hex, h, sizeof h);
        snprintf(username, sizeof username, "lti-%s", hex);
        int64_t id;
        rc = lti_store_user_create(s, issuer, c->sub, username, NO_PASSWORD, role,
                                   name[0] ? name : NULL, email[0] ? email : NULL, clock_wall_ms(),
                                   &id);
        if (rc == STORE_EXISTS) /* a concurrent first launch made it */
            rc = 0;
        if (rc != 0)
            return -1;
        return lti_store_user_find(s, issuer, c->sub, u) == 0 ? 0 : -1;
    }
    if (rc != 0)
        return -1;
    /* the platform is the truth for a linked account's role and names */
    if (lti_store_user_update(s, u->id, role, name[0] ? name : NULL, email[0] ? email : NULL) < 0)
        return -1;
    snprintf(u->role, sizeof u->role, "%s", role);
    return 0;
}

/* What a resource link opens: custom problem= / assignment=, else the
 * web UI page target_link_uri names (#/problem/<slug> or
 * #/assignments/<slug>). kind "" when it names neither. */
static void link_target(const struct app *a, const struct lti_claims *c, char *kind, size_t klen,
                        char *slug, size_t slen)
{
    kind[0] = slug[0] = '\0';
    if (c->custom_assignment) {
        snprintf(kind, klen, "assignment");
        snprintf(slug, slen, "%s", c->custom_assignment);
        return;
    }
    if (c->custom_problem) {
        snprintf(kind, klen, "problem");
        snprintf(slug, slen, "%s", c->custom_problem);
        return;
    }
    size_t pl = strlen(a->cfg->public_url);
    const char *t = c->target_link_uri;
    if (!t || strncmp(t, a->cfg->public_url, pl))
        return;
    const char *hash = strchr(t + pl, '#');
    if (hash && !strncmp(hash, "#/problem/", 10)) {
        snprintf(kind, klen, "problem");
        snprintf(slug, slen, "%s", hash + 10);
    } else if (hash && !strncmp(hash, "#/assignments/", 14)) {
        snprintf(kind, klen, "assignment");
        snprintf(slug, slen, "%s", hash + 14);
    }
}

/* Checks the link's target exists for u; NULL or the 404. */
static struct http_response *target_gate(struct app *a, struct store *s, const struct caller *me,
                                         const char *kind, const char *slug)
{
    if (!names_slug_valid(slug))
        return http_error(404, "not_found", "the link names no valid %s", kind);
    if (!strcmp(kind, "problem"))
        return request_problem_gate(a, me, slug, false);
    struct store_assignment as;
    int rc = store_assignment_get(s, slug, &as, NULL, NULL);
    if (rc < 0)
        return request_internal("lti launch: assignment", s);
    if (rc == STORE_NOT_FOUND)
        return http_error(404, "not_found", "no assignment '%s'", slug);
    return NULL;
}

/* Records the resource link's target and the services its launch names. */
static int record_link(struct store *s, int64_t platform_id, const struct lti_claims *c,
                       const char *kind, const char *slug)
{
    struct lti_link l;
    memset(&l, 0, sizeof l);
    l.platform_id = platform_id;
    copy_utf8(l.deployment_id, sizeof l.deployment_id, c->deployment_id);
    copy_utf8(l.context_id, sizeof l.context_id, c->context_id);
    copy_utf8(l.resource_link_id, sizeof l.resource_link_id, c->resource_link_id);
    snprintf(l.kind, sizeof l.kind, "%s", kind);
    snprintf(l.slug, sizeof l.slug, "%s", slug);
    if (c->ags_lineitems)
        copy_utf8(l.ags_lineitems_url, sizeof l.ags_lineitems_url, c->ags_lineitems);
    if (c->ags_lineitem)
        copy_utf8(l.ags_lineitem_url, sizeof l.ags_lineitem_url, c->ags_lineitem);
    snprintf(l.ags_scopes, sizeof l.ags_scopes, "%s", c->ags_scopes);
    if (c->nrps_url)
        copy_utf8(l.nrps_url, sizeof l.nrps_url, c->nrps_url);
    int64_t id;
    return lti_store_link_put(s, &l, clock_wall_ms(), &id);
}

/* Opens the session of u and answers with the redirect to page (taken),
 * the session cookie set for a cross-site frame, the state cookie
 * cleared. */
static struct http_response *sign_in(struct app *a, struct store *s, struct http_request *req,
                                     const struct store_user *u, char *page, const char *state)
{
    char token[AUTH_TOKEN_HEX], hash[AUTH_TOKEN_HEX], cookie[320];
    int64_t now = clock_wall_ms(), expires = now + a->cfg->session_ttl_s * 1000;
    if (auth_new_token(token, hash) < 0 || store_session_create(s, hash, u->id, now, expires) < 0) {
        free(page);
        return request_internal("lti launch: session", s);
    }
    snprintf(req->user, sizeof req->user, "%s", u->username);
    struct http_response *r = redirect(303, page);
    if (r) {
        snprintf(cookie, sizeof cookie,
                 ACCOUNTS_SESSION_COOKIE "=%s; Path=/; Max-Age=%lld; HttpOnly; SameSite=None; "
                                         "Secure",
                 token, (long long)a->cfg->session_ttl_s);
        http_add_header(r, "Set-Cookie", cookie);
        snprintf(cookie, sizeof cookie,
                 LTI_STATE_COOKIE "%.16s=; Path=/lti/launch; Max-Age=0; HttpOnly; SameSite=None; "
                                  "Secure",
                 state);
        http_add_header(r, "Set-Cookie", cookie);
    }
    sodium_memzero(token, sizeof token);
    return r;
}

/* The state of the form, checked against this browser's cookie; its
 * storage hash into hash. NULL or the 401. */
static struct http_response *check_state(const struct http_request *req, const char *state,
                                         char hash[AUTH_TOKEN_HEX])
{
    char name[64];
    if (!state || !state[0])
        return http_error(401, "lti_bad_state", "the launch carries no state");
    snprintf(name, sizeof name, LTI_STATE_COOKIE "%.16s", state);
    const char *cookie = http_cookie(req, name);
    if (!cookie || !auth_equal(cookie, state) || auth_token_hash(state, hash) < 0)
        return http_error(401, "lti_bad_state",
                          "the state is not the one this browser's login started (cookies "
                          "blocked, or another browser)");
    return NULL;
}

struct http_response *lti_launch(struct app *a, struct http_request *req, const struct caller *me)
{
    struct http_response *r = unconfigured(a);
    char *token = NULL, *state = NULL, *error = NULL, state_hash[AUTH_TOKEN_HEX], err[256];
    json_t *peek = NULL, *claims = NULL;
    struct store *s = NULL;
    struct lti_platform p;
    struct lti_claims c;
    struct store_user u;
    (void)me;
    if (r)
        return r;
    if ((error = lti_form_get(req->body, req->body_len, "error"))) {
        r = http_error(400, "lti_platform_error", "the platform refused the login: %.100s", error);
        goto out;
    }
    token = lti_form_get(req->body, req->body_len, "id_token");
    state = lti_form_get(req->body, req->body_len, "state");
    if ((r = check_state(req, state, state_hash)))
        goto out;
    if (!token) {
        r = http_error(400, "lti_bad_token", "the launch carries no id_token");
        goto out;
    }
    const char *iss = NULL, *client = NULL;
    if (!(peek = lti_jwt_peek(token)) || !(iss = json_string_value(json_object_get(peek, "iss"))) ||
        !(client = token_client(peek))) {
        r = http_error(401, "lti_bad_token", "the id_token names no issuer and audience");
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = lti_store_platform_find(s, iss, client, &p);
    if (rc < 0) {
        r = request_internal("lti launch", s);
        goto out;
    }
    if (rc != 0) {
        r = http_error(401, "lti_unknown_platform",
                       "no platform is registered for this issuer "
                       "and audience");
        goto out;
    }
    /* the connection is not held during the fetch of the platform's keys */
    store_pool_put(a->pool, s);
    s = NULL;
    if (!(claims = lti_jwt_verify(a->lti->jwks, p.jwks_url, token, err, sizeof err))) {
        r = http_error(401, "lti_bad_token", "%s", err);
        goto out;
    }
    int64_t now = clock_wall_ms();
    if (lti_claims_read(claims, p.issuer, p.client_id, now, &c, err, sizeof err) < 0) {
        r = http_error(401, "lti_bad_token", "%s", err);
        goto out;
    }
    s = store_pool_get(a->pool);
    if ((rc = lti_store_deployment_known(s, p.id, c.deployment_id)) != 0) {
        r = rc < 0 ? request_internal("lti launch", s)
                   : http_error(403, "lti_unknown_deployment",
                                "the deployment is not registered for this platform");
        goto out;
    }
    rc = lti_store_login_spend(s, p.id, c.nonce, state_hash, now);
    if (rc != 0) {
        r = rc < 0              ? request_internal("lti launch", s)
            : rc == STORE_STALE ? http_error(401, "lti_replay", "this nonce was used already")
                                : http_error(401, "lti_bad_nonce",
                                             "the nonce is not the one this login issued (or "
                                             "the login expired)");
        goto out;
    }
    if (!c.context_id) {
        r = http_error(403, "lti_no_course", "the launch names no course (context)");
        goto out;
    }
    rc = lti_store_context_owner(s, p.id, c.deployment_id, c.context_id);
    if (rc < 0) {
        r = request_internal("lti launch", s);
        goto out;
    }
    if (rc == STORE_EXISTS || (rc == STORE_NOT_FOUND && !c.instructor)) {
        r = http_error(403, "lti_course_not_owned",
                       rc == STORE_EXISTS ? "this course belongs to another deployment"
                                          : "this course is not set up here for this platform: "
                                            "an instructor must open the tool from it first");
        goto out;
    }
    if (c.message == LTI_DEEP_LINKING && !c.instructor) {
        r = http_error(403, "forbidden", "only instructors may add content");
        goto out;
    }
    if (launch_user(s, p.issuer, &c, &u) < 0) {
        r = request_internal("lti launch: user", s);
        goto out;
    }
    if (rc == STORE_NOT_FOUND) {
        char title[256] = "";
        if (c.context_title)
            copy_utf8(title, sizeof title, c.context_title);
        if ((rc = lti_store_context_bind(s, p.id, c.deployment_id, c.context_id, title, u.id,
                                         now)) != 0) {
            r = rc < 0 ? request_internal("lti launch: course", s)
                       : http_error(403, "lti_course_not_owned",
                                    "this course belongs to another deployment");
            goto out;
        }
    }
    struct caller who;
    memset(&who, 0, sizeof who);
    who.signed_in = true;
    who.instructor = !strcmp(u.role, "instructor");
    who.u = u;
    char *page = NULL;
    if (c.message == LTI_DEEP_LINKING) {
        char *ctx = lti_picker_context(a->lti, u.id, p.id, &c);
        if (!ctx || asprintf(&page, "%s/lti/deep-link?ctx=%s", a->cfg->public_url, ctx) < 0)
            page = NULL;
        free(ctx);
    } else {
        char kind[16], slug[128];
        link_target(a, &c, kind, sizeof kind, slug, sizeof slug);
        if (kind[0]) {
            if ((r = target_gate(a, s, &who, kind, slug)))
                goto out;
            if (record_link(s, p.id, &c, kind, slug) < 0) {
                r = request_internal("lti launch: link", s);
                goto out;
            }
        }
        int n = !kind[0] ? asprintf(&page, "%s/?" LTI_LAUNCHED "#/problems", a->cfg->public_url)
                         : asprintf(&page, "%s/?" LTI_LAUNCHED "#/%s%s", a->cfg->public_url,
                                    !strcmp(kind, "problem") ? "problem/" : "assignments/", slug);
        if (n < 0)
            page = NULL;
    }
    if (!page)
        goto out; /* out of memory: r NULL */
    r = sign_in(a, s, req, &u, page, state);
    if (r && r->status == 303)
        ratelimit_refund(a->auth_rl, req->remote, clock_wall_ms());
out:
    store_pool_put(a->pool, s);
    json_decref(peek);
    json_decref(claims);
    if (state)
        sodium_memzero(state, strlen(state));
    free(state);
    free(token);
    free(error);
    return r;
}

/* ---- GET /lti/jwks ---- */

struct http_response *lti_jwks(struct app *a, struct http_request *req, const struct caller *me)
{
    (void)req;
    (void)me;
    if (!a->lti)
        return http_error(503, "lti_unconfigured", "LTI is not available");
    return http_json(200, lti_keys_jwks(a->lti->keys));
}
