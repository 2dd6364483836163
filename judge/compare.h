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

/* A problem's tolerance (docs/problem-format.md). */
struct compare_tolerance {
    double atol, rtol;
    bool atol_relative_to_max; /* atol *= max |expected| of the tensor */
};

struct mismatch {
    int64_t index;                  /* flat element index */
    int64_t coord[TENSOR_MAX_RANK]; /* the same, in tensor coordinates */
    double expected, got;
};

struct compare_result {
    bool pass;
    int64_t n_elems;
    int64_t n_mismatch;  /* elements outside tolerance (incl. non-finite) */
    int64_t n_nonfinite; /* got is NaN or infinite where expected is finite */
    double max_abs_err;  /* over finite elements */
    double max_rel_err;  /* |got-exp| / max(|exp|, tiny), finite elements */
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

/* Formats coordinates as "out[1, 5, 17]" into buf. */
void compare_format_coord(const char *name, const int64_t *coord, int rank, char *buf, size_t len);

#endif
