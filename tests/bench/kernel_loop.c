/* make bench's second yardstick for the machine's own noise: the very
 * work the CV section judges (gpt2-attention's blocked_avx2.c at the
 * problem's benchmark sizes), with none of the method: one process, the
 * same inputs every time, no sandbox, no fresh memory. Per size one
 * untimed call, then five timed ones (this process's CPU time); it prints
 * the geometric mean of the per-size medians in ms, the figure the judge
 * ranks by. tests/bench/overhead_cv.py times it between judgements: its
 * spread is what the machine does to this kernel's memory traffic (the
 * last-level cache and the memory it shares with other tenants), which
 * the register-only compute_loop.c cannot see. Built with the judged
 * file: cc -O2 kernel_loop.c blocked_avx2.c -lm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head);

#define E 768
#define HEADS 12
#define TIMED 5

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* n floats in [-0.5, 0.5), the same every run */
static float *filled(size_t n, unsigned salt)
{
    float *p = malloc(n * sizeof *p);
    if (!p) {
        perror("kernel_loop");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(((i + salt) * 2654435761u) % 1000u) / 1000.0f - 0.5f;
    return p;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static const int sizes[] = {256, 1024}; /* T, as problems/gpt2-attention */
    double log_sum = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int T = sizes[s];
        float *x = filled((size_t)T * E, 1), *w = filled((size_t)E * 3 * E, 2),
              *b = filled(3 * E, 3), *pw = filled((size_t)E * E, 4), *pb = filled(E, 5),
              *out = filled((size_t)T * E, 6);
        double ms[TIMED];
        gpt2_attention(x, w, b, pw, pb, out, 1, T, E, HEADS);
        for (int k = 0; k < TIMED; k++) {
            double t0 = cpu_ms();
            gpt2_attention(x, w, b, pw, pb, out, 1, T, E, HEADS);
            ms[k] = cpu_ms() - t0;
        }
        qsort(ms, TIMED, sizeof ms[0], cmp);
        log_sum += log(ms[TIMED / 2]);
        free(x), free(w), free(b), free(pw), free(pb), free(out);
    }
    printf("%.3f\n", exp(log_sum / (double)(sizeof sizes / sizeof sizes[0])));
    return 0;
}
