/*
 * attnjudge — one binary, one subcommand per job (docs/contract.md §1).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "judge/problem.h"
#include "server/server.h"
#include "server/worker.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: attnjudge COMMAND [OPTIONS]\n"
               "\n"
               "An automated judge for attention exercises written in C.\n"
               "\n"
               "commands:\n"
               "  backup    a checked copy of the server's database, taken while it runs\n"
               "  migrate   copy the SQLite database into PostgreSQL (migrate --to URL)\n"
               "  judge     judge one C file locally (same sandbox and tests as the server)\n"
               "  lti       register LMS platforms (LTI 1.3) and rotate the tool's key\n"
               "  export    write a test case as NumPy .npy files\n"
               "  problem   validate or scaffold a package (problem check DIR, problem new SLUG)\n"
               "  problems  list the problems\n"
               "  serve     run the HTTP server and its judge workers\n"
               "  user      manage accounts (user add NAME --role student|instructor)\n"
               "  worker    judge queued submissions beside a server, without HTTP\n"
               "  vocabulary  print the verdicts, test kinds and compile flags as JSON\n"
               "\n"
               "Run 'attnjudge COMMAND --help' for a command's options.\n");
}

struct problem *cli_load_problem(const struct cli_paths *paths, const char *slug)
{
    char dir[4096], err[PROBLEM_ERR_LEN];
    if (!names_slug_valid(slug)) {
        fprintf(stderr, "attnjudge: '%s' is not a problem name (try 'attnjudge problems')\n", slug);
        return NULL;
    }
    snprintf(dir, sizeof dir, "%s/%s", paths->problems, slug);
    struct problem *p = problem_load(dir, paths->reference, err, sizeof err);
    if (!p)
        fprintf(stderr, "attnjudge: problem %s: %s\n", slug, err);
    return p;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"judge", cmd_judge},           {"export", cmd_export},  {"problem", cmd_problem},
        {"problems", cmd_problems},     {"serve", server_main},  {"user", server_user_main},
        {"vocabulary", cmd_vocabulary}, {"worker", worker_main}, {"backup", cmd_backup},
        {"migrate", cmd_migrate},       {"lti", cmd_lti},
    };

    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "attnjudge: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
