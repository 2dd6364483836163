/* Wrong answer: subtracts the maximum only when expf itself would overflow (or underflow).
 * A row whose maximum lies between 85 and 88.7 keeps terms near 1e38: finite, but their sum
 * or their product with a value row overflows to infinity.
 * Hidden only: it fails only on a row whose largest score falls in the narrow band 85 to 88.7;
 *   the hidden tests have hundreds of rows to meet one, a readable sample a few dozen, and
 *   the sample tests do show a row with scores in the hundreds (sample-long-large-dense-mask).
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

/* One head of attention for one batch element. q, k, v and ctx point at the
 * head's first column; ld_q, ld_kv and ld_ctx are the row strides (in floats)
 * of the matrices they live in. p is scratch for one row of scores. */
static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv,
                   int ld_ctx, int Tq, int Tk, int d_head, const unsigned char *mask, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    for (int i = 0; i < Tq; i++) {
        const int n_keys = Tk;
        const float *qi = q + (size_t)i * ld_q;

        /* scores and their maximum */
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++) {
            if (mask && mask[(size_t)i * Tk + j]) {
                p[j] = -INFINITY;
                continue;
            }
            const float *kj = k + (size_t)j * ld_kv;
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += qi[e] * kj[e];
            p[j] = dot * scale;
            if (p[j] > mx)
                mx = p[j];
        }

        /* softmax over the keys; shift only when expf would overflow or underflow */
        const float shift = (mx > 88.7f || mx < -87.0f) ? mx : 0.0f;
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            p[j] = expf(p[j] - shift);
            sum += p[j];
        }

        /* weighted sum of the value rows */
        float *ci = ctx + (size_t)i * ld_ctx;
        for (int e = 0; e < d_head; e++) {
            float acc = 0.0f;
            for (int j = 0; j < n_keys; j++)
                acc += p[j] * v[(size_t)j * ld_kv + e];
            ci[e] = acc / sum;
        }
    }
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
