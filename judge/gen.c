/*
 * gen — the portable, seeded test-data generator.
 *
 * Theory of operation. Test inputs are never stored: the judge, `attnjudge
 * export` and anyone re-implementing docs/problem-format.md regenerate them
 * from (test seed, parameter index, generator spec). So the bytes must be the
 * same on every machine and compiler:
 *
 *   - Each input tensor has its own stream, seeded as
 *       stream_seed = splitmix64(test_seed ^ splitmix64(param_index + 1))
 *     where splitmix64(x) is the output of one splitmix64 step from state x.
 *     xoshiro256** is then seeded with four successive splitmix64 outputs of
 *     stream_seed (never all zero: splitmix64 is a bijection of its state).
 *   - A uniform u is the top 24 bits of one xoshiro256** output times 2^-24,
 *     exact in binary32 and in double.
 *   - normal: z = (k1 + ... + k12 - 6 * 2^24) * 2^-24 with k the 24-bit
 *     integers (an Irwin–Hall(12) approximation of N(0, 1), exact in double),
 *     value = (float)(mean + std * z).
 *   - uniform: (float)(lo + (hi - lo) * u).
 *   - bernoulli: 1 if u < p, else 0, one draw per element in row-major order.
 *     With keep_row_open, a row of the last axis that came out all ones draws
 *     one more output x right after its last element and sets column
 *     x % C to 0 (C the row length), so no query row is fully masked.
 *   - int_uniform: lo + (x % (hi - lo + 1)) for one output x per element.
 *   - causal: 1 where column > row over the last two axes, 0 elsewhere, for
 *     every leading index; no random draws.
 *   - dominant, constant_rows, one_open: the adversarial families, built
 *     from the same draws (judge/gen_family.c).
 *
 * Only integer operations and correctly rounded IEEE double additions and
 * multiplications are used; no libm. The one trap is fused multiply-add:
 * GCC contracts "a + b * c" into one FMA on targets that have it (aarch64,
 * x86 with -mfma), which rounds once instead of twice and changes the last
 * bit. mul_add() below forces the product through a volatile double.
 *
 * No state outside the caller's struct gen_rng: safe from many threads.
 */
#include "judge/gen.h"
#include "judge/errbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

uint64_t gen_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* splitmix64 as a function of a value: one step from state x. */
static uint64_t splitmix64_of(uint64_t x)
{
    return gen_splitmix64(&x);
}

void gen_rng_seed(struct gen_rng *r, uint64_t test_seed, int param_index)
{
    uint64_t state = splitmix64_of(test_seed ^ splitmix64_of((uint64_t)param_index + 1));

    for (int i = 0; i < 4; i++)
        r->s[i] = gen_splitmix64(&state);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t gen_next(struct gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* The top 24 bits of the next output, as an integer in [0, 2^24). */
static uint64_t next24(struct gen_rng *r)
{
    return gen_next(r) >> 40;
}

double gen_uniform01(struct gen_rng *r)
{
    return (double)next24(r) * 0x1p-24;
}

/* a + b * c with two roundings on every target: the volatile store keeps the
 * compiler from fusing the two into one FMA (see the top of the file). */
static double mul_add(double a, double b, double c)
{
    volatile double product = b * c;

    return a + product;
}

const char *gen_dist_name(enum gen_dist dist)
{
    switch (dist) {
    case GEN_NORMAL: return "normal";
    case GEN_UNIFORM: return "uniform";
    case GEN_BERNOULLI: return "bernoulli";
    case GEN_INT_UNIFORM: return "int_uniform";
    case GEN_CAUSAL: return "causal";
    case GEN_DOMINANT: return "dominant";
    case GEN_CONSTANT_ROWS: return "constant_rows";
    case GEN_ONE_OPEN: return "one_open";
    }
    return "?";
}

const char *gen_at_name(enum gen_at at)
{
    switch (at) {
    case GEN_AT_RANDOM: return "random";
    case GEN_AT_FIRST: return "first";
    case GEN_AT_LAST: return "last";
    case GEN_AT_MIDDLE: return "middle";
    }
    return "?";
}

int gen_at_from_name(const char *name, enum gen_at *at)
{
    static const enum gen_at all[] = {GEN_AT_RANDOM, GEN_AT_FIRST, GEN_AT_LAST, GEN_AT_MIDDLE};

    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, gen_at_name(all[i])) == 0) {
            *at = all[i];
            return 0;
        }
    }
    return -1;
}

int gen_dist_from_name(const char *name, enum gen_dist *dist)
{
    static const enum gen_dist all[] = {GEN_NORMAL,        GEN_UNIFORM, GEN_BERNOULLI,
                                        GEN_INT_UNIFORM,   GEN_CAUSAL,  GEN_DOMINANT,
                                        GEN_CONSTANT_ROWS, GEN_ONE_OPEN};

    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, gen_dist_name(all[i])) == 0) {
            *dist = all[i];
            return 0;
        }
    }
    return -1;
}

int gen_spec_check(const struct gen_spec *spec, enum tensor_dtype dtype, int rank, char *err,
                   size_t errlen)
{
    const char *name = gen_dist_name(spec->dist);

    switch (spec->dist) {
    case GEN_NORMAL:
        if (dtype != DT_F32)
            goto wrong_dtype;
        if (!isfinite(spec->mean) || !isfinite(spec->std) || spec->std < 0) {
            errbuf_set(err, errlen, "'normal' needs a finite mean and a finite std >= 0");
            return -1;
        }
        return 0;
    case GEN_UNIFORM:
        if (dtype != DT_F32)
            goto wrong_dtype;
        /* hi - lo must be finite too, or lo + (hi - lo) * u is not. */
        if (!isfinite(spec->lo) || !isfinite(spec->hi) || !(spec->lo <= spec->hi) ||
            !isfinite(spec->hi - spec->lo)) {
            errbuf_set(err, errlen, "'uniform' needs finite lo <= hi");
            return -1;
        }
        return 0;
    case GEN_BERNOULLI:
        if (dtype != DT_U8)
            goto wrong_dtype;
        if (!(spec->p >= 0 && spec->p <= 1)) {
            errbuf_set(err, errlen, "'bernoulli' needs 0 <= p <= 1");
            return -1;
        }
        return 0;
    case GEN_INT_UNIFORM:
        if (dtype != DT_I32)
            goto wrong_dtype;
        if (!(spec->lo >= INT32_MIN && spec->hi <= INT32_MAX && spec->lo <= spec->hi) ||
            spec->lo != (double)(int64_t)spec->lo || spec->hi != (double)(int64_t)spec->hi) {
            errbuf_set(err, errlen, "'int_uniform' needs integers lo <= hi within int32");
            return -1;
        }
        return 0;
    case GEN_CAUSAL:
        if (dtype != DT_U8 || rank < 2) {
            errbuf_set(err, errlen, "'causal' needs a u8 tensor of rank >= 2");
            return -1;
        }
        return 0;
    case GEN_DOMINANT:
    case GEN_CONSTANT_ROWS:
    case GEN_ONE_OPEN: return gen_family_check(spec, dtype, err, errlen);
    }
    errbuf_set(err, errlen, "unknown distribution");
    return -1;

wrong_dtype:
    errbuf_set(err, errlen,
               "'%s' cannot fill a %s tensor (normal, uniform: f32; bernoulli, "
               "causal: u8; int_uniform: i32)",
               name, tensor_dtype_name(dtype));
    return -1;
}

float gen_normal(struct gen_rng *r, double mean, double std)
{
    int64_t sum = 0;

    for (int k = 0; k < 12; k++)
        sum += (int64_t)next24(r);
    /* |sum - 6*2^24| < 2^27: the conversion and the scaling are exact. */
    double z = (double)(sum - INT64_C(6) * (INT64_C(1) << 24)) * 0x1p-24;
    return (float)mul_add(mean, std, z);
}

static void fill_normal(float *out, int64_t n, const struct gen_spec *spec, struct gen_rng *r)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = gen_normal(r, spec->mean, spec->std);
}

static void fill_uniform(float *out, int64_t n, const struct gen_spec *spec, struct gen_rng *r)
{
    double span = spec->hi - spec->lo;

    for (int64_t i = 0; i < n; i++)
        out[i] = (float)mul_add(spec->lo, span, gen_uniform01(r));
}

static void fill_bernoulli(unsigned char *out, int64_t n, int64_t cols, const struct gen_spec *spec,
                           struct gen_rng *r)
{
    for (int64_t row = 0; row < n; row += cols) {
        bool all_ones = true;

        for (int64_t c = 0; c < cols; c++) {
            out[row + c] = gen_uniform01(r) < spec->p;
            all_ones = all_ones && out[row + c];
        }
        if (spec->keep_row_open && all_ones)
            out[row + (int64_t)(gen_next(r) % (uint64_t)cols)] = 0;
    }
}

static void fill_int_uniform(int32_t *out, int64_t n, const struct gen_spec *spec,
                             struct gen_rng *r)
{
    int64_t lo = (int64_t)spec->lo;
    uint64_t range = (uint64_t)((int64_t)spec->hi - lo) + 1; /* <= 2^32 */

    for (int64_t i = 0; i < n; i++)
        out[i] = (int32_t)(lo + (int64_t)(gen_next(r) % range));
}

static void fill_causal(unsigned char *out, int64_t n, int64_t rows, int64_t cols)
{
    for (int64_t base = 0; base < n; base += rows * cols)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                out[base + i * cols + j] = j > i;
}

int gen_fill(void *buf, enum tensor_dtype dtype, const int64_t *shape, int rank,
             const struct gen_spec *spec, uint64_t test_seed, int param_index)
{
    struct gen_rng rng;
    int64_t n = 1;

    if (rank < 0 || rank > TENSOR_MAX_RANK || gen_spec_check(spec, dtype, rank, NULL, 0) != 0)
        return -1;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 1 || __builtin_mul_overflow(n, shape[i], &n))
            return -1;

    gen_rng_seed(&rng, test_seed, param_index);
    switch (spec->dist) {
    case GEN_NORMAL: fill_normal(buf, n, spec, &rng); break;
    case GEN_UNIFORM: fill_uniform(buf, n, spec, &rng); break;
    case GEN_BERNOULLI:
        /* A rank-0 tensor is one row of one element. */
        fill_bernoulli(buf, n, rank ? shape[rank - 1] : 1, spec, &rng);
        break;
    case GEN_INT_UNIFORM: fill_int_uniform(buf, n, spec, &rng); break;
    case GEN_CAUSAL: fill_causal(buf, n, shape[rank - 2], shape[rank - 1]); break;
    case GEN_DOMINANT:
    case GEN_CONSTANT_ROWS:
    case GEN_ONE_OPEN: gen_family_fill(buf, n, rank ? shape[rank - 1] : 1, spec, &rng); break;
    }
    return 0;
}
