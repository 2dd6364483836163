/* attack: fstat every descriptor 0..1023; dump the start of every regular file; look for directories and terminals
 * threat: inherited descriptors: a leaked secret.key, data dir, database or terminal (docs/pitfalls.md §1.8)
 * expect: accepted
 * problem: mha-fused-qkv
 *
 * Regular files are read with read() and their offset restored with lseek()
 * (both allowed), and dumped as hex: the runner fails the test if the
 * secret's bytes appear in the judge's output. A directory or terminal
 * descriptor makes the program abort (runtime_error). Pipes and sockets are
 * only listed, never read (they may be the harness's own channels).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

static const char *attack_kind(mode_t m)
{
    return S_ISREG(m)    ? "file"
           : S_ISDIR(m)  ? "dir"
           : S_ISCHR(m)  ? "chr"
           : S_ISBLK(m)  ? "blk"
           : S_ISFIFO(m) ? "fifo"
           : S_ISSOCK(m) ? "sock"
           : S_ISLNK(m)  ? "lnk"
                         : "?";
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    int leak = 0;
    for (int fd = 0; fd < 1024; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0)
            continue;
        printf("fd %d: %s size %lld dev %u:%u", fd, attack_kind(st.st_mode), (long long)st.st_size,
               major(st.st_rdev), minor(st.st_rdev));
        if (S_ISDIR(st.st_mode))
            leak = 1;
        if (S_ISCHR(st.st_mode)) {
            unsigned mj = major(st.st_rdev);
            if (mj == 4 || mj == 5 || (mj >= 136 && mj <= 143))
                leak = 1; /* a tty, the console or a pty */
        }
        if (S_ISREG(st.st_mode)) {
            unsigned char buf[256];
            off_t pos = lseek(fd, 0, SEEK_CUR);
            if (pos >= 0 && lseek(fd, 0, SEEK_SET) == 0) {
                ssize_t n = read(fd, buf, sizeof buf);
                printf(" head");
                for (ssize_t i = 0; i < n; i++)
                    printf("%02x", buf[i]);
                lseek(fd, pos, SEEK_SET);
            }
        }
        printf("\n");
    }
    printf("fd_probe: %s\n", leak ? "LEAK" : "clean");
    fflush(stdout);
    if (leak)
        abort();
    correct_mha(x, w_qkv, w_o, out, B, T, d_model, n_heads);
}
