/*
 * Known mistake "softmax-over-queries" of problem "mha-fused-qkv": attention with the softmax taken over the queries instead of the keys.
 *
 * A variant of the reference that differs only by this mistake; the judge
 * runs it on the sample tests to diagnose wrong submissions.
 *
 * Causal multi-head self-attention with one fused projection and no biases,
 * weights stored (out, in) as torch.nn.Linear stores them:
 *     qkv = x @ w_qkv^T        qkv[t][j] = sum_i x[t][i] * w_qkv[j][i]   (B, T, 3*d_model)
 *     q, k, v = the three consecutive d_model-wide slices of qkv
 *     per head h:  A_h = softmax(q_h k_h^T / sqrt(d_head) + causal) v_h
 *     out = concat_h(A_h) @ w_o^T   out[t][j] = sum_i ctx[t][i] * w_o[j][i]
 * Query position t attends to key positions 0..t only.
 *
 * Everything is accumulated in double; only the outputs are rounded to float.
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
            /* The mistake: the softmax runs down each key column (over the
             * queries that may see that key) instead of along each row. */
            double *S = xmalloc((size_t)T * T * sizeof *S);
            for (int t = 0; t < T; t++)
                for (int s = 0; s < T; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += qkv[(size_t)t * D3 + qc + e] * qkv[(size_t)s * D3 + kc + e];
                    S[(size_t)t * T + s] = s <= t ? dot * scale : -INFINITY;
                }
            for (int s = 0; s < T; s++) {
                double m = -INFINITY, sum = 0.0;
                for (int t = s; t < T; t++)
                    if (S[(size_t)t * T + s] > m)
                        m = S[(size_t)t * T + s];
                for (int t = 0; t < T; t++) {
                    S[(size_t)t * T + s] = t >= s ? exp(S[(size_t)t * T + s] - m) : 0.0;
                    sum += S[(size_t)t * T + s];
                }
                for (int t = 0; t < T; t++)
                    S[(size_t)t * T + s] /= sum;
            }
            for (int t = 0; t < T; t++)
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s < T; s++)
                        acc += S[(size_t)t * T + s] * qkv[(size_t)s * D3 + vc + e];
                    ctx[(size_t)t * D + h * d_head + e] = acc;
                }
            free(S);
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
