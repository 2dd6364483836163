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
/* This version materialises the whole (Tq, Tk) score matrix of the head,
 * normalises it row by row, then forms ctx = P @ V with the loop order
 * i, j, e (each value row is streamed once per query). */
static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv,
                   int ld_ctx, int Tq, int Tk, int d_head, const unsigned char *mask, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    (void)p;
    float *S = malloc((size_t)Tq * Tk * sizeof(float));
    if (S == NULL)
        return;

    for (int i = 0; i < Tq; i++)
        for (int j = 0; j < Tk; j++) {
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += q[(size_t)i * ld_q + e] * k[(size_t)j * ld_kv + e];
            S[(size_t)i * Tk + j] = dot * scale;
        }

    for (int i = 0; i < Tq; i++) {
        float *row = S + (size_t)i * Tk;
        const int n_keys = Tk;
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++)
            if (!(mask && mask[(size_t)i * Tk + j]) && row[j] > mx)
                mx = row[j];
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            row[j] = (mask && mask[(size_t)i * Tk + j]) ? 0.0f : expf(row[j] - mx);
            sum += row[j];
        }
        for (int j = 0; j < n_keys; j++)
            row[j] /= sum;
    }

    for (int i = 0; i < Tq; i++) {
        float *ci = ctx + (size_t)i * ld_ctx;
        for (int e = 0; e < d_head; e++)
            ci[e] = 0.0f;
        for (int j = 0; j < Tk; j++) {
            const float pij = S[(size_t)i * Tk + j];
            for (int e = 0; e < d_head; e++)
                ci[e] += pij * v[(size_t)j * ld_kv + e];
        }
    }
    free(S);
}

void mha_cross(const float *query, const float *key, const float *value, const float *w_q,
               const float *w_k, const float *w_v, const float *w_o, const unsigned char *mask,
               float *out, int B, int Tq, int Tk, int d_model, int num_heads)
{
    const int D = d_model;
    const int d_head = D / num_heads;

    float *q = malloc((size_t)Tq * D * sizeof(float));
    float *k = malloc((size_t)Tk * D * sizeof(float));
    float *v = malloc((size_t)Tk * D * sizeof(float));
    float *ctx = malloc((size_t)Tq * D * sizeof(float));
    float *p = malloc((size_t)Tk * sizeof(float));
    if (!q || !k || !v || !ctx || !p)
        goto done;

    for (int b = 0; b < B; b++) {
        matmul(query + (size_t)b * Tq * D, w_q, q, Tq, D, D);
        matmul(key + (size_t)b * Tk * D, w_k, k, Tk, D, D);
        matmul(value + (size_t)b * Tk * D, w_v, v, Tk, D, D);

        for (int h = 0; h < num_heads; h++) {
            const int c = h * d_head;
            attend(q + c, k + c, v + c, ctx + c, D, D, D, Tq, Tk, d_head, mask, p);
        }

        matmul(ctx, w_o, out + (size_t)b * Tq * D, Tq, D, D);
    }

done:
    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
}
