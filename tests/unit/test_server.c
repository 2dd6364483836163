/*
 * Unit tests of the server's modules that hold its promises without HTTP:
 * passwords, tokens and device cookies (auth), rate limits (ratelimit), the
 * client address behind a trusted proxy and the Origin check (client), the
 * settings that depend on each other (config), and the store's queue
 * discipline (a submission is recorded once, by its current claim; a full
 * queue says so; a crash's `judging` rows go back to the queue; claims go
 * round-robin across users and the predicted order is the claim order;
 * per-user limit, cancellation, back-off after a resource failure; a
 * claim copies the source exactly; the migration from a version-1 database
 * keeps every row; hints open in order, a walkthrough's date and the
 * acceptance that unlock it, and migration 4 on a database as version 3
 * left it), the count of live workers, and the views (times, CSV quoting).
 * tests/server/run.sh tests the same through a real server.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>
#include <sqlite3.h>

#include "judge/judge.h"
#include "server/auth.h"
#include "server/client.h"
#include "server/config.h"
#include "server/db.h"
#include "server/queue.h"
#include "server/ratelimit.h"
#include "server/store.h"
#include "server/views.h"

static char dir[] = "/tmp/attnjudge-servertest.XXXXXX";

/* The store's cases run on SQLite and, given ATTNJUDGE_TEST_PG_URL (the pg
 * suite, tests/pg/run.sh), again on PostgreSQL: a case's state says which
 * (NULL: SQLite), and each PostgreSQL case gets a fresh schema of its own
 * (search_path in the URL), so the cases share one database. */
static const char *pg_url;
static int on_pg = 1;
static char cur_url[512]; /* the database of the case running */

static void test_password_hash_and_verify(void **state)
{
    (void)state;
    struct auth *a = auth_new(1);
    char hash[AUTH_HASH_LEN];
    assert_non_null(a);
    assert_int_equal(auth_hash_password(a, "correct horse", hash), 0);
    assert_non_null(strstr(hash, "$argon2id$"));
    assert_true(auth_verify_password(a, hash, "correct horse"));
    assert_false(auth_verify_password(a, hash, "correct horsf"));
    /* an unknown user is checked against a dummy hash, and fails */
    assert_false(auth_verify_password(a, NULL, "correct horse"));
    char again[AUTH_HASH_LEN];
    assert_int_equal(auth_hash_password(a, "correct horse", again), 0);
    assert_string_not_equal(hash, again); /* salted */
    auth_free(a);
}

static void test_tokens(void **state)
{
    (void)state;
    char t1[AUTH_TOKEN_HEX], h1[AUTH_TOKEN_HEX], t2[AUTH_TOKEN_HEX], h2[AUTH_TOKEN_HEX];
    char again[AUTH_TOKEN_HEX];
    assert_int_equal(auth_new_token(t1, h1), 0);
    assert_int_equal(auth_new_token(t2, h2), 0);
    assert_int_equal(strlen(t1), 64); /* 256 bits */
    assert_string_not_equal(t1, t2);
    assert_string_not_equal(t1, h1); /* only the hash is stored */
    assert_int_equal(auth_token_hash(t1, again), 0);
    assert_string_equal(again, h1);
    assert_int_equal(auth_token_hash("not-a-token", again), -1);
    assert_int_equal(auth_token_hash("", again), -1);
}

static void test_usernames(void **state)
{
    (void)state;
    assert_true(auth_username_valid("alice"));
    assert_true(auth_username_valid("a.b-c_9"));
    assert_false(auth_username_valid(""));
    assert_false(auth_username_valid(".alice"));
    assert_false(auth_username_valid("<script>"));
    assert_false(auth_username_valid("a b"));
    assert_false(auth_username_valid("abcdefghijklmnopqrstuvwxyz0123456789"));
    assert_true(auth_equal("class-code", "class-code"));
    assert_false(auth_equal("class-code", "class-cod"));
}

static void test_ratelimit(void **state)
{
    (void)state;
    struct ratelimit *r = ratelimit_new(60, 3, 100); /* 1 a second, burst 3 */
    assert_non_null(r);
    int64_t t = 1000000;
    for (int i = 0; i < 3; i++)
        assert_int_equal(ratelimit_take(r, "alice", t), 0);
    int wait = ratelimit_take(r, "alice", t);
    assert_true(wait >= 1);
    assert_int_equal(ratelimit_take(r, "bob", t), 0);                  /* keys are independent */
    assert_int_equal(ratelimit_take(r, "alice", t + 1000L * wait), 0); /* refilled */
    ratelimit_free(r);
}

static void test_ratelimit_refund(void **state)
{
    (void)state;
    struct ratelimit *r = ratelimit_new(1, 2, 100); /* 1 a minute, burst 2 */
    assert_non_null(r);
    int64_t t = 5000000;
    /* failures only: a take refunded on success costs nothing */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
        ratelimit_refund(r, "a:alice", t);
    }
    assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
    assert_int_equal(ratelimit_take(r, "a:alice", t), 0);
    int wait = ratelimit_take(r, "a:alice", t);
    assert_true(wait >= 1 && wait <= 61); /* a token a minute */
    /* a refund never lifts a bucket above its burst */
    ratelimit_refund(r, "a:bob", t);
    ratelimit_refund(r, "a:bob", t);
    assert_int_equal(ratelimit_take(r, "a:bob", t), 0);
    assert_int_equal(ratelimit_take(r, "a:bob", t), 0);
    assert_true(ratelimit_take(r, "a:bob", t) >= 1);
    ratelimit_free(r);
}

static void test_device_cookies(void **state)
{
    (void)state;
    struct auth *a = auth_new(1);
    char dev[AUTH_DEVICE_LEN], id[AUTH_DEVICE_ID_LEN], forged[AUTH_DEVICE_LEN];
    static const unsigned char secret[32] = {1, 2, 3};
    assert_non_null(a);
    auth_device_key(a, secret, sizeof secret);
    auth_device_new(a, "Alice", dev);
    assert_int_equal(strlen(dev), AUTH_DEVICE_LEN - 1);
    assert_true(auth_device_check(a, "alice", dev, id)); /* usernames are case-insensitive */
    assert_memory_equal(id, dev, AUTH_DEVICE_ID_LEN - 1);
    assert_false(auth_device_check(a, "bob", dev, id)); /* bound to its account */
    assert_false(auth_device_check(a, "alice", NULL, id));
    assert_false(auth_device_check(a, "alice", "", id));
    memcpy(forged, dev, sizeof forged);
    forged[0] = forged[0] == '0' ? '1' : '0'; /* another id, the same MAC */
    assert_false(auth_device_check(a, "alice", forged, id));
    /* the same secret after a restart still recognises it; another does not */
    struct auth *b = auth_new(1);
    auth_device_key(b, secret, sizeof secret);
    assert_true(auth_device_check(b, "alice", dev, id));
    static const unsigned char other[32] = {9};
    auth_device_key(b, other, sizeof other);
    assert_false(auth_device_check(b, "alice", dev, id));
    auth_free(b);
    auth_free(a);
}

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
    config_defaults(&c);
    assert_int_equal(config_set(&c, "workers", "0", err, sizeof err), 0);
    config_finalize(&c);
    assert_int_equal(c.workers, 0);
    assert_int_equal(config_set(&c, "workers", "auto", err, sizeof err), 0);
    assert_int_equal(c.workers, -1);
    assert_int_equal(config_set(&c, "workers", "many", err, sizeof err), -1);
    assert_non_null(strstr(err, "or 'auto'"));
    assert_int_equal(config_set(&c, "lease_s", "0", err, sizeof err), -1);
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

static bool is_pg(void **state)
{
    return state && *state == &on_pg;
}

/* A fresh empty database named name for the case: a SQLite file, or a new
 * PostgreSQL schema (the case is skipped without a server). Its URL is
 * left in cur_url. */
static void fresh_url(void **state, const char *name)
{
    char err[256], sql[256];
    if (!is_pg(state)) {
        snprintf(cur_url, sizeof cur_url, "%s/%s.db", dir, name);
        return;
    }
    if (!pg_url)
        skip();
    struct db *db = db_open(pg_url, err, sizeof err);
    if (!db)
        fail_msg("%s", err);
    snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS t_%s CASCADE; CREATE SCHEMA t_%s", name, name);
    if (db_exec(db, sql) < 0)
        fail_msg("%s", db_error(db));
    db_close(db);
    snprintf(cur_url, sizeof cur_url, "%s%soptions=-csearch_path%%3Dt_%s", pg_url,
             strchr(pg_url, '?') ? "&" : "?", name);
}

/* Runs script on the case's database (cur_url), as an operator would. */
static void exec_on_db(const char *script)
{
    char err[256];
    struct db *db = db_open(cur_url, err, sizeof err);
    if (!db)
        fail_msg("%s", err);
    if (db_exec(db, script) < 0)
        fail_msg("%s: %s", script, db_error(db));
    db_close(db);
}

/* A fresh database with one user and one problem. */
static struct store *fresh_store(void **state, const char *name, int64_t *user)
{
    char err[STORE_ERR_LEN];
    int version;
    fresh_url(state, name);
    struct store *s = store_open(cur_url, false, err, sizeof err);
    if (!s)
        fail_msg("store_open: %s", err);
    assert_int_equal(store_migrate(s), 0);
    assert_int_equal(store_migrate(s), 0); /* migrations are idempotent */
    assert_int_equal(store_user_create(s, "alice", "x", "student", 1, user), 0);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(
        store_problem_add_version(s, "p", "P", "hash1", "directory", 0, false, 1, &version), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(version, 1);
    return s;
}

static void test_store_users_and_sessions(void **state)
{
    (void)state;
    int64_t uid, other;
    struct store_user u;
    struct store *s = fresh_store(state, "users", &uid);
    assert_int_equal(store_user_create(s, "alice", "y", "student", 2, &other), STORE_EXISTS);
    /* usernames are case-insensitive on both backends */
    assert_int_equal(store_user_create(s, "Alice", "y", "student", 2, &other), STORE_EXISTS);
    assert_int_equal(store_user_by_name(s, "alice", &u), 0);
    assert_int_equal(u.id, uid);
    assert_int_equal(store_user_by_name(s, "ALICE", &u), 0);
    assert_int_equal(u.id, uid);
    assert_string_equal(u.username, "alice");
    assert_int_equal(store_user_by_name(s, "nobody", &u), STORE_NOT_FOUND);
    assert_int_equal(store_session_create(s, "tokenhash", uid, 10, 100), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), 0);
    assert_string_equal(u.username, "alice");
    assert_int_equal(store_session_user(s, "tokenhash", 100, &u), STORE_NOT_FOUND); /* expired */
    assert_int_equal(store_session_delete(s, "tokenhash"), 0);
    assert_int_equal(store_session_user(s, "tokenhash", 50, &u), STORE_NOT_FOUND);
    store_close(s);
}

static const struct store_queue_limits roomy = {1000, 1000};

static const struct store_result accepted = {
    .verdict = "accepted", .score = 100, .report_json = "{\"verdict\":\"accepted\"}"};

static void test_store_claim_discipline(void **state)
{
    (void)state;
    int64_t uid, id, queued, judging;
    int version, n;
    struct store_claim c1, c2;
    struct store *s = fresh_store(state, "queue", &uid);

    assert_int_equal(store_submission_create(s, uid, "p", "src", 3, &roomy, 5, &id, &version), 0);
    assert_int_equal(version, 1);
    assert_int_equal(store_submission_create(s, uid, "nope", "src", 3, &roomy, 5, &id, &version),
                     STORE_NOT_FOUND);
    assert_int_equal(store_submission_claim(s, 6, &c1), 0);
    assert_int_equal(c1.source_len, 3);
    assert_memory_equal(c1.source, "src", 3);
    assert_int_equal(store_submission_claim(s, 6, &c2), STORE_NOT_FOUND); /* nothing left */

    /* a crash: the `judging` row goes back to the queue, and a new claim
     * supersedes the old one, whose late result is discarded */
    assert_int_equal(store_submission_requeue(s, 0, 0, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_submission_claim(s, 7, &c2), 0);
    assert_int_equal(c2.id, c1.id);
    assert_true(c2.claim != c1.claim);
    assert_int_equal(store_submission_finish(s, c1.id, c1.claim, 8, &accepted), STORE_STALE);
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 8, &accepted), 0);
    /* recorded once: a second finish by the same claim is stale too */
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 9, &accepted), STORE_STALE);
    assert_int_equal(store_queue_depth(s, &queued, &judging), 0);
    assert_int_equal(queued + judging, 0);
    store_claim_free(&c1);
    store_claim_free(&c2);
    store_close(s);
}

/* Judge hosts: a claim names its holder and holds a lease; the holder's
 * heartbeat renews it; an expired lease, or a holder known to be gone,
 * hands the claim back, and the late verdict of the old claim is stale. */
static int count_host(void *arg, const struct store_host *h)
{
    (void)h;
    ++*(int *)arg;
    return 0;
}

static void test_store_leases(void **state)
{
    (void)state;
    int64_t uid, a, b, id;
    int version, judging, benchmarks, hosts = 0;
    struct store_claim ca, cb, cc;
    struct store *s = fresh_store(state, "leases", &uid);
    struct store_host host_a = {.name = "a", .hostname = "h", .pid = 1, .workers = 1};
    assert_int_equal(store_submission_create(s, uid, "p", "one", 3, &roomy, 5, &a, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "two", 3, &roomy, 5, &b, &version), 0);
    store_set_holder(s, "a", 1000);
    assert_int_equal(store_submission_claim(s, 100, &ca), 0); /* lease until 1100 */
    store_set_holder(s, "b", 1000);
    assert_int_equal(store_submission_claim(s, 100, &cb), 0);
    /* a's heartbeat at 900 renews a's lease to 1900, not b's */
    store_set_holder(s, "a", 1000);
    assert_int_equal(store_host_beat(s, &host_a, 900), 0);
    assert_int_equal(store_leases_expire(s, 1000, &judging, &benchmarks), 0);
    assert_int_equal(judging, 0);
    assert_int_equal(store_leases_expire(s, 1200, &judging, &benchmarks), 0);
    assert_int_equal(judging, 1); /* b's */
    assert_int_equal(store_submission_claim(s, 1200, &cc), 0);
    assert_int_equal(cc.id, cb.id);
    assert_int_equal(store_submission_finish(s, cb.id, cb.claim, 1300, &accepted), STORE_STALE);
    assert_int_equal(store_submission_finish(s, cc.id, cc.claim, 1300, &accepted), 0);
    /* a leaves (or is found dead): its claim goes back at once */
    assert_int_equal(store_leases_release(s, "a", &judging, &benchmarks), 0);
    assert_int_equal(judging, 1);
    assert_int_equal(store_submission_finish(s, ca.id, ca.claim, 1300, &accepted), STORE_STALE);
    /* the hosts seen since a time */
    assert_int_equal(store_hosts(s, 900, count_host, &hosts), 0);
    assert_int_equal(hosts, 1);
    hosts = 0;
    assert_int_equal(store_hosts(s, 901, count_host, &hosts), 0);
    assert_int_equal(hosts, 0);
    assert_int_equal(store_host_remove(s, "a"), 0);
    assert_int_equal(store_hosts(s, 0, count_host, &hosts), 0);
    assert_int_equal(hosts, 0);
    (void)id;
    store_claim_free(&ca);
    store_claim_free(&cb);
    store_claim_free(&cc);
    store_close(s);
}

static void test_store_queue_full(void **state)
{
    (void)state;
    int64_t uid, bob, id;
    int version;
    struct store_queue_limits lim = {3, 1000};
    struct store *s = fresh_store(state, "full", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version),
                     STORE_FULL);
    assert_int_equal(store_submission_create(s, bob, "p", "x", 1, &lim, 5, &id, &version),
                     STORE_FULL);
    store_close(s);
}

/* Submits n sources for user at time t (ms), returning the first id. */
static int64_t submit_n(struct store *s, int64_t user, int n, int64_t t)
{
    int64_t id = 0, first = 0;
    int version;
    for (int i = 0; i < n; i++) {
        assert_int_equal(
            store_submission_create(s, user, "p", "x", 1, &roomy, t + i, &id, &version), 0);
        if (!first)
            first = id;
    }
    return first;
}

static void test_store_user_limit(void **state)
{
    (void)state;
    int64_t uid, bob, id;
    int version;
    struct store_claim c;
    struct store_queue_limits lim = {1000, 2};
    struct store *s = fresh_store(state, "userlimit", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 5, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 6, &id, &version), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 7, &id, &version),
                     STORE_USER_FULL);
    /* another user is not affected */
    assert_int_equal(store_submission_create(s, bob, "p", "x", 1, &lim, 7, &id, &version), 0);
    /* judging still counts; a verdict frees the place */
    assert_int_equal(store_submission_claim(s, 8, &c), 0);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 9, &id, &version),
                     STORE_USER_FULL);
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 10, &accepted), 0);
    store_claim_free(&c);
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &lim, 11, &id, &version), 0);
    store_close(s);
}

static void test_store_round_robin(void **state)
{
    (void)state;
    int64_t alice, bob, carol;
    struct store_claim c;
    struct store *s = fresh_store(state, "roundrobin", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    assert_int_equal(store_user_create(s, "carol", "x", "student", 1, &carol), 0);

    /* alice queues ten, then bob one: bob's is the second claimed, not the
     * eleventh (alice has one judging by then, bob none) */
    int64_t a1 = submit_n(s, alice, 10, 100);
    int64_t b1 = submit_n(s, bob, 1, 200);
    assert_int_equal(store_submission_claim(s, 300, &c), 0);
    assert_int_equal(c.id, a1);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 301, &c), 0);
    assert_int_equal(c.id, b1);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 302, &c), 0);
    assert_int_equal(c.id, a1 + 1);
    store_claim_free(&c);
    store_close(s);
}

/* store_queue_order predicts the claim order exactly when nothing ends and
 * nothing arrives, from a mixed state: users with rows judging, users
 * served long ago, users never served, ties in queued_at. */
static void test_store_queue_order_is_claim_order(void **state)
{
    (void)state;
    int64_t user[5], t = 1000;
    struct store_claim c;
    struct store_queue_entry *order = NULL;
    size_t n = 0;
    struct store *s = fresh_store(state, "order", &user[0]);
    for (int i = 1; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "user%d", i);
        assert_int_equal(store_user_create(s, name, "x", "student", 1, &user[i]), 0);
    }
    /* history: user0 twice and user2 once judged; user1 has one judging */
    submit_n(s, user[0], 2, t);
    submit_n(s, user[2], 1, t + 5);
    submit_n(s, user[1], 1, t + 6);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(store_submission_claim(s, t + 10 + i, &c), 0);
        if (i < 3)
            assert_int_equal(store_submission_finish(s, c.id, c.claim, t + 20, &accepted), 0);
        store_claim_free(&c);
    }
    /* now a queue: 4 of user0, 3 of user1, 2 of user2, 1 of user3, 3 of user4 */
    submit_n(s, user[0], 4, t + 100);
    submit_n(s, user[4], 3, t + 100);
    submit_n(s, user[1], 3, t + 101);
    submit_n(s, user[3], 1, t + 102);
    submit_n(s, user[2], 2, t + 103);
    assert_int_equal(store_queue_order(s, &order, &n), 0);
    assert_int_equal(n, 13);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_submission_claim(s, t + 200 + (int64_t)i, &c), 0);
        if (c.id != order[i].id)
            fail_msg("claim %zu took #%lld, predicted #%lld", i, (long long)c.id,
                     (long long)order[i].id);
        store_claim_free(&c);
    }
    assert_int_equal(store_submission_claim(s, t + 300, &c), STORE_NOT_FOUND);
    free(order);
    store_close(s);
}

/* A claim copies the stored source exactly, whatever SQLite holds: text
 * read before its size (SQLite's order), a zero-length value as an empty
 * source, a BLOB (legal under TEXT affinity) byte for byte. */
static void test_store_claim_source(void **state)
{
    (void)state;
    int64_t uid;
    struct store_claim c;
    struct store *s = fresh_store(state, "claimsrc", &uid);
    int64_t first = submit_n(s, uid, 3, 10);
    char sql[256];
    /* PostgreSQL's text has no BLOB to hold: the same values as text */
    snprintf(sql, sizeof sql,
             is_pg(state)
                 ? "UPDATE submissions SET source = '' WHERE id = %lld;"
                   "UPDATE submissions SET source = 'int f(void);' WHERE id = %lld;"
                   "UPDATE submissions SET source = 'caf\xc3\xa9 // \xe2\x82\xac' WHERE id = %lld;"
                 : "UPDATE submissions SET source = X'' WHERE id = %lld;"
                   "UPDATE submissions SET source = CAST('int f(void);' AS BLOB) WHERE id = %lld;"
                   "UPDATE submissions SET source = 'caf\xc3\xa9 // \xe2\x82\xac' WHERE id = %lld;",
             (long long)first, (long long)first + 1, (long long)first + 2);
    exec_on_db(sql);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.source_len, 0);
    assert_string_equal(c.source, "");
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 21, &c), 0);
    assert_int_equal(c.source_len, strlen("int f(void);"));
    assert_string_equal(c.source, "int f(void);");
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 22, &c), 0);
    assert_int_equal(c.source_len, strlen("caf\xc3\xa9 // \xe2\x82\xac"));
    assert_string_equal(c.source, "caf\xc3\xa9 // \xe2\x82\xac");
    store_claim_free(&c);
    store_close(s);
}

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

/* /healthz counts the workers that judge: one whose database does not
 * open exits, and is not counted. */
static void test_queue_live_workers(void **state)
{
    (void)state;
    int64_t uid;
    char path[256], err[256];
    struct store *s = fresh_store(state, "workers", &uid);
    store_close(s);
    snprintf(path, sizeof path, "%s/workers.db", dir);
    struct queue_host host = {.lease_ms = 30000};
    struct queue *q = queue_start(path, false, 3, NULL, NULL, NULL, NULL, &host, err, sizeof err);
    assert_non_null(q);
    assert_int_equal(queue_workers_live(q), 3);
    assert_int_equal(queue_stop(q, 5), 0);
    snprintf(path, sizeof path, "%s/no-such-dir/workers.db", dir);
    q = queue_start(path, false, 2, NULL, NULL, NULL, NULL, &host, err, sizeof err);
    assert_non_null(q); /* the server stays up and says so */
    assert_int_equal(queue_workers_live(q), 0);
    assert_int_equal(queue_stop(q, 5), 0);
}

/* store_submission_get through views_submission: the API's object. */
static int take_submission(void *arg, const struct store_submission_row *row)
{
    *(json_t **)arg = views_submission(row);
    return *(json_t **)arg ? 0 : -1;
}

static json_t *get_submission(struct store *s, int64_t id)
{
    json_t *o = NULL;
    assert_int_equal(store_submission_get(s, id, take_submission, &o), 0);
    assert_non_null(o);
    return o;
}

static void test_store_cancel(void **state)
{
    (void)state;
    int64_t uid, bob, queued, judging;
    char status[16];
    struct store_claim c;
    struct store *s = fresh_store(state, "cancel", &uid);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    int64_t first = submit_n(s, uid, 3, 10);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.id, first);
    /* judging: too late */
    assert_int_equal(store_submission_cancel(s, first, uid, status, sizeof status), STORE_STALE);
    assert_string_equal(status, "judging");
    /* someone else's looks missing; an unknown id is missing */
    assert_int_equal(store_submission_cancel(s, first + 1, bob, status, sizeof status),
                     STORE_NOT_FOUND);
    assert_int_equal(store_submission_cancel(s, 999, uid, status, sizeof status), STORE_NOT_FOUND);
    /* queued: cancelled, once; owner 0 (an instructor) may too */
    assert_int_equal(store_submission_cancel(s, first + 1, uid, status, sizeof status), 0);
    assert_string_equal(status, "cancelled");
    assert_int_equal(store_submission_cancel(s, first + 1, uid, status, sizeof status),
                     STORE_STALE);
    assert_string_equal(status, "cancelled");
    assert_int_equal(store_submission_cancel(s, first + 2, 0, status, sizeof status), 0);
    /* a cancelled submission is never claimed and has no verdict */
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 30, &accepted), 0);
    store_claim_free(&c);
    assert_int_equal(store_submission_claim(s, 40, &c), STORE_NOT_FOUND);
    assert_int_equal(store_queue_depth(s, &queued, &judging), 0);
    assert_int_equal(queued + judging, 0);
    json_t *o = get_submission(s, first + 1);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "cancelled");
    assert_true(json_is_null(json_object_get(o, "verdict")));
    json_decref(o);
    /* a rejudge leaves it cancelled */
    int count = 0;
    assert_int_equal(store_rejudge(s, "p", 0, 0, 50, &count, NULL), 0);
    assert_int_equal(count, 1);
    o = get_submission(s, first + 1);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "cancelled");
    json_decref(o);
    store_close(s);
}

static void test_store_retry_backoff(void **state)
{
    (void)state;
    int64_t uid;
    struct store_claim c, c2;
    struct store *s = fresh_store(state, "retry", &uid);
    int64_t id = submit_n(s, uid, 1, 10);
    assert_int_equal(store_submission_claim(s, 20, &c), 0);
    assert_int_equal(c.retries, 0);
    assert_int_equal(store_submission_retry(s, c.id, c.claim, 2020), 0);
    assert_int_equal(store_submission_retry(s, c.id, c.claim, 2020), STORE_STALE); /* once */
    /* not before its back-off */
    assert_int_equal(store_submission_claim(s, 2019, &c2), STORE_NOT_FOUND);
    assert_int_equal(store_submission_claim(s, 2020, &c2), 0);
    assert_int_equal(c2.id, id);
    assert_int_equal(c2.retries, 1);
    assert_true(c2.claim != c.claim);
    assert_int_equal(store_submission_finish(s, c2.id, c2.claim, 2100, &accepted), 0);
    store_claim_free(&c);
    store_claim_free(&c2);
    store_close(s);
}

/* A database as version 1 of the schema left it, with a judged submission
 * and its per-test row. */
static const char v1_schema[] =
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (1);"
    "CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    "  pwhash TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('student', 'instructor')),"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE sessions (token_hash TEXT PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);"
    "CREATE INDEX sessions_expiry ON sessions(expires_at);"
    "CREATE TABLE problems (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE,"
    "  current_version INTEGER NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE TABLE problem_versions (problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  version INTEGER NOT NULL, title TEXT NOT NULL, content_hash TEXT NOT NULL,"
    "  origin TEXT NOT NULL CHECK (origin IN ('directory', 'upload')),"
    "  created_by INTEGER REFERENCES users(id), created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (problem_id, version));"
    "CREATE TABLE submissions (id INTEGER PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id), problem_id INTEGER NOT NULL,"
    "  problem_version INTEGER NOT NULL, source TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('queued', 'judging', 'done')), progress TEXT,"
    "  verdict TEXT, score REAL, time_ms REAL, compile_ms REAL, report TEXT,"
    "  internal_message TEXT, claim INTEGER NOT NULL DEFAULT 0,"
    "  judgements INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,"
    "  queued_at INTEGER NOT NULL, started_at INTEGER, judged_at INTEGER,"
    "  FOREIGN KEY (problem_id, problem_version)"
    "    REFERENCES problem_versions(problem_id, version));"
    "CREATE INDEX submissions_queue ON submissions(status, queued_at, id);"
    "CREATE INDEX submissions_user ON submissions(user_id, id);"
    "CREATE INDEX submissions_problem ON submissions(problem_id, problem_version, verdict);"
    "CREATE TABLE test_results (submission_id INTEGER NOT NULL"
    "  REFERENCES submissions(id) ON DELETE CASCADE, idx INTEGER NOT NULL, name TEXT NOT NULL,"
    "  kind TEXT NOT NULL, verdict TEXT NOT NULL, weight INTEGER NOT NULL, time_ms REAL,"
    "  wall_ms REAL, max_abs_err REAL, max_rel_err REAL, n_mismatch INTEGER, message TEXT,"
    "  PRIMARY KEY (submission_id, idx));"
    "INSERT INTO users VALUES (1, 'alice', 'x', 'student', 1);"
    "INSERT INTO problems VALUES (1, 'p', 1, 1);"
    "INSERT INTO problem_versions VALUES (1, 1, 'P', 'h', 'directory', NULL, 1);"
    "INSERT INTO submissions (id, user_id, problem_id, problem_version, source, status, verdict,"
    "  claim, judgements, created_at, queued_at, started_at, judged_at)"
    "  VALUES (7, 1, 1, 1, 'src', 'done', 'accepted', 1, 1, 2, 2, 3, 4);"
    "INSERT INTO submissions (id, user_id, problem_id, problem_version, source, status,"
    "  created_at, queued_at) VALUES (8, 1, 1, 1, 'src', 'queued', 5, 5);"
    "INSERT INTO test_results (submission_id, idx, name, kind, verdict, weight)"
    "  VALUES (7, 0, 't', 'sample', 'accepted', 1);";

static int64_t count_of(const char *path, const char *sql_text)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t n = -1;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql_text, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void test_store_migration_keeps_rows(void **state)
{
    (void)state;
    char path[256], err[STORE_ERR_LEN], status[16];
    sqlite3 *db;
    struct store_claim c;
    snprintf(path, sizeof path, "%s/v1.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, v1_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct store *s = store_open(path, false, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_migrate(s), 0);
    assert_int_equal(count_of(path, "SELECT max(version) FROM schema_version"),
                     store_schema_latest());
    /* migration 3 drops the per-test copy: the report JSON is the truth */
    assert_int_equal(
        count_of(path, "SELECT count(*) FROM sqlite_master WHERE name = 'test_results'"), 0);
    assert_int_equal(count_of(path, "SELECT count(*) FROM submissions"), 2);
    assert_int_equal(count_of(path, "SELECT judgements FROM submissions WHERE id = 7"), 1);
    /* the migrated queue works: the queued row is claimed, and a new status
     * is accepted */
    assert_int_equal(store_submission_claim(s, 10, &c), 0);
    assert_int_equal(c.id, 8);
    assert_int_equal(store_submission_requeue(s, 0, 0, NULL), 0);
    store_claim_free(&c);
    assert_int_equal(store_submission_cancel(s, 8, 1, status, sizeof status), 0);
    /* foreign keys are enforced again on this connection after migrating */
    int64_t id;
    int version;
    assert_int_equal(store_submission_create(s, 99, "p", "x", 1, &roomy, 20, &id, &version), -1);
    store_close(s);
}

/* A database as version 3 of the schema left it (the schema dumped from a
 * database that release created), with a student's accepted submission, a
 * second student's wrong one, and an instructor. */
static const char v3_schema[] =
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (1), (2), (3);"
    "CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    "  pwhash TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('student', 'instructor')),"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE sessions (token_hash TEXT PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);"
    "CREATE INDEX sessions_expiry ON sessions(expires_at);"
    "CREATE TABLE problems (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE,"
    "  current_version INTEGER NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE TABLE problem_versions (problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  version INTEGER NOT NULL, title TEXT NOT NULL, content_hash TEXT NOT NULL,"
    "  origin TEXT NOT NULL CHECK (origin IN ('directory', 'upload')),"
    "  created_by INTEGER REFERENCES users(id), created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (problem_id, version));"
    "CREATE TABLE \"submissions\" (id INTEGER PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id), problem_id INTEGER NOT NULL,"
    "  problem_version INTEGER NOT NULL, source TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('queued', 'judging', 'done', 'cancelled')),"
    "  progress TEXT, verdict TEXT CHECK (verdict IS NULL OR verdict IN ('accepted',"
    "    'wrong_answer', 'compile_error', 'runtime_error', 'time_limit', 'memory_limit',"
    "    'security_violation', 'internal_error')),"
    "  score REAL, time_ms REAL, compile_ms REAL, report TEXT, internal_message TEXT,"
    "  claim INTEGER NOT NULL DEFAULT 0, judgements INTEGER NOT NULL DEFAULT 0,"
    "  created_at INTEGER NOT NULL, queued_at INTEGER NOT NULL, started_at INTEGER,"
    "  judged_at INTEGER, retry_at INTEGER NOT NULL DEFAULT 0,"
    "  retries INTEGER NOT NULL DEFAULT 0, FOREIGN KEY (problem_id, problem_version)"
    "    REFERENCES problem_versions(problem_id, version));"
    "CREATE INDEX submissions_queue ON submissions(status, queued_at, id);"
    "CREATE INDEX submissions_user ON submissions(user_id, id);"
    "CREATE INDEX submissions_problem ON submissions(problem_id, problem_version, verdict);"
    "CREATE INDEX submissions_user_status ON submissions(user_id, status);"
    "CREATE TABLE queue_turns (user_id INTEGER PRIMARY KEY REFERENCES users(id),"
    "  served_at INTEGER NOT NULL);"
    "INSERT INTO users VALUES (1, 'alice', 'x', 'student', 1), (2, 'bob', 'x', 'student', 1),"
    "  (3, 'prof', 'x', 'instructor', 1);"
    "INSERT INTO problems VALUES (1, 'p', 1, 1);"
    "INSERT INTO problem_versions VALUES (1, 1, 'P', 'h', 'directory', NULL, 1);"
    "INSERT INTO submissions (id, user_id, problem_id, problem_version, source, status, verdict,"
    "  claim, judgements, created_at, queued_at, started_at, judged_at)"
    "  VALUES (7, 1, 1, 1, 'src', 'done', 'accepted', 1, 1, 2, 2, 3, 4),"
    "  (8, 2, 1, 1, 'src', 'done', 'wrong_answer', 1, 1, 5, 5, 6, 7);";

/* store_submission_fn: the hints_opened of the one row read. */
static int note_hints(void *arg, const struct store_submission_row *row)
{
    *(int *)arg = row->hints_opened;
    return 0;
}

static int count_hint(void *arg, const struct store_hint_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

static void test_store_migration_4(void **state)
{
    (void)state;
    char path[256], err[STORE_ERR_LEN];
    sqlite3 *db;
    int64_t at = 0;
    int opened = 0, hints = -1;
    struct store_walkthrough w;
    snprintf(path, sizeof path, "%s/v3.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, v3_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct store *s = store_open(path, false, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_migrate(s), 0);
    assert_int_equal(count_of(path, "SELECT max(version) FROM schema_version"),
                     store_schema_latest());
    assert_int_equal(count_of(path, "SELECT count(*) FROM submissions"), 2);
    assert_int_equal(count_of(path, "SELECT count(*) FROM hint_opens"), 0);
    /* the old submissions read with no hints opened */
    assert_int_equal(store_submission_get(s, 7, note_hints, &hints), 0);
    assert_int_equal(hints, 0);
    /* alice's old acceptance unlocks her walkthrough; bob's wrong answer
     * does not; no date was ever set */
    assert_int_equal(store_walkthrough(s, "p", 1, &w), 0);
    assert_true(w.accepted);
    assert_false(w.date_set);
    assert_int_equal(store_walkthrough(s, "p", 2, &w), 0);
    assert_false(w.accepted);
    /* the new tables work, with their foreign keys enforced */
    assert_int_equal(store_hint_open(s, 2, "p", 1, 1, 100, &at, &opened), 0);
    assert_int_equal(store_hint_open(s, 99, "p", 1, 1, 100, &at, &opened), -1);
    assert_int_equal(store_walkthrough_set(s, "p", 5000, 3, 200), 0);
    assert_int_equal(store_walkthrough(s, "p", 2, &w), 0);
    assert_true(w.date_set);
    assert_int_equal(w.opens_at, 5000);
    store_close(s);
}

/* Migration 5 on a version-3 database (through 4): the old problem is
 * published, the old users have no student id, display name or pending
 * password change; the problem-state functions work on it. */
static void test_store_migration_5(void **state)
{
    (void)state;
    char path[256], err[STORE_ERR_LEN];
    sqlite3 *db;
    struct store_problem_version v;
    struct store_user u;
    int version = 0;
    snprintf(path, sizeof path, "%s/v3-for-5.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, v3_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct store *s = store_open(path, false, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_migrate(s), 0);
    assert_int_equal(store_problem_current(s, "p", &v), 0);
    assert_string_equal(v.state, "published");
    assert_int_equal(v.publish_at, 0);
    assert_int_equal(store_user_by_name(s, "alice", &u), 0);
    assert_false(u.must_change_password);
    assert_string_equal(u.display_name, "");
    assert_string_equal(u.student_id, "");
    /* migration 6: a rejudge of the old problem keeps both old verdicts */
    int count = 0;
    int64_t rid = 0;
    assert_int_equal(store_rejudge(s, "p", 0, 3, 300, &count, &rid), 0);
    assert_int_equal(count, 2);
    assert_int_equal(count_of(path, "SELECT count(*) FROM rejudge_items WHERE old_status = 'done'"
                                    " AND old_verdict IS NOT NULL"),
                     2);
    assert_int_equal(store_rejudge(s, NULL, 7, 3, 301, &count, &rid), STORE_STALE); /* queued */
    assert_int_equal(store_rejudge(s, NULL, 99, 3, 301, &count, &rid), STORE_NOT_FOUND);
    /* states: set, schedule, refuse a word the CHECK does not know */
    assert_int_equal(store_problem_set_state(s, "p", "archived", 0), 0);
    assert_int_equal(store_problem_set_state(s, "p", "published", 5000), 0);
    assert_int_equal(store_problem_current(s, "p", &v), 0);
    assert_string_equal(v.state, "published");
    assert_int_equal(v.publish_at, 5000);
    assert_int_equal(store_problem_set_state(s, "p", "hidden", 0), -1);
    assert_int_equal(store_problem_set_state(s, "nope", "draft", 0), STORE_NOT_FOUND);
    /* an upload starts as a draft, a directory import as published */
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(
        store_problem_add_version(s, "up", "Up", "h2", "upload", 3, false, 10, &version), 0);
    assert_int_equal(
        store_problem_add_version(s, "dir", "Dir", "h3", "directory", 0, false, 10, &version), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(store_problem_current(s, "up", &v), 0);
    assert_string_equal(v.state, "draft");
    assert_int_equal(store_problem_current(s, "dir", &v), 0);
    assert_string_equal(v.state, "published");
    /* delete: refused with submissions, done without (hint openings and
     * the walkthrough date go with it) */
    assert_int_equal(store_problem_delete(s, "p"), STORE_EXISTS);
    assert_int_equal(store_problem_current(s, "p", &v), 0);
    int64_t at = 0;
    int opened = 0;
    assert_int_equal(store_hint_open(s, 1, "up", 1, 1, 100, &at, &opened), 0);
    assert_int_equal(store_walkthrough_set(s, "up", 5000, 3, 200), 0);
    assert_int_equal(store_problem_delete(s, "up"), 0);
    assert_int_equal(store_problem_current(s, "up", &v), STORE_NOT_FOUND);
    assert_int_equal(count_of(path, "SELECT count(*) FROM hint_opens"), 0);
    assert_int_equal(count_of(path, "SELECT count(*) FROM walkthrough_dates"), 0);
    assert_int_equal(store_problem_delete(s, "up"), STORE_NOT_FOUND);
    store_close(s);
}

/* A version's package (migration 11): none before it is recorded (as in a
 * row from before the migration), its bytes as recorded, NULs included. */
static void test_store_packages(void **state)
{
    (void)state;
    int64_t uid;
    void *data = NULL;
    size_t len = 0;
    static const char blob[] = "{\"problem.json\":\"x\"}\0tail\xff";
    struct store *s = fresh_store(state, "packages", &uid);
    assert_int_equal(store_problem_package(s, "p", 1, &data, &len), STORE_NOT_FOUND);
    assert_null(data);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_problem_set_package(s, "p", 1, blob, sizeof blob), 0);
    assert_int_equal(store_problem_set_package(s, "p", 2, blob, sizeof blob), STORE_NOT_FOUND);
    assert_int_equal(store_problem_set_package(s, "q", 1, blob, sizeof blob), STORE_NOT_FOUND);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(store_problem_package(s, "p", 1, &data, &len), 0);
    assert_int_equal(len, sizeof blob);
    assert_memory_equal(data, blob, sizeof blob);
    free(data);
    assert_int_equal(store_problem_package(s, "p", 2, &data, &len), STORE_NOT_FOUND);
    assert_int_equal(store_problem_package(s, "q", 1, &data, &len), STORE_NOT_FOUND);
    store_close(s);
}

/* Hints open in order, once; the log reads them; a walkthrough's date. */
static void test_store_hints(void **state)
{
    (void)state;
    int64_t alice, bob, at = 0, id;
    int opened = -1, n = 0, version, hints = -1;
    struct store_walkthrough w;
    struct store *s = fresh_store(state, "hints", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);

    assert_int_equal(store_hint_open(s, alice, "p", 1, 2, 10, &at, &opened), STORE_STALE);
    assert_int_equal(opened, 0);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 1, 10, &at, &opened), 0);
    assert_int_equal(at, 10);
    assert_int_equal(opened, 1);
    /* again: nothing changes, the first time is kept */
    assert_int_equal(store_hint_open(s, alice, "p", 1, 1, 20, &at, &opened), 0);
    assert_int_equal(at, 10);
    assert_int_equal(opened, 1);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 3, 30, &at, &opened), STORE_STALE);
    assert_int_equal(opened, 1);
    assert_int_equal(store_hint_open(s, alice, "p", 1, 2, 30, &at, &opened), 0);
    assert_int_equal(opened, 2);
    assert_int_equal(store_hint_open(s, alice, "nope", 1, 1, 30, &at, &opened), STORE_NOT_FOUND);
    /* bob's order is his own */
    assert_int_equal(store_hint_open(s, bob, "p", 1, 1, 40, &at, &opened), 0);
    assert_int_equal(store_hint_opens(s, "p", 0, count_hint, &n), 0);
    assert_int_equal(n, 3);
    n = 0;
    assert_int_equal(store_hint_opens(s, "p", bob, count_hint, &n), 0);
    assert_int_equal(n, 1);

    /* a submission counts the hints opened before it */
    assert_int_equal(store_submission_create(s, alice, "p", "x", 1, &roomy, 25, &id, &version), 0);
    assert_int_equal(store_submission_get(s, id, note_hints, &hints), 0);
    assert_int_equal(hints, 1);

    /* no date; an instructor's date; "no date" set explicitly */
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_false(w.date_set || w.accepted);
    assert_int_equal(w.opens_at, 0);
    assert_int_equal(store_walkthrough_set(s, "p", 12345, alice, 50), 0);
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_true(w.date_set);
    assert_int_equal(w.opens_at, 12345);
    assert_int_equal(store_walkthrough_set(s, "p", 0, alice, 60), 0);
    assert_int_equal(store_walkthrough(s, "p", alice, &w), 0);
    assert_true(w.date_set);
    assert_int_equal(w.opens_at, 0);
    assert_int_equal(store_walkthrough(s, "nope", alice, &w), STORE_NOT_FOUND);
    assert_int_equal(store_walkthrough_set(s, "nope", 1, alice, 60), STORE_NOT_FOUND);
    store_close(s);
}

/* The verdicts the schema's CHECK admits are the judge's (judge.c's
 * table), in the same order: the SQL list is a copy that only this test
 * keeps true (a new verdict needs a migration). */
static void test_store_verdicts_are_the_judges(void **state)
{
    (void)state;
    char path[256], list[512] = "";
    int64_t uid;
    sqlite3 *db;
    sqlite3_stmt *st;
    struct store *s = fresh_store(state, "vocabulary", &uid);
    store_close(s);
    snprintf(path, sizeof path, "%s/vocabulary.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT sql FROM sqlite_master WHERE type = 'table'"
                                        " AND name = 'submissions'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *sql_text = (const char *)sqlite3_column_text(st, 0);
    assert_non_null(sql_text);
    const char *at = strstr(sql_text, "verdict IN (");
    assert_non_null(at);
    const char *end = strchr(at, ')');
    assert_non_null(end);
    /* "'accepted', 'wrong_answer', ..." -> "accepted,wrong_answer,..." */
    size_t n = 0;
    for (const char *c = at + strlen("verdict IN ("); c < end && n + 1 < sizeof list; c++)
        if (*c != '\'' && *c != ' ')
            list[n++] = *c;
    list[n] = '\0';
    sqlite3_finalize(st);
    sqlite3_close(db);

    char want[512] = "";
    for (int v = V_ACCEPTED; v < V_NOT_RUN; v++) {
        if (v != V_ACCEPTED)
            strcat(want, ",");
        strcat(want, judge_verdict_name(v));
    }
    assert_string_equal(list, want);
    assert_int_equal(judge_verdict_from_name("not_run"), -1); /* a test state only */
}

/* Row counters for the read callbacks below. */
static int count_leader(void *arg, const struct store_leader_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

static int count_grade(void *arg, const struct store_grade_row *row)
{
    ++*(int *)arg;
    assert_string_equal(row->user, "alice");
    return 0;
}

static int count_sub(void *arg, const struct store_submission_row *row)
{
    (void)row;
    ++*(int *)arg;
    return 0;
}

static int count_student(void *arg, const struct store_student *u)
{
    (void)u;
    ++*(int *)arg;
    return 0;
}

static int count_source(void *arg, const struct store_source_row *row)
{
    assert_string_equal(row->verdict, "accepted"); /* the accepted one, not the newest */
    ++*(int *)arg;
    return 0;
}

/* The course layer's statements on a fresh database (the same on both
 * backends: the statements with a backend-specific spelling, NULL and NAN
 * values, unique violations, upserts, the benchmark claim). */
static void test_store_course(void **state)
{
    int64_t alice, bob, id, rev = 0;
    int n = 0, count = 0;
    struct store_claim c;
    struct store_problem_version v;
    struct store_user u;
    struct store *s = fresh_store(state, "course", &alice);
    assert_int_equal(store_user_create(s, "bob", "x", "student", 1, &bob), 0);
    /* a verdict with its benchmark to come; the benchmark claim, one at a time */
    id = submit_n(s, alice, 1, 10);
    assert_int_equal(store_submission_claim(s, 11, &c), 0);
    struct store_result bench = accepted;
    bench.bench = true;
    bench.time_ms = 5;
    bench.compile_ms = NAN;
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 12, &bench), 0);
    store_claim_free(&c);
    submit_n(s, alice, 1, 13); /* a later wrong answer */
    assert_int_equal(store_submission_claim(s, 14, &c), 0);
    struct store_result wrong = {.verdict = "wrong_answer", .score = 0, .report_json = "{}"};
    assert_int_equal(store_submission_finish(s, c.id, c.claim, 15, &wrong), 0);
    store_claim_free(&c);
    struct store_claim b1, b2;
    assert_int_equal(store_bench_claim(s, 20, &b1), 0);
    assert_int_equal(b1.id, id);
    assert_int_equal(store_bench_claim(s, 21, &b2), STORE_NOT_FOUND);
    assert_int_equal(store_bench_finish(s, b1.id, b1.claim, "done", "{}", NAN, NULL), 0);
    store_claim_free(&b1);
    assert_int_equal(store_leaderboard(s, "p", 10, &v, count_leader, &n), 0);
    assert_int_equal(n, 1);
    n = 0;
    assert_int_equal(store_grades(s, count_grade, &n), 0);
    assert_int_equal(n, 1);
    n = 0;
    struct store_list_filter f = {.username = "ALICE", .limit = 10};
    assert_int_equal(store_submission_list(s, &f, count_sub, &n), 0);
    assert_int_equal(n, 2);
    n = 0;
    assert_int_equal(store_problem_sources(s, "p", count_source, &n), 0);
    assert_int_equal(n, 1);
    /* rejudges keep what they replace */
    int64_t rid = 0;
    assert_int_equal(store_rejudge(s, "p", 0, alice, 30, &count, &rid), 0);
    assert_int_equal(count, 2);
    assert_true(rid > 0);
    /* states; delete refused with submissions */
    assert_int_equal(store_problem_set_state(s, "p", "archived", 5), 0);
    assert_int_equal(store_problem_current(s, "p", &v), 0);
    assert_string_equal(v.state, "archived");
    assert_int_equal(store_problem_delete(s, "p"), STORE_EXISTS);
    /* accounts: import (a duplicate, whatever its case, exists), names,
     * password with its sessions */
    assert_int_equal(store_user_import(s, "carol", "h", "S1", "Carol", 40), 0);
    assert_int_equal(store_user_import(s, "CAROL", "h", NULL, NULL, 40), STORE_EXISTS);
    assert_int_equal(store_user_set_names(s, "Carol", "S2", NULL), 0);
    assert_int_equal(store_user_set_names(s, "nobody", "S2", NULL), STORE_NOT_FOUND);
    assert_int_equal(store_user_by_name(s, "carol", &u), 0);
    assert_string_equal(u.student_id, "S2");
    assert_true(u.must_change_password);
    assert_int_equal(store_session_create(s, "t1", u.id, 1, 1000), 0);
    assert_int_equal(store_session_create(s, "t2", u.id, 1, 1000), 0);
    int ended = 0;
    assert_int_equal(store_user_set_password(s, u.id, "h2", false, "t1", &ended), 0);
    assert_int_equal(ended, 1);
    n = 0;
    assert_int_equal(store_students(s, 0, count_student, &n), 0);
    assert_int_equal(n, 3);
    /* assignments: a taken slug exists, an unknown problem is named */
    struct store_assignment a = {.slug = "a1", .title = "A", .due_at = 10, .cutoff_at = 10};
    const char *probs[] = {"p"}, *bad[] = {"nope"};
    char badname[80];
    assert_int_equal(store_assignment_put(s, NULL, &a, probs, 1, alice, 1, badname, 80), 0);
    assert_int_equal(store_assignment_put(s, NULL, &a, probs, 1, alice, 1, badname, 80),
                     STORE_EXISTS);
    snprintf(a.slug, sizeof a.slug, "a2");
    assert_int_equal(store_assignment_put(s, NULL, &a, bad, 1, alice, 1, badname, 80),
                     STORE_NOT_FOUND);
    assert_string_equal(badname, "nope");
    assert_int_equal(store_assignment_delete(s, "a1"), 0);
    /* drafts: revisions, a stale save */
    assert_int_equal(store_draft_put(s, bob, "p", "d1", 2, 0, 50, &rev), 0);
    assert_int_equal(rev, 1);
    assert_int_equal(store_draft_put(s, bob, "p", "d2", 2, 1, 51, &rev), 0);
    assert_int_equal(rev, 2);
    assert_int_equal(store_draft_put(s, bob, "p", "d3", 2, 1, 52, &rev), STORE_STALE);
    struct store_draft d;
    assert_int_equal(store_draft_get(s, bob, "p", &d), 0);
    assert_string_equal(d.source, "d2");
    store_draft_free(&d);
    assert_int_equal(store_draft_delete(s, bob, "p"), 0);
    /* queue statistics read on both (avg is numeric on PostgreSQL) */
    int64_t judging = -1;
    double mean = -1;
    assert_int_equal(store_queue_stats(s, &judging, &mean), 0);
    assert_int_equal(judging, 0);
    store_close(s);
}

/* New work is announced: on PostgreSQL a listening connection hears a
 * submission, a rejudge, a claim handed back made on another connection
 * (NOTIFY); SQLite announces nothing (the queue watches its log). */
static void test_store_announce(void **state)
{
    int64_t uid, id;
    int version, n = 0;
    char err[STORE_ERR_LEN];
    struct store_claim c;
    struct store *s = fresh_store(state, "announce", &uid);
    struct store *l = store_open(cur_url, false, err, sizeof err);
    assert_non_null(l);
    if (!is_pg(state)) {
        assert_int_equal(store_queue_listen(l), 0);
        store_close(l);
        store_close(s);
        return;
    }
    assert_int_equal(store_queue_listen(l), 1);
    assert_int_equal(store_queue_wait(l, 0), 0); /* nothing yet */
    assert_int_equal(store_submission_create(s, uid, "p", "x", 1, &roomy, 5, &id, &version), 0);
    assert_int_equal(store_queue_wait(l, 5000), 1);
    assert_int_equal(store_submission_claim(s, 6, &c), 0);
    assert_int_equal(store_queue_wait(l, 0), 0); /* a claim makes no work */
    assert_int_equal(store_submission_requeue(s, 0, 0, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_queue_wait(l, 5000), 1);
    store_claim_free(&c);
    store_close(l);
    store_close(s);
}

/* Two connections claiming at once take every row exactly once (on
 * PostgreSQL side by side, FOR UPDATE SKIP LOCKED). */
#define RACE_ROWS 60
struct racer {
    struct store *s;
    int taken[RACE_ROWS + 1];
    int64_t first;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    struct store_claim c;
    for (;;) {
        int rc = store_submission_claim(r->s, 100, &c);
        if (rc == STORE_NOT_FOUND)
            break;
        if (rc != 0) {
            if (store_error_transient(r->s))
                continue;
            fprintf(stderr, "claim: %s\n", store_error(r->s));
            break;
        }
        r->taken[c.id - r->first]++;
        store_claim_free(&c);
    }
    return NULL;
}

static void test_store_concurrent_claims(void **state)
{
    int64_t uid, bob;
    char err[STORE_ERR_LEN];
    struct racer a = {0}, b = {0};
    a.s = fresh_store(state, "race", &uid);
    assert_int_equal(store_user_create(a.s, "bob", "x", "student", 1, &bob), 0);
    a.first = b.first = submit_n(a.s, uid, RACE_ROWS / 2, 1);
    submit_n(a.s, bob, RACE_ROWS / 2, 1);
    b.s = store_open(cur_url, false, err, sizeof err);
    assert_non_null(b.s);
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, race, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, race, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    for (int i = 0; i < RACE_ROWS; i++)
        if (a.taken[i] + b.taken[i] != 1)
            fail_msg("row %d claimed %d times", i, a.taken[i] + b.taken[i]);
    store_close(a.s);
    store_close(b.s);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A store case on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL). */
#define PG_CASE(f) cmocka_unit_test_prestate(f, &on_pg)

int main(void)
{
    pg_url = getenv("ATTNJUDGE_TEST_PG_URL");
    if (pg_url && !*pg_url)
        pg_url = NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_hash_and_verify),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_usernames),
        cmocka_unit_test(test_ratelimit),
        cmocka_unit_test(test_ratelimit_refund),
        cmocka_unit_test(test_device_cookies),
        cmocka_unit_test(test_client_address),
        cmocka_unit_test(test_client_is_loopback),
        cmocka_unit_test(test_proxies_parse),
        cmocka_unit_test(test_origin),
        cmocka_unit_test(test_config_source_limit),
        cmocka_unit_test(test_store_verdicts_are_the_judges),
        cmocka_unit_test(test_config_public_url),
        cmocka_unit_test(test_config_workers),
        cmocka_unit_test(test_store_users_and_sessions),
        cmocka_unit_test(test_store_claim_discipline),
        cmocka_unit_test(test_store_leases),
        cmocka_unit_test(test_store_queue_full),
        cmocka_unit_test(test_store_user_limit),
        cmocka_unit_test(test_store_round_robin),
        cmocka_unit_test(test_store_queue_order_is_claim_order),
        cmocka_unit_test(test_store_claim_source),
        cmocka_unit_test(test_store_cancel),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_store_retry_backoff),
        cmocka_unit_test(test_store_migration_keeps_rows),
        cmocka_unit_test(test_store_migration_4),
        cmocka_unit_test(test_store_migration_5),
        cmocka_unit_test(test_store_hints),
        cmocka_unit_test(test_store_packages),
        cmocka_unit_test(test_queue_live_workers),
        cmocka_unit_test(test_store_course),
        cmocka_unit_test(test_store_concurrent_claims),
        cmocka_unit_test(test_store_announce),
        /* the same on PostgreSQL; the migration cases start from SQLite
         * files of old versions, and test_queue_live_workers and the
         * vocabulary case read SQLite's files: those stay SQLite's */
        PG_CASE(test_store_users_and_sessions),
        PG_CASE(test_store_claim_discipline),
        PG_CASE(test_store_leases),
        PG_CASE(test_store_queue_full),
        PG_CASE(test_store_user_limit),
        PG_CASE(test_store_round_robin),
        PG_CASE(test_store_queue_order_is_claim_order),
        PG_CASE(test_store_claim_source),
        PG_CASE(test_store_cancel),
        PG_CASE(test_store_retry_backoff),
        PG_CASE(test_store_hints),
        PG_CASE(test_store_packages),
        PG_CASE(test_store_course),
        PG_CASE(test_store_concurrent_claims),
        PG_CASE(test_store_announce),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
