/*
 * Unit tests of judge/secret: the key file is created 0600 in a 0700
 * directory, is stable across loads, is refused when group/other-readable,
 * a symlink, the wrong size or not a file, and processes racing to create it
 * agree on one key. Hidden seeds are pinned against an independent
 * computation (Python's hashlib.blake2b(message, key=key, digest_size=32),
 * first 8 bytes little-endian, run by hand; it agreed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/secret.h"

struct tmp {
    char root[64];
    char data[128];
    char key[160];
};

static int setup(void **state)
{
    struct tmp *t = calloc(1, sizeof *t);

    if (!t)
        return -1;
    strcpy(t->root, "/tmp/attnjudge-secret-XXXXXX");
    if (!mkdtemp(t->root))
        return -1;
    /* Two missing levels: secret_load creates both. */
    snprintf(t->data, sizeof t->data, "%s/a/data", t->root);
    snprintf(t->key, sizeof t->key, "%s/secret.key", t->data);
    *state = t;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    struct tmp *t = *state;
    int rc = nftw(t->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    free(t);
    return rc;
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

static void test_create_and_reload(void **state)
{
    struct tmp *t = *state;
    struct secret a, b;
    char err[512];
    struct stat st;
    mode_t old = umask(0); /* a permissive umask must not widen the modes */

    assert_int_equal(secret_load(t->data, &a, err, sizeof err), 0);
    umask(old);
    assert_int_equal(stat(t->data, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(lstat(t->key, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, SECRET_BYTES);

    assert_int_equal(secret_load(t->data, &b, err, sizeof err), 0);
    assert_memory_equal(a.key, b.key, SECRET_BYTES);
}

/* secret_file: the key a data directory made, given to another host, is
 * the same key there (so the same hidden inputs); a missing one is never
 * created; one readable by others is refused. */
static void test_secret_file(void **state)
{
    struct tmp *t = *state;
    struct secret a, b;
    char err[512] = "", other[200], copy[200];
    assert_int_equal(secret_load(t->data, &a, err, sizeof err), 0);
    snprintf(copy, sizeof copy, "%s/shared.key", t->root);
    write_file(copy, a.key, SECRET_BYTES, 0600);
    assert_int_equal(secret_load_file(copy, &b, err, sizeof err), 0);
    assert_memory_equal(a.key, b.key, SECRET_BYTES);
    assert_true(secret_hidden_seed(&a, "p", "hidden-1") == secret_hidden_seed(&b, "p", "hidden-1"));
    snprintf(other, sizeof other, "%s/missing.key", t->root);
    assert_int_equal(secret_load_file(other, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not exist"));
    assert_int_equal(access(other, F_OK), -1);
    assert_int_equal(chmod(copy, 0644), 0);
    assert_int_equal(secret_load_file(copy, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "group or others"));
}

static void expect_refused(struct tmp *t, const char *want)
{
    struct secret s;
    char err[512] = "";

    assert_int_equal(secret_load(t->data, &s, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("error '%s' does not contain '%s'", err, want);
}

static void test_refuses_bad_key_files(void **state)
{
    struct tmp *t = *state;
    unsigned char bytes[SECRET_BYTES + 1] = {0};
    struct secret s;
    char err[512], target[200];

    assert_int_equal(secret_load(t->data, &s, err, sizeof err), 0);

    assert_int_equal(chmod(t->key, 0644), 0);
    expect_refused(t, "mode 0644");
    assert_int_equal(chmod(t->key, 0640), 0);
    expect_refused(t, "group or others");

    /* A symlink, even to a perfectly good key, is refused. */
    snprintf(target, sizeof target, "%s/elsewhere.key", t->root);
    write_file(target, bytes, SECRET_BYTES, 0600);
    assert_int_equal(unlink(t->key), 0);
    assert_int_equal(symlink(target, t->key), 0);
    expect_refused(t, "symbolic link");
    /* A dangling symlink is refused too, not replaced. */
    assert_int_equal(unlink(target), 0);
    expect_refused(t, "symbolic link");
    assert_int_equal(unlink(t->key), 0);

    write_file(t->key, bytes, SECRET_BYTES + 1, 0600);
    expect_refused(t, "33 bytes, not 32");
    assert_int_equal(unlink(t->key), 0);
    write_file(t->key, bytes, 0, 0600);
    expect_refused(t, "0 bytes");
    assert_int_equal(unlink(t->key), 0);

    assert_int_equal(mkdir(t->key, 0700), 0);
    expect_refused(t, "not a regular file");
    assert_int_equal(rmdir(t->key), 0);

    /* After clean-up a fresh key is created again. */
    assert_int_equal(secret_load(t->data, &s, err, sizeof err), 0);
}

static void test_concurrent_creation_agrees(void **state)
{
    enum { N = 8 };
    struct tmp *t = *state;
    struct secret mine, theirs;
    int fds[N][2];
    pid_t pids[N];
    char err[512];

    for (int i = 0; i < N; i++) {
        assert_int_equal(pipe(fds[i]), 0);
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            struct secret s;
            int ok = secret_load(t->data, &s, err, sizeof err) == 0 &&
                     write(fds[i][1], s.key, SECRET_BYTES) == SECRET_BYTES;

            _exit(ok ? 0 : 1);
        }
        close(fds[i][1]);
    }
    assert_int_equal(secret_load(t->data, &mine, err, sizeof err), 0);
    for (int i = 0; i < N; i++) {
        int status;

        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(read(fds[i][0], theirs.key, SECRET_BYTES), SECRET_BYTES);
        close(fds[i][0]);
        assert_memory_equal(mine.key, theirs.key, SECRET_BYTES);
    }
}

static void test_hidden_seeds(void **state)
{
    struct secret s, other;
    uint64_t a;

    (void)state;
    for (int i = 0; i < SECRET_BYTES; i++) {
        s.key[i] = (unsigned char)i;
        other.key[i] = (unsigned char)(i + 1);
    }
    /* Golden values, cross-checked with hashlib.blake2b. */
    assert_int_equal(secret_hidden_seed(&s, "mha-cross", "no-mask"), UINT64_C(0x79331e172e68c469));
    assert_int_equal(secret_hidden_seed(&s, "gpt2-attention", "big-magnitude"),
                     UINT64_C(0x890b8301a023ae21));

    a = secret_hidden_seed(&s, "mha-cross", "no-mask");
    assert_int_equal(secret_hidden_seed(&s, "mha-cross", "no-mask"), a);
    assert_int_not_equal(secret_hidden_seed(&s, "mha-cross", "no-mask2"), a);
    assert_int_not_equal(secret_hidden_seed(&s, "mha-crosz", "no-mask"), a);
    assert_int_not_equal(secret_hidden_seed(&other, "mha-cross", "no-mask"), a);
    /* The separator keeps the split between slug and name significant. */
    assert_int_not_equal(secret_hidden_seed(&s, "ab", "c"), secret_hidden_seed(&s, "a", "bc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_reload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secret_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_bad_key_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_creation_agrees, setup, teardown),
        cmocka_unit_test(test_hidden_seeds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
