/*
 * attnjudge backup — a consistent copy of a deployment's database, taken
 * while the server runs (or not). The copying and checking is
 * server/backup.c; this file reads the options, finds the data directory
 * (`data` of --config's file, or --data, else ./data; not both, so that a
 * backup never reads another directory than the one meant), and prints
 * what was copied. docs/operations.md "Backups" has the restore.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "server/backup.h"
#include "server/config.h"
#include "server/store.h"

static const char backup_usage[] =
    "usage: attnjudge backup [--config FILE | --data DIR] [--force] [--with-files] FILE\n"
    "\n"
    "Copies the server's database (DIR/attnjudge.db) to FILE with SQLite's\n"
    "online backup, while the server runs or not: a few pages at a time, so\n"
    "the server's writers are not held up. The copy is written beside FILE,\n"
    "checked (integrity_check, schema version), synced and renamed to FILE,\n"
    "so FILE is either the whole checked copy or not there. FILE is one\n"
    "self-contained SQLite file, mode 0600.\n"
    "\n"
    "The database is not everything: keep DIR/secret.key and DIR/problems/\n"
    "too (docs/operations.md, \"Backups\", says why and how to restore), or\n"
    "take all three at once with --with-files: FILE is then a tar archive of\n"
    "the checked copy (as attnjudge.db), secret.key and problems/, to extract\n"
    "into an empty data directory.\n"
    "\n"
    "  --data DIR         the server's data directory (default ./data)\n"
    "  --config FILE      read 'data' and 'database' from the server's config file\n"
    "  --force            replace FILE if it exists (else refused)\n"
    "  --with-files       FILE is a tar archive of the copy, secret.key and problems/\n"
    "  --step-pages N     database pages copied per step (default 1024)\n"
    "  --help             this text\n"
    "\n"
    "Exit status: 0 copied, 1 failed (FILE untouched), 2 usage error.\n";

int cmd_backup(int argc, char **argv)
{
    static const struct option opts[] = {
        {"data", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {"step-pages", required_argument, NULL, 'p'},
        {"with-files", no_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    struct backup_options o;
    struct backup_summary sum;
    struct config cfg;
    const char *data = NULL, *conf = NULL;
    bool with_files = false;
    char err[BACKUP_ERR_LEN], dbfile[CONFIG_PATH_MAX + 32];
    int ch;

    backup_options_default(&o);
    config_defaults(&cfg);
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': data = optarg; break;
        case 'c': conf = optarg; break;
        case 'f': o.force = true; break;
        case 'w': with_files = true; break;
        case 'p': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > INT_MAX) {
                fprintf(stderr, "attnjudge backup: --step-pages wants a positive number\n");
                return CLI_USAGE;
            }
            o.step_pages = (int)v;
            break;
        }
        case 'h': fputs(backup_usage, stdout); return CLI_OK;
        default:
            fprintf(stderr, "attnjudge backup: bad option '%s'\n%s", argv[optind - 1],
                    backup_usage);
            return CLI_USAGE;
        }
    }
    if (argc - optind != 1) {
        fputs(backup_usage, stderr);
        return CLI_USAGE;
    }
    if (data && conf) {
        fprintf(stderr, "attnjudge backup: give --config or --data, not both\n");
        return CLI_USAGE;
    }
    if (conf && config_load_file(&cfg, conf, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge backup: %s\n", err);
        return CLI_USAGE;
    }
    if (data && config_set(&cfg, "data", data, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge backup: %s\n", err);
        return CLI_USAGE;
    }
    const char *dest = argv[optind];
    if (!config_database_sqlite(&cfg, dbfile, sizeof dbfile)) {
        /* PostgreSQL has its own consistent copy (docs/operations.md) */
        fprintf(stderr, "attnjudge backup: the database is PostgreSQL: back it up with pg_dump "
                        "(docs/operations.md, \"Backups\")\n");
        return CLI_USAGE;
    }
    char in_data[CONFIG_PATH_MAX + 32];
    snprintf(in_data, sizeof in_data, "%s/attnjudge.db", cfg.data_dir);
    if (with_files && strcmp(dbfile, in_data)) {
        fprintf(stderr, "attnjudge backup: --with-files archives the data directory's "
                        "attnjudge.db, and `database` names another file: back that one up "
                        "without --with-files\n");
        return CLI_USAGE;
    }
    int rc = with_files ? backup_archive(cfg.data_dir, dest, &o, &sum, err, sizeof err)
                        : backup_copy(dbfile, dest, &o, &sum, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "attnjudge backup: %s\n", err);
        return CLI_FAIL;
    }
    if (with_files)
        printf("archived %s with %s/secret.key and %lld files of %s/problems/ ", dbfile,
               cfg.data_dir, (long long)sum.files, cfg.data_dir);
    else
        printf("copied %s ", dbfile);
    printf("to %s (%lld bytes, %.0f ms): schema version %d, users %lld, submissions "
           "%lld (queued or judging %lld); integrity ok",
           dest, (long long)sum.bytes, sum.ms, sum.schema_version, (long long)sum.users,
           (long long)sum.submissions, (long long)sum.pending);
    if (sum.restarts)
        printf("; %d restart%s by writers%s", sum.restarts, sum.restarts == 1 ? "" : "s",
               sum.single_step ? ", the rest copied in one step" : "");
    putchar('\n');
    if (sum.schema_version > store_schema_latest())
        printf("note: schema version %d is newer than this program's (%d): restore it with the "
               "attnjudge that wrote it\n",
               sum.schema_version, store_schema_latest());
    return CLI_OK;
}
