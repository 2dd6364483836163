/*
 * Unit tests of judge/crashsite and of the crash record's parsing
 * (judge/harness.c): the sentence that names a crash's line (the line's
 * text trimmed, control bytes replaced, long lines cut at a character's
 * start), the pointer to `make check-asan` when no line is known, and a
 * crash record from the program bounded and validated whatever it says.
 * The mapping itself (the harness's handler, addr2line in a sandbox) is
 * tested end to end by tests/cli/crashline.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/crashsite.h"
#include "judge/harness.h"

static char *describe(const char *text, int line, bool in_callee)
{
    struct crashsite_source src = {"solution.c", text, strlen(text)};
    struct crashsite site = {line, in_callee};
    return crashsite_describe(&src, &site);
}

static void test_describe(void **state)
{
    (void)state;
    char *s = describe("int f(void)\n{\n    \ty[i] = e / s;  \r\n}\n", 3, false);
    assert_string_equal(s, "It crashed at solution.c:3: `y[i] = e / s;`.");
    free(s);
    s = describe("void g(void)\n{\n    memcpy(a, b, n);\n}", 3, true);
    assert_string_equal(
        s, "It crashed in a C library function called at solution.c:3: `memcpy(a, b, n);`.");
    free(s);
    /* the last line without a newline; a tab inside becomes a space */
    s = describe("a\nb\tc", 2, false);
    assert_string_equal(s, "It crashed at solution.c:2: `b c`.");
    free(s);
}

static void test_describe_long_line(void **state)
{
    char text[400];
    (void)state;
    /* 99 ASCII bytes, then 'é' (2 bytes) straddling the 100-byte cut */
    memset(text, 'x', 99);
    memcpy(text + 99, "\xc3\xa9 and more\n", 12);
    char *s = describe(text, 1, false);
    char want[200];
    snprintf(want, sizeof want, "It crashed at solution.c:1: `%.99s...`.", text);
    assert_string_equal(s, want);
    free(s);
    /* exactly 100 bytes: nothing cut */
    memset(text, 'y', 100);
    text[100] = '\0';
    s = describe(text, 1, false);
    snprintf(want, sizeof want, "It crashed at solution.c:1: `%s`.", text);
    assert_string_equal(s, want);
    free(s);
}

static void test_unlocated(void **state)
{
    (void)state;
    struct crashsite_source src = {"solution.c", "x", 1};
    char *s = crashsite_describe(&src, NULL);
    assert_non_null(strstr(s, "The judge could not tell the line"));
    assert_non_null(strstr(s, "`make check-asan && ./check-asan`"));
    free(s);
}

/* records as the harness writes them: header, then payload */
static size_t put(unsigned char *buf, size_t at, uint32_t tag, const void *payload, size_t len)
{
    struct aj_record r = {tag, 0, len};
    memcpy(buf + at, &r, sizeof r);
    memcpy(buf + at + sizeof r, payload, len);
    return at + sizeof r + len;
}

static void test_parse_crash_record(void **state)
{
    struct problem p;
    struct harness_tensors t;
    struct harness_result res;
    unsigned char buf[1024];
    struct aj_crash c = {0x401000, 3, {0x401100, 0x401200, 0x401300}};

    (void)state;
    memset(&p, 0, sizeof p);
    memset(&t, 0, sizeof t);
    size_t n = put(buf, 0, AJ_TAG_CRASH, &c, sizeof c);
    harness_parse_result(&p, &t, buf, n, &res);
    assert_true(res.crashed);
    assert_false(res.malformed);
    assert_int_equal(res.crash.pc, 0x401000);
    assert_int_equal(res.crash.n_calls, 3);
    assert_int_equal(res.crash.calls[2], 0x401300);

    /* a forged count is bounded; the last record counts */
    struct aj_crash forged = {0xdead, UINT64_MAX, {0}};
    n = put(buf, n, AJ_TAG_CRASH, &forged, sizeof forged);
    harness_parse_result(&p, &t, buf, n, &res);
    assert_true(res.crashed);
    assert_int_equal(res.crash.pc, 0xdead);
    assert_int_equal(res.crash.n_calls, AJ_MAX_CALLS);

    /* a record of another size is malformed, not read */
    n = put(buf, 0, AJ_TAG_CRASH, &c, sizeof c - 8);
    harness_parse_result(&p, &t, buf, n, &res);
    assert_false(res.crashed);
    assert_true(res.malformed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_describe_long_line),
        cmocka_unit_test(test_unlocated),
        cmocka_unit_test(test_parse_crash_record),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
