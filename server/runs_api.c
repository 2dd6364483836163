/*
 * runs_api — ungraded runs as the API serves them (docs/api.md,
 * "Submissions"): POST /api/runs queues a run on a problem's sample
 * tests, GET /api/runs/{id} reads it back. runs.c judges and keeps them.
 */
#include "server/runs_api.h"

#include <stdio.h>

#include "server/catalog.h"
#include "server/ratelimit.h"
#include "server/request.h"
#include "server/runs.h"
#include "util/clock.h"

struct http_response *runs_api_create(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *slug = NULL, *source = NULL;
    size_t len = 0;
    json_t *o = NULL;
    struct http_response *r;
    int64_t id = 0, now = clock_wall_ms();
    int version = 0;
    char key[32];

    if ((r = request_source_body(a, req, &o, &slug, &source, &len)))
        return r;
    char err[256];
    if ((r = request_problem_gate(a, me, slug, true)))
        goto out;
    if (!catalog_current(a->catalog, slug, &version, err, sizeof err)) {
        r = http_error(404, "not_found", "no problem '%s'", slug);
        goto out;
    }
    snprintf(key, sizeof key, "u%lld", (long long)me->u.id);
    int wait = ratelimit_take(a->run_rl, key, now);
    if (wait) {
        r = request_retry_after(
            http_error(429, "rate_limited", "too many runs; retry in %d s", wait), wait);
        goto out;
    }
    int rc = runs_submit(a->runs, me->u.id, slug, version, source, len, now, &id);
    if (rc != 0) /* nothing was queued: the token goes back */
        ratelimit_refund(a->run_rl, key, now);
    if (rc < 0) {
        r = request_internal("run", NULL);
    } else if (rc == RUNS_USER_BUSY) {
        r = request_retry_after(
            http_error(429, "run_pending",
                       "your previous run is still being judged; wait for its result"),
            runs_wait_s(a->runs));
    } else if (rc == RUNS_FULL) {
        r = request_retry_after(http_error(503, "busy", "too many runs are waiting; retry shortly"),
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

struct http_response *runs_api_get(struct app *a, struct http_request *req, const struct caller *me)
{
    int64_t id;
    bool found = false;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "a run id is a positive integer");
    json_t *o = runs_get(a->runs, id, me->u.id, clock_wall_ms(), &found);
    if (!found)
        return http_error(404, "not_found",
                          "no run %lld (runs are kept %d minutes after their result)",
                          (long long)id, RUNS_KEEP_MS / 60000);
    return o ? http_json(200, o) : request_internal("run view", NULL);
}
