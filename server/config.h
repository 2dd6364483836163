/*
 * config — the server's settings: built-in defaults, a `key = value` file,
 * command-line flags, in that order of precedence (later wins).
 *
 * Every key is documented in docs/operations.md and deploy/attnjudge.conf.
 */
#ifndef ATTNJUDGE_SERVER_CONFIG_H
#define ATTNJUDGE_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/auth.h"
#include "server/client.h"

#define CONFIG_ERR_LEN 512
#define CONFIG_PATH_MAX 1024

enum config_registration { REG_OPEN, REG_CLOSED, REG_CODE };
/* What leaderboards show of a student (docs/operations.md, "Privacy"). */
enum config_names { NAMES_DISPLAY, NAMES_USERNAME, NAMES_ANONYMOUS };

struct config {
    char bind[64]; /* IPv4 or IPv6 literal to listen on */
    int port;      /* 0 = any free port (printed at start) */
    char data_dir[CONFIG_PATH_MAX];
    char database[CONFIG_PATH_MAX]; /* sqlite:PATH | postgresql://...; "" = DATA/attnjudge.db */
    char problems_dir[CONFIG_PATH_MAX];
    char reference_dir[CONFIG_PATH_MAX];
    char secret_file[CONFIG_PATH_MAX]; /* "" = DATA/secret.key (created if missing) */
    char web_dir[CONFIG_PATH_MAX];
    char mathcheck[CONFIG_PATH_MAX];  /* web/mathcheck.mjs for uploads; "" = WEB/../mathcheck.mjs */
    char access_log[CONFIG_PATH_MAX]; /* "-" = stderr, "off", or a file */
    int workers;                      /* judging threads; -1 (auto) = online CPUs, 0 = none */
    int lease_s;                      /* a claim's lease (judge hosts) */
    int lti_sync_ms;                  /* LMS grades recomputed this often (lti_outbox.h) */
    int lti_backoff_max_s;            /* longest wait between two tries of a score */
    int http_threads;                 /* libmicrohttpd pool; 0 = 2 x CPUs, >= 4 */
    int password_hashers;             /* argon2id hashes at once (auth.h); set by finalize */
    int64_t max_source_bytes;         /* decoded source text of a submission */
    int64_t max_package_bytes;        /* body of POST/PUT /api/problems */
    int queue_max;                    /* queued submissions before 503 */
    int user_queue_max;               /* one user's queued + judging, before 429 */
    int max_connections;              /* HTTP connections; 0 = from the descriptor limit */
    int max_connections_per_ip;       /* HTTP connections per client address; 0 = no limit */
    double submit_rate_per_min;       /* token refill, per user */
    int submit_burst;                 /* token bucket size, per user */
    int run_workers;                  /* threads judging ungraded runs (runs.h) */
    int search_budget_ms;             /* counterexample search after passed tests; 0 = off */
    bool benchmark;                   /* benchmark accepted submissions (docs/performance.md) */
    int bench_budget_ms;              /* wall time per benchmark size */
    int bench_cpu;                    /* the benchmark core, or CPUS_BENCH_AUTO/OFF (cpus.h) */
    int user_bench_max;               /* one user's benchmarks waiting, at most */
    int run_queue_max;                /* waiting runs before 503 busy */
    double run_rate_per_min;          /* ungraded runs: token refill, per user */
    int run_burst;                    /* ungraded runs: bucket size, per user */
    double auth_rate_per_min;         /* sign-in / sign-up attempts, per IP */
    int auth_burst;
    double account_fail_rate_per_min; /* failed sign-ins, per account */
    int account_fail_burst;
    struct client_proxies trusted_proxy; /* peers whose X-Forwarded-For counts */
    char public_url[256];                /* "" = unknown; else the browser's URL */
    enum config_registration registration;
    char class_code[128]; /* registration = code */
    enum config_names leaderboard_names;
    /* the cost of each new password hash (auth.h) */
    enum auth_limits password_hash_limits;
    bool course_private;     /* course_visibility = private: sign in to see anything */
    int64_t session_ttl_s;   /* seconds */
    bool cookie_secure;      /* add Secure to the session cookie */
    bool cookie_secure_set;  /* cookie_secure was given, not defaulted */
    bool db_sync_full;       /* PRAGMA synchronous=FULL instead of NORMAL */
    int shutdown_grace_s;    /* SIGTERM: wait this long for judgements */
    int selftest_interval_s; /* /healthz re-runs the sandbox check */
    char run_as[64];         /* root drops to this user (privilege.h); "root" keeps root */
    int listen_fd;           /* bound before the drop, or -1: http_start binds */
};

/* Fills c with the built-in defaults (port 8080, ./data, ./problems, ...). */
void config_defaults(struct config *c);

/* Applies one `key = value` setting. Returns 0, or -1 with a message. */
int config_set(struct config *c, const char *key, const char *value, char *err, size_t errlen);

/* Reads a config file: one `key = value` per line, '#' comments, blank
 * lines. Returns 0, or -1 with "FILE:LINE: message" in err. */
int config_load_file(struct config *c, const char *path, char *err, size_t errlen);

/* Parses `serve`'s flags (argv[0] = "serve"): first loads --config FILE if
 * given, then applies the other flags over it. Returns 0, 1 when --help was
 * printed, or -1 with a message. */
int config_parse_args(struct config *c, int argc, char **argv, char *err, size_t errlen);
/* The same flags for another command (`worker`) whose --help prints usage. */
int config_parse_command(struct config *c, const char *usage, int argc, char **argv, char *err,
                         size_t errlen);

/* Resolves 0 defaults (workers, http_threads, password_hashers) from the
 * number of CPUs;
 * cookie_secure defaults to true when public_url is https. */
void config_finalize(struct config *c);
/* The database URL the store opens (store_open): `database`, or by
 * default the data directory's attnjudge.db (docs/postgresql.md). */
void config_database_url(const struct config *c, char *buf, size_t len);
/* The KaTeX checker an upload's math goes through (judge_check_math):
 * `mathcheck`, or by default mathcheck.mjs beside the web directory
 * (./web/dist -> ./web/mathcheck.mjs, where make puts it with its
 * node_modules). */
void config_mathcheck_script(const struct config *c, char *buf, size_t len);
/* Whether that database is a SQLite file (then *path, len bytes, its path). */
bool config_database_sqlite(const struct config *c, char *path, size_t len);

/* The usage text of `attnjudge serve`. */
const char *config_usage(void);

#endif
