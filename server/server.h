/*
 * server — the `attnjudge serve` and `attnjudge user` subcommands.
 *
 * Both take argv with argv[0] = "serve" / "user", print --help, and return
 * the process exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef ATTNJUDGE_SERVER_SERVER_H
#define ATTNJUDGE_SERVER_SERVER_H

/* Runs the HTTP server and the judging workers until SIGTERM or SIGINT. */
int server_main(int argc, char **argv);

/* `attnjudge user add NAME --role student|instructor [--data DIR]
 * [--config FILE] [--password-stdin]`: creates an account in the server's
 * database and prints a one-time password (or reads it from stdin). */
int server_user_main(int argc, char **argv);

#endif
