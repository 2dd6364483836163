/* Accepted: m-k-n loop order for projections and a materialised per-head score matrix. */
#include <math.h>
#include <stdlib.h>

/* c = a @ W^T: a is (M, K), c is (M, N), W is stored (out, in) = (N, K). */
/* Loop order m, kk, n: one row of a is broadcast against the weights and the
 * output row is accumulated in place. */
static void matmul(const float *a, const float *w, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        float *cm = c + (size_t)m * N;
        for (int n = 0; n < N; n++)
            cm[n] = 0.0f;
        for (int kk = 0; kk < K; kk++) {
            const float a_mk = a[(size_t)m * K + kk];
            for (int n = 0; n < N; n++)
                cm[n] += a_mk * w[(size_t)n * K + kk];
        }
    }
}

/* One head of attention for one batch element. q, k, v and ctx point at the
 * head's first column; ld_q, ld_kv and ld_ctx are the row strides (in floats)
 * of the matrices they live in. p is scratch for one row of scores. */
/* This version materialises the whole (T, T) score matrix of the head,
 * normalises it row by row, then forms ctx = P @ V with the loop order
 * i, j, e (each value row is streamed once per query). */
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
            S[(size_t)i * T + j] = dot * scale;
        }

    for (int i = 0; i < T; i++) {
        float *row = S + (size_t)i * T;
        const int n_keys = i + 1;
        for (int j = n_keys; j < T; j++)
            row[j] = 0.0f; /* future keys */
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++)
            if (row[j] > mx)
                mx = row[j];
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            row[j] = expf(row[j] - mx);
            sum += row[j];
        }
        for (int j = 0; j < n_keys; j++)
            row[j] /= sum;
    }

    for (int i = 0; i < T; i++) {
        float *ci = ctx + (size_t)i * ld_ctx;
        for (int e = 0; e < d_head; e++)
            ci[e] = 0.0f;
        for (int j = 0; j < T; j++) {
            const float pij = S[(size_t)i * T + j];
            for (int e = 0; e < d_head; e++)
                ci[e] += pij * v[(size_t)j * ld_kv + e];
        }
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
