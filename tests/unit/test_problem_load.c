/*
 * Unit tests of judge/problem_load.c, problem.json strictly: the defaults
 * it fills in, each validation error naming the offending field (on the
 * "mha-cross" package of problem_fixture.h), a load that reports every
 * error at once (problem_load_all), and the statement's prototype check
 * (judge/protocheck.c).
 *
 * The every-error cases scaffold a package with `problem new`'s templates
 * (cli/scaffold.c) into a fresh temporary directory, edits problem.json
 * with jansson or rewrites statement.md, and loads it.
 */
#include "tests/unit/problem_fixture.h"

#include "cli/cli.h"
#include "judge/harness.h"
#include "judge/protocheck.h"

struct scaffold {
    char root[64];
    char dir[4096]; /* root/pkg: the package */
};

static int scaffold_setup(void **state)
{
    struct scaffold *fx = calloc(1, sizeof *fx);
    char err[PROBLEM_ERR_LEN];

    assert_non_null(fx);
    snprintf(fx->root, sizeof fx->root, "/tmp/attnjudge-load.XXXXXX");
    assert_non_null(mkdtemp(fx->root));
    assert_int_equal(cli_scaffold(fx->root, "pkg", fx->dir, sizeof fx->dir, err, sizeof err), 0);
    *state = fx;
    return 0;
}

static int scaffold_teardown(void **state)
{
    struct scaffold *fx = *state;
    assert_int_equal(nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
    free(fx);
    return 0;
}

static json_t *scaffold_read_json(const struct scaffold *fx)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/problem.json", fx->dir);
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    return root;
}

/* Writes root (stolen) as the package's problem.json. */
static void scaffold_write_json(const struct scaffold *fx, json_t *root)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/problem.json", fx->dir);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
}

static void scaffold_write_file(const struct scaffold *fx, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* errs holds an error for field whose text contains text. */
static void expect_field_error(const struct problem_errors *errs, const char *field,
                               const char *text)
{
    for (size_t i = 0; i < errs->n; i++)
        if (strcmp(errs->e[i].field, field) == 0 && strstr(errs->e[i].text, text))
            return;
    for (size_t i = 0; i < errs->n; i++)
        print_message("  [%s] %s\n", errs->e[i].field, errs->e[i].text);
    fail_msg("no error on %s saying '%s'", field, text);
}

static void test_scaffold_loads(void **state)
{
    struct scaffold *fx = *state;
    struct problem_errors errs;
    struct problem *p = problem_load_all(fx->dir, NULL, &errs);
    assert_non_null(p);
    assert_int_equal(errs.n, 0);
    assert_int_equal(errs.n_more, 0);
    problem_errors_free(&errs);
    problem_free(p);
}

/* four errors in four places: all four, in the file's order, each with
 * its field; problem_load's single message is the first of them */
static void test_four_errors_at_once(void **state)
{
    struct scaffold *fx = *state;
    json_t *root = scaffold_read_json(fx);
    json_object_set_new(root, "difficulty", json_string("trivial"));
    json_object_set_new(json_object_get(root, "tolerance"), "atol", json_integer(-1));
    json_object_set_new(json_object_get(root, "limits"), "cpu_ms", json_string("fast"));
    json_object_set_new(json_array_get(json_object_get(root, "tests"), 1), "kind",
                        json_string("secret"));
    scaffold_write_json(fx, root);

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    assert_int_equal(errs.n, 4);
    assert_int_equal(errs.n_more, 0);
    assert_string_equal(errs.e[0].field, "difficulty");
    assert_string_equal(errs.e[0].text, "difficulty: 'trivial' is not easy, medium or hard");
    assert_string_equal(errs.e[1].field, "tolerance.atol");
    assert_string_equal(errs.e[2].field, "limits.cpu_ms");
    assert_string_equal(errs.e[3].field, "tests[1].kind");
    assert_non_null(strstr(errs.e[3].text, "'secret' is not 'sample' or 'hidden'"));

    char err[PROBLEM_ERR_LEN];
    assert_null(problem_load(fx->dir, NULL, err, sizeof err));
    assert_string_equal(err, errs.e[0].text);
    problem_errors_free(&errs);
    assert_int_equal(errs.n, 0);
}

/* one error per parameter, test and mistake, the rest of each list still
 * checked; a missing top-level field is named as the field */
static void test_errors_per_item(void **state)
{
    struct scaffold *fx = *state;
    json_t *root = scaffold_read_json(fx);
    json_t *params = json_object_get(root, "params"), *tests = json_object_get(root, "tests");
    json_object_set_new(json_array_get(params, 0), "type", json_string("f64"));
    json_object_set_new(json_array_get(params, 2), "nme", json_string("x"));
    json_object_del(root, "title");
    json_object_set_new(root, "mistakes",
                        json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "id", "Bad Id", "title",
                                  "t", "hint", "h", "id", "fine", "title", "", "hint", "h"));
    (void)tests;
    scaffold_write_json(fx, root);

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    expect_field_error(&errs, "title", "missing 'title'");
    expect_field_error(&errs, "params[0].type", "'f64' is not one of");
    expect_field_error(&errs, "params[2]", "nme");
    expect_field_error(&errs, "mistakes[0].id", "'Bad Id'");
    expect_field_error(&errs, "mistakes[1].title", "must not be empty");
    /* the tests name dimensions: not checked while the params are broken,
     * or every test would repeat the params' error */
    assert_int_equal(errs.n, 5);
    problem_errors_free(&errs);
}

/* problem.json's errors and the files' in one run */
static void test_json_and_file_errors(void **state)
{
    struct scaffold *fx = *state;
    json_t *root = scaffold_read_json(fx);
    json_object_set_new(json_array_get(json_object_get(root, "tests"), 0), "seed",
                        json_string("one"));
    scaffold_write_json(fx, root);
    char path[4200];
    snprintf(path, sizeof path, "%s/starter.c", fx->dir);
    assert_int_equal(unlink(path), 0);
    scaffold_write_file(fx, "hints/2.md", "  \n");

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    assert_int_equal(errs.n, 3);
    expect_field_error(&errs, "tests[0].seed", "must be an integer");
    expect_field_error(&errs, "starter.c", "starter.c: missing");
    expect_field_error(&errs, "hints/2.md", "empty");
    problem_errors_free(&errs);
}

/* errors beyond PROBLEM_MAX_ERRORS are counted, not kept */
static void test_error_cap(void **state)
{
    struct scaffold *fx = *state;
    json_t *root = scaffold_read_json(fx);
    json_t *tests = json_array();
    for (int i = 0; i < PROBLEM_MAX_ERRORS + 8; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        json_array_append_new(tests, json_pack("{s:s, s:s, s:{s:i, s:i}}", "name", name, "kind",
                                               "nope", "dims", "rows", 2, "cols", 3));
    }
    json_object_set_new(root, "tests", tests);
    scaffold_write_json(fx, root);

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    assert_int_equal(errs.n, PROBLEM_MAX_ERRORS);
    assert_int_equal(errs.n_more, 8);
    assert_string_equal(errs.e[PROBLEM_MAX_ERRORS - 1].field, "tests[31].kind");
    problem_errors_free(&errs);
}

/* ---- the statement's prototype ---- */

struct warnings {
    int n;
    char last[8192];
};

static void keep_warning(void *arg, bool ok, const char *line)
{
    struct warnings *w = arg;
    assert_true(ok); /* a warning never fails the package */
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", line);
}

/* Loads the package with statement.md replaced by md and counts the
 * prototype warnings into *w. */
static void check_statement(const struct scaffold *fx, const char *md, struct warnings *w)
{
    char err[PROBLEM_ERR_LEN];
    scaffold_write_file(fx, "statement.md", md);
    struct problem *p = problem_load(fx->dir, NULL, err, sizeof err);
    assert_non_null(p);
    memset(w, 0, sizeof *w);
    int found = protocheck_statement(p, keep_warning, w);
    assert_int_equal(found, w->n);
    problem_free(p);
}

static void expect_no_warning(const struct warnings *w)
{
    if (w->n)
        fail_msg("%d warnings, the last: %s", w->n, w->last);
}

/* the scaffold's nine-parameter edit left the statement's four: warned,
 * naming both prototypes and the line */
static void test_prototype_mismatch(void **state)
{
    struct scaffold *fx = *state;
    json_t *root = scaffold_read_json(fx);
    json_t *params = json_object_get(root, "params");
    json_array_insert_new(params, 1,
                          json_pack("{s:s, s:s, s:s, s:[s]}", "name", "bias", "type", "f32", "role",
                                    "in", "shape", "cols"));
    json_array_append_new(
        params, json_pack("{s:s, s:s, s:f}", "name", "scale", "type", "float", "value", 1.0));
    scaffold_write_json(fx, root);
    struct warnings w;

    check_statement(fx,
                    "# pkg\n\nText.\n\n```c\nvoid pkg(const float *x, float *y,\n"
                    "         int rows, int cols);\n```\n",
                    &w);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.last, "statement.md:6: declares void pkg(const float *x, float *y, "
                                   "int rows, int cols) (4 parameters)"));
    assert_non_null(strstr(w.last, "void pkg(const float *x, const float *bias, float *y, int "
                                   "rows, int cols, float scale) (6)"));

    /* the right one, however it is spaced, named or qualified: no warning */
    check_statement(fx,
                    "```c\nvoid pkg(const float * restrict in,const float *b , float *out,\n"
                    "         int r, int c, float s)\n{\n}\n```\n",
                    &w);
    expect_no_warning(&w);
    /* calls are prose, not declarations */
    check_statement(fx, "```c\npkg(x, y, n);\nint z = pkg(x);\nreturn pkg(a, b);\n```\n", &w);
    expect_no_warning(&w);
    /* a type changed, the count kept: warned */
    check_statement(fx,
                    "```c\nvoid pkg(const float *x, const float *bias, float *y, int rows, "
                    "int cols, double scale);\n```\n",
                    &w);
    assert_int_equal(w.n, 1);
    /* another function whose name starts with the same letters is not it */
    check_statement(fx, "```c\nvoid pkg_helper(int n);\n```\n", &w);
    expect_no_warning(&w);
}

/* every shipped problem's statement documents its own prototype */
static void test_shipped_statements_agree(void **state)
{
    (void)state;
    static const char *const slugs[] = {"attention-memory-bounded",
                                        "cross-attention-padding",
                                        "gpt2-attention",
                                        "gpt2-block-preln",
                                        "gqa-rope",
                                        "kv-cache-decode",
                                        "layernorm",
                                        "mha-backward",
                                        "mha-block-postln",
                                        "mha-cross",
                                        "mha-fused-qkv",
                                        "sdpa-single-head",
                                        "softmax-stable",
                                        "split-merge-heads",
                                        NULL};
    for (int i = 0; slugs[i]; i++) {
        char dir[256], err[PROBLEM_ERR_LEN];
        struct warnings w = {0};
        snprintf(dir, sizeof dir, "problems/%s", slugs[i]);
        struct problem *p = problem_load(dir, "reference", err, sizeof err);
        if (!p)
            fail_msg("%s: %s", slugs[i], err);
        protocheck_statement(p, keep_warning, &w);
        if (w.n)
            fail_msg("%s: %s", slugs[i], w.last);
        problem_free(p);
    }
}

/* ---- problem.json, one error at a time ---------------------------------- */

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
        T(test_defaults),
        T(test_run_all_tests),
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
        T(test_error_benchmark),
        cmocka_unit_test_setup_teardown(test_scaffold_loads, scaffold_setup, scaffold_teardown),
        cmocka_unit_test_setup_teardown(test_four_errors_at_once, scaffold_setup,
                                        scaffold_teardown),
        cmocka_unit_test_setup_teardown(test_errors_per_item, scaffold_setup, scaffold_teardown),
        cmocka_unit_test_setup_teardown(test_json_and_file_errors, scaffold_setup,
                                        scaffold_teardown),
        cmocka_unit_test_setup_teardown(test_error_cap, scaffold_setup, scaffold_teardown),
        cmocka_unit_test_setup_teardown(test_prototype_mismatch, scaffold_setup, scaffold_teardown),
        cmocka_unit_test(test_shipped_statements_agree),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
