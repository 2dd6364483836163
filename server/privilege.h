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
 * by name are rewritten to /proc/self/fd/N of the descriptors opened as
 * root (except the data directory, which must be reachable). run_as =
 * "root" skips all of it. Does nothing when not root. Returns 0, -1 with a
 * message, or PRIVILEGE_BAD_CONFIG with a message. */
int privilege_drop(struct config *c, char *err, size_t errlen);

#endif
