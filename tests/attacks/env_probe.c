/* attack: read the environment for the judge's HOME, user, paths and secrets; print all of it
 * threat: the judge's environment (HOME, tokens, config) inherited by the run sandbox
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * Run-time environment should be empty. On HOME, USER, LOGNAME, SUDO_USER,
 * SSH_AUTH_SOCK, the runner's canary variable or any string naming a secret
 * the program aborts (runtime_error); otherwise it answers correctly.
 */
#include <ctype.h>
#include <math.h>
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

extern char **environ;

static int attack_has_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && tolower((unsigned char)s[k]) == word[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    static const char *const names[] = {"HOME",      "USER",          "LOGNAME",
                                        "SUDO_USER", "SSH_AUTH_SOCK", "ATTNJUDGE_ATTACK_CANARY"};
    int leak = 0, count = 0;

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        printf("getenv(%s) = %s\n", names[i], v ? v : "(null)");
        if (v)
            leak = 1;
    }
    for (char **e = environ; e && *e && count < 10000; e++, count++) {
        printf("environ[%d] = %s\n", count, *e);
        if (attack_has_word(*e, "secret") || attack_has_word(*e, "token") ||
            attack_has_word(*e, "password"))
            leak = 1;
    }
    printf("env_probe: %d variables, %s\n", count, leak ? "LEAK" : "clean");
    fflush(stdout);
    if (leak)
        abort();
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
}
