/*
 * assignments — assignments and their grades, computed when asked
 * (assignments.h).
 *
 * An assignment is stored as its window and a late policy reduced to two
 * numbers (cutoff_at, penalty_per_day: "none" is cutoff_at = due_at), with
 * its problems in order. Grades are computed when asked, from the judged
 * submissions inside the window, so a rejudge or a changed due date shows
 * at once and nothing is stored twice. The computation is one pass over
 * those submissions into a students × problems matrix of the best counted
 * score (and the submission that made it).
 */
#include "server/assignments.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/names.h"
#include "server/catalog.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"
#include "util/isotime.h"

#define MAX_PROBLEMS 50
#define TITLE_MAX 200
#define DAY_MS (24 * 3600 * 1000LL)

double assignments_counted(const struct store_assignment *a, double score, int64_t created_at)
{
    if (isnan(score) || created_at < a->opens_at || created_at > a->cutoff_at)
        return NAN;
    if (created_at <= a->due_at)
        return score;
    int64_t days = (created_at - a->due_at + DAY_MS - 1) / DAY_MS; /* started days */
    double factor = 1.0 - a->penalty_per_day * (double)days;
    return score * (factor > 0 ? factor : 0);
}

/* ---- reading a body ---- */

static struct http_response *bad_date(const char *field)
{
    return http_error(400, "invalid_date", "%s must be an ISO 8601 date-time with a time zone",
                      field);
}

static int date_of(json_t *v, int64_t *ms)
{
    return json_is_string(v) && isotime_parse(json_string_value(v), ms) == 0 ? 0 : -1;
}

/* Reads {"slug", "title", "problems", "opens_at", "due_at", "late_policy"}
 * into a and problems (borrowed from *o). NULL or the 4xx. */
static struct http_response *read_body(const struct http_request *req, json_t **o,
                                       struct store_assignment *a, const char **problems, size_t *n)
{
    const char *slug = NULL, *title = NULL;
    size_t n_slug = 0, n_title = 0;
    json_t *list = NULL, *opens = NULL, *due = NULL, *late = NULL;
    struct http_response *r = request_body(
        req, o,
        "{\"slug\", \"title\": strings; \"problems\": [slugs]; \"opens_at\", \"due_at\": ISO "
        "8601; \"late_policy\": \"none\" or {\"penalty_per_day\", \"cutoff\"}}",
        "{s:s%, s:s%, s:o, s:o, s:o, s:o}", "slug", &slug, &n_slug, "title", &title, &n_title,
        "problems", &list, "opens_at", &opens, "due_at", &due, "late_policy", &late);
    if (r)
        return r;
    memset(a, 0, sizeof *a);
    if (!names_slug_valid(slug) || strlen(slug) != n_slug)
        return http_error(400, "invalid_slug", "slug: 1 to 63 of a-z, 0-9 and '-'");
    if (n_title == 0 || n_title > TITLE_MAX || strlen(title) != n_title)
        return http_error(400, "invalid_request", "title: 1 to %d bytes", TITLE_MAX);
    snprintf(a->slug, sizeof a->slug, "%s", slug);
    snprintf(a->title, sizeof a->title, "%s", title);
    if (!json_is_array(list) || json_array_size(list) == 0 || json_array_size(list) > MAX_PROBLEMS)
        return http_error(400, "invalid_request", "problems: an array of 1 to %d problem slugs",
                          MAX_PROBLEMS);
    *n = json_array_size(list);
    for (size_t i = 0; i < *n; i++) {
        const char *p = json_string_value(json_array_get(list, i));
        if (!p || !names_slug_valid(p))
            return http_error(400, "invalid_slug", "problems[%zu]: not a problem slug", i);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(problems[k], p))
                return http_error(400, "invalid_request", "problems: '%s' is listed twice", p);
        problems[i] = p;
    }
    if (date_of(opens, &a->opens_at) < 0)
        return bad_date("opens_at");
    if (date_of(due, &a->due_at) < 0)
        return bad_date("due_at");
    if (a->due_at <= a->opens_at)
        return http_error(400, "invalid_date", "due_at must come after opens_at");
    a->cutoff_at = a->due_at;
    if (json_is_string(late) && !strcmp(json_string_value(late), "none"))
        return NULL;
    json_t *pen = json_is_object(late) ? json_object_get(late, "penalty_per_day") : NULL;
    json_t *cut = json_is_object(late) ? json_object_get(late, "cutoff") : NULL;
    if (!pen || !cut || json_object_size(late) != 2 || !json_is_number(pen))
        return http_error(400, "invalid_request",
                          "late_policy: \"none\" or {\"penalty_per_day\": 0 < p <= 1, "
                          "\"cutoff\": ISO 8601}");
    a->penalty_per_day = json_number_value(pen);
    if (!(a->penalty_per_day > 0 && a->penalty_per_day <= 1))
        return http_error(400, "invalid_request", "late_policy.penalty_per_day: 0 < p <= 1");
    if (date_of(cut, &a->cutoff_at) < 0)
        return bad_date("late_policy.cutoff");
    if (a->cutoff_at < a->due_at)
        return http_error(400, "invalid_date", "late_policy.cutoff must not come before due_at");
    return NULL;
}

/* ---- describing one ---- */

static json_t *time_json(int64_t ms)
{
    char buf[ISOTIME_LEN];
    return isotime_format(ms, buf) == 0 ? json_string(buf) : json_null();
}

static json_t *policy_json(const struct store_assignment *a)
{
    if (a->cutoff_at == a->due_at && a->penalty_per_day == 0)
        return json_string("none");
    return json_pack("{s:f, s:o}", "penalty_per_day", a->penalty_per_day, "cutoff",
                     time_json(a->cutoff_at));
}

/* Where the window stands at now. */
static const char *phase(const struct store_assignment *a, int64_t now)
{
    return now < a->opens_at     ? "upcoming"
           : now <= a->due_at    ? "open"
           : now <= a->cutoff_at ? "late"
                                 : "closed";
}

/* The problems of an assignment as a store callback collects them. */
struct slugs {
    char (*slug)[80];
    size_t n;
};

static int add_slug(void *arg, const char *slug)
{
    struct slugs *l = arg;
    if (l->n >= MAX_PROBLEMS)
        return 0;
    snprintf(l->slug[l->n++], sizeof l->slug[0], "%s", slug);
    return 0;
}

/* The assignment as the API shows it; problems the caller may not see are
 * left out (docs/api.md, "Problem states"). */
static json_t *assignment_json(struct app *app, const struct store_assignment *a,
                               const struct slugs *l, const struct caller *who, int64_t now)
{
    json_t *ps = json_array();
    for (size_t i = 0; ps && i < l->n; i++) {
        if (catalog_access(app->catalog, l->slug[i], who->instructor, now) == CATALOG_NOT_FOUND)
            continue;
        char err[256];
        int version = 0;
        const struct problem *p =
            catalog_current(app->catalog, l->slug[i], &version, err, sizeof err);
        json_array_append_new(ps, json_pack("{s:s, s:s}", "slug", l->slug[i], "title",
                                            p && p->title ? p->title : l->slug[i]));
    }
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:o}", "slug", a->slug, "title", a->title,
                     "problems", ps ? ps : json_null(), "opens_at", time_json(a->opens_at),
                     "due_at", time_json(a->due_at), "late_policy", policy_json(a), "phase",
                     phase(a, now), "now", time_json(now));
}

/* ---- routes ---- */

/* POST /api/assignments (old_slug NULL) and PUT /api/assignments/{slug}. */
static struct http_response *put(struct app *app, const struct http_request *req,
                                 const char *old_slug, const struct caller *who)
{
    json_t *o = NULL;
    struct store_assignment a;
    const char *problems[MAX_PROBLEMS];
    size_t n = 0;
    char bad[80] = "";
    struct store *s = NULL;
    if (old_slug && !names_slug_valid(old_slug))
        return http_error(400, "invalid_slug", "not a valid assignment slug");
    struct http_response *r = read_body(req, &o, &a, problems, &n);
    if (r)
        goto out;
    s = store_pool_get(app->pool);
    int rc = store_assignment_put(s, old_slug, &a, problems, n, who->u.id, clock_wall_ms(), bad,
                                  sizeof bad);
    if (rc == STORE_EXISTS)
        r = http_error(409, "assignment_exists", "an assignment '%s' exists already", a.slug);
    else if (rc == STORE_NOT_FOUND && bad[0])
        r = http_error(400, "unknown_problem", "no problem '%s'", bad);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no assignment '%s'", old_slug);
    else if (rc < 0)
        r = request_internal("assignment", s);
    else {
        struct slugs l = {calloc(MAX_PROBLEMS, sizeof *l.slug), 0};
        for (size_t i = 0; l.slug && i < n; i++)
            add_slug(&l, problems[i]);
        struct caller all = *who;
        all.instructor = true;
        json_t *body = l.slug ? assignment_json(app, &a, &l, &all, clock_wall_ms()) : NULL;
        free(l.slug);
        r = body ? http_json(old_slug ? 200 : 201, body) : NULL;
    }
out:
    store_pool_put(app->pool, s);
    json_decref(o);
    return r;
}

struct http_response *assignments_create(struct app *app, struct http_request *req,
                                         const struct caller *who)
{
    return put(app, req, NULL, who);
}

struct http_response *assignments_put(struct app *app, struct http_request *req,
                                      const struct caller *who)
{
    return put(app, req, req->param, who);
}

struct http_response *assignments_delete(struct app *app, struct http_request *req,
                                         const struct caller *who)
{
    const char *slug = req->param;
    (void)who;
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid assignment slug");
    struct store *s = store_pool_get(app->pool);
    int rc = store_assignment_delete(s, slug);
    struct http_response *r = rc < 0 ? request_internal("assignment", s)
                              : rc == STORE_NOT_FOUND
                                  ? http_error(404, "not_found", "no assignment '%s'", slug)
                                  : http_response_new(204, NULL, NULL, 0);
    store_pool_put(app->pool, s);
    return r;
}

struct listing {
    struct app *app;
    struct store *s;
    const struct caller *who;
    int64_t now;
    json_t *arr;
};

static int add_listed(void *arg, const struct store_assignment *a)
{
    struct listing *li = arg;
    if (!li->who->instructor && a->opens_at > li->now)
        return 0; /* not open yet: students do not see it */
    struct slugs l = {calloc(MAX_PROBLEMS, sizeof *l.slug), 0};
    if (!l.slug)
        return -1;
    /* a second statement while the list's is open: a different one, fine */
    int rc = store_assignment_problems(li->s, a->id, add_slug, &l);
    json_t *o = rc == 0 ? assignment_json(li->app, a, &l, li->who, li->now) : NULL;
    free(l.slug);
    return o && json_array_append_new(li->arr, o) == 0 ? 0 : -1;
}

struct http_response *assignments_list(struct app *app, struct http_request *req,
                                       const struct caller *who)
{
    (void)req;
    struct listing li = {app, store_pool_get(app->pool), who, clock_wall_ms(), json_array()};
    int rc = li.arr ? store_assignment_list(li.s, add_listed, &li) : -1;
    struct http_response *r = rc < 0 ? request_internal("assignments", li.s)
                                     : http_json(200, json_pack("{s:O}", "assignments", li.arr));
    store_pool_put(app->pool, li.s);
    json_decref(li.arr);
    return r;
}

/* ---- grades ---- */

struct cell {
    double best; /* NAN: nothing counts */
    int64_t submission;
    bool late, accepted;
};

struct matrix {
    const struct store_assignment *a;
    const struct slugs *problems;
    struct views_roster roster; /* the rows */
    struct cell *cells;         /* roster.n × problems->n */
};

static int add_counted(void *arg, const struct store_window_row *row)
{
    struct matrix *m = arg;
    double v = assignments_counted(m->a, row->score, row->created_at);
    if (isnan(v))
        return 0;
    size_t i = 0, k = 0;
    while (i < m->roster.n && m->roster.st[i].id != row->user_id)
        i++;
    while (k < m->problems->n && strcmp(m->problems->slug[k], row->problem))
        k++;
    if (i == m->roster.n || k == m->problems->n)
        return 0; /* an instructor's submission */
    struct cell *c = &m->cells[i * m->problems->n + k];
    if (isnan(c->best) || v > c->best) {
        c->best = v;
        c->submission = row->id;
        c->late = row->created_at > m->a->due_at;
    }
    c->accepted |= row->verdict && !strcmp(row->verdict, "accepted");
    return 0;
}

static void matrix_free(struct matrix *m)
{
    views_roster_free(&m->roster);
    free(m->cells);
}

/* Fills m for a (only: one student, 0 = all). 0 or -1. */
static int matrix_fill(struct store *s, struct matrix *m, int64_t only)
{
    if (store_students(s, only, views_roster_add, &m->roster) < 0)
        return -1;
    size_t n = m->roster.n * m->problems->n;
    if (!(m->cells = calloc(n ? n : 1, sizeof *m->cells)))
        return -1;
    for (size_t i = 0; i < n; i++)
        m->cells[i].best = NAN;
    return store_assignment_submissions(s, m->a, only, add_counted, m);
}

static double score_of(const struct cell *c)
{
    return isnan(c->best) ? 0 : c->best;
}

static char *matrix_csv(const struct matrix *m, size_t *len)
{
    struct views_csv *c = views_csv_new();
    const char *slugs[MAX_PROBLEMS];
    double scores[MAX_PROBLEMS];
    if (!c)
        return NULL;
    for (size_t k = 0; k < m->problems->n; k++)
        slugs[k] = m->problems->slug[k];
    views_wide_header(c, slugs, m->problems->n);
    for (size_t i = 0; i < m->roster.n; i++) {
        for (size_t k = 0; k < m->problems->n; k++)
            scores[k] = score_of(&m->cells[i * m->problems->n + k]);
        views_wide_row(c, &m->roster.st[i], scores, m->problems->n);
    }
    return views_grades_take(c, len);
}

int assignments_totals(struct store *s, const char *slug, double *maximum,
                       int (*fn)(void *arg, int64_t user_id, double total), void *arg)
{
    struct store_assignment a;
    struct slugs l = {calloc(MAX_PROBLEMS, sizeof *l.slug), 0};
    struct matrix m = {.a = &a, .problems = &l};
    int rc = -1;
    if (!l.slug)
        return -1;
    if ((rc = store_assignment_get(s, slug, &a, add_slug, &l)) != 0)
        goto out;
    rc = -1;
    if (matrix_fill(s, &m, 0) < 0)
        goto out;
    *maximum = 100.0 * (double)l.n;
    for (size_t i = 0; i < m.roster.n; i++) {
        double total = 0;
        bool counted = false;
        for (size_t k = 0; k < l.n; k++) {
            counted |= !isnan(m.cells[i * l.n + k].best);
            total += score_of(&m.cells[i * l.n + k]);
        }
        if (counted && fn(arg, m.roster.st[i].id, total) < 0)
            goto out;
    }
    rc = 0;
out:
    matrix_free(&m);
    free(l.slug);
    return rc;
}

static json_t *cell_json(const struct cell *c)
{
    return json_pack("{s:f, s:o, s:b, s:b, s:b}", "score", score_of(c), "submission",
                     c->submission ? json_integer(c->submission) : json_null(), "counted",
                     !isnan(c->best), "late", c->late, "accepted", c->accepted);
}

static json_t *matrix_json(const struct matrix *m)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows && i < m->roster.n; i++) {
        const char *name = m->roster.st[i].username, *sid = m->roster.st[i].student_id;
        const char *shown = m->roster.st[i].display_name;
        json_t *cells = json_array();
        double total = 0;
        for (size_t k = 0; cells && k < m->problems->n; k++) {
            total += score_of(&m->cells[i * m->problems->n + k]);
            json_array_append_new(cells, cell_json(&m->cells[i * m->problems->n + k]));
        }
        json_array_append_new(rows, json_pack("{s:s, s:s?, s:s?, s:o, s:f}", "username", name,
                                              "student_id", *sid ? sid : NULL, "display_name",
                                              *shown ? shown : NULL, "cells",
                                              cells ? cells : json_null(), "total", total));
    }
    json_t *ps = json_array();
    for (size_t k = 0; ps && k < m->problems->n; k++)
        json_array_append_new(ps, json_string(m->problems->slug[k]));
    return json_pack("{s:s, s:o, s:o}", "assignment", m->a->slug, "problems", ps ? ps : json_null(),
                     "students", rows ? rows : json_null());
}

/* The grades of assignment slug, as JSON or (csv) as CSV. */
static struct http_response *grades(struct app *app, const char *slug, bool csv)
{
    struct store_assignment a;
    struct slugs l = {calloc(MAX_PROBLEMS, sizeof *l.slug), 0};
    struct matrix m = {.a = &a, .problems = &l};
    struct http_response *r = NULL;
    if (!names_slug_valid(slug)) {
        free(l.slug);
        return http_error(400, "invalid_slug", "not a valid assignment slug");
    }
    if (!l.slug)
        return NULL;
    struct store *s = store_pool_get(app->pool);
    int rc = store_assignment_get(s, slug, &a, add_slug, &l);
    if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no assignment '%s'", slug);
    else if (rc < 0 || matrix_fill(s, &m, 0) < 0)
        r = request_internal("grades", s);
    else if (csv) {
        size_t len = 0;
        char *text = matrix_csv(&m, &len);
        r = text ? http_response_new(200, "text/csv; charset=utf-8", text, len) : NULL;
        if (r) {
            char v[160];
            snprintf(v, sizeof v, "attachment; filename=\"%s-grades.csv\"", slug);
            http_add_header(r, "Content-Disposition", v);
        }
    } else {
        json_t *o = matrix_json(&m);
        r = o ? http_json(200, o) : NULL;
    }
    store_pool_put(app->pool, s);
    matrix_free(&m);
    free(l.slug);
    return r;
}

struct http_response *assignments_grades(struct app *app, struct http_request *req,
                                         const struct caller *who)
{
    (void)who;
    return grades(app, req->param, false);
}

struct http_response *assignments_grades_csv(struct app *app, struct http_request *req,
                                             const struct caller *who)
{
    (void)who;
    return grades(app, req->param, true);
}

struct http_response *assignments_get(struct app *app, struct http_request *req,
                                      const struct caller *who)
{
    const char *slug = req->param;
    struct store_assignment a;
    struct slugs l = {calloc(MAX_PROBLEMS, sizeof *l.slug), 0};
    struct matrix m = {.a = &a, .problems = &l};
    struct http_response *r = NULL;
    int64_t now = clock_wall_ms();
    if (!names_slug_valid(slug)) {
        free(l.slug);
        return http_error(400, "invalid_slug", "not a valid assignment slug");
    }
    if (!l.slug)
        return NULL;
    struct store *s = store_pool_get(app->pool);
    int rc = store_assignment_get(s, slug, &a, add_slug, &l);
    if (rc == STORE_NOT_FOUND || (rc == 0 && !who->instructor && a.opens_at > now)) {
        r = http_error(404, "not_found", "no assignment '%s'", slug);
        goto out;
    }
    if (rc < 0) {
        r = request_internal("assignment", s);
        goto out;
    }
    json_t *o = assignment_json(app, &a, &l, who, now);
    /* The caller's own standing, for a signed-in student. */
    if (o && who->u.id && !who->instructor) {
        if (matrix_fill(s, &m, who->u.id) < 0) {
            json_decref(o);
            r = request_internal("assignment status", s);
            goto out;
        }
        json_t *mine = json_object();
        for (size_t k = 0; mine && m.roster.n == 1 && k < l.n; k++)
            if (catalog_access(app->catalog, l.slug[k], false, now) != CATALOG_NOT_FOUND)
                json_object_set_new(mine, l.slug[k], cell_json(&m.cells[k]));
        json_object_set_new(o, "mine", mine ? mine : json_null());
    }
    r = o ? http_json(200, o) : NULL;
out:
    store_pool_put(app->pool, s);
    matrix_free(&m);
    free(l.slug);
    return r;
}
