/*
 * store_impl — what the store's own files share, and nothing else
 * includes: the connection, the statement names of server/store_sql.def,
 * and the row helpers over server/db.h, so that a domain function is its
 * statement's name, its parameters and its reader.
 *
 * The helpers keep the store's error convention (server/store.h): -1 with
 * "what: the database's message" in the connection's error buffer (and the
 * thread's transient flag set when the failure is transient), or a
 * positive STORE_* code. A statement is prepared once per connection, at
 * its first use, and reset (its parameters cleared) after every use.
 */
#ifndef ATTNJUDGE_SERVER_STORE_IMPL_H
#define ATTNJUDGE_SERVER_STORE_IMPL_H

#include <math.h>
#include <stdio.h>

#include "server/db.h"
#include "server/store.h"

/* The hints a submission's author had opened on its problem when submitting
 * (a column of the submission reads). */
#define HINTS_BEFORE                                                                               \
    "(SELECT count(*) FROM hint_opens h WHERE h.user_id = s.user_id"                               \
    " AND h.problem_id = s.problem_id AND h.opened_at <= s.created_at)"

/* The statements' names, one per STORE_SQL of store_sql.def. */
enum q {
#define STORE_SQL(name, sqlite, pg) name,
#include "server/store_sql.def"
    Q_COUNT
};

struct store {
    struct db *db;
    struct db_stmt *st[Q_COUNT]; /* prepared at first use */
    char err[STORE_ERR_LEN];
    char holder[STORE_HOST_NAME_LEN]; /* claims name this holder ("" = NULL) */
    int64_t lease_ms;                 /* and hold a lease this long */
};

/* Records that the database call what failed (db_error's message); -1. */
int store_fail(struct store *s, const char *what);
/* Records that a row callback stopped a read; -1. */
int store_stopped(struct store *s, const char *what);
/* Statement q of this connection, prepared at its first use; NULL (error
 * recorded) when it cannot be. */
struct db_stmt *store_prep(struct store *s, enum q q);
/* Readies st (NULL: nothing) to run again, its parameters cleared. */
void store_done(struct db_stmt *st);
/* Binds parameters from 1 by a format: i = int64, I = int, d = double
 * (NAN binds NULL), t = text (NULL binds NULL), b = text + size_t length,
 * B = blob (const void *) + size_t length. 0 or -1. */
int store_bind(struct store *s, struct db_stmt *st, const char *fmt, ...);
/* Steps st once, for a statement whose rows are not needed: 0 or -1. */
int store_step(struct store *s, struct db_stmt *st);
/* Steps an INSERT ... RETURNING id to its end: *id the new row's id.
 * -1 (class in db_errclass, nothing recorded) when it fails. */
int store_insert_id(struct db_stmt *st, int64_t *id);

/* Reads the row st stands on into arg: 0, a positive STORE_* code (what
 * store_one then returns), or -1 to stop (out of memory, or a caller's
 * callback said stop). */
typedef int store_row_fn(struct db_stmt *st, void *arg);

/* The row helpers: statement q bound to fmt's arguments (store_bind).
 * store_one reads the first row with read (NULL: none read): read's
 * answer, STORE_NOT_FOUND when there is no row, or -1. store_each reads every row:
 * 0 or -1 (also when read stops it). store_run runs q for its effect: 0
 * or -1, db_changes(s->db) its rows. what names the read in the error. */
int store_one(struct store *s, enum q q, const char *what, store_row_fn *read, void *arg,
              const char *fmt, ...);
int store_each(struct store *s, enum q q, const char *what, store_row_fn *read, void *arg,
               const char *fmt, ...);
int store_run(struct store *s, enum q q, const char *fmt, ...);
/* Declares struct name, what a store_each reader is given as its arg: the
 * caller's callback over rows of type T, and the callback's argument. */
#define STORE_CALLBACK(name, T)                                                                    \
    struct name {                                                                                  \
        int (*fn)(void *arg, const T *row);                                                        \
        void *arg;                                                                                 \
    }

/* store_row_fn for a user row (arg: struct store_user *): id, username,
 * role, pwhash, must_change_password, display_name, student_id
 * (store_users.c). */
int store_user_row(struct db_stmt *st, void *arg);

/* store_row_fn for a statement's first column as an int64 (arg: int64_t *). */
int store_int64_row(struct db_stmt *st, void *arg);

/* A transaction whose correctness rests on row locks alone (the claims):
 * on PostgreSQL it does not wait for the other writers (server/db.h). */
int store_begin_concurrent(struct store *s);
/* Announces new work to every listener (server/store.h, store_queue_listen). */
void store_announce(struct store *s);

/* Finds slug's id and current version; STORE_NOT_FOUND if unknown
 * (store_problems.c). */
int store_problem_id(struct store *s, const char *slug, int64_t *id, int *current);

/* Column readers of the row a statement stands on. */
static inline void copy_col(struct db_stmt *st, int col, char *buf, size_t len)
{
    const char *t = db_column_text(st, col);
    snprintf(buf, len, "%s", t ? t : "");
}

/* A REAL column that may be NULL: NAN for NULL. */
static inline double col_real(struct db_stmt *st, int col)
{
    return db_column_null(st, col) ? NAN : db_column_double(st, col);
}

/* A TEXT column that may be NULL. */
static inline const char *col_text(struct db_stmt *st, int col)
{
    return db_column_text(st, col);
}

/* A TEXT column's bytes and their number (a NULL reads as empty). */
static inline const char *col_bytes(struct db_stmt *st, int col, size_t *n)
{
    const char *t = db_column_blob(st, col, n);
    if (!t)
        *n = 0;
    return t;
}

#endif
