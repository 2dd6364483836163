/*
 * Unit tests of judge/problem: a valid package loads into the struct the
 * judge uses (merged generators and limits, dims, benchmark sizes), and
 * the queries on it: the dimension queries and work counts
 * (judge/dims.c), export's --dims parser (cli/dims.c), the generated
 * prototype (judge/harness.c) and slug validation. problem.json's errors
 * are tested in test_problem_load.c, the other files' in
 * test_problem_files.c.
 *
 * Each case writes a small package into a fresh temporary directory
 * (problem_fixture.h).
 */
#include "tests/unit/problem_fixture.h"

#include "cli/cli.h"
#include "judge/dims.h"
#include "judge/gen.h"
#include "judge/harness.h"

static void test_load_valid(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);
    const struct test_case *t;

    assert_string_equal(p->slug, SLUG);
    assert_string_equal(p->title, "Multi-head cross-attention");
    assert_string_equal(p->difficulty, "medium");
    assert_int_equal(p->n_tags, 2);
    assert_string_equal(p->tags[1], "masking");
    assert_int_equal(p->n_prereqs, 1);
    assert_string_equal(p->prereqs[0], "mha-block-postln");
    assert_string_equal(p->function, "mha_cross");
    assert_int_equal(p->n_params, 11);
    assert_int_equal(p->n_dims, 5);
    assert_int_equal(p->params[6].kind, PARAM_INT);
    assert_int_equal(p->params[6].dim_index, 0);
    assert_int_equal(p->params[10].dim_index, 4);

    /* Tensors. */
    assert_int_equal(p->params[2].kind, PARAM_TENSOR);
    assert_int_equal(p->params[2].rank, 2);
    assert_string_equal(p->params[2].shape_text[0], "3*d_model");
    assert_true(p->params[3].nullable);
    assert_int_equal(p->params[3].dtype, DT_U8);
    assert_int_equal(p->params[5].role, ROLE_OUT);

    /* Default generators: given, or the dtype's default. */
    assert_int_equal(p->params[1].gen.dist, GEN_UNIFORM);
    assert_true(p->params[1].gen.lo == -2 && p->params[1].gen.hi == 2);
    assert_int_equal(p->params[2].gen.dist, GEN_NORMAL);
    assert_true(p->params[2].gen.mean == 0 && p->params[2].gen.std == 1);
    assert_int_equal(p->params[3].gen.dist, GEN_BERNOULLI);
    assert_true(p->params[3].gen.p == 0.25 && p->params[3].gen.keep_row_open);
    assert_int_equal(p->params[4].gen.dist, GEN_INT_UNIFORM);
    assert_true(p->params[4].gen.lo == -100 && p->params[4].gen.hi == 100);

    assert_true(p->tol.atol == 1e-5 && p->tol.rtol == 1e-4 && p->tol.atol_relative_to_max);
    assert_int_equal(p->limits.cpu_ms, 2000);
    assert_int_equal(p->limits.wall_ms, 5000);
    assert_int_equal(p->n_constraints, 2);
    assert_string_equal(p->constraint_text[0], "d_model % num_heads == 0");

    /* Tests. */
    assert_int_equal(p->n_tests, 2);
    t = &p->tests[0];
    assert_int_equal(t->kind, TEST_SAMPLE);
    assert_true(t->has_seed);
    assert_int_equal(t->seed, 11);
    assert_int_equal(t->weight, 1);
    assert_int_equal(t->dims[0], 1);
    assert_int_equal(t->dims[2], 5);
    assert_int_equal(t->limits.cpu_ms, 2000);
    assert_false(t->is_null[3]);

    t = problem_find_test(p, "no-mask");
    assert_ptr_equal(t, &p->tests[1]);
    assert_null(problem_find_test(p, "nope"));
    assert_int_equal(t->kind, TEST_HIDDEN);
    assert_false(t->has_seed);
    assert_int_equal(t->weight, 2);
    assert_true(t->is_null[3]);
    /* Test generators merge onto the problem's: query keeps normal and its
     * mean, gets std 40; key switches to normal with its defaults. */
    assert_int_equal(t->gen[0].dist, GEN_NORMAL);
    assert_true(t->gen[0].mean == 0 && t->gen[0].std == 40);
    assert_int_equal(t->gen[1].dist, GEN_NORMAL);
    assert_true(t->gen[1].std == 1);
    assert_true(t->gen[3].p == 0.25); /* untouched ones keep the default */
    /* Limits merge the same way. */
    assert_int_equal(t->limits.cpu_ms, 3000);
    assert_int_equal(t->limits.wall_ms, 5000);
    assert_int_equal(t->limits.memory_mb, 256);

    /* Files. */
    assert_string_equal(p->statement_md, "# Cross attention\n\n$x$\n");
    assert_string_equal(p->starter_c, "void mha_cross(void) {}\n");
    assert_string_equal(p->json_text, base_json);
    assert_null(p->reference_path);
    assert_string_equal(p->dir, fx->dir);
    problem_free(p);
}

static void test_queries(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);
    int64_t dims[5] = {2, 9, 4, 12, 3}, shape[TENSOR_MAX_RANK];
    char err[PROBLEM_ERR_LEN];

    assert_int_equal(dims_check(p, dims, err, sizeof err), 0);
    assert_int_equal(dims_tensor_shape(p, 2, dims, shape), 2);
    assert_int_equal(shape[0], 36);
    assert_int_equal(shape[1], 12);
    assert_int_equal(dims_tensor_elems(p, 0, dims), 2 * 9 * 12);
    assert_int_equal(dims_tensor_elems(p, 6, dims), -1); /* not a tensor */
    assert_int_equal(dims_tensor_shape(p, 99, dims, shape), -1);

    dims[4] = 5;
    assert_int_equal(dims_check(p, dims, err, sizeof err), -1);
    assert_string_equal(err, "constraint 'd_model % num_heads == 0' does not hold");
    dims[4] = 0; /* d_model % 0: not "holds" and not a crash */
    assert_int_equal(dims_check(p, dims, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not hold (division by zero)"));
    dims[4] = 3;
    dims[2] = 0;
    assert_int_equal(dims_check(p, dims, err, sizeof err), -1);
    assert_string_equal(err, "key: shape[1] 'Tk' is 0, must be positive");
    assert_int_equal(dims_tensor_elems(p, 1, dims), -1);
    dims[2] = 4;
    dims[1] = 3000000000LL;
    assert_int_equal(dims_check(p, dims, err, sizeof err), -1);
    assert_string_equal(err, "Tq = 3000000000 does not fit a C int");
    dims[1] = 100000;
    dims[3] = 30000;
    assert_int_equal(dims_check(p, dims, err, sizeof err), -1);
    assert_non_null(strstr(err, "query: more than"));
    problem_free(p);
}

/* export's --dims (cli/dims.c) */
static void test_parse_dims(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);
    int64_t dims[5] = {0};
    char err[PROBLEM_ERR_LEN];

    assert_int_equal(
        cli_parse_dims(p, "B=2, Tq=9,Tk=4,d_model=12,num_heads=3", dims, err, sizeof err), 0);
    assert_int_equal(dims[0], 2);
    assert_int_equal(dims[4], 3);
    assert_int_equal(cli_parse_dims(p, "B=2,Tq=9,Tk=4,d_model=12", dims, err, sizeof err), -1);
    assert_string_equal(err, "missing dimension 'num_heads'");
    assert_int_equal(cli_parse_dims(p, "B=2,B=3", dims, err, sizeof err), -1);
    assert_string_equal(err, "dimension 'B' given twice");
    assert_int_equal(cli_parse_dims(p, "X=1", dims, err, sizeof err), -1);
    assert_string_equal(err, "unknown dimension 'X'");
    assert_int_equal(cli_parse_dims(p, "query=1", dims, err, sizeof err), -1);
    assert_int_equal(cli_parse_dims(p, "B=two", dims, err, sizeof err), -1);
    assert_non_null(strstr(err, "B: 'two' is not an integer"));
    assert_int_equal(cli_parse_dims(p, "B", dims, err, sizeof err), -1);
    assert_int_equal(cli_parse_dims(p, "B=99999999999", dims, err, sizeof err), -1);
    problem_free(p);
}

/* the prototype the harness generates (judge/harness.c) and the dtypes */
static void test_prototype(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);
    char proto[512];
    int n;

    n = harness_prototype(p, proto, sizeof proto);
    assert_int_equal(n, (int)strlen(proto));
    assert_string_equal(proto, "void mha_cross(const float *query, const float *key, "
                               "const float *w_qkv, const unsigned char *mask, const int32_t *idx, "
                               "float *out, int B, int Tq, int Tk, int d_model, int num_heads)");
    assert_int_equal(harness_prototype(p, proto, 40), -1);

    assert_int_equal(tensor_dtype_size(DT_F32), 4);
    assert_int_equal(tensor_dtype_size(DT_U8), 1);
    assert_int_equal(tensor_dtype_size(DT_I32), 4);
    assert_string_equal(tensor_dtype_name(DT_U8), "u8");
    assert_string_equal(tensor_dtype_ctype(DT_I32), "int32_t");
    problem_free(p);
}

/* a benchmark session's call header (judge/harness_proto.h): the
 * dimensions and every tensor's descriptor, no tensor bytes */
static void test_call_header(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);
    const int64_t dims[] = {1, 2, 3, 8, 2};
    struct harness_tensors t;
    unsigned char buf[HARNESS_HEADER_MAX];
    struct aj_in_header h;
    struct aj_in_tensor desc[6];

    memset(&t, 0, sizeof t);
    for (int i = 0; i < p->n_params; i++)
        t.n_elems[i] = 10 + i;
    t.is_null[3] = true; /* the mask */
    int n = harness_call_header(p, dims, NULL, &t, 7, buf, sizeof buf);
    assert_int_equal(n, (int)(sizeof h + sizeof dims + sizeof desc));
    memcpy(&h, buf, sizeof h);
    assert_true(h.magic == AJ_MAGIC_CALL);
    assert_int_equal(h.n_tensors, 6);
    assert_int_equal(h.n_ints, 5);
    assert_int_equal(h.n_floats, 0);
    assert_int_equal(h.heap_mib, 7);
    assert_memory_equal(buf + sizeof h, dims, sizeof dims);
    memcpy(desc, buf + sizeof h + sizeof dims, sizeof desc);
    assert_true(desc[0].is_input && !desc[0].is_output && desc[0].elem_size == 4 &&
                desc[0].n_elems == 10);
    assert_true(desc[3].is_null && desc[3].elem_size == 1);
    assert_true(desc[4].elem_size == 4 && desc[4].n_elems == 14); /* idx, int32 */
    assert_true(!desc[5].is_input && desc[5].is_output && desc[5].n_elems == 15);
    /* a buffer too small is refused, never overrun */
    assert_int_equal(harness_call_header(p, dims, NULL, &t, 0, buf, sizeof h + 8), -1);
    problem_free(p);
}

static void test_slug_valid(void **state)
{
    char long_slug[80];

    (void)state;
    assert_true(names_slug_valid("mha-cross"));
    assert_true(names_slug_valid("0abc"));
    assert_false(names_slug_valid(""));
    assert_false(names_slug_valid("-abc"));
    assert_false(names_slug_valid("Abc"));
    assert_false(names_slug_valid("a_b"));
    assert_false(names_slug_valid("../x"));
    memset(long_slug, 'a', 63);
    long_slug[63] = '\0';
    assert_true(names_slug_valid(long_slug));
    long_slug[63] = 'a';
    long_slug[64] = '\0';
    assert_false(names_slug_valid(long_slug));
}

/* The "benchmark" key: sizes loaded like tests (dims, null tensors,
 * generator overrides), limits ten times the problem's unless a size sets
 * its own, the FLOP and byte counts evaluated per size. */
static void test_benchmark(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base();
    struct problem *p = load_ok(fx);
    int64_t flops, bytes;
    char err[PROBLEM_ERR_LEN];

    assert_int_equal(p->bench.n_sizes, 0); /* optional */
    problem_free(p);

    json_object_set_new(root, "benchmark", bench_json());
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    assert_int_equal(p->bench.n_sizes, 2);
    const struct test_case *small = &p->bench.sizes[0], *large = &p->bench.sizes[1];
    assert_string_equal(small->name, "small");
    assert_true(small->is_null[problem_find_param(p, "mask")]);
    assert_int_equal(small->limits.cpu_ms, 20000); /* 10 x the problem's 2000 */
    assert_int_equal(small->limits.wall_ms, 50000);
    assert_int_equal(small->limits.memory_mb, 256); /* the memory limit stays */
    assert_int_equal(large->limits.cpu_ms, 50000);
    assert_int_equal(large->limits.wall_ms, 50000);
    assert_true(large->gen[problem_find_param(p, "query")].std == 3);
    assert_int_equal(dims_bench_counts(p, large->dims, &flops, &bytes, err, sizeof err), 0);
    assert_int_equal(flops, 2LL * 2 * 256 * 256 * 128);
    assert_int_equal(bytes, 4LL * 2 * 512 * 128);
    assert_string_equal(p->bench.flops_text, "2*B*Tq*Tk*d_model");
    problem_free(p);

    /* a pure data movement has no arithmetic: flops 0 is allowed */
    root = base();
    json_t *b = bench_json();
    json_object_set_new(b, "flops", json_string("0"));
    json_object_set_new(root, "benchmark", b);
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    assert_int_equal(dims_bench_counts(p, p->bench.sizes[0].dims, &flops, &bytes, err, sizeof err),
                     0);
    assert_int_equal(flops, 0);
    problem_free(p);
}

/* Each error names the field. */

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_load_valid), T(test_queries),     T(test_parse_dims),
        T(test_prototype),  T(test_call_header), cmocka_unit_test(test_slug_valid),
        T(test_benchmark),
    };
#undef T

    return cmocka_run_group_tests(tests, NULL, NULL);
}
