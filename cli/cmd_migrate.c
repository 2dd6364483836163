/*
 * attnjudge migrate — moves a deployment's SQLite database into an empty
 * PostgreSQL database (server/migrate.c does the copy; docs/operations.md,
 * "Moving up to PostgreSQL", says when and what follows). This file reads
 * the options and finds the source: --from, else the `database` (or the
 * data directory) of --config's file or of --data, else ./data.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "server/config.h"
#include "server/migrate.h"
#include "util/clock.h"

static const char migrate_usage[] =
    "usage: attnjudge migrate [--config FILE | --data DIR | --from PATH] --to URL\n"
    "\n"
    "Copies the server's SQLite database into the empty PostgreSQL database\n"
    "at URL (postgresql://USER:PASSWORD@HOST:PORT/DB): users and sessions,\n"
    "problems and their versions, submissions with their results, hints,\n"
    "rejudges, assignments and drafts, each row with its id, in one\n"
    "transaction. Both databases are first brought to the newest schema.\n"
    "Stop the server first: what it writes after the copy starts is not\n"
    "copied. Then point every host's `database` at URL (docs/operations.md,\n"
    "\"Moving up to PostgreSQL\"); the data directory (secret.key, problem\n"
    "versions) stays as it is.\n"
    "\n"
    "  --to URL           the PostgreSQL database (required; it must hold no course)\n"
    "  --config FILE      the server's config file: its `database`, else data/attnjudge.db\n"
    "  --data DIR         the server's data directory (default ./data)\n"
    "  --from PATH        the SQLite file itself\n"
    "  --help             this text\n"
    "\n"
    "Exit status: 0 copied, 1 failed (the destination unchanged), 2 usage error.\n";

int cmd_migrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},   {"from", required_argument, NULL, 'f'},
        {"data", required_argument, NULL, 'd'}, {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *to = NULL, *from = NULL, *data = NULL, *conf = NULL;
    char err[1024], src[CONFIG_PATH_MAX + 32];
    struct config cfg;
    int ch;

    config_defaults(&cfg);
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case 't': to = optarg; break;
        case 'f': from = optarg; break;
        case 'd': data = optarg; break;
        case 'c': conf = optarg; break;
        case 'h': fputs(migrate_usage, stdout); return CLI_OK;
        default:
            fprintf(stderr, "attnjudge migrate: bad option '%s'\n%s", argv[optind - 1],
                    migrate_usage);
            return CLI_USAGE;
        }
    }
    if (optind != argc || !to) {
        fprintf(stderr, "attnjudge migrate: %s\n%s",
                optind != argc ? "unexpected argument" : "--to URL is required", migrate_usage);
        return CLI_USAGE;
    }
    if (!!from + !!data + !!conf > 1) {
        fprintf(stderr, "attnjudge migrate: give one of --config, --data and --from\n");
        return CLI_USAGE;
    }
    if (strncmp(to, "postgresql://", 13) && strncmp(to, "postgres://", 11)) {
        fprintf(stderr, "attnjudge migrate: --to must be a PostgreSQL URL (postgresql://...)\n");
        return CLI_USAGE;
    }
    if ((conf && config_load_file(&cfg, conf, err, sizeof err) < 0) ||
        (data && config_set(&cfg, "data", data, err, sizeof err) < 0)) {
        fprintf(stderr, "attnjudge migrate: %s\n", err);
        return CLI_USAGE;
    }
    if (from)
        snprintf(src, sizeof src, "%s", from);
    else if (!config_database_sqlite(&cfg, src, sizeof src)) {
        fprintf(stderr, "attnjudge migrate: the configured database is PostgreSQL already\n");
        return CLI_USAGE;
    }
    FILE *probe = fopen(src, "r");
    if (!probe) {
        fprintf(stderr, "attnjudge migrate: no SQLite database at %s\n", src);
        return CLI_FAIL;
    }
    fclose(probe);
    double t0 = clock_mono_ms();
    printf("migrating %s into PostgreSQL:\n", src);
    fflush(stdout);
    if (migrate_sqlite_to(src, to, stdout, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge migrate: %s (nothing was written to the destination)\n", err);
        return CLI_FAIL;
    }
    /* the URL is not repeated: it may hold a password */
    printf("done in %.0f ms: now set `database` to that URL for every host\n",
           clock_mono_ms() - t0);
    return CLI_OK;
}
