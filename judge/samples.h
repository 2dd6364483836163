/*
 * samples — a problem's sample tests as files a student can run and debug
 * on their own machine (GET /api/problems/{slug}/samples, `attnjudge export
 * --samples-archive`): per sample test the inputs and expected outputs as
 * .npy and a case.json, plus a generated C driver (main.c) that loads them,
 * calls the student's function with the problem's exact prototype and
 * compares its outputs within the problem's tolerance, a fixed loader
 * (caseio.c, caseio.h), a Makefile and a README.txt. Hidden tests never
 * appear in it.
 */
#ifndef ATTNJUDGE_SAMPLES_H
#define ATTNJUDGE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/judge.h"
#include "util/compiler.h"

/* The case.json of an exported case: {"problem", "dims": {name: value},
 * "seed"} and "test" when tc is given (tc may be NULL for a custom case).
 * Returns a new reference, NULL when out of memory. */
json_t *samples_case_json(const struct problem *p, const int64_t *dims, uint64_t seed,
                          const struct test_case *tc) MUST_CHECK;

/* The generated driver main.c for p, as a new string (caller frees), NULL
 * when out of memory or when the prototype does not fit. */
char *samples_main_c(const struct problem *p) MUST_CHECK;

/* The kit as a zip archive whose entries sit under "<slug>-samples/", in
 * a new buffer (*out, *len; caller frees *out). The same problem gives the
 * same bytes (fixed times and modes). Returns 0, or -1 with err. */
int samples_archive(struct judge_ctx *ctx, const struct problem *p, unsigned char **out,
                    size_t *len, char *err, size_t errlen) MUST_CHECK;

/* The name of the case a counterexample is downloaded as. */
#define SAMPLES_COUNTEREXAMPLE "counterexample"

/* The kit with one case, cases/counterexample/, made from cx, a report's
 * search.counterexample (report.h, judge_search_json: its dims, seed, and the values
 * of its inputs and expected outputs), as a zip whose entries sit under
 * "<slug>-counterexample/". Nothing runs: the values are the report's.
 * Returns 0; 1 with err when cx cannot be made a case (a tensor too large
 * to have been listed); -1 with err on a failure. */
int samples_counterexample_archive(const struct problem *p, const json_t *cx, unsigned char **out,
                                   size_t *len, char *err, size_t errlen) MUST_CHECK;

#endif
