/*
 * bench: the sandbox's cost per run, against a bare fork + exec of the same
 * static program with the same descriptors (input on fd 3, result on fd 4).
 *
 *   sandbox_overhead PROGRAM [RUNS]
 *
 * Prints the median and mean wall time of both, and the difference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double bare_run(int exe, int input)
{
    int res[2];
    char buf[4096];
    double t0 = now_ms();
    if (pipe(res) < 0)
        exit(1);
    lseek(input, 0, SEEK_SET);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        dup2(input, 3);
        dup2(res[1], 4);
        char *argv[] = {"solution", NULL}, *envp[] = {NULL};
        fexecve(exe, argv, envp);
        _exit(127);
    }
    close(res[1]);
    while (read(res[0], buf, sizeof buf) > 0)
        ;
    close(res[0]);
    waitpid(pid, NULL, 0);
    return now_ms() - t0;
}

static double sandboxed_run(int exe, int input)
{
    struct sbx_spec spec;
    struct sbx_result r;
    char err[512];
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_RUN;
    sbx_limits_default(SBX_RUN, &spec.limits);
    spec.exec_fd = exe;
    spec.input_fd = input;
    spec.result_cap = 4096;
    lseek(input, 0, SEEK_SET);
    double t0 = now_ms();
    if (sbx_run(&spec, &r, err, sizeof err) < 0) {
        fprintf(stderr, "sbx_run: %s\n", err);
        exit(1);
    }
    double t = now_ms() - t0;
    if (r.status != SBX_EXITED || r.exit_code != 0) {
        fprintf(stderr, "the program failed in the sandbox (status %d)\n", r.status);
        exit(1);
    }
    sbx_result_free(&r);
    return t;
}

static void summary(const char *name, double *t, int n, double *median)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *median = t[n / 2];
    printf("  %-22s median %7.3f ms   mean %7.3f ms   (%d runs)\n", name, *median, sum / n, n);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sandbox_overhead PROGRAM [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 200;
    if (runs < 1 || runs > 100000)
        runs = 200;
    FILE *f = fopen(argv[1], "rb");
    static char image[8 << 20];
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t n = fread(image, 1, sizeof image, f);
    fclose(f);
    int exe = sbx_memfd_from("bench-program", image, n);
    int input = sbx_memfd_from("bench-input", image, 4096);
    if (exe < 0 || input < 0) {
        perror("memfd");
        return 1;
    }
    double *bare = calloc((size_t)runs, sizeof *bare), *sbx = calloc((size_t)runs, sizeof *sbx);
    for (int i = 0; i < 5; i++) { /* warm-up */
        bare_run(exe, input);
        sandboxed_run(exe, input);
    }
    for (int i = 0; i < runs; i++) {
        bare[i] = bare_run(exe, input);
        sbx[i] = sandboxed_run(exe, input);
    }
    double mb, ms;
    summary("bare fork+exec", bare, runs, &mb);
    summary("sandboxed (sbx_run)", sbx, runs, &ms);
    printf("  sandbox overhead per run: %.3f ms (median; target <= 3 ms)\n", ms - mb);
    free(bare);
    free(sbx);
    return 0;
}
