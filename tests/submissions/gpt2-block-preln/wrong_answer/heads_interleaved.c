/* Wrong answer: heads split (and merged) interleaved: feature e of head h at column e*n_head + h instead of h*d_head + e (float code).
 * Hint: Head h owns the contiguous columns h*d_head .. h*d_head + d_head - 1 of each of q, k and v, and its output goes back to the same columns before the projection.
 * Diagnosis: heads-interleaved
 */
#include <math.h>
#include <stdlib.h>

#define LN_EPS 1e-5f

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* y (rows, C) = LayerNorm of each row of x (rows, C) */
static void layernorm(const float *x, const float *g, const float *b, float *y, int rows, int C)
{
    for (int t = 0; t < rows; t++) {
        const float *xr = x + (size_t)t * C;
        float mu = 0.0f, var = 0.0f;
        for (int i = 0; i < C; i++)
            mu += xr[i];
        mu /= C;
        for (int i = 0; i < C; i++)
            var += (xr[i] - mu) * (xr[i] - mu);
        var /= C;
        const float rstd = 1.0f / sqrtf(var + LN_EPS);
        for (int i = 0; i < C; i++)
            y[(size_t)t * C + i] = (xr[i] - mu) * rstd * g[i] + b[i];
    }
}

/* y (rows, n_out) = x (rows, n_in) @ w + bias, w stored (in, out) */
static void conv1d(const float *x, const float *w, const float *bias, float *y, int rows, int n_in,
                   int n_out)
{
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < n_out; j++) {
            float acc = bias[j];
            for (int i = 0; i < n_in; i++)
                acc += x[(size_t)t * n_in + i] * w[(size_t)i * n_out + j];
            y[(size_t)t * n_out + j] = acc;
        }
}

static float gelu_tanhf(float u)
{
    const float k = sqrtf(2.0f / (float)M_PI);
    return 0.5f * u * (1.0f + tanhf(k * (u + 0.044715f * u * u * u)));
}

void gpt2_block(const float *x, const float *ln1_g, const float *ln1_b, const float *attn_w,
                const float *attn_b, const float *attn_proj_w, const float *attn_proj_b,
                const float *ln2_g, const float *ln2_b, const float *fc_w, const float *fc_b,
                const float *fc_proj_w, const float *fc_proj_b, float *out, int B, int T,
                int n_embd, int n_head)
{
    const int C = n_embd, d = n_embd / n_head;
    const float scale = 1.0f / sqrtf((float)d);
    float *xs = xmalloc((size_t)T * C * sizeof *xs); /* x, then h */
    float *ln = xmalloc((size_t)T * C * sizeof *ln); /* LN1(x), then LN2(h) */
    float *qkv = xmalloc((size_t)T * 3 * C * sizeof *qkv);
    float *ctx = xmalloc((size_t)T * C * sizeof *ctx);
    float *proj = xmalloc((size_t)T * C * sizeof *proj);
    float *fc = xmalloc((size_t)T * 4 * C * sizeof *fc);
    float *p = xmalloc((size_t)T * sizeof *p);

    for (int b = 0; b < B; b++) {
        for (size_t i = 0; i < (size_t)T * C; i++)
            xs[i] = x[(size_t)b * T * C + i];

        /* attention sub-block: h = x + attn(LN1(x)) */
        layernorm(xs, ln1_g, ln1_b, ln, T, C);
        conv1d(ln, attn_w, attn_b, qkv, T, C, 3 * C);
        for (int h = 0; h < n_head; h++)
            for (int t = 0; t < T; t++) {
                const float *qt = qkv + (size_t)t * 3 * C + (size_t)h;
                float m = -INFINITY, sum = 0.0f;
                for (int s = 0; s <= t; s++) {
                    const float *ks = qkv + (size_t)s * 3 * C + C + (size_t)h;
                    float dot = 0.0f;
                    for (int e = 0; e < d; e++)
                        dot += qt[(size_t)e * n_head] * ks[(size_t)e * n_head];
                    p[s] = dot * scale;
                    if (p[s] > m)
                        m = p[s];
                }
                for (int s = 0; s <= t; s++) {
                    p[s] = expf(p[s] - m);
                    sum += p[s];
                }
                for (int e = 0; e < d; e++) {
                    float acc = 0.0f;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * 3 * C + 2 * C + (size_t)e * n_head + h];
                    ctx[(size_t)t * C + (size_t)e * n_head + h] = acc / sum;
                }
            }
        conv1d(ctx, attn_proj_w, attn_proj_b, proj, T, C, C);
        for (size_t i = 0; i < (size_t)T * C; i++)
            xs[i] += proj[i];

        /* MLP sub-block: out = h + fc_proj(gelu(fc(LN2(h)))) */
        layernorm(xs, ln2_g, ln2_b, ln, T, C);
        conv1d(ln, fc_w, fc_b, fc, T, C, 4 * C);
        for (size_t i = 0; i < (size_t)T * 4 * C; i++)
            fc[i] = gelu_tanhf(fc[i]);
        conv1d(fc, fc_proj_w, fc_proj_b, proj, T, 4 * C, C);
        for (size_t i = 0; i < (size_t)T * C; i++)
            out[(size_t)b * T * C + i] = xs[i] + proj[i];
    }

    free(xs);
    free(ln);
    free(qkv);
    free(ctx);
    free(proj);
    free(fc);
    free(p);
}
