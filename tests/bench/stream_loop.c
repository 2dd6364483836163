/* make bench's third yardstick for the machine's own noise, the kind the
 * CV target's issue measured beside the register loop: an 8 MiB streaming
 * loop (two 4 MiB float arrays, a[i] = a[i] * s + b[i], 2000 passes after
 * one untimed pass), its process CPU time printed in ms. Built with -O3
 * -march=native, so that it is vectorised and bound by memory, not by the
 * core: where compute_loop.c shows the core, this shows the caches and
 * memory the machine shares. tests/bench/overhead_cv.py times it between
 * judgements. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1L << 20) /* floats per array: 4 MiB */
#define PASSES 2000

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* not inlined, and memory clobbered after it, so that no optimisation
 * turns the passes inside out into one cache-resident loop */
__attribute__((noinline)) static void pass(float *a, const float *b)
{
    for (long i = 0; i < N; i++)
        a[i] = a[i] * 0.999f + b[i];
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "stream_loop: out of memory\n");
        return 1;
    }
    for (long i = 0; i < N; i++) {
        a[i] = 1.0f;
        b[i] = (float)(i & 255) * 1e-3f;
    }
    pass(a, b); /* the pages touched and the caches warm before the clock */
    double t0 = cpu_ms();
    for (int p = 0; p < PASSES; p++)
        pass(a, b);
    double ms = cpu_ms() - t0;
    double sum = 0;
    for (long i = 0; i < N; i += 4096)
        sum += a[i];
    /* the sum keeps the passes from being optimised away; it goes to
     * stderr so that stdout holds only the time */
    fprintf(stderr, "%g\n", sum);
    printf("%.3f\n", ms);
    free(a);
    free(b);
    return 0;
}
