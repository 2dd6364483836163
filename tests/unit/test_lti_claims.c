/*
 * Unit tests of an id_token's claims as a launch reads them
 * (server/lti_claims.h) and of the form fields LTI's hops carry
 * (server/lti_form.h): one refusal per claim, roles mapped (a learner
 * never an instructor), the services recorded; urlencoded fields decoded
 * and encoded back, HTML escaped.
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

#include "server/lti_claims.h"
#include "server/lti_form.h"

#define LTI "https://purl.imsglobal.org/spec/lti/claim/"
#define ISS "https://lms.example"
#define CLIENT "client-1"
#define NOW 1700000000000LL /* ms */

static json_t *launch(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:[s], s:{s:s, s:s}, s:{s:s},"
        " s:s, s:{s:s}, s:{s:[s, s], s:s, s:s}, s:{s:s}}",
        "iss", ISS, "aud", CLIENT, "sub", "u-1", "iat", (json_int_t)(NOW / 1000), "exp",
        (json_int_t)(NOW / 1000 + 300), "nonce", "n-1", "name", "Ada", "email", "ada@x",
        LTI "message_type", "LtiResourceLinkRequest", LTI "version", "1.3.0", LTI "roles",
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", LTI "context", "id", "c-1",
        "title", "Course", LTI "resource_link", "id", "rl-1", LTI "target_link_uri",
        "https://tool.example/", LTI "custom", "problem", "softmax-stable",
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint", "scope", "s/lineitem", "s/score",
        "lineitems", "https://lms.example/li", "lineitem", "https://lms.example/li/1",
        "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice",
        "context_memberships_url", "https://lms.example/m");
}

static void with_deployment(json_t *c)
{
    json_object_set_new(c, LTI "deployment_id", json_string("d-1"));
}

/* lti_claims_read's result on c (consumed) after edit(c). */
static int read_after(void (*edit)(json_t *), char *err, size_t errlen)
{
    struct lti_claims out;
    json_t *c = launch();
    with_deployment(c);
    if (edit)
        edit(c);
    int rc = lti_claims_read(c, ISS, CLIENT, NOW, &out, err, errlen);
    json_decref(c);
    return rc;
}

static void wrong_iss(json_t *c)
{
    json_object_set_new(c, "iss", json_string("https://evil"));
}
static void wrong_aud(json_t *c)
{
    json_object_set_new(c, "aud", json_string("other"));
}
static void aud_array_no_azp(json_t *c)
{
    json_object_set_new(c, "aud", json_pack("[s, s]", CLIENT, "other"));
}
static void aud_array_azp(json_t *c)
{
    json_object_set_new(c, "aud", json_pack("[s, s]", CLIENT, "other"));
    json_object_set_new(c, "azp", json_string(CLIENT));
}
static void wrong_azp(json_t *c)
{
    json_object_set_new(c, "azp", json_string("other"));
}
static void expired(json_t *c)
{
    json_object_set_new(c, "exp", json_integer(NOW / 1000 - LTI_SKEW_MS / 1000 - 1));
}
static void within_skew(json_t *c)
{
    json_object_set_new(c, "exp", json_integer(NOW / 1000 - 30));
}
static void future_iat(json_t *c)
{
    json_object_set_new(c, "iat", json_integer(NOW / 1000 + 3600));
}
static void no_nonce(json_t *c)
{
    json_object_del(c, "nonce");
}
static void old_version(json_t *c)
{
    json_object_set_new(c, LTI "version", json_string("1.1"));
}
static void other_message(json_t *c)
{
    json_object_set_new(c, LTI "message_type", json_string("LtiSubmissionReview"));
}
static void no_deployment(json_t *c)
{
    json_object_del(c, LTI "deployment_id");
}
static void no_sub(json_t *c)
{
    json_object_del(c, "sub");
}
static void no_link(json_t *c)
{
    json_object_del(c, LTI "resource_link");
}
static void roles_not_array(json_t *c)
{
    json_object_set_new(c, LTI "roles", json_string("Instructor"));
}

static void test_lti_claims_refusals(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(read_after(NULL, err, sizeof err), 0);
    struct {
        void (*edit)(json_t *);
        const char *says;
    } cases[] = {
        {wrong_iss, "iss"},
        {wrong_aud, "aud"},
        {aud_array_no_azp, "azp"},
        {wrong_azp, "azp"},
        {expired, "expired"},
        {future_iat, "iat"},
        {no_nonce, "nonce"},
        {old_version, "1.3.0"},
        {other_message, "message type"},
        {no_deployment, "deployment_id"},
        {no_sub, "sub"},
        {no_link, "resource_link.id"},
        {roles_not_array, "roles"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        assert_int_equal(read_after(cases[i].edit, err, sizeof err), -1);
        assert_non_null(strstr(err, cases[i].says));
    }
    assert_int_equal(read_after(aud_array_azp, err, sizeof err), 0);
    assert_int_equal(read_after(within_skew, err, sizeof err), 0);
}

static void test_lti_claims_read(void **state)
{
    (void)state;
    char err[256];
    struct lti_claims c;
    json_t *o = launch();
    with_deployment(o);
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), 0);
    assert_int_equal(c.message, LTI_RESOURCE_LINK);
    assert_false(c.instructor);
    assert_string_equal(c.sub, "u-1");
    assert_string_equal(c.context_id, "c-1");
    assert_string_equal(c.resource_link_id, "rl-1");
    assert_string_equal(c.custom_problem, "softmax-stable");
    assert_null(c.custom_assignment);
    assert_string_equal(c.ags_scopes, "s/lineitem s/score");
    assert_string_equal(c.ags_lineitem, "https://lms.example/li/1");
    assert_string_equal(c.nrps_url, "https://lms.example/m");
    json_decref(o);

    /* deep linking needs its settings and ltiResourceLink accepted */
    o = launch();
    with_deployment(o);
    json_object_set_new(o, LTI "message_type", json_string("LtiDeepLinkingRequest"));
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), -1);
    json_object_set_new(o, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings",
                        json_pack("{s:s, s:[s], s:s}", "deep_link_return_url", "https://lms/r",
                                  "accept_types", "file", "data", "opaque"));
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), -1);
    json_object_set_new(
        json_object_get(o, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"),
        "accept_types", json_pack("[s, s]", "file", "ltiResourceLink"));
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), 0);
    assert_int_equal(c.message, LTI_DEEP_LINKING);
    json_t *dl =
        json_object_get(o, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings");
    json_object_set_new(dl, "deep_link_return_url", json_string("javascript:alert(1)"));
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "http(s)"));
    json_object_set_new(dl, "deep_link_return_url", json_string("https://lms/r"));
    assert_int_equal(lti_claims_read(o, ISS, CLIENT, NOW, &c, err, sizeof err), 0);
    assert_string_equal(c.dl_return_url, "https://lms/r");
    assert_string_equal(c.dl_data, "opaque");
    json_decref(o);
}

static void test_lti_roles(void **state)
{
    (void)state;
    static const struct {
        const char *role;
        bool instructor;
    } cases[] = {
        {"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor", true},
        {"http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant", true},
        {"http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper", true},
        {"Instructor", true},
        {"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", false},
        {"Learner", false},
        /* institution and system roles are not the course's */
        {"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor", false},
        {"http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator", false},
        {"http://purl.imsglobal.org/vocab/lis/v2/membership#InstructorX", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *roles = json_pack("[s]", cases[i].role);
        assert_int_equal(lti_claims_instructor(roles), cases[i].instructor);
        json_decref(roles);
    }
    json_t *none = json_array();
    assert_false(lti_claims_instructor(none));
    json_decref(none);
}

static void test_lti_form(void **state)
{
    (void)state;
    const char body[] = "state=ab%2Fc&id_token=x.y.z&empty=&flag&sp=a+b%20c&state=second";
    char *v = lti_form_get(body, strlen(body), "state");
    assert_string_equal(v, "ab/c"); /* the first wins */
    free(v);
    assert_string_equal((v = lti_form_get(body, strlen(body), "sp")), "a b c");
    free(v);
    assert_string_equal((v = lti_form_get(body, strlen(body), "empty")), "");
    free(v);
    assert_string_equal((v = lti_form_get(body, strlen(body), "flag")), "");
    free(v);
    assert_null(lti_form_get(body, strlen(body), "missing"));
    assert_null(lti_form_get("a=%00b", 6, "a")); /* a NUL inside is refused */
    /* only len bytes count */
    assert_null(lti_form_get("a=1&b=2", 3, "b"));

    char *url = strdup("https://lms/auth");
    assert_int_equal(lti_form_append(&url, "redirect_uri", "http://t/lti/launch?x=1&y"), 0);
    assert_int_equal(lti_form_append(&url, "hint", "a b/+"), 0);
    assert_string_equal(url, "https://lms/auth?redirect_uri=http%3A%2F%2Ft%2Flti%2Flaunch%3Fx%3D1%"
                             "26y&hint=a%20b%2F%2B");
    free(url);

    char *h = lti_form_html("<a href=\"x\">'&'</a>");
    assert_string_equal(h, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    free(h);
    char hash[128];
    const char *fields[] = {"JWT", "a\"b"};
    char *page = lti_form_autopost("T<", "https://lms/r?a=1&b=2", fields, 1, hash, sizeof hash);
    assert_non_null(strstr(page, "action=\"https://lms/r?a=1&amp;b=2\""));
    assert_non_null(strstr(page, "name=\"JWT\" value=\"a&quot;b\""));
    assert_non_null(strstr(page, "<title>T&lt;</title>"));
    assert_int_equal(strncmp(hash, "'sha256-", 8), 0);
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lti_claims_refusals),
        cmocka_unit_test(test_lti_claims_read),
        cmocka_unit_test(test_lti_roles),
        cmocka_unit_test(test_lti_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
