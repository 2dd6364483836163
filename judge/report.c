/*
 * report — what a judgement says (report.h): the verdicts' names, freeing
 * a report, and the report as JSON, the one shape shared by `attnjudge
 * judge --json`, the HTTP API and the database.
 *
 * What a student may see is decided here, once. The full report (the
 * database, instructors, `attnjudge judge --full`) carries every
 * measurement; sample tests also carry the first mismatches (coordinates,
 * expected and got values), printed output and the per-element error map.
 * A top-level `diagnosis` (the known mistake the outputs match, on the
 * sample tests or, when those all passed, on the failing hidden tests) is
 * kept in every view: it names a mistake of the package, never a value,
 * coordinate or measurement of a hidden test.
 * A test whose run ended without outputs to compare (a time limit, a
 * crash, ...) has null error statistics, never a zero that reads as "no
 * error"; so has an error maximum over no finite element (all NaN).
 * Messages are plain words from judge/explain.c.
 * The student's view (judge_report_redact) keeps all of a sample test, but
 * of a hidden test only its name, kind, verdict, weight, dims and a coarse
 * time class: an error statistic, an exit code, a signal or a system call's
 * name would each carry bits of the hidden data out (docs/sandbox.md,
 * "Hidden tests").
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/context.h"
#include "judge/dims.h"
#include "judge/explain.h"
#include "judge/harness.h"
#include "judge/report.h"
#include "judge/utf8.h"

static const char *const verdict_names[] = {
    [V_ACCEPTED] = "accepted",
    [V_WRONG_ANSWER] = "wrong_answer",
    [V_COMPILE_ERROR] = "compile_error",
    [V_RUNTIME_ERROR] = "runtime_error",
    [V_TIME_LIMIT] = "time_limit",
    [V_MEMORY_LIMIT] = "memory_limit",
    [V_SECURITY_VIOLATION] = "security_violation",
    [V_INTERNAL_ERROR] = "internal_error",
    [V_NOT_RUN] = "not_run",
};

const char *judge_verdict_name(enum judge_verdict v)
{
    if ((unsigned)v >= sizeof verdict_names / sizeof verdict_names[0])
        return "internal_error";
    return verdict_names[v];
}

int judge_verdict_from_name(const char *name)
{
    for (int i = 0; i < (int)V_NOT_RUN; i++)
        if (strcmp(verdict_names[i], name) == 0)
            return i;
    return -1;
}

bool judge_verdict_is_fatal(enum judge_verdict v)
{
    return v == V_TIME_LIMIT || v == V_RUNTIME_ERROR || v == V_MEMORY_LIMIT ||
           v == V_SECURITY_VIOLATION;
}

void judge_test_report_clear(struct judge_test_report *tr)
{
    for (int j = 0; j < tr->n_tensors; j++) {
        free(tr->tensors[j].name);
        free(tr->tensors[j].abs_err);
        free(tr->tensors[j].message);
    }
    free(tr->tensors);
    free(tr->message);
    free(tr->output);
    tr->tensors = NULL;
    tr->n_tensors = 0;
    tr->message = tr->output = NULL;
    tr->time_ms = tr->wall_ms = tr->compare_ms = tr->setup_ms = 0;
    tr->compared = false;
    tr->n_finite = tr->n_mismatch = 0;
    tr->max_abs_err = tr->max_rel_err = 0;
}

void judge_report_free(struct judge_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_tests; i++) {
        struct judge_test_report *t = &r->tests[i];
        judge_test_report_clear(t);
        free(t->name);
        free(t->dims);
    }
    free(r->tests);
    free(r->compile_log);
    free(r->internal_message);
    free(r->diagnosis.mistake);
    free(r->diagnosis.title);
    free(r->diagnosis.hint);
    judge_counterexample_free(r->search.cx);
    free(r);
}

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
 * JSON strings must be: invalid bytes become '?' (judge/utf8.c). NULL
 * stays null. */
static json_t *text(const char *s)
{
    return utf8_json_string(s);
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

/* A statistic that exists only when something was measured: null when
 * not (docs/api.md: shown as "—"). */
static json_t *measured(bool have, double v)
{
    return have ? num(v) : json_null();
}

/* {"at": "out[0, 3, 1]", "index": [0, 3, 1]} of a flat index of t. */
static json_t *where_json(const struct judge_tensor_report *t, const int64_t *coord)
{
    char where[160];
    compare_format_coord(t->name, coord, t->rank, where, sizeof where);
    return json_pack("{s:s, s:o}", "at", where, "index", shape_json(coord, t->rank));
}

/* The kinds of non-finite output the tensor holds (only those present):
 * kind, count, label and advice (judge/explain.c) and, on sample tests,
 * the first elements of each kind. */
static json_t *nonfinite_json(const struct judge_tensor_report *t, bool sample)
{
    const struct compare_result *c = &t->cmp;
    json_t *a = json_array();
    for (int k = 0; a && k < CMP_NONFINITE_KINDS; k++) {
        if (!c->n_kind[k])
            continue;
        json_t *o = json_pack("{s:s, s:I, s:s, s:s}", "kind", compare_nonfinite_name(k), "count",
                              (json_int_t)c->n_kind[k], "label", explain_nonfinite_label(k),
                              "explanation", explain_nonfinite(k));
        if (o && sample) {
            json_t *first = json_array();
            for (int j = 0; first && j < c->n_first[k]; j++) {
                int64_t coord[TENSOR_MAX_RANK];
                compare_index_coord(c->first[k][j], t->shape, t->rank, coord);
                json_array_append_new(first, where_json(t, coord));
            }
            json_object_set_new(o, "first", first ? first : json_null());
        }
        json_array_append_new(a, o);
    }
    return a;
}

/* An element of the error map: a number, "Infinity" for a non-finite
 * value the code computed, null for an element never written (judge.h). */
static json_t *abs_err_json(float v)
{
    return isnan(v) ? json_null() : num(v);
}

json_t *judge_tensor_json(const struct judge_tensor_report *t, bool sample)
{
    const struct compare_result *c = &t->cmp;
    bool finite = c->n_finite > 0;
    json_t *o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "name", t->name, "shape",
                          shape_json(t->shape, t->rank), "elements", (json_int_t)c->n_elems,
                          "mismatches", (json_int_t)c->n_mismatch, "nonfinite",
                          (json_int_t)c->n_nonfinite, "nonfinite_kinds", nonfinite_json(t, sample),
                          "max_abs_err", measured(finite, c->max_abs_err), "max_rel_err",
                          measured(finite, c->max_rel_err), "tolerance_use", num(c->worst_ratio));
    if (o && t->message)
        json_object_set_new(o, "message", text(t->message));
    if (!o || !sample)
        return o;
    json_t *first = json_array();
    for (int i = 0; first && i < c->n_shown; i++) {
        const struct mismatch *m = &c->shown[i];
        json_t *e = where_json(t, m->coord);
        if (e &&
            json_object_update_new(e, json_pack("{s:o, s:o}", "expected", num(m->expected), "got",
                                                num(m->got))) == 0 &&
            m->kind != CMP_FINITE)
            json_object_set_new(e, "kind", json_string(compare_nonfinite_name(m->kind)));
        json_array_append_new(first, e);
    }
    json_object_set_new(o, "first_mismatches", first ? first : json_null());
    if (t->abs_err) {
        json_t *map = json_array();
        for (int64_t i = 0; map && i < c->n_elems; i++)
            json_array_append_new(map, abs_err_json(t->abs_err[i]));
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
        bool finite = t->compared && t->n_finite > 0;
        json_t *to = json_pack(
            "{s:s, s:s, s:s, s:i, s:o, s:f, s:f, s:o, s:o, s:o, s:o}", "name", t->name, "kind",
            problem_test_kind_name(t->kind), "verdict", judge_verdict_name(t->verdict), "weight",
            t->weight, "dims", dims ? dims : json_null(), "time_ms", t->time_ms, "wall_ms",
            t->wall_ms, "max_abs_err", measured(finite, t->max_abs_err), "max_rel_err",
            measured(finite, t->max_rel_err), "mismatches",
            t->compared ? json_integer(t->n_mismatch) : json_null(), "message", text(t->message));
        if (!to)
            continue;
        json_object_set_new(to, "compare_ms", json_real(t->compare_ms));
        json_object_set_new(to, "time_class", json_string(time_class(t->time_ms, t->cpu_limit_ms)));
        if (sample && t->output)
            json_object_set_new(to, "output", text(t->output));
        json_t *ts = json_array();
        for (int k = 0; ts && k < t->n_tensors; k++)
            json_array_append_new(ts, judge_tensor_json(&t->tensors[k], sample));
        json_object_set_new(to, "tensors", ts ? ts : json_null());
        json_array_append_new(tests, to);
    }
    json_object_set_new(o, "tests", tests);
    /* a mistake's words, no data (judge.h): kept in the student's view */
    if (r->diagnosis.mistake)
        json_object_set_new(
            o, "diagnosis",
            json_pack("{s:s, s:s, s:s, s:s}", "mistake", r->diagnosis.mistake, "title",
                      r->diagnosis.title, "hint", r->diagnosis.hint, "evidence",
                      r->diagnosis.from_search
                          ? "search"
                          : problem_test_kind_name(r->diagnosis.from_hidden ? TEST_HIDDEN
                                                                            : TEST_SAMPLE)));
    if (r->search.ran)
        json_object_set_new(o, "search", judge_search_json(&r->search, p));
    char command[512];
    harness_compile_command(command, sizeof command);
    json_object_set_new(o, "compile_command", json_string(command));
    const struct judge_timing *tm = &r->timing;
    json_object_set_new(o, "timing",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "compile_setup_ms",
                                  tm->compile_setup_ms, "compile_step_ms", tm->compile_step_ms,
                                  "link_ms", tm->link_ms, "reference_ms", tm->reference_ms,
                                  "tests_ms", tm->tests_ms, "run_setup_ms", tm->run_setup_ms,
                                  "judge_ms", tm->judge_ms));
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
    /* the judge's own timings: how long the hidden tests took together */
    json_object_del(o, "timing");
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

/* ---- the counterexample search ---- */

void judge_counterexample_free(struct judge_counterexample *cx)
{
    if (!cx)
        return;
    judge_test_report_clear(&cx->test);
    free(cx->test.name);
    free(cx->test.dims);
    free(cx->tc.name);
    free(cx->tc.dims);
    free(cx->how);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(cx->input[i]);
        free(cx->expected[i]);
        free(cx->actual[i]);
    }
    free(cx);
}

/* An element as JSON: JSON has no NaN or infinity, so those travel as the
 * strings "NaN", "Infinity", "-Infinity" (report.c's convention). */
static json_t *element_json(const void *data, enum tensor_dtype dtype, int64_t e)
{
    switch (dtype) {
    case DT_F32: {
        float v;
        memcpy(&v, (const char *)data + e * 4, 4);
        if (isnan(v))
            return json_string("NaN");
        if (isinf(v))
            return json_string(v > 0 ? "Infinity" : "-Infinity");
        return json_real(v);
    }
    case DT_U8: return json_integer(((const unsigned char *)data)[e]);
    case DT_I32: {
        int32_t v;
        memcpy(&v, (const char *)data + e * 4, 4);
        return json_integer(v);
    }
    }
    return json_null();
}

/* {"shape": [...], "dtype", "values": [...] or null}. */
static json_t *values_json(const struct problem *p, int i, const int64_t *dims, const void *data,
                           int64_t n)
{
    int64_t shape[TENSOR_MAX_RANK];
    int rank = dims_tensor_shape(p, i, dims, shape);
    json_t *sh = json_array(), *vals = n <= REPORT_CX_VALUES_MAX ? json_array() : json_null();

    for (int k = 0; sh && k < rank; k++)
        json_array_append_new(sh, json_integer(shape[k]));
    for (int64_t e = 0; vals && json_is_array(vals) && e < n; e++)
        json_array_append_new(vals, element_json(data, p->params[i].dtype, e));
    return json_pack("{s:o?, s:s, s:o?}", "shape", sh, "dtype",
                     tensor_dtype_name(p->params[i].dtype), "values", vals);
}

static json_t *cx_json(const struct judge_counterexample *cx, const struct problem *p)
{
    const struct judge_test_report *t = &cx->test;
    json_t *dims = json_object(), *nulls = json_array(), *in = json_object(), *exp = json_object(),
           *got = json_object(), *ts = json_array();
    char seed[24];

    for (int k = 0; dims && k < p->n_params; k++)
        if (p->params[k].kind == PARAM_INT)
            json_object_set_new(dims, p->params[k].name,
                                json_integer(cx->tc.dims[p->params[k].dim_index]));
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        if (cx->tc.is_null[i]) {
            json_array_append_new(nulls, json_string(q->name));
            continue;
        }
        if (cx->input[i])
            json_object_set_new(in, q->name,
                                values_json(p, i, cx->tc.dims, cx->input[i], cx->n_elems[i]));
        if (cx->expected[i])
            json_object_set_new(exp, q->name,
                                values_json(p, i, cx->tc.dims, cx->expected[i], cx->n_elems[i]));
        if (cx->actual[i])
            json_object_set_new(got, q->name,
                                values_json(p, i, cx->tc.dims, cx->actual[i], cx->n_elems[i]));
    }
    for (int k = 0; ts && k < t->n_tensors; k++)
        json_array_append_new(ts, judge_tensor_json(&t->tensors[k], true));
    snprintf(seed, sizeof seed, "%" PRIu64, cx->tc.seed);
    return json_pack("{s:o?, s:s, s:s, s:o?, s:s, s:s?, s:f, s:o?, s:o?, s:o?, s:o?}", "dims", dims,
                     "seed", seed, "generators", cx->how, "null", nulls, "verdict",
                     judge_verdict_name(t->verdict), "message", t->message, "time_ms", t->time_ms,
                     "tensors", ts, "inputs", in, "expected", exp, "actual", got);
}

json_t *judge_search_json(const struct judge_search_report *s, const struct problem *p)
{
    json_t *o = json_pack("{s:I, s:i, s:i, s:f, s:f, s:b}", "budget_ms", (json_int_t)s->budget_ms,
                          "inputs", s->inputs, "skipped", s->skipped, "ms", s->ms, "worst_ratio",
                          s->worst_ratio, "found", s->cx != NULL);
    if (o && s->cx) {
        json_object_set_new(o, "found_ms", json_real(s->found_ms));
        json_object_set_new(o, "counterexample", cx_json(s->cx, p));
    }
    return o;
}
