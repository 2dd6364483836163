/*
 * compare — element-wise comparison of an output tensor with the expected one.
 *
 * Pass iff |got - expected| <= atol' + rtol * |expected| for every element,
 * where atol' = atol, or atol * max|expected| when atol_relative_to_max.
 * A non-finite got fails unless it equals a non-finite expected exactly
 * (same infinity; NaN never matches). Written so that NaN cannot pass: the
 * test is "within", never "not outside".
 */
#ifndef ATTNJUDGE_COMPARE_H
#define ATTNJUDGE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/tensor.h"

#define COMPARE_MAX_SHOWN 8
#define COMPARE_FIRST_NONFINITE 3 /* coordinates kept per non-finite kind */

/* What a non-finite f32 output element is, where the expected one is
 * finite: told apart by its bits, because a student acts differently on
 * each (judge/explain.c words them). */
enum compare_nonfinite {
    /* exactly the harness's fill pattern (0xFFFFFFFF, judge/harness_rt.c):
     * the element was never written, or copied from memory never written
     * (malloc'd memory starts with the same bytes) */
    CMP_NAN_UNWRITTEN,
    CMP_NAN_COMPUTED, /* any other NaN: 0/0, inf - inf, ... */
    CMP_POS_INF,
    CMP_NEG_INF,
    CMP_NONFINITE_KINDS,
    CMP_FINITE = -1, /* not one of the above */
};

/* A problem's tolerance (docs/problem-format.md). */
struct compare_tolerance {
    double atol, rtol;
    bool atol_relative_to_max; /* atol *= max |expected| of the tensor */
};

struct mismatch {
    int64_t index;                  /* flat element index */
    int64_t coord[TENSOR_MAX_RANK]; /* the same, in tensor coordinates */
    double expected, got;
    int kind; /* enum compare_nonfinite of got, CMP_FINITE when it is finite
                 or the expected value is not */
};

struct compare_result {
    bool pass;
    int64_t n_elems;
    int64_t n_mismatch;  /* elements outside tolerance (incl. non-finite) */
    int64_t n_nonfinite; /* got is NaN or infinite where expected is finite */
    /* n_nonfinite by kind (f32 only), and the flat indices of the first
     * COMPARE_FIRST_NONFINITE of each kind, in flat order */
    int64_t n_kind[CMP_NONFINITE_KINDS];
    int n_first[CMP_NONFINITE_KINDS];
    int64_t first[CMP_NONFINITE_KINDS][COMPARE_FIRST_NONFINITE];
    int64_t n_finite;   /* elements where both values are finite: the ones the
                         error statistics below are taken over */
    double max_abs_err; /* over finite elements */
    double max_rel_err; /* |got-exp| / max(|exp|, tiny), finite elements */
    double atol_effective;
    double worst_ratio; /* max |got-exp| / (atol' + rtol*|exp|) over finite
                           elements: < 1 passes; 1/worst_ratio is the
                           margin recorded by tolerance calibration */
    int n_shown;        /* first mismatches in flat order */
    struct mismatch shown[COMPARE_MAX_SHOWN];
};

/* Compares n elements of dtype (f32 compared as above; u8/i32 exactly).
 * shape/rank are used only to turn flat indices into coordinates. */
void compare_tensor(const void *expected, const void *got, enum tensor_dtype dtype,
                    const int64_t *shape, int rank, const struct compare_tolerance *tol,
                    struct compare_result *res);

/* The kind of a non-finite f32 value (its bits decide), or CMP_FINITE. */
enum compare_nonfinite compare_classify_f32(float v);

/* "nan_unwritten", "nan_computed", "pos_inf", "neg_inf": the kinds' names
 * in reports (docs/api.md); NULL for anything else. */
const char *compare_nonfinite_name(enum compare_nonfinite k);

/* Turns a flat index into coordinates of shape (rank dimensions). */
void compare_index_coord(int64_t index, const int64_t *shape, int rank,
                         int64_t coord[TENSOR_MAX_RANK]);

/* Formats coordinates as "out[1, 5, 17]" into buf. */
void compare_format_coord(const char *name, const int64_t *coord, int rank, char *buf, size_t len);

#endif
