/*
 * attnjudge export — a test case as NumPy files, so that students and
 * instructors can check an implementation in Python (docs/contract.md §1):
 *   DIR/inputs/<param>.npy, DIR/expected/<param>.npy, DIR/case.json.
 * Sample tests and custom --dims/--seed cases are open to everyone; a hidden
 * test needs --hidden and the deployment's secret (the data directory).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "judge/judge.h"
#include "judge/npy.h"
#include "judge/samples.h"
#include "util/fs.h"

static void export_usage(FILE *f)
{
    fprintf(f,
            "usage: attnjudge export --problem SLUG (--test NAME | --dims K=V,... --seed S)\n"
            "                        --dir DIR [--hidden]\n"
            "       attnjudge export --problem SLUG --samples-archive FILE.zip\n"
            "\n"
            "Writes DIR/inputs/<param>.npy for each input tensor (role in or inout; none\n"
            "for a NULL one), DIR/expected/<param>.npy for each output (role out or inout:\n"
            "its value after the call), and DIR/case.json (dims, seed, scalars).\n"
            "\n"
            "  --problem SLUG     the problem\n"
            "  --test NAME        one of the problem's tests (sample tests only, unless --hidden)\n"
            "  --dims K=V,...     custom dimensions, every integer parameter once\n"
            "  --seed S           the generator's seed for a custom case (decimal)\n"
            "  --dir DIR          where to write (created if missing)\n"
            "  --hidden           allow a hidden test (needs the server's data directory)\n"
            "  --samples-archive FILE.zip   every sample test with a C driver to debug with\n"
            "                     (what GET /api/problems/SLUG/samples serves; README.txt inside)\n"
            "  --data, --problems, --reference DIR   as for 'attnjudge judge'\n"
            "  -h, --help         this help\n");
}

struct emit_ctx {
    const char *dir;
};

static int emit_npy(void *arg, const struct param *q, bool expected, const int64_t *shape, int rank,
                    const void *data)
{
    const struct emit_ctx *e = arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s.npy", e->dir, expected ? "expected" : "inputs", q->name);
    return npy_write(path, data, q->dtype, shape, rank);
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "attnjudge: mkdir %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* --samples-archive: the sample kit (judge/samples.h) as a zip file. */
static int export_archive(const struct cli_paths *paths, const char *slug, const char *file)
{
    char err[PROBLEM_ERR_LEN];
    unsigned char *zip = NULL;
    size_t len = 0;
    struct judge_ctx *ctx = NULL;
    int rc = CLI_FAIL;
    struct problem *p = cli_load_problem(paths, slug);
    if (!p)
        goto out;
    if (!(ctx = judge_open(paths->data, err, sizeof err))) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    if (samples_archive(ctx, p, &zip, &len, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge export: %s\n", err);
        goto out;
    }
    if (fs_write_atomic(file, zip, len, 0644) < 0) {
        fprintf(stderr, "attnjudge export: %s: %s\n", file, strerror(errno));
        goto out;
    }
    printf("wrote %s (%zu bytes)\n", file, len);
    rc = CLI_OK;
out:
    free(zip);
    judge_close(ctx);
    problem_free(p);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"problem", required_argument, NULL, 'p'},
        {"test", required_argument, NULL, 't'},
        {"dims", required_argument, NULL, 'D'},
        {"seed", required_argument, NULL, 'S'},
        {"dir", required_argument, NULL, 'o'},
        {"hidden", no_argument, NULL, 'H'},
        {"samples-archive", required_argument, NULL, 'A'},
        {"data", required_argument, NULL, 'd'},
        {"problems", required_argument, NULL, 'P'},
        {"reference", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    const char *slug = NULL, *test = NULL, *dims_text = NULL, *seed_text = NULL, *dir = NULL,
               *archive = NULL;
    bool hidden_ok = false;
    int c, rc = CLI_FAIL;
    struct problem *p = NULL;
    struct judge_ctx *ctx = NULL;
    int64_t *dims = NULL;
    char err[PROBLEM_ERR_LEN], sub[4096];

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': slug = optarg; break;
        case 't': test = optarg; break;
        case 'D': dims_text = optarg; break;
        case 'S': seed_text = optarg; break;
        case 'o': dir = optarg; break;
        case 'H': hidden_ok = true; break;
        case 'A': archive = optarg; break;
        case 'd': paths.data = optarg; break;
        case 'P': paths.problems = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'h': export_usage(stdout); return CLI_OK;
        default: export_usage(stderr); return CLI_USAGE;
        }
    }
    if (archive) {
        if (!slug || optind != argc || test || dims_text || seed_text || dir || hidden_ok) {
            fprintf(stderr,
                    "attnjudge export: --samples-archive takes --problem and nothing else\n");
            export_usage(stderr);
            return CLI_USAGE;
        }
        return export_archive(&paths, slug, archive);
    }
    if (!slug || !dir || optind != argc || (test && (dims_text || seed_text)) ||
        (!test && (!dims_text || !seed_text))) {
        fprintf(stderr, "attnjudge export: give --problem, --dir and either --test or both "
                        "--dims and --seed\n");
        export_usage(stderr);
        return CLI_USAGE;
    }
    uint64_t seed = 0;
    if (seed_text) {
        char *end;
        errno = 0;
        seed = strtoull(seed_text, &end, 10);
        if (errno || *end || !seed_text[0] || seed_text[0] == '-') {
            fprintf(stderr, "attnjudge export: --seed must be a non-negative integer\n");
            return CLI_USAGE;
        }
    }
    if (!(p = cli_load_problem(&paths, slug)))
        goto out;
    const struct test_case *tc = NULL;
    if (test) {
        tc = problem_find_test(p, test);
        if (!tc) {
            fprintf(stderr, "attnjudge export: problem %s has no test '%s'\n", slug, test);
            rc = CLI_USAGE;
            goto out;
        }
        if (tc->kind == TEST_HIDDEN && !hidden_ok) {
            fprintf(stderr,
                    "attnjudge export: '%s' is a hidden test; exporting it needs "
                    "--hidden and the server's data directory\n",
                    test);
            goto out;
        }
    } else {
        dims = calloc((size_t)(p->n_dims ? p->n_dims : 1), sizeof *dims);
        if (!dims || cli_parse_dims(p, dims_text, dims, err, sizeof err) < 0 ||
            dims_check(p, dims, err, sizeof err) < 0) {
            fprintf(stderr, "attnjudge export: --dims: %s\n", dims ? err : "out of memory");
            rc = CLI_USAGE;
            goto out;
        }
    }
    if (!(ctx = judge_open(paths.data, err, sizeof err))) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    if (tc)
        seed = judge_test_seed(ctx, p, tc);
    const int64_t *use_dims = tc ? tc->dims : dims;
    snprintf(sub, sizeof sub, "%s/inputs", dir);
    if (make_dir(dir) < 0 || make_dir(sub) < 0)
        goto out;
    snprintf(sub, sizeof sub, "%s/expected", dir);
    if (make_dir(sub) < 0)
        goto out;
    struct emit_ctx ec = {dir};
    if (judge_export_case(ctx, p, use_dims, seed, tc, emit_npy, &ec, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge export: %s\n", err);
        goto out;
    }
    json_t *caseo = samples_case_json(p, use_dims, seed, tc);
    snprintf(sub, sizeof sub, "%s/case.json", dir);
    if (!caseo || json_dump_file(caseo, sub, JSON_INDENT(2) | JUDGE_JSON_REALS) < 0) {
        fprintf(stderr, "attnjudge export: cannot write %s\n", sub);
        json_decref(caseo);
        goto out;
    }
    json_decref(caseo);
    printf("wrote %s (seed %" PRIu64 ")\n", dir, seed);
    rc = CLI_OK;
out:
    free(dims);
    judge_close(ctx);
    problem_free(p);
    return rc;
}
