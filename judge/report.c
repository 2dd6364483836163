/*
 * report — a judge_report as JSON, the one shape shared by `attnjudge judge
 * --json`, the HTTP API and the database.
 *
 * What a student may see is decided here, once: sample tests carry the
 * first mismatches (coordinates, expected and got values), printed output
 * and the per-element error map; hidden tests carry only their name, dims
 * and error statistics, never a value.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "judge/harness.h"
#include "judge/judge.h"
#include "judge/utf8.h"

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
    json_t *o = json_pack("{s:s, s:f, s:o, s:f, s:f}", "verdict", verdict_name(r->verdict), "score",
                          r->score, "compile_log", text(r->compile_log), "compile_ms",
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
        json_t *to = json_pack(
            "{s:s, s:s, s:s, s:i, s:o, s:f, s:f, s:o, s:o, s:I, s:o}", "name", t->name, "kind",
            sample ? "sample" : "hidden", "verdict", verdict_name(t->verdict), "weight", t->weight,
            "dims", dims ? dims : json_null(), "time_ms", t->time_ms, "wall_ms", t->wall_ms,
            "max_abs_err", num(t->max_abs_err), "max_rel_err", num(t->max_rel_err), "mismatches",
            (json_int_t)t->n_mismatch, "message", text(t->message));
        if (!to)
            continue;
        json_object_set_new(to, "compare_ms", json_real(t->compare_ms));
        if (sample && t->output)
            json_object_set_new(to, "output", text(t->output));
        json_t *ts = json_array();
        for (int k = 0; ts && k < t->n_tensors; k++)
            json_array_append_new(ts, tensor_json(&t->tensors[k], sample));
        json_object_set_new(to, "tensors", ts ? ts : json_null());
        json_array_append_new(tests, to);
    }
    json_object_set_new(o, "tests", tests);
    char command[512];
    harness_compile_command(command, sizeof command);
    json_object_set_new(o, "compile_command", json_string(command));
    return o;
}
