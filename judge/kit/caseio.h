/*
 * caseio — reads and writes the files of an attnjudge sample case, and
 * compares outputs the way the judge does.
 *
 * Shipped unchanged in every sample archive (GET /api/problems/{slug}/samples)
 * next to the generated main.c, which uses it. Plain C with libc and libm
 * only, so that it builds anywhere gcc does.
 *
 * A case is a directory:
 *   case.json            {"problem", "dims": {name: value}, "seed", "test",
 *                         "scalars": {name: value} (float/double parameters)}
 *   inputs/<param>.npy   every input tensor, in or inout (none for a NULL one)
 *   expected/<param>.npy every output, out or inout, as the reference computed
 *                        it (an inout tensor's value after the call)
 *   got/<param>.npy      written here: your outputs
 */
#ifndef CASEIO_H
#define CASEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CASEIO_MAX_RANK 8

/* Element types, as in problem.json: f32 ("<f4"), u8 ("|u1"), i32 ("<i4"). */
enum caseio_dtype { CASEIO_F32, CASEIO_U8, CASEIO_I32 };

/* One tensor. data is NULL for a NULL tensor (an absent nullable input). */
struct caseio_array {
    enum caseio_dtype dtype;
    int rank;
    int64_t shape[CASEIO_MAX_RANK];
    int64_t n_elems;
    void *data; /* malloc'd; caseio_free */
};

/* The problem's tolerance: |got - expected| <= atol' + rtol * |expected|,
 * atol' = atol, or atol * max|expected| when atol_relative_to_max. */
struct caseio_tolerance {
    double atol, rtol;
    bool atol_relative_to_max;
};

/* Reads <dir>/inputs/<name>.npy. A nullable input whose file is absent is
 * NULL in this case (a->data stays NULL). Returns 0, or -1 after printing
 * why on stderr. */
int caseio_load_input(const char *dir, const char *name, enum caseio_dtype dtype, bool nullable,
                      struct caseio_array *a);

/* Reads <dir>/expected/<name>.npy into want and allocates got with its
 * shape, filled with 0xFF bytes (a NaN for floats), as the judge's harness
 * does: an element the function never writes stays NaN. 0 or -1. */
int caseio_load_output(const char *dir, const char *name, enum caseio_dtype dtype,
                       struct caseio_array *want, struct caseio_array *got);

/* An in-place (inout) tensor: reads <dir>/expected/<name>.npy into want and
 * <dir>/inputs/<name>.npy, its value before the call, into got. 0 or -1. */
int caseio_load_inout(const char *dir, const char *name, enum caseio_dtype dtype,
                      struct caseio_array *want, struct caseio_array *got);

/* Reads dims.<name> of <dir>/case.json into *v. 0 or -1. */
int caseio_load_int(const char *dir, const char *name, int64_t *v);

/* Reads scalars.<name> of <dir>/case.json (a float or double parameter)
 * into *v. 0 or -1. */
int caseio_load_scalar(const char *dir, const char *name, double *v);

/* Compares got with want as the judge does (floats within tol, NaN and
 * infinities never within; u8 and i32 exactly), prints the result as lines
 * "<test>: <name>: match ..." or "... MISMATCH ..." with the first
 * mismatching elements in tensor coordinates, and writes got to
 * <dir>/got/<name>.npy. Returns 0 on a match, 1 on a mismatch, -1 on an
 * error. */
int caseio_check(const char *dir, const char *test, const char *name,
                 const struct caseio_array *want, const struct caseio_array *got,
                 const struct caseio_tolerance *tol);

void caseio_free(struct caseio_array *a);

#endif
