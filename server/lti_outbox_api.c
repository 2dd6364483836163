/*
 * lti_outbox_api — the outbox read and a failed delivery retried
 * (lti_outbox_api.h). Rows come from server/lti_outbox_store.h; times
 * are shown in ISO 8601.
 */
#include "server/lti_outbox_api.h"

#include <stdlib.h>
#include <string.h>

#include "server/lti_outbox.h"
#include "server/lti_outbox_store.h"
#include "server/request.h"
#include "util/clock.h"
#include "util/isotime.h"

#define LIST_DEFAULT 200
#define LIST_MAX 1000

static const char *const states[] = {"pending", "sending", "delivered", "failed", "superseded"};

static json_t *time_or_null(int64_t ms)
{
    char buf[ISOTIME_LEN];
    return ms > 0 && isotime_format(ms, buf) == 0 ? json_string(buf) : json_null();
}

static int add_row(void *arg, const struct lti_outbox_row *r)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:s, s:s, s:s, s:I, s:f, s:f, s:o, s:s, s:i, s:o, s:o, s:o}", "id",
        (json_int_t)r->id, "link", (json_int_t)r->link_id, "kind", r->kind, "slug", r->slug, "user",
        r->user, "seq", (json_int_t)r->seq, "score_given", r->given, "score_maximum", r->maximum,
        "timestamp", time_or_null(r->timestamp), "state", r->state, "attempts", r->attempts,
        "next_try_at", !strcmp(r->state, "pending") ? time_or_null(r->next_try_at) : json_null(),
        "delivered_at", time_or_null(r->delivered_at), "last_error",
        r->last_error && r->last_error[0] ? json_string(r->last_error) : json_null());
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

static int add_count(void *arg, const char *state, int64_t n)
{
    return json_object_set_new(arg, state, json_integer(n));
}

struct http_response *lti_outbox_list(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *state = http_query(req, "state"), *lim = http_query(req, "limit");
    int64_t limit = LIST_DEFAULT;
    (void)me;
    if (state) {
        size_t i = 0;
        while (i < sizeof states / sizeof *states && strcmp(states[i], state))
            i++;
        if (i == sizeof states / sizeof *states)
            return http_error(400, "invalid_request",
                              "state: pending, sending, delivered, failed or superseded");
    }
    if (lim && (!request_id(lim, &limit) || limit > LIST_MAX))
        return http_error(400, "invalid_request", "limit: 1 to %d", LIST_MAX);
    json_t *rows = json_array(), *counts = json_object();
    struct store *s = store_pool_get(a->pool);
    struct http_response *r;
    for (size_t i = 0; counts && i < sizeof states / sizeof *states; i++)
        json_object_set_new(counts, states[i], json_integer(0));
    if (!rows || !counts || store_lti_outbox_counts(s, add_count, counts) < 0 ||
        store_lti_outbox_list(s, state, (int)limit, add_row, rows) < 0)
        r = request_internal("lti outbox", s);
    else
        r = http_json(200, json_pack("{s:O, s:O}", "counts", counts, "deliveries", rows));
    store_pool_put(a->pool, s);
    json_decref(rows);
    json_decref(counts);
    return r;
}

struct http_response *lti_outbox_retry(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    int64_t id;
    (void)me;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "not a delivery id");
    struct http_response *r = request_no_fields(req);
    if (r)
        return r;
    struct store *s = store_pool_get(a->pool);
    int rc = store_lti_outbox_retry(s, id, clock_wall_ms());
    if (rc < 0)
        r = request_internal("lti outbox retry", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(409, "not_retryable",
                       "delivery %lld is not a failed one, or a newer grade replaced it",
                       (long long)id);
    else
        r = http_json(200, json_pack("{s:I, s:s}", "id", (json_int_t)id, "state", "pending"));
    store_pool_put(a->pool, s);
    if (rc == 0)
        lti_outbox_poke(a->outbox);
    return r;
}
