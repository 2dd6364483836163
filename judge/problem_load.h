/*
 * problem_load — problem.json, strictly: the schema of
 * docs/problem-format.md, checked field by field into a struct problem.
 *
 * Internal to the loader: judge/problem.c reads the package's files and
 * runs one load; judge/problem_load.c checks problem.json, with its tests
 * and benchmark sizes in judge/problem_cases.c. All raise
 * errors through the same struct problem_loader, which collects every
 * error of a load so that an author sees all of them in one run. Callers
 * outside the loader use judge/problem.h.
 *
 * How errors travel: a check that fails writes its message into ld->err
 * (problem_loader_bad, or a jsonget_* getter given ld->err) and returns -1
 * up to the nearest point that can go on with an independent part of the
 * package (the next parameter, test, section or file), which calls
 * problem_loader_note to record it. A load succeeds only if nothing was
 * noted.
 */
#ifndef ATTNJUDGE_PROBLEM_LOAD_H
#define ATTNJUDGE_PROBLEM_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "judge/problem.h"

struct problem_loader {
    struct problem *p;
    char *err; /* = msg: where a failing check writes its message */
    size_t errlen;
    char msg[PROBLEM_ERR_LEN];
    char *first; /* the caller's buffer: the first error noted (may be NULL) */
    size_t firstlen;
    struct problem_errors *errors; /* every error noted (may be NULL) */
    bool failed;                   /* something was noted */
    size_t n_noted;                /* messages noted (kept or not) */
};

/* Starts a load of p: errors go to first (firstlen bytes) and errors,
 * either of which may be NULL. */
void problem_loader_init(struct problem_loader *ld, struct problem *p, char *first, size_t firstlen,
                         struct problem_errors *errors);

/* Writes the message of a failing check into ld->err; always returns -1,
 * so that a check can "return problem_loader_bad(...)". */
int problem_loader_bad(struct problem_loader *ld, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the failure of a step that returned -1: its message in ld->err,
 * if it left one there (a step that noted its own errors leaves none).
 * Marks the load failed either way. */
void problem_loader_note(struct problem_loader *ld);

/* strdup, or NULL with "out of memory" raised. */
char *problem_loader_strdup(struct problem_loader *ld, const char *s);

/* Upper bounds of limits: sanity, not policy. */
#define LIMIT_MAX_CPU_MS 600000
#define LIMIT_MAX_WALL_MS 1200000
#define LIMIT_MAX_MEMORY_MB 65536

/* Parses the dimension expression text at path (for messages) into *out
 * and checks that it names only int parameters. */
int problem_loader_dim_expr(struct problem_loader *ld, const char *text, const char *path,
                            struct expr **out);

/* The value of the float/double parameter pa: obj's member key (at path),
 * finite and within pa's C type. */
int problem_loader_scalar(struct problem_loader *ld, json_t *obj, const char *path, const char *key,
                          const struct param *pa, double *out);

/* Merges a generators object ({tensor name: spec}, at path) onto gens[]. */
int problem_loader_generators(struct problem_loader *ld, json_t *obj, const char *path,
                              struct gen_spec gens[PROBLEM_MAX_PARAMS]);

/* Merges a limits object (at path) onto *lim. */
int problem_loader_limits(struct problem_loader *ld, json_t *obj, const char *path,
                          struct problem_limits *lim);

/* problem.json's "tests" (arr; NULL: missing) into ld->p->tests, noting
 * each test's error (judge/problem_cases.c). Needs the params, the
 * problem's generators and limits loaded. Returns 0 or -1. */
int problem_load_tests(struct problem_loader *ld, json_t *arr);

/* problem.json's optional "benchmark" (obj, may be NULL) into
 * ld->p->bench. Returns 0, or -1 with ld->err. */
int problem_load_benchmark(struct problem_loader *ld, json_t *obj);

/* Checks problem.json's parse (root, borrowed) for the package in dir and
 * fills ld->p from it, noting every error; the "mistakes" array is left to
 * the caller, which reads the mistakes' files. Returns 0, or -1 when
 * anything was noted. */
int problem_load_json(struct problem_loader *ld, json_t *root, const char *dir);

#endif
