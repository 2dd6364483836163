/*
 * Unit tests of the store's users and sessions (server/store.h): usernames
 * unique without regard to case, sessions that expire and are deleted. On
 * SQLite and, in the pg suite, on PostgreSQL (tests/unit/fixture_db.c).
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

static void test_store_users_and_sessions(void **state)
{
    (void)state;
    int64_t uid, other;
    struct store_user u;
    struct store *s = fresh_store(state, "users", &uid);
    assert_int_equal(store_user_create(s, "alice", "y", "student", 2, &other), STORE_EXISTS);
    /* usernames are case-insensitive on both backends */
    assert_int_equal(store_user_create(s, "Alice", "y", "student", 2, &other), STORE_EXISTS);
    assert_int_equal(store_user_by_name(s, "alice", &u), 0);
    assert_int_equal(u.id, uid);
    assert_int_equal(store_user_by_name(s, "ALICE", &u), 0);
    assert_int_equal(u.id, uid);
    assert_string_equal(u.username, "alice");
    assert_int_equal(store_user_by_name(s, "nobody", &u), STORE_NOT_FOUND);
    assert_int_equal(store_session_create(s, "tokenhash", uid, 10, 100), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), 0);
    assert_string_equal(u.username, "alice");
    assert_int_equal(store_session_user(s, "tokenhash", 100, &u), STORE_NOT_FOUND); /* expired */
    assert_int_equal(store_session_delete(s, "tokenhash"), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), STORE_NOT_FOUND);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_users_and_sessions),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_store_users_and_sessions),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
