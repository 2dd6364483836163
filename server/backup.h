/*
 * backup — a consistent copy of the server's database while it runs
 * (`attnjudge backup`, docs/operations.md "Backups").
 *
 * backup_copy reads the live database through SQLite's online backup API,
 * a bounded number of pages per step, into a temporary file beside the
 * destination, checks the copy (integrity_check, schema_version), syncs it
 * and renames it into place. The destination is either absent, or the
 * whole checked copy: never a part of one. backup_archive does the same
 * with a tar archive of the copy, secret.key and problems/ (--with-files).
 */
#ifndef ATTNJUDGE_SERVER_BACKUP_H
#define ATTNJUDGE_SERVER_BACKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

/* backup_copy's answer when the destination exists and force is off. */
#define BACKUP_EXISTS 1
#define BACKUP_ERR_LEN 512

struct backup_options {
    int step_pages;    /* pages copied per step (> 0) */
    int busy_sleep_ms; /* pause before retrying a step that found the source busy, ms */
    int busy_limit_ms; /* total pauses after which a busy source is an error, ms */
    int max_restarts;  /* restarts caused by writers before the rest is copied in one step */
    bool force;        /* replace an existing destination */
    /* Called (if set) after every step that did not finish the copy, with
     * the pages left and the pages in all as SQLite counts them then. */
    void (*progress)(void *arg, int remaining, int pagecount);
    void *progress_arg;
};

/* What the copy holds, read from the copy itself after its checks. */
struct backup_summary {
    int schema_version;  /* the newest migration applied */
    int64_t users;       /* rows of users */
    int64_t submissions; /* rows of submissions */
    int64_t pending;     /* of those, queued or judging */
    int64_t bytes;       /* size of the destination file */
    int64_t files;       /* backup_archive: files archived from problems/ */
    int restarts;        /* steps that began again because a writer changed the source */
    bool single_step;    /* the restart limit was reached: the rest was copied in one step */
    double ms;           /* wall time, from opening the source to the rename */
};

/* Fills o with the defaults: 1024 pages a step, 20 ms pauses on a busy
 * source for at most 30 s in all, one step for the rest after 8 restarts,
 * no force, no progress callback. */
void backup_options_default(struct backup_options *o);

/* Copies the database file db_path (which must exist: it is never created)
 * to dest, as described above, and fills sum (may be NULL). dest's
 * directory must exist; dest may not be db_path itself. Returns 0,
 * BACKUP_EXISTS (dest exists and o->force is off; nothing written), or -1
 * with a message in err: dest is as it was and no temporary file is left,
 * except when only the final fsync of dest's directory failed (the copy
 * is then in place, and err says so). */
int backup_copy(const char *db_path, const char *dest, const struct backup_options *o,
                struct backup_summary *sum, char *err, size_t errlen) MUST_CHECK;

/* The same with the rest of the data directory that a restore needs: dest
 * becomes a POSIX tar archive holding the checked copy of
 * data_dir/attnjudge.db as attnjudge.db, then data_dir/secret.key, then
 * data_dir/problems/ (every version's files; left out if there is none),
 * with their permissions. Extracted into an empty directory it is a data
 * directory. Same answers and guarantees as backup_copy; a missing
 * secret.key is an error. */
int backup_archive(const char *data_dir, const char *dest, const struct backup_options *o,
                   struct backup_summary *sum, char *err, size_t errlen) MUST_CHECK;

#endif
