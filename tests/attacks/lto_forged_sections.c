/* attack: forged .gnu.lto_* sections (garbage "bytecode") beside a correct function
 * threat: student bytes reaching lto-wrapper and lto1 through the linker plugin (a parser of untrusted input run by the link step)
 * expect: accepted
 * forbid: lto1
 * forbid: lto-wrapper
 * problem: mha-fused-qkv
 *
 * Compiled and linked with -fno-lto and -fno-use-linker-plugin, the sections
 * are inert excluded data and the correct function is accepted. Before, lto1
 * parsed them and the link failed ("bytecode stream ... generated with GCC
 * compiler older than 10.0").
 */
#include <math.h>
#include <stdlib.h>

__asm__(".section .gnu.lto_.symtab.0,\"e\",@progbits\n"
        ".ascii \"attnjudge forged LTO symbol table\"\n"
        ".previous\n"
        ".section .gnu.lto_.opts,\"e\",@progbits\n"
        ".ascii \"'-fplugin=/work/evil.so' 'garbage'\"\n"
        ".previous\n"
        ".section .gnu.lto_mha_fused_qkv.0,\"e\",@progbits\n"
        ".ascii \"\\377\\377\\377\\377 not gimple bytecode\"\n"
        ".previous\n");

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

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
}
