/*
 * Known mistake "w-o-not-transposed" of problem "mha-fused-qkv": an output projection that reads w_o as (in, out).
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
            for (int t = 0; t < T; t++) {
                double m = -INFINITY;
                for (int s = 0; s <= t; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += qkv[(size_t)t * D3 + qc + e] * qkv[(size_t)s * D3 + kc + e];
                    p[s] = dot * scale;
                    if (p[s] > m)
                        m = p[s];
                }
                double sum = 0.0;
                for (int s = 0; s <= t; s++) {
                    p[s] = exp(p[s] - m);
                    sum += p[s];
                }
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * D3 + vc + e];
                    ctx[(size_t)t * D + h * d_head + e] = acc / sum;
                }
            }
        }

        for (int t = 0; t < T; t++) {
            for (int j = 0; j < D; j++) {
                double acc = 0.0;
                for (int i = 0; i < D; i++)
                    acc += ctx[(size_t)t * D + i] * (double)w_o[(size_t)i * D + j];
                ob[(size_t)t * D + j] = (float)acc;
            }
        }
    }

    free(qkv);
    free(ctx);
    free(p);
}
