/*
 * explain — the plain words a student reads about a failed test: what a
 * signal, a forbidden system call, a time or memory limit, or a NaN in the
 * output usually means, and what to look at next.
 *
 * Every such text is written here and only here: the judge puts them in a
 * test's `message` and an output's `message` (docs/api.md), `attnjudge
 * judge` prints those, and the web UI shows the server's text rather than
 * its own copy. Hidden tests carry the same texts in the full report only:
 * the student's view drops a hidden test's messages whatever they say
 * (judge_report_redact), and no text here depends on test data beyond
 * what the message's caller passes in.
 */
#ifndef ATTNJUDGE_EXPLAIN_H
#define ATTNJUDGE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/compare.h"
#include "util/compiler.h"

/* What ending with signal sig means, as "SIGSEGV: the function read or
 * wrote outside an array (...)": a sentence without a final period, into
 * buf. A signal outside the table gets a general sentence naming it. */
void explain_signal(int sig, char *buf, size_t len);

/* What calling the forbidden system call name (as the sandbox reports it,
 * "openat") means, as "tried to open a file (openat): solutions may not
 * read files; ...", into buf. A call outside the table gets a general
 * sentence naming it. */
void explain_syscall(const char *name, char *buf, size_t len);

/* The message of a crash (signal sig) on a sample test: explain_signal's
 * sentence, then for a memory fault (SIGSEGV, SIGBUS) the tensors the test
 * passes as NULL (nulls, n_nulls names; none: n_nulls 0) and hint (a
 * problem's own hint, explain_mask_shape; NULL: none). Returns a new
 * string (caller frees) or NULL when out of memory. */
char *explain_crash(int sig, const char *const *nulls, int n_nulls, const char *hint) MUST_CHECK;

/* Where a sample test's crash happened, the sentence after explain_crash's:
 * "It crashed at solution.c:14: `y[i] = e / s;`." (file, line and the
 * line's text as the caller shows it), or with in_callee "It crashed in a
 * C library function called at solution.c:14: ...". Returns a new string
 * or NULL when out of memory. */
char *explain_crash_site(const char *file, int line, const char *code, bool in_callee) MUST_CHECK;

/* The sentence when that line cannot be had: how to find it with the
 * sample kit's `make check-asan`. Returns a new string or NULL. */
char *explain_crash_unlocated(void) MUST_CHECK;

/* The hint for a crash in a problem with a mask-like input: the mask's
 * name, its shape as written in the problem ("Tq, Tk"), the batch
 * dimension it lacks (NULL: it has one) and whether the mask may be NULL
 * though it is not in this test. Returns a new string or NULL. */
char *explain_mask_shape(const char *mask, const char *shape, const char *missing_batch,
                         bool may_be_null) MUST_CHECK;

/* A kind of non-finite output (compare.h) as a short label, "NaN, never
 * written", and as the advice that follows it; NULL for CMP_FINITE. */
const char *explain_nonfinite_label(enum compare_nonfinite k);
const char *explain_nonfinite(enum compare_nonfinite k);

/* The message of an output tensor that failed its comparison c: per
 * non-finite kind, its count, label and advice; then the elements outside
 * tolerance. With coords (sample tests only) it names the first elements
 * by their coordinates in shape (rank dimensions) and the first mismatch's
 * expected and got values. Returns a new string or NULL. */
char *explain_tensor(const char *name, const int64_t *shape, int rank,
                     const struct compare_result *c, bool coords) MUST_CHECK;

/* How a run ended when it is not a signal, a system call or a wrong
 * output. */
enum explain_end {
    EXPLAIN_TIME_CPU,      /* a: the CPU limit, ms */
    EXPLAIN_TIME_WALL,     /* a: the wall-clock limit, ms */
    EXPLAIN_NO_MEMORY,     /* an allocation was refused; a: the limit, MiB */
    EXPLAIN_IMAGE_TOO_BIG, /* a: the static image, b: the limit, MiB */
    EXPLAIN_EXEC_NOMEM,    /* the program could not start; a: the limit, MiB */
    EXPLAIN_EXIT,          /* exited early; a: the exit code (0 included) */
    EXPLAIN_NO_OUTPUTS,    /* returned, but the outputs never arrived */
};

/* The message for end (a and b as listed there; unused ones are ignored).
 * Returns a new string or NULL when out of memory. */
char *explain_end(enum explain_end end, int64_t a, int64_t b) MUST_CHECK;

#endif
