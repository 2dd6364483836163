/*
 * worker — `attnjudge worker`: a judge host that serves no HTTP
 * (docs/operations.md, "Judge hosts").
 *
 * It reads the same configuration file as `serve`, opens the same
 * database and data directory, and runs the same judging workers
 * (queue.c): claims with leases renewed by a heartbeat, verdicts guarded
 * by the claim number. It takes no lock on the data directory: any number
 * of workers may judge beside one front end (`serve`, which may itself
 * run none: `--workers 0`). Started as root it gives root up exactly as
 * `serve` does, without binding a port.
 */
#include "server/worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "judge/judge.h"
#include "server/catalog.h"
#include "server/config.h"
#include "server/metrics.h"
#include "server/privilege.h"
#include "server/queue.h"
#include "server/store.h"
#include "util/clock.h"

static const char usage[] =
    "usage: attnjudge worker [--config FILE] [--data DIR] [--workers N] [--set KEY=VALUE]...\n"
    "\n"
    "Judges queued submissions without serving HTTP: a judge host beside the\n"
    "front end (attnjudge serve, possibly with --workers 0), on the same\n"
    "database and data directory (docs/operations.md, \"Judge hosts\"). It\n"
    "reads the server's config file; the keys it uses are data, reference,\n"
    "workers, lease_s, search_budget_ms, benchmark, bench_budget_ms, bench_cpu,\n"
    "user_bench_max, db_sync_full, shutdown_grace_s and run_as. SIGTERM or\n"
    "SIGINT stops it: the judgements in progress get shutdown_grace_s to\n"
    "finish, the others go back to the queue.\n"
    "\n"
    "  --config FILE     the server's 'key = value' file\n"
    "  --data DIR        the server's data directory (default ./data)\n"
    "  --reference DIR   reference solutions of the seed problems (default ./reference)\n"
    "  --workers N       judging threads (default auto: online CPUs)\n"
    "  --set KEY=VALUE   any config key, overriding the file\n"
    "  --help            this text\n";

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
        return -1;
    sa.sa_handler = SIG_IGN;
    return sigaction(SIGPIPE, &sa, NULL);
}

int worker_main(int argc, char **argv)
{
    struct config cfg;
    char err[1024], dbfile[CONFIG_PATH_MAX + 32];
    struct judge_ctx *judge = NULL;
    struct catalog *catalog = NULL;
    struct metrics *metrics = NULL;
    struct store *s = NULL;
    struct queue *q = NULL;
    struct stat st;
    int status = 1, rc;

    config_defaults(&cfg);
    rc = config_parse_command(&cfg, usage, argc, argv, err, sizeof err);
    if (rc == 1)
        return 0;
    if (rc < 0) {
        fprintf(stderr, "attnjudge worker: %s\n%s", err, usage);
        return 2;
    }
    config_finalize(&cfg);
    if (cfg.workers == 0) {
        fprintf(stderr, "attnjudge worker: workers = 0 would judge nothing\n");
        return 2;
    }
    /* the front end creates the data directory and the database; a worker
     * pointed at the wrong directory says so instead of starting empty */
    config_database_url(&cfg, dbfile, sizeof dbfile);
    char sqlite_path[CONFIG_PATH_MAX + 32];
    if (config_database_sqlite(&cfg, sqlite_path, sizeof sqlite_path) &&
        stat(sqlite_path, &st) < 0) {
        fprintf(stderr,
                "attnjudge worker: no database at %s (%s): start attnjudge serve on this data "
                "directory first\n",
                sqlite_path, strerror(errno));
        return 1;
    }
    if (install_signals() < 0) {
        fprintf(stderr, "attnjudge worker: sigaction: %s\n", strerror(errno));
        return 1;
    }
    cfg.port = -1; /* privilege_drop: no port to bind */
    snprintf(cfg.access_log, sizeof cfg.access_log, "off");
    snprintf(cfg.web_dir, sizeof cfg.web_dir, "%s", cfg.data_dir);
    if ((rc = privilege_drop(&cfg, err, sizeof err)) < 0) {
        fprintf(stderr, "attnjudge worker: %s\n", err);
        return rc == PRIVILEGE_BAD_CONFIG ? 2 : 1;
    }
    config_database_url(&cfg, dbfile, sizeof dbfile); /* data_dir may be a descriptor now */
    if (!(judge = judge_open_secret(cfg.data_dir, cfg.secret_file, err, sizeof err))) {
        fprintf(stderr, "attnjudge worker: cannot start the judge: %s\n", err);
        goto out;
    }
    if (!(s = store_open(dbfile, cfg.db_sync_full, err, sizeof err))) {
        fprintf(stderr, "attnjudge worker: database: %s\n", err);
        goto out;
    }
    /* migrations are transactions that check the version first: running
     * them beside a front end doing the same is safe */
    if (store_migrate(s) < 0) {
        fprintf(stderr, "attnjudge worker: database migration: %s\n", store_error(s));
        goto out;
    }
    /* s stays open for the catalog's refreshes */
    if (!(catalog = catalog_new(cfg.data_dir, cfg.reference_dir)) ||
        catalog_set_database(catalog, dbfile) < 0 || !(metrics = metrics_new())) {
        fprintf(stderr, "attnjudge worker: out of memory\n");
        goto out;
    }
    /* the current versions, loaded (and fetched) before the first claim */
    (void)!catalog_refresh(catalog, s);
    struct queue_bench bench;
    if (queue_bench_init(&bench, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge worker: %s\n", err);
        goto out;
    }
    struct queue_host host = {.lease_ms = (int64_t)cfg.lease_s * 1000,
                              .watch = true,
                              .search_budget_ms = cfg.search_budget_ms};
    if (!(q = queue_start(dbfile, cfg.db_sync_full, cfg.workers, judge, catalog, metrics, &bench,
                          &host, err, sizeof err))) {
        fprintf(stderr, "attnjudge worker: %s\n", err);
        goto out;
    }
    printf("attnjudge worker: judge host %s judging with %d worker(s) (lease %d s, data %s)\n",
           queue_host_name(q), queue_workers_live(q), cfg.lease_s, cfg.data_dir);
    fflush(stdout);
    double next_refresh = clock_mono_ms() + CATALOG_REFRESH_MS;
    while (!stop_requested) {
        struct timespec tick = {0, 200 * 1000 * 1000};
        nanosleep(&tick, NULL);
        /* problems deleted and made anew elsewhere: their old files go */
        if (clock_mono_ms() >= next_refresh) {
            (void)!catalog_refresh(catalog, s);
            next_refresh = clock_mono_ms() + CATALOG_REFRESH_MS;
        }
    }
    fprintf(stderr, "attnjudge worker: stopping; waiting up to %d s for judgements\n",
            cfg.shutdown_grace_s);
    int stuck = queue_stop(q, cfg.shutdown_grace_s);
    q = NULL;
    fprintf(stderr, "attnjudge worker: stopped%s\n",
            stuck ? " (unfinished judgements were re-queued)" : "");
    if (stuck)
        return 0; /* workers still use the judge: leave it, the process exits */
    status = 0;
out:
    if (q && queue_stop(q, 0))
        return status;
    store_close(s);
    metrics_free(metrics);
    catalog_free(catalog);
    if (judge)
        judge_close(judge);
    return status;
}
