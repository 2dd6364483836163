/*
 * Unit tests of server/backup.c without a server: a copy holds the rows
 * and passes its checks; an existing destination is refused unless forced
 * and left as it was; a missing database is never created; a missing
 * directory, the database itself as destination and a file that is no
 * database are refused with nothing left behind; and a commit by another
 * connection between every two steps makes the copy begin again until the
 * restart limit, after which the rest is copied in one step and the copy
 * is still whole; the --with-files archive holds the copy, the secret and
 * the problem files, in that order. tests/server/backup.py does the same
 * against a running server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "server/backup.h"
#include "server/store.h"

static char dir[] = "/tmp/attnjudge-backuptest.XXXXXX";
static char db[256];

static void path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* Entries of dir whose names start with '.': a backup's temporary files. */
static int hidden_files(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A %s | grep -c '^\\.'", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static int64_t count_rows(const char *file, const char *table)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    char sql[128];
    int64_t n = -1;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    if (sqlite3_open_v2(file, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* A migrated database with two users, and a filler table of ~300 pages so
 * that a copy takes many one-page steps. */
static int setup(void **state)
{
    (void)state;
    char err[256];
    if (!mkdtemp(dir))
        return -1;
    path(db, sizeof db, "attnjudge.db");
    struct store *s = store_open(db, false, err, sizeof err);
    int64_t id;
    if (!s || store_migrate(s) < 0 || store_user_create(s, "alice", "h", "student", 1, &id) ||
        store_user_create(s, "prof", "h", "instructor", 1, &id)) {
        store_close(s);
        return -1;
    }
    store_close(s);
    sqlite3 *h = NULL;
    int rc =
        sqlite3_open(db, &h) == SQLITE_OK &&
                sqlite3_exec(h,
                             "CREATE TABLE filler(x BLOB);"
                             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                             " WHERE i < 300) INSERT INTO filler SELECT randomblob(3000) FROM n",
                             NULL, NULL, NULL) == SQLITE_OK
            ? 0
            : -1;
    sqlite3_close(h);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_copy_holds_the_rows(void **state)
{
    (void)state;
    struct backup_options o;
    struct backup_summary sum;
    char dest[300], err[BACKUP_ERR_LEN];
    backup_options_default(&o);
    path(dest, sizeof dest, "copy.db");
    assert_int_equal(backup_copy(db, dest, &o, &sum, err, sizeof err), 0);
    assert_int_equal(sum.schema_version, store_schema_latest());
    assert_int_equal(sum.users, 2);
    assert_int_equal(sum.submissions, 0);
    assert_int_equal(sum.pending, 0);
    assert_false(sum.single_step);
    struct stat st;
    assert_int_equal(stat(dest, &st), 0);
    assert_int_equal(sum.bytes, st.st_size);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(count_rows(dest, "filler"), 300);
    assert_int_equal(hidden_files(), 0);
    /* one file: no WAL is needed to read it */
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", dest);
    assert_int_not_equal(access(wal, F_OK), 0);
}

static void test_existing_destination(void **state)
{
    (void)state;
    struct backup_options o;
    char dest[300], err[BACKUP_ERR_LEN];
    backup_options_default(&o);
    path(dest, sizeof dest, "taken.db");
    FILE *f = fopen(dest, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    assert_int_equal(backup_copy(db, dest, &o, NULL, err, sizeof err), BACKUP_EXISTS);
    assert_non_null(strstr(err, "--force"));
    struct stat st;
    assert_int_equal(stat(dest, &st), 0);
    assert_int_equal(st.st_size, 8);
    o.force = true;
    assert_int_equal(backup_copy(db, dest, &o, NULL, err, sizeof err), 0);
    assert_int_equal(count_rows(dest, "users"), 2);
    assert_int_equal(hidden_files(), 0);
}

static void test_refusals(void **state)
{
    (void)state;
    struct backup_options o;
    char dest[300], missing[300], err[BACKUP_ERR_LEN];
    backup_options_default(&o);
    path(dest, sizeof dest, "never.db");
    path(missing, sizeof missing, "no-such.db");
    assert_int_equal(backup_copy(missing, dest, &o, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no database"));
    assert_int_not_equal(access(missing, F_OK), 0); /* not created */
    assert_int_not_equal(access(dest, F_OK), 0);

    path(dest, sizeof dest, "no-such-dir/x.db");
    assert_int_equal(backup_copy(db, dest, &o, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not exist"));

    o.force = true;
    assert_int_equal(backup_copy(db, db, &o, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "database itself"));
    assert_int_equal(count_rows(db, "users"), 2);

    char junk[300];
    path(junk, sizeof junk, "junk.db");
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fputs("this is not a database at all. ", f);
    fclose(f);
    path(dest, sizeof dest, "from-junk.db");
    assert_int_equal(backup_copy(junk, dest, &o, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a SQLite database"));
    assert_int_not_equal(access(dest, F_OK), 0);
    assert_int_equal(hidden_files(), 0);
    unlink(junk);
}

/* The progress callback of the test below: another connection commits a
 * row after every step, so every next step finds the source changed. */
static void commit_a_row(void *arg, int remaining, int pagecount)
{
    (void)remaining;
    (void)pagecount;
    int *commits = arg;
    sqlite3 *h = NULL;
    if (sqlite3_open(db, &h) == SQLITE_OK &&
        sqlite3_exec(h, "INSERT INTO filler VALUES (randomblob(10))", NULL, NULL, NULL) ==
            SQLITE_OK)
        ++*commits;
    sqlite3_close(h);
}

static void test_restarts_end_in_one_step(void **state)
{
    (void)state;
    struct backup_options o;
    struct backup_summary sum;
    char dest[300], err[BACKUP_ERR_LEN];
    int commits = 0;
    backup_options_default(&o);
    o.step_pages = 16;
    o.progress = commit_a_row;
    o.progress_arg = &commits;
    path(dest, sizeof dest, "busy.db");
    assert_int_equal(backup_copy(db, dest, &o, &sum, err, sizeof err), 0);
    /* the first step copies, each of the next 8 finds a change and begins
     * again; then the rest goes in one step */
    assert_int_equal(sum.restarts, o.max_restarts);
    assert_true(sum.single_step);
    assert_int_equal(commits, o.max_restarts + 1);
    /* the copy is the database after the last commit, whole */
    assert_int_equal(count_rows(dest, "filler"), count_rows(db, "filler"));
    assert_int_equal(sum.users, 2);
    assert_int_equal(hidden_files(), 0);
}

/* The archive: the checked copy, then secret.key, then problems/ with
 * every file's bytes; without a secret.key, an error and nothing left. */
static void test_archive(void **state)
{
    (void)state;
    struct backup_options o;
    struct backup_summary sum;
    char dest[300], p[300], err[BACKUP_ERR_LEN];
    backup_options_default(&o);
    path(dest, sizeof dest, "all.tar");
    assert_int_equal(backup_archive(dir, dest, &o, &sum, err, sizeof err), -1);
    assert_non_null(strstr(err, "secret.key"));
    assert_int_not_equal(access(dest, F_OK), 0);
    assert_int_equal(hidden_files(), 0);

    static const char key[32] = "0123456789abcdef0123456789abcdef";
    path(p, sizeof p, "secret.key");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fwrite(key, 1, sizeof key, f);
    fclose(f);
    path(p, sizeof p, "problems/v1/demo");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && printf '{\"slug\": \"demo\"}' > %s/problem.json", p,
             p);
    assert_int_equal(system(cmd), 0);

    assert_int_equal(backup_archive(dir, dest, &o, &sum, err, sizeof err), 0);
    assert_int_equal(sum.users, 2);
    assert_int_equal(sum.files, 1);
    assert_int_equal(hidden_files(), 0);

    struct archive *a = archive_read_new();
    struct archive_entry *e;
    assert_non_null(a);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_filename(a, dest, 10240), ARCHIVE_OK);
    /* the tar reader shows directories with a trailing slash */
    const char *want[] = {"attnjudge.db", "secret.key",        "problems/",
                          "problems/v1/", "problems/v1/demo/", "problems/v1/demo/problem.json"};
    size_t i = 0;
    char buf[64];
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        assert_true(i < sizeof want / sizeof want[0]);
        assert_string_equal(archive_entry_pathname(e), want[i]);
        if (i == 0)
            assert_int_equal(archive_entry_perm(e), 0600);
        if (i == 1) {
            assert_int_equal(archive_read_data(a, buf, sizeof buf), (la_ssize_t)sizeof key);
            assert_memory_equal(buf, key, sizeof key);
        }
        if (i == 5) {
            assert_int_equal(archive_read_data(a, buf, sizeof buf), 16);
            assert_memory_equal(buf, "{\"slug\": \"demo\"}", 16);
        }
        i++;
    }
    assert_int_equal(i, sizeof want / sizeof want[0]);
    archive_read_free(a);

    /* an existing destination, as for a copy */
    assert_int_equal(backup_archive(dir, dest, &o, &sum, err, sizeof err), BACKUP_EXISTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_holds_the_rows),
        cmocka_unit_test(test_existing_destination),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_restarts_end_in_one_step),
        cmocka_unit_test(test_archive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
