/*
 * Fuzz target: problem packages (problem_load, judge/problem_load.c), which
 * instructors upload over HTTP: the input is problem.json, in a package
 * directory named "p" whose statement.md and starter.c are fixed (the
 * statement has its own target, markdown). A package that loads is then
 * used the way the judge uses it: every test's dims checked and its tensor
 * shapes computed, the C prototype and the harness generated; and dims as a
 * user types them (--dims), extremes included, parsed and checked.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "judge/dims.h"
#include "judge/harness.h"
#include "judge/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char root[64], pkg[96], json_path[128];

static void remove_package(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/statement.md", pkg);
    unlink(path);
    snprintf(path, sizeof path, "%s/starter.c", pkg);
    unlink(path);
    unlink(json_path);
    rmdir(pkg);
    rmdir(root);
}

static int write_all(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    ssize_t n = size ? write(fd, data, size) : 0;
    close(fd);
    return n == (ssize_t)size ? 0 : -1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char path[160];
    snprintf(root, sizeof root, "/tmp/attnjudge-fuzz-problem.XXXXXX");
    if (!mkdtemp(root))
        abort();
    snprintf(pkg, sizeof pkg, "%s/p", root);
    snprintf(json_path, sizeof json_path, "%s/problem.json", pkg);
    if (mkdir(pkg, 0700) < 0)
        abort();
    static const char statement[] = "# P\n\nCompute $y = x$.\n";
    static const char starter[] = "void f(const float *x, float *y, int n) {}\n";
    snprintf(path, sizeof path, "%s/statement.md", pkg);
    if (write_all(path, statement, sizeof statement - 1) < 0)
        abort();
    snprintf(path, sizeof path, "%s/starter.c", pkg);
    if (write_all(path, starter, sizeof starter - 1) < 0)
        abort();
    atexit(remove_package);
    return 0;
}

/* Dimension values a user may type (attnjudge judge --dims), nonsense
 * included: cli_parse_dims must refuse or accept, and the shape
 * arithmetic stay defined, for any of them. */
static const char *const typed[] = {"1",
                                    "0",
                                    "-1",
                                    "3",
                                    "64",
                                    "2147483647",
                                    "4294967296",
                                    "3037000500",
                                    "9223372036854775807",
                                    "9223372036854775808",
                                    "",
                                    "1x"};

static void typed_dims(const struct problem *p, uint32_t seed)
{
    char text[2048], err[PROBLEM_ERR_LEN];
    int64_t dims[PROBLEM_MAX_PARAMS], shape[TENSOR_MAX_RANK];
    size_t at = 0;
    for (int i = 0; i < p->n_params && at < sizeof text; i++)
        if (p->params[i].kind == PARAM_INT) {
            seed = seed * 1103515245u + 12345u;
            int n =
                snprintf(text + at, sizeof text - at, "%s%s=%s", at ? "," : "", p->params[i].name,
                         typed[(seed >> 16) % (sizeof typed / sizeof *typed)]);
            at += n > 0 ? (size_t)n : 0;
        }
    if (at >= sizeof text || cli_parse_dims(p, text, dims, err, sizeof err) != 0)
        return;
    if (dims_check(p, dims, err, sizeof err) != 0)
        return;
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_TENSOR) {
            if (dims_tensor_elems(p, i, dims) < 0)
                abort(); /* dims that passed the check give sizes */
            dims_tensor_shape(p, i, dims, shape);
        }
}

static void use(const struct problem *p, uint32_t seed)
{
    char buf[4096], err[PROBLEM_ERR_LEN];
    int64_t shape[TENSOR_MAX_RANK];
    char *proto_h = NULL, *call_c = NULL;

    harness_prototype(p, buf, sizeof buf);
    if (harness_generate(p, &proto_h, &call_c) == 0) {
        free(proto_h);
        free(call_c);
    }
    for (size_t k = 0; k < p->n_tests; k++) {
        const struct test_case *t = &p->tests[k];
        if (problem_find_test(p, t->name) != t)
            abort(); /* test names are unique */
        if (dims_check(p, t->dims, err, sizeof err) != 0)
            abort(); /* loading already checked every test's dims */
        for (int i = 0; i < p->n_params; i++)
            if (p->params[i].kind == PARAM_TENSOR) {
                dims_tensor_elems(p, i, t->dims);
                dims_tensor_shape(p, i, t->dims, shape);
            }
    }
    typed_dims(p, seed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[PROBLEM_ERR_LEN];
    if (write_all(json_path, data, size) < 0)
        abort();
    err[0] = '\0';
    struct problem *p = problem_load(pkg, NULL, err, sizeof err);
    if (p) {
        uint32_t seed = 2166136261u; /* FNV-1a of the input picks the typed dims */
        for (size_t i = 0; i < size; i++)
            seed = (seed ^ data[i]) * 16777619u;
        use(p, seed);
        problem_free(p);
    } else if (!err[0]) {
        abort(); /* a refusal must say why */
    }
    return 0;
}
