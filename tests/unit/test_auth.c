/*
 * Unit tests of server/auth.c: passwords (argon2id, salted, an unknown user
 * checked against a dummy hash), session tokens (only the hash is stored),
 * usernames, and the device cookies by which a known browser gets past the
 * per-account sign-in limit (bound to their account, unforgeable, valid
 * across a restart with the same key). tests/server/run.sh tests the same
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

#include "server/auth.h"

static void test_password_hash_and_verify(void **state)
{
    (void)state;
    struct auth *a = auth_new(1, AUTH_LIMITS_INTERACTIVE);
    char hash[AUTH_HASH_LEN];
    assert_non_null(a);
    assert_int_equal(auth_hash_password(a, "correct horse", hash), 0);
    assert_non_null(strstr(hash, "$argon2id$v=19$m=65536,t=2,p=1$")); /* the default */
    assert_true(auth_verify_password(a, hash, "correct horse"));
    assert_false(auth_verify_password(a, hash, "correct horsf"));
    /* an unknown user is checked against a dummy hash, and fails */
    assert_false(auth_verify_password(a, NULL, "correct horse"));
    char again[AUTH_HASH_LEN];
    assert_int_equal(auth_hash_password(a, "correct horse", again), 0);
    assert_string_not_equal(hash, again); /* salted */
    auth_free(a);
}

/* The limits name what each new hash costs; every hash verifies whatever
 * the limits it was made with (the string carries its own), so a server
 * whose limits changed still signs its users in. */
static void test_password_limits(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *params;
    } cases[] = {{"interactive", "$m=65536,t=2,p=1$"},
                 {"moderate", "$m=262144,t=3,p=1$"},
                 {"minimum", "$m=8,t=1,p=1$"}};
    char hashes[3][AUTH_HASH_LEN];
    enum auth_limits l;

    for (int i = 0; i < 3; i++) {
        assert_int_equal(auth_limits_parse(cases[i].name, &l), 0);
        struct auth *a = auth_new(1, l);
        assert_non_null(a);
        assert_int_equal(auth_hash_password(a, "correct horse", hashes[i]), 0);
        assert_non_null(strstr(hashes[i], cases[i].params));
        auth_free(a);
    }
    struct auth *m = auth_new(1, AUTH_LIMITS_MINIMUM);
    for (int i = 0; i < 3; i++) {
        assert_true(auth_verify_password(m, hashes[i], "correct horse"));
        assert_false(auth_verify_password(m, hashes[i], "correct horsf"));
    }
    auth_free(m);
    assert_int_equal(auth_limits_parse("sensitive", &l), -1);
    assert_int_equal(auth_limits_parse("", &l), -1);
}

static void test_tokens(void **state)
{
    (void)state;
    char t1[AUTH_TOKEN_HEX], h1[AUTH_TOKEN_HEX], t2[AUTH_TOKEN_HEX], h2[AUTH_TOKEN_HEX];
    char again[AUTH_TOKEN_HEX];
    assert_int_equal(auth_new_token(t1, h1), 0);
    assert_int_equal(auth_new_token(t2, h2), 0);
    assert_int_equal(strlen(t1), 64); /* 256 bits */
    assert_string_not_equal(t1, t2);
    assert_string_not_equal(t1, h1); /* only the hash is stored */
    assert_int_equal(auth_token_hash(t1, again), 0);
    assert_string_equal(again, h1);
    assert_int_equal(auth_token_hash("not-a-token", again), -1);
    assert_int_equal(auth_token_hash("", again), -1);
}

static void test_usernames(void **state)
{
    (void)state;
    assert_true(auth_username_valid("alice"));
    assert_true(auth_username_valid("a.b-c_9"));
    assert_false(auth_username_valid(""));
    assert_false(auth_username_valid(".alice"));
    assert_false(auth_username_valid("<script>"));
    assert_false(auth_username_valid("a b"));
    assert_false(auth_username_valid("abcdefghijklmnopqrstuvwxyz0123456789"));
    assert_true(auth_equal("class-code", "class-code"));
    assert_false(auth_equal("class-code", "class-cod"));
}

static void test_device_cookies(void **state)
{
    (void)state;
    struct auth *a = auth_new(1, AUTH_LIMITS_INTERACTIVE);
    char dev[AUTH_DEVICE_LEN], id[AUTH_DEVICE_ID_LEN], forged[AUTH_DEVICE_LEN];
    static const unsigned char secret[32] = {1, 2, 3};
    assert_non_null(a);
    auth_device_key(a, secret, sizeof secret);
    auth_device_new(a, "Alice", dev);
    assert_int_equal(strlen(dev), AUTH_DEVICE_LEN - 1);
    assert_true(auth_device_check(a, "alice", dev, id)); /* usernames are case-insensitive */
    assert_memory_equal(id, dev, AUTH_DEVICE_ID_LEN - 1);
    assert_false(auth_device_check(a, "bob", dev, id)); /* bound to its account */
    assert_false(auth_device_check(a, "alice", NULL, id));
    assert_false(auth_device_check(a, "alice", "", id));
    memcpy(forged, dev, sizeof forged);
    forged[0] = forged[0] == '0' ? '1' : '0'; /* another id, the same MAC */
    assert_false(auth_device_check(a, "alice", forged, id));
    /* the same secret after a restart still recognises it; another does not */
    struct auth *b = auth_new(1, AUTH_LIMITS_INTERACTIVE);
    auth_device_key(b, secret, sizeof secret);
    assert_true(auth_device_check(b, "alice", dev, id));
    static const unsigned char other[32] = {9};
    auth_device_key(b, other, sizeof other);
    assert_false(auth_device_check(b, "alice", dev, id));
    auth_free(b);
    auth_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_hash_and_verify),
        cmocka_unit_test(test_password_limits),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_usernames),
        cmocka_unit_test(test_device_cookies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
