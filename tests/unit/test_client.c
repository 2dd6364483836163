/*
 * Unit tests of server/client.c: the client address behind a trusted proxy
 * (X-Forwarded-For), the trusted-proxy list, who counts as loopback, and
 * the Origin check. tests/server/run.sh tests the same through a real
 * server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/client.h"

/* client_address with a list of trusted proxies and X-Forwarded-For lines. */
static const char *addr_of(const char *proxies, const char *peer, const char *xff1,
                           const char *xff2)
{
    static char out[CLIENT_ADDR_LEN];
    struct client_proxies p;
    char err[256];
    const char *xff[2] = {xff1, xff2};
    if (client_proxies_parse(proxies, &p, err, sizeof err) < 0)
        fail_msg("client_proxies_parse(%s): %s", proxies, err);
    client_address(&p, peer, xff, xff2 ? 2 : xff1 ? 1 : 0, out);
    return out;
}

static void test_client_address(void **state)
{
    (void)state;
    /* no trusted proxy: the header is ignored */
    assert_string_equal(addr_of("", "127.0.0.1", "203.0.113.7", NULL), "127.0.0.1");
    /* the peer is not the trusted proxy: ignored too */
    assert_string_equal(addr_of("10.0.0.1", "127.0.0.1", "203.0.113.7", NULL), "127.0.0.1");
    /* from the proxy: the rightmost entry that is not a proxy */
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "203.0.113.7", NULL), "203.0.113.7");
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "1.1.1.1, 203.0.113.7", NULL),
                        "203.0.113.7"); /* what the client wrote itself is ignored */
    assert_string_equal(
        addr_of("127.0.0.1, 10.0.0.0/8", "127.0.0.1", "1.1.1.1, 203.0.113.7, 10.1.2.3", NULL),
        "203.0.113.7"); /* a chain of trusted proxies */
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "garbage, 203.0.113.7", NULL),
                        "203.0.113.7"); /* junk left of the client does not matter */
    /* a second header line holds the newest entries */
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "198.51.100.1", "203.0.113.7"),
                        "203.0.113.7");
    /* every entry a proxy: the leftmost */
    assert_string_equal(addr_of("10.0.0.0/8", "10.0.0.1", "10.0.0.2, 10.0.0.3", NULL), "10.0.0.2");
    /* malformed: the peer */
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "unknown", NULL), "127.0.0.1");
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "203.0.113.7,", NULL), "127.0.0.1");
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "", NULL), "127.0.0.1");
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", "203.0.113.7:4711", NULL), "127.0.0.1");
    assert_string_equal(addr_of("127.0.0.1", "127.0.0.1", NULL, NULL), "127.0.0.1");
    /* canonical text: one key per address, IPv4-mapped IPv6 is IPv4 */
    assert_string_equal(addr_of("::1", "::1", " 2001:DB8:0::1 ", NULL), "2001:db8::1");
    assert_string_equal(addr_of("127.0.0.1", "::ffff:127.0.0.1", "::ffff:203.0.113.7", NULL),
                        "203.0.113.7");
    assert_string_equal(addr_of("", "::ffff:192.0.2.1", NULL, NULL), "192.0.2.1");
    /* CIDR boundaries */
    assert_string_equal(addr_of("192.168.0.0/23", "192.168.1.255", "203.0.113.7", NULL),
                        "203.0.113.7");
    assert_string_equal(addr_of("192.168.0.0/23", "192.168.2.0", "203.0.113.7", NULL),
                        "192.168.2.0");
    assert_string_equal(addr_of("fd00::/8", "fd12::1", "2001:db8::5", NULL), "2001:db8::5");
}

/* Who may read /metrics from anywhere but an instructor: loopback only. */
static void test_client_is_loopback(void **state)
{
    (void)state;
    assert_true(client_is_loopback("127.0.0.1"));
    assert_true(client_is_loopback("127.9.8.7"));
    assert_true(client_is_loopback("::1"));
    assert_false(client_is_loopback("128.0.0.1"));
    assert_false(client_is_loopback("10.0.0.1"));
    assert_false(client_is_loopback("::2"));
    assert_false(client_is_loopback("not-an-address"));
    assert_false(client_is_loopback(""));
}

static void test_proxies_parse(void **state)
{
    (void)state;
    struct client_proxies p;
    char err[256];
    assert_int_equal(client_proxies_parse("", &p, err, sizeof err), 0);
    assert_int_equal(p.n, 0);
    assert_int_equal(client_proxies_parse("127.0.0.1 ::1,10.0.0.0/8", &p, err, sizeof err), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(client_proxies_parse("localhost", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("10.0.0.0/33", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("10.0.0.0/", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("10.0.0.0/-1", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("10.0.0.0/8x", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("::/129", &p, err, sizeof err), -1);
    assert_int_equal(client_proxies_parse("1.1.1.1 2.2.2.2 3.3.3.3 4.4.4.4 5.5.5.5 6.6.6.6 "
                                          "7.7.7.7 8.8.8.8 9.9.9.9",
                                          &p, err, sizeof err),
                     -1);
}

static void test_origin(void **state)
{
    (void)state;
    char o[CLIENT_ORIGIN_LEN];
    assert_int_equal(client_origin_of("HTTPS://Judge.Example.EDU:443/attn/", true, o), 0);
    assert_string_equal(o, "https://judge.example.edu");
    assert_int_equal(client_origin_of("http://[::1]:08080", false, o), 0);
    assert_string_equal(o, "http://[::1]:8080");
    assert_int_equal(client_origin_of("https://judge.example/x", false, o), -1); /* a path */
    assert_int_equal(client_origin_of("https://user@judge.example", true, o), -1);
    assert_int_equal(client_origin_of("https://judge.example:0", true, o), -1);
    assert_int_equal(client_origin_of("https://judge.example:65536", true, o), -1);
    assert_int_equal(client_origin_of("https://:80", true, o), -1);
    assert_int_equal(client_origin_of("ftp://judge.example", true, o), -1);
    assert_int_equal(client_origin_of("null", false, o), -1);

    /* without public_url: the Host header names us */
    assert_true(client_origin_same("http://127.0.0.1:8080", "127.0.0.1:8080", ""));
    assert_true(client_origin_same("https://judge.example", "Judge.Example", NULL));
    assert_true(client_origin_same("https://judge.example", "judge.example:443", NULL));
    assert_false(client_origin_same("http://judge.example", "judge.example:443", NULL));
    assert_false(client_origin_same("http://evil.example", "127.0.0.1:8080", ""));
    assert_false(client_origin_same("http://127.0.0.1:8081", "127.0.0.1:8080", ""));
    assert_false(client_origin_same("http://127.0.0.1:8080.evil.example", "127.0.0.1:8080", ""));
    assert_false(client_origin_same("null", "127.0.0.1:8080", ""));
    assert_false(client_origin_same(NULL, "127.0.0.1:8080", ""));
    assert_false(client_origin_same("http://127.0.0.1:8080", NULL, ""));
    assert_false(client_origin_same("http://127.0.0.1:8080", "", ""));
    /* with public_url: exactly its origin, whatever the Host header says */
    assert_true(
        client_origin_same("https://judge.example", "127.0.0.1:8080", "https://judge.example/"));
    assert_false(
        client_origin_same("http://judge.example", "judge.example", "https://judge.example"));
    assert_false(
        client_origin_same("http://127.0.0.1:8080", "127.0.0.1:8080", "https://judge.example"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_address),
        cmocka_unit_test(test_client_is_loopback),
        cmocka_unit_test(test_proxies_parse),
        cmocka_unit_test(test_origin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
