/* attack: scan argv, environ, auxv, the stack, the program image and the heap for the secret's file name, the data dir and the judge's environment
 * threat: the judge leaking its secret, configuration or environment into the sandbox (docs/contract.md §4)
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * The runner substitutes @ATTNJUDGE_DATA_REV@ and @ATTNJUDGE_CANARY_REV@ with
 * its data directory and a random value it put in the judge's environment,
 * both reversed so that the program's own copy never matches. On a find the
 * program prints it and aborts (runtime_error); otherwise it answers
 * correctly. Faults while scanning are caught with sigsetjmp.
 */
#include <ctype.h>
#include <elf.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

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

#define ATTACK_PAGE ((uintptr_t)4096)
#define ATTACK_MAX_SCAN ((uintptr_t)256 << 20)

extern char **environ;
extern const char __executable_start[];
extern char end[];

static const volatile char attack_rev_data[] = "@ATTNJUDGE_DATA_REV@";
static const volatile char attack_rev_canary[] = "@ATTNJUDGE_CANARY_REV@";
static const volatile char attack_rev_key[] = "yek.terces";
static char attack_needle[3][4096];
static size_t attack_needle_len[3];
static sigjmp_buf attack_jb;
static int attack_found;

static void attack_on_fault(int sig)
{
    siglongjmp(attack_jb, sig);
}

static int attack_readable(const volatile char *p)
{
    int ok = 0;
    if (sigsetjmp(attack_jb, 1) == 0) {
        (void)*p;
        ok = 1;
    }
    return ok;
}

static void attack_unreverse(int i, const volatile char *rev, size_t len)
{
    if (len >= sizeof attack_needle[i])
        len = sizeof attack_needle[i] - 1;
    for (size_t k = 0; k < len; k++)
        attack_needle[i][k] = rev[len - 1 - k];
    attack_needle[i][len] = '\0';
    attack_needle_len[i] = len;
}

static int attack_is_ours(const char *p)
{
    return p >= (const char *)attack_needle &&
           p < (const char *)attack_needle + sizeof attack_needle;
}

/* Searches the readable pages of [lo, hi) for every needle. */
static void attack_scan(const char *what, uintptr_t lo, uintptr_t hi)
{
    if (hi - lo > ATTACK_MAX_SCAN)
        hi = lo + ATTACK_MAX_SCAN;
    for (uintptr_t pg = lo & ~(ATTACK_PAGE - 1); pg < hi; pg += ATTACK_PAGE) {
        if (!attack_readable((const char *)pg))
            continue;
        /* Needles may straddle into the next page: only compare where the
         * whole needle is readable, i.e. inside this page or if the next one is. */
        int next_ok = attack_readable((const char *)(pg + ATTACK_PAGE));
        for (int i = 0; i < 3; i++) {
            size_t len = attack_needle_len[i];
            if (len < 6)
                continue;
            uintptr_t last = pg + ATTACK_PAGE - (next_ok ? 1 : len);
            for (uintptr_t a = pg; a <= last; a++) {
                const char *p = (const char *)a;
                if (*p == attack_needle[i][0] && memcmp(p, attack_needle[i], len) == 0 &&
                    !attack_is_ours(p)) {
                    printf("LEAK: needle %d found in %s at %p\n", i, what, (const void *)p);
                    attack_found = 1;
                }
            }
        }
    }
}

static int attack_contains_secret(const char *s)
{
    static const char word[] = "secret";
    for (; *s; s++) {
        size_t k = 0;
        while (word[k] && s[k] && tolower((unsigned char)s[k]) == word[k])
            k++;
        if (!word[k])
            return 1;
    }
    return 0;
}

static void attack_check_strings(void)
{
    /* environ and, just below it, argv (argv[argc] == NULL, then argc). */
    for (char **e = environ; e && *e; e++)
        if (attack_contains_secret(*e) || strstr(*e, attack_needle[1])) {
            printf("LEAK: environment string %s\n", *e);
            attack_found = 1;
        }
    if (environ) {
        char **a = environ - 2;
        for (int k = 0; k < 4096 && (uintptr_t)*a > 4096; k++, a--)
            if (attack_contains_secret(*a)) {
                printf("LEAK: argv string %s\n", *a);
                attack_found = 1;
            }
    }
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    if (execfn && attack_contains_secret(execfn)) {
        printf("LEAK: AT_EXECFN %s\n", execfn);
        attack_found = 1;
    }
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    struct sigaction sa, old_segv, old_bus;
    volatile char here = 0;

    attack_unreverse(0, attack_rev_key, sizeof attack_rev_key - 1);
    attack_unreverse(1, attack_rev_canary, sizeof attack_rev_canary - 1);
    attack_unreverse(2, attack_rev_data, sizeof attack_rev_data - 1);
    if (attack_needle[1][0] == '@')
        attack_needle_len[1] = 0; /* not substituted: run outside the runner */
    if (attack_needle[2][0] == '@')
        attack_needle_len[2] = 0;

    attack_check_strings();

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = attack_on_fault;
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    /* The stack, from here up to its top (argv, environ, auxv strings). */
    uintptr_t sp = (uintptr_t)&here;
    uintptr_t top = sp;
    while (top - sp < ATTACK_MAX_SCAN && attack_readable((const char *)top))
        top += ATTACK_PAGE;
    attack_scan("stack", sp, top);
    /* The program image and the brk heap. */
    attack_scan("image", (uintptr_t)__executable_start, (uintptr_t)end);
    /* The heap runs down from the break to its start; between the image's
     * end and that start lies a randomized gap of up to 32 MiB (ASLR),
     * whose every page would cost a SIGSEGV: up to 1 s of CPU, the time
     * limit itself. So find the start from the top. */
    uintptr_t brk_top = (uintptr_t)sbrk(0), heap_lo = brk_top;
    while (heap_lo - ATTACK_PAGE >= (uintptr_t)end &&
           attack_readable((const char *)(heap_lo - ATTACK_PAGE)))
        heap_lo -= ATTACK_PAGE;
    attack_scan("heap", heap_lo, brk_top);
    /* Around the harness's buffers (large ones are mmapped). */
    attack_scan("around inputs", (uintptr_t)x - ((uintptr_t)4 << 20),
                (uintptr_t)x + ((uintptr_t)4 << 20));
    attack_scan("around output", (uintptr_t)out - ((uintptr_t)4 << 20),
                (uintptr_t)out + ((uintptr_t)4 << 20));
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);

    printf("secret_scan: %s\n", attack_found ? "LEAKS FOUND" : "nothing found");
    fflush(stdout);
    if (attack_found)
        abort();
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
}
