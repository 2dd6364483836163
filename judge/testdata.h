/*
 * testdata — one test's data and one sandboxed run: the test's inputs
 * (from the seeded generator, or read back from the cache), the expected
 * outputs (from the cache, or by running the reference), and running a
 * program on them in a fresh SBX_RUN sandbox under a test's limits.
 *
 * Expected outputs and seeds never enter a sandbox: a program gets only
 * the input blob. The files kept under a reference's cache directory
 * (cache.h) are <test>.<seed>.in and <test>.<seed>.out.
 */
#ifndef ATTNJUDGE_TESTDATA_H
#define ATTNJUDGE_TESTDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/context.h"
#include "judge/gen.h"
#include "judge/harness.h"
#include "judge/problem.h"
#include "sandbox/sandbox.h"
#include "util/compiler.h"

struct test_data {
    struct harness_tensors t;
    int input_fd;     /* the input blob, read-only memfd */
    size_t out_bytes; /* all outputs together */
};

/* Frees d's tensors and closes its input; d is then empty (input_fd -1). */
void test_data_free(const struct problem *p, struct test_data *d);

/* The seed of test tc: its public seed, or the hidden one from the
 * deployment secret. */
uint64_t test_data_seed(const struct judge_ctx *ctx, const struct problem *p,
                        const struct test_case *tc);

/* Reads test tc's input blob for seed from the cache directory into d.
 * Returns 0 (d filled; its tensors' data stay NULL: only the blob is
 * read), 1 when it is not cached (d empty), or -1 with err. */
int test_data_cached(const struct problem *p, const char *cache, const struct test_case *tc,
                     uint64_t seed, struct test_data *d, char *err, size_t errlen) MUST_CHECK;

/* Writes d's input blob to the cache; a cache that cannot be written only
 * costs time. */
void test_data_cache(const char *cache, const struct test_case *tc, uint64_t seed,
                     const struct test_data *d);

/* Generates the inputs at dims (scalars, seed, a generator and a NULL flag
 * per parameter) into d: the tensors and their input blob. Returns 0, or
 * -1 with err (test_data_free either way). */
int test_data_make(const struct problem *p, const int64_t *dims, const double *scalars,
                   uint64_t seed, const struct gen_spec *gens, const bool *is_null,
                   struct test_data *d, char *err, size_t errlen) MUST_CHECK;

/* The sandbox limits of a run under l: a student's, or the reference's
 * (more room, so that a slow reference is never blamed on a student). */
void run_limits(const struct problem_limits *l, bool reference, struct sbx_limits *out);

/* Runs program exe on d's inputs in a fresh SBX_RUN sandbox. Returns
 * sbx_run's result: 0 with *res filled (sbx_result_free), or -1 with err
 * (the judge failed). */
int run_program(int exe, const struct test_data *d, const struct sbx_limits *lim,
                struct sbx_result *res, char *err, size_t errlen) MUST_CHECK;

/* How a reference run failed, in an author's words: "was killed by signal
 * 11 (SIGSEGV)", "ran over its CPU time limit of 14000 ms". */
void reference_failure(const struct sbx_result *res, const struct sbx_limits *lim,
                       const struct harness_result *hr, char *buf, size_t len);

/* Every non-NULL output of a run, in signature order, as one new buffer of
 * d->out_bytes bytes (the layout of the cached expected outputs); NULL when
 * out of memory. hr must hold every output (a completed run). */
unsigned char *outputs_pack(const struct problem *p, const struct test_data *d,
                            const struct harness_result *hr);

/* Expected outputs: from the cache, or by running the reference (ref_exe)
 * and caching them (test_name NULL: a custom case, never cached). Returns
 * a new buffer of d->out_bytes bytes, or NULL with err; *ref_failed (may
 * be NULL) is then true when the reference itself failed (crashed, ran out
 * of time, wrote no outputs: the package's fault), false when the judge
 * did. */
unsigned char *expected_outputs(const struct problem *p, const char *cache, int ref_exe,
                                const char *test_name, uint64_t seed,
                                const struct problem_limits *limits, const struct test_data *d,
                                bool *ref_failed, char *err, size_t errlen);

#endif
