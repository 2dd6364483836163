/*
 * Unit tests of server/views.c, the objects the API answers with: times
 * and the grades CSV's quoting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
