/*
 * problem_files — reading a package's files other than problem.json into
 * the problem being loaded (judge/problem_load.c calls it). Errors are
 * raised through the loader (judge/problem_loader.h).
 */
#ifndef ATTNJUDGE_PROBLEM_FILES_H
#define ATTNJUDGE_PROBLEM_FILES_H

#include <stddef.h>

#include <jansson.h>

#include "judge/problem_loader.h"

/* Reads the package file at path (label names it in messages) of at most
 * max bytes into a new NUL-terminated buffer (*len_out, may be NULL, gets
 * its length); flags are added to open()'s (O_NOFOLLOW). Refuses
 * non-regular files and NUL bytes. NULL with the error raised on ld. */
char *problem_files_read(const char *path, const char *label, int flags, size_t max,
                         size_t *len_out, struct problem_loader *ld);

/* Reads the files of the package in dir into ld->p, noting each file's
 * error on its own: the known mistakes listed in problem.json's
 * "mistakes" (root, its parse; skipped unless an object), statement.md,
 * starter.c, hints/, walkthrough.md, and the reference (dir's
 * reference.c, or reference_dir/<slug>.c; reference_dir may be NULL).
 * Returns 0, or -1 when the load has failed. */
int problem_files_load(struct problem_loader *ld, json_t *root, const char *dir,
                       const char *reference_dir);

#endif
