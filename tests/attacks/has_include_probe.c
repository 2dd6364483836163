/* attack: probe the compile sandbox's filesystem with __has_include for secrets and host files
 * threat: the compile view must hold nothing secret (docs/pitfalls.md §2.1; docs/contract.md §4)
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * Each probe that finds a file stops the compilation with an #error naming it;
 * when none is found the file compiles and is a correct solution.
 * @ATTNJUDGE_DATA@ is replaced by the runner with the judge's data directory.
 */
#include <math.h>
#include <stdlib.h>

#define PROBE(f) __has_include(f)
#if PROBE("@ATTNJUDGE_DATA@/secret.key")
#error "LEAK: the data dir's secret.key is visible to the compiler"
#endif
#if PROBE("../data/secret.key") || PROBE("data/secret.key") ||                                     \
    PROBE("/work/main/data/secret.key") || PROBE("/data/secret.key") ||                            \
    PROBE("../../data/secret.key") || PROBE("/work/data/secret.key")
#error "LEAK: a secret.key is visible to the compiler"
#endif
#if PROBE("/etc/shadow") || PROBE("/etc/passwd") || PROBE("/etc/group") ||                         \
    PROBE("/etc/hostname") || PROBE("/etc/hosts") || PROBE("/etc/resolv.conf")
#error "LEAK: host /etc files are visible to the compiler"
#endif
#if PROBE("/proc/self/environ") || PROBE("/proc/self/cmdline") || PROBE("/proc/1/environ") ||      \
    PROBE("/proc/version") || PROBE("/sys/kernel/notes")
#error "LEAK: /proc or /sys is visible to the compiler"
#endif
#if PROBE("/root/.bashrc") || PROBE("/root/.ssh/id_rsa") || PROBE("/root/.profile") ||             \
    PROBE("/home/.bashrc") || PROBE("/var/log/syslog") || PROBE("/run/utmp")
#error "LEAK: home directories, logs or /run are visible to the compiler"
#endif
#if PROBE("/dev/urandom") || PROBE("/dev/zero") || PROBE("/dev/tty") || PROBE("/dev/stdin") ||     \
    PROBE("/dev/fd/0") || PROBE("/dev/shm/x")
#error "LEAK: devices other than /dev/null are visible to the compiler"
#endif

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
