/*
 * fs — careful whole-file I/O, paths and trees (see fs.h).
 *
 * Reading grows the buffer as data arrives rather than trusting the size
 * fstat reported, and reads one byte past the limit: a file that grows (or
 * a pipe that keeps talking) past max is refused, never cut short.
 */
#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_READ_CHUNK (64 * 1024) /* first buffer when the size is unknown, bytes */

/* Reads to end of file into a buffer first sized for hint bytes. */
static int read_to_end(int fd, size_t max, size_t hint, char **out, size_t *len)
{
    size_t cap = (hint < max ? hint : max) + 1, used = 0;
    char *buf = malloc(cap);
    int saved;

    *out = NULL;
    if (!buf)
        return -1;
    for (;;) {
        if (used == cap) {
            if (cap > max) {
                errno = EFBIG;
                goto fail;
            }
            size_t grown = cap <= (max + 1) / 2 ? cap * 2 : max + 1;
            char *bigger = realloc(buf, grown);

            if (!bigger)
                goto fail;
            buf = bigger;
            cap = grown;
        }
        ssize_t n = read(fd, buf + used, cap - used);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        used += (size_t)n;
    }
    if (used > max) {
        errno = EFBIG;
        goto fail;
    }
    if (used == cap) {
        char *bigger = realloc(buf, used + 1);

        if (!bigger)
            goto fail;
        buf = bigger;
    }
    buf[used] = '\0';
    *out = buf;
    if (len)
        *len = used;
    return 0;

fail:
    saved = errno;
    free(buf);
    errno = saved;
    return -1;
}

int fs_read_fd(int fd, size_t max, char **out, size_t *len)
{
    struct stat st;
    size_t hint = FS_READ_CHUNK;

    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0)
        hint = (size_t)st.st_size;
    return read_to_end(fd, max, hint, out, len);
}

int fs_read_file(const char *path, int extra_flags, size_t max, char **out, size_t *len)
{
    struct stat st;
    int fd, rc = -1, saved;

    *out = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra_flags);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0)
        goto out;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        goto out;
    }
    if ((uint64_t)st.st_size > max) {
        errno = EFBIG;
        goto out;
    }
    rc = read_to_end(fd, max, (size_t)st.st_size, out, len);
out:
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int fs_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = EIO; /* no progress: do not spin */
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
    char *tmp = NULL;
    int fd = -1, rc = -1, saved;

    /* Same directory as path, so that rename() is atomic. */
    if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
        tmp = NULL;
        errno = ENOMEM;
        goto out;
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        free(tmp);
        tmp = NULL;
        goto out;
    }
    /* mkostemp creates 0600; the caller says who may read the file. */
    if (fchmod(fd, mode) != 0 || fs_write_all(fd, data, len) != 0 || fsync(fd) != 0)
        goto out;
    saved = close(fd);
    fd = -1;
    if (saved != 0 || rename(tmp, path) != 0)
        goto out;
    free(tmp);
    tmp = NULL;
    rc = 0;
out:
    saved = errno;
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    errno = saved;
    return rc;
}

int fs_mkdir_p(const char *path, mode_t mode)
{
    struct stat st;
    char *copy = strdup(path);
    int rc = -1, saved;

    if (!copy)
        return -1;
    if (!*copy) {
        errno = ENOENT;
        goto out;
    }
    /* Each proper prefix ending before a '/', then the whole path. */
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, mode) != 0 && errno != EEXIST)
            goto out;
        *p = '/';
    }
    if (mkdir(copy, mode) != 0 && errno != EEXIST)
        goto out;
    if (stat(path, &st) != 0)
        goto out;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        goto out;
    }
    rc = 0;
out:
    saved = errno;
    free(copy);
    errno = saved;
    return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int fs_remove_tree(const char *path)
{
    if (access(path, F_OK) < 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *fs_path_join(const char *dir, const char *name)
{
    char *s;

    if (asprintf(&s, "%s/%s", dir, name) < 0)
        return NULL;
    return s;
}
