/*
 * Unit tests of judge/similarity.c: winnowed fingerprints of normalized C.
 * A copy with renamed identifiers, new formatting and comments scores as
 * high as the original; code shared only through the starter scores 0 once
 * the starter is excluded; two independent solutions score low; fragments
 * name the right lines; degenerate texts are safe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/similarity.h"

static const char original[] = "#include <math.h>\n"
                               "void softmax_rows(const float *x, float *y, int rows, int cols)\n"
                               "{\n"
                               "    for (int r = 0; r < rows; r++) {\n"
                               "        const float *xr = x + (size_t)r * cols;\n"
                               "        float *yr = y + (size_t)r * cols;\n"
                               "        float m = xr[0];\n"
                               "        for (int c = 1; c < cols; c++)\n"
                               "            if (xr[c] > m)\n"
                               "                m = xr[c];\n"
                               "        float sum = 0.0f;\n"
                               "        for (int c = 0; c < cols; c++) {\n"
                               "            yr[c] = expf(xr[c] - m);\n"
                               "            sum += yr[c];\n"
                               "        }\n"
                               "        for (int c = 0; c < cols; c++)\n"
                               "            yr[c] /= sum;\n"
                               "    }\n"
                               "}\n";

/* The same code, renamed, reformatted and commented. */
static const char disguised[] =
    "/* my own work, honest */\n"
    "#include <math.h>\n"
    "#include <stdlib.h>\n"
    "void softmax_rows(const float *in, float *out, int R, int C) {\n"
    "  for (int row = 0; row < R; row++) { // each row\n"
    "    const float *src = in + (size_t)row * C; float *dst = out + (size_t)row * C;\n"
    "    float biggest = src[0];\n"
    "    for (int k = 1; k < C; k++) if (src[k] > biggest) biggest = src[k];\n"
    "    float total = 0.0f;  /* running sum */\n"
    "    for (int k = 0; k < C; k++) { dst[k] = expf(src[k] - biggest); total += dst[k]; }\n"
    "    for (int k = 0; k < C; k++) dst[k] /= total;\n"
    "  }\n"
    "}\n";

/* An independent solution: double accumulation, a different structure. */
static const char independent[] =
    "#include <math.h>\n"
    "static double row_max(const float *v, int n)\n"
    "{\n"
    "    double best = -INFINITY;\n"
    "    int i = 0;\n"
    "    while (i < n) { if (v[i] > best) best = v[i]; ++i; }\n"
    "    return best;\n"
    "}\n"
    "void softmax_rows(const float *x, float *y, int rows, int cols)\n"
    "{\n"
    "    int r = 0;\n"
    "    do {\n"
    "        double mx = row_max(x + r * cols, cols), acc = 0;\n"
    "        int j = cols;\n"
    "        while (j-- > 0) acc += exp((double)x[r * cols + j] - mx);\n"
    "        j = cols;\n"
    "        while (j-- > 0) y[r * cols + j] = (float)(exp((double)x[r * cols + j] - mx) / acc);\n"
    "    } while (++r < rows);\n"
    "}\n";

static struct sim_doc doc(const char *text)
{
    struct sim_doc d;
    assert_int_equal(sim_doc_build(text, strlen(text), &d), 0);
    return d;
}

static void test_identical_is_one(void **state)
{
    (void)state;
    struct sim_doc a = doc(original), b = doc(original);
    assert_true(a.n > 0);
    assert_true(sim_compare(&a, &b, NULL, NULL) == 1.0);
    sim_doc_free(&a);
    sim_doc_free(&b);
}

static void test_renamed_and_reformatted_is_caught(void **state)
{
    (void)state;
    struct sim_doc a = doc(original), b = doc(disguised);
    double s = sim_compare(&a, &b, NULL, NULL);
    /* Renaming, layout, comments and an extra #include change no token:
     * the only difference is the order of one declaration line. */
    assert_true(s >= 0.9);
    assert_true(sim_compare(&b, &a, NULL, NULL) == s); /* symmetric */
    sim_doc_free(&a);
    sim_doc_free(&b);
}

static void test_independent_is_low(void **state)
{
    (void)state;
    struct sim_doc a = doc(original), b = doc(independent);
    double s = sim_compare(&a, &b, NULL, NULL);
    assert_true(s < 0.2);
    sim_doc_free(&a);
    sim_doc_free(&b);
}

static void test_starter_is_excluded(void **state)
{
    (void)state;
    /* Two students who only kept the starter's long helper share nothing
     * of their own. */
    static const char starter[] =
        "static void zero_rows(float *y, int rows, int cols) { for (int r = 0; r < rows; r++)"
        " for (int c = 0; c < cols; c++) y[r * cols + c] = 0.0f; }\n";
    char a_text[4096], b_text[4096];
    snprintf(a_text, sizeof a_text, "%s%s", starter, "int a(int q) { return q * 3 + 1; }\n");
    snprintf(b_text, sizeof b_text, "%s%s", starter,
             "double b(double v, double w) { while (v > w) v -= w; return v; }\n");
    struct sim_doc a = doc(a_text), b = doc(b_text), base;
    assert_int_equal(sim_base_build(starter, strlen(starter), &base), 0);
    assert_true(sim_compare(&a, &b, NULL, NULL) > 0.5); /* the starter dominates */
    sim_doc_exclude(&a, &base);
    sim_doc_exclude(&b, &base);
    assert_true(sim_compare(&a, &b, NULL, NULL) == 0.0);
    sim_doc_free(&a);
    sim_doc_free(&b);
    sim_doc_free(&base);
}

static void test_fragments_name_lines(void **state)
{
    (void)state;
    /* b is a's loop (lines 4-18) after five unrelated lines. */
    char b_text[8192];
    snprintf(b_text, sizeof b_text,
             "int unrelated_one(void) { return 1; }\nint two;\nint three;\nint four;\n"
             "int five;\n%s",
             original);
    struct sim_doc a = doc(original), b = doc(b_text);
    struct sim_match *m = NULL;
    size_t n = 0;
    double s = sim_compare(&a, &b, &m, &n);
    assert_true(s == 1.0);
    assert_int_equal(n, 1);
    assert_true(m[0].a_first >= 2 && m[0].a_last <= 19);
    assert_int_equal(m[0].b_first, m[0].a_first + 5);
    assert_int_equal(m[0].b_last, m[0].a_last + 5);
    free(m);
    sim_doc_free(&a);
    sim_doc_free(&b);
}

static void test_degenerate_texts_are_safe(void **state)
{
    (void)state;
    struct sim_doc d, e = doc(original);
    assert_int_equal(sim_doc_build("", 0, &d), 0);
    assert_int_equal(d.n, 0);
    assert_true(sim_compare(&d, &e, NULL, NULL) == 0.0);
    sim_doc_free(&d);
    assert_int_equal(sim_doc_build("int x;", 6, &d), 0); /* under SIM_K tokens */
    assert_int_equal(d.n, 0);
    sim_doc_free(&d);
    static const char nul[] = "int a\0b = 1; /* unterminated comment ... \n \" and a string";
    assert_int_equal(sim_doc_build(nul, sizeof nul - 1, &d), 0);
    sim_doc_free(&d);
    static const char quote[] = "char *s = \"unterminated\n int x = 'a; #define Z \\\n 1\n";
    assert_int_equal(sim_doc_build(quote, sizeof quote - 1, &d), 0);
    sim_doc_free(&d);
    char *big = malloc(200000);
    assert_non_null(big);
    for (size_t i = 0; i < 199999; i++)
        big[i] = "x+1;"[i % 4];
    big[199999] = '\0';
    assert_int_equal(sim_doc_build(big, 199999, &d), 0); /* one huge line */
    assert_true(d.n > 0);
    assert_true(sim_compare(&d, &d, NULL, NULL) == 1.0);
    sim_doc_free(&d);
    free(big);
    sim_doc_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_is_one),
        cmocka_unit_test(test_renamed_and_reformatted_is_caught),
        cmocka_unit_test(test_independent_is_low),
        cmocka_unit_test(test_starter_is_excluded),
        cmocka_unit_test(test_fragments_name_lines),
        cmocka_unit_test(test_degenerate_texts_are_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
