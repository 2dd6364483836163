/*
 * Unit tests of judge/search.c's pure parts: which budget a judgement
 * gets (the server's, the problem's, none without a domain) and the
 * search's seed (the same for the same secret, normalised source and
 * problem version; another for any of them changed). The search itself
 * runs sandboxes: tests/cli/search.sh and tests/server/search.py judge
 * real files with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "judge/search.h"

static void test_budget(void **state)
{
    struct problem p;

    (void)state;
    memset(&p, 0, sizeof p);
    assert_int_equal(search_budget(&p, 1000), 0); /* no domain: no search */
    p.domain.present = true;
    assert_int_equal(search_budget(&p, 1000), 1000);
    assert_int_equal(search_budget(&p, 0), 0); /* the operator's 0 wins */
    p.search.has_budget = true;
    p.search.budget_ms = 250;
    assert_int_equal(search_budget(&p, 1000), 250);
    assert_int_equal(search_budget(&p, 0), 0);
    p.search.budget_ms = 0; /* the package turns it off */
    assert_int_equal(search_budget(&p, 1000), 0);
}

static void test_seed(void **state)
{
    static const char a[] = "void f(int n) { int i = n; /* one */ }\n";
    static const char same[] = "void f(int n)\n{\n    int k = n; // two\n}\n";
    static const char other[] = "void f(int n) { int i = n + 1; }\n";
    struct judge_ctx ctx;
    struct problem p;
    uint64_t s1, s2, s3, s4, s5;

    (void)state;
    memset(&ctx, 0, sizeof ctx);
    memset(&p, 0, sizeof p);
    memset(ctx.secret.key, 7, sizeof ctx.secret.key);
    p.slug = "softmax-stable";
    p.json_text = "{\"version\": 1}";
    assert_int_equal(search_seed(&ctx, &p, a, strlen(a), &s1), 0);
    assert_int_equal(search_seed(&ctx, &p, same, strlen(same), &s2), 0);
    assert_int_equal(search_seed(&ctx, &p, other, strlen(other), &s3), 0);
    assert_true(s1 == s2); /* comments, layout and local names aside */
    assert_true(s1 != s3);
    p.json_text = "{\"version\": 2}";
    assert_int_equal(search_seed(&ctx, &p, a, strlen(a), &s4), 0);
    assert_true(s4 != s1); /* another problem version */
    p.json_text = "{\"version\": 1}";
    ctx.secret.key[0] = 8;
    assert_int_equal(search_seed(&ctx, &p, a, strlen(a), &s5), 0);
    assert_true(s5 != s1); /* another deployment */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_seed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
