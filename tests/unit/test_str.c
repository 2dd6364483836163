/*
 * Unit tests of util/str.c: a NULL-safe copy, a formatted new string, and
 * replacing every occurrence of a text (longer, shorter, empty, none,
 * NULL, overlapping starts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/str.h"

static void test_dup_and_printf(void **state)
{
    (void)state;
    char *s = str_dup("ld: x");
    assert_non_null(s);
    assert_string_equal(s, "ld: x");
    free(s);
    assert_null(str_dup(NULL));
    s = str_printf("%s %d%s", "test", 7, "");
    assert_non_null(s);
    assert_string_equal(s, "test 7");
    free(s);
}

/* Replaces from by to in a copy of in and checks the result. */
static void check_replace(const char *in, const char *from, const char *to, const char *want)
{
    char *s = str_dup(in);
    assert_non_null(s);
    assert_int_equal(str_replace_all(&s, from, to), 0);
    assert_string_equal(s, want);
    free(s);
}

static void test_replace_all(void **state)
{
    (void)state;
    /* the compiler's names rewritten for the student, as compile.c does */
    check_replace("/usr/bin/ld: a.o: x\n/usr/bin/ld: b",
                  "/usr/bin/ld: ", "ld: ", "ld: a.o: x\nld: b");
    check_replace("sol.o: in sol.o", "sol.o", "the judge's harness",
                  "the judge's harness: in the judge's harness");
    check_replace("abc", "b", "", "ac");
    check_replace("abc", "x", "yy", "abc");
    check_replace("aaa", "aa", "b", "ba"); /* left to right, no overlaps */
    check_replace("", "a", "b", "");
    check_replace("abc", "", "z", "abc"); /* an empty from changes nothing */
    char *none = NULL;
    assert_int_equal(str_replace_all(&none, "a", "b"), 0);
    assert_null(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dup_and_printf),
        cmocka_unit_test(test_replace_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
