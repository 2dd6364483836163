/*
 * dims — a problem's expressions for given dimension arguments: the
 * tensors' shapes, the constraints and the benchmark's work counts.
 *
 * dims is always an array of p->n_dims values, in the order of the
 * problem's int parameters (struct param's dim_index).
 */
#ifndef ATTNJUDGE_DIMS_H
#define ATTNJUDGE_DIMS_H

#include <stddef.h>
#include <stdint.h>

#include "judge/problem.h"

/* Checks that dims fit C ints, satisfy every constraint and give every
 * tensor a positive shape of at most INT32_MAX elements. Returns 0, or -1
 * with the first failure in err. */
int dims_check(const struct problem *p, const int64_t *dims, char *err, size_t errlen);

/* Number of elements of tensor param i for dims; -1 on overflow/invalid. */
int64_t dims_tensor_elems(const struct problem *p, int i, const int64_t *dims);

/* Fills shape[] (rank entries) for tensor param i. Returns rank or -1. */
int dims_tensor_shape(const struct problem *p, int i, const int64_t *dims,
                      int64_t shape[TENSOR_MAX_RANK]);

/* The FLOP and byte counts of one call at dims (a benchmark size's, from
 * the package's "benchmark"). Returns 0, or -1 with err when an
 * expression cannot be evaluated there, flops is negative or bytes is not
 * positive. */
int dims_bench_counts(const struct problem *p, const int64_t *dims, int64_t *flops, int64_t *bytes,
                      char *err, size_t errlen) MUST_CHECK;

#endif
