/*
 * backup — a consistent copy of the live database, page by page
 * (backup.h).
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
 *
 * The archive (backup_archive, `--with-files`): the checked copy is made
 * the same way into a second temporary file, then a tar (POSIX pax)
 * archive of it, secret.key and problems/ is written to the first one,
 * synced and renamed the same way. The database is copied before the
 * files because the catalog writes a version's files before it records
 * the version: files copied later hold every version the copy names.
 */
#include "server/backup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
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

/* Creates the temporary file ".<dest's name>.tmp-XXXXXX" in dir (0600);
 * its path goes to tmp. Returns the descriptor, or -1 with a message. */
static int make_temp(const char *dir, const char *dest, char *tmp, size_t len, char *err,
                     size_t errlen)
{
    const char *base = strrchr(dest, '/') ? strrchr(dest, '/') + 1 : dest;
    int n = snprintf(tmp, len, "%s/.%s.tmp-XXXXXX", dir, base);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "%s: path too long", dest);
        return -1;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
    return fd;
}

/* The checked copy of db_path into the temporary file tmp (descriptor
 * fd), closed and fsync'ed; sum gets its counts and size. dest only words
 * the messages. Returns 0, or -1 with a message (tmp is left to the
 * caller). */
static int checked_copy(const char *db_path, const char *tmp, int fd, const char *dest,
                        const struct backup_options *o, struct backup_summary *sum, char *err,
                        size_t errlen)
{
    char why[256];
    sqlite3 *src = NULL, *dst = NULL;
    int rc = -1;
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
        int e = errno;
        snprintf(err, errlen, "%s: %s%s", tmp, strerror(e), e == ENOSPC ? " (disk full)" : "");
        goto out;
    }
    sum->bytes = (int64_t)st.st_size;
    rc = 0;
out:
    sqlite3_close(src);
    sqlite3_close(dst);
    return rc;
}

/* Renames the finished tmp to dest and syncs dir. Returns 0,
 * BACKUP_EXISTS or -1 with a message; tmp is gone unless -1 or
 * BACKUP_EXISTS (the caller removes it). *placed tells whether dest is the
 * new file (also when only the directory's fsync failed). */
static int publish(const char *tmp, const char *dest, const char *dir, bool force, bool *placed,
                   char *err, size_t errlen)
{
    *placed = false;
    if (place(tmp, dest, force) < 0) {
        if (errno == EEXIST) {
            snprintf(err, errlen, "%s exists (--force replaces it)", dest);
            return BACKUP_EXISTS;
        }
        snprintf(err, errlen, "cannot rename the copy to %s: %s", dest, strerror(errno));
        return -1;
    }
    *placed = true;
    if (sync_dir(dir) < 0) {
        /* The copy is in place; only its directory entry may not be durable yet. */
        snprintf(err, errlen, "%s is in place, but fsync of %s failed: %s", dest, dir,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int backup_copy(const char *db_path, const char *dest, const struct backup_options *o,
                struct backup_summary *sum, char *err, size_t errlen)
{
    struct backup_summary local;
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    bool placed = false;
    int fd, rc;
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
    if ((fd = make_temp(dir, dest, tmp, sizeof tmp, err, errlen)) < 0)
        return -1;
    rc = checked_copy(db_path, tmp, fd, dest, o, sum, err, errlen);
    if (rc == 0)
        rc = publish(tmp, dest, dir, o->force, &placed, err, errlen);
    close(fd);
    if (!placed)
        remove_temp(tmp);
    sum->ms = clock_mono_ms() - t0;
    return rc;
}

/* ---- --with-files: one tar archive ---- */

/* Adds the regular file at path to a as name, with its permissions.
 * Returns 0, or -1 with a message. */
static int archive_file(struct archive *a, struct archive_entry *e, const char *path,
                        const char *name, char *err, size_t errlen)
{
    char buf[64 * 1024];
    struct stat st;
    int rc = -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        goto out;
    }
    archive_entry_clear(e);
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, st.st_mode & 0777);
    archive_entry_set_size(e, (la_int64_t)st.st_size);
    archive_entry_set_mtime(e, st.st_mtime, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK)
        goto archive_failed;
    off_t left = st.st_size;
    while (left > 0) {
        ssize_t n = read(fd, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* the files archived are never rewritten: a short one is an error */
            snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(errno) : "shrank while read");
            goto out;
        }
        if (archive_write_data(a, buf, (size_t)n) != n)
            goto archive_failed;
        left -= n;
    }
    rc = 0;
    goto out;
archive_failed:
    snprintf(err, errlen, "writing the archive: %s%s", archive_error_string(a),
             archive_errno(a) == ENOSPC ? " (disk full)" : "");
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Adds the directory path as name, and everything below it (directories
 * and regular files; the data directory holds nothing else), to a;
 * *files counts the files. Returns 0, or -1 with a message. */
static int archive_tree(struct archive *a, struct archive_entry *e, const char *path,
                        const char *name, int depth, int64_t *files, char *err, size_t errlen)
{
    char sub[PATH_MAX], subname[PATH_MAX];
    struct stat st;
    int rc = -1;
    if (depth > 16) {
        snprintf(err, errlen, "%s: too deep", path);
        return -1;
    }
    DIR *d = opendir(path);
    if (!d || fstat(dirfd(d), &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    archive_entry_clear(e);
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFDIR);
    archive_entry_set_perm(e, st.st_mode & 0777);
    archive_entry_set_mtime(e, st.st_mtime, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK) {
        snprintf(err, errlen, "writing the archive: %s", archive_error_string(a));
        goto out;
    }
    struct dirent *ent;
    while ((errno = 0, ent = readdir(d))) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        int n1 = snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
        int n2 = snprintf(subname, sizeof subname, "%s/%s", name, ent->d_name);
        if (n1 < 0 || (size_t)n1 >= sizeof sub || n2 < 0 || (size_t)n2 >= sizeof subname) {
            snprintf(err, errlen, "%s: path too long", path);
            goto out;
        }
        if (lstat(sub, &st) < 0) {
            snprintf(err, errlen, "%s: %s", sub, strerror(errno));
            goto out;
        }
        if (S_ISDIR(st.st_mode)) {
            if (archive_tree(a, e, sub, subname, depth + 1, files, err, errlen) < 0)
                goto out;
        } else if (S_ISREG(st.st_mode)) {
            if (archive_file(a, e, sub, subname, err, errlen) < 0)
                goto out;
            ++*files;
        }
    }
    if (errno) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (d)
        closedir(d);
    return rc;
}

/* Writes the tar archive to fd: the checked copy db_tmp as attnjudge.db,
 * then data_dir's secret.key and problems/. Returns 0, or -1 with a
 * message. */
static int write_archive(int fd, const char *db_tmp, const char *data_dir,
                         struct backup_summary *sum, char *err, size_t errlen)
{
    char path[PATH_MAX];
    struct stat st;
    int rc = -1;
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    if (!a || !e) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_fd(a, fd) != ARCHIVE_OK) {
        snprintf(err, errlen, "starting the archive: %s", archive_error_string(a));
        goto out;
    }
    if (archive_file(a, e, db_tmp, "attnjudge.db", err, errlen) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/secret.key", data_dir);
    if (archive_file(a, e, path, "secret.key", err, errlen) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/problems", data_dir);
    if (stat(path, &st) == 0 &&
        archive_tree(a, e, path, "problems", 0, &sum->files, err, errlen) < 0)
        goto out;
    if (archive_write_close(a) != ARCHIVE_OK) {
        snprintf(err, errlen, "writing the archive: %s%s", archive_error_string(a),
                 archive_errno(a) == ENOSPC ? " (disk full)" : "");
        goto out;
    }
    rc = 0;
out:
    archive_entry_free(e);
    archive_write_free(a);
    return rc;
}

int backup_archive(const char *data_dir, const char *dest, const struct backup_options *o,
                   struct backup_summary *sum, char *err, size_t errlen)
{
    struct backup_summary local;
    char dir[PATH_MAX], db_path[PATH_MAX], db_tmp[PATH_MAX + 32], tmp[PATH_MAX + 32];
    bool placed = false;
    int db_fd = -1, fd = -1, rc;
    double t0 = clock_mono_ms();
    if (!sum)
        sum = &local;
    memset(sum, 0, sizeof *sum);
    int n = snprintf(db_path, sizeof db_path, "%s/attnjudge.db", data_dir);
    if (n < 0 || (size_t)n >= sizeof db_path || dir_of(dest, dir, sizeof dir) < 0) {
        snprintf(err, errlen, "%s: path too long",
                 n < 0 || (size_t)n >= sizeof db_path ? data_dir : dest);
        return -1;
    }
    if ((rc = preflight(db_path, dest, dir, o->force, err, errlen)) != 0)
        return rc;
    rc = -1;
    char key[PATH_MAX];
    struct stat kst;
    snprintf(key, sizeof key, "%s/secret.key", data_dir);
    if (lstat(key, &kst) < 0) {
        snprintf(err, errlen,
                 errno == ENOENT ? "no %s (the server makes it at its first start)" : "%s: %s", key,
                 strerror(errno));
        return -1;
    }
    /* the database copy first, then the files: a problem version's files
     * are written before the database records it, so every version this
     * copy names is on disk by now */
    if ((db_fd = make_temp(dir, dest, db_tmp, sizeof db_tmp, err, errlen)) < 0)
        return -1;
    if (checked_copy(db_path, db_tmp, db_fd, dest, o, sum, err, errlen) < 0 ||
        (fd = make_temp(dir, dest, tmp, sizeof tmp, err, errlen)) < 0)
        goto out;
    if (write_archive(fd, db_tmp, data_dir, sum, err, errlen) < 0)
        goto out;
    struct stat st;
    if (fsync(fd) < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s%s", tmp, strerror(e), e == ENOSPC ? " (disk full)" : "");
        goto out;
    }
    sum->bytes = (int64_t)st.st_size;
    rc = publish(tmp, dest, dir, o->force, &placed, err, errlen);
out:
    close(db_fd);
    remove_temp(db_tmp);
    if (fd >= 0) {
        close(fd);
        if (!placed)
            remove_temp(tmp);
    }
    sum->ms = clock_mono_ms() - t0;
    return rc;
}
