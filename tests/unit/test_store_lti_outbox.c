/*
 * Unit tests of the outbox of scores owed to LMSs
 * (server/lti_outbox_store.h): which links are graded, a grade queued only
 * when it changed, with timestamps that only go forward, older waiting
 * grades superseded, deliveries claimed in sequence order only, a claim's
 * end by its holder alone, back-off, leases that run out, a failed
 * delivery retried, claims handed back. On SQLite and, in the pg suite, on
 * PostgreSQL (tests/unit/fixture_db.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/lti_outbox_store.h"
#include "server/lti_store.h"

#include "fixture_db.h"

#define SCORE_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/score"

static int64_t add_platform(struct store *s)
{
    struct lti_platform p;
    const char *deps[] = {"d1"};
    int64_t id;
    memset(&p, 0, sizeof p);
    snprintf(p.issuer, sizeof p.issuer, "https://lms.example");
    snprintf(p.client_id, sizeof p.client_id, "client");
    snprintf(p.auth_url, sizeof p.auth_url, "https://lms.example/auth");
    snprintf(p.token_url, sizeof p.token_url, "https://lms.example/token");
    snprintf(p.jwks_url, sizeof p.jwks_url, "https://lms.example/jwks");
    assert_int_equal(lti_store_platform_add(s, &p, deps, 1, 1, &id), 0);
    return id;
}

static int64_t add_link(struct store *s, int64_t platform, const char *rl, const char *kind,
                        const char *lineitem, const char *scopes)
{
    struct lti_link l;
    int64_t id;
    memset(&l, 0, sizeof l);
    l.platform_id = platform;
    snprintf(l.deployment_id, sizeof l.deployment_id, "d1");
    snprintf(l.context_id, sizeof l.context_id, "course");
    snprintf(l.resource_link_id, sizeof l.resource_link_id, "%s", rl);
    snprintf(l.kind, sizeof l.kind, "%s", kind);
    snprintf(l.slug, sizeof l.slug, "p");
    snprintf(l.ags_lineitems_url, sizeof l.ags_lineitems_url, "https://lms.example/li");
    snprintf(l.ags_lineitem_url, sizeof l.ags_lineitem_url, "%s", lineitem);
    snprintf(l.ags_scopes, sizeof l.ags_scopes, "%s", scopes);
    assert_int_equal(lti_store_link_put(s, &l, 2, &id), 0);
    return id;
}

static int note_link(void *arg, const struct lti_graded_link *l)
{
    char *out = arg;
    strcat(out, l->resource_link_id);
    strcat(out, " ");
    return 0;
}

static void test_graded_links(void **state)
{
    int64_t uid;
    char seen[256] = "";
    struct store *s = fresh_store(state, "lti_graded", &uid);
    int64_t p = add_platform(s);
    add_link(s, p, "practice", "problem", "", SCORE_SCOPE);
    add_link(s, p, "own-item", "problem", "https://lms.example/li/1", SCORE_SCOPE);
    add_link(s, p, "hw", "assignment", "", SCORE_SCOPE);
    add_link(s, p, "no-scope", "assignment", "",
             "https://purl.imsglobal.org/spec/lti-ags/"
             "scope/lineitem");
    assert_int_equal(store_lti_graded_links(s, note_link, seen), 0);
    assert_string_equal(seen, "own-item hw ");
    store_close(s);
}

static struct lti_grade grade(double given)
{
    return (struct lti_grade){given, 100, "Completed", "FullyGraded"};
}

static void put(struct store *s, int64_t link, int64_t user, double given, int64_t now,
                bool want_queued)
{
    bool queued = !want_queued;
    struct lti_grade g = grade(given);
    assert_int_equal(store_lti_grade_put(s, link, user, &g, now, &queued), 0);
    assert_int_equal(queued, want_queued);
}

static int note_state(void *arg, const struct lti_outbox_row *r)
{
    char *out = arg;
    char one[64];
    snprintf(one, sizeof one, "%lld:%s ", (long long)r->seq, r->state);
    strcat(out, one);
    return 0;
}

static void test_outbox(void **state)
{
    int64_t uid, bob, carol;
    struct lti_delivery d;
    struct store *s = fresh_store(state, "lti_outbox", &uid);
    int64_t p = add_platform(s);
    int64_t link = add_link(s, p, "hw", "assignment", "", SCORE_SCOPE);
    assert_int_equal(lti_store_user_create(s, "https://lms.example", "sub-bob", "bob", "!",
                                           "student", "Bob", "bob@x", 3, &bob),
                     0);
    assert_int_equal(lti_store_user_create(s, "https://lms.example", "sub-carol", "carol", "!",
                                           "student", "Carol", "", 3, &carol),
                     0);

    /* nothing counts and nothing was sent: nothing queued */
    put(s, link, bob, NAN, 1000, false);
    put(s, link, bob, 50, 1000, true);
    put(s, link, bob, 50, 1100, false); /* unchanged */
    /* the clock went back: the timestamp still goes forward */
    put(s, link, bob, 80, 900, true);
    assert_int_equal(store_lti_outbox_claim(s, "h1", 1200, 500, &d), 0);
    assert_int_equal(d.seq, 2); /* seq 1 was superseded while it waited */
    assert_true(d.given == 80 && d.maximum == 100);
    assert_int_equal(d.timestamp, 1001);
    assert_int_equal(d.attempts, 1);
    assert_string_equal(d.sub, "sub-bob");
    assert_string_equal(d.token_url, "https://lms.example/token");
    assert_string_equal(d.client_id, "client");
    assert_string_equal(d.lineitems_url, "https://lms.example/li");
    int64_t first = d.id;

    /* a newer grade waits behind the one being sent */
    put(s, link, bob, 90, 1200, true);
    assert_int_equal(store_lti_outbox_claim(s, "h2", 1200, 500, &d), STORE_NOT_FOUND);
    /* only the holder ends a claim */
    assert_int_equal(store_lti_outbox_end(s, first, "h2", "delivered", NULL, 1200, 1200),
                     STORE_STALE);
    assert_int_equal(store_lti_outbox_end(s, first, "h1", "delivered", NULL, 1200, 1210), 0);
    assert_int_equal(store_lti_outbox_claim(s, "h2", 1300, 500, &d), 0);
    assert_int_equal(d.seq, 3);
    int64_t third = d.id;

    /* back-off: not due before next_try_at */
    assert_int_equal(store_lti_outbox_end(s, third, "h2", "pending", "HTTP 503", 5000, 1300), 0);
    assert_int_equal(store_lti_outbox_claim(s, "h1", 4999, 500, &d), STORE_NOT_FOUND);
    assert_int_equal(store_lti_outbox_claim(s, "h1", 5000, 500, &d), 0);
    assert_int_equal(d.id, third);
    assert_int_equal(d.attempts, 2);
    /* its holder died: the lease runs out and another takes it */
    assert_int_equal(store_lti_outbox_claim(s, "h2", 5400, 500, &d), STORE_NOT_FOUND);
    assert_int_equal(store_lti_outbox_claim(s, "h2", 5501, 500, &d), 0);
    assert_int_equal(d.id, third);
    assert_int_equal(d.attempts, 3);
    assert_int_equal(store_lti_outbox_end(s, third, "h1", "delivered", NULL, 0, 5600), STORE_STALE);
    assert_int_equal(store_lti_outbox_end(s, third, "h2", "failed", "HTTP 400", 5600, 5600), 0);

    /* a failed one retried by an instructor, once */
    assert_int_equal(store_lti_outbox_retry(s, third, 6000), 0);
    assert_int_equal(store_lti_outbox_retry(s, third, 6000), STORE_NOT_FOUND);
    assert_int_equal(store_lti_outbox_claim(s, "h1", 6000, 500, &d), 0);
    assert_int_equal(d.id, third);
    assert_int_equal(store_lti_outbox_end(s, third, "h1", "failed", "HTTP 400", 6000, 6000), 0);
    /* a newer grade exists: the failed older one may not be retried */
    put(s, link, bob, 95, 6100, true);
    assert_int_equal(store_lti_outbox_retry(s, third, 6200), STORE_NOT_FOUND);

    /* a grade taken away (nothing counts any more): 0 is sent */
    put(s, link, bob, NAN, 6300, true);
    /* claims handed back at a start */
    assert_int_equal(store_lti_outbox_claim(s, "h1", 6400, 500, &d), 0);
    assert_true(d.given == 0);
    assert_int_equal(store_lti_outbox_release(s), 0);
    assert_int_equal(store_lti_outbox_claim(s, "h2", 6400, 500, &d), 0);
    assert_true(d.given == 0);
    assert_int_equal(store_lti_outbox_end(s, d.id, "h2", "delivered", NULL, 0, 6500), 0);

    /* a student no longer linked: the delivery shows no sub */
    put(s, link, carol, 10, 7000, true);
    exec_on_db("DELETE FROM lti_users WHERE sub = 'sub-carol'");
    assert_int_equal(store_lti_outbox_claim(s, "h1", 7000, 500, &d), 0);
    assert_string_equal(d.sub, "");

    char states[256] = "";
    assert_int_equal(store_lti_outbox_list(s, NULL, 10, note_state, states), 0);
    assert_string_equal(states,
                        "1:sending 5:delivered 4:superseded 3:failed 2:delivered 1:superseded ");
    states[0] = '\0';
    assert_int_equal(store_lti_outbox_list(s, "failed", 10, note_state, states), 0);
    assert_string_equal(states, "3:failed ");
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graded_links),
        cmocka_unit_test(test_outbox),
        /* the same on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL) */
        PG_CASE(test_graded_links),
        PG_CASE(test_outbox),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
