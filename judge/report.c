/*
 * report — a judge_report as JSON, the one shape shared by `attnjudge judge
 * --json`, the HTTP API and the database.
 *
 * What a student may see is decided here, once. The full report (the
 * database, instructors, `attnjudge judge --full`) carries every
 * measurement; sample tests also carry the first mismatches (coordinates,
 * expected and got values), printed output and the per-element error map.
 * A top-level `diagnosis` (the known mistake the sample outputs match) is
 * derived from sample tests only and is kept in every view.
 * The student's view (judge_report_redact) keeps all of a sample test, but
 * of a hidden test only its name, kind, verdict, weight, dims and a coarse
 * time class: an error statistic, an exit code, a signal or a system call's
 * name would each carry bits of the hidden data out (docs/sandbox.md,
 * "Hidden tests").
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "judge/harness.h"
#include "judge/judge.h"

/* JSON has no NaN or infinity: such values travel as strings. */
static json_t *num(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    return json_real(v);
}

/* Text from a compiler or a student's program need not be UTF-8, which
 * JSON strings must be: invalid bytes become '?'. NULL stays null. */
static json_t *text(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return json_null();
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = u[i] < 0x80         ? 1
                     : (u[i] >> 5) == 6  ? 2
                     : (u[i] >> 4) == 14 ? 3
                     : (u[i] >> 3) == 30 ? 4
                                         : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (u[i + k] & 0xc0) == 0x80;
        if (ok && len > 1) {
            json_t *probe = json_stringn(s + i, len); /* overlong, surrogates */
            ok = probe != NULL;
            json_decref(probe);
        }
        if (ok) {
            memcpy(copy + i, s + i, len);
            i += len;
        } else {
            copy[i++] = '?';
        }
    }
    copy[n] = '\0';
    j = json_string(copy);
    free(copy);
    return j ? j : json_null();
}

/* The time classes of a test that ran: its CPU time as a share of its CPU
 * limit, in three classes, so a program that spins for a data-dependent
 * time carries at most log2(3) bits per hidden test this way. */
static const char *time_class(double cpu_ms, int64_t limit_ms)
{
    if (limit_ms <= 0 || cpu_ms >= (double)limit_ms / 2)
        return "slow"; /* half the limit or more, over it included */
    if (cpu_ms >= (double)limit_ms / 8)
        return "medium";
    return "fast";
}

static json_t *shape_json(const int64_t *shape, int rank)
{
    json_t *a = json_array();
    for (int i = 0; a && i < rank; i++)
        json_array_append_new(a, json_integer(shape[i]));
    return a;
}

static json_t *tensor_json(const struct judge_tensor_report *t, bool sample)
{
    const struct compare_result *c = &t->cmp;
    json_t *o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:o, s:o, s:o}", "name", t->name, "shape",
                          shape_json(t->shape, t->rank), "elements", (json_int_t)c->n_elems,
                          "mismatches", (json_int_t)c->n_mismatch, "nonfinite",
                          (json_int_t)c->n_nonfinite, "max_abs_err", num(c->max_abs_err),
                          "max_rel_err", num(c->max_rel_err), "tolerance_use", num(c->worst_ratio));
    if (!o || !sample)
        return o;
    json_t *first = json_array();
    for (int i = 0; first && i < c->n_shown; i++) {
        const struct mismatch *m = &c->shown[i];
        char where[160];
        compare_format_coord(t->name, m->coord, t->rank, where, sizeof where);
        json_array_append_new(first, json_pack("{s:s, s:o, s:o, s:o}", "at", where, "index",
                                               shape_json(m->coord, t->rank), "expected",
                                               num(m->expected), "got", num(m->got)));
    }
    json_object_set_new(o, "first_mismatches", first ? first : json_null());
    if (t->abs_err) {
        json_t *map = json_array();
        for (int64_t i = 0; map && i < c->n_elems; i++)
            json_array_append_new(map, num(t->abs_err[i]));
        json_object_set_new(o, "abs_err", map ? map : json_null());
    }
    return o;
}

json_t *judge_report_json(const struct judge_report *r, const struct problem *p)
{
    json_t *tests = json_array();
    json_t *o = json_pack("{s:s, s:f, s:o, s:f, s:f}", "verdict", judge_verdict_name(r->verdict),
                          "score", r->score, "compile_log", text(r->compile_log), "compile_ms",
                          r->compile_ms, "compile_wall_ms", r->compile_wall_ms);
    if (!o || !tests) {
        json_decref(o);
        json_decref(tests);
        return NULL;
    }
    for (int i = 0; i < r->n_tests; i++) {
        const struct judge_test_report *t = &r->tests[i];
        bool sample = t->kind == TEST_SAMPLE;
        json_t *dims = json_object();
        int d = 0;
        for (int k = 0; dims && t->dims && k < p->n_params; k++)
            if (p->params[k].kind == PARAM_INT)
                json_object_set_new(dims, p->params[k].name, json_integer(t->dims[d++]));
        if (t->verdict == V_NOT_RUN) {
            json_array_append_new(tests,
                                  json_pack("{s:s, s:s, s:s, s:i, s:o}", "name", t->name, "kind",
                                            problem_test_kind_name(t->kind), "verdict",
                                            judge_verdict_name(t->verdict), "weight", t->weight,
                                            "dims", dims ? dims : json_null()));
            continue;
        }
        json_t *to = json_pack(
            "{s:s, s:s, s:s, s:i, s:o, s:f, s:f, s:o, s:o, s:I, s:o}", "name", t->name, "kind",
            problem_test_kind_name(t->kind), "verdict", judge_verdict_name(t->verdict), "weight",
            t->weight, "dims", dims ? dims : json_null(), "time_ms", t->time_ms, "wall_ms",
            t->wall_ms, "max_abs_err", num(t->max_abs_err), "max_rel_err", num(t->max_rel_err),
            "mismatches", (json_int_t)t->n_mismatch, "message", text(t->message));
        if (!to)
            continue;
        json_object_set_new(to, "compare_ms", json_real(t->compare_ms));
        json_object_set_new(to, "time_class", json_string(time_class(t->time_ms, t->cpu_limit_ms)));
        if (sample && t->output)
            json_object_set_new(to, "output", text(t->output));
        json_t *ts = json_array();
        for (int k = 0; ts && k < t->n_tensors; k++)
            json_array_append_new(ts, tensor_json(&t->tensors[k], sample));
        json_object_set_new(to, "tensors", ts ? ts : json_null());
        json_array_append_new(tests, to);
    }
    json_object_set_new(o, "tests", tests);
    /* from sample tests only (judge.h): kept in the student's view */
    if (r->diagnosis.mistake)
        json_object_set_new(o, "diagnosis",
                            json_pack("{s:s, s:s, s:s}", "mistake", r->diagnosis.mistake, "title",
                                      r->diagnosis.title, "hint", r->diagnosis.hint));
    char command[512];
    harness_compile_command(command, sizeof command);
    json_object_set_new(o, "compile_command", json_string(command));
    return o;
}

/* A hidden test as a student sees it: a whitelist, so that a field added
 * to the full report later stays out of this view until it is judged safe. */
static json_t *hidden_test_view(const json_t *t)
{
    static const char *const keep[] = {"name", "kind", "verdict", "weight", "dims", "time_class"};
    json_t *o = json_object();
    for (size_t i = 0; o && i < sizeof keep / sizeof keep[0]; i++) {
        json_t *v = json_object_get(t, keep[i]);
        if (v && json_object_set_new(o, keep[i], json_deep_copy(v)) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

json_t *judge_report_redact(const json_t *full)
{
    json_t *o = json_deep_copy(full);
    if (!o || !json_is_object(o))
        return o;
    json_t *verdict = json_object_get(o, "verdict");
    if (json_object_get(o, "time_ms") &&
        !(json_is_string(verdict) &&
          judge_verdict_from_name(json_string_value(verdict)) == V_ACCEPTED) &&
        json_object_set_new(o, "time_ms", json_null()) < 0)
        goto oom;
    json_t *tests = json_object_get(o, "tests");
    size_t i;
    json_t *t;
    json_array_foreach(tests, i, t)
    {
        json_t *kind = json_object_get(t, "kind");
        /* anything not plainly a sample is treated as hidden */
        if (json_is_string(kind) &&
            problem_test_kind_from_name(json_string_value(kind)) == TEST_SAMPLE)
            continue;
        json_t *view = hidden_test_view(t);
        if (!view || json_array_set_new(tests, i, view) < 0)
            goto oom;
    }
    return o;
oom:
    json_decref(o);
    return NULL;
}

/* An array of the names of the flags of a NULL-terminated list. */
static json_t *str_list(const char *const *s)
{
    json_t *a = json_array();
    for (int i = 0; a && s[i]; i++)
        if (json_array_append_new(a, json_string(s[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *judge_vocabulary_json(void)
{
    char command[1024];
    json_t *verdicts = json_array(), *fatal = json_array(), *kinds = json_array(), *o = NULL;
    if (!verdicts || !fatal || !kinds)
        goto out;
    for (int v = V_ACCEPTED; v < V_NOT_RUN; v++) {
        if (json_array_append_new(verdicts, json_string(judge_verdict_name(v))) < 0)
            goto out;
        if (judge_verdict_is_fatal(v) &&
            json_array_append_new(fatal, json_string(judge_verdict_name(v))) < 0)
            goto out;
    }
    for (int k = TEST_SAMPLE; k <= TEST_HIDDEN; k++)
        if (json_array_append_new(kinds, json_string(problem_test_kind_name(k))) < 0)
            goto out;
    harness_compile_command(command, sizeof command);
    o = json_pack("{s:O, s:[s], s:O, s:O, s:{s:o, s:o, s:s}, s:[ssss], s:i}", "verdicts", verdicts,
                  "test_states", judge_verdict_name(V_NOT_RUN), "fatal_verdicts", fatal,
                  "test_kinds", kinds, "compile", "cflags", str_list(harness_cflags), "ldflags",
                  str_list(harness_ldflags), "command", command, "progress_stages",
                  JUDGE_STAGE_WAITING, JUDGE_STAGE_COMPILING, JUDGE_STAGE_RUNNING, JUDGE_STAGE_DONE,
                  "max_source_kib", JUDGE_SOURCE_MAX_DEFAULT / 1024);
out:
    json_decref(verdicts);
    json_decref(fatal);
    json_decref(kinds);
    return o;
}
