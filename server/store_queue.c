/*
 * store_queue — the claim discipline: the submissions table as the queue.
 * What enters it (store_submission_create), who takes which row and for
 * how long (claims, leases, the judge hosts' heartbeats), and how a
 * verdict, a retry or a benchmark leaves it. Everything here is
 * trust-critical: a verdict must be recorded once, by the claim that
 * judged it.
 *
 * A worker claims a `queued` row with one UPDATE ... RETURNING that also
 * increments `claim`. Which row is round-robin across users (the user
 * with the fewest rows judging, then the one served longest ago per
 * queue_turns, then that user's oldest row), so one user's many rows
 * cannot delay another's one; Q_QUEUE_ORDER predicts that order for the
 * API's queue positions. The verdict is written only if the row is still
 * `judging` with that claim, so a result from a claim that was taken back
 * (SIGTERM, rejudge, a resource failure's retry, an expired lease) is
 * discarded rather than recorded twice; `judgements` counts the verdicts
 * recorded, for the crash test. A row given back after a judge-side
 * resource failure waits until `retry_at`; a `cancelled` row is never
 * claimed.
 *
 * Judge hosts: a claim records its holder (`claimed_by`, the connection's
 * store_set_holder) and a lease (`lease_until`); the holder's heartbeat
 * (store_host_beat) renews every lease it holds in one statement, and
 * store_leases_expire hands back the claims whose holder stopped beating.
 * Benchmark claims carry the same pair of their own, and run one at a
 * time.
 *
 * Benchmarks wait their turn round-robin across users too (bench_turns:
 * the user served longest ago, then that user's oldest), so one user's
 * many accepted submissions cannot delay another's one. A user's first
 * verdict of a new submission that queues a benchmark replaces the same
 * user's older waiting benchmarks of the same problem (they show
 * "superseded"), and beyond the user's cap of waiting ones it is not
 * queued (it shows "skipped"); a rejudge measures every accepted
 * submission again, as before.
 */
#include "server/store_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* Runs a count statement q with at most one int64 parameter (param, or
 * NULL for none) and stores the count in *n. */
static int count_rows(struct store *s, enum q q, const int64_t *param, int64_t *n)
{
    int rc = param ? store_one(s, q, "count", store_int64_row, n, "i", *param)
                   : store_one(s, q, "count", store_int64_row, n, "");
    return rc == 0 ? 0 : -1; /* a count always has its row */
}

int store_submission_create(struct store *s, int64_t user_id, const char *slug, const char *source,
                            size_t len, const struct store_queue_limits *lim, int64_t now,
                            int64_t *id, int *version)
{
    int64_t pid, n;
    int rc = -1;
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    rc = store_problem_id(s, slug, &pid, version);
    if (rc != 0)
        goto out;
    rc = -1;
    if (count_rows(s, Q_USER_ACTIVE, &user_id, &n) < 0)
        goto out;
    if (n >= lim->per_user) {
        rc = STORE_USER_FULL;
        goto out;
    }
    if (count_rows(s, Q_QUEUED_COUNT, NULL, &n) < 0)
        goto out;
    if (n >= lim->total) {
        rc = STORE_FULL;
        goto out;
    }
    st = store_prep(s, Q_SUB_INSERT);
    if (!st || store_bind(s, st, "iiIbii", user_id, pid, *version, source, len, now, now) < 0)
        goto out;
    if (store_insert_id(st, id) < 0) {
        store_fail(s, "insert submission");
        goto out;
    }
    store_done(st);
    st = NULL;
    rc = store_commit(s);
out:
    store_done(st);
    if (rc != 0)
        store_rollback(s);
    else
        store_announce(s);
    return rc;
}

/* A problem's slug (arg: the claim it goes into). */
static int slug_row(struct db_stmt *st, void *arg)
{
    struct store_claim *c = arg;
    copy_col(st, 0, c->slug, sizeof c->slug);
    return 0;
}

/* The claimed row st stands on, as RETURNING gives it: (id, claim,
 * problem_id, version, source, ...): read into c, with the problem's slug.
 * st is stepped to its end, so that the UPDATE completes before the
 * COMMIT, and reset. Returns 0 or -1 (st reset either way). */
static int claimed_row(struct store *s, struct db_stmt *st, struct store_claim *c, const char *what)
{
    int r;
    c->id = db_column_int64(st, 0);
    c->claim = db_column_int64(st, 1);
    int64_t pid = db_column_int64(st, 2);
    c->version = (int)db_column_int64(st, 3);
    /* The bytes as stored (a BLOB, legal under SQLite's TEXT affinity,
     * included); NULL is an empty source. */
    const char *src = col_bytes(st, 4, &c->source_len);
    if (!(c->source = malloc(c->source_len + 1))) {
        snprintf(s->err, sizeof s->err, "out of memory");
        goto fail;
    }
    if (c->source_len)
        memcpy(c->source, src, c->source_len);
    c->source[c->source_len] = '\0';
    while ((r = db_step(st)) == DB_ROW)
        ;
    if (r != DB_DONE) {
        store_fail(s, what);
        goto fail;
    }
    store_done(st);
    return store_one(s, Q_SLUG_BY_ID, what, slug_row, c, "i", pid) == 0 ? 0 : -1;
fail:
    store_done(st);
    return -1;
}

int store_submission_claim(struct store *s, int64_t now, struct store_claim *c)
{
    int rc = -1;
    struct db_stmt *st = NULL;
    memset(c, 0, sizeof *c);
    /* row locks alone keep two claims off one row (FOR UPDATE SKIP LOCKED
     * on PostgreSQL), so claims need not wait for other writers */
    if (store_begin_concurrent(s) < 0)
        return -1;
    st = store_prep(s, Q_SUB_CLAIM);
    if (!st || store_bind(s, st, "iti", now, s->holder[0] ? s->holder : NULL, s->lease_ms) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        store_fail(s, "claim");
        goto out;
    }
    c->queued_at = db_column_int64(st, 5);
    int64_t user_id = db_column_int64(st, 6);
    c->retries = (int)db_column_int64(st, 7);
    int claimed = claimed_row(s, st, c, "claim");
    st = NULL; /* reset by claimed_row */
    /* The round-robin's memory: this user was served now. */
    if (claimed < 0 || store_run(s, Q_TURN_SERVED, "ii", user_id, now) < 0)
        goto out;
    rc = store_commit(s);
out:
    store_done(st);
    if (rc != 0) {
        store_rollback(s);
        store_claim_free(c);
    }
    return rc;
}

/* Inside store_submission_finish's transaction, after submission id's
 * benchmark was queued: on its first verdict only, it replaces its
 * author's older waiting benchmarks of the same problem, then is skipped
 * if its author already has user_max others waiting. The benchmarks that
 * will not run keep, as their bench_report, what the API shows for them
 * (docs/api.md, "The benchmark"). 0 or -1. */
static int bench_admit(struct store *s, int64_t id, int user_max)
{
    char note[256];
    int64_t n;
    if (count_rows(s, Q_SUB_JUDGEMENTS, &id, &n) < 0)
        return -1;
    if (n != 1)
        return 0; /* a rejudge measures every accepted submission again */
    snprintf(note, sizeof note,
             "{\"status\":\"superseded\",\"superseded_by\":%lld,\"message\":\"replaced by "
             "your newer accepted submission #%lld of this problem, benchmarked instead\"}",
             (long long)id, (long long)id);
    if (store_run(s, Q_BENCH_SUPERSEDE, "ti", note, id) < 0 ||
        count_rows(s, Q_BENCH_USER_PENDING, &id, &n) < 0)
        return -1;
    if (user_max <= 0 || n < user_max)
        return 0;
    snprintf(note, sizeof note,
             "{\"status\":\"skipped\",\"waiting\":%lld,\"message\":\"you already had %lld "
             "benchmark%s waiting; submit again once they are measured\"}",
             (long long)n, (long long)n, n == 1 ? "" : "s");
    return store_run(s, Q_BENCH_SKIP, "ti", note, id);
}

int store_bench_claim(struct store *s, int64_t now, struct store_claim *c)
{
    int rc = -1;
    struct db_stmt *st = NULL;
    memset(c, 0, sizeof *c);
    if (store_begin(s) < 0)
        return -1;
    st = store_prep(s, Q_BENCH_CLAIM);
    if (!st || store_bind(s, st, "tii", s->holder[0] ? s->holder : NULL, now, s->lease_ms) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        store_fail(s, "benchmark claim");
        goto out;
    }
    int64_t user_id = db_column_int64(st, 5);
    int claimed = claimed_row(s, st, c, "benchmark claim");
    st = NULL; /* reset by claimed_row */
    /* The round-robin's memory: this user's benchmark ran now. */
    if (claimed == 0 && store_run(s, Q_BENCH_TURN_SERVED, "ii", user_id, now) == 0)
        rc = store_commit(s);
out:
    store_done(st);
    if (rc != 0) {
        store_rollback(s);
        store_claim_free(c);
    }
    return rc;
}

int store_bench_pooled(struct store *s, int64_t id, const char *key, char **report, double *ms)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    *report = NULL;
    if (key && store_run(s, Q_BENCH_KEY_SET, "ti", key, id) < 0)
        return -1;
    st = store_prep(s, Q_BENCH_POOL);
    if (!st || store_bind(s, st, "i", id) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
    } else if (r == DB_ROW && col_text(st, 0)) {
        *ms = col_real(st, 1);
        if ((*report = strdup(col_text(st, 0))) != NULL)
            rc = 0;
        else
            snprintf(s->err, sizeof s->err, "out of memory");
    } else {
        store_fail(s, "benchmark pool");
    }
out:
    store_done(st);
    return rc;
}

int store_bench_finish(struct store *s, int64_t id, int64_t claim, const char *status,
                       const char *report, double ms, const char *verdict)
{
    if (store_run(s, Q_BENCH_FINISH, "ttdtii", status, report, ms, verdict, id, claim) < 0)
        return -1;
    return (int)db_changes(s->db) ? 0 : STORE_STALE;
}

int store_bench_requeue(struct store *s, int64_t id, int64_t claim, int *count)
{
    if (store_run(s, Q_BENCH_REQUEUE, "ii", id, claim) < 0)
        return -1;
    if (db_changes(s->db) > 0)
        store_announce(s);
    if (count)
        *count = (int)db_changes(s->db);
    return 0;
}

/* ---- judge hosts and leases ---- */

void store_set_holder(struct store *s, const char *name, int64_t lease_ms)
{
    snprintf(s->holder, sizeof s->holder, "%s", name ? name : "");
    s->lease_ms = lease_ms;
}

/* rc, a store_run's answer; on success, adds the rows it changed to
 * *count (may be NULL). */
static int counted(struct store *s, int rc, int *count)
{
    if (rc == 0 && count)
        *count += (int)db_changes(s->db);
    return rc;
}

int store_host_beat(struct store *s, const struct store_host *h, int64_t now)
{
    int64_t until = now + s->lease_ms;
    if (store_begin(s) < 0)
        return -1;
    if (store_run(s, Q_HOST_BEAT, "ttiiiit", h->name, h->hostname, h->pid, (int64_t)h->workers,
                  (int64_t)h->busy, now, h->stats) < 0 ||
        store_run(s, Q_LEASE_RENEW, "it", until, h->name) < 0 ||
        store_run(s, Q_BENCH_LEASE_RENEW, "it", until, h->name) < 0)
        goto fail;
    return store_commit(s);
fail:
    store_rollback(s);
    return -1;
}

int store_leases_expire(struct store *s, int64_t now, int *judging, int *benchmarks)
{
    if (judging)
        *judging = 0;
    if (benchmarks)
        *benchmarks = 0;
    if (counted(s, store_run(s, Q_LEASE_EXPIRE, "i", now), judging) < 0 ||
        counted(s, store_run(s, Q_BENCH_LEASE_EXPIRE, "i", now), benchmarks) < 0)
        return -1;
    if ((judging && *judging) || (benchmarks && *benchmarks))
        store_announce(s);
    return 0;
}

int store_leases_release(struct store *s, const char *name, int *judging, int *benchmarks)
{
    if (judging)
        *judging = 0;
    if (benchmarks)
        *benchmarks = 0;
    if (counted(s, store_run(s, Q_LEASE_RELEASE, "t", name), judging) < 0 ||
        counted(s, store_run(s, Q_BENCH_LEASE_RELEASE, "t", name), benchmarks) < 0)
        return -1;
    if ((judging && *judging) || (benchmarks && *benchmarks))
        store_announce(s);
    return 0;
}

STORE_CALLBACK(hosts_cb, struct store_host);

static int host_row(struct db_stmt *st, void *arg)
{
    struct hosts_cb *c = arg;
    struct store_host h = {0};
    copy_col(st, 0, h.name, sizeof h.name);
    copy_col(st, 1, h.hostname, sizeof h.hostname);
    h.pid = db_column_int64(st, 2);
    h.workers = (int)db_column_int64(st, 3);
    h.busy = (int)db_column_int64(st, 4);
    h.started_at = db_column_int64(st, 5);
    h.seen_at = db_column_int64(st, 6);
    h.stats = db_column_text(st, 7);
    return c->fn(c->arg, &h);
}

int store_hosts(struct store *s, int64_t seen_since,
                int (*fn)(void *arg, const struct store_host *h), void *arg)
{
    struct hosts_cb c = {fn, arg};
    return store_each(s, Q_HOSTS, "judge hosts", host_row, &c, "i", seen_since);
}

int store_host_remove(struct store *s, const char *name)
{
    return store_run(s, Q_HOST_REMOVE, "t", name);
}

void store_claim_free(struct store_claim *c)
{
    free(c->source);
    c->source = NULL;
}

int store_submission_progress(struct store *s, int64_t id, int64_t claim, const char *text)
{
    return store_run(s, Q_SUB_PROGRESS, "tii", text, id, claim);
}

int store_submission_finish(struct store *s, int64_t id, int64_t claim, int64_t now,
                            const struct store_result *r)
{
    int rc = -1;
    if (store_begin(s) < 0)
        return -1;
    if (store_run(s, Q_SUB_FINISH, "tdddttiiii", r->verdict, r->score, r->time_ms, r->compile_ms,
                  r->report_json, r->internal_message, now, (int64_t)r->bench, id, claim) < 0)
        goto out;
    if ((int)db_changes(s->db) == 0) {
        rc = STORE_STALE;
        goto out;
    }
    if (r->bench && bench_admit(s, id, r->bench_user_max) < 0)
        goto out;
    rc = store_commit(s);
out:
    if (rc != 0)
        store_rollback(s);
    else if (r->bench)
        store_announce(s); /* a benchmark to run */
    return rc;
}

int store_submission_requeue(struct store *s, int64_t id, int64_t claim, int *count)
{
    if ((id ? store_run(s, Q_SUB_REQUEUE_ONE, "ii", id, claim)
            : store_run(s, Q_SUB_REQUEUE_ALL, "")) < 0)
        return -1;
    if (db_changes(s->db) > 0)
        store_announce(s);
    if (count)
        *count = (int)db_changes(s->db);
    return 0;
}

int store_submission_retry(struct store *s, int64_t id, int64_t claim, int64_t retry_at)
{
    if (store_run(s, Q_SUB_RETRY, "iii", retry_at, id, claim) < 0)
        return -1;
    if (!db_changes(s->db))
        return STORE_STALE;
    store_announce(s); /* due at retry_at: the listeners also look every few seconds */
    return 0;
}

struct sub_status {
    int64_t user_id;
    char *status;
    size_t len;
};

static int sub_status_row(struct db_stmt *st, void *arg)
{
    struct sub_status *x = arg;
    x->user_id = db_column_int64(st, 0);
    copy_col(st, 1, x->status, x->len);
    return 0;
}

int store_submission_cancel(struct store *s, int64_t id, int64_t owner_id, char *status, size_t len)
{
    struct sub_status x = {0, status, len};
    if (len)
        status[0] = '\0';
    if (store_begin(s) < 0)
        return -1;
    int rc = store_one(s, Q_SUB_STATUS, "cancel", sub_status_row, &x, "i", id);
    if (rc == 0 && owner_id && x.user_id != owner_id) {
        if (len)
            status[0] = '\0';
        rc = STORE_NOT_FOUND;
    }
    if (rc != 0)
        goto out;
    if (strcmp(status, "queued")) {
        rc = STORE_STALE;
        goto out;
    }
    /* Inside the write transaction no worker can claim it meanwhile. */
    if ((rc = store_run(s, Q_SUB_CANCEL, "i", id)) < 0)
        goto out;
    snprintf(status, len, "cancelled");
    rc = store_commit(s);
out:
    if (rc != 0)
        store_rollback(s);
    return rc;
}

/* The first two columns of a row: the second as an integer and as a real. */
struct pair {
    int64_t a, b;
    double b_real;
};

static int pair_row(struct db_stmt *st, void *arg)
{
    struct pair *p = arg;
    p->a = db_column_int64(st, 0);
    p->b = db_column_int64(st, 1);
    p->b_real = db_column_double(st, 1); /* NULL reads as 0 */
    return 0;
}

int store_queue_depth(struct store *s, int64_t *queued, int64_t *judging)
{
    struct pair p;
    if (store_one(s, Q_DEPTH, "queue depth", pair_row, &p, "") != 0)
        return -1;
    *queued = p.a;
    *judging = p.b;
    return 0;
}

struct order {
    struct store_queue_entry *v;
    size_t n, cap;
};

static int order_row(struct db_stmt *st, void *arg)
{
    struct order *o = arg;
    if (ARRAY_RESERVE(o->v, o->n, o->cap, 64) < 0)
        return -1;
    o->v[o->n++] = (struct store_queue_entry){.id = db_column_int64(st, 0),
                                              .user_id = db_column_int64(st, 1),
                                              .retry_at = db_column_int64(st, 2)};
    return 0;
}

/* The rows of an order statement q, (id, user_id, retry_at) each, into
 * *out (malloc'd) and *n. 0 or -1. */
static int read_order(struct store *s, enum q q, const char *what, struct store_queue_entry **out,
                      size_t *n)
{
    struct order o = {NULL, 0, 0};
    *out = NULL;
    *n = 0;
    if (store_each(s, q, what, order_row, &o, "") < 0) {
        free(o.v);
        return -1;
    }
    *out = o.v;
    *n = o.n;
    return 0;
}

int store_queue_order(struct store *s, struct store_queue_entry **out, size_t *n)
{
    return read_order(s, Q_QUEUE_ORDER, "queue order", out, n);
}

int store_bench_order(struct store *s, struct store_queue_entry **out, size_t *n)
{
    return read_order(s, Q_BENCH_ORDER, "benchmark order", out, n);
}

int store_queue_stats(struct store *s, int64_t *judging, double *mean_judge_ms)
{
    struct pair p;
    if (store_one(s, Q_MEAN_JUDGE, "queue stats", pair_row, &p, "") != 0)
        return -1;
    *judging = p.a;
    *mean_judge_ms = p.b_real;
    return 0;
}
