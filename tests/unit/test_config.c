/*
 * Unit tests of server/config.c: the settings that depend on each other
 * (the source limit shared with the CLI and the shipped configuration
 * file, the workers, the public URL and the trusted proxies).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "judge/judge.h"
#include "server/config.h"

/* The server's default source limit is the CLI's (judge.h), and the
 * shipped configuration file says the same. */
static void test_config_source_limit(void **state)
{
    (void)state;
    struct config c;
    char err[256];
    config_defaults(&c);
    assert_int_equal(c.max_source_bytes, JUDGE_SOURCE_MAX_DEFAULT);
    assert_int_equal(config_load_file(&c, "deploy/attnjudge.conf", err, sizeof err), 0);
    assert_int_equal(c.max_source_bytes, JUDGE_SOURCE_MAX_DEFAULT);
}

/* workers: "auto" (the default) is one per CPU; 0 is a front end that
 * judges nothing (judge hosts do); anything else is refused with both
 * forms named. */
static void test_config_workers(void **state)
{
    (void)state;
    struct config c;
    char err[CONFIG_ERR_LEN];
    config_defaults(&c);
    assert_int_equal(c.workers, -1);
    assert_int_equal(c.lease_s, 30);
    config_finalize(&c);
    assert_true(c.workers >= 1);
    /* beside judging workers, as many password hashes as workers */
    assert_int_equal(c.password_hashers, c.workers);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    config_defaults(&c);
    assert_int_equal(config_set(&c, "workers", "0", err, sizeof err), 0);
    config_finalize(&c);
    assert_int_equal(c.workers, 0);
    /* a front end that judges nothing hashes on every core, not on one */
    assert_int_equal(c.password_hashers, cpus < 1 ? 1 : (cpus > 256 ? 256 : cpus));
    assert_int_equal(config_set(&c, "workers", "auto", err, sizeof err), 0);
    assert_int_equal(c.workers, -1);
    assert_int_equal(config_set(&c, "workers", "many", err, sizeof err), -1);
    assert_non_null(strstr(err, "or 'auto'"));
    assert_int_equal(config_set(&c, "lease_s", "0", err, sizeof err), -1);
    /* password hashes cost the interactive limits unless the file says so */
    config_defaults(&c);
    assert_int_equal(c.password_hash_limits, AUTH_LIMITS_INTERACTIVE);
    assert_int_equal(config_set(&c, "password_hash_limits", "minimum", err, sizeof err), 0);
    assert_int_equal(c.password_hash_limits, AUTH_LIMITS_MINIMUM);
    assert_int_equal(config_set(&c, "password_hash_limits", "cheap", err, sizeof err), -1);
    assert_non_null(strstr(err, "interactive, moderate or minimum"));
}

/* The LTI outbox's keys (docs/operations.md): defaults and ranges. */
static void test_config_lti_outbox(void **state)
{
    (void)state;
    struct config c;
    char err[CONFIG_ERR_LEN];
    config_defaults(&c);
    assert_int_equal(c.lti_sync_ms, 5000);
    assert_int_equal(c.lti_backoff_max_s, 600);
    assert_int_equal(config_set(&c, "lti_sync_ms", "200", err, sizeof err), 0);
    assert_int_equal(c.lti_sync_ms, 200);
    assert_int_equal(config_set(&c, "lti_sync_ms", "99", err, sizeof err), -1);
    assert_int_equal(config_set(&c, "lti_backoff_max_s", "0", err, sizeof err), -1);
    assert_int_equal(config_set(&c, "lti_backoff_max_s", "2", err, sizeof err), 0);
    assert_int_equal(c.lti_backoff_max_s, 2);
}

static void test_config_public_url(void **state)
{
    (void)state;
    struct config c;
    char err[CONFIG_ERR_LEN];
    config_defaults(&c);
    config_finalize(&c);
    assert_false(c.cookie_secure);
    assert_int_equal(c.trusted_proxy.n, 0);
    /* https public URL: Secure by default */
    config_defaults(&c);
    assert_int_equal(config_set(&c, "public_url", "https://judge.example.edu/", err, sizeof err),
                     0);
    config_finalize(&c);
    assert_true(c.cookie_secure);
    /* ... unless cookie_secure = false is given, before or after */
    config_defaults(&c);
    assert_int_equal(config_set(&c, "cookie_secure", "false", err, sizeof err), 0);
    assert_int_equal(config_set(&c, "public_url", "https://judge.example.edu", err, sizeof err), 0);
    config_finalize(&c);
    assert_false(c.cookie_secure);
    /* plain http: not Secure (the cookie would never come back) */
    config_defaults(&c);
    assert_int_equal(config_set(&c, "public_url", "http://127.0.0.1:8080", err, sizeof err), 0);
    config_finalize(&c);
    assert_false(c.cookie_secure);
    assert_int_equal(config_set(&c, "public_url", "judge.example.edu", err, sizeof err), -1);
    assert_int_equal(config_set(&c, "trusted_proxy", "127.0.0.1, ::1", err, sizeof err), 0);
    assert_int_equal(c.trusted_proxy.n, 2);
    assert_int_equal(config_set(&c, "trusted_proxy", "proxy.local", err, sizeof err), -1);
    assert_int_equal(c.trusted_proxy.n, 2); /* a refused value changes nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_source_limit),
        cmocka_unit_test(test_config_public_url),
        cmocka_unit_test(test_config_workers),
        cmocka_unit_test(test_config_lti_outbox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
