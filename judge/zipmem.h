/*
 * zipmem — a zip archive built in memory (libarchive), for the downloads
 * the server builds: the sample kit (judge/samples.c) and the sources of a
 * problem's submissions (server/integrity.c). Every entry gets the same
 * fixed time, so the bytes depend on the contents only.
 */
#ifndef ATTNJUDGE_JUDGE_ZIPMEM_H
#define ATTNJUDGE_JUDGE_ZIPMEM_H

#include <stddef.h>

#include "util/compiler.h"

struct zipmem;

/* A new empty archive whose entries sit under top/; NULL with a message. */
struct zipmem *zipmem_new(const char *top, char *err, size_t errlen);
/* Adds top/path with data. 0, or -1 (errno set). */
int zipmem_add(struct zipmem *z, const char *path, const void *data, size_t len) MUST_CHECK;
/* Closes the archive: 0 with the bytes in *out (*len; the caller frees),
 * or -1 with a message. Frees z either way. */
int zipmem_finish(struct zipmem *z, unsigned char **out, size_t *len, char *err,
                  size_t errlen) MUST_CHECK;
/* Frees an unfinished archive. */
void zipmem_free(struct zipmem *z);

#endif
