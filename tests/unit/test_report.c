/*
 * Unit tests of judge_report_redact, the student's view of a report: a
 * hidden test keeps only its whitelisted fields, whatever else a report
 * (new, or stored before the view existed) carries; sample tests and every
 * other field are untouched; the input is never modified. And of
 * judge_report_json's feedback: null statistics for a test without outputs
 * to compare or without a finite element, the non-finite kinds of an
 * output, null in the error map for an element never written; none of it
 * in the student's view of a hidden test. And the search's counterexample,
 * kept whole in that view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "judge/explain.h"
#include "judge/judge.h"

/* A report as the database holds it: one sample, one hidden test with
 * everything the full view carries, one test without a kind, one not run. */
static const char full_text[] =
    "{\"verdict\": \"runtime_error\", \"score\": 25.0, \"compile_log\": \"\","
    " \"time_ms\": 12.5, \"user\": \"alice\","
    " \"tests\": ["
    "  {\"name\": \"s\", \"kind\": \"sample\", \"verdict\": \"wrong_answer\", \"weight\": 1,"
    "   \"dims\": {\"N\": 3}, \"time_ms\": 1.25, \"max_abs_err\": 0.5, \"message\": \"m\","
    "   \"tensors\": [{\"name\": \"out\", \"first_mismatches\": []}], \"time_class\": \"fast\"},"
    "  {\"name\": \"h\", \"kind\": \"hidden\", \"verdict\": \"runtime_error\", \"weight\": 2,"
    "   \"dims\": {\"N\": 9}, \"time_ms\": 7.75, \"wall_ms\": 9.5, \"max_abs_err\": 999.36,"
    "   \"max_rel_err\": \"NaN\", \"mismatches\": 314, \"message\": \"exit code 5\","
    "   \"tensors\": [{\"name\": \"out\", \"max_abs_err\": 999.36}], \"time_class\": \"slow\"},"
    "  {\"name\": \"legacy\", \"verdict\": \"accepted\", \"weight\": 1, \"dims\": {},"
    "   \"max_abs_err\": 0.001, \"time_ms\": 2.0},"
    "  {\"name\": \"later\", \"kind\": \"hidden\", \"verdict\": \"not_run\", \"weight\": 1,"
    "   \"dims\": {\"N\": 4}}"
    " ]}";

static json_t *load(const char *text)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    if (!o)
        fail_msg("%s", jerr.text);
    return o;
}

static void test_hidden_tests_keep_only_the_whitelist(void **state)
{
    (void)state;
    json_t *full = load(full_text);
    json_t *view = judge_report_redact(full);
    assert_non_null(view);
    json_t *tests = json_object_get(view, "tests");
    assert_int_equal(json_array_size(tests), 4);

    json_t *h = json_array_get(tests, 1);
    assert_int_equal(json_object_size(h), 6);
    assert_string_equal(json_string_value(json_object_get(h, "verdict")), "runtime_error");
    assert_string_equal(json_string_value(json_object_get(h, "time_class")), "slow");
    assert_int_equal(json_integer_value(json_object_get(h, "weight")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(h, "dims"), "N")), 9);
    char *text = json_dumps(view, JSON_COMPACT);
    assert_non_null(text);
    assert_null(strstr(text, "999.36"));
    assert_null(strstr(text, "exit code"));
    assert_null(strstr(text, "7.75"));
    free(text);

    /* no kind: treated as hidden */
    json_t *legacy = json_array_get(tests, 2);
    assert_null(json_object_get(legacy, "max_abs_err"));
    assert_null(json_object_get(legacy, "time_ms"));
    assert_string_equal(json_string_value(json_object_get(legacy, "verdict")), "accepted");

    /* not run: nothing to add */
    assert_int_equal(json_object_size(json_array_get(tests, 3)), 5);

    /* the sample test and the other top-level fields are untouched, the
     * total time is gone (not accepted) */
    assert_true(
        json_equal(json_array_get(tests, 0), json_array_get(json_object_get(full, "tests"), 0)));
    assert_string_equal(json_string_value(json_object_get(view, "user")), "alice");
    assert_true(json_is_null(json_object_get(view, "time_ms")));

    /* the full report is not modified */
    json_t *again = load(full_text);
    assert_true(json_equal(full, again));
    json_decref(again);
    json_decref(view);
    json_decref(full);
}

static void test_accepted_keeps_total_time(void **state)
{
    (void)state;
    json_t *sum = load("{\"id\": 3, \"verdict\": \"accepted\", \"time_ms\": 4.5}");
    json_t *view = judge_report_redact(sum);
    assert_true(json_equal(sum, view));
    json_decref(view);
    json_decref(sum);

    /* a summary still queued has no verdict yet and no time either way */
    sum = load("{\"id\": 4, \"verdict\": null, \"time_ms\": null, \"status\": \"queued\"}");
    view = judge_report_redact(sum);
    assert_true(json_equal(sum, view));
    json_decref(view);
    json_decref(sum);
}

static void test_vocabulary(void **state)
{
    (void)state;
    assert_string_equal(judge_verdict_name(V_NOT_RUN), "not_run");
    /* not_run is a test state: never parsed as a submission's verdict */
    assert_int_equal(judge_verdict_from_name("not_run"), -1);
    assert_int_equal(judge_verdict_from_name("time_limit"), V_TIME_LIMIT);
    assert_true(judge_verdict_is_fatal(V_TIME_LIMIT) && judge_verdict_is_fatal(V_RUNTIME_ERROR) &&
                judge_verdict_is_fatal(V_MEMORY_LIMIT) &&
                judge_verdict_is_fatal(V_SECURITY_VIOLATION));
    assert_false(judge_verdict_is_fatal(V_WRONG_ANSWER) || judge_verdict_is_fatal(V_ACCEPTED));
}

/* A float with the given bits. */
static float from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* A report of three tests of a problem with one output y (2, 2): a sample
 * test out of time, a sample test whose y is NaN (three elements never
 * written, one computed), the same outputs on a hidden test. */
static void test_feedback_json(void **state)
{
    (void)state;
    struct problem p;
    memset(&p, 0, sizeof p);
    float e[4] = {1, 2, 3, 4}, g[4];
    g[0] = from_bits(0xFFC00000u);
    g[1] = g[2] = g[3] = from_bits(0xFFFFFFFFu);
    struct compare_tolerance tol = {.atol = 1e-3, .rtol = 1e-3};
    struct judge_tensor_report tens[2];
    struct judge_test_report tests[3];
    struct judge_report r;
    float map[4] = {INFINITY, NAN, NAN, NAN};
    memset(tens, 0, sizeof tens);
    memset(tests, 0, sizeof tests);
    memset(&r, 0, sizeof r);
    for (int k = 0; k < 2; k++) {
        tens[k].name = "y";
        tens[k].rank = 2;
        tens[k].shape[0] = tens[k].shape[1] = 2;
        compare_tensor(e, g, DT_F32, tens[k].shape, 2, &tol, &tens[k].cmp);
        tens[k].message = "y: ...";
    }
    tens[0].abs_err = map;
    tests[0] = (struct judge_test_report){
        .name = "s-time", .kind = TEST_SAMPLE, .verdict = V_TIME_LIMIT, .message = "CPU time ..."};
    tests[1] = (struct judge_test_report){.name = "s-nan",
                                          .kind = TEST_SAMPLE,
                                          .verdict = V_WRONG_ANSWER,
                                          .compared = true,
                                          .n_mismatch = 4,
                                          .message = "y: ...",
                                          .tensors = &tens[0],
                                          .n_tensors = 1};
    tests[2] = tests[1];
    tests[2].name = "h-nan";
    tests[2].kind = TEST_HIDDEN;
    tests[2].tensors = &tens[1];
    r.verdict = V_TIME_LIMIT;
    r.tests = tests;
    r.n_tests = 3;

    json_t *o = judge_report_json(&r, &p);
    assert_non_null(o);
    json_t *ts = json_object_get(o, "tests");
    /* no outputs to compare: null, never 0 */
    json_t *t = json_array_get(ts, 0);
    assert_true(json_is_null(json_object_get(t, "max_abs_err")));
    assert_true(json_is_null(json_object_get(t, "max_rel_err")));
    assert_true(json_is_null(json_object_get(t, "mismatches")));
    /* compared, but no finite element: no maximum; the mismatches count */
    t = json_array_get(ts, 1);
    assert_true(json_is_null(json_object_get(t, "max_abs_err")));
    assert_int_equal(json_integer_value(json_object_get(t, "mismatches")), 4);
    json_t *y = json_array_get(json_object_get(t, "tensors"), 0);
    assert_true(json_is_null(json_object_get(y, "max_abs_err")));
    assert_string_equal(json_string_value(json_object_get(y, "message")), "y: ...");
    json_t *kinds = json_object_get(y, "nonfinite_kinds");
    assert_int_equal(json_array_size(kinds), 2);
    json_t *k0 = json_array_get(kinds, 0), *k1 = json_array_get(kinds, 1);
    assert_string_equal(json_string_value(json_object_get(k0, "kind")), "nan_unwritten");
    assert_int_equal(json_integer_value(json_object_get(k0, "count")), 3);
    assert_string_equal(json_string_value(json_object_get(k0, "label")), "NaN, never written");
    assert_string_equal(json_string_value(json_object_get(k0, "explanation")),
                        explain_nonfinite(CMP_NAN_UNWRITTEN));
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(k0, "first"), 2), "at")),
        "y[1, 1]");
    assert_string_equal(json_string_value(json_object_get(k1, "kind")), "nan_computed");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(y, "first_mismatches"), 0), "kind")),
                        "nan_computed");
    /* the error map: computed is "Infinity", never written is null */
    json_t *m = json_object_get(y, "abs_err");
    assert_string_equal(json_string_value(json_array_get(m, 0)), "Infinity");
    assert_true(json_is_null(json_array_get(m, 1)));
    /* a hidden test: kinds and counts in the full view, no coordinates */
    json_t *hy = json_array_get(json_object_get(json_array_get(ts, 2), "tensors"), 0);
    assert_null(
        json_object_get(json_array_get(json_object_get(hy, "nonfinite_kinds"), 0), "first"));
    assert_null(json_object_get(hy, "first_mismatches"));

    /* the student's view of the hidden test: none of it */
    json_t *view = judge_report_redact(o);
    json_t *h = json_array_get(json_object_get(view, "tests"), 2);
    assert_int_equal(json_object_size(h), 6);
    assert_null(json_object_get(h, "message"));
    assert_null(json_object_get(h, "tensors"));
    json_decref(view);
    json_decref(o);
}

/* The search's counterexample was generated, not a hidden test: the
 * student's view keeps all of it, values and mismatches included. */
static void test_search_kept_in_view(void **state)
{
    (void)state;
    json_t *o =
        load("{\"verdict\": \"wrong_answer\", \"tests\": ["
             " {\"name\": \"h\", \"kind\": \"hidden\", \"verdict\": \"accepted\","
             "  \"weight\": 1, \"dims\": {}, \"max_abs_err\": 0.0}],"
             " \"search\": {\"inputs\": 3, \"found\": true, \"counterexample\":"
             "  {\"dims\": {\"N\": 2}, \"inputs\": {\"x\": {\"values\": [1.5, 250]}},"
             "   \"actual\": {\"y\": {\"values\": [0, \"NaN\"]}},"
             "   \"tensors\": [{\"name\": \"y\", \"first_mismatches\": [{\"at\": \"y[1]\"}]}]}}}");
    json_t *view = judge_report_redact(o);
    assert_non_null(view);
    assert_true(json_equal(json_object_get(view, "search"), json_object_get(o, "search")));
    assert_null(json_object_get(json_array_get(json_object_get(view, "tests"), 0), "max_abs_err"));
    json_decref(view);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_tests_keep_only_the_whitelist),
        cmocka_unit_test(test_feedback_json),
        cmocka_unit_test(test_accepted_keeps_total_time),
        cmocka_unit_test(test_vocabulary),
        cmocka_unit_test(test_search_kept_in_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
