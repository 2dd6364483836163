/*
 * problem — a problem package loaded from problems/<slug>/.
 *
 * The package is declarative (docs/problem-format.md): the C signature, the
 * input generators, the tolerance, the limits and the list of tests. Loading
 * validates the schema; everything the judge needs afterwards is in these
 * structs, and nothing here runs code.
 */
#ifndef ATTNJUDGE_PROBLEM_H
#define ATTNJUDGE_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/compare.h" /* struct compare_tolerance */
#include "judge/expr.h"    /* shapes and constraints */
#include "judge/gen.h"     /* struct gen_spec */
#include "judge/names.h"   /* names_slug_valid */
#include "judge/tensor.h"  /* enum tensor_dtype, the rank limit */
#include "util/compiler.h" /* MUST_CHECK */

#define PROBLEM_MAX_PARAMS 32
#define PROBLEM_ERR_LEN 512
#define PROBLEM_MAX_FILE (1024 * 1024) /* bytes, per package file (reference.c too) */
#define PROBLEM_MAX_MISTAKES 32        /* entries of "mistakes" */
#define PROBLEM_MISTAKE_TITLE_MAX 200  /* bytes of a mistake's title */
#define PROBLEM_MISTAKE_HINT_MAX 1000  /* bytes of a mistake's hint */
#define PROBLEM_MAX_HINTS 9            /* files hints/1.md ... hints/9.md */
#define PROBLEM_HINT_MAX (64 * 1024)   /* bytes of one hint file */
#define PROBLEM_MAX_BENCH_SIZES 4      /* entries of "benchmark.sizes" */

/* A tensor (passed as a pointer), a dimension (int, used in shapes) or a
 * floating-point scalar such as eps (float or double, passed by value). */
enum param_kind { PARAM_TENSOR, PARAM_INT, PARAM_FLOAT };
/* in: const T *, generated; out: T *, poisoned before the call, compared
 * after it; inout: T *, generated, compared after the call (in place). */
enum param_role { ROLE_IN, ROLE_OUT, ROLE_INOUT };

struct param {
    char *name;
    enum param_kind kind;
    enum tensor_dtype dtype; /* tensors only */
    enum param_role role;    /* tensors only */
    bool is_double;          /* PARAM_FLOAT: double, not float */
    double value;            /* PARAM_FLOAT: the value unless a test sets one */
    bool nullable;           /* tensors only */
    int rank;                /* tensors only */
    struct expr *shape[TENSOR_MAX_RANK];
    char *shape_text[TENSOR_MAX_RANK]; /* as written, for messages */
    struct gen_spec gen;               /* default generator (inputs) */
    int dim_index;                     /* PARAM_INT: index into the dims arrays */
};

struct problem_limits {
    int64_t cpu_ms;    /* CPU time per test, ms */
    int64_t wall_ms;   /* wall-clock time per test, ms */
    int64_t memory_mb; /* address space of the whole process, MiB */
};

enum test_kind { TEST_SAMPLE, TEST_HIDDEN };

struct test_case {
    char *name;
    enum test_kind kind;
    bool has_seed; /* sample tests carry a public seed */
    uint64_t seed;
    int64_t *dims; /* [n_dims], in the order of the int params */
    int weight;
    struct gen_spec gen[PROBLEM_MAX_PARAMS]; /* effective generator per param */
    bool is_null[PROBLEM_MAX_PARAMS];        /* nullable tensor passed as NULL */
    double scalars[PROBLEM_MAX_PARAMS];      /* PARAM_FLOAT params' values */
    struct problem_limits limits;            /* effective limits for this test */
};

/* The optional "benchmark" (docs/problem-format.md, "Benchmark sizes"):
 * realistic sizes at which an accepted submission is timed, and the work
 * one call does, for GFLOP/s and the roofline. A size is a test_case
 * without kind, seed or weight; its limits default to ten times the
 * problem's time limits. */
struct problem_benchmark {
    struct expr *flops, *bytes; /* over the dimensions; NULL: no benchmark */
    char *flops_text, *bytes_text;
    struct test_case *sizes;
    size_t n_sizes;
};

/* A known mistake (docs/problem-format.md, "Known mistakes"): a variant of
 * the reference that the judge runs on the sample tests to tell a student
 * which mistake their wrong output matches. */
struct problem_mistake {
    char *id;    /* [a-z0-9][a-z0-9-]*, unique in the problem */
    char *title; /* completes "Your output matches ..." */
    char *hint;  /* teaches without giving code */
    char *path;  /* <package>/mistakes/<id>.c, checked readable at load */
};

/* The optional "domain" (docs/problem-format.md, "Input domain"): what the
 * statement promises about every input, the space the counterexample
 * search (judge/search.h) draws from. Indexed like the problem's arrays:
 * dims by dim_index, the rest by parameter index. */
struct problem_domain {
    bool present;             /* false: no "domain", the search does not run */
    int64_t *dim_lo, *dim_hi; /* [n_dims], inclusive */
    /* f32 inputs: the largest |value| promised; 0 = not listed (the search
     * then keeps the tensor's own generator) */
    double max_abs[PROBLEM_MAX_PARAMS];
    /* u8 inputs listed under "masks": the search may draw any 0/1 pattern
     * (row_open: with at least one 0 in every row) */
    bool mask_listed[PROBLEM_MAX_PARAMS];
    bool row_open[PROBLEM_MAX_PARAMS];
    int64_t max_elems; /* elements of the largest tensor the search makes */
};

/* The optional "search" object: the counterexample search's budget. */
struct problem_search {
    bool has_budget;   /* false: the server's (or the CLI's) default */
    int64_t budget_ms; /* wall time after the tests; 0 turns the search off */
};

struct problem {
    char *dir; /* the package directory */
    char *slug, *title, *difficulty;
    char **tags;
    size_t n_tags;
    char **prereqs;
    size_t n_prereqs;
    char *function;
    struct param params[PROBLEM_MAX_PARAMS];
    int n_params;
    int n_dims; /* number of PARAM_INT params */
    struct expr **constraints;
    char **constraint_text;
    size_t n_constraints;
    struct compare_tolerance tol;
    struct problem_limits limits;
    struct test_case *tests;
    size_t n_tests;
    struct problem_benchmark bench; /* n_sizes 0: the package lists none */
    struct problem_domain domain;
    struct problem_search search;
    /* false (the default): after a test ends in time_limit, runtime_error,
     * memory_limit or security_violation the remaining tests are not run */
    bool run_all_tests;
    char *statement_md;               /* statement.md contents */
    char *starter_c;                  /* starter.c contents */
    char *reference_path;             /* resolved reference.c path, or NULL */
    char *json_text;                  /* problem.json as read, for hashing */
    struct problem_mistake *mistakes; /* in the order listed: the first match wins */
    size_t n_mistakes;
    /* Progressive hints and the walkthrough (docs/problem-format.md, "Hints
     * and walkthrough"): Markdown texts, shown by the server one at a time
     * and after acceptance; the judge never reads them. */
    char *hints[PROBLEM_MAX_HINTS]; /* hints/1.md ... in order */
    size_t n_hints;
    char *walkthrough_md;         /* walkthrough.md, or NULL */
    int64_t walkthrough_opens_at; /* ms since the epoch: problem.json's default date; 0 = none */
};

/* Loading (judge/problem_load.c, over problem_cases.c and
 * problem_files.c). */

/* Loads and validates the package in dir. reference_dir (may be NULL) is
 * searched for <slug>.c when the package has no reference.c. Returns a new
 * problem (free with problem_free) or NULL with a message naming the
 * offending field in err, e.g. "params[3].shape[1]: unknown dimension 'Tk'":
 * the first error (problem_load_all collects them all). */
struct problem *problem_load(const char *dir, const char *reference_dir, char *err, size_t errlen);

/* problem_load for a package whose problem.json the caller has already
 * parsed (an upload: JSON_REJECT_DUPLICATES, as problem_load does): root is
 * that parse (borrowed) and json_text its text, which must be what
 * dir/problem.json holds. The other files are read from dir; no
 * reference_dir. errs (may be NULL) collects every error, as
 * problem_load_all's does. */
struct json_t;
struct problem_errors;
struct problem *problem_load_parsed(const char *dir, const char *json_text, struct json_t *root,
                                    char *err, size_t errlen, struct problem_errors *errs);

/* Every error one load found, in the order found (the first is what
 * problem_load puts in err). A load goes on past an error to the parts of
 * the package that do not depend on it (the next parameter, test, section
 * or file), so an author sees them all in one run; the parts that depend
 * on a failed one (constraints, generators, tests and benchmark sizes on
 * the params) are not checked. */
#define PROBLEM_MAX_ERRORS 32
struct problem_error {
    char *field; /* the field path, e.g. "tests[2].kind", or the file; "" if none */
    char *text;  /* the whole message, e.g. "tests[2].kind: 'secret' is not ..." */
};
struct problem_errors {
    struct problem_error e[PROBLEM_MAX_ERRORS];
    size_t n;      /* kept in e */
    size_t n_more; /* found beyond PROBLEM_MAX_ERRORS (or out of memory), not kept */
};

/* problem_load that collects every error into *errs (zeroed first; free
 * with problem_errors_free, also after a success). Returns a new problem,
 * or NULL with errs->n + errs->n_more >= 1. */
struct problem *problem_load_all(const char *dir, const char *reference_dir,
                                 struct problem_errors *errs);

/* The loaded problem and its queries (judge/problem.c). */

/* Frees the messages of errs (not errs itself) and zeroes it. */
void problem_errors_free(struct problem_errors *errs);

void problem_free(struct problem *p);

/* "sample" or "hidden": the one spelling of a test's kind, in problem.json,
 * reports and the API. */
const char *problem_test_kind_name(enum test_kind k);
/* The inverse: TEST_SAMPLE or TEST_HIDDEN, -1 for any other word. */
int problem_test_kind_from_name(const char *name);

/* Looks a test up by name; NULL if none. */
const struct test_case *problem_find_test(const struct problem *p, const char *name);

/* The index of the parameter called name, or -1. */
int problem_find_param(const struct problem *p, const char *name);

/* Whether q is a tensor the function reads (in, inout) or one the judge
 * compares after the call (out, inout). */
static inline bool param_is_input(const struct param *q)
{
    return q->kind == PARAM_TENSOR && q->role != ROLE_OUT;
}
static inline bool param_is_output(const struct param *q)
{
    return q->kind == PARAM_TENSOR && q->role != ROLE_IN;
}

/* The spelling of a role in problem.json and the API: "in", "out", "inout". */
const char *problem_role_name(enum param_role r);

/* The C type of a PARAM_FLOAT param: "float" or "double". */
const char *problem_scalar_ctype(const struct param *q);

/* Sets values[i] to the default value of every PARAM_FLOAT param i (a
 * custom case, which has no test to set them). */
void problem_default_scalars(const struct problem *p, double values[PROBLEM_MAX_PARAMS]);

#endif
