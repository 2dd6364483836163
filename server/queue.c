/*
 * queue — the judging workers: claim a submission, judge it, record the
 * verdict (see queue.h).
 *
 * N worker threads, each with its own SQLite connection, loop:
 *   claim the next queued submission, round-robin across users (one atomic
 *   UPDATE ... RETURNING, which also bumps the row's claim number; see
 *   store_submission_claim) → look up the problem version
 *   it was submitted against → judge_submission() (thread-safe; the sandbox
 *   does the isolation) → write verdict and report in one
 *   transaction, guarded by the claim number.
 * When there is nothing to claim a worker sleeps on a condition variable;
 * queue_notify() (after an insert) wakes one, and a 2 s timeout catches work
 * queued behind its back (e.g. rows re-queued at start-up).
 *
 * A judge-side resource failure (descriptors, memory, processes: the
 * report's `transient` flag, or errno when the problem cannot be loaded) is
 * never recorded as a verdict: the claim goes back to the queue with a
 * back-off (2 s doubling to 1 min, per submission), and the worker pauses
 * a second.
 *
 * Judge hosts and leases: every process that judges is a judge host; each
 * claim records its holder and a lease, which the host's keeper renews
 * (keeper.c). A verdict is written only by the holder of the current
 * claim, so a submission is recorded once even if a stale worker finishes
 * late. Crash safety: a claimed row is `judging` until its verdict
 * commits; the keeper hands back the claims of dead hosts.
 *
 * Shutdown: queue_stop() raises `stopping`; idle workers exit, busy ones
 * record their verdict and exit. After the grace period, claims still held
 * are handed back to the queue in the database; the stuck workers' late
 * results will then be discarded as stale.
 */
#include "server/queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <sys/random.h>
#include <unistd.h>

#include "judge/poolkey.h"
#include "server/keeper.h"
#include "server/store.h"
#include "server/workers.h"
#include "util/clock.h"

/* Progress callback state of one judgement. */
struct progress {
    struct store *s;
    int64_t id, claim;
    const struct problem *p; /* NULL until loaded */
};

/* Records the stage as data, never prose (docs/api.md): {"stage"} or, while
 * running, {"stage", "test" (1-based), "of", "kind"}. The judge announces a
 * run of hidden tests once, at its first test (judge.h), so "test" of a
 * hidden run stays there. */
static void on_progress(void *arg, const char *stage, int test_index, int n_tests)
{
    struct progress *pr = arg;
    json_t *o;
    if (!strcmp(stage, JUDGE_STAGE_RUNNING) && pr->p && test_index >= 0 &&
        (size_t)test_index < pr->p->n_tests && (size_t)n_tests == pr->p->n_tests)
        o = json_pack("{s:s, s:i, s:i, s:s}", "stage", stage, "test", test_index + 1, "of", n_tests,
                      "kind", problem_test_kind_name(pr->p->tests[test_index].kind));
    else
        o = json_pack("{s:s}", "stage", stage);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    /* Best effort: progress is cosmetic, a failure must not stop judging. */
    if (!text || store_submission_progress(pr->s, pr->id, pr->claim, text) < 0)
        fprintf(stderr, "attnjudge: progress of #%lld: %s\n", (long long)pr->id,
                text ? store_error(pr->s) : "out of memory");
    free(text);
}

/* Back-off of a submission given back after a judge-side resource failure:
 * 2 s, 4 s, 8 s ... at most a minute (ms). */
static int64_t retry_delay_ms(int retries)
{
    int64_t ms = (int64_t)2000 << (retries < 5 ? retries : 5);
    return ms < 60000 ? ms : 60000;
}

/* True if errno says the machine ran out of something (descriptors,
 * memory, processes): judging again later may work. */
static bool resource_errno(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOMEM || e == EAGAIN || e == ENOBUFS;
}

/* A judge-side resource failure is never the student's verdict: the claim
 * goes back to the queue with a back-off (docs/operations.md). */
static void give_back(struct store *s, const struct store_claim *c, const char *why)
{
    int64_t delay = retry_delay_ms(c->retries);
    for (int attempt = 0;; attempt++) {
        int rc = store_submission_retry(s, c->id, c->claim, clock_wall_ms() + delay);
        if (rc == 0)
            fprintf(stderr,
                    "attnjudge: #%lld: the judge ran out of resources (%s); re-queued, retry %d "
                    "in %lld s\n",
                    (long long)c->id, why, c->retries + 1, (long long)(delay / 1000));
        if (rc >= 0) /* STORE_STALE: re-queued meanwhile by someone else */
            return;
        fprintf(stderr, "attnjudge: #%lld: re-queueing (attempt %d): %s\n", (long long)c->id,
                attempt + 1, store_error(s));
        if (attempt == 4)
            return; /* stays `judging` until the next start re-queues it */
        sleep(1u << attempt);
    }
}

/* Records the result, retrying a busy database a few times. */
static int record(struct store *s, const struct store_claim *c, const struct store_result *r)
{
    for (int attempt = 0;; attempt++) {
        int rc = store_submission_finish(s, c->id, c->claim, clock_wall_ms(), r);
        if (rc >= 0)
            return rc;
        fprintf(stderr, "attnjudge: recording #%lld (attempt %d): %s\n", (long long)c->id,
                attempt + 1, store_error(s));
        if (attempt == 4)
            return -1;
        sleep(1u << attempt);
    }
}

/* Judges one claimed submission and records its verdict. Returns true if
 * the judge ran out of resources (the claim was given back). */
static bool judge_one(struct queue *q, struct store *s, const struct store_claim *c)
{
    char err[512] = "";
    double t0 = clock_mono_ms();
    struct judge_report *rep = NULL;
    json_t *rj = NULL;
    char *report_text = NULL;
    struct store_result res = {0};
    bool transient = false;
    struct progress pr = {s, c->id, c->claim, NULL};
    on_progress(&pr, JUDGE_STAGE_WAITING, 0, 0);
    const struct problem *p = catalog_get(q->catalog, c->slug, c->version, err, sizeof err);
    int load_errno = errno;

    if (!p && (resource_errno(load_errno) || strstr(err, "out of memory")))
        transient = true;
    if (p) {
        pr.p = p;
        /* the search runs inside this judgement, on this worker's claim:
         * it is paid for like the tests it extends (docs/operations.md) */
        struct judge_options opt = {.progress = on_progress,
                                    .progress_arg = &pr,
                                    .search_budget_ms = q->host.search_budget_ms};
        rep = judge_submission(q->judge, p, c->source, c->source_len, "solution.c", &opt);
        if (!rep)
            snprintf(err, sizeof err, "out of memory");
        transient = !rep || rep->transient;
    }
    if (rep && !transient &&
        (!(rj = judge_report_json(rep, p)) ||
         !(report_text = json_dumps(rj, JSON_COMPACT | JUDGE_JSON_REALS)))) {
        snprintf(err, sizeof err, "out of memory");
        transient = true;
    }
    if (transient) {
        give_back(s, c,
                  rep && rep->transient && rep->internal_message ? rep->internal_message : err);
        free(report_text);
        json_decref(rj);
        judge_report_free(rep);
        return true;
    }
    if (rep) {
        double total = 0;
        for (int i = 0; i < rep->n_tests; i++)
            total += rep->tests[i].time_ms;
        res = (struct store_result){.verdict = judge_verdict_name(rep->verdict),
                                    .score = rep->score,
                                    .time_ms = total,
                                    .compile_ms = rep->compile_ms,
                                    .report_json = report_text,
                                    .internal_message = rep->internal_message,
                                    .bench = q->bench.enabled && rep->verdict == V_ACCEPTED &&
                                             p->bench.n_sizes > 0,
                                    .bench_user_max = q->bench.user_max};
        if (rep->verdict == V_INTERNAL_ERROR)
            fprintf(stderr, "attnjudge: #%lld internal_error: %s\n", (long long)c->id,
                    rep->internal_message ? rep->internal_message : "(no detail)");
    } else {
        /* The judge could not even start on it: an internal error, never the
         * student's fault. The detail stays in the log and the database. */
        fprintf(stderr, "attnjudge: #%lld internal_error: %s\n", (long long)c->id, err);
        res = (struct store_result){.verdict = judge_verdict_name(V_INTERNAL_ERROR),
                                    .report_json = "{\"verdict\":\"internal_error\",\"score\":0,"
                                                   "\"compile_log\":null,\"tests\":[]}",
                                    .internal_message = err};
    }
    int rc = record(s, c, &res);
    double t1 = clock_mono_ms();
    if (rc == 0) {
        metrics_judgement(q->metrics, rep ? (int)rep->verdict : (int)V_INTERNAL_ERROR, t1 - t0,
                          (double)(clock_wall_ms() - c->queued_at));
    } else if (rc == STORE_STALE) {
        fprintf(stderr, "attnjudge: #%lld: result discarded (re-queued meanwhile)\n",
                (long long)c->id);
    } else {
        int n = 0;
        /* Give it back rather than leave it `judging` until a restart. */
        if (store_submission_requeue(s, c->id, c->claim, &n) < 0)
            fprintf(stderr, "attnjudge: #%lld: requeue: %s\n", (long long)c->id, store_error(s));
    }
    free(report_text);
    json_decref(rj);
    judge_report_free(rep);
    return false;
}

/* bench_options.should_stop: the server is shutting down. */
static bool stopping(void *arg)
{
    struct queue *q = arg;
    pthread_mutex_lock(&q->lock);
    bool stop = q->stopping;
    pthread_mutex_unlock(&q->lock);
    return stop;
}

/* Records a benchmark's end, retrying a busy database a few times. */
static int bench_record(struct store *s, const struct store_claim *c, const char *status,
                        const char *report, double ms, const char *verdict)
{
    for (int attempt = 0;; attempt++) {
        int rc = store_bench_finish(s, c->id, c->claim, status, report, ms, verdict);
        if (rc >= 0)
            return rc;
        fprintf(stderr, "attnjudge: recording the benchmark of #%lld (attempt %d): %s\n",
                (long long)c->id, attempt + 1, store_error(s));
        if (attempt == 4)
            return -1;
        sleep(1u << attempt);
    }
}

/* Whether pooled figures (a report's JSON text) resolved every size. */
static bool pooled_resolved(const char *text)
{
    json_t *report = json_loads(text, 0, NULL);
    bool resolved = !report || bench_report_json_resolved(report);
    json_decref(report);
    return resolved;
}

/* Benchmarks one claimed accepted submission (docs/performance.md): the
 * figures of the same code (the same pool key: comments, layout and the
 * names of locals aside) on the same problem version when it was
 * measured before, else a measurement. A wrong output at a benchmark size
 * overturns the verdict; a failure of the judge is logged and recorded as
 * a failed benchmark (never retried in a loop: an instructor's rejudge
 * starts it again). */
static void bench_one(struct queue *q, struct store *s, const struct store_claim *c)
{
    char err[512] = "", *text = NULL, *pooled = NULL;
    double ms = NAN;
    const char *status = "failed", *verdict = NULL;
    struct bench_report *b = NULL;
    json_t *bj = NULL;

    char key[POOLKEY_LEN + 1];
    bool keyed = poolkey_of(c->source, c->source_len, key) == 0; /* else: by the bytes only */
    int pr = store_bench_pooled(s, c->id, keyed ? key : NULL, &pooled, &ms);
    if (pr == 0 && !pooled_resolved(pooled)) {
        free(pooled); /* lost in the noise once: measured again */
        pooled = NULL;
        pr = STORE_NOT_FOUND;
    }
    if (pr == 0) {
        if (bench_record(s, c, "done", pooled, ms, NULL) == 0)
            metrics_benchmark(q->metrics, 0, true);
        free(pooled);
        return;
    }
    if (pr < 0)
        fprintf(stderr, "attnjudge: #%lld: benchmark pool: %s\n", (long long)c->id, store_error(s));
    double t0 = clock_mono_ms();
    const struct problem *p = catalog_get(q->catalog, c->slug, c->version, err, sizeof err);
    if (p)
        b = judge_benchmark(q->judge, p, c->source, c->source_len, "solution.c", &q->bench.opt,
                            &q->bench.peak);
    if (b && b->interrupted) {
        /* shutting down: measured again at the next start */
        if (store_bench_requeue(s, c->id, c->claim, NULL) < 0)
            fprintf(stderr, "attnjudge: #%lld: benchmark requeue: %s\n", (long long)c->id,
                    store_error(s));
        bench_report_free(b);
        return;
    }
    if (b && b->verdict == V_INTERNAL_ERROR) {
        snprintf(err, sizeof err, "%s", b->internal_message ? b->internal_message : "unknown");
        free(b->internal_message); /* the operator's, never in a student's view */
        b->internal_message = NULL;
        b->message = strdup("the benchmark could not run (the judge failed, not your code)");
    }
    if (b && (bj = bench_report_json(b, p)) != NULL)
        text = json_dumps(bj, JSON_COMPACT | JUDGE_JSON_REALS);
    if (!p || !b || !text) {
        fprintf(stderr, "attnjudge: #%lld: benchmark: %s\n", (long long)c->id,
                p ? "out of memory" : err);
    } else if (b->verdict == V_INTERNAL_ERROR) {
        fprintf(stderr, "attnjudge: #%lld: benchmark internal_error: %s\n", (long long)c->id, err);
    } else if (b->verdict != V_ACCEPTED) {
        verdict = judge_verdict_name(b->verdict);
    } else {
        status = "done";
        if (b->geomean_ms > 0)
            ms = b->geomean_ms;
    }
    if (bench_record(s, c, status, text, ms, verdict) == 0)
        metrics_benchmark(q->metrics, clock_mono_ms() - t0, false);
    free(text);
    json_decref(bj);
    bench_report_free(b);
}

/* store_bench_claim from the benchmark core (cpus.h): the thread moves
 * there before the claim, so that whenever the database says a benchmark
 * runs, its thread and the sandboxes it creates are on that core; back on
 * the judging cores when there was nothing to claim. It moves only when a
 * benchmark waits: an idle worker wakes often (every notification, other
 * front ends' work), and each empty claim would otherwise hold it on the
 * benchmark core for as long as the database takes to answer. */
static int bench_claim(struct queue *q, struct store *s, struct store_claim *c)
{
    struct store_queue_entry *waiting = NULL;
    size_t n_waiting = 0;
    if (store_bench_order(s, &waiting, &n_waiting) < 0)
        return -1;
    free(waiting);
    if (n_waiting == 0)
        return STORE_NOT_FOUND;
    if (cpus_enter_bench(&q->bench.cpus) < 0)
        fprintf(stderr, "attnjudge: benchmark core: %s\n", strerror(errno));
    int rc = store_bench_claim(s, clock_wall_ms(), c);
    if (rc != 0 && cpus_enter_judging(&q->bench.cpus) < 0)
        fprintf(stderr, "attnjudge: judging cores: %s\n", strerror(errno));
    return rc;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct queue *q = w->q;
    char err[STORE_ERR_LEN];
    struct store *s = store_open(q->db_path, q->sync_full, err, sizeof err);
    if (!s)
        fprintf(stderr, "attnjudge: worker: %s (this worker exits; /healthz reports it)\n", err);
    else
        store_set_holder(s, q->name, q->host.lease_ms);
    pthread_mutex_lock(&q->lock);
    w->ready = s != NULL;
    pthread_cond_broadcast(&q->exited);
    pthread_mutex_unlock(&q->lock);
    for (;;) {
        pthread_mutex_lock(&q->lock);
        if (q->stopping || !s) {
            pthread_mutex_unlock(&q->lock);
            break;
        }
        if (q->pending > 0)
            q->pending--;
        pthread_mutex_unlock(&q->lock);

        struct store_claim c;
        bool starved = false;
        int rc = store_submission_claim(s, clock_wall_ms(), &c);
        if (rc == 0) {
            pthread_mutex_lock(&q->lock);
            w->id = c.id;
            w->claim = c.claim;
            pthread_mutex_unlock(&q->lock);
            metrics_busy(q->metrics, 1);
            starved = judge_one(q, s, &c);
            metrics_busy(q->metrics, -1);
            pthread_mutex_lock(&q->lock);
            w->id = w->claim = 0;
            pthread_mutex_unlock(&q->lock);
            store_claim_free(&c);
            if (!starved)
                continue; /* there may be more */
        } else if (rc < 0) {
            fprintf(stderr, "attnjudge: worker claim: %s\n", store_error(s));
        } else if (q->bench.enabled && (rc = bench_claim(q, s, &c)) == 0) {
            /* no verdict waits: benchmark an accepted submission */
            pthread_mutex_lock(&q->lock);
            w->id = c.id;
            w->claim = -c.claim; /* negative: a benchmark's claim (queue_stop) */
            pthread_mutex_unlock(&q->lock);
            metrics_busy(q->metrics, 1);
            bench_one(q, s, &c);
            if (cpus_enter_judging(&q->bench.cpus) < 0)
                fprintf(stderr, "attnjudge: judging cores: %s\n", strerror(errno));
            metrics_busy(q->metrics, -1);
            pthread_mutex_lock(&q->lock);
            w->id = w->claim = 0;
            pthread_mutex_unlock(&q->lock);
            store_claim_free(&c);
            continue;
        } else if (rc < 0) {
            fprintf(stderr, "attnjudge: benchmark claim: %s\n", store_error(s));
        }
        /* Nothing to do (or the database is unwell): sleep until notified.
         * Out of resources: pause a second whatever the notifications, rather
         * than fail the next claims the same way at once. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += rc < 0 || starved ? 1 : 2;
        pthread_mutex_lock(&q->lock);
        while (!q->stopping && (starved || q->pending == 0))
            if (pthread_cond_timedwait(&q->wake, &q->lock, &until) == ETIMEDOUT)
                break;
        pthread_mutex_unlock(&q->lock);
    }
    store_close(s);
    pthread_mutex_lock(&q->lock);
    w->running = false;
    pthread_cond_broadcast(&q->exited);
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

const char *queue_host_name(const struct queue *q)
{
    return q->name;
}

struct queue *queue_start(const char *db_path, bool sync_full, int n, struct judge_ctx *judge,
                          struct catalog *catalog, struct metrics *metrics,
                          const struct queue_bench *bench, const struct queue_host *host, char *err,
                          size_t errlen)
{
    struct queue *q = calloc(1, sizeof *q);
    if (!q || !(q->w = calloc((size_t)n, sizeof *q->w))) {
        free(q);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    pthread_cond_init(&q->exited, NULL);
    snprintf(q->db_path, sizeof q->db_path, "%s", db_path);
    q->sync_full = sync_full;
    q->judge = judge;
    q->catalog = catalog;
    q->metrics = metrics;
    if (bench)
        q->bench = *bench;
    q->bench.opt.should_stop = stopping;
    q->bench.opt.stop_arg = q;
    q->n = n;
    q->pending = (unsigned)n; /* look at the table once at start */
    q->host = *host;
    q->started_at = clock_wall_ms();
    uint32_t tag = 0;
    if (gethostname(q->hostname, sizeof q->hostname - 1) < 0)
        snprintf(q->hostname, sizeof q->hostname, "localhost");
    if (getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag)
        tag = (uint32_t)q->started_at;
    snprintf(q->name, sizeof q->name, "%s/%d/%08x", q->hostname, (int)getpid(), tag);
    /* Like a worker's, a keeper that cannot open the database leaves the
     * server up to say so (/healthz): no recovery, no heartbeat. */
    char kerr[STORE_ERR_LEN];
    if (!(q->keeper_store = store_open(db_path, sync_full, kerr, sizeof kerr)))
        fprintf(stderr, "attnjudge: heartbeat: %s (no judge host heartbeat)\n", kerr);
    else {
        store_set_holder(q->keeper_store, q->name, q->host.lease_ms);
        keeper_recover(q, q->keeper_store);
    }
    for (int i = 0; i < n; i++) {
        q->w[i].q = q;
        q->w[i].running = true;
        int rc = pthread_create(&q->w[i].thread, NULL, worker_main, &q->w[i]);
        if (rc != 0) {
            q->w[i].running = false;
            snprintf(err, errlen, "starting worker %d: %s", i, strerror(rc));
            queue_stop(q, 0);
            return NULL;
        }
        q->w[i].started = true;
    }
    /* Until each worker has its connection or has given up, the number
     * of live workers is not known yet: /healthz must not guess. */
    pthread_mutex_lock(&q->lock);
    for (;;) {
        bool pending = false;
        for (int i = 0; i < n; i++)
            pending |= q->w[i].running && !q->w[i].ready;
        if (!pending)
            break;
        pthread_cond_wait(&q->exited, &q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    /* the heartbeat starts once the workers' number is known */
    if (!q->keeper_store)
        return q;
    int rc = keeper_start(q);
    if (rc != 0) {
        snprintf(err, errlen, "starting the heartbeat: %s", strerror(rc));
        queue_stop(q, 0);
        return NULL;
    }
    return q;
}

int queue_workers_live(struct queue *q)
{
    int live = 0;
    pthread_mutex_lock(&q->lock);
    for (int i = 0; i < q->n; i++)
        live += q->w[i].running && q->w[i].ready;
    pthread_mutex_unlock(&q->lock);
    return live;
}

double queue_estimate_s(const struct queue *q, int64_t position, int64_t judging,
                        double mean_judge_ms)
{
    if (mean_judge_ms <= 0 || position < 1)
        return -1;
    /* With every worker busy, each judgement that ends frees a worker for
     * the next in line; they end about mean / workers apart. Ours starts
     * after (judging + position - workers) of them, then takes a mean. */
    int64_t before = judging + position - q->n;
    double wait_ms = before > 0 ? (double)before * mean_judge_ms / q->n : 0;
    return (wait_ms + mean_judge_ms) / 1000.0;
}

void queue_notify(struct queue *q)
{
    workers_wake(q);
}

int queue_stop(struct queue *q, int grace_s)
{
    struct timespec until;
    int still = 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += grace_s;
    pthread_mutex_lock(&q->lock);
    q->stopping = true;
    pthread_cond_broadcast(&q->wake);
    for (;;) {
        still = 0;
        for (int i = 0; i < q->n; i++)
            still += q->w[i].started && q->w[i].running;
        if (still == 0)
            break;
        if (pthread_cond_timedwait(&q->exited, &q->lock, &until) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&q->lock);
    keeper_stop(q);
    struct store *s = q->keeper_store;
    if (s && still > 0) {
        /* the stuck workers' claims go back to the queue; their late
         * results will be discarded as stale */
        int judging = 0, benchmarks = 0;
        if (store_leases_release(s, q->name, &judging, &benchmarks) < 0)
            fprintf(stderr, "attnjudge: could not re-queue the judgements in progress: %s\n",
                    store_error(s));
        else if (judging || benchmarks)
            fprintf(stderr,
                    "attnjudge: %d judgement(s) and %d benchmark(s) re-queued (judging did not "
                    "finish in %d s)\n",
                    judging, benchmarks, grace_s);
    }
    if (s && store_host_remove(s, q->name) < 0)
        fprintf(stderr, "attnjudge: judge host %s: %s\n", q->name, store_error(s));
    store_close(s);
    q->keeper_store = NULL;
    if (still > 0)
        return still; /* q stays allocated: the stuck workers still use it */
    for (int i = 0; i < q->n; i++)
        if (q->w[i].started)
            pthread_join(q->w[i].thread, NULL);
    pthread_cond_destroy(&q->wake);
    pthread_cond_destroy(&q->exited);
    pthread_mutex_destroy(&q->lock);
    free(q->w);
    free(q);
    return 0;
}
