/*
 * compare — element-wise comparison of an output tensor with the expected one.
 *
 * Theory of operation. One pass over the tensor decides pass/fail and gathers
 * the statistics shown to students and recorded by tolerance calibration.
 * Floats are widened to double, where |got - expected| and the bound
 * atol' + rtol * |expected| are computed without further rounding trouble.
 *
 * The one rule that matters for a judge: a NaN must never pass. Every test
 * below is written as "element is within tolerance" (a comparison that is
 * false for NaN), never as "element is not outside tolerance". Non-finite
 * expected values (a reference that overflowed) match only the identical
 * infinity, so a broken reference cannot make garbage pass either.
 *
 * u8 and i32 tensors (masks, indices) are compared exactly.
 *
 * A non-finite f32 result is also classified by its bits (a NaN still
 * holding the harness's fill pattern was never written; any other NaN or
 * an infinity was computed), because the advice differs (judge/explain.c).
 */
#include "judge/compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The bits of an f32 output element the program never wrote: the harness
 * fills every output with 0xFF bytes before the call, and its malloc
 * wrappers fill fresh memory the same way (judge/harness_rt.c, DIRTY_BYTE
 * and the memset of outputs in main). Defined again here, not shared,
 * because the runtime is compiled into submissions, not into the judge;
 * a corpus case that leaves part of its output unwritten proves the two
 * agree (tests/cli/run.sh, "NaN never written"). */
#define UNWRITTEN_F32_BITS 0xFFFFFFFFu

/* Stand-in for an infinite ratio (a difference against a zero tolerance):
 * finite, so that the value can be written to JSON, and >= 1 fails. */
#define RATIO_INFINITE DBL_MAX

enum compare_nonfinite compare_classify_f32(float v)
{
    uint32_t bits;

    if (isfinite(v))
        return CMP_FINITE;
    memcpy(&bits, &v, sizeof bits);
    if (isnan(v))
        return bits == UNWRITTEN_F32_BITS ? CMP_NAN_UNWRITTEN : CMP_NAN_COMPUTED;
    return v > 0 ? CMP_POS_INF : CMP_NEG_INF;
}

const char *compare_nonfinite_name(enum compare_nonfinite k)
{
    static const char *const names[CMP_NONFINITE_KINDS] = {
        [CMP_NAN_UNWRITTEN] = "nan_unwritten",
        [CMP_NAN_COMPUTED] = "nan_computed",
        [CMP_POS_INF] = "pos_inf",
        [CMP_NEG_INF] = "neg_inf",
    };
    return (unsigned)k < CMP_NONFINITE_KINDS ? names[k] : NULL;
}

void compare_index_coord(int64_t index, const int64_t *shape, int rank,
                         int64_t coord[TENSOR_MAX_RANK])
{
    memset(coord, 0, sizeof(int64_t) * TENSOR_MAX_RANK);
    for (int k = rank - 1; k >= 0; k--) {
        int64_t extent = shape[k] > 0 ? shape[k] : 1;

        coord[k] = index % extent;
        index /= extent;
    }
}

static void record_mismatch(struct compare_result *res, int64_t index, const int64_t *shape,
                            int rank, double expected, double got, int kind)
{
    struct mismatch *m;

    res->n_mismatch++;
    if (res->n_shown >= COMPARE_MAX_SHOWN)
        return;
    m = &res->shown[res->n_shown++];
    m->index = index;
    memset(m->coord, 0, sizeof m->coord);
    if (shape)
        compare_index_coord(index, shape, rank, m->coord);
    m->expected = expected;
    m->got = got;
    m->kind = kind;
}

/* Accounts one element pair, both widened to double; kind is got's
 * (compare_classify_f32, taken before widening: the bits matter), always
 * CMP_FINITE for u8 and i32, which pass atol = rtol = 0 and so are
 * compared for exact equality. */
static void compare_element(struct compare_result *res, int64_t i, double e, double g, int kind,
                            double atol, double rtol, const int64_t *shape, int rank)
{
    double diff, bound, ratio;

    if (!isfinite(e)) {
        /* Only the same infinity matches; NaN == NaN is false. */
        if (!(g == e))
            record_mismatch(res, i, shape, rank, e, g, CMP_FINITE);
        return;
    }
    if (!isfinite(g)) {
        res->n_nonfinite++;
        if (kind >= 0 && kind < CMP_NONFINITE_KINDS) {
            res->n_kind[kind]++;
            if (res->n_first[kind] < COMPARE_FIRST_NONFINITE)
                res->first[kind][res->n_first[kind]++] = i;
        }
        record_mismatch(res, i, shape, rank, e, g, kind);
        return;
    }
    res->n_finite++;

    diff = fabs(g - e);
    bound = atol + rtol * fabs(e);
    if (diff > res->max_abs_err)
        res->max_abs_err = diff;
    if (diff / fmax(fabs(e), FLT_MIN) > res->max_rel_err)
        res->max_rel_err = diff / fmax(fabs(e), FLT_MIN);
    if (diff == 0)
        ratio = 0;
    else if (bound > 0)
        ratio = fmin(diff / bound, RATIO_INFINITE);
    else
        ratio = RATIO_INFINITE;
    if (ratio > res->worst_ratio)
        res->worst_ratio = ratio;

    if (!(diff <= bound))
        record_mismatch(res, i, shape, rank, e, g, CMP_FINITE);
}

void compare_tensor(const void *expected, const void *got, enum tensor_dtype dtype,
                    const int64_t *shape, int rank, const struct compare_tolerance *tol,
                    struct compare_result *res)
{
    double atol = 0, rtol = 0;
    int64_t n = 1;

    memset(res, 0, sizeof *res);
    for (int k = 0; k < rank; k++)
        n *= shape[k];
    res->n_elems = n;

    if (dtype == DT_F32) {
        const float *e = expected, *g = got;

        atol = tol->atol;
        rtol = tol->rtol;
        if (tol->atol_relative_to_max) {
            double max = 0;

            for (int64_t i = 0; i < n; i++)
                if (isfinite(e[i]) && fabs((double)e[i]) > max)
                    max = fabs((double)e[i]);
            atol *= max;
        }
        res->atol_effective = atol;
        for (int64_t i = 0; i < n; i++)
            compare_element(res, i, e[i], g[i], compare_classify_f32(g[i]), atol, rtol, shape,
                            rank);
    } else if (dtype == DT_U8) {
        const unsigned char *e = expected, *g = got;

        for (int64_t i = 0; i < n; i++)
            compare_element(res, i, e[i], g[i], CMP_FINITE, 0, 0, shape, rank);
    } else {
        const int32_t *e = expected, *g = got;

        for (int64_t i = 0; i < n; i++)
            compare_element(res, i, e[i], g[i], CMP_FINITE, 0, 0, shape, rank);
    }
    res->pass = res->n_mismatch == 0;
}

void compare_format_coord(const char *name, const int64_t *coord, int rank, char *buf, size_t len)
{
    size_t used;
    int n;

    if (!len)
        return;
    n = snprintf(buf, len, "%s[", name);
    if (n < 0 || (size_t)n >= len)
        return;
    used = (size_t)n;
    for (int k = 0; k < rank; k++) {
        n = snprintf(buf + used, len - used, "%s%lld", k ? ", " : "", (long long)coord[k]);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
    snprintf(buf + used, len - used, "]");
}
