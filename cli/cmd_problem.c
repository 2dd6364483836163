/*
 * attnjudge problem check DIR — validates a package before anyone judges
 * with it: the schema (problem_load_all: every error at once), then
 * judge_check_problem(), the same function the server runs on uploads; a
 * statement whose code declares the function with another prototype is a
 * warning (protocheck_statement).
 * attnjudge problem new SLUG — scaffolds a package (cli/scaffold.c).
 * attnjudge problems — lists the packages under --problems.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "judge/check.h"
#include "judge/judge.h"
#include "judge/path.h"
#include "judge/protocheck.h"
#include "judge/search.h"

static void problem_usage(FILE *f)
{
    fprintf(f, "usage: attnjudge problem check DIR [--data DIR] [--reference DIR] [--web DIR]\n"
               "                                    [--search-budget MS]\n"
               "       attnjudge problem new SLUG [--dir DIR]\n"
               "\n"
               "check: validates the problem package in DIR: its problem.json schema and\n"
               "tests, that statement.md renders, that the reference compiles and runs on\n"
               "every test and within each benchmark size's limits (its time is printed),\n"
               "that starter.c compiles, and that the example solutions in\n"
               "DIR/accepted/ are accepted (with a tolerance margin of 10x, reported per\n"
               "test) and those in DIR/wrong/ are not. Exit status 0 when the package is\n"
               "valid. The statement's math is checked with KaTeX when node and\n"
               "WEB/mathcheck.mjs (--web, default ./web, after make) are available;\n"
               "otherwise check says it skipped it. With a \"domain\", every known mistake\n"
               "and example solution that passes the tests meets the counterexample search\n"
               "(--search-budget MS each, default 10000; 0: none): a wrong one only the\n"
               "search catches is named with the input it found, one nothing catches and\n"
               "a correct one the search rejects fail the check.\n"
               "\n"
               "new: writes a new package DIR/SLUG/ (DIR defaults to ./problems) with\n"
               "problem.json, statement.md, starter.c, reference.c and accepted/ and\n"
               "wrong/ examples, which passes check as it is: edit it into your problem\n"
               "(docs/authoring.md).\n");
}

static void print_line(void *arg, bool ok, const char *line)
{
    (void)arg;
    printf("%s %s\n", ok ? "ok  " : "FAIL", line);
}

/* A finding that does not fail the package (docs/authoring.md). */
static void print_warning(void *arg, bool ok, const char *line)
{
    (void)arg;
    (void)ok;
    printf("WARN %s\n", line);
}

static int check(const char *dir, const struct cli_paths *paths, const char *web_script,
                 int64_t search_ms)
{
    char err[PROBLEM_ERR_LEN];
    struct judge_ctx *ctx = NULL;
    struct problem_errors errs;

    /* every schema error at once: an author fixes them in one pass */
    struct problem *p = problem_load_all(dir, paths->reference, &errs);
    if (!p) {
        for (size_t i = 0; i < errs.n; i++)
            printf("FAIL schema: %s\n", errs.e[i].text);
        if (errs.n_more)
            printf("FAIL schema: %zu more errors not shown\n", errs.n_more);
        printf("package has errors (%zu in the schema)\n", errs.n + errs.n_more);
        problem_errors_free(&errs);
        return CLI_FAIL;
    }
    problem_errors_free(&errs);
    printf("ok   schema: %s, %zu tests, function %s\n", p->slug, p->n_tests, p->function);
    protocheck_statement(p, print_warning, NULL);
    if (!(ctx = judge_open(paths->data, err, sizeof err))) {
        printf("FAIL judge: %s\n", err);
        problem_free(p);
        return CLI_FAIL;
    }
    int rc = judge_check_problem_search(ctx, p, search_ms, print_line, NULL, err, sizeof err);
    if (rc < 0)
        printf("FAIL internal error: %s\n", err);
    else if (judge_check_math(p, web_script, print_line, NULL) > 0)
        rc = 1;
    printf("%s\n", rc == 0 ? "package ok" : "package has errors");
    judge_close(ctx);
    problem_free(p);
    return rc == 0 ? CLI_OK : CLI_FAIL;
}

static int scaffold(const char *parent, const char *slug)
{
    char err[PROBLEM_ERR_LEN], dir[4096];
    if (cli_scaffold(parent, slug, dir, sizeof dir, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: problem new: %s\n", err);
        return CLI_FAIL;
    }
    printf("wrote %s/: problem.json, statement.md, starter.c, reference.c, accepted/, wrong/, "
           "hints/, walkthrough.md\n"
           "next: edit them, then run: attnjudge problem check %s\n",
           dir, dir);
    return CLI_OK;
}

int cmd_problem(int argc, char **argv)
{
    static const struct option opts[] = {
        {"data", required_argument, NULL, 'd'},
        {"reference", required_argument, NULL, 'r'},
        {"dir", required_argument, NULL, 'D'},
        {"web", required_argument, NULL, 'w'},
        {"search-budget", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    int64_t search_ms = SEARCH_BUDGET_CHECK_MS;
    const char *dir = NULL, *web = "web";
    char script[4096];
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': paths.data = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'D': dir = optarg; break;
        case 'w': web = optarg; break;
        case 'S':
            if (cli_parse_budget("problem", optarg, &search_ms) < 0)
                return CLI_USAGE;
            break;
        case 'h': problem_usage(stdout); return CLI_OK;
        default: problem_usage(stderr); return CLI_USAGE;
        }
    }
    if (optind + 2 == argc && strcmp(argv[optind], "new") == 0)
        return scaffold(dir ? dir : paths.problems, argv[optind + 1]);
    if (optind + 2 != argc || strcmp(argv[optind], "check") != 0 || dir) {
        problem_usage(stderr);
        return CLI_USAGE;
    }
    snprintf(script, sizeof script, "%s/mathcheck.mjs", web);
    return check(argv[optind + 1], &paths, script, search_ms);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Loads every package under paths->problems into *out (a new array of new
 * problems); *n is how many loaded. Returns CLI_OK, or CLI_FAIL when a
 * package does not load (reported, skipped) or the directory cannot be
 * read. */
static int load_all(const struct cli_paths *paths, struct problem ***out, size_t *n)
{
    struct dirent **names = NULL;
    int rc = CLI_OK;

    *out = NULL;
    *n = 0;
    int m = scandir(paths->problems, &names, NULL, by_name);
    if (m < 0) {
        perror(paths->problems);
        return CLI_FAIL;
    }
    if (m > 0 && !(*out = calloc((size_t)m, sizeof **out))) {
        perror("attnjudge");
        rc = CLI_FAIL;
    }
    for (int i = 0; i < m; i++) {
        if (*out && names[i]->d_name[0] != '.' && names_slug_valid(names[i]->d_name)) {
            struct problem *p = cli_load_problem(paths, names[i]->d_name);
            if (p)
                (*out)[(*n)++] = p;
            else
                rc = CLI_FAIL;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int cmd_problems(int argc, char **argv)
{
    static const struct option opts[] = {
        {"problems", required_argument, NULL, 'P'},
        {"reference", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    struct problem **ps = NULL;
    size_t n = 0, *order = NULL;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'P': paths.problems = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'h':
            printf("usage: attnjudge problems [--problems DIR]\n\n"
                   "Lists the problems in path order: each after its prerequisites, easier\n"
                   "ones first (docs/api.md, GET /api/problems).\n");
            return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    int rc = load_all(&paths, &ps, &n);
    if (n && (!(order = calloc(n, sizeof *order)) ||
              path_order((const struct problem *const *)ps, n, order) < 0)) {
        perror("attnjudge");
        rc = CLI_FAIL;
    } else {
        for (size_t i = 0; i < n; i++) {
            const struct problem *p = ps[order[i]];
            printf("%-24s %-8s %s\n", p->slug, p->difficulty, p->title);
        }
    }
    for (size_t i = 0; i < n; i++)
        problem_free(ps[i]);
    free(ps);
    free(order);
    return rc;
}
