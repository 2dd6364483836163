/*
 * fs — whole-file reads and writes done carefully, and the path and tree
 * helpers, once for every layer.
 *
 * Like system calls, these return 0 or -1 with errno set, so each caller
 * words its own message. The reader refuses what does not fit instead of
 * cutting it short: a truncated reference or package file would be judged
 * as if it were whole.
 *
 * util/ sits below every other library (sandbox, judge, server, cli) and
 * uses nothing but libc.
 */
#ifndef ATTNJUDGE_FS_H
#define ATTNJUDGE_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "util/compiler.h"

/* Reads the whole regular file at path into *out, a new buffer of *len + 1
 * bytes with a NUL after the contents (which may contain NULs themselves;
 * caller frees). extra_flags are added to open()'s O_RDONLY | O_CLOEXEC |
 * O_NONBLOCK (e.g. O_NOFOLLOW). Fails with EFBIG if the file has more than
 * max bytes, also when it grows past max while being read; with EINVAL if
 * it is not a regular file (a FIFO would block, a directory is no file);
 * with open()'s or read()'s errno otherwise. *out is NULL on failure. */
int fs_read_file(const char *path, int extra_flags, size_t max, char **out, size_t *len) MUST_CHECK;

/* Reads fd from its current offset to end of file, as fs_read_file does
 * (any kind of descriptor: a pipe or stdin too). The descriptor stays
 * open. */
int fs_read_fd(int fd, size_t max, char **out, size_t *len) MUST_CHECK;

/* Writes all len bytes of buf to fd, resuming after short writes and
 * EINTR. Returns 0, or -1 with errno. */
int fs_write_all(int fd, const void *buf, size_t len) MUST_CHECK;

/* Replaces path with len bytes of data and permissions mode, atomically:
 * a temporary file in the same directory is written, fsync'ed and renamed
 * over path, so a reader sees the old file or the whole new one, never a
 * part. Returns 0, or -1 with errno (the temporary is removed). */
int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode) MUST_CHECK;

/* mkdir -p: creates path and its missing parents with mode (existing
 * directories are left as they are). Returns 0 if path is a directory
 * afterwards, or -1 with errno (ENOTDIR: it exists as something else). */
int fs_mkdir_p(const char *path, mode_t mode) MUST_CHECK;

/* rm -rf: removes path and everything under it, never following a
 * symbolic link (a link is removed, not its target). A path that does not
 * exist is no error. Returns 0, or -1 with errno. */
int fs_remove_tree(const char *path);

/* "dir/name" in a new string (caller frees), or NULL when out of memory. */
char *fs_path_join(const char *dir, const char *name);

#endif
