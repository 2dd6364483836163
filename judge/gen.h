/*
 * gen — the portable, seeded test-data generator.
 *
 * A seed gives identical bytes on every machine: only integer arithmetic and
 * correctly rounded IEEE + and * are used (docs/problem-format.md).
 */
#ifndef ATTNJUDGE_GEN_H
#define ATTNJUDGE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/tensor.h"

enum gen_dist {
    GEN_NORMAL,
    GEN_UNIFORM,
    GEN_BERNOULLI,
    GEN_INT_UNIFORM,
    GEN_CAUSAL,
    /* the adversarial families (judge/gen_family.c) */
    GEN_DOMINANT,
    GEN_CONSTANT_ROWS,
    GEN_ONE_OPEN,
};

/* Where a family puts its one special element in a row (the last axis):
 * column 0, C - 1, C / 2 (integer division), or one drawn per row. */
enum gen_at { GEN_AT_RANDOM, GEN_AT_FIRST, GEN_AT_LAST, GEN_AT_MIDDLE };

/* How one input tensor's values are drawn (docs/problem-format.md). */
struct gen_spec {
    enum gen_dist dist;
    double mean, std;   /* normal */
    double lo, hi;      /* uniform; int_uniform (inclusive, integral) */
    double p;           /* bernoulli */
    bool keep_row_open; /* bernoulli: no row of the last axis all ones */
    enum gen_at at;     /* dominant, one_open */
    double excess;      /* dominant: above the row's largest base value */
};

struct gen_rng {
    uint64_t s[4];
};

/* splitmix64 step: returns the next value and advances *state. */
uint64_t gen_splitmix64(uint64_t *state);

/* Seeds the stream of the tensor at param_index for test_seed. */
void gen_rng_seed(struct gen_rng *r, uint64_t test_seed, int param_index);

/* Next raw 64-bit output (xoshiro256**). */
uint64_t gen_next(struct gen_rng *r);

/* Uniform in [0, 1) with 24 random bits (exact in binary32). */
double gen_uniform01(struct gen_rng *r);

/* One normal draw (twelve 24-bit outputs, docs/problem-format.md) as
 * (float)(mean + std * z), unfused. */
float gen_normal(struct gen_rng *r, double mean, double std);

/* Checks that spec can fill a tensor of dtype and rank (normal, uniform,
 * dominant, constant_rows: f32; bernoulli, causal, one_open: u8, causal of
 * rank >= 2; int_uniform: i32) and
 * that its parameters are sane (std >= 0, lo <= hi, 0 <= p <= 1, int_uniform
 * bounds integral and within int32). Returns 0, or -1 with a message such as
 * "'causal' needs a u8 tensor of rank >= 2" in err. */
int gen_spec_check(const struct gen_spec *spec, enum tensor_dtype dtype, int rank, char *err,
                   size_t errlen);

/* "normal", "uniform", "bernoulli", "int_uniform", "causal", "dominant",
 * "constant_rows", "one_open". */
const char *gen_dist_name(enum gen_dist dist);

/* The inverse of gen_dist_name: sets *dist and returns 0, or -1 for an
 * unknown name. */
int gen_dist_from_name(const char *name, enum gen_dist *dist);

/* "random", "first", "last", "middle"; and the inverse (0, or -1 for an
 * unknown name). */
const char *gen_at_name(enum gen_at at);
int gen_at_from_name(const char *name, enum gen_at *at);

/* The adversarial families (judge/gen_family.c): dominant, constant_rows
 * and one_open work row by row over the last axis of their tensor, with
 * gen.c's portability rule:
 *   dominant       f32: normal(mean, std) values; in every row one element,
 *                  at `at`, becomes the row's largest value + excess
 *   constant_rows  f32: every row is one normal(mean, std) value repeated
 *   one_open       u8: every row all 1 (blocked) but one 0 at `at` */

/* The default excess of `dominant`: beyond the about 88 at which expf
 * overflows, so that a maximum that misses the dominant element shows. */
#define GEN_DOMINANT_EXCESS 200.0

/* Checks a family's spec against the tensor's dtype (dominant and
 * constant_rows: f32; one_open: u8) and its parameters (finite mean,
 * std >= 0, finite excess >= 0). Returns 0, or -1 with a message in err
 * (may be NULL). */
int gen_family_check(const struct gen_spec *spec, enum tensor_dtype dtype, char *err,
                     size_t errlen);

/* Fills n elements (rows of cols, the last axis) of a family from r, the
 * tensor's stream. spec must have passed gen_family_check. */
void gen_family_fill(void *buf, int64_t n, int64_t cols, const struct gen_spec *spec,
                     struct gen_rng *r);

/* Fills buf (n elements of dtype, shape/rank for row-aware generators) from
 * spec, using the stream of (test_seed, param_index). Returns 0, or -1 if
 * the spec does not fit the dtype (e.g. causal on a rank-1 tensor). */
int gen_fill(void *buf, enum tensor_dtype dtype, const int64_t *shape, int rank,
             const struct gen_spec *spec, uint64_t test_seed, int param_index);

#endif
