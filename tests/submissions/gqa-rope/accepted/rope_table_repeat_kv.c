/* Accepted: a cos/sin table per (position, pair), K and V repeated per query head (repeat_kv), then plain causal MHA. */
#include <math.h>
#include <stdlib.h>

/* y = x @ w^T for rows of x: x is (rows, in), w is (out, in) */
static void linear(const float *x, const float *w, float *y, int rows, int in, int out)
{
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < out; o++) {
            float acc = 0.0f;
            for (int i = 0; i < in; i++)
                acc += x[(size_t)r * in + i] * w[(size_t)o * in + i];
            y[(size_t)r * out + o] = acc;
        }
}

void gqa_rope(const float *x, const float *w_q, const float *w_k, const float *w_v,
              const float *w_o, float *out, int B, int T, int d_model, int n_heads, int n_kv_heads)
{
    const int d = d_model / n_heads, half = d / 2, kv_dim = n_kv_heads * d;
    const int group = n_heads / n_kv_heads;
    float *cos_t = malloc((size_t)T * half * sizeof(float));
    float *sin_t = malloc((size_t)T * half * sizeof(float));
    float *q = malloc((size_t)T * d_model * sizeof(float));
    float *k = malloc((size_t)T * kv_dim * sizeof(float));
    float *v = malloc((size_t)T * kv_dim * sizeof(float));
    float *kr = malloc((size_t)T * d_model * sizeof(float)); /* K repeated per query head */
    float *vr = malloc((size_t)T * d_model * sizeof(float));
    float *ctx = malloc((size_t)T * d_model * sizeof(float));
    float *s = malloc((size_t)T * sizeof(float));

    for (int t = 0; t < T; t++)
        for (int e = 0; e < half; e++) {
            const double inv_freq = 1.0 / pow(10000.0, (2.0 * e) / d);
            cos_t[t * half + e] = (float)cos(t * inv_freq);
            sin_t[t * half + e] = (float)sin(t * inv_freq);
        }

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * d_model;
        linear(xb, w_q, q, T, d_model, d_model);
        linear(xb, w_k, k, T, d_model, kv_dim);
        linear(xb, w_v, v, T, d_model, kv_dim);
        for (int t = 0; t < T; t++) {
            for (int h = 0; h < n_heads + n_kv_heads; h++) {
                float *u = h < n_heads ? q + (size_t)t * d_model + h * d
                                       : k + (size_t)t * kv_dim + (h - n_heads) * d;
                for (int e = 0; e < half; e++) {
                    const float c = cos_t[t * half + e], sn = sin_t[t * half + e];
                    const float a = u[e], bb = u[e + half];
                    u[e] = a * c - bb * sn;
                    u[e + half] = bb * c + a * sn;
                }
            }
            for (int h = 0; h < n_heads; h++)
                for (int e = 0; e < d; e++) {
                    kr[(size_t)t * d_model + h * d + e] =
                        k[(size_t)t * kv_dim + (h / group) * d + e];
                    vr[(size_t)t * d_model + h * d + e] =
                        v[(size_t)t * kv_dim + (h / group) * d + e];
                }
        }
        const float scale = 1.0f / sqrtf((float)d);
        for (int h = 0; h < n_heads; h++)
            for (int t = 0; t < T; t++) {
                float m = -INFINITY, sum = 0.0f;
                for (int j = 0; j <= t; j++) {
                    float dot = 0.0f;
                    for (int e = 0; e < d; e++)
                        dot += q[(size_t)t * d_model + h * d + e] *
                               kr[(size_t)j * d_model + h * d + e];
                    s[j] = dot * scale;
                    m = fmaxf(m, s[j]);
                }
                for (int j = 0; j <= t; j++) {
                    s[j] = expf(s[j] - m);
                    sum += s[j];
                }
                for (int e = 0; e < d; e++) {
                    float acc = 0.0f;
                    for (int j = 0; j <= t; j++)
                        acc += s[j] * vr[(size_t)j * d_model + h * d + e];
                    ctx[(size_t)t * d_model + h * d + e] = acc / sum;
                }
            }
        linear(ctx, w_o, out + (size_t)b * T * d_model, T, d_model, d_model);
    }
    free(cos_t);
    free(sin_t);
    free(q);
    free(k);
    free(v);
    free(kr);
    free(vr);
    free(ctx);
    free(s);
}
