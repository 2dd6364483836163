/*
 * hints — which hint and walkthrough a caller may read, and when (hints.h).
 *
 * A package may carry hints/1.md ... and walkthrough.md (loaded and
 * checked by judge/problem_files.c); the catalog's cached problem body says only how
 * many hints there are and whether a walkthrough exists, the same for
 * everyone. Everything that depends on the caller is added per request
 * here, from the store:
 *
 *   - Hints open one at a time, in order: a student may open hint n only
 *     if hints 1..n-1 are open (store_hint_open checks and records it in
 *     one transaction, so two tabs racing cannot skip one). Opening is
 *     recorded per problem, not per version, with the version it was
 *     opened in; a re-upload with fewer hints hides the extra ones.
 *     Instructors see every hint and their openings are not recorded.
 *   - The walkthrough unlocks for a student at their first accepted
 *     submission for the problem (any version), or for every signed-in
 *     user from a date: the one an instructor set (walkthrough_dates, which
 *     outlives re-uploads; "no date" counts as set), else problem.json's
 *     walkthrough_opens_at. Instructors always see it.
 *
 * Nothing here reads test data: the texts are the instructor's, and the
 * only fact about submissions used is whether one was accepted, which its
 * author already knows.
 */
#include "server/hints.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/markdown.h"
#include "judge/names.h"
#include "server/catalog.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"
#include "util/isotime.h"

/* Hint n (1-based) of p as {"n", "md", "html", "opened_at"}; NULL when
 * out of memory. opened_at 0 is null (an instructor's view). */
static json_t *hint_json(const struct problem *p, int n, int64_t opened_at)
{
    const char *md = p->hints[n - 1];
    char *html = markdown_html(md, strlen(md));
    json_t *o = html ? json_pack("{s:i, s:s, s:s, s:o}", "n", n, "md", md, "html", html,
                                 "opened_at", views_time(opened_at))
                     : NULL;
    free(html);
    return o;
}

/* ---- the walkthrough's lock ---- */

struct lock {
    int64_t opens_at;     /* ms, 0 = no date */
    const char *source;   /* who set the date: "instructor", "package" or NULL */
    const char *unlocked; /* what unlocks it for the caller now, or NULL (locked) */
};

/* The lock of slug's walkthrough (p: its current version) for who. Returns
 * 0, STORE_NOT_FOUND, or -1 (database). */
static int read_lock(struct store *s, const char *slug, const struct problem *p,
                     const struct caller *who, int64_t now, struct lock *l)
{
    struct store_walkthrough w;
    int rc = store_walkthrough(s, slug, who->u.id, &w);
    if (rc != 0)
        return rc;
    l->opens_at = w.date_set ? w.opens_at : p->walkthrough_opens_at;
    l->source = w.date_set ? "instructor" : p->walkthrough_opens_at ? "package" : NULL;
    l->unlocked = NULL;
    if (who->instructor)
        l->unlocked = "instructor";
    else if (who->u.id && w.accepted)
        l->unlocked = "accepted";
    else if (who->u.id && l->opens_at && now >= l->opens_at)
        l->unlocked = "date";
    return 0;
}

/* ---- GET /api/problems/{slug} ---- */

struct opened {
    const struct problem *p;
    json_t *list;
};

static int add_opened(void *arg, const struct store_hint_row *row)
{
    struct opened *o = arg;
    if (row->n < 1 || (size_t)row->n > o->p->n_hints)
        return 0; /* opened in a version that had more hints */
    json_t *h = hint_json(o->p, row->n, row->opened_at);
    return h && json_array_append_new(o->list, h) == 0 ? 0 : -1;
}

int hints_add_view(struct app *a, struct store *s, json_t *detail, const struct caller *who,
                   int64_t now)
{
    const char *slug = json_string_value(json_object_get(detail, "slug"));
    int version = (int)json_integer_value(json_object_get(detail, "version"));
    json_t *hints = json_object_get(detail, "hints"),
           *walk = json_object_get(detail, "walkthrough");
    char err[PROBLEM_ERR_LEN];
    struct opened o = {NULL, json_array()};
    struct lock l;
    int rc = -1;

    if (!o.list || !slug || !json_is_object(hints) || !json_is_object(walk))
        goto out;
    /* the version the body describes, so that text and count agree */
    if (!(o.p = catalog_get(a->catalog, slug, version, err, sizeof err))) {
        fprintf(stderr, "attnjudge: hints: %s\n", err);
        goto out;
    }
    if (who->instructor) {
        for (size_t n = 1; n <= o.p->n_hints; n++) {
            json_t *h = hint_json(o.p, (int)n, 0);
            if (!h || json_array_append_new(o.list, h) < 0)
                goto out;
        }
    } else if (who->u.id && o.p->n_hints &&
               store_hint_opens(s, slug, who->u.id, add_opened, &o) < 0) {
        goto out;
    }
    if (json_object_set(hints, "opened", o.list) < 0)
        goto out;
    if (read_lock(s, slug, o.p, who, now, &l) != 0)
        goto out;
    if (json_object_set_new(walk, "unlocked", json_boolean(o.p->walkthrough_md && l.unlocked)) <
            0 ||
        json_object_set_new(walk, "opens_at", views_time(l.opens_at)) < 0 ||
        json_object_set_new(walk, "opens_at_source",
                            l.source ? json_string(l.source) : json_null()) < 0)
        goto out;
    rc = 0;
out:
    json_decref(o.list);
    return rc;
}

/* ---- POST /api/problems/{slug}/hints/{n} ---- */

/* "1" to "999" (no sign, no leading zero); 0 for anything else. */
static int parse_hint_number(const char *s)
{
    int n = 0;
    if (s[0] < '1' || s[0] > '9' || strlen(s) > 3)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        n = n * 10 + (*s - '0');
    }
    return n;
}

struct http_response *hints_open(struct app *a, struct http_request *req, const struct caller *who)
{
    char slug[128], err[PROBLEM_ERR_LEN], gate_slug[sizeof req->param];
    const char *param = req->param, *slash = strchr(param, '/');
    struct http_response *r;
    int version = 0, n, opened = 0;
    int64_t opened_at = 0;

    snprintf(gate_slug, sizeof gate_slug, "%.*s", (int)strcspn(param, "/"), param);
    if (names_slug_valid(gate_slug) && (r = request_problem_gate(a, who, gate_slug, false)))
        return r;
    if ((r = request_no_fields(req)))
        return r;
    if (!slash || (size_t)(slash - param) >= sizeof slug)
        return http_error(400, "invalid_slug", "not a valid problem slug");
    memcpy(slug, param, (size_t)(slash - param));
    slug[slash - param] = '\0';
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((n = parse_hint_number(slash + 1)) == 0)
        return http_error(400, "invalid_hint", "a hint number is 1, 2, 3, ...");
    const struct problem *p = catalog_current(a->catalog, slug, &version, err, sizeof err);
    if (!p)
        return http_error(404, "not_found", "no problem '%s'", slug);
    if ((size_t)n > p->n_hints)
        return p->n_hints ? http_error(404, "not_found", "problem '%s' has %zu hint%s", slug,
                                       p->n_hints, p->n_hints == 1 ? "" : "s")
                          : http_error(404, "not_found", "problem '%s' has no hints", slug);
    if (!who->instructor) {
        struct store *s = store_pool_get(a->pool);
        int rc =
            store_hint_open(s, who->u.id, slug, version, n, clock_wall_ms(), &opened_at, &opened);
        r = rc < 0                  ? request_internal("open hint", s)
            : rc == STORE_NOT_FOUND ? http_error(404, "not_found", "no problem '%s'", slug)
            : rc == STORE_STALE
                ? http_error(409, "hint_locked", "hints open in order: open hint %d before hint %d",
                             opened + 1, n)
                : NULL;
        store_pool_put(a->pool, s);
        if (r)
            return r;
    }
    json_t *h = hint_json(p, n, opened_at);
    if (h && json_object_update_new(h, json_pack("{s:s, s:i, s:i}", "problem", slug, "count",
                                                 (int)p->n_hints, "version", version)) < 0) {
        json_decref(h);
        h = NULL;
    }
    return h ? http_json(200, h) : NULL;
}

/* ---- GET /api/problems/{slug}/hint-log ---- */

static int add_log_row(void *arg, const struct store_hint_row *row)
{
    json_t *o =
        json_pack("{s:s, s:i, s:i, s:o}", "user", row->user ? row->user : "", "n", row->n,
                  "problem_version", row->problem_version, "opened_at", views_time(row->opened_at));
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

struct http_response *hints_log(struct app *a, struct http_request *req, const struct caller *who)
{
    const char *slug = req->param;
    (void)who;
    char err[PROBLEM_ERR_LEN];
    int version = 0;
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    const struct problem *p = catalog_current(a->catalog, slug, &version, err, sizeof err);
    if (!p)
        return http_error(404, "not_found", "no problem '%s'", slug);
    json_t *log = json_array();
    if (!log)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    struct http_response *r;
    if (store_hint_opens(s, slug, 0, add_log_row, log) < 0) {
        json_decref(log);
        r = request_internal("hint log", s);
    } else {
        r = http_json(200, json_pack("{s:s, s:i, s:i, s:o}", "problem", slug, "version", version,
                                     "count", (int)p->n_hints, "opens", log));
    }
    store_pool_put(a->pool, s);
    return r;
}

/* ---- the walkthrough ---- */

struct http_response *hints_walkthrough(struct app *a, struct http_request *req,
                                        const struct caller *who)
{
    char err[PROBLEM_ERR_LEN], when[ISOTIME_LEN];
    const char *slug = req->param;
    int version = 0;
    struct lock l;
    struct http_response *r;
    if (names_slug_valid(slug) && (r = request_problem_gate(a, who, slug, false)))
        return r;
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    const struct problem *p = catalog_current(a->catalog, slug, &version, err, sizeof err);
    if (!p)
        return http_error(404, "not_found", "no problem '%s'", slug);
    if (!p->walkthrough_md)
        return http_error(404, "not_found", "problem '%s' has no walkthrough", slug);
    struct store *s = store_pool_get(a->pool);
    int rc = read_lock(s, slug, p, who, clock_wall_ms(), &l);
    r = rc < 0 ? request_internal("walkthrough", s) : NULL;
    store_pool_put(a->pool, s);
    if (r)
        return r;
    if (rc == STORE_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", slug);
    if (!l.unlocked) {
        if (l.opens_at && isotime_format(l.opens_at, when) == 0)
            return http_error(403, "locked",
                              "the walkthrough unlocks after your first accepted submission for "
                              "this problem, or for everyone on %s (UTC)",
                              when);
        return http_error(403, "locked",
                          "the walkthrough unlocks after your first accepted submission for this "
                          "problem");
    }
    char *html = markdown_html(p->walkthrough_md, strlen(p->walkthrough_md));
    if (!html)
        return NULL;
    r = http_json(200, json_pack("{s:s, s:i, s:s, s:s, s:s}", "problem", slug, "version", version,
                                 "md", p->walkthrough_md, "html", html, "unlocked_by", l.unlocked));
    free(html);
    return r;
}

struct http_response *hints_set_date(struct app *a, struct http_request *req,
                                     const struct caller *who)
{
    const char *slug = req->param;
    const char *text = NULL;
    json_t *o = NULL;
    int64_t opens_at = 0;
    struct http_response *r;

    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    /* null members count as absent: {"opens_at": null} and {} remove the date */
    if ((r = request_body(req, &o, "{\"opens_at\": an ISO 8601 date-time or null}", "{s?s}",
                          "opens_at", &text)))
        return r;
    if (text && isotime_parse(text, &opens_at) != 0) {
        r = http_error(400, "invalid_date",
                       "opens_at: not a date-time with a time zone, e.g. "
                       "\"2025-03-01T09:00:00Z\" or \"2025-03-01T10:00:00+01:00\"");
        goto out;
    }
    struct store *s = store_pool_get(a->pool);
    int rc = store_walkthrough_set(s, slug, opens_at, who->u.id, clock_wall_ms());
    r = rc < 0 ? request_internal("walkthrough date", s)
        : rc == STORE_NOT_FOUND
            ? http_error(404, "not_found", "no problem '%s'", slug)
            : http_json(200, json_pack("{s:s, s:o, s:s}", "problem", slug, "opens_at",
                                       views_time(opens_at), "opens_at_source", "instructor"));
    store_pool_put(a->pool, s);
out:
    json_decref(o);
    return r;
}
