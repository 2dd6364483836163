/*
 * routes — theory of operation.
 *
 * A table maps (method, path pattern) to a handler, who may call it
 * (anyone, signed in, instructors) and how large its body may be. Patterns
 * have literal segments and `*`, which matches one segment and is handed to
 * the handler (a slug or an id, validated by the handler). Paths outside
 * /api/, /healthz and /metrics are static files of the web UI (static.c).
 *
 * Trust: everything in a request is hostile until checked. Bodies must be
 * declared application/json, parse as one JSON object (jansson rejects
 * invalid UTF-8, \u0000 and, with the flag below, duplicate keys), carry
 * only the documented fields with the documented types; slugs, usernames
 * and ids are checked against their grammars before they reach SQL (which
 * binds every value anyway) or the filesystem. Error responses are the
 * JSON shape of docs/api.md and never contain internal paths or database messages:
 * those go to the log.
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
 *
 * Sign-in is limited twice: per client address (all attempts) and per
 * account (failed attempts only), the latter shared by every client that
 * does not hold a device cookie for the account (docs/operations.md).
 */
#include "server/routes.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/accounts.h"
#include "server/assignments.h"
#include "server/classlist.h"
#include "server/grades.h"
#include "server/drafts.h"
#include "server/integrity.h"
#include "server/hints.h"
#include "server/preview.h"
#include "server/rejudge.h"
#include "server/static.h"
#include "server/views.h"
#include "util/clock.h"
#include "util/isotime.h"

#define COOKIE "attnjudge_session"
#define DEVICE_COOKIE "attnjudge_device"
#define DEVICE_COOKIE_AGE (180 * 24 * 3600) /* seconds: a long course */
#define SMALL_BODY (16 * 1024)

enum need { ANYONE, SIGNED_IN, INSTRUCTOR };
enum body { NO_BODY, SMALL, SUBMISSION, PACKAGE };

struct caller {
    bool signed_in, instructor, via_cookie;
    struct store_user u;
    char token_hash[AUTH_TOKEN_HEX];
};

typedef struct http_response *handler_fn(struct app *a, struct http_request *req,
                                         const struct caller *me);

struct route {
    enum http_method method;
    const char *pattern;
    handler_fn *fn;
    enum need need;
    enum body body;
    bool want_caller; /* look the caller up even if anyone may call */
};

static handler_fn h_healthz, h_metrics, h_users_create, h_sessions_create, h_sessions_delete, h_me,
    h_problems_list, h_problems_create, h_problem_get, h_problem_put, h_rejudge, h_submit,
    h_submissions_list, h_submission_get, h_leaderboard, h_grades, h_static;
static handler_fn h_submission_cancel, h_vocabulary;
static handler_fn h_hint_open, h_hint_log, h_walkthrough_get, h_walkthrough_put;
static handler_fn h_run_create, h_run_get, h_problem_samples;
static handler_fn h_problem_patch, h_problem_delete;
static handler_fn h_password_change, h_password_reset;
static handler_fn h_submission_rejudge, h_rejudges_list, h_rejudge_get;
static handler_fn h_assignments_list, h_assignment_create, h_assignment_get, h_assignment_put,
    h_assignment_delete, h_assignment_grades, h_assignment_grades_csv, h_grades_course;
static handler_fn h_users_list, h_user_patch, h_users_import;
static handler_fn h_draft_get, h_draft_put, h_draft_delete;
static handler_fn h_problem_sources, h_problem_similarity;
static handler_fn h_statement_preview;

static const struct route routes[] = {
    {HTTP_GET, "/healthz", h_healthz, ANYONE, NO_BODY, false},
    {HTTP_GET, "/metrics", h_metrics, ANYONE, NO_BODY, true},
    {HTTP_POST, "/api/users", h_users_create, ANYONE, SMALL, true},
    {HTTP_POST, "/api/sessions", h_sessions_create, ANYONE, SMALL, false},
    {HTTP_DELETE, "/api/sessions", h_sessions_delete, SIGNED_IN, NO_BODY, false},
    {HTTP_GET, "/api/me", h_me, SIGNED_IN, NO_BODY, false},
    /* before users/{name}: "me" is reserved (auth_username_reserved) */
    {HTTP_POST, "/api/users/me/password", h_password_change, SIGNED_IN, SMALL, false},
    {HTTP_POST, "/api/users/*/password", h_password_reset, INSTRUCTOR, SMALL, false},
    {HTTP_GET, "/api/users", h_users_list, INSTRUCTOR, NO_BODY, false},
    {HTTP_PATCH, "/api/users/*", h_user_patch, INSTRUCTOR, SMALL, false},
    /* a class list of a few thousand lines: the package limit */
    {HTTP_POST, "/api/users/import", h_users_import, INSTRUCTOR, PACKAGE, false},
    {HTTP_GET, "/api/vocabulary", h_vocabulary, ANYONE, NO_BODY, false},
    {HTTP_GET, "/api/problems", h_problems_list, ANYONE, NO_BODY, true},
    {HTTP_POST, "/api/problems", h_problems_create, INSTRUCTOR, PACKAGE, false},
    {HTTP_GET, "/api/problems/*", h_problem_get, ANYONE, NO_BODY, false},
    {HTTP_PUT, "/api/problems/*", h_problem_put, INSTRUCTOR, PACKAGE, false},
    {HTTP_PATCH, "/api/problems/*", h_problem_patch, INSTRUCTOR, SMALL, false},
    {HTTP_DELETE, "/api/problems/*", h_problem_delete, INSTRUCTOR, NO_BODY, false},
    /* a statement of any size an upload may have: the package limit */
    {HTTP_POST, "/api/statement-preview", h_statement_preview, INSTRUCTOR, PACKAGE, false},
    {HTTP_POST, "/api/problems/*/rejudge", h_rejudge, INSTRUCTOR, SMALL, false},
    {HTTP_POST, "/api/problems/*/hints/*", h_hint_open, SIGNED_IN, SMALL, false},
    {HTTP_GET, "/api/problems/*/hint-log", h_hint_log, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/problems/*/walkthrough", h_walkthrough_get, SIGNED_IN, NO_BODY, false},
    {HTTP_PUT, "/api/problems/*/walkthrough", h_walkthrough_put, INSTRUCTOR, SMALL, false},
    {HTTP_GET, "/api/problems/*/samples", h_problem_samples, ANYONE, NO_BODY, true},
    {HTTP_GET, "/api/problems/*/sources", h_problem_sources, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/problems/*/similarity", h_problem_similarity, INSTRUCTOR, NO_BODY, false},
    {HTTP_POST, "/api/submissions", h_submit, SIGNED_IN, SUBMISSION, false},
    {HTTP_GET, "/api/submissions", h_submissions_list, SIGNED_IN, NO_BODY, false},
    {HTTP_GET, "/api/submissions/*", h_submission_get, SIGNED_IN, NO_BODY, false},
    {HTTP_POST, "/api/submissions/*/cancel", h_submission_cancel, SIGNED_IN, SMALL, false},
    {HTTP_POST, "/api/submissions/*/rejudge", h_submission_rejudge, INSTRUCTOR, SMALL, false},
    {HTTP_GET, "/api/rejudges", h_rejudges_list, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/rejudges/*", h_rejudge_get, INSTRUCTOR, NO_BODY, false},
    {HTTP_POST, "/api/runs", h_run_create, SIGNED_IN, SUBMISSION, false},
    {HTTP_GET, "/api/runs/*", h_run_get, SIGNED_IN, NO_BODY, false},
    {HTTP_GET, "/api/leaderboard/*", h_leaderboard, ANYONE, NO_BODY, true},
    {HTTP_GET, "/api/grades.csv", h_grades, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/grades/course.csv", h_grades_course, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/drafts/*", h_draft_get, SIGNED_IN, NO_BODY, false},
    {HTTP_PUT, "/api/drafts/*", h_draft_put, SIGNED_IN, SUBMISSION, false},
    {HTTP_DELETE, "/api/drafts/*", h_draft_delete, SIGNED_IN, NO_BODY, false},
    {HTTP_GET, "/api/assignments", h_assignments_list, ANYONE, NO_BODY, true},
    {HTTP_POST, "/api/assignments", h_assignment_create, INSTRUCTOR, SMALL, false},
    {HTTP_GET, "/api/assignments/*", h_assignment_get, ANYONE, NO_BODY, true},
    {HTTP_PUT, "/api/assignments/*", h_assignment_put, INSTRUCTOR, SMALL, false},
    {HTTP_DELETE, "/api/assignments/*", h_assignment_delete, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/assignments/*/grades", h_assignment_grades, INSTRUCTOR, NO_BODY, false},
    {HTTP_GET, "/api/assignments/*/grades.csv", h_assignment_grades_csv, INSTRUCTOR, NO_BODY,
     false},
};

static const struct route static_route = {HTTP_GET, "", h_static, ANYONE, NO_BODY, false};

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
           !strcmp(path, "/metrics");
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

/* ---- helpers ---- */

static struct http_response *internal(const char *where, struct store *s)
{
    fprintf(stderr, "attnjudge: %s: %s\n", where, s ? store_error(s) : "failed");
    return http_error(500, "internal", "internal error; the server log has the details");
}

static bool is_json_type(const char *ct)
{
    if (!ct || strncasecmp(ct, "application/json", 16))
        return false;
    ct += 16;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    if (*ct == '\0')
        return true;
    if (*ct != ';')
        return false;
    /* The only parameter that makes sense is charset, and it must be UTF-8. */
    ct++;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return !strncasecmp(ct, "charset=utf-8", 13) || !strncasecmp(ct, "charset=\"utf-8\"", 15);
}

/* The request's body checked and unpacked by routes_json_body. */
static struct http_response *body_unpack(const struct http_request *req, json_t **root,
                                         const char *shape, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct http_response *r = routes_json_vbody(http_header(req, "Content-Type"), req->body,
                                                req->body_len, root, shape, fmt, ap);
    va_end(ap);
    return r;
}

struct http_response *routes_json_body(const char *content_type, const char *body, size_t len,
                                       json_t **root, const char *shape, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct http_response *r = routes_json_vbody(content_type, body, len, root, shape, fmt, ap);
    va_end(ap);
    return r;
}

struct http_response *routes_json_vbody(const char *content_type, const char *body, size_t len,
                                        json_t **root, const char *shape, const char *fmt,
                                        va_list ap)
{
    json_error_t jerr;
    *root = NULL;
    if (!is_json_type(content_type))
        return http_error(415, "unsupported_media_type",
                          "send the body as Content-Type: application/json");
    if (!body)
        return http_error(400, "bad_json", "the request body is empty");
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        return http_error(400, "bad_json", "invalid JSON at line %d, column %d: %s", jerr.line,
                          jerr.column, jerr.text);
    if (!json_is_object(o)) {
        json_decref(o);
        return http_error(400, "bad_json", "the body must be a JSON object");
    }
    const char *key;
    json_t *v, *tmp;
    json_object_foreach_safe(o, tmp, key, v)
    {
        if (json_is_null(v))
            json_object_del(o, key);
    }
    if (json_vunpack_ex(o, &jerr, JSON_STRICT, fmt, ap) != 0) {
        struct http_response *r =
            http_error(400, "invalid_request", "%s; this route takes %s", jerr.text, shape);
        json_decref(o);
        return r;
    }
    *root = o;
    return NULL;
}

/* Checks that a string field unpacked with its length (n bytes) is within
 * [min, max]; NULL (an absent optional field) passes. */
static struct http_response *field_len(const char *key, const char *v, size_t n, size_t min,
                                       size_t max)
{
    if (!v)
        return NULL;
    if (n < min)
        return http_error(400, "invalid_request", "field '%s' is too short (min %zu bytes)", key,
                          min);
    if (n > max)
        return http_error(400, "invalid_request", "field '%s' is too long (max %zu bytes)", key,
                          max);
    return NULL;
}

static bool parse_id(const char *s, int64_t *out)
{
    int64_t v = 0;
    if (!s || !*s || strlen(s) > 15)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return v > 0;
}

static bool parse_bool_param(const char *s, bool *out)
{
    if (!strcmp(s, "1") || !strcmp(s, "true")) {
        *out = true;
        return true;
    }
    if (!strcmp(s, "0") || !strcmp(s, "false")) {
        *out = false;
        return true;
    }
    return false;
}

static struct http_response *retry_after(struct http_response *r, int seconds)
{
    char v[16];
    snprintf(v, sizeof v, "%d", seconds < 1 ? 1 : seconds);
    http_add_header(r, "Retry-After", v);
    return r;
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
    } else if ((token = http_cookie(req, COOKIE))) {
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
        return internal("session lookup", s);
    if (rc == STORE_NOT_FOUND)
        return http_error(401, "unauthorized", "the session is unknown or has expired");
    me->signed_in = true;
    me->instructor = !strcmp(me->u.role, "instructor");
    (void)a;
    return NULL;
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
    if (is_json_type(http_header(req, "Content-Type")))
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
    if (!me->signed_in || !me->u.must_change_password || rt->fn == h_me ||
        rt->fn == h_sessions_delete || rt->fn == h_password_change)
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
        rt->fn == h_sessions_create || rt->fn == h_users_create || rt->fn == h_vocabulary ||
        rt->fn == h_healthz || rt->fn == h_metrics)
        return NULL;
    return http_error(401, "unauthorized", "this course is private: sign in first");
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
    return retry_after(
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
    if (rt->need != ANYONE || rt->want_caller || a->cfg->course_private) {
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
        if (me.via_cookie && rt->method != HTTP_GET && (r = cookie_write_check(a, req)))
            return r;
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
    if (rt->need != ANYONE || rt->want_caller) {
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
        if (me.via_cookie && rt->method != HTTP_GET && (r2 = cookie_write_check(a, req)))
            return r2;
    } else {
        memset(&me, 0, sizeof me);
    }
    if (!me.signed_in && *max_body > SMALL_BODY)
        *max_body = SMALL_BODY;
    return NULL;
}

/* ---- operations ---- */

/* The judge hosts alive (heartbeat within a lease), as JSON, with the
 * judging workers of those other than this process. */
struct hosts_seen {
    json_t *list;
    const char *self;
    int64_t now;
    int others_workers;
    bool with_stats; /* each host's judging counters too (/metrics) */
};

static int host_seen(void *arg, const struct store_host *h)
{
    struct hosts_seen *hs = arg;
    if (strcmp(h->name, hs->self))
        hs->others_workers += h->workers;
    json_t *o = json_pack("{s:s, s:I, s:i, s:i, s:I}", "name", h->name, "pid", (json_int_t)h->pid,
                          "workers", h->workers, "busy", h->busy, "seen_ms_ago",
                          (json_int_t)(hs->now - h->seen_at));
    json_t *stats = hs->with_stats && h->stats ? json_loads(h->stats, 0, NULL) : NULL;
    if (o && stats)
        json_object_set_new(o, "stats", stats);
    else
        json_decref(stats);
    return json_array_append_new(hs->list, o);
}

/* Reads the judge hosts alive into hs (hs->list: a new array). */
static int hosts_alive(struct app *a, struct store *s, struct hosts_seen *hs)
{
    hs->list = json_array();
    hs->self = queue_host_name(a->queue);
    hs->now = clock_wall_ms();
    hs->others_workers = 0;
    if (!hs->list)
        return -1;
    return store_hosts(s, hs->now - (int64_t)a->cfg->lease_s * 1000, host_seen, hs);
}

static struct http_response *h_healthz(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    int64_t queued = -1, judging = -1;
    struct hosts_seen hs = {0};
    (void)req;
    (void)me;
    struct store *s = store_pool_get(a->pool);
    bool db = store_queue_depth(s, &queued, &judging) == 0 && hosts_alive(a, s, &hs) == 0;
    if (!db)
        fprintf(stderr, "attnjudge: healthz: database: %s\n", store_error(s));
    store_pool_put(a->pool, s);
    bool sandbox = atomic_load(&a->sandbox_ok) != 0;
    /* A worker that could not open the database has exited: with none left
     * here or on a judge host nothing is judged (unavailable); with some
     * missing, judging is slower (degraded, still 200: the service works).
     * A front end with workers = 0 relies on the judge hosts alone. */
    int live = queue_workers_live(a->queue);
    bool ok = db && sandbox && live + hs.others_workers > 0;
    bool degraded = ok && live < a->cfg->workers;
    char why[96];
    if (!db)
        snprintf(why, sizeof why, "the database is not answering");
    else if (!sandbox)
        snprintf(why, sizeof why, "the sandbox self-test fails");
    else if (a->cfg->workers == 0)
        snprintf(why, sizeof why, "no judge host is alive");
    else
        snprintf(why, sizeof why, "%d of %d judging workers are running", live, a->cfg->workers);
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:o}", "status",
                  !ok        ? "unavailable"
                  : degraded ? "degraded"
                             : "ok",
                  "database", db ? "ok" : "error", "sandbox", sandbox ? "ok" : "error", "queued",
                  (json_int_t)queued, "judging", (json_int_t)judging, "workers", a->cfg->workers,
                  "workers_running", live, "judge_hosts", hs.list ? hs.list : json_array());
    if (o && (!ok || degraded))
        json_object_set_new(
            o, "error",
            json_pack("{s:s, s:s}", "code", degraded ? "degraded" : "unavailable", "message", why));
    return http_json(ok ? 200 : 503, o);
}

static struct http_response *h_metrics(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    int64_t queued = -1, judging = -1;
    size_t len = 0;
    /* The judging-time histograms time every judgement: public, they would
     * time a student's own hidden tests (docs/sandbox.md). So only the
     * operator's scraper on this host (a loopback peer that no proxy
     * forwarded) and instructors may read them. */
    bool local = client_is_loopback(req->remote) && !http_header(req, "X-Forwarded-For");
    if (!local && !me->instructor)
        return http_error(403, "forbidden",
                          "metrics are for this host's scraper and for instructors");
    struct hosts_seen hs = {.with_stats = true};
    struct store *s = store_pool_get(a->pool);
    if (store_queue_depth(s, &queued, &judging) < 0 || hosts_alive(a, s, &hs) < 0)
        fprintf(stderr, "attnjudge: metrics: %s\n", store_error(s));
    store_pool_put(a->pool, s);
    char *text = metrics_render(a->metrics, queued, judging, queue_workers_live(a->queue), &len);
    char *all = text ? metrics_append_hosts(text, &len, hs.list) : NULL;
    json_decref(hs.list);
    if (!all)
        return NULL;
    return http_response_new(200, "text/plain; version=0.0.4; charset=utf-8", all, len);
}

/* ---- accounts ---- */

static struct http_response *h_users_create(struct app *a, struct http_request *req,
                                            const struct caller *me)
{
    const char *username = NULL, *password = NULL, *code = NULL, *role = NULL;
    size_t n_user = 0, n_pass = 0, n_code = 0, n_role = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    char hash[AUTH_HASH_LEN];
    int64_t id = 0;

    if ((r = body_unpack(req, &o,
                         "{\"username\", \"password\": strings; \"class_code\", \"role\": "
                         "optional strings}",
                         "{s:s%, s:s%, s?s%, s?s%}", "username", &username, &n_user, "password",
                         &password, &n_pass, "class_code", &code, &n_code, "role", &role, &n_role)))
        return r;
    if ((r = field_len("username", username, n_user, 1, 64)) ||
        (r = field_len("password", password, n_pass, 0, AUTH_PASSWORD_MAX)) ||
        (r = field_len("class_code", code, n_code, 0, 128)) ||
        (r = field_len("role", role, n_role, 1, 16)))
        goto out;
    if (!role)
        role = "student";
    if (strcmp(role, "student") && strcmp(role, "instructor")) {
        r = http_error(400, "invalid_request", "role must be 'student' or 'instructor'");
        goto out;
    }
    if (!me->instructor) {
        /* Self-registration: only students, and only if the course allows. */
        int wait = ratelimit_take(a->auth_rl, req->remote, clock_wall_ms());
        if (wait) {
            r = retry_after(http_error(429, "rate_limited", "too many attempts; retry later"),
                            wait);
            goto out;
        }
        if (a->cfg->registration == REG_CLOSED) {
            r = http_error(403, "registration_closed",
                           "registration is closed; ask an instructor for an account");
            goto out;
        }
        if (a->cfg->registration == REG_CODE && (!code || !auth_equal(code, a->cfg->class_code))) {
            r = http_error(403, "invalid_class_code", "a valid class_code is required");
            goto out;
        }
        if (strcmp(role, "student")) {
            r = http_error(403, "forbidden", "only instructors may create instructors");
            goto out;
        }
    }
    if (!auth_username_valid(username) || auth_username_reserved(username)) {
        r = http_error(400, "invalid_username",
                       "a username is 1 to 32 letters, digits, '_', '.' or '-', starting with "
                       "a letter or digit (and not 'me')");
        goto out;
    }
    if (strlen(password) < AUTH_PASSWORD_MIN) {
        r = http_error(400, "weak_password", "a password needs at least %d characters",
                       AUTH_PASSWORD_MIN);
        goto out;
    }
    if (auth_hash_password(a->auth, password, hash) < 0) {
        r = NULL;
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = store_user_create(s, username, hash, role, clock_wall_ms(), &id);
    if (rc < 0) {
        r = internal("create user", s);
        goto out;
    }
    if (rc == STORE_EXISTS) {
        r = http_error(409, "username_taken", "that username is taken");
        goto out;
    }
    r = http_json(201, json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "username", username,
                                 "role", role));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

static struct http_response *h_sessions_create(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    const char *username = NULL, *password = NULL;
    size_t n_user = 0, n_pass = 0;
    int want_cookie = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    struct store_user u;
    bool cookie = false, known = false, ip_taken = false;
    char token[AUTH_TOKEN_HEX], hash[AUTH_TOKEN_HEX];
    char dev_id[AUTH_DEVICE_ID_LEN], device[AUTH_DEVICE_LEN], acct_key[64];
    (void)me;

    if ((r = body_unpack(req, &o,
                         "{\"username\", \"password\": strings; \"cookie\": optional true or "
                         "false}",
                         "{s:s%, s:s%, s?b}", "username", &username, &n_user, "password", &password,
                         &n_pass, "cookie", &want_cookie)))
        return r;
    if ((r = field_len("username", username, n_user, 1, 64)) ||
        (r = field_len("password", password, n_pass, 0, AUTH_PASSWORD_MAX)))
        goto out;
    cookie = want_cookie != 0;
    bool valid = auth_username_valid(username);
    /* A browser that signed in to this account before has a bucket of its
     * own and skips the per-address one: an attacker hammering the account,
     * or sharing the user's NAT, cannot lock it out. */
    known = valid && auth_device_check(a->auth, username, http_cookie(req, DEVICE_COOKIE), dev_id);
    int wait = known ? 0 : ratelimit_take(a->auth_rl, req->remote, clock_wall_ms());
    if (wait) {
        r = retry_after(http_error(429, "rate_limited", "too many attempts; retry later"), wait);
        goto out;
    }
    ip_taken = !known;
    if (valid) {
        /* Every name gets a bucket, existing or not: a 429 tells nothing
         * about which accounts exist. Failures only: refunded on success. */
        auth_signin_key(username, known ? dev_id : NULL, acct_key, sizeof acct_key);
        if ((wait = ratelimit_take(a->signin_rl, acct_key, clock_wall_ms()))) {
            r = retry_after(http_error(429, "rate_limited",
                                       "too many failed sign-ins to this account; retry in %d s",
                                       wait),
                            wait);
            goto out;
        }
    }
    s = store_pool_get(a->pool);
    int rc = valid ? store_user_by_name(s, username, &u) : STORE_NOT_FOUND;
    if (rc < 0) {
        r = internal("sign in", s);
        goto out;
    }
    /* Release the connection during the slow hash. */
    store_pool_put(a->pool, s);
    s = NULL;
    if (!auth_verify_password(a->auth, rc == 0 ? u.pwhash : NULL, password)) {
        r = http_error(401, "bad_credentials", "wrong username or password");
        goto out;
    }
    if (valid)
        ratelimit_refund(a->signin_rl, acct_key, clock_wall_ms());
    if (ip_taken)
        ratelimit_refund(a->auth_rl, req->remote, clock_wall_ms());
    if (!known)
        auth_device_new(a->auth, u.username, device);
    else
        snprintf(device, sizeof device, "%s", http_cookie(req, DEVICE_COOKIE));
    int64_t now = clock_wall_ms(), expires = now + a->cfg->session_ttl_s * 1000;
    s = store_pool_get(a->pool);
    if (auth_new_token(token, hash) < 0 || store_session_create(s, hash, u.id, now, expires) < 0) {
        r = internal("create session", s);
        goto out;
    }
    if (store_session_purge(s, now) < 0)
        fprintf(stderr, "attnjudge: purge sessions: %s\n", store_error(s));
    snprintf(req->user, sizeof req->user, "%s", u.username);
    json_t *body = json_pack("{s:o, s:{s:I, s:s, s:s, s:b}}", "expires_at", views_time(expires),
                             "user", "id", (json_int_t)u.id, "username", u.username, "role", u.role,
                             "must_change_password", u.must_change_password);
    /* With the cookie, the token stays out of JavaScript's reach. */
    if (body && !cookie)
        json_object_set_new(body, "token", json_string(token));
    r = http_json(200, body);
    if (r && cookie) {
        char v[256];
        snprintf(v, sizeof v, COOKIE "=%s; Path=/; Max-Age=%lld; HttpOnly; SameSite=Strict%s",
                 token, (long long)a->cfg->session_ttl_s, a->cfg->cookie_secure ? "; Secure" : "");
        http_add_header(r, "Set-Cookie", v);
    }
    if (r) {
        /* Sent to sign-in only; renewed at every sign-in. */
        char v[256];
        snprintf(v, sizeof v,
                 DEVICE_COOKIE "=%s; Path=/api/sessions; Max-Age=%d; HttpOnly; SameSite=Strict%s",
                 device, DEVICE_COOKIE_AGE, a->cfg->cookie_secure ? "; Secure" : "");
        http_add_header(r, "Set-Cookie", v);
    }
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

static struct http_response *h_sessions_delete(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    (void)req;
    struct store *s = store_pool_get(a->pool);
    int rc = store_session_delete(s, me->token_hash);
    struct http_response *r =
        rc < 0 ? internal("sign out", s) : http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    if (r && rc == 0)
        http_add_header(r, "Set-Cookie",
                        a->cfg->cookie_secure
                            ? COOKIE "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure"
                            : COOKIE "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
    return r;
}

static struct http_response *h_me(struct app *a, struct http_request *req, const struct caller *me)
{
    (void)a;
    (void)req;
    return http_json(200,
                     json_pack("{s:I, s:s, s:s, s:b, s:s?, s:s?}", "id", (json_int_t)me->u.id,
                               "username", me->u.username, "role", me->u.role,
                               "must_change_password", me->u.must_change_password, "display_name",
                               me->u.display_name[0] ? me->u.display_name : NULL, "student_id",
                               me->u.student_id[0] ? me->u.student_id : NULL));
}

/* The config's registration mode as the API names it. */
static const char *registration_name(enum config_registration r)
{
    switch (r) {
    case REG_CLOSED: return "closed";
    case REG_CODE: return "code";
    case REG_OPEN: break;
    }
    return "open";
}

/* The judge's vocabulary (judge_vocabulary_json), with this server's
 * source limit in place of the default and its registration mode, so that
 * the sign-up form asks for a class code only when one is needed, and the
 * machine's ceilings for the roofline (null when it does not benchmark). */
static struct http_response *h_vocabulary(struct app *a, struct http_request *req,
                                          const struct caller *me)
{
    (void)req;
    (void)me;
    json_t *o = judge_vocabulary_json();
    if (o &&
        (json_object_set_new(o, "max_source_kib",
                             json_integer((json_int_t)(a->cfg->max_source_bytes / 1024))) < 0 ||
         json_object_set_new(o, "registration",
                             json_string(registration_name(a->cfg->registration))) < 0 ||
         json_object_set_new(o, "course_visibility",
                             json_string(a->cfg->course_private ? "private" : "public")) < 0 ||
         json_object_set_new(o, "machine",
                             a->machine ? machine_peak_json(a->machine) : json_null()) < 0)) {
        json_decref(o);
        o = NULL;
    }
    return o ? http_json(200, o) : NULL;
}

/* ---- problems ---- */

static struct http_response *h_problems_list(struct app *a, struct http_request *req,
                                             const struct caller *me)
{
    size_t len = 0;
    (void)req;
    (void)me;
    char *text = catalog_list_json(a->catalog, me->instructor, clock_wall_ms(), &len);
    return text ? http_response_new(200, "application/json; charset=utf-8", text, len) : NULL;
}

static struct hints_caller hints_caller_of(const struct caller *me)
{
    return (struct hints_caller){me->signed_in ? me->u.id : 0, me->instructor};
}

/* The catalog's body plus the caller's hints and walkthrough state
 * (server/hints.c). The route is open to anyone: a session that does not
 * identify (expired) reads it as an anonymous visitor would. */
static struct http_response *h_problem_get(struct app *a, struct http_request *req,
                                           const struct caller *me)
{
    size_t len = 0;
    struct caller who;
    (void)me;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct store *s = store_pool_get(a->pool);
    struct http_response *r = identify(a, s, req, false, &who);
    if (r) {
        http_response_free(r);
        r = NULL;
        memset(&who, 0, sizeof who);
    }
    if (who.signed_in)
        snprintf(req->user, sizeof req->user, "%s", who.u.username);
    char *text = catalog_detail_json(a->catalog, req->param, who.instructor, clock_wall_ms(), &len);
    if (!text) {
        store_pool_put(a->pool, s);
        return http_error(404, "not_found", "no problem '%s'", req->param);
    }
    json_t *o = json_loadb(text, len, 0, NULL);
    free(text);
    struct hints_caller hc = hints_caller_of(&who);
    if (!o || hints_add_view(a, s, o, &hc, clock_wall_ms()) < 0)
        r = internal("problem view", s);
    else
        r = http_json(200, json_incref(o));
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

/* The optional "mistakes" member of an upload: {id: C source}, the files
 * mistakes/<id>.c of the package (docs/api.md). Ids must be slugs, since
 * they become file names; problem.json decides which are used. */
static struct http_response *upload_mistakes(json_t *o, size_t max, struct catalog_package *pkg)
{
    json_t *m = json_object_get(o, "mistakes"), *v;
    const char *id;
    pkg->n_mistakes = 0;
    if (!m || json_is_null(m))
        return NULL;
    if (!json_is_object(m))
        return http_error(400, "invalid_request",
                          "field 'mistakes' must be an object {id: C source}");
    if (json_object_size(m) > PROBLEM_MAX_MISTAKES)
        return http_error(400, "invalid_request", "field 'mistakes' has more than %d entries",
                          PROBLEM_MAX_MISTAKES);
    json_object_foreach(m, id, v)
    {
        if (!names_slug_valid(id))
            return http_error(400, "invalid_request", "mistakes: '%.64s' is not a valid id", id);
        if (!json_is_string(v) || json_string_length(v) < 1 || json_string_length(v) > max)
            return http_error(400, "invalid_request",
                              "mistakes.%s: must be a string of 1 to %zu bytes", id, max);
        pkg->mistake_id[pkg->n_mistakes] = id;
        pkg->mistake_c[pkg->n_mistakes++] = json_string_value(v);
    }
    return NULL;
}

/* The optional "hints" member of an upload: the texts of hints/1.md ... in
 * order (docs/api.md). The loader checks them again once written. */
static struct http_response *upload_hints(json_t *o, struct catalog_package *pkg)
{
    json_t *arr = json_object_get(o, "hints"), *v;
    size_t i;
    pkg->n_hints = 0;
    if (!arr)
        return NULL;
    if (!json_is_array(arr) || json_array_size(arr) > PROBLEM_MAX_HINTS)
        return http_error(400, "invalid_request",
                          "field 'hints' must be an array of at most %d Markdown strings",
                          PROBLEM_MAX_HINTS);
    json_array_foreach(arr, i, v)
    {
        if (!json_is_string(v) || json_string_length(v) < 1 ||
            json_string_length(v) > PROBLEM_HINT_MAX)
            return http_error(400, "invalid_request",
                              "hints[%zu]: must be a string of 1 to %d bytes", i, PROBLEM_HINT_MAX);
        pkg->hint_md[pkg->n_hints++] = json_string_value(v);
    }
    return NULL;
}

/* 422 invalid_problem: message is the first failure, as always; when the
 * package's schema or files failed to load, "errors" lists every error
 * with its field (docs/api.md). */
static struct http_response *invalid_problem(const char *message,
                                             const struct problem_errors *errors)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < errors->n; i++) {
        const struct problem_error *e = &errors->e[i];
        size_t n = strlen(e->field);
        const char *text = e->text;
        if (n && strncmp(text, e->field, n) == 0 && strncmp(text + n, ": ", 2) == 0)
            text += n + 2;
        json_array_append_new(list, json_pack("{s:s, s:s}", "field", e->field, "message", text));
    }
    if (!list || !errors->n) {
        json_decref(list);
        return http_error(422, "invalid_problem", "%s", message);
    }
    return http_json(422, json_pack("{s:{s:s, s:s}, s:o, s:I}", "error", "code", "invalid_problem",
                                    "message", message, "errors", list, "errors_not_listed",
                                    (json_int_t)errors->n_more));
}

static struct http_response *upload(struct app *a, struct http_request *req,
                                    const struct caller *me, const char *url_slug)
{
    size_t max = (size_t)a->cfg->max_package_bytes;
    struct catalog_package pkg = {0};
    size_t n_json = 0, n_md = 0, n_starter = 0, n_ref = 0, n_walk = 0, n_state = 0;
    json_t *o = NULL, *mistakes = NULL, *hints = NULL; /* borrowed from o */
    struct http_response *r;
    struct store *s = NULL;
    char err[2048], slug[80];
    int version = 0;
    struct problem_errors errors = {0};
    struct catalog_upload_note note = {0};

    if (url_slug && !names_slug_valid(url_slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((r = body_unpack(req, &o,
                         "{\"problem_json\", \"statement_md\", \"starter_c\", \"reference_c\": "
                         "strings; \"mistakes\": optional {id: C source}; \"hints\": optional "
                         "[Markdown]; \"walkthrough_md\": optional string; \"state\": optional "
                         "\"draft\" | \"published\" | \"archived\"}",
                         "{s:s%, s:s%, s:s%, s:s%, s?o, s?o, s?s%, s?s%}", "problem_json",
                         &pkg.problem_json, &n_json, "statement_md", &pkg.statement_md, &n_md,
                         "starter_c", &pkg.starter_c, &n_starter, "reference_c", &pkg.reference_c,
                         &n_ref, "mistakes", &mistakes, "hints", &hints, "walkthrough_md",
                         &pkg.walkthrough_md, &n_walk, "state", &pkg.state, &n_state)))
        return r;
    if (pkg.state && (strlen(pkg.state) != n_state || !catalog_state_valid(pkg.state))) {
        json_decref(o);
        return http_error(400, "invalid_state", "state must be draft, published or archived");
    }
    if ((r = field_len("problem_json", pkg.problem_json, n_json, 2, max)) ||
        (r = field_len("statement_md", pkg.statement_md, n_md, 1, max)) ||
        (r = field_len("starter_c", pkg.starter_c, n_starter, 1, max)) ||
        (r = field_len("reference_c", pkg.reference_c, n_ref, 1, max)) ||
        (r = field_len("walkthrough_md", pkg.walkthrough_md, n_walk, 1, max)) ||
        (r = upload_mistakes(o, max, &pkg)) || (r = upload_hints(o, &pkg)))
        goto out;
    s = store_pool_get(a->pool);
    int rc = catalog_upload(a->catalog, s, a->judge, url_slug, &pkg, me->u.id, &version, slug,
                            sizeof slug, &note, err, sizeof err, &errors);
    switch (rc) {
    case 0: break;
    case CATALOG_INVALID: r = invalid_problem(err, &errors); goto out;
    case CATALOG_EXISTS: r = http_error(409, "problem_exists", "%s", err); goto out;
    case CATALOG_MISMATCH: r = http_error(400, "slug_mismatch", "%s", err); goto out;
    default:
        fprintf(stderr, "attnjudge: problem upload: %s\n", err);
        r = http_error(500, "internal", "could not store the problem; see the server log");
        goto out;
    }
    /* math_note only when KaTeX could not check the math (docs/api.md) */
    r = http_json(version == 1 ? 201 : 200,
                  json_pack("{s:s, s:i, s:b, s:s*}", "slug", slug, "version", version,
                            "math_checked", note.math_checked, "math_note",
                            note.math_checked ? NULL : note.math_note));
    if (r) {
        char loc[128];
        snprintf(loc, sizeof loc, "/api/problems/%s", slug);
        http_add_header(r, "Location", loc);
    }
out:
    problem_errors_free(&errors);
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

static struct http_response *h_statement_preview(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    (void)me;
    return preview_statement(a, req);
}

static struct http_response *h_problems_create(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    return upload(a, req, me, NULL);
}

static struct http_response *h_problem_put(struct app *a, struct http_request *req,
                                           const struct caller *me)
{
    return upload(a, req, me, req->param);
}

/* PATCH /api/problems/{slug} {"state", "publish_at"}: either or both. A
 * state without publish_at clears the schedule; publish_at alone keeps
 * the state. */
static struct http_response *h_problem_patch(struct app *a, struct http_request *req,
                                             const struct caller *me)
{
    json_t *o = NULL, *at = NULL;
    const char *state = NULL;
    size_t n_state = 0;
    struct http_response *r;
    int64_t publish_at = 0;
    (void)me;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((r = body_unpack(req, &o,
                         "{\"state\": optional \"draft\" | \"published\" | \"archived\"; "
                         "\"publish_at\": optional ISO 8601 date-time or null}",
                         "{s?s%, s?o}", "state", &state, &n_state, "publish_at", &at)))
        return r;
    if (!state && !at) {
        r = http_error(400, "invalid_request", "give \"state\", \"publish_at\" or both");
        goto out;
    }
    if (state && (strlen(state) != n_state || !catalog_state_valid(state))) {
        r = http_error(400, "invalid_state", "state must be draft, published or archived");
        goto out;
    }
    if (at && !json_is_null(at) &&
        (!json_is_string(at) || isotime_parse(json_string_value(at), &publish_at) < 0 ||
         publish_at <= 0)) {
        r = http_error(400, "invalid_date",
                       "publish_at must be an ISO 8601 date-time with a time zone, or null");
        goto out;
    }
    struct store *s = store_pool_get(a->pool);
    char cur_state[16] = "";
    int64_t cur_at = 0;
    struct store_problem_version cur;
    int rc = store_problem_current(s, req->param, &cur);
    if (rc == 0) {
        snprintf(cur_state, sizeof cur_state, "%s", cur.state);
        cur_at = cur.publish_at;
        rc = catalog_set_state(a->catalog, s, req->param, state ? state : cur_state,
                               at      ? publish_at
                               : state ? 0
                                       : cur_at);
    } else if (rc == STORE_NOT_FOUND) {
        rc = CATALOG_NOT_FOUND;
    }
    if (rc == CATALOG_NOT_FOUND) {
        r = http_error(404, "not_found", "no problem '%s'", req->param);
    } else if (rc < 0) {
        r = internal("problem state", s);
    } else {
        size_t len = 0;
        char *text = catalog_detail_json(a->catalog, req->param, true, clock_wall_ms(), &len);
        json_t *d = text ? json_loadb(text, len, 0, NULL) : NULL;
        free(text);
        r = d ? http_json(200, json_pack("{s:s, s:O, s:O}", "slug", req->param, "state",
                                         json_object_get(d, "state"), "publish_at",
                                         json_object_get(d, "publish_at")))
              : NULL;
        json_decref(d);
    }
    store_pool_put(a->pool, s);
out:
    json_decref(o);
    return r;
}

static struct http_response *h_problem_delete(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    char err[256];
    (void)me;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct store *s = store_pool_get(a->pool);
    int rc = catalog_delete(a->catalog, s, req->param, err, sizeof err);
    struct http_response *r;
    if (rc == CATALOG_NOT_FOUND)
        r = http_error(404, "not_found", "%s", err);
    else if (rc == CATALOG_EXISTS)
        r = http_error(409, "has_submissions", "%s", err);
    else if (rc < 0) {
        fprintf(stderr, "attnjudge: delete problem: %s\n", err);
        r = http_error(500, "internal", "could not delete the problem; see the server log");
    } else
        r = http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    return r;
}

/* The problem of a submission, run or read by the caller: NULL when it may
 * be used, else the 404 (not offered to the caller) or, with for_submit,
 * the 409 problem_archived. */
static struct http_response *problem_gate(struct app *a, const struct caller *me, const char *slug,
                                          bool for_submit)
{
    int rc = catalog_access(a->catalog, slug, me->instructor, clock_wall_ms());
    if (rc == CATALOG_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", slug);
    if (rc == CATALOG_ARCHIVED && for_submit)
        return http_error(409, "problem_archived",
                          "problem '%s' is archived: it takes no more submissions", slug);
    return NULL;
}

static struct http_response *h_rejudge(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    json_t *o = NULL;
    struct http_response *r;
    if (req->body && (r = body_unpack(req, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    return rejudge_problem(a, req->param, me->u.id);
}

/* ---- assignments (server/assignments.c) ---- */

static struct assignments_caller assignments_caller_of(const struct caller *me)
{
    return (struct assignments_caller){me->signed_in ? me->u.id : 0, me->instructor};
}

static struct http_response *h_assignments_list(struct app *a, struct http_request *req,
                                                const struct caller *me)
{
    (void)req;
    struct assignments_caller who = assignments_caller_of(me);
    return assignments_list(a, &who);
}

static struct http_response *h_assignment_create(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    struct assignments_caller who = assignments_caller_of(me);
    return assignments_put(a, req, NULL, &who);
}

static struct http_response *h_assignment_get(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    struct assignments_caller who = assignments_caller_of(me);
    return assignments_get(a, req->param, &who);
}

static struct http_response *h_assignment_put(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    struct assignments_caller who = assignments_caller_of(me);
    return assignments_put(a, req, req->param, &who);
}

static struct http_response *h_assignment_delete(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    (void)me;
    return assignments_delete(a, req->param);
}

static struct http_response *h_assignment_grades(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    (void)me;
    return assignments_grades(a, req->param, false);
}

static struct http_response *h_assignment_grades_csv(struct app *a, struct http_request *req,
                                                     const struct caller *me)
{
    (void)me;
    return assignments_grades(a, req->param, true);
}

/* ---- the class list (server/classlist.c) ---- */

static struct http_response *h_users_list(struct app *a, struct http_request *req,
                                          const struct caller *me)
{
    (void)req;
    (void)me;
    return classlist_list(a);
}

static struct http_response *h_user_patch(struct app *a, struct http_request *req,
                                          const struct caller *me)
{
    (void)me;
    return classlist_patch(a, req, req->param);
}

static struct http_response *h_users_import(struct app *a, struct http_request *req,
                                            const struct caller *me)
{
    (void)me;
    return classlist_import(a, req);
}

/* ---- drafts (server/drafts.c) ---- */

static struct http_response *h_draft_get(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    return drafts_get(a, req->param, me->u.id, me->instructor);
}

static struct http_response *h_draft_put(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    return drafts_put(a, req, req->param, me->u.id, me->instructor);
}

static struct http_response *h_draft_delete(struct app *a, struct http_request *req,
                                            const struct caller *me)
{
    return drafts_delete(a, req->param, me->u.id, me->instructor);
}

/* ---- integrity (server/integrity.c) ---- */

static struct http_response *h_problem_sources(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    (void)me;
    return integrity_sources(a, req->param);
}

static struct http_response *h_problem_similarity(struct app *a, struct http_request *req,
                                                  const struct caller *me)
{
    (void)me;
    return integrity_similarity(a, req, req->param);
}

/* ---- rejudges (server/rejudge.c) ---- */

static struct http_response *h_submission_rejudge(struct app *a, struct http_request *req,
                                                  const struct caller *me)
{
    json_t *o = NULL;
    struct http_response *r;
    if (req->body && (r = body_unpack(req, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    return rejudge_submission(a, req->param, me->u.id);
}

static struct http_response *h_rejudges_list(struct app *a, struct http_request *req,
                                             const struct caller *me)
{
    (void)req;
    (void)me;
    return rejudge_list(a);
}

static struct http_response *h_rejudge_get(struct app *a, struct http_request *req,
                                           const struct caller *me)
{
    (void)me;
    return rejudge_report(a, req->param);
}

/* ---- passwords (server/accounts.c) ---- */

static struct accounts_caller accounts_caller_of(const struct caller *me)
{
    return (struct accounts_caller){me->u.id, me->u.username, me->token_hash};
}

static struct http_response *h_password_change(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    struct accounts_caller who = accounts_caller_of(me);
    return accounts_change(a, req, &who);
}

static struct http_response *h_password_reset(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    struct accounts_caller who = accounts_caller_of(me);
    return accounts_reset(a, req, req->param, &who);
}

/* ---- hints and walkthroughs (server/hints.c) ---- */

static struct http_response *h_hint_open(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    json_t *o = NULL;
    struct http_response *r;
    struct hints_caller hc = hints_caller_of(me);
    char slug[sizeof req->param];
    snprintf(slug, sizeof slug, "%.*s", (int)strcspn(req->param, "/"), req->param);
    if (names_slug_valid(slug) && (r = problem_gate(a, me, slug, false)))
        return r;
    if (req->body && (r = body_unpack(req, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    return hints_open(a, req->param, &hc);
}

static struct http_response *h_hint_log(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    (void)me;
    return hints_log(a, req->param);
}

static struct http_response *h_walkthrough_get(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    struct hints_caller hc = hints_caller_of(me);
    struct http_response *r;
    if (names_slug_valid(req->param) && (r = problem_gate(a, me, req->param, false)))
        return r;
    return hints_walkthrough(a, req->param, &hc);
}

static struct http_response *h_walkthrough_put(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    struct hints_caller hc = hints_caller_of(me);
    return hints_set_date(a, req, req->param, &hc);
}

/* ---- submissions ---- */

/* 429 for a user who has user_queue_max submissions queued or judging;
 * Retry-After is about one judgement. */
static struct http_response *user_queue_full(struct app *a, struct store *s)
{
    int64_t judging = 0;
    double mean_ms = 0;
    int wait = 5;
    if (store_queue_stats(s, &judging, &mean_ms) == 0 && mean_ms > 0)
        wait = (int)ceil(mean_ms / 1000.0);
    return retry_after(http_error(429, "too_many_pending",
                                  "you already have %d submission%s queued or being judged; "
                                  "wait for a verdict (or cancel a queued one) and submit again",
                                  a->cfg->user_queue_max, a->cfg->user_queue_max == 1 ? "" : "s"),
                       wait);
}

static bool is_queued(json_t *sub)
{
    const char *st = json_string_value(json_object_get(sub, "status"));
    return st && !strcmp(st, "queued");
}

/* Sets queue_position (1 = judged next, in the workers' round-robin order)
 * and queue_estimate_s (seconds until the verdict, null until a mean
 * judging time is known) on a submission object or on each of an array of
 * them; null unless queued. Best effort: a database error leaves them
 * null (and is logged). */
static void add_queue_fields(struct app *a, struct store *s, json_t *subs)
{
    struct store_queue_entry *order = NULL;
    size_t n_order = 0, n = json_is_array(subs) ? json_array_size(subs) : 1;
    int64_t judging = 0, now = clock_wall_ms();
    double mean_ms = 0;
    bool any = false, known = false;
    for (size_t i = 0; i < n; i++)
        any |= is_queued(json_is_array(subs) ? json_array_get(subs, i) : subs);
    if (any) {
        known = store_queue_order(s, &order, &n_order) == 0 &&
                store_queue_stats(s, &judging, &mean_ms) == 0;
        if (!known)
            fprintf(stderr, "attnjudge: queue position: %s\n", store_error(s));
    }
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_is_array(subs) ? json_array_get(subs, i) : subs;
        json_t *pos = json_null(), *est = json_null();
        json_int_t id = json_integer_value(json_object_get(o, "id"));
        for (size_t k = 0; known && is_queued(o) && k < n_order; k++) {
            if (order[k].id != id)
                continue;
            double e = queue_estimate_s(a->queue, (int64_t)k + 1, judging, mean_ms);
            /* After a judge-side resource failure it waits out its back-off. */
            if (e >= 0 && order[k].retry_at > now)
                e = fmax(e, (double)(order[k].retry_at - now + (int64_t)mean_ms) / 1000.0);
            pos = json_integer((json_int_t)k + 1);
            est = e >= 0 ? json_integer((json_int_t)ceil(e)) : json_null();
            break;
        }
        json_object_set_new(o, "queue_position", pos);
        json_object_set_new(o, "queue_estimate_s", est);
    }
    free(order);
}

/* The body of POST /api/submissions and POST /api/runs, {"problem",
 * "source"}, checked: a valid slug, a source of 1 to max_source_kib bytes.
 * Returns NULL with the object in *o (it owns the strings), or the 4xx
 * (*o NULL). */
static struct http_response *source_body(struct app *a, struct http_request *req, json_t **o,
                                         const char **slug, const char **source, size_t *len)
{
    size_t n_slug = 0;
    struct http_response *r;
    *slug = *source = NULL;
    *len = 0;
    if ((r = body_unpack(req, o, "{\"problem\", \"source\": strings}", "{s:s%, s:s%}", "problem",
                         slug, &n_slug, "source", source, len)))
        return r;
    if ((r = field_len("problem", *slug, n_slug, 1, 128)))
        ;
    else if (!names_slug_valid(*slug))
        r = http_error(400, "invalid_slug", "not a valid problem slug");
    else if (*len == 0)
        r = http_error(400, "invalid_request", "the source is empty");
    else if (*len > (size_t)a->cfg->max_source_bytes)
        r = http_error(413, "payload_too_large", "the source is larger than %lld bytes",
                       (long long)a->cfg->max_source_bytes);
    if (r) {
        json_decref(*o);
        *o = NULL;
    }
    return r;
}

static struct http_response *h_submit(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *slug = NULL, *source = NULL;
    size_t len = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    int64_t id = 0;
    int version = 0;

    if ((r = source_body(a, req, &o, &slug, &source, &len)))
        return r;
    if ((r = problem_gate(a, me, slug, true)))
        goto out;
    char key[32];
    snprintf(key, sizeof key, "u%lld", (long long)me->u.id);
    int wait = ratelimit_take(a->submit_rl, key, clock_wall_ms());
    if (wait) {
        r = retry_after(
            http_error(429, "rate_limited", "too many submissions; retry in %d s", wait), wait);
        goto out;
    }
    s = store_pool_get(a->pool);
    struct store_queue_limits lim = {a->cfg->queue_max, a->cfg->user_queue_max};
    int rc = store_submission_create(s, me->u.id, slug, source, len, &lim, clock_wall_ms(), &id,
                                     &version);
    if (rc < 0) {
        r = internal("submit", s);
        goto out;
    }
    if (rc == STORE_NOT_FOUND) {
        r = http_error(404, "not_found", "no problem '%s'", slug);
        goto out;
    }
    if (rc == STORE_USER_FULL) {
        r = user_queue_full(a, s);
        goto out;
    }
    if (rc == STORE_FULL) {
        r = retry_after(http_error(503, "queue_full", "the judging queue is full; retry later"),
                        10);
        goto out;
    }
    queue_notify(a->queue);
    r = http_json(202, json_pack("{s:I, s:s, s:s, s:i}", "id", (json_int_t)id, "status", "queued",
                                 "problem", slug, "problem_version", version));
    if (r) {
        char loc[64];
        snprintf(loc, sizeof loc, "/api/submissions/%lld", (long long)id);
        http_add_header(r, "Location", loc);
    }
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

/* What the caller may see of a submission or a summary (docs/sandbox.md,
 * "Hidden tests"): an instructor everything, a student (its author
 * included) judge_report_redact's view. Takes o; NULL when out of memory. */
static json_t *submission_view(const struct caller *me, json_t *o)
{
    if (me->instructor || !o)
        return o;
    json_t *view = judge_report_redact(o);
    json_decref(o);
    return view;
}

/* The submission read by store_submission_get, and its author. */
struct got_submission {
    json_t *o;
    int64_t owner;
};

static int got_submission(void *arg, const struct store_submission_row *row)
{
    struct got_submission *g = arg;
    g->owner = row->user_id;
    g->o = views_submission(row);
    return g->o ? 0 : -1;
}

static struct http_response *h_submission_get(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    int64_t id;
    struct got_submission got = {NULL, 0};
    json_t *o = NULL;
    if (!parse_id(req->param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_get(s, id, got_submission, &got);
    struct http_response *r;
    if (rc < 0)
        r = internal("get submission", s);
    else if (rc == STORE_NOT_FOUND || (!me->instructor && got.owner != me->u.id))
        /* Someone else's submission looks exactly like a missing one. */
        r = http_error(404, "not_found", "no submission %lld", (long long)id);
    else if (!(o = submission_view(me, got.o)))
        r = internal("submission view", NULL);
    else if (me->instructor && rejudge_add_history(s, id, o) < 0)
        r = internal("submission history", s);
    else {
        got.o = NULL; /* submission_view took it */
        add_queue_fields(a, s, o);
        r = http_json(200, o);
        o = NULL;
    }
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

/* Withdraws a queued submission: its author or an instructor. Once a
 * worker has claimed it, it is judged to the end. */
static struct http_response *h_submission_cancel(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    char status[16];
    json_t *o = NULL;
    struct http_response *r;
    int64_t id;
    if (!parse_id(req->param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    if (req->body && (r = body_unpack(req, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_cancel(s, id, me->instructor ? 0 : me->u.id, status, sizeof status);
    if (rc < 0)
        r = internal("cancel submission", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no submission %lld", (long long)id);
    else if (rc == STORE_STALE)
        r = http_error(409, "not_queued",
                       "submission %lld is %s: only a queued submission can be cancelled",
                       (long long)id, status);
    else
        r = http_json(200, json_pack("{s:I, s:s}", "id", (json_int_t)id, "status", status));
    store_pool_put(a->pool, s);
    return r;
}

static struct http_response *h_submissions_list(struct app *a, struct http_request *req,
                                                const struct caller *me)
{
    struct store_list_filter f = {.limit = 50};
    const char *v;
    bool mine = false;
    int64_t n;
    json_t *arr = NULL;
    if ((v = http_query(req, "mine")) && !parse_bool_param(v, &mine))
        return http_error(400, "invalid_parameter", "mine must be 1 or 0");
    if ((v = http_query(req, "problem"))) {
        if (!names_slug_valid(v))
            return http_error(400, "invalid_parameter", "problem must be a problem slug");
        f.slug = v;
    }
    if ((v = http_query(req, "user"))) {
        if (!auth_username_valid(v))
            return http_error(400, "invalid_parameter", "user must be a username");
        if (!me->instructor && strcasecmp(v, me->u.username))
            return http_error(403, "forbidden", "students see only their own submissions");
        f.username = v;
    }
    if ((v = http_query(req, "verdict"))) {
        if (judge_verdict_from_name(v) < 0)
            return http_error(400, "invalid_parameter", "verdict must be a verdict name");
        f.verdict = v;
    }
    if ((v = http_query(req, "status"))) {
        if (strcmp(v, "queued") && strcmp(v, "judging") && strcmp(v, "done") &&
            strcmp(v, "cancelled"))
            return http_error(400, "invalid_parameter",
                              "status must be queued, judging, done or cancelled");
        f.status = v;
    }
    if ((v = http_query(req, "limit"))) {
        if (!parse_id(v, &n) || n > 500)
            return http_error(400, "invalid_parameter", "limit must be 1 to 500");
        f.limit = (int)n;
    }
    if ((v = http_query(req, "before"))) {
        if (!parse_id(v, &n))
            return http_error(400, "invalid_parameter", "before must be a submission id");
        f.before_id = n;
    }
    if (mine || !me->instructor)
        f.user_id = me->u.id;
    if (!(arr = json_array()))
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_list(s, &f, views_add_summary, arr);
    struct http_response *r;
    for (size_t i = 0; rc == 0 && !me->instructor && i < json_array_size(arr); i++)
        if (json_array_set_new(arr, i, submission_view(me, json_incref(json_array_get(arr, i)))))
            rc = -1;
    if (rc < 0) {
        json_decref(arr);
        r = internal("list submissions", s);
    } else {
        add_queue_fields(a, s, arr);
        size_t count = json_array_size(arr);
        json_t *last = count ? json_array_get(arr, count - 1) : NULL;
        json_t *next = count == (size_t)f.limit && last ? json_incref(json_object_get(last, "id"))
                                                        : json_null();
        r = http_json(200, json_pack("{s:o, s:o}", "submissions", arr, "next_before", next));
    }
    store_pool_put(a->pool, s);
    return r;
}

/* Names the leaderboard's entries as the course chose (leaderboard_names,
 * docs/operations.md "Privacy"): display names (the username when none),
 * usernames, or none at all ("you" marks the caller's own row). An
 * instructor always sees usernames and display names. */
static void name_entries(const struct app *a, const struct caller *me, json_t *board)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(board, "entries"), i, e)
    {
        const char *user = json_string_value(json_object_get(e, "user"));
        json_t *shown = json_object_get(e, "display_name");
        if (me->signed_in && user && !strcmp(user, me->u.username))
            json_object_set_new(e, "you", json_true());
        if (me->instructor)
            continue;
        if (a->cfg->leaderboard_names == NAMES_ANONYMOUS)
            json_object_set_new(e, "user", json_null());
        else if (a->cfg->leaderboard_names == NAMES_DISPLAY && json_is_string(shown))
            json_object_set(e, "user", shown);
        json_object_del(e, "display_name");
    }
}

static struct http_response *h_leaderboard(struct app *a, struct http_request *req,
                                           const struct caller *me)
{
    int64_t n = 100;
    const char *v;
    struct store_problem_version pv;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((v = http_query(req, "limit")) && (!parse_id(v, &n) || n > 1000))
        return http_error(400, "invalid_parameter", "limit must be 1 to 1000");
    struct http_response *gate = problem_gate(a, me, req->param, false);
    if (gate)
        return gate;
    struct views_leaderboard *b = views_leaderboard_new();
    if (!b)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_leaderboard(s, req->param, (int)n, &pv, views_add_leader, b);
    struct http_response *r;
    json_t *o = views_leaderboard_take(b, rc == 0 ? &pv : NULL); /* frees b */
    if (rc < 0)
        r = internal("leaderboard", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no problem '%s'", req->param);
    else {
        if (o)
            name_entries(a, me, o);
        r = o ? http_json(200, o) : NULL;
        o = NULL;
    }
    json_decref(o);
    store_pool_put(a->pool, s);
    return r;
}

static struct http_response *h_grades(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    char *csv = NULL;
    size_t len = 0;
    (void)req;
    (void)me;
    struct views_csv *c = views_grades_new();
    if (!c)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_grades(s, views_add_grade, c);
    csv = views_grades_take(c, &len);
    struct http_response *r;
    if (rc < 0 || !csv) {
        r = internal(rc < 0 ? "grades" : "grades: cannot write the CSV", rc < 0 ? s : NULL);
        free(csv);
    } else if ((r = http_response_new(200, "text/csv; charset=utf-8", csv, len))) {
        http_add_header(r, "Content-Disposition", "attachment; filename=\"grades.csv\"");
    }
    store_pool_put(a->pool, s);
    return r;
}

/* The course-wide wide CSV (server/grades.h). */
static struct http_response *h_grades_course(struct app *a, struct http_request *req,
                                             const struct caller *me)
{
    (void)req;
    (void)me;
    return grades_course_csv(a);
}

/* ---- ungraded runs (server/runs.h) ---- */

static struct http_response *h_run_create(struct app *a, struct http_request *req,
                                          const struct caller *me)
{
    const char *slug = NULL, *source = NULL;
    size_t len = 0;
    json_t *o = NULL;
    struct http_response *r;
    int64_t id = 0, now = clock_wall_ms();
    int version = 0;
    char key[32];

    if ((r = source_body(a, req, &o, &slug, &source, &len)))
        return r;
    char err[256];
    if ((r = problem_gate(a, me, slug, true)))
        goto out;
    if (!catalog_current(a->catalog, slug, &version, err, sizeof err)) {
        r = http_error(404, "not_found", "no problem '%s'", slug);
        goto out;
    }
    snprintf(key, sizeof key, "u%lld", (long long)me->u.id);
    int wait = ratelimit_take(a->run_rl, key, now);
    if (wait) {
        r = retry_after(http_error(429, "rate_limited", "too many runs; retry in %d s", wait),
                        wait);
        goto out;
    }
    int rc = runs_submit(a->runs, me->u.id, slug, version, source, len, now, &id);
    if (rc != 0) /* nothing was queued: the token goes back */
        ratelimit_refund(a->run_rl, key, now);
    if (rc < 0) {
        r = internal("run", NULL);
    } else if (rc == RUNS_USER_BUSY) {
        r = retry_after(http_error(429, "run_pending",
                                   "your previous run is still being judged; wait for its result"),
                        runs_wait_s(a->runs));
    } else if (rc == RUNS_FULL) {
        r = retry_after(http_error(503, "busy", "too many runs are waiting; retry shortly"),
                        runs_wait_s(a->runs));
    } else {
        r = http_json(202, json_pack("{s:I, s:s, s:s, s:i, s:b}", "id", (json_int_t)id, "status",
                                     "queued", "problem", slug, "problem_version", version,
                                     "ungraded", 1));
        if (r) {
            char loc[64];
            snprintf(loc, sizeof loc, "/api/runs/%lld", (long long)id);
            http_add_header(r, "Location", loc);
        }
    }
out:
    json_decref(o);
    return r;
}

static struct http_response *h_run_get(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    int64_t id;
    bool found = false;
    if (!parse_id(req->param, &id))
        return http_error(400, "invalid_id", "a run id is a positive integer");
    json_t *o = runs_get(a->runs, id, me->u.id, clock_wall_ms(), &found);
    if (!found)
        return http_error(404, "not_found",
                          "no run %lld (runs are kept %d minutes after their result)",
                          (long long)id, RUNS_KEEP_MS / 60000);
    return o ? http_json(200, o) : internal("run view", NULL);
}

/* The sample archive (judge/samples.h): anyone who may see the problem. */
static struct http_response *h_problem_samples(struct app *a, struct http_request *req,
                                               const struct caller *me)
{
    unsigned char *zip = NULL;
    size_t len = 0;
    char err[512] = "";
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct http_response *gate = problem_gate(a, me, req->param, false);
    if (gate)
        return gate;
    int rc = catalog_samples_zip(a->catalog, a->judge, req->param, &zip, &len, err, sizeof err);
    if (rc == CATALOG_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", req->param);
    if (rc < 0) {
        fprintf(stderr, "attnjudge: samples of %s: %s\n", req->param, err);
        return http_error(500, "internal", "internal error; the server log has the details");
    }
    struct http_response *r = http_response_new(200, "application/zip", (char *)zip, len);
    if (r) {
        char v[sizeof req->param + 64];
        snprintf(v, sizeof v, "attachment; filename=\"%s-samples.zip\"", req->param);
        http_add_header(r, "Content-Disposition", v);
    }
    return r;
}

/* ---- the web UI ---- */

static struct http_response *h_static(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    (void)me;
    return static_serve(a->web_fd, req->path);
}
