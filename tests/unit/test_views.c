/*
 * Unit tests of server/views.c, the objects the API answers with: times,
 * the grades CSV's quoting, and the leaderboard's ranks and ties.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "server/store.h"
#include "server/views.h"

/* The views the API answers with: times, the grades CSV's quoting. */
static void test_views(void **state)
{
    (void)state;
    json_t *t = views_time(1700000000123);
    assert_string_equal(json_string_value(t), "2023-11-14T22:13:20.123Z");
    json_decref(t);
    t = views_time(0);
    assert_true(json_is_null(t));
    json_decref(t);
    struct views_csv *c = views_grades_new();
    assert_non_null(c);
    struct store_grade_row rows[] = {{"ann", "p", 100, 1700000000123}, {"b\"o,b", "q", 12.345, 0}};
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(views_add_grade(c, &rows[i]), 0);
    size_t len;
    char *csv = views_grades_take(c, &len);
    assert_non_null(csv);
    assert_string_equal(csv, "student,problem,best_score,time_of_best\r\n"
                             "ann,p,100.00,2023-11-14T22:13:20.123Z\r\n"
                             "\"b\"\"o,b\",q,12.35,\r\n");
    assert_int_equal(len, strlen(csv));
    free(csv);
}

/* A report with one size: median m, robust CV cv. */
static char *report(double m, double cv)
{
    static char text[4][128];
    static int next;
    char *t = text[next++ % 4];
    snprintf(t, sizeof text[0], "{\"sizes\": [{\"name\": \"s\", \"median_ms\": %g, \"cv\": %g}]}",
             m, cv);
    return t;
}

/* Entries whose intervals overlap the first of their group share its
 * rank and are marked tied; the others rank by position. */
static void test_leaderboard_ties(void **state)
{
    (void)state;
    struct views_leaderboard *b = views_leaderboard_new();
    assert_non_null(b);
    struct {
        double ms, cv;
        int rank;
        int tied;
    } want[] = {
        {10, 0.05, 1, 1},   /* [9.07, 11.03] */
        {10.5, 0.05, 1, 1}, /* [9.52, 11.58]: overlaps the first */
        {20, 0.02, 3, 1},   /* [19.2, 20.8] */
        {20.5, 0.01, 3, 1}, /* [20.1, 20.9] */
        {40, 0.01, 5, 0},   /* alone */
        {NAN, 0, 6, 0},     /* not measured: no interval */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct store_leader_row row = {"u",
                                       NULL,
                                       5,
                                       (int64_t)i + 1,
                                       0,
                                       want[i].ms,
                                       isnan(want[i].ms) ? NULL : report(want[i].ms, want[i].cv)};
        assert_int_equal(views_add_leader(b, &row), 0);
    }
    struct store_problem_version v = {0};
    snprintf(v.slug, sizeof v.slug, "p");
    json_t *o = views_leaderboard_take(b, &v);
    assert_non_null(o);
    json_t *e = json_object_get(o, "entries");
    assert_int_equal(json_array_size(e), sizeof want / sizeof *want);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        json_t *x = json_array_get(e, i);
        assert_int_equal(json_integer_value(json_object_get(x, "rank")), want[i].rank);
        assert_int_equal(json_is_true(json_object_get(x, "tied")), want[i].tied);
        json_t *iv = json_object_get(x, "bench_interval_ms");
        if (isnan(want[i].ms)) {
            assert_true(json_is_null(iv));
            continue;
        }
        double lo = json_real_value(json_array_get(iv, 0)),
               hi = json_real_value(json_array_get(iv, 1));
        assert_float_equal(lo, want[i].ms * exp(-1.96 * want[i].cv), 1e-9);
        assert_float_equal(hi, want[i].ms * exp(1.96 * want[i].cv), 1e-9);
    }
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_leaderboard_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
