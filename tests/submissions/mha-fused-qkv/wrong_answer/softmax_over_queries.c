/* Wrong answer: softmax normalised over the query axis (each key column sums to 1) instead of over
 * the keys.
 * Diagnosis: softmax-over-queries
 */
#include <math.h>
#include <stdlib.h>

/* c = a @ W^T: a is (M, K), c is (M, N), W is stored (out, in) = (N, K). */
static void matmul(const float *a, const float *w, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        for (int n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int kk = 0; kk < K; kk++)
                acc += a[(size_t)m * K + kk] * w[(size_t)n * K + kk];
            c[(size_t)m * N + n] = acc;
        }
    }
}

/* One head of attention for one batch element (see the driver for strides). */
static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv,
                   int ld_ctx, int T, int d_head, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    (void)p;
    float *S = malloc((size_t)T * T * sizeof(float));
    if (S == NULL)
        return;
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += q[(size_t)i * ld_q + e] * k[(size_t)j * ld_kv + e];
            S[(size_t)i * T + j] = (j <= i) ? dot * scale : -INFINITY;
        }
    /* softmax down each column j */
    for (int j = 0; j < T; j++) {
        float mx = -INFINITY, sum = 0.0f;
        for (int i = 0; i < T; i++)
            if (S[(size_t)i * T + j] > mx)
                mx = S[(size_t)i * T + j];
        for (int i = 0; i < T; i++) {
            float w = (mx == -INFINITY) ? 0.0f : expf(S[(size_t)i * T + j] - mx);
            S[(size_t)i * T + j] = w;
            sum += w;
        }
        for (int i = 0; i < T; i++)
            if (sum > 0.0f)
                S[(size_t)i * T + j] /= sum;
    }
    for (int i = 0; i < T; i++)
        for (int e = 0; e < d_head; e++) {
            float acc = 0.0f;
            for (int j = 0; j < T; j++)
                acc += S[(size_t)i * T + j] * v[(size_t)j * ld_kv + e];
            ctx[(size_t)i * ld_ctx + e] = acc;
        }
    free(S);
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    const int D = d_model;
    const int D3 = 3 * d_model;
    const int d_head = D / n_heads;

    float *qkv = malloc((size_t)T * D3 * sizeof(float));
    float *ctx = malloc((size_t)T * D * sizeof(float));
    float *p = malloc((size_t)T * sizeof(float));
    if (!qkv || !ctx || !p)
        goto done;

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * D;
        float *ob = out + (size_t)b * T * D;

        /* qkv = x @ w_qkv^T; a row of qkv is [q | k | v]. */
        matmul(xb, w_qkv, qkv, T, D3, D);

        for (int h = 0; h < n_heads; h++) {
            const int c = h * d_head;
            attend(qkv + c, qkv + D + c, qkv + 2 * D + c, ctx + c, D3, D3, D, T, d_head, p);
        }

        matmul(ctx, w_o, ob, T, D, D);
    }

done:
    free(qkv);
    free(ctx);
    free(p);
}
