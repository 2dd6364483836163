/*
 * Unit tests of a package's hints and walkthrough as judge/problem_files.c loads
 * them (docs/problem-format.md, "Hints and walkthrough"): hints/1.md ...
 * numbered without gaps, at most PROBLEM_MAX_HINTS, nothing else in
 * hints/, size limits, UTF-8, no empty text, no symbolic links;
 * walkthrough.md likewise; problem.json's walkthrough_opens_at.
 *
 * Each case writes a small valid package (a row softmax) into a fresh
 * temporary directory and changes one thing; every error must name the
 * file.
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
#include <sys/stat.h>
#include <unistd.h>

#include "judge/problem.h"

/* problem.json, with room (%s) for extra members */
#define PROBLEM_JSON                                                                               \
    "{\"slug\": \"rows\", \"title\": \"Rows\", \"difficulty\": \"easy\", \"function\": \"f\","     \
    " \"params\": [{\"name\": \"x\", \"type\": \"f32\", \"role\": \"in\", \"shape\": [\"n\"]},"    \
    "  {\"name\": \"y\", \"type\": \"f32\", \"role\": \"out\", \"shape\": [\"n\"]},"               \
    "  {\"name\": \"n\", \"type\": \"int\"}],"                                                     \
    " \"tolerance\": {\"atol\": 1e-5, \"rtol\": 1e-4},"                                            \
    " \"tests\": [{\"name\": \"s\", \"kind\": \"sample\", \"seed\": 1, \"dims\": {\"n\": 4}}]%s}"

struct fixture {
    char root[64]; /* temporary directory */
    char dir[96];  /* root/rows, the package */
    char hints[112];
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

static void write_text(const char *dir, const char *name, const char *text)
{
    write_file(dir, name, text, strlen(text));
}

/* problem.json with extra members (", \"k\": v" or ""). */
static void write_json(struct fixture *fx, const char *extra)
{
    char text[2048];
    snprintf(text, sizeof text, PROBLEM_JSON, extra);
    write_text(fx->dir, "problem.json", text);
}

static void remove_file(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(remove(path), 0);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);

    if (!fx)
        return -1;
    strcpy(fx->root, "/tmp/attnjudge-hints-XXXXXX");
    if (!mkdtemp(fx->root))
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "%s/rows", fx->root);
    snprintf(fx->hints, sizeof fx->hints, "%s/hints", fx->dir);
    if (mkdir(fx->dir, 0755) != 0)
        return -1;
    write_json(fx, "");
    write_text(fx->dir, "statement.md", "# Rows\n");
    write_text(fx->dir, "starter.c", "void f(void) {}\n");
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

static struct problem *load_ok(struct fixture *fx)
{
    char err[PROBLEM_ERR_LEN] = "";
    struct problem *p = problem_load(fx->dir, NULL, err, sizeof err);

    if (!p)
        fail_msg("load failed: %s", err);
    return p;
}

/* Loads the package and expects exactly the error want. */
static void expect_error(struct fixture *fx, const char *want)
{
    char err[PROBLEM_ERR_LEN] = "";
    struct problem *p = problem_load(fx->dir, NULL, err, sizeof err);

    if (p) {
        problem_free(p);
        fail_msg("loaded, expected error '%s'", want);
    }
    if (strcmp(err, want) != 0)
        fail_msg("error '%s', expected '%s'", err, want);
}

/* Writes hints/1.md ... hints/n.md ("hint K"). */
static void write_hints(struct fixture *fx, int n)
{
    char name[16], text[64];
    mkdir(fx->hints, 0755);
    for (int k = 1; k <= n; k++) {
        snprintf(name, sizeof name, "%d.md", k);
        snprintf(text, sizeof text, "hint %d with $x_%d$\n", k, k);
        write_text(fx->hints, name, text);
    }
}

static void test_none(void **state)
{
    struct fixture *fx = *state;
    struct problem *p = load_ok(fx);

    assert_int_equal(p->n_hints, 0);
    assert_null(p->walkthrough_md);
    assert_int_equal(p->walkthrough_opens_at, 0);
    problem_free(p);
    /* an empty hints/ is no hints */
    assert_int_equal(mkdir(fx->hints, 0755), 0);
    p = load_ok(fx);
    assert_int_equal(p->n_hints, 0);
    problem_free(p);
}

static void test_loaded_in_order(void **state)
{
    struct fixture *fx = *state;
    struct problem *p;

    write_hints(fx, 3);
    write_text(fx->dir, "walkthrough.md", "# Walkthrough\n\n```c\nint x;\n```\n");
    p = load_ok(fx);
    assert_int_equal(p->n_hints, 3);
    assert_string_equal(p->hints[0], "hint 1 with $x_1$\n");
    assert_string_equal(p->hints[2], "hint 3 with $x_3$\n");
    assert_string_equal(p->walkthrough_md, "# Walkthrough\n\n```c\nint x;\n```\n");
    problem_free(p);

    /* the most there may be */
    write_hints(fx, PROBLEM_MAX_HINTS);
    p = load_ok(fx);
    assert_int_equal(p->n_hints, PROBLEM_MAX_HINTS);
    problem_free(p);
}

static void test_numbering(void **state)
{
    struct fixture *fx = *state;

    write_hints(fx, 3);
    remove_file(fx->hints, "2.md");
    expect_error(fx, "hints/2.md: missing (hints are numbered 1, 2, ... without gaps)");
    remove_file(fx->hints, "1.md");
    expect_error(fx, "hints/1.md: missing (hints are numbered 1, 2, ... without gaps)");
}

static void test_stray_files(void **state)
{
    struct fixture *fx = *state;
    static const char *const strays[] = {"10.md", "01.md",     "0.md",      "hint4.md", "4.MD",
                                         "4.md~", ".4.md.swp", "notes.txt", NULL};
    char want[256];

    write_hints(fx, PROBLEM_MAX_HINTS);
    for (int i = 0; strays[i]; i++) {
        write_text(fx->hints, strays[i], "x\n");
        snprintf(want, sizeof want,
                 "hints/%s: not a hint file (hints are hints/1.md, hints/2.md, ... at most 9)",
                 strays[i]);
        expect_error(fx, want);
        remove_file(fx->hints, strays[i]);
    }
    /* a directory in hints/ is no hint either */
    snprintf(want, sizeof want, "%s/more", fx->hints);
    assert_int_equal(mkdir(want, 0755), 0);
    expect_error(fx,
                 "hints/more: not a hint file (hints are hints/1.md, hints/2.md, ... at most 9)");
    assert_int_equal(rmdir(want), 0);
    /* a name that is no text is shown safely */
    write_text(fx->hints, "a\nb\x01.md", "x\n");
    expect_error(
        fx, "hints/a?b?.md: not a hint file (hints are hints/1.md, hints/2.md, ... at most 9)");
}

static void test_limits_and_text(void **state)
{
    struct fixture *fx = *state;
    char *big = malloc(PROBLEM_MAX_FILE + 1);

    assert_non_null(big);
    write_hints(fx, 2);
    memset(big, 'a', PROBLEM_MAX_FILE + 1);
    write_file(fx->hints, "2.md", big, PROBLEM_HINT_MAX + 1);
    expect_error(fx, "hints/2.md: larger than 65536 bytes");
    write_file(fx->hints, "2.md", big, PROBLEM_HINT_MAX); /* exactly the limit */
    problem_free(load_ok(fx));
    write_file(fx->hints, "2.md", "caf\xc3(\n", 6);
    expect_error(fx, "hints/2.md: not valid UTF-8");
    write_file(fx->hints, "2.md", "a\0b", 3);
    expect_error(fx, "hints/2.md: contains a NUL byte");
    write_text(fx->hints, "2.md", " \n\t\r\n");
    expect_error(fx, "hints/2.md: empty");
    write_text(fx->hints, "2.md", "ok\n");

    write_file(fx->dir, "walkthrough.md", big, PROBLEM_MAX_FILE + 1);
    expect_error(fx, "walkthrough.md: larger than 1048576 bytes");
    write_file(fx->dir, "walkthrough.md", "caf\xc3(\n", 6);
    expect_error(fx, "walkthrough.md: not valid UTF-8");
    write_text(fx->dir, "walkthrough.md", "\n\n");
    expect_error(fx, "walkthrough.md: empty");
    free(big);
}

static void test_not_regular(void **state)
{
    struct fixture *fx = *state;
    char path[256];

    /* hints is a file, or a link to a directory */
    write_text(fx->dir, "hints", "1. think\n");
    expect_error(fx, "hints: not a directory");
    remove_file(fx->dir, "hints");
    snprintf(path, sizeof path, "%s/elsewhere", fx->root);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(symlink(path, fx->hints), 0);
    expect_error(fx, "hints: not a directory");
    remove_file(fx->dir, "hints");

    /* a hint or the walkthrough that is a link (to a file anywhere) */
    write_hints(fx, 1);
    write_text(fx->root, "secret.md", "secret\n");
    snprintf(path, sizeof path, "%s/secret.md", fx->root);
    remove_file(fx->hints, "1.md");
    char link[256];
    snprintf(link, sizeof link, "%s/1.md", fx->hints);
    assert_int_equal(symlink(path, link), 0);
    expect_error(fx, "hints/1.md: not a regular file");
    remove_file(fx->hints, "1.md");
    write_text(fx->hints, "1.md", "ok\n");
    snprintf(link, sizeof link, "%s/walkthrough.md", fx->dir);
    assert_int_equal(symlink(path, link), 0);
    expect_error(fx, "walkthrough.md: not a regular file");
    remove_file(fx->dir, "walkthrough.md");
    /* a directory named walkthrough.md */
    assert_int_equal(mkdir(link, 0755), 0);
    expect_error(fx, "walkthrough.md: not a regular file");
}

static void test_opens_at(void **state)
{
    struct fixture *fx = *state;
    struct problem *p;
    static const char *const bad_dates[] = {
        ", \"walkthrough_opens_at\": \"2025-03-01\"",
        ", \"walkthrough_opens_at\": \"2025-03-01T09:00:00\"",
        ", \"walkthrough_opens_at\": \"2025-02-29T09:00:00Z\"",
        ", \"walkthrough_opens_at\": \"next monday\"",
        ", \"walkthrough_opens_at\": 1740819600000",
        NULL,
    };

    write_text(fx->dir, "walkthrough.md", "the answer\n");
    write_json(fx, ", \"walkthrough_opens_at\": \"2025-03-01T10:00:00+01:00\"");
    p = load_ok(fx);
    assert_int_equal(p->walkthrough_opens_at, INT64_C(1740819600000)); /* 09:00 UTC */
    problem_free(p);
    for (int i = 0; bad_dates[i]; i++) {
        write_json(fx, bad_dates[i]);
        expect_error(fx, "walkthrough_opens_at: must be a date-time with a time zone, e.g. "
                         "\"2025-03-01T09:00:00Z\" or \"2025-03-01T10:00:00+01:00\"");
    }
    /* a date for a walkthrough that does not exist */
    write_json(fx, ", \"walkthrough_opens_at\": \"2025-03-01T09:00:00Z\"");
    remove_file(fx->dir, "walkthrough.md");
    expect_error(fx, "walkthrough_opens_at: the package has no walkthrough.md");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_none),        T(test_loaded_in_order), T(test_numbering),
        T(test_stray_files), T(test_limits_and_text), T(test_not_regular),
        T(test_opens_at),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
