/*
 * problem_loader — the state of one load of a problem package, shared by
 * the loader's files, and the field checks they share.
 *
 * Internal to the loader: judge/problem_load.c runs one load and checks
 * problem.json, with its tests and benchmark sizes in
 * judge/problem_cases.c and the other files in judge/problem_files.c. All
 * raise errors through the same struct problem_loader, which collects
 * every error of a load so that an author sees all of them in one run.
 * Callers outside the loader use judge/problem.h.
 *
 * How errors travel: a check that fails writes its message into ld->err
 * (problem_loader_bad, or a jsonget_* getter given ld->err) and returns -1
 * up to the nearest point that can go on with an independent part of the
 * package (the next parameter, test, section or file), which calls
 * problem_loader_note to record it. A load succeeds only if nothing was
 * noted.
 */
#ifndef ATTNJUDGE_PROBLEM_LOADER_H
#define ATTNJUDGE_PROBLEM_LOADER_H

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

#endif
