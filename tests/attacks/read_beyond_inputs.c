/* attack: read up to 1 MiB before and after every input and output buffer (guarded by a SIGSEGV handler) and print it
 * threat: expected outputs or other tests' data lying next to the inputs in the sandbox's memory (docs/contract.md §4)
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * Expected outputs never enter the sandbox, so nothing there matters; the
 * program then answers correctly. The runner checks that the printed bytes
 * hold no secret. Faults are caught with sigsetjmp (rt_sigaction and
 * rt_sigprocmask are allowed), so the program never crashes.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a correct, straightforward mha_fused_qkv (causal MHA, fused QKV) ---- */
static void correct_mha(const float *x, const float *w_qkv, const float *w_o, float *out, int B,
                        int T, int D, int H)
{
    int dh = D / H;
    double scale = 1.0 / sqrt((double)dh);
    float *qkv = malloc(sizeof(float) * (size_t)T * 3 * D);
    float *mrg = malloc(sizeof(float) * (size_t)T * D);
    double *p = malloc(sizeof(double) * (size_t)T);
    if (!qkv || !mrg || !p)
        abort();
    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * D;
        float *ob = out + (size_t)b * T * D;
        for (int t = 0; t < T; t++) /* qkv = x @ w_qkv^T */
            for (int o = 0; o < 3 * D; o++) {
                double s = 0;
                for (int i = 0; i < D; i++)
                    s += (double)xb[(size_t)t * D + i] * w_qkv[(size_t)o * D + i];
                qkv[(size_t)t * 3 * D + o] = (float)s;
            }
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++) {
                const float *q = qkv + (size_t)t * 3 * D + h * dh;
                double mx = -INFINITY, sum = 0;
                for (int u = 0; u <= t; u++) { /* causal: keys 0..t */
                    const float *k = qkv + (size_t)u * 3 * D + D + h * dh;
                    double s = 0;
                    for (int j = 0; j < dh; j++)
                        s += (double)q[j] * k[j];
                    p[u] = s * scale;
                    if (p[u] > mx)
                        mx = p[u];
                }
                for (int u = 0; u <= t; u++) {
                    p[u] = exp(p[u] - mx);
                    sum += p[u];
                }
                for (int j = 0; j < dh; j++) {
                    double a = 0;
                    for (int u = 0; u <= t; u++)
                        a += p[u] * qkv[(size_t)u * 3 * D + 2 * D + h * dh + j];
                    mrg[(size_t)t * D + h * dh + j] = (float)(a / sum);
                }
            }
        for (int t = 0; t < T; t++) /* out = merged @ w_o^T */
            for (int o = 0; o < D; o++) {
                double s = 0;
                for (int i = 0; i < D; i++)
                    s += (double)mrg[(size_t)t * D + i] * w_o[(size_t)o * D + i];
                ob[(size_t)t * D + o] = (float)s;
            }
    }
    free(qkv);
    free(mrg);
    free(p);
}
/* ---- end of the correct implementation ---- */

#define ATTACK_PAGE 4096
#define ATTACK_SPAN ((size_t)1 << 20)

static sigjmp_buf attack_jb;

static void attack_on_fault(int sig)
{
    siglongjmp(attack_jb, sig);
}

/* 1 if the byte at p can be read. */
static int attack_readable(const volatile char *p)
{
    int ok = 0;
    if (sigsetjmp(attack_jb, 1) == 0) {
        (void)*p;
        ok = 1;
    }
    return ok;
}

/* Counts the readable bytes from start onwards (dir > 0) or backwards
 * (dir < 0), up to ATTACK_SPAN, testing one byte per page; prints the count
 * and the first 64 of them. */
static size_t attack_probe(const char *name, const char *start, int dir)
{
    size_t n = 0;
    while (n < ATTACK_SPAN) {
        const char *p = dir > 0 ? start + n : start - n - 1;
        size_t in_page = dir > 0 ? ATTACK_PAGE - ((uintptr_t)p & (ATTACK_PAGE - 1))
                                 : ((uintptr_t)p & (ATTACK_PAGE - 1)) + 1;
        if (!attack_readable(p))
            break;
        n += in_page;
    }
    if (n > ATTACK_SPAN)
        n = ATTACK_SPAN;
    printf("%s %s: %zu readable bytes;", name, dir > 0 ? "after" : "before", n);
    for (size_t i = 0; i < n && i < 64; i++)
        printf(" %02x", (unsigned char)(dir > 0 ? start[i] : start[-(long)i - 1]));
    printf("\n");
    return n;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    struct sigaction sa, old_segv, old_bus;
    size_t nx = (size_t)B * T * d_model, nw = (size_t)3 * d_model * d_model,
           no = (size_t)d_model * d_model;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = attack_on_fault;
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    attack_probe("x", (const char *)(x + nx), 1);
    attack_probe("x", (const char *)x, -1);
    attack_probe("w_qkv", (const char *)(w_qkv + nw), 1);
    attack_probe("w_qkv", (const char *)w_qkv, -1);
    attack_probe("w_o", (const char *)(w_o + no), 1);
    attack_probe("w_o", (const char *)w_o, -1);
    attack_probe("out", (const char *)(out + nx), 1);
    attack_probe("out", (const char *)out, -1);
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    fflush(stdout);
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
}
