/*
 * attnjudge judge — one file, one verdict, no server and no database:
 * exactly the pipeline the server's workers run (judge_submission).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "judge/harness.h"
#include "judge/judge.h"
#include "util/fs.h"

#define SOURCE_MAX (1 << 20)

static void judge_usage(FILE *f)
{
    fprintf(f, "usage: attnjudge judge --problem SLUG [OPTIONS] FILE.c\n"
               "\n"
               "Compiles FILE.c in the sandbox, runs it on the problem's tests and prints\n"
               "the verdict. Exit status: 0 accepted, 1 not accepted, 2 usage error.\n"
               "\n"
               "  --problem SLUG     the problem (see 'attnjudge problems')\n"
               "  --json             print one JSON object (verdict, score, compile_log, tests)\n"
               "  --samples-only     run only the public sample tests\n"
               "  --data DIR         data directory with the deployment secret (./data)\n"
               "  --problems DIR     problem packages (./problems)\n"
               "  --reference DIR    reference implementations (./reference)\n"
               "  -h, --help         this help\n");
}

/* Reads a whole file (or stdin for "-"), at most SOURCE_MAX bytes. Any
 * readable file will do (a pipe such as <(...) too), so it is opened here
 * rather than with fs_read_file, which wants a regular file. */
static char *read_source(const char *path, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;

    if (fd < 0 || fs_read_fd(fd, SOURCE_MAX, &buf, len) < 0)
        fprintf(stderr, "attnjudge: %s: %s\n", path,
                errno == EFBIG ? "larger than 1 MiB" : strerror(errno));
    if (!is_stdin && fd >= 0)
        close(fd);
    return buf;
}

static void print_human(const struct judge_report *r, const struct problem *p, const char *file)
{
    char command[512];
    harness_compile_command(command, sizeof command);
    printf("problem %s, file %s\ncompiled with: %s\n", p->slug, file, command);
    if (r->compile_log && r->compile_log[0])
        printf("%s%s", r->compile_log,
               r->compile_log[strlen(r->compile_log) - 1] == '\n' ? "" : "\n");
    if (r->verdict == V_COMPILE_ERROR) {
        printf("verdict: compile_error\n");
        return;
    }
    for (int i = 0; i < r->n_tests; i++) {
        const struct judge_test_report *t = &r->tests[i];
        printf("  %-24s %-7s %-18s %9.2f ms  max abs err %-10.3g %s\n", t->name,
               t->kind == TEST_SAMPLE ? "sample" : "hidden", verdict_name(t->verdict), t->time_ms,
               t->max_abs_err, t->message ? t->message : "");
        if (t->output && t->verdict != V_ACCEPTED)
            printf("    printed:\n%s\n", t->output);
    }
    if (r->verdict == V_INTERNAL_ERROR)
        fprintf(stderr, "attnjudge: internal error: %s\n",
                r->internal_message ? r->internal_message : "unknown");
    printf("verdict: %s  score: %.1f\n", verdict_name(r->verdict), r->score);
}

int cmd_judge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"problem", required_argument, NULL, 'p'},  {"json", no_argument, NULL, 'j'},
        {"samples-only", no_argument, NULL, 's'},   {"data", required_argument, NULL, 'd'},
        {"problems", required_argument, NULL, 'P'}, {"reference", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    const char *slug = NULL;
    bool json = false;
    struct judge_options jo = {0};
    int c, rc = CLI_FAIL;
    struct problem *p = NULL;
    struct judge_ctx *ctx = NULL;
    struct judge_report *r = NULL;
    char *src = NULL, err[512];
    size_t len = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': slug = optarg; break;
        case 'j': json = true; break;
        case 's': jo.samples_only = true; break;
        case 'd': paths.data = optarg; break;
        case 'P': paths.problems = optarg; break;
        case 'r': paths.reference = optarg; break;
        case 'h': judge_usage(stdout); return CLI_OK;
        default: judge_usage(stderr); return CLI_USAGE;
        }
    }
    if (!slug || optind != argc - 1) {
        fprintf(stderr, "attnjudge judge: %s\n",
                !slug ? "--problem is required" : "exactly one FILE.c is required");
        judge_usage(stderr);
        return CLI_USAGE;
    }
    const char *file = argv[optind];
    if (!(p = cli_load_problem(&paths, slug)) || !(src = read_source(file, &len)))
        goto out;
    if (!(ctx = judge_open(paths.data, err, sizeof err))) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    r = judge_submission(ctx, p, src, len, strcmp(file, "-") ? file : "solution.c", &jo);
    if (!r) {
        fprintf(stderr, "attnjudge: out of memory\n");
        goto out;
    }
    if (json) {
        json_t *o = judge_report_json(r, p);
        if (o && r->verdict == V_INTERNAL_ERROR && r->internal_message)
            json_object_set_new(o, "internal_message", json_string(r->internal_message));
        char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (!text) {
            fprintf(stderr, "attnjudge: cannot encode the report\n");
            json_decref(o);
            goto out;
        }
        puts(text);
        free(text);
        json_decref(o);
        if (r->verdict == V_INTERNAL_ERROR)
            fprintf(stderr, "attnjudge: internal error: %s\n",
                    r->internal_message ? r->internal_message : "unknown");
    } else {
        print_human(r, p, file);
    }
    rc = r->verdict == V_ACCEPTED ? CLI_OK : CLI_FAIL;
out:
    judge_report_free(r);
    judge_close(ctx);
    problem_free(p);
    free(src);
    return rc;
}
