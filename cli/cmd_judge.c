/*
 * attnjudge judge — one file, one verdict, no server and no database:
 * exactly the pipeline the server's workers run (judge_submission).
 *
 * Both outputs are printed from the report's JSON: the student's view
 * (judge_report_redact, what the server shows a student) by default, the
 * full report with --full, so the terminal never shows a student more of a
 * hidden test than the web page does.
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
#include "judge/bench.h"
#include "judge/search.h"
#include "judge/judge.h"
#include "util/fs.h"

/* What a statistic that was never measured prints as (docs/api.md: null). */
#define NO_VALUE "—"

static void judge_usage(FILE *f)
{
    fprintf(f,
            "usage: attnjudge judge --problem SLUG [OPTIONS] FILE.c\n"
            "\n"
            "Compiles FILE.c in the sandbox, runs it on the problem's tests and prints\n"
            "the verdict. Exit status: 0 accepted, 1 not accepted, 2 usage error.\n"
            "\n"
            "  --problem SLUG     the problem (see 'attnjudge problems')\n"
            "  --json             print one JSON object (verdict, score, compile_log, tests,\n"
            "                     diagnosis)\n"
            "  --full             show every measurement of hidden tests (error statistics,\n"
            "                     messages, exact times): for instructors; by default a\n"
            "                     hidden test shows only its verdict and a time class\n"
            "  --samples-only     run only the public sample tests\n"
            "  --bench            once accepted, time the solution at the problem's benchmark\n"
            "                     sizes (docs/performance.md): median, CV, GFLOP/s, share of\n"
            "                     this machine's peak, speedup over the reference; a wrong\n"
            "                     output there makes the verdict wrong_answer\n"
            "  --bench-budget MS  wall time per benchmark size before no new call starts (6000;\n"
            "                     the reference's timed runs are not counted)\n"
            "  --no-search        skip the counterexample search that follows passed tests\n"
            "  --search-budget MS the search's budget (default 1000; a problem's own\n"
            "                     search.budget_ms replaces it; 0: no search)\n"
            "  --data DIR         data directory with the deployment secret (./data)\n"
            "  --problems DIR     problem packages (./problems)\n"
            "  --reference DIR    reference implementations (./reference)\n"
            "  --test-threads N   run at most N tests at once (default 0: on every idle\n"
            "                     core; 1: one after another); the report is the same\n"
            "  -h, --help         this help\n");
}

/* Reads a whole file (or stdin for "-"), at most JUDGE_SOURCE_MAX_DEFAULT
 * bytes (what a server with the default max_source_kib accepts). Any
 * readable file will do (a pipe such as <(...) too), so it is opened here
 * rather than with fs_read_file, which wants a regular file. */
static char *read_source(const char *path, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;

    if (fd < 0 || fs_read_fd(fd, JUDGE_SOURCE_MAX_DEFAULT, &buf, len) < 0) {
        if (errno == EFBIG)
            fprintf(stderr, "attnjudge: %s: larger than %d KiB (the server's max_source_kib)\n",
                    path, JUDGE_SOURCE_MAX_DEFAULT / 1024);
        else
            fprintf(stderr, "attnjudge: %s: %s\n", path, strerror(errno));
    }
    if (!is_stdin && fd >= 0)
        close(fd);
    return buf;
}

/* A JSON number as text ("%.3g", or "%.2f ms" with ms), "" when absent;
 * NaN and infinities travel as strings (report.c) and are printed as such;
 * null (nothing was measured: no outputs to compare) is "—". */
static void fmt_field(char *buf, size_t len, const json_t *o, const char *key, bool ms)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_number(v) && ms)
        snprintf(buf, len, "%.2f ms", json_number_value(v));
    else if (json_is_number(v))
        snprintf(buf, len, "%.3g", json_number_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_null(v))
        snprintf(buf, len, "%s", NO_VALUE);
    else
        snprintf(buf, len, "%s", "");
}

static const char *str_field(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A test's messages, each on its own indented line: every failed output's
 * own (judge/explain.c words them), else the test's. */
static void print_messages(const json_t *t)
{
    size_t k;
    json_t *tensor;
    bool any = false;
    json_array_foreach(json_object_get(t, "tensors"), k, tensor)
    {
        const char *m = json_string_value(json_object_get(tensor, "message"));
        if (m) {
            printf("      %s\n", m);
            any = true;
        }
    }
    if (!any && str_field(t, "message")[0])
        printf("      %s\n", str_field(t, "message"));
}

/* A tensor's values as one line each row of the last axis, at most
 * REPORT_CX_VALUES_MAX of them (report.h: larger ones have none). */
static void print_values(const char *label, const char *name, const json_t *t)
{
    const json_t *shape = json_object_get(t, "shape"), *vals = json_object_get(t, "values");
    size_t rank = json_array_size(shape), k;
    json_t *v;
    json_int_t cols = rank ? json_integer_value(json_array_get(shape, rank - 1)) : 1;

    printf("    %s %s, shape [", label, name);
    json_array_foreach(shape, k, v)
        printf("%s%lld", k ? ", " : "", (long long)json_integer_value(v));
    printf("]:%s\n", json_is_array(vals) ? "" : " (too large to list: see the downloaded case)");
    json_array_foreach(vals, k, v)
    {
        if (cols > 0 && k % (size_t)cols == 0)
            printf("%s      ", k ? "\n" : "");
        if (json_is_number(v))
            printf(" %.9g", json_number_value(v));
        else
            printf(" %s", json_is_string(v) ? json_string_value(v) : "?");
    }
    if (json_array_size(vals))
        printf("\n");
}

/* The counterexample search's lines: what it tried and, when it found an
 * input the submission is wrong on, all of that input. */
static void print_search(const json_t *s)
{
    if (!s)
        return;
    const json_t *cx = json_object_get(s, "counterexample");
    printf("search: %lld inputs in %.0f ms (budget %lld ms), worst error/tolerance %.3g%s\n",
           (long long)json_integer_value(json_object_get(s, "inputs")),
           json_number_value(json_object_get(s, "ms")),
           (long long)json_integer_value(json_object_get(s, "budget_ms")),
           json_number_value(json_object_get(s, "worst_ratio")),
           cx ? "; found a counterexample" : "");
    if (!cx)
        return;
    const char *key;
    json_t *v;
    printf("  counterexample (generated, not a hidden test) %s at", str_field(cx, "verdict"));
    json_object_foreach(json_object_get(cx, "dims"), key, v)
        printf(" %s=%lld", key, (long long)json_integer_value(v));
    printf("\n    generators: %s\n", str_field(cx, "generators"));
    size_t k;
    json_array_foreach(json_object_get(cx, "null"), k, v)
        printf("    %s: NULL\n", json_string_value(v));
    print_messages(cx);
    json_object_foreach(json_object_get(cx, "inputs"), key, v) print_values("input", key, v);
    json_object_foreach(json_object_get(cx, "expected"), key, v) print_values("expected", key, v);
    json_object_foreach(json_object_get(cx, "actual"), key, v) print_values("yours", key, v);
}

/* The human-readable report, from the JSON view chosen (full or not). */
static void print_human(const json_t *o, bool full, const struct judge_report *r,
                        const struct problem *p, const char *file)
{
    char command[512];
    harness_compile_command(command, sizeof command);
    printf("problem %s, file %s\ncompiled with: %s\n", p->slug, file, command);
    if (r->compile_log && r->compile_log[0])
        printf("%s%s", r->compile_log,
               r->compile_log[strlen(r->compile_log) - 1] == '\n' ? "" : "\n");
    if (r->verdict == V_COMPILE_ERROR) {
        printf("verdict: %s\n", judge_verdict_name(V_COMPILE_ERROR));
        return;
    }
    size_t i;
    json_t *t;
    bool hidden = false;
    int width = 8;
    json_array_foreach(json_object_get(o, "tests"), i, t)
    {
        int n = (int)strlen(str_field(t, "name"));
        width = n > width ? n : width;
    }
    json_array_foreach(json_object_get(o, "tests"), i, t)
    {
        hidden = hidden || problem_test_kind_from_name(str_field(t, "kind")) == TEST_HIDDEN;
        char time[32], err[48];
        fmt_field(time, sizeof time, t, "time_ms", true);
        if (!time[0] && json_object_get(t, "time_class"))
            snprintf(time, sizeof time, "%s", str_field(t, "time_class"));
        fmt_field(err, sizeof err, t, "max_abs_err", false);
        /* a test that did not run has no output to compare either */
        if (strcmp(str_field(t, "verdict"), judge_verdict_name(V_NOT_RUN)) == 0)
            snprintf(err, sizeof err, "%s", NO_VALUE);
        printf("  %-*s %-7s %-18s %12s  %s%s\n", width, str_field(t, "name"), str_field(t, "kind"),
               str_field(t, "verdict"), time, err[0] ? "max abs err " : "", err);
        print_messages(t);
        const char *out = json_string_value(json_object_get(t, "output"));
        if (out && judge_verdict_from_name(str_field(t, "verdict")) != V_ACCEPTED)
            printf("    printed:\n%s\n", out);
    }
    if (r->verdict == V_INTERNAL_ERROR)
        fprintf(stderr, "attnjudge: internal error: %s\n",
                r->internal_message ? r->internal_message : "unknown");
    if (hidden && !full)
        printf("hidden tests show their verdict and a time class (fast, medium, slow: under 1/8,\n"
               "under 1/2, or more of the CPU limit) only; --full shows every measurement\n");
    print_search(json_object_get(o, "search"));
    if (r->diagnosis.mistake)
        printf("Your output%s matches %s. Hint: %s\n",
               r->diagnosis.from_search   ? " on the counterexample"
               : r->diagnosis.from_hidden ? " on the failed hidden tests"
                                          : "",
               r->diagnosis.title, r->diagnosis.hint);
    printf("verdict: %s  score: %.1f\n", judge_verdict_name(r->verdict), r->score);
}

/* The benchmark's table, one line per size. */
static void print_bench(const json_t *b)
{
    const json_t *m = json_object_get(b, "machine");
    size_t i;
    json_t *sz;

    if (json_is_object(m))
        printf("benchmark on %s: FMA peak %.1f GFLOP/s, bandwidth %.1f GB/s (one core)\n",
               str_field(m, "cpu"), json_number_value(json_object_get(m, "fma_gflops")),
               json_number_value(json_object_get(m, "bandwidth_gbs")));
    printf("  %-10s %-10s %5s %10s %10s %6s %8s %7s %8s\n", "size", "status", "calls", "median",
           "min", "cv", "GFLOP/s", "% peak", "speedup");
    bool unresolved = false;
    json_array_foreach(json_object_get(b, "sizes"), i, sz)
    {
        char med[32], min[32], cv[16] = NO_VALUE, gf[16] = NO_VALUE, pk[16] = NO_VALUE,
                               sp[16] = NO_VALUE;
        fmt_field(med, sizeof med, sz, "median_ms", true);
        fmt_field(min, sizeof min, sz, "min_ms", true);
        const json_t *v;
        if (json_is_number(v = json_object_get(sz, "cv")))
            snprintf(cv, sizeof cv, "%.1f%%", 100 * json_number_value(v));
        if (json_is_number(v = json_object_get(sz, "gflops")))
            snprintf(gf, sizeof gf, "%.2f", json_number_value(v));
        if (json_is_number(v = json_object_get(sz, "peak_fraction")))
            snprintf(pk, sizeof pk, "%.1f", 100 * json_number_value(v));
        if (json_is_number(v = json_object_get(sz, "speedup")))
            snprintf(sp, sizeof sp, "%.2fx", json_number_value(v));
        printf("  %-10s %-10s %5d %10s %10s %6s %8s %7s %8s\n", str_field(sz, "name"),
               str_field(sz, "status"), (int)json_integer_value(json_object_get(sz, "calls")), med,
               min, cv, gf, pk, sp);
        if (strcmp(str_field(sz, "status"), bench_size_status_name(BENCH_UNRESOLVED)) == 0)
            unresolved = true;
    }
    if (unresolved)
        printf("  unresolved: the function's time could not be told apart from the empty\n"
               "  function's (docs/performance.md, \"The floor\")\n");
    if (json_is_number(json_object_get(b, "geomean_ms")))
        printf("  geometric mean of the medians: %.2f ms (the leaderboard's measure)\n",
               json_number_value(json_object_get(b, "geomean_ms")));
    const char *msg = json_string_value(json_object_get(b, "message"));
    if (msg)
        printf("  at size %s: %s\n", str_field(b, "failed_size"), msg);
}

/* Runs the benchmark phase for an accepted r and adds it to o as
 * "benchmark"; a failing call there changes the verdict (bench.h).
 * Returns 0, or -1 when the judge failed (message printed). */
static int run_bench(struct judge_ctx *ctx, const struct cli_paths *paths, const struct problem *p,
                     const char *src, size_t len, const char *file, double budget_ms,
                     struct judge_report *r, json_t *o)
{
    struct bench_options bo;
    struct machine_peak peak;
    char err[512];

    bench_options_default(&bo);
    if (budget_ms > 0)
        bo.budget_ms = budget_ms;
    if (machine_peak(paths->data, &peak, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: %s\n", err);
        return -1;
    }
    fprintf(stderr, "attnjudge: accepted; benchmarking at %zu size%s...\n", p->bench.n_sizes,
            p->bench.n_sizes == 1 ? "" : "s");
    struct bench_report *b = judge_benchmark(ctx, p, src, len, file, &bo, &peak);
    json_t *bj = b ? bench_report_json(b, p) : NULL;
    if (!bj) {
        bench_report_free(b);
        fprintf(stderr, "attnjudge: out of memory\n");
        return -1;
    }
    json_object_set_new(o, "benchmark", bj);
    if (b->verdict == V_INTERNAL_ERROR) {
        fprintf(stderr, "attnjudge: internal error in the benchmark: %s\n",
                b->internal_message ? b->internal_message : "unknown");
        bench_report_free(b);
        return -1;
    }
    if (b->verdict != V_ACCEPTED) {
        r->verdict = b->verdict;
        json_object_set_new(o, "verdict", json_string(judge_verdict_name(b->verdict)));
    }
    bench_report_free(b);
    return 0;
}

int cmd_judge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"problem", required_argument, NULL, 'p'},  {"json", no_argument, NULL, 'j'},
        {"samples-only", no_argument, NULL, 's'},   {"data", required_argument, NULL, 'd'},
        {"problems", required_argument, NULL, 'P'}, {"reference", required_argument, NULL, 'r'},
        {"full", no_argument, NULL, 'f'},           {"test-threads", required_argument, NULL, 't'},
        {"bench", no_argument, NULL, 'b'},          {"bench-budget", required_argument, NULL, 'B'},
        {"no-search", no_argument, NULL, 'n'},      {"search-budget", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    struct cli_paths paths = CLI_PATHS_DEFAULT;
    const char *slug = NULL;
    bool json = false, full = false, bench = false;
    double budget_ms = 0;
    struct judge_options jo = {.search_budget_ms = SEARCH_BUDGET_DEFAULT_MS};
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
        case 'f': full = true; break;
        case 'b': bench = true; break;
        case 'B': {
            char *end;
            budget_ms = strtod(optarg, &end);
            if (*end || !(budget_ms > 0 && budget_ms <= 3600000)) {
                fprintf(stderr, "attnjudge judge: --bench-budget: milliseconds, 1 to 3600000\n");
                return CLI_USAGE;
            }
            bench = true;
            break;
        }
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 0 || v > 64) {
                fprintf(stderr, "attnjudge judge: --test-threads wants 0..64\n");
                return CLI_USAGE;
            }
            jo.test_threads = (int)v;
            break;
        }
        case 's': jo.samples_only = true; break;
        case 'n': jo.search_budget_ms = 0; break;
        case 'S':
            if (cli_parse_budget("judge", optarg, &jo.search_budget_ms) < 0)
                return CLI_USAGE;
            break;
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
    json_t *o = judge_report_json(r, p);
    if (o && !full) {
        json_t *view = judge_report_redact(o);
        json_decref(o);
        o = view;
    }
    if (!o) {
        fprintf(stderr, "attnjudge: cannot encode the report\n");
        goto out;
    }
    if (bench && !jo.samples_only && r->verdict == V_ACCEPTED &&
        run_bench(ctx, &paths, p, src, len, strcmp(file, "-") ? file : "solution.c", budget_ms, r,
                  o) < 0) {
        json_decref(o);
        goto out;
    }
    if (json) {
        if (r->verdict == V_INTERNAL_ERROR && r->internal_message)
            json_object_set_new(o, "internal_message", json_string(r->internal_message));
        char *text = json_dumps(o, JSON_COMPACT | JUDGE_JSON_REALS);
        if (!text) {
            fprintf(stderr, "attnjudge: cannot encode the report\n");
            json_decref(o);
            goto out;
        }
        puts(text);
        free(text);
        if (r->verdict == V_INTERNAL_ERROR)
            fprintf(stderr, "attnjudge: internal error: %s\n",
                    r->internal_message ? r->internal_message : "unknown");
    } else {
        print_human(o, full, r, p, file);
        if (json_object_get(o, "benchmark"))
            print_bench(json_object_get(o, "benchmark"));
    }
    json_decref(o);
    rc = r->verdict == V_ACCEPTED ? CLI_OK : CLI_FAIL;
out:
    judge_report_free(r);
    judge_close(ctx);
    problem_free(p);
    free(src);
    return rc;
}
