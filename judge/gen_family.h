/*
 * gen_family — the adversarial generator families: inputs shaped to expose
 * the mistakes that random data rarely reveals (docs/problem-format.md,
 * "Adversarial families"). Each works row by row over the last axis of its
 * tensor and keeps gen.c's portability rule: integer operations and
 * correctly rounded IEEE + and * only, so a seed gives the same bytes on
 * every machine.
 *
 *   dominant       f32: normal(mean, std) values; in every row one element,
 *                  at `at`, becomes the row's largest value + excess
 *   constant_rows  f32: every row is one normal(mean, std) value repeated
 *   one_open       u8: every row all 1 (blocked) but one 0 at `at`
 */
#ifndef ATTNJUDGE_GEN_FAMILY_H
#define ATTNJUDGE_GEN_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "judge/gen.h"

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

#endif
