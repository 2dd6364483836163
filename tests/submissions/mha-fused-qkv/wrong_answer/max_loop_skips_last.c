/* Wrong answer: the loop that finds a row's maximum stops one short (j < last): the last open
 * key never takes part; exact unless that key's score exceeds the rest of its row by more than
 * about 88, where expf overflows to inf/inf.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads);

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* Key j of a row is left out of the softmax when j >= n_open (a causal
 * future key, an unwritten cache slot) or blocked[j] != 0 (padding, a mask;
 * blocked may be NULL). */
static int key_blocked(const unsigned char *blocked, int n_open, int j)
{
    return j >= n_open || (blocked != NULL && blocked[j]);
}

/* One row of n scores becomes its softmax weights, in float. */
static void weights_row(double *p, const unsigned char *blocked, int n_open, int n)
{
    int first = 0, last = n - 1;
    while (key_blocked(blocked, n_open, first))
        first++;
    while (key_blocked(blocked, n_open, last))
        last--;
    float m = (float)p[first];
    for (int j = first + 1; j < last; j++)
        if (!key_blocked(blocked, n_open, j) && (float)p[j] > m)
            m = (float)p[j];
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        const float w = key_blocked(blocked, n_open, j) ? 0.0f : expf((float)p[j] - m);
        p[j] = w;
        sum += w;
    }
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    const int D = d_model;
    const int D3 = 3 * d_model;
    const int d_head = d_model / n_heads;
    const double scale = 1.0 / sqrt((double)d_head);

    double *qkv = xmalloc((size_t)T * D3 * sizeof *qkv); /* (T, 3D) of one batch */
    double *ctx = xmalloc((size_t)T * D * sizeof *ctx);  /* merged heads (T, D) */
    double *p = xmalloc((size_t)T * sizeof *p);

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * D;
        float *ob = out + (size_t)b * T * D;

        /* Row j of w_qkv holds the weights of output feature j. */
        for (int t = 0; t < T; t++) {
            for (int j = 0; j < D3; j++) {
                double acc = 0.0;
                for (int i = 0; i < D; i++)
                    acc += (double)xb[(size_t)t * D + i] * (double)w_qkv[(size_t)j * D + i];
                qkv[(size_t)t * D3 + j] = acc;
            }
        }

        for (int h = 0; h < n_heads; h++) {
            const int qc = 0 * D + h * d_head;
            const int kc = 1 * D + h * d_head;
            const int vc = 2 * D + h * d_head;
            for (int t = 0; t < T; t++) {
                for (int s = 0; s < T; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += qkv[(size_t)t * D3 + qc + e] * qkv[(size_t)s * D3 + kc + e];
                    p[s] = dot * scale;
                }
                weights_row(p, NULL, t + 1, T);
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * D3 + vc + e];
                    ctx[(size_t)t * D + h * d_head + e] = acc;
                }
            }
        }

        for (int t = 0; t < T; t++) {
            for (int j = 0; j < D; j++) {
                double acc = 0.0;
                for (int i = 0; i < D; i++)
                    acc += ctx[(size_t)t * D + i] * (double)w_o[(size_t)j * D + i];
                ob[(size_t)t * D + j] = (float)acc;
            }
        }
    }

    free(qkv);
    free(ctx);
    free(p);
}
