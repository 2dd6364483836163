/* Wrong answer: every weight read as (in, out) although the weights are stored (out, in) like nn.Linear (float code).
 * Hint: Row j of each weight matrix holds the weights of output feature j: the projection of x takes the dot product of x with that row.
 * Diagnosis: weights-transposed
 */
#include <math.h>
#include <stdlib.h>

#define ROPE_BASE 10000.0f

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* dst[t][j] = sum_i src[t][i] * w[j][i]: src is (rows, in), w is (out, in). */
static void project(const float *src, const float *w, float *dst, int rows, int in, int out)
{
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < out; j++) {
            float acc = 0.0f;
            for (int i = 0; i < in; i++)
                acc += src[(size_t)t * in + i] * w[(size_t)i * out + j];
            dst[(size_t)t * out + j] = acc;
        }
}

/* Rotates every d-wide head of every row of m (rows = positions 0..T-1,
 * width = n * d) in place. */
static void rope(float *m, int T, int n, int d)
{
    const int half = d / 2;
    for (int t = 0; t < T; t++)
        for (int h = 0; h < n; h++) {
            float *r = m + ((size_t)t * n + h) * d;
            for (int e = 0; e < half; e++) {
                const float angle = t * powf(ROPE_BASE, -2.0f * e / d);
                const float c = cosf(angle), s = sinf(angle);
                const float a = r[e], b = r[e + half];
                r[e] = a * c - b * s;
                r[e + half] = b * c + a * s;
            }
        }
}

void gqa_rope(const float *x, const float *w_q, const float *w_k, const float *w_v,
              const float *w_o, float *out, int B, int T, int d_model, int n_heads, int n_kv_heads)
{
    const int d = d_model / n_heads;
    const int kv_dim = n_kv_heads * d;
    const int group = n_heads / n_kv_heads;
    const float scale = 1.0f / sqrtf((float)d);

    float *q = xmalloc((size_t)T * d_model * sizeof *q);
    float *k = xmalloc((size_t)T * kv_dim * sizeof *k);
    float *v = xmalloc((size_t)T * kv_dim * sizeof *v);
    float *ctx = xmalloc((size_t)T * d_model * sizeof *ctx);
    float *p = xmalloc((size_t)T * sizeof *p);

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
                const float *qt = q + (size_t)t * d_model + (size_t)h * d;
                float m = -INFINITY;
                for (int s = 0; s <= t; s++) {
                    const float *ks = k + (size_t)s * kv_dim + (size_t)g * d;
                    float dot = 0.0f;
                    for (int e = 0; e < d; e++)
                        dot += qt[e] * ks[e];
                    p[s] = dot * scale;
                    if (p[s] > m)
                        m = p[s];
                }
                float sum = 0.0f;
                for (int s = 0; s <= t; s++) {
                    p[s] = expf(p[s] - m);
                    sum += p[s];
                }
                for (int e = 0; e < d; e++) {
                    float acc = 0.0f;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * v[(size_t)s * kv_dim + (size_t)g * d + e];
                    ctx[(size_t)t * d_model + (size_t)h * d + e] = acc / sum;
                }
            }
        }

        float *ob = out + (size_t)b * T * d_model;
        for (int t = 0; t < T; t++)
            for (int j = 0; j < d_model; j++) {
                float acc = 0.0f;
                for (int c = 0; c < d_model; c++)
                    acc += ctx[(size_t)t * d_model + c] * w_o[(size_t)c * d_model + j];
                ob[(size_t)t * d_model + j] = acc;
            }
    }

    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
}
