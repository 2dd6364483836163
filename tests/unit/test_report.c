/*
 * Unit tests of judge_report_redact, the student's view of a report: a
 * hidden test keeps only its whitelisted fields, whatever else a report
 * (new, or stored before the view existed) carries; sample tests and every
 * other field are untouched; the input is never modified.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_tests_keep_only_the_whitelist),
        cmocka_unit_test(test_accepted_keeps_total_time),
        cmocka_unit_test(test_vocabulary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
