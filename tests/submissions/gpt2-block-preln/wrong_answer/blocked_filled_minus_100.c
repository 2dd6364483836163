/* Wrong answer: the future (causal) keys' scores are set to the finite -100 instead of being
 * left out; exact unless every allowed score of a row is below about -90, where the excluded
 * keys take a real share of the weight.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void gpt2_block(const float *x, const float *ln1_g, const float *ln1_b, const float *attn_w,
                const float *attn_b, const float *attn_proj_w, const float *attn_proj_b,
                const float *ln2_g, const float *ln2_b, const float *fc_w, const float *fc_b,
                const float *fc_proj_w, const float *fc_proj_b, float *out, int B, int T,
                int n_embd, int n_head);

#define LN_EPS 1e-5

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* y (rows, C) = LayerNorm of each row of x (rows, C) */
static void layernorm(const double *x, const float *g, const float *b, double *y, int rows, int C)
{
    for (int t = 0; t < rows; t++) {
        const double *xr = x + (size_t)t * C;
        double mu = 0.0, var = 0.0;
        for (int i = 0; i < C; i++)
            mu += xr[i];
        mu /= C;
        for (int i = 0; i < C; i++)
            var += (xr[i] - mu) * (xr[i] - mu);
        var /= C;
        const double rstd = 1.0 / sqrt(var + LN_EPS);
        for (int i = 0; i < C; i++)
            y[(size_t)t * C + i] = (xr[i] - mu) * rstd * g[i] + b[i];
    }
}

/* y (rows, n_out) = x (rows, n_in) @ w + bias, w stored (in, out) */
static void conv1d(const double *x, const float *w, const float *bias, double *y, int rows,
                   int n_in, int n_out)
{
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < n_out; j++) {
            double acc = bias[j];
            for (int i = 0; i < n_in; i++)
                acc += x[(size_t)t * n_in + i] * w[(size_t)i * n_out + j];
            y[(size_t)t * n_out + j] = acc;
        }
}

static double gelu_tanh(double u)
{
    const double k = sqrt(2.0 / M_PI);
    return 0.5 * u * (1.0 + tanh(k * (u + 0.044715 * u * u * u)));
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
    float m = -INFINITY;
    for (int j = 0; j < n; j++) {
        if (key_blocked(blocked, n_open, j))
            p[j] = -100.0f;
        if ((float)p[j] > m)
            m = (float)p[j];
    }
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        p[j] = expf((float)p[j] - m);
        sum += (float)p[j];
    }
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

void gpt2_block(const float *x, const float *ln1_g, const float *ln1_b, const float *attn_w,
                const float *attn_b, const float *attn_proj_w, const float *attn_proj_b,
                const float *ln2_g, const float *ln2_b, const float *fc_w, const float *fc_b,
                const float *fc_proj_w, const float *fc_proj_b, float *out, int B, int T,
                int n_embd, int n_head)
{
    const int C = n_embd, d = n_embd / n_head;
    const double scale = 1.0 / sqrt((double)d);
    double *xs = xmalloc((size_t)T * C * sizeof *xs); /* x, then h */
    double *ln = xmalloc((size_t)T * C * sizeof *ln); /* LN1(x), then LN2(h) */
    double *qkv = xmalloc((size_t)T * 3 * C * sizeof *qkv);
    double *ctx = xmalloc((size_t)T * C * sizeof *ctx);
    double *proj = xmalloc((size_t)T * C * sizeof *proj);
    double *fc = xmalloc((size_t)T * 4 * C * sizeof *fc);
    double *p = xmalloc((size_t)T * sizeof *p);

    for (int b = 0; b < B; b++) {
        for (size_t i = 0; i < (size_t)T * C; i++)
            xs[i] = x[(size_t)b * T * C + i];

        /* attention sub-block: h = x + attn(LN1(x)) */
        layernorm(xs, ln1_g, ln1_b, ln, T, C);
        conv1d(ln, attn_w, attn_b, qkv, T, C, 3 * C);
        for (int h = 0; h < n_head; h++)
            for (int t = 0; t < T; t++) {
                const double *qt = qkv + (size_t)t * 3 * C + (size_t)h * d;
                for (int s = 0; s < T; s++) {
                    const double *ks = qkv + (size_t)s * 3 * C + C + (size_t)h * d;
                    double dot = 0.0;
                    for (int e = 0; e < d; e++)
                        dot += qt[e] * ks[e];
                    p[s] = dot * scale;
                }
                weights_row(p, NULL, t + 1, T);
                for (int e = 0; e < d; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * 3 * C + 2 * C + (size_t)h * d + e];
                    ctx[(size_t)t * C + (size_t)h * d + e] = acc;
                }
            }
        conv1d(ctx, attn_proj_w, attn_proj_b, proj, T, C, C);
        for (size_t i = 0; i < (size_t)T * C; i++)
            xs[i] += proj[i];

        /* MLP sub-block: out = h + fc_proj(gelu(fc(LN2(h)))) */
        layernorm(xs, ln2_g, ln2_b, ln, T, C);
        conv1d(ln, fc_w, fc_b, fc, T, C, 4 * C);
        for (size_t i = 0; i < (size_t)T * 4 * C; i++)
            fc[i] = gelu_tanh(fc[i]);
        conv1d(fc, fc_proj_w, fc_proj_b, proj, T, 4 * C, C);
        for (size_t i = 0; i < (size_t)T * C; i++)
            out[(size_t)b * T * C + i] = (float)(xs[i] + proj[i]);
    }

    free(xs);
    free(ln);
    free(qkv);
    free(ctx);
    free(proj);
    free(fc);
    free(p);
}
