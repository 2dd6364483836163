/*
 * rejudge — rejudges that keep what they replace (rejudge.h).
 *
 * Nothing is overwritten without a trace: store_rejudge copies each
 * submission's judgement into rejudge_items in the same transaction that
 * requeues it, so a rejudge's "before" is exact, and its "after" is read
 * when the report is asked for (the row as it is now, or, when a later
 * rejudge took the submission again, what that one found: the result of
 * this one).
 */
#include "server/rejudge.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/names.h"
#include "server/queue.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

#define LIST_MAX 50

/* A positive decimal id without a leading zero. */
static bool id_of(const char *s, int64_t *out)
{
    int64_t v = 0;
    if (!*s || *s == '0' || strlen(s) > 18)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return true;
}

/* Wakes as many workers as there are rows to judge (at most all). */
static void notify(struct app *a, int count)
{
    for (int i = 0; i < count && i < a->cfg->workers; i++)
        queue_notify(a->queue);
}

struct http_response *rejudge_problem(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *slug = req->param;
    int64_t by = me->u.id, rid = 0;
    int count = 0;
    struct http_response *r;
    if ((r = request_no_fields(req)))
        return r;
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct store *s = store_pool_get(a->pool);
    int rc = store_rejudge(s, slug, 0, by, clock_wall_ms(), &count, &rid);
    if (rc < 0)
        r = request_internal("rejudge", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no problem '%s'", slug);
    else
        r = http_json(202, json_pack("{s:s, s:i, s:I}", "problem", slug, "queued", count, "rejudge",
                                     (json_int_t)rid));
    store_pool_put(a->pool, s);
    if (rc == 0)
        notify(a, count);
    return r;
}

struct http_response *rejudge_submission(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    const char *param = req->param;
    int64_t id, by = me->u.id, rid = 0;
    int count = 0;
    struct http_response *r;
    if ((r = request_no_fields(req)))
        return r;
    if (!id_of(param, &id))
        return http_error(400, "invalid_id", "a submission id is a positive integer");
    struct store *s = store_pool_get(a->pool);
    int rc = store_rejudge(s, NULL, id, by, clock_wall_ms(), &count, &rid);
    if (rc < 0)
        r = request_internal("rejudge", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no submission %lld", (long long)id);
    else if (rc == STORE_STALE)
        r = http_error(409, "not_judged",
                       "submission %lld has no verdict to replace (queued, being judged or "
                       "cancelled)",
                       (long long)id);
    else
        r = http_json(202, json_pack("{s:I, s:i, s:I}", "submission", (json_int_t)id, "queued",
                                     count, "rejudge", (json_int_t)rid));
    store_pool_put(a->pool, s);
    if (rc == 0)
        notify(a, count);
    return r;
}

static json_t *score_json(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *judgement_json(const struct store_judgement *j)
{
    return json_pack("{s:s, s:s?, s:o, s:i}", "status", j->status, "verdict",
                     j->verdict[0] ? j->verdict : NULL, "score", score_json(j->score), "version",
                     j->version);
}

static json_t *head_json(const struct store_rejudge *h)
{
    return json_pack("{s:I, s:s, s:o, s:s?, s:o, s:i}", "id", (json_int_t)h->id, "problem", h->slug,
                     "submission", h->submission_id ? json_integer(h->submission_id) : json_null(),
                     "requested_by", h->requested_by[0] ? h->requested_by : NULL, "requested_at",
                     views_time(h->requested_at), "count", h->count);
}

struct report {
    json_t *items;
    int changed, improved, worse, unchanged, pending;
};

/* A missing score counts as 0 when comparing (a compile error has one of
 * 0; a row never judged has none). */
static double score_or_zero(double v)
{
    return isnan(v) ? 0 : v;
}

static int add_item(void *arg, const struct store_rejudge_item *it)
{
    struct report *rep = arg;
    bool pending = strcmp(it->after.status, "done") != 0;
    double before = score_or_zero(it->before.score), after = score_or_zero(it->after.score);
    bool changed = !pending && (strcmp(it->before.verdict, it->after.verdict) || before != after);
    const char *trend = pending          ? "pending"
                        : !changed       ? "unchanged"
                        : after > before ? "improved"
                        : after < before ? "worse"
                                         : "changed";
    if (pending)
        rep->pending++;
    else if (!changed)
        rep->unchanged++;
    else {
        rep->changed++;
        rep->improved += after > before;
        rep->worse += after < before;
    }
    json_t *o = json_pack("{s:I, s:s, s:o, s:o, s:b, s:s, s:o}", "submission",
                          (json_int_t)it->submission_id, "user", it->username, "old",
                          judgement_json(&it->before), "new", judgement_json(&it->after), "changed",
                          changed, "trend", trend, "superseded_by",
                          it->superseded_by ? json_integer(it->superseded_by) : json_null());
    return o && json_array_append_new(rep->items, o) == 0 ? 0 : -1;
}

struct http_response *rejudge_report(struct app *a, struct http_request *req,
                                     const struct caller *me)
{
    const char *param = req->param;
    (void)me;
    int64_t id;
    struct store_rejudge head;
    struct report rep = {0};
    if (!id_of(param, &id))
        return http_error(400, "invalid_id", "a rejudge id is a positive integer");
    if (!(rep.items = json_array()))
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_rejudge_get(s, id, &head, add_item, &rep);
    struct http_response *r;
    if (rc < 0)
        r = request_internal("rejudge report", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no rejudge %lld", (long long)id);
    else {
        json_t *o = head_json(&head);
        if (o) {
            json_object_set_new(o, "state", json_string(rep.pending ? "pending" : "done"));
            json_object_set_new(o, "summary",
                                json_pack("{s:i, s:i, s:i, s:i, s:i}", "changed", rep.changed,
                                          "improved", rep.improved, "worse", rep.worse, "unchanged",
                                          rep.unchanged, "pending", rep.pending));
            json_object_set(o, "items", rep.items);
        }
        r = o ? http_json(200, o) : NULL;
    }
    store_pool_put(a->pool, s);
    json_decref(rep.items);
    return r;
}

static int add_head(void *arg, const struct store_rejudge *h)
{
    json_t *o = head_json(h);
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

struct http_response *rejudge_list(struct app *a, struct http_request *req, const struct caller *me)
{
    (void)req;
    (void)me;
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_rejudge_list(s, LIST_MAX, add_head, arr);
    struct http_response *r = rc < 0 ? request_internal("rejudges", s)
                                     : http_json(200, json_pack("{s:O}", "rejudges", arr));
    store_pool_put(a->pool, s);
    json_decref(arr);
    return r;
}

static int add_history(void *arg, const struct store_history_row *h)
{
    json_t *o =
        json_pack("{s:I, s:o, s:s, s:s?, s:o, s:i, s:o, s:o}", "rejudge", (json_int_t)h->rejudge_id,
                  "replaced_at", views_time(h->replaced_at), "status", h->was.status, "verdict",
                  h->was.verdict[0] ? h->was.verdict : NULL, "score", score_json(h->was.score),
                  "version", h->was.version, "time_ms", score_json(h->time_ms), "judged_at",
                  h->judged_at ? views_time(h->judged_at) : json_null());
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

int rejudge_add_history(struct store *s, int64_t id, json_t *o)
{
    json_t *arr = json_array();
    if (!arr)
        return -1;
    if (store_submission_history(s, id, add_history, arr) < 0) {
        json_decref(arr);
        return -1;
    }
    return json_object_set_new(o, "history", arr) ? -1 : 0; /* takes arr either way */
}
