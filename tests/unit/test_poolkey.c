/*
 * Unit tests of judge/poolkey.c: which sources share one benchmark
 * measurement. Comments, layout and renamed locals share the key; every
 * change that can change behaviour (an operator, a constant, a called
 * function, a member, a macro, the function the harness calls, how
 * operators are spaced) gets another one; degenerate texts are safe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/poolkey.h"

static const char base[] = "#include <math.h>\n"
                           "#define BLOCK 8\n"
                           "static float row_max(const float *v, int n)\n"
                           "{\n"
                           "    float m = v[0];\n"
                           "    for (int i = 1; i < n; i++)\n"
                           "        if (v[i] > m)\n"
                           "            m = v[i];\n"
                           "    return m;\n"
                           "}\n"
                           "void softmax_rows(const float *x, float *y, int rows, int cols)\n"
                           "{\n"
                           "    for (int r = 0; r < rows; r++) {\n"
                           "        const float *xr = x + (size_t)r * cols;\n"
                           "        float *yr = y + (size_t)r * cols, m = row_max(xr, cols);\n"
                           "        float sum = 0.0f;\n"
                           "        for (int c = 0; c < cols; c++)\n"
                           "            sum += yr[c] = expf(xr[c] - m);\n"
                           "        const float inv = 1.0f / sum;\n"
                           "        for (int c = 0; c < cols; c++)\n"
                           "            yr[c] *= inv;\n"
                           "    }\n"
                           "}\n";

static void key(const char *text, char out[POOLKEY_LEN + 1])
{
    assert_int_equal(poolkey_of(text, strlen(text), out), 0);
    assert_int_equal(strlen(out), POOLKEY_LEN);
}

/* text with the first occurrence of from replaced by to (every
 * occurrence when all), in place (text holds 4096 bytes). */
static void replace(char *text, const char *from, const char *to, int all)
{
    char out[4096] = "";
    const char *p = text, *hit;
    size_t n = 0;
    assert_non_null(strstr(text, from));
    while ((hit = strstr(p, from)) != NULL) {
        memcpy(out + n, p, (size_t)(hit - p));
        n += (size_t)(hit - p);
        memcpy(out + n, to, strlen(to));
        n += strlen(to);
        p = hit + strlen(from);
        if (!all)
            break;
    }
    memcpy(out + n, p, strlen(p) + 1);
    memcpy(text, out, sizeof out);
}

static void key_edit(const char *from, const char *to, int all, char out[POOLKEY_LEN + 1])
{
    char text[4096];
    memcpy(text, base, sizeof base);
    replace(text, from, to, all);
    key(text, out);
}

static void same_as_base(const char *from, const char *to, int all)
{
    char a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    key(base, a);
    key_edit(from, to, all, b);
    if (strcmp(a, b))
        fail_msg("replacing \"%s\" by \"%s\" changed the key", from, to);
}

static void differs_from_base(const char *from, const char *to, int all)
{
    char a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    key(base, a);
    key_edit(from, to, all, b);
    if (!strcmp(a, b))
        fail_msg("replacing \"%s\" by \"%s\" kept the key", from, to);
}

static void test_comments_and_layout_share(void **state)
{
    (void)state;
    same_as_base("{\n    for (int r", "{ /* one row at a time */\n\tfor (int  r", 0);
    same_as_base("            yr[c] *= inv;\n", "yr[c]*=inv; // normalise\n", 0);
    same_as_base("    return m;\n", "\n\n    return  m ;   /* the max */\n", 0);
    same_as_base("#define BLOCK 8\n", "#define   BLOCK  8 /* unused */\n", 0);
}

/* base with every occurrence of each even-numbered word replaced by the
 * next one has base's key. */
static void renamed_same(const char *const *pairs)
{
    char text[4096], a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    memcpy(text, base, sizeof base);
    for (size_t i = 0; pairs[i]; i += 2)
        replace(text, pairs[i], pairs[i + 1], 1);
    key(base, a);
    key(text, b);
    if (strcmp(a, b))
        fail_msg("renaming \"%s\" to \"%s\" changed the key", pairs[0], pairs[1]);
}

static void test_renamed_locals_share(void **state)
{
    (void)state;
    same_as_base("sum", "total", 1); /* a block-scope variable */
    /* a for loop's variable, declared twice */
    renamed_same((const char *const[]){"int c ", "int col ", "c < cols", "col < cols", "c++",
                                       "col++", "[c]", "[col]", NULL});
    renamed_same(
        (const char *const[]){"int i", "int k", "[i]", "[k]", "i <", "k <", "i++", "k++", NULL});
    /* parameters of both functions */
    renamed_same((const char *const[]){"int rows", "int R", "r < rows", "r < R", NULL});
    renamed_same((const char *const[]){"*v", "*vec", "v[", "vec[", NULL});
    renamed_same((const char *const[]){"*x,", "*in,", "x +", "in +", NULL});
}

static void test_behaviour_changes_differ(void **state)
{
    (void)state;
    differs_from_base("sum += yr[c]", "sum -= yr[c]", 0); /* an operator */
    differs_from_base("0.0f", "1.0f", 0);                 /* a constant */
    differs_from_base("int i = 1", "int i = 0", 0);
    differs_from_base("expf", "logf", 0);                        /* a called function */
    differs_from_base("row_max", "row_min", 1);                  /* a file-scope name */
    differs_from_base("softmax_rows", "softmax_row", 0);         /* the function called */
    differs_from_base("#define BLOCK 8", "#define BLOCK 16", 0); /* a macro */
    differs_from_base("#include <math.h>", "#include <tgmath.h>", 0);
    differs_from_base("v[i] > m", "v[i] >= m", 0);
    differs_from_base("(size_t)r", "(int)r", 0); /* a type */
}

/* Pairs of sources that read alike once layout or names are gone but do
 * not do the same. */
static void differ(const char *a_text, const char *b_text)
{
    char a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    key(a_text, a);
    key(b_text, b);
    if (!strcmp(a, b))
        fail_msg("one key for:\n%s\nand:\n%s", a_text, b_text);
}

static void same(const char *a_text, const char *b_text)
{
    char a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    key(a_text, a);
    key(b_text, b);
    if (strcmp(a, b))
        fail_msg("two keys for:\n%s\nand:\n%s", a_text, b_text);
}

static void test_traps_differ(void **state)
{
    (void)state;
    /* spacing is meaning between operators */
    differ("int f(int a, int b) { return a + ++b; }", "int f(int a, int b) { return a++ + b; }");
    /* member names are not locals */
    differ("#include <stdlib.h>\nint f(int a) { int quot = 1; div_t r = div(a, 3);"
           " return r.quot + quot; }",
           "#include <stdlib.h>\nint f(int a) { int rem = 1; div_t r = div(a, 3);"
           " return r.rem + rem; }");
    /* a local spelled like a library function, then the function */
    differ(
        "#include <math.h>\nfloat f(float x) { { float expf = 2; x += expf; } return expf(x); }",
        "#include <math.h>\nfloat f(float x) { { float logf = 2; x += logf; } return logf(x); }");
    /* a local of one function spelled like a global used in another */
    differ("int g = 1, h = 2;\nint f(void) { int g = 0; return g; }\nint k(void) { return g; }",
           "int g = 1, h = 2;\nint f(void) { int h = 0; return h; }\nint k(void) { return h; }");
    /* the function the harness calls and its helper, swapped */
    differ("static int helper(int x) { return x; }\nint solve(int x) { return helper(x) + 1; }",
           "static int solve2(int x) { return x; }\nint solve(int x) { return solve2(x) + 1; }");
    /* pasting macros: a name's spelling is behaviour */
    differ("#define V(n) v##n\nint f(void) { int v1 = 1, v2 = 2; return V(1) + 0 * v2; }",
           "#define V(n) v##n\nint f(void) { int v2 = 1, v1 = 2; return V(1) + 0 * v1; }");
    /* a block-scope extern names a global */
    differ("int f(void) { extern int a; return a; }", "int f(void) { extern int b; return b; }");
    /* a name used before its declaration in the block is someone else's */
    differ("int n = 3;\nint f(void) { int y = n; int n = 1; return y + n; }",
           "int m = 3;\nint f(void) { int y = m; int n = 1; return y + n; }");
}

static void test_intrinsics_locals_share(void **state)
{
    (void)state;
    same("#include <immintrin.h>\nvoid f(const float *x, float *y, int n)\n{\n"
         "    __m256 acc = _mm256_setzero_ps();\n"
         "    for (int i = 0; i + 8 <= n; i += 8)\n"
         "        acc = _mm256_add_ps(acc, _mm256_loadu_ps(x + i));\n"
         "    _mm256_storeu_ps(y, acc);\n}\n",
         "#include <immintrin.h>\nvoid f(const float *in, float *out, int len)\n{\n"
         "    __m256 s = _mm256_setzero_ps(); // running sums\n"
         "    for (int j = 0; j + 8 <= len; j += 8)\n"
         "        s = _mm256_add_ps(s, _mm256_loadu_ps(in + j));\n"
         "    _mm256_storeu_ps(out, s);\n}\n");
    differ("#include <immintrin.h>\nvoid f(const float *x, float *y)\n{\n"
           "    __m256 a = _mm256_loadu_ps(x);\n"
           "    _mm256_storeu_ps(y, _mm256_add_ps(a, a));\n}\n",
           "#include <immintrin.h>\nvoid f(const float *x, float *y)\n{\n"
           "    __m256 a = _mm256_loadu_ps(x);\n"
           "    _mm256_storeu_ps(y, _mm256_mul_ps(a, a));\n}\n");
}

static void test_degenerate_texts_are_safe(void **state)
{
    (void)state;
    char a[POOLKEY_LEN + 1], b[POOLKEY_LEN + 1];
    assert_int_equal(poolkey_of("", 0, a), 0);
    assert_int_equal(poolkey_of("/* only a comment */", 20, b), 0);
    assert_string_equal(a, b);
    static const char odd[] = "}}{ ( int x = \"unterminated\n #define\\\n x /* open";
    assert_int_equal(poolkey_of(odd, sizeof odd - 1, a), 0);
    static const char nul[] = "int f(int a) { return a; }\0 int x;";
    assert_int_equal(poolkey_of(nul, sizeof nul - 1, a), 0);
    assert_int_equal(poolkey_of(nul, strlen(nul), b), 0);
    assert_string_not_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comments_and_layout_share),
        cmocka_unit_test(test_renamed_locals_share),
        cmocka_unit_test(test_behaviour_changes_differ),
        cmocka_unit_test(test_traps_differ),
        cmocka_unit_test(test_intrinsics_locals_share),
        cmocka_unit_test(test_degenerate_texts_are_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
