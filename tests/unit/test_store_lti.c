/*
 * Unit tests of the LTI 1.3 rows of the store (server/lti_store.h):
 * platforms unique by (issuer, client id) with their deployments, a login
 * spent once and only with its state, users linked by (issuer, sub), a
 * course owned through one deployment, links recorded once per resource
 * link and found by what they open. On SQLite and, in the pg suite, on
 * PostgreSQL (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/lti_store.h"

#include "fixture_db.h"

static void platform(struct lti_platform *p, const char *issuer, const char *client)
{
    memset(p, 0, sizeof *p);
    snprintf(p->issuer, sizeof p->issuer, "%s", issuer);
    snprintf(p->client_id, sizeof p->client_id, "%s", client);
    snprintf(p->auth_url, sizeof p->auth_url, "%s/auth", issuer);
    snprintf(p->token_url, sizeof p->token_url, "%s/token", issuer);
    snprintf(p->jwks_url, sizeof p->jwks_url, "%s/jwks", issuer);
    snprintf(p->frame_origins, sizeof p->frame_origins, "%s", issuer);
}

static int count_platform(void *arg, const struct lti_platform *p, const char *deployments)
{
    if (!strcmp(p->client_id, "c1"))
        assert_string_equal(deployments, "d1 d2");
    (*(int *)arg)++;
    return 0;
}

static void test_lti_platforms(void **state)
{
    int64_t uid, id, id2, id3;
    struct lti_platform p, got;
    struct store *s = fresh_store(state, "lti_platforms", &uid);
    const char *deps[] = {"d2", "d1"};
    platform(&p, "https://lms.example", "c1");
    assert_int_equal(lti_store_platform_add(s, &p, deps, 2, 10, &id), 0);
    assert_int_equal(lti_store_platform_add(s, &p, deps, 1, 11, &id2), STORE_EXISTS);
    /* the issuer alone names its only client */
    assert_int_equal(lti_store_platform_find(s, "https://lms.example", NULL, &got), 0);
    assert_int_equal(got.id, id);
    assert_string_equal(got.jwks_url, "https://lms.example/jwks");
    platform(&p, "https://lms.example", "c2");
    assert_int_equal(lti_store_platform_add(s, &p, deps, 1, 12, &id2), 0);
    assert_int_equal(lti_store_platform_find(s, "https://lms.example", "", &got), STORE_EXISTS);
    assert_int_equal(lti_store_platform_find(s, "https://lms.example", "c2", &got), 0);
    assert_int_equal(got.id, id2);
    assert_int_equal(lti_store_platform_find(s, "https://other.example", NULL, &got),
                     STORE_NOT_FOUND);
    assert_int_equal(lti_store_deployment_known(s, id, "d1"), 0);
    assert_int_equal(lti_store_deployment_known(s, id2, "d1"), STORE_NOT_FOUND);
    assert_int_equal(lti_store_deployment_known(s, id, "d3"), STORE_NOT_FOUND);
    int n = 0;
    assert_int_equal(lti_store_platforms(s, count_platform, &n), 0);
    assert_int_equal(n, 2);

    /* a platform's rows go with it; its users stay */
    struct lti_link l = {.platform_id = id};
    snprintf(l.deployment_id, sizeof l.deployment_id, "d1");
    snprintf(l.context_id, sizeof l.context_id, "course");
    snprintf(l.resource_link_id, sizeof l.resource_link_id, "rl");
    snprintf(l.kind, sizeof l.kind, "problem");
    snprintf(l.slug, sizeof l.slug, "p");
    assert_int_equal(lti_store_link_put(s, &l, 20, &id3), 0);
    assert_int_equal(lti_store_context_bind(s, id, "d1", "course", "Course", uid, 20), 0);
    assert_int_equal(lti_store_login_begin(s, id, "n", "h", 100, 20), 0);
    assert_int_equal(lti_store_platform_remove(s, id), 0);
    assert_int_equal(lti_store_platform_remove(s, id), STORE_NOT_FOUND);
    assert_int_equal(lti_store_platform_get(s, id, &got), STORE_NOT_FOUND);
    assert_int_equal(lti_store_link_get(s, id3, &l), STORE_NOT_FOUND);
    assert_int_equal(lti_store_platform_add(s, &p, deps, 0, 13, &id3), STORE_EXISTS);
    store_close(s);
}

static void test_lti_logins(void **state)
{
    int64_t uid, pid;
    struct lti_platform p;
    struct store *s = fresh_store(state, "lti_logins", &uid);
    platform(&p, "https://lms.example", "c1");
    assert_int_equal(lti_store_platform_add(s, &p, NULL, 0, 10, &pid), 0);
    assert_int_equal(lti_store_login_begin(s, pid, "nonce1", "state1", 1000, 10), 0);
    assert_int_equal(lti_store_login_begin(s, pid, "nonce2", "state2", 50, 10), 0);
    /* the state must be the login's own */
    assert_int_equal(lti_store_login_spend(s, pid, "nonce1", "state2", 20), STORE_NOT_FOUND);
    assert_int_equal(lti_store_login_spend(s, pid, "nonce9", "state1", 20), STORE_NOT_FOUND);
    assert_int_equal(lti_store_login_spend(s, pid, "nonce1", "state1", 20), 0);
    /* a replay */
    assert_int_equal(lti_store_login_spend(s, pid, "nonce1", "state1", 21), STORE_STALE);
    /* expired */
    assert_int_equal(lti_store_login_spend(s, pid, "nonce2", "state2", 50), STORE_NOT_FOUND);
    /* purged by a later login once expired */
    assert_int_equal(lti_store_login_begin(s, pid, "nonce3", "state3", 2000, 1000), 0);
    assert_int_equal(lti_store_login_spend(s, pid, "nonce1", "state1", 1001), STORE_NOT_FOUND);
    store_close(s);
}

static int collect_link(void *arg, const struct lti_link *l)
{
    *(int64_t *)arg += l->id;
    return 0;
}

static void test_lti_users_courses_links(void **state)
{
    int64_t uid, pid, u1, u2, l1, l2, sum = 0;
    struct lti_platform p;
    struct store_user u;
    char sub[LTI_ID_LEN];
    struct store *s = fresh_store(state, "lti_users", &uid);
    platform(&p, "https://lms.example", "c1");
    const char *deps[] = {"d1", "d2"};
    assert_int_equal(lti_store_platform_add(s, &p, deps, 2, 10, &pid), 0);

    assert_int_equal(lti_store_user_find(s, "https://lms.example", "sub-1", &u), STORE_NOT_FOUND);
    assert_int_equal(lti_store_user_create(s, "https://lms.example", "sub-1", "lti-1", "!",
                                           "student", "Ada L", "ada@example.org", 10, &u1),
                     0);
    /* the same name, or the same (issuer, sub), is refused whole */
    assert_int_equal(lti_store_user_create(s, "https://lms.example", "sub-2", "LTI-1", "!",
                                           "student", NULL, NULL, 10, &u2),
                     STORE_EXISTS);
    assert_int_equal(lti_store_user_create(s, "https://lms.example", "sub-1", "lti-1b", "!",
                                           "student", NULL, NULL, 10, &u2),
                     STORE_EXISTS);
    assert_int_equal(lti_store_user_find(s, "https://lms.example", "sub-1", &u), 0);
    assert_int_equal(u.id, u1);
    assert_string_equal(u.display_name, "Ada L");
    assert_string_equal(u.student_id, "ada@example.org");
    assert_int_equal(lti_store_user_update(s, u1, "instructor", NULL, "ada2@example.org"), 0);
    assert_int_equal(lti_store_user_find(s, "https://lms.example", "sub-1", &u), 0);
    assert_string_equal(u.role, "instructor");
    assert_string_equal(u.display_name, "Ada L");
    assert_string_equal(u.student_id, "ada2@example.org");
    assert_int_equal(lti_store_user_find(s, "https://other.example", "sub-1", &u), STORE_NOT_FOUND);
    assert_int_equal(lti_store_user_sub(s, "https://lms.example", u1, sub), 0);
    assert_string_equal(sub, "sub-1");
    assert_int_equal(lti_store_user_sub(s, "https://lms.example", uid, sub), STORE_NOT_FOUND);

    assert_int_equal(lti_store_context_owner(s, pid, "d1", "course-1"), STORE_NOT_FOUND);
    assert_int_equal(lti_store_context_bind(s, pid, "d1", "course-1", "Course", u1, 20), 0);
    assert_int_equal(lti_store_context_bind(s, pid, "d1", "course-1", "Course", u1, 21), 0);
    assert_int_equal(lti_store_context_owner(s, pid, "d1", "course-1"), 0);
    /* owned through d1: another deployment of the platform may not use it */
    assert_int_equal(lti_store_context_owner(s, pid, "d2", "course-1"), STORE_EXISTS);
    assert_int_equal(lti_store_context_bind(s, pid, "d2", "course-1", "Course", u1, 22),
                     STORE_EXISTS);

    struct lti_link l = {.platform_id = pid}, got;
    snprintf(l.deployment_id, sizeof l.deployment_id, "d1");
    snprintf(l.context_id, sizeof l.context_id, "course-1");
    snprintf(l.resource_link_id, sizeof l.resource_link_id, "rl-1");
    snprintf(l.kind, sizeof l.kind, "assignment");
    snprintf(l.slug, sizeof l.slug, "hw1");
    snprintf(l.ags_lineitem_url, sizeof l.ags_lineitem_url, "https://lms.example/li/1");
    assert_int_equal(lti_store_link_put(s, &l, 30, &l1), 0);
    /* the same resource link again: updated, not doubled */
    snprintf(l.nrps_url, sizeof l.nrps_url, "https://lms.example/members");
    assert_int_equal(lti_store_link_put(s, &l, 31, &l2), 0);
    assert_int_equal(l2, l1);
    assert_int_equal(lti_store_link_get(s, l1, &got), 0);
    assert_string_equal(got.nrps_url, "https://lms.example/members");
    assert_string_equal(got.ags_lineitems_url, "");
    assert_int_equal(got.updated_at, 31);
    snprintf(l.resource_link_id, sizeof l.resource_link_id, "rl-2");
    snprintf(l.kind, sizeof l.kind, "problem");
    snprintf(l.slug, sizeof l.slug, "p");
    assert_int_equal(lti_store_link_put(s, &l, 32, &l2), 0);
    assert_true(l2 != l1);
    assert_int_equal(lti_store_links(s, "assignment", "hw1", collect_link, &sum), 0);
    assert_int_equal(sum, l1);
    sum = 0;
    assert_int_equal(lti_store_links(s, NULL, NULL, collect_link, &sum), 0);
    assert_int_equal(sum, l1 + l2);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lti_platforms),
        cmocka_unit_test(test_lti_logins),
        cmocka_unit_test(test_lti_users_courses_links),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_lti_platforms),
        PG_CASE(test_lti_logins),
        PG_CASE(test_lti_users_courses_links),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
