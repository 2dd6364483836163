/*
 * backup — theory of operation.
 *
 * The server keeps its database in WAL mode and writes to it all the time
 * (claims, progress, verdicts), so a plain file copy can catch the main
 * file and the WAL at different moments. This module copies it through
 * SQLite's online backup API instead, from a connection of its own in
 * this process (the server is another process, or not running at all).
 *
 * Steps. sqlite3_backup_step copies o->step_pages pages at a time; each
 * step opens a read transaction on the source and closes it again. In WAL
 * mode a reader never blocks a writer, so the server's commits go on
 * during a step; the step only holds back the checkpointer for its
 * duration (the WAL grows a little meanwhile). When a step reports the
 * source busy or locked (WAL recovery, a database in rollback mode with a
 * writer), we pause o->busy_sleep_ms and try again, for at most
 * o->busy_limit_ms in all, then give up with an error.
 *
 * Restarts. When another connection commits between two steps, SQLite
 * notices at the next step and starts the copy again from page 1, so that
 * the copy is one consistent state of the database, never pages of two
 * moments. On a busy server with a large database this could go on
 * indefinitely, so the policy is: after o->max_restarts restarts, the rest
 * is copied in one step (-1: every page), i.e. inside one read
 * transaction. In WAL mode that still blocks no writer; it only keeps the
 * checkpointer behind for the time of one whole copy. So the total time is
 * bounded by about (max_restarts + 1) full copies plus the busy limit.
 *
 * The copy lands in a temporary file (mkstemp, 0600: it holds password
 * hashes and every student's source) in the destination's directory. It is
 * switched to rollback-journal mode, so that the result is one
 * self-contained file (the server turns WAL back on when it opens it),
 * checked with PRAGMA integrity_check and by reading schema_version and
 * the row counts, closed, fsync'ed, and renamed to the destination (with
 * RENAME_NOREPLACE unless forced, so a file that appeared meanwhile is not
 * replaced either), and the directory is fsync'ed. Any failure removes the
 * temporary file: the destination is the whole checked copy or untouched.
 */
#include "server/backup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/clock.h"

void backup_options_default(struct backup_options *o)
{
    o->step_pages = 1024;
    o->busy_sleep_ms = 20;
    o->busy_limit_ms = 30000;
    o->max_restarts = 8;
    o->force = false;
    o->progress = NULL;
    o->progress_arg = NULL;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The directory part of path ("." when there is none), in dir. Returns -1
 * if it does not fit. */
static int dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    int n = !slash          ? snprintf(dir, len, ".")
            : slash == path ? snprintf(dir, len, "/")
                            : snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Removes the temporary copy and whatever SQLite may have put beside it. */
static void remove_temp(const char *tmp)
{
    static const char *const suffix[] = {"", "-journal", "-wal", "-shm"};
    char p[PATH_MAX + 48];
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(p, sizeof p, "%s%s", tmp, suffix[i]);
        unlink(p);
    }
}

/* Words a failed SQLite call on db: its message, plus the system's reason
 * for an I/O error. */
static void sqlite_reason(sqlite3 *db, int rc, char *buf, size_t len)
{
    int sys = db ? sqlite3_system_errno(db) : 0;
    if ((rc & 0xff) == SQLITE_FULL)
        snprintf(buf, len, "disk full%s%s", sys ? ": " : "", sys ? strerror(sys) : "");
    else if (((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_CANTOPEN) && sys)
        snprintf(buf, len, "%s: %s", sqlite3_errstr(rc), strerror(sys));
    else
        snprintf(buf, len, "%s", sqlite3_errstr(rc));
}

/* Runs the backup loop described above from src into dst. Returns 0 or
 * -1 with a message. */
static int copy_pages(sqlite3 *src, sqlite3 *dst, const char *db_path, const char *dest,
                      const struct backup_options *o, struct backup_summary *sum, char *err,
                      size_t errlen)
{
    char why[256];
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
    if (!b) {
        snprintf(err, errlen, "cannot start the backup: %s", sqlite3_errmsg(dst));
        return -1;
    }
    int pages = o->step_pages > 0 ? o->step_pages : 1, waited = 0, rc;
    long prev_done = 0;
    for (;;) {
        rc = sqlite3_backup_step(b, pages);
        if (rc == SQLITE_DONE)
            break;
        if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
            if (waited >= o->busy_limit_ms)
                break;
            sleep_ms(o->busy_sleep_ms);
            waited += o->busy_sleep_ms;
            continue;
        }
        if (rc != SQLITE_OK)
            break;
        /* A restart copies from page 1 again: the pages done fall back. */
        long done = (long)sqlite3_backup_pagecount(b) - sqlite3_backup_remaining(b);
        if (prev_done > 0 && done <= prev_done && ++sum->restarts >= o->max_restarts) {
            pages = -1;
            sum->single_step = true;
        }
        prev_done = done;
        if (o->progress)
            o->progress(o->progress_arg, sqlite3_backup_remaining(b), sqlite3_backup_pagecount(b));
    }
    int frc = sqlite3_backup_finish(b);
    if (rc == SQLITE_DONE && frc == SQLITE_OK)
        return 0;
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
        snprintf(err, errlen, "%s stayed busy for %d ms; try again", db_path, waited);
    } else if ((rc & 0xff) == SQLITE_NOTADB) {
        snprintf(err, errlen, "%s is not a SQLite database", db_path);
    } else {
        sqlite_reason(dst, rc == SQLITE_DONE ? frc : rc, why, sizeof why);
        snprintf(err, errlen, "copying %s to %s: %s", db_path, dest, why);
    }
    return -1;
}

/* Runs one statement that answers nothing. */
static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Checks the copy (integrity_check answers exactly "ok"; schema_version
 * names a migration) and reads its counts into sum. */
static int check_copy(sqlite3 *db, struct backup_summary *sum, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, r;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "integrity_check: %s", sqlite3_errmsg(db));
        goto out;
    }
    int rows = 0;
    char first[200] = "";
    while ((r = sqlite3_step(st)) == SQLITE_ROW)
        if (rows++ == 0)
            snprintf(first, sizeof first, "%s", (const char *)sqlite3_column_text(st, 0));
    if (r != SQLITE_DONE) {
        snprintf(err, errlen, "integrity_check: %s", sqlite3_errmsg(db));
        goto out;
    }
    if (rows != 1 || strcmp(first, "ok")) {
        snprintf(err, errlen, "the copy fails integrity_check (%d problem%s; first: %s)", rows,
                 rows == 1 ? "" : "s", first);
        goto out;
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT max(version) FROM schema_version),"
                           " (SELECT count(*) FROM users), (SELECT count(*) FROM submissions),"
                           " (SELECT count(*) FROM submissions"
                           "  WHERE status IN ('queued', 'judging'))",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "not an attnjudge database: %s", sqlite3_errmsg(db));
        st = NULL;
        goto out;
    }
    if (sqlite3_step(st) != SQLITE_ROW) {
        snprintf(err, errlen, "reading the copy: %s", sqlite3_errmsg(db));
        goto out;
    }
    sum->schema_version = sqlite3_column_int(st, 0);
    sum->users = sqlite3_column_int64(st, 1);
    sum->submissions = sqlite3_column_int64(st, 2);
    sum->pending = sqlite3_column_int64(st, 3);
    if (sum->schema_version < 1) {
        snprintf(err, errlen, "not an attnjudge database: schema_version is empty");
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* Puts tmp at dest: a plain rename when forced, else one that fails with
 * EEXIST rather than replace a file (a hard link where the file system has
 * no RENAME_NOREPLACE). Returns 0 or -1 with errno. */
static int place(const char *tmp, const char *dest, bool force)
{
    if (force)
        return rename(tmp, dest);
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(tmp, dest) < 0)
        return -1;
    unlink(tmp);
    return 0;
}

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* The checks before anything is written: the database exists, dest's
 * directory exists, dest is not the database and, unless forced, does not
 * exist. Returns 0, BACKUP_EXISTS or -1 with a message. */
static int preflight(const char *db_path, const char *dest, const char *dir, bool force, char *err,
                     size_t errlen)
{
    struct stat db, d;
    if (stat(db_path, &db) < 0) {
        snprintf(err, errlen,
                 errno == ENOENT ? "no database at %s (is the data directory right?)" : "%s: %s",
                 db_path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(db.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", db_path);
        return -1;
    }
    if (stat(dir, &d) < 0) {
        snprintf(err, errlen, errno == ENOENT ? "directory %s does not exist" : "%s: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (!S_ISDIR(d.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", dir);
        return -1;
    }
    if (dest[0] == '\0' || dest[strlen(dest) - 1] == '/') {
        snprintf(err, errlen, "'%s' names a directory, not a file", dest);
        return -1;
    }
    if (stat(dest, &d) == 0) {
        if (S_ISDIR(d.st_mode)) {
            snprintf(err, errlen, "%s is a directory", dest);
            return -1;
        }
        if (d.st_dev == db.st_dev && d.st_ino == db.st_ino) {
            snprintf(err, errlen, "%s is the database itself", dest);
            return -1;
        }
        if (!force) {
            snprintf(err, errlen, "%s exists (--force replaces it)", dest);
            return BACKUP_EXISTS;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", dest, strerror(errno));
        return -1;
    }
    return 0;
}

int backup_copy(const char *db_path, const char *dest, const struct backup_options *o,
                struct backup_summary *sum, char *err, size_t errlen)
{
    struct backup_summary local;
    char dir[PATH_MAX], tmp[PATH_MAX + 32], why[256];
    sqlite3 *src = NULL, *dst = NULL;
    int fd = -1, rc = -1;
    double t0 = clock_mono_ms();
    if (!sum)
        sum = &local;
    memset(sum, 0, sizeof *sum);
    if (dir_of(dest, dir, sizeof dir) < 0) {
        snprintf(err, errlen, "%s: path too long", dest);
        return -1;
    }
    if ((rc = preflight(db_path, dest, dir, o->force, err, errlen)) != 0)
        return rc;
    rc = -1;
    const char *base = strrchr(dest, '/') ? strrchr(dest, '/') + 1 : dest;
    int n = snprintf(tmp, sizeof tmp, "%s/.%s.tmp-XXXXXX", dir, base);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", dest);
        return -1;
    }
    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }

    /* The source: never created here (no SQLITE_OPEN_CREATE). */
    int r = sqlite3_open_v2(db_path, &src, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (r != SQLITE_OK) {
        sqlite_reason(src, r, why, sizeof why);
        snprintf(err, errlen, "cannot open %s: %s", db_path, why);
        goto out;
    }
    r = sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (r != SQLITE_OK) {
        sqlite_reason(dst, r, why, sizeof why);
        snprintf(err, errlen, "cannot open %s: %s", tmp, why);
        goto out;
    }
    if (copy_pages(src, dst, db_path, dest, o, sum, err, errlen) < 0)
        goto out;
    sqlite3_close(src);
    src = NULL;
    /* One self-contained file, in the journal mode of a fresh database. */
    if (exec(dst, "PRAGMA journal_mode = DELETE", err, errlen) < 0 ||
        check_copy(dst, sum, err, errlen) < 0)
        goto out;
    r = sqlite3_close(dst);
    dst = NULL;
    if (r != SQLITE_OK) {
        snprintf(err, errlen, "closing the copy: %s", sqlite3_errstr(r));
        goto out;
    }
    struct stat st;
    if (fsync(fd) < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s%s", tmp, strerror(errno),
                 errno == ENOSPC ? " (disk full)" : "");
        goto out;
    }
    sum->bytes = (int64_t)st.st_size;
    if (place(tmp, dest, o->force) < 0) {
        if (errno == EEXIST) {
            snprintf(err, errlen, "%s exists (--force replaces it)", dest);
            rc = BACKUP_EXISTS;
        } else {
            snprintf(err, errlen, "cannot rename the copy to %s: %s", dest, strerror(errno));
        }
        goto out;
    }
    if (sync_dir(dir) < 0) {
        /* The copy is in place; only its directory entry may not be durable yet. */
        snprintf(err, errlen, "%s is in place, but fsync of %s failed: %s", dest, dir,
                 strerror(errno));
        close(fd);
        return -1;
    }
    sum->ms = clock_mono_ms() - t0;
    close(fd);
    return 0;
out:
    sqlite3_close(src);
    sqlite3_close(dst);
    close(fd);
    remove_temp(tmp);
    return rc;
}
