/*
 * check — validating a problem package by using it: the statement is
 * rendered with libcmark, and the reference, the starter and the package's
 * example solutions (accepted/ file, wrong/ file) and every known mistake
 * are judged through
 * judge_submission() exactly as students' files will be. The accepted
 * examples also calibrate the tolerance: the margin of a test is
 * 1 / the largest tolerance_use of any output element (docs/tolerances.md),
 * and it must be at least CHECK_MIN_MARGIN, as tests/run-corpus.py asks of
 * the seed corpus.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/check.h"
#include "judge/check_search.h"
#include "judge/errbuf.h"
#include "judge/markdown.h"
#include "judge/bench.h"
#include "util/fs.h"

static void say(judge_check_report_fn report, void *arg, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(judge_check_report_fn report, void *arg, bool ok, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    report(arg, ok, line);
}

/* Reads the whole reference file (resolved by problem_load); NULL with
 * errno if it cannot, or ENOENT if the package has none. A reference larger
 * than a package file may be is refused, never judged cut short. */
static char *read_reference(const struct problem *p)
{
    char *buf = NULL;

    if (!p->reference_path) {
        errno = ENOENT;
        return NULL;
    }
    if (fs_read_file(p->reference_path, 0, PROBLEM_MAX_FILE, &buf, NULL) < 0)
        return NULL;
    return buf;
}

/* The first failing test of a report, as "test 'x': message". */
static void first_failure(const struct judge_report *r, char *buf, size_t len)
{
    snprintf(buf, len, "?");
    for (int i = 0; i < r->n_tests; i++)
        if (r->tests[i].verdict != V_ACCEPTED) {
            snprintf(buf, len, "test '%s'%s%s", r->tests[i].name, r->tests[i].message ? ": " : "",
                     r->tests[i].message ? r->tests[i].message : "");
            return;
        }
}

/* Judges one file of the package. Returns its report; NULL with err on a
 * judge failure. A report whose internal_error is the reference's failure
 * (reference_failed) is returned: that is the package's fault. */
static struct judge_report *judge_file(struct judge_ctx *ctx, const struct problem *p,
                                       const char *src, const char *name, int64_t search_ms,
                                       char *err, size_t errlen)
{
    struct judge_options opt = {.search_budget_ms = search_ms};
    struct judge_report *r = judge_submission(ctx, p, src, strlen(src), name, &opt);
    if (!r) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    if (r->verdict == V_INTERNAL_ERROR && !r->reference_failed) {
        errbuf_set(err, errlen, "judging %s: %s", name,
                   r->internal_message ? r->internal_message : "internal error");
        judge_report_free(r);
        return NULL;
    }
    return r;
}

/* ---- example solutions and the tolerance margin ---- */

#define CHECK_MIN_MARGIN 10.0 /* docs/tolerances.md: every output within 1/10 of the tolerance */
#define CHECK_MAX_EXAMPLES 64 /* per directory: bounds the time a check takes */

/* The smallest margin per test over the accepted examples judged so far. */
struct margins {
    double *per_test; /* [n], INFINITY until an example ran the test */
    size_t n;
    int n_measured;      /* accepted/ examples that were accepted: their margins count */
    int n_compile_error; /* accepted/ examples that did not compile */
};

/* A margin as the report prints it: "exact", or a number rounded so that
 * it never crosses CHECK_MIN_MARGIN: one under it is cut (9.97 is "9.9x",
 * never "10.0x"), one at or over it is rounded to a whole number. */
static void margin_text(double margin, char *buf, size_t len)
{
    if (isinf(margin))
        snprintf(buf, len, "exact");
    else if (margin >= 1e6)
        snprintf(buf, len, "%.1ex", margin);
    else if (margin >= CHECK_MIN_MARGIN)
        snprintf(buf, len, "%.0fx", margin);
    else if (margin >= 0.1)
        snprintf(buf, len, "%.1fx", floor(margin * 10) / 10);
    else
        snprintf(buf, len, "%.2gx", margin);
}

static int is_c_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 2 && strcmp(d->d_name + n - 2, ".c") == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The margin of one test of a report: 1 / the largest tolerance_use over its
 * tensors (INFINITY when every output is exact). */
static double test_margin(const struct judge_test_report *t)
{
    double use = 0;
    for (int k = 0; k < t->n_tensors; k++)
        if (t->tensors[k].cmp.worst_ratio > use)
            use = t->tensors[k].cmp.worst_ratio;
    return use > 0 ? 1.0 / use : INFINITY;
}

/* Judges one example, dir/name, which must be accepted (want_accepted) or
 * must not. Returns 0 if it behaves, 1 if not (reported), -1 on a judge
 * failure (err). */
static int check_example(struct judge_ctx *ctx, const struct problem *p, const char *kind,
                         const char *name, bool want_accepted, struct margins *m, int64_t search_ms,
                         judge_check_report_fn report, void *arg, char *err, size_t errlen)
{
    char path[4096], label[512], detail[768];
    char *src = NULL;
    struct judge_report *r = NULL;
    int rc = -1;

    snprintf(path, sizeof path, "%s/%s/%s", p->dir, kind, name);
    snprintf(label, sizeof label, "%s/%s", kind, name);
    if (fs_read_file(path, 0, PROBLEM_MAX_FILE, &src, NULL) < 0) {
        say(report, arg, false, "%s: cannot read it: %s", label, strerror(errno));
        return 1;
    }
    if (!(r = judge_file(ctx, p, src, label, search_ms, err, errlen)))
        goto out;
    rc = 1;
    if (r->verdict == V_INTERNAL_ERROR) {
        say(report, arg, false, "%s: %s", label, r->internal_message ? r->internal_message : "");
    } else if (r->verdict == V_COMPILE_ERROR) {
        if (want_accepted)
            m->n_compile_error++;
        say(report, arg, false, "%s: compile_error, so it checks nothing:\n%s", label,
            r->compile_log ? r->compile_log : "");
    } else if (!want_accepted) {
        if (r->verdict == V_ACCEPTED) {
            say(report, arg, false,
                "%s: accepted, but it is a known wrong solution: %s add a test that catches it",
                label, r->search.ran ? "neither the tests nor the search catch it:" : "");
        } else if (r->search.cx) {
            char where[256];
            check_search_where(p, r, where, sizeof where);
            say(report, arg, true,
                "%s escapes every test; the search found it in %.1f s at %s: add a test", label,
                r->search.found_ms / 1000, where);
            rc = 0;
        } else {
            first_failure(r, detail, sizeof detail);
            say(report, arg, true, "%s: %s on %s, as it should be", label,
                judge_verdict_name(r->verdict), detail);
            rc = 0;
        }
    } else if (r->verdict != V_ACCEPTED && r->search.cx) {
        char where[256];
        check_search_where(p, r, where, sizeof where);
        say(report, arg, false,
            "%s: the search found an input it fails on, at %s, but it is a correct solution: "
            "the domain promises more than the statement, or the tolerance is too tight",
            label, where);
    } else if (r->verdict != V_ACCEPTED) {
        first_failure(r, detail, sizeof detail);
        say(report, arg, false, "%s: %s on %s, but it is a correct solution", label,
            judge_verdict_name(r->verdict), detail);
    } else {
        double least = INFINITY;
        const char *where = "-";
        char text[32];
        m->n_measured++;
        for (int i = 0; i < r->n_tests && (size_t)i < m->n; i++) {
            double t = test_margin(&r->tests[i]);
            if (t < m->per_test[i])
                m->per_test[i] = t;
            if (t < least) {
                least = t;
                where = r->tests[i].name;
            }
        }
        margin_text(least, text, sizeof text);
        char searched[128] = "";
        if (r->search.ran)
            snprintf(searched, sizeof searched,
                     "; the search: %d inputs, worst error/tolerance %.3g", r->search.inputs,
                     r->search.worst_ratio);
        if (least < CHECK_MIN_MARGIN) {
            say(report, arg, false,
                "%s: accepted, but with a tolerance margin of only %s on test '%s' (at least "
                "%.0fx is needed, docs/tolerances.md): the tolerance is too tight",
                label, text, where, CHECK_MIN_MARGIN);
        } else {
            if (isinf(least))
                say(report, arg, true, "%s: accepted, every output exact%s", label, searched);
            else
                say(report, arg, true, "%s: accepted, smallest margin %s on test '%s'%s", label,
                    text, where, searched);
            rc = 0;
        }
    }
out:
    free(src);
    judge_report_free(r);
    return rc;
}

/* Checks one known mistake (docs/problem-format.md, "Known mistakes"): it
 * compiles, is not accepted, completes every sample test and is wrong on
 * at least one (otherwise no submission could be diagnosed with it), and
 * its own sample outputs are diagnosed as itself (an earlier mistake with
 * the same sample outputs would always win). Returns 0 (ok), 1 (a finding
 * was reported) or -1 (the judge failed; err set). */
static int check_mistake(struct judge_ctx *ctx, const struct problem *p,
                         const struct problem_mistake *m, int64_t search_ms,
                         judge_check_report_fn report, void *arg, char *err, size_t errlen)
{
    char *src = NULL, name[80];
    struct judge_report *r = NULL;
    int rc = 1, n_sample = 0, n_wrong = 0;

    snprintf(name, sizeof name, "%s.c", m->id);
    if (fs_read_file(m->path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, NULL) < 0) {
        say(report, arg, false, "mistakes/%s: cannot read it: %s", name, strerror(errno));
        goto out;
    }
    if (!(r = judge_file(ctx, p, src, name, search_ms, err, errlen))) {
        rc = -1;
        goto out;
    }
    if (r->verdict == V_COMPILE_ERROR) {
        say(report, arg, false, "mistakes/%s: compile_error:\n%s", name,
            r->compile_log ? r->compile_log : "");
        goto out;
    }
    if (r->verdict == V_ACCEPTED) {
        say(report, arg, false, "mistakes/%s: accepted on every test, so it is no mistake%s", name,
            r->search.ran ? " (and the search found no input that tells it from the reference)"
                          : "");
        goto out;
    }
    if (r->search.cx) {
        char where[256];
        check_search_where(p, r, where, sizeof where);
        say(report, arg, false,
            "mistakes/%s escapes every test; the search found it in %.1f s at %s: add a test "
            "(a sample test, for the diagnosis)",
            name, r->search.found_ms / 1000, where);
        goto out;
    }
    for (int i = 0; i < r->n_tests; i++) {
        const struct judge_test_report *t = &r->tests[i];
        if (t->kind != TEST_SAMPLE)
            continue;
        n_sample++;
        if (t->verdict == V_WRONG_ANSWER) {
            n_wrong++;
        } else if (t->verdict != V_ACCEPTED) {
            say(report, arg, false,
                "mistakes/%s: %s on sample test '%s': a mistake must run every sample test to "
                "its comparison to be diagnosed",
                name, judge_verdict_name(t->verdict), t->name);
            goto out;
        }
    }
    if (!n_wrong) {
        say(report, arg, false,
            "mistakes/%s: matches the reference on every sample test, so it can never be "
            "diagnosed: add a sample test that tells them apart",
            name);
        goto out;
    }
    if (!r->diagnosis.mistake || strcmp(r->diagnosis.mistake, m->id) != 0) {
        if (r->diagnosis.mistake)
            say(report, arg, false,
                "mistakes/%s: its sample outputs match those of the earlier mistake '%s', which "
                "would always be reported instead",
                name, r->diagnosis.mistake);
        else
            say(report, arg, false, "mistakes/%s: %s, but not diagnosed as itself", name,
                judge_verdict_name(r->verdict));
        goto out;
    }
    say(report, arg, true, "mistakes/%s is %s, wrong on %d of %d sample tests, and diagnosed", name,
        judge_verdict_name(r->verdict), n_wrong, n_sample);
    rc = 0;
out:
    free(src);
    judge_report_free(r);
    return rc;
}

/* Judges every example of p->dir/kind (none, if the directory is absent).
 * Returns the number of failures (reported), -1 on a judge failure. */
static int check_examples_in(struct judge_ctx *ctx, const struct problem *p, const char *kind,
                             bool want_accepted, struct margins *m, int *n_judged,
                             int64_t search_ms, judge_check_report_fn report, void *arg, char *err,
                             size_t errlen)
{
    char path[4096];
    struct dirent **names = NULL;
    int failures = 0;

    snprintf(path, sizeof path, "%s/%s", p->dir, kind);
    int n = scandir(path, &names, is_c_file, by_name);
    if (n < 0)
        return 0; /* no examples of this kind */
    if (n > CHECK_MAX_EXAMPLES) {
        say(report, arg, false, "%s/: %d examples, at most %d are checked", kind, n,
            CHECK_MAX_EXAMPLES);
        failures++;
    }
    for (int i = 0; i < n; i++) {
        if (failures >= 0 && i < CHECK_MAX_EXAMPLES) {
            int rc = check_example(ctx, p, kind, names[i]->d_name, want_accepted, m, search_ms,
                                   report, arg, err, errlen);
            failures = rc < 0 ? -1 : failures + rc;
            (*n_judged)++;
        }
        free(names[i]);
    }
    free(names);
    return failures;
}

/* The package's example solutions: accepted/ file must be accepted with the
 * margin, wrong/ file must not be accepted; then the margin of every test,
 * the smallest over the accepted examples. Returns the number of failures,
 * -1 on a judge failure (err). */
static int check_examples(struct judge_ctx *ctx, const struct problem *p, int64_t search_ms,
                          judge_check_report_fn report, void *arg, char *err, size_t errlen)
{
    struct margins m = {0};
    int failures = -1, n_ok = 0, n_wrong = 0;

    m.n = p->n_tests;
    if (!(m.per_test = calloc(m.n ? m.n : 1, sizeof *m.per_test))) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m.n; i++)
        m.per_test[i] = INFINITY;
    int a =
        check_examples_in(ctx, p, "accepted", true, &m, &n_ok, search_ms, report, arg, err, errlen);
    if (a < 0)
        goto out;
    int w = check_examples_in(ctx, p, "wrong", false, &m, &n_wrong, search_ms, report, arg, err,
                              errlen);
    if (w < 0)
        goto out;
    failures = a + w;
    if (n_ok == 0)
        say(report, arg, true,
            "accepted/: no example solutions, so the tolerance margin is not measured "
            "(docs/authoring.md)");
    else if (m.n_measured == 0 && m.n_compile_error == n_ok)
        say(report, arg, false, "margin not measured: the accepted example%s did not compile",
            n_ok == 1 ? "" : "s");
    else if (m.n_measured == 0)
        say(report, arg, false, "margin not measured: no accepted example was accepted");
    else
        /* a test under the threshold fails here too: the example's line
         * counted the failure, and the two lines must agree */
        for (size_t i = 0; i < m.n; i++) {
            char text[32];
            margin_text(m.per_test[i], text, sizeof text);
            if (m.per_test[i] < CHECK_MIN_MARGIN)
                say(report, arg, false, "margin on test '%s': %s, under the %.0fx needed",
                    p->tests[i].name, text, CHECK_MIN_MARGIN);
            else
                say(report, arg, true, "margin on test '%s': %s", p->tests[i].name, text);
        }
    if (n_wrong == 0)
        say(report, arg, true, "wrong/: no known wrong solutions to reject");
out:
    free(m.per_test);
    return failures;
}

/* The hints and the walkthrough render as the statement does (the loader
 * has checked their names, sizes and UTF-8). Returns the failures. */
static int check_help_texts(const struct problem *p, judge_check_report_fn report, void *arg)
{
    int failures = 0;

    for (size_t i = 0; i < p->n_hints + 1; i++) {
        const char *md = i < p->n_hints ? p->hints[i] : p->walkthrough_md;
        char name[32];
        if (!md)
            continue;
        if (i < p->n_hints)
            snprintf(name, sizeof name, "hints/%zu.md", i + 1);
        else
            snprintf(name, sizeof name, "walkthrough.md");
        char *html = markdown_html(md, strlen(md));
        if (!html || !html[0]) {
            say(report, arg, false, "%s: does not render", name);
            failures++;
        }
        free(html);
    }
    if (!failures && (p->n_hints || p->walkthrough_md))
        say(report, arg, true, "%zu hint%s%s render", p->n_hints, p->n_hints == 1 ? "" : "s",
            p->walkthrough_md ? " and the walkthrough" : "");
    return failures;
}

int judge_check_problem(struct judge_ctx *ctx, const struct problem *p,
                        judge_check_report_fn report, void *arg, char *err, size_t errlen)
{
    return judge_check_problem_search(ctx, p, 0, report, arg, err, errlen);
}

int judge_check_problem_search(struct judge_ctx *ctx, const struct problem *p, int64_t search_ms,
                               judge_check_report_fn report, void *arg, char *err, size_t errlen)
{
    int failures = 0, rc = -1;
    char *ref_src = NULL;
    struct judge_report *ref = NULL, *starter = NULL;
    char detail[768];

    char *html = markdown_html(p->statement_md, strlen(p->statement_md));
    if (html && html[0]) {
        say(report, arg, true, "statement.md renders (%zu bytes of HTML)", strlen(html));
    } else {
        say(report, arg, false, "statement.md: does not render");
        failures++;
    }
    free(html);
    failures += check_help_texts(p, report, arg);

    if (!(ref_src = read_reference(p))) {
        if (errno == ENOENT)
            say(report, arg, false,
                "reference.c: missing (in the package or the reference directory)");
        else
            say(report, arg, false, "reference.c: cannot read it: %s", strerror(errno));
        failures++;
    } else {
        if (!(ref = judge_file(ctx, p, ref_src, "reference.c", 0, err, errlen)))
            goto out;
        if (ref->verdict == V_INTERNAL_ERROR) { /* reference_failed: judge_file */
            say(report, arg, false, "reference.c: %s",
                ref->internal_message ? ref->internal_message : "fails");
            failures++;
        } else if (ref->verdict == V_COMPILE_ERROR) {
            say(report, arg, false, "reference.c: compile_error:\n%s",
                ref->compile_log ? ref->compile_log : "");
            failures++;
        } else if (ref->verdict != V_ACCEPTED) {
            first_failure(ref, detail, sizeof detail);
            say(report, arg, false, "reference.c: %s on %s", judge_verdict_name(ref->verdict),
                detail);
            failures++;
        } else {
            say(report, arg, true,
                "reference.c is accepted on all %d tests within the students' limits",
                ref->n_tests);
        }
    }

    /* every benchmark size must leave a solution as fast as the reference
     * its time limit (docs/problem-format.md, "Benchmark sizes") */
    for (size_t i = 0; ref && ref->verdict == V_ACCEPTED && i < p->bench.n_sizes; i++) {
        const struct test_case *size = &p->bench.sizes[i];
        double ms = 0;
        int c = bench_reference_at(ctx, p, size, &ms, detail, sizeof detail);
        if (c < 0) {
            errbuf_set(err, errlen, "%s", detail);
            goto out;
        }
        if (c > 0) {
            say(report, arg, false, "benchmark size %s: %s", size->name, detail);
            failures++;
        } else {
            say(report, arg, true,
                "benchmark size %s: the reference takes %.0f ms of its %" PRId64 " ms", size->name,
                ms, size->limits.cpu_ms);
        }
    }

    /* judging the starter needs the reference's outputs */
    if (failures && (!ref || ref->verdict != V_ACCEPTED)) {
        say(report, arg, false, "starter.c: not checked until the reference is accepted");
        rc = 1;
        goto out;
    }
    if (!(starter = judge_file(ctx, p, p->starter_c, "starter.c", 0, err, errlen)))
        goto out;
    if (starter->verdict == V_INTERNAL_ERROR) { /* reference_failed: judge_file */
        say(report, arg, false, "starter.c: %s",
            starter->internal_message ? starter->internal_message : "");
        failures++;
    } else if (starter->verdict == V_COMPILE_ERROR) {
        say(report, arg, false, "starter.c: compile_error:\n%s",
            starter->compile_log ? starter->compile_log : "");
        failures++;
    } else {
        say(report, arg, true, "starter.c compiles (%s%s)", judge_verdict_name(starter->verdict),
            starter->verdict == V_ACCEPTED ? ": a starter should not pass" : "");
    }
    for (size_t i = 0; i < p->n_mistakes; i++) {
        int c = check_mistake(ctx, p, &p->mistakes[i], search_ms, report, arg, err, errlen);
        if (c < 0)
            goto out;
        failures += c;
    }
    int examples = check_examples(ctx, p, search_ms, report, arg, err, errlen);
    if (examples < 0)
        goto out;
    failures += examples;
    check_search_domain(p, search_ms, report, arg);
    rc = failures ? 1 : 0;
out:
    free(ref_src);
    judge_report_free(ref);
    judge_report_free(starter);
    return rc;
}

/* ---- statement math, through KaTeX ---- */

extern char **environ;

/* Runs `node script dir/name` and reports name's math. Returns the
 * failures (0 or 1), or -1 when the checker could not run (reported as
 * skipped). */
static int check_math_file(const struct problem *p, const char *name, const char *script,
                           judge_check_report_fn report, void *arg)
{
    char path[4096], out[8192];
    size_t len = 0;
    int fds[2] = {-1, -1}, status = 0, failures = 0;
    pid_t pid = -1;
    posix_spawn_file_actions_t fa;
    /* statement.md keeps its historical wording: "statement math: ..." */
    bool stmt = strcmp(name, "statement.md") == 0;
    const char *what = stmt ? "statement" : name;

    snprintf(path, sizeof path, "%s/%s", p->dir, name);
    if (pipe2(fds, O_CLOEXEC) < 0 || posix_spawn_file_actions_init(&fa) != 0) {
        say(report, arg, true, "%s math: not checked with KaTeX (%s)", what, strerror(errno));
        failures = -1;
        goto out;
    }
    char *argv[] = {"node", (char *)script, path, NULL};
    int rc = posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    if (rc == 0)
        rc = posix_spawnp(&pid, "node", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    fds[1] = -1;
    if (rc != 0) {
        say(report, arg, true, "%s math: not checked with KaTeX (node: %s)", what, strerror(rc));
        failures = -1;
        goto out;
    }
    for (;;) {
        ssize_t n = read(fds[0], out + len, sizeof out - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == sizeof out - 1)
            break; /* enough to show; the rest is not read */
    }
    out[len] = '\0';
    close(fds[0]);
    fds[0] = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        say(report, arg, true, "%s math: KaTeX renders every formula", what);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && len > 0) {
        /* exit 1 without a line is node failing to load the script (a
         * missing module), not a formula: that is the branch below */
        failures = 1;
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char *tab = strchr(line, '\t');
            if (tab)
                *tab = '\0';
            say(report, arg, false, "%s:%s: KaTeX cannot render this math: %s", name, line,
                tab ? tab + 1 : "");
        }
    } else {
        say(report, arg, true,
            "%s math: not checked with KaTeX (the checker failed; is web/node_modules "
            "installed? run make)",
            what);
        failures = -1;
    }
out:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    return failures;
}

int judge_check_math(const struct problem *p, const char *script, judge_check_report_fn report,
                     void *arg)
{
    char name[32];
    int failures = 0, rc;
    bool skipped = false;

    if (access(script, R_OK) != 0) {
        say(report, arg, true, "statement math: not checked with KaTeX (%s: %s)", script,
            strerror(errno));
        return -1;
    }
    rc = check_math_file(p, "statement.md", script, report, arg);
    failures += rc > 0;
    skipped |= rc < 0;
    for (size_t i = 0; i < p->n_hints; i++) {
        snprintf(name, sizeof name, "hints/%zu.md", i + 1);
        rc = check_math_file(p, name, script, report, arg);
        failures += rc > 0;
        skipped |= rc < 0;
    }
    if (p->walkthrough_md) {
        rc = check_math_file(p, "walkthrough.md", script, report, arg);
        failures += rc > 0;
        skipped |= rc < 0;
    }
    return failures ? 1 : skipped ? -1 : 0;
}
