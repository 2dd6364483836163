/*
 * Unit tests of the sample kit: the generated main.c of a problem with a
 * nullable input (mha-cross), case.json, and the shipped loader
 * judge/kit/caseio.c (compiled into this test, see the Makefile) against
 * the judge's own .npy writer and comparison rule: it reads what npy_encode
 * writes, writes the same bytes, never lets a NaN pass and tells an output
 * that was never written. Run from the repository root (make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/kit/caseio.h"
#include "judge/npy.h"
#include "judge/samples.h"
#include "util/fs.h"

struct fixture {
    char dir[64];
};

static int rm_tree(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/attnjudge-samples.XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/inputs", fx->dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/expected", fx->dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc = rm_tree(fx->dir);
    free(fx);
    return rc == 0 ? 0 : -1;
}

static void write_npy(const struct fixture *fx, const char *sub, const char *name, const void *data,
                      enum tensor_dtype dt, const int64_t *shape, int rank)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s.npy", fx->dir, sub, name);
    assert_int_equal(npy_write(path, data, dt, shape, rank), 0);
}

static void test_main_c_follows_the_signature(void **state)
{
    char err[PROBLEM_ERR_LEN];
    (void)state;
    struct problem *p = problem_load("problems/mha-cross", "reference", err, sizeof err);
    assert_non_null(p);
    char *m = samples_main_c(p);
    assert_non_null(m);
    assert_non_null(strstr(m, "void mha_cross(const float *query, const float *key,"));
    assert_non_null(strstr(m, "#include \"attnjudge.h\""));
    /* the nullable mask may be absent; the output starts poisoned */
    assert_non_null(strstr(m, "caseio_load_input(dir, \"mask\", CASEIO_U8, true, &a->mask)"));
    assert_non_null(strstr(m, "caseio_load_input(dir, \"query\", CASEIO_F32, false, &a->query)"));
    assert_non_null(strstr(m, "caseio_load_output(dir, \"out\", CASEIO_F32, &want->out, &a->out)"));
    assert_non_null(strstr(m, "caseio_load_int(dir, \"num_heads\", &a->num_heads)"));
    /* the call: the judge's casts, in signature order */
    assert_non_null(strstr(m, "mha_cross((const float *)a->query.data,"));
    assert_non_null(strstr(m, "(const unsigned char *)a->mask.data,"));
    assert_non_null(strstr(m, "(float *)a->out.data,"));
    assert_non_null(strstr(m, "(int)a->num_heads);"));
    assert_non_null(strstr(m, "{0.0001, 0.0001, true}"));
    /* every sample test is a case; hidden tests are not named */
    for (size_t i = 0; i < p->n_tests; i++) {
        char quoted[80];
        snprintf(quoted, sizeof quoted, "\"%s\"", p->tests[i].name);
        if (p->tests[i].kind == TEST_SAMPLE)
            assert_non_null(strstr(m, quoted));
        else
            assert_null(strstr(m, quoted));
    }
    free(m);
    problem_free(p);
}

static void test_case_json_and_dims(void **state)
{
    struct fixture *fx = *state;
    char err[PROBLEM_ERR_LEN], path[256];
    struct problem *p = problem_load("problems/mha-cross", "reference", err, sizeof err);
    assert_non_null(p);
    const struct test_case *tc = problem_find_test(p, "sample-no-mask");
    assert_non_null(tc);
    json_t *o = samples_case_json(p, tc->dims, tc->seed, tc);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "test")), "sample-no-mask");
    assert_int_equal(json_integer_value(json_object_get(o, "seed")), 402);
    snprintf(path, sizeof path, "%s/case.json", fx->dir);
    assert_int_equal(json_dump_file(o, path, JSON_INDENT(2)), 0);
    json_decref(o);
    int64_t v = 0;
    assert_int_equal(caseio_load_int(fx->dir, "Tq", &v), 0);
    assert_int_equal(v, 4);
    assert_int_equal(caseio_load_int(fx->dir, "Tk", &v), 0);
    assert_int_equal(v, 3); /* "Tk" is not mistaken for a prefix of another key */
    assert_int_equal(caseio_load_int(fx->dir, "d_model", &v), 0);
    assert_int_equal(v, 6);
    assert_int_equal(caseio_load_int(fx->dir, "T", &v), -1);
    problem_free(p);
}

static void test_caseio_reads_and_writes_npy_like_the_judge(void **state)
{
    struct fixture *fx = *state;
    float x[6] = {0, 1, -2.5f, 3, 1e-3f, -0.0f};
    unsigned char mask[3] = {0, 1, 0};
    int64_t shape[3] = {1, 2, 3}, shape1[1] = {3};
    struct caseio_array a, m, none;
    write_npy(fx, "inputs", "x", x, DT_F32, shape, 3);
    write_npy(fx, "inputs", "mask", mask, DT_U8, shape1, 1);
    assert_int_equal(caseio_load_input(fx->dir, "x", CASEIO_F32, false, &a), 0);
    assert_int_equal(a.rank, 3);
    assert_int_equal(a.shape[2], 3);
    assert_int_equal(a.n_elems, 6);
    assert_memory_equal(a.data, x, sizeof x);
    assert_int_equal(caseio_load_input(fx->dir, "mask", CASEIO_U8, true, &m), 0);
    assert_int_equal(m.rank, 1);
    assert_memory_equal(m.data, mask, sizeof mask);
    /* an absent nullable input is NULL; an absent required one an error */
    assert_int_equal(caseio_load_input(fx->dir, "missing", CASEIO_F32, true, &none), 0);
    assert_null(none.data);
    assert_int_equal(caseio_load_input(fx->dir, "missing", CASEIO_F32, false, &none), -1);
    /* a dtype that is not the parameter's is refused */
    assert_int_equal(caseio_load_input(fx->dir, "mask", CASEIO_F32, false, &none), -1);

    /* what caseio writes is byte for byte what npy_encode writes */
    struct caseio_tolerance tol = {0, 0, false};
    assert_int_equal(caseio_check(fx->dir, "t", "x", &a, &a, &tol), 0);
    char path[256];
    char *got = NULL;
    size_t got_len = 0;
    unsigned char *want = NULL;
    size_t want_len = 0;
    snprintf(path, sizeof path, "%s/got/x.npy", fx->dir);
    assert_int_equal(fs_read_file(path, 0, 1 << 20, &got, &got_len), 0);
    assert_int_equal(npy_encode(x, DT_F32, shape, 3, &want, &want_len), 0);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    free(got);
    free(want);
    caseio_free(&a);
    caseio_free(&m);
}

static void test_caseio_compares_as_the_judge(void **state)
{
    struct fixture *fx = *state;
    float e[4] = {1.0f, -2.0f, 100.0f, 0.5f};
    int64_t shape[2] = {2, 2};
    struct caseio_array want, got;
    write_npy(fx, "expected", "out", e, DT_F32, shape, 2);
    assert_int_equal(caseio_load_output(fx->dir, "out", CASEIO_F32, &want, &got), 0);
    /* the output starts as 0xFF bytes: a NaN, never within tolerance */
    float *g = got.data;
    assert_true(isnan(g[0]));
    struct caseio_tolerance tol = {1e-3, 0, false};
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 1);
    memcpy(g, e, sizeof e);
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 0);
    g[2] = 100.05f; /* 0.05 off: outside atol 1e-3 ... */
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 1);
    /* ... inside atol relative to max |expected| (1e-3 * 100) */
    tol.atol_relative_to_max = true;
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 0);
    g[3] = NAN;
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 1);
    g[3] = INFINITY;
    assert_int_equal(caseio_check(fx->dir, "t", "out", &want, &got, &tol), 1);
    caseio_free(&want);
    caseio_free(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_c_follows_the_signature),
        cmocka_unit_test_setup_teardown(test_case_json_and_dims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_caseio_reads_and_writes_npy_like_the_judge, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_caseio_compares_as_the_judge, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
