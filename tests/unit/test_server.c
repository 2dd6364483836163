/*
 * Unit tests of the server's modules that hold its promises without HTTP:
 * passwords and tokens (auth), rate limits (ratelimit), and the store's
 * queue discipline (a submission is recorded once, by its current claim;
 * a full queue says so; a crash's `judging` rows go back to the queue).
 * tests/server/run.sh tests the same through a real server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/auth.h"
#include "server/ratelimit.h"
#include "server/store.h"

static char dir[] = "/tmp/attnjudge-servertest.XXXXXX";

static void test_password_hash_and_verify(void **state)
{
    (void)state;
    struct auth *a = auth_new(1);
    char hash[AUTH_HASH_LEN];
    assert_non_null(a);
    assert_int_equal(auth_hash_password(a, "correct horse", hash), 0);
    assert_non_null(strstr(hash, "$argon2id$"));
    assert_true(auth_verify_password(a, hash, "correct horse"));
    assert_false(auth_verify_password(a, hash, "correct horsf"));
    /* an unknown user is checked against a dummy hash, and fails */
    assert_false(auth_verify_password(a, NULL, "correct horse"));
    char again[AUTH_HASH_LEN];
    assert_int_equal(auth_hash_password(a, "correct horse", again), 0);
    assert_string_not_equal(hash, again); /* salted */
    auth_free(a);
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

/* A fresh database with one user and one problem. */
static struct store *fresh_store(const char *name, int64_t *user)
{
    char path[256], err[STORE_ERR_LEN];
    int version;
    snprintf(path, sizeof path, "%s/%s.db", dir, name);
    struct store *s = store_open(path, false, err, sizeof err);
    if (!s)
        fail_msg("store_open: %s", err);
    assert_int_equal(store_migrate(s), 0);
    assert_int_equal(store_migrate(s), 0); /* migrations are idempotent */
    assert_int_equal(store_user_create(s, "alice", "x", "student", 1, user), 0);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(
        store_problem_add_version(s, "p", "P", "hash1", "directory", 0, false, 1, &version), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(version, 1);
    return s;
}

static void test_store_users_and_sessions(void **state)
{
    (void)state;
    int64_t uid, other;
    struct store_user u;
    struct store *s = fresh_store("users", &uid);
    assert_int_equal(store_user_create(s, "alice", "y", "student", 2, &other), STORE_EXISTS);
    assert_int_equal(store_user_by_name(s, "alice", &u), 0);
    assert_int_equal(u.id, uid);
    assert_int_equal(store_user_by_name(s, "nobody", &u), STORE_NOT_FOUND);
    assert_int_equal(store_session_create(s, "tokenhash", uid, 10, 100), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), 0);
    assert_string_equal(u.username, "alice");
    assert_int_equal(store_session_user(s, "tokenhash", 100, &u), STORE_NOT_FOUND); /* expired */
    assert_int_equal(store_session_delete(s, "tokenhash"), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), STORE_NOT_FOUND);
    store_close(s);
}

static const struct store_result accepted = {
    .verdict = "accepted", .score = 100, .report_json = "{\"verdict\":\"accepted\"}"};

static void test_store_claim_discipline(void **state)
{
    (void)state;
    int64_t uid, id, queued, judging;
    int version, n;
    struct store_claim c1, c2;
    struct store *s = fresh_store("queue", &uid);

    assert_int_equal(store_submission_create(s, uid, "p", "src", 3, 10, 5, &id, &version), 0);
    assert_int_equal(version, 1);
    assert_int_equal(store_submission_create(s, uid, "nope", "src", 3, 10, 5, &id, &version),
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

static void test_store_queue_full(void **state)
{
    (void)state;
    int64_t uid, id;
    int version;
    struct store *s = fresh_store("full", &uid);
    for (int i = 0; i < 3; i++)
        assert_int_equal(store_submission_create(s, uid, "p", "x", 1, 3, 5, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, 3, 5, &id, &version), STORE_FULL);
    store_close(s);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_hash_and_verify),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_usernames),
        cmocka_unit_test(test_ratelimit),
        cmocka_unit_test(test_store_users_and_sessions),
        cmocka_unit_test(test_store_claim_discipline),
        cmocka_unit_test(test_store_queue_full),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
