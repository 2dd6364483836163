/*
 * db — one small SQL driver interface, two backends: SQLite and PostgreSQL.
 *
 * Theory of operation. The store writes each statement once and runs it on
 * whichever database the configuration names (`database = sqlite:PATH`, a
 * bare path, or `postgresql://...` / `postgres://...`). This header is the
 * whole contract both drivers keep (server/db_sqlite.c, server/db_pg.c);
 * docs/postgresql.md says how the SQL itself is kept portable.
 *
 * Connections. A `struct db` is one connection, used by one thread at a
 * time (as a `struct store` is). Statements belong to their connection and
 * are finalized before it is closed.
 *
 * Placeholders are written `?` (numbered from 1 in order) or `?N` (the
 * N-th parameter, reusable: `?1 = 0 OR id = ?1`), the SQLite syntax. The
 * PostgreSQL driver rewrites them to `$1..$n` once, at db_prepare, and
 * leaves alone a `?` inside a string literal ('...'), a quoted identifier
 * ("..."), or a comment. One spelling in the source means one statement
 * table for both backends, and no SQL is ever built from values.
 *
 * Values. Parameters are copied when bound (the caller's buffer may go
 * away); a parameter never bound is NULL. A text value is UTF-8 without
 * NUL bytes (PostgreSQL's text cannot hold NUL); bytes that may hold NUL
 * are a blob (BLOB / bytea). Columns: a NULL reads as 0 from the numeric
 * getters and as NULL from db_column_text / db_column_blob, so code that
 * must tell NULL from 0 asks db_column_null. A PostgreSQL boolean reads as
 * 1 or 0, as SQLite's comparisons do.
 *
 * Ownership. Text and blob pointers returned by db_column_* belong to the
 * statement and stay valid until its next db_step, db_reset or
 * db_finalize; copy what must outlive that. db_error's text belongs to the
 * connection and is valid until its next call.
 *
 * Errors. Every call that can fail returns -1 (or NULL) and leaves a
 * message in db_error and a class in db_errclass: DB_TRANSIENT means
 * "try again later" (SQLite busy or locked; PostgreSQL connection lost,
 * serialization failure, deadlock, server shutting down, lock timeout),
 * which an HTTP handler answers with 503 and a worker retries; DB_UNIQUE a
 * unique or primary-key violation (the store's STORE_EXISTS); anything
 * else is DB_FAILED, a bug or a broken database.
 *
 * Transactions. db_begin starts a write transaction that behaves as if
 * write transactions ran one at a time: SQLite's BEGIN IMMEDIATE, and on
 * PostgreSQL BEGIN (READ COMMITTED) plus a transaction-scoped advisory lock
 * that every db_begin takes, so the store's read-then-write transactions
 * (count, then insert) keep the meaning they have on SQLite, without
 * retry loops for serialization failures (SERIALIZABLE would need them
 * even for harmless overlaps). db_begin_concurrent is for transactions
 * whose correctness rests on row locks alone, the queue's claims: on
 * PostgreSQL it skips the advisory lock, so claims run side by side and
 * `FOR UPDATE SKIP LOCKED` keeps two of them off one row; SQLite has one
 * writer at a time whatever is asked, so there it is db_begin. A
 * statement run outside a transaction commits alone.
 *
 * A lost PostgreSQL connection: the statement that saw it fails with
 * DB_TRANSIENT (whether it committed is unknown: the store's claim
 * counters make a retry safe). db_reconnect opens it again, re-prepares
 * statements lazily and LISTENs again on its channels. Outside a
 * transaction the next db_step reconnects by itself; inside one, every
 * call fails until db_rollback, so a half-done transaction never goes on
 * in autocommit.
 *
 * Notifications: db_listen / db_notify / db_wait_notify are PostgreSQL's
 * LISTEN / NOTIFY (a worker sleeps until a submission arrives, on any
 * server process). SQLite has one process and nothing to listen to:
 * db_listen and db_notify succeed and do nothing, db_wait_notify sleeps its
 * timeout and reports none, so a caller's polling loop still works.
 */
#ifndef ATTNJUDGE_SERVER_DB_H
#define ATTNJUDGE_SERVER_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define DB_ERR_LEN 512

/* db_step's answers besides -1 */
#define DB_DONE 0
#define DB_ROW 1

enum db_backend { DB_SQLITE, DB_POSTGRESQL };
enum db_errclass { DB_OK, DB_FAILED, DB_UNIQUE, DB_TRANSIENT };

struct db;
struct db_stmt;

/* Opens url: "sqlite:PATH" or a bare PATH (file created if missing; busy
 * timeout 5 s; the store sets its own pragmas), or "postgresql://..." /
 * "postgres://..." (libpq's URI syntax). NULL with err filled on failure. */
struct db *db_open(const char *url, char *err, size_t errlen) MUST_CHECK;
/* Closes the connection (NULL: nothing). Its statements must be finalized. */
void db_close(struct db *db);
enum db_backend db_backend(const struct db *db);
/* The message and the class of the last failure on db. */
const char *db_error(const struct db *db);
enum db_errclass db_errclass(const struct db *db);

/* Runs a script of ;-separated statements without parameters or rows
 * (migrations, pragmas). 0 or -1. */
int db_exec(struct db *db, const char *script) MUST_CHECK;

/* A statement of sql with ?-placeholders; NULL on failure (PostgreSQL
 * reports most SQL errors at the first db_step instead). */
struct db_stmt *db_prepare(struct db *db, const char *sql) MUST_CHECK;
void db_finalize(struct db_stmt *st);

/* Parameter i (from 1) of st; 0 or -1. Text is NUL-terminated; NULL binds
 * NULL. A blob's bytes are copied, NUL bytes included. */
int db_bind_int64(struct db_stmt *st, int i, int64_t v) MUST_CHECK;
int db_bind_double(struct db_stmt *st, int i, double v) MUST_CHECK;
int db_bind_text(struct db_stmt *st, int i, const char *t) MUST_CHECK;
/* Text of n bytes (t need not be NUL-terminated; a NUL among them fails on
 * both backends, as PostgreSQL's text cannot hold it). */
int db_bind_textn(struct db_stmt *st, int i, const char *t, size_t n) MUST_CHECK;
int db_bind_blob(struct db_stmt *st, int i, const void *p, size_t n) MUST_CHECK;
int db_bind_null(struct db_stmt *st, int i) MUST_CHECK;

/* Runs st (at the first call after a prepare or reset) and moves to its
 * next row: DB_ROW, DB_DONE when there are no more, or -1. */
int db_step(struct db_stmt *st) MUST_CHECK;
/* Readies st to run again, its parameters cleared to NULL. */
void db_reset(struct db_stmt *st);
/* Rows changed by the last INSERT, UPDATE or DELETE run on db. */
int64_t db_changes(const struct db *db);

/* Column col (from 0) of the current row. */
bool db_column_null(struct db_stmt *st, int col);
int64_t db_column_int64(struct db_stmt *st, int col);
double db_column_double(struct db_stmt *st, int col);
/* NUL-terminated text, NULL for NULL (borrowed: see Ownership). */
const char *db_column_text(struct db_stmt *st, int col);
/* The bytes of a blob (or text) column, *n their number; NULL for NULL. */
const void *db_column_blob(struct db_stmt *st, int col, size_t *n);

/* Write transactions (see Transactions above); 0 or -1. db_rollback
 * never fails: it also ends a transaction whose connection is lost. */
int db_begin(struct db *db) MUST_CHECK;
int db_begin_concurrent(struct db *db) MUST_CHECK;
int db_commit(struct db *db) MUST_CHECK;
void db_rollback(struct db *db);

/* Opens a lost PostgreSQL connection again (SQLite: nothing to do). 0 or -1
 * (DB_TRANSIENT: the server is still away). */
int db_reconnect(struct db *db) MUST_CHECK;

/* LISTEN on channel (lowercase letters, digits, _; at most 63 bytes);
 * kept across reconnects. */
int db_listen(struct db *db, const char *channel) MUST_CHECK;
/* NOTIFY channel with payload (may be NULL); delivered at commit when
 * inside a transaction. */
int db_notify(struct db *db, const char *channel, const char *payload) MUST_CHECK;
/* Waits up to timeout_ms for a notification on a LISTENed channel: 1 (its
 * channel copied to channel, len bytes, when channel is not NULL), 0 when
 * none came, -1 on failure. */
int db_wait_notify(struct db *db, int timeout_ms, char *channel, size_t len) MUST_CHECK;

#endif
