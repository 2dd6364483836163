/*
 * routes — the route table, and the gates every request passes before its
 * handler (routes.h).
 *
 * A table maps (method, path pattern) to a handler, who may call it
 * (anyone, signed in, instructors) and how large its body may be. Patterns
 * have literal segments and `*`, which matches one segment and is handed to
 * the handler (a slug or an id, validated by the handler). Paths outside
 * /api/, /healthz and /metrics are static files of the web UI (static.c).
 * Each handler lives with its resource (server/app.h) and only answers:
 * who is calling is resolved here, once, and every gate below is applied
 * here, so that a route added later is covered by all of them.
 *
 * Trust: everything in a request is hostile until checked (request.c for
 * bodies, ids and lengths; the handler for slugs and names). Error
 * responses are the JSON shape of docs/api.md and never contain internal
 * paths or database messages: those go to the log.
 *
 * Authentication: `Authorization: Bearer <token>` or the HttpOnly session
 * cookie; either way only the token's hash is looked up. For a route with
 * a body this already happens in the header phase (admit_early), so an
 * unauthorized body is never read. A state-changing
 * request authenticated by cookie must prove it comes from our own pages:
 * a same-origin Origin header, or a JSON body, which another site cannot
 * send without a CORS preflight that is never granted (SameSite=Strict
 * already stops browsers; this is a second lock, and the one that holds for
 * a sibling site on the same registrable domain).
 */
#include "server/routes.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/accounts.h"
#include "server/assignments.h"
#include "server/catalog_api.h"
#include "server/classlist.h"
#include "server/client.h"
#include "server/drafts.h"
#include "server/grades.h"
#include "server/hints.h"
#include "server/integrity.h"
#include "server/lti_outbox_api.h"
#include "server/lti_roster.h"
#include "server/lti.h"
#include "server/lti_api.h"
#include "server/lti_deeplink.h"
#include "server/ops.h"
#include "server/preview.h"
#include "server/rejudge.h"
#include "server/request.h"
#include "server/runs_api.h"
#include "server/static.h"
#include "server/submissions.h"
#include "util/clock.h"

#define SMALL_BODY (16 * 1024)
#define FORM_BODY (64 * 1024)

enum need { ANYONE, SIGNED_IN, INSTRUCTOR };
/* FORM: an LTI form post from a platform, anonymous by nature, whose
 * id_token may outgrow SMALL */
enum body { NO_BODY, SMALL, SUBMISSION, PACKAGE, FORM };
/* Whether a route open to anyone looks its caller up (a route that needs a
 * caller always does, and so does every route of a private course):
 * CALLER gates the caller as a signed-in route would; CALLER_VIEW only
 * shapes the answer by who asks, so whatever does not identify reads as an
 * anonymous visitor and no gate applies (view_caller). */
enum lookup { NO_CALLER, CALLER, CALLER_VIEW };

struct route {
    enum http_method method;
    const char *pattern;
    handler_fn *fn;
    enum need need;
    enum body body;
    enum lookup lookup;
};

static const struct route routes[] = {
    {HTTP_GET, "/healthz", ops_healthz, ANYONE, NO_BODY, NO_CALLER},
    {HTTP_GET, "/metrics", ops_metrics, ANYONE, NO_BODY, CALLER},
    {HTTP_POST, "/api/users", accounts_create, ANYONE, SMALL, CALLER},
    {HTTP_POST, "/api/sessions", accounts_sign_in, ANYONE, SMALL, NO_CALLER},
    {HTTP_DELETE, "/api/sessions", accounts_sign_out, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/me", accounts_me, SIGNED_IN, NO_BODY, NO_CALLER},
    /* before users/{name}: "me" is reserved (auth_username_reserved) */
    {HTTP_POST, "/api/users/me/password", accounts_change, SIGNED_IN, SMALL, NO_CALLER},
    {HTTP_POST, "/api/users/*/password", accounts_reset, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_GET, "/api/users", classlist_list, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_PATCH, "/api/users/*", classlist_patch, INSTRUCTOR, SMALL, NO_CALLER},
    /* a class list of a few thousand lines: the package limit */
    {HTTP_POST, "/api/users/import", classlist_import, INSTRUCTOR, PACKAGE, NO_CALLER},
    {HTTP_GET, "/api/vocabulary", ops_vocabulary, ANYONE, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/problems", catalog_api_list, ANYONE, NO_BODY, CALLER},
    {HTTP_POST, "/api/problems", catalog_api_create, INSTRUCTOR, PACKAGE, NO_CALLER},
    {HTTP_GET, "/api/problems/*", catalog_api_get, ANYONE, NO_BODY, CALLER_VIEW},
    {HTTP_PUT, "/api/problems/*", catalog_api_put, INSTRUCTOR, PACKAGE, NO_CALLER},
    {HTTP_PATCH, "/api/problems/*", catalog_api_patch, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_DELETE, "/api/problems/*", catalog_api_delete, INSTRUCTOR, NO_BODY, NO_CALLER},
    /* a statement of any size an upload may have: the package limit */
    {HTTP_POST, "/api/statement-preview", preview_statement, INSTRUCTOR, PACKAGE, NO_CALLER},
    {HTTP_POST, "/api/problems/*/rejudge", rejudge_problem, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_POST, "/api/problems/*/hints/*", hints_open, SIGNED_IN, SMALL, NO_CALLER},
    {HTTP_GET, "/api/problems/*/hint-log", hints_log, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/problems/*/walkthrough", hints_walkthrough, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_PUT, "/api/problems/*/walkthrough", hints_set_date, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_GET, "/api/problems/*/samples", catalog_api_samples, ANYONE, NO_BODY, CALLER},
    {HTTP_GET, "/api/problems/*/sources", integrity_sources, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/problems/*/similarity", integrity_similarity, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_POST, "/api/submissions", submissions_create, SIGNED_IN, SUBMISSION, NO_CALLER},
    {HTTP_GET, "/api/submissions", submissions_list, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/submissions/*", submissions_get, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_POST, "/api/submissions/*/cancel", submissions_cancel, SIGNED_IN, SMALL, NO_CALLER},
    {HTTP_POST, "/api/submissions/*/rejudge", rejudge_submission, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_GET, "/api/rejudges", rejudge_list, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/rejudges/*", rejudge_report, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/lti/outbox", lti_outbox_list, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_POST, "/api/lti/outbox/*/retry", lti_outbox_retry, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_GET, "/api/lti/links", lti_links_list, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_POST, "/api/lti/links/*/roster", lti_roster_sync, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_POST, "/api/runs", runs_api_create, SIGNED_IN, SUBMISSION, NO_CALLER},
    {HTTP_GET, "/api/runs/*", runs_api_get, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/leaderboard/*", submissions_leaderboard, ANYONE, NO_BODY, CALLER},
    {HTTP_GET, "/api/grades.csv", grades_csv, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/grades/course.csv", grades_course_csv, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/drafts/*", drafts_get, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_PUT, "/api/drafts/*", drafts_put, SIGNED_IN, SUBMISSION, NO_CALLER},
    {HTTP_DELETE, "/api/drafts/*", drafts_delete, SIGNED_IN, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/assignments", assignments_list, ANYONE, NO_BODY, CALLER},
    {HTTP_POST, "/api/assignments", assignments_create, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_GET, "/api/assignments/*", assignments_get, ANYONE, NO_BODY, CALLER},
    {HTTP_PUT, "/api/assignments/*", assignments_put, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_DELETE, "/api/assignments/*", assignments_delete, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/assignments/*/grades", assignments_grades, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_GET, "/api/assignments/*/grades.csv", assignments_grades_csv, INSTRUCTOR, NO_BODY,
     NO_CALLER},
    {HTTP_GET, "/api/lti/platforms", lti_api_list, INSTRUCTOR, NO_BODY, NO_CALLER},
    {HTTP_POST, "/api/lti/platforms", lti_api_add, INSTRUCTOR, SMALL, NO_CALLER},
    {HTTP_DELETE, "/api/lti/platforms/*", lti_api_remove, INSTRUCTOR, NO_BODY, NO_CALLER},
    /* LTI 1.3 (docs/lti.md): fixed paths an LMS administrator pastes;
     * login and launch come from the platform's site (lti_cross_site) */
    {HTTP_GET, "/lti/login", lti_login, ANYONE, NO_BODY, NO_CALLER},
    {HTTP_POST, "/lti/login", lti_login, ANYONE, FORM, NO_CALLER},
    {HTTP_POST, "/lti/launch", lti_launch, ANYONE, FORM, NO_CALLER},
    {HTTP_GET, "/lti/jwks", lti_jwks, ANYONE, NO_BODY, NO_CALLER},
    {HTTP_GET, "/lti/deep-link", lti_picker, ANYONE, NO_BODY, NO_CALLER},
    {HTTP_POST, "/lti/deep-link", lti_pick, ANYONE, FORM, NO_CALLER},
};

static const struct route static_route = {HTTP_GET, "", static_serve, ANYONE, NO_BODY, NO_CALLER};

#define N_ROUTES (sizeof routes / sizeof routes[0])

static const char *method_name(enum http_method m)
{
    static const char *const names[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "?"};
    return names[m];
}

/* Matches path against pattern; copies the `*` segment into param (two
 * of them as "first/second": no segment holds a '/'). */
static bool match(const char *pattern, const char *path, char *param, size_t plen)
{
    const char *p = pattern, *s = path;
    size_t used = 0;
    while (*p) {
        if (*p == '*') {
            const char *end = strchr(s, '/');
            size_t n = end ? (size_t)(end - s) : strlen(s), sep = used ? 1 : 0;
            if (n == 0 || used + sep + n >= plen)
                return false;
            if (sep)
                param[used++] = '/';
            memcpy(param + used, s, n);
            used += n;
            param[used] = '\0';
            s += n;
            p++;
            continue;
        }
        if (*p != *s)
            return false;
        p++;
        s++;
    }
    return *s == '\0';
}

static bool is_api_path(const char *path)
{
    return !strncmp(path, "/api/", 5) || !strcmp(path, "/api") || !strcmp(path, "/healthz") ||
           !strcmp(path, "/metrics") || !strncmp(path, "/lti/", 5);
}

static struct http_response *admit_early(struct app *a, struct http_request *req,
                                         const struct route *rt, size_t *max_body);

static struct http_response *begin(void *ctx, struct http_request *req, size_t *max_body);
static struct http_response *transient_503(struct http_response *r);

struct http_response *routes_begin(void *ctx, struct http_request *req, size_t *max_body)
{
    store_thread_transient(true);
    return transient_503(begin(ctx, req, max_body));
}

static struct http_response *begin(void *ctx, struct http_request *req, size_t *max_body)
{
    struct app *a = ctx;
    char allow[64] = "";
    enum http_method m = req->method == HTTP_HEAD ? HTTP_GET : req->method;
    *max_body = 0;
    if (!is_api_path(req->path)) {
        if (m != HTTP_GET) {
            struct http_response *r =
                http_error(405, "method_not_allowed", "%s is not allowed here", req->method_text);
            http_add_header(r, "Allow", "GET, HEAD");
            return r;
        }
        req->route = &static_route;
        return NULL;
    }
    for (size_t i = 0; i < N_ROUTES; i++) {
        char param[sizeof req->param];
        if (!match(routes[i].pattern, req->path, param, sizeof param))
            continue;
        if (routes[i].method != m) {
            size_t n = strlen(allow);
            snprintf(allow + n, sizeof allow - n, "%s%s", n ? ", " : "",
                     method_name(routes[i].method));
            if (routes[i].method == HTTP_GET && strlen(allow) + 6 < sizeof allow)
                strcat(allow, ", HEAD");
            continue;
        }
        req->route = &routes[i];
        memcpy(req->param, param, sizeof param);
        switch (routes[i].body) {
        case NO_BODY: *max_body = 0; break;
        case SMALL: *max_body = SMALL_BODY; break;
        /* JSON escaping can make the body several times the source. */
        case SUBMISSION: *max_body = (size_t)a->cfg->max_source_bytes * 4 + SMALL_BODY; break;
        case PACKAGE: *max_body = (size_t)a->cfg->max_package_bytes; break;
        case FORM: *max_body = FORM_BODY; break;
        }
        return admit_early(a, req, &routes[i], max_body);
    }
    if (allow[0]) {
        struct http_response *r = http_error(405, "method_not_allowed",
                                             "%s is not allowed on this path", req->method_text);
        http_add_header(r, "Allow", allow);
        return r;
    }
    return http_error(404, "not_found", "no such route");
}

/* Resolves the caller from the Authorization header or the cookie.
 * Returns NULL (me filled, maybe anonymous) or an error response. */
static struct http_response *identify(struct app *a, struct store *s,
                                      const struct http_request *req, bool required,
                                      struct caller *me)
{
    const char *h = http_header(req, "Authorization");
    const char *token = NULL;
    memset(me, 0, sizeof *me);
    if (h) {
        if (strncasecmp(h, "Bearer ", 7))
            return http_error(401, "unauthorized", "use 'Authorization: Bearer <token>'");
        token = h + 7;
        while (*token == ' ')
            token++;
    } else if ((token = http_cookie(req, ACCOUNTS_SESSION_COOKIE))) {
        me->via_cookie = true;
    }
    if (!token) {
        if (required)
            return http_error(401, "unauthorized", "sign in first (POST /api/sessions)");
        return NULL;
    }
    if (auth_token_hash(token, me->token_hash) < 0)
        return http_error(401, "unauthorized", "the session token is malformed");
    int rc = store_session_user(s, me->token_hash, clock_wall_ms(), &me->u);
    if (rc < 0)
        return request_internal("session lookup", s);
    if (rc == STORE_NOT_FOUND)
        return http_error(401, "unauthorized", "the session is unknown or has expired");
    me->signed_in = true;
    me->instructor = !strcmp(me->u.role, "instructor");
    (void)a;
    return NULL;
}

/* The LTI routes: they sign in (login, launch) or carry their own proof
 * (the JWKS is public; the picker's context is signed), so a private
 * course's gate does not apply to them. */
static bool lti_route(const struct route *rt)
{
    return rt->fn == lti_login || rt->fn == lti_launch || rt->fn == lti_jwks ||
           rt->fn == lti_picker || rt->fn == lti_pick;
}

/* /lti/login and /lti/launch are posted by the platform's pages, cross-site
 * by design: the same-origin rule of cookie writes does not apply to them
 * (a session cookie the browser sends along is not what they trust: state
 * and nonce protect them, docs/lti.md). No other route is exempt. */
static bool lti_cross_site(const struct route *rt)
{
    return rt->fn == lti_login || rt->fn == lti_launch;
}

/* A state-changing request authenticated by the cookie must come from our
 * own pages: a same-origin Origin header, or else a JSON body (a cross-site
 * form cannot declare one, a cross-site script only after a CORS preflight,
 * which this server never grants). A foreign Origin is refused even with
 * JSON. Returns NULL, or the 403 to send. */
static struct http_response *cookie_write_check(const struct app *a, const struct http_request *req)
{
    const char *origin = http_header(req, "Origin");
    if (origin) {
        if (client_origin_same(origin, http_header(req, "Host"), a->cfg->public_url))
            return NULL;
        return http_error(403, "cross_origin",
                          "cross-origin request refused: Origin '%.100s' is not this server%s",
                          origin, a->cfg->public_url[0] ? "" : " (see public_url)");
    }
    if (request_is_json_type(http_header(req, "Content-Type")))
        return NULL;
    return http_error(403, "cross_origin",
                      "a request signed in by the session cookie must carry this site's Origin "
                      "header or Content-Type: application/json");
}

/* A user whose password is one-time (a reset, or a generated first one)
 * may only see who they are, sign out, and change it: everything else is
 * 403 password_change_required until they do (docs/api.md, "Passwords").
 * Checked here, once, so that every route added later is covered. */
static struct http_response *must_change_check(const struct route *rt, const struct caller *me)
{
    if (!me->signed_in || !me->u.must_change_password || rt->fn == accounts_me ||
        rt->fn == accounts_sign_out || rt->fn == accounts_change)
        return NULL;
    return http_error(403, "password_change_required",
                      "your password is a one-time password: choose your own first (POST "
                      "/api/users/me/password)");
}

/* course_visibility = private (docs/operations.md, "Privacy"): an
 * anonymous caller may only sign in (and sign up, as registration allows),
 * read the vocabulary the sign-in page needs, and reach the operators'
 * endpoints; everything else is 401. The web UI's files stay public: they
 * hold no course data, and the sign-in page is one of them. */
static struct http_response *private_gate(const struct app *a, const struct route *rt,
                                          const struct caller *me)
{
    if (!a->cfg->course_private || me->signed_in || rt == &static_route ||
        rt->fn == accounts_sign_in || rt->fn == accounts_create || rt->fn == ops_vocabulary ||
        rt->fn == ops_healthz || rt->fn == ops_metrics || lti_route(rt))
        return NULL;
    return http_error(401, "unauthorized", "this course is private: sign in first");
}

/* The caller of a CALLER_VIEW route: a stale or malformed session, or
 * even a failed lookup, reads as an anonymous visitor. */
static void view_caller(struct app *a, struct http_request *req, struct caller *me)
{
    struct store *s = store_pool_get(a->pool);
    struct http_response *r = identify(a, s, req, false, me);
    store_pool_put(a->pool, s);
    if (r) {
        http_response_free(r);
        memset(me, 0, sizeof *me);
    }
    if (me->signed_in)
        snprintf(req->user, sizeof req->user, "%s", me->u.username);
}

static struct http_response *serve(void *ctx, struct http_request *req);

/* A handler's 500 that came from a transient database failure (the
 * database restarting, a lock wait timed out) is a 503 with Retry-After:
 * the request may simply be repeated; the pool's connections reconnect by
 * themselves (server/db.h). */
static struct http_response *transient_503(struct http_response *r)
{
    if (!store_thread_transient(true) || !r || r->status != 500)
        return r;
    http_response_free(r);
    return request_retry_after(
        http_error(503, "unavailable", "the database is unavailable for the moment; retry shortly"),
        2);
}

struct http_response *routes_serve(void *ctx, struct http_request *req)
{
    store_thread_transient(true);
    return transient_503(serve(ctx, req));
}

static struct http_response *serve(void *ctx, struct http_request *req)
{
    struct app *a = ctx;
    const struct route *rt = req->route;
    struct caller me;
    struct http_response *r = NULL;
    struct store *s = NULL;
    memset(&me, 0, sizeof me);
    if (!rt)
        return http_error(404, "not_found", "no such route");
    if (rt->need != ANYONE || rt->lookup == CALLER || a->cfg->course_private) {
        s = store_pool_get(a->pool);
        r = identify(a, s, req, rt->need != ANYONE, &me);
        store_pool_put(a->pool, s);
        if (r && rt->need == ANYONE && r->status == 401) {
            /* A route open to anyone serves a stale session as it serves
             * an anonymous visitor. */
            http_response_free(r);
            r = NULL;
            memset(&me, 0, sizeof me);
        }
        if (r)
            return r;
        if ((r = private_gate(a, rt, &me)))
            return r;
        if (me.signed_in)
            snprintf(req->user, sizeof req->user, "%s", me.u.username);
        if (rt->need == INSTRUCTOR && !me.instructor)
            return http_error(403, "forbidden", "only instructors may do this");
        if ((r = must_change_check(rt, &me)))
            return r;
        if (me.via_cookie && rt->method != HTTP_GET && !lti_cross_site(rt) &&
            (r = cookie_write_check(a, req)))
            return r;
    } else if (rt->lookup == CALLER_VIEW) {
        view_caller(a, req, &me);
    }
    return rt->fn(a, req, &me);
}

/* Header phase of a route that takes a body: who is calling is known from
 * the headers alone, so a caller who may not use the route is refused
 * (401/403) before a byte of the body is read or buffered, and an
 * anonymous caller may send only a small body. routes_serve checks again
 * (this is only the early gate): the body of an unauthenticated flood
 * never reaches memory. */
static struct http_response *admit_early(struct app *a, struct http_request *req,
                                         const struct route *rt, size_t *max_body)
{
    struct caller me;
    if (rt->body == NO_BODY)
        return NULL; /* nothing to protect: any declared body is already 413 */
    if (rt->need != ANYONE || rt->lookup == CALLER) {
        struct store *s = store_pool_get(a->pool);
        struct http_response *r = identify(a, s, req, rt->need != ANYONE, &me);
        store_pool_put(a->pool, s);
        if (r)
            return r;
        if (rt->need == INSTRUCTOR && !me.instructor)
            return http_error(403, "forbidden", "only instructors may do this");
        if ((r = must_change_check(rt, &me)))
            return r;
        struct http_response *r2;
        if (me.via_cookie && rt->method != HTTP_GET && !lti_cross_site(rt) &&
            (r2 = cookie_write_check(a, req)))
            return r2;
    } else {
        memset(&me, 0, sizeof me);
    }
    if (!me.signed_in && *max_body > SMALL_BODY && rt->body != FORM)
        *max_body = SMALL_BODY;
    return NULL;
}
