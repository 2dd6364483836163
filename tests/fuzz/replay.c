/*
 * replay — the plain main() that `make test` links with each fuzz target
 * (tests/fuzz/<target>.c) instead of libFuzzer's, so that every kept input
 * (seeds, the corpus, crashes found once) is run again on every test run,
 * with the ordinary compiler (or under SANITIZE).
 *
 *   fuzz_<target> DIR...
 *
 * Each regular file of each DIR is given to LLVMFuzzerTestOneInput in a
 * child process of its own, with a 10 s alarm: a crash, an abort (a
 * target's own check, or a sanitizer's report) or a hang fails that input
 * only, and is named. Prints "FAIL ..." lines, one "ok" line per directory
 * and "N passed, N failed" (inputs); exits 1 on any failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
/* clang's profile runtime, in the make fuzz-coverage build only */
int __llvm_profile_write_file(void) __attribute__((weak));

#define REPLAY_MAX_INPUT (16 * 1024 * 1024) /* bytes; kept inputs are far smaller */

/* Reads path into an exactly sized buffer (so that a sanitizer sees any
 * read past the input's end). Returns it, or NULL. */
static uint8_t *slurp(const char *path, size_t *size)
{
    uint8_t *buf = NULL;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > REPLAY_MAX_INPUT)
        goto out;
    buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf)
        goto out;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0) {
            free(buf);
            buf = NULL;
            goto out;
        }
        got += (size_t)n;
    }
    *size = got;
out:
    if (fd >= 0)
        close(fd);
    return buf;
}

/* Runs one input in a child. Returns 0 when it came back cleanly. */
static int run_one(const char *path)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("FAIL %s: fork: %s\n", path, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        size_t size = 0;
        uint8_t *data = slurp(path, &size);
        if (!data) {
            fprintf(stderr, "cannot read %s\n", path);
            _exit(2);
        }
        alarm(10);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        /* _exit: the parent's atexit handlers are not the child's to run */
        if (__llvm_profile_write_file)
            __llvm_profile_write_file();
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            printf("FAIL %s: waitpid: %s\n", path, strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        printf("FAIL %s: killed by signal %d%s\n", path, WTERMSIG(status),
               WTERMSIG(status) == SIGALRM ? " (over 10 s)" : "");
    else
        printf("FAIL %s: exit status %d\n", path, WEXITSTATUS(status));
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int a = 1; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        char **names = NULL;
        size_t n = 0, cap = 0;
        int dir_failed = 0;
        struct dirent *e;
        if (!d) {
            printf("FAIL %s: %s\n", argv[a], strerror(errno));
            failed++;
            continue;
        }
        while ((e = readdir(d))) {
            char *path;
            struct stat st;
            if (asprintf(&path, "%s/%s", argv[a], e->d_name) < 0)
                break;
            if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || e->d_name[0] == '.') {
                free(path);
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **grown = realloc(names, cap * sizeof *names);
                if (!grown) {
                    free(path);
                    break;
                }
                names = grown;
            }
            names[n++] = path;
        }
        closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t i = 0; i < n; i++) {
            if (run_one(names[i]) == 0) {
                passed++;
            } else {
                failed++;
                dir_failed++;
            }
            free(names[i]);
        }
        free(names);
        if (!dir_failed)
            printf("ok %s: %zu inputs\n", argv[a], n);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
