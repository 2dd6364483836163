/*
 * The judge when its own resources fail: an allocation refused while the
 * report is built, and libsodium failing to start. Either is the judge's
 * failure, reported as internal_error (or a refusal to open) with a message
 * that says what happened, never a report with a tensor or a test missing
 * and never a verdict against the student.
 *
 * The faults are injected by linking with -Wl,--wrap=strdup,--wrap=
 * sodium_init (see the Makefile): __wrap_strdup refuses to copy one chosen
 * string, __wrap_sodium_init fails on request. The judging cases run the
 * real pipeline (sandbox included) on gpt2-attention's sample tests, with
 * the problem's own reference as the submission.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/judge.h"
#include "util/fs.h"

/* ---- fault injection ---- */

static const char *fail_strdup_of; /* strdup of exactly this string fails */
static int fail_sodium_init;

char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);
int __real_sodium_init(void);
int __wrap_sodium_init(void);

char *__wrap_strdup(const char *s)
{
    if (fail_strdup_of && strcmp(s, fail_strdup_of) == 0) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_strdup(s);
}

int __wrap_sodium_init(void)
{
    return fail_sodium_init ? -1 : __real_sodium_init();
}

/* ---- fixture: a data directory, the problem and its reference ---- */

struct fixture {
    char data[64];
    struct problem *p;
    struct judge_ctx *ctx;
    char *source;
    size_t len;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    char err[PROBLEM_ERR_LEN];

    if (!fx)
        return -1;
    strcpy(fx->data, "/tmp/attnjudge-faults-XXXXXX");
    if (!mkdtemp(fx->data))
        return -1;
    fx->p = problem_load("problems/gpt2-attention", "reference", err, sizeof err);
    if (!fx->p) {
        fprintf(stderr, "problem_load: %s\n", err);
        return -1;
    }
    if (fs_read_file(fx->p->reference_path, 0, PROBLEM_MAX_FILE, &fx->source, &fx->len) < 0)
        return -1;
    fx->ctx = judge_open(fx->data, err, sizeof err);
    if (!fx->ctx) {
        fprintf(stderr, "judge_open: %s\n", err);
        return -1;
    }
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc;

    fail_strdup_of = NULL;
    fail_sodium_init = 0;
    judge_close(fx->ctx);
    problem_free(fx->p);
    free(fx->source);
    rc = nftw(fx->data, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(fx);
    return rc;
}

static struct judge_report *judge_samples(struct fixture *fx)
{
    struct judge_options opt = {.samples_only = true};
    struct judge_report *r =
        judge_submission(fx->ctx, fx->p, fx->source, fx->len, "solution.c", &opt);

    assert_non_null(r);
    return r;
}

/* Without a fault: accepted, every test and tensor named (the control for
 * the cases below, and it fills the reference cache). */
static void test_no_fault(void **state)
{
    struct fixture *fx = *state;
    struct judge_report *r = judge_samples(fx);

    int samples = 0;
    for (size_t i = 0; i < fx->p->n_tests; i++)
        samples += fx->p->tests[i].kind == TEST_SAMPLE;
    assert_int_equal(r->verdict, V_ACCEPTED);
    assert_true(samples >= 2);
    assert_int_equal(r->n_tests, samples);
    for (int i = 0; i < r->n_tests; i++) {
        assert_non_null(r->tests[i].name);
        assert_int_equal(r->tests[i].n_tensors, 1);
        assert_string_equal(r->tests[i].tensors[0].name, "out");
    }
    judge_report_free(r);
}

/* The copy of the output tensor's name fails: before, the tensor stayed in
 * the report with a NULL name, which the JSON report then dropped without a
 * word; now the judgement is an internal_error. */
static void test_tensor_name_oom(void **state)
{
    struct fixture *fx = *state;
    struct judge_report *r;

    fail_strdup_of = "out";
    r = judge_samples(fx);
    fail_strdup_of = NULL;
    assert_int_equal(r->verdict, V_INTERNAL_ERROR);
    assert_non_null(r->internal_message);
    assert_non_null(strstr(r->internal_message, "out of memory"));
    judge_report_free(r);
}

/* The copy of a test's name fails: the test is not silently dropped. */
static void test_test_name_oom(void **state)
{
    struct fixture *fx = *state;
    struct judge_report *r;

    fail_strdup_of = "sample-two-batches";
    r = judge_samples(fx);
    fail_strdup_of = NULL;
    assert_int_equal(r->verdict, V_INTERNAL_ERROR);
    assert_non_null(strstr(r->internal_message, "out of memory"));
    judge_report_free(r);
}

/* libsodium failing to start is not "out of memory". */
static void test_sodium_init_failure(void **state)
{
    struct fixture *fx = *state;
    char err[512] = "";

    fail_sodium_init = 1;
    assert_null(judge_open(fx->data, err, sizeof err));
    fail_sodium_init = 0;
    assert_non_null(strstr(err, "libsodium"));
    assert_null(strstr(err, "out of memory"));
}

int main(void)
{
    /* one data directory for all: the reference is compiled once */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_fault),
        cmocka_unit_test(test_tensor_name_oom),
        cmocka_unit_test(test_test_name_oom),
        cmocka_unit_test(test_sodium_init_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
