/*
 * migrate — a SQLite database copied into PostgreSQL, table by table
 * (migrate.h).
 *
 * A course that outgrows one machine moves its SQLite database into
 * PostgreSQL once, with the server stopped. Both schemas are brought to the
 * newest migration by the store itself, so they are the same tables with
 * the same columns; then the rows are copied table by table, parents
 * before children (the foreign keys are checked as rows arrive), each with
 * its own id, so that every reference between rows stays true.
 *
 * The source is read inside one transaction: a server that was not
 * stopped after all cannot make the copy inconsistent, only stale. The
 * destination is written inside one transaction: a failure leaves it as
 * empty as it was. Each value is bound as SQLite holds it (integer, real,
 * text, blob or NULL); PostgreSQL's assignment casts put it into the
 * column's type. The destination must hold no course yet (no user, no
 * problem, no submission): merging two courses is not a migration.
 *
 * Identity columns: rows inserted with their ids do not move PostgreSQL's
 * sequences, so each is set after the copy to continue past the largest
 * id, or the next submission would collide with a copied one.
 */
#include "server/migrate.h"

#include <stdbool.h>
#include <string.h>

#include <sqlite3.h>

#include "server/db.h"
#include "server/store.h"

/* Every table of the schema with the course's data, parents first. Not
 * copied: schema_version (each side has its own, both at the newest) and
 * judge_hosts (heartbeats of processes that are gone). */
static const char *const tables[] = {
    "users",         "sessions",      "problems",      "problem_versions",
    "submissions",   "queue_turns",   "hint_opens",    "walkthrough_dates",
    "rejudges",      "rejudge_items", "assignments",   "assignment_problems",
    "drafts",        "bench_turns",   "lti_platforms", "lti_deployments",
    "lti_users",     "lti_nonces",    "lti_contexts",  "lti_links",
    "lti_lineitems", "lti_outbox",
};
#define N_TABLES (sizeof tables / sizeof tables[0])

static bool known_table(const char *name)
{
    if (!strcmp(name, "schema_version") || !strcmp(name, "judge_hosts") ||
        !strncmp(name, "sqlite_", 7))
        return true;
    for (size_t i = 0; i < N_TABLES; i++)
        if (!strcmp(name, tables[i]))
            return true;
    return false;
}

/* Brings the database at url to the newest schema with the store's own
 * migrations. */
static int bring_up(const char *url, const char *which, char *err, size_t errlen)
{
    struct store *s = store_open(url, false, err, errlen);
    if (!s)
        return -1;
    int rc = store_migrate(s);
    if (rc < 0)
        snprintf(err, errlen, "%s database: migration: %s", which, store_error(s));
    store_close(s);
    return rc;
}

/* A single integer from sql on the destination, or -1. */
static int64_t dst_count(struct db *d, const char *sql)
{
    struct db_stmt *st = db_prepare(d, sql);
    int64_t n = -1;
    if (st && db_step(st) == DB_ROW)
        n = db_column_int64(st, 0);
    db_finalize(st);
    return n;
}

/* The SELECT of table's columns on the source and the INSERT of the same
 * columns on the destination, as SQLite lists them. */
static int statements(sqlite3 *src, const char *table, char *sel, size_t sel_len, char *ins,
                      size_t ins_len, int *ncol)
{
    char sql[128];
    sqlite3_stmt *info = NULL;
    size_t s = 0, i = 0, v = 0;
    char vals[4096] = "";
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
    if (sqlite3_prepare_v2(src, sql, -1, &info, NULL) != SQLITE_OK)
        return -1;
    *ncol = 0;
    s = (size_t)snprintf(sel, sel_len, "SELECT ");
    i = (size_t)snprintf(ins, ins_len, "INSERT INTO \"%s\"(", table);
    while (sqlite3_step(info) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(info, 1);
        const char *sep = *ncol ? ", " : "";
        s += (size_t)snprintf(sel + s, s < sel_len ? sel_len - s : 0, "%s\"%s\"", sep, col);
        i += (size_t)snprintf(ins + i, i < ins_len ? ins_len - i : 0, "%s\"%s\"", sep, col);
        v += (size_t)snprintf(vals + v, v < sizeof vals ? sizeof vals - v : 0, "%s?", sep);
        ++*ncol;
    }
    sqlite3_finalize(info);
    s += (size_t)snprintf(sel + s, s < sel_len ? sel_len - s : 0, " FROM \"%s\" ORDER BY rowid",
                          table);
    i += (size_t)snprintf(ins + i, i < ins_len ? ins_len - i : 0, ") VALUES (%s)", vals);
    return *ncol > 0 && s < sel_len && i < ins_len && v < sizeof vals ? 0 : -1;
}

/* Binds column c of the source row as parameter c + 1 of the insert. */
static int bind_value(sqlite3_stmt *row, int c, struct db_stmt *ins)
{
    switch (sqlite3_column_type(row, c)) {
    case SQLITE_INTEGER: return db_bind_int64(ins, c + 1, sqlite3_column_int64(row, c));
    case SQLITE_FLOAT: return db_bind_double(ins, c + 1, sqlite3_column_double(row, c));
    case SQLITE_TEXT:
        return db_bind_textn(ins, c + 1, (const char *)sqlite3_column_text(row, c),
                             (size_t)sqlite3_column_bytes(row, c));
    case SQLITE_BLOB:
        return db_bind_blob(ins, c + 1, sqlite3_column_blob(row, c),
                            (size_t)sqlite3_column_bytes(row, c));
    default: return db_bind_null(ins, c + 1);
    }
}

/* Copies one table; *rows gets its number of rows. */
static int copy_table(sqlite3 *src, struct db *dst, const char *table, int64_t *rows, char *err,
                      size_t errlen)
{
    char sel[4096], ins[8192];
    int ncol, r;
    sqlite3_stmt *row = NULL;
    struct db_stmt *st = NULL;
    *rows = 0;
    if (statements(src, table, sel, sizeof sel, ins, sizeof ins, &ncol) < 0 ||
        sqlite3_prepare_v2(src, sel, -1, &row, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: reading the source: %s", table, sqlite3_errmsg(src));
        goto fail;
    }
    if (!(st = db_prepare(dst, ins))) {
        snprintf(err, errlen, "%s: %s", table, db_error(dst));
        goto fail;
    }
    while ((r = sqlite3_step(row)) == SQLITE_ROW) {
        for (int c = 0; c < ncol; c++)
            if (bind_value(row, c, st) < 0) {
                snprintf(err, errlen, "%s row %lld: %s", table, (long long)*rows + 1,
                         db_error(dst));
                goto fail;
            }
        if (db_step(st) < 0) {
            snprintf(err, errlen, "%s row %lld: %s", table, (long long)*rows + 1, db_error(dst));
            goto fail;
        }
        db_reset(st);
        ++*rows;
    }
    if (r != SQLITE_DONE) {
        snprintf(err, errlen, "%s: reading the source: %s", table, sqlite3_errmsg(src));
        goto fail;
    }
    sqlite3_finalize(row);
    db_finalize(st);
    return 0;
fail:
    sqlite3_finalize(row);
    db_finalize(st);
    return -1;
}

/* Every identity column of the destination continues after its largest
 * copied value (is_called false: the next value is max + 1 itself). */
static int continue_sequences(struct db *dst, char *err, size_t errlen)
{
    char cols[N_TABLES][2][64], sql[512];
    size_t n = 0;
    int r;
    struct db_stmt *st =
        db_prepare(dst, "SELECT table_name, column_name FROM information_schema.columns"
                        " WHERE table_schema = current_schema() AND is_identity = 'YES'");
    if (!st)
        goto fail;
    while ((r = db_step(st)) == DB_ROW && n < N_TABLES) {
        snprintf(cols[n][0], sizeof cols[n][0], "%s", db_column_text(st, 0));
        snprintf(cols[n][1], sizeof cols[n][1], "%s", db_column_text(st, 1));
        n++;
    }
    db_finalize(st);
    if (r < 0)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(sql, sizeof sql,
                           "SELECT setval(pg_get_serial_sequence('\"%s\"', '%s'),"
                           " coalesce(max(\"%s\"), 0) + 1, false) FROM \"%s\"",
                           cols[i][0], cols[i][1], cols[i][1], cols[i][0]);
        st = NULL;
        if (len < 0 || (size_t)len >= sizeof sql || !(st = db_prepare(dst, sql)) ||
            db_step(st) != DB_ROW) {
            db_finalize(st);
            goto fail;
        }
        db_finalize(st);
    }
    return 0;
fail:
    snprintf(err, errlen, "id sequences: %s", db_error(dst));
    return -1;
}

/* Refuses a source with a table this program would not copy (a newer
 * program's database, or one changed by hand). */
static int check_source_tables(sqlite3 *src, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(src, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st,
                           NULL) != SQLITE_OK)
        rc = -1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!known_table(name)) {
            snprintf(err, errlen, "the source has a table this program does not know: %s", name);
            rc = -1;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int migrate_sqlite_to(const char *sqlite_path, const char *url, FILE *out, char *err, size_t errlen)
{
    sqlite3 *src = NULL;
    struct db *dst = NULL;
    int64_t rows[N_TABLES];
    int rc = -1;

    if (bring_up(sqlite_path, "source", err, errlen) < 0 ||
        bring_up(url, "destination", err, errlen) < 0)
        return -1;
    if (sqlite3_open_v2(sqlite_path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", sqlite_path, src ? sqlite3_errmsg(src) : "cannot open");
        goto out;
    }
    sqlite3_busy_timeout(src, 5000);
    if (check_source_tables(src, err, errlen) < 0)
        goto out;
    if (!(dst = db_open(url, err, errlen)))
        goto out;
    if (db_backend(dst) != DB_POSTGRESQL) {
        snprintf(err, errlen, "--to must be a PostgreSQL URL (postgresql://...)");
        goto out;
    }
    if (dst_count(dst, "SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM problems) +"
                       " (SELECT count(*) FROM submissions)") != 0) {
        snprintf(err, errlen,
                 "the destination already holds a course (users, problems or submissions): "
                 "migrate only into an empty database");
        goto out;
    }
    /* one snapshot of the source, one transaction on the destination */
    if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", sqlite_path, sqlite3_errmsg(src));
        goto out;
    }
    if (db_begin(dst) < 0) {
        snprintf(err, errlen, "destination: %s", db_error(dst));
        goto out;
    }
    for (size_t t = 0; t < N_TABLES; t++) {
        char sql[96];
        if (copy_table(src, dst, tables[t], &rows[t], err, errlen) < 0)
            goto rollback;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", tables[t]);
        int64_t there = dst_count(dst, sql);
        if (there != rows[t]) {
            snprintf(err, errlen, "%s: %lld rows read, %lld in the destination", tables[t],
                     (long long)rows[t], (long long)there);
            goto rollback;
        }
    }
    if (continue_sequences(dst, err, errlen) < 0)
        goto rollback;
    if (db_commit(dst) < 0) {
        snprintf(err, errlen, "destination: commit: %s", db_error(dst));
        goto rollback;
    }
    for (size_t t = 0; t < N_TABLES; t++)
        fprintf(out, "  %-20s %lld rows\n", tables[t], (long long)rows[t]);
    rc = 0;
    goto out;
rollback:
    db_rollback(dst);
out:
    if (src)
        sqlite3_close(src); /* ends the read transaction */
    db_close(dst);
    return rc;
}
