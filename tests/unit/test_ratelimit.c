/*
 * Unit tests of server/ratelimit.c: a key's budget runs out and refills,
 * and a refund gives a token back. tests/server/run.sh tests the limits
 * through a real server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/ratelimit.h"

static void test_ratelimit(void **state)
{
    (void)state;
    struct ratelimit *r = ratelimit_new(60, 3, 100); /* 1 a second, burst 3 */
    assert_non_null(r);
    int64_t t = 1000000;
    for (int i = 0; i < 3; i++)
        assert_int_equal(ratelimit_take(r, "alice", t), 0);
    int wait = ratelimit_take(r, "alice", t);
    assert_true(wait >= 1);
    assert_int_equal(ratelimit_take(r, "bob", t), 0);                  /* keys are independent */
    assert_int_equal(ratelimit_take(r, "alice", t + 1000L * wait), 0); /* refilled */
    ratelimit_free(r);
}

static void test_ratelimit_refund(void **state)
{
    (void)state;
    struct ratelimit *r = ratelimit_new(1, 2, 100); /* 1 a minute, burst 2 */
    assert_non_null(r);
    int64_t t = 5000000;
    /* failures only: a take refunded on success costs nothing */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
        ratelimit_refund(r, "a:alice", t);
    }
    assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
    assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
    int wait = ratelimit_take(r, "a:alice", t);
    assert_true(wait >= 1 && wait <= 61); /* a token a minute */
    /* a refund never lifts a bucket above its burst */
    ratelimit_refund(r, "a:bob", t);
    ratelimit_refund(r, "a:bob", t);
    assert_int_equal(ratelimit_take(r, "a:bob", t), 0);
    assert_int_equal(ratelimit_take(r, "a:bob", t), 0);
    assert_true(ratelimit_take(r, "a:bob", t) >= 1);
    ratelimit_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratelimit),
        cmocka_unit_test(test_ratelimit_refund),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
