/*
 * Unit tests of judge/gen, the seeded test-data generator.
 *
 * The golden values pin the exact bytes of docs/problem-format.md's
 * algorithm: any change to them changes every test's inputs, every stored
 * expected output and every exported case, so it must be deliberate. They
 * were computed with this implementation and cross-checked by hand against an
 * independent Python/NumPy re-implementation of the documented algorithm
 * (splitmix64, xoshiro256**, 24-bit uniforms, Irwin–Hall(12) normal,
 * bernoulli with keep_row_open, int_uniform); both agreed bit for bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/gen.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    return u;
}

static void test_splitmix64_reference(void **state)
{
    uint64_t s = 0;

    (void)state;
    /* The published outputs of splitmix64 from state 0. */
    assert_int_equal(gen_splitmix64(&s), UINT64_C(0xe220a8397b1dcdaf));
    assert_int_equal(gen_splitmix64(&s), UINT64_C(0x6e789e6aa1b965f4));
    assert_int_equal(gen_splitmix64(&s), UINT64_C(0x06c45d188009454f));
}

static void test_stream_golden(void **state)
{
    static const uint64_t want_state[4] = {
        UINT64_C(0x041f345a04f928a3), UINT64_C(0x6593866c5765e211), UINT64_C(0x1517e638e657805a),
        UINT64_C(0x9081a67cdcc3629c)};
    static const uint64_t want_out[4] = {UINT64_C(0x775085ae745e82e5), UINT64_C(0xa6e34afa5e15653b),
                                         UINT64_C(0x2c5ad6f822868ddc),
                                         UINT64_C(0xa7819b4f74ca6c06)};
    struct gen_rng r;

    (void)state;
    gen_rng_seed(&r, 11, 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r.s[i], want_state[i]);
    for (int i = 0; i < 4; i++)
        assert_int_equal(gen_next(&r), want_out[i]);
}

static void test_normal_golden(void **state)
{
    static const uint32_t want_std[6] = {0xbf20cddf, 0xbf2af97d, 0x3e875458,
                                         0x3f98648d, 0xbf98f498, 0x3f731245};
    static const uint32_t want_scaled[4] = {0xc221ef2e, 0xc2861df8, 0x4234e6b4, 0xc26d2a30};
    struct gen_spec g = {.dist = GEN_NORMAL, .mean = 0, .std = 1};
    int64_t shape[2] = {3, 5};
    float f[15];

    (void)state;
    assert_int_equal(gen_fill(f, DT_F32, shape, 2, &g, 11, 0), 0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(f32_bits(f[i]), want_std[i]);

    g.mean = 0.5;
    g.std = 40;
    assert_int_equal(gen_fill(f, DT_F32, shape, 2, &g, 7, 1), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(f32_bits(f[i]), want_scaled[i]);
}

static void test_uniform_golden(void **state)
{
    static const uint32_t want[4] = {0xbf05ecb7, 0x3f183ec2, 0x4005ed9a, 0x3faee1b9};
    struct gen_spec g = {.dist = GEN_UNIFORM, .lo = -2, .hi = 3};
    int64_t shape[2] = {3, 5};
    float f[15];

    (void)state;
    assert_int_equal(gen_fill(f, DT_F32, shape, 2, &g, 42, 3), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(f32_bits(f[i]), want[i]);
}

static void test_bernoulli_and_int_golden(void **state)
{
    static const unsigned char want_mask[15] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0};
    static const int32_t want_int[6] = {64, -4, 94, 60, -36, 69};
    struct gen_spec g = {.dist = GEN_BERNOULLI, .p = 0.9, .keep_row_open = true};
    int64_t shape[2] = {3, 5}, shape1[1] = {6};
    unsigned char m[15];
    int32_t k[6];

    (void)state;
    assert_int_equal(gen_fill(m, DT_U8, shape, 2, &g, 5, 7), 0);
    assert_memory_equal(m, want_mask, sizeof want_mask);

    g = (struct gen_spec){.dist = GEN_INT_UNIFORM, .lo = -100, .hi = 100};
    assert_int_equal(gen_fill(k, DT_I32, shape1, 1, &g, 9, 2), 0);
    assert_memory_equal(k, want_int, sizeof want_int);
}

static void test_streams_are_independent(void **state)
{
    struct gen_spec g = {.dist = GEN_NORMAL, .std = 1};
    int64_t shape[1] = {64};
    float a[64], b[64], c[64], d[64];

    (void)state;
    gen_fill(a, DT_F32, shape, 1, &g, 123, 0);
    gen_fill(b, DT_F32, shape, 1, &g, 123, 0);
    gen_fill(c, DT_F32, shape, 1, &g, 123, 1);
    gen_fill(d, DT_F32, shape, 1, &g, 124, 0);
    assert_memory_equal(a, b, sizeof a);     /* deterministic */
    assert_memory_not_equal(a, c, sizeof a); /* per-parameter stream */
    assert_memory_not_equal(a, d, sizeof a); /* per-test seed */
}

static void test_uniform01(void **state)
{
    struct gen_rng r;

    (void)state;
    gen_rng_seed(&r, 1, 0);
    for (int i = 0; i < 10000; i++) {
        double u = gen_uniform01(&r), scaled = u * 16777216.0;

        assert_true(u >= 0 && u < 1);
        assert_true(scaled == (double)(int64_t)scaled); /* 24 bits only */
        assert_true((double)(float)u == u);             /* exact in binary32 */
    }
}

static void moments(const float *x, int64_t n, double *mean, double *std)
{
    double s = 0, s2 = 0;

    for (int64_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        s2 += (x[i] - *mean) * (x[i] - *mean);
    *std = __builtin_sqrt(s2 / (double)n);
}

static void test_normal_moments(void **state)
{
    enum { N = 200000 };
    struct gen_spec g = {.dist = GEN_NORMAL, .mean = 0, .std = 1};
    int64_t shape[1] = {N};
    float *x = malloc(N * sizeof *x);
    double mean, std;

    (void)state;
    assert_non_null(x);
    assert_int_equal(gen_fill(x, DT_F32, shape, 1, &g, 2024, 0), 0);
    moments(x, N, &mean, &std);
    assert_true(mean > -0.01 && mean < 0.01);
    assert_true(std > 0.99 && std < 1.01);
    for (int i = 0; i < N; i++)
        assert_true(x[i] >= -6 && x[i] <= 6); /* Irwin–Hall(12) support */

    g.mean = 3;
    g.std = 40;
    assert_int_equal(gen_fill(x, DT_F32, shape, 1, &g, 2024, 0), 0);
    moments(x, N, &mean, &std);
    assert_true(mean > 3 - 0.4 && mean < 3 + 0.4);
    assert_true(std > 39.6 && std < 40.4);

    g.std = 0;
    assert_int_equal(gen_fill(x, DT_F32, shape, 1, &g, 2024, 0), 0);
    for (int i = 0; i < N; i++)
        assert_true(x[i] == 3.0f);
    free(x);
}

static void test_uniform_range(void **state)
{
    enum { N = 100000 };
    struct gen_spec g = {.dist = GEN_UNIFORM, .lo = -1, .hi = 1};
    int64_t shape[1] = {N};
    float *x = malloc(N * sizeof *x);
    double mean, std;

    (void)state;
    assert_non_null(x);
    assert_int_equal(gen_fill(x, DT_F32, shape, 1, &g, 77, 4), 0);
    for (int i = 0; i < N; i++)
        assert_true(x[i] >= -1.0f && x[i] < 1.0f);
    moments(x, N, &mean, &std);
    assert_true(mean > -0.01 && mean < 0.01);
    assert_true(std > 0.57 && std < 0.585); /* 1/sqrt(3) */
    free(x);
}

static void test_bernoulli_rate(void **state)
{
    enum { N = 100000 };
    struct gen_spec g = {.dist = GEN_BERNOULLI, .p = 0.25};
    int64_t shape[2] = {N / 100, 100};
    unsigned char *m = malloc(N);
    int ones = 0;

    (void)state;
    assert_non_null(m);
    assert_int_equal(gen_fill(m, DT_U8, shape, 2, &g, 3, 8), 0);
    for (int i = 0; i < N; i++) {
        assert_true(m[i] == 0 || m[i] == 1);
        ones += m[i];
    }
    assert_true(ones > N * 0.24 && ones < N * 0.26);

    g.p = 0;
    assert_int_equal(gen_fill(m, DT_U8, shape, 2, &g, 3, 8), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(m[i], 0);
    free(m);
}

static void test_keep_row_open(void **state)
{
    enum { ROWS = 2000, COLS = 4 };
    struct gen_spec keep = {.dist = GEN_BERNOULLI, .p = 1, .keep_row_open = true};
    struct gen_spec plain = {.dist = GEN_BERNOULLI, .p = 0.8};
    int64_t shape[3] = {2, ROWS / 2, COLS};
    unsigned char a[ROWS * COLS], b[ROWS * COLS];
    int hit[COLS] = {0}, first_full = -1;

    (void)state;
    /* p = 1: every row comes out all ones and gets exactly one 0, at a
     * column that varies. */
    assert_int_equal(gen_fill(a, DT_U8, shape, 3, &keep, 99, 5), 0);
    for (int r = 0; r < ROWS; r++) {
        int zeros = 0;

        for (int c = 0; c < COLS; c++) {
            if (a[r * COLS + c] == 0) {
                zeros++;
                hit[c]++;
            }
        }
        assert_int_equal(zeros, 1);
    }
    for (int c = 0; c < COLS; c++)
        assert_true(hit[c] > ROWS / COLS / 2);

    /* p = 0.8: no row is ever all ones, and up to the first row that needed
     * opening the output equals the plain Bernoulli draw. */
    assert_int_equal(gen_fill(b, DT_U8, shape, 3, &plain, 99, 5), 0);
    keep.p = 0.8;
    assert_int_equal(gen_fill(a, DT_U8, shape, 3, &keep, 99, 5), 0);
    for (int r = 0; r < ROWS; r++) {
        int ones = 0;

        for (int c = 0; c < COLS; c++)
            ones += a[r * COLS + c];
        assert_true(ones < COLS);
        if (first_full < 0 && memcmp(a + r * COLS, b + r * COLS, COLS) != 0)
            first_full = r;
    }
    assert_true(first_full >= 0);
    for (int c = 0; c < COLS; c++)
        assert_int_equal(b[first_full * COLS + c], 1);
}

static void test_int_uniform_inclusive(void **state)
{
    enum { N = 5000 };
    struct gen_spec g = {.dist = GEN_INT_UNIFORM, .lo = -3, .hi = 3};
    int64_t shape[1] = {N};
    int32_t x[N];
    int seen[7] = {0};

    (void)state;
    assert_int_equal(gen_fill(x, DT_I32, shape, 1, &g, 8, 0), 0);
    for (int i = 0; i < N; i++) {
        assert_true(x[i] >= -3 && x[i] <= 3);
        seen[x[i] + 3]++;
    }
    for (int v = 0; v < 7; v++)
        assert_true(seen[v] > 0); /* both bounds included */

    g.lo = g.hi = 5;
    assert_int_equal(gen_fill(x, DT_I32, shape, 1, &g, 8, 0), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(x[i], 5);

    g.lo = INT32_MIN;
    g.hi = INT32_MAX;
    assert_int_equal(gen_fill(x, DT_I32, shape, 1, &g, 8, 0), 0);
}

static void test_causal(void **state)
{
    struct gen_spec g = {.dist = GEN_CAUSAL};
    int64_t shape[3] = {2, 3, 4};
    unsigned char m[24];

    (void)state;
    assert_int_equal(gen_fill(m, DT_U8, shape, 3, &g, 0, 0), 0);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                assert_int_equal(m[b * 12 + i * 4 + j], j > i);
    /* Row 0 attends only to column 0. */
    assert_int_equal(m[0], 0);
    assert_int_equal(m[1], 1);
}

static void test_spec_errors(void **state)
{
    struct gen_spec g = {.dist = GEN_CAUSAL};
    int64_t shape[2] = {4, 4};
    char err[256];
    float f[16];

    (void)state;
    assert_int_equal(gen_fill(f, DT_U8, shape, 1, &g, 0, 0), -1);
    assert_int_equal(gen_spec_check(&g, DT_U8, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank >= 2"));
    assert_int_equal(gen_spec_check(&g, DT_F32, 2, err, sizeof err), -1);

    g = (struct gen_spec){.dist = GEN_NORMAL, .std = 1};
    assert_int_equal(gen_spec_check(&g, DT_F32, 1, err, sizeof err), 0);
    assert_int_equal(gen_spec_check(&g, DT_U8, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "'normal' cannot fill a u8 tensor"));
    g.std = -1;
    assert_int_equal(gen_fill(f, DT_F32, shape, 2, &g, 0, 0), -1);

    g = (struct gen_spec){.dist = GEN_BERNOULLI, .p = 1.5};
    assert_int_equal(gen_spec_check(&g, DT_U8, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "0 <= p <= 1"));

    g = (struct gen_spec){.dist = GEN_INT_UNIFORM, .lo = 0.5, .hi = 2};
    assert_int_equal(gen_spec_check(&g, DT_I32, 1, err, sizeof err), -1);
    g = (struct gen_spec){.dist = GEN_INT_UNIFORM, .lo = 0, .hi = 3e9};
    assert_int_equal(gen_spec_check(&g, DT_I32, 1, err, sizeof err), -1);
    g = (struct gen_spec){.dist = GEN_UNIFORM, .lo = 2, .hi = 1};
    assert_int_equal(gen_spec_check(&g, DT_F32, 1, err, sizeof err), -1);
    g = (struct gen_spec){.dist = GEN_UNIFORM, .lo = -1e308, .hi = 1e308};
    assert_int_equal(gen_spec_check(&g, DT_F32, 1, err, sizeof err), -1);

    shape[0] = 0; /* empty or negative extents are refused */
    g = (struct gen_spec){.dist = GEN_NORMAL, .std = 1};
    assert_int_equal(gen_fill(f, DT_F32, shape, 2, &g, 0, 0), -1);
    assert_string_equal(gen_dist_name(GEN_INT_UNIFORM), "int_uniform");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_reference),
        cmocka_unit_test(test_stream_golden),
        cmocka_unit_test(test_normal_golden),
        cmocka_unit_test(test_uniform_golden),
        cmocka_unit_test(test_bernoulli_and_int_golden),
        cmocka_unit_test(test_streams_are_independent),
        cmocka_unit_test(test_uniform01),
        cmocka_unit_test(test_normal_moments),
        cmocka_unit_test(test_uniform_range),
        cmocka_unit_test(test_bernoulli_rate),
        cmocka_unit_test(test_keep_row_open),
        cmocka_unit_test(test_int_uniform_inclusive),
        cmocka_unit_test(test_causal),
        cmocka_unit_test(test_spec_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
