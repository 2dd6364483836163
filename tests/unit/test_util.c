/*
 * Unit tests of util/: the whole-file reader (exact contents, the size
 * limit refused rather than cut short, non-regular files refused, pipes
 * read to the end), write_all across signals that interrupt write(), the
 * atomic replacement (contents, mode, no temporaries left, an open reader
 * keeps the old file), mkdir -p, the two clocks, and ISO 8601 date-times
 * (isotime: what is refused, offsets, the round trip through the format).
 *
 * Every case works in a fresh temporary directory, removed afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fs.h"
#include "util/isotime.h"

struct tmp {
    char root[64];
};

static int setup(void **state)
{
    struct tmp *t = calloc(1, sizeof *t);

    if (!t)
        return -1;
    strcpy(t->root, "/tmp/attnjudge-util-XXXXXX");
    if (!mkdtemp(t->root))
        return -1;
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

static void put(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

/* Number of entries in dir besides . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_read_file(void **state)
{
    struct tmp *t = *state;
    char path[128], *buf = NULL;
    size_t len = 0;
    /* NUL bytes inside are data: the reader does not stop at them */
    static const char text[] = "int x;\0tail";

    snprintf(path, sizeof path, "%s/a.c", t->root);
    put(path, text, sizeof text - 1);
    assert_int_equal(fs_read_file(path, 0, 1024, &buf, &len), 0);
    assert_int_equal(len, sizeof text - 1);
    assert_memory_equal(buf, text, len);
    assert_int_equal(buf[len], '\0');
    free(buf);

    /* exactly max bytes is allowed */
    assert_int_equal(fs_read_file(path, 0, sizeof text - 1, &buf, &len), 0);
    free(buf);

    /* an empty file is an empty string */
    snprintf(path, sizeof path, "%s/empty", t->root);
    put(path, "", 0);
    assert_int_equal(fs_read_file(path, 0, 10, &buf, &len), 0);
    assert_int_equal(len, 0);
    assert_string_equal(buf, "");
    free(buf);
}

/* The bug this reader replaces: a reference of more than 1 MiB was cut at
 * 1 MiB and judged as if whole. */
static void test_read_file_refuses_oversized(void **state)
{
    struct tmp *t = *state;
    size_t max = 1 << 20;
    char path[128], *big = malloc(max + 1), *buf = (char *)1;
    size_t len = 7;

    assert_non_null(big);
    memset(big, 'x', max + 1);
    snprintf(path, sizeof path, "%s/big.c", t->root);
    put(path, big, max + 1);
    errno = 0;
    assert_int_equal(fs_read_file(path, 0, max, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    assert_null(buf);
    assert_int_equal(len, 7); /* untouched */
    free(big);
}

static void test_read_file_refuses_non_regular(void **state)
{
    struct tmp *t = *state;
    char path[128], link[128], *buf = NULL;
    size_t len;

    /* a directory */
    assert_int_equal(fs_read_file(t->root, 0, 100, &buf, &len), -1);
    assert_int_equal(errno, EINVAL);
    /* a FIFO with no writer: refused at once, not waited on */
    snprintf(path, sizeof path, "%s/fifo", t->root);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fs_read_file(path, 0, 100, &buf, &len), -1);
    assert_int_equal(errno, EINVAL);
    /* missing */
    snprintf(path, sizeof path, "%s/none", t->root);
    assert_int_equal(fs_read_file(path, 0, 100, &buf, &len), -1);
    assert_int_equal(errno, ENOENT);
    /* a symlink, when the caller asks for O_NOFOLLOW */
    snprintf(path, sizeof path, "%s/target", t->root);
    put(path, "x", 1);
    snprintf(link, sizeof link, "%s/link", t->root);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(fs_read_file(link, O_NOFOLLOW, 100, &buf, &len), -1);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(fs_read_file(link, 0, 100, &buf, &len), 0);
    assert_string_equal(buf, "x");
    free(buf);
}

struct feeder {
    int fd;
    size_t n; /* bytes to write */
};

static void *feed(void *arg)
{
    struct feeder *f = arg;
    char chunk[4096];

    memset(chunk, 'p', sizeof chunk);
    for (size_t left = f->n; left > 0;) {
        size_t k = left < sizeof chunk ? left : sizeof chunk;
        ssize_t w = write(f->fd, chunk, k);

        if (w <= 0)
            break; /* the reader gave up: EPIPE */
        left -= (size_t)w;
    }
    close(f->fd);
    return NULL;
}

/* A pipe has no size to trust: it is read to the end, across several
 * buffer growths, and refused once it passes max. */
static void test_read_fd_pipe(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 300 * 1024};
    char *buf = NULL;
    size_t len = 0;

    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int p[2];
        pthread_t th;
        struct feeder f;

        assert_int_equal(pipe(p), 0);
        f.fd = p[1];
        f.n = sizes[i];
        assert_int_equal(pthread_create(&th, NULL, feed, &f), 0);
        assert_int_equal(fs_read_fd(p[0], 300 * 1024, &buf, &len), 0);
        assert_int_equal(len, sizes[i]);
        for (size_t k = 0; k < len; k++)
            if (buf[k] != 'p')
                fail_msg("byte %zu differs", k);
        assert_int_equal(buf[len], '\0');
        free(buf);
        pthread_join(th, NULL);
        close(p[0]);
    }

    /* one byte over */
    int p[2];
    pthread_t th;
    struct feeder f;

    assert_int_equal(pipe(p), 0);
    f.fd = p[1];
    f.n = 100 * 1024 + 1;
    assert_int_equal(pthread_create(&th, NULL, feed, &f), 0);
    assert_int_equal(fs_read_fd(p[0], 100 * 1024, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    close(p[0]); /* the feeder gets EPIPE and stops */
    pthread_join(th, NULL);
}

static void on_alarm(int sig)
{
    (void)sig;
}

struct drain {
    int fd;
    size_t got;
    int bad;
};

static void *drain(void *arg)
{
    struct drain *d = arg;
    unsigned char buf[4096];
    ssize_t n;

    while ((n = read(d->fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] != (unsigned char)((d->got + (size_t)i) % 251))
                d->bad++;
        d->got += (size_t)n;
        usleep(50); /* slower than the writer: write() blocks and is interrupted */
    }
    return NULL;
}

/* write() on a full pipe is interrupted by a signal without SA_RESTART:
 * it returns a short count or fails with EINTR. Every byte must still
 * arrive, in order. */
static void test_write_all_survives_signals(void **state)
{
    (void)state;
    size_t n = 4 << 20;
    unsigned char *data = malloc(n);
    struct sigaction sa, old;
    struct itimerval every = {{0, 500}, {0, 500}}, off = {{0, 0}, {0, 0}};
    struct drain d = {0};
    pthread_t th;
    int p[2];

    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i % 251);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
    assert_int_equal(pipe(p), 0);
    d.fd = p[0];
    /* the reader thread must not take the signals */
    sigset_t block, prev;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &block, &prev);
    assert_int_equal(pthread_create(&th, NULL, drain, &d), 0);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);

    assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
    int rc = fs_write_all(p[1], data, n);
    setitimer(ITIMER_REAL, &off, NULL);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    sigaction(SIGALRM, &old, NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(d.got, n);
    assert_int_equal(d.bad, 0);
    free(data);
}

static void test_write_atomic(void **state)
{
    struct tmp *t = *state;
    char path[128], *buf = NULL;
    size_t len;
    struct stat st;
    mode_t old_mask = umask(077);

    snprintf(path, sizeof path, "%s/out.npy", t->root);
    assert_int_equal(fs_write_atomic(path, "first", 5, 0644), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644); /* the mode asked for, whatever the umask */
    umask(old_mask);

    /* a reader that opened the old file keeps reading the old file */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(fs_write_atomic(path, "second!", 7, 0600), 0);
    assert_int_equal(fs_read_fd(fd, 100, &buf, &len), 0);
    assert_string_equal(buf, "first");
    free(buf);
    close(fd);
    assert_int_equal(fs_read_file(path, 0, 100, &buf, &len), 0);
    assert_string_equal(buf, "second!");
    free(buf);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    /* no temporary is left behind */
    assert_int_equal(count_entries(t->root), 1);

    /* a directory that does not exist: -1, nothing created */
    snprintf(path, sizeof path, "%s/no/such/file", t->root);
    assert_int_equal(fs_write_atomic(path, "x", 1, 0600), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(count_entries(t->root), 1);
}

static void test_mkdir_p(void **state)
{
    struct tmp *t = *state;
    char path[160], file[160];
    struct stat st;
    mode_t old_mask = umask(022);

    snprintf(path, sizeof path, "%s/a/b/c", t->root);
    assert_int_equal(fs_mkdir_p(path, 0700), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    /* again: it exists, which is fine; a trailing slash too */
    assert_int_equal(fs_mkdir_p(path, 0700), 0);
    snprintf(path, sizeof path, "%s/a/b/c/", t->root);
    assert_int_equal(fs_mkdir_p(path, 0700), 0);
    umask(old_mask);

    /* a file in the way */
    snprintf(file, sizeof file, "%s/a/file", t->root);
    put(file, "x", 1);
    assert_int_equal(fs_mkdir_p(file, 0700), -1);
    assert_int_equal(errno, ENOTDIR);
    snprintf(path, sizeof path, "%s/a/file/sub", t->root);
    assert_int_equal(fs_mkdir_p(path, 0700), -1);
    assert_int_equal(errno, ENOTDIR);
    assert_int_equal(fs_mkdir_p("", 0700), -1);
}

static void test_clocks(void **state)
{
    (void)state;
    struct timespec nap = {0, 20 * 1000 * 1000};
    int64_t wall = clock_wall_ms();
    int64_t now_s = (int64_t)time(NULL);
    double m0 = clock_mono_ms();

    /* the same second as time(), give or take one */
    assert_true(wall / 1000 >= now_s - 1 && wall / 1000 <= now_s + 1);
    while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
        ;
    /* a sleep of 20 ms advances the monotonic clock by at least 20 ms */
    assert_true(clock_mono_ms() - m0 >= 20.0);
}

static void test_isotime(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t ms;
    } good[] = {
        {"1970-01-01T00:00:00.001Z", 1},
        {"2025-03-01T09:00:00Z", INT64_C(1740819600000)},
        {"2025-03-01t09:00z", INT64_C(1740819600000)},
        {"2025-03-01T10:00:00+01:00", INT64_C(1740819600000)},
        {"2025-03-01T04:30:00-04:30", INT64_C(1740819600000)},
        {"2025-03-01T09:00:00.5Z", INT64_C(1740819600500)},
        {"2025-03-01T09:00:00.123456789Z", INT64_C(1740819600123)},
        {"2024-02-29T23:59:59.999Z", INT64_C(1709251199999)},
        {"2000-02-29T00:00:00Z", INT64_C(951782400000)},
        {"9999-12-31T23:59:59.999Z", INT64_C(253402300799999)},
    };
    static const char *const bad[] = {
        "",
        "2025-03-01",
        "2025-03-01T09:00:00",
        "2025-03-01T09:00:00 Z",
        " 2025-03-01T09:00Z",
        "2025-03-01T09:00Zx",
        "2025-3-01T09:00Z",
        "2025-03-01 09:00Z",
        "2025-13-01T00:00Z",
        "2025-00-01T00:00Z",
        "2025-02-29T00:00Z",
        "1900-02-29T00:00Z",
        "2025-04-31T00:00Z",
        "2025-03-01T24:00Z",
        "2025-03-01T23:60Z",
        "2025-12-31T23:59:60Z",
        "2025-03-01T09:00:00.Z",
        "2025-03-01T09:00:00.1234567890Z",
        "2025-03-01T09:00+1:00",
        "2025-03-01T09:00+24:00",
        "2025-03-01T09:00+01:60",
        "2025-03-01T09:00+0100",
        "1970-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "1970-01-01T00:30:00+01:00",
        "10000-01-01T00:00Z",
        "9999-12-31T23:00:00-02:00",
        "+2025-03-01T09:00Z",
        "2025-03-01T09:00:00,5Z",
        "２０２５-03-01T09:00Z",
    };
    char buf[ISOTIME_LEN];
    int64_t ms;

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ms = -1;
        if (isotime_parse(good[i].text, &ms) != 0 || ms != good[i].ms)
            fail_msg("'%s' read as %lld, want %lld", good[i].text, (long long)ms,
                     (long long)good[i].ms);
        /* the format reads back as the same instant */
        assert_int_equal(isotime_format(ms, buf), 0);
        ms = -1;
        assert_int_equal(isotime_parse(buf, &ms), 0);
        assert_int_equal(ms, good[i].ms);
    }
    assert_int_equal(isotime_format(INT64_C(1740819600123), buf), 0);
    assert_string_equal(buf, "2025-03-01T09:00:00.123Z");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ms = 42;
        errno = 0;
        if (isotime_parse(bad[i], &ms) != -1 || errno != EINVAL || ms != 42)
            fail_msg("'%s' was accepted (%lld)", bad[i], (long long)ms);
    }
    assert_int_equal(isotime_parse(NULL, &ms), -1);
    assert_int_equal(isotime_format(0, buf), -1);
    assert_int_equal(isotime_format(INT64_C(253402300800000), buf), -1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_read_file),
        T(test_read_file_refuses_oversized),
        T(test_read_file_refuses_non_regular),
        cmocka_unit_test(test_read_fd_pipe),
        cmocka_unit_test(test_write_all_survives_signals),
        T(test_write_atomic),
        T(test_mkdir_p),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_isotime),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
