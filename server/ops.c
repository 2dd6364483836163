/*
 * ops — the health check, the metrics and the vocabulary (ops.h).
 *
 * Both /healthz and /metrics read the judge hosts alive from the store
 * (every host's heartbeat), so that a front end without workers of its own
 * reports the judging capacity behind it.
 */
#include "server/ops.h"

#include <stdio.h>
#include <string.h>

#include "judge/judge.h"
#include "judge/machine.h"
#include "server/client.h"
#include "server/metrics.h"
#include "server/queue.h"
#include "util/clock.h"

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

struct http_response *ops_healthz(struct app *a, struct http_request *req, const struct caller *me)
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

struct http_response *ops_metrics(struct app *a, struct http_request *req, const struct caller *me)
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
struct http_response *ops_vocabulary(struct app *a, struct http_request *req,
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
