/*
 * fixture_db — the store tests' database: a fresh SQLite file or
 * PostgreSQL schema per case, a store on it with one user and one problem,
 * and the few helpers several store test files share (fixture_db.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_db.h"
#include "server/db.h"
#include "server/store.h"

char fixture_dir[] = "/tmp/attnjudge-servertest.XXXXXX";

/* The store's cases run on SQLite and, given ATTNJUDGE_TEST_PG_URL (the pg
 * suite, tests/pg/run.sh), again on PostgreSQL: a case's state says which
 * (NULL: SQLite), and each PostgreSQL case gets a fresh schema of its own
 * (search_path in the URL), so the cases share one database. */
static const char *pg_url;
int fixture_on_pg = 1;
char fixture_url[512];

bool is_pg(void **state)
{
    return state && *state == &fixture_on_pg;
}

/* A fresh empty database named name for the case: a SQLite file, or a new
 * PostgreSQL schema (the case is skipped without a server). Its URL is
 * left in fixture_url. */
static void fresh_url(void **state, const char *name)
{
    char err[256], sql[256];
    if (!is_pg(state)) {
        snprintf(fixture_url, sizeof fixture_url, "%s/%s.db", fixture_dir, name);
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
    snprintf(fixture_url, sizeof fixture_url, "%s%soptions=-csearch_path%%3Dt_%s", pg_url,
             strchr(pg_url, '?') ? "&" : "?", name);
}

/* Runs script on the case's database (fixture_url), as an operator would. */
void exec_on_db(const char *script)
{
    char err[256];
    struct db *db = db_open(fixture_url, err, sizeof err);
    if (!db)
        fail_msg("%s", err);
    if (db_exec(db, script) < 0)
        fail_msg("%s: %s", script, db_error(db));
    db_close(db);
}

/* A fresh database with one user and one problem. */
struct store *fresh_store(void **state, const char *name, int64_t *user)
{
    char err[STORE_ERR_LEN];
    int version;
    fresh_url(state, name);
    struct store *s = store_open(fixture_url, false, err, sizeof err);
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

const struct store_queue_limits roomy = {1000, 1000};

const struct store_result accepted = {
    .verdict = "accepted", .score = 100, .report_json = "{\"verdict\":\"accepted\"}"};

/* Submits n sources for user at time t (ms), returning the first id. */
int64_t submit_n(struct store *s, int64_t user, int n, int64_t t)
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

/* store_submission_fn: the hints_opened of the one row read. */
int note_hints(void *arg, const struct store_submission_row *row)
{
    *(int *)arg = row->hints_opened;
    return 0;
}

int fixture_setup(void **state)
{
    (void)state;
    pg_url = getenv("ATTNJUDGE_TEST_PG_URL");
    if (pg_url && !*pg_url)
        pg_url = NULL;
    return mkdtemp(fixture_dir) ? 0 : -1;
}

int fixture_teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fixture_dir);
    return system(cmd) == 0 ? 0 : -1;
}
