/* Wrong answer: the running maximum starts at the finite -1000 instead of -inf (or the row's
 * first open score); exact unless every score of a row is below about -1090, where every expf
 * underflows and the row becomes 0/0.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void gqa_rope(const float *x, const float *w_q, const float *w_k, const float *w_v,
              const float *w_o, float *out, int B, int T, int d_model, int n_heads, int n_kv_heads);

#define ROPE_BASE 10000.0

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* dst[t][j] = sum_i src[t][i] * w[j][i]: src is (rows, in), w is (out, in). */
static void project(const float *src, const float *w, double *dst, int rows, int in, int out)
{
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < out; j++) {
            double acc = 0.0;
            for (int i = 0; i < in; i++)
                acc += (double)src[(size_t)t * in + i] * (double)w[(size_t)j * in + i];
            dst[(size_t)t * out + j] = acc;
        }
}

/* Rotates every d-wide head of every row of m (rows = positions 0..T-1,
 * width = n * d) in place. */
static void rope(double *m, int T, int n, int d)
{
    const int half = d / 2;
    for (int t = 0; t < T; t++)
        for (int h = 0; h < n; h++) {
            double *r = m + ((size_t)t * n + h) * d;
            for (int e = 0; e < half; e++) {
                const double angle = t * pow(ROPE_BASE, -2.0 * e / d);
                const double c = cos(angle), s = sin(angle);
                const double a = r[e], b = r[e + half];
                r[e] = a * c - b * s;
                r[e + half] = b * c + a * s;
            }
        }
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
    float m = -1000.0f;
    for (int j = 0; j < n; j++)
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

void gqa_rope(const float *x, const float *w_q, const float *w_k, const float *w_v,
              const float *w_o, float *out, int B, int T, int d_model, int n_heads, int n_kv_heads)
{
    const int d = d_model / n_heads;
    const int kv_dim = n_kv_heads * d;
    const int group = n_heads / n_kv_heads;
    const double scale = 1.0 / sqrt((double)d);

    double *q = xmalloc((size_t)T * d_model * sizeof *q);
    double *k = xmalloc((size_t)T * kv_dim * sizeof *k);
    double *v = xmalloc((size_t)T * kv_dim * sizeof *v);
    double *ctx = xmalloc((size_t)T * d_model * sizeof *ctx);
    double *p = xmalloc((size_t)T * sizeof *p);

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * d_model;
        project(xb, w_q, q, T, d_model, d_model);
        project(xb, w_k, k, T, d_model, kv_dim);
        project(xb, w_v, v, T, d_model, kv_dim);
        rope(q, T, n_heads, d);
        rope(k, T, n_kv_heads, d);

        for (int h = 0; h < n_heads; h++) {
            const int g = h / group;
            for (int t = 0; t < T; t++) {
                const double *qt = q + (size_t)t * d_model + (size_t)h * d;
                for (int s = 0; s < T; s++) {
                    const double *ks = k + (size_t)s * kv_dim + (size_t)g * d;
                    double dot = 0.0;
                    for (int e = 0; e < d; e++)
                        dot += qt[e] * ks[e];
                    p[s] = dot * scale;
                }
                weights_row(p, NULL, t + 1, T);
                for (int e = 0; e < d; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * v[(size_t)s * kv_dim + (size_t)g * d + e];
                    ctx[(size_t)t * d_model + (size_t)h * d + e] = acc;
                }
            }
        }

        float *ob = out + (size_t)b * T * d_model;
        for (int t = 0; t < T; t++)
            for (int j = 0; j < d_model; j++) {
                double acc = 0.0;
                for (int c = 0; c < d_model; c++)
                    acc += ctx[(size_t)t * d_model + c] * (double)w_o[(size_t)j * d_model + c];
                ob[(size_t)t * d_model + j] = (float)acc;
            }
    }

    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
}
