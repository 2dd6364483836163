/*
 * Unit tests of judge/expr: parsing, C precedence, 64-bit arithmetic and the
 * error messages instructors see for broken shapes and constraints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/expr.h"

struct dim {
    const char *name;
    int64_t value;
};

static const struct dim test_dims[] = {
    {"B", 2},    {"T", 7},           {"d_model", 24},    {"num_heads", 3},
    {"zero", 0}, {"big", INT64_MAX}, {"min", INT64_MIN}, {NULL, 0},
};

static int lookup(void *ctx, const char *name, int64_t *value)
{
    const struct dim *d = ctx;

    for (; d->name; d++) {
        if (strcmp(d->name, name) == 0) {
            *value = d->value;
            return 0;
        }
    }
    return -1;
}

/* Parses and evaluates text; fails the test on any error. */
static int64_t eval_ok(const char *text)
{
    char err[256] = "";
    struct expr *e = expr_parse(text, err, sizeof err);
    int64_t v = -12345;

    if (!e)
        fail_msg("parse of '%s' failed: %s", text, err);
    if (expr_eval(e, lookup, (void *)test_dims, &v, err, sizeof err) != 0)
        fail_msg("eval of '%s' failed: %s", text, err);
    expr_free(e);
    return v;
}

/* Expects a parse error containing want. */
static void parse_fails(const char *text, const char *want)
{
    char err[256] = "";
    struct expr *e = expr_parse(text, err, sizeof err);

    if (e)
        fail_msg("'%s' parsed, expected an error", text);
    if (!strstr(err, want))
        fail_msg("'%s': error '%s' does not contain '%s'", text, err, want);
}

/* Expects parsing to succeed and evaluation to fail with want. */
static void eval_fails(const char *text, const char *want)
{
    char err[256] = "";
    struct expr *e = expr_parse(text, err, sizeof err);
    int64_t v = 77;

    if (!e)
        fail_msg("parse of '%s' failed: %s", text, err);
    if (expr_eval(e, lookup, (void *)test_dims, &v, err, sizeof err) == 0)
        fail_msg("'%s' evaluated to %lld, expected an error", text, (long long)v);
    assert_int_equal(v, 77); /* untouched on error */
    if (!strstr(err, want))
        fail_msg("'%s': error '%s' does not contain '%s'", text, err, want);
    expr_free(e);
}

static void test_literals_and_names(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("42"), 42);
    assert_int_equal(eval_ok("  d_model "), 24);
    assert_int_equal(eval_ok("3*d_model"), 72);
    assert_int_equal(eval_ok("9223372036854775807"), INT64_MAX);
}

static void test_precedence(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("2 + 3 * 4"), 14);
    assert_int_equal(eval_ok("(2 + 3) * 4"), 20);
    assert_int_equal(eval_ok("10 - 4 - 3"), 3); /* left-associative */
    assert_int_equal(eval_ok("100 / 10 / 5"), 2);
    assert_int_equal(eval_ok("7 % 4 * 3"), 9); /* same level, left to right */
    assert_int_equal(eval_ok("-2 * -3"), 6);
    assert_int_equal(eval_ok("- -5"), 5);
    assert_int_equal(eval_ok("+5"), 5);
    assert_int_equal(eval_ok("1 + 2 < 4"), 1);  /* additive binds tighter */
    assert_int_equal(eval_ok("1 < 2 == 1"), 1); /* relational before equality */
    assert_int_equal(eval_ok("0 == 0 && 1 == 2"), 0);
    assert_int_equal(eval_ok("1 || 0 && 0"), 1); /* && before || */
    assert_int_equal(eval_ok("(1 || 0) && 0"), 0);
    assert_int_equal(eval_ok("!0 + 1"), 2); /* unary before binary */
    assert_int_equal(eval_ok("!(2 > 1)"), 0);
    assert_int_equal(eval_ok("!!7"), 1);
    assert_int_equal(eval_ok("-7 / 2"), -3); /* C truncates toward zero */
    assert_int_equal(eval_ok("-7 % 2"), -1);
}

static void test_comparisons(void **state)
{
    (void)state;
    assert_int_equal(eval_ok("d_model % num_heads == 0"), 1);
    assert_int_equal(eval_ok("d_model % 5 != 0"), 1);
    assert_int_equal(eval_ok("B >= 1 && B <= 2"), 1);
    assert_int_equal(eval_ok("T > 7"), 0);
    assert_int_equal(eval_ok("T < 7"), 0);
    assert_int_equal(eval_ok("T<=7"), 1);
    assert_int_equal(eval_ok("T>=8"), 0);
    assert_int_equal(eval_ok("3 && 4"), 1); /* logical results are 0 or 1 */
}

static void test_short_circuit(void **state)
{
    (void)state;
    /* The right side would divide by zero or name an unknown dimension. */
    assert_int_equal(eval_ok("zero > 0 && d_model % zero == 0"), 0);
    assert_int_equal(eval_ok("zero == 0 || d_model % zero == 0"), 1);
    assert_int_equal(eval_ok("0 && nosuch"), 0);
}

static void test_eval_errors(void **state)
{
    (void)state;
    eval_fails("d_model / zero", "division by zero");
    eval_fails("d_model % zero", "division by zero");
    eval_fails("big + 1", "overflow");
    eval_fails("min - 1", "overflow");
    eval_fails("big * 2", "overflow");
    eval_fails("-min", "overflow");
    eval_fails("min / -1", "overflow");
    eval_fails("min % -1", "overflow");
    eval_fails("Tk + 1", "unknown dimension 'Tk'");
    eval_fails("nosuch * 0", "unknown dimension 'nosuch'"); /* no algebraic shortcuts */
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_fails("", "empty expression");
    parse_fails("   ", "empty expression");
    parse_fails("(d_model", "missing ')' for '(' at column 1");
    parse_fails("d_model)", "unexpected ')' at column 8");
    parse_fails("2 +", "unexpected end of expression at column 4");
    parse_fails("a b", "unexpected 'b' at column 3");
    parse_fails("a = b", "unexpected '=' at column 3 (comparison is '==')");
    parse_fails("a & b", "unexpected '&' at column 3");
    parse_fails("a << 2", "unexpected '<' at column 3");
    parse_fails("a ** 2", "unexpected '*' at column 3");
    parse_fails("3d", "unexpected 'd' at column 2");
    parse_fails("1.5", "unexpected '.' at column 2");
    parse_fails("a $ b", "unexpected '$' at column 3");
    parse_fails("99999999999999999999", "number too large at column 1");
    parse_fails("()", "unexpected ')' at column 2");
}

static void test_limits(void **state)
{
    char text[2048], err[256];
    struct expr *e;
    size_t n = 0;

    (void)state;
    /* Deep nesting is refused instead of recursing without bound. */
    for (int i = 0; i < 200; i++)
        text[n++] = '(';
    text[n++] = '1';
    for (int i = 0; i < 200; i++)
        text[n++] = ')';
    text[n] = '\0';
    assert_null(expr_parse(text, err, sizeof err));
    assert_non_null(strstr(err, "nested too deeply"));

    n = 0;
    for (int i = 0; i < 300; i++)
        text[n++] = '-';
    text[n++] = '1';
    text[n] = '\0';
    assert_null(expr_parse(text, err, sizeof err));
    assert_non_null(strstr(err, "nested too deeply"));

    memset(text, ' ', 1500);
    text[0] = '1';
    text[1500] = '\0';
    assert_null(expr_parse(text, err, sizeof err));
    assert_non_null(strstr(err, "longer than"));

    /* A long flat chain within the limit is fine. */
    n = 0;
    for (int i = 0; i < 400; i++) {
        text[n++] = '1';
        text[n++] = '+';
    }
    text[n++] = '1';
    text[n] = '\0';
    e = expr_parse(text, err, sizeof err);
    assert_non_null(e);
    expr_free(e);
    assert_int_equal(eval_ok(text), 401);
}

static void collect(void *ctx, const char *name)
{
    char *buf = ctx;

    strcat(buf, name);
    strcat(buf, ";");
}

static void test_foreach_name(void **state)
{
    char err[128], names[256] = "";
    struct expr *e = expr_parse("(B * T) % (num_heads + d_model) == -B || !x", err, sizeof err);

    (void)state;
    assert_non_null(e);
    expr_foreach_name(e, collect, names);
    assert_string_equal(names, "B;T;num_heads;d_model;B;x;");
    expr_free(e);
    expr_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_and_names),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_comparisons),
        cmocka_unit_test(test_short_circuit),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_foreach_name),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
