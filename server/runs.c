/*
 * runs — ungraded runs, judged by threads of their own and kept in
 * memory (runs.h).
 *
 * Why not the submissions queue: a graded submission is a row that must
 * survive a crash and be judged exactly once; a run is a quick "try before
 * you submit" whose result matters for a minute. So runs live in one list
 * in memory (oldest first) under one mutex, and `run_workers` threads of
 * their own take the oldest waiting run, judge it with judge_submission()
 * on the sample tests (samples_only: the same compile, sandbox, limits,
 * comparison and diagnosis as a submission's sample tests), and store the
 * student's view of the report in the run. The graded workers never see a
 * run, so runs cannot starve submissions; at most run_workers runs are
 * judged at once beside them.
 *
 * Fairness: a user has at most one run waiting or being judged
 * (RUNS_USER_BUSY), so first-in first-out is also round-robin across
 * users. At most queue_max runs wait (RUNS_FULL).
 *
 * Forgetting: a finished run is kept RUNS_KEEP_MS, and only the newest
 * RUNS_KEEP_PER_USER of a user's; older ones are dropped when runs are
 * queued or read. A restart forgets every run (ids start from the clock,
 * so a new run never reuses an old id).
 *
 * A judge-side failure (the report's internal_error, a problem that no
 * longer loads, no memory) ends the run as internal_error, logged with the
 * detail; unlike a submission it is not retried: the student runs again.
 */
#include "server/runs.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/views.h"
#include "util/clock.h"

enum run_status { RUN_QUEUED, RUN_JUDGING, RUN_DONE };

static const char *const status_names[] = {"queued", "judging", "done"};

struct run {
    int64_t id, user_id;
    char slug[80];
    int version;
    char *source; /* freed once judged */
    size_t len;   /* bytes */
    enum run_status status;
    const char *stage; /* JUDGE_STAGE_* while judging, NULL before */
    int test, of;      /* JUDGE_STAGE_RUNNING: test (1-based) of `of` */
    json_t *report;    /* the student's view of the report, once done */
    int64_t created_ms, done_ms;
    struct run *next;
};

struct runs {
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* a run was queued, or stopping */
    pthread_cond_t exited; /* a worker exited */
    bool stopping;
    struct run *head, *tail; /* every kept run, oldest first */
    int n_queued, n_judging, queue_max;
    int64_t next_id;
    double mean_ms; /* moving mean of a run's judging time; 0 = none yet */
    struct judge_ctx *judge;
    struct catalog *catalog;
    pthread_t *threads;
    int n, n_started, n_running;
};

static void run_free(struct run *run)
{
    free(run->source);
    json_decref(run->report);
    free(run);
}

/* Drops the finished runs that are no longer kept: older than
 * RUNS_KEEP_MS, and (for user_id, if not 0) all but the newest keep - 1 so
 * that a new one fits. Caller holds the lock. */
static void purge(struct runs *r, int64_t now_ms, int64_t user_id, int keep)
{
    int done_of_user = 0;
    if (user_id)
        for (struct run *x = r->head; x; x = x->next)
            done_of_user += x->user_id == user_id && x->status == RUN_DONE;
    struct run **at = &r->head, *prev = NULL;
    while (*at) {
        struct run *x = *at;
        bool old = x->status == RUN_DONE && now_ms - x->done_ms > RUNS_KEEP_MS;
        bool over =
            user_id && x->user_id == user_id && x->status == RUN_DONE && done_of_user >= keep;
        if (!old && !over) {
            prev = x;
            at = &x->next;
            continue;
        }
        if (x->user_id == user_id && x->status == RUN_DONE)
            done_of_user--;
        *at = x->next;
        if (r->tail == x)
            r->tail = prev;
        run_free(x);
    }
}

/* Progress callback state of one run. */
struct progress {
    struct runs *r;
    struct run *run;
};

/* Records the judge's stage as data (docs/api.md): the run's progress. */
static void on_progress(void *arg, const char *stage, int test_index, int n_tests)
{
    struct progress *pr = arg;
    struct runs *r = pr->r;
    struct run *run = pr->run;
    pthread_mutex_lock(&r->lock);
    run->stage = stage;
    run->test = test_index + 1;
    run->of = n_tests;
    pthread_mutex_unlock(&r->lock);
}

/* Judges one run (not holding the lock) and records its report. */
static void judge_run(struct runs *r, struct run *run)
{
    char err[512] = "";
    struct judge_report *rep = NULL;
    json_t *full = NULL, *view = NULL;
    double t0 = clock_mono_ms();
    const struct problem *p = catalog_get(r->catalog, run->slug, run->version, err, sizeof err);
    if (p) {
        struct progress pr = {r, run};
        struct judge_options opt = {
            .samples_only = true, .progress = on_progress, .progress_arg = &pr};
        rep = judge_submission(r->judge, p, run->source, run->len, "solution.c", &opt);
        if (!rep)
            snprintf(err, sizeof err, "out of memory");
    }
    if (rep && (full = judge_report_json(rep, p)))
        view = judge_report_redact(full);
    if (rep && rep->verdict == V_INTERNAL_ERROR)
        fprintf(stderr, "attnjudge: run %lld internal_error: %s\n", (long long)run->id,
                rep->internal_message ? rep->internal_message : "(no detail)");
    if (!view) {
        fprintf(stderr, "attnjudge: run %lld internal_error: %s\n", (long long)run->id,
                err[0] ? err : "out of memory");
        view = json_pack("{s:s, s:i, s:n, s:[]}", "verdict", judge_verdict_name(V_INTERNAL_ERROR),
                         "score", 0, "compile_log", "tests");
    }
    json_decref(full);
    judge_report_free(rep);
    double ms = clock_mono_ms() - t0;
    pthread_mutex_lock(&r->lock);
    run->report = view; /* NULL (no memory for the fallback): served as internal_error */
    run->status = RUN_DONE;
    run->done_ms = clock_wall_ms();
    free(run->source);
    run->source = NULL;
    r->mean_ms = r->mean_ms > 0 ? 0.8 * r->mean_ms + 0.2 * ms : ms;
    pthread_mutex_unlock(&r->lock);
}

static void *worker_main(void *arg)
{
    struct runs *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        struct run *run = NULL;
        while (!r->stopping) {
            for (run = r->head; run && run->status != RUN_QUEUED; run = run->next)
                ;
            if (run)
                break;
            pthread_cond_wait(&r->wake, &r->lock);
        }
        if (r->stopping)
            break; /* waiting runs are dropped: nothing graded is lost */
        run->status = RUN_JUDGING;
        r->n_queued--;
        r->n_judging++;
        pthread_mutex_unlock(&r->lock);
        judge_run(r, run);
        pthread_mutex_lock(&r->lock);
        r->n_judging--;
    }
    r->n_running--;
    pthread_cond_broadcast(&r->exited);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

struct runs *runs_start(int n, int queue_max, struct judge_ctx *judge, struct catalog *catalog,
                        char *err, size_t errlen)
{
    struct runs *r = calloc(1, sizeof *r);
    if (!r || !(r->threads = calloc((size_t)n, sizeof *r->threads))) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    pthread_cond_init(&r->exited, NULL);
    r->n = n;
    r->queue_max = queue_max;
    r->judge = judge;
    r->catalog = catalog;
    r->next_id = clock_wall_ms();
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&r->lock);
        r->n_running++;
        pthread_mutex_unlock(&r->lock);
        int rc = pthread_create(&r->threads[i], NULL, worker_main, r);
        if (rc != 0) {
            pthread_mutex_lock(&r->lock);
            r->n_running--;
            pthread_mutex_unlock(&r->lock);
            snprintf(err, errlen, "starting run worker %d: %s", i, strerror(rc));
            runs_stop(r, 0);
            return NULL;
        }
        r->n_started++;
    }
    return r;
}

int runs_submit(struct runs *r, int64_t user_id, const char *slug, int version, const char *source,
                size_t len, int64_t now_ms, int64_t *id)
{
    struct run *run = calloc(1, sizeof *run);
    if (!run || !(run->source = malloc(len ? len : 1))) {
        free(run);
        return -1;
    }
    memcpy(run->source, source, len);
    run->len = len;
    run->user_id = user_id;
    snprintf(run->slug, sizeof run->slug, "%s", slug);
    run->version = version;
    run->status = RUN_QUEUED;
    run->created_ms = now_ms;
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    purge(r, now_ms, 0, 0);
    for (struct run *x = r->head; x && rc == 0; x = x->next)
        if (x->user_id == user_id && x->status != RUN_DONE)
            rc = RUNS_USER_BUSY;
    if (rc == 0 && r->stopping)
        rc = -1;
    if (rc == 0 && r->n_queued >= r->queue_max)
        rc = RUNS_FULL;
    if (rc == 0) {
        purge(r, now_ms, user_id, RUNS_KEEP_PER_USER);
        run->id = *id = r->next_id++;
        if (r->tail)
            r->tail->next = run;
        else
            r->head = run;
        r->tail = run;
        r->n_queued++;
        run = NULL;
        pthread_cond_signal(&r->wake);
    }
    pthread_mutex_unlock(&r->lock);
    if (run)
        run_free(run);
    return rc;
}

/* The run's progress as data, as a submission's (docs/api.md). */
static json_t *progress_json(const struct run *run)
{
    if (run->status != RUN_JUDGING || !run->stage)
        return json_null();
    if (!strcmp(run->stage, JUDGE_STAGE_RUNNING) && run->test >= 1 && run->test <= run->of)
        return json_pack("{s:s, s:i, s:i, s:s}", "stage", run->stage, "test", run->test, "of",
                         run->of, "kind", problem_test_kind_name(TEST_SAMPLE));
    return json_pack("{s:s}", "stage", run->stage);
}

json_t *runs_get(struct runs *r, int64_t id, int64_t user_id, int64_t now_ms, bool *found)
{
    json_t *o = NULL;
    *found = false;
    pthread_mutex_lock(&r->lock);
    purge(r, now_ms, 0, 0);
    struct run *run = r->head;
    int position = 0;
    for (; run && run->id != id; run = run->next)
        position += run->status == RUN_QUEUED;
    if (!run || run->user_id != user_id)
        goto out; /* someone else's run looks exactly like a missing one */
    *found = true;
    o = json_pack("{s:I, s:s, s:i, s:b, s:s, s:o, s:o, s:o, s:o}", "id", (json_int_t)run->id,
                  "problem", run->slug, "problem_version", run->version, "ungraded", 1, "status",
                  status_names[run->status], "progress", progress_json(run), "queue_position",
                  run->status == RUN_QUEUED ? json_integer(position + 1) : json_null(),
                  "created_at", views_time(run->created_ms), "judged_at",
                  run->status == RUN_DONE ? views_time(run->done_ms) : json_null());
    if (!o)
        goto out;
    int bad;
    if (run->status == RUN_DONE && run->report)
        bad = json_object_update(o, run->report);
    else
        bad = json_object_set_new(o, "verdict",
                                  run->status == RUN_DONE
                                      ? json_string(judge_verdict_name(V_INTERNAL_ERROR))
                                      : json_null()) ||
              json_object_set_new(o, "score", json_null()) ||
              json_object_set_new(o, "compile_log", json_null()) ||
              json_object_set_new(o, "tests", json_array());
    if (bad) {
        json_decref(o);
        o = NULL;
    }
out:
    pthread_mutex_unlock(&r->lock);
    return o;
}

int runs_wait_s(struct runs *r)
{
    pthread_mutex_lock(&r->lock);
    double mean = r->mean_ms > 0 ? r->mean_ms : 3000;
    double ahead = (double)(r->n_queued + r->n_judging) / (r->n > 0 ? r->n : 1);
    pthread_mutex_unlock(&r->lock);
    int s = (int)ceil((ahead + 1) * mean / 1000.0);
    return s < 1 ? 1 : s;
}

int runs_stop(struct runs *r, int grace_s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += grace_s;
    pthread_mutex_lock(&r->lock);
    r->stopping = true;
    pthread_cond_broadcast(&r->wake);
    while (r->n_running > 0)
        if (pthread_cond_timedwait(&r->exited, &r->lock, &until) == ETIMEDOUT)
            break;
    int still = r->n_running;
    pthread_mutex_unlock(&r->lock);
    if (still > 0)
        return still; /* r stays allocated: the stuck workers still use it */
    for (int i = 0; i < r->n_started; i++)
        pthread_join(r->threads[i], NULL);
    while (r->head) {
        struct run *x = r->head;
        r->head = x->next;
        run_free(x);
    }
    pthread_cond_destroy(&r->wake);
    pthread_cond_destroy(&r->exited);
    pthread_mutex_destroy(&r->lock);
    free(r->threads);
    free(r);
    return 0;
}
