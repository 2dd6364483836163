/*
 * Unit tests of the store's schema and migrations (server/store.h): the
 * migration from a version-1 database keeps every row; migration 4 on a
 * database as version 3 left it; migration 5 through 4 from version 3; the
 * SQL CHECK on submissions.verdict is the judge's list of verdicts. On
 * SQLite files of the old versions (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sqlite3.h>

#include "judge/judge.h"
#include "server/store.h"

#include "fixture_db.h"

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
    snprintf(path, sizeof path, "%s/v1.db", fixture_dir);
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

static void test_store_migration_4(void **state)
{
    (void)state;
    char path[256], err[STORE_ERR_LEN];
    sqlite3 *db;
    int64_t at = 0;
    int opened = 0, hints = -1;
    struct store_walkthrough w;
    snprintf(path, sizeof path, "%s/v3.db", fixture_dir);
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
    snprintf(path, sizeof path, "%s/v3-for-5.db", fixture_dir);
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
    snprintf(path, sizeof path, "%s/vocabulary.db", fixture_dir);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_verdicts_are_the_judges),
        cmocka_unit_test(test_store_migration_keeps_rows),
        cmocka_unit_test(test_store_migration_4),
        cmocka_unit_test(test_store_migration_5),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
