/*
 * search — the counterexample search (search.h).
 *
 * An input is a candidate: a value for every dimension, a generator per
 * input tensor, which nullable tensors are NULL, and a data seed. Only
 * candidates inside the domain are made: dims within their ranges that
 * satisfy the constraints and keep every tensor within max_elems; an f32
 * tensor listed under "values" drawn so that no value exceeds its max_abs
 * (a normal value lies within mean ± 6·std, the Irwin–Hall bound); a mask
 * listed under "masks" keeps an open key per row when row_open says so;
 * every other tensor keeps the problem's own generator.
 *
 * The order, all drawn from one stream seeded by the search's seed:
 *   1. the families: each family, for every listed tensor (dominant at the
 *      first, last, middle and a random position, constant rows, rows far
 *      below and far above zero, the stated extreme magnitude; a mask with
 *      one open key at each position, dense and sparse masks), at sizes
 *      cycling through all-minimum, small, odd and edge (each dim at its
 *      minimum, minimum + 1 or maximum);
 *   2. then, alternately, a random candidate and a mutation of the one with
 *      the largest error/tolerance ratio so far (a dim moved, a family or
 *      its position changed, a scale doubled or halved, a NULL toggled, a
 *      new data seed).
 * The first candidate the submission fails on (wrong_answer, or a crash)
 * is shrunk: each dim is lowered while the submission still fails with the
 * same generators (on the same data, else on up to three fresh draws), so
 * that the counterexample shown is small.
 *
 * A candidate is left out (skipped) when the reference fails on it or
 * gives a non-finite output (the package's problem, never the student's),
 * or when the submission runs out of time or memory on it (a size the
 * tests never asked for; the limits are the tests'). Nothing the search
 * does is a judge failure except the sandbox itself failing.
 */
#include "judge/search.h"

#include <inttypes.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/decide.h"
#include "judge/dims.h"
#include "judge/errbuf.h"
#include "judge/poolkey.h"
#include "judge/testdata.h"
#include "util/clock.h"
#include "util/str.h"

#define SHRINK_MAX 24        /* extra inputs spent making a counterexample small */
#define SHRINK_SEEDS 4       /* data tried per smaller size */
#define DIMS_TRIES 64        /* draws of dims before a candidate is given up */
#define SMALL_SPAN 4         /* "small" sizes: lo .. lo + SMALL_SPAN */
#define WALL_FACTOR 3        /* hard stop at this many times the budget */
#define DOMINANT_EXCESS 200. /* beyond expf's range, as the family's default */
#define IN_BOUND 0.999       /* of max_abs: a value rounded to float stays within it */

/* The families of a listed f32 tensor, in the order tried. */
enum vfam {
    VF_DOM_FIRST,
    VF_DOM_LAST,
    VF_DOM_MIDDLE,
    VF_DOM_RANDOM,
    VF_FAR_NEG,
    VF_CONST,
    VF_EXTREME,
    VF_DOM_NEG,
    VF_FAR_POS,
    VF_SMALL,
    VF_COUNT,
};
/* ... and of a listed mask. */
enum mfam {
    MF_OPEN_FIRST,
    MF_OPEN_LAST,
    MF_OPEN_MIDDLE,
    MF_OPEN_RANDOM,
    MF_DENSE,
    MF_SPARSE,
    MF_HALF,
    MF_COUNT,
};
enum size_mode { SZ_MIN, SZ_SMALL, SZ_ODD, SZ_EDGE, SZ_RANDOM, SZ_MODES };

struct cand {
    int64_t dims[PROBLEM_MAX_PARAMS];
    struct gen_spec gen[PROBLEM_MAX_PARAMS];
    int fam[PROBLEM_MAX_PARAMS]; /* listed tensors: enum vfam / mfam */
    double scale[PROBLEM_MAX_PARAMS];
    bool is_null[PROBLEM_MAX_PARAMS];
    uint64_t seed;
};

/* One input's outcome. */
struct outcome {
    bool skipped;
    bool failed; /* wrong_answer or runtime_error */
    double ratio;
};

struct search {
    const struct judge_ctx *ctx;
    const struct problem *p;
    const char *cache;
    int ref, exe;
    struct gen_rng rng;
    struct judge_search_report *out;
    /* the data and report of the last failing run: the counterexample's,
     * once shrinking is over (no second run, which a submission that is
     * not a function of its inputs could pass) */
    struct judge_counterexample *run;
    double t0, stop_at;
    int max_inputs;
};

static uint64_t draw(struct search *s, uint64_t n)
{
    return n ? gen_next(&s->rng) % n : 0;
}

static bool listed_value(const struct problem *p, int i)
{
    return p->params[i].dtype == DT_F32 && param_is_input(&p->params[i]) &&
           p->domain.max_abs[i] > 0;
}

static bool listed_mask(const struct problem *p, int i)
{
    return p->params[i].dtype == DT_U8 && param_is_input(&p->params[i]) && p->domain.mask_listed[i];
}

/* ---- sizes ------------------------------------------------------------ */

static int64_t pick_dim(struct search *s, enum size_mode mode, int64_t lo, int64_t hi)
{
    int64_t small_hi = hi < lo + SMALL_SPAN ? hi : lo + SMALL_SPAN;

    switch (mode) {
    case SZ_MIN: return lo;
    case SZ_SMALL:
        /* above the minimum where the range allows: SZ_MIN covers it */
        return lo < hi ? lo + 1 + (int64_t)draw(s, (uint64_t)(small_hi - lo)) : lo;
    case SZ_ODD: {
        int64_t v = lo + (int64_t)draw(s, (uint64_t)(small_hi - lo + 1)) * 2 + 1;
        v |= 1; /* odd */
        return v <= hi ? v : hi % 2 || hi == lo ? hi : hi - 1;
    }
    case SZ_EDGE: {
        uint64_t k = draw(s, 3);
        return k == 0 ? lo : k == 1 && lo < hi ? lo + 1 : hi;
    }
    case SZ_RANDOM:
    case SZ_MODES: break;
    }
    /* about log-uniform, in integers only (the same draws on every
     * machine): a power-of-two band of hi's bits, then a value in it */
    int bits = 64 - __builtin_clzll((unsigned long long)hi);
    int e = (int)draw(s, (uint64_t)bits);
    int64_t a = (int64_t)1 << e, b = ((int64_t)1 << (e + 1)) - 1;
    a = a < lo ? lo : a;
    b = b > hi ? hi : b;
    if (a > b)
        return lo + (int64_t)draw(s, (uint64_t)(hi - lo + 1));
    return a + (int64_t)draw(s, (uint64_t)(b - a + 1));
}

/* True if dims lie in the domain: the constraints hold and every tensor
 * is within max_elems. */
static bool dims_fit(const struct problem *p, const int64_t *dims)
{
    if (dims_check(p, dims, NULL, 0) < 0)
        return false;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_TENSOR)
            continue;
        int64_t n = dims_tensor_elems(p, i, dims);
        if (n <= 0 || n > p->domain.max_elems)
            return false;
    }
    for (int k = 0; k < p->n_dims; k++)
        if (dims[k] < p->domain.dim_lo[k] || dims[k] > p->domain.dim_hi[k])
            return false;
    return true;
}

/* Draws dims in mode; after failed draws the later ones fall back to
 * smaller modes. False when nothing fitting was found. */
static bool pick_dims(struct search *s, enum size_mode mode, int64_t *dims)
{
    const struct problem *p = s->p;

    for (int t = 0; t < DIMS_TRIES; t++) {
        enum size_mode m = t < DIMS_TRIES / 2 ? mode : t % 2 ? SZ_SMALL : SZ_RANDOM;
        for (int k = 0; k < p->n_dims; k++)
            dims[k] = pick_dim(s, m, p->domain.dim_lo[k], p->domain.dim_hi[k]);
        if (dims_fit(p, dims))
            return true;
    }
    return false;
}

/* ---- generators -------------------------------------------------------- */

/* The generator of listed f32 tensor i for family f at scale (1: the
 * family's own; the guided search doubles and halves it), within
 * ±max_abs. */
static void value_gen(const struct problem *p, int i, int f, double scale, struct gen_spec *g)
{
    double m = p->domain.max_abs[i];
    double base = fmin(1.0, m / 24) * scale; /* the small values around a planted one */

    *g = (struct gen_spec){.dist = GEN_NORMAL, .at = GEN_AT_RANDOM};
    base = fmin(base, m / 24);
    switch ((enum vfam)f) {
    case VF_DOM_FIRST:
    case VF_DOM_LAST:
    case VF_DOM_MIDDLE:
    case VF_DOM_RANDOM:
        g->dist = GEN_DOMINANT;
        g->std = base;
        g->at = f == VF_DOM_FIRST    ? GEN_AT_FIRST
                : f == VF_DOM_LAST   ? GEN_AT_LAST
                : f == VF_DOM_MIDDLE ? GEN_AT_MIDDLE
                                     : GEN_AT_RANDOM;
        /* the planted value m0 + excess stays within max_abs, with room
         * for the rounding to float */
        g->excess = fmin(DOMINANT_EXCESS * scale, IN_BOUND * m - 6 * base);
        break;
    case VF_DOM_NEG:
        g->dist = GEN_DOMINANT;
        g->std = base;
        g->mean = -m / 2;
        g->at = GEN_AT_RANDOM;
        g->excess = fmin(DOMINANT_EXCESS * scale, IN_BOUND * m / 2 - 6 * base);
        break;
    case VF_FAR_NEG:
    case VF_FAR_POS:
        /* within [0.6, 1] · max_abs on one side of zero */
        g->std = fmin(m / 30 * scale, m / 30);
        g->mean = (f == VF_FAR_NEG ? -1 : 1) * (IN_BOUND * m - 6 * g->std);
        break;
    case VF_CONST:
        g->dist = GEN_CONSTANT_ROWS;
        g->std = IN_BOUND * fmin(m / 6, m / 6 * scale / 4);
        break;
    case VF_EXTREME: g->std = IN_BOUND * fmin(m / 6, m / 6 * scale); break;
    case VF_SMALL:
    case VF_COUNT: g->std = fmin(IN_BOUND * m / 6, scale); break;
    }
    if (g->excess < 0)
        g->excess = 0;
}

/* The generator of listed mask i for family f. */
static void mask_gen(const struct problem *p, int i, int f, struct gen_spec *g)
{
    bool open = p->domain.row_open[i];

    *g = (struct gen_spec){.dist = GEN_ONE_OPEN, .at = GEN_AT_RANDOM};
    switch ((enum mfam)f) {
    case MF_OPEN_FIRST: g->at = GEN_AT_FIRST; break;
    case MF_OPEN_LAST: g->at = GEN_AT_LAST; break;
    case MF_OPEN_MIDDLE: g->at = GEN_AT_MIDDLE; break;
    case MF_OPEN_RANDOM: break;
    case MF_DENSE:
    case MF_SPARSE:
    case MF_HALF:
    case MF_COUNT:
        g->dist = GEN_BERNOULLI;
        g->p = f == MF_DENSE ? 0.9 : f == MF_SPARSE ? 0.1 : 0.5;
        g->keep_row_open = open;
        break;
    }
}

/* Sets tensor i of c to family f (listed tensors only). */
static void set_family(const struct problem *p, struct cand *c, int i, int f)
{
    c->fam[i] = f;
    if (listed_value(p, i))
        value_gen(p, i, f, c->scale[i], &c->gen[i]);
    else if (listed_mask(p, i))
        mask_gen(p, i, f, &c->gen[i]);
}

/* A candidate with every listed tensor at its plain family (small normal
 * values, a half-open mask) and every other at the problem's generator. */
static void cand_base(const struct problem *p, struct cand *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < p->n_params; i++) {
        c->gen[i] = p->params[i].gen;
        c->scale[i] = 1;
        if (listed_value(p, i))
            set_family(p, c, i, VF_SMALL);
        else if (listed_mask(p, i))
            set_family(p, c, i, MF_HALF);
    }
}

static int n_families(const struct problem *p, int i)
{
    return listed_value(p, i) ? VF_COUNT : listed_mask(p, i) ? MF_COUNT : 0;
}

/* The sizes phase 1 goes through, in order: each meets every family. */
static const enum size_mode family_sizes[] = {SZ_SMALL, SZ_ODD, SZ_EDGE, SZ_MIN};
#define N_FAMILY_SIZES ((int)(sizeof family_sizes / sizeof family_sizes[0]))

/* The (tensor, family) pairs of phase 1, per size. */
static int family_pairs(const struct problem *p)
{
    int n = 0;
    for (int i = 0; i < p->n_params; i++)
        n += n_families(p, i);
    return n;
}

/* Phase 1's k-th candidate (k < family_pairs * N_FAMILY_SIZES): every
 * (family, tensor) pair at the first size, then at the next. False when
 * no fitting dims were found. */
static bool family_cand(struct search *s, int k, struct cand *c)
{
    const struct problem *p = s->p;
    int pairs = family_pairs(p), pair = k % pairs;

    /* family by family, each over every listed tensor that has it: the
     * first families (a dominant element at each end, one open key at
     * each end) reach every tensor before the later ones reach any */
    for (int f = 0; f < VF_COUNT || f < MF_COUNT; f++)
        for (int i = 0; i < p->n_params; i++) {
            if (f >= n_families(p, i) || pair-- > 0)
                continue;
            cand_base(p, c);
            set_family(p, c, i, f);
            c->seed = gen_next(&s->rng);
            return pick_dims(s, family_sizes[k / pairs], c->dims);
        }
    return false;
}

static void random_cand(struct search *s, struct cand *c)
{
    const struct problem *p = s->p;

    cand_base(p, c);
    for (int i = 0; i < p->n_params; i++) {
        int n = n_families(p, i);
        if (n) {
            c->scale[i] = ldexp(1.0, (int)draw(s, 5) - 2);
            set_family(p, c, i, (int)draw(s, (uint64_t)n));
        }
        if (p->params[i].kind == PARAM_TENSOR && p->params[i].nullable)
            c->is_null[i] = draw(s, 4) == 0;
    }
    c->seed = gen_next(&s->rng);
    if (!pick_dims(s, draw(s, 2) ? SZ_RANDOM : SZ_SMALL, c->dims))
        pick_dims(s, SZ_MIN, c->dims);
}

/* A mutation of best: one change, kept only if the result fits the
 * domain (else just a new data seed). */
static void mutate(struct search *s, const struct cand *best, struct cand *c)
{
    const struct problem *p = s->p;

    *c = *best;
    c->seed = gen_next(&s->rng);
    switch (draw(s, 4)) {
    case 0: { /* a size */
        if (!p->n_dims)
            break;
        int k = (int)draw(s, (uint64_t)p->n_dims);
        int64_t v = c->dims[k], lo = p->domain.dim_lo[k], hi = p->domain.dim_hi[k];
        static const int moves = 6;
        switch (draw(s, moves)) {
        case 0: v = lo; break;
        case 1: v = hi; break;
        case 2: v = v + 1; break;
        case 3: v = v - 1; break;
        case 4: v = v * 2; break;
        default: v = v / 2; break;
        }
        int64_t keep = c->dims[k];
        c->dims[k] = v;
        if (!dims_fit(p, c->dims))
            c->dims[k] = keep;
        break;
    }
    case 1:   /* a family, or where it plants its element */
    case 2: { /* a scale */
        int listed[PROBLEM_MAX_PARAMS], n = 0;
        for (int i = 0; i < p->n_params; i++)
            if (n_families(p, i))
                listed[n++] = i;
        if (!n)
            break;
        int i = listed[draw(s, (uint64_t)n)];
        if (listed_value(p, i) && draw(s, 2))
            c->scale[i] *= draw(s, 2) ? 2 : 0.5;
        set_family(p, c, i, draw(s, 2) ? c->fam[i] : (int)draw(s, (uint64_t)n_families(p, i)));
        break;
    }
    default: /* a NULL toggled, or only the data */
        for (int i = 0; i < p->n_params; i++)
            if (p->params[i].kind == PARAM_TENSOR && p->params[i].nullable && draw(s, 2))
                c->is_null[i] = !c->is_null[i];
        break;
    }
}

/* ---- one input --------------------------------------------------------- */

static void clear_cx(const struct problem *p, struct judge_counterexample *cx)
{
    (void)p;
    judge_test_report_clear(&cx->test);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(cx->input[i]);
        free(cx->expected[i]);
        free(cx->actual[i]);
        cx->input[i] = cx->expected[i] = cx->actual[i] = NULL;
    }
}

/* Copies the run's data into cx (the values shown in full). */
static int keep_data(const struct problem *p, const struct test_data *d,
                     const unsigned char *expected, const struct harness_result *hr,
                     struct judge_counterexample *cx)
{
    size_t at = 0;

    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR || d->t.is_null[i])
            continue;
        size_t bytes = (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
        cx->n_elems[i] = d->t.n_elems[i];
        if (param_is_input(q) && d->t.data[i] && !(cx->input[i] = malloc(bytes ? bytes : 1)))
            return -1;
        if (cx->input[i])
            memcpy(cx->input[i], d->t.data[i], bytes);
        if (!param_is_output(q))
            continue;
        if (!(cx->expected[i] = malloc(bytes ? bytes : 1)))
            return -1;
        memcpy(cx->expected[i], expected + at, bytes);
        if (hr && hr->outputs[i]) {
            if (!(cx->actual[i] = malloc(bytes ? bytes : 1)))
                return -1;
            memcpy(cx->actual[i], hr->outputs[i], bytes);
        }
        at += bytes;
    }
    return 0;
}

/* True if every f32 output of the reference is finite. */
static bool expected_finite(const struct problem *p, const struct test_data *d,
                            const unsigned char *expected)
{
    size_t at = 0;

    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        size_t n = (size_t)d->t.n_elems[i];
        for (size_t e = 0; q->dtype == DT_F32 && e < n; e++) {
            float v;
            memcpy(&v, expected + at + e * 4, 4);
            if (!isfinite(v))
                return false;
        }
        at += n * tensor_dtype_size(q->dtype);
    }
    return true;
}

/* Runs candidate c. With cx, a failing run's data and report go there.
 * Returns 0 with *o filled, or -1 with err (the judge failed). */
static int try_cand(struct search *s, const struct cand *c, struct outcome *o,
                    struct judge_counterexample *cx, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim;
    struct harness_result hr;
    struct judge_test_report tr;
    struct test_case tc;
    double scalars[PROBLEM_MAX_PARAMS];
    unsigned char *expected = NULL;
    bool ref_failed = false;
    int rc = -1;

    memset(o, 0, sizeof *o);
    memset(&tr, 0, sizeof tr);
    memset(&tc, 0, sizeof tc);
    problem_default_scalars(p, scalars);
    tc.name = "counterexample";
    tc.kind = TEST_SAMPLE;
    tc.dims = (int64_t *)c->dims;
    tc.limits = p->limits;
    if (test_data_make(p, c->dims, scalars, c->seed, c->gen, c->is_null, &d, err, errlen) < 0)
        return -1;
    expected = expected_outputs(p, s->cache, s->ref, NULL, c->seed, &p->limits, &d, &ref_failed,
                                err, errlen);
    if (!expected) {
        if (!ref_failed)
            goto out;
        o->skipped = true; /* the package's problem, never the student's */
        rc = 0;
        goto out;
    }
    if (!expected_finite(p, &d, expected)) {
        o->skipped = true;
        rc = 0;
        goto out;
    }
    run_limits(&p->limits, false, &lim);
    if (run_program(s->exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    tr.verdict = classify_run(&res, &hr, &p->limits, &tr.message);
    tr.time_ms = res.cpu_ms;
    tr.wall_ms = res.wall_ms;
    if (tr.verdict == V_ACCEPTED) {
        bool all = true;
        for (int i = 0; i < p->n_params; i++)
            if (param_is_output(&p->params[i]) && !d.t.is_null[i] && !hr.outputs[i])
                all = false;
        if (all)
            tr.verdict = compare_outputs(p, &tc, c->dims, &d, expected, &hr, &tr);
        else
            tr.verdict = V_WRONG_ANSWER;
    }
    switch (tr.verdict) {
    case V_ACCEPTED:
        for (int k = 0; k < tr.n_tensors; k++)
            o->ratio = fmax(o->ratio, tr.tensors[k].cmp.worst_ratio);
        break;
    case V_WRONG_ANSWER:
    case V_RUNTIME_ERROR:
        o->failed = true;
        o->ratio = INFINITY;
        break;
    case V_INTERNAL_ERROR:
        errbuf_set(err, errlen, "the search: %s", tr.message ? tr.message : "out of memory");
        sbx_result_free(&res);
        goto out;
    default: o->skipped = true; break; /* out of time or memory at a size no test has */
    }
    if (o->failed && cx) {
        clear_cx(p, cx);
        cx->test = tr;
        memset(&tr, 0, sizeof tr);
        if (keep_data(p, &d, expected, &hr, cx) < 0) {
            errbuf_set(err, errlen, "out of memory");
            sbx_result_free(&res);
            goto out;
        }
    }
    sbx_result_free(&res);
    rc = 0;
out:
    judge_test_report_clear(&tr);
    free(expected);
    test_data_free(p, &d);
    return rc;
}

/* ---- the search -------------------------------------------------------- */

static bool out_of_budget(const struct search *s)
{
    return s->out->inputs + s->out->skipped >= s->max_inputs || clock_mono_ms() >= s->stop_at;
}

/* Runs c, counting it. Returns 0, or -1 with err. */
static int step(struct search *s, const struct cand *c, struct outcome *o, char *err, size_t errlen)
{
    if (try_cand(s, c, o, s->run, err, errlen) < 0)
        return -1;
    if (o->skipped)
        s->out->skipped++;
    else
        s->out->inputs++;
    if (!o->skipped && !o->failed && o->ratio > s->out->worst_ratio)
        s->out->worst_ratio = o->ratio;
    return 0;
}

/* Lowers each dim of the failing c while the submission still fails. */
static int shrink(struct search *s, struct cand *c, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    int spent = 0;

    for (int k = 0; k < p->n_dims; k++) {
        while (spent < SHRINK_MAX && c->dims[k] > p->domain.dim_lo[k]) {
            struct cand t = *c;
            struct outcome o;
            int64_t lo = p->domain.dim_lo[k], v = c->dims[k];
            /* straight to the minimum first, then halving, then one less */
            int64_t tries[3] = {lo, lo + (v - lo) / 2, v - 1};
            bool smaller = false;
            for (int j = 0; j < 3 && spent < SHRINK_MAX && !smaller; j++) {
                if (tries[j] >= v || (j && tries[j] == tries[j - 1]))
                    continue;
                t.dims[k] = tries[j];
                if (!dims_fit(p, t.dims))
                    continue;
                /* the same data first, then fresh data: a smaller size
                 * may drop the very row that failed */
                for (int d = 0; d < SHRINK_SEEDS && spent < SHRINK_MAX && !smaller; d++) {
                    t.seed = d ? gen_next(&s->rng) : c->seed;
                    spent++;
                    if (try_cand(s, &t, &o, s->run, err, errlen) < 0)
                        return -1;
                    if (o.failed) {
                        *c = t;
                        smaller = true;
                    }
                }
            }
            if (!smaller)
                break;
        }
    }
    return 0;
}

/* The generators of c in words, e.g. "x: dominant(at=last, excess=200)". */
static char *describe(const struct problem *p, const struct cand *c)
{
    char buf[1024];
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < p->n_params && at < sizeof buf; i++) {
        const struct param *q = &p->params[i];
        const struct gen_spec *g = &c->gen[i];
        char what[200];
        if (!param_is_input(q))
            continue;
        if (c->is_null[i])
            snprintf(what, sizeof what, "NULL");
        else
            switch (g->dist) {
            case GEN_NORMAL:
                snprintf(what, sizeof what, "normal(mean=%g, std=%g)", g->mean, g->std);
                break;
            case GEN_UNIFORM:
                snprintf(what, sizeof what, "uniform(lo=%g, hi=%g)", g->lo, g->hi);
                break;
            case GEN_BERNOULLI:
                snprintf(what, sizeof what, "bernoulli(p=%g%s)", g->p,
                         g->keep_row_open ? ", keep_row_open" : "");
                break;
            case GEN_INT_UNIFORM:
                snprintf(what, sizeof what, "int_uniform(lo=%g, hi=%g)", g->lo, g->hi);
                break;
            case GEN_CAUSAL: snprintf(what, sizeof what, "causal"); break;
            case GEN_DOMINANT:
                snprintf(what, sizeof what, "dominant(at=%s, mean=%g, std=%g, excess=%g)",
                         gen_at_name(g->at), g->mean, g->std, g->excess);
                break;
            case GEN_CONSTANT_ROWS:
                snprintf(what, sizeof what, "constant_rows(mean=%g, std=%g)", g->mean, g->std);
                break;
            case GEN_ONE_OPEN:
                snprintf(what, sizeof what, "one_open(at=%s)", gen_at_name(g->at));
                break;
            }
        at +=
            (size_t)snprintf(buf + at, sizeof buf - at, "%s%s: %s", at ? "; " : "", q->name, what);
    }
    return str_dup(buf);
}

/* Makes the counterexample of the failing c, whose run s->run holds: its
 * case beside that run. */
static int make_cx(struct search *s, const struct cand *c, char *err, size_t errlen)
{
    const struct problem *p = s->p;
    struct judge_counterexample *cx = s->run;

    s->out->cx = cx;
    s->run = NULL;
    cx->tc.name = str_dup("counterexample");
    cx->tc.kind = TEST_SAMPLE;
    cx->tc.has_seed = true;
    cx->tc.seed = c->seed;
    cx->tc.weight = 1;
    cx->tc.limits = p->limits;
    cx->tc.dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
    cx->how = describe(p, c);
    if (!cx->tc.name || !cx->tc.dims || !cx->how)
        goto oom;
    memcpy(cx->tc.dims, c->dims, sizeof(int64_t) * (size_t)p->n_dims);
    memcpy(cx->tc.gen, c->gen, sizeof c->gen);
    memcpy(cx->tc.is_null, c->is_null, sizeof c->is_null);
    problem_default_scalars(p, cx->tc.scalars);
    cx->test.name = str_dup("counterexample");
    cx->test.kind = TEST_SAMPLE;
    cx->test.weight = 0;
    cx->test.cpu_limit_ms = p->limits.cpu_ms;
    cx->test.dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
    if (!cx->test.name || !cx->test.dims)
        goto oom;
    memcpy(cx->test.dims, c->dims, sizeof(int64_t) * (size_t)p->n_dims);
    return 0;
oom:
    errbuf_set(err, errlen, "out of memory");
    return -1;
}

int search_run(const struct judge_ctx *ctx, const struct problem *p, const char *cache, int ref,
               int exe, int64_t budget_ms, uint64_t seed, struct judge_search_report *out,
               char *err, size_t errlen)
{
    struct search s = {.ctx = ctx, .p = p, .cache = cache, .ref = ref, .exe = exe, .out = out};
    struct cand best, c;
    struct outcome o;
    bool have_best = false, found = false;

    memset(out, 0, sizeof *out);
    out->ran = true;
    out->budget_ms = budget_ms;
    s.t0 = clock_mono_ms();
    s.stop_at = s.t0 + (double)budget_ms * WALL_FACTOR;
    if (!(s.run = calloc(1, sizeof *s.run))) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    s.max_inputs = (int)(budget_ms / SEARCH_MS_PER_INPUT);
    if (s.max_inputs < 1)
        s.max_inputs = 1;
    gen_rng_seed(&s.rng, seed, 0);

    int n_fam = family_pairs(p) * N_FAMILY_SIZES, misses = 0;
    for (int k = 0; !found && !out_of_budget(&s) && misses <= s.max_inputs; k++) {
        if (k < n_fam) {
            /* no fitting size for this family: a random candidate instead */
            if (!family_cand(&s, k, &c))
                random_cand(&s, &c);
        } else if (!have_best || (k - n_fam) % 2 == 0) {
            random_cand(&s, &c);
        } else {
            mutate(&s, &best, &c);
        }
        if (!dims_fit(p, c.dims)) {
            misses++; /* a domain whose constraints no draw meets */
            continue;
        }
        if (step(&s, &c, &o, err, errlen) < 0)
            goto fail;
        if (o.failed) {
            found = true;
            out->found_ms = clock_mono_ms() - s.t0;
        } else if (!o.skipped && (!have_best || o.ratio >= out->worst_ratio)) {
            best = c;
            have_best = true;
        }
    }
    if (found && (shrink(&s, &c, err, errlen) < 0 || make_cx(&s, &c, err, errlen) < 0))
        goto fail;
    judge_counterexample_free(s.run);
    out->ms = clock_mono_ms() - s.t0;
    return 0;
fail:
    judge_counterexample_free(s.run);
    return -1;
}

int64_t search_budget(const struct problem *p, int64_t server_ms)
{
    if (server_ms <= 0 || !p->domain.present)
        return 0;
    return p->search.has_budget ? p->search.budget_ms : server_ms;
}

int search_seed(const struct judge_ctx *ctx, const struct problem *p, const char *source,
                size_t len, uint64_t *seed)
{
    char key[POOLKEY_LEN + 1], version[2 * 16 + 1], name[POOLKEY_LEN + 64];
    unsigned char h[16];

    if (poolkey_of(source, len, key) < 0)
        return -1;
    crypto_generichash(h, sizeof h, (const unsigned char *)p->json_text, strlen(p->json_text), NULL,
                       0);
    sodium_bin2hex(version, sizeof version, h, sizeof h);
    /* ':' never appears in a test's name: no seed is a hidden test's */
    snprintf(name, sizeof name, "search:%s:%s", key, version);
    *seed = secret_hidden_seed(&ctx->secret, p->slug, name);
    return 0;
}
