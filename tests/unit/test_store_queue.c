/*
 * Unit tests of the store's queue discipline (server/store.h): a submission
 * is recorded once, by its current claim; leases and a crash's `judging`
 * rows go back to the queue; a full queue says so; the per-user limit;
 * claims go round-robin across users and the predicted order is the claim
 * order; a claim copies the source exactly; cancellation; back-off after a
 * resource failure; two connections claiming at once take every row once.
 * On SQLite and, in the pg suite, on PostgreSQL (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>

#include "server/store.h"
#include "server/views.h"

#include "fixture_db.h"

static void test_store_claim_discipline(void **state)
{
    (void)state;
    int64_t uid, id, queued, judging;
    int version, n;
    struct store_claim c1, c2;
    struct store *s = fresh_store(state, "queue", &uid);

    assert_int_equal(store_submission_create(s, uid, "p", "src", 3, &roomy, 5, &id, &version), 0);
    assert_int_equal(version, 1);
    assert_int_equal(store_submission_create(s, uid, "nope", "src", 3, &roomy, 5, &id, &version),
                     STORE_NOT_FOUND);
    assert_int_equal(store_submission_claim(s, 6, &c1), 0);
    assert_int_equal(c1.source_len, 3);
    assert_memory_equal(c1.source, "src", 3);
    assert_int_equal(store_submission_claim(s, 6, &c2), STORE_NOT_FOUND); /* nothing left */

    /* a crash: the `judging` row goes back to the queue, and a new claim
     * supersedes the old one, whose late result is discarded */
    assert_int_equal(store_submission_requeue(s, 0, 0, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_submission_claim(s, 7, &c2), 0);
    assert_int_equal(c2.id, c1.id);
    assert_true(c2.claim != c1.claim);
    assert_int_equal(store_submission_finish(s, c1.id, c1.claim, 8, &accepted), STORE_STALE);
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 8, &accepted), 0);
    /* recorded once: a second finish by the same claim is stale too */
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 9, &accepted), STORE_STALE);
    assert_int_equal(store_queue_depth(s, &queued, &judging), 0);
    assert_int_equal(queued + judging, 0);
    store_claim_free(&c1);
    store_claim_free(&c2);
    store_close(s);
}

/* Judge hosts: a claim names its holder and holds a lease; the holder's
 * heartbeat renews it; an expired lease, or a holder known to be gone,
 * hands the claim back, and the late verdict of the old claim is stale. */
static int count_host(void *arg, const struct store_host *h)
{
    (void)h;
    ++*(int *)arg;
    return 0;
}

static void test_store_leases(void **state)
{
    (void)state;
    int64_t uid, a, b, id;
    int version, judging, benchmarks, hosts = 0;
    struct store_claim ca, cb, cc;
    struct store *s = fresh_store(state, "leases", &uid);
    struct store_host host_a = {.name = "a", .hostname = "h", .pid = 1, .workers = 1};
    assert_int_equal(store_submission_create(s, uid, "p", "one", 3, &roomy, 5, &a, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "two", 3, &roomy, 5, &b, &version), 0);
    store_set_holder(s, "a", 1000);
    assert_int_equal(store_submission_claim(s, 100, &ca), 0); /* lease until 1100 */
    store_set_holder(s, "b", 1000);
    assert_int_equal(store_submission_claim(s, 100, &cb), 0);
    /* a's heartbeat at 900 renews a's lease to 1900, not b's */
    store_set_holder(s, "a", 1000);
    assert_int_equal(store_host_beat(s, &host_a, 900), 0);
    assert_int_equal(store_leases_expire(s, 1000, &judging, &benchmarks), 0);
    assert_int_equal(judging, 0);
    assert_int_equal(store_leases_expire(s, 1200, &judging, &benchmarks), 0);
    assert_int_equal(judging, 1); /* b's */
    assert_int_equal(store_submission_claim(s, 1200, &cc), 0);
    assert_int_equal(cc.id, cb.id);
    assert_int_equal(store_submission_finish(s, cb.id, cb.claim, 1300, &accepted), STORE_STALE);
    assert_int_equal(store_submission_finish(s, cc.id, cc.claim, 1300, &accepted), 0);
    /* a leaves (or is found dead): its claim goes back at once */
    assert_int_equal(store_leases_release(s, "a", &judging, &benchmarks), 0);
    assert_int_equal(judging, 1);
    assert_int_equal(store_submission_finish(s, ca.id, ca.claim, 1300, &accepted), STORE_STALE);
    /* the hosts seen since a time */
    assert_int_equal(store_hosts(s, 900, count_host, &hosts), 0);
    assert_int_equal(hosts, 1);
    hosts = 0;
    assert_int_equal(store_hosts(s, 901, count_host, &hosts), 0);
    assert_int_equal(hosts, 0);
    assert_int_equal(store_host_remove(s, "a"), 0);
    assert_int_equal(store_hosts(s, 0, count_host, &hosts), 0);
    assert_int_equal(hosts, 0);
    (void)id;
    store_claim_free(&ca);
    store_claim_free(&cb);
    store_claim_free(&cc);
    store_close(s);
}

static void test_store_queue_full(void **state)
{
    (void)state;
    int64_t uid, bob, id;
    int version;
    struct store_queue_limits lim = {3, 1000};
    struct store *s = fresh_store(state, "full", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version),
                     STORE_FULL);
    assert_int_equal(store_submission_create(s, bob, "p", "x", 1, &lim, 5, &id, &version),
                     STORE_FULL);
    store_close(s);
}

static void test_store_user_limit(void **state)
{
    (void)state;
    int64_t uid, bob, id;
    int version;
    struct store_claim c;
    struct store_queue_limits lim = {1000, 2};
    struct store *s = fresh_store(state, "userlimit", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 6, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 7, &id, &version),
                     STORE_USER_FULL);
    /* another user is not affected */
    assert_int_equal(store_submission_create(s, bob, "p", "x", 1, &lim, 7, &id, &version), 0);
    /* judging still counts; a verdict frees the place */
    assert_int_equal(store_submission_claim(s, 8, &c), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 9, &id, &version),
                     STORE_USER_FULL);
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 10, &accepted), 0);
    store_claim_free(&c);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 11, &id, &version), 0);
    store_close(s);
}

static void test_store_round_robin(void **state)
{
    (void)state;
    int64_t alice, bob, carol;
    struct store_claim c;
    struct store *s = fresh_store(state, "roundrobin", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    assert_int_equal(store_user_create(s, "carol", "x", "student", 1, &carol), 0);

    /* alice queues ten, then bob one: bob's is the second claimed, not the
     * eleventh (alice has one judging by then, bob none) */
    int64_t a1 = submit_n(s, alice, 10, 100);
    int64_t b1 = submit_n(s, bob, 1, 200);
    assert_int_equal(store_submission_claim(s, 300, &c), 0);
    assert_int_equal(c.id, a1);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 301, &c), 0);
    assert_int_equal(c.id, b1);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 302, &c), 0);
    assert_int_equal(c.id, a1 + 1);
    store_claim_free(&c);
    store_close(s);
}

/* Students user1 .. user(n-1) beside the fixture's user[0]: their ids in
 * user[1 .. n-1]. */
static void add_students(struct store *s, int64_t *user, int n)
{
    for (int i = 1; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "user%d", i);
        assert_int_equal(store_user_create(s, name, "x", "student", 1, &user[i]), 0);
    }
}

/* store_queue_order predicts the claim order exactly when nothing ends and
 * nothing arrives, from a mixed state: users with rows judging, users
 * served long ago, users never served, ties in queued_at. */
static void test_store_queue_order_is_claim_order(void **state)
{
    (void)state;
    int64_t user[5], t = 1000;
    struct store_claim c;
    struct store_queue_entry *order = NULL;
    size_t n = 0;
    struct store *s = fresh_store(state, "order", &user[0]);
    add_students(s, user, 5);
    /* history: user0 twice and user2 once judged; user1 has one judging */
    submit_n(s, user[0], 2, t);
    submit_n(s, user[2], 1, t + 5);
    submit_n(s, user[1], 1, t + 6);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(store_submission_claim(s, t + 10 + i, &c), 0);
        if (i < 3)
            assert_int_equal(store_submission_finish(s, c.id, c.claim, t + 20, &accepted), 0);
        store_claim_free(&c);
    }
    /* now a queue: 4 of user0, 3 of user1, 2 of user2, 1 of user3, 3 of user4 */
    submit_n(s, user[0], 4, t + 100);
    submit_n(s, user[4], 3, t + 100);
    submit_n(s, user[1], 3, t + 101);
    submit_n(s, user[3], 1, t + 102);
    submit_n(s, user[2], 2, t + 103);
    assert_int_equal(store_queue_order(s, &order, &n), 0);
    assert_int_equal(n, 13);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_submission_claim(s, t + 200 + (int64_t)i, &c), 0);
        if (c.id != order[i].id)
            fail_msg("claim %zu took #%lld, predicted #%lld", i, (long long)c.id,
                     (long long)order[i].id);
        store_claim_free(&c);
    }
    assert_int_equal(store_submission_claim(s, t + 300, &c), STORE_NOT_FOUND);
    free(order);
    store_close(s);
}

/* A claim copies the stored source exactly, whatever SQLite holds: text
 * read before its size (SQLite's order), a zero-length value as an empty
 * source, a BLOB (legal under TEXT affinity) byte for byte. */
static void test_store_claim_source(void **state)
{
    (void)state;
    int64_t uid;
    struct store_claim c;
    struct store *s = fresh_store(state, "claimsrc", &uid);
    int64_t first = submit_n(s, uid, 3, 10);
    char sql[256];
    /* PostgreSQL's text has no BLOB to hold: the same values as text */
    snprintf(sql, sizeof sql,
             is_pg(state)
                 ? "UPDATE submissions SET source = '' WHERE id = %lld;"
                   "UPDATE submissions SET source = 'int f(void);' WHERE id = %lld;"
                   "UPDATE submissions SET source = 'caf\xc3\xa9 // \xe2\x82\xac' WHERE id = %lld;"
                 : "UPDATE submissions SET source = X'' WHERE id = %lld;"
                   "UPDATE submissions SET source = CAST('int f(void);' AS BLOB) WHERE id = %lld;"
                   "UPDATE submissions SET source = 'caf\xc3\xa9 // \xe2\x82\xac' WHERE id = %lld;",
             (long long)first, (long long)first + 1, (long long)first + 2);
    exec_on_db(sql);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.source_len, 0);
    assert_string_equal(c.source, "");
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 21, &c), 0);
    assert_int_equal(c.source_len, strlen("int f(void);"));
    assert_string_equal(c.source, "int f(void);");
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 22, &c), 0);
    assert_int_equal(c.source_len, strlen("caf\xc3\xa9 // \xe2\x82\xac"));
    assert_string_equal(c.source, "caf\xc3\xa9 // \xe2\x82\xac");
    store_claim_free(&c);
    store_close(s);
}

/* store_submission_get through views_submission: the API's object. */
static int take_submission(void *arg, const struct store_submission_row *row)
{
    *(json_t **)arg = views_submission(row);
    return *(json_t **)arg ? 0 : -1;
}

static json_t *get_submission(struct store *s, int64_t id)
{
    json_t *o = NULL;
    assert_int_equal(store_submission_get(s, id, take_submission, &o), 0);
    assert_non_null(o);
    return o;
}

static void test_store_cancel(void **state)
{
    (void)state;
    int64_t uid, bob, queued, judging;
    char status[16];
    struct store_claim c;
    struct store *s = fresh_store(state, "cancel", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    int64_t first = submit_n(s, uid, 3, 10);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.id, first);
    /* judging: too late */
    assert_int_equal(store_submission_cancel(s, first, uid, status, sizeof status), STORE_STALE);
    assert_string_equal(status, "judging");
    /* someone else's looks missing; an unknown id is missing */
    assert_int_equal(store_submission_cancel(s, first + 1, bob, status, sizeof status),
                     STORE_NOT_FOUND);
    assert_int_equal(store_submission_cancel(s, 999, uid, status, sizeof status), STORE_NOT_FOUND);
    /* queued: cancelled, once; owner 0 (an instructor) may too */
    assert_int_equal(store_submission_cancel(s, first + 1, uid, status, sizeof status), 0);
    assert_string_equal(status, "cancelled");
    assert_int_equal(store_submission_cancel(s, first + 1, uid, status, sizeof status),
                     STORE_STALE);
    assert_string_equal(status, "cancelled");
    assert_int_equal(store_submission_cancel(s, first + 2, 0, status, sizeof status), 0);
    /* a cancelled submission is never claimed and has no verdict */
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 30, &accepted), 0);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 40, &c), STORE_NOT_FOUND);
    assert_int_equal(store_queue_depth(s, &queued, &judging), 0);
    assert_int_equal(queued + judging, 0);
    json_t *o = get_submission(s, first + 1);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "cancelled");
    assert_true(json_is_null(json_object_get(o, "verdict")));
    json_decref(o);
    /* a rejudge leaves it cancelled */
    int count = 0;
    assert_int_equal(store_rejudge(s, "p", 0, 0, 50, &count, NULL), 0);
    assert_int_equal(count, 1);
    o = get_submission(s, first + 1);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "cancelled");
    json_decref(o);
    store_close(s);
}

static void test_store_retry_backoff(void **state)
{
    (void)state;
    int64_t uid;
    struct store_claim c, c2;
    struct store *s = fresh_store(state, "retry", &uid);
    int64_t id = submit_n(s, uid, 1, 10);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.retries, 0);
    assert_int_equal(store_submission_retry(s, c.id, c.claim, 2020), 0);
    assert_int_equal(store_submission_retry(s, c.id, c.claim, 2020), STORE_STALE); /* once */
    /* not before its back-off */
    assert_int_equal(store_submission_claim(s, 2019, &c2), STORE_NOT_FOUND);
    assert_int_equal(store_submission_claim(s, 2020, &c2), 0);
    assert_int_equal(c2.id, id);
    assert_int_equal(c2.retries, 1);
    assert_true(c2.claim != c.claim);
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 2100, &accepted), 0);
    store_claim_free(&c);
    store_claim_free(&c2);
    store_close(s);
}

/* Two connections claiming at once take every row exactly once (on
 * PostgreSQL side by side, FOR UPDATE SKIP LOCKED). */
#define RACE_ROWS 60
struct racer {
    struct store *s;
    int taken[RACE_ROWS + 1];
    int64_t first;
};

/* Adds problem slug (version 1) to s. */
static void add_problem(struct store *s, const char *slug)
{
    int version;
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(
        store_problem_add_version(s, slug, slug, "hash1", "directory", 0, false, 1, &version), 0);
    assert_int_equal(store_commit(s), 0);
}

/* user's submission to slug at time t, judged accepted with its benchmark
 * queued (at most user_max waiting per user; 0: no cap); its id. */
static int64_t accept_bench(struct store *s, int64_t user, const char *slug, int64_t t,
                            int user_max)
{
    int64_t id;
    int version;
    struct store_claim c;
    struct store_result r = accepted;
    r.bench = true;
    r.bench_user_max = user_max;
    assert_int_equal(store_submission_create(s, user, slug, "x", 1, &roomy, t, &id, &version), 0);
    assert_int_equal(store_submission_claim(s, t, &c), 0);
    assert_int_equal(c.id, id);
    assert_int_equal(store_submission_finish(s, c.id, c.claim, t + 1, &r), 0);
    store_claim_free(&c);
    return id;
}

/* Claims the next benchmark at time t and ends it done; its id. */
static int64_t run_bench(struct store *s, int64_t t)
{
    struct store_claim c;
    assert_int_equal(store_bench_claim(s, t, &c), 0);
    int64_t id = c.id;
    assert_int_equal(store_bench_finish(s, c.id, c.claim, "done", "{}", 1.0, NULL), 0);
    store_claim_free(&c);
    return id;
}

struct bench_state {
    char status[16]; /* bench_status, or the note's "status" when NULL, or "" */
    json_t *note;    /* the bench_report when bench_status is NULL */
};

static int bench_state_row(void *arg, const struct store_submission_row *row)
{
    struct bench_state *b = arg;
    if (row->bench_status) {
        snprintf(b->status, sizeof b->status, "%s", row->bench_status);
        return 0;
    }
    b->note = row->bench_report ? json_loads(row->bench_report, 0, NULL) : NULL;
    const char *st = json_string_value(json_object_get(b->note, "status"));
    snprintf(b->status, sizeof b->status, "%s", st ? st : "");
    return 0;
}

/* Submission id's benchmark state; b->note to json_decref. */
static void bench_state(struct store *s, int64_t id, struct bench_state *b)
{
    memset(b, 0, sizeof *b);
    assert_int_equal(store_submission_get(s, id, bench_state_row, b), 0);
}

/* One user's six waiting benchmarks delay another user's one by at most
 * one of them: bob's runs second, not seventh, then alice's go on in
 * order; and store_bench_order predicted exactly that. */
static void test_store_bench_round_robin(void **state)
{
    int64_t alice, bob, a[6], b1;
    struct store_queue_entry *order = NULL;
    size_t n = 0;
    struct store *s = fresh_store(state, "benchrr", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    for (int i = 0; i < 6; i++) {
        char slug[8];
        snprintf(slug, sizeof slug, "q%d", i);
        add_problem(s, slug);
        a[i] = accept_bench(s, alice, slug, 100 + 10 * i, 0);
    }
    b1 = accept_bench(s, bob, "q0", 200, 0);
    assert_int_equal(store_bench_order(s, &order, &n), 0);
    assert_int_equal(n, 7);
    int64_t want[7] = {a[0], b1, a[1], a[2], a[3], a[4], a[5]};
    for (size_t i = 0; i < n; i++) {
        int64_t got = run_bench(s, 300 + (int64_t)i);
        if (got != want[i] || order[i].id != want[i])
            fail_msg("benchmark %zu: ran #%lld, predicted #%lld, want #%lld", i, (long long)got,
                     (long long)order[i].id, (long long)want[i]);
    }
    free(order);
    struct store_claim c;
    assert_int_equal(store_bench_claim(s, 400, &c), STORE_NOT_FOUND);
    store_close(s);
}

/* store_bench_order predicts the claims from a mixed state: a user served
 * long ago, one served just now, users never served, several levels. */
static void test_store_bench_order_is_claim_order(void **state)
{
    int64_t user[4], t = 1000;
    struct store_queue_entry *order = NULL;
    size_t n = 0;
    struct store *s = fresh_store(state, "benchorder", &user[0]);
    add_students(s, user, 4);
    for (int i = 0; i < 4; i++) {
        char slug[8];
        snprintf(slug, sizeof slug, "q%d", i);
        add_problem(s, slug);
    }
    /* history: user2 then user0 had a benchmark run */
    accept_bench(s, user[2], "q0", t, 0);
    accept_bench(s, user[0], "q0", t + 10, 0);
    run_bench(s, t + 20);
    run_bench(s, t + 30);
    /* waiting: 3 of user0, 1 of user1, 2 of user2, 3 of user3, interleaved */
    int at = 100;
    for (int k = 0; k < 3; k++)
        for (int u = 0; u < 4; u++) {
            char slug[8];
            snprintf(slug, sizeof slug, "q%d", k + 1);
            if ((u == 1 && k > 0) || (u == 2 && k > 1))
                continue;
            accept_bench(s, user[u], slug, t + at, 0);
            at += 10;
        }
    assert_int_equal(store_bench_order(s, &order, &n), 0);
    assert_int_equal(n, 9);
    for (size_t i = 0; i < n; i++) {
        int64_t got = run_bench(s, t + 500 + (int64_t)i);
        if (got != order[i].id)
            fail_msg("benchmark %zu: ran #%lld, predicted #%lld", i, (long long)got,
                     (long long)order[i].id);
    }
    free(order);
    store_close(s);
}

/* A newer accepted submission of the same problem replaces its author's
 * waiting benchmark, which then says so; not a running one, not another
 * user's or another problem's; a rejudge measures every one again. */
static void test_store_bench_supersede(void **state)
{
    int64_t alice, bob, count = 0;
    int n = 0;
    struct bench_state b;
    struct store *s = fresh_store(state, "benchsup", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    add_problem(s, "q");
    int64_t a1 = accept_bench(s, alice, "p", 10, 0);
    int64_t bob1 = accept_bench(s, bob, "p", 20, 0);
    int64_t aq = accept_bench(s, alice, "q", 30, 0);
    int64_t a2 = accept_bench(s, alice, "p", 40, 0);
    bench_state(s, a1, &b);
    assert_string_equal(b.status, "superseded");
    assert_int_equal(json_integer_value(json_object_get(b.note, "superseded_by")), a2);
    assert_non_null(json_string_value(json_object_get(b.note, "message")));
    json_decref(b.note);
    /* bob's and the other problem's wait on */
    bench_state(s, bob1, &b);
    assert_string_equal(b.status, "pending");
    bench_state(s, aq, &b);
    assert_string_equal(b.status, "pending");
    /* a running benchmark is not replaced: bob's runs, then alice's on q */
    assert_int_equal(run_bench(s, 50), bob1);
    struct store_claim c;
    assert_int_equal(store_bench_claim(s, 60, &c), 0);
    assert_int_equal(c.id, aq);
    int64_t aq2 = accept_bench(s, alice, "q", 70, 0);
    bench_state(s, aq, &b);
    assert_string_equal(b.status, "running");
    bench_state(s, aq2, &b);
    assert_string_equal(b.status, "pending");
    assert_int_equal(store_bench_finish(s, c.id, c.claim, "done", "{}", 1.0, NULL), 0);
    store_claim_free(&c);
    /* a rejudge of p: every accepted submission is measured again */
    int64_t rid = 0;
    assert_int_equal(store_rejudge(s, "p", 0, alice, 100, &n, &rid), 0);
    assert_int_equal(n, 3);
    struct store_result r = accepted;
    r.bench = true;
    r.bench_user_max = 1;
    while (store_submission_claim(s, 110, &c) == 0) {
        assert_int_equal(store_submission_finish(s, c.id, c.claim, 120 + count++, &r), 0);
        store_claim_free(&c);
    }
    assert_int_equal(count, 3);
    int64_t again[3] = {a1, bob1, a2};
    for (int i = 0; i < 3; i++) {
        bench_state(s, again[i], &b);
        assert_string_equal(b.status, "pending");
    }
    store_close(s);
}

/* At most user_max benchmarks wait per user: one more is skipped, and says
 * why; a replacement is not one more; another user is not affected; a
 * running benchmark no longer waits. */
static void test_store_bench_cap(void **state)
{
    int64_t alice, bob;
    struct bench_state b;
    struct store_claim c;
    struct store *s = fresh_store(state, "benchcap", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    for (int i = 0; i < 5; i++) {
        char slug[8];
        snprintf(slug, sizeof slug, "q%d", i);
        add_problem(s, slug);
    }
    int64_t a0 = accept_bench(s, alice, "q0", 10, 2);
    int64_t a1 = accept_bench(s, alice, "q1", 20, 2);
    int64_t a2 = accept_bench(s, alice, "q2", 30, 2);
    bench_state(s, a2, &b);
    assert_string_equal(b.status, "skipped");
    assert_int_equal(json_integer_value(json_object_get(b.note, "waiting")), 2);
    assert_non_null(json_string_value(json_object_get(b.note, "message")));
    json_decref(b.note);
    int64_t bob2 = accept_bench(s, bob, "q2", 40, 2);
    bench_state(s, bob2, &b);
    assert_string_equal(b.status, "pending");
    /* at the cap, a newer submission of q0 replaces the waiting one */
    int64_t a0b = accept_bench(s, alice, "q0", 50, 2);
    bench_state(s, a0b, &b);
    assert_string_equal(b.status, "pending");
    bench_state(s, a0, &b);
    assert_string_equal(b.status, "superseded");
    json_decref(b.note);
    /* alice's oldest runs (round-robin: before bob's, judged later) */
    assert_int_equal(store_bench_claim(s, 60, &c), 0);
    assert_int_equal(c.id, a1);
    int64_t a3 = accept_bench(s, alice, "q3", 70, 2);
    bench_state(s, a3, &b);
    assert_string_equal(b.status, "pending");
    int64_t a4 = accept_bench(s, alice, "q4", 80, 2);
    bench_state(s, a4, &b);
    assert_string_equal(b.status, "skipped");
    json_decref(b.note);
    store_claim_free(&c);
    store_close(s);
}

static void *race(void *arg)
{
    struct racer *r = arg;
    struct store_claim c;
    for (;;) {
        int rc = store_submission_claim(r->s, 100, &c);
        if (rc == STORE_NOT_FOUND)
            break;
        if (rc != 0) {
            if (store_error_transient(r->s))
                continue;
            fprintf(stderr, "claim: %s\n", store_error(r->s));
            break;
        }
        r->taken[c.id - r->first]++;
        store_claim_free(&c);
    }
    return NULL;
}

static void test_store_concurrent_claims(void **state)
{
    int64_t uid, bob;
    char err[STORE_ERR_LEN];
    struct racer a = {0}, b = {0};
    a.s = fresh_store(state, "race", &uid);
    assert_int_equal(store_user_create(a.s, "bob", "x", "student", 1, &bob), 0);
    a.first = b.first = submit_n(a.s, uid, RACE_ROWS / 2, 1);
    submit_n(a.s, bob, RACE_ROWS / 2, 1);
    b.s = store_open(fixture_url, false, err, sizeof err);
    assert_non_null(b.s);
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, race, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, race, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    for (int i = 0; i < RACE_ROWS; i++)
        if (a.taken[i] + b.taken[i] != 1)
            fail_msg("row %d claimed %d times", i, a.taken[i] + b.taken[i]);
    store_close(a.s);
    store_close(b.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_claim_discipline),
        cmocka_unit_test(test_store_leases),
        cmocka_unit_test(test_store_queue_full),
        cmocka_unit_test(test_store_user_limit),
        cmocka_unit_test(test_store_round_robin),
        cmocka_unit_test(test_store_queue_order_is_claim_order),
        cmocka_unit_test(test_store_claim_source),
        cmocka_unit_test(test_store_cancel),
        cmocka_unit_test(test_store_retry_backoff),
        cmocka_unit_test(test_store_concurrent_claims),
        cmocka_unit_test(test_store_bench_round_robin),
        cmocka_unit_test(test_store_bench_order_is_claim_order),
        cmocka_unit_test(test_store_bench_supersede),
        cmocka_unit_test(test_store_bench_cap),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_store_claim_discipline),
        PG_CASE(test_store_leases),
        PG_CASE(test_store_queue_full),
        PG_CASE(test_store_user_limit),
        PG_CASE(test_store_round_robin),
        PG_CASE(test_store_queue_order_is_claim_order),
        PG_CASE(test_store_claim_source),
        PG_CASE(test_store_cancel),
        PG_CASE(test_store_retry_backoff),
        PG_CASE(test_store_concurrent_claims),
        PG_CASE(test_store_bench_round_robin),
        PG_CASE(test_store_bench_order_is_claim_order),
        PG_CASE(test_store_bench_supersede),
        PG_CASE(test_store_bench_cap),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
