/*
 * secret — the per-deployment secret and the hidden tests' seeds.
 *
 * Theory of operation. Hidden test inputs are regenerated from seeds that
 * students must not be able to compute, so each seed is
 *
 *     first 8 bytes, little-endian, of BLAKE2b-256(key = secret,
 *                                                 message = slug "\0" test)
 *
 * (libsodium's crypto_generichash). The NUL keeps ("a", "bc") and ("ab", "c")
 * apart. The secret is 32 bytes from randombytes_buf(), kept in
 * <data>/secret.key.
 *
 * Creating the key: the bytes are written to a fresh temporary file opened
 * with O_CREAT | O_EXCL | O_NOFOLLOW and mode 0600, then published with
 * link(), which like O_EXCL fails with EEXIST when the key already exists.
 * So two processes starting at once agree on one key, and no process ever
 * reads a key file that is still being written. The loser of the race reads
 * the winner's key.
 *
 * Loading the key: open with O_NOFOLLOW (a symlink planted in the data
 * directory could otherwise point the judge at an attacker-chosen file) and
 * refuse anything that is not a regular file of exactly 32 bytes with no
 * group or other permission bits: such a key has leaked or is not ours.
 *
 * No global state besides libsodium's own (sodium_init() is thread-safe).
 */
#include "judge/secret.h"
#include "judge/errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "util/fs.h"

#define SECRET_FILE "secret.key"

/* mkdir -p, new directories 0700: the data directory holds the secret and
 * the database, which are nobody else's business. */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
    if (!*dir) {
        errbuf_set(err, errlen, "empty data directory name");
        return -1;
    }
    if (fs_mkdir_p(dir, 0700) != 0) {
        if (errno == ENOTDIR)
            errbuf_set(err, errlen, "%s is not a directory", dir);
        else
            errbuf_set(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static int read_key(const char *path, struct secret *s, char *err, size_t errlen)
{
    struct stat st;
    char *buf = NULL;
    size_t got = 0;
    int fd, rc = -1;

    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            errbuf_set(err, errlen, "%s is a symbolic link; refusing to use it as the secret key",
                       path);
        else
            errbuf_set(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        errbuf_set(err, errlen, "cannot stat %s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        errbuf_set(err, errlen, "%s is not a regular file; refusing it as the secret key", path);
        goto out;
    }
    if (st.st_size != SECRET_BYTES) {
        errbuf_set(err, errlen, "%s is %lld bytes, not %d; refusing it as the secret key", path,
                   (long long)st.st_size, SECRET_BYTES);
        goto out;
    }
    if (st.st_mode & 077) {
        errbuf_set(err, errlen,
                   "%s has mode %04o: the secret key must not be accessible to group or others "
                   "(chmod 600 it, and consider it leaked)",
                   path, (unsigned)(st.st_mode & 07777));
        goto out;
    }
    if (fs_read_fd(fd, SECRET_BYTES, &buf, &got) != 0 || got != SECRET_BYTES) {
        errbuf_set(err, errlen, "cannot read %s: %s", path, buf ? "short" : strerror(errno));
        goto out;
    }
    memcpy(s->key, buf, SECRET_BYTES);
    rc = 0;
out:
    if (buf) {
        sodium_memzero(buf, got);
        free(buf);
    }
    close(fd);
    if (rc != 0)
        sodium_memzero(s->key, sizeof s->key);
    return rc;
}

/* Creates the key at path unless it exists. Returns 1 if created (s filled),
 * 0 if a key already exists (s untouched), -1 on error. */
static int create_key(const char *dir, const char *path, struct secret *s, char *err, size_t errlen)
{
    unsigned char nonce[8];
    char *tmp = NULL;
    int fd = -1, rc = -1;

    randombytes_buf(nonce, sizeof nonce);
    if (asprintf(&tmp, "%s/.%s.%ld.%02x%02x%02x%02x%02x%02x%02x%02x", dir, SECRET_FILE,
                 (long)getpid(), nonce[0], nonce[1], nonce[2], nonce[3], nonce[4], nonce[5],
                 nonce[6], nonce[7]) < 0) {
        tmp = NULL;
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        errbuf_set(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        tmp = NULL;
        goto out;
    }
    randombytes_buf(s->key, sizeof s->key);
    if (fs_write_all(fd, s->key, SECRET_BYTES) != 0) {
        errbuf_set(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto out;
    }
    /* Durable before it is published: a key lost in a crash would change
     * every hidden test. */
    if (fsync(fd) != 0) {
        errbuf_set(err, errlen, "cannot sync %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (link(tmp, path) == 0) {
        rc = 1;
    } else if (errno == EEXIST) {
        rc = 0; /* someone else's key won; use theirs */
    } else {
        errbuf_set(err, errlen, "cannot create %s: %s", path, strerror(errno));
    }

out:
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    if (rc != 1)
        sodium_memzero(s->key, sizeof s->key);
    return rc;
}

int secret_load(const char *data_dir, struct secret *s, char *err, size_t errlen)
{
    char *path = NULL;
    struct stat st;
    int rc = -1, created;

    if (sodium_init() < 0) {
        errbuf_set(err, errlen, "libsodium failed to initialise");
        goto out;
    }
    if (make_dirs(data_dir, err, errlen) != 0)
        goto out;
    if (asprintf(&path, "%s/%s", data_dir, SECRET_FILE) < 0) {
        path = NULL;
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    /* lstat, not stat: a dangling symlink must be refused, not replaced. */
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        created = create_key(data_dir, path, s, err, errlen);
        if (created < 0)
            goto out;
        if (created == 1) {
            rc = 0;
            goto out;
        }
    }
    rc = read_key(path, s, err, errlen);
out:
    free(path);
    return rc;
}

int secret_load_file(const char *path, struct secret *s, char *err, size_t errlen)
{
    struct stat st;
    if (sodium_init() < 0) {
        errbuf_set(err, errlen, "libsodium failed to initialise");
        return -1;
    }
    /* never created here: hosts that each made their own would derive
     * different hidden tests */
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        errbuf_set(err, errlen,
                   "secret_file %s does not exist: copy the deployment's secret key there "
                   "(every host must have the same one)",
                   path);
        return -1;
    }
    return read_key(path, s, err, errlen);
}

uint64_t secret_hidden_seed(const struct secret *s, const char *slug, const char *test)
{
    crypto_generichash_state st;
    unsigned char hash[32];
    uint64_t seed = 0;

    /* A caller may hold a secret that did not come from secret_load()
     * (tests, tools). sodium_init() is idempotent and thread-safe; it can
     * only fail to set up randombytes, which hashing does not use. */
    (void)!sodium_init();
    crypto_generichash_init(&st, s->key, SECRET_BYTES, sizeof hash);
    crypto_generichash_update(&st, (const unsigned char *)slug, strlen(slug));
    crypto_generichash_update(&st, (const unsigned char *)"", 1);
    crypto_generichash_update(&st, (const unsigned char *)test, strlen(test));
    crypto_generichash_final(&st, hash, sizeof hash);
    for (int i = 7; i >= 0; i--)
        seed = seed << 8 | hash[i];
    sodium_memzero(&st, sizeof st);
    return seed;
}
