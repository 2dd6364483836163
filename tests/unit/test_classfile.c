/*
 * Unit tests of server/classfile.c (a class list as registrars export it)
 * and of judge/utf8.c's utf8_name_forbidden, the rule its names follow.
 * The HTTP side (the import's responses, PATCH) is tests/server/grades_lms.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/utf8.h"
#include "server/classfile.h"

static void test_name_forbidden(void **state)
{
    (void)state;
    assert_int_equal(utf8_name_forbidden("Ann Archer"), UTF8_CLEAN);
    assert_int_equal(utf8_name_forbidden("Zo\xc3\xab N\xc4\x81z"), UTF8_CLEAN);
    assert_int_equal(utf8_name_forbidden("a\xe2\x80\x8c"
                                         "b"),
                     UTF8_CLEAN); /* ZWNJ */
    assert_int_equal(utf8_name_forbidden("a\xe2\x80\x8d"
                                         "b"),
                     UTF8_CLEAN); /* ZWJ */
    assert_int_equal(utf8_name_forbidden("a\x07"
                                         "b"),
                     0x07);
    assert_int_equal(utf8_name_forbidden("a\x7f"), 0x7f);
    assert_int_equal(utf8_name_forbidden("a\xc2\x85"
                                         "b"),
                     0x85); /* NEL, Cc */
    assert_int_equal(utf8_name_forbidden("a\xe2\x80\xa8"
                                         "b"),
                     0x2028); /* Zl */
    assert_int_equal(utf8_name_forbidden("a\xe2\x80\xa9"
                                         "b"),
                     0x2029); /* Zp */
    assert_int_equal(utf8_name_forbidden("a\xe2\x80\xae"
                                         "b"),
                     0x202e); /* RLO, Cf */
    assert_int_equal(utf8_name_forbidden("\xef\xbb\xbf"
                                         "a"),
                     0xfeff);                                           /* BOM, Cf */
    assert_int_equal(utf8_name_forbidden("\xf3\xa0\x80\x81"), 0xe0001); /* tag, Cf */
    assert_int_equal(utf8_name_forbidden("a\xc0\x80"), UTF8_NOT_UTF8);
}

/* Parses text (copied) into cf; returns the errors as one string. */
static char *parse(const char *text, struct classfile *cf, char **copy)
{
    json_t *errs = json_array();
    *copy = strdup(text);
    assert_non_null(*copy);
    assert_int_equal(classfile_parse(*copy, cf, errs), 0);
    char *dump = json_dumps(errs, JSON_COMPACT);
    json_decref(errs);
    return dump;
}

static void release(struct classfile *cf, char *text, char *errs)
{
    classfile_free(cf);
    free(text);
    free(errs);
}

static void test_registrar_semicolons(void **state)
{
    (void)state;
    struct classfile cf;
    char *text;
    char *errs = parse("\xef\xbb\xbfStudent ID;Last name;First name;E-Mail;Note\r\n"
                       "S1;Archer;Ann;Ann.Archer@uni.example;\"x;y\"\r\n"
                       "\r\n"
                       "S2;Bennett;Ben;ben@a.example;\r\n"
                       "S3;Jin;Cho;BEN@b.example;\r\n"
                       "S4;Lovelace;Ada;;\r\n",
                       &cf, &text);
    assert_string_equal(errs, "[]");
    assert_int_equal(cf.separator, ';');
    char *map = json_dumps(cf.mapping, JSON_COMPACT);
    assert_string_equal(map, "[{\"column\":\"Student ID\",\"field\":\"student_id\"},"
                             "{\"column\":\"Last name\",\"field\":\"last_name\"},"
                             "{\"column\":\"First name\",\"field\":\"first_name\"},"
                             "{\"column\":\"E-Mail\",\"field\":\"email\"},"
                             "{\"column\":\"Note\",\"field\":null}]");
    assert_int_equal(cf.n, 4);
    assert_string_equal(cf.rows[0].username, "ann.archer");
    assert_string_equal(cf.rows[0].display_name, "Ann Archer");
    assert_string_equal(cf.rows[0].student_id, "S1");
    assert_int_equal(cf.rows[0].line, 2);
    assert_true(cf.rows[0].derived);
    assert_string_equal(cf.rows[1].username, "ben");
    assert_int_equal(cf.rows[1].line, 4); /* the blank line counts */
    assert_string_equal(cf.rows[2].username, "ben2");
    assert_string_equal(cf.rows[3].username, "ada.lovelace");
    assert_string_equal(cf.rows[3].username_from, "Last name");
    free(map);
    release(&cf, text, errs);
}

static void test_tabs_and_given_usernames(void **state)
{
    (void)state;
    struct classfile cf;
    char *text;
    /* a derived "eve" must not take the name line 3 gives */
    char *errs = parse("Matriculation number\tFull name\tEmail\tLogin\n"
                       "1\tEve One\teve@x.example\t\n"
                       "2\tEve Two\teve2@x.example\teve\n"
                       "3\tMe\tme@x.example\t\n",
                       &cf, &text);
    assert_string_equal(errs, "[]");
    assert_int_equal(cf.separator, '\t');
    assert_int_equal(cf.n, 3);
    assert_string_equal(cf.rows[0].username, "eve2"); /* eve is given on line 3 */
    assert_string_equal(cf.rows[1].username, "eve");
    assert_false(cf.rows[1].derived);
    assert_string_equal(cf.rows[2].username, "me2"); /* "me" is reserved */
    release(&cf, text, errs);
}

static void test_errors_name_column_and_value(void **state)
{
    (void)state;
    struct classfile cf;
    char *text;
    char *errs = parse("ID,Name,Email,Login\n"
                       "1,Ann,x@,\n"
                       "2,Ben\xe2\x80\xa8,ben@x.example,\n"
                       "3,Cho,cho@x.example,bad name\n"
                       "\"4,Dan\n",
                       &cf, &text);
    assert_non_null(strstr(errs, "{\"line\":2,\"message\":\"column 'Email': 'x@' is not an e-mail "
                                 "address\",\"column\":\"Email\",\"value\":\"x@\"}"));
    assert_non_null(strstr(errs, "\"line\":3,\"message\":\"column 'Name': 'Ben\xe2\x80\xa8' must "
                                 "not contain control, separator or format characters (U+2028)"));
    assert_non_null(strstr(errs, "\"line\":4,\"message\":\"column 'Login': 'bad name' is not a "
                                 "valid username"));
    assert_non_null(strstr(errs, "\"line\":5,\"message\":\"malformed CSV"));
    release(&cf, text, errs);

    errs = parse("Student ID,Colour\n1,red\n", &cf, &text);
    assert_non_null(strstr(errs, "no column gives a username"));
    release(&cf, text, errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_forbidden),
        cmocka_unit_test(test_registrar_semicolons),
        cmocka_unit_test(test_tabs_and_given_usernames),
        cmocka_unit_test(test_errors_name_column_and_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
