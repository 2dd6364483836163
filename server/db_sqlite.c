/*
 * db_sqlite — the SQLite backend of server/db.h.
 *
 * A thin layer: SQLite already speaks ?-placeholders, typed columns and
 * NULL the way db.h promises. What it adds is the error classes (BUSY and
 * LOCKED are transient: another connection holds the write lock past the
 * busy timeout; a UNIQUE or PRIMARY KEY constraint is DB_UNIQUE), BEGIN
 * IMMEDIATE for db_begin, and the no-op notifications (one process: a
 * waiting worker just sleeps its timeout).
 */
#include "server/db_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "server/sqlite_fdpath.h"

struct sq_db {
    struct db base;
    sqlite3 *h;
};

struct sq_stmt {
    struct db_stmt base;
    sqlite3_stmt *st;
};

static sqlite3 *handle(struct db *db)
{
    return ((struct sq_db *)db)->h;
}

static sqlite3_stmt *stmt(struct db_stmt *st)
{
    return ((struct sq_stmt *)st)->st;
}

static enum db_errclass classify(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return DB_TRANSIENT;
    case SQLITE_CONSTRAINT:
        return rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY ? DB_UNIQUE
                                                                                    : DB_FAILED;
    default: return DB_FAILED;
    }
}

/* Records SQLite's last failure on db: -1. */
static int fail(struct db *db, const char *what)
{
    sqlite3 *h = handle(db);
    return db_fail(db, classify(sqlite3_extended_errcode(h)), "%s: %s", what, sqlite3_errmsg(h));
}

static void sq_close(struct db *db)
{
    sqlite3_close(handle(db));
    free(db);
}

static int sq_exec(struct db *db, const char *script)
{
    char *msg = NULL;
    if (sqlite3_exec(handle(db), script, NULL, NULL, &msg) != SQLITE_OK) {
        db_fail(db, classify(sqlite3_extended_errcode(handle(db))), "%s",
                msg ? msg : sqlite3_errmsg(handle(db)));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static struct db_stmt *sq_prepare(struct db *db, const char *sql)
{
    struct sq_stmt *st = calloc(1, sizeof *st);
    if (!st) {
        db_fail(db, DB_FAILED, "prepare: out of memory");
        return NULL;
    }
    st->base.db = db;
    if (sqlite3_prepare_v3(handle(db), sql, -1, SQLITE_PREPARE_PERSISTENT, &st->st, NULL) !=
        SQLITE_OK) {
        fail(db, "prepare");
        sqlite3_finalize(st->st);
        free(st);
        return NULL;
    }
    return &st->base;
}

static void sq_finalize(struct db_stmt *st)
{
    sqlite3_finalize(stmt(st));
    free(st);
}

static int sq_bind(struct db_stmt *st, int i, const struct db_value *v)
{
    sqlite3_stmt *s = stmt(st);
    int rc;
    switch (v->type) {
    case DB_T_INT64: rc = sqlite3_bind_int64(s, i, v->i); break;
    case DB_T_DOUBLE: rc = sqlite3_bind_double(s, i, v->d); break;
    case DB_T_TEXT:
        rc = sqlite3_bind_text64(s, i, v->p, v->n, SQLITE_TRANSIENT, SQLITE_UTF8);
        break;
    case DB_T_BLOB: rc = sqlite3_bind_blob64(s, i, v->p, v->n, SQLITE_TRANSIENT); break;
    default: rc = sqlite3_bind_null(s, i); break;
    }
    return rc == SQLITE_OK ? 0 : fail(st->db, "bind");
}

static int sq_step(struct db_stmt *st)
{
    int rc = sqlite3_step(stmt(st));
    if (rc == SQLITE_ROW)
        return DB_ROW;
    if (rc == SQLITE_DONE) {
        if (!sqlite3_stmt_readonly(stmt(st)))
            st->db->changes = sqlite3_changes64(handle(st->db));
        return DB_DONE;
    }
    return fail(st->db, "step");
}

static void sq_reset(struct db_stmt *st)
{
    sqlite3_reset(stmt(st));
    sqlite3_clear_bindings(stmt(st));
}

static bool sq_column_null(struct db_stmt *st, int col)
{
    return sqlite3_column_type(stmt(st), col) == SQLITE_NULL;
}

static int64_t sq_column_int64(struct db_stmt *st, int col)
{
    return sqlite3_column_int64(stmt(st), col);
}

static double sq_column_double(struct db_stmt *st, int col)
{
    return sqlite3_column_double(stmt(st), col);
}

static const char *sq_column_text(struct db_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(stmt(st), col);
}

static const void *sq_column_blob(struct db_stmt *st, int col, size_t *n)
{
    const void *p = sqlite3_column_blob(stmt(st), col);
    *n = (size_t)sqlite3_column_bytes(stmt(st), col);
    /* an empty blob reads as NULL from SQLite; db.h tells it from NULL */
    if (!p && !sq_column_null(st, col))
        p = "";
    return p;
}

static int sq_begin(struct db *db, bool alone)
{
    /* IMMEDIATE: the write lock up front, so two writers queue on the busy
     * timeout instead of deadlocking on a read-to-write upgrade; one
     * writer at a time, alone or not */
    (void)alone;
    return sq_exec(db, "BEGIN IMMEDIATE");
}

static int sq_commit(struct db *db)
{
    return sq_exec(db, "COMMIT");
}

static void sq_rollback(struct db *db)
{
    /* the error that led here stays in db->err; nothing to do outside a
     * transaction (the store's pool rolls back every connection it gets
     * back) */
    if (!sqlite3_get_autocommit(handle(db)))
        sqlite3_exec(handle(db), "ROLLBACK", NULL, NULL, NULL);
}

static int sq_reconnect(struct db *db)
{
    (void)db;
    return 0;
}

static int sq_listen(struct db *db, const char *channel)
{
    (void)db;
    (void)channel;
    return 0;
}

static int sq_notify(struct db *db, const char *channel, const char *payload)
{
    (void)db;
    (void)channel;
    (void)payload;
    return 0;
}

/* Nothing can arrive: sleeps the timeout, so a caller's loop polls. */
static int sq_wait_notify(struct db *db, int timeout_ms, char *channel, size_t len)
{
    (void)db;
    (void)channel;
    (void)len;
    struct timespec t = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
    return 0;
}

static const struct db_ops sqlite_ops = {
    .close = sq_close,
    .exec = sq_exec,
    .prepare = sq_prepare,
    .finalize = sq_finalize,
    .bind = sq_bind,
    .step = sq_step,
    .reset = sq_reset,
    .column_null = sq_column_null,
    .column_int64 = sq_column_int64,
    .column_double = sq_column_double,
    .column_text = sq_column_text,
    .column_blob = sq_column_blob,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .reconnect = sq_reconnect,
    .listen = sq_listen,
    .notify = sq_notify,
    .wait_notify = sq_wait_notify,
};

struct db *db_sqlite_open(const char *path, char *err, size_t errlen)
{
    struct sq_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    db->base.ops = &sqlite_ops;
    db->base.backend = DB_SQLITE;
    /* a data directory used through its descriptor (privilege.h) */
    int rc = sqlite3_open_v2(path, &db->h,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             sqlite_fdpath_vfs(path));
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(db->h, 1);
        /* a writer waits up to 5 s for the lock before DB_TRANSIENT */
        rc = sqlite3_busy_timeout(db->h, 5000);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db->h ? sqlite3_errmsg(db->h) : "cannot open");
        sqlite3_close(db->h);
        free(db);
        return NULL;
    }
    return &db->base;
}
