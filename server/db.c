/*
 * db — the dispatch of server/db.h to its backend.
 *
 * db_open reads the URL's scheme and hands the rest to db_sqlite.c or
 * db_pg.c; every other call goes through the connection's table of
 * functions (struct db_ops in db_impl.h). Parameter values are packed
 * into one struct db_value here, so each backend has one bind.
 */
#include "server/db_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

struct db *db_open(const char *url, char *err, size_t errlen)
{
    if (!url || !*url) {
        snprintf(err, errlen, "no database given");
        return NULL;
    }
    if (has_prefix(url, "postgresql://") || has_prefix(url, "postgres://"))
        return db_pg_open(url, err, errlen);
    if (has_prefix(url, "sqlite:"))
        url += strlen("sqlite:");
    if (!*url) {
        snprintf(err, errlen, "sqlite: no path given");
        return NULL;
    }
    return db_sqlite_open(url, err, errlen);
}

void db_close(struct db *db)
{
    if (db)
        db->ops->close(db);
}

enum db_backend db_backend(const struct db *db)
{
    return db->backend;
}

const char *db_error(const struct db *db)
{
    return db->err;
}

enum db_errclass db_errclass(const struct db *db)
{
    return db->errclass;
}

int db_fail(struct db *db, enum db_errclass cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err, sizeof db->err, fmt, ap);
    va_end(ap);
    /* libpq's messages end in a newline; the store's log lines add their own */
    size_t n = strlen(db->err);
    while (n > 0 && (db->err[n - 1] == '\n' || db->err[n - 1] == ' '))
        db->err[--n] = '\0';
    db->errclass = cls;
    return -1;
}

int db_exec(struct db *db, const char *script)
{
    return db->ops->exec(db, script);
}

struct db_stmt *db_prepare(struct db *db, const char *sql)
{
    return db->ops->prepare(db, sql);
}

void db_finalize(struct db_stmt *st)
{
    if (st)
        st->db->ops->finalize(st);
}

static int bind(struct db_stmt *st, int i, const struct db_value *v)
{
    if (i < 1)
        return db_fail(st->db, DB_FAILED, "bind: parameter %d out of range", i);
    return st->db->ops->bind(st, i, v);
}

int db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
    return bind(st, i, &(struct db_value){.type = DB_T_INT64, .i = v});
}

int db_bind_double(struct db_stmt *st, int i, double v)
{
    return bind(st, i, &(struct db_value){.type = DB_T_DOUBLE, .d = v});
}

int db_bind_text(struct db_stmt *st, int i, const char *t)
{
    if (!t)
        return db_bind_null(st, i);
    return bind(st, i, &(struct db_value){.type = DB_T_TEXT, .p = t, .n = strlen(t)});
}

int db_bind_textn(struct db_stmt *st, int i, const char *t, size_t n)
{
    if (!t)
        return db_bind_null(st, i);
    if (memchr(t, '\0', n))
        return db_fail(st->db, DB_FAILED, "bind: parameter %d: text with a NUL byte", i);
    return bind(st, i, &(struct db_value){.type = DB_T_TEXT, .p = t, .n = n});
}

int db_bind_blob(struct db_stmt *st, int i, const void *p, size_t n)
{
    return bind(st, i, &(struct db_value){.type = DB_T_BLOB, .p = n ? p : "", .n = n});
}

int db_bind_null(struct db_stmt *st, int i)
{
    return bind(st, i, &(struct db_value){.type = DB_T_NULL});
}

int db_step(struct db_stmt *st)
{
    return st->db->ops->step(st);
}

void db_reset(struct db_stmt *st)
{
    st->db->ops->reset(st);
}

int64_t db_changes(const struct db *db)
{
    return db->changes;
}

bool db_column_null(struct db_stmt *st, int col)
{
    return st->db->ops->column_null(st, col);
}

int64_t db_column_int64(struct db_stmt *st, int col)
{
    return st->db->ops->column_int64(st, col);
}

double db_column_double(struct db_stmt *st, int col)
{
    return st->db->ops->column_double(st, col);
}

const char *db_column_text(struct db_stmt *st, int col)
{
    return st->db->ops->column_text(st, col);
}

const void *db_column_blob(struct db_stmt *st, int col, size_t *n)
{
    size_t dummy;
    return st->db->ops->column_blob(st, col, n ? n : &dummy);
}

int db_begin(struct db *db)
{
    return db->ops->begin(db, true);
}

int db_begin_concurrent(struct db *db)
{
    return db->ops->begin(db, false);
}

int db_commit(struct db *db)
{
    return db->ops->commit(db);
}

void db_rollback(struct db *db)
{
    db->ops->rollback(db);
}

int db_reconnect(struct db *db)
{
    return db->ops->reconnect(db);
}

/* A channel is a plain identifier on both backends, so that a name that
 * works on SQLite (where it is unused) cannot fail on PostgreSQL. */
static int check_channel(struct db *db, const char *channel)
{
    size_t n = channel ? strlen(channel) : 0;
    bool ok = n > 0 && n < 64 && !(channel[0] >= '0' && channel[0] <= '9');
    for (size_t i = 0; ok && i < n; i++) {
        char c = channel[i];
        ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }
    return ok ? 0
              : db_fail(db, DB_FAILED, "channel '%s': not a lowercase identifier",
                        channel ? channel : "");
}

int db_listen(struct db *db, const char *channel)
{
    if (check_channel(db, channel) < 0)
        return -1;
    return db->ops->listen(db, channel);
}

int db_notify(struct db *db, const char *channel, const char *payload)
{
    if (check_channel(db, channel) < 0)
        return -1;
    return db->ops->notify(db, channel, payload);
}

int db_wait_notify(struct db *db, int timeout_ms, char *channel, size_t len)
{
    if (channel && len)
        channel[0] = '\0';
    return db->ops->wait_notify(db, timeout_ms < 0 ? 0 : timeout_ms, channel, len);
}
