/*
 * attnjudge problem check DIR — validates a package before anyone judges
 * with it: the schema, the statement renders, the reference compiles and
 * runs on every test, the starter compiles (and does not pass).
 * attnjudge problems — lists the packages under --problems.
 */
#include <cmark.h>
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "judge/judge.h"

static void problem_usage(FILE *f)
{
    fprintf(f, "usage: attnjudge problem check DIR [--data DIR] [--reference DIR]\n"
               "\n"
               "Validates the problem package in DIR: its problem.json schema and tests, that\n"
               "statement.md renders, that the reference compiles and runs on every test,\n"
               "and that starter.c compiles. Exit status 0 when the package is valid.\n");
}

static int discard(void *arg, const struct param *q, const int64_t *shape, int rank,
                   const void *data)
{
    (void)arg, (void)q, (void)shape, (void)rank, (void)data;
    return 0;
}

static int check(const char *dir, const struct cli_paths *paths)
{
    char err[PROBLEM_ERR_LEN];
    struct judge_ctx *ctx = NULL;
    struct judge_report *r = NULL;
    int failures = 0;

    struct problem *p = problem_load(dir, paths->reference, err, sizeof err);
    if (!p) {
        printf("FAIL schema: %s\n", err);
        return CLI_FAIL;
    }
    printf("ok   schema: %s, %zu tests, function %s\n", p->slug, p->n_tests, p->function);

    char *html =
        cmark_markdown_to_html(p->statement_md, strlen(p->statement_md), CMARK_OPT_DEFAULT);
    if (html && html[0]) {
        printf("ok   statement renders (%zu bytes of HTML)\n", strlen(html));
    } else {
        printf("FAIL statement.md does not render\n");
        failures++;
    }
    free(html);

    if (!(ctx = judge_open(paths->data, err, sizeof err))) {
        printf("FAIL judge: %s\n", err);
        problem_free(p);
        return CLI_FAIL;
    }
    if (!p->reference_path) {
        printf("FAIL no reference.c in the package or in %s\n", paths->reference);
        failures++;
    } else {
        for (size_t i = 0; i < p->n_tests; i++) {
            const struct test_case *tc = &p->tests[i];
            if (judge_export_case(ctx, p, tc->dims, judge_test_seed(ctx, p, tc), tc, discard, NULL,
                                  err, sizeof err) < 0) {
                printf("FAIL reference on test %s: %s\n", tc->name, err);
                failures++;
                break;
            }
        }
        if (!failures)
            printf("ok   the reference runs on all %zu tests\n", p->n_tests);
    }

    struct judge_options opt = {.samples_only = true};
    r = judge_submission(ctx, p, p->starter_c, strlen(p->starter_c), "starter.c", &opt);
    if (!r || r->verdict == V_COMPILE_ERROR || r->verdict == V_INTERNAL_ERROR) {
        printf("FAIL starter.c: %s\n%s\n", r ? verdict_name(r->verdict) : "out of memory",
               r && r->compile_log ? r->compile_log : "");
        failures++;
    } else {
        printf("ok   starter.c compiles (%s on the samples%s)\n", verdict_name(r->verdict),
               r->verdict == V_ACCEPTED ? " -- a starter should not pass" : "");
    }
    judge_report_free(r);
    judge_close(ctx);
    problem_free(p);
    printf("%s\n", failures ? "package has errors" : "package ok");
    return failures ? CLI_FAIL : CLI_OK;
}

int cmd_problem(int argc, char **argv)
{
    static const struct option opts[] = {
        {"data", required_argument, NULL, 'd'},
        {"reference", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': paths.data = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'h': problem_usage(stdout); return CLI_OK;
        default: problem_usage(stderr); return CLI_USAGE;
        }
    }
    if (optind + 2 != argc || strcmp(argv[optind], "check") != 0) {
        problem_usage(stderr);
        return CLI_USAGE;
    }
    return check(argv[optind + 1], &paths);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
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
    struct dirent **names = NULL;
    int c, rc = CLI_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'P': paths.problems = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'h':
            printf("usage: attnjudge problems [--problems DIR]\n\nLists the problems.\n");
            return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    int n = scandir(paths.problems, &names, NULL, by_name);
    if (n < 0) {
        perror(paths.problems);
        return CLI_FAIL;
    }
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' && problem_slug_valid(names[i]->d_name)) {
            struct problem *p = cli_load_problem(&paths, names[i]->d_name);
            if (p)
                printf("%-20s %-8s %s\n", p->slug, p->difficulty, p->title);
            else
                rc = CLI_FAIL;
            problem_free(p);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}
