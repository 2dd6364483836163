/*
 * report_search — the search's part of a report as JSON
 * (report_search.h).
 */
#include "judge/report_search.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/dims.h"

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
