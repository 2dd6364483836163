/*
 * search_inputs — the inputs the counterexample search tries
 * (search_inputs.h): sizes within the domain, the families' generators
 * kept within max_abs, random candidates and mutations, all drawn from
 * the search's one stream with integer arithmetic and exact IEEE
 * operations only, so that the same seed draws the same inputs on every
 * machine.
 */
#include "judge/search_inputs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/dims.h"
#include "util/str.h"

#define DIMS_TRIES 64        /* draws of dims before a candidate is given up */
#define SMALL_SPAN 4         /* "small" sizes: lo .. lo + SMALL_SPAN */
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

static uint64_t draw(struct search_draws *s, uint64_t n)
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

static int64_t pick_dim(struct search_draws *s, enum size_mode mode, int64_t lo, int64_t hi)
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
bool search_dims_fit(const struct problem *p, const int64_t *dims)
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
static bool pick_dims(struct search_draws *s, enum size_mode mode, int64_t *dims)
{
    const struct problem *p = s->p;

    for (int t = 0; t < DIMS_TRIES; t++) {
        enum size_mode m = t < DIMS_TRIES / 2 ? mode : t % 2 ? SZ_SMALL : SZ_RANDOM;
        for (int k = 0; k < p->n_dims; k++)
            dims[k] = pick_dim(s, m, p->domain.dim_lo[k], p->domain.dim_hi[k]);
        if (search_dims_fit(p, dims))
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
static void set_family(const struct problem *p, struct search_cand *c, int i, int f)
{
    c->fam[i] = f;
    if (listed_value(p, i))
        value_gen(p, i, f, c->scale[i], &c->gen[i]);
    else if (listed_mask(p, i))
        mask_gen(p, i, f, &c->gen[i]);
}

/* A candidate with every listed tensor at its plain family (small normal
 * values, a half-open mask) and every other at the problem's generator. */
static void cand_base(const struct problem *p, struct search_cand *c)
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
bool search_family_cand(struct search_draws *s, int k, struct search_cand *c)
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

void search_random_cand(struct search_draws *s, struct search_cand *c)
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
void search_mutate(struct search_draws *s, const struct search_cand *best, struct search_cand *c)
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
        if (!search_dims_fit(p, c->dims))
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

/* The generators of c in words, e.g. "x: dominant(at=last, excess=200)". */
char *search_describe(const struct problem *p, const struct search_cand *c)
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

int search_family_total(const struct problem *p)
{
    return family_pairs(p) * N_FAMILY_SIZES;
}
