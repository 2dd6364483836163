/*
 * store — the connection, its transactions, its announcements of new work
 * and the pool of connections; the row helpers every store_*.c file runs
 * its statements through (server/store_impl.h).
 *
 * Backends: every statement runs through server/db.h, on SQLite or
 * PostgreSQL (docs/postgresql.md). store_sql.def holds one text per
 * statement and the few PostgreSQL spellings that must differ. What
 * follows says SQLite where the backends differ; on PostgreSQL a write
 * transaction takes an advisory lock (one writer at a time, as on SQLite)
 * and the claims run side by side with FOR UPDATE SKIP LOCKED.
 *
 * The database is the server's memory and its queue: users, hashed session
 * tokens, problems and their immutable versions, submissions with their
 * source, status and verdict, and per-test results. Nothing about a
 * submission lives only in RAM, so a crash loses nothing.
 *
 * Concurrency: SQLite in WAL mode lets readers run beside one writer. Each
 * thread uses its own connection (workers own one, HTTP threads borrow from
 * a pool), because a connection is not to be shared without serialization.
 * Every write that changes more than one row runs in BEGIN IMMEDIATE ...
 * COMMIT: the write lock is taken up front, so two writers wait on the busy
 * timeout instead of deadlocking on a read-to-write upgrade.
 *
 * The files: store_schema.c (the migrations), store_users.c,
 * store_problems.c, store_queue.c (the claim discipline), store_results.c
 * and store_course.c, each over this one.
 */
#include "server/store_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const sql[Q_COUNT] = {
#define STORE_SQL(name, sqlite, pg) [name] = sqlite,
#include "server/store_sql.def"
};

/* NULL: the text of sql[] serves both backends. */
static const char *const sql_pg[Q_COUNT] = {
#define STORE_SQL(name, sqlite, pg) [name] = pg,
#include "server/store_sql.def"
};

/* The statement text of q for backend b. */
static const char *sql_of(enum db_backend b, enum q q)
{
    return b == DB_POSTGRESQL && sql_pg[q] ? sql_pg[q] : sql[q];
}

struct store_pool {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct store **all, **free;
    int n, n_free;
};

/* Whether the last store failure on this thread was transient: a request
 * is served by one thread, so routes.c can answer 503 instead of 500 for
 * whatever store call its handler made (store_thread_transient). */
static __thread bool thread_transient;

int store_fail(struct store *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "%s: %s", what, db_error(s->db));
    if (db_errclass(s->db) == DB_TRANSIENT)
        thread_transient = true;
    return -1;
}

bool store_thread_transient(bool clear)
{
    bool was = thread_transient;
    if (clear)
        thread_transient = false;
    return was;
}

struct db_stmt *store_prep(struct store *s, enum q q)
{
    if (!s->st[q] && !(s->st[q] = db_prepare(s->db, sql_of(db_backend(s->db), q))))
        store_fail(s, "prepare");
    return s->st[q];
}

void store_done(struct db_stmt *st)
{
    if (st)
        db_reset(st); /* also clears the parameters */
}

/* A double parameter: NAN binds NULL, as SQLite has always stored it (and
 * PostgreSQL would keep a NaN, which sorts and compares unlike NULL). */
static int bind_double(struct db_stmt *st, int i, double v)
{
    return isnan(v) ? db_bind_null(st, i) : db_bind_double(st, i, v);
}

static int vbind(struct store *s, struct db_stmt *st, const char *fmt, va_list ap)
{
    int rc = 0;
    for (int i = 1; *fmt && rc == 0; fmt++, i++) {
        switch (*fmt) {
        case 'i': rc = db_bind_int64(st, i, va_arg(ap, int64_t)); break;
        case 'I': rc = db_bind_int64(st, i, va_arg(ap, int)); break;
        case 'd': rc = bind_double(st, i, va_arg(ap, double)); break;
        case 't': rc = db_bind_text(st, i, va_arg(ap, const char *)); break;
        case 'b': {
            const char *t = va_arg(ap, const char *);
            size_t n = va_arg(ap, size_t);
            rc = db_bind_textn(st, i, t, n);
            break;
        }
        case 'B': {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            rc = db_bind_blob(st, i, p, n);
            break;
        }
        default: snprintf(s->err, sizeof s->err, "bind: unknown format '%c'", *fmt); return -1;
        }
    }
    return rc == 0 ? 0 : store_fail(s, "bind");
}

int store_bind(struct store *s, struct db_stmt *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vbind(s, st, fmt, ap);
    va_end(ap);
    return rc;
}

int store_step(struct store *s, struct db_stmt *st)
{
    int rc = db_step(st);
    return rc == DB_DONE || rc == DB_ROW ? 0 : store_fail(s, "step");
}

int store_insert_id(struct db_stmt *st, int64_t *id)
{
    /* an INSERT ... VALUES ... RETURNING always has its row, or failed */
    int r = db_step(st);
    if (r != DB_ROW)
        return -1;
    *id = db_column_int64(st, 0);
    while ((r = db_step(st)) == DB_ROW)
        ;
    return r == DB_DONE ? 0 : -1;
}

int store_stopped(struct store *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "%s: stopped by the caller (out of memory?)", what);
    return -1;
}

/* ---- the row helpers ---- */

/* Statement q bound to ap's arguments by fmt; NULL (error recorded) when
 * it cannot be prepared or bound. */
static struct db_stmt *prep_bound(struct store *s, enum q q, const char *fmt, va_list ap)
{
    struct db_stmt *st = store_prep(s, q);
    if (st && vbind(s, st, fmt, ap) < 0) {
        store_done(st);
        return NULL;
    }
    return st;
}

int store_one(struct store *s, enum q q, const char *what, store_row_fn *read, void *arg,
              const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    struct db_stmt *st = prep_bound(s, q, fmt, ap);
    va_end(ap);
    if (!st)
        return -1;
    int r = db_step(st);
    if (r == DB_ROW) {
        if ((rc = read ? read(st, arg) : 0) < 0)
            store_stopped(s, what);
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : store_fail(s, what);
    }
    store_done(st);
    return rc;
}

int store_each(struct store *s, enum q q, const char *what, store_row_fn *read, void *arg,
               const char *fmt, ...)
{
    va_list ap;
    int rc, r;
    va_start(ap, fmt);
    struct db_stmt *st = prep_bound(s, q, fmt, ap);
    va_end(ap);
    if (!st)
        return -1;
    while ((r = db_step(st)) == DB_ROW)
        if (read(st, arg) < 0) {
            rc = store_stopped(s, what);
            goto out;
        }
    rc = r == DB_DONE ? 0 : store_fail(s, what);
out:
    store_done(st);
    return rc;
}

int store_run(struct store *s, enum q q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct db_stmt *st = prep_bound(s, q, fmt, ap);
    va_end(ap);
    if (!st)
        return -1;
    int rc = store_step(s, st);
    store_done(st);
    return rc;
}

int store_int64_row(struct db_stmt *st, void *arg)
{
    *(int64_t *)arg = db_column_int64(st, 0);
    return 0;
}

/* ---- the connection ---- */

const char *store_error(const struct store *s)
{
    return s->err;
}

bool store_error_transient(const struct store *s)
{
    return db_errclass(s->db) == DB_TRANSIENT;
}

struct store *store_open(const char *url, bool sync_full, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(s->db = db_open(url, err, errlen)))
        goto fail;
    if (db_backend(s->db) == DB_SQLITE) {
        /* WAL: readers never block the writer; NORMAL sync in WAL mode keeps
         * the database consistent across a crash of the process (only a
         * power loss can drop the last commits); FULL syncs every commit.
         * (PostgreSQL: WAL and foreign keys always; its synchronous_commit
         * default, on, is FULL's promise.) */
        char pragmas[256];
        snprintf(pragmas, sizeof pragmas,
                 "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = %s;",
                 sync_full ? "FULL" : "NORMAL");
        if (db_exec(s->db, pragmas) < 0) {
            snprintf(err, errlen, "%s: %s", url, db_error(s->db));
            goto fail;
        }
    }
    s->lease_ms = STORE_LEASE_MS_DEFAULT;
    return s;
fail:
    store_close(s);
    return NULL;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        db_finalize(s->st[i]);
    db_close(s->db);
    free(s);
}

/* ---- transactions ---- */

int store_begin(struct store *s)
{
    return db_begin(s->db) < 0 ? store_fail(s, "begin") : 0;
}

int store_begin_concurrent(struct store *s)
{
    return db_begin_concurrent(s->db) < 0 ? store_fail(s, "begin") : 0;
}

int store_commit(struct store *s)
{
    return db_commit(s->db) < 0 ? store_fail(s, "commit") : 0;
}

void store_rollback(struct store *s)
{
    db_rollback(s->db);
}

/* ---- announcements of new work ---- */

#define QUEUE_CHANNEL "attnjudge_queue"

/* PostgreSQL's NOTIFY, its own statement after the write committed;
 * SQLite: nothing. Best effort: a lost announcement delays a claim until
 * the listeners' next look. */
void store_announce(struct store *s)
{
    if (db_backend(s->db) == DB_POSTGRESQL && db_notify(s->db, QUEUE_CHANNEL, NULL) < 0)
        return; /* the write itself succeeded; the next call reconnects */
}

int store_queue_listen(struct store *s)
{
    if (db_backend(s->db) != DB_POSTGRESQL)
        return 0;
    return db_listen(s->db, QUEUE_CHANNEL) < 0 ? store_fail(s, "listen") : 1;
}

int store_queue_wait(struct store *s, int timeout_ms)
{
    int r = db_wait_notify(s->db, timeout_ms, NULL, 0);
    return r < 0 ? store_fail(s, "wait") : r;
}

/* ---- pool ---- */

struct store_pool *store_pool_new(const char *url, bool sync_full, int n, char *err, size_t errlen)
{
    struct store_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->all = calloc((size_t)n, sizeof *p->all)) ||
        !(p->free = calloc((size_t)n, sizeof *p->free))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    for (int i = 0; i < n; i++) {
        if (!(p->all[i] = store_open(url, sync_full, err, errlen)))
            goto fail;
        p->n++;
        p->free[p->n_free++] = p->all[i];
    }
    return p;
fail:
    store_pool_free(p);
    return NULL;
}

struct store *store_pool_get(struct store_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->n_free == 0)
        pthread_cond_wait(&p->cond, &p->lock);
    struct store *s = p->free[--p->n_free];
    pthread_mutex_unlock(&p->lock);
    return s;
}

void store_pool_put(struct store_pool *p, struct store *s)
{
    if (!s)
        return;
    store_rollback(s); /* a handler that bailed out mid-transaction */
    pthread_mutex_lock(&p->lock);
    p->free[p->n_free++] = s;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

void store_pool_free(struct store_pool *p)
{
    if (!p)
        return;
    if (p->all) {
        for (int i = 0; i < p->n; i++)
            store_close(p->all[i]);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->cond);
    }
    free(p->all);
    free(p->free);
    free(p);
}
