/*
 * Unit tests of server/store.c's connection layer: new work is announced
 * (NOTIFY on PostgreSQL; SQLite announces nothing). On SQLite and, in the
 * pg suite, on PostgreSQL (tests/unit/fixture_db.c).
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

/* New work is announced: on PostgreSQL a listening connection hears a
 * submission, a rejudge, a claim handed back made on another connection
 * (NOTIFY); SQLite announces nothing (the queue watches its log). */
static void test_store_announce(void **state)
{
    int64_t uid, id;
    int version, n = 0;
    char err[STORE_ERR_LEN];
    struct store_claim c;
    struct store *s = fresh_store(state, "announce", &uid);
    struct store *l = store_open(fixture_url, false, err, sizeof err);
    assert_non_null(l);
    if (!is_pg(state)) {
        assert_int_equal(store_queue_listen(l), 0);
        store_close(l);
        store_close(s);
        return;
    }
    assert_int_equal(store_queue_listen(l), 1);
    assert_int_equal(store_queue_wait(l, 0), 0); /* nothing yet */
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &roomy, 5, &id, &version), 0);
    assert_int_equal(store_queue_wait(l, 5000), 1);
    assert_int_equal(store_submission_claim(s, 6, &c), 0);
    assert_int_equal(store_queue_wait(l, 0), 0); /* a claim makes no work */
    assert_int_equal(store_submission_requeue(s, 0, 0, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_queue_wait(l, 5000), 1);
    store_claim_free(&c);
    store_close(l);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_announce),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_store_announce),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
