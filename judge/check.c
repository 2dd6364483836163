/*
 * check — validating a problem package by using it: the statement is
 * rendered with libcmark, and the reference, the starter and every known
 * mistake are judged through judge_submission() exactly as students' files
 * will be.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/check.h"
#include "judge/errbuf.h"
#include "judge/markdown.h"
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
 * judge failure. */
static struct judge_report *judge_file(struct judge_ctx *ctx, const struct problem *p,
                                       const char *src, const char *name, char *err, size_t errlen)
{
    struct judge_options opt = {0};
    struct judge_report *r = judge_submission(ctx, p, src, strlen(src), name, &opt);
    if (!r) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    if (r->verdict == V_INTERNAL_ERROR) {
        errbuf_set(err, errlen, "judging %s: %s", name,
                   r->internal_message ? r->internal_message : "internal error");
        judge_report_free(r);
        return NULL;
    }
    return r;
}

/* Checks one known mistake (docs/problem-format.md, "Known mistakes"): it
 * compiles, is not accepted, completes every sample test and is wrong on
 * at least one (otherwise no submission could be diagnosed with it), and
 * its own sample outputs are diagnosed as itself (an earlier mistake with
 * the same sample outputs would always win). Returns 0 (ok), 1 (a finding
 * was reported) or -1 (the judge failed; err set). */
static int check_mistake(struct judge_ctx *ctx, const struct problem *p,
                         const struct problem_mistake *m, judge_check_report_fn report, void *arg,
                         char *err, size_t errlen)
{
    char *src = NULL, name[80];
    struct judge_report *r = NULL;
    int rc = 1, n_sample = 0, n_wrong = 0;

    snprintf(name, sizeof name, "%s.c", m->id);
    if (fs_read_file(m->path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, NULL) < 0) {
        say(report, arg, false, "mistakes/%s: cannot read it: %s", name, strerror(errno));
        goto out;
    }
    if (!(r = judge_file(ctx, p, src, name, err, errlen))) {
        rc = -1;
        goto out;
    }
    if (r->verdict == V_COMPILE_ERROR) {
        say(report, arg, false, "mistakes/%s: compile_error:\n%s", name,
            r->compile_log ? r->compile_log : "");
        goto out;
    }
    if (r->verdict == V_ACCEPTED) {
        say(report, arg, false, "mistakes/%s: accepted on every test, so it is no mistake", name);
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

int judge_check_problem(struct judge_ctx *ctx, const struct problem *p,
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

    if (!(ref_src = read_reference(p))) {
        if (errno == ENOENT)
            say(report, arg, false,
                "reference.c: missing (in the package or the reference directory)");
        else
            say(report, arg, false, "reference.c: cannot read it: %s", strerror(errno));
        failures++;
    } else {
        if (!(ref = judge_file(ctx, p, ref_src, "reference.c", err, errlen)))
            goto out;
        if (ref->verdict == V_COMPILE_ERROR) {
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

    /* judging the starter needs the reference's outputs */
    if (failures && (!ref || ref->verdict != V_ACCEPTED)) {
        say(report, arg, false, "starter.c: not checked until the reference is accepted");
        rc = 1;
        goto out;
    }
    if (!(starter = judge_file(ctx, p, p->starter_c, "starter.c", err, errlen)))
        goto out;
    if (starter->verdict == V_COMPILE_ERROR) {
        say(report, arg, false, "starter.c: compile_error:\n%s",
            starter->compile_log ? starter->compile_log : "");
        failures++;
    } else {
        say(report, arg, true, "starter.c compiles (%s%s)", judge_verdict_name(starter->verdict),
            starter->verdict == V_ACCEPTED ? ": a starter should not pass" : "");
    }
    for (size_t i = 0; i < p->n_mistakes; i++) {
        int c = check_mistake(ctx, p, &p->mistakes[i], report, arg, err, errlen);
        if (c < 0)
            goto out;
        failures += c;
    }
    rc = failures ? 1 : 0;
out:
    free(ref_src);
    judge_report_free(ref);
    judge_report_free(starter);
    return rc;
}
