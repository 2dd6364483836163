/*
 * privilege — `attnjudge serve` started as root gives root up
 * (docs/operations.md, "Privileges"; docs/sandbox.md, "The judge's own
 * privileges").
 */
#ifndef ATTNJUDGE_SERVER_PRIVILEGE_H
#define ATTNJUDGE_SERVER_PRIVILEGE_H

#include <stddef.h>

#include "server/config.h"

/* A setting is wrong (unknown run_as user, ...): exit status 2. */
#define PRIVILEGE_BAD_CONFIG (-2)

/* Called as root, with one thread, after the data directory is locked:
 * hands the data directory to c->run_as (owner, mode 0700), binds the port
 * (c->listen_fd), opens the other directories and the access log, then
 * becomes c->run_as: root of a user namespace of its own that maps only
 * run_as and nobody, holding only CAP_SETUID and CAP_SETGID there, so that
 * the judge's sandboxes still run as nobody. Paths that run_as cannot reach
 * by name (under a 0700 parent such as root's home) are rewritten to
 * /proc/self/fd/N of the descriptors opened as root, which stay open for
 * the process's life: c->problems_dir, reference_dir, web_dir, access_log,
 * and c->data_dir when run_as cannot reach it by its absolute name (the
 * database is then opened through sqlite_fdpath.h; a notice says so).
 * run_as = "root" skips all of it. Does nothing when not root. Returns 0,
 * -1 with a one-line message saying why and what to do, or
 * PRIVILEGE_BAD_CONFIG with a message. */
int privilege_drop(struct config *c, char *err, size_t errlen);

#endif
