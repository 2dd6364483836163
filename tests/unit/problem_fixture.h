/*
 * problem_fixture — the package the problem unit tests load
 * (test_problem.c, test_problem_load.c, test_problem_files.c): a valid
 * problem.json of "mha-cross" written with its statement and starter
 * into a fresh temporary directory, and the helpers that mutate it and
 * expect a load's error.
 *
 * Included by one test file each; every helper is static and marked
 * unused, since no file uses them all.
 */
#ifndef ATTNJUDGE_TESTS_PROBLEM_FIXTURE_H
#define ATTNJUDGE_TESTS_PROBLEM_FIXTURE_H

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

static __attribute__((unused)) int rm_entry(const char *path, const struct stat *st, int flag,
                                            struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static __attribute__((unused)) void write_file(const char *dir, const char *name, const char *text,
                                               size_t len)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static __attribute__((unused)) void write_json(const char *dir, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(1));

    assert_non_null(text);
    write_file(dir, "problem.json", text, strlen(text));
    free(text);
}

static __attribute__((unused)) int setup(void **state)
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

static __attribute__((unused)) int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc = nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    free(fx);
    return rc;
}

static __attribute__((unused)) json_t *base(void)
{
    json_error_t jerr;
    json_t *root = json_loads(base_json, 0, &jerr);

    if (!root)
        fail_msg("base_json: line %d: %s", jerr.line, jerr.text);
    return root;
}

static __attribute__((unused)) struct problem *load_ok(struct fixture *fx)
{
    char err[PROBLEM_ERR_LEN] = "";
    struct problem *p = problem_load(fx->dir, fx->refs, err, sizeof err);

    if (!p)
        fail_msg("load failed: %s", err);
    return p;
}

/* Loads the package and expects an error containing want. */
static __attribute__((unused)) void expect_error(struct fixture *fx, const char *want)
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
static __attribute__((unused)) void expect_json_error(struct fixture *fx, json_t *root,
                                                      const char *want)
{
    write_json(fx->dir, root);
    json_decref(root);
    expect_error(fx, want);
}

/* Shorthands for mutations. */
static __attribute__((unused)) json_t *param(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "params"), i);
}

static __attribute__((unused)) json_t *test_obj(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "tests"), i);
}

/* A "benchmark" object of two sizes for the package. */
static __attribute__((unused)) json_t *bench_json(void)
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

#endif
