/*
 * gen_family — the adversarial families (declared in gen.h).
 *
 * Draw order, part of the format (docs/problem-format.md): row by row,
 *   dominant       the row's C normal values, then, for at = random, one
 *                  raw output x: the column is x mod C;
 *   constant_rows  one normal value per row;
 *   one_open       for at = random, one raw output x per row (column
 *                  x mod C); no draws otherwise.
 * The dominant value is (float)(m + excess) with m the row's largest base
 * value (a float, exact in double): one correctly rounded double addition.
 */
#include "judge/gen.h"

#include <math.h>
#include <string.h>

#include "judge/errbuf.h"

int gen_family_check(const struct gen_spec *spec, enum tensor_dtype dtype, char *err, size_t errlen)
{
    const char *name = gen_dist_name(spec->dist);
    bool wants_f32 = spec->dist != GEN_ONE_OPEN;

    if (dtype != (wants_f32 ? DT_F32 : DT_U8)) {
        errbuf_set(err, errlen,
                   "'%s' cannot fill a %s tensor (dominant, constant_rows: f32; "
                   "one_open: u8)",
                   name, tensor_dtype_name(dtype));
        return -1;
    }
    if (wants_f32 && (!isfinite(spec->mean) || !isfinite(spec->std) || spec->std < 0)) {
        errbuf_set(err, errlen, "'%s' needs a finite mean and a finite std >= 0", name);
        return -1;
    }
    if (spec->dist == GEN_DOMINANT && !(isfinite(spec->excess) && spec->excess >= 0)) {
        errbuf_set(err, errlen, "'dominant' needs a finite excess >= 0");
        return -1;
    }
    return 0;
}

/* The special column of a row of cols elements; draws for GEN_AT_RANDOM. */
static int64_t column_at(enum gen_at at, int64_t cols, struct gen_rng *r)
{
    switch (at) {
    case GEN_AT_FIRST: return 0;
    case GEN_AT_LAST: return cols - 1;
    case GEN_AT_MIDDLE: return cols / 2;
    case GEN_AT_RANDOM: break;
    }
    return (int64_t)(gen_next(r) % (uint64_t)cols);
}

static void fill_dominant(float *out, int64_t n, int64_t cols, const struct gen_spec *spec,
                          struct gen_rng *r)
{
    for (int64_t row = 0; row < n; row += cols) {
        float top = -INFINITY;

        for (int64_t c = 0; c < cols; c++) {
            out[row + c] = gen_normal(r, spec->mean, spec->std);
            if (out[row + c] > top)
                top = out[row + c];
        }
        out[row + column_at(spec->at, cols, r)] = (float)((double)top + spec->excess);
    }
}

static void fill_constant_rows(float *out, int64_t n, int64_t cols, const struct gen_spec *spec,
                               struct gen_rng *r)
{
    for (int64_t row = 0; row < n; row += cols) {
        float v = gen_normal(r, spec->mean, spec->std);

        for (int64_t c = 0; c < cols; c++)
            out[row + c] = v;
    }
}

static void fill_one_open(unsigned char *out, int64_t n, int64_t cols, const struct gen_spec *spec,
                          struct gen_rng *r)
{
    for (int64_t row = 0; row < n; row += cols) {
        memset(out + row, 1, (size_t)cols);
        out[row + column_at(spec->at, cols, r)] = 0;
    }
}

void gen_family_fill(void *buf, int64_t n, int64_t cols, const struct gen_spec *spec,
                     struct gen_rng *r)
{
    switch (spec->dist) {
    case GEN_DOMINANT: fill_dominant(buf, n, cols, spec, r); break;
    case GEN_CONSTANT_ROWS: fill_constant_rows(buf, n, cols, spec, r); break;
    case GEN_ONE_OPEN: fill_one_open(buf, n, cols, spec, r); break;
    default: break;
    }
}
