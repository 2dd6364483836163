/*
 * db_impl — what server/db.c shares with its two backends (db_sqlite.c,
 * db_pg.c): the common head of a connection and of a statement, and the
 * table of functions each backend fills. Not for the store: it includes
 * server/db.h only.
 */
#ifndef ATTNJUDGE_SERVER_DB_IMPL_H
#define ATTNJUDGE_SERVER_DB_IMPL_H

#include "server/db.h"

enum db_type { DB_T_NULL, DB_T_INT64, DB_T_DOUBLE, DB_T_TEXT, DB_T_BLOB };

/* One parameter value as db.c hands it to a backend's bind (borrowed). */
struct db_value {
    enum db_type type;
    int64_t i;
    double d;
    const void *p; /* text or blob bytes (text: no NUL among them) */
    size_t n;      /* bytes of p (a text's terminating NUL, if any, not counted) */
};

struct db_ops {
    void (*close)(struct db *db);
    int (*exec)(struct db *db, const char *script);
    struct db_stmt *(*prepare)(struct db *db, const char *sql);
    void (*finalize)(struct db_stmt *st);
    int (*bind)(struct db_stmt *st, int i, const struct db_value *v);
    int (*step)(struct db_stmt *st);
    void (*reset)(struct db_stmt *st);
    bool (*column_null)(struct db_stmt *st, int col);
    int64_t (*column_int64)(struct db_stmt *st, int col);
    double (*column_double)(struct db_stmt *st, int col);
    const char *(*column_text)(struct db_stmt *st, int col);
    const void *(*column_blob)(struct db_stmt *st, int col, size_t *n);
    int (*begin)(struct db *db, bool alone); /* alone: db_begin, else db_begin_concurrent */
    int (*commit)(struct db *db);
    void (*rollback)(struct db *db);
    int (*reconnect)(struct db *db);
    int (*listen)(struct db *db, const char *channel);
    int (*notify)(struct db *db, const char *channel, const char *payload);
    int (*wait_notify)(struct db *db, int timeout_ms, char *channel, size_t len);
};

/* The head of every backend's connection (its first member). */
struct db {
    const struct db_ops *ops;
    enum db_backend backend;
    enum db_errclass errclass;
    int64_t changes; /* rows, of the last INSERT / UPDATE / DELETE */
    char err[DB_ERR_LEN];
};

/* The head of every backend's statement (its first member). */
struct db_stmt {
    struct db *db;
};

/* Each backend's open: target is the path or the URL. NULL with err. */
struct db *db_sqlite_open(const char *path, char *err, size_t errlen);
struct db *db_pg_open(const char *url, char *err, size_t errlen);

/* Records a failure on db (class and printf-style message); returns -1. */
int db_fail(struct db *db, enum db_errclass cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sql with its ?-placeholders rewritten to $N (see server/db.h), as a new
 * string (caller frees); *nparams the highest parameter number. NULL when
 * out of memory or a ?N is out of range (1..65535). */
char *db_pg_placeholders(const char *sql, int *nparams);

#endif
