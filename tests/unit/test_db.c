/*
 * Unit tests of the database driver (server/db.h): every case runs twice,
 * on SQLite (a temporary file, always) and on PostgreSQL (the database
 * ATTNJUDGE_TEST_PG_URL names; skipped without it — the pg suite,
 * tests/pg/run.sh, starts a throw-away server and sets it). Each case opens
 * two connections to the same database, as two server threads would.
 *
 * Covered: ?-placeholders (numbered, reused, inside literals and
 * comments), every parameter and column type with NULL, NUL bytes in
 * blobs and the int64 extremes, scripts, commit and rollback, a unique
 * violation (not transient, readable, the connection still usable), a busy
 * database (SQLite) and a lost connection (PostgreSQL) as transient and
 * recovered, write transactions one at a time (and concurrent ones beside
 * them on PostgreSQL), LISTEN / NOTIFY across connections and the wait's
 * timeout, and two connections claiming rows concurrently never taking
 * one twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "server/db.h"
#include "server/db_impl.h"
#include "server/pq.h"
#include "util/clock.h"

struct fx {
    enum db_backend backend;
    struct db *a, *b; /* two connections to one database; NULL: skipped */
    char path[64];    /* the SQLite file */
    char url[128];
};

/* ---- fixtures ---- */

static void unlink_sqlite(const char *path)
{
    char p[96];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

static int setup_sqlite(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    char err[256];
    assert_non_null(f);
    f->backend = DB_SQLITE;
    snprintf(f->path, sizeof f->path, "/tmp/attnjudge-dbtest.XXXXXX");
    int fd = mkstemp(f->path);
    assert_true(fd >= 0);
    close(fd);
    snprintf(f->url, sizeof f->url, "sqlite:%s", f->path);
    f->a = db_open(f->url, err, sizeof err);
    if (!f->a)
        fail_msg("%s", err);
    f->b = db_open(f->path, err, sizeof err); /* a bare path is SQLite too */
    if (!f->b)
        fail_msg("%s", err);
    /* as the store does: readers beside one writer */
    assert_int_equal(db_exec(f->a, "PRAGMA journal_mode = WAL"), 0);
    *state = f;
    return 0;
}

static int setup_pg(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    char err[256];
    assert_non_null(f);
    f->backend = DB_POSTGRESQL;
    *state = f;
    const char *url = getenv("ATTNJUDGE_TEST_PG_URL");
    if (!url || !*url)
        return 0;
    snprintf(f->url, sizeof f->url, "%s", url);
    f->a = db_open(url, err, sizeof err);
    if (!f->a)
        fail_msg("%s", err);
    f->b = db_open(url, err, sizeof err);
    if (!f->b)
        fail_msg("%s", err);
    if (db_exec(f->a, "DROP TABLE IF EXISTS t, u, jobs, a CASCADE") < 0)
        fail_msg("%s", db_error(f->a));
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    db_close(f->a);
    db_close(f->b);
    if (f->backend == DB_SQLITE)
        unlink_sqlite(f->path);
    free(f);
    return 0;
}

/* The fixture, or the case is skipped (PostgreSQL without a server). */
static struct fx *fixture(void **state)
{
    struct fx *f = *state;
    if (!f->a) {
        skip();
    }
    return f;
}

/* ---- helpers ---- */

/* Fails the case with the connection's message unless rc is 0. */
#define OK(db, rc)                                                                                 \
    do {                                                                                           \
        if ((rc) != 0)                                                                             \
            fail_msg("%s: %s", #rc, db_error(db));                                                 \
    } while (0)

/* Steps st and fails the case with its connection's message unless the
 * answer is want (the head of a statement is in db_impl.h). */
#define STEP(st, want)                                                                             \
    do {                                                                                           \
        int step_rc_ = db_step(st);                                                                \
        if (step_rc_ != (want))                                                                    \
            fail_msg("step %d, not %d: %s", step_rc_, (want), db_error((st)->db));                 \
    } while (0)

static struct db_stmt *prep(struct db *db, const char *sql)
{
    struct db_stmt *st = db_prepare(db, sql);
    if (!st)
        fail_msg("prepare %s: %s", sql, db_error(db));
    return st;
}

/* Runs sql (at most one int64 parameter, when nparams is 1) to its end. */
static void run(struct db *db, const char *sql)
{
    struct db_stmt *st = prep(db, sql);
    int rc;
    while ((rc = db_step(st)) == DB_ROW)
        ;
    if (rc != DB_DONE)
        fail_msg("%s: %s", sql, db_error(db));
    db_finalize(st);
}

/* The first column of the first row of sql, an integer. */
static int64_t scalar(struct db *db, const char *sql)
{
    struct db_stmt *st = prep(db, sql);
    if (db_step(st) != DB_ROW)
        fail_msg("%s: no row: %s", sql, db_error(db));
    int64_t v = db_column_int64(st, 0);
    db_finalize(st);
    return v;
}

/* The backend's spelling of a statement that differs (DDL, locking). */
static const char *dialect(const struct fx *f, const char *sqlite, const char *pg)
{
    return f->backend == DB_SQLITE ? sqlite : pg;
}

/* ---- placeholders rewritten for PostgreSQL (no database) ---- */

static void expect_rewrite(const char *in, const char *out, int n)
{
    int got = -1;
    char *s = db_pg_placeholders(in, &got);
    assert_non_null(s);
    assert_string_equal(s, out);
    assert_int_equal(got, n);
    free(s);
}

static void test_rewrite(void **state)
{
    (void)state;
    expect_rewrite("SELECT 1", "SELECT 1", 0);
    expect_rewrite("SELECT ?, ?", "SELECT $1, $2", 2);
    /* ?N is that parameter; a bare ? is one more than the highest so far */
    expect_rewrite("?2 = 0 OR id = ?2 AND ?", "$2 = 0 OR id = $2 AND $3", 3);
    expect_rewrite("SELECT '?', 'it''s ?', \"?\", ?", "SELECT '?', 'it''s ?', \"?\", $1", 1);
    expect_rewrite("SELECT E'\\'?' , ?", "SELECT E'\\'?' , $1", 1);
    expect_rewrite("SELECT ? -- a ? here\n, ? /* and ? here */ , ?",
                   "SELECT $1 -- a ? here\n, $2 /* and ? here */ , $3", 3);
    expect_rewrite("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0);
    int n;
    assert_null(db_pg_placeholders("SELECT ?0", &n));
    assert_null(db_pg_placeholders("SELECT ?70000", &n));
}

static void test_open_errors(void **state)
{
    (void)state;
    char err[256];
    assert_null(db_open("", err, sizeof err));
    assert_null(db_open("sqlite:", err, sizeof err));
    assert_null(db_open("sqlite:/nonexistent/dir/x.db", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/dir/x.db"));
    /* a port nothing listens on: refused at once, with libpq's reason */
    assert_null(db_open("postgresql://nobody@127.0.0.1:1/x", err, sizeof err));
    assert_non_null(strstr(err, "postgresql: "));
}

/* libpq is loaded with the first PostgreSQL connection (server/pq.h): a
 * library that cannot be loaded is a clear error saying what to install,
 * and is tried again later; a loaded one is loaded once */
static void test_pq_load(void **state)
{
    (void)state;
    char err[512] = "";
    assert_null(pq_load("libattnjudge-no-such-library.so.0", err, sizeof err));
    assert_non_null(strstr(err, "cannot load libattnjudge-no-such-library.so.0"));
    assert_non_null(strstr(err, "apt-get install libpq5"));
    const struct pq_api *api = pq_load(PQ_LIBRARY, err, sizeof err);
    assert_non_null(api);
    assert_non_null(api->PQconnectdbParams);
    assert_non_null(api->PQunescapeBytea);
    assert_ptr_equal(pq_load(PQ_LIBRARY, err, sizeof err), api);
}

/* ---- cases run on both backends ---- */

static void test_placeholders(void **state)
{
    struct fx *f = fixture(state);
    struct db_stmt *st = prep(f->a, "SELECT ?1 + 0, 'a?b', ?2, ?1 * 2 /* ? */, 'it''s ?' -- ?\n");
    OK(f->a, db_bind_int64(st, 1, 20));
    OK(f->a, db_bind_text(st, 2, "x?"));
    STEP(st, DB_ROW);
    assert_int_equal(db_column_int64(st, 0), 20);
    assert_string_equal(db_column_text(st, 1), "a?b");
    assert_string_equal(db_column_text(st, 2), "x?");
    assert_int_equal(db_column_int64(st, 3), 40);
    assert_string_equal(db_column_text(st, 4), "it's ?");
    STEP(st, DB_DONE);
    /* reset clears the parameters: run again with others */
    db_reset(st);
    OK(f->a, db_bind_int64(st, 1, -3));
    OK(f->a, db_bind_text(st, 2, "y"));
    STEP(st, DB_ROW);
    assert_int_equal(db_column_int64(st, 3), -6);
    assert_string_equal(db_column_text(st, 2), "y");
    /* text given by its length: only those bytes; a NUL among them fails */
    db_reset(st);
    OK(f->a, db_bind_int64(st, 1, 1));
    OK(f->a, db_bind_textn(st, 2, "abcdef", 3));
    STEP(st, DB_ROW);
    assert_string_equal(db_column_text(st, 2), "abc");
    db_reset(st);
    assert_int_equal(db_bind_textn(st, 2, "ab\0cd", 5), -1);
    assert_non_null(strstr(db_error(f->a), "NUL"));
    /* a parameter that is not there */
    assert_int_equal(db_bind_int64(st, 3, 1), -1);
    db_finalize(st);
}

static void test_types(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, dialect(f,
                                   "CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, d REAL,"
                                   " s TEXT, b BLOB, n TEXT)",
                                   "CREATE TABLE t (k BIGINT PRIMARY KEY, i BIGINT,"
                                   " d DOUBLE PRECISION, s TEXT, b BYTEA, n TEXT)")));
    static const unsigned char bytes[] = {0, 1, 0, 'x', 0xff, 0, '\\', 'x'};
    struct db_stmt *ins = prep(f->a, "INSERT INTO t (k, i, d, s, b, n) VALUES (?, ?, ?, ?, ?, ?)");
    OK(f->a, db_bind_int64(ins, 1, 1));
    OK(f->a, db_bind_int64(ins, 2, INT64_MIN));
    OK(f->a, db_bind_double(ins, 3, 0.1));
    OK(f->a, db_bind_text(ins, 4, "h\xc3\xa9llo 'quoted' \\ ?"));
    OK(f->a, db_bind_blob(ins, 5, bytes, sizeof bytes));
    OK(f->a, db_bind_null(ins, 6));
    STEP(ins, DB_DONE);
    assert_int_equal(db_changes(f->a), 1);
    db_reset(ins);
    OK(f->a, db_bind_int64(ins, 1, 2));
    OK(f->a, db_bind_int64(ins, 2, INT64_MAX));
    OK(f->a, db_bind_double(ins, 3, -1.5e300));
    OK(f->a, db_bind_text(ins, 4, ""));
    OK(f->a, db_bind_blob(ins, 5, NULL, 0));
    OK(f->a, db_bind_text(ins, 6, NULL)); /* NULL text binds NULL */
    STEP(ins, DB_DONE);
    db_reset(ins);
    OK(f->a, db_bind_int64(ins, 1, 3)); /* the rest never bound: NULL */
    STEP(ins, DB_DONE);
    db_finalize(ins);

    /* read from the other connection */
    struct db_stmt *sel = prep(f->b, "SELECT i, d, s, b, n FROM t ORDER BY k");
    size_t n = 99;
    STEP(sel, DB_ROW);
    assert_true(db_column_int64(sel, 0) == INT64_MIN);
    assert_true(db_column_double(sel, 1) == 0.1);
    assert_string_equal(db_column_text(sel, 2), "h\xc3\xa9llo 'quoted' \\ ?");
    const unsigned char *p = db_column_blob(sel, 3, &n);
    assert_int_equal(n, sizeof bytes);
    assert_memory_equal(p, bytes, sizeof bytes);
    p = db_column_blob(sel, 3, &n); /* asked twice: the same bytes */
    assert_int_equal(n, sizeof bytes);
    assert_memory_equal(p, bytes, sizeof bytes);
    assert_true(db_column_null(sel, 4));
    assert_null(db_column_text(sel, 4));
    assert_int_equal(db_column_int64(sel, 4), 0);
    assert_true(db_column_double(sel, 4) == 0.0);
    assert_false(db_column_null(sel, 0));
    /* a text column's bytes, as a blob */
    p = db_column_blob(sel, 2, &n);
    assert_int_equal(n, strlen("h\xc3\xa9llo 'quoted' \\ ?"));

    STEP(sel, DB_ROW);
    assert_true(db_column_int64(sel, 0) == INT64_MAX);
    assert_true(db_column_double(sel, 1) == -1.5e300);
    assert_string_equal(db_column_text(sel, 2), "");
    assert_false(db_column_null(sel, 2));
    p = db_column_blob(sel, 3, &n); /* empty, yet not NULL */
    assert_non_null(p);
    assert_int_equal(n, 0);
    assert_true(db_column_null(sel, 4));

    STEP(sel, DB_ROW);
    for (int c = 0; c < 5; c++)
        assert_true(db_column_null(sel, c));
    assert_null(db_column_blob(sel, 3, &n));
    STEP(sel, DB_DONE);
    db_finalize(sel);

    /* comparisons read as 1 and 0 (PostgreSQL's booleans too); a NULL
     * comparison is NULL */
    sel = prep(f->a, "SELECT 1 = 1, 1 = 2, NULL IS NULL, NULL = 1, count(*) FROM t");
    STEP(sel, DB_ROW);
    assert_int_equal(db_column_int64(sel, 0), 1);
    assert_int_equal(db_column_int64(sel, 1), 0);
    assert_true(db_column_double(sel, 2) == 1.0);
    assert_true(db_column_null(sel, 3));
    assert_int_equal(db_column_int64(sel, 4), 3);
    db_finalize(sel);

    /* the same statement with other types at the same place (an int64 where
     * a NULL was, then text): PostgreSQL prepares it again */
    sel = prep(f->a, "SELECT count(*) FROM t WHERE i = ? OR s = ?");
    OK(f->a, db_bind_null(sel, 1));
    OK(f->a, db_bind_text(sel, 2, ""));
    STEP(sel, DB_ROW);
    assert_int_equal(db_column_int64(sel, 0), 1);
    db_reset(sel);
    OK(f->a, db_bind_int64(sel, 1, INT64_MIN));
    STEP(sel, DB_ROW);
    assert_int_equal(db_column_int64(sel, 0), 1);
    db_finalize(sel);
}

static void test_exec_script(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);"
                           " INSERT INTO a VALUES (2); -- a comment ending the script"));
    assert_int_equal(scalar(f->b, "SELECT sum(x) FROM a"), 3);
    assert_int_equal(db_exec(f->a, "INSERT INTO a VALUES (3); INSERT INTO nosuch VALUES (1)"), -1);
    assert_int_equal(db_errclass(f->a), DB_FAILED);
    assert_non_null(strstr(db_error(f->a), "nosuch"));
    /* the connection goes on */
    assert_true(scalar(f->a, "SELECT count(*) FROM a") >= 2);
}

static void test_transactions(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, "CREATE TABLE t (x INTEGER NOT NULL)"));
    struct db_stmt *ins = prep(f->a, "INSERT INTO t (x) VALUES (?)");

    OK(f->a, db_begin(f->a));
    OK(f->a, db_bind_int64(ins, 1, 1));
    STEP(ins, DB_DONE);
    db_reset(ins);
    assert_int_equal(scalar(f->b, "SELECT count(*) FROM t"), 0); /* not committed yet */
    /* one transaction at a time on a connection */
    assert_int_equal(db_begin(f->a), -1);
    OK(f->a, db_commit(f->a));
    assert_int_equal(scalar(f->b, "SELECT count(*) FROM t"), 1);

    OK(f->a, db_begin(f->a));
    OK(f->a, db_bind_int64(ins, 1, 2));
    STEP(ins, DB_DONE);
    db_reset(ins);
    db_rollback(f->a);
    assert_int_equal(scalar(f->a, "SELECT count(*) FROM t"), 1);
    assert_int_equal(scalar(f->b, "SELECT sum(x) FROM t"), 1);

    /* a failed statement, then rollback: nothing of the transaction stays */
    OK(f->a, db_begin(f->a));
    OK(f->a, db_bind_int64(ins, 1, 3));
    STEP(ins, DB_DONE);
    db_reset(ins);
    assert_int_equal(db_step(ins), -1); /* x NULL */
    db_reset(ins);
    db_rollback(f->a);
    assert_int_equal(scalar(f->b, "SELECT count(*) FROM t"), 1);

    /* nothing to commit is a mistake on both; a rollback is harmless */
    assert_int_equal(db_commit(f->a), -1);
    db_rollback(f->a);

    /* db_changes counts an UPDATE's rows; a SELECT leaves it alone */
    run(f->a, "INSERT INTO t (x) VALUES (5)");
    run(f->a, "UPDATE t SET x = x + 1");
    assert_int_equal(db_changes(f->a), 2);
    run(f->a, "SELECT * FROM t");
    assert_int_equal(db_changes(f->a), 2);
    run(f->a, "DELETE FROM t WHERE x > 100");
    assert_int_equal(db_changes(f->a), 0);
    db_finalize(ins);
}

static void test_unique_violation(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, "CREATE TABLE u (name TEXT NOT NULL UNIQUE)"));
    struct db_stmt *ins = prep(f->a, "INSERT INTO u (name) VALUES (?)");
    OK(f->a, db_bind_text(ins, 1, "ada"));
    STEP(ins, DB_DONE);
    db_reset(ins);
    OK(f->a, db_bind_text(ins, 1, "ada"));
    assert_int_equal(db_step(ins), -1);
    assert_int_equal(db_errclass(f->a), DB_UNIQUE);
    assert_true(db_errclass(f->a) != DB_TRANSIENT);
    assert_non_null(strcasestr(db_error(f->a), "unique"));
    db_reset(ins);
    /* the statement and the connection go on */
    OK(f->a, db_bind_text(ins, 1, "grace"));
    STEP(ins, DB_DONE);
    db_finalize(ins);
    assert_int_equal(scalar(f->a, "SELECT count(*) FROM u"), 2);

    /* a syntax error is DB_FAILED (PostgreSQL reports it at the step) */
    struct db_stmt *bad = db_prepare(f->a, "SELEC 1");
    if (bad) {
        assert_int_equal(db_step(bad), -1);
        db_finalize(bad);
    }
    assert_int_equal(db_errclass(f->a), DB_FAILED);
    assert_non_null(strstr(db_error(f->a), "SELEC"));
}

/* SQLite: another connection holds the write lock past the busy timeout
 * (5 s). PostgreSQL: the server ends the connection (as a restart or a
 * failover would), inside and outside a transaction. */
static void test_transient(void **state)
{
    struct fx *f = fixture(state);
    if (f->backend == DB_SQLITE) {
        OK(f->a, db_exec(f->a, "CREATE TABLE t (x INTEGER)"));
        OK(f->a, db_begin(f->a));
        run(f->a, "INSERT INTO t VALUES (1)");
        assert_int_equal(db_begin(f->b), -1);
        assert_int_equal(db_errclass(f->b), DB_TRANSIENT);
        db_rollback(f->a);
        OK(f->b, db_begin(f->b));
        db_rollback(f->b);
        return;
    }
    struct db_stmt *st = prep(f->a, "SELECT ?1 + 1");
    OK(f->a, db_bind_int64(st, 1, 41));
    STEP(st, DB_ROW);
    db_reset(st);

    for (int round = 0; round < 3; round++) {
        int64_t pid = scalar(f->a, "SELECT pg_backend_pid()");
        if (round == 2)
            OK(f->a, db_begin(f->a));
        struct db_stmt *kill = prep(f->b, "SELECT pg_terminate_backend(CAST(? AS INTEGER))");
        OK(f->b, db_bind_int64(kill, 1, pid));
        STEP(kill, DB_ROW);
        assert_int_equal(db_column_int64(kill, 0), 1);
        db_finalize(kill);
        /* the connection's next statement fails, and says "try again" */
        OK(f->a, db_bind_int64(st, 1, 41));
        assert_int_equal(db_step(st), -1);
        assert_int_equal(db_errclass(f->a), DB_TRANSIENT);
        db_reset(st);
        if (round == 0) {
            OK(f->a, db_reconnect(f->a)); /* by hand */
        } else if (round == 2) {
            /* inside a transaction: nothing runs until the rollback */
            OK(f->a, db_bind_int64(st, 1, 41));
            assert_int_equal(db_step(st), -1);
            assert_int_equal(db_errclass(f->a), DB_TRANSIENT);
            assert_int_equal(db_commit(f->a), -1);
            db_reset(st);
            db_rollback(f->a);
        }
        /* round 1: the next statement reconnects by itself */
        OK(f->a, db_bind_int64(st, 1, 41));
        STEP(st, DB_ROW);
        assert_int_equal(db_column_int64(st, 0), 42);
        db_reset(st);
        assert_true(scalar(f->a, "SELECT pg_backend_pid()") != pid);
    }
    db_finalize(st);
}

static void test_notify(void **state)
{
    struct fx *f = fixture(state);
    char channel[64];
    OK(f->a, db_listen(f->a, "attnjudge_jobs"));
    assert_int_equal(db_listen(f->a, "Bad name"), -1);
    assert_int_equal(db_notify(f->b, "x; DROP TABLE t", NULL), -1);

    /* nothing sent: the wait times out */
    double t0 = clock_mono_ms();
    assert_int_equal(db_wait_notify(f->a, 150, channel, sizeof channel), 0);
    double waited = clock_mono_ms() - t0;
    assert_true(waited >= 140 && waited < 3000);
    assert_string_equal(channel, "");
    if (f->backend == DB_SQLITE) {
        OK(f->b, db_notify(f->b, "attnjudge_jobs", "1")); /* accepted, goes nowhere */
        assert_int_equal(db_wait_notify(f->a, 10, NULL, 0), 0);
        return;
    }

    OK(f->b, db_notify(f->b, "attnjudge_jobs", "42"));
    assert_int_equal(db_wait_notify(f->a, 5000, channel, sizeof channel), 1);
    assert_string_equal(channel, "attnjudge_jobs");
    assert_int_equal(db_wait_notify(f->a, 50, channel, sizeof channel), 0);

    /* sent inside a transaction: delivered at its commit */
    OK(f->b, db_begin(f->b));
    OK(f->b, db_notify(f->b, "attnjudge_jobs", NULL));
    assert_int_equal(db_wait_notify(f->a, 100, NULL, 0), 0);
    OK(f->b, db_commit(f->b));
    assert_int_equal(db_wait_notify(f->a, 5000, NULL, 0), 1);

    /* a notification that arrived while the listener ran a query waits in
     * libpq's buffer: found without waiting */
    OK(f->b, db_notify(f->b, "attnjudge_jobs", NULL));
    struct timespec ms100 = {0, 100000000};
    nanosleep(&ms100, NULL);
    assert_int_equal(scalar(f->a, "SELECT 1"), 1);
    assert_int_equal(db_wait_notify(f->a, 0, NULL, 0), 1);
    assert_int_equal(db_wait_notify(f->a, 0, NULL, 0), 0);
    /* one still in the socket: a zero timeout reads it too */
    OK(f->b, db_notify(f->b, "attnjudge_jobs", NULL));
    nanosleep(&ms100, NULL);
    assert_int_equal(db_wait_notify(f->a, 0, NULL, 0), 1);

    /* the LISTEN outlives a reconnect */
    struct db_stmt *kill = prep(f->b, "SELECT pg_terminate_backend(CAST(? AS INTEGER))");
    OK(f->b, db_bind_int64(kill, 1, scalar(f->a, "SELECT pg_backend_pid()")));
    STEP(kill, DB_ROW);
    db_finalize(kill);
    int r = db_wait_notify(f->a, 5000, NULL, 0);
    assert_int_equal(r, -1); /* the loss is reported: notifications may be lost */
    assert_int_equal(db_errclass(f->a), DB_TRANSIENT);
    OK(f->a, db_reconnect(f->a));
    OK(f->b, db_notify(f->b, "attnjudge_jobs", NULL));
    assert_int_equal(db_wait_notify(f->a, 5000, channel, sizeof channel), 1);
    assert_string_equal(channel, "attnjudge_jobs");
}

/* db_begin: one write transaction at a time, the second waits for the
 * first (SQLite's busy timeout; PostgreSQL's advisory lock). */
struct waiter {
    struct db *db;
    double started, began; /* ms, monotonic */
    int rc;
};

static void *begin_later(void *arg)
{
    struct waiter *w = arg;
    w->started = clock_mono_ms();
    w->rc = db_begin(w->db);
    w->began = clock_mono_ms();
    if (w->rc == 0) {
        struct db_stmt *st = db_prepare(w->db, "INSERT INTO t (x) VALUES (2)");
        if (!st || db_step(st) != DB_DONE || db_commit(w->db) != 0)
            w->rc = -1;
        db_finalize(st);
        if (w->rc)
            db_rollback(w->db);
    }
    return NULL;
}

static void test_write_lock(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, "CREATE TABLE t (x INTEGER NOT NULL)"));
    OK(f->a, db_begin(f->a));
    run(f->a, "INSERT INTO t (x) VALUES (1)");
    struct waiter w = {.db = f->b};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, begin_later, &w), 0);
    struct timespec ms300 = {0, 300000000};
    nanosleep(&ms300, NULL);
    OK(f->a, db_commit(f->a));
    assert_int_equal(pthread_join(t, NULL), 0);
    if (w.rc)
        fail_msg("%s", db_error(f->b));
    assert_true(w.began - w.started >= 250); /* it waited for a's commit */
    assert_int_equal(scalar(f->a, "SELECT count(*) FROM t"), 2);

    if (f->backend == DB_POSTGRESQL) {
        /* db_begin_concurrent does not wait for a db_begin */
        OK(f->a, db_begin(f->a));
        double t0 = clock_mono_ms();
        OK(f->b, db_begin_concurrent(f->b));
        assert_true(clock_mono_ms() - t0 < 250);
        run(f->b, "INSERT INTO t (x) VALUES (3)");
        OK(f->b, db_commit(f->b));
        db_rollback(f->a);
        assert_int_equal(scalar(f->a, "SELECT count(*) FROM t"), 3);
    }
}

/* ---- claims ---- */

#define JOBS 200

/* One worker: claims queued jobs on its own connection until none is left. */
struct claimer {
    struct db *db;
    const char *sql;
    int64_t got[JOBS];
    int n, errors;
    char err[DB_ERR_LEN];
};

static void *claim_loop(void *arg)
{
    struct claimer *c = arg;
    struct db_stmt *st = db_prepare(c->db, c->sql);
    int transient = 0;
    if (!st) {
        snprintf(c->err, sizeof c->err, "%s", db_error(c->db));
        c->errors++;
        return NULL;
    }
    for (;;) {
        int64_t id = 0;
        int rc = db_step(st);
        bool got = rc == DB_ROW;
        if (got) {
            id = db_column_int64(st, 0);
            rc = db_step(st);
        }
        db_reset(st);
        if (rc < 0) {
            /* busy (SQLite) or a serialization failure: the claim is
             * simply tried again, as a worker would */
            if (db_errclass(c->db) == DB_TRANSIENT && ++transient < 1000)
                continue;
            snprintf(c->err, sizeof c->err, "%s", db_error(c->db));
            c->errors++;
            break;
        }
        if (!got)
            break; /* nothing left */
        if (c->n < JOBS)
            c->got[c->n++] = id;
    }
    db_finalize(st);
    return NULL;
}

static void test_claims(void **state)
{
    struct fx *f = fixture(state);
    OK(f->a, db_exec(f->a, dialect(f,
                                   "CREATE TABLE jobs (id INTEGER PRIMARY KEY, status TEXT NOT"
                                   " NULL, claim INTEGER NOT NULL DEFAULT 0)",
                                   "CREATE TABLE jobs (id BIGINT PRIMARY KEY, status TEXT NOT"
                                   " NULL, claim BIGINT NOT NULL DEFAULT 0)")));
    OK(f->a, db_begin(f->a));
    struct db_stmt *ins = prep(f->a, "INSERT INTO jobs (id, status) VALUES (?, 'queued')");
    for (int i = 1; i <= JOBS; i++) {
        OK(f->a, db_bind_int64(ins, 1, i));
        STEP(ins, DB_DONE);
        db_reset(ins);
    }
    db_finalize(ins);
    OK(f->a, db_commit(f->a));

    /* the store's claim: one statement; on PostgreSQL the row is locked
     * and rows another claim holds are skipped, not waited for */
    const char *claim =
        dialect(f,
                "UPDATE jobs SET status = 'judging', claim = claim + 1 WHERE id ="
                " (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1) RETURNING id",
                "UPDATE jobs SET status = 'judging', claim = claim + 1 WHERE id ="
                " (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1"
                " FOR UPDATE SKIP LOCKED) RETURNING id");

    if (f->backend == DB_POSTGRESQL) {
        /* a and b claim inside concurrent transactions: b does not wait
         * for the row a holds, it takes the next one */
        OK(f->a, db_begin_concurrent(f->a));
        OK(f->b, db_begin_concurrent(f->b));
        struct db_stmt *ca = prep(f->a, claim);
        struct db_stmt *cb = prep(f->b, claim);
        STEP(ca, DB_ROW);
        int64_t first = db_column_int64(ca, 0);
        STEP(cb, DB_ROW);
        int64_t second = db_column_int64(cb, 0);
        assert_true(first != second);
        STEP(ca, DB_DONE);
        STEP(cb, DB_DONE);
        db_finalize(cb);
        db_finalize(ca);
        db_rollback(f->a); /* a's claim given back; b's stays */
        OK(f->b, db_commit(f->b));
        assert_int_equal(scalar(f->a, "SELECT count(*) FROM jobs WHERE status = 'judging'"), 1);
        assert_int_equal(scalar(f->a, "SELECT id FROM jobs WHERE status = 'judging'"), second);
        run(f->a, "UPDATE jobs SET status = 'queued', claim = 0");
    }

    /* two connections claiming at once: every job exactly once */
    struct claimer *c = calloc(2, sizeof *c);
    assert_non_null(c);
    c[0].db = f->a;
    c[1].db = f->b;
    c[0].sql = c[1].sql = claim;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, claim_loop, &c[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    if (c[0].errors || c[1].errors)
        fail_msg("claim: %s%s", c[0].err, c[1].err);
    static unsigned char seen[JOBS + 1];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < c[i].n; k++) {
            int64_t id = c[i].got[k];
            assert_true(id >= 1 && id <= JOBS);
            assert_int_equal(seen[id], 0); /* never claimed twice */
            seen[id] = 1;
        }
    assert_int_equal(c[0].n + c[1].n, JOBS);
    assert_int_equal(scalar(f->a, "SELECT count(*) FROM jobs WHERE claim = 1"), JOBS);
    free(c);
}

#define BOTH(fn)                                                                                   \
    {"sqlite: " #fn, fn, setup_sqlite, teardown, NULL},                                            \
    {                                                                                              \
        "postgresql: " #fn, fn, setup_pg, teardown, NULL                                           \
    }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rewrite),
        cmocka_unit_test(test_pq_load), /* first: before any connection loads libpq */
        cmocka_unit_test(test_open_errors),
        BOTH(test_placeholders),
        BOTH(test_types),
        BOTH(test_exec_script),
        BOTH(test_transactions),
        BOTH(test_unique_violation),
        BOTH(test_transient),
        BOTH(test_write_lock),
        BOTH(test_notify),
        BOTH(test_claims),
    };
    return cmocka_run_group_tests_name("db", tests, NULL, NULL);
}
