/*
 * attnjudge lti — registering LTI 1.3 platforms and rotating the tool's
 * key (docs/lti.md). The rows are server/lti_store.h's, the keys
 * server/lti_keys.h's; this file reads the options, finds the database
 * as `attnjudge user` does (--config's file, or --data, else ./data), and
 * prints what it did.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "server/config.h"
#include "server/lti_keys.h"
#include "server/lti_registry.h"
#include "server/lti_store.h"
#include "server/store.h"
#include "util/clock.h"

#define MAX_DEPLOYMENTS LTI_REGISTRY_MAX_DEPLOYMENTS
#define MAX_ORIGINS LTI_REGISTRY_MAX_ORIGINS

static const char lti_usage[] =
    "usage: attnjudge lti add-platform --issuer URL --client-id ID --deployment-id ID\n"
    "                                  [--deployment-id ID...] --auth-url URL --token-url URL\n"
    "                                  --jwks-url URL [--frame-origin ORIGIN...]\n"
    "       attnjudge lti list\n"
    "       attnjudge lti remove ID\n"
    "       attnjudge lti rotate-key\n"
    "  each with [--data DIR] [--config FILE]\n"
    "\n"
    "add-platform registers an LMS (an LTI 1.3 platform) with the values its\n"
    "administrator gets when registering attnjudge as a tool there; launches\n"
    "from it are accepted from then on (docs/lti.md has the walk-through for\n"
    "Moodle and Canvas). list shows the registered platforms, remove one of\n"
    "them (its links and courses go too; accounts stay). rotate-key makes a\n"
    "new key pair for the tool's signatures; the old key stays published at\n"
    "/lti/jwks for a week; a running server signs with the new one from its\n"
    "next start.\n"
    "\n"
    "  --issuer URL         the platform's issuer (iss), e.g. https://canvas.instructure.com\n"
    "  --client-id ID       the client id the platform gave this tool\n"
    "  --deployment-id ID   a deployment id of the tool there (repeatable)\n"
    "  --auth-url URL       the platform's OIDC authentication request URL\n"
    "  --token-url URL      the platform's OAuth 2.0 access token URL\n"
    "  --jwks-url URL       the platform's public keys (JWKS) URL\n"
    "  --frame-origin ORIGIN  an origin whose pages may frame attnjudge (repeatable;\n"
    "                       default: the origins of --issuer and --auth-url)\n"
    "  --data DIR           the server's data directory (default ./data)\n"
    "  --config FILE        read 'data' and 'database' from the server's config file\n"
    "                       (--data, given too, wins)\n"
    "  --help               this text\n"
    "\n"
    "Exit status: 0 done, 1 failed, 2 usage error.\n";

static int print_platform(void *arg, const struct lti_platform *p, const char *deployments)
{
    (void)arg;
    printf("%lld\tissuer %s\tclient %s\n\tdeployments: %s\n\tauth %s\n\ttoken %s\n\tjwks %s\n"
           "\tframe origins: %s\n",
           (long long)p->id, p->issuer, p->client_id, deployments[0] ? deployments : "(none)",
           p->auth_url, p->token_url, p->jwks_url,
           p->frame_origins[0] ? p->frame_origins : "(none)");
    return 0;
}

struct add_args {
    struct lti_platform p;
    const char *deployments[MAX_DEPLOYMENTS];
    size_t n_deployments;
    const char *origins[MAX_ORIGINS];
    size_t n_origins;
};

/* Copies s into buf (len) if it fits: 0, or -1 with a message. */
static int set_field(char *buf, size_t len, const char *s, const char *what)
{
    if (strlen(s) >= len) {
        fprintf(stderr, "attnjudge lti: %s is longer than %zu bytes\n", what, len - 1);
        return -1;
    }
    snprintf(buf, len, "%s", s);
    return 0;
}

static int add_platform(struct store *s, struct add_args *a)
{
    struct lti_platform *p = &a->p;
    char err[256];
    if (lti_registry_check(p, a->deployments, a->n_deployments, a->origins, a->n_origins, err,
                           sizeof err) < 0) {
        fprintf(stderr, "attnjudge lti: add-platform: %s\n", err);
        return CLI_USAGE;
    }
    int64_t id = 0;
    int rc = lti_store_platform_add(s, p, a->deployments, a->n_deployments, clock_wall_ms(), &id);
    if (rc == STORE_EXISTS) {
        fprintf(stderr, "attnjudge lti: a platform with this issuer and client id is registered "
                        "already (attnjudge lti list)\n");
        return CLI_FAIL;
    }
    if (rc == STORE_FULL) {
        fprintf(stderr, "attnjudge lti: a deployment id is longer than %d bytes\n", LTI_ID_LEN - 1);
        return CLI_USAGE;
    }
    if (rc != 0) {
        fprintf(stderr, "attnjudge lti: database: %s\n", store_error(s));
        return CLI_FAIL;
    }
    printf("registered platform %lld: %s (client %s, %zu deployment%s)\n", (long long)id, p->issuer,
           p->client_id, a->n_deployments, a->n_deployments == 1 ? "" : "s");
    return CLI_OK;
}

int cmd_lti(int argc, char **argv)
{
    static const struct option opts[] = {
        {"issuer", required_argument, NULL, 'i'},
        {"client-id", required_argument, NULL, 'C'},
        {"deployment-id", required_argument, NULL, 'D'},
        {"auth-url", required_argument, NULL, 'a'},
        {"token-url", required_argument, NULL, 't'},
        {"jwks-url", required_argument, NULL, 'j'},
        {"frame-origin", required_argument, NULL, 'f'},
        {"data", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static struct add_args add; /* large: LTI_URL_LEN fields */
    struct lti_platform *p = &add.p;
    struct config cfg;
    const char *data = NULL, *conf = NULL;
    char err[1024], dbfile[CONFIG_PATH_MAX + 32];
    struct store *s = NULL;
    int ch, status = CLI_FAIL;

    memset(&add, 0, sizeof add);
    config_defaults(&cfg);
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 'i': bad = set_field(p->issuer, sizeof p->issuer, optarg, "--issuer"); break;
        case 'C': bad = set_field(p->client_id, sizeof p->client_id, optarg, "--client-id"); break;
        case 'a': bad = set_field(p->auth_url, sizeof p->auth_url, optarg, "--auth-url"); break;
        case 't': bad = set_field(p->token_url, sizeof p->token_url, optarg, "--token-url"); break;
        case 'j': bad = set_field(p->jwks_url, sizeof p->jwks_url, optarg, "--jwks-url"); break;
        case 'D':
            if (add.n_deployments == MAX_DEPLOYMENTS || !optarg[0] || strchr(optarg, ' ')) {
                fprintf(stderr, "attnjudge lti: at most %d deployment ids, without spaces\n",
                        MAX_DEPLOYMENTS);
                return CLI_USAGE;
            }
            add.deployments[add.n_deployments++] = optarg;
            break;
        case 'f':
            if (add.n_origins == MAX_ORIGINS) {
                fprintf(stderr, "attnjudge lti: at most %d frame origins\n", MAX_ORIGINS);
                return CLI_USAGE;
            }
            add.origins[add.n_origins++] = optarg;
            break;
        case 'd': data = optarg; break;
        case 'c': conf = optarg; break;
        case 'h': fputs(lti_usage, stdout); return CLI_OK;
        default:
            fprintf(stderr, "attnjudge lti: bad option '%s'\n%s", argv[optind - 1], lti_usage);
            return CLI_USAGE;
        }
        if (bad)
            return CLI_USAGE;
    }
    const char *verb = optind < argc ? argv[optind] : NULL;
    bool adding = verb && !strcmp(verb, "add-platform");
    int want = verb && !strcmp(verb, "remove") ? 2 : 1;
    if (!verb || argc - optind != want ||
        (!adding && strcmp(verb, "list") && strcmp(verb, "remove") && strcmp(verb, "rotate-key"))) {
        fputs(lti_usage, stderr);
        return CLI_USAGE;
    }
    if (!adding && (p->issuer[0] || p->client_id[0] || add.n_deployments || p->auth_url[0] ||
                    p->token_url[0] || p->jwks_url[0] || add.n_origins)) {
        fprintf(stderr, "attnjudge lti: %s takes no platform options\n", verb);
        return CLI_USAGE;
    }
    if (conf && config_load_file(&cfg, conf, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge lti: %s\n", err);
        return CLI_USAGE;
    }
    if (data && config_set(&cfg, "data", data, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge lti: %s\n", err);
        return CLI_USAGE;
    }
    if (mkdir(cfg.data_dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "attnjudge lti: cannot create %s: %s\n", cfg.data_dir, strerror(errno));
        return CLI_FAIL;
    }
    if (!strcmp(verb, "rotate-key")) {
        if (lti_keys_rotate(cfg.data_dir, err, sizeof err) < 0) {
            fprintf(stderr, "attnjudge lti: %s\n", err);
            return CLI_FAIL;
        }
        printf("a new key pair is in %s/lti/; the server signs with it from its next start, and "
               "publishes the old one for a week\n",
               cfg.data_dir);
        return CLI_OK;
    }
    config_database_url(&cfg, dbfile, sizeof dbfile);
    if (!(s = store_open(dbfile, true, err, sizeof err))) {
        fprintf(stderr, "attnjudge lti: database: %s\n", err);
        return CLI_FAIL;
    }
    if (store_migrate(s) < 0) {
        fprintf(stderr, "attnjudge lti: database: %s\n", store_error(s));
        goto out;
    }
    if (adding) {
        status = add_platform(s, &add);
    } else if (!strcmp(verb, "list")) {
        status = lti_store_platforms(s, print_platform, NULL) < 0 ? CLI_FAIL : CLI_OK;
        if (status != CLI_OK)
            fprintf(stderr, "attnjudge lti: database: %s\n", store_error(s));
    } else {
        char *end = NULL;
        long long id = strtoll(argv[optind + 1], &end, 10);
        if (!argv[optind + 1][0] || *end || id <= 0) {
            fprintf(stderr, "attnjudge lti: remove takes a platform id (attnjudge lti list)\n");
            status = CLI_USAGE;
            goto out;
        }
        int rc = lti_store_platform_remove(s, id);
        if (rc == STORE_NOT_FOUND)
            fprintf(stderr, "attnjudge lti: no platform %lld\n", id);
        else if (rc != 0)
            fprintf(stderr, "attnjudge lti: database: %s\n", store_error(s));
        else
            printf("removed platform %lld\n", id);
        status = rc == 0 ? CLI_OK : CLI_FAIL;
    }
out:
    store_close(s);
    return status;
}
