/*
 * cli — the `attnjudge` command's subcommands. Each takes the argv that
 * follows its name (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef ATTNJUDGE_CLI_H
#define ATTNJUDGE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "judge/problem.h"

/* Where problems, references and the data directory are (the defaults are
 * relative to the current directory, as docs/contract.md §1 says). */
struct cli_paths {
    const char *data;      /* --data, default ./data */
    const char *problems;  /* --problems, default ./problems */
    const char *reference; /* --reference, default ./reference */
};

#define CLI_PATHS_DEFAULT                                                                          \
    {                                                                                              \
        "data", "problems", "reference"                                                            \
    }

/* Exit statuses shared by every subcommand. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Loads problem slug from paths->problems; prints the error and returns
 * NULL if it cannot. */
struct problem *cli_load_problem(const struct cli_paths *paths, const char *slug);

/* Parses "K=V,K=V" (export's --dims) into dims[p->n_dims]; every int
 * parameter of p must be given once, as a value that fits a C int. Returns
 * 0, or -1 with a message in err. */
int cli_parse_dims(const struct problem *p, const char *text, int64_t *dims, char *err,
                   size_t errlen);

/* `attnjudge problem new`: writes a new package parent/slug/ (problem.json,
 * statement.md, starter.c, reference.c, accepted/ and wrong/ examples) that
 * passes `problem check` as it is; its path goes to out_dir. Refuses an
 * invalid slug and an existing directory (nothing is overwritten). Returns
 * 0, or -1 with a message in err (files written so far are left). */
int cli_scaffold(const char *parent, const char *slug, char *out_dir, size_t out_len, char *err,
                 size_t errlen);

/* `attnjudge backup`: a checked copy of the server's database (server/backup.h). */
int cmd_backup(int argc, char **argv);
/* attnjudge migrate --to URL: the SQLite database into PostgreSQL (cmd_migrate.c). */
int cmd_migrate(int argc, char **argv);
int cmd_judge(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_problem(int argc, char **argv);
int cmd_problems(int argc, char **argv);
int cmd_vocabulary(int argc, char **argv);
/* attnjudge lti: LTI 1.3 platforms and the tool's key (cmd_lti.c). */
int cmd_lti(int argc, char **argv);

#endif
