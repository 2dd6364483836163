/*
 * Unit tests of the store's course layer (server/store.h): the benchmark
 * claim and pool, leaderboards, grades, a problem's sources, rejudges, students and
 * their import, assignments and drafts, with the statements that have a
 * backend-specific spelling, NULL and NAN values, unique violations and
 * upserts. On SQLite and, in the pg suite, on PostgreSQL
 * (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/store.h"

#include "fixture_db.h"

/* Row counters for the read callbacks below. */
static int count_leader(void *arg, const struct store_leader_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

static int count_grade(void *arg, const struct store_grade_row *row)
{
    ++*(int *)arg;
    assert_string_equal(row->user, "alice");
    return 0;
}

static int count_sub(void *arg, const struct store_submission_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

static int count_student(void *arg, const struct store_student *u)
{
    (void)u;
    ++*(int *)arg;
    return 0;
}

static int count_source(void *arg, const struct store_source_row *row)
{
    assert_string_equal(row->verdict, "accepted"); /* the accepted one, not the newest */
    ++*(int *)arg;
    return 0;
}

/* The course layer's statements on a fresh database (the same on both
 * backends: the statements with a backend-specific spelling, NULL and NAN
 * values, unique violations, upserts, the benchmark claim). */
static void test_store_course(void **state)
{
    int64_t alice, bob, id, rev = 0;
    int n = 0, count = 0;
    struct store_claim c;
    struct store_problem_version v;
    struct store_user u;
    struct store *s = fresh_store(state, "course", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    /* a verdict with its benchmark to come; the benchmark claim, one at a time */
    id = submit_n(s, alice, 1, 10);
    assert_int_equal(store_submission_claim(s, 11, &c), 0);
    struct store_result bench = accepted;
    bench.bench = true;
    bench.time_ms = 5;
    bench.compile_ms = NAN;
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 12, &bench), 0);
    store_claim_free(&c);
    submit_n(s, alice, 1, 13); /* a later wrong answer */
    assert_int_equal(store_submission_claim(s, 14, &c), 0);
    struct store_result wrong = {.verdict = "wrong_answer", .score = 0, .report_json = "{}"};
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 15, &wrong), 0);
    store_claim_free(&c);
    struct store_claim b1, b2;
    assert_int_equal(store_bench_claim(s, 20, &b1), 0);
    assert_int_equal(b1.id, id);
    assert_int_equal(store_bench_claim(s, 21, &b2), STORE_NOT_FOUND);
    assert_int_equal(store_bench_finish(s, b1.id, b1.claim, "done", "{}", NAN, NULL), 0);
    store_claim_free(&b1);
    assert_int_equal(store_leaderboard(s, "p", 10, &v, count_leader, &n), 0);
    assert_int_equal(n, 1);
    n = 0;
    assert_int_equal(store_grades(s, count_grade, &n), 0);
    assert_int_equal(n, 1);
    n = 0;
    struct store_list_filter f = {.username = "ALICE", .limit = 10};
    assert_int_equal(store_submission_list(s, &f, count_sub, &n), 0);
    assert_int_equal(n, 2);
    n = 0;
    assert_int_equal(store_problem_sources(s, "p", count_source, &n), 0);
    assert_int_equal(n, 1);
    /* rejudges keep what they replace */
    int64_t rid = 0;
    assert_int_equal(store_rejudge(s, "p", 0, alice, 30, &count, &rid), 0);
    assert_int_equal(count, 2);
    assert_true(rid > 0);
    /* states; delete refused with submissions */
    assert_int_equal(store_problem_set_state(s, "p", "archived", 5), 0);
    assert_int_equal(store_problem_current(s, "p", &v), 0);
    assert_string_equal(v.state, "archived");
    assert_int_equal(store_problem_delete(s, "p"), STORE_EXISTS);
    /* accounts: import (a duplicate, whatever its case, exists), names,
     * password with its sessions */
    assert_int_equal(store_user_import(s, "carol", "h", "S1", "Carol", 40), 0);
    assert_int_equal(store_user_import(s, "CAROL", "h", NULL, NULL, 40), STORE_EXISTS);
    assert_int_equal(store_user_set_names(s, "Carol", "S2", NULL), 0);
    assert_int_equal(store_user_set_names(s, "nobody", "S2", NULL), STORE_NOT_FOUND);
    assert_int_equal(store_user_by_name(s, "carol", &u), 0);
    assert_string_equal(u.student_id, "S2");
    assert_true(u.must_change_password);
    assert_int_equal(store_session_create(s, "t1", u.id, 1, 1000), 0);
    assert_int_equal(store_session_create(s, "t2", u.id, 1, 1000), 0);
    int ended = 0;
    assert_int_equal(store_user_set_password(s, u.id, "h2", false, "t1", &ended), 0);
    assert_int_equal(ended, 1);
    n = 0;
    assert_int_equal(store_students(s, 0, count_student, &n), 0);
    assert_int_equal(n, 3);
    /* assignments: a taken slug exists, an unknown problem is named */
    struct store_assignment a = {.slug = "a1", .title = "A", .due_at = 10, .cutoff_at = 10};
    const char *probs[] = {"p"}, *bad[] = {"nope"};
    char badname[80];
    assert_int_equal(store_assignment_put(s, NULL, &a, probs, 1, alice, 1, badname, 80), 0);
    assert_int_equal(store_assignment_put(s, NULL, &a, probs, 1, alice, 1, badname, 80),
                     STORE_EXISTS);
    snprintf(a.slug, sizeof a.slug, "a2");
    assert_int_equal(store_assignment_put(s, NULL, &a, bad, 1, alice, 1, badname, 80),
                     STORE_NOT_FOUND);
    assert_string_equal(badname, "nope");
    assert_int_equal(store_assignment_delete(s, "a1"), 0);
    /* drafts: revisions, a stale save */
    assert_int_equal(store_draft_put(s, bob, "p", "d1", 2, 0, 50, &rev), 0);
    assert_int_equal(rev, 1);
    assert_int_equal(store_draft_put(s, bob, "p", "d2", 2, 1, 51, &rev), 0);
    assert_int_equal(rev, 2);
    assert_int_equal(store_draft_put(s, bob, "p", "d3", 2, 1, 52, &rev), STORE_STALE);
    struct store_draft d;
    assert_int_equal(store_draft_get(s, bob, "p", &d), 0);
    assert_string_equal(d.source, "d2");
    store_draft_free(&d);
    assert_int_equal(store_draft_delete(s, bob, "p"), 0);
    /* queue statistics read on both (avg is numeric on PostgreSQL) */
    int64_t judging = -1;
    double mean = -1;
    assert_int_equal(store_queue_stats(s, &judging, &mean), 0);
    assert_int_equal(judging, 0);
    store_close(s);
}

/* The benchmark pool (store_bench_pooled): a submission of the same key
 * gets the figures measured first, another key does not, and a row without
 * a key pools by its bytes. */
static void test_store_bench_pool(void **state)
{
    int64_t alice, ids[4];
    int version;
    const char *src[] = {"int a; /* one */", "int a; /* two */", "int b;", "int a; /* one */"};
    const char *key[] = {"k1", "k1", "k2", NULL};
    const char *measured[] = {"{\"m\":1}", NULL, "{\"m\":2}", NULL};
    const char *shared[] = {NULL, "{\"m\":1}", NULL, "{\"m\":1}"};
    const double figure[] = {2.5, NAN, 4.0, NAN}; /* ms, of the ones measured */
    struct store *s = fresh_store(state, "pool", &alice);
    /* each one benchmarked before the next is judged: a newer accepted
     * submission of the same problem would replace a waiting benchmark */
    for (int i = 0; i < 4; i++) {
        struct store_claim c, b;
        struct store_result r = accepted;
        r.bench = true;
        r.time_ms = 5;
        r.compile_ms = NAN;
        assert_int_equal(store_submission_create(s, alice, "p", src[i], strlen(src[i]), &roomy,
                                                 10 + i, &ids[i], &version),
                         0);
        assert_int_equal(store_submission_claim(s, 20 + i, &c), 0);
        assert_int_equal(store_submission_finish(s, c.id, c.claim, 30 + i, &r), 0);
        store_claim_free(&c);

        char *report = NULL;
        double ms = 0;
        assert_int_equal(store_bench_claim(s, 40 + i, &b), 0);
        assert_int_equal(b.id, ids[i]);
        int rc = store_bench_pooled(s, b.id, key[i], &report, &ms);
        if (shared[i]) {
            assert_int_equal(rc, 0);
            assert_string_equal(report, shared[i]);
            assert_true(ms == 2.5);
        } else {
            assert_int_equal(rc, STORE_NOT_FOUND);
            assert_null(report);
        }
        assert_int_equal(store_bench_finish(s, b.id, b.claim, "done",
                                            shared[i] ? report : measured[i],
                                            shared[i] ? ms : figure[i], NULL),
                         0);
        free(report);
        store_claim_free(&b);
    }
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_course),
        cmocka_unit_test(test_store_bench_pool),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_store_course),
        PG_CASE(test_store_bench_pool),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
