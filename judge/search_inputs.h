/*
 * search_inputs — the inputs the counterexample search (search.h) tries:
 * candidates inside the problem's input domain, drawn from the search's
 * stream. Internal to the search.
 *
 * A candidate is a value for every dimension, a generator per input
 * tensor, which nullable tensors are NULL and a data seed; only
 * candidates inside the domain are made: dims within their ranges that
 * satisfy the constraints and keep every tensor within max_elems; an f32
 * tensor listed under "values" drawn so that no value exceeds its max_abs
 * (a normal value lies within mean ± 6·std, the Irwin–Hall bound); a mask
 * listed under "masks" keeps an open key per row when row_open says so;
 * every other tensor keeps the problem's own generator.
 */
#ifndef ATTNJUDGE_SEARCH_INPUTS_H
#define ATTNJUDGE_SEARCH_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "judge/gen.h"
#include "judge/problem.h"

struct search_cand {
    int64_t dims[PROBLEM_MAX_PARAMS]; /* by dim_index */
    struct gen_spec gen[PROBLEM_MAX_PARAMS];
    int fam[PROBLEM_MAX_PARAMS];      /* listed tensors: their family */
    double scale[PROBLEM_MAX_PARAMS]; /* listed f32 tensors: 1, or doubled/halved */
    bool is_null[PROBLEM_MAX_PARAMS];
    uint64_t seed; /* the data's */
};

/* The stream the inputs of one search are drawn from. */
struct search_draws {
    const struct problem *p;
    struct gen_rng rng;
};

/* True if dims lie in p's domain: within the ranges, the constraints
 * hold, every tensor within max_elems. */
bool search_dims_fit(const struct problem *p, const int64_t *dims);

/* How many candidates the families make (every family of every listed
 * tensor at each of four sizes: small, odd, edge, minimal). */
int search_family_total(const struct problem *p);

/* The k-th of them (k < search_family_total): family by family over
 * every listed tensor, at the first size, then the next. False when no
 * fitting dims were drawn (c is then not in the domain). */
bool search_family_cand(struct search_draws *s, int k, struct search_cand *c);

/* A random candidate: random families, scales, NULLs and sizes. */
void search_random_cand(struct search_draws *s, struct search_cand *c);

/* c = best with one change (a size, a family or its position, a scale, a
 * NULL) and fresh data. */
void search_mutate(struct search_draws *s, const struct search_cand *best, struct search_cand *c);

/* c's generators in words, e.g. "x: dominant(at=last, mean=0, std=1,
 * excess=200)"; a new string, NULL when out of memory. */
char *search_describe(const struct problem *p, const struct search_cand *c);

#endif
