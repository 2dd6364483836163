/*
 * config — the server's settings from defaults, a file and flags
 * (config.h).
 *
 * Settings come from three places: built-in defaults that match docs/contract.md §1
 * (a bare `attnjudge serve` works with no file), an optional `key = value`
 * file named by --config, and flags. A table maps each key to a field and a
 * parser, so the file, `--set KEY=VALUE` and the documentation all name the
 * same keys. Parsing is strict (unknown key, trailing junk or an out-of-range
 * number is an error): a typo in a production config must stop the start,
 * not be silently ignored.
 */
#include "server/config.h"
#include "judge/search.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "judge/judge.h"
#include "server/cpus.h"

enum key_type {
    K_STR,
    K_INT,
    K_AUTO, /* an integer, or "auto" (-1) */
    K_CPU,  /* a core's number, "auto" or "off" (server/cpus.h) */
    K_I64,
    K_DBL,
    K_BOOL,
    K_REG,
    K_KIB,
    K_NETS,
    K_URL,
    K_NAMES,
    K_VIS,
    K_PWHASH
};

struct key {
    const char *name;
    enum key_type type;
    size_t off;
    size_t size;   /* K_STR: buffer size */
    double lo, hi; /* numeric range */
};

#define F(field) offsetof(struct config, field)
#define S(field) sizeof(((struct config *)0)->field)

static const struct key keys[] = {
    {"bind", K_STR, F(bind), S(bind), 0, 0},
    {"port", K_INT, F(port), 0, 0, 65535},
    {"data", K_STR, F(data_dir), S(data_dir), 0, 0},
    {"database", K_STR, F(database), S(database), 0, 0},
    {"problems", K_STR, F(problems_dir), S(problems_dir), 0, 0},
    {"reference", K_STR, F(reference_dir), S(reference_dir), 0, 0},
    {"secret_file", K_STR, F(secret_file), S(secret_file), 0, 0},
    {"web", K_STR, F(web_dir), S(web_dir), 0, 0},
    {"mathcheck", K_STR, F(mathcheck), S(mathcheck), 0, 0},
    {"access_log", K_STR, F(access_log), S(access_log), 0, 0},
    {"workers", K_AUTO, F(workers), 0, 0, 1024},
    {"lease_s", K_INT, F(lease_s), 0, 1, 3600},
    {"http_threads", K_INT, F(http_threads), 0, 0, 1024},
    {"max_source_kib", K_KIB, F(max_source_bytes), 0, 1, 16384},
    {"max_package_kib", K_KIB, F(max_package_bytes), 0, 16, 65536},
    {"queue_max", K_INT, F(queue_max), 0, 1, 10000000},
    {"user_queue_max", K_INT, F(user_queue_max), 0, 1, 10000000},
    {"max_connections", K_INT, F(max_connections), 0, 0, 1000000},
    {"max_connections_per_ip", K_INT, F(max_connections_per_ip), 0, 0, 1000000},
    {"submit_rate_per_min", K_DBL, F(submit_rate_per_min), 0, 0.001, 1e9},
    {"submit_burst", K_INT, F(submit_burst), 0, 1, 1000000},
    {"run_workers", K_INT, F(run_workers), 0, 1, 1024},
    {"search_budget_ms", K_INT, F(search_budget_ms), 0, 0, 600000},
    {"benchmark", K_BOOL, F(benchmark), 0, 0, 0},
    {"bench_budget_ms", K_INT, F(bench_budget_ms), 0, 100, 600000},
    {"bench_cpu", K_CPU, F(bench_cpu), 0, 0, CPU_SETSIZE - 1},
    {"user_bench_max", K_INT, F(user_bench_max), 0, 1, 10000000},
    {"run_queue_max", K_INT, F(run_queue_max), 0, 1, 1000000},
    {"run_rate_per_min", K_DBL, F(run_rate_per_min), 0, 0.001, 1e9},
    {"run_burst", K_INT, F(run_burst), 0, 1, 1000000},
    {"auth_rate_per_min", K_DBL, F(auth_rate_per_min), 0, 0.001, 1e9},
    {"auth_burst", K_INT, F(auth_burst), 0, 1, 1000000},
    {"account_fail_rate_per_min", K_DBL, F(account_fail_rate_per_min), 0, 0.001, 1e9},
    {"account_fail_burst", K_INT, F(account_fail_burst), 0, 1, 1000000},
    {"trusted_proxy", K_NETS, F(trusted_proxy), 0, 0, 0},
    {"public_url", K_URL, F(public_url), S(public_url), 0, 0},
    {"registration", K_REG, F(registration), 0, 0, 0},
    {"class_code", K_STR, F(class_code), S(class_code), 0, 0},
    {"leaderboard_names", K_NAMES, F(leaderboard_names), 0, 0, 0},
    {"course_visibility", K_VIS, F(course_private), 0, 0, 0},
    {"password_hash_limits", K_PWHASH, F(password_hash_limits), 0, 0, 0},
    {"session_ttl_hours", K_I64, F(session_ttl_s), 0, 1, 24 * 365},
    {"cookie_secure", K_BOOL, F(cookie_secure), 0, 0, 0},
    {"db_sync_full", K_BOOL, F(db_sync_full), 0, 0, 0},
    {"shutdown_grace_s", K_INT, F(shutdown_grace_s), 0, 0, 3600},
    {"selftest_interval_s", K_INT, F(selftest_interval_s), 0, 1, 86400},
    {"run_as", K_STR, F(run_as), S(run_as), 0, 0},
    {"lti_sync_ms", K_INT, F(lti_sync_ms), 0, 100, 3600000},
    {"lti_backoff_max_s", K_INT, F(lti_backoff_max_s), 0, 1, 86400},
};

void config_defaults(struct config *c)
{
    memset(c, 0, sizeof *c);
    /* Loopback by default: the server speaks plain HTTP, so exposing it is
     * an explicit decision (bind = 0.0.0.0, ideally behind a TLS proxy). */
    snprintf(c->bind, sizeof c->bind, "127.0.0.1");
    c->port = 8080;
    snprintf(c->data_dir, sizeof c->data_dir, "./data");
    snprintf(c->problems_dir, sizeof c->problems_dir, "./problems");
    snprintf(c->reference_dir, sizeof c->reference_dir, "./reference");
    snprintf(c->web_dir, sizeof c->web_dir, "./web/dist");
    snprintf(c->access_log, sizeof c->access_log, "-");
    c->workers = -1; /* auto: one per online CPU */
    c->lease_s = 30;
    c->lti_sync_ms = 5000;
    c->lti_backoff_max_s = 600;
    c->http_threads = 0;
    c->max_source_bytes = JUDGE_SOURCE_MAX_DEFAULT;
    c->max_package_bytes = 2 * 1024 * 1024;
    c->queue_max = 1000;
    c->user_queue_max = 2;
    c->max_connections = 0;
    c->max_connections_per_ip = 128;
    c->submit_rate_per_min = 30;
    c->submit_burst = 10;
    /* Runs are the student's "try": gentler than submissions, and judged
     * by a thread of their own (docs/operations.md, "Ungraded runs"). */
    c->run_workers = 1;
    c->search_budget_ms = SEARCH_BUDGET_DEFAULT_MS;
    c->benchmark = true;
    c->user_bench_max = 3;
    c->bench_budget_ms = 6000;
    c->bench_cpu = CPUS_BENCH_AUTO;
    c->run_queue_max = 64;
    c->run_rate_per_min = 60;
    c->run_burst = 20;
    c->auth_rate_per_min = 30;
    c->auth_burst = 20;
    c->account_fail_rate_per_min = 1;
    c->account_fail_burst = 10;
    c->registration = REG_OPEN;
    c->session_ttl_s = 7 * 24 * 3600;
    c->cookie_secure = false;
    c->db_sync_full = false;
    c->shutdown_grace_s = 30;
    c->selftest_interval_s = 60;
    snprintf(c->run_as, sizeof c->run_as, "attnjudge");
    c->listen_fd = -1;
}

static int parse_number(const char *v, double lo, double hi, bool integral, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end != '\0' || d < lo || d > hi)
        return -1;
    if (integral && d != (double)(long long)d)
        return -1;
    *out = d;
    return 0;
}

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0")) {
        *out = false;
        return 0;
    }
    return -1;
}

int config_set(struct config *c, const char *key, const char *value, char *err, size_t errlen)
{
    const struct key *k = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].name, key))
            k = &keys[i];
    if (!k) {
        snprintf(err, errlen, "unknown setting '%s'", key);
        return -1;
    }
    char *field = (char *)c + k->off;
    double d;
    bool b;
    switch (k->type) {
    case K_STR:
        if (strlen(value) >= k->size) {
            snprintf(err, errlen, "%s: value too long (max %zu bytes)", key, k->size - 1);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case K_CPU:
        if (!strcmp(value, "off")) {
            *(int *)field = CPUS_BENCH_OFF;
            return 0;
        }
        /* fall through */
    case K_AUTO:
        if (!strcmp(value, "auto")) {
            *(int *)field = -1;
            return 0;
        }
        /* fall through */
    case K_INT:
    case K_I64:
    case K_KIB:
    case K_DBL:
        if (parse_number(value, k->lo, k->hi, k->type != K_DBL, &d) < 0) {
            snprintf(err, errlen, "%s: '%s' is not a%s number in [%g, %g]", key, value,
                     k->type == K_DBL ? "" : "n integer", k->lo, k->hi);
            if (k->type == K_AUTO || k->type == K_CPU)
                snprintf(err + strlen(err), errlen - strlen(err), " or 'auto'%s",
                         k->type == K_CPU ? " or 'off'" : "");
            return -1;
        }
        if (k->type == K_INT || k->type == K_AUTO || k->type == K_CPU)
            *(int *)field = (int)d;
        else if (k->type == K_I64) /* session_ttl_hours is stored in seconds */
            *(int64_t *)field = (int64_t)d * 3600;
        else if (k->type == K_KIB)
            *(int64_t *)field = (int64_t)d * 1024;
        else
            *(double *)field = d;
        return 0;
    case K_BOOL:
        if (parse_bool(value, &b) < 0) {
            snprintf(err, errlen, "%s: '%s' is not true or false", key, value);
            return -1;
        }
        *(bool *)field = b;
        if (k->off == F(cookie_secure))
            c->cookie_secure_set = true; /* wins over the public_url default */
        return 0;
    case K_NETS: {
        char msg[CONFIG_ERR_LEN];
        struct client_proxies p;
        if (client_proxies_parse(value, &p, msg, sizeof msg) < 0) {
            snprintf(err, errlen, "%s: %s", key, msg);
            return -1;
        }
        memcpy(field, &p, sizeof p);
        return 0;
    }
    case K_URL: {
        char origin[CLIENT_ORIGIN_LEN];
        if (*value && client_origin_of(value, true, origin) < 0) {
            snprintf(err, errlen, "%s: '%s' is not an http:// or https:// URL", key, value);
            return -1;
        }
        if (strlen(value) >= k->size) {
            snprintf(err, errlen, "%s: value too long (max %zu bytes)", key, k->size - 1);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    }
    case K_REG:
        if (!strcmp(value, "open"))
            c->registration = REG_OPEN;
        else if (!strcmp(value, "closed"))
            c->registration = REG_CLOSED;
        else if (!strcmp(value, "code"))
            c->registration = REG_CODE;
        else {
            snprintf(err, errlen, "registration: '%s' is not open, closed or code", value);
            return -1;
        }
        return 0;
    case K_NAMES:
        if (!strcmp(value, "display_name"))
            c->leaderboard_names = NAMES_DISPLAY;
        else if (!strcmp(value, "username"))
            c->leaderboard_names = NAMES_USERNAME;
        else if (!strcmp(value, "anonymous"))
            c->leaderboard_names = NAMES_ANONYMOUS;
        else {
            snprintf(err, errlen,
                     "leaderboard_names: '%s' is not display_name, username or anonymous", value);
            return -1;
        }
        return 0;
    case K_VIS:
        if (strcmp(value, "public") && strcmp(value, "private")) {
            snprintf(err, errlen, "course_visibility: '%s' is not public or private", value);
            return -1;
        }
        c->course_private = !strcmp(value, "private");
        return 0;
    case K_PWHASH:
        if (auth_limits_parse(value, &c->password_hash_limits) < 0) {
            snprintf(err, errlen,
                     "password_hash_limits: '%s' is not interactive, moderate or minimum", value);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "%s: bad key type", key);
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int config_load_file(struct config *c, const char *path, char *err, size_t errlen)
{
    int rc = -1;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto out;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        char msg[CONFIG_ERR_LEN];
        if (config_set(c, key, value, msg, sizeof msg) < 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            goto out;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        goto out;
    }
    rc = 0;
out:
    free(line);
    fclose(f);
    return rc;
}

const char *config_usage(void)
{
    return "usage: attnjudge serve [--port N] [--bind ADDR] [--data DIR] [--problems DIR]\n"
           "                       [--reference DIR] [--web DIR] [--workers N]\n"
           "                       [--config FILE] [--set KEY=VALUE]...\n"
           "\n"
           "Runs the HTTP API and the judging workers (docs/api.md).\n"
           "\n"
           "  --port N          TCP port (default 8080; 0 picks a free one)\n"
           "  --bind ADDR       address to listen on (default 127.0.0.1)\n"
           "  --data DIR        database, secret key, problem versions (default ./data)\n"
           "  --problems DIR    problem packages loaded at start (default ./problems)\n"
           "  --reference DIR   reference solutions of the seed problems (default ./reference)\n"
           "  --web DIR         static files of the web UI, served at / (default ./web/dist)\n"
           "  --workers N       judging threads (default auto: online CPUs; 0: none, a front\n"
           "                    end for separate 'attnjudge worker' processes)\n"
           "  --config FILE     a 'key = value' file (see docs/operations.md)\n"
           "  --set KEY=VALUE   any config key, overriding the file\n"
           "  --help            this text\n";
}

int config_parse_args(struct config *c, int argc, char **argv, char *err, size_t errlen)
{
    return config_parse_command(c, config_usage(), argc, argv, err, errlen);
}

int config_parse_command(struct config *c, const char *usage, int argc, char **argv, char *err,
                         size_t errlen)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},
        {"data", required_argument, NULL, 'd'},
        {"problems", required_argument, NULL, 'P'},
        {"reference", required_argument, NULL, 'r'},
        {"web", required_argument, NULL, 'w'},
        {"workers", required_argument, NULL, 'W'},
        {"config", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* Pass 1: the config file and --help, so that flags override the file
     * whatever their order on the command line. */
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (ch == 'h') {
            fputs(usage, stdout);
            return 1;
        }
        if (ch == '?') {
            snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
        if (ch == ':') {
            snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
            return -1;
        }
        if (ch == 'c' && config_load_file(c, optarg, err, errlen) < 0)
            return -1;
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        const char *key = NULL;
        switch (ch) {
        case 'p': key = "port"; break;
        case 'b': key = "bind"; break;
        case 'd': key = "data"; break;
        case 'P': key = "problems"; break;
        case 'r': key = "reference"; break;
        case 'w': key = "web"; break;
        case 'W': key = "workers"; break;
        case 's': {
            char kv[CONFIG_PATH_MAX + 64];
            snprintf(kv, sizeof kv, "%s", optarg);
            char *eq = strchr(kv, '=');
            if (!eq) {
                snprintf(err, errlen, "--set needs KEY=VALUE, got '%s'", optarg);
                return -1;
            }
            *eq = '\0';
            if (config_set(c, trim(kv), trim(eq + 1), err, errlen) < 0)
                return -1;
            continue;
        }
        default: continue;
        }
        if (config_set(c, key, optarg, err, errlen) < 0)
            return -1;
    }
    return 0;
}

void config_finalize(struct config *c)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 256)
        n = 256;
    if (c->workers < 0)
        c->workers = (int)n;
    if (c->http_threads <= 0)
        c->http_threads = (int)(2 * n < 4 ? 4 : 2 * n);
    /* Each hash holds ~64 MiB and a core. Beside judging workers, as many
     * as they are; a front end that judges nothing (workers 0, judge hosts
     * elsewhere) has every core for it: one slot there made a class
     * signing up at once wait in line for tens of seconds. */
    c->password_hashers = c->workers > 0 ? c->workers : (int)n;
    /* Told that browsers reach us over HTTPS (through a TLS proxy), the
     * session cookie must never travel in clear; an explicit
     * `cookie_secure = false` still wins. */
    if (!c->cookie_secure_set && !strncasecmp(c->public_url, "https://", 8))
        c->cookie_secure = true;
}

void config_database_url(const struct config *c, char *buf, size_t len)
{
    if (c->database[0])
        snprintf(buf, len, "%s", c->database);
    else
        snprintf(buf, len, "%s/attnjudge.db", c->data_dir);
}

void config_mathcheck_script(const struct config *c, char *buf, size_t len)
{
    if (c->mathcheck[0])
        snprintf(buf, len, "%s", c->mathcheck);
    else
        snprintf(buf, len, "%s/../mathcheck.mjs", c->web_dir);
}

bool config_database_sqlite(const struct config *c, char *path, size_t len)
{
    char url[CONFIG_PATH_MAX + 32];
    config_database_url(c, url, sizeof url);
    if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
        return false;
    snprintf(path, len, "%s", strncmp(url, "sqlite:", 7) ? url : url + 7);
    return true;
}
