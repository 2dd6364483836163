/*
 * Unit tests of judge/path.c: the order in which problems are listed.
 * The built-in course's order is asserted end to end in tests/cli/run.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "judge/path.h"

/* A problem with only the fields path_order reads; prereqs is a
 * comma-separated list in one static buffer per problem. */
struct fake {
    struct problem p;
    char *pre[4];
};

static void fake(struct fake *f, const char *slug, const char *difficulty, const char *title,
                 const char *p1, const char *p2)
{
    memset(f, 0, sizeof *f);
    f->p.slug = (char *)slug;
    f->p.difficulty = (char *)difficulty;
    f->p.title = (char *)title;
    if (p1)
        f->pre[f->p.n_prereqs++] = (char *)p1;
    if (p2)
        f->pre[f->p.n_prereqs++] = (char *)p2;
    f->p.prereqs = f->pre;
}

/* Lists fs[] in path order as "a b c". */
static void listed(struct fake *fs, size_t n, char *out, size_t len)
{
    const struct problem *ps[8];
    size_t order[8];
    for (size_t i = 0; i < n; i++)
        ps[i] = &fs[i].p;
    assert_int_equal(path_order(ps, n, order), 0);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(out, i ? " " : "", len - strlen(out) - 1);
        strncat(out, ps[order[i]]->slug, len - strlen(out) - 1);
    }
}

static void test_prerequisites_before_difficulty(void **state)
{
    (void)state;
    struct fake fs[4];
    char out[128];
    /* "block" is easy but needs the hard "attn": prerequisites win */
    fake(&fs[0], "block", "easy", "A block", "attn", NULL);
    fake(&fs[1], "attn", "hard", "Attention", "softmax", NULL);
    fake(&fs[2], "softmax", "medium", "Softmax", NULL, NULL);
    fake(&fs[3], "layout", "easy", "Layout", NULL, NULL);
    listed(fs, 4, out, sizeof out);
    assert_string_equal(out, "layout softmax attn block");
}

static void test_ties_by_difficulty_title_slug(void **state)
{
    (void)state;
    struct fake fs[5];
    char out[128];
    fake(&fs[0], "z-hard", "hard", "A", NULL, NULL);
    fake(&fs[1], "y-odd", "brutal", "A", NULL, NULL); /* unknown: after hard */
    fake(&fs[2], "b-easy", "easy", "Same", NULL, NULL);
    fake(&fs[3], "a-easy", "easy", "Same", NULL, NULL);
    fake(&fs[4], "m-med", "medium", "B", NULL, NULL);
    listed(fs, 5, out, sizeof out);
    assert_string_equal(out, "a-easy b-easy m-med z-hard y-odd");
}

static void test_missing_prerequisite_and_cycle(void **state)
{
    (void)state;
    struct fake fs[3];
    char out[128];
    /* "elsewhere" is not among the problems: ignored; a and b need each
     * other: both are still listed, the least first */
    fake(&fs[0], "b", "easy", "B", "a", "elsewhere");
    fake(&fs[1], "a", "easy", "A", "b", NULL);
    fake(&fs[2], "c", "hard", "C", "elsewhere", NULL);
    listed(fs, 3, out, sizeof out);
    assert_string_equal(out, "c a b");
}

static void test_empty(void **state)
{
    (void)state;
    size_t order[1] = {7};
    assert_int_equal(path_order(NULL, 0, order), 0);
    assert_int_equal(order[0], 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prerequisites_before_difficulty),
        cmocka_unit_test(test_ties_by_difficulty_title_slug),
        cmocka_unit_test(test_missing_prerequisite_and_cycle),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
