/*
 * Unit tests of a package load that reports every error at once
 * (problem_load_all, judge/problem_load.c) and of the statement's
 * prototype check (judge/protocheck.c).
 *
 * Each case scaffolds a package with `problem new`'s templates
 * (cli/scaffold.c) into a fresh temporary directory, edits problem.json
 * with jansson or rewrites statement.md, and loads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ftw.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "judge/problem.h"
#include "judge/protocheck.h"

struct fixture {
    char root[64];
    char dir[4096]; /* root/pkg: the package */
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    char err[PROBLEM_ERR_LEN];

    assert_non_null(fx);
    snprintf(fx->root, sizeof fx->root, "/tmp/attnjudge-load.XXXXXX");
    assert_non_null(mkdtemp(fx->root));
    assert_int_equal(cli_scaffold(fx->root, "pkg", fx->dir, sizeof fx->dir, err, sizeof err), 0);
    *state = fx;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
    free(fx);
    return 0;
}

static json_t *read_json(const struct fixture *fx)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/problem.json", fx->dir);
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    return root;
}

/* Writes root (stolen) as the package's problem.json. */
static void write_json(const struct fixture *fx, json_t *root)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/problem.json", fx->dir);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
}

static void write_file(const struct fixture *fx, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* errs holds an error for field whose text contains text. */
static void expect_error(const struct problem_errors *errs, const char *field, const char *text)
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
    struct fixture *fx = *state;
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
    struct fixture *fx = *state;
    json_t *root = read_json(fx);
    json_object_set_new(root, "difficulty", json_string("trivial"));
    json_object_set_new(json_object_get(root, "tolerance"), "atol", json_integer(-1));
    json_object_set_new(json_object_get(root, "limits"), "cpu_ms", json_string("fast"));
    json_object_set_new(json_array_get(json_object_get(root, "tests"), 1), "kind",
                        json_string("secret"));
    write_json(fx, root);

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
    struct fixture *fx = *state;
    json_t *root = read_json(fx);
    json_t *params = json_object_get(root, "params"), *tests = json_object_get(root, "tests");
    json_object_set_new(json_array_get(params, 0), "type", json_string("f64"));
    json_object_set_new(json_array_get(params, 2), "nme", json_string("x"));
    json_object_del(root, "title");
    json_object_set_new(root, "mistakes",
                        json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "id", "Bad Id", "title",
                                  "t", "hint", "h", "id", "fine", "title", "", "hint", "h"));
    (void)tests;
    write_json(fx, root);

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    expect_error(&errs, "title", "missing 'title'");
    expect_error(&errs, "params[0].type", "'f64' is not one of");
    expect_error(&errs, "params[2]", "nme");
    expect_error(&errs, "mistakes[0].id", "'Bad Id'");
    expect_error(&errs, "mistakes[1].title", "must not be empty");
    /* the tests name dimensions: not checked while the params are broken,
     * or every test would repeat the params' error */
    assert_int_equal(errs.n, 5);
    problem_errors_free(&errs);
}

/* problem.json's errors and the files' in one run */
static void test_json_and_file_errors(void **state)
{
    struct fixture *fx = *state;
    json_t *root = read_json(fx);
    json_object_set_new(json_array_get(json_object_get(root, "tests"), 0), "seed",
                        json_string("one"));
    write_json(fx, root);
    char path[4200];
    snprintf(path, sizeof path, "%s/starter.c", fx->dir);
    assert_int_equal(unlink(path), 0);
    write_file(fx, "hints/2.md", "  \n");

    struct problem_errors errs;
    assert_null(problem_load_all(fx->dir, NULL, &errs));
    assert_int_equal(errs.n, 3);
    expect_error(&errs, "tests[0].seed", "must be an integer");
    expect_error(&errs, "starter.c", "starter.c: missing");
    expect_error(&errs, "hints/2.md", "empty");
    problem_errors_free(&errs);
}

/* errors beyond PROBLEM_MAX_ERRORS are counted, not kept */
static void test_error_cap(void **state)
{
    struct fixture *fx = *state;
    json_t *root = read_json(fx);
    json_t *tests = json_array();
    for (int i = 0; i < PROBLEM_MAX_ERRORS + 8; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        json_array_append_new(tests, json_pack("{s:s, s:s, s:{s:i, s:i}}", "name", name, "kind",
                                               "nope", "dims", "rows", 2, "cols", 3));
    }
    json_object_set_new(root, "tests", tests);
    write_json(fx, root);

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
static void check_statement(const struct fixture *fx, const char *md, struct warnings *w)
{
    char err[PROBLEM_ERR_LEN];
    write_file(fx, "statement.md", md);
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
    struct fixture *fx = *state;
    json_t *root = read_json(fx);
    json_t *params = json_object_get(root, "params");
    json_array_insert_new(params, 1,
                          json_pack("{s:s, s:s, s:s, s:[s]}", "name", "bias", "type", "f32", "role",
                                    "in", "shape", "cols"));
    json_array_append_new(
        params, json_pack("{s:s, s:s, s:f}", "name", "scale", "type", "float", "value", 1.0));
    write_json(fx, root);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scaffold_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_four_errors_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_per_item, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_and_file_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prototype_mismatch, setup, teardown),
        cmocka_unit_test(test_shipped_statements_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
