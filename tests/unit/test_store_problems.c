/*
 * Unit tests of the store's problems (server/store.h): a version's package
 * bytes as recorded; hints open in order, once, the log reads them, and a
 * walkthrough's date. On SQLite and, in the pg suite, on PostgreSQL
 * (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/store.h"

#include "fixture_db.h"

/* A version's package (migration 11): none before it is recorded (as in a
 * row from before the migration), its bytes as recorded, NULs included. */
static void test_store_packages(void **state)
{
    (void)state;
    int64_t uid;
    void *data = NULL;
    size_t len = 0;
    static const char blob[] = "{\"problem.json\":\"x\"}\0tail\xff";
    struct store *s = fresh_store(state, "packages", &uid);
    assert_int_equal(store_problem_package(s, "p", 1, &data, &len), STORE_NOT_FOUND);
    assert_null(data);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_problem_set_package(s, "p", 1, blob, sizeof blob), 0);
    assert_int_equal(store_problem_set_package(s, "p", 2, blob, sizeof blob), STORE_NOT_FOUND);
    assert_int_equal(store_problem_set_package(s, "q", 1, blob, sizeof blob), STORE_NOT_FOUND);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(store_problem_package(s, "p", 1, &data, &len), 0);
    assert_int_equal(len, sizeof blob);
    assert_memory_equal(data, blob, sizeof blob);
    free(data);
    assert_int_equal(store_problem_package(s, "p", 2, &data, &len), STORE_NOT_FOUND);
    assert_int_equal(store_problem_package(s, "q", 1, &data, &len), STORE_NOT_FOUND);
    store_close(s);
}

static int count_hint(void *arg, const struct store_hint_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

/* Hints open in order, once; the log reads them; a walkthrough's date. */
static void test_store_hints(void **state)
{
    (void)state;
    int64_t alice, bob, at = 0, id;
    int opened = -1, n = 0, version, hints = -1;
    struct store_walkthrough w;
    struct store *s = fresh_store(state, "hints", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);

    assert_int_equal(store_hint_open(s, alice, "p", 1, 2, 10, &at, &opened), STORE_STALE);
    assert_int_equal(opened, 0);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 1, 10, &at, &opened), 0);
    assert_int_equal(at, 10);
    assert_int_equal(opened, 1);
    /* again: nothing changes, the first time is kept */
    assert_int_equal(store_hint_open(s, alice, "p", 1, 1, 20, &at, &opened), 0);
    assert_int_equal(at, 10);
    assert_int_equal(opened, 1);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 3, 30, &at, &opened), STORE_STALE);
    assert_int_equal(opened, 1);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 2, 30, &at, &opened), 0);
    assert_int_equal(opened, 2);
    assert_int_equal(store_hint_open(s, alice, "nope", 1, 1, 30, &at, &opened), STORE_NOT_FOUND);
    /* bob's order is his own */
    assert_int_equal(store_hint_open(s, bob, "p", 1, 1, 40, &at, &opened), 0);
    assert_int_equal(store_hint_opens(s, "p", 0, count_hint, &n), 0);
    assert_int_equal(n, 3);
    n = 0;
    assert_int_equal(store_hint_opens(s, "p", bob, count_hint, &n), 0);
    assert_int_equal(n, 1);

    /* a submission counts the hints opened before it */
    assert_int_equal(store_submission_create(s, alice, "p", "x", 1, &roomy, 25, &id, &version), 0);
    assert_int_equal(store_submission_get(s, id, note_hints, &hints), 0);
    assert_int_equal(hints, 1);

    /* no date; an instructor's date; "no date" set explicitly */
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_false(w.date_set || w.accepted);
    assert_int_equal(w.opens_at, 0);
    assert_int_equal(store_walkthrough_set(s, "p", 12345, alice, 50), 0);
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_true(w.date_set);
    assert_int_equal(w.opens_at, 12345);
    assert_int_equal(store_walkthrough_set(s, "p", 0, alice, 60), 0);
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_true(w.date_set);
    assert_int_equal(w.opens_at, 0);
    assert_int_equal(store_walkthrough(s, "nope", alice, &w), STORE_NOT_FOUND);
    assert_int_equal(store_walkthrough_set(s, "nope", 1, alice, 60), STORE_NOT_FOUND);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_hints),
        cmocka_unit_test(test_store_packages),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_store_hints),
        PG_CASE(test_store_packages),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
