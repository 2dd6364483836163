/*
 * submissions — graded submissions as the API serves them (docs/api.md,
 * "Submissions"): submit, read one, list, cancel a queued one, and the
 * per-problem leaderboard they rank into.
 *
 * A student sees their own submissions only, in judge_report_redact's
 * view (docs/sandbox.md, "Hidden tests"); someone else's submission looks
 * exactly like a missing one. Queued submissions carry their place in the
 * workers' round-robin order and an estimate of the wait, best effort.
 */
#include "server/submissions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "judge/judge.h"
#include "judge/names.h"
#include "judge/samples.h"
#include "server/catalog.h"
#include "server/queue.h"
#include "server/ratelimit.h"
#include "server/rejudge.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

/* 429 for a user who has user_queue_max submissions queued or judging;
 * Retry-After is about one judgement. */
static struct http_response *user_queue_full(struct app *a, struct store *s)
{
    int64_t judging = 0;
    double mean_ms = 0;
    int wait = 5;
    if (store_queue_stats(s, &judging, &mean_ms) == 0 && mean_ms > 0)
        wait = (int)ceil(mean_ms / 1000.0);
    return request_retry_after(
        http_error(429, "too_many_pending",
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

/* Sets "queue_position" on a submission's waiting benchmark (1 = the next
 * to run, in the benchmarks' round-robin order; null while unknown) and on
 * a running one (0). Best effort, as add_queue_fields. */
static void add_bench_position(struct store *s, json_t *sub)
{
    json_t *b = json_object_get(sub, "benchmark");
    const char *st = json_string_value(json_object_get(b, "status"));
    if (!st || (strcmp(st, "pending") && strcmp(st, "running")))
        return;
    json_t *pos = json_null();
    if (!strcmp(st, "running")) {
        pos = json_integer(0);
    } else {
        struct store_queue_entry *order = NULL;
        size_t n = 0;
        json_int_t id = json_integer_value(json_object_get(sub, "id"));
        if (store_bench_order(s, &order, &n) < 0)
            fprintf(stderr, "attnjudge: benchmark position: %s\n", store_error(s));
        for (size_t k = 0; k < n; k++)
            if (order[k].id == id) {
                pos = json_integer((json_int_t)k + 1);
                break;
            }
        free(order);
    }
    json_object_set_new(b, "queue_position", pos);
}

struct http_response *submissions_create(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    const char *slug = NULL, *source = NULL;
    size_t len = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    int64_t id = 0;
    int version = 0;

    if ((r = request_source_body(a, req, &o, &slug, &source, &len)))
        return r;
    if ((r = request_problem_gate(a, me, slug, true)))
        goto out;
    char key[32];
    snprintf(key, sizeof key, "u%lld", (long long)me->u.id);
    int wait = ratelimit_take(a->submit_rl, key, clock_wall_ms());
    if (wait) {
        r = request_retry_after(
            http_error(429, "rate_limited", "too many submissions; retry in %d s", wait), wait);
        goto out;
    }
    s = store_pool_get(a->pool);
    struct store_queue_limits lim = {a->cfg->queue_max, a->cfg->user_queue_max};
    int rc = store_submission_create(s, me->u.id, slug, source, len, &lim, clock_wall_ms(), &id,
                                     &version);
    if (rc < 0) {
        r = request_internal("submit", s);
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
        r = request_retry_after(
            http_error(503, "queue_full", "the judging queue is full; retry later"), 10);
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

struct http_response *submissions_get(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    int64_t id;
    struct got_submission got = {NULL, 0};
    json_t *o = NULL;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_get(s, id, got_submission, &got);
    struct http_response *r;
    if (rc < 0)
        r = request_internal("get submission", s);
    else if (rc == STORE_NOT_FOUND || (!me->instructor && got.owner != me->u.id))
        /* Someone else's submission looks exactly like a missing one. */
        r = http_error(404, "not_found", "no submission %lld", (long long)id);
    else if (!(o = submission_view(me, got.o)))
        r = request_internal("submission view", NULL);
    else if (me->instructor && rejudge_add_history(s, id, o) < 0)
        r = request_internal("submission history", s);
    else {
        got.o = NULL; /* submission_view took it */
        add_queue_fields(a, s, o);
        add_bench_position(s, o);
        r = http_json(200, o);
        o = NULL;
    }
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *submissions_counterexample(struct app *a, struct http_request *req,
                                                 const struct caller *me)
{
    int64_t id;
    struct got_submission got = {NULL, 0};
    struct http_response *r = NULL;
    char err[512] = "";
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_get(s, id, got_submission, &got);
    if (rc < 0)
        r = request_internal("get submission", s);
    store_pool_put(a->pool, s);
    if (r)
        return r;
    const json_t *cx = json_object_get(json_object_get(got.o, "search"), "counterexample");
    const char *slug = json_string_value(json_object_get(got.o, "problem"));
    int version = (int)json_integer_value(json_object_get(got.o, "problem_version"));
    const struct problem *p = NULL;
    unsigned char *zip = NULL;
    size_t len = 0;
    if (rc == STORE_NOT_FOUND || (!me->instructor && got.owner != me->u.id))
        r = http_error(404, "not_found", "no submission %lld", (long long)id);
    else if (!cx || !slug)
        r = http_error(404, "not_found", "submission %lld has no counterexample", (long long)id);
    else if (!(p = catalog_get(a->catalog, slug, version, err, sizeof err)))
        r = http_error(404, "not_found", "problem %s version %d: %s", slug, version, err);
    else if ((rc = samples_counterexample_archive(p, cx, &zip, &len, err, sizeof err)) > 0)
        r = http_error(409, "too_large", "%s", err);
    else if (rc < 0) {
        fprintf(stderr, "attnjudge: counterexample of #%lld: %s\n", (long long)id, err);
        r = http_error(500, "internal", "internal error; the server log has the details");
    } else if ((r = http_response_new(200, "application/zip", (char *)zip, len))) {
        char v[160];
        snprintf(v, sizeof v, "attachment; filename=\"%s-counterexample-%lld.zip\"", slug,
                 (long long)id);
        http_add_header(r, "Content-Disposition", v);
    }
    json_decref(got.o);
    return r;
}

/* Withdraws a queued submission: its author or an instructor. Once a
 * worker has claimed it, it is judged to the end. */
struct http_response *submissions_cancel(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    char status[16];
    struct http_response *r;
    int64_t id;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    if ((r = request_no_fields(req)))
        return r;
    struct store *s = store_pool_get(a->pool);
    int rc = store_submission_cancel(s, id, me->instructor ? 0 : me->u.id, status, sizeof status);
    if (rc < 0)
        r = request_internal("cancel submission", s);
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

struct http_response *submissions_list(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    struct store_list_filter f = {.limit = 50};
    const char *v;
    bool mine = false;
    int64_t n;
    json_t *arr = NULL;
    if ((v = http_query(req, "mine")) && !request_bool(v, &mine))
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
        if (!request_id(v, &n) || n > 500)
            return http_error(400, "invalid_parameter", "limit must be 1 to 500");
        f.limit = (int)n;
    }
    if ((v = http_query(req, "before"))) {
        if (!request_id(v, &n))
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
        r = request_internal("list submissions", s);
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

struct http_response *submissions_leaderboard(struct app *a, struct http_request *req,
                                              const struct caller *me)
{
    int64_t n = 100;
    const char *v;
    struct store_problem_version pv;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((v = http_query(req, "limit")) && (!request_id(v, &n) || n > 1000))
        return http_error(400, "invalid_parameter", "limit must be 1 to 1000");
    struct http_response *gate = request_problem_gate(a, me, req->param, false);
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
        r = request_internal("leaderboard", s);
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
