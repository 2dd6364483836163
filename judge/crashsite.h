/*
 * crashsite — the line of the student's own file where a sample test's
 * program crashed, or, when it cannot be had, where to find it.
 *
 * Only for sample tests: the line of a crash on a hidden test tells what
 * the hidden data did, so the judge never asks for it there.
 */
#ifndef ATTNJUDGE_CRASHSITE_H
#define ATTNJUDGE_CRASHSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "judge/harness_proto.h"
#include "util/compiler.h"

/* The student's file as submitted (borrowed). */
struct crashsite_source {
    const char *filename; /* the name it was compiled under, e.g. "solution.c" */
    const char *text;
    size_t len; /* bytes */
};

/* Where a crash happened in the student's file. */
struct crashsite {
    int line;       /* 1-based, within the file */
    bool in_callee; /* the faulting instruction has no line (the C library):
                       line is the student's call that led there */
};

/* Maps crash record c of program exe (a sealed memfd, built from src) to a
 * line of src's file: the faulting address, else the innermost return
 * address that lies in src's file. The program's line table is read by
 * addr2line in a compile sandbox, never in this process; only a line
 * number within src is taken from its answer. Returns 1 with *site, 0 when
 * no address maps to src's file, or -1 with err when the sandbox could not
 * run. */
int crashsite_find(int exe, const struct crashsite_source *src, const struct aj_crash *c,
                   struct crashsite *site, char *err, size_t errlen) MUST_CHECK;

/* The sentence that follows a sample test's crash message: the place in
 * src (site; its line's text, trimmed, shortened and with control
 * characters replaced), or, when site is NULL, the pointer to the sample
 * kit's `make check-asan`. Returns a new string (caller frees) or NULL when
 * out of memory. */
char *crashsite_describe(const struct crashsite_source *src,
                         const struct crashsite *site) MUST_CHECK;

#endif
