/*
 * migrate — moving a deployment from SQLite up to PostgreSQL (`attnjudge
 * migrate --to`; docs/operations.md, "Moving up to PostgreSQL").
 */
#ifndef ATTNJUDGE_SERVER_MIGRATE_H
#define ATTNJUDGE_SERVER_MIGRATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/compiler.h"

/* Copies every row of the SQLite database at sqlite_path into the empty
 * PostgreSQL database at url, in one transaction there: both schemas are
 * first brought to the newest version (the source as `serve` would at its
 * next start), the rows are read from one snapshot of the source and
 * written with their ids, the destination's id sequences continue after
 * them, and each table's row count is compared at the end. Judge hosts'
 * heartbeats are not copied (they are of processes, not of the course).
 * Prints one line per table to out. Returns 0, or -1 with a message in err
 * (nothing is written to the destination then). */
int migrate_sqlite_to(const char *sqlite_path, const char *url, FILE *out, char *err,
                      size_t errlen) MUST_CHECK;

#endif
