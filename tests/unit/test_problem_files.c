/*
 * Unit tests of judge/problem_files.c: the package's files besides
 * problem.json (the reference and its lookup in a reference directory,
 * statement.md, starter.c, the known mistakes), each missing or wrong one
 * named in the load's error.
 *
 * Each case writes a small package into a fresh temporary directory
 * (problem_fixture.h).
 */
#include "tests/unit/problem_fixture.h"

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

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_reference_lookup),
        T(test_mistakes),
        T(test_error_files),
    };
#undef T

    return cmocka_run_group_tests(tests, NULL, NULL);
}
