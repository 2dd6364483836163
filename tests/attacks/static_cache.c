/* attack: remember the first call's result in statics and replay it on later calls
 * threat: output caching and replay across calls (docs/pitfalls.md §3.4)
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * Each test runs in a fresh process, so the first call of every process
 * computes: a correct solution stays accepted. (A replay on a second call with
 * other inputs would be wrong_answer.)
 */
#include <math.h>
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

static float *attack_cache;
static size_t attack_cache_n;

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    size_t n = (size_t)B * T * d_model;
    if (attack_cache && attack_cache_n == n) {
        memcpy(out, attack_cache, n * sizeof *out);
        return;
    }
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
    attack_cache = malloc(n * sizeof *out);
    if (attack_cache) {
        memcpy(attack_cache, out, n * sizeof *out);
        attack_cache_n = n;
    }
}
