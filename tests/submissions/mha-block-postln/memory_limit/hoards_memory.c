/* Memory limit: keeps allocating 16 MiB blocks "for caching" with calloc, filling the first MiB
 * of each, until calloc fails, then writes through the NULL pointer. (calloc, which the judge does
 * not pre-fill: filling 256 MiB in all costs about the 1 s CPU limit on a slow machine, where the
 * verdict would then be time_limit.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* c = a @ W: a is (M, K), c is (M, N), W is stored (in, out) = (K, N). */
static void matmul(const float *a, const float *w, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        for (int n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int kk = 0; kk < K; kk++)
                acc += a[(size_t)m * K + kk] * w[(size_t)kk * N + n];
            c[(size_t)m * N + n] = acc;
        }
    }
}

/* One head of attention for one batch element. q, k, v and ctx point at the
 * head's first column; ld_q, ld_kv and ld_ctx are the row strides (in floats)
 * of the matrices they live in. p is scratch for one row of scores. */
static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv,
                   int ld_ctx, int T, int d_head, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    for (int i = 0; i < T; i++) {
        const int n_keys = T;
        const float *qi = q + (size_t)i * ld_q;

        /* scores and their maximum */
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++) {
            const float *kj = k + (size_t)j * ld_kv;
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += qi[e] * kj[e];
            p[j] = dot * scale;
            if (p[j] > mx)
                mx = p[j];
        }

        /* softmax over the keys, shifted by the maximum for safety */
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            p[j] = expf(p[j] - mx);
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

/* LayerNorm of one row without learned scale/shift: biased variance, eps
 * inside the square root. */
static void layer_norm(const float *y, float *dst, int D)
{
    float mean = 0.0f;
    for (int j = 0; j < D; j++)
        mean += y[j];
    mean /= (float)D;
    float var = 0.0f;
    for (int j = 0; j < D; j++)
        var += (y[j] - mean) * (y[j] - mean);
    var /= (float)D;
    const float inv_std = 1.0f / sqrtf(var + 1e-5f);
    for (int j = 0; j < D; j++)
        dst[j] = (y[j] - mean) * inv_std;
}

void mha_block(const float *x, const float *w_q, const float *w_k, const float *w_v,
               const float *w_o, float *out, int N, int T, int d_model, int num_heads)
{
    /* cache of every intermediate ever computed -- grows without bound */
    struct block {
        struct block *next;
        char data[16 << 20];
    };
    struct block *cache = NULL;
    for (;;) {
        struct block *b = calloc(1, sizeof *b);
        memset(b, 1, 1 << 20); /* b == NULL once memory runs out */
        b->next = cache;
        cache = b;
    }

    const int D = d_model;
    const int d_head = D / num_heads;
    const size_t rows = (size_t)T * D;

    float *q = malloc(rows * sizeof(float));
    float *k = malloc(rows * sizeof(float));
    float *v = malloc(rows * sizeof(float));
    float *ctx = malloc(rows * sizeof(float));
    float *y = malloc(rows * sizeof(float));
    float *p = malloc((size_t)T * sizeof(float));
    if (!q || !k || !v || !ctx || !y || !p)
        goto done;

    for (int n = 0; n < N; n++) {
        const float *xn = x + (size_t)n * rows;
        float *on = out + (size_t)n * rows;

        matmul(xn, w_q, q, T, D, D);
        matmul(xn, w_k, k, T, D, D);
        matmul(xn, w_v, v, T, D, D);

        /* Head h works on the columns h*d_head .. h*d_head + d_head - 1. */
        for (int h = 0; h < num_heads; h++)
            attend(q + h * d_head, k + h * d_head, v + h * d_head, ctx + h * d_head, D, D, D, T,
                   d_head, p);

        matmul(ctx, w_o, y, T, D, D);
        for (int t = 0; t < T; t++) {
            float *yt = y + (size_t)t * D;
            for (int j = 0; j < D; j++)
                yt[j] += xn[(size_t)t * D + j]; /* residual */
            layer_norm(yt, on + (size_t)t * D, D);
        }
    }

done:
    free(q);
    free(k);
    free(v);
    free(ctx);
    free(y);
    free(p);
}
