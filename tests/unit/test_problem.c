/*
 * Unit tests of judge/problem: loading a valid package (defaults, merged
 * generators and limits, dims, reference lookup) and the validation errors,
 * each of which must name the offending field; and of what reads a loaded
 * package: the dimension queries (judge/dims.c), export's --dims parser
 * (cli/dims.c) and the generated prototype (judge/harness.c).
 *
 * Each case writes a small package into a fresh temporary directory: a valid
 * base problem.json is built with jansson and one mutation is applied to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "judge/dims.h"
#include "judge/gen.h"
#include "judge/harness.h"
#include "judge/problem.h"

#define SLUG "mha-cross"

static const char base_json[] =
    "{"
    " \"slug\": \"mha-cross\","
    " \"title\": \"Multi-head cross-attention\","
    " \"difficulty\": \"medium\","
    " \"tags\": [\"attention\", \"masking\"],"
    " \"prerequisites\": [\"mha-block-postln\"],"
    " \"function\": \"mha_cross\","
    " \"params\": ["
    "  {\"name\": \"query\", \"type\": \"f32\", \"role\": \"in\", \"shape\": [\"B\", \"Tq\", "
    "\"d_model\"]},"
    "  {\"name\": \"key\", \"type\": \"f32\", \"role\": \"in\", \"shape\": [\"B\", \"Tk\", "
    "\"d_model\"]},"
    "  {\"name\": \"w_qkv\", \"type\": \"f32\", \"role\": \"in\", \"shape\": [\"3*d_model\", "
    "\"d_model\"]},"
    "  {\"name\": \"mask\", \"type\": \"u8\", \"role\": \"in\", \"shape\": [\"Tq\", \"Tk\"], "
    "\"nullable\": true},"
    "  {\"name\": \"idx\", \"type\": \"i32\", \"role\": \"in\", \"shape\": [\"B\"]},"
    "  {\"name\": \"out\", \"type\": \"f32\", \"role\": \"out\", \"shape\": [\"B\", \"Tq\", "
    "\"d_model\"]},"
    "  {\"name\": \"B\", \"type\": \"int\"},"
    "  {\"name\": \"Tq\", \"type\": \"int\"},"
    "  {\"name\": \"Tk\", \"type\": \"int\"},"
    "  {\"name\": \"d_model\", \"type\": \"int\"},"
    "  {\"name\": \"num_heads\", \"type\": \"int\"}"
    " ],"
    " \"constraints\": [\"d_model % num_heads == 0\", \"B >= 1\"],"
    " \"generators\": {"
    "  \"query\": {\"dist\": \"normal\", \"mean\": 0, \"std\": 1},"
    "  \"key\": {\"dist\": \"uniform\", \"lo\": -2, \"hi\": 2},"
    "  \"mask\": {\"dist\": \"bernoulli\", \"p\": 0.25, \"keep_row_open\": true}"
    " },"
    " \"tolerance\": {\"atol\": 1e-5, \"rtol\": 1e-4, \"atol_relative_to_max\": true},"
    " \"limits\": {\"cpu_ms\": 2000, \"wall_ms\": 5000, \"memory_mb\": 256},"
    " \"tests\": ["
    "  {\"name\": \"sample-small\", \"kind\": \"sample\", \"seed\": 11,"
    "   \"dims\": {\"B\": 1, \"Tq\": 3, \"Tk\": 5, \"d_model\": 8, \"num_heads\": 2}},"
    "  {\"name\": \"no-mask\", \"kind\": \"hidden\", \"weight\": 2, \"null\": [\"mask\"],"
    "   \"dims\": {\"B\": 2, \"Tq\": 9, \"Tk\": 4, \"d_model\": 12, \"num_heads\": 3},"
    "   \"generators\": {\"query\": {\"std\": 40}, \"key\": {\"dist\": \"normal\"}},"
    "   \"limits\": {\"cpu_ms\": 3000}}"
    " ]"
    "}";

struct fixture {
    char root[64];  /* temporary directory */
    char dir[128];  /* root/mha-cross, the package */
    char refs[128]; /* root/reference, a reference_dir */
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void write_json(const char *dir, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(1));

    assert_non_null(text);
    write_file(dir, "problem.json", text, strlen(text));
    free(text);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);

    if (!fx)
        return -1;
    strcpy(fx->root, "/tmp/attnjudge-problem-XXXXXX");
    if (!mkdtemp(fx->root))
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "%s/%s", fx->root, SLUG);
    snprintf(fx->refs, sizeof fx->refs, "%s/reference", fx->root);
    if (mkdir(fx->dir, 0755) != 0 || mkdir(fx->refs, 0755) != 0)
        return -1;
    write_file(fx->dir, "problem.json", base_json, strlen(base_json));
    write_file(fx->dir, "statement.md", "# Cross attention\n\n$x$\n", 23);
    write_file(fx->dir, "starter.c", "void mha_cross(void) {}\n", 24);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc = nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    free(fx);
    return rc;
}

static json_t *base(void)
{
    json_error_t jerr;
    json_t *root = json_loads(base_json, 0, &jerr);

    if (!root)
        fail_msg("base_json: line %d: %s", jerr.line, jerr.text);
    return root;
}

static struct problem *load_ok(struct fixture *fx)
{
    char err[PROBLEM_ERR_LEN] = "";
    struct problem *p = problem_load(fx->dir, fx->refs, err, sizeof err);

    if (!p)
        fail_msg("load failed: %s", err);
    return p;
}

/* Loads the package and expects an error containing want. */
static void expect_error(struct fixture *fx, const char *want)
{
    char err[PROBLEM_ERR_LEN] = "";
    struct problem *p = problem_load(fx->dir, fx->refs, err, sizeof err);

    if (p) {
        problem_free(p);
        fail_msg("loaded, expected error '%s'", want);
    }
    if (!strstr(err, want))
        fail_msg("error '%s' does not contain '%s'", err, want);
}

/* Writes root (consumed) as the package's problem.json and expects want. */
static void expect_json_error(struct fixture *fx, json_t *root, const char *want)
{
    write_json(fx->dir, root);
    json_decref(root);
    expect_error(fx, want);
}

/* Shorthands for mutations. */
static json_t *param(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "params"), i);
}

static json_t *test_obj(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "tests"), i);
}

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

static void test_defaults(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base();
    struct problem *p;

    json_object_del(root, "limits");
    json_object_del(root, "generators");
    json_object_del(root, "constraints");
    json_object_del(root, "tags");
    json_object_del(root, "prerequisites");
    json_object_del(json_object_get(root, "tolerance"), "atol_relative_to_max");
    json_object_del(test_obj(root, 1), "generators");
    json_object_del(test_obj(root, 1), "limits");
    write_json(fx->dir, root);
    json_decref(root);

    p = load_ok(fx);
    assert_int_equal(p->limits.cpu_ms, 2000);
    assert_int_equal(p->limits.wall_ms, 6000);
    assert_int_equal(p->limits.memory_mb, 256);
    assert_int_equal(p->tests[1].limits.wall_ms, 6000);
    assert_false(p->tol.atol_relative_to_max);
    assert_int_equal(p->n_constraints, 0);
    assert_int_equal(p->n_tags, 0);
    assert_int_equal(p->params[0].gen.dist, GEN_NORMAL);
    assert_true(p->params[0].gen.mean == 0 && p->params[0].gen.std == 1);
    assert_int_equal(p->params[3].gen.dist, GEN_BERNOULLI);
    assert_true(p->params[3].gen.p == 0.5 && !p->params[3].gen.keep_row_open);
    assert_int_equal(p->tests[1].gen[3].dist, GEN_BERNOULLI);
    assert_false(p->run_all_tests);
    problem_free(p);
}

/* run_all_tests: an optional boolean, false by default (test_defaults). */
static void test_run_all_tests(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base();

    json_object_set_new(root, "run_all_tests", json_true());
    write_json(fx->dir, root);
    json_decref(root);
    struct problem *p = load_ok(fx);
    assert_true(p->run_all_tests);
    problem_free(p);
    root = base();
    json_object_set_new(root, "run_all_tests", json_string("yes"));
    expect_json_error(fx, root, "run_all_tests: must be true or false");
}

static void test_reference_lookup(void **state)
{
    struct fixture *fx = *state;
    char want[256];
    struct problem *p;

    write_file(fx->refs, SLUG ".c", "/* ref */\n", 10);
    p = load_ok(fx);
    snprintf(want, sizeof want, "%s/%s.c", fx->refs, SLUG);
    assert_string_equal(p->reference_path, want);
    problem_free(p);

    /* The package's own reference.c wins. */
    write_file(fx->dir, "reference.c", "/* own */\n", 10);
    p = load_ok(fx);
    snprintf(want, sizeof want, "%s/reference.c", fx->dir);
    assert_string_equal(p->reference_path, want);
    problem_free(p);

    /* A trailing slash still gives the slug as the directory name. */
    {
        char dir[160], err[PROBLEM_ERR_LEN];

        snprintf(dir, sizeof dir, "%s/", fx->dir);
        p = problem_load(dir, NULL, err, sizeof err);
        assert_non_null(p);
        problem_free(p);
    }
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

/* ---- validation errors ------------------------------------------------ */

static void test_error_unknown_dimension(void **state)
{
    json_t *root = base();

    json_array_set_new(json_object_get(param(root, 3), "shape"), 1, json_string("Tkk"));
    expect_json_error(*state, root, "params[3].shape[1]: unknown dimension 'Tkk'");
}

static void test_error_missing_dim(void **state)
{
    json_t *root = base();

    json_object_del(json_object_get(test_obj(root, 1), "dims"), "num_heads");
    expect_json_error(*state, root, "tests[1].dims: missing 'num_heads'");
}

static void test_error_hidden_seed(void **state)
{
    json_t *root = base();

    json_object_set_new(test_obj(root, 1), "seed", json_integer(5));
    expect_json_error(*state, root, "tests[1]: hidden tests must not carry a seed");
}

static void test_error_sample_without_seed(void **state)
{
    json_t *root = base();

    json_object_del(test_obj(root, 0), "seed");
    expect_json_error(*state, root, "tests[0]: sample tests need a 'seed'");
}

static void test_error_duplicate_test(void **state)
{
    json_t *root = base();

    json_object_set_new(test_obj(root, 1), "name", json_string("sample-small"));
    expect_json_error(*state, root, "tests[1].name: duplicate test name 'sample-small'");
}

static void test_error_slug_mismatch(void **state)
{
    json_t *root = base();

    json_object_set_new(root, "slug", json_string("other"));
    expect_json_error(*state, root, "slug: 'other' does not match the directory name 'mha-cross'");
    root = base();
    json_object_set_new(root, "slug", json_string("Bad_Slug"));
    expect_json_error(*state, root, "slug: 'Bad_Slug' must match");
}

static void test_error_too_many_params(void **state)
{
    json_t *root = base(), *params = json_object_get(root, "params");
    char name[16];

    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        snprintf(name, sizeof name, "n%d", i);
        json_array_append_new(params, json_pack("{s:s, s:s}", "name", name, "type", "int"));
    }
    expect_json_error(*state, root, "params: more than 32 parameters");
}

static void test_error_param_names(void **state)
{
    json_t *root = base();

    json_object_set_new(param(root, 0), "name", json_string("2x"));
    expect_json_error(*state, root, "params[0].name: '2x' is not a C identifier");
    root = base();
    json_object_set_new(param(root, 0), "name", json_string("float"));
    expect_json_error(*state, root, "params[0].name: 'float' is a reserved C name");
    root = base();
    json_object_set_new(param(root, 0), "name", json_string("__x"));
    expect_json_error(*state, root, "params[0].name: '__x' is a reserved identifier");
    root = base();
    json_object_set_new(param(root, 1), "name", json_string("query"));
    expect_json_error(*state, root, "params[1].name: duplicate parameter 'query'");
    root = base();
    json_object_set_new(root, "function", json_string("main"));
    expect_json_error(*state, root, "function: 'main' is a reserved C name");
}

static void test_error_out_tensors(void **state)
{
    json_t *root = base();

    json_object_set_new(param(root, 5), "nullable", json_true());
    expect_json_error(*state, root, "params[5].nullable: an out tensor cannot be nullable");
    root = base();
    json_object_set_new(param(root, 5), "role", json_string("in"));
    expect_json_error(*state, root, "params: at least one tensor must have role 'out' or 'inout'");
    root = base();
    json_object_set_new(param(root, 5), "role", json_string("both"));
    expect_json_error(*state, root, "params[5].role: 'both' is not 'in', 'out' or 'inout'");
    root = base();
    json_object_set_new(param(root, 5), "role", json_string("inout"));
    json_object_set_new(param(root, 5), "nullable", json_true());
    expect_json_error(*state, root, "params[5].nullable: an inout tensor cannot be nullable");
}

/* Float scalar parameters (eps) and in-place (inout) tensors: what loads,
 * the prototype and call stub they give, and the errors. */
static void test_scalars_inout(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base(), *params = json_object_get(root, "params");
    char proto[512];
    char *proto_h = NULL, *call_c = NULL;

    /* query becomes in place; eps (float) and scale (double) are appended */
    json_object_set_new(param(root, 0), "role", json_string("inout"));
    json_array_append_new(
        params, json_pack("{s:s, s:s, s:f}", "name", "eps", "type", "float", "value", 1e-5));
    json_array_append_new(
        params, json_pack("{s:s, s:s, s:i}", "name", "scale", "type", "double", "value", 2));
    json_object_set_new(test_obj(root, 1), "scalars", json_pack("{s:f}", "eps", 0.25));
    write_json(fx->dir, root);
    json_decref(root);
    struct problem *p = load_ok(fx);
    assert_int_equal(p->params[0].role, ROLE_INOUT);
    assert_true(param_is_input(&p->params[0]) && param_is_output(&p->params[0]));
    assert_true(param_is_output(&p->params[5]) && !param_is_input(&p->params[5]));
    assert_false(param_is_input(&p->params[11]) || param_is_output(&p->params[11]));
    assert_int_equal(p->params[11].kind, PARAM_FLOAT);
    assert_false(p->params[11].is_double);
    assert_true(p->params[12].is_double);
    assert_int_equal(p->n_dims, 5); /* scalars are not dimensions */
    /* a test without "scalars" gets the declared values; one with them, its own */
    assert_true(p->tests[0].scalars[11] == 1e-5 && p->tests[0].scalars[12] == 2.0);
    assert_true(p->tests[1].scalars[11] == 0.25 && p->tests[1].scalars[12] == 2.0);
    double defaults[PROBLEM_MAX_PARAMS];
    problem_default_scalars(p, defaults);
    assert_true(defaults[11] == 1e-5 && defaults[12] == 2.0 && defaults[0] == 0);
    assert_string_equal(problem_role_name(ROLE_INOUT), "inout");

    assert_true(harness_prototype(p, proto, sizeof proto) > 0);
    assert_string_equal(proto, "void mha_cross(float *query, const float *key, "
                               "const float *w_qkv, const unsigned char *mask, const int32_t *idx, "
                               "float *out, int B, int Tq, int Tk, int d_model, int num_heads, "
                               "float eps, double scale)");
    assert_int_equal(harness_generate(p, &proto_h, &call_c), 0);
    assert_non_null(strstr(call_c, "mha_cross((float *)t[0], (const float *)t[1]"));
    assert_non_null(strstr(call_c, "(int)d[4], (float)s[0], (double)s[1]);"));
    free(proto_h);
    free(call_c);
    problem_free(p);

    /* generators may fill an inout tensor (its value before the call) */
    root = base();
    json_object_set_new(param(root, 0), "role", json_string("inout"));
    write_json(fx->dir, root);
    json_decref(root);
    problem_free(load_ok(fx));

    root = base();
    json_array_append_new(json_object_get(root, "params"),
                          json_pack("{s:s, s:s}", "name", "eps", "type", "float"));
    expect_json_error(fx, root, "params[11]: missing 'value'");
    root = base();
    json_array_append_new(
        json_object_get(root, "params"),
        json_pack("{s:s, s:s, s:s}", "name", "eps", "type", "float", "value", "small"));
    expect_json_error(fx, root, "params[11].value: must be a number");
    root = base();
    json_array_append_new(
        json_object_get(root, "params"),
        json_pack("{s:s, s:s, s:f}", "name", "eps", "type", "float", "value", 1e39));
    expect_json_error(fx, root, "params[11].value: 1e+39 does not fit a float");
    root = base();
    json_array_append_new(json_object_get(root, "params"),
                          json_pack("{s:s, s:s, s:f, s:o}", "name", "eps", "type", "float", "value",
                                    1e-5, "shape", json_pack("[s]", "B")));
    expect_json_error(fx, root, "params[11]: unknown key 'shape'");
    root = base();
    json_array_append_new(
        json_object_get(root, "params"),
        json_pack("{s:s, s:s, s:f}", "name", "eps", "type", "float", "value", 1e-5));
    json_object_set_new(test_obj(root, 0), "scalars", json_pack("{s:i}", "B", 3));
    expect_json_error(fx, root, "tests[0].scalars: 'B' is not a float or double parameter");
    root = base();
    json_object_set_new(test_obj(root, 0), "scalars", json_pack("[]"));
    expect_json_error(fx, root, "tests[0].scalars: must be an object");
    root = base();
    json_array_append_new(
        json_object_get(root, "params"),
        json_pack("{s:s, s:s, s:f}", "name", "eps", "type", "double", "value", 1e-5));
    json_object_set_new(json_object_get(root, "generators"), "eps", json_pack("{s:i}", "std", 1));
    expect_json_error(fx, root, "generators.eps: 'eps' is not an input (in or inout) tensor");
}

static void test_error_unknown_keys(void **state)
{
    json_t *root = base();

    json_object_set_new(param(root, 3), "nulable", json_true());
    expect_json_error(*state, root, "params[3]: unknown key 'nulable'");
    root = base();
    json_object_set_new(root, "timelimit", json_integer(3));
    expect_json_error(*state, root, "unknown top-level key 'timelimit'");
    root = base();
    json_object_set_new(param(root, 6), "shape", json_pack("[s]", "B"));
    expect_json_error(*state, root, "params[6]: unknown key 'shape'");
    root = base();
    json_object_set_new(test_obj(root, 0), "sead", json_integer(3));
    expect_json_error(*state, root, "tests[0]: unknown key 'sead'");
    root = base();
    json_object_set_new(json_object_get(root, "limits"), "cpu", json_integer(3));
    expect_json_error(*state, root, "limits: unknown key 'cpu'");
}

static void test_error_types(void **state)
{
    json_t *root = base();

    json_object_set_new(param(root, 0), "type", json_string("f64"));
    expect_json_error(*state, root,
                      "params[0].type: 'f64' is not one of f32, u8, i32, int, float, double");
    root = base();
    json_object_set_new(root, "title", json_integer(1));
    expect_json_error(*state, root, "title: must be a string");
    root = base();
    json_object_del(root, "title");
    expect_json_error(*state, root, "missing 'title'");
    root = base();
    json_object_set_new(root, "difficulty", json_string("brutal"));
    expect_json_error(*state, root, "difficulty: 'brutal' is not easy, medium or hard");
    root = base();
    json_object_set_new(json_object_get(test_obj(root, 0), "dims"), "B", json_real(2.5));
    expect_json_error(*state, root, "tests[0].dims.B: must be an integer");
    root = base();
    json_object_set_new(json_object_get(test_obj(root, 0), "dims"), "B",
                        json_integer(5000000000LL));
    expect_json_error(*state, root, "tests[0].dims.B: must be between");
    root = base();
    json_object_set_new(json_object_get(test_obj(root, 0), "dims"), "foo", json_integer(1));
    expect_json_error(*state, root, "tests[0].dims: unknown dimension 'foo'");
    root = base();
    json_object_set_new(param(root, 0), "shape", json_array());
    expect_json_error(*state, root, "params[0].shape: must be an array of 1 to 8");
    root = base();
    json_object_set_new(root, "tests", json_array());
    expect_json_error(*state, root, "tests: must be a non-empty array");
    root = base();
    json_object_set_new(root, "prerequisites", json_pack("[s]", "Not A Slug"));
    expect_json_error(*state, root, "prerequisites[0]: 'Not A Slug' is not a valid slug");
}

static void test_error_constraints(void **state)
{
    json_t *root = base();

    json_object_set_new(json_object_get(test_obj(root, 0), "dims"), "num_heads", json_integer(3));
    expect_json_error(*state, root,
                      "tests[0]: constraint 'd_model % num_heads == 0' does not hold");
    root = base();
    json_array_set_new(json_object_get(root, "constraints"), 0, json_string("d_model %% 2"));
    expect_json_error(*state, root, "constraints[0]: 'd_model %% 2': unexpected '%' at column 9");
    root = base();
    json_array_set_new(json_object_get(root, "constraints"), 1, json_string("heads > 0"));
    expect_json_error(*state, root, "constraints[1]: unknown dimension 'heads'");
    root = base();
    /* A shape may not name a tensor, only dimensions. */
    json_array_set_new(json_object_get(param(root, 0), "shape"), 0, json_string("query"));
    expect_json_error(*state, root, "params[0].shape[0]: unknown dimension 'query'");
}

static void test_error_nonpositive_shape(void **state)
{
    json_t *root = base();

    json_array_set_new(json_object_get(param(root, 0), "shape"), 1, json_string("Tq - 3"));
    expect_json_error(*state, root, "tests[0]: query: shape[1] 'Tq - 3' is 0, must be positive");
}

static void test_error_generators(void **state)
{
    json_t *root = base();

    json_object_set_new(json_object_get(root, "generators"), "out",
                        json_pack("{s:s}", "dist", "normal"));
    expect_json_error(*state, root, "generators.out: 'out' is not an input (in or inout) tensor");
    root = base();
    json_object_set_new(json_object_get(json_object_get(root, "generators"), "query"), "p",
                        json_real(0.5));
    expect_json_error(*state, root, "generators.query.p: not a parameter of 'normal'");
    root = base();
    json_object_set_new(json_object_get(test_obj(root, 1), "generators"), "mask",
                        json_pack("{s:s}", "dist", "normal"));
    expect_json_error(*state, root, "tests[1].generators.mask: 'normal' cannot fill a u8 tensor");
    root = base();
    json_object_set_new(json_object_get(root, "generators"), "mask",
                        json_pack("{s:s}", "dist", "gaussian"));
    expect_json_error(*state, root, "generators.mask.dist: 'gaussian' is not one of");
    root = base();
    json_object_set_new(param(root, 3), "shape", json_pack("[s]", "Tk"));
    json_object_set_new(json_object_get(root, "generators"), "mask",
                        json_pack("{s:s}", "dist", "causal"));
    expect_json_error(*state, root, "generators.mask: 'causal' needs a u8 tensor of rank >= 2");
    root = base();
    json_object_set_new(json_object_get(json_object_get(root, "generators"), "mask"), "p",
                        json_real(1.5));
    expect_json_error(*state, root, "generators.mask: 'bernoulli' needs 0 <= p <= 1");
    root = base();
    json_object_set_new(json_object_get(root, "generators"), "idx",
                        json_pack("{s:f, s:i}", "lo", 0.5, "hi", 3));
    expect_json_error(*state, root, "generators.idx: 'int_uniform' needs integers");
}

static void test_error_tests(void **state)
{
    json_t *root = base();

    json_object_set_new(test_obj(root, 1), "null", json_pack("[s]", "query"));
    expect_json_error(*state, root, "tests[1].null[0]: 'query' is not nullable");
    root = base();
    json_object_set_new(test_obj(root, 1), "null", json_pack("[s]", "B"));
    expect_json_error(*state, root, "tests[1].null[0]: 'B' is not a tensor parameter");
    root = base();
    json_object_set_new(test_obj(root, 1), "name", json_string("Big Test"));
    expect_json_error(*state, root, "tests[1].name: 'Big Test' must match");
    root = base();
    json_object_set_new(test_obj(root, 1), "weight", json_integer(0));
    expect_json_error(*state, root, "tests[1].weight: must be between 1 and 1000");
    root = base();
    json_object_set_new(test_obj(root, 1), "kind", json_string("secret"));
    expect_json_error(*state, root, "tests[1].kind: 'secret' is not 'sample' or 'hidden'");
    root = base();
    json_object_set_new(test_obj(root, 0), "seed", json_integer(-1));
    expect_json_error(*state, root, "tests[0].seed: must be between 0 and");
    root = base();
    json_object_set_new(json_object_get(test_obj(root, 1), "limits"), "wall_ms", json_integer(0));
    expect_json_error(*state, root, "tests[1].limits.wall_ms: must be between 1 and");
}

static void test_error_tolerance(void **state)
{
    json_t *root = base();

    json_object_del(root, "tolerance");
    expect_json_error(*state, root, "missing 'tolerance'");
    root = base();
    json_object_set_new(json_object_get(root, "tolerance"), "atol", json_real(-1));
    expect_json_error(*state, root, "tolerance.atol: must be a number >= 0");
    root = base();
    json_object_del(json_object_get(root, "tolerance"), "rtol");
    expect_json_error(*state, root, "tolerance: missing 'rtol'");
    root = base();
    json_object_set_new(json_object_get(root, "tolerance"), "atol_relative_to_max",
                        json_string("yes"));
    expect_json_error(*state, root, "tolerance.atol_relative_to_max: must be true or false");
}

static void test_error_files(void **state)
{
    struct fixture *fx = *state;
    char path[256], *big;
    size_t n = 1024 * 1024 + 1;

    write_file(fx->dir, "problem.json", "{\"slug\": \"mha-cross\",", 21);
    expect_error(fx, "problem.json: line 1");
    write_file(fx->dir, "problem.json", "{\"slug\": \"a\", \"slug\": \"b\"}", 26);
    expect_error(fx, "duplicate object key");
    write_file(fx->dir, "problem.json", "[1]", 3);
    expect_error(fx, "problem.json: must be a JSON object");

    big = malloc(n);
    assert_non_null(big);
    memset(big, ' ', n);
    write_file(fx->dir, "problem.json", big, n);
    free(big);
    expect_error(fx, "problem.json: larger than 1048576 bytes");

    write_file(fx->dir, "problem.json", base_json, strlen(base_json));
    write_file(fx->dir, "statement.md", "caf\xc3(\n", 6);
    expect_error(fx, "statement.md: not valid UTF-8");
    write_file(fx->dir, "statement.md", "a\0b", 3);
    expect_error(fx, "statement.md: contains a NUL byte");
    snprintf(path, sizeof path, "%s/statement.md", fx->dir);
    unlink(path);
    expect_error(fx, "statement.md: missing");
    mkdir(path, 0755);
    expect_error(fx, "statement.md: not a regular file");
    rmdir(path);
    write_file(fx->dir, "statement.md", "ok\n", 3);
    snprintf(path, sizeof path, "%s/starter.c", fx->dir);
    unlink(path);
    expect_error(fx, "starter.c: missing");

    snprintf(path, sizeof path, "%s/nonexistent", fx->root);
    {
        char err[PROBLEM_ERR_LEN];

        assert_null(problem_load(path, NULL, err, sizeof err));
        assert_string_equal(err, "problem.json: missing");
    }
}

/* A mistakes array of one entry {id, title, hint}. */
/* Appends the elements of b to a and drops b (json_array_extend keeps it). */
static void extend_new(json_t *a, json_t *b)
{
    json_array_extend(a, b);
    json_decref(b);
}

static json_t *one_mistake(const char *id, const char *title, const char *hint)
{
    json_t *a = json_array();
    json_t *m = json_object();

    assert_non_null(a);
    assert_non_null(m);
    if (id)
        json_object_set_new(m, "id", json_string(id));
    if (title)
        json_object_set_new(m, "title", json_string(title));
    if (hint)
        json_object_set_new(m, "hint", json_string(hint));
    json_array_append_new(a, m);
    return a;
}

static void test_mistakes(void **state)
{
    struct fixture *fx = *state;
    char path[256], want[256], *big;
    json_t *root = base();
    struct problem *p;

    /* none listed: none loaded */
    p = load_ok(fx);
    assert_int_equal(p->n_mistakes, 0);
    problem_free(p);

    snprintf(path, sizeof path, "%s/mistakes", fx->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    write_file(path, "no-scale.c", "/* variant */\n", 15);
    write_file(path, "no-mask.c", "/* variant */\n", 15);
    json_t *ms = one_mistake("no-scale", "attention without the scale", "Divide by sqrt(d).");
    extend_new(ms, one_mistake("no-mask", "attention without the mask", "Mask it."));
    json_object_set_new(root, "mistakes", ms);
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    assert_int_equal(p->n_mistakes, 2);
    assert_string_equal(p->mistakes[0].id, "no-scale");
    assert_string_equal(p->mistakes[0].title, "attention without the scale");
    assert_string_equal(p->mistakes[0].hint, "Divide by sqrt(d).");
    snprintf(want, sizeof want, "%s/mistakes/no-mask.c", fx->dir);
    assert_string_equal(p->mistakes[1].path, want);
    problem_free(p);

    root = base();
    json_object_set_new(root, "mistakes", json_object());
    expect_json_error(fx, root, "mistakes: must be an array of objects");
    root = base();
    json_object_set_new(root, "mistakes", one_mistake("No_Scale", "t", "h"));
    expect_json_error(fx, root, "mistakes[0].id: 'No_Scale' must match");
    root = base();
    json_object_set_new(root, "mistakes", one_mistake("no-scale", NULL, "h"));
    expect_json_error(fx, root, "mistakes[0]: missing 'title'");
    root = base();
    json_object_set_new(root, "mistakes", one_mistake("no-scale", "t", ""));
    expect_json_error(fx, root, "mistakes[0].hint: must not be empty");
    root = base();
    ms = one_mistake("no-scale", "t", "h");
    json_object_set_new(json_array_get(ms, 0), "code", json_string("x"));
    json_object_set_new(root, "mistakes", ms);
    expect_json_error(fx, root, "mistakes[0]: unknown key 'code'");
    root = base();
    ms = one_mistake("no-scale", "t", "h");
    extend_new(ms, one_mistake("no-scale", "u", "h"));
    json_object_set_new(root, "mistakes", ms);
    expect_json_error(fx, root, "mistakes[1].id: duplicate mistake 'no-scale' (also mistakes[0])");
    root = base();
    json_object_set_new(root, "mistakes", one_mistake("missing-file", "t", "h"));
    expect_json_error(fx, root, "mistakes[0]: mistakes/missing-file.c: missing");
    root = base();
    big = malloc(PROBLEM_MISTAKE_HINT_MAX + 2);
    assert_non_null(big);
    memset(big, 'a', PROBLEM_MISTAKE_HINT_MAX + 1);
    big[PROBLEM_MISTAKE_HINT_MAX + 1] = '\0';
    json_object_set_new(root, "mistakes", one_mistake("no-scale", "t", big));
    free(big);
    expect_json_error(fx, root, "mistakes[0].hint: longer than 1000 bytes");
    root = base();
    ms = json_array();
    for (int i = 0; i <= PROBLEM_MAX_MISTAKES; i++)
        extend_new(ms, one_mistake("no-scale", "t", "h"));
    json_object_set_new(root, "mistakes", ms);
    expect_json_error(fx, root, "mistakes: more than 32 entries");

    /* read like the reference: a symlink is refused */
    snprintf(want, sizeof want, "%s/mistakes/linked.c", fx->dir);
    assert_int_equal(symlink("no-scale.c", want), 0);
    root = base();
    json_object_set_new(root, "mistakes", one_mistake("linked", "t", "h"));
    expect_json_error(fx, root, "mistakes[0]: mistakes/linked.c: not a regular file");
}

/* The "benchmark" key: sizes loaded like tests (dims, null tensors,
 * generator overrides), limits ten times the problem's unless a size sets
 * its own, the FLOP and byte counts evaluated per size. */
static json_t *bench_json(void)
{
    json_error_t jerr;
    json_t *b = json_loads(
        "{\"flops\": \"2*B*Tq*Tk*d_model\", \"bytes\": \"4*B*(Tq+Tk)*d_model\","
        " \"sizes\": ["
        "  {\"name\": \"small\", \"dims\": {\"B\": 1, \"Tq\": 64, \"Tk\": 128, \"d_model\": 64,"
        "   \"num_heads\": 4}, \"null\": [\"mask\"]},"
        "  {\"name\": \"large\", \"dims\": {\"B\": 2, \"Tq\": 256, \"Tk\": 256, \"d_model\": 128,"
        "   \"num_heads\": 8}, \"generators\": {\"query\": {\"std\": 3}},"
        "   \"limits\": {\"cpu_ms\": 50000}}]}",
        0, &jerr);
    if (!b)
        fail_msg("bench_json: %s", jerr.text);
    return b;
}

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
static void test_error_benchmark(void **state)
{
    struct fixture *fx = *state;
    json_t *root, *b;

    root = base();
    json_object_set_new(root, "benchmark", json_string("fast"));
    expect_json_error(fx, root, "benchmark: must be an object");
    root = base();
    b = bench_json();
    json_object_set_new(b, "repeat", json_integer(3));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark: unknown key 'repeat'");
    root = base();
    b = bench_json();
    json_object_set_new(b, "flops", json_string("2*B*Tz"));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark.flops: unknown dimension 'Tz'");
    root = base();
    b = bench_json();
    json_object_del(b, "bytes");
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "bytes");
    root = base();
    b = bench_json();
    json_object_set_new(b, "bytes", json_string("Tq - Tk"));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root,
                      "benchmark.sizes[0]: benchmark: flops must be 0 or more and bytes "
                      "positive");
    root = base();
    b = bench_json();
    json_object_set_new(b, "sizes", json_array());
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark.sizes: must be an array of 1 to 4 sizes");
    root = base();
    b = bench_json();
    json_object_set_new(json_array_get(json_object_get(b, "sizes"), 1), "name",
                        json_string("small"));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark.sizes[1].name: duplicate size name 'small'");
    root = base();
    b = bench_json();
    json_object_set_new(json_array_get(json_object_get(b, "sizes"), 0), "kind",
                        json_string("hidden"));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark.sizes[0]: unknown key 'kind'");
    root = base();
    b = bench_json();
    json_object_set_new(json_object_get(json_array_get(json_object_get(b, "sizes"), 0), "dims"),
                        "d_model", json_integer(66));
    json_object_set_new(root, "benchmark", b);
    expect_json_error(fx, root, "benchmark.sizes[0]: constraint 'd_model % num_heads == 0'");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_load_valid),
        T(test_defaults),
        T(test_run_all_tests),
        T(test_reference_lookup),
        T(test_mistakes),
        T(test_queries),
        T(test_parse_dims),
        T(test_prototype),
        cmocka_unit_test(test_slug_valid),
        T(test_error_unknown_dimension),
        T(test_error_missing_dim),
        T(test_error_hidden_seed),
        T(test_error_sample_without_seed),
        T(test_error_duplicate_test),
        T(test_error_slug_mismatch),
        T(test_error_too_many_params),
        T(test_error_param_names),
        T(test_error_out_tensors),
        T(test_scalars_inout),
        T(test_error_unknown_keys),
        T(test_error_types),
        T(test_error_constraints),
        T(test_error_nonpositive_shape),
        T(test_error_generators),
        T(test_error_tests),
        T(test_error_tolerance),
        T(test_error_files),
        T(test_benchmark),
        T(test_error_benchmark),
    };
#undef T

    return cmocka_run_group_tests(tests, NULL, NULL);
}
