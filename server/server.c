/*
 * server — `attnjudge serve`: its threads, their start-up order and
 * their shutdown (server.h).
 *
 * `attnjudge serve` wires the modules together:
 *
 *   main thread      start-up, then a 200 ms tick: signals, the periodic
 *                    sandbox self-test for /healthz, session purging
 *   MHD threads      HTTP (http.c → routes.c), connections from a pool
 *   worker threads   judging (queue.c), one connection each
 *
 * Start-up raises the soft descriptor limit to the hard one and, before the
 * port opens, sizes the connection limit so that connections can never take
 * the descriptors judging needs (connection_budget).
 *
 * Start-up order matters: the data directory is locked (flock on
 * <data>/server.lock) so that a second front end cannot share it (two
 * would import the problems directory at once); `attnjudge worker`
 * processes (worker.c) take no lock and judge beside it. Started as root,
 * the server then binds its port, hands the
 * data directory to run_as and becomes run_as (privilege.c): everything
 * after runs unprivileged. Then the judge is opened (no sandbox, no server: the
 * operator gets the judge's message and exit status 1), the schema is
 * migrated, problems are imported, interrupted judgements are re-queued
 * (queue_start: those of this machine's dead judge processes, and expired
 * leases), workers start, and only then does the port open.
 *
 * Shutdown (SIGTERM/SIGINT): the signal handler only sets a flag. The main
 * thread closes the port and the open connections (MHD waits for running
 * handlers), then gives the workers shutdown_grace_s to finish the
 * judgements in progress; what is still running is re-queued in the
 * database and judged after the next start.
 */
#include "server/server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "server/app.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "server/lti_outbox.h"
#include "server/metrics.h"
#include "server/catalog.h"
#include "server/privilege.h"
#include "server/queue.h"
#include "server/lti_ctx.h"
#include "server/ratelimit.h"
#include "server/routes.h"
#include "server/runs.h"
#include "server/store.h"
#include "util/clock.h"

/* Draft saves per user (docs/api.md, "Drafts"): the editor saves 1.5 s
 * after typing stops, so a person stays far below this; a script does not. */
#define DRAFT_RATE_PER_MIN 60
#define DRAFT_BURST 30

/* The one mutable global: what signal handling needs. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The database to open: `database`, or the data directory's file. */
static void db_path(const struct config *c, char *buf, size_t len)
{
    config_database_url(c, buf, len);
}

/* Creates the data directory (0700: it holds the secret and the database)
 * and takes its lock. Returns the lock fd or -1. */
static int lock_data_dir(const char *dir)
{
    static const char what_to_do[] = "name a writable directory: --data DIR or data = DIR";
    char path[CONFIG_PATH_MAX + 32];
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "attnjudge: data directory %s: cannot create it: %s (%s)\n", dir,
                strerror(errno), what_to_do);
        return -1;
    }
    snprintf(path, sizeof path, "%s/server.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        if (errno == ENOTDIR)
            fprintf(stderr, "attnjudge: data directory %s: not a directory (%s)\n", dir,
                    what_to_do);
        else
            fprintf(stderr,
                    "attnjudge: data directory %s: cannot create server.lock in it: %s (%s)\n", dir,
                    strerror(errno), what_to_do);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "attnjudge: another attnjudge server is using %s\n", dir);
        close(fd);
        return -1;
    }
    return fd;
}

/* Re-runs the sandbox check of the judge's start-up (judge_open) for
 * /healthz: the sandbox alone, nothing of the judge's state. */
static int sandbox_selftest(void)
{
    char err[512];
    if (sbx_selftest(err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: sandbox self-test failed: %s\n", err);
        return 0;
    }
    return 1;
}

/* Raises the soft descriptor limit to the hard one: every connection is a
 * descriptor, and so is every pipe and memfd of a judgement; systemd's
 * default soft limit (1024) is what let connections starve the judge.
 * Returns the limit now in force. */
static long raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl = want;
        else
            fprintf(stderr, "attnjudge: cannot raise the descriptor limit to %llu: %s\n",
                    (unsigned long long)rl.rlim_max, strerror(errno));
    }
    return rl.rlim_cur > (rlim_t)1 << 30 ? 1L << 30 : (long)rl.rlim_cur;
}

/* Descriptors open in this process now. */
static long open_fds(void)
{
    long n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 64; /* a guess: the reserve below has slack anyway */
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Sets cfg->max_connections (0 = automatic) so that HTTP connections can
 * never take the descriptors judging needs: the limit less a reserve of
 * what is open now (database, log, judge), MHD's own (an epoll and a
 * wake-up descriptor per thread, the listening socket), 32 per worker (a
 * judgement holds about 12 pipes, memfds and pidfds at its peak) and 64 of
 * slack (SQLite's temporary files, the periodic self-test). */
static void connection_budget(struct config *cfg, long nofile)
{
    long reserve = open_fds() + 2L * cfg->http_threads + 4 + 32L * cfg->workers + 64;
    long avail = nofile - reserve;
    if (cfg->max_connections == 0) {
        cfg->max_connections = avail < 16 ? 16 : avail > 4096 ? 4096 : (int)avail;
        if (avail < 16)
            fprintf(stderr,
                    "attnjudge: the descriptor limit (%ld) leaves no room for connections beside "
                    "judging; raise it (LimitNOFILE=)\n",
                    nofile);
    } else if (cfg->max_connections > avail) {
        fprintf(stderr,
                "attnjudge: max_connections = %d exceeds the %ld descriptors left by the limit "
                "(%ld): a flood of connections can make judgements wait for descriptors\n",
                cfg->max_connections, avail > 0 ? avail : 0, nofile);
    }
}

static int install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
        return -1;
    /* A client closing its socket mid-response must not kill the server. */
    sa.sa_handler = SIG_IGN;
    return sigaction(SIGPIPE, &sa, NULL);
}

int server_main(int argc, char **argv)
{
    struct config cfg;
    struct app app;
    char err[1024], dbfile[CONFIG_PATH_MAX + 32], mathcheck[CONFIG_PATH_MAX + 32];
    int status = 1, lock_fd = -1, stuck = 0;
    struct store *main_store = NULL;
    struct http_server *http = NULL;
    memset(&app, 0, sizeof app);
    app.web_fd = -1;

    config_defaults(&cfg);
    int rc = config_parse_args(&cfg, argc, argv, err, sizeof err);
    if (rc == 1)
        return 0;
    if (rc < 0) {
        fprintf(stderr, "attnjudge serve: %s\n%s", err, config_usage());
        return 2;
    }
    config_finalize(&cfg);
    app.cfg = &cfg;
    long nofile = raise_nofile();
    /* Request bodies of 128 KiB and more are mmap'ed, so their memory goes
     * back to the system when they are freed. glibc's default threshold
     * grows with the largest block freed, after which such bodies come
     * from the heap and a burst of uploads stays resident for good. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    stop_requested = 0;
    if (install_signals() < 0) {
        fprintf(stderr, "attnjudge: sigaction: %s\n", strerror(errno));
        return 1;
    }
    if ((lock_fd = lock_data_dir(cfg.data_dir)) < 0)
        goto out;
    /* root: bind, take the data directory, then run as cfg.run_as */
    if ((rc = privilege_drop(&cfg, err, sizeof err)) < 0) {
        fprintf(stderr, "attnjudge: %s\n", err);
        status = rc == PRIVILEGE_BAD_CONFIG ? 2 : 1;
        goto out;
    }
    if (!(app.judge = judge_open_secret(cfg.data_dir, cfg.secret_file, err, sizeof err))) {
        fprintf(stderr, "attnjudge: cannot start the judge: %s\n", err);
        if (cfg.listen_fd >= 0) /* privilege_drop ran */
            fprintf(stderr, "attnjudge: (as run_as, sandboxes need unprivileged user "
                            "namespaces; see docs/operations.md, \"Privileges\")\n");
        goto out;
    }
    atomic_store(&app.sandbox_ok, 1);
    db_path(&cfg, dbfile, sizeof dbfile);
    if (!(main_store = store_open(dbfile, cfg.db_sync_full, err, sizeof err))) {
        fprintf(stderr, "attnjudge: database: %s\n", err);
        goto out;
    }
    if (store_migrate(main_store) < 0) {
        fprintf(stderr, "attnjudge: database migration: %s\n", store_error(main_store));
        goto out;
    }
    config_mathcheck_script(&cfg, mathcheck, sizeof mathcheck);
    if (!(app.catalog = catalog_new(cfg.data_dir, cfg.reference_dir)) ||
        catalog_set_database(app.catalog, dbfile) < 0 ||
        catalog_set_mathcheck(app.catalog, mathcheck) < 0 ||
        catalog_sync(app.catalog, main_store, cfg.problems_dir, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: problems: %s\n", app.catalog ? err : "out of memory");
        goto out;
    }
    if (!(app.auth = auth_new(cfg.password_hashers, cfg.password_hash_limits)) ||
        !(app.metrics = metrics_new()) ||
        !(app.submit_rl = ratelimit_new(cfg.submit_rate_per_min, cfg.submit_burst, 100000)) ||
        !(app.run_rl = ratelimit_new(cfg.run_rate_per_min, cfg.run_burst, 100000)) ||
        /* draft saves: the editor saves at most every 1.5 s of typing */
        !(app.draft_rl = ratelimit_new(DRAFT_RATE_PER_MIN, DRAFT_BURST, 100000)) ||
        !(app.auth_rl = ratelimit_new(cfg.auth_rate_per_min, cfg.auth_burst, 100000)) ||
        !(app.signin_rl =
              ratelimit_new(cfg.account_fail_rate_per_min, cfg.account_fail_burst, 100000))) {
        fprintf(stderr, "attnjudge: out of memory (or libsodium failed to start)\n");
        goto out;
    }
    auth_device_key(app.auth, app.judge->secret.key, sizeof app.judge->secret.key);
    if (cfg.password_hash_limits == AUTH_LIMITS_MINIMUM)
        fprintf(stderr, "attnjudge: password_hash_limits = minimum: new passwords are hashed at "
                        "libsodium's least cost, cheap to guess from a copy of the database (for "
                        "test servers only)\n");
    /* the tool's LTI keys, generated at the first start (docs/lti.md) */
    if (!(app.lti = lti_new(cfg.data_dir, app.judge->secret.key, sizeof app.judge->secret.key, err,
                            sizeof err))) {
        fprintf(stderr, "attnjudge: lti: %s\n", err);
        goto out;
    }
    /* Each HTTP thread handles one request at a time: one connection each,
     * plus slack, means the pool never makes a handler wait. */
    if (!(app.pool =
              store_pool_new(dbfile, cfg.db_sync_full, cfg.http_threads + 2, err, sizeof err))) {
        fprintf(stderr, "attnjudge: database: %s\n", err);
        goto out;
    }
    app.web_fd = open(cfg.web_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (app.web_fd < 0)
        fprintf(stderr, "attnjudge: web directory %s: %s (the web UI is not served)\n", cfg.web_dir,
                strerror(errno));
    /* the benchmark phase: its core, and the ceilings it is read against
     * (before the first judging or serving thread starts: they inherit the
     * judging cores) */
    struct queue_bench bench;
    if (queue_bench_init(&bench, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    if (bench.enabled) {
        char cores[200];
        cpus_describe(&bench.cpus, cores, sizeof cores);
        printf("attnjudge: benchmarks on %s: FMA peak %.1f GFLOP/s, bandwidth %.1f GB/s "
               "(one core); %s\n",
               bench.peak.cpu, bench.peak.fma_gflops, bench.peak.bandwidth_gbs, cores);
        metrics_machine(app.metrics, bench.peak.fma_gflops, bench.peak.bandwidth_gbs);
        app.machine = &bench.peak;
    }
    /* interrupted judgements are queued again by queue_start: those of
     * this machine's judge processes that are gone at once, those of other
     * hosts when their lease runs out */
    char sqlite_file[CONFIG_PATH_MAX + 32];
    /* on PostgreSQL another front end may queue work for these workers:
     * they listen for it (on SQLite this process is the only front end,
     * and it wakes its own workers) */
    struct queue_host judge_host = {
        .lease_ms = (int64_t)cfg.lease_s * 1000,
        .search_budget_ms = cfg.search_budget_ms,
        .watch = !config_database_sqlite(&cfg, sqlite_file, sizeof sqlite_file)};
    if (!(app.queue = queue_start(dbfile, cfg.db_sync_full, cfg.workers, app.judge, app.catalog,
                                  app.metrics, &bench, &judge_host, err, sizeof err))) {
        fprintf(stderr, "attnjudge: workers: %s\n", err);
        goto out;
    }
    if (!(app.runs = runs_start(cfg.run_workers, cfg.run_queue_max, app.judge, app.catalog, err,
                                sizeof err))) {
        fprintf(stderr, "attnjudge: run workers: %s\n", err);
        goto out;
    }
    /* scores to LMSs, signed with the tool's keys (docs/lti.md) */
    struct lti_outbox_cfg outbox = {.sync_ms = cfg.lti_sync_ms,
                                    .backoff_max_s = cfg.lti_backoff_max_s,
                                    .lease_ms = LTI_OUTBOX_LEASE_MS,
                                    .sqlite = !judge_host.watch};
    if (!(app.outbox = lti_outbox_start(dbfile, cfg.db_sync_full, app.lti->keys, &outbox, err,
                                        sizeof err))) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    connection_budget(&cfg, nofile);
    struct http_app happ = {&app, routes_begin, routes_serve};
    if (!(http = http_start(&cfg, &happ, app.metrics, err, sizeof err))) {
        fprintf(stderr, "attnjudge: %s\n", err);
        goto out;
    }
    const char *host = !strcmp(cfg.bind, "0.0.0.0") ? "127.0.0.1"
                       : !strcmp(cfg.bind, "::")    ? "[::1]"
                                                    : cfg.bind;
    bool v6 = strchr(host, ':') && host[0] != '[';
    printf("attnjudge: listening on http://%s%s%s:%d/ (%d workers, %d http threads, "
           "%d connections, data %s)\n",
           v6 ? "[" : "", host, v6 ? "]" : "", http_port(http), cfg.workers, cfg.http_threads,
           cfg.max_connections, cfg.data_dir);
    fflush(stdout);

    double next_selftest = clock_mono_ms() + cfg.selftest_interval_s * 1000.0,
           next_purge = clock_mono_ms() + 3600 * 1000.0,
           next_refresh = clock_mono_ms() + CATALOG_REFRESH_MS;
    while (!stop_requested) {
        struct timespec tick = {0, 200 * 1000 * 1000};
        nanosleep(&tick, NULL);
        double now = clock_mono_ms();
        if (now >= next_selftest) {
            atomic_store(&app.sandbox_ok, sandbox_selftest());
            next_selftest = clock_mono_ms() + cfg.selftest_interval_s * 1000.0;
        }
        if (now >= next_purge) {
            if (store_session_purge(main_store, clock_wall_ms()) < 0)
                fprintf(stderr, "attnjudge: purge sessions: %s\n", store_error(main_store));
            next_purge = now + 3600 * 1000.0;
        }
        /* problems uploaded, published or deleted through another front
         * end (catalog_refresh says why it cannot read them) */
        if (now >= next_refresh) {
            (void)!catalog_refresh(app.catalog, main_store);
            next_refresh = clock_mono_ms() + CATALOG_REFRESH_MS;
        }
    }
    fprintf(stderr, "attnjudge: stopping: no new requests; waiting up to %d s for judgements\n",
            cfg.shutdown_grace_s);
    http_stop(http);
    http = NULL;
    lti_outbox_stop(app.outbox);
    app.outbox = NULL;
    stuck = queue_stop(app.queue, cfg.shutdown_grace_s);
    app.queue = NULL;
    stuck += runs_stop(app.runs, stuck ? 0 : cfg.shutdown_grace_s);
    app.runs = NULL;
    fprintf(stderr, "attnjudge: stopped%s\n",
            stuck ? " (unfinished judgements were re-queued)" : "");
    status = 0;
out:
    http_stop(http);
    lti_outbox_stop(app.outbox);
    if (app.queue)
        stuck = queue_stop(app.queue, 0);
    if (app.runs)
        stuck += runs_stop(app.runs, 0);
    if (stuck) {
        /* Workers still run inside judge_submission: leave the shared state
         * alone, the process is exiting. */
        return status;
    }
    if (app.web_fd >= 0)
        close(app.web_fd);
    store_pool_free(app.pool);
    ratelimit_free(app.submit_rl);
    ratelimit_free(app.run_rl);
    ratelimit_free(app.draft_rl);
    ratelimit_free(app.auth_rl);
    ratelimit_free(app.signin_rl);
    metrics_free(app.metrics);
    auth_free(app.auth);
    lti_free(app.lti);
    catalog_free(app.catalog);
    store_close(main_store);
    if (app.judge)
        judge_close(app.judge);
    if (lock_fd >= 0)
        close(lock_fd);
    return status;
}

/* ---- attnjudge user ---- */

static const char user_usage[] =
    "usage: attnjudge user add NAME --role student|instructor [--data DIR]\n"
    "                          [--config FILE] [--password-stdin]\n"
    "       attnjudge user passwd NAME [--data DIR] [--config FILE] [--password-stdin]\n"
    "\n"
    "add creates an account in the server's database (which may be running);\n"
    "passwd gives an existing account a new password and ends its sessions\n"
    "(a student who forgot theirs). Both print a generated one-time password,\n"
    "which must be changed at the first sign-in, or with --password-stdin\n"
    "read the password from the first line of standard input (no change\n"
    "required).\n"
    "\n"
    "  --role ROLE        student or instructor (add: required)\n"
    "  --data DIR         the server's data directory (default ./data)\n"
    "  --config FILE      read 'data' and 'database' from the server's config file\n"
    "  --password-stdin   read the password instead of generating one\n"
    "  --help             this text\n";

/* attnjudge user add, after the checks: creates the account; a generated
 * password (shown) must be changed at the first sign-in. Returns the exit
 * status. */
static int user_add(struct store *s, const char *name, const char *role, const char *hash,
                    const char *shown)
{
    int64_t id = 0;
    int rc = store_user_create(s, name, hash, role, clock_wall_ms(), &id);
    if (rc == STORE_EXISTS) {
        fprintf(stderr,
                "attnjudge user: '%s' exists already (a new password: attnjudge user passwd "
                "%s)\n",
                name, name);
        return 1;
    }
    if (rc == 0 && shown)
        rc = store_user_set_password(s, id, hash, true, NULL, NULL);
    if (rc != 0) {
        fprintf(stderr, "attnjudge user: database: %s\n", store_error(s));
        return 1;
    }
    if (shown)
        printf("created %s '%s' with one-time password: %s\n"
               "(it must be changed at the first sign-in)\n",
               role, name, shown);
    else
        printf("created %s '%s'\n", role, name);
    return 0;
}

/* attnjudge user passwd: a new password for an existing account, whose
 * sessions end; a generated one (shown) must be changed at the next
 * sign-in. Returns the exit status. */
static int user_passwd(struct store *s, const char *name, const char *hash, const char *shown)
{
    struct store_user u;
    int ended = 0;
    int rc = store_user_by_name(s, name, &u);
    if (rc == STORE_NOT_FOUND) {
        fprintf(stderr, "attnjudge user: no user '%s'\n", name);
        return 1;
    }
    if (rc == 0)
        rc = store_user_set_password(s, u.id, hash, shown != NULL, NULL, &ended);
    if (rc != 0) {
        fprintf(stderr, "attnjudge user: database: %s\n", store_error(s));
        return 1;
    }
    if (shown)
        printf("new one-time password for %s '%s': %s\n"
               "(it must be changed at the next sign-in; %d session%s ended)\n",
               u.role, u.username, shown, ended, ended == 1 ? "" : "s");
    else
        printf("new password set for %s '%s' (%d session%s ended)\n", u.role, u.username, ended,
               ended == 1 ? "" : "s");
    return 0;
}

int server_user_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"role", required_argument, NULL, 'r'},   {"data", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'}, {"password-stdin", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    struct config cfg;
    const char *role = NULL, *data = NULL, *conf = NULL;
    bool from_stdin = false;
    char err[1024], dbfile[CONFIG_PATH_MAX + 32], password[AUTH_PASSWORD_MAX + 2];
    char hash[AUTH_HASH_LEN];
    struct store *s = NULL;
    struct auth *auth = NULL;
    int status = 1, ch;

    config_defaults(&cfg);
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': role = optarg; break;
        case 'd': data = optarg; break;
        case 'c': conf = optarg; break;
        case 's': from_stdin = true; break;
        case 'h': fputs(user_usage, stdout); return 0;
        default:
            fprintf(stderr, "attnjudge user: bad option '%s'\n%s", argv[optind - 1], user_usage);
            return 2;
        }
    }
    if (argc - optind != 2 || (strcmp(argv[optind], "add") && strcmp(argv[optind], "passwd"))) {
        fputs(user_usage, stderr);
        return 2;
    }
    bool adding = !strcmp(argv[optind], "add");
    const char *name = argv[optind + 1];
    if (!adding && role) {
        fprintf(stderr, "attnjudge user: passwd takes no --role\n");
        return 2;
    }
    if (adding && (!role || (strcmp(role, "student") && strcmp(role, "instructor")))) {
        fprintf(stderr, "attnjudge user: --role student|instructor is required\n");
        return 2;
    }
    if (!auth_username_valid(name) || (adding && auth_username_reserved(name))) {
        fprintf(stderr,
                "attnjudge user: '%s' is not a valid username (1 to 32 letters, digits,"
                " '_', '.', '-', starting with a letter or digit; not 'me')\n",
                name);
        return 2;
    }
    if (conf && config_load_file(&cfg, conf, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge user: %s\n", err);
        return 2;
    }
    if (data && config_set(&cfg, "data", data, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge user: %s\n", err);
        return 2;
    }
    if (from_stdin) {
        if (!fgets(password, sizeof password, stdin)) {
            fprintf(stderr, "attnjudge user: no password on standard input\n");
            return 1;
        }
        password[strcspn(password, "\r\n")] = '\0';
        if (strlen(password) < AUTH_PASSWORD_MIN || strlen(password) > AUTH_PASSWORD_MAX) {
            fprintf(stderr, "attnjudge user: the password needs %d to %d characters\n",
                    AUTH_PASSWORD_MIN, AUTH_PASSWORD_MAX);
            return 1;
        }
    } else if (auth_random_password(password, 17) < 0) {
        fprintf(stderr, "attnjudge user: cannot generate a password\n");
        return 1;
    }
    if (mkdir(cfg.data_dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "attnjudge user: cannot create %s: %s\n", cfg.data_dir, strerror(errno));
        return 1;
    }
    db_path(&cfg, dbfile, sizeof dbfile);
    if (!(s = store_open(dbfile, true, err, sizeof err))) {
        fprintf(stderr, "attnjudge user: database: %s\n", err);
        goto out;
    }
    if (store_migrate(s) < 0) {
        fprintf(stderr, "attnjudge user: database: %s\n", store_error(s));
        goto out;
    }
    if (!(auth = auth_new(1, cfg.password_hash_limits)) ||
        auth_hash_password(auth, password, hash) < 0) {
        fprintf(stderr, "attnjudge user: password hashing failed\n");
        goto out;
    }
    status = adding ? user_add(s, name, role, hash, from_stdin ? NULL : password)
                    : user_passwd(s, name, hash, from_stdin ? NULL : password);
out:
    explicit_bzero(password, sizeof password);
    auth_free(auth);
    store_close(s);
    return status;
}
