/*
 * problem_domain — problem.json's "domain" (the input domain the statement
 * promises) and "search" (the counterexample search's budget), for the
 * loader (judge/problem_load.c calls it; docs/problem-format.md, "Input
 * domain").
 */
#ifndef ATTNJUDGE_PROBLEM_DOMAIN_H
#define ATTNJUDGE_PROBLEM_DOMAIN_H

#include <jansson.h>

#include "judge/problem_loader.h"

/* The largest tensor the search makes when "max_elems" is not given. */
#define PROBLEM_DOMAIN_MAX_ELEMS_DEFAULT 65536
/* The largest "search.budget_ms" a package may ask for, ms. */
#define PROBLEM_SEARCH_BUDGET_MAX 600000

/* The optional "domain" (obj, may be NULL) into ld->p->domain. Needs the
 * params loaded. Returns 0, or -1 with ld->err. */
int problem_load_domain(struct problem_loader *ld, json_t *obj);

/* The optional "search" (obj, may be NULL) into ld->p->search. Returns 0,
 * or -1 with ld->err. */
int problem_load_search(struct problem_loader *ld, json_t *obj);

#endif
