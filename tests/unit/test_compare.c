/*
 * Unit tests of judge/compare: the tolerance boundary, NaN and infinity
 * handling (a NaN must never pass), atol relative to the largest expected
 * value, exact integer comparison, the coordinates shown to students, and
 * the classification of non-finite outputs by their bits (never written vs
 * computed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>

#include "judge/compare.h"

static const struct compare_tolerance tol_plain = {.atol = 1e-3, .rtol = 1e-2};

static void cmp_f32(const float *e, const float *g, int64_t n, const struct compare_tolerance *tol,
                    struct compare_result *res)
{
    int64_t shape[1] = {n};

    compare_tensor(e, g, DT_F32, shape, 1, tol, res);
}

static void test_identical_passes(void **state)
{
    float e[4] = {1, -2, 0, 1e30f};
    struct compare_result res;

    (void)state;
    cmp_f32(e, e, 4, &tol_plain, &res);
    assert_true(res.pass);
    assert_int_equal(res.n_elems, 4);
    assert_int_equal(res.n_mismatch, 0);
    assert_int_equal(res.n_shown, 0);
    assert_true(res.max_abs_err == 0);
    assert_true(res.worst_ratio == 0);
}

static void test_tolerance_boundary(void **state)
{
    /* Bound for expected 2: 1e-3 + 1e-2 * 2 = 0.021. 2.0205f and 2.0215f are
     * within 1e-7 of their decimal values, far from the bound on either
     * side. */
    float e[2] = {2, -2};
    float in[2] = {2.0205f, -2.0205f};
    float out[2] = {2.0215f, -1.9785f};
    struct compare_result res;

    (void)state;
    cmp_f32(e, in, 2, &tol_plain, &res);
    assert_true(res.pass);
    assert_true(res.worst_ratio < 1 && res.worst_ratio > 0.97);
    assert_true(fabs(res.max_abs_err - 0.0205) < 1e-6);

    cmp_f32(e, out, 2, &tol_plain, &res);
    assert_false(res.pass);
    assert_int_equal(res.n_mismatch, 2);
    assert_int_equal(res.n_nonfinite, 0);
    assert_true(res.worst_ratio > 1);
    assert_int_equal(res.n_shown, 2);
    assert_int_equal(res.shown[1].index, 1);
    assert_true(res.shown[1].expected == -2);
    assert_true(res.shown[1].got == (double)-1.9785f);

    /* Exactly on the bound passes (<=): atol 0.5, rtol 0, diff 0.5. */
    {
        struct compare_tolerance t = {.atol = 0.5, .rtol = 0};
        float e1[1] = {1}, g1[1] = {1.5f};

        cmp_f32(e1, g1, 1, &t, &res);
        assert_true(res.pass);
        assert_true(res.worst_ratio == 1.0);
    }
}

static void test_nan_never_passes(void **state)
{
    float e[3] = {1, 2, 3};
    float g[3] = {1, NAN, 3};
    struct compare_tolerance huge = {.atol = 1e30, .rtol = 1e30};
    struct compare_result res;

    (void)state;
    cmp_f32(e, g, 3, &huge, &res);
    assert_false(res.pass);
    assert_int_equal(res.n_mismatch, 1);
    assert_int_equal(res.n_nonfinite, 1);
    assert_int_equal(res.shown[0].index, 1);
    assert_true(isnan(res.shown[0].got));

    /* A NaN expected (a broken reference) does not match a NaN either. */
    e[1] = NAN;
    cmp_f32(e, g, 3, &huge, &res);
    assert_false(res.pass);

    /* -NaN and every NaN payload: compare on bits. */
    {
        uint32_t bits = 0xffc00001;
        float weird;

        memcpy(&weird, &bits, sizeof weird);
        e[1] = 2;
        g[1] = weird;
        cmp_f32(e, g, 3, &huge, &res);
        assert_false(res.pass);
    }
}

static void test_inf_fails(void **state)
{
    float e[2] = {1, 2};
    float g[2] = {INFINITY, 2};
    struct compare_tolerance huge = {.atol = 1e30, .rtol = 1e30};
    struct compare_result res;

    (void)state;
    cmp_f32(e, g, 2, &huge, &res);
    assert_false(res.pass);
    assert_int_equal(res.n_nonfinite, 1);

    g[0] = -INFINITY;
    cmp_f32(e, g, 2, &huge, &res);
    assert_false(res.pass);

    /* The same infinity where the reference is infinite matches; the other
     * one does not. */
    e[0] = INFINITY;
    g[0] = INFINITY;
    cmp_f32(e, g, 2, &tol_plain, &res);
    assert_true(res.pass);
    g[0] = -INFINITY;
    cmp_f32(e, g, 2, &tol_plain, &res);
    assert_false(res.pass);
    assert_int_equal(res.n_nonfinite, 0); /* expected was not finite */
    g[0] = FLT_MAX;
    cmp_f32(e, g, 2, &huge, &res);
    assert_false(res.pass);
}

static void test_atol_relative_to_max(void **state)
{
    /* Large-magnitude outputs: the error on the small element is 0.5, fine
     * relative to the tensor's max (1000 * 1e-3 = 1), not in absolute terms. */
    float e[3] = {1000, -2000, 0.25f};
    float g[3] = {1000, -2000, 0.75f};
    struct compare_tolerance abs_tol = {.atol = 1e-3, .rtol = 0};
    struct compare_tolerance rel_tol = {.atol = 1e-3, .rtol = 0, .atol_relative_to_max = true};
    struct compare_result res;

    (void)state;
    cmp_f32(e, g, 3, &abs_tol, &res);
    assert_false(res.pass);
    assert_true(res.atol_effective == 1e-3);

    cmp_f32(e, g, 3, &rel_tol, &res);
    assert_true(res.pass);
    assert_true(fabs(res.atol_effective - 2.0) < 1e-12); /* 1e-3 * 2000 */
    assert_true(fabs(res.worst_ratio - 0.25) < 1e-9);

    /* The max ignores non-finite expected values. */
    e[0] = INFINITY;
    g[0] = INFINITY;
    cmp_f32(e, g, 3, &rel_tol, &res);
    assert_true(fabs(res.atol_effective - 2.0) < 1e-12);
}

static void test_integers_exact(void **state)
{
    unsigned char eu[4] = {0, 1, 1, 0}, gu[4] = {0, 1, 0, 0};
    int32_t ei[3] = {-5, 7, 100000}, gi[3] = {-5, 7, 100000};
    int64_t shape4[2] = {2, 2}, shape3[1] = {3};
    struct compare_tolerance loose = {.atol = 10, .rtol = 10};
    struct compare_result res;

    (void)state;
    compare_tensor(eu, gu, DT_U8, shape4, 2, &loose, &res);
    assert_false(res.pass); /* tolerance does not apply to bytes */
    assert_int_equal(res.n_mismatch, 1);
    assert_int_equal(res.shown[0].coord[0], 1);
    assert_int_equal(res.shown[0].coord[1], 0);

    compare_tensor(ei, gi, DT_I32, shape3, 1, &loose, &res);
    assert_true(res.pass);
    gi[2] = 100001;
    compare_tensor(ei, gi, DT_I32, shape3, 1, &loose, &res);
    assert_false(res.pass);
    assert_true(res.max_abs_err == 1);
}

static void test_coordinates(void **state)
{
    enum { N = 2 * 6 * 20 };
    int64_t shape[3] = {2, 6, 20};
    float e[N], g[N];
    struct compare_result res;
    char buf[64];

    (void)state;
    for (int i = 0; i < N; i++)
        e[i] = g[i] = (float)i;
    /* out[1, 5, 17] is flat index 1*120 + 5*20 + 17 = 237. */
    g[237] += 100;
    compare_tensor(e, g, DT_F32, shape, 3, &tol_plain, &res);
    assert_false(res.pass);
    assert_int_equal(res.shown[0].index, 237);
    compare_format_coord("out", res.shown[0].coord, 3, buf, sizeof buf);
    assert_string_equal(buf, "out[1, 5, 17]");

    compare_format_coord("x", res.shown[0].coord, 1, buf, sizeof buf);
    assert_string_equal(buf, "x[1]");
    /* Truncation stays NUL-terminated within the buffer. */
    compare_format_coord("out", res.shown[0].coord, 3, buf, 8);
    assert_int_equal(strlen(buf), 7);
}

static void test_shown_is_capped(void **state)
{
    enum { N = 100 };
    int64_t shape[1] = {N};
    float e[N], g[N];
    struct compare_result res;

    (void)state;
    for (int i = 0; i < N; i++) {
        e[i] = 0;
        g[i] = (float)(i + 1);
    }
    compare_tensor(e, g, DT_F32, shape, 1, &tol_plain, &res);
    assert_int_equal(res.n_mismatch, N);
    assert_int_equal(res.n_shown, COMPARE_MAX_SHOWN);
    for (int i = 0; i < COMPARE_MAX_SHOWN; i++)
        assert_int_equal(res.shown[i].index, i); /* first ones, in order */
    assert_true(res.max_abs_err == N);
    assert_true(res.max_rel_err > 1e30); /* relative to a zero expected */
}

/* A float with the given bits. */
static float from_bits(uint32_t bits)
{
    float f;

    memcpy(&f, &bits, sizeof f);
    return f;
}

static void test_nonfinite_kinds(void **state)
{
    enum { N = 12 };
    int64_t shape[2] = {3, 4};
    float e[N], g[N];
    struct compare_result res;
    volatile float zero = 0;

    (void)state;
    /* the harness's fill pattern is "never written"; every other NaN,
     * whatever its sign or payload, was computed */
    assert_int_equal(compare_classify_f32(from_bits(0xFFFFFFFFu)), CMP_NAN_UNWRITTEN);
    assert_int_equal(compare_classify_f32(from_bits(0xFFC00000u)),
                     CMP_NAN_COMPUTED); /* x86's 0/0 */
    assert_int_equal(compare_classify_f32(from_bits(0x7FC00000u)), CMP_NAN_COMPUTED);
    assert_int_equal(compare_classify_f32(from_bits(0x7FFFFFFFu)), CMP_NAN_COMPUTED);
    assert_int_equal(compare_classify_f32(from_bits(0xFFFFFFFEu)), CMP_NAN_COMPUTED);
    assert_int_equal(compare_classify_f32(zero / zero), CMP_NAN_COMPUTED);
    assert_int_equal(compare_classify_f32(1 / zero), CMP_POS_INF);
    assert_int_equal(compare_classify_f32(-1 / zero), CMP_NEG_INF);
    assert_int_equal(compare_classify_f32(FLT_MAX), CMP_FINITE);
    assert_int_equal(compare_classify_f32(0), CMP_FINITE);
    assert_string_equal(compare_nonfinite_name(CMP_NAN_UNWRITTEN), "nan_unwritten");
    assert_string_equal(compare_nonfinite_name(CMP_NAN_COMPUTED), "nan_computed");
    assert_string_equal(compare_nonfinite_name(CMP_POS_INF), "pos_inf");
    assert_string_equal(compare_nonfinite_name(CMP_NEG_INF), "neg_inf");
    assert_null(compare_nonfinite_name(CMP_FINITE));
    assert_null(compare_nonfinite_name(CMP_NONFINITE_KINDS));

    /* the last row never written, one computed NaN, one +inf, one element
     * off: counted by kind, the first three of a kind kept in flat order */
    for (int i = 0; i < N; i++)
        e[i] = g[i] = (float)i;
    for (int i = 8; i < 12; i++)
        g[i] = from_bits(0xFFFFFFFFu);
    g[1] = zero / zero;
    g[2] = 1 / zero;
    g[3] += 1;
    compare_tensor(e, g, DT_F32, shape, 2, &tol_plain, &res);
    assert_false(res.pass);
    assert_int_equal(res.n_mismatch, 7);
    assert_int_equal(res.n_nonfinite, 6);
    assert_int_equal(res.n_kind[CMP_NAN_UNWRITTEN], 4);
    assert_int_equal(res.n_kind[CMP_NAN_COMPUTED], 1);
    assert_int_equal(res.n_kind[CMP_POS_INF], 1);
    assert_int_equal(res.n_kind[CMP_NEG_INF], 0);
    assert_int_equal(res.n_first[CMP_NAN_UNWRITTEN], COMPARE_FIRST_NONFINITE);
    assert_int_equal(res.first[CMP_NAN_UNWRITTEN][0], 8);
    assert_int_equal(res.first[CMP_NAN_UNWRITTEN][2], 10);
    assert_int_equal(res.first[CMP_NAN_COMPUTED][0], 1);
    assert_int_equal(res.n_finite, 6); /* 0, 3, 4, 5, 6, 7 */
    assert_true(res.max_abs_err == 1); /* element 3, the only finite error */
    /* the mismatches shown carry their kind */
    assert_int_equal(res.shown[0].kind, CMP_NAN_COMPUTED);
    assert_int_equal(res.shown[1].kind, CMP_POS_INF);
    assert_int_equal(res.shown[2].kind, CMP_FINITE);
    assert_int_equal(res.shown[3].kind, CMP_NAN_UNWRITTEN);
    {
        int64_t coord[TENSOR_MAX_RANK];
        char buf[32];

        compare_index_coord(res.first[CMP_NAN_UNWRITTEN][1], shape, 2, coord);
        compare_format_coord("y", coord, 2, buf, sizeof buf);
        assert_string_equal(buf, "y[2, 1]");
    }

    /* all never written: no finite element to take statistics over */
    for (int i = 0; i < N; i++)
        g[i] = from_bits(0xFFFFFFFFu);
    compare_tensor(e, g, DT_F32, shape, 2, &tol_plain, &res);
    assert_int_equal(res.n_finite, 0);
    assert_int_equal(res.n_kind[CMP_NAN_UNWRITTEN], N);

    /* where the reference is not finite, got is not classified */
    e[0] = INFINITY;
    g[0] = from_bits(0xFFFFFFFFu);
    for (int i = 1; i < N; i++)
        g[i] = e[i];
    compare_tensor(e, g, DT_F32, shape, 2, &tol_plain, &res);
    assert_int_equal(res.n_mismatch, 1);
    assert_int_equal(res.n_nonfinite, 0);
    assert_int_equal(res.n_kind[CMP_NAN_UNWRITTEN], 0);
    assert_int_equal(res.shown[0].kind, CMP_FINITE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_passes),     cmocka_unit_test(test_tolerance_boundary),
        cmocka_unit_test(test_nan_never_passes),     cmocka_unit_test(test_inf_fails),
        cmocka_unit_test(test_atol_relative_to_max), cmocka_unit_test(test_integers_exact),
        cmocka_unit_test(test_coordinates),          cmocka_unit_test(test_shown_is_capped),
        cmocka_unit_test(test_nonfinite_kinds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
