/*
 * problem_cases — problem.json's "tests" and "benchmark": the cases a
 * problem is judged and timed on (judge/problem_load.c calls it).
 */
#ifndef ATTNJUDGE_PROBLEM_CASES_H
#define ATTNJUDGE_PROBLEM_CASES_H

#include <jansson.h>

#include "judge/problem_loader.h"

/* problem.json's "tests" (arr; NULL: missing) into ld->p->tests, noting
 * each test's error (judge/problem_cases.c). Needs the params, the
 * problem's generators and limits loaded. Returns 0 or -1. */
int problem_load_tests(struct problem_loader *ld, json_t *arr);

/* problem.json's optional "benchmark" (obj, may be NULL) into
 * ld->p->bench. Returns 0, or -1 with ld->err. */
int problem_load_benchmark(struct problem_loader *ld, json_t *obj);

#endif
